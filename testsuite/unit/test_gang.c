/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_gang.c - the gang policies of "Power-aware gang scheduling on
 * multicore" (NTUA thesis, 2013; src/libcosched/policy/gang.c), batch form:
 * the thesis's worked examples, hand-computed cases, Miss-Rate Bound's
 * online rounds, bad input.  The incremental ranking and its index are in
 * test_gang_rank.c. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "gang_job.h"
#include "src/libcosched/policy/mrb.h"
#include "src/libcosched/policy/socket_index.h"

static cosched_error_t err;
/* "{a, b} {c}" from a plan, with job names. */
static void plan_str(const cosched_gang_plan_t *p, const cosched_gang_job_t *jobs,
		     char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t g = 0; g < p->ngangs; g++) {
		at += snprintf(buf + at, len - at, "%s{", g ? " " : "");
		for (int k = 0; k < p->gangs[g].count; k++) {
			const cosched_gang_member_t *m =
				&p->members[p->gangs[g].first + k];
			at += snprintf(buf + at, len - at, "%s%s", k ? ", " : "",
				       jobs[m->job].name);
		}
		at += snprintf(buf + at, len - at, "}");
	}
}

/* Every job exactly once, cores add up and fit, apps bounded. */
static void plan_check(const cosched_gang_plan_t *p, size_t njobs, int capacity,
		       int max_apps)
{
	char *seen = calloc(njobs + 1, 1);
	ck_assert_uint_eq(p->nmembers, njobs);
	for (size_t g = 0; g < p->ngangs; g++) {
		int cores = 0;
		ck_assert_int_gt(p->gangs[g].count, 0);
		if (max_apps)
			ck_assert_int_le(p->gangs[g].count, max_apps);
		for (int k = 0; k < p->gangs[g].count; k++) {
			const cosched_gang_member_t *m =
				&p->members[p->gangs[g].first + k];
			ck_assert_uint_lt(m->job, njobs);
			ck_assert(!seen[m->job]);
			seen[m->job] = 1;
			cores += m->threads;
		}
		ck_assert_int_eq(cores, p->gangs[g].cores);
		ck_assert_int_le(cores, capacity);
	}
	free(seen);
}

/* Same gangs, same members, same threads (field by field: padding). */
static bool plan_eq(const cosched_gang_plan_t *a, const cosched_gang_plan_t *b)
{
	if (a->ngangs != b->ngangs || a->nmembers != b->nmembers)
		return false;
	for (size_t g = 0; g < a->ngangs; g++)
		if (a->gangs[g].first != b->gangs[g].first ||
		    a->gangs[g].count != b->gangs[g].count ||
		    a->gangs[g].cores != b->gangs[g].cores)
			return false;
	for (size_t k = 0; k < a->nmembers; k++)
		if (a->members[k].job != b->members[k].job ||
		    a->members[k].threads != b->members[k].threads ||
		    a->members[k].freq_khz != b->members[k].freq_khz)
			return false;
	return true;
}

/* ---- Application-Aware ------------------------------------------- */

/* The 2013 gang-scheduling thesis, "Greedy Application-Aware", worked
 * example: 12 four-thread programs, 3 per category, capacity 8. */
START_TEST(test_app_aware_worked_example)
{
	static const char *names[] = { "cpu1", "cpu2", "cpu3", "lim1", "lim2",
		"lim3", "mem1", "mem2", "mem3", "rand1", "rand2", "rand3" };
	static const cosched_category_t cats[] = { COSCHED_CAT_CPU,
		COSCHED_CAT_LIM, COSCHED_CAT_MEM, COSCHED_CAT_RAND };
	cosched_gang_job_t jobs[12];
	cosched_gang_params_t p;
	cosched_gang_plan_t plan;
	char buf[512];

	for (int i = 0; i < 12; i++) {
		jobs[i] = mkjob(i + 1, names[i], 4, 0, cats[i / 3]);
		/* each at its own lowest-EDP frequency */
		jobs[i].freq_khz = cats[i / 3] == COSCHED_CAT_MEM ? 1500000 : 2200000;
	}
	cosched_gang_params_init(&p, 8);
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_APP_AWARE, &p, jobs, 12,
					   &plan, &err), 0);
	plan_str(&plan, jobs, buf, sizeof(buf));
	ck_assert_str_eq(buf, "{rand1, rand2} {rand3, cpu1} {mem1, cpu2} "
			      "{mem2, cpu3} {mem3, lim1} {lim2, lim3}");
	plan_check(&plan, 12, 8, 2);
	for (size_t k = 0; k < plan.nmembers; k++)
		ck_assert_int_eq(plan.members[k].freq_khz,
				 jobs[plan.members[k].job].freq_khz);
	cosched_gang_plan_free(&plan);
}
END_TEST

/* Input order does not matter (job ids decide), and a random mix never
 * co-locates a forbidden pair. */
