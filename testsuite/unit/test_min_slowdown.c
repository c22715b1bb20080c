/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_min_slowdown.c - cosched's own policy (cosched-policies(7),
 * min_slowdown) on cases worked out by hand from the table of "Effects of
 * co-scheduling applications on multicore architectures" (NTUA thesis,
 * 2014): the cost rule, the strict bound and its bucket scan, the
 * time-shared plan, and the placement engine's choice between sharing and
 * an empty socket (the queue-demand switch, strict holds with their
 * reason).
 *
 * The table of the 2014 co-scheduling thesis (victim row, co-runner
 * column; cpu = N, rand = C, lim = LC, mem = L):
 *            N     C     LC    L
 *   N      1.00  1.02  1.10  1.07
 *   C      1.00  1.06  1.27  2.15
 *   LC     1.00  1.06  1.34  1.76
 *   L      1.00  1.00  1.12  1.30
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"

#include "src/libcosched/policy/gang.h"
#include "src/libcosched/policy/gang_internal.h"
#include "src/libcosched/policy/place.h"
#include "src/libcosched/policy/socket_index.h"

static cosched_error_t err;

static cosched_gang_job_t gj(uint32_t id, int threads, cosched_category_t cat)
{
	cosched_gang_job_t j;

	memset(&j, 0, sizeof(j));
	j.job_id = id;
	j.threads = threads;
	j.category = cat;
	return j;
}

static const cosched_candidate_t *cand_of(const cosched_candidate_t *out,
					  size_t n, size_t socket)
{
	for (size_t k = 0; k < n; k++)
		if (out[k].socket == socket)
			return &out[k];
	ck_abort_msg("socket %zu not ranked", socket);
	return NULL;
}

/* A lim job's cost next to each category: its own excess plus the
 * other's.  mem: 0.76 + 0.12; rand: 0.06 + 0.27; cpu: 0 + 0.10. */
START_TEST(test_cost_rule)
{
	cosched_gang_params_t p;
	cosched_gang_job_t occ[4] = {
		gj(10, 1, COSCHED_CAT_MEM), gj(11, 1, COSCHED_CAT_RAND),
		gj(12, 1, COSCHED_CAT_CPU), gj(13, 1, COSCHED_CAT_CPU),
	};
	cosched_socket_t s[5] = {
		{ 4, 0, NULL, 0 },		/* empty */
		{ 4, 1, &occ[0], 1 },		/* mem */
		{ 4, 1, &occ[1], 1 },		/* rand */
		{ 4, 1, &occ[2], 1 },		/* cpu */
		{ 4, 2, &occ[2], 2 },		/* cpu, cpu */
	};
	cosched_candidate_t out[5];
	cosched_gang_job_t lim = gj(1, 1, COSCHED_CAT_LIM);
	cosched_gang_job_t cpu = gj(2, 1, COSCHED_CAT_CPU);
	size_t acc;

	cosched_gang_params_init(&p, 4);
	ck_assert_int_eq(cosched_gang_rank(COSCHED_POLICY_MIN_SLOWDOWN, &p, s,
					   5, &lim, out, &acc, &err), 0);
	ck_assert_uint_eq(acc, 5);
	ck_assert_double_eq_tol(cand_of(out, 5, 0)->score, 0, 1e-12);
	ck_assert_double_eq_tol(cand_of(out, 5, 1)->score, -0.88, 1e-12);
	ck_assert_double_eq_tol(cand_of(out, 5, 2)->score, -0.33, 1e-12);
	ck_assert_double_eq_tol(cand_of(out, 5, 3)->score, -0.10, 1e-12);
	ck_assert_double_eq_tol(cand_of(out, 5, 4)->score, -0.20, 1e-12);
	/* Nobody to slow on an empty socket: it comes first while free. */
	ck_assert_uint_eq(out[0].socket, 0);
	ck_assert_uint_eq(out[1].socket, 3);
	ck_assert_uint_eq(out[2].socket, 4);
	ck_assert_uint_eq(out[3].socket, 2);
	ck_assert_uint_eq(out[4].socket, 1);

	/* cpu next to cpu costs nothing: a tie with the empty socket, and
	 * the tighter fit (fewer cores left) packs it. */
	ck_assert_int_eq(cosched_gang_rank(COSCHED_POLICY_MIN_SLOWDOWN, &p, s,
					   5, &cpu, out, &acc, &err), 0);
	ck_assert_uint_eq(out[0].socket, 4);
	ck_assert_double_eq(out[0].score, 0);
	ck_assert_uint_eq(out[1].socket, 3);
	ck_assert_uint_eq(out[2].socket, 0);
}
END_TEST

/* ---- time-shared ranking: joining a gang against one more slice ------
 *
 * Time-shared, the sockets ranked are the gangs of one round and the
 * score is the change of the round's value, its summed speeds S over its
 * G gangs: joining gang g, (speed of g with the job - without) / G; a
 * new gang, (S + 1) / (G + 1) - S / G. */

