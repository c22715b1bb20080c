/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gang_improve.c - min_slowdown's time-shared batch plan made as good as
 * the model can tell: the best of every seed policy's plan and its own,
 * improved by moves, swaps and merges of programs between gangs until
 * none helps; an exact search over partitions when the programs are few.
 *
 * The value of a plan under the model is the throughput of its
 * round-robin with every program counting alike: the programs' summed
 * speeds (1 / predicted slowdown, gang_slot_slowdown) over the number of
 * gangs.  A gang's speed depends only on how many programs of each
 * category it holds, so every candidate is scored from counts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/policy/gang_internal.h"

/* Exact search: 3^n x n steps (about 50,000 at 8 programs, 6 million at
 * 12), cheap enough for any plan at or below this size. */
#define GANG_EXACT_MAX 8
/* Local search: O(n^2) candidates per pass; above this many programs the
 * plan is the best of the starts (the seed policies' plans take
 * O(n log n)), so a large batch stays as fast as the seed policies. */
#define GANG_IMPROVE_MAX 256
/* A candidate must beat the current value by this relative margin, so
 * rounding cannot make the search cycle. */
#define GANG_IMPROVE_EPS 1e-12

/* A gang as the model sees it. */
typedef struct {
	int cores, napps;
	unsigned cnt[GANG_CAT_SLOTS];
	double bound;		/* smallest max_slowdown of its members */
} agg_t;

typedef struct {
	gang_score_ctx_t ctx;
	int capacity, max_apps;
	const cosched_gang_job_t *jobs;
	const int *threads;	/* per job; NULL: the requested ones */
	size_t n;
} model_t;

static void model_init(model_t *m, const cosched_gang_params_t *p,
		       const cosched_gang_job_t *jobs, size_t n)
{
	gang_score_ctx_init(&m->ctx, COSCHED_POLICY_MIN_SLOWDOWN, p);
	m->capacity = p->capacity;
	m->max_apps = cosched_gang_max_apps(COSCHED_POLICY_MIN_SLOWDOWN, p);
	m->jobs = jobs;
	m->threads = NULL;
	m->n = n;
}

static const agg_t agg_empty = { .bound = INFINITY };

static void agg_add(agg_t *a, const cosched_gang_job_t *j, int threads)
{
	a->cores += threads;
	a->napps++;
	a->cnt[gang_cat_slot(j->category)]++;
	if (j->max_slowdown > 0 && j->max_slowdown < a->bound)
		a->bound = j->max_slowdown;
}

static void agg_union(agg_t *a, const agg_t *b)
{
	a->cores += b->cores;
	a->napps += b->napps;
	for (unsigned v = 0; v < GANG_CAT_SLOTS; v++)
		a->cnt[v] += b->cnt[v];
	a->bound = fmin(a->bound, b->bound);
}

/* The gang's summed speeds, or -1 when the gang is not allowed: more
 * cores than the capacity, more programs than max_apps, or a predicted
 * slowdown above a member's max_slowdown (the bound min_slowdown's
 * greedy plan keeps).  An empty gang: 0. */
static double agg_speed(const model_t *m, const agg_t *a)
{
	if (a->cores > m->capacity ||
	    (m->max_apps > 0 && a->napps > m->max_apps))
		return -1;
	return gang_count_speed(&m->ctx, a->cnt, a->bound);
}

static void agg_add_job(agg_t *a, const model_t *m, size_t i)
{
	agg_add(a, &m->jobs[i], m->threads ? m->threads[i] : m->jobs[i].threads);
}

/* Gang g's aggregate without job skip (GANG_NONE: all of it). */
static agg_t agg_of(const model_t *m, const size_t *gang, size_t g,
		    size_t skip)
{
	agg_t a = agg_empty;

	for (size_t i = 0; i < m->n; i++)
		if (gang[i] == g && i != skip)
			agg_add_job(&a, m, i);
	return a;
}

/* The plan's value, or -1 when a gang is not allowed. */
static double plan_value(const model_t *m, const size_t *gang, size_t ngangs)
{
	double s = 0;

	if (ngangs == 0)
		return 0;
	for (size_t g = 0; g < ngangs; g++) {
		agg_t a = agg_of(m, gang, g, GANG_NONE);
		double x = agg_speed(m, &a);
		if (x < 0 || a.napps == 0)
			return -1;
		s += x;
	}
	return s / (double) ngangs;
}

/* ---- exact search ------------------------------------------------ */

/* The tables of the exact search, about 30 kB: on the heap, since
 * slurmctld's threads have small stacks. */