START_TEST(test_app_aware_never_forbidden)
{
	cosched_pref_table_t t;
	cosched_gang_params_t p;
	cosched_gang_plan_t plan;
	cosched_gang_job_t *jobs = malloc(500 * sizeof(*jobs));
	unsigned r = 7;

	cosched_pref_table_default(&t);
	cosched_gang_params_init(&p, 8);
	for (int i = 0; i < 500; i++) {
		r = r * 1103515245u + 12345u;
		jobs[i] = mkjob(1000 - i, "x", 1 + (r >> 16) % 8, 0,
				(r >> 8) % 5);	/* 4 = unknown */
	}
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_APP_AWARE, &p, jobs, 500,
					   &plan, &err), 0);
	plan_check(&plan, 500, 8, 2);
	for (size_t g = 0; g < plan.ngangs; g++) {
		const cosched_gang_member_t *m = &plan.members[plan.gangs[g].first];
		if (plan.gangs[g].count < 2)
			continue;
		cosched_category_t a = jobs[m[0].job].category;
		cosched_category_t b = jobs[m[1].job].category;
		ck_assert(a != COSCHED_CAT_UNKNOWN && b != COSCHED_CAT_UNKNOWN);
		ck_assert(cosched_pref_allowed(&t, a, b));
	}
	cosched_gang_plan_free(&plan);
	free(jobs);
}
END_TEST

/* ---- Miss-Rate Balance ------------------------------------------- */

/* The 2013 gang-scheduling thesis, "Workload used for the headline
 * comparison" (artificial). */
static const struct { const char *name; int threads; double mpki; cosched_category_t cat; }
artificial[] = {
	{ "cpu1", 4, 0.01, COSCHED_CAT_CPU }, { "cpu2", 5, 0.01, COSCHED_CAT_CPU },
	{ "cpu3", 6, 0.01, COSCHED_CAT_CPU }, { "lim1", 4, 1.66, COSCHED_CAT_LIM },
	{ "lim2", 5, 1.78, COSCHED_CAT_LIM }, { "lim3", 6, 1.99, COSCHED_CAT_LIM },
	{ "mem1", 3, 5.02, COSCHED_CAT_MEM }, { "mem2", 4, 5.38, COSCHED_CAT_MEM },
	{ "mem3", 5, 5.57, COSCHED_CAT_MEM }, { "rand1", 2, 0.01, COSCHED_CAT_RAND },
	{ "rand2", 3, 0.01, COSCHED_CAT_RAND }, { "rand3", 4, 0.01, COSCHED_CAT_RAND },
};

START_TEST(test_mr_balance_artificial)
{
	cosched_gang_job_t jobs[12];
	cosched_gang_params_t p;
	cosched_gang_plan_t plan;
	char buf[512];

	for (int i = 0; i < 12; i++)
		jobs[i] = mkjob(i + 1, artificial[i].name, artificial[i].threads,
				artificial[i].mpki, artificial[i].cat);
	cosched_gang_params_init(&p, 8);
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_MISS_RATE_BALANCE, &p,
					   jobs, 12, &plan, &err), 0);
	plan_str(&plan, jobs, buf, sizeof(buf));
	/* Sorted by MPKI: mem3 mem2 mem1 lim3 lim2 lim1 cpu1 cpu2 cpu3 rand1
	 * rand2 rand3 (ties by job id).  mem3 (5) skips rand3 (4: 9 > 8) and
	 * takes rand2 (3); mem2 (4) takes rand3; mem1 (3) takes rand1; lim3
	 * (6) and lim2 (5) find nothing small enough; lim1 (4) takes cpu1 (4);
	 * cpu2 (5) and cpu3 (6) stay alone.  The highest-MPKI programs land
	 * with the random-access ones, as the 2013 gang-scheduling thesis
	 * reports. */
	ck_assert_str_eq(buf, "{mem3, rand2} {mem2, rand3} {mem1, rand1} {lim3} "
			      "{lim2} {lim1, cpu1} {cpu2} {cpu3}");
	plan_check(&plan, 12, 8, 2);
	cosched_gang_plan_free(&plan);
}
END_TEST

/* ---- Greedy Thread ----------------------------------------------- */

/* Hand-computed from the three steps of the 2013 gang-scheduling thesis,
 * capacity 8:
 *   A: min 2, requests 4, scales to 8;  B: min 3, requests 4, scales to 4;
 *   C: min 4, requests 4, scales to 4;  D: min 2, requests 2, scales to 3.
 * Order (best-scaling = requesting the most threads first; ties by the
 * count it scales to, then id): A, B, C, D.
 * Gang 1: A at 2 (6 idle); B's 3 fit (3 idle); C's 4 do not; D's 2 fit
 * (1 idle); step 3 gives A the last core: A 3, B 3, D 2.
 * Gang 2: C at 4; nothing left; C scales only to 4: C 4. */
START_TEST(test_greedy_thread_worked)
{
	cosched_gang_job_t jobs[4];
	cosched_gang_params_t p;
	cosched_gang_plan_t plan;
	char buf[256];

	jobs[0] = mkjob(1, "A", 4, 0, COSCHED_CAT_CPU);
	jobs[0].min_threads = 2, jobs[0].max_threads = 8;
	jobs[1] = mkjob(2, "B", 4, 0, COSCHED_CAT_CPU);
	jobs[1].min_threads = 3, jobs[1].max_threads = 4;
	jobs[2] = mkjob(3, "C", 4, 0, COSCHED_CAT_CPU);
	jobs[2].min_threads = 4;
	jobs[3] = mkjob(4, "D", 2, 0, COSCHED_CAT_CPU);
	jobs[3].max_threads = 3;
	cosched_gang_params_init(&p, 8);
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_GREEDY_THREAD, &p, jobs,
					   4, &plan, &err), 0);
	plan_str(&plan, jobs, buf, sizeof(buf));
	ck_assert_str_eq(buf, "{A, B, D} {C}");
	ck_assert_int_eq(plan.members[0].threads, 3);
	ck_assert_int_eq(plan.members[1].threads, 3);
	ck_assert_int_eq(plan.members[2].threads, 2);
	ck_assert_int_eq(plan.members[3].threads, 4);
	ck_assert_int_eq(plan.gangs[0].cores, 8);
	ck_assert_int_eq(plan.gangs[1].cores, 4);
	plan_check(&plan, 4, 8, 0);
	cosched_gang_plan_free(&plan);
}
END_TEST

