/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_place.c - the placement engine (src/libcosched/policy/place.h): the rules of
 * cosched(8) PLACEMENT RULES on small clusters worked out by hand, an
 * allocator that refuses units, wide jobs closing their units, will-run on
 * a copy, the lenient least-bad choice and the strict reason. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cosched_check.h"

#include "src/libcosched/policy/place.h"

static cosched_error_t err;

/* A fake allocator: records what it was offered, refuses the units listed
 * in refuse[], and refuses "anywhere" (units NULL) when refuse_any. */
typedef struct {
	size_t offered[16][32];
	size_t noffered[16];
	int calls;
	long refuse[8];
	int nrefuse;
	bool refuse_any;
	bool any_asked;
} alloc_t;

static int fake_try(void *ctx, const size_t *units, size_t n)
{
	alloc_t *a = ctx;
	int call = a->calls++;

	if (!units) {
		a->any_asked = true;
		return a->refuse_any ? -1 : 0;
	}
	if (call < 16) {
		for (size_t k = 0; k < n && k < 32; k++)
			a->offered[call][k] = units[k];
		a->noffered[call] = n;
	}
	for (size_t k = 0; k < n; k++)
		for (int r = 0; r < a->nrefuse; r++)
			if ((long)units[k] == a->refuse[r])
				return -1;
	return 0;
}

/* nodes nodes of 2 sockets x 4 cores, all up. */
static cosched_place_t *cluster(cosched_policy_t policy, bool strict,
				size_t nodes)
{
	cosched_place_conf_t pc = { .policy = policy, .strict = strict,
				    .explain = true };
	int units[8], cores[8];
	cosched_place_t *p;

	for (size_t i = 0; i < nodes; i++) {
		units[i] = 2;
		cores[i] = 4;
	}
	p = cosched_place_create(&pc, nodes, units, cores, &err);
	ck_assert_msg(p != NULL, "%s", err.msg);
	for (size_t i = 0; i < nodes; i++)
		cosched_place_set_node_ok(p, i, true);
	return p;
}

static cosched_place_job_t job(cosched_place_t *p, uint32_t id,
			       cosched_category_t cat, int cores,
			       uint32_t nodes)
{
	cosched_place_job_t j;

	memset(&j, 0, sizeof(j));
	j.gj.job_id = id;
	j.gj.threads = cores;
	j.gj.category = cat;
	j.gj.mpki = cat == COSCHED_CAT_MEM ? 20.0 :
		    cat == COSCHED_CAT_LIM ? 5.0 : 0.1;
	j.cls.cat = cat;
	j.cls.lca = cosched_category_to_lca(cat);
	j.cls.source = COSCHED_CLASS_FROM_DECLARED;
	j.cores = cores;
	cosched_place_job_shape(p, &j, nodes);
	return j;
}

/* Place a single job now and enter it where the engine put it. */
static long run(cosched_place_t *p, const cosched_place_job_t *j)
{
	alloc_t a = { 0 };
	cosched_place_result_t res;
	cosched_hold_t h;

	if (cosched_place_job(p, j, NULL, COSCHED_PLACE_RUN_NOW, NULL, 0,
			      fake_try, &a, &res))
		return -1;
	ck_assert_int_ge(res.unit, 0);
	h.socket = (size_t)res.unit;
	h.cores = j->gj.threads;
	ck_assert_int_eq(cosched_place_enter(p, &j->gj, j->cores, &h, 1, &err),
			 0);
	return res.unit;
}

START_TEST(test_layout_refused)
{
	cosched_place_conf_t pc = { .policy = COSCHED_POLICY_APP_AWARE };
	int units[2] = { 2, 65 }, cores[2] = { 4, 4 };

	ck_assert_ptr_null(cosched_place_create(&pc, 2, units, cores, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "node 1: 65 units"));
	units[1] = 2;
	cores[0] = 0;
	ck_assert_ptr_null(cosched_place_create(&pc, 2, units, cores, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "node 0: 2 units of 0 cores"));
}
END_TEST

START_TEST(test_single_app_aware)
{
	cosched_place_t *p = cluster(COSCHED_POLICY_APP_AWARE, true, 2);
	cosched_place_job_t m1 = job(p, 1, COSCHED_CAT_MEM, 2, 1);
	cosched_place_job_t m2 = job(p, 2, COSCHED_CAT_MEM, 2, 1);
	cosched_place_job_t c3 = job(p, 3, COSCHED_CAT_CPU, 2, 1);
	long u1, u2, u3;

	ck_assert_int_eq(m1.kind, COSCHED_PLACE_SINGLE);
	u1 = run(p, &m1);
	u2 = run(p, &m2);
	ck_assert_int_ne(u1, u2);	/* mem+mem never share */
	u3 = run(p, &c3);
	ck_assert(u3 == u1 || u3 == u2);	/* cpu joins a mem job */
	ck_assert_double_gt(cosched_place_predict(p, 3, &c3.cls), 1.0);
	ck_assert_double_eq(cosched_place_predict(p, 99, &c3.cls), 1.0);
	ck_assert_int_eq(cosched_place_check(p, &err), 0);
	cosched_place_free(p);
}
END_TEST