enum { EXACT_MASKS = 1u << GANG_EXACT_MAX, EXACT_K = GANG_EXACT_MAX + 1 };
typedef struct {
	double sp[EXACT_MASKS];			/* a subset as one gang */
	double f[EXACT_MASKS][EXACT_K];		/* best sum into k gangs */
	unsigned pick[EXACT_MASKS][EXACT_K];	/* its gang holding the
						 * lowest program */
} exact_tables_t;

/* The best partition of n <= GANG_EXACT_MAX programs: the largest summed
 * speeds into k gangs for every k, by dynamic programming over subsets
 * (each split takes the subset holding the lowest program), then the
 * best ratio.  Returns its value, -1 when nothing fits, -2 when out of
 * memory. */
static double exact_search(const model_t *m, size_t *gang, size_t *ngangs)
{
	exact_tables_t *t = malloc(sizeof(*t));
	double *sp, (*f)[EXACT_K];
	unsigned (*pick)[EXACT_K];
	size_t n = m->n, nm = (size_t) 1 << n, bestk = 0;
	double best = -1;

	if (!t)
		return -2;
	sp = t->sp;
	f = t->f;
	pick = t->pick;

	for (size_t s = 1; s < nm; s++) {
		agg_t a = agg_empty;
		for (size_t i = 0; i < n; i++)
			if (s & ((size_t) 1 << i))
				agg_add_job(&a, m, i);
		sp[s] = agg_speed(m, &a);
	}
	for (size_t s = 0; s < nm; s++)
		for (size_t k = 0; k <= n; k++)
			f[s][k] = (s == 0 && k == 0) ? 0 : -1;
	for (size_t s = 1; s < nm; s++) {
		size_t low = s & (~s + 1);
		for (size_t sub = s; sub; sub = (sub - 1) & s) {
			if (!(sub & low) || sp[sub] < 0)
				continue;
			for (size_t k = 1; k <= n; k++) {
				double rest = f[s ^ sub][k - 1];
				if (rest >= 0 && sp[sub] + rest > f[s][k]) {
					f[s][k] = sp[sub] + rest;
					pick[s][k] = (unsigned) sub;
				}
			}
		}
	}
	for (size_t k = 1; k <= n; k++)
		if (f[nm - 1][k] >= 0 && f[nm - 1][k] / (double) k > best) {
			best = f[nm - 1][k] / (double) k;
			bestk = k;
		}
	if (bestk == 0) {
		free(t);
		return -1;
	}
	*ngangs = 0;
	for (size_t s = nm - 1, k = bestk; s; k--) {
		size_t sub = pick[s][k];
		for (size_t i = 0; i < n; i++)
			if (sub & ((size_t) 1 << i))
				gang[i] = *ngangs;
		(*ngangs)++;
		s ^= sub;
	}
	free(t);
	return best;
}

/* ---- local search ------------------------------------------------ */

typedef enum {
	MOVE_NONE, MOVE_TO, MOVE_SWAP, MOVE_MERGE, MOVE_TO_MERGE
} move_kind_t;

typedef struct {
	move_kind_t kind;
	size_t a, b;		/* jobs (TO: job a to gang b; SWAP: jobs a,
				 * b), or gangs (MERGE: gang a into b) */
	size_t c;		/* TO_MERGE: job a to gang b, then the rest
				 * of its gang into gang c */
	double value;
} move_t;

static void consider(move_t *best, move_kind_t kind, size_t a, size_t b,
		     size_t c, double s, size_t g)
{
	double v = s / (double) g;

	if (v > best->value * (1 + GANG_IMPROVE_EPS)) {
		best->kind = kind;
		best->a = a;
		best->b = b;
		best->c = c;
		best->value = v;
	}
}

/* Gang `from` removed by giving its number to the last gang. */
static void drop_gang(size_t *gang, size_t n, size_t *ngangs, size_t from)
{
	size_t last = --(*ngangs);

	for (size_t i = 0; i < n; i++)
		if (gang[i] == last)
			gang[i] = from;
}

/*
 * Best-improvement local search: every pass scores every move of a
 * program to another gang or a new one, every swap of two programs of
 * different gangs and every merge of two gangs, and applies the best if
 * it raises the value; where none does, every move followed by a merge
 * of what it left behind.  It stops at a plan no step improves.  Each
 * applied step raises the value, so it ends.
 */
