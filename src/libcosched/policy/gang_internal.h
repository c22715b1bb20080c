/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gang_internal.h - what the gang policy files share (private to
 * the policy layer: policy/gang*.c, policy/socket_index.c,
 * policy/mrb.c, policy/occupancy.c).
 *
 * One scoring rule serves every form: the ranking, the socket index, the
 * batch plans and Miss-Rate Bound all call gang_score_socket(), so the
 * forms cannot disagree on which socket is acceptable or better.
 */
#ifndef COSCHED_GANG_INTERNAL_H
#define COSCHED_GANG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/policy/gang.h"
#include "src/libcosched/policy/heap.h"
#include "src/libcosched/policy/socket_index.h"

/* Category slots in occupancy masks: the four categories and UNKNOWN. */
#define GANG_CAT_SLOTS (COSCHED_CAT_COUNT + 1)
#define GANG_MASK_COUNT (1u << GANG_CAT_SLOTS)
/* No job, no position. */
#define GANG_NONE ((size_t) -1)

/* What a policy needs to score a socket, resolved once. */
typedef struct {
	cosched_policy_t policy;
	int max_apps;		/* 0 = unlimited */
	double threshold;
	cosched_pref_table_t pref;
	/* min_slowdown, by category slot (an unknown category is the
	 * model's worst case): sd[victim][co-runner], the interference
	 * model's pair; join_cost[arriving][present], what one job present
	 * adds to the summed slowdowns when the arriving job joins it, its
	 * own excess and the arriving job's. */
	double sd[GANG_CAT_SLOTS][GANG_CAT_SLOTS];
	double join_cost[GANG_CAT_SLOTS][GANG_CAT_SLOTS];
	/* min_slowdown scores a round of time slices (params->time_shared;
	 * the socket index clears it: it serves space sharing). */
	bool time_shared;
} gang_score_ctx_t;

/* What a socket looks like to the policies. */
typedef struct {
	int capacity;
	int used;
	int napps;
	unsigned mask;		/* categories present, bit CAT_UNKNOWN too */
	double load;		/* MPKI sum (Miss-Rate policies only) */
	const unsigned *catcount;	/* applications per category slot
					 * (min_slowdown only, else NULL) */
	/* Time-shared min_slowdown: the round the socket is a gang of, its
	 * occupied gangs and their summed speeds (gang_count_speed). */
	size_t round_gangs;
	double round_speed;
} gang_socket_agg_t;

void gang_score_ctx_init(gang_score_ctx_t *c, cosched_policy_t policy,
			 const cosched_gang_params_t *p);
/* Score job on socket (see cosched-policies(7) for each policy's scale). */
void gang_score_socket(const gang_score_ctx_t *ctx,
		       const cosched_gang_job_t *job,
		       const gang_socket_agg_t *s, size_t socket,
		       cosched_candidate_t *c);

/* min_slowdown's predicted slowdown of a job of slot v on a socket
 * holding count[] applications per slot, itself included (count[v] >= 1):
 * the interference model's rule for several co-runners. */
double gang_slot_slowdown(const gang_score_ctx_t *c, unsigned v,
			  const unsigned *count);

/* A gang's summed speeds under min_slowdown's model: over the programs
 * of count[] (per category slot), 1 / predicted slowdown each; -1 when a
 * predicted slowdown exceeds bound (INFINITY: none), 0 when empty. */
double gang_count_speed(const gang_score_ctx_t *c, const unsigned *count,
			double bound);

/* min_slowdown's time-shared batch plan made better under the model
 * (policy/gang_improve.c): gang[i] is job i's gang in 0..*ngangs-1, a
 * feasible plan on entry, the improved one on return; starts are other
 * plans of the same jobs to start from (the seed policies'); threads are
 * the requested ones. */
int gang_plan_improve(const cosched_gang_params_t *p,
		      const cosched_gang_job_t *jobs, size_t n,
		      const cosched_gang_plan_t *starts, size_t nstarts,
		      size_t *gang, size_t *ngangs, cosched_error_t *err);
/* Its local search alone, from the plan given (for tests of the moves;
 * gangs 0..*ngangs-1, none empty). */
int gang_plan_local_search(const cosched_gang_params_t *p,
			   const cosched_gang_job_t *jobs, size_t n,
			   size_t *gang, size_t *ngangs, cosched_error_t *err);

/* The small rules below are inline: every placement calls them per
 * candidate socket. */

/*
 * A category's slot in the occupancy masks.  Occupants given to the ranking
 * and jobs given to the index are not validated like arriving jobs, so a
 * value out of range (negative, or past UNKNOWN) counts as unknown, which
 * Application-Aware never pairs with anything.
 */
static inline unsigned gang_cat_slot(cosched_category_t c)
{
	int v = (int) c;
	return v < 0 || v > COSCHED_CAT_UNKNOWN ? COSCHED_CAT_UNKNOWN :
						   (unsigned) v;
}

/*
 * min_slowdown's cost of a job of category slot `slot` joining a socket
 * holding count[] applications per slot: the predicted growth of the
 * summed slowdowns (the job's own excess plus each present job's new
 * excess; additive, model/interference.h).  Inline: the socket index
 * keeps it per socket and slot, and scores the same sum.
 */