START_TEST(test_refused_unit_next_best)
{
	cosched_place_t *p = cluster(COSCHED_POLICY_APP_AWARE, true, 2);
	cosched_place_job_t m = job(p, 1, COSCHED_CAT_MEM, 2, 1);
	cosched_place_result_t res;
	alloc_t a = { 0 };

	/* The allocator refuses every unit: the engine tries
	 * COSCHED_PLACE_MAX_TRIES different ones, then gives up. */
	a.nrefuse = 4;
	for (int k = 0; k < 4; k++)
		a.refuse[k] = k;
	ck_assert_int_eq(cosched_place_job(p, &m, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, fake_try, &a, &res), -1);
	ck_assert_int_eq(a.calls, COSCHED_PLACE_MAX_TRIES);
	for (int x = 0; x < a.calls; x++)
		for (int y = x + 1; y < a.calls; y++)
			ck_assert_uint_ne(a.offered[x][0], a.offered[y][0]);
	/* Refusing only the first: the second is taken and reported. */
	memset(&a, 0, sizeof(a));
	a.nrefuse = 1;
	a.refuse[0] = 0;
	ck_assert_int_eq(cosched_place_job(p, &m, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, fake_try, &a, &res), 0);
	ck_assert_int_eq(a.calls, 2);
	ck_assert_int_eq(res.unit, (long)a.offered[1][0]);
	ck_assert_int_ne(res.unit, 0);
	cosched_place_free(p);
}
END_TEST

START_TEST(test_node_not_ok_or_not_allowed)
{
	cosched_place_t *p = cluster(COSCHED_POLICY_APP_AWARE, true, 2);
	cosched_place_job_t m = job(p, 1, COSCHED_CAT_MEM, 2, 1);
	bool allowed[2] = { false, true };
	cosched_place_result_t res;
	alloc_t a = { 0 };

	ck_assert_int_eq(cosched_place_job(p, &m, allowed,
					   COSCHED_PLACE_RUN_NOW, NULL, 0,
					   fake_try, &a, &res), 0);
	ck_assert_uint_eq(cosched_place_unit_node(p, (size_t)res.unit), 1);
	cosched_place_set_node_ok(p, 1, false);
	ck_assert_int_eq(cosched_place_job(p, &m, allowed,
					   COSCHED_PLACE_RUN_NOW, NULL, 0,
					   fake_try, &a, &res), -1);
	ck_assert_ptr_nonnull(strstr(res.why, "strict app_aware: no available socket"));
	cosched_place_free(p);
}
END_TEST

START_TEST(test_wide_closes_units)
{
	cosched_place_t *p = cluster(COSCHED_POLICY_APP_AWARE, true, 2);
	cosched_place_job_t w = job(p, 1, COSCHED_CAT_CPU, 6, 1);
	cosched_place_job_t s = job(p, 2, COSCHED_CAT_CPU, 1, 1);
	cosched_place_result_t res;
	cosched_hold_t h[2] = { { 0, 3 }, { 1, 3 } };
	alloc_t a = { 0 };

	ck_assert_int_eq(w.kind, COSCHED_PLACE_WIDE);
	ck_assert_int_eq(w.gj.threads, 4);	/* per unit */
	/* Every empty unit of nodes with two empty units: all four. */
	ck_assert_int_eq(cosched_place_job(p, &w, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, fake_try, &a, &res), 0);
	ck_assert_uint_eq(a.noffered[0], 4);
	ck_assert_int_eq(cosched_place_enter(p, &w.gj, w.cores, h, 2, &err), 0);
	/* Node 0 is closed: a 1-core job goes to node 1 though node 0
	 * has free cores. */
	for (int k = 0; k < 4; k++) {
		long u = run(p, &s);
		ck_assert_uint_eq(cosched_place_unit_node(p, (size_t)u), 1);
		ck_assert_int_eq(cosched_place_leave(p, 2, &err), 1);
	}
	/* Node 0 has no two empty units now: a second wide job is offered
	 * node 1's only. */
	memset(&a, 0, sizeof(a));
	w.gj.job_id = 3;
	ck_assert_int_eq(cosched_place_job(p, &w, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, fake_try, &a, &res), 0);
	ck_assert_uint_eq(a.noffered[0], 2);
	ck_assert_uint_eq(a.offered[0][0], 2);
	ck_assert_uint_eq(a.offered[0][1], 3);
	ck_assert_int_eq(cosched_place_check(p, &err), 0);
	/* Leaving reopens the units. */
	ck_assert_int_eq(cosched_place_leave(p, 1, &err), 1);
	ck_assert_int_eq(cosched_place_leave(p, 1, &err), 0);
	ck_assert(cosched_occupancy_available(cosched_place_occupancy(p), 0));
	ck_assert_int_eq(cosched_place_check(p, &err), 0);
	cosched_place_free(p);
}
END_TEST