/* The 2013 gang-scheduling thesis defines best-scaling as "the one
 * requesting the most threads"; how far a program keeps scaling only breaks
 * ties.  Capacity 8:
 *   P: requests 4, min 4, scales to 4;
 *   Q: requests 2, min 2, scales to 8.
 * Order: P (4 threads requested) before Q (2).
 * Gang 1: step 1, P opens it at its minimum 4 (4 idle); step 2, Q's 2 fit
 * (2 idle); step 3 raises the best-scaling program, P, which stops at 4:
 * P 4, Q 2, 2 cores idle (the thesis: "idle cores are acceptable").
 * Ordering by the scaling limit first (as this code once did) would make Q
 * the head and give it the idle cores: Q 4, P 4. */
START_TEST(test_greedy_thread_most_threads_first)
{
	cosched_gang_job_t jobs[2];
	cosched_gang_params_t p;
	cosched_gang_plan_t plan;
	char buf[64];

	jobs[0] = mkjob(1, "Q", 2, 0, COSCHED_CAT_CPU);
	jobs[0].max_threads = 8;
	jobs[1] = mkjob(2, "P", 4, 0, COSCHED_CAT_CPU);
	cosched_gang_params_init(&p, 8);
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_GREEDY_THREAD, &p, jobs,
					   2, &plan, &err), 0);
	plan_str(&plan, jobs, buf, sizeof(buf));
	ck_assert_str_eq(buf, "{P, Q}");
	ck_assert_int_eq(plan.members[0].threads, 4);
	ck_assert_int_eq(plan.members[1].threads, 2);
	ck_assert_int_eq(plan.gangs[0].cores, 6);
	plan_check(&plan, 2, 8, 0);
	cosched_gang_plan_free(&plan);
}
END_TEST

START_TEST(test_gang_one_per_gang)
{
	cosched_gang_job_t jobs[3] = { mkjob(9, "x", 8, 1, COSCHED_CAT_CPU),
		mkjob(3, "y", 1, 1, COSCHED_CAT_MEM), mkjob(5, "z", 2, 1, COSCHED_CAT_LIM) };
	cosched_gang_params_t p;
	cosched_gang_plan_t plan;
	char buf[128];

	cosched_gang_params_init(&p, 8);
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_GANG, &p, jobs, 3, &plan,
					   &err), 0);
	plan_str(&plan, jobs, buf, sizeof(buf));
	ck_assert_str_eq(buf, "{x} {y} {z}");
	plan_check(&plan, 3, 8, 1);
	cosched_gang_plan_free(&plan);
}
END_TEST

/* Every batch policy on a random mix: complete, within capacity, and the
 * same answer twice (determinism). */
START_TEST(test_batch_all_policies_valid)
{
	cosched_gang_job_t *jobs = malloc(300 * sizeof(*jobs));
	cosched_gang_params_t p;
	unsigned r = 99;

	for (int i = 0; i < 300; i++) {
		r = r * 1103515245u + 12345u;
		jobs[i] = mkjob(i, "x", 1 + (r >> 16) % 8, ((r >> 4) % 1000) / 100.0,
				(r >> 10) % 4);
		jobs[i].min_threads = 1 + ((r >> 20) % jobs[i].threads);
		jobs[i].max_threads = jobs[i].threads + (r >> 24) % 4;
	}
	cosched_gang_params_init(&p, 8);
	for (int pol = 0; pol < COSCHED_POLICY_PLACING_COUNT; pol++) {
		cosched_gang_plan_t a, b;
		ck_assert_int_eq(cosched_gang_plan(pol, &p, jobs, 300, &a, &err), 0);
		ck_assert_int_eq(cosched_gang_plan(pol, &p, jobs, 300, &b, &err), 0);
		plan_check(&a, 300, 8, cosched_gang_max_apps(pol, &p));
		ck_assert(plan_eq(&a, &b));
		cosched_gang_plan_free(&a);
		cosched_gang_plan_free(&b);
	}
	free(jobs);
}
END_TEST

/* ---- Miss-Rate Bound --------------------------------------------- */

START_TEST(test_mrb_ewma)
{
	cosched_gang_job_t j = mkjob(1, "a", 2, 0, COSCHED_CAT_MEM);
	cosched_gang_params_t p;
	cosched_mrb_t *s;

	cosched_gang_params_init(&p, 8);
	s = cosched_mrb_create(&p, &j, 1, &err);
	ck_assert_ptr_nonnull(s);
	/* The 2013 gang-scheduling thesis: start at 0; smoothed = 1/2 x
	 * current + 1/2 x previous. */
	ck_assert_double_eq(cosched_mrb_job_mpki(s, 0), 0.0);
	static const double samples[] = { 8, 4, 0, 6, 14 };
	static const double expect[] = { 4, 4, 2, 4, 9 };
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(cosched_mrb_feed(s, 0, samples[i], &err), 0);
		ck_assert_double_eq(cosched_mrb_job_mpki(s, 0), expect[i]);
	}
	ck_assert_int_eq(cosched_mrb_feed(s, 1, 1.0, &err), -1);
	ck_assert_str_eq(err.msg, "job: index 1 out of range (1 jobs)");
	ck_assert_int_eq(cosched_mrb_feed(s, 0, -1.0, &err), -1);
	ck_assert_str_eq(err.msg, "mpki_sample: must be a finite number >= 0, got -1");
	cosched_mrb_free(s);

	/* Another weight: a = 1/4. */
	p.mrb_weight = 0.25;
	s = cosched_mrb_create(&p, &j, 1, &err);
	cosched_mrb_feed(s, 0, 8, &err);
	ck_assert_double_eq(cosched_mrb_job_mpki(s, 0), 2.0);
	cosched_mrb_feed(s, 0, 8, &err);
	ck_assert_double_eq(cosched_mrb_job_mpki(s, 0), 3.5);
	cosched_mrb_free(s);
}
END_TEST