static int local_search(const model_t *m, size_t *gang, size_t *ngangs,
			double value, cosched_error_t *err)
{
	size_t n = m->n;
	agg_t *g_agg = malloc((n + 1) * sizeof(*g_agg));
	agg_t *without = malloc((n + 1) * sizeof(*without));
	double *g_sp = malloc((n + 1) * sizeof(*g_sp));
	double *w_sp = malloc((n + 1) * sizeof(*w_sp));

	if (!g_agg || !without || !g_sp || !w_sp) {
		free(g_agg);
		free(without);
		free(g_sp);
		free(w_sp);
		return cosched_error_set(err, "min_slowdown: out of memory");
	}
	for (;;) {
		size_t G = *ngangs;
		double S = value * (double) G;
		move_t best = { .kind = MOVE_NONE, .value = value };

		for (size_t g = 0; g < G; g++) {
			g_agg[g] = agg_of(m, gang, g, GANG_NONE);
			g_sp[g] = agg_speed(m, &g_agg[g]);
		}
		for (size_t i = 0; i < n; i++) {
			without[i] = agg_of(m, gang, gang[i], i);
			w_sp[i] = agg_speed(m, &without[i]);
		}
		for (size_t i = 0; i < n; i++) {
			size_t a = gang[i];
			bool alone = without[i].napps == 0;

			if (w_sp[i] < 0)
				continue;	/* its gang breaks a bound without it */
			/* Moves: to another gang, or to a new one. */
			for (size_t b = 0; b <= G; b++) {
				agg_t to = b < G ? g_agg[b] : agg_empty;
				double sb;

				if (b == a || (b == G && alone))
					continue;
				agg_add_job(&to, m, i);
				sb = agg_speed(m, &to);
				if (sb < 0)
					continue;
				consider(&best, MOVE_TO, i, b, 0,
					 S - g_sp[a] + w_sp[i] + sb -
					 (b < G ? g_sp[b] : 0),
					 G + (b == G) - alone);
			}
			/* Swaps with a program of another gang. */
			for (size_t j = i + 1; j < n; j++) {
				size_t b = gang[j];
				agg_t ga = without[i], gb = without[j];
				double sa, sb;

				if (b == a || w_sp[j] < 0)
					continue;
				agg_add_job(&ga, m, j);
				agg_add_job(&gb, m, i);
				sa = agg_speed(m, &ga);
				sb = agg_speed(m, &gb);
				if (sa < 0 || sb < 0)
					continue;
				consider(&best, MOVE_SWAP, i, j, 0,
					 S - g_sp[a] - g_sp[b] + sa + sb, G);
			}
		}
		/* Merges: one time slice fewer. */
		for (size_t a = 0; a < G; a++)
			for (size_t b = a + 1; b < G; b++) {
				agg_t u = g_agg[b];
				double su;

				agg_union(&u, &g_agg[a]);
				su = agg_speed(m, &u);
				if (su >= 0)
					consider(&best, MOVE_MERGE, a, b, 0,
						 S - g_sp[a] - g_sp[b] + su,
						 G - 1);
			}
		/* Stuck: a move that changes nothing by itself may let the
		 * rest of the program's gang merge into another (two half
		 * gangs of rand programs that fit together only once one
		 * program has left).  O(n G^2), so only at a fixed point of
		 * the single steps. */
		for (size_t i = 0; i < n && best.kind == MOVE_NONE; i++) {
			size_t a = gang[i];

			if (w_sp[i] < 0 || without[i].napps == 0)
				continue;
			for (size_t b = 0; b < G; b++) {
				agg_t to = g_agg[b];
				double sb;

				if (b == a)
					continue;
				agg_add_job(&to, m, i);
				sb = agg_speed(m, &to);
				if (sb < 0)
					continue;
				for (size_t c = 0; c < G; c++) {
					agg_t u = g_agg[c];
					double su;

					if (c == a || c == b)
						continue;
					agg_union(&u, &without[i]);
					su = agg_speed(m, &u);
					if (su >= 0)
						consider(&best, MOVE_TO_MERGE, i,
							 b, c, S - g_sp[a] -
							 g_sp[b] - g_sp[c] +
							 sb + su, G - 1);
				}
			}
		}
		if (best.kind == MOVE_NONE)
			break;
		switch (best.kind) {
		case MOVE_TO: {
			size_t from = gang[best.a];
			bool alone = without[best.a].napps == 0;
			if (best.b == G)
				(*ngangs)++;
			gang[best.a] = best.b;
			if (alone)
				drop_gang(gang, n, ngangs, from);
			break;
		}
		case MOVE_TO_MERGE: {
			size_t from = gang[best.a];
			gang[best.a] = best.b;
			for (size_t i = 0; i < n; i++)
				if (gang[i] == from)
					gang[i] = best.c;
			drop_gang(gang, n, ngangs, from);
			break;
		}
		case MOVE_SWAP: {
			size_t t = gang[best.a];
			gang[best.a] = gang[best.b];
			gang[best.b] = t;
			break;
		}
		default:
			for (size_t i = 0; i < n; i++)
				if (gang[i] == best.a)
					gang[i] = best.b;
			drop_gang(gang, n, ngangs, best.a);
			break;
		}
		value = best.value;
	}
	free(g_agg);
	free(without);
	free(g_sp);
	free(w_sp);
	return 0;
}