START_TEST(test_multi_one_unit_per_node)
{
	cosched_place_t *p = cluster(COSCHED_POLICY_APP_AWARE, true, 3);
	cosched_place_job_t mm = job(p, 1, COSCHED_CAT_MEM, 2, 2);
	cosched_place_job_t m = job(p, 2, COSCHED_CAT_MEM, 2, 1);
	cosched_place_result_t res;
	cosched_hold_t h[2] = { { 2, 2 }, { 3, 2 } };
	alloc_t a = { 0 };

	ck_assert_int_eq(mm.kind, COSCHED_PLACE_MULTI);
	/* Node 1 holds mem jobs on both sockets: no unit there accepts. */
	ck_assert_int_eq(cosched_place_enter(p, &m.gj, 2, h, 1, &err), 0);
	m.gj.job_id = 3;
	ck_assert_int_eq(cosched_place_enter(p, &m.gj, 2, h + 1, 1, &err), 0);
	ck_assert_int_eq(cosched_place_job(p, &mm, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, fake_try, &a, &res), 0);
	ck_assert_uint_eq(a.noffered[0], 2);
	ck_assert_uint_eq(cosched_place_unit_node(p, a.offered[0][0]), 0);
	ck_assert_uint_eq(cosched_place_unit_node(p, a.offered[0][1]), 2);
	cosched_place_free(p);
}
END_TEST

START_TEST(test_test_only)
{
	cosched_place_t *p = cluster(COSCHED_POLICY_APP_AWARE, true, 2);
	cosched_place_job_t big = job(p, 1, COSCHED_CAT_CPU, 9, 1);
	cosched_place_job_t w = job(p, 2, COSCHED_CAT_CPU, 8, 1);
	cosched_place_result_t res;
	alloc_t a = { 0 };

	/* 9 cores on one 8-core node: never. */
	ck_assert_int_eq(cosched_place_job(p, &big, NULL,
					   COSCHED_PLACE_TEST_ONLY, NULL, 0,
					   fake_try, &a, &res), -1);
	ck_assert_int_eq(a.calls, 0);
	/* 8: every unit of both nodes, whatever runs there now. */
	ck_assert_int_eq(cosched_place_job(p, &w, NULL,
					   COSCHED_PLACE_TEST_ONLY, NULL, 0,
					   fake_try, &a, &res), 0);
	ck_assert_uint_eq(a.noffered[0], 4);
	cosched_place_free(p);
}
END_TEST

/* Why no unit accepts a job: at most 8 units ranked, those with the
 * cores first, and the text says so when that was not every unit. */