static size_t ts_rank(const cosched_interference_model_t *m,
		      const cosched_socket_t *s, size_t n,
		      const cosched_gang_job_t *job, cosched_candidate_t *out)
{
	cosched_gang_params_t p;
	size_t acc;

	cosched_gang_params_init(&p, 4);
	p.interference = m;
	p.time_shared = true;
	ck_assert_int_eq(cosched_gang_rank(COSCHED_POLICY_MIN_SLOWDOWN, &p, s,
					   n, job, out, &acc, &err), 0);
	return acc;
}

/* A mem job arriving where a mem job runs alone: beside it, each runs at
 * 1/1.30, the gang's summed speeds 2/1.30 = 1.538 where one program alone
 * gave 1: +0.538 to a round of one gang.  A gang of its own makes the
 * round two slices of speed 1: (1 + 1) / 2 - 1 = 0.  It joins, where the
 * space-shared score (minus the added excesses, 0.30 + 0.30, against an
 * empty socket's 0) opens a socket of its own. */
START_TEST(test_time_shared_joins)
{
	cosched_gang_job_t occ = gj(10, 1, COSCHED_CAT_MEM);
	cosched_socket_t s[2] = { { 4, 1, &occ, 1 }, { 4, 0, NULL, 0 } };
	cosched_gang_job_t mem = gj(1, 1, COSCHED_CAT_MEM);
	cosched_gang_params_t p;
	cosched_candidate_t out[2];
	size_t acc;

	ck_assert_uint_eq(ts_rank(NULL, s, 2, &mem, out), 2);
	ck_assert_uint_eq(out[0].socket, 0);
	ck_assert_double_eq_tol(out[0].score, 2.0 / 1.30 - 1.0, 1e-12);
	ck_assert_uint_eq(out[1].socket, 1);
	ck_assert_double_eq_tol(out[1].score, 0.0, 1e-12);

	cosched_gang_params_init(&p, 4);
	ck_assert_int_eq(cosched_gang_rank(COSCHED_POLICY_MIN_SLOWDOWN, &p, s,
					   2, &mem, out, &acc, &err), 0);
	ck_assert_uint_eq(out[0].socket, 1);
	ck_assert_double_eq_tol(out[1].score, -0.60, 1e-12);
}
END_TEST

/* A round of two gangs, {mem} (2 cores of 4) and {cpu, cpu} (full,
 * speeds 2): S = 3, G = 2.  A mem job of 2 cores arrives, with mem next
 * to mem set to slow each by x.  Joining {mem} gives (2/x - 1) / 2; a new
 * gang (3 + 1) / 3 - 3 / 2 = -1/6, since every program's share of the
 * round falls from 1/2 to 1/3.
 *   x = 2.2: joining gives -0.0455: the gang's summed speeds fall, yet
 *   less than a third slice costs the round: it joins.
 *   x = 4.0: joining gives -0.25: worse than a slice: a gang of its own. */
static void round_of_two(double x, size_t first, double join_score)
{
	cosched_interference_model_t m;
	cosched_gang_job_t occ[3] = {
		gj(10, 2, COSCHED_CAT_MEM), gj(11, 2, COSCHED_CAT_CPU),
		gj(12, 2, COSCHED_CAT_CPU),
	};
	cosched_socket_t s[3] = {
		{ 4, 2, &occ[0], 1 }, { 4, 4, &occ[1], 2 }, { 4, 0, NULL, 0 },
	};
	cosched_gang_job_t mem = gj(1, 2, COSCHED_CAT_MEM);
	cosched_candidate_t out[3];

	cosched_interference_default(&m);
	m.slowdown[COSCHED_LCA_L][COSCHED_LCA_L] = x;
	ck_assert_uint_eq(ts_rank(&m, s, 3, &mem, out), 2);
	ck_assert_uint_eq(out[0].socket, first);
	ck_assert_double_eq_tol(cand_of(out, 3, 0)->score, join_score, 1e-12);
	ck_assert_double_eq_tol(cand_of(out, 3, 2)->score, -1.0 / 6.0, 1e-12);
	ck_assert_int_eq(cand_of(out, 3, 1)->reject,
			 COSCHED_REJECT_NO_FREE_CORES);
}

START_TEST(test_time_shared_round)
{
	round_of_two(2.2, 0, (2.0 / 2.2 - 1.0) / 2.0);
	round_of_two(4.0, 2, (2.0 / 4.0 - 1.0) / 2.0);
}
END_TEST

/* A bound of 1.25: lim next to mem predicts 1.76 for the lim job, next to
 * rand 1.27 for the rand job; next to two cpu jobs the worst is a cpu's
 * 1 + 0 + 0.10 = 1.10. */