/* ---- starts ------------------------------------------------------ */

int gang_plan_improve(const cosched_gang_params_t *p,
		      const cosched_gang_job_t *jobs, size_t n,
		      const cosched_gang_plan_t *starts, size_t nstarts,
		      size_t *gang, size_t *ngangs, cosched_error_t *err)
{
	model_t m;
	size_t *cand, cand_n = 0;
	double best;
	int rc = 0;

	if (n == 0)
		return 0;
	model_init(&m, p, jobs, n);
	best = plan_value(&m, gang, *ngangs);
	cand = malloc(n * sizeof(*cand));
	if (!cand)
		return cosched_error_set(err, "min_slowdown: out of memory");
	/* Every other start, at the requested threads; one that fits only
	 * at fewer (Greedy Thread's minimum) or breaks a bound is none. */
	for (size_t k = 0; k < nstarts; k++) {
		const cosched_gang_plan_t *plan = &starts[k];
		double v;

		if (plan->nmembers != n)
			continue;
		for (size_t g = 0; g < plan->ngangs; g++)
			for (int q = 0; q < plan->gangs[g].count; q++)
				cand[plan->members[plan->gangs[g].first +
						   (size_t) q].job] = g;
		cand_n = plan->ngangs;
		v = plan_value(&m, cand, cand_n);
		if (v > best * (1 + GANG_IMPROVE_EPS)) {
			best = v;
			memcpy(gang, cand, n * sizeof(*gang));
			*ngangs = cand_n;
		}
	}
	if (n <= GANG_EXACT_MAX) {
		double v = exact_search(&m, cand, &cand_n);
		if (v == -2) {
			rc = cosched_error_set(err, "min_slowdown: out of memory");
			goto out;
		}
		if (v > best * (1 + GANG_IMPROVE_EPS)) {
			memcpy(gang, cand, n * sizeof(*gang));
			*ngangs = cand_n;
		}
	} else if (n <= GANG_IMPROVE_MAX && best > 0) {
		rc = local_search(&m, gang, ngangs, best, err);
	}
out:
	free(cand);
	return rc;
}

int gang_plan_local_search(const cosched_gang_params_t *p,
			   const cosched_gang_job_t *jobs, size_t n,
			   size_t *gang, size_t *ngangs, cosched_error_t *err)
{
	model_t m;
	double v;

	model_init(&m, p, jobs, n);
	v = plan_value(&m, gang, *ngangs);
	if (v < 0)
		return cosched_error_set(err, "min_slowdown: the start plan "
					 "breaks a gang's cores, "
					 "applications or bound");
	return local_search(&m, gang, ngangs, v, err);
}

double cosched_gang_plan_value(const cosched_gang_params_t *p,
			       const cosched_gang_job_t *jobs, size_t n,
			       const cosched_gang_plan_t *plan)
{
	model_t m;
	size_t *gang;
	int *threads;
	double v;

	if (!p || !plan || (n > 0 && !jobs) || plan->nmembers != n)
		return -1;
	gang = malloc((n + 1) * sizeof(*gang));
	threads = malloc((n + 1) * sizeof(*threads));
	if (!gang || !threads) {
		free(gang);
		free(threads);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		gang[i] = GANG_NONE;
	for (size_t g = 0; g < plan->ngangs; g++)
		for (int q = 0; q < plan->gangs[g].count; q++) {
			const cosched_gang_member_t *mb =
				&plan->members[plan->gangs[g].first + (size_t) q];
			if (mb->job < n) {
				gang[mb->job] = g;
				threads[mb->job] = mb->threads;
			}
		}
	v = -1;
	for (size_t i = 0; i < n; i++)
		if (gang[i] == GANG_NONE)
			goto out;
	model_init(&m, p, jobs, n);
	m.threads = threads;
	v = plan_value(&m, gang, plan->ngangs);
out:
	free(gang);
	free(threads);
	return v;
}