/*
 * A scripted sequence, capacity 8, T = 12, a = 1/2, starting at MPKI 0 and
 * fed twice the target so one quantum gives the target exactly:
 *   gang 0: A 7, B 5, C 4, D 2 (2 threads each) = 18
 *   gang 1: E 3 (4 threads), F 1 (2)           = 4, 6 cores
 *   gang 2: G 7, H 7, I 7 (2 each)             = 21, 6 cores
 *   gang 3: J 1 (2)                            = 1, singleton
 * Round 1, gangs in order:
 *   g0: 18 >= 12; removing D, C, B leaves 16, 14, 13; removing A leaves
 *       11 < 12, so A moves where it fits: g1 (4+7 = 11, 8 cores) and g3
 *       (1+7 = 8, 4 cores) fit, g3 has more headroom: A -> g3 (split).
 *   g1: 4 < 12, stays.
 *   g2: 21; no single removal gets below 12 (14 each): the highest-MPKI
 *       application (I, ties by job id) goes to a new gang (slot 4); then
 *       14: removing G (lowest, by id) leaves 7; G fits g1 (4+7 = 11, 8
 *       cores) only: G -> g1.  Two moves out of one gang in one round.
 *   g3: now {J, A} = 8, stays.  g4 is new this round: not visited.
 * Round 2: nothing fits H (7) or I (7) anywhere: no moves.
 * Round 3: H's sample 0 gives H 3.5 (EWMA); singleton H fits g3 (11.5, 6
 *   cores) and g4 (10.5, 4 cores): more headroom in g4: H -> g4, g2 gone.
 */
START_TEST(test_mrb_scripted)
{
	static const char *names = "ABCDEFGHIJ";
	static const int threads[] = { 2, 2, 2, 2, 4, 2, 2, 2, 2, 2 };
	static const int gang[] = { 0, 0, 0, 0, 1, 1, 2, 2, 2, 3 };
	static const double target[] = { 7, 5, 4, 2, 3, 1, 7, 7, 7, 1 };
	cosched_gang_job_t jobs[10];
	char nm[10][2];
	cosched_gang_params_t p;
	const cosched_mrb_move_t *mv;
	size_t nmv;
	cosched_mrb_t *s;

	for (int i = 0; i < 10; i++) {
		nm[i][0] = names[i];
		nm[i][1] = '\0';
		jobs[i] = mkjob(i + 1, nm[i], threads[i], 0, COSCHED_CAT_UNKNOWN);
	}
	cosched_gang_params_init(&p, 8);
	s = cosched_mrb_create_from(&p, jobs, 10, gang, &err);
	ck_assert_msg(s != NULL, "%s", err.msg);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(cosched_mrb_feed(s, i, 2 * target[i], &err), 0);
	ck_assert_double_eq(cosched_mrb_gang_mpki(s, 0), 18.0);
	ck_assert_double_eq(cosched_mrb_gang_mpki(s, 2), 21.0);

	ck_assert_int_eq(cosched_mrb_end_round(s, &mv, &nmv, &err), 0);
	ck_assert_uint_eq(nmv, 3);
	ck_assert_uint_eq(mv[0].job, 0);	/* A */
	ck_assert_int_eq(mv[0].from_gang, 0);
	ck_assert_int_eq(mv[0].to_gang, 3);
	ck_assert_int_eq(mv[0].kind, COSCHED_MRB_MOVE_SPLIT);
	ck_assert_double_eq(mv[0].mpki, 7.0);
	ck_assert_uint_eq(mv[1].job, 8);	/* I */
	ck_assert_int_eq(mv[1].from_gang, 2);
	ck_assert_int_eq(mv[1].to_gang, 4);
	ck_assert_int_eq(mv[1].kind, COSCHED_MRB_MOVE_NEW_GANG);
	ck_assert_uint_eq(mv[2].job, 6);	/* G */
	ck_assert_int_eq(mv[2].from_gang, 2);
	ck_assert_int_eq(mv[2].to_gang, 1);
	ck_assert_int_eq(mv[2].kind, COSCHED_MRB_MOVE_SPLIT);
	ck_assert_double_eq(cosched_mrb_gang_mpki(s, 0), 11.0);
	ck_assert_double_eq(cosched_mrb_gang_mpki(s, 1), 11.0);
	ck_assert_int_eq(cosched_mrb_gang_cores(s, 1), 8);
	ck_assert_double_eq(cosched_mrb_gang_mpki(s, 2), 7.0);
	ck_assert_double_eq(cosched_mrb_gang_mpki(s, 3), 8.0);
	ck_assert_double_eq(cosched_mrb_gang_mpki(s, 4), 7.0);
	ck_assert_uint_eq(cosched_mrb_gang_count(s), 5);

	ck_assert_int_eq(cosched_mrb_end_round(s, &mv, &nmv, &err), 0);
	ck_assert_uint_eq(nmv, 0);

	ck_assert_int_eq(cosched_mrb_feed(s, 7, 0, &err), 0);
	ck_assert_double_eq(cosched_mrb_job_mpki(s, 7), 3.5);
	ck_assert_int_eq(cosched_mrb_end_round(s, &mv, &nmv, &err), 0);
	ck_assert_uint_eq(nmv, 1);
	ck_assert_uint_eq(mv[0].job, 7);	/* H */
	ck_assert_int_eq(mv[0].from_gang, 2);
	ck_assert_int_eq(mv[0].to_gang, 4);
	ck_assert_int_eq(mv[0].kind, COSCHED_MRB_MOVE_MERGE);
	ck_assert_int_eq(cosched_mrb_gang_napps(s, 2), 0);
	ck_assert_uint_eq(cosched_mrb_gang_count(s), 4);
	ck_assert_int_eq(cosched_mrb_job_gang(s, 7), 4);
	cosched_mrb_free(s);
}
END_TEST