START_TEST(test_bound)
{
	cosched_gang_params_t p;
	cosched_gang_job_t occ[3] = {
		gj(10, 1, COSCHED_CAT_MEM), gj(11, 1, COSCHED_CAT_RAND),
		gj(12, 1, COSCHED_CAT_CPU),
	};
	cosched_gang_job_t two_cpu[2] = {
		gj(13, 1, COSCHED_CAT_CPU), gj(14, 1, COSCHED_CAT_CPU),
	};
	cosched_socket_t s[3] = {
		{ 4, 1, &occ[0], 1 }, { 4, 1, &occ[1], 1 }, { 4, 2, two_cpu, 2 },
	};
	cosched_candidate_t out[3];
	cosched_gang_job_t lim = gj(1, 1, COSCHED_CAT_LIM);
	char buf[160];
	size_t acc;

	cosched_gang_params_init(&p, 4);
	lim.max_slowdown = 1.25;
	ck_assert_int_eq(cosched_gang_rank(COSCHED_POLICY_MIN_SLOWDOWN, &p, s,
					   3, &lim, out, &acc, &err), 0);
	ck_assert_uint_eq(acc, 1);
	ck_assert_uint_eq(out[0].socket, 2);
	ck_assert_double_eq_tol(out[0].slowdown, 1.10, 1e-12);
	ck_assert_int_eq(cand_of(out, 3, 0)->reject,
			 COSCHED_REJECT_SLOWDOWN_BOUND);
	ck_assert_double_eq_tol(cand_of(out, 3, 0)->slowdown, 1.76, 1e-12);
	ck_assert_double_eq_tol(cand_of(out, 3, 1)->slowdown, 1.27, 1e-12);
	cosched_candidate_format(cand_of(out, 3, 0), buf, sizeof(buf));
	ck_assert_str_eq(buf, "socket 0: predicted slowdown 1.76 > 1.25 (MaxCorunSlowdown=25)");
}
END_TEST

/*
 * The index orders a bucket by cost, the bound is on the worst slowdown:
 * a rand job next to one 60-thread mem job costs 1.15 (worst 2.15), next
 * to 60 one-thread cpu jobs 60 x 0.02 = 1.2 (worst 1.02).  Both sockets
 * have 4 cores free (one bucket): without a bound the mem socket is
 * cheaper; with a bound of 1.5 the index must find the cpu socket behind
 * the bucket's top.
 */
START_TEST(test_bound_scan)
{
	cosched_gang_params_t p;
	cosched_socket_index_t *x;
	cosched_gang_job_t mem = gj(1, 60, COSCHED_CAT_MEM);
	cosched_gang_job_t rand = gj(100, 1, COSCHED_CAT_RAND);
	cosched_candidate_t best;

	for (int bound = 0; bound < 2; bound++) {
		cosched_gang_params_init(&p, 64);
		rand.max_slowdown = bound ? 1.5 : 0;
		x = cosched_socket_index_create(COSCHED_POLICY_MIN_SLOWDOWN, &p,
						3, NULL, &err);
		ck_assert_msg(x != NULL, "%s", err.msg);
		ck_assert_int_eq(cosched_socket_index_add(x, 0, &mem, 60, &err), 0);
		for (uint32_t k = 0; k < 60; k++) {
			cosched_gang_job_t c = gj(10 + k, 1, COSCHED_CAT_CPU);
			ck_assert_int_eq(cosched_socket_index_add(x, 1, &c, 1,
								  &err), 0);
		}
		ck_assert_int_eq(cosched_socket_index_check(x, &err), 0);
		ck_assert_int_eq(cosched_socket_index_empty_units(x), 1);
		ck_assert_int_eq(cosched_socket_index_best(x, &rand,
				COSCHED_INDEX_OCCUPIED_ONLY, &best, &err),
				 bound ? 1 : 0);
		ck_assert_double_eq_tol(best.score, bound ? -1.2 : -1.15, 1e-9);
		/* Anywhere: the empty socket costs nothing. */
		ck_assert_int_eq(cosched_socket_index_best(x, &rand, 0, &best,
							   &err), 2);
		cosched_socket_index_free(x);
	}
}
END_TEST

/* Time-shared, 2 cores per gang: mem, rand, cpu, lim of one thread each
 * need 2 gangs.  The hardest two (mem and rand, 1.15 at worst) open them;
 * lim (0.88 at worst) joins rand (0.33, not mem's 0.88); cpu joins mem
 * (0.07).  Total 0.40, the optimum of the three pairings (1.25, 0.40,
 * 1.2); first-fit in job order would pair mem with rand. */
