/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_timeshare.c - the cores a job takes on a time-shared unit
 * (src/libcosched/policy/timeshare.h): the arrivals mem, mem, cpu, cpu on
 * one unit of 2 cores with 2 jobs a core, worked out by hand, under
 * app_aware and min_slowdown, and min_slowdown's pairs without a bound. */
#include <string.h>

#include "cosched_check.h"
#include "gang_job.h"

#include "src/libcosched/policy/timeshare.h"

static cosched_error_t err;

static cosched_place_t *engine(cosched_policy_t policy)
{
	cosched_place_conf_t pc = { .policy = policy, .max_slowdown = 1.25 };
	int units = 1, cores = 2;
	cosched_place_t *p = cosched_place_create(&pc, 1, &units, &cores, &err);

	ck_assert_msg(p != NULL, "%s", err.msg);
	return p;
}

static cosched_ts_holder_t holder(uint32_t id, cosched_category_t cat,
				  uint64_t cores)
{
	cosched_ts_holder_t h = {
		.gj = mkjob(id, NULL, 1, cat == COSCHED_CAT_MEM ? 20.0 : 0.1,
			    cat),
		.cores = cores };
	return h;
}

/* Each arrival takes the lowest core it is offered, as cons_tres does. */
static uint64_t lowest(uint64_t cores)
{
	return cores & -cores;
}

static void probe_arrivals(cosched_policy_t policy)
{
	cosched_place_t *p = engine(policy);
	cosched_ts_holder_t h[4];
	cosched_ts_choice_t ch;
	cosched_gang_job_t mem = mkjob(1, NULL, 1, 20.0, COSCHED_CAT_MEM);
	cosched_gang_job_t cpu = mkjob(3, NULL, 1, 0.1, COSCHED_CAT_CPU);

	/* mem first: an empty unit, idle cores. */
	ck_assert_int_eq(cosched_ts_choose(p, 2, 2, h, 0, &mem, &ch, &err), 0);
	ck_assert_int_eq(ch.how, COSCHED_TS_IDLE);
	ck_assert_uint_eq(ch.cores, 3);
	h[0] = holder(1, COSCHED_CAT_MEM, lowest(ch.cores));
	/* The second mem would run beside the first on the idle core: it
	 * takes the first one's core instead, alternating with it. */
	mem.job_id = 2;
	ck_assert_int_eq(cosched_ts_choose(p, 2, 2, h, 1, &mem, &ch, &err), 0);
	ck_assert_int_eq(ch.how, COSCHED_TS_ALTERNATE);
	ck_assert_int_eq(ch.with, 0);
	ck_assert(ch.with_bad);
	ck_assert_uint_eq(ch.cores, 1);
	ck_assert_uint_eq(ch.alternates, 1);
	ck_assert_uint_eq(ch.beside, 0);
	h[1] = holder(2, COSCHED_CAT_MEM, lowest(ch.cores));
	/* cpu pairs well with both: the idle core, beside each in turn. */
	ck_assert_int_eq(cosched_ts_choose(p, 2, 2, h, 2, &cpu, &ch, &err), 0);
	ck_assert_int_eq(ch.how, COSCHED_TS_IDLE);
	ck_assert_uint_eq(ch.cores, 2);
	ck_assert_uint_eq(ch.beside, 3);
	h[2] = holder(3, COSCHED_CAT_CPU, lowest(ch.cores));
	/* Each mem runs beside that cpu alone (they alternate): the worst
	 * pair, not the three at once. */
	ck_assert_double_eq_tol(cosched_ts_slowdown(p, COSCHED_CAT_MEM, h, 3, 4),
				cosched_ts_slowdown(p, COSCHED_CAT_MEM, &h[2], 1, 1),
				1e-12);
	ck_assert_double_eq(cosched_ts_slowdown(p, COSCHED_CAT_MEM, h, 3, 0),
			    1.0);
	ck_assert(cosched_ts_slowdown(p, COSCHED_CAT_CPU, h, 3, 3) <
		  cosched_ts_slowdown(p, COSCHED_CAT_MEM, h, 3, 1));
	/* No idle core; core 0 is full (two mem): the other cpu's core. */
	cpu.job_id = 4;
	ck_assert_int_eq(cosched_ts_choose(p, 2, 2, h, 3, &cpu, &ch, &err), 0);
	ck_assert_int_eq(ch.how, COSCHED_TS_ALTERNATE);
	ck_assert_int_eq(ch.with, 2);
	ck_assert(!ch.with_bad);
	ck_assert_uint_eq(ch.cores, 2);
	ck_assert_uint_eq(ch.beside, 3);
	cosched_place_free(p);
}