/* Fail with the message unless cond; silent when it holds (a passing
 * ck_assert costs a system call, and this test checks millions). */
#define REQUIRE(cond, ...) do {						\
	if (!(cond))							\
		ck_abort_msg(__VA_ARGS__);				\
} while (0)

/*
 * Property: over many random rounds, every round,
 *  - every job is in exactly one gang, no live gang is empty and no gang is
 *    over its cores (the API's counts, the snapshot and the jobs agree);
 *  - every gang that received an application by "fits" (a merge or a
 *    split) holds at most the capacity and at most T;
 *  - singletons that fit are merged: a gang that is a singleton when its
 *    turn comes either merges into a gang it fits, or no other gang could
 *    take it (brute force over all gangs), and every gang at or above T
 *    with more than one application is split until it is below T or alone.
 * The round's rules (src/libcosched/policy/mrb.c; the 2013 gang-scheduling
 * thesis, "Miss-Rate Bound") are checked where they apply: the gangs are
 * visited in slot order, so the test replays the round's moves from the
 * state before it and checks each gang at its turn.  Gangs opened in the
 * round (new-gang moves) have no turn; a singleton visited early may fit a
 * gang that a later split shrinks, which the rule does not revisit.
 */
START_TEST(test_mrb_random_rounds)
{
	enum { N = 300, ROUNDS = 300, CAP = 8 };
	const double eps = 1e-9;
	cosched_gang_job_t jobs[N];
	cosched_gang_params_t p;
	cosched_mrb_t *s;
	unsigned r = 12345;
	size_t kinds[3] = { 0, 0, 0 }, nofit = 0;
	double T;
	/* the replayed state */
	static int g_of[N], cores[N], napps[N], members[N][CAP];
	static double mpki[N], load[N];
	static bool born[N];

	for (int i = 0; i < N; i++) {
		r = r * 1103515245u + 12345u;
		jobs[i] = mkjob(i, "x", 1 + (r >> 16) % CAP, 0, COSCHED_CAT_UNKNOWN);
	}
	cosched_gang_params_init(&p, CAP);
	p.seed = 42;
	T = p.mrb_threshold;
	s = cosched_mrb_create(&p, jobs, N, &err);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(cosched_mrb_gang_slots(s), N);
	for (int round = 0; round < ROUNDS; round++) {
		const cosched_mrb_move_t *mv;
		size_t nmv, k = 0, live = 0;
		cosched_gang_plan_t plan;

		for (int i = 0; i < N; i++) {
			r = r * 1103515245u + 12345u;
			/* mostly light, some heavy phases */
			double sample = ((r >> 8) % 1000) / 100.0;
			if ((r >> 20) % 7 == 0)
				sample *= 2.5;
			REQUIRE(cosched_mrb_feed(s, i, sample, &err) == 0, "%s", err.msg);
		}
		/* the state the round starts from */
		memset(cores, 0, sizeof(cores));
		memset(napps, 0, sizeof(napps));
		memset(load, 0, sizeof(load));
		memset(born, 0, sizeof(born));
		for (int i = 0; i < N; i++) {
			int g = g_of[i] = cosched_mrb_job_gang(s, i);
			REQUIRE(g >= 0 && g < N, "round %d: job %d in gang %d", round, i, g);
			REQUIRE(napps[g] < CAP, "round %d: gang %d over %d apps", round, g, CAP);
			mpki[i] = cosched_mrb_job_mpki(s, i);
			members[g][napps[g]++] = i;
			cores[g] += jobs[i].threads;
			load[g] += mpki[i];
		}
		ck_assert_int_eq(cosched_mrb_end_round(s, &mv, &nmv, &err), 0);

		for (int g = 0; g < N; g++) {
			/* g's turn: the moves of earlier turns are applied */
			bool had_turn = napps[g] > 0 && !born[g];
			int single = had_turn && napps[g] == 1 ? members[g][0] : -1;
			bool moves_here = k < nmv && mv[k].from_gang == g;

			REQUIRE(k == nmv || mv[k].from_gang >= g,
				"round %d: move %zu from gang %d after gang %d's turn",
				round, k, mv[k].from_gang, g);
			REQUIRE(had_turn || !moves_here,
				"round %d: gang %d moved without a turn", round, g);
			REQUIRE(!had_turn || single >= 0 || load[g] >= T - eps || !moves_here,
				"round %d: gang %d below T was split", round, g);
			if (single >= 0 && !moves_here) {
				/* it stayed: no other gang could take it */
				for (int h = 0; h < N; h++)
					REQUIRE(h == g || napps[h] == 0 ||
						cores[h] + jobs[single].threads > CAP ||
						load[h] + mpki[single] > T - eps,
						"round %d: singleton %d (gang %d) fits gang %d",
						round, single, g, h);
				nofit++;
			}
			for (; k < nmv && mv[k].from_gang == g; k++) {
				const cosched_mrb_move_t *m = &mv[k];
				int j = (int) m->job, to = m->to_gang, at = -1;
				bool ok;

				REQUIRE(g_of[j] == g && m->job_id == jobs[j].job_id &&
					m->mpki == mpki[j] && to >= 0 && to < N && to != g,
					"round %d: move %zu: job %d from %d to %d", round, k,
					j, g, to);
				switch (m->kind) {
				case COSCHED_MRB_MOVE_MERGE:
					ok = j == single && napps[to] > 0;
					break;
				case COSCHED_MRB_MOVE_SPLIT:
					ok = napps[g] > 1 && load[g] >= T - eps &&
					     load[g] - mpki[j] < T + eps && napps[to] > 0;
					break;
				case COSCHED_MRB_MOVE_NEW_GANG:
					ok = napps[g] > 1 && load[g] >= T - eps &&
					     napps[to] == 0;
					born[to] = true;
					break;
				default:
					ok = false;
				}
				REQUIRE(ok, "round %d: move %zu (kind %d) of job %d from gang %d "
					"(%d apps, MPKI %g) to gang %d (%d apps) breaks its rule",
					round, k, (int) m->kind, j, g, napps[g], load[g], to,
					napps[to]);
				kinds[m->kind]++;
				for (int q = 0; q < napps[g]; q++)
					if (members[g][q] == j)
						at = q;
				REQUIRE(at >= 0 && napps[to] < CAP, "round %d: move %zu", round, k);
				members[g][at] = members[g][--napps[g]];
				cores[g] -= jobs[j].threads;
				load[g] -= mpki[j];
				members[to][napps[to]++] = j;
				cores[to] += jobs[j].threads;
				load[to] += mpki[j];
				g_of[j] = to;
				/* a gang that received by "fits": cores and T */
				REQUIRE(cores[to] <= CAP, "round %d: gang %d has %d cores",
					round, to, cores[to]);
				REQUIRE(m->kind == COSCHED_MRB_MOVE_NEW_GANG || load[to] <= T + eps,
					"round %d: gang %d at MPKI %g after a move", round, to,
					load[to]);
			}
			/* at or above T: split until below T or alone */
			REQUIRE(!had_turn || single >= 0 || napps[g] == 1 || load[g] < T + eps,
				"round %d: gang %d left at MPKI %g with %d apps", round, g,
				load[g], napps[g]);
		}
		REQUIRE(k == nmv, "round %d: %zu of %zu moves replayed", round, k, nmv);

		/* the replay is the state the API reports */
		for (int i = 0; i < N; i++)
			REQUIRE(cosched_mrb_job_gang(s, i) == g_of[i],
				"round %d: job %d in gang %d, replay %d", round, i,
				cosched_mrb_job_gang(s, i), g_of[i]);
		for (int g = 0; g < N; g++) {
			REQUIRE(cosched_mrb_gang_napps(s, g) == napps[g] &&
				cosched_mrb_gang_cores(s, g) == cores[g] &&
				fabs(cosched_mrb_gang_mpki(s, g) - load[g]) < 1e-6,
				"round %d: gang %d: %d apps, %d cores, MPKI %g; replay %d, %d, %g",
				round, g, cosched_mrb_gang_napps(s, g),
				cosched_mrb_gang_cores(s, g), cosched_mrb_gang_mpki(s, g),
				napps[g], cores[g], load[g]);
			REQUIRE(cores[g] <= CAP, "round %d: gang %d has %d cores", round,
				g, cores[g]);
			live += napps[g] > 0;
		}
		REQUIRE(cosched_mrb_gang_count(s) == live, "round %d: %zu gangs, %zu live",
			round, cosched_mrb_gang_count(s), live);
		ck_assert_int_eq(cosched_mrb_snapshot(s, &plan, &err), 0);
		REQUIRE(plan.ngangs == live, "round %d: snapshot of %zu gangs, %zu live",
			round, plan.ngangs, live);
		plan_check(&plan, N, CAP, 0);	/* each job once, no gang empty */
		cosched_gang_plan_free(&plan);
	}
	/* every rule above was exercised */
	ck_assert_uint_gt(kinds[COSCHED_MRB_MOVE_MERGE], 0);
	ck_assert_uint_gt(kinds[COSCHED_MRB_MOVE_SPLIT], 0);
	ck_assert_uint_gt(kinds[COSCHED_MRB_MOVE_NEW_GANG], 0);
	ck_assert_uint_gt(nofit, 0);
	cosched_mrb_free(s);
}
END_TEST

