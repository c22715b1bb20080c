/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gang_plan.c - the batch form of the five gang policies: a set of
 * jobs packed into gangs ("Power-aware gang scheduling on multicore",
 * diploma thesis, NTUA CSLab, 2013, "The five schedulers").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/policy/gang_internal.h"
#include "src/libcosched/policy/mrb.h"
#include "src/libcosched/policy/socket_index.h"

/* Records every join in order; the plan groups them by gang. */
typedef struct {
	size_t ngangs;
	size_t *gang;		/* per job */
	int *threads;		/* per job */
	size_t *order;		/* jobs in join order */
	size_t norder;
} builder_t;

static int builder_init(builder_t *b, size_t n)
{
	memset(b, 0, sizeof(*b));
	b->gang = malloc((n + 1) * sizeof(size_t));
	b->threads = malloc((n + 1) * sizeof(int));
	b->order = malloc((n + 1) * sizeof(size_t));
	return b->gang && b->threads && b->order ? 0 : -1;
}

static void builder_free(builder_t *b)
{
	free(b->gang);
	free(b->threads);
	free(b->order);
}

static void builder_join(builder_t *b, size_t job, size_t gang, int threads)
{
	b->gang[job] = gang;
	b->threads[job] = threads;
	b->order[b->norder++] = job;
	if (gang >= b->ngangs)
		b->ngangs = gang + 1;
}

static int builder_finish(builder_t *b, const cosched_gang_job_t *jobs,
			  cosched_gang_plan_t *plan)
{
	size_t *fill;

	plan->gangs = calloc(b->ngangs + 1, sizeof(*plan->gangs));
	plan->members = malloc((b->norder + 1) * sizeof(*plan->members));
	fill = calloc(b->ngangs + 1, sizeof(size_t));
	if (!plan->gangs || !plan->members || !fill) {
		free(fill);
		cosched_gang_plan_free(plan);
		return -1;
	}
	plan->ngangs = b->ngangs;
	plan->nmembers = b->norder;
	for (size_t k = 0; k < b->norder; k++) {
		cosched_gang_t *g = &plan->gangs[b->gang[b->order[k]]];
		g->count++;
		g->cores += b->threads[b->order[k]];
	}
	for (size_t g = 0, at = 0; g < b->ngangs; g++) {
		plan->gangs[g].first = at;
		at += plan->gangs[g].count;
	}
	for (size_t k = 0; k < b->norder; k++) {
		size_t j = b->order[k], g = b->gang[j];
		cosched_gang_member_t *m =
			&plan->members[plan->gangs[g].first + fill[g]++];
		m->job = j;
		m->threads = b->threads[j];
		m->freq_khz = jobs[j].freq_khz;
	}
	free(fill);
	return 0;
}

/* Greedy Thread order: best-scaling first, which the 2013 gang-scheduling
 * thesis ("Greedy Thread" step 1) defines as "the one requesting the most
 * threads": requested threads, then the count it keeps scaling up to (a
 * tie-break the thesis does not give), then job id. */
static int cmp_scaling(const cosched_gang_job_t *jobs, size_t ia, size_t ib)
{
	const cosched_gang_job_t *a = &jobs[ia], *b = &jobs[ib];

	if (a->threads != b->threads)
		return a->threads > b->threads ? -1 : 1;
	if (gang_job_max(a) != gang_job_max(b))
		return gang_job_max(a) > gang_job_max(b) ? -1 : 1;
	if (a->job_id != b->job_id)
		return a->job_id < b->job_id ? -1 : 1;
	return ia < ib ? -1 : 1;
}

/* Miss-Rate Balance order: MPKI descending, then job id. */
static int cmp_mpki_desc(const cosched_gang_job_t *jobs, size_t ia,
			 size_t ib)
{
	const cosched_gang_job_t *a = &jobs[ia], *b = &jobs[ib];

	if (a->mpki != b->mpki)
		return a->mpki > b->mpki ? -1 : 1;
	if (a->job_id != b->job_id)
		return a->job_id < b->job_id ? -1 : 1;
	return ia < ib ? -1 : 1;
}

/*
 * Per core count t, the positions (into a sorted order) of the jobs that
 * need t cores, each list walked by a cursor that skips removed jobs.
 * This turns "the next job in order whose cores fit the idle cores" into
 * O(capacity) instead of a scan of all remaining jobs.
 */