START_TEST(test_probe_app_aware)
{
	probe_arrivals(COSCHED_POLICY_APP_AWARE);
}
END_TEST

START_TEST(test_probe_min_slowdown)
{
	probe_arrivals(COSCHED_POLICY_MIN_SLOWDOWN);
}
END_TEST

/* A good partner on one core and a core idle: the job runs beside it
 * (alternating would halve its share of the time for nothing). */
START_TEST(test_good_partner_idle_core)
{
	cosched_place_t *p = engine(COSCHED_POLICY_APP_AWARE);
	cosched_ts_holder_t h[1] = { holder(1, COSCHED_CAT_CPU, 1) };
	cosched_gang_job_t mem = mkjob(2, NULL, 1, 20.0, COSCHED_CAT_MEM);
	cosched_ts_choice_t ch;

	ck_assert_int_eq(cosched_ts_choose(p, 2, 2, h, 1, &mem, &ch, &err), 0);
	ck_assert_int_eq(ch.how, COSCHED_TS_IDLE);
	ck_assert_uint_eq(ch.cores, 2);
	ck_assert_uint_eq(ch.beside, 1);
	cosched_place_free(p);
}
END_TEST

/* Every choice puts a mem beside a mem: no choice, the allocator's; the
 * bad partner that ruled out the idle cores is named. */
START_TEST(test_no_good_choice)
{
	cosched_place_t *p = engine(COSCHED_POLICY_APP_AWARE);
	/* Core 0 full of mem jobs, core 1 idle. */
	cosched_ts_holder_t h[2] = { holder(1, COSCHED_CAT_MEM, 1),
				     holder(2, COSCHED_CAT_MEM, 1) };
	cosched_gang_job_t mem = mkjob(3, NULL, 1, 20.0, COSCHED_CAT_MEM);
	cosched_ts_choice_t ch;

	ck_assert_int_eq(cosched_ts_choose(p, 2, 2, h, 2, &mem, &ch, &err), 0);
	ck_assert_int_eq(ch.how, COSCHED_TS_NONE);
	ck_assert_uint_eq(ch.cores, 0);
	ck_assert_int_eq(ch.bad, 0);
	cosched_place_free(p);
}
END_TEST

/* min_slowdown without a bound (max_slowdown 0): a pair runs beside
 * each other when its summed speeds beat one slice each, the round the
 * time-shared ranking weighs.  mem next to mem at 1.30: 2/1.30 = 1.54 > 1,
 * beside; at 4.0 (a table where they thrash): 2/4 = 0.5 < 1, they
 * alternate.  cpu next to mem: 1 + 1/1.07, beside. */
