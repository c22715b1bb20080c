/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gang.h - the five gang policies: jobs and parameters, batch
 * plans, and the ranking of sockets for one job.
 *
 * A gang is a set of applications that run together on the cores of one
 * socket or node (its capacity in cores).  "Power-aware gang scheduling on
 * multicore" (NTUA thesis, 2013), in "The five schedulers", defines GANG,
 * Greedy Thread, Miss-Rate Balance, Miss-Rate Bound and (Greedy)
 * Application-Aware on one 8-core package; here the capacity is a
 * parameter and every policy is deterministic: ties are broken by a stable
 * key (the job id, or the order of the input), and Miss-Rate Bound's
 * random start uses a seeded PRNG.
 *
 * Three forms:
 *  - batch: a set of jobs -> gangs (cosched_gang_plan, below);
 *  - incremental, two ways with the same order:
 *    - the socket index (policy/socket_index.h): sockets bucketed by free
 *      cores, empty or occupied, and categories, answering "best socket for
 *      this job" from the non-empty buckets' heap tops.  This is what the
 *      controller uses to place jobs across the whole cluster: about
 *      0.1-0.5 us per job at 20,000 sockets (cosched-bench-policies(1));
 *    - the ranking (cosched_gang_rank, below): the current occupants of
 *      some sockets and one arriving job -> every socket ranked best-first
 *      with a score, and for every rejected socket the reason.
 *      O(sockets x occupants) plus a sort, no allocation: for explaining a
 *      decision or ranking a small candidate set (about 2 us per job over
 *      64 sockets), not for scanning the cluster (about 1 ms per job over
 *      20,000 sockets).  Its first entry is the index's answer;
 *  - Miss-Rate Bound is online: policy/mrb.h keeps its state across
 *    quanta and rounds.
 *
 * Sources: "Power-aware gang scheduling on multicore", diploma thesis, NTUA
 * CSLab, 2013 ("The five schedulers"); Greedy Thread after Bhadauria and
 * McKee, "An approach to resource-aware co-scheduling for CMPs", ICS 2010.
 * The rules are in cosched-policies(7).
 */
#ifndef COSCHED_GANG_H
#define COSCHED_GANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/model/category.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/model/interference.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/model/policy_name.h"
#include "src/libcosched/conf/policy_params.h"

/* One application as the policies see it. */
typedef struct {
	uint32_t job_id;	/* stable tie-break key */
	const char *name;	/* for messages and tests; may be NULL */
	int threads;		/* requested threads = cores it occupies (>= 1) */
	/* Greedy Thread (the 2013 gang-scheduling thesis; Bhadauria & McKee):
	 * the fewest threads worth running and the count it keeps scaling up
	 * to (from its EDP or time points).  0 = threads.
	 * min <= threads <= max. */
	int min_threads;
	int max_threads;
	/* LLC misses per 1000 instructions: the standalone MPKI for Miss-Rate
	 * Balance, the current (smoothed) MPKI of an occupant for Miss-Rate
	 * Bound's incremental form and Miss-Rate Bound's start value. */
	double mpki;
	cosched_category_t category;	/* Application-Aware; UNKNOWN runs alone */
	long freq_khz;		/* its own lowest-EDP frequency; 0 = unknown */
	/* min_slowdown, for this placement: the largest predicted slowdown
	 * it may cause, the job's own or a co-runner's (0 = no bound;
	 * else 1 .. COSCHED_SLOWDOWN_MAX).  Read only for the arriving job
	 * of a query. */
	double max_slowdown;
} cosched_gang_job_t;

/* Policy defaults: applications per gang (the 2013 gang-scheduling thesis:
 * Miss-Rate Balance and Application-Aware "at most 2"; GANG one; the others
 * unbounded). */
#define COSCHED_GANG_UNLIMITED 0

typedef struct {
	int capacity;		/* cores per gang, 1 .. COSCHED_GANG_MAX_CAPACITY */
	int max_apps;		/* applications per gang, 0 .. capacity;
				 * 0 = policy default */
	double mrb_weight;	/* Miss-Rate Bound EWMA a, (0, 1], default 1/2 */
	double mrb_threshold;	/* Miss-Rate Bound T, > 0, default 12.0 */
	uint64_t seed;		/* Miss-Rate Bound random start */
	/* NULL = the preference table of the 2013 gang-scheduling thesis */
	const cosched_pref_table_t *pref;
	/* min_slowdown: the interference model its costs come from (NULL =
	 * the table of "Effects of co-scheduling applications on multicore
	 * architectures", NTUA thesis, 2014; borrowed, read when an index or
	 * plan is made). */
	const cosched_interference_model_t *interference;
	/* The setting the ranking scores for (false from
	 * cosched_gang_params_init: space sharing).  Time-shared, the
	 * sockets a ranking is given are the gangs of one round of time
	 * slices: min_slowdown then scores each choice by what it does to
	 * the round's throughput (cosched_gang_rank), since a new gang is
	 * one more slice that every program waits through.  The other
	 * policies, the socket index (space sharing) and the batch plan
	 * (time-shared by nature, with its own rule) do not read it. */
	bool time_shared;
} cosched_gang_params_t;

/* Defaults for a capacity (the 2013 gang-scheduling thesis, "Miss-Rate
 * Bound": a = 1/2, T = 12). */
void cosched_gang_params_init(cosched_gang_params_t *p, int capacity);
/* Refuse capacity outside [1, COSCHED_GANG_MAX_CAPACITY], max_apps
 * outside [0, capacity] (every application holds at least one core), a
 * outside (0, 1], T <= 0; the message names the field and the value. */
int cosched_gang_params_check(const cosched_gang_params_t *p,
			      cosched_error_t *err);
/* The applications-per-gang bound a policy applies with these params
 * (0 = unlimited). */
