/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mrb.c - Miss-Rate Bound, online ("Power-aware gang scheduling on
 * multicore", diploma thesis, NTUA CSLab, 2013, "The five schedulers",
 * Miss-Rate Bound).
 *
 * Gangs live in slots 0..njobs-1 (never more gangs than jobs); a socket
 * index over the slots, with the gangs' MPKI sums as loads, answers "where
 * does this job fit" in the same order as the other policies.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/policy/gang_internal.h"
#include "src/libcosched/policy/mrb.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/random.h"
#include "src/libcosched/policy/socket_index.h"

struct cosched_mrb {
	cosched_gang_params_t params;
	int max_apps;
	size_t njobs;
	cosched_gang_job_t *jobs;	/* copy; mpki = current smoothed MPKI */
	int *gang_of;
	size_t *next, *prev;		/* member lists, GANG_NONE-terminated */
	size_t nslots;			/* = njobs: never more gangs than jobs */
	size_t *head, *tail;
	int *cores, *napps;
	double *gang_mpki;		/* per gang: sum of members' MPKI */
	unsigned *born;			/* round a gang was opened in */
	size_t *free_slots;
	size_t nfree;
	unsigned round;
	cosched_socket_index_t *idx;	/* gangs by free cores and MPKI */
	cosched_mrb_move_t *moves;
	size_t nmoves, moves_cap;
	size_t *tmp;			/* one gang's members, sorted */
};

void cosched_mrb_free(cosched_mrb_t *s)
{
	if (!s)
		return;
	cosched_socket_index_free(s->idx);
	free(s->jobs);
	free(s->gang_of);
	free(s->next);
	free(s->prev);
	free(s->head);
	free(s->tail);
	free(s->cores);
	free(s->napps);
	free(s->gang_mpki);
	free(s->born);
	free(s->free_slots);
	free(s->moves);
	free(s->tmp);
	free(s);
}

static int mrb_join(cosched_mrb_t *s, size_t j, size_t g, cosched_error_t *err)
{
	if (cosched_socket_index_add(s->idx, g, &s->jobs[j], s->jobs[j].threads,
				     err) < 0)
		return -1;
	s->gang_of[j] = (int)g;
	s->next[j] = GANG_NONE;
	s->prev[j] = s->tail[g];
	if (s->tail[g] != GANG_NONE)
		s->next[s->tail[g]] = j;
	else
		s->head[g] = j;
	s->tail[g] = j;
	s->cores[g] += s->jobs[j].threads;
	s->napps[g]++;
	s->gang_mpki[g] += s->jobs[j].mpki;
	return 0;
}

/* Back into the gang it just left (mrb_move's undo). */
static int mrb_rejoin(cosched_mrb_t *s, size_t j, size_t g,
		      cosched_error_t *err)
{
	for (size_t k = 0; k < s->nfree; k++)
		if (s->free_slots[k] == g) {
			/* It was the gang's last member: take the slot back. */
			s->free_slots[k] = s->free_slots[--s->nfree];
			break;
		}
	return mrb_join(s, j, g, err);
}

static bool slot_is_free(const cosched_mrb_t *s, size_t g)
{
	for (size_t k = 0; k < s->nfree; k++)
		if (s->free_slots[k] == g)
			return true;
	return false;
}

static int mrb_leave(cosched_mrb_t *s, size_t j, cosched_error_t *err)
{
	size_t g = (size_t)s->gang_of[j];

	if (cosched_socket_index_remove(s->idx, g, &s->jobs[j],
					s->jobs[j].threads, err) < 0)
		return -1;
	if (s->prev[j] != GANG_NONE)
		s->next[s->prev[j]] = s->next[j];
	else
		s->head[g] = s->next[j];
	if (s->next[j] != GANG_NONE)
		s->prev[s->next[j]] = s->prev[j];
	else
		s->tail[g] = s->prev[j];
	s->cores[g] -= s->jobs[j].threads;
	s->napps[g]--;
	s->gang_mpki[g] -= s->jobs[j].mpki;
	if (s->napps[g] == 0) {
		s->gang_mpki[g] = 0;
		s->free_slots[s->nfree++] = g;	/* gang removed */
	}
	s->gang_of[j] = -1;
	return 0;
}

static size_t mrb_new_slot(cosched_mrb_t *s)
{
	size_t g = s->free_slots[--s->nfree];
	s->born[g] = s->round;
	return g;
}