START_TEST(test_why_none_ranks_a_few)
{
	cosched_place_t *p = cluster(COSCHED_POLICY_APP_AWARE, true, 8);
	cosched_place_job_t m, c1, c2;
	cosched_place_result_t res;
	alloc_t a = { 0 };

	for (uint32_t id = 1; id <= 16; id++) {
		m = job(p, id, COSCHED_CAT_MEM, 2, 1);
		ck_assert_int_ge(run(p, &m), 0);
	}
	m = job(p, 17, COSCHED_CAT_MEM, 2, 1);
	ck_assert_int_eq(cosched_place_job(p, &m, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, fake_try, &a, &res), -1);
	ck_assert_msg(strstr(res.why, " on 8 of 8 ranked; first: socket 0: "),
		      "%s", res.why);
	/* The whole text, as printf's format of cosched(8) writes it. */
	{
		char eager[COSCHED_PLACE_WHY_MAX], cand[160];
		cosched_candidate_t first = {
			.reject = COSCHED_REJECT_FORBIDDEN_PAIR, .socket = 0,
			.cat_job = COSCHED_CAT_MEM,
			.cat_other = COSCHED_CAT_MEM };

		cosched_candidate_format(&first, cand, sizeof(cand));
		snprintf(eager, sizeof(eager),
			 "%s %s: no %s accepts this %s job (%s on %d%s; first: %s)",
			 "strict", "app_aware", "socket", "mem",
			 cosched_reject_name(COSCHED_REJECT_FORBIDDEN_PAIR), 8,
			 " of 8 ranked", cand);
		ck_assert_str_eq(res.why, eager);
	}
	cosched_place_free(p);

	/* Units that accept (here: on nodes the job may not use) say
	 * nothing and use none of the budget: the reason is still the
	 * refusing units' (nodes 0-6 empty, node 7's two sockets each
	 * holding a mem job, the job allowed on node 7 only). */
	p = cluster(COSCHED_POLICY_APP_AWARE, true, 8);
	{
		bool allowed[8] = { [7] = true };

		for (uint32_t id = 1; id <= 2; id++) {
			cosched_hold_t h = { .socket = 13 + id, .cores = 2 };

			m = job(p, id, COSCHED_CAT_MEM, 2, 1);
			ck_assert_int_eq(cosched_place_enter(p, &m.gj, m.cores,
							     &h, 1, &err), 0);
		}
		m = job(p, 3, COSCHED_CAT_MEM, 2, 1);
		ck_assert_int_eq(cosched_place_job(p, &m, allowed,
						   COSCHED_PLACE_RUN_NOW, NULL, 0,
						   fake_try, &a, &res), -1);
		ck_assert_msg(strstr(res.why, " on 2; first: socket 14: "),
			      "%s", res.why);
	}
	cosched_place_free(p);

	/* Only full units: they are ranked, and every one was. */
	p = cluster(COSCHED_POLICY_APP_AWARE, true, 1);
	c1 = job(p, 1, COSCHED_CAT_CPU, 4, 1);
	c2 = job(p, 2, COSCHED_CAT_CPU, 4, 1);
	ck_assert_int_ge(run(p, &c1), 0);
	ck_assert_int_ge(run(p, &c2), 0);
	m = job(p, 3, COSCHED_CAT_CPU, 1, 1);
	ck_assert_int_eq(cosched_place_job(p, &m, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, fake_try, &a, &res), -1);
	ck_assert_str_eq(res.why, "strict app_aware: no socket accepts this cpu job (no free cores on 2; first: socket 0: no free cores)");
	cosched_place_free(p);
}
END_TEST

START_TEST(test_will_run_on_a_copy)
{
	cosched_place_t *p = cluster(COSCHED_POLICY_APP_AWARE, true, 1);
	cosched_place_job_t m1 = job(p, 1, COSCHED_CAT_MEM, 2, 1);
	cosched_place_job_t m2 = job(p, 2, COSCHED_CAT_MEM, 2, 1);
	cosched_place_job_t m3 = job(p, 3, COSCHED_CAT_MEM, 2, 1);
	cosched_place_ending_t ends[2] = { { 1, 500 }, { 2, 300 } };
	cosched_place_result_t res;
	alloc_t a = { 0 };

	run(p, &m1);
	run(p, &m2);
	/* Now: no socket takes a third mem job. */
	ck_assert_int_eq(cosched_place_job(p, &m3, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, fake_try, &a, &res), -1);
	ck_assert_ptr_nonnull(strstr(res.why, "strict app_aware: no socket accepts this mem job"));
	/* Will run: job 2 ends first (300), then its socket takes it. */
	ck_assert_int_eq(cosched_place_job(p, &m3, NULL, COSCHED_PLACE_WILL_RUN,
					   ends, 2, fake_try, &a, &res), 0);
	ck_assert_int_eq(res.start_after, 300);
	ck_assert_int_eq(res.ended, 1);
	ck_assert_uint_eq(res.waited_for, 2);
	/* The real state is untouched. */
	ck_assert(cosched_occupancy_has(cosched_place_occupancy(p), 2, NULL));
	ck_assert_int_eq(cosched_place_check(p, &err), 0);
	cosched_place_free(p);
}
END_TEST

/* The least-bad search keeps each sequence of co-runners' categories'
 * prediction for the search (src/libcosched/policy/place_query.c): on 16 sockets holding
 * more sequences than it keeps, some repeated, some the same categories in
 * another order, it picks what predicting every unit afresh picks. */