int cosched_gang_max_apps(cosched_policy_t policy,
			  const cosched_gang_params_t *p);
/* Refuse threads < 1, threads > capacity, min/max inconsistent, MPKI < 0
 * or not finite, an invalid category; field prefixes the message. */
int cosched_gang_job_check(const char *field, const cosched_gang_job_t *job,
			   int capacity, cosched_error_t *err);

/* ---- batch form -------------------------------------------------- */

typedef struct {
	size_t job;		/* index into the input jobs */
	int threads;		/* threads it runs with in this gang */
	long freq_khz;		/* its requested frequency (job->freq_khz) */
} cosched_gang_member_t;

typedef struct {
	size_t first;		/* members[first .. first + count) */
	int count;
	int cores;		/* sum of the members' threads */
} cosched_gang_t;

typedef struct {
	cosched_gang_t *gangs;	/* in creation order */
	size_t ngangs;
	cosched_gang_member_t *members;	/* grouped by gang, join order */
	size_t nmembers;
} cosched_gang_plan_t;

/*
 * Pack jobs into gangs with one policy.  plan is filled (free it with
 * cosched_gang_plan_free) or left empty on error.  Miss-Rate Bound's batch
 * form is its start (seeded random gangs, MPKI = jobs[i].mpki) after one
 * end of round.
 */
int cosched_gang_plan(cosched_policy_t policy,
		      const cosched_gang_params_t *params,
		      const cosched_gang_job_t *jobs, size_t njobs,
		      cosched_gang_plan_t *plan, cosched_error_t *err);
void cosched_gang_plan_free(cosched_gang_plan_t *plan);

/*
 * A time-shared plan's value under min_slowdown's model: the throughput
 * of its round-robin with every program counting alike, the sum over
 * programs of 1 / predicted slowdown, over the number of gangs (1 when
 * every program runs alone in its own gang, 8 for eight cpu programs
 * in one).  -1 when the plan does not hold every job once, a gang is
 * empty or over its cores or applications, or a member's max_slowdown
 * is broken.  min_slowdown's plan is never below any other policy's
 * plan by this value (cosched-policies(7)).
 */
double cosched_gang_plan_value(const cosched_gang_params_t *params,
			       const cosched_gang_job_t *jobs, size_t njobs,
			       const cosched_gang_plan_t *plan);

/* ---- incremental form -------------------------------------------- */

typedef struct {
	int capacity;		/* cores */
	int used;		/* cores in use (by anything) */
	const cosched_gang_job_t *occupants;	/* cosched jobs running there */
	int noccupants;		/* occupants' threads = cores they hold */
} cosched_socket_t;

typedef enum {
	COSCHED_REJECT_NONE = 0,	/* accepted */
	COSCHED_REJECT_NO_FREE_CORES,	/* socket full */
	COSCHED_REJECT_GANG_FULL,	/* max_apps applications already */
	COSCHED_REJECT_TOO_FEW_CORES,	/* fewer free cores than needed */
	COSCHED_REJECT_FORBIDDEN_PAIR,	/* preference table "-" */
	COSCHED_REJECT_MPKI_BOUND,	/* combined MPKI above T */
	COSCHED_REJECT_SLOWDOWN_BOUND,	/* min_slowdown: a predicted slowdown
					 * above max_slowdown */
	COSCHED_REJECT_NO_SOCKET,	/* index: no acceptable socket */
	COSCHED_REJECT_INVALID_QUERY,	/* index: query refused (err says why) */
	COSCHED_REJECT_COUNT
} cosched_reject_t;

typedef struct {
	size_t socket;		/* index into the input sockets */
	cosched_reject_t reject;
	/* Accepted: higher is better; each policy's scale is in
	 * cosched-policies(7) (for the contention-aware ones, >= 1 means
	 * joining occupants and 0 an empty socket). */
	double score;
	int threads;		/* threads the job would get there */
	int leftover;		/* free cores after placing it */
	double load;		/* occupants' MPKI sum (Miss-Rate policies), else 0 */
	/* Details for the reason text. */
	int free_cores, need, napps, max_apps;
	cosched_category_t cat_job, cat_other;
	double mpki_combined, threshold;
	/* min_slowdown: the worst predicted slowdown on the socket with the
	 * job there (the job's or a co-runner's), 1 on an empty socket. */
	double slowdown;
} cosched_candidate_t;

/*
 * Rank the sockets for one arriving job.  With params->time_shared the
 * occupied sockets given are the round's gangs, and min_slowdown's score
 * is the change of the round's value (cosched_gang_plan_value's: summed
 * speeds over the gangs) that the job makes: joining gang g of G, the
 * growth of g's summed speeds over G; an empty socket, a new gang,
 * (S + 1) / (G + 1) - S / G for the round's summed speeds S.  So a job
 * joins where its predicted slowdown costs less than one more slice.
 * out must hold nsockets entries:
 * accepted candidates first, best first (score descending, then fewer
 * leftover cores, then lower load, then lower socket index), then the
 * rejected ones in socket order.  *naccepted = how many are accepted (0 =
 * none acceptable; every entry says why).  Fails only on bad input.
 */
int cosched_gang_rank(cosched_policy_t policy,
		      const cosched_gang_params_t *params,
		      const cosched_socket_t *sockets, size_t nsockets,
		      const cosched_gang_job_t *job, cosched_candidate_t *out,
		      size_t *naccepted, cosched_error_t *err);

/* "socket 3: forbidden pair mem+mem", "socket 2: no free cores",
 * "socket 0: accepted, score 1.50, 4 threads".  Returns buf. */
char *cosched_candidate_format(const cosched_candidate_t *c, char *buf,
			       size_t len);
const char *cosched_reject_name(cosched_reject_t r);

#endif