START_TEST(test_plan_time_shared)
{
	cosched_gang_params_t p;
	cosched_gang_job_t jobs[4] = {
		gj(1, 1, COSCHED_CAT_MEM), gj(2, 1, COSCHED_CAT_RAND),
		gj(3, 1, COSCHED_CAT_CPU), gj(4, 1, COSCHED_CAT_LIM),
	};
	cosched_gang_plan_t plan;
	int gang_of[5] = { 0 };

	cosched_gang_params_init(&p, 2);
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_MIN_SLOWDOWN, &p,
					   jobs, 4, &plan, &err), 0);
	ck_assert_uint_eq(plan.ngangs, 2);
	for (size_t g = 0; g < plan.ngangs; g++)
		for (int k = 0; k < plan.gangs[g].count; k++)
			gang_of[jobs[plan.members[plan.gangs[g].first + k].job]
				.job_id] = (int) g;
	ck_assert_int_eq(gang_of[1], gang_of[3]);	/* mem with cpu */
	ck_assert_int_eq(gang_of[2], gang_of[4]);	/* rand with lim */
	ck_assert_int_ne(gang_of[1], gang_of[2]);
	cosched_gang_plan_free(&plan);
}
END_TEST

/* ---- the time-shared plan's value and its improvement --------------
 *
 * Value: the summed speeds 1 / slowdown over the gangs.  By hand, from
 * the table above: mem next to cpu 1.00 and cpu next to mem 1.07, so a
 * {mem, cpu} gang holds 1 + 1/1.07 = 1.934579; {mem, mem} 2/1.30 =
 * 1.538462; {cpu, cpu} 2. */

#define SPEED_MC (1.0 + 1.0 / 1.07)
#define SPEED_MM (2.0 / 1.30)

/* Gang numbers of jobs 0..n-1 from a plan (-1: missing). */
static void plan_gangs(const cosched_gang_plan_t *plan, size_t *gang)
{
	for (size_t g = 0; g < plan->ngangs; g++)
		for (int k = 0; k < plan->gangs[g].count; k++)
			gang[plan->members[plan->gangs[g].first + k].job] = g;
}

static cosched_gang_plan_t plan_of(const size_t *gang, size_t n,
				   size_t ngangs,
				   const cosched_gang_job_t *jobs)
{
	cosched_gang_plan_t plan;
	size_t at = 0;

	plan.ngangs = ngangs;
	plan.nmembers = n;
	plan.gangs = calloc(ngangs, sizeof(*plan.gangs));
	plan.members = calloc(n, sizeof(*plan.members));
	ck_assert(plan.gangs && plan.members);
	for (size_t g = 0; g < ngangs; g++) {
		plan.gangs[g].first = at;
		for (size_t i = 0; i < n; i++)
			if (gang[i] == g) {
				plan.members[at].job = i;
				plan.members[at].threads = jobs[i].threads;
				plan.gangs[g].count++;
				plan.gangs[g].cores += jobs[i].threads;
				at++;
			}
	}
	return plan;
}

static double value_of(const cosched_gang_params_t *p,
		       const cosched_gang_job_t *jobs, size_t n,
		       const size_t *gang, size_t ngangs)
{
	cosched_gang_plan_t plan = plan_of(gang, n, ngangs, jobs);
	double v = cosched_gang_plan_value(p, jobs, n, &plan);

	cosched_gang_plan_free(&plan);
	return v;
}

START_TEST(test_plan_value)
{
	cosched_gang_params_t p;
	cosched_gang_job_t jobs[4] = {
		gj(1, 2, COSCHED_CAT_MEM), gj(2, 2, COSCHED_CAT_MEM),
		gj(3, 2, COSCHED_CAT_CPU), gj(4, 2, COSCHED_CAT_CPU),
	};
	size_t apart[4] = { 0, 1, 2, 3 }, paired[4] = { 0, 1, 0, 1 };
	size_t alike[4] = { 0, 0, 1, 1 }, all[4] = { 0, 0, 0, 0 };

	cosched_gang_params_init(&p, 4);
	ck_assert_double_eq_tol(value_of(&p, jobs, 4, apart, 4), 1.0, 1e-12);
	ck_assert_double_eq_tol(value_of(&p, jobs, 4, paired, 2), SPEED_MC,
				1e-12);
	ck_assert_double_eq_tol(value_of(&p, jobs, 4, alike, 2),
				(SPEED_MM + 2) / 2, 1e-12);
	/* 8 cores on a 4-core gang; a bound broken (mem 1.30 > 1.2). */
	ck_assert_double_eq(value_of(&p, jobs, 4, all, 1), -1);
	jobs[0].max_slowdown = 1.2;
	ck_assert_double_eq(value_of(&p, jobs, 4, alike, 2), -1);
	ck_assert_double_eq_tol(value_of(&p, jobs, 4, paired, 2), SPEED_MC,
				1e-12);
}
END_TEST

/* Swap: {mem, mem} {cpu, cpu} on 4 cores, 2 threads each: no move fits
 * (a gang is full), no merge; swapping a mem with a cpu gives the
 * optimum, two {mem, cpu} gangs. */