START_TEST(test_least_bad_matches_every_unit_predicted)
{
	static const cosched_category_t seq[16][3] = {
		{ COSCHED_CAT_RAND, COSCHED_CAT_RAND },
		{ COSCHED_CAT_MEM, COSCHED_CAT_CPU },
		{ COSCHED_CAT_RAND, COSCHED_CAT_LIM, COSCHED_CAT_CPU },
		{ COSCHED_CAT_MEM, COSCHED_CAT_MEM },
		{ COSCHED_CAT_LIM, COSCHED_CAT_LIM },
		{ COSCHED_CAT_CPU, COSCHED_CAT_CPU },
		{ COSCHED_CAT_RAND, COSCHED_CAT_MEM, COSCHED_CAT_LIM },
		{ COSCHED_CAT_CPU, COSCHED_CAT_LIM },
		{ COSCHED_CAT_LIM, COSCHED_CAT_CPU },
		{ COSCHED_CAT_CPU, COSCHED_CAT_MEM },
		{ COSCHED_CAT_MEM, COSCHED_CAT_RAND, COSCHED_CAT_CPU },
		{ COSCHED_CAT_CPU, COSCHED_CAT_MEM },
		{ COSCHED_CAT_MEM, COSCHED_CAT_LIM },
		{ COSCHED_CAT_LIM, COSCHED_CAT_MEM, COSCHED_CAT_RAND },
		{ COSCHED_CAT_CPU, COSCHED_CAT_RAND },
		{ COSCHED_CAT_CPU, COSCHED_CAT_CPU, COSCHED_CAT_CPU },
	};
	static const cosched_category_t cats[] = {
		COSCHED_CAT_CPU, COSCHED_CAT_LIM, COSCHED_CAT_MEM,
		COSCHED_CAT_RAND };
	cosched_place_t *p = cluster(COSCHED_POLICY_APP_AWARE, false, 8);
	double load[16] = { 0 };
	uint32_t id = 100;

	for (size_t u = 0; u < 16; u++)
		for (int k = 0; k < 3 && (k < 2 || seq[u][2]); k++) {
			cosched_place_job_t j = job(p, id++, seq[u][k], 1, 1);
			cosched_hold_t h = { .socket = u, .cores = 1 };

			ck_assert_int_eq(cosched_place_enter(p, &j.gj, 1, &h, 1,
							     &err), 0);
			load[u] += j.gj.mpki;
		}
	for (size_t c = 0; c < sizeof(cats) / sizeof(cats[0]); c++) {
		/* Every gang holds two applications or more: app_aware
		 * accepts none, and lenient takes the least bad. */
		cosched_place_job_t m = job(p, 1, cats[c], 1, 1);
		cosched_place_result_t res;
		double best_sd = INFINITY, best_load = INFINITY;
		long best = -1;
		alloc_t a = { 0 };

		for (size_t u = 0; u < 16; u++) {
			double sd = cosched_place_unit_slowdown(p, u, 1, &m.cls);

			if (best < 0 || sd < best_sd ||
			    (sd == best_sd && load[u] < best_load)) {
				best = (long) u;
				best_sd = sd;
				best_load = load[u];
			}
		}
		ck_assert_int_eq(cosched_place_job(p, &m, NULL,
						   COSCHED_PLACE_RUN_NOW, NULL,
						   0, fake_try, &a, &res), 0);
		ck_assert(res.lenient);
		ck_assert_int_eq(res.least_bad, best);
	}
	cosched_place_free(p);
}
END_TEST

/* The worst unit_slowdown over the units job holds in p (1 alone). */
static double worst_unit(const cosched_place_t *p, uint32_t id,
			 const cosched_class_t *cls)
{
	size_t n = 0;
	const cosched_hold_t *h = cosched_occupancy_holds(
		cosched_place_occupancy(p), id, &n);
	double worst = 1.0;

	for (size_t k = 0; h && k < n; k++) {
		double sd = cosched_place_unit_slowdown(p, h[k].socket, id, cls);

		if (isfinite(sd) && sd > worst)
			worst = sd;
	}
	return worst;
}

/* A job's prediction with a co-runner and without it, in one walk: the
 * same as predicting each of its units, and as predicting them on a copy
 * the co-runner has really left; a job on two units, a co-runner on one
 * of them, one on neither, and the job itself. */