typedef struct {
	size_t *pos;		/* all lists back to back */
	size_t *start, *end, *cur;	/* per t in 0..capacity */
} core_lists_t;

static void core_lists_free(core_lists_t *cl)
{
	free(cl->pos);
	free(cl->start);
	free(cl->end);
	free(cl->cur);
}

/* cores_of(order[p]) gives t; reverse = lists run from the last position. */
static int core_lists_build(core_lists_t *cl, const size_t *order, size_t n,
			    const int *cores, int capacity, bool reverse)
{
	memset(cl, 0, sizeof(*cl));
	cl->pos = malloc((n + 1) * sizeof(size_t));
	cl->start = calloc(capacity + 2, sizeof(size_t));
	cl->end = calloc(capacity + 2, sizeof(size_t));
	cl->cur = calloc(capacity + 2, sizeof(size_t));
	if (!cl->pos || !cl->start || !cl->end || !cl->cur) {
		core_lists_free(cl);
		return -1;
	}
	for (size_t p = 0; p < n; p++)
		cl->end[cores[order[p]]]++;
	for (int t = 0, at = 0; t <= capacity; t++) {
		size_t cnt = cl->end[t];
		cl->start[t] = cl->cur[t] = at;
		cl->end[t] = at;
		at += cnt;
	}
	for (size_t k = 0; k < n; k++) {
		size_t p = reverse ? n - 1 - k : k;
		cl->pos[cl->end[cores[order[p]]]++] = p;
	}
	return 0;
}

/* The first position of list t whose job is not removed, or GANG_NONE. */
static size_t core_lists_peek(core_lists_t *cl, int t, const size_t *order,
			      const bool *removed)
{
	while (cl->cur[t] < cl->end[t] && removed[order[cl->pos[cl->cur[t]]]])
		cl->cur[t]++;
	return cl->cur[t] < cl->end[t] ? cl->pos[cl->cur[t]] : GANG_NONE;
}

/* GANG: one application per gang, in input order (the 2013 gang-scheduling
 * thesis, "GANG"). */
static int plan_gang(const cosched_gang_job_t *jobs, size_t n, builder_t *b)
{
	for (size_t i = 0; i < n; i++)
		builder_join(b, i, i, jobs[i].threads);
	return 0;
}

/*
 * Greedy Thread and Miss-Rate Balance share one skeleton: jobs in a sorted
 * order; the first remaining job (the head) opens a gang; then the job
 * "nearest" in the order whose cores fit the idle cores joins, until none
 * fits or the gang holds max_apps.  They differ in the order, the cores a
 * job joins with, which end of the order is "nearest", and what happens to
 * idle cores when the gang closes.
 */
typedef struct {
	gang_job_cmp_fn order;		/* head first */
	int (*cores)(const cosched_gang_job_t *);	/* cores it joins with */
	bool from_tail;		/* partner nearest the tail, else the head */
	/* Called when a gang closes with idle cores; may raise threads. */
	void (*close)(builder_t *b, const cosched_gang_job_t *jobs,
		      size_t head, int idle);
} pack_rule_t;

static int pack(const pack_rule_t *rule, int capacity, int max_apps,
		const cosched_gang_job_t *jobs, size_t n, builder_t *b)
{
	size_t *order = gang_sorted_indices(jobs, n, rule->order);
	int *cores = malloc((n + 1) * sizeof(int));
	bool *removed = calloc(n + 1, sizeof(bool));
	core_lists_t cl;
	size_t head_pos = 0, gang = 0;
	int rc = -1;

	if (!order || !cores || !removed)
		goto out;
	for (size_t i = 0; i < n; i++)
		cores[i] = rule->cores(&jobs[i]);
	/* Per core count t, the remaining jobs needing t cores, nearest
	 * first: the first live entry of each list is its candidate. */
	if (core_lists_build(&cl, order, n, cores, capacity, rule->from_tail) < 0)
		goto out;
	for (;;) {
		size_t head;
		int idle, napps = 1;

		while (head_pos < n && removed[order[head_pos]])
			head_pos++;
		if (head_pos == n)
			break;
		head = order[head_pos];
		removed[head] = true;
		builder_join(b, head, gang, cores[head]);
		idle = capacity - cores[head];
		while (idle > 0 && (max_apps == 0 || napps < max_apps)) {
			/* The nearest fitting job over the lists t <= idle:
			 * lowest position from the head, highest from the
			 * tail. */
			size_t pick = GANG_NONE;
			for (int t = 1; t <= idle; t++) {
				size_t q = core_lists_peek(&cl, t, order, removed);
				if (q != GANG_NONE && (pick == GANG_NONE ||
						  (rule->from_tail ? q > pick : q < pick)))
					pick = q;
			}
			if (pick == GANG_NONE)
				break;
			removed[order[pick]] = true;
			builder_join(b, order[pick], gang, cores[order[pick]]);
			idle -= cores[order[pick]];
			napps++;
		}
		if (idle > 0 && rule->close)
			rule->close(b, jobs, head, idle);
		gang++;
	}
	rc = 0;
	core_lists_free(&cl);
out:
	free(order);
	free(cores);
	free(removed);
	return rc;
}