/* Seeded random start: deterministic, and the thesis matters. */
START_TEST(test_mrb_seeded_start)
{
	enum { N = 40 };
	cosched_gang_job_t jobs[N];
	cosched_gang_params_t p;
	cosched_gang_plan_t a, b, c;

	for (int i = 0; i < N; i++)
		jobs[i] = mkjob(i, "x", 1 + i % 5, 0, COSCHED_CAT_CPU);
	cosched_gang_params_init(&p, 8);
	p.seed = 7;
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_MISS_RATE_BOUND, &p, jobs,
					   N, &a, &err), 0);
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_MISS_RATE_BOUND, &p, jobs,
					   N, &b, &err), 0);
	p.seed = 8;
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_MISS_RATE_BOUND, &p, jobs,
					   N, &c, &err), 0);
	plan_check(&a, N, 8, 0);
	ck_assert(plan_eq(&a, &b));
	ck_assert(!plan_eq(&a, &c));
	cosched_gang_plan_free(&a);
	cosched_gang_plan_free(&b);
	cosched_gang_plan_free(&c);
}
END_TEST

/* ---- bad parameters ---------------------------------------------- */

/* Capacity and max_apps are bounded before anything is sized by them: a
 * huge max_apps used to size the socket index (and fail "out of memory"),
 * and a capacity near INT_MAX overflowed its bucket count. */