START_TEST(test_predict_pair)
{
	static const struct { uint32_t id; cosched_category_t cat;
			      size_t units[2]; size_t n; } jobs[] = {
		{ 1, COSCHED_CAT_MEM, { 0 }, 1 },
		{ 2, COSCHED_CAT_MEM, { 0 }, 1 },
		{ 3, COSCHED_CAT_CPU, { 0 }, 1 },
		{ 4, COSCHED_CAT_LIM, { 1 }, 1 },
		{ 5, COSCHED_CAT_RAND, { 1 }, 1 },
		{ 6, COSCHED_CAT_MEM, { 0, 1 }, 2 },
		{ 7, COSCHED_CAT_CPU, { 2 }, 1 },
	};
	const size_t njobs = sizeof(jobs) / sizeof(jobs[0]);
	cosched_place_t *p = cluster(COSCHED_POLICY_APP_AWARE, false, 2);
	int changed = 0;

	for (size_t i = 0; i < njobs; i++) {
		cosched_place_job_t j = job(p, jobs[i].id, jobs[i].cat, 1, 1);
		cosched_hold_t h[2];

		for (size_t k = 0; k < jobs[i].n; k++)
			h[k] = (cosched_hold_t) { .socket = jobs[i].units[k],
						  .cores = 1 };
		ck_assert_int_eq(cosched_place_enter(p, &j.gj, 1, h, jobs[i].n,
						     &err), 0);
	}
	for (size_t i = 0; i < njobs; i++) {
		cosched_place_job_t j = job(p, jobs[i].id, jobs[i].cat, 1, 1);

		for (size_t m = 0; m < njobs; m++) {
			uint32_t mover = jobs[m].id;
			cosched_place_t *q = cosched_place_copy(p, &err);
			double with, without;

			ck_assert_msg(q != NULL, "%s", err.msg);
			cosched_place_predict_pair(p, jobs[i].id, &j.cls, mover,
						   &with, &without);
			ck_assert(with == worst_unit(p, jobs[i].id, &j.cls));
			ck_assert(with == cosched_place_predict(p, jobs[i].id,
								&j.cls));
			if (mover != jobs[i].id)
				ck_assert_int_eq(cosched_place_leave(q, mover,
								     &err), 1);
			ck_assert_msg(without == worst_unit(q, jobs[i].id,
							    &j.cls),
				      "job %u without %u: %g, left: %g",
				      jobs[i].id, mover, without,
				      worst_unit(q, jobs[i].id, &j.cls));
			changed += with != without;
			cosched_place_free(q);
		}
	}
	/* Not every pair the same: leaving moves some predictions. */
	ck_assert_int_gt(changed, 10);
	cosched_place_free(p);
}
END_TEST

START_TEST(test_lenient_least_bad)
{
	cosched_place_t *p = cluster(COSCHED_POLICY_APP_AWARE, false, 1);
	cosched_place_job_t m1 = job(p, 1, COSCHED_CAT_MEM, 2, 1);
	cosched_place_job_t c2 = job(p, 2, COSCHED_CAT_CPU, 2, 1);
	cosched_place_job_t m3 = job(p, 3, COSCHED_CAT_MEM, 2, 1);
	cosched_place_job_t m4 = job(p, 4, COSCHED_CAT_MEM, 2, 1);
	cosched_place_result_t res;
	long u1, u3;
	alloc_t a = { 0 };

	u1 = run(p, &m1);
	ck_assert_int_eq(run(p, &c2), u1);	/* cpu joins mem */
	u3 = run(p, &m3);			/* the other socket */
	ck_assert_int_ne(u1, u3);
	/* A fourth mem job: no socket accepts it; socket u1 is full, so the
	 * least bad with two free cores is u3. */
	ck_assert_int_eq(cosched_place_job(p, &m4, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, fake_try, &a, &res), 0);
	ck_assert(res.lenient);
	ck_assert_int_eq(res.least_bad, u3);
	ck_assert_ptr_nonnull(strstr(res.why, "lenient app_aware:"));
	/* The allocator refuses that unit: the job goes anywhere. */
	memset(&a, 0, sizeof(a));
	a.nrefuse = 1;
	a.refuse[0] = u3;
	ck_assert_int_eq(cosched_place_job(p, &m4, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, fake_try, &a, &res), 0);
	ck_assert(res.lenient && a.any_asked);
	ck_assert_int_eq(res.least_bad, -1);
	cosched_place_free(p);
}
END_TEST

/* The reason and the least-bad unit come from one walk over the units
 * when a lenient query asks for both: each must be what a query asking
 * for it alone finds (a strict engine's reason, a lenient engine's
 * least-bad unit without a reason) on the same occupancy.  Sockets 0-5
 * hold a mem job of 2 cores, socket 6 a cpu job of 4, socket 7 a mem and
 * a lim job of 2: refused by the policy's rule, then full. */
static cosched_place_t *walked(cosched_policy_t policy, bool strict,
			       bool explain)
{
	cosched_place_conf_t pc = { .policy = policy, .strict = strict,
				    .explain = explain };
	int units[4] = { 2, 2, 2, 2 }, cores[4] = { 4, 4, 4, 4 };
	cosched_place_t *p = cosched_place_create(&pc, 4, units, cores, &err);
	cosched_place_job_t j;
	cosched_hold_t h;

	ck_assert_msg(p != NULL, "%s", err.msg);
	for (size_t i = 0; i < 4; i++)
		cosched_place_set_node_ok(p, i, true);
	for (uint32_t id = 1; id <= 9; id++) {
		cosched_category_t cat = id == 7 ? COSCHED_CAT_CPU :
					 id == 9 ? COSCHED_CAT_LIM :
						   COSCHED_CAT_MEM;
		j = job(p, id, cat, id == 7 ? 4 : 2, 1);
		h.socket = id <= 8 ? id - 1 : 7;
		h.cores = j.gj.threads;
		ck_assert_int_eq(cosched_place_enter(p, &j.gj, j.cores, &h, 1,
						     &err), 0);
	}
	return p;
}