static int job_threads(const cosched_gang_job_t *j)
{
	return j->threads;
}

/* Greedy Thread step 3: idle cores go to the best-scaling program (the
 * head), up to the count where its performance stops improving. */
static void greedy_close(builder_t *b, const cosched_gang_job_t *jobs,
			 size_t head, int idle)
{
	int top = gang_job_max(&jobs[head]);
	int t = b->threads[head] + idle;
	b->threads[head] = t < top ? t : top;
}

/* Greedy Thread (the 2013 gang-scheduling thesis, "The five schedulers",
 * Greedy Thread, after Bhadauria & McKee): static, contention-blind bin
 * packing.  Step 1: the best-scaling remaining program opens a gang at its
 * minimum core count; step 2: add the next best-scaling program whose
 * minimum core count fits the idle cores, repeat; step 3: greedy_close. */
static const pack_rule_t greedy_rule = {
	.order = cmp_scaling,
	.cores = gang_job_min,
	.from_tail = false,
	.close = greedy_close,
};

/* Miss-Rate Balance (the 2013 gang-scheduling thesis, "The five schedulers",
 * Miss-Rate Balance): sort by MPKI descending; the head opens a gang; "for
 * p from the tail upward: if p.cores + g.cores <= 8: add p" -- the fitting
 * program nearest the tail; at most 2 per gang (max_apps). */
static const pack_rule_t mr_balance_rule = {
	.order = cmp_mpki_desc,
	.cores = job_threads,
	.from_tail = true,
	.close = NULL,
};

static int cmp_job_id(const cosched_gang_job_t *jobs, size_t ia, size_t ib)
{
	if (jobs[ia].job_id != jobs[ib].job_id)
		return jobs[ia].job_id < jobs[ib].job_id ? -1 : 1;
	return ia < ib ? -1 : 1;
}

/* Greedy Application-Aware (the 2013 gang-scheduling thesis, "The five
 * schedulers", steps 1-5): rand first (joining gangs that hold only rand),
 * each mem alone, then cpu and lim fill existing gangs first-fit (in gang
 * creation order) or open new ones; the "-" cells are never co-located.
 * Programs of unknown category run alone, last. */
static int plan_app_aware(const cosched_gang_params_t *p,
			  const cosched_gang_job_t *jobs, size_t n,
			  builder_t *b, cosched_error_t *err)
{
	static const int steps[] = { COSCHED_CAT_RAND, COSCHED_CAT_MEM,
				     COSCHED_CAT_CPU, COSCHED_CAT_LIM,
				     COSCHED_CAT_UNKNOWN };
	size_t *order = gang_sorted_indices(jobs, n, cmp_job_id);
	cosched_socket_index_t *x;
	size_t next_gang = 0;
	int rc = -1;

	if (!order)
		return cosched_error_set(err, "app_aware: out of memory");
	x = cosched_socket_index_create(COSCHED_POLICY_APP_AWARE, p, n, NULL,
					err);
	if (!x) {
		free(order);
		return -1;
	}
	/* Step 1: the category lists are the passes below, each in job-id
	 * order. */
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		for (size_t k = 0; k < n; k++) {
			const cosched_gang_job_t *j = &jobs[order[k]];
			unsigned cat = gang_cat_slot(j->category);
			long g = -1;

			if ((int)cat != steps[s])
				continue;
			/* Step 3: each mem program gets a gang of its own;
			 * steps 2, 4, 5: join the first gang it fits. */
			if (cat != COSCHED_CAT_MEM && cat != COSCHED_CAT_UNKNOWN)
				g = cosched_socket_index_best(x, j,
					COSCHED_INDEX_OCCUPIED_ONLY |
					COSCHED_INDEX_FIRST_FIT, NULL, err);
			if (g == COSCHED_INDEX_INVALID)
				goto out;
			if (g < 0)
				g = (long)next_gang++;
			if (cosched_socket_index_add(x, (size_t)g, j, j->threads,
						     err) < 0)
				goto out;
			builder_join(b, order[k], (size_t)g, j->threads);
		}
	}
	rc = 0;