START_TEST(test_bounds)
{
	cosched_gang_job_t j = mkjob(1, "a", 4, 0, COSCHED_CAT_CPU);
	cosched_gang_params_t p;
	cosched_gang_plan_t plan;
	int caps[2] = { 8, COSCHED_GANG_MAX_CAPACITY + 1 };

	cosched_gang_params_init(&p, 64);
	p.max_apps = 1000000;
	ck_assert_ptr_null(cosched_socket_index_create(COSCHED_POLICY_GREEDY_THREAD,
						       &p, 4, NULL, &err));
	ck_assert_str_eq(err.msg, "max_apps: must be <= capacity = 64 (every application holds a core), got 1000000");
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_APP_AWARE, &p, &j, 1,
					   &plan, &err), -1);
	ck_assert_str_eq(err.msg, "max_apps: must be <= capacity = 64 (every application holds a core), got 1000000");
	p.max_apps = 64;	/* one core each: the most that can fit */
	ck_assert_int_eq(cosched_gang_params_check(&p, &err), 0);

	cosched_gang_params_init(&p, INT_MAX);
	ck_assert_int_eq(cosched_gang_params_check(&p, &err), -1);
	ck_assert_str_eq(err.msg, "capacity: must be <= 1024 cores, got 2147483647");
	ck_assert_ptr_null(cosched_socket_index_create(COSCHED_POLICY_GANG, &p, 1,
						       NULL, &err));
	cosched_gang_params_init(&p, COSCHED_GANG_MAX_CAPACITY + 1);
	ck_assert_ptr_null(cosched_mrb_create(&p, &j, 1, &err));
	ck_assert_str_eq(err.msg, "capacity: must be <= 1024 cores, got 1025");

	/* The largest capacity works, for every policy. */
	cosched_gang_params_init(&p, COSCHED_GANG_MAX_CAPACITY);
	j.threads = COSCHED_GANG_MAX_CAPACITY;
	for (int pol = 0; pol < COSCHED_POLICY_PLACING_COUNT; pol++) {
		cosched_socket_index_t *x =
			cosched_socket_index_create(pol, &p, 3, NULL, &err);
		ck_assert_msg(x != NULL, "%s", err.msg);
		ck_assert_int_eq(cosched_socket_index_best(x, &j, 0, NULL, &err), 0);
		cosched_socket_index_free(x);
		ck_assert_int_eq(cosched_gang_plan(pol, &p, &j, 1, &plan, &err), 0);
		cosched_gang_plan_free(&plan);
	}

	/* Per-socket capacities of the index are bounded the same way. */
	cosched_gang_params_init(&p, 8);
	ck_assert_ptr_null(cosched_socket_index_create(COSCHED_POLICY_GANG, &p, 2,
						       caps, &err));
	ck_assert_str_eq(err.msg, "capacity[1]: must be in [1, 1024], got 1025");
	cosched_socket_t s = { COSCHED_GANG_MAX_CAPACITY + 1, 0, NULL, 0 };
	cosched_candidate_t out[1];
	size_t acc;
	j.threads = 2;
	ck_assert_int_eq(cosched_gang_rank(COSCHED_POLICY_GANG, &p, &s, 1, &j, out,
					   &acc, &err), -1);
	ck_assert_str_eq(err.msg, "sockets[0].capacity: must be in [1, 1024], got 1025");
}
END_TEST