START_TEST(test_improve_swap)
{
	cosched_gang_params_t p;
	cosched_gang_job_t jobs[4] = {
		gj(1, 2, COSCHED_CAT_MEM), gj(2, 2, COSCHED_CAT_MEM),
		gj(3, 2, COSCHED_CAT_CPU), gj(4, 2, COSCHED_CAT_CPU),
	};
	size_t gang[4] = { 0, 0, 1, 1 }, ng = 2;

	cosched_gang_params_init(&p, 4);
	ck_assert_int_eq(gang_plan_local_search(&p, jobs, 4, gang, &ng, &err),
			 0);
	ck_assert_uint_eq(ng, 2);
	ck_assert_uint_ne(gang[0], gang[1]);
	ck_assert_uint_ne(gang[2], gang[3]);
	ck_assert_double_eq_tol(value_of(&p, jobs, 4, gang, ng), SPEED_MC,
				1e-12);
}
END_TEST

/* Move: on 3 cores, {mem, mem, cpu} {cpu, cpu}, one thread each: 2.20780
 * (mem 1.30 twice, cpu 1.14; cpus 1.00).  A mem moved to the cpus:
 * {mem, cpu} 1.934579 and {cpu, cpu, mem} 2/1.07 + 1 = 2.869159, 2.401869,
 * the best of the partitions into two gangs; {mem, mem} {cpu, cpu, cpu}
 * gives 2.269231. */
START_TEST(test_improve_move)
{
	cosched_gang_params_t p;
	cosched_gang_job_t jobs[5] = {
		gj(1, 1, COSCHED_CAT_MEM), gj(2, 1, COSCHED_CAT_MEM),
		gj(3, 1, COSCHED_CAT_CPU), gj(4, 1, COSCHED_CAT_CPU),
		gj(5, 1, COSCHED_CAT_CPU),
	};
	size_t gang[5] = { 0, 0, 0, 1, 1 }, ng = 2;
	double start = (2 / 1.30 + 1 / 1.14 + 2) / 2;
	double best = (SPEED_MC + 2 / 1.07 + 1) / 2;
	cosched_gang_plan_t plan;

	cosched_gang_params_init(&p, 3);
	ck_assert_double_eq_tol(value_of(&p, jobs, 5, gang, ng), start, 1e-12);
	ck_assert_int_eq(gang_plan_local_search(&p, jobs, 5, gang, &ng, &err),
			 0);
	ck_assert_uint_eq(ng, 2);
	ck_assert_uint_ne(gang[0], gang[1]);
	ck_assert_double_eq_tol(value_of(&p, jobs, 5, gang, ng), best, 1e-12);
	/* The plan (exact at this size) finds the same. */
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_MIN_SLOWDOWN, &p,
					   jobs, 5, &plan, &err), 0);
	ck_assert_double_eq_tol(cosched_gang_plan_value(&p, jobs, 5, &plan),
				best, 1e-12);
	cosched_gang_plan_free(&plan);
}
END_TEST

/* Merge: {cpu, cpu} {cpu, cpu} on 4 cores: a move or a swap leaves the
 * value at 2; only merging the two gangs gives 4. */
START_TEST(test_improve_merge)
{
	cosched_gang_params_t p;
	cosched_gang_job_t jobs[4] = {
		gj(1, 1, COSCHED_CAT_CPU), gj(2, 1, COSCHED_CAT_CPU),
		gj(3, 1, COSCHED_CAT_CPU), gj(4, 1, COSCHED_CAT_CPU),
	};
	size_t gang[4] = { 0, 0, 1, 1 }, ng = 2;

	cosched_gang_params_init(&p, 4);
	ck_assert_int_eq(gang_plan_local_search(&p, jobs, 4, gang, &ng, &err),
			 0);
	ck_assert_uint_eq(ng, 1);
	ck_assert_double_eq_tol(value_of(&p, jobs, 4, gang, ng), 4.0, 1e-12);
	/* With two programs per gang at most, the merge is refused. */
	p.max_apps = 2;
	gang[0] = gang[1] = 0;
	gang[2] = gang[3] = 1;
	ng = 2;
	ck_assert_int_eq(gang_plan_local_search(&p, jobs, 4, gang, &ng, &err),
			 0);
	ck_assert_uint_eq(ng, 2);
}
END_TEST

/* A move then a merge: rand programs of 4+3, 5 and 4 threads on 8 cores
 * ({rand, rand} 2/1.06 each): every single move, swap or merge leaves
 * three gangs at (2/1.06 + 2) / 3 = 1.295597 or does not fit; moving the
 * 3 next to the 5 lets the 4 left behind join the other 4: two full gangs,
 * 2/1.06 = 1.886792. */
START_TEST(test_improve_move_then_merge)
{
	cosched_gang_params_t p;
	cosched_gang_job_t jobs[4] = {
		gj(1, 4, COSCHED_CAT_RAND), gj(2, 3, COSCHED_CAT_RAND),
		gj(3, 5, COSCHED_CAT_RAND), gj(4, 4, COSCHED_CAT_RAND),
	};
	size_t gang[4] = { 0, 0, 1, 2 }, ng = 3;

	cosched_gang_params_init(&p, 8);
	ck_assert_double_eq_tol(value_of(&p, jobs, 4, gang, ng),
				(2 / 1.06 + 2) / 3, 1e-12);
	ck_assert_int_eq(gang_plan_local_search(&p, jobs, 4, gang, &ng, &err),
			 0);
	ck_assert_uint_eq(ng, 2);
	ck_assert_uint_eq(gang[1], gang[2]);
	ck_assert_uint_eq(gang[0], gang[3]);
	ck_assert_double_eq_tol(value_of(&p, jobs, 4, gang, ng), 2 / 1.06,
				1e-12);
}
END_TEST