static inline double gang_join_cost(const gang_score_ctx_t *c, unsigned slot,
				    const unsigned *count)
{
	double x = 0.0;

	for (unsigned k = 0; k < GANG_CAT_SLOTS; k++)
		if (count[k])
			x += (double) count[k] * c->join_cost[slot][k];
	return x;
}

/* Whether a policy orders sockets by their MPKI load. */
static inline bool gang_policy_uses_load(cosched_policy_t p)
{
	return p == COSCHED_POLICY_MISS_RATE_BALANCE ||
	       p == COSCHED_POLICY_MISS_RATE_BOUND;
}

/* Whether the index's heaps of a policy are in socket order within a
 * bucket (every socket of a bucket scores alike), which is what a
 * first-fit query reads. */
static inline bool gang_index_by_socket(cosched_policy_t p)
{
	return !gang_policy_uses_load(p) && p != COSCHED_POLICY_MIN_SLOWDOWN;
}

static inline int gang_job_min(const cosched_gang_job_t *j)
{
	return j->min_threads > 0 ? j->min_threads : j->threads;
}

static inline int gang_job_max(const cosched_gang_job_t *j)
{
	return j->max_threads > 0 ? j->max_threads : j->threads;
}

/* The cores a job needs to be admitted: Greedy Thread admits a program at
 * its minimum core count ("Power-aware gang scheduling on multicore", NTUA
 * thesis, 2013, Greedy Thread step 2); the others need the requested
 * threads. */
static inline int gang_cores_needed(cosched_policy_t policy,
				    const cosched_gang_job_t *j)
{
	return policy == COSCHED_POLICY_GREEDY_THREAD ? gang_job_min(j) :
							j->threads;
}

/* Rank order: score desc, leftover asc, load asc, socket asc. */
static inline bool gang_cand_better(const cosched_candidate_t *a,
				    const cosched_candidate_t *b)
{
	if (a->score != b->score)
		return a->score > b->score;
	if (a->leftover != b->leftover)
		return a->leftover < b->leftover;
	if (a->load != b->load)
		return a->load < b->load;
	return a->socket < b->socket;
}

/* Check every job of an input array (field "jobs[i]"). */
/* cosched_gang_rank in two: the checks of policy, params and job, then
 * (ctx from gang_score_ctx_init with those) the ranking (the placement
 * engine ranks unit after unit for one job). */
int gang_rank_check(cosched_policy_t policy,
		    const cosched_gang_params_t *params,
		    const cosched_gang_job_t *job, cosched_error_t *err);
int gang_rank_checked(const gang_score_ctx_t *ctx,
		      const cosched_socket_t *sockets, size_t nsockets,
		      const cosched_gang_job_t *job, cosched_candidate_t *out,
		      size_t *naccepted, cosched_error_t *err);

int gang_jobs_check(const cosched_gang_job_t *jobs, size_t n, int capacity,
		    cosched_error_t *err);

/* Job indices 0..n-1 sorted by cmp(jobs, a, b) (ties must be broken);
 * malloc'd, NULL when out of memory.  gang_sort_indices sorts given
 * indices in place. */
typedef int (*gang_job_cmp_fn)(const cosched_gang_job_t *jobs, size_t a,
			       size_t b);
size_t *gang_sorted_indices(const cosched_gang_job_t *jobs, size_t n,
			    gang_job_cmp_fn cmp);
void gang_sort_indices(size_t *idx, size_t n, const cosched_gang_job_t *jobs,
		       gang_job_cmp_fn cmp);

/* A socket as the index holds it (cosched_occupancy_check compares it
 * with its own ledger).  -1 when the socket is out of range. */
typedef struct {
	int capacity;
	int used;		/* co-runners' and foreign cores */
	int foreign;
	int napps;
	unsigned catcount[GANG_CAT_SLOTS];
	double load;
	bool available;
} gang_index_socket_t;
int gang_index_socket(const cosched_socket_index_t *x, size_t socket,
		      gang_index_socket_t *out);
/* A socket's cores and those used (co-runners' and foreign): 1 when it
 * is available, 0 when not, -1 when it is out of range. */
int gang_index_socket_room(const cosched_socket_index_t *x, size_t socket,
			   int *capacity, int *used);

/* The index's own arrays, for the unit tests of the self-check
 * (testsuite/unit/test_occupancy.c) to plant corruption in; no library
 * code writes through it. */
typedef struct {
	size_t nsockets, nbuckets;
	size_t per_free;		/* buckets per free-core count: bucket b
					 * is bit b % per_free of fbits[b /
					 * per_free] */
	int *used, *napps;
	unsigned *catcount;
	double *load;
	long *bucket;
	cosched_heap_t *minh;		/* nbuckets heaps by lowest load */
	cosched_heap_order_t *min_order;
	uint64_t *fbits, *fany;
} gang_index_raw_t;
void gang_index_raw(cosched_socket_index_t *x, gang_index_raw_t *raw);
/* The index an occupancy keeps, for the same tests (they change it behind
 * the occupancy's back to see cosched_occupancy_check notice). */
struct cosched_occupancy;
cosched_socket_index_t *gang_occupancy_index(struct cosched_occupancy *o);

#endif