START_TEST(test_bad_params)
{
	cosched_gang_job_t j = mkjob(1, "a", 4, 0, COSCHED_CAT_CPU);
	cosched_gang_params_t p;
	cosched_gang_plan_t plan;
	cosched_candidate_t out[1];
	size_t acc;

	cosched_gang_params_init(&p, 0);
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_GANG, &p, &j, 1, &plan,
					   &err), -1);
	ck_assert_str_eq(err.msg, "capacity: must be >= 1 core, got 0");
	ck_assert_ptr_null(cosched_socket_index_create(COSCHED_POLICY_GANG, &p, 1,
						       NULL, &err));
	ck_assert_str_eq(err.msg, "capacity: must be >= 1 core, got 0");

	cosched_gang_params_init(&p, 8);
	j.threads = 9;
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_APP_AWARE, &p, &j, 1,
					   &plan, &err), -1);
	ck_assert_str_eq(err.msg, "jobs[0].threads: 9 exceeds the capacity of 8 cores");
	ck_assert_int_eq(cosched_gang_rank(COSCHED_POLICY_GANG, &p, NULL, 0, &j,
					   out, &acc, &err), -1);
	ck_assert_str_eq(err.msg, "job.threads: 9 exceeds the capacity of 8 cores");
	j.threads = 0;
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_GANG, &p, &j, 1, &plan,
					   &err), -1);
	ck_assert_str_eq(err.msg, "jobs[0].threads: must be >= 1, got 0");
	j.threads = 4;
	j.min_threads = 5;
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_GREEDY_THREAD, &p, &j, 1,
					   &plan, &err), -1);
	ck_assert_str_eq(err.msg, "jobs[0].min_threads: must be in [0, threads = 4], got 5");
	j.min_threads = 0;
	j.max_threads = 3;
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_GREEDY_THREAD, &p, &j, 1,
					   &plan, &err), -1);
	ck_assert_str_eq(err.msg, "jobs[0].max_threads: must be 0 or >= threads = 4, got 3");
	j.max_threads = 0;
	j.mpki = -1;
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_MISS_RATE_BALANCE, &p, &j,
					   1, &plan, &err), -1);
	ck_assert_str_eq(err.msg, "jobs[0].mpki: must be a finite number >= 0, got -1");
	j.mpki = 0;

	p.mrb_weight = -0.5;
	ck_assert_ptr_null(cosched_mrb_create(&p, &j, 1, &err));
	ck_assert_str_eq(err.msg, "mrb_weight (EWMA a): value -0.5 out of range (0 < value <= 1)");
	p.mrb_weight = 1.5;
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_MISS_RATE_BOUND, &p, &j, 1,
					   &plan, &err), -1);
	ck_assert_str_eq(err.msg, "mrb_weight (EWMA a): value 1.5 out of range (0 < value <= 1)");
	/* a = 0 would never let a sample in; cosched.conf refuses it too. */
	p.mrb_weight = 0;
	ck_assert_int_eq(cosched_gang_params_check(&p, &err), -1);
	ck_assert_str_eq(err.msg, "mrb_weight (EWMA a): value 0 out of range (0 < value <= 1)");
	p.mrb_weight = NAN;
	ck_assert_int_eq(cosched_gang_params_check(&p, &err), -1);
	p.mrb_weight = 1;	/* the upper end is allowed: no smoothing */
	ck_assert_int_eq(cosched_gang_params_check(&p, &err), 0);
	p.mrb_weight = 0.5;
	p.mrb_threshold = 0;
	ck_assert_ptr_null(cosched_mrb_create(&p, &j, 1, &err));
	ck_assert_str_eq(err.msg, "mrb_threshold (T): value 0 out of range (0 < value <= 1000)");
	p.mrb_threshold = -3;
	ck_assert_ptr_null(cosched_mrb_create(&p, &j, 1, &err));
	ck_assert_str_eq(err.msg, "mrb_threshold (T): value -3 out of range (0 < value <= 1000)");
	/* The upper bound is cosched.conf's MissRateBoundThreshold's. */
	p.mrb_threshold = 1000.5;
	ck_assert_int_eq(cosched_gang_params_check(&p, &err), -1);
	ck_assert_str_eq(err.msg, "mrb_threshold (T): value 1000.5 out of range (0 < value <= 1000)");
	p.mrb_threshold = 12;
	p.max_apps = -1;
	ck_assert_int_eq(cosched_gang_params_check(&p, &err), -1);
	ck_assert_str_eq(err.msg, "max_apps: must be >= 0 (0 = policy default), got -1");
	p.max_apps = 0;

	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_COUNT, &p, &j, 1, &plan,
					   &err), -1);
	ck_assert_str_eq(err.msg, "policy: unknown policy 7");
	ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_NONE, &p, &j, 1, &plan,
					   &err), -1);
	ck_assert_str_eq(err.msg, "policy: none places no job (cons_tres does)");

	int bad_gang[2] = { 0, 0 };
	cosched_gang_job_t two[2] = { mkjob(1, "a", 5, 0, 0), mkjob(2, "b", 5, 0, 0) };
	ck_assert_ptr_null(cosched_mrb_create_from(&p, two, 2, bad_gang, &err));
	ck_assert_str_eq(err.msg, "initial_gang[1]: gang 0 would hold 10 cores, capacity 8");
	bad_gang[1] = 2;
	ck_assert_ptr_null(cosched_mrb_create_from(&p, two, 2, bad_gang, &err));
	ck_assert_str_eq(err.msg, "initial_gang[1]: must be in [0, 2), got 2");

	cosched_socket_t s = { 8, 9, NULL, 0 };
	j.threads = 2;
	ck_assert_int_eq(cosched_gang_rank(COSCHED_POLICY_GANG, &p, &s, 1, &j, out,
					   &acc, &err), -1);
	ck_assert_str_eq(err.msg, "sockets[0].used: must be in [0, 8], got 9");
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("gang");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_app_aware_worked_example);
	tcase_add_test(tc, test_app_aware_never_forbidden);
	tcase_add_test(tc, test_mr_balance_artificial);
	tcase_add_test(tc, test_greedy_thread_worked);
	tcase_add_test(tc, test_greedy_thread_most_threads_first);
	tcase_add_test(tc, test_gang_one_per_gang);
	tcase_add_test(tc, test_batch_all_policies_valid);
	tcase_add_test(tc, test_mrb_ewma);
	tcase_add_test(tc, test_mrb_scripted);
	tcase_add_test(tc, test_mrb_random_rounds);
	tcase_add_test(tc, test_mrb_seeded_start);
	tcase_add_test(tc, test_bounds);
	tcase_add_test(tc, test_bad_params);
	suite_add_tcase(s, tc);
	return s;
}