/* Steps chained from every program alone on 4 cores (2 threads each):
 * cpu joins cpu (4/3), mem joins mem ((2 + 1.538462) / 2), then a swap
 * makes two {mem, cpu} gangs, the fixed point. */
START_TEST(test_improve_chain)
{
	cosched_gang_params_t p;
	cosched_gang_job_t jobs[4] = {
		gj(1, 2, COSCHED_CAT_CPU), gj(2, 2, COSCHED_CAT_CPU),
		gj(3, 2, COSCHED_CAT_MEM), gj(4, 2, COSCHED_CAT_MEM),
	};
	size_t gang[4] = { 0, 1, 2, 3 }, ng = 4;

	cosched_gang_params_init(&p, 4);
	ck_assert_int_eq(gang_plan_local_search(&p, jobs, 4, gang, &ng, &err),
			 0);
	ck_assert_uint_eq(ng, 2);
	ck_assert_uint_ne(gang[0], gang[1]);
	ck_assert_uint_ne(gang[2], gang[3]);
	ck_assert_double_eq_tol(value_of(&p, jobs, 4, gang, ng), SPEED_MC,
				1e-12);
}
END_TEST

/* Above the exact search's size, the plan is never below a seed
 * policy's by the value: 12 programs, three per category, the thesis's
 * threads (4/5/6, mem 3/4/5, rand 2/3/4) on 8 cores. */
START_TEST(test_plan_never_below_seed)
{
	static const int thr[4][3] = {
		{ 4, 5, 6 }, { 4, 5, 6 }, { 3, 4, 5 }, { 2, 3, 4 } };
	static const cosched_policy_t seeds[] = {
		COSCHED_POLICY_GANG, COSCHED_POLICY_GREEDY_THREAD,
		COSCHED_POLICY_MISS_RATE_BALANCE,
		COSCHED_POLICY_MISS_RATE_BOUND, COSCHED_POLICY_APP_AWARE,
	};
	cosched_gang_params_t p;
	cosched_gang_job_t jobs[12];
	cosched_gang_plan_t plan;
	size_t gang[12];
	double ours;

	for (int c = 0; c < 4; c++)
		for (int k = 0; k < 3; k++) {
			jobs[c * 3 + k] = gj((uint32_t) (c * 3 + k + 1), thr[c][k],
					     (cosched_category_t) c);
			jobs[c * 3 + k].mpki = c == COSCHED_CAT_MEM ? 5.0 :
				c == COSCHED_CAT_LIM ? 1.8 : 0.01;
		}
	cosched_gang_params_init(&p, 8);
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_MIN_SLOWDOWN, &p,
					   jobs, 12, &plan, &err), 0);
	ours = cosched_gang_plan_value(&p, jobs, 12, &plan);
	ck_assert(ours > 0);
	/* A fixed point: the local search from it changes nothing. */
	plan_gangs(&plan, gang);
	{
		size_t ng = plan.ngangs;
		ck_assert_int_eq(gang_plan_local_search(&p, jobs, 12, gang, &ng,
							&err), 0);
		ck_assert_double_eq_tol(value_of(&p, jobs, 12, gang, ng), ours,
					1e-12);
	}
	cosched_gang_plan_free(&plan);
	for (size_t k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++) {
		ck_assert_int_eq(cosched_gang_plan(seeds[k], &p, jobs, 12, &plan,
						   &err), 0);
		ck_assert_msg(ours >= cosched_gang_plan_value(&p, jobs, 12,
							      &plan) - 1e-12,
			      "below %s", cosched_policy_name(seeds[k]));
		cosched_gang_plan_free(&plan);
	}
}
END_TEST

/* ---- the placement engine: sharing or an empty socket ---------------- */

static int take_any(void *ctx, const size_t *units, size_t n)
{
	(void) ctx;
	(void) units;
	(void) n;
	return 0;
}

/* Two nodes of 2 sockets x 4 cores, a cpu job on socket 0. */
static cosched_place_t *two_nodes(bool strict, double max_slowdown,
				  double pack_demand)
{
	cosched_place_conf_t pc = { .policy = COSCHED_POLICY_MIN_SLOWDOWN,
				    .strict = strict, .explain = true,
				    .max_slowdown = max_slowdown,
				    .pack_demand = pack_demand };
	int units[2] = { 2, 2 }, cores[2] = { 4, 4 };
	cosched_gang_job_t cpu = gj(50, 1, COSCHED_CAT_CPU);
	cosched_hold_t h = { 0, 1 };
	cosched_place_t *p = cosched_place_create(&pc, 2, units, cores, &err);

	ck_assert_msg(p != NULL, "%s", err.msg);
	cosched_place_set_node_ok(p, 0, true);
	cosched_place_set_node_ok(p, 1, true);
	ck_assert_int_eq(cosched_place_enter(p, &cpu, 1, &h, 1, &err), 0);
	return p;
}