/* Shared by both starts: initial_gang NULL = seeded random gangs. */
static cosched_mrb_t *mrb_create(const cosched_gang_params_t *params,
				 const cosched_gang_job_t *jobs, size_t njobs,
				 const int *initial_gang, cosched_error_t *err)
{
	cosched_mrb_t *s;
	size_t *perm = NULL, g = 0;
	size_t n1 = njobs + 1;

	if (cosched_gang_params_check(params, err) < 0 ||
	    gang_jobs_check(jobs, njobs, params->capacity, err) < 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		cosched_error_set(err, "miss_rate_bound: out of memory");
		return NULL;
	}
	s->params = *params;
	s->max_apps = cosched_gang_max_apps(COSCHED_POLICY_MISS_RATE_BOUND,
					    params);
	s->njobs = s->nslots = njobs;
	s->moves_cap = n1;
	s->jobs = malloc(n1 * sizeof(*s->jobs));
	s->gang_of = malloc(n1 * sizeof(int));
	s->next = malloc(n1 * sizeof(size_t));
	s->prev = malloc(n1 * sizeof(size_t));
	s->head = malloc(n1 * sizeof(size_t));
	s->tail = malloc(n1 * sizeof(size_t));
	s->cores = calloc(n1, sizeof(int));
	s->napps = calloc(n1, sizeof(int));
	s->gang_mpki = calloc(n1, sizeof(double));
	s->born = calloc(n1, sizeof(unsigned));
	s->free_slots = malloc(n1 * sizeof(size_t));
	s->moves = malloc(n1 * sizeof(*s->moves));
	s->tmp = malloc(n1 * sizeof(size_t));
	perm = malloc(n1 * sizeof(size_t));
	if (!s->jobs || !s->gang_of || !s->next || !s->prev || !s->head ||
	    !s->tail || !s->cores || !s->napps || !s->gang_mpki || !s->born ||
	    !s->free_slots || !s->moves || !s->tmp || !perm)
		goto oom;
	s->idx = cosched_socket_index_create(COSCHED_POLICY_MISS_RATE_BOUND,
					     params, njobs, NULL, err);
	if (!s->idx)
		goto fail;
	if (njobs)
		memcpy(s->jobs, jobs, njobs * sizeof(*jobs));
	for (size_t i = 0; i < njobs; i++) {
		s->head[i] = s->tail[i] = GANG_NONE;
		s->gang_of[i] = -1;
		perm[i] = i;
	}
	if (initial_gang) {
		for (size_t j = 0; j < njobs; j++) {
			int ig = initial_gang[j];
			if (ig < 0 || (size_t)ig >= njobs) {
				cosched_error_set(err,
					"initial_gang[%zu]: must be in [0, %zu), got %d",
					j, njobs, ig);
				goto fail;
			}
			if (s->cores[ig] + jobs[j].threads > params->capacity) {
				cosched_error_set(err,
					"initial_gang[%zu]: gang %d would hold %d cores, capacity %d",
					j, ig, s->cores[ig] + jobs[j].threads,
					params->capacity);
				goto fail;
			}
			if (s->max_apps > 0 && s->napps[ig] >= s->max_apps) {
				cosched_error_set(err,
					"initial_gang[%zu]: gang %d would hold %d applications, max_apps %d",
					j, ig, s->napps[ig] + 1, s->max_apps);
				goto fail;
			}
			if (mrb_join(s, j, (size_t)ig, err) < 0)
				goto fail;
		}
	} else {
		/* Start: random gangs (the 2013 gang-scheduling thesis,
		 * "Miss-Rate Bound"), made deterministic by the seed:
		 * Fisher-Yates shuffle with splitmix64, then next fit into
		 * gangs of the capacity. */
		cosched_shuffle(perm, njobs, sizeof(*perm), params->seed);
		for (size_t k = 0; k < njobs; k++) {
			size_t j = perm[k];
			if (s->napps[g] > 0 &&
			    (s->cores[g] + jobs[j].threads > params->capacity ||
			     (s->max_apps > 0 && s->napps[g] >= s->max_apps)))
				g++;
			if (mrb_join(s, j, g, err) < 0)
				goto fail;
		}
	}
	/* Unused slots, lowest on top of the stack. */
	for (size_t k = njobs; k > 0; k--)
		if (s->napps[k - 1] == 0)
			s->free_slots[s->nfree++] = k - 1;
	free(perm);
	return s;
oom:
	cosched_error_set(err, "miss_rate_bound: out of memory for %zu jobs",
			  njobs);
fail:
	free(perm);
	cosched_mrb_free(s);
	return NULL;
}

cosched_mrb_t *cosched_mrb_create(const cosched_gang_params_t *params,
				  const cosched_gang_job_t *jobs, size_t njobs,
				  cosched_error_t *err)
{
	return mrb_create(params, jobs, njobs, NULL, err);
}

cosched_mrb_t *cosched_mrb_create_from(const cosched_gang_params_t *params,
				       const cosched_gang_job_t *jobs,
				       size_t njobs, const int *initial_gang,
				       cosched_error_t *err)
{
	if (!initial_gang) {
		cosched_error_set(err, "initial_gang: NULL");
		return NULL;
	}
	return mrb_create(params, jobs, njobs, initial_gang, err);
}