out:
	cosched_socket_index_free(x);
	free(order);
	return rc;
}

/* min_slowdown's plan order: how much a program can cost the gang it
 * joins at worst (its largest join cost with any category), hardest
 * first, so that the programs that must not meet get a gang each while
 * gangs are empty; then wider first, then job id, then input order. */
typedef struct {
	double difficulty;
	int threads;
	uint32_t job_id;
	size_t index;
} plan_key_t;

static int cmp_plan_key(const void *pa, const void *pb)
{
	const plan_key_t *a = pa, *b = pb;

	if (a->difficulty != b->difficulty)
		return a->difficulty > b->difficulty ? -1 : 1;
	if (a->threads != b->threads)
		return a->threads > b->threads ? -1 : 1;
	if (a->job_id != b->job_id)
		return a->job_id < b->job_id ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/*
 * min_slowdown, time-shared: every gang is a time slice, so the plan
 * opens as few as the cores need (G = the programs' threads over the
 * capacity, rounded up), gives the G hardest programs one each, and
 * every other program, hardest first, joins the gang where the predicted
 * growth of the summed slowdowns is lowest (the same index and cost as
 * the space-shared form, occupied gangs only); it opens another gang only
 * when none has its cores or every one breaks max_slowdown.
 */
static int plan_min_slowdown(const cosched_gang_params_t *p,
			     const cosched_gang_job_t *jobs, size_t n,
			     builder_t *b, cosched_error_t *err)
{
	gang_score_ctx_t ctx;
	double difficulty[GANG_CAT_SLOTS];
	plan_key_t *key;
	size_t *order;
	cosched_socket_index_t *x;
	size_t next_gang = 0, floor_gangs;
	long cores = 0;
	int rc = -1;

	gang_score_ctx_init(&ctx, COSCHED_POLICY_MIN_SLOWDOWN, p);
	/* Partners of a known category: an unknown one is rare, and its
	 * worst case would make every program as hard as the hardest. */
	for (unsigned a = 0; a < GANG_CAT_SLOTS; a++) {
		difficulty[a] = 0;
		for (unsigned o = 0; o < COSCHED_CAT_COUNT; o++)
			difficulty[a] = fmax(difficulty[a], ctx.join_cost[a][o]);
	}
	key = malloc((n ? n : 1) * sizeof(*key));
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!key || !order) {
		free(key);
		free(order);
		return cosched_error_set(err, "min_slowdown: out of memory");
	}
	for (size_t k = 0; k < n; k++) {
		cores += jobs[k].threads;
		key[k] = (plan_key_t) {
			difficulty[gang_cat_slot(jobs[k].category)],
			jobs[k].threads, jobs[k].job_id, k };
	}
	qsort(key, n, sizeof(*key), cmp_plan_key);
	for (size_t k = 0; k < n; k++)
		order[k] = key[k].index;
	free(key);
	floor_gangs = (size_t) ((cores + p->capacity - 1) / p->capacity);
	x = cosched_socket_index_create(COSCHED_POLICY_MIN_SLOWDOWN, p, n,
					NULL, err);
	if (!x) {
		free(order);
		return -1;
	}
	for (size_t k = 0; k < n; k++) {
		const cosched_gang_job_t *j = &jobs[order[k]];
		long g = COSCHED_INDEX_NONE;

		if (next_gang >= floor_gangs)
			g = cosched_socket_index_best(x, j,
						      COSCHED_INDEX_OCCUPIED_ONLY,
						      NULL, err);
		if (g == COSCHED_INDEX_INVALID)
			goto out;
		if (g < 0)
			g = (long) next_gang++;
		if (cosched_socket_index_add(x, (size_t) g, j, j->threads,
					     err) < 0)
			goto out;
		builder_join(b, order[k], (size_t) g, j->threads);
	}
	rc = 0;
out:
	cosched_socket_index_free(x);
	free(order);
	return rc;
}