START_TEST(test_lenient_walk_matches_separate_queries)
{
	const cosched_policy_t policies[] = { COSCHED_POLICY_APP_AWARE,
		COSCHED_POLICY_MISS_RATE_BOUND, COSCHED_POLICY_GANG };
	bool allowed[4] = { false, true, true, true };

	for (size_t k = 0; k < 3; k++)
		for (int mask = 0; mask < 2; mask++) {
			cosched_place_t *both = walked(policies[k], false, true);
			cosched_place_t *why = walked(policies[k], true, true);
			cosched_place_t *least = walked(policies[k], false,
							false);
			cosched_place_job_t m = job(both, 10, COSCHED_CAT_MEM, 2,
						    1);
			cosched_place_result_t rb, rw, rl;
			const bool *al = mask ? allowed : NULL;
			alloc_t a = { 0 };

			ck_assert_int_eq(cosched_place_job(both, &m, al,
				COSCHED_PLACE_RUN_NOW, NULL, 0, fake_try, &a,
				&rb), 0);
			ck_assert_int_eq(cosched_place_job(why, &m, al,
				COSCHED_PLACE_RUN_NOW, NULL, 0, fake_try, &a,
				&rw), -1);
			ck_assert_int_eq(cosched_place_job(least, &m, al,
				COSCHED_PLACE_RUN_NOW, NULL, 0, fake_try, &a,
				&rl), 0);
			ck_assert(rb.lenient && rl.lenient);
			ck_assert_msg(!strncmp(rb.why, "lenient ", 8) &&
				      !strncmp(rw.why, "strict ", 7) &&
				      !strcmp(rb.why + 8, rw.why + 7),
				      "%s / %s", rb.why, rw.why);
			/* The policy's rule refuses the sockets with a job
			 * there (GANG: gang full, said after the full ones),
			 * and the full ones are ranked too. */
			ck_assert_msg(strstr(rb.why, policies[k] ==
					     COSCHED_POLICY_GANG ?
					     " on 2; first: socket 6: " :
					     " on 6; first: socket 0: "),
				      "%s", rb.why);
			ck_assert_str_eq(rl.why, "");
			ck_assert_int_ge(rb.least_bad, mask ? 2 : 0);
			ck_assert_int_le(rb.least_bad, 5);
			ck_assert_int_eq(rb.least_bad, rl.least_bad);
			cosched_place_free(both);
			cosched_place_free(why);
			cosched_place_free(least);
		}
}
END_TEST

START_TEST(test_live_load_leaves_with_its_file)
{
	cosched_place_t *p = cluster(COSCHED_POLICY_MISS_RATE_BOUND, true, 1);
	cosched_place_job_t a = job(p, 1, COSCHED_CAT_CPU, 3, 1);
	cosched_place_job_t b = job(p, 2, COSCHED_CAT_CPU, 3, 1);
	cosched_place_job_t c = job(p, 3, COSCHED_CAT_CPU, 1, 1);
	cosched_place_result_t res;
	alloc_t al = { 0 };

	/* One on each socket, one core free on each. */
	ck_assert_int_ne(run(p, &a), run(p, &b));
	/* Their nodes say both run at 500000 MPKI: no socket is under the
	 * bound, so a strict job waits. */
	cosched_place_live_begin(p);
	ck_assert_int_eq(cosched_place_live_set(p, 1, 500000.0, &err), 0);
	ck_assert_int_eq(cosched_place_live_set(p, 2, 500000.0, &err), 0);
	ck_assert_int_eq(cosched_place_live_end(p), 0);
	ck_assert_int_eq(cosched_place_job(p, &c, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, fake_try, &al, &res), -1);
	ck_assert_int_lt(res.unit, 0);
	ck_assert_msg(strstr(res.why, "MPKI"), "%s", res.why);
	/* The next reading has job 2 only: job 1's file is gone, so it
	 * carries the MPKI it entered with again, and the job starts on its
	 * socket. */
	cosched_place_live_begin(p);
	ck_assert_int_eq(cosched_place_live_set(p, 2, 500000.0, &err), 0);
	ck_assert_int_eq(cosched_place_live_end(p), 1);
	memset(&al, 0, sizeof(al));
	ck_assert_int_eq(cosched_place_job(p, &c, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, fake_try, &al, &res), 0);
	ck_assert_int_ge(res.unit, 0);
	ck_assert_int_eq(cosched_place_check(p, &err), 0);
	/* A reading with neither: both back, none twice. */
	cosched_place_live_begin(p);
	ck_assert_int_eq(cosched_place_live_end(p), 1);
	cosched_place_live_begin(p);
	ck_assert_int_eq(cosched_place_live_end(p), 0);
	cosched_place_free(p);
}
END_TEST