int cosched_mrb_feed(cosched_mrb_t *s, size_t job, double mpki_sample,
		     cosched_error_t *err)
{
	if (job >= s->njobs)
		return cosched_error_set(err,
			"job: index %zu out of range (%zu jobs)", job, s->njobs);
	if (!isfinite(mpki_sample) || mpki_sample < 0)
		return cosched_error_set(err,
			"mpki_sample: must be a finite number >= 0, got %g",
			mpki_sample);
	/* Smoothed MPKI = a x current + (1 - a) x previous, kept per
	 * application: the gang's MPKI is their sum, which equals the thesis's
	 * gang-level EWMA while membership is unchanged and stays defined
	 * when applications move. */
	s->jobs[job].mpki = cosched_ewma(s->jobs[job].mpki, mpki_sample,
					 s->params.mrb_weight);
	return 0;
}

/*
 * Move job j to gang to, all or nothing: when it cannot join (the index is
 * out of memory) it goes back where it was, which cannot fail (its old
 * gang's heaps still have its room), so no job is ever left in no gang.
 */
static int mrb_move(cosched_mrb_t *s, size_t j, size_t to,
		    cosched_mrb_move_kind_t kind, cosched_error_t *err)
{
	cosched_mrb_move_t *m;
	int from = s->gang_of[j];

	/* Usually at most one move per job and round; an application can
	 * move twice when a gang sits exactly at T, so the list grows. */
	if (s->nmoves == s->moves_cap) {
		size_t nc = 2 * s->moves_cap;
		cosched_mrb_move_t *nm = realloc(s->moves, nc * sizeof(*nm));
		if (!nm)
			return cosched_error_set(err,
				"miss_rate_bound: out of memory for moves");
		s->moves = nm;
		s->moves_cap = nc;
	}
	m = &s->moves[s->nmoves];
	if (mrb_leave(s, j, err) < 0)
		return -1;
	if (mrb_join(s, j, to, err) < 0) {
		cosched_error_t ignored;
		/* Back to its own gang: a slot handed out by mrb_new_slot()
		 * and left empty goes back on the free list first. */
		if (s->napps[to] == 0 && !slot_is_free(s, to))
			s->free_slots[s->nfree++] = to;
		(void) mrb_rejoin(s, j, (size_t) from, &ignored);
		return -1;
	}
	m->job = j;
	m->job_id = s->jobs[j].job_id;
	m->from_gang = from;
	m->to_gang = (int)to;
	m->kind = kind;
	m->mpki = s->jobs[j].mpki;
	s->nmoves++;
	return 0;
}

static int cmp_mpki_asc(const cosched_gang_job_t *jobs, size_t ia, size_t ib)
{
	const cosched_gang_job_t *a = &jobs[ia], *b = &jobs[ib];

	if (a->mpki != b->mpki)
		return a->mpki < b->mpki ? -1 : 1;
	if (a->job_id != b->job_id)
		return a->job_id < b->job_id ? -1 : 1;
	return ia < ib ? -1 : 1;
}

/*
 * The occupied gang where job j fits best, never its own gang g.  *to is a
 * slot or COSCHED_INDEX_NONE.
 */
static int mrb_best_other(cosched_mrb_t *s, size_t g, size_t j, long *to,
			  cosched_error_t *err)
{
	*to = cosched_socket_index_best_except(s->idx, &s->jobs[j],
					       COSCHED_INDEX_OCCUPIED_ONLY, &g, 1,
					       NULL, err);
	return *to == COSCHED_INDEX_INVALID ? -1 : 0;
}

/* Split gang g while it holds more than one application and its MPKI is at
 * or above T: more than one move per round when one is not enough. */
static int mrb_split(cosched_mrb_t *s, size_t g, cosched_error_t *err)
{
	const double T = s->params.mrb_threshold;

	while (s->napps[g] > 1 && s->gang_mpki[g] >= T) {
		size_t n = 0, cand = GANG_NONE;
		long to = -1;

		for (size_t j = s->head[g]; j != GANG_NONE; j = s->next[j])
			s->tmp[n++] = j;
		gang_sort_indices(s->tmp, n, s->jobs, cmp_mpki_asc);
		/* The lowest-MPKI application whose removal brings g below T. */
		for (size_t k = 0; k < n; k++)
			if (s->gang_mpki[g] - s->jobs[s->tmp[k]].mpki < T) {
				cand = s->tmp[k];
				break;
			}
		/* Into a gang where it fits (cores and combined MPKI). */
		if (cand != GANG_NONE && mrb_best_other(s, g, cand, &to, err) < 0)
			return -1;
		if (to >= 0) {
			if (mrb_move(s, cand, (size_t)to, COSCHED_MRB_MOVE_SPLIT,
				     err) < 0)
				return -1;
			continue;
		}
		/* No gang can take it: g's highest-MPKI application to a new
		 * gang. */
		if (mrb_move(s, s->tmp[n - 1], mrb_new_slot(s),
			     COSCHED_MRB_MOVE_NEW_GANG, err) < 0)
			return -1;
	}
	return 0;
}