/* The seed policies whose plans min_slowdown's starts from (the five of the
 * 2013 gang-scheduling thesis). */
static const cosched_policy_t seed_policies[] = {
	COSCHED_POLICY_GANG, COSCHED_POLICY_GREEDY_THREAD,
	COSCHED_POLICY_MISS_RATE_BALANCE, COSCHED_POLICY_MISS_RATE_BOUND,
	COSCHED_POLICY_APP_AWARE,
};
#define SEED_POLICIES (sizeof(seed_policies) / sizeof(seed_policies[0]))

/* min_slowdown's greedy plan in b, made the best of it and the seed
 * policies' plans and improved (policy/gang_improve.c). */
static int improve_min_slowdown(const cosched_gang_params_t *p,
				const cosched_gang_job_t *jobs, size_t n,
				builder_t *b, cosched_error_t *err)
{
	cosched_gang_plan_t starts[SEED_POLICIES];
	size_t made = 0;
	int rc = 0;

	for (; made < SEED_POLICIES; made++)
		if (cosched_gang_plan(seed_policies[made], p, jobs, n,
				      &starts[made], err) < 0) {
			rc = -1;
			break;
		}
	if (rc == 0)
		rc = gang_plan_improve(p, jobs, n, starts, made, b->gang,
				       &b->ngangs, err);
	while (made > 0)
		cosched_gang_plan_free(&starts[--made]);
	return rc;
}

int cosched_gang_plan(cosched_policy_t policy,
		      const cosched_gang_params_t *params,
		      const cosched_gang_job_t *jobs, size_t njobs,
		      cosched_gang_plan_t *plan, cosched_error_t *err)
{
	builder_t b;
	int rc;

	if (!plan)
		return cosched_error_set(err, "plan: NULL");
	memset(plan, 0, sizeof(*plan));
	if (cosched_policy_check("policy", policy, COSCHED_POLICY_PLACING, err) < 0 ||
	    cosched_gang_params_check(params, err) < 0 ||
	    gang_jobs_check(jobs, njobs, params->capacity, err) < 0)
		return -1;
	if (policy == COSCHED_POLICY_MISS_RATE_BOUND) {
		const cosched_mrb_move_t *mv;
		size_t nmv;
		cosched_mrb_t *s = cosched_mrb_create(params, jobs, njobs, err);
		if (!s)
			return -1;
		rc = cosched_mrb_end_round(s, &mv, &nmv, err);
		if (rc == 0)
			rc = cosched_mrb_snapshot(s, plan, err);
		cosched_mrb_free(s);
		return rc;
	}
	if (builder_init(&b, njobs) < 0) {
		builder_free(&b);
		return cosched_error_set(err, "plan: out of memory for %zu jobs",
					 njobs);
	}
	switch (policy) {
	case COSCHED_POLICY_GANG:
		rc = plan_gang(jobs, njobs, &b);
		break;
	case COSCHED_POLICY_GREEDY_THREAD:
		rc = pack(&greedy_rule, params->capacity,
			  cosched_gang_max_apps(policy, params), jobs, njobs, &b);
		break;
	case COSCHED_POLICY_MISS_RATE_BALANCE:
		rc = pack(&mr_balance_rule, params->capacity,
			  cosched_gang_max_apps(policy, params), jobs, njobs, &b);
		break;
	case COSCHED_POLICY_MIN_SLOWDOWN:
		rc = plan_min_slowdown(params, njobs ? jobs : NULL, njobs, &b,
				       err);
		if (rc == 0)
			rc = improve_min_slowdown(params, jobs, njobs, &b, err);
		if (rc < 0) {
			builder_free(&b);
			return -1;
		}
		break;
	default:
		rc = plan_app_aware(params, jobs, njobs, &b, err);
		if (rc < 0) {
			builder_free(&b);
			return -1;
		}
		break;
	}
	if (rc < 0 || builder_finish(&b, jobs, plan) < 0) {
		builder_free(&b);
		return cosched_error_set(err, "plan: out of memory for %zu jobs",
					 njobs);
	}
	builder_free(&b);
	return 0;
}