START_TEST(test_copy_is_independent)
{
	cosched_place_t *p = cluster(COSCHED_POLICY_APP_AWARE, true, 1);
	cosched_place_job_t w = job(p, 1, COSCHED_CAT_CPU, 8, 1);
	cosched_hold_t h[2] = { { 0, 4 }, { 1, 4 } };
	cosched_place_t *c;

	ck_assert_int_eq(cosched_place_enter(p, &w.gj, 8, h, 2, &err), 0);
	c = cosched_place_copy(p, &err);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(cosched_place_leave(c, 1, &err), 1);
	ck_assert(cosched_occupancy_available(cosched_place_occupancy(c), 0));
	ck_assert(!cosched_occupancy_available(cosched_place_occupancy(p), 0));
	ck_assert_int_eq(cosched_place_check(p, &err), 0);
	ck_assert_int_eq(cosched_place_check(c, &err), 0);
	cosched_place_free(c);
	cosched_place_free(p);
}
END_TEST

/* GangMaxApps (cosched.conf(5)): Application-Aware's thesis reading lets 2
 * jobs share a socket, so a third 1-core cpu job on a node of one
 * 4-core socket waits in strict mode though 2 cores are free ("gang
 * full"); with max_apps 4 (or any value at or above the cores) it joins.
 * A negative value is refused by name. */
START_TEST(test_gang_max_apps)
{
	cosched_place_conf_t pc = { .policy = COSCHED_POLICY_APP_AWARE,
				    .strict = true, .explain = true };
	int units[1] = { 1 }, cores[1] = { 4 };
	int bounds[3] = { 0, 4, 1000 };

	for (int b = 0; b < 3; b++) {
		cosched_place_t *p;
		cosched_place_job_t c[3];
		cosched_place_result_t res;
		alloc_t a = { 0 };
		int rc;

		pc.max_apps = bounds[b];
		p = cosched_place_create(&pc, 1, units, cores, &err);
		ck_assert_msg(p != NULL, "%s", err.msg);
		cosched_place_set_node_ok(p, 0, true);
		for (int k = 0; k < 3; k++)
			c[k] = job(p, (uint32_t)k + 1, COSCHED_CAT_CPU, 1, 1);
		ck_assert_int_eq(run(p, &c[0]), 0);
		ck_assert_int_eq(run(p, &c[1]), 0);
		rc = cosched_place_job(p, &c[2], NULL, COSCHED_PLACE_RUN_NOW,
				       NULL, 0, fake_try, &a, &res);
		if (bounds[b] == 0) {
			ck_assert_int_eq(rc, -1);
			ck_assert_msg(strstr(res.why,
				"gang full (2 of 2 applications)") != NULL,
				"%s", res.why);
		} else {
			ck_assert_int_eq(rc, 0);
			ck_assert_int_eq(res.unit, 0);
		}
		ck_assert_int_eq(cosched_place_check(p, &err), 0);
		cosched_place_free(p);
	}
	pc.max_apps = -1;
	ck_assert_ptr_null(cosched_place_create(&pc, 1, units, cores, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "max_apps -1"));
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("place");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_layout_refused);
	tcase_add_test(tc, test_single_app_aware);
	tcase_add_test(tc, test_refused_unit_next_best);
	tcase_add_test(tc, test_node_not_ok_or_not_allowed);
	tcase_add_test(tc, test_wide_closes_units);
	tcase_add_test(tc, test_multi_one_unit_per_node);
	tcase_add_test(tc, test_test_only);
	tcase_add_test(tc, test_why_none_ranks_a_few);
	tcase_add_test(tc, test_will_run_on_a_copy);
	tcase_add_test(tc, test_lenient_least_bad);
	tcase_add_test(tc, test_lenient_walk_matches_separate_queries);
	tcase_add_test(tc, test_predict_pair);
	tcase_add_test(tc, test_least_bad_matches_every_unit_predicted);
	tcase_add_test(tc, test_copy_is_independent);
	tcase_add_test(tc, test_gang_max_apps);
	tcase_add_test(tc, test_live_load_leaves_with_its_file);
	suite_add_tcase(s, tc);
	return s;
}