START_TEST(test_unbounded_pairs_by_round)
{
	cosched_interference_model_t m;
	cosched_place_conf_t pc = { .policy = COSCHED_POLICY_MIN_SLOWDOWN,
				    .interference = &m };
	int units = 1, cores = 2;
	cosched_place_t *p;
	cosched_gang_job_t a = mkjob(1, NULL, 1, 20.0, COSCHED_CAT_MEM);
	cosched_gang_job_t b = mkjob(2, NULL, 1, 20.0, COSCHED_CAT_MEM);
	cosched_gang_job_t c = mkjob(3, NULL, 1, 0.1, COSCHED_CAT_CPU);
	cosched_ts_holder_t h[1] = { holder(2, COSCHED_CAT_MEM, 1) };
	cosched_ts_choice_t ch;

	cosched_interference_default(&m);
	p = cosched_place_create(&pc, 1, &units, &cores, &err);
	ck_assert_msg(p != NULL, "%s", err.msg);
	ck_assert(cosched_ts_pairs_well(p, 2, &a, &b));
	ck_assert(cosched_ts_pairs_well(p, 2, &c, &b));
	cosched_place_free(p);

	m.slowdown[COSCHED_LCA_L][COSCHED_LCA_L] = 4.0;
	p = cosched_place_create(&pc, 1, &units, &cores, &err);
	ck_assert_msg(p != NULL, "%s", err.msg);
	ck_assert(!cosched_ts_pairs_well(p, 2, &a, &b));
	ck_assert(cosched_ts_pairs_well(p, 2, &c, &b));
	/* So the second mem takes the first one's core: they alternate. */
	ck_assert_int_eq(cosched_ts_choose(p, 2, 2, h, 1, &a, &ch, &err), 0);
	ck_assert_int_eq(ch.how, COSCHED_TS_ALTERNATE);
	ck_assert(ch.with_bad);
	cosched_place_free(p);
}
END_TEST

START_TEST(test_bad_input)
{
	cosched_place_t *p = engine(COSCHED_POLICY_APP_AWARE);
	cosched_gang_job_t j = mkjob(1, NULL, 3, 1.0, COSCHED_CAT_CPU);
	cosched_ts_choice_t ch;

	ck_assert_int_eq(cosched_ts_choose(p, 2, 2, NULL, 0, &j, &ch, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "job threads 3"));
	j.threads = 1;
	ck_assert_int_eq(cosched_ts_choose(p, 65, 2, NULL, 0, &j, &ch, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cores 65"));
	ck_assert_int_eq(cosched_ts_choose(p, 2, 0, NULL, 0, &j, &ch, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "rows 0"));
	cosched_place_free(p);
}
END_TEST

/* The partners the record names: the holders of the job's cores, the
 * others beside, itself neither; ids kept ascending, no repeats, capped. */
START_TEST(test_partners_and_peers)
{
	cosched_ts_holder_t h[3] = {
		holder(7, COSCHED_CAT_MEM, 0x1), holder(5, COSCHED_CAT_CPU, 0x2),
		holder(9, COSCHED_CAT_MEM, 0x1),
	};
	cosched_ts_choice_t none = { .how = COSCHED_TS_NONE },
			    idle = { .how = COSCHED_TS_IDLE };
	uint64_t alt, bes;
	uint32_t ids[2];
	int n = 0;

	cosched_ts_partners(h, 3, 9, 0x1, &alt, &bes);
	ck_assert_uint_eq(alt, 0x1);
	ck_assert_uint_eq(bes, 0x2);
	cosched_ts_partners(h, 3, 0, 0x4, &alt, &bes);
	ck_assert_uint_eq(alt, 0);
	ck_assert_uint_eq(bes, 0x7);
	cosched_ts_add_peer(ids, &n, 2, 9);
	cosched_ts_add_peer(ids, &n, 2, 5);
	cosched_ts_add_peer(ids, &n, 2, 9);
	cosched_ts_add_peer(ids, &n, 2, 7);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(ids[0], 5);
	ck_assert_uint_eq(ids[1], 9);
	/* Occupied units first, empty ones next, never one with no choice. */
	ck_assert(cosched_ts_unit_preferred(&idle, 1, 0));
	ck_assert(!cosched_ts_unit_preferred(&idle, 0, 0));
	ck_assert(cosched_ts_unit_preferred(&idle, 0, 1));
	ck_assert(!cosched_ts_unit_preferred(&none, 1, 0));
	ck_assert(!cosched_ts_unit_preferred(&none, 0, 1));
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("timeshare");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_probe_app_aware);
	tcase_add_test(tc, test_probe_min_slowdown);
	tcase_add_test(tc, test_good_partner_idle_core);
	tcase_add_test(tc, test_no_good_choice);
	tcase_add_test(tc, test_unbounded_pairs_by_round);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_partners_and_peers);
	suite_add_tcase(s, tc);
	return s;
}