static cosched_place_job_t pj(uint32_t id, cosched_category_t cat)
{
	cosched_place_job_t j;

	memset(&j, 0, sizeof(j));
	j.gj = gj(id, 1, cat);
	j.cls.cat = cat;
	j.cls.lca = cosched_category_to_lca(cat);
	j.cores = 1;
	j.kind = COSCHED_PLACE_SINGLE;
	return j;
}

/* The queue-demand switch: 3 sockets are empty.  Two jobs waiting
 * spread (2 < 1.0 x 3: each waiting job still finds an empty socket
 * after the lim job took one), three pack (3 >= 3) onto the cpu job's
 * socket (cost 0.10); PackDemand=0 always packs; PackDemand=2 needs 6. */
START_TEST(test_queue_demand_switch)
{
	cosched_place_t *p = two_nodes(false, 0, 1.0);
	cosched_place_job_t lim = pj(1, COSCHED_CAT_LIM);
	cosched_place_result_t res;

	ck_assert_int_eq(cosched_place_empty_units(p), 3);
	cosched_place_set_queue_jobs(p, 2);
	ck_assert_int_eq(cosched_place_job(p, &lim, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, take_any, NULL, &res), 0);
	ck_assert_int_eq(res.unit, 1);		/* empty, tightest, lowest */
	ck_assert(!res.packed);
	cosched_place_set_queue_jobs(p, 3);
	ck_assert_int_eq(cosched_place_queue_jobs(p), 3);
	ck_assert_int_eq(cosched_place_job(p, &lim, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, take_any, NULL, &res), 0);
	ck_assert_int_eq(res.unit, 0);
	ck_assert(res.packed);
	cosched_place_free(p);

	p = two_nodes(false, 0, 0);
	ck_assert_int_eq(cosched_place_job(p, &lim, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, take_any, NULL, &res), 0);
	ck_assert_int_eq(res.unit, 0);
	ck_assert(res.packed);
	cosched_place_free(p);

	p = two_nodes(false, 0, 2.0);
	cosched_place_set_queue_jobs(p, 5);
	ck_assert_int_eq(cosched_place_job(p, &lim, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, take_any, NULL, &res), 0);
	ck_assert_int_eq(res.unit, 1);
	cosched_place_set_queue_jobs(p, 6);
	ck_assert_int_eq(cosched_place_job(p, &lim, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, take_any, NULL, &res), 0);
	ck_assert_int_eq(res.unit, 0);
	/* No empty socket: sharing is no choice, and not called packing. */
	for (uint32_t u = 1; u < 4; u++) {
		cosched_gang_job_t cpu = gj(70 + u, 1, COSCHED_CAT_CPU);
		cosched_hold_t h = { u, 1 };
		ck_assert_int_eq(cosched_place_enter(p, &cpu, 1, &h, 1, &err), 0);
	}
	ck_assert_int_eq(cosched_place_empty_units(p), 0);
	ck_assert_int_eq(cosched_place_job(p, &lim, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, take_any, NULL, &res), 0);
	ck_assert(!res.packed);
	ck_assert_int_eq(res.unit, 0);
	cosched_place_free(p);
}
END_TEST

/* MaxCorunSlowdown 5%, strict or lenient: packing would slow the cpu job to
 * 1.10, so the lim job takes an empty socket even though the queue asks
 * to pack (packing is sharing by choice); at 10% it packs.  With every
 * socket holding a mem job, a rand job (2.15 next to mem) waits in strict
 * mode, and the reason says why; lenient, it runs at the cheapest. */