int cosched_mrb_end_round(cosched_mrb_t *s, const cosched_mrb_move_t **moves,
			  size_t *nmoves, cosched_error_t *err)
{
	s->round++;
	s->nmoves = 0;
	/* Gang MPKI = sum of its applications' smoothed MPKI. */
	for (size_t g = 0; g < s->nslots; g++) {
		double sum = 0;
		if (s->napps[g] == 0)
			continue;
		for (size_t j = s->head[g]; j != GANG_NONE; j = s->next[j])
			sum += s->jobs[j].mpki;
		s->gang_mpki[g] = sum;
		/* Sums of checked, finite MPKIs: cannot be refused. */
		if (cosched_socket_index_set_load(s->idx, g, sum, err) < 0)
			return -1;
	}
	/* Every gang that existed when the round began, in slot order. */
	for (size_t g = 0; g < s->nslots; g++) {
		if (s->napps[g] == 0 || s->born[g] >= s->round)
			continue;
		if (s->napps[g] == 1) {
			/* A singleton moves into another gang where it fits,
			 * and its gang is removed. */
			size_t j = s->head[g];
			long to;
			if (mrb_best_other(s, g, j, &to, err) < 0)
				return -1;
			if (to >= 0 &&
			    mrb_move(s, j, (size_t)to, COSCHED_MRB_MOVE_MERGE,
				     err) < 0)
				return -1;
			continue;
		}
		if (s->gang_mpki[g] < s->params.mrb_threshold)
			continue;
		if (mrb_split(s, g, err) < 0)
			return -1;
	}
	if (moves)
		*moves = s->moves;
	if (nmoves)
		*nmoves = s->nmoves;
	return 0;
}

size_t cosched_mrb_gang_slots(const cosched_mrb_t *s)
{
	return s->nslots;
}

size_t cosched_mrb_gang_count(const cosched_mrb_t *s)
{
	return s->nslots - s->nfree;
}

static bool slot_ok(const cosched_mrb_t *s, int g)
{
	return g >= 0 && (size_t)g < s->nslots;
}

int cosched_mrb_gang_cores(const cosched_mrb_t *s, int g)
{
	return slot_ok(s, g) ? s->cores[g] : 0;
}

int cosched_mrb_gang_napps(const cosched_mrb_t *s, int g)
{
	return slot_ok(s, g) ? s->napps[g] : 0;
}

double cosched_mrb_gang_mpki(const cosched_mrb_t *s, int g)
{
	double sum = 0;
	if (!slot_ok(s, g))
		return 0;
	for (size_t j = s->head[g]; j != GANG_NONE; j = s->next[j])
		sum += s->jobs[j].mpki;
	return sum;
}

int cosched_mrb_job_gang(const cosched_mrb_t *s, size_t job)
{
	return job < s->njobs ? s->gang_of[job] : -1;
}

double cosched_mrb_job_mpki(const cosched_mrb_t *s, size_t job)
{
	return job < s->njobs ? s->jobs[job].mpki : NAN;
}

int cosched_mrb_snapshot(const cosched_mrb_t *s, cosched_gang_plan_t *plan,
			 cosched_error_t *err)
{
	size_t ng = 0, nm = 0;

	memset(plan, 0, sizeof(*plan));
	plan->gangs = calloc(s->nslots + 1, sizeof(*plan->gangs));
	plan->members = malloc((s->njobs + 1) * sizeof(*plan->members));
	if (!plan->gangs || !plan->members) {
		cosched_gang_plan_free(plan);
		return cosched_error_set(err, "snapshot: out of memory");
	}
	for (size_t g = 0; g < s->nslots; g++) {
		cosched_gang_t *pg;
		if (s->napps[g] == 0)
			continue;
		pg = &plan->gangs[ng++];
		pg->first = nm;
		for (size_t j = s->head[g]; j != GANG_NONE; j = s->next[j]) {
			cosched_gang_member_t *m = &plan->members[nm++];
			m->job = j;
			m->threads = s->jobs[j].threads;
			m->freq_khz = s->jobs[j].freq_khz;
			pg->count++;
			pg->cores += m->threads;
		}
	}
	plan->ngangs = ng;
	plan->nmembers = nm;
	return 0;
}