START_TEST(test_strict_holds)
{
	cosched_place_job_t lim = pj(1, COSCHED_CAT_LIM);
	cosched_place_job_t rand = pj(2, COSCHED_CAT_RAND);
	cosched_place_result_t res;
	cosched_place_t *p;

	for (int strict = 0; strict < 2; strict++)
		for (int pct = 5; pct <= 10; pct += 5) {
			p = two_nodes(strict, 1.0 + pct / 100.0, 0);
			ck_assert_int_eq(cosched_place_job(p, &lim, NULL,
				COSCHED_PLACE_RUN_NOW, NULL, 0, take_any, NULL,
				&res), 0);
			ck_assert_int_eq(res.unit, pct == 5 ? 1 : 0);
			ck_assert(res.packed == (pct == 10));
			cosched_place_free(p);
		}

	for (int strict = 1; strict >= 0; strict--) {
		cosched_place_conf_t pc = {
			.policy = COSCHED_POLICY_MIN_SLOWDOWN,
			.strict = strict, .explain = true,
			.max_slowdown = 1.25 };
		int units[1] = { 4 }, cores[1] = { 4 };

		p = cosched_place_create(&pc, 1, units, cores, &err);
		ck_assert_msg(p != NULL, "%s", err.msg);
		cosched_place_set_node_ok(p, 0, true);
		for (size_t u = 0; u < 4; u++) {
			cosched_gang_job_t mem = gj(60 + (uint32_t) u, 1,
						    COSCHED_CAT_MEM);
			cosched_hold_t h = { u, 1 };
			ck_assert_int_eq(cosched_place_enter(p, &mem, 1, &h, 1,
							     &err), 0);
		}
		ck_assert_int_eq(cosched_place_job(p, &rand, NULL,
			COSCHED_PLACE_RUN_NOW, NULL, 0, take_any, NULL, &res),
				 strict ? -1 : 0);
		ck_assert_str_eq(res.why,
			strict ? "strict min_slowdown: no socket accepts this rand job (slowdown bound on 4; first: socket 0: predicted slowdown 2.15 > 1.25 (MaxCorunSlowdown=25))" :
			"");
		if (!strict) {
			ck_assert(!res.lenient);
			ck_assert_int_eq(res.unit, 0);
		}
		cosched_place_free(p);
	}
}
END_TEST

/* An allocator that refuses units 0..3 (memory, GRES: what cons_tres may
 * refuse). */
static int refuse_first_four(void *ctx, const size_t *units, size_t n)
{
	int *calls = ctx;

	(*calls)++;
	return units && n == 1 && units[0] >= 4 ? 0 : -1;
}

/* Packing must not use up the tries: 3 nodes of 2 sockets, a cpu job on
 * each of the first four, the queue asking to pack, and the allocator
 * refusing those four sockets; the job then takes an empty one (the fifth
 * try) instead of waiting. */
START_TEST(test_pack_refused_falls_back)
{
	cosched_place_conf_t pc = { .policy = COSCHED_POLICY_MIN_SLOWDOWN,
				    .strict = true, .max_slowdown = 1.25,
				    .pack_demand = 0 };
	int units[3] = { 2, 2, 2 }, cores[3] = { 4, 4, 4 }, calls = 0;
	cosched_place_job_t lim = pj(1, COSCHED_CAT_LIM);
	cosched_place_result_t res;
	cosched_place_t *p = cosched_place_create(&pc, 3, units, cores, &err);

	ck_assert_msg(p != NULL, "%s", err.msg);
	for (size_t i = 0; i < 3; i++)
		cosched_place_set_node_ok(p, i, true);
	for (uint32_t u = 0; u < 4; u++) {
		cosched_gang_job_t cpu = gj(80 + u, 1, COSCHED_CAT_CPU);
		cosched_hold_t h = { u, 1 };
		ck_assert_int_eq(cosched_place_enter(p, &cpu, 1, &h, 1, &err), 0);
	}
	ck_assert_int_eq(cosched_place_job(p, &lim, NULL, COSCHED_PLACE_RUN_NOW,
					   NULL, 0, refuse_first_four, &calls,
					   &res), 0);
	ck_assert_int_eq(calls, 5);
	ck_assert_int_eq(res.unit, 4);
	ck_assert(!res.packed);
	cosched_place_free(p);
}
END_TEST

START_TEST(test_bad_conf)
{
	cosched_place_conf_t pc = { .policy = COSCHED_POLICY_MIN_SLOWDOWN,
				    .max_slowdown = 0.5 };
	int units[1] = { 1 }, cores[1] = { 4 };

	ck_assert_ptr_null(cosched_place_create(&pc, 1, units, cores, &err));
	ck_assert_str_eq(err.msg, "placement: max_slowdown 0.5 (0 or 1..100), pack_demand 0 (0..1000)");
	pc.max_slowdown = 0;
	pc.pack_demand = NAN;
	ck_assert_ptr_null(cosched_place_create(&pc, 1, units, cores, &err));
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("min_slowdown");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_cost_rule);
	tcase_add_test(tc, test_bound);
	tcase_add_test(tc, test_bound_scan);
	tcase_add_test(tc, test_time_shared_joins);
	tcase_add_test(tc, test_time_shared_round);
	tcase_add_test(tc, test_plan_time_shared);
	tcase_add_test(tc, test_plan_value);
	tcase_add_test(tc, test_improve_swap);
	tcase_add_test(tc, test_improve_move);
	tcase_add_test(tc, test_improve_merge);
	tcase_add_test(tc, test_improve_chain);
	tcase_add_test(tc, test_improve_move_then_merge);
	tcase_add_test(tc, test_plan_never_below_seed);
	tcase_add_test(tc, test_queue_demand_switch);
	tcase_add_test(tc, test_strict_holds);
	tcase_add_test(tc, test_pack_refused_falls_back);
	tcase_add_test(tc, test_bad_conf);
	suite_add_tcase(s, tc);
	return s;
}
