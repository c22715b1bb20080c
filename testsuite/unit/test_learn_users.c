/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_learn_users.c - no one user steers the learned interference table
 * (src/libcosched/model/learn.c, src/libcosched/store/learner.c), and the
 * learner never stops: a user's runs alone leave a cell at its configured
 * value and among others move it at most to the next voter's; every value
 * stays in the configured table's range; solo times are kept per owner,
 * so runs under another user's application name leave that user's
 * baseline alone; jobs cosched did not place, runs their profile did not
 * take, runs of no known user and runs of no application never teach
 * (the last at once); a burst of more records than the set of decided
 * names holds is worked through with counts, and learning goes on.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cosched_check.h"
#include "src/libcosched/model/learn.h"
#include "src/libcosched/store/learner.h"
#include "step_records.h"

static const char *ok = "{\"tasks\": 1, \"signalled\": 0, \"failed\": 0}";

#define DAY 86400.0
#define ATTACKER 1000L
#define VICTIM 1001L

/* The value the controller would use for victim:corunner. */
static double used_value(const cosched_learn_table_t *t, cosched_lca_t v,
			 cosched_lca_t c, long long now)
{
	cosched_interference_model_t conf, out;
	cosched_pref_rule_t rule;

	cosched_interference_default(&conf);
	cosched_pref_rule_default(&rule);
	cosched_learn_apply(t, &conf, 1, DAY, &rule, now, &out, NULL);
	return out.slowdown[v][c];
}

START_TEST(test_one_user_moves_nothing_alone)
{
	cosched_learn_table_t t;
	cosched_interference_model_t conf;
	double x;

	cosched_interference_default(&conf);
	cosched_learn_init(&t, 1000);
	/* A thousand runs of one user at the cap: N next to N stays the
	 * configured 1.00, and so does L next to L after a flood of runs
	 * far faster than alone. */
	for (int i = 0; i < 1000; i++) {
		cosched_learn_add(&t, COSCHED_LCA_N, COSCHED_LCA_N, 100.0, 1000,
				  ATTACKER, DAY, &err);
		cosched_learn_add(&t, COSCHED_LCA_L, COSCHED_LCA_L, 0.03, 1000,
				  ATTACKER, DAY, &err);
	}
	ck_assert_double_eq(used_value(&t, COSCHED_LCA_N, COSCHED_LCA_N, 1000),
			    conf.slowdown[COSCHED_LCA_N][COSCHED_LCA_N]);
	ck_assert_double_eq(used_value(&t, COSCHED_LCA_L, COSCHED_LCA_L, 1000),
			    conf.slowdown[COSCHED_LCA_L][COSCHED_LCA_L]);
	/* Nor their preference entries: mem next to mem stays forbidden
	 * by the table of "Power-aware gang scheduling on multicore" (NTUA
	 * thesis, 2013), and no cell counts as learned. */
	{
		cosched_interference_model_t out;
		cosched_pref_rule_t rule;
		int used;

		cosched_pref_rule_default(&rule);
		cosched_learn_apply(&t, &conf, 1, DAY, &rule, 1000, &out, &used);
		ck_assert_int_eq(used, 0);
		ck_assert_int_eq(out.pref.pref[COSCHED_CAT_MEM][COSCHED_CAT_MEM],
				 conf.pref.pref[COSCHED_CAT_MEM][COSCHED_CAT_MEM]);
	}
	/* Three users who measured L:L at 1.5 move it there ... */
	for (long u = 2000; u < 2003; u++)
		cosched_learn_add(&t, COSCHED_LCA_L, COSCHED_LCA_L, 1.5, 1000, u,
				  DAY, &err);
	x = used_value(&t, COSCHED_LCA_L, COSCHED_LCA_L, 1000);
	ck_assert_int_eq(t.cell[COSCHED_LCA_L][COSCHED_LCA_L].nusers, 4);
	/* ... the flooding user pulls it at most to the next voter's
	 * value, the configured 1.30 (here halfway, in log: a tie). */
	ck_assert_msg(x >= 1.30 - 1e-9 && x < 1.5, "%g", x);
	ck_assert_double_eq_tol(x, sqrt(1.30 * 1.5), 1e-9);
	/* Root's runs are the site's: they outweigh the configured value,
	 * held to the configured table's range (at most 2.15). */
	cosched_learn_add(&t, COSCHED_LCA_C, COSCHED_LCA_C, 1.9, 1000, 0, DAY,
			  &err);
	ck_assert_double_eq_tol(used_value(&t, COSCHED_LCA_C, COSCHED_LCA_C,
					   1000), 1.9, 1e-9);
	cosched_learn_add(&t, COSCHED_LCA_LC, COSCHED_LCA_LC, 50.0, 1000, 0,
			  DAY, &err);
	ck_assert_double_eq_tol(used_value(&t, COSCHED_LCA_LC, COSCHED_LCA_LC,
					   1000), 2.15, 1e-9);
	/* Voters whose runs decayed below half a sample have no say: the
	 * three users' L:L is gone two days later. */
	ck_assert_double_eq(used_value(&t, COSCHED_LCA_L, COSCHED_LCA_L,
				       1000 + (long long) (2 * DAY)),
			    conf.slowdown[COSCHED_LCA_L][COSCHED_LCA_L]);
	cosched_learn_free(&t);
}
END_TEST

/* Users survive the text form; an earlier release's file (1.0: cells of
 * no user, solo runs of no owner) is read, its cells one voter each and
 * its solo runs dropped. */
START_TEST(test_users_in_the_file)
{
	cosched_learn_table_t t, back;
	char *text, *again;
	double solo;

	cosched_learn_init(&t, 1);
	cosched_learn_add(&t, COSCHED_LCA_N, COSCHED_LCA_N, 2.0, 5, ATTACKER,
			  DAY, &err);
	cosched_learn_add(&t, COSCHED_LCA_N, COSCHED_LCA_N, 2.0, 6, VICTIM,
			  DAY, &err);
	ck_assert_int_eq(cosched_learn_solo_add(&t, "lammps",
			 COSCHED_LEARN_OWNER_SITE, 3.0, 5, &err), 0);
	ck_assert_int_eq(cosched_learn_solo_add(&t, "lammps", VICTIM, 4.0, 5,
						&err), 0);
	text = cosched_learn_format(&t);
	ck_assert_ptr_nonnull(strstr(text, "\nsolo_of app=lammps owner=site "));
	cosched_learn_init(&back, 0);
	ck_assert_msg(cosched_learn_parse(text, &back, &err) == 0, "%s", err.msg);
	again = cosched_learn_format(&back);
	ck_assert_str_eq(text, again);
	ck_assert_int_eq(back.cell[COSCHED_LCA_N][COSCHED_LCA_N].nusers, 2);
	ck_assert_int_eq(cosched_learn_solo_time(&back, "lammps", VICTIM,
						 &solo), 1);
	ck_assert_double_eq(solo, 4.0);
	ck_assert_int_eq(cosched_learn_solo_time(&back, "lammps", ATTACKER,
						 &solo), 0);
	free(text);
	free(again);
	ck_assert_msg(cosched_learn_parse(
		"cosched-interference/1 created=1 updated=2 through=3.000\n"
		"cell victim=N corunner=N n=8 weight=8.000000 sum_log=36.841361 last=5\n"
		"solo app=lammps last=5 runs=0.020,0.030\n", &back, &err) == 0,
		"%s", err.msg);
	ck_assert_int_eq(back.nsolo, 0);
	ck_assert_int_eq(back.cell[COSCHED_LCA_N][COSCHED_LCA_N].nusers, 0);
	ck_assert_double_eq(used_value(&back, COSCHED_LCA_N, COSCHED_LCA_N, 5),
			    1.0);
	/* Strict: a voter before its cell, or twice. */
	ck_assert_int_eq(cosched_learn_parse(
		"cosched-interference/1.1 created=1 updated=2 through=3.000\n"
		"voter victim=N corunner=N uid=1 n=1 weight=1 sum_log=0 last=5\n",
		&back, &err), -1);
	cosched_learn_free(&t);
	cosched_learn_free(&back);
}
END_TEST

/* The attacks on a folder of records: the victim's cell and solo time are
 * what the victim's own runs say. */
START_TEST(test_learner_attacks)
{
	const step_record_owner_t victim = { VICTIM, true, false, "placed" };
	const step_record_owner_t attacker = { ATTACKER, true, false, "placed" };
	const step_record_owner_t bypass = { ATTACKER, true, false, "passthrough" };
	const step_record_owner_t refused = { ATTACKER, false, false, "placed" };
	const step_record_owner_t nobody = { -1, true, false, "placed" };
	long long now = (long long) time(NULL);
	double base = (double) now + 5, solo;
	cosched_learner_report_t rep;
	const cosched_learn_table_t *t;
	cosched_learner_t *l;
	uint32_t job = 1;

	l = cosched_learner_create(dir, DAY, 0.5, &err);
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(cosched_learner_run(l, now, &rep, &err), 0);
	t = cosched_learner_table(l);
	/* The victim's two solo runs of 3 s; the attacker's nine of 0.02 s
	 * under the victim's application name. */
	for (int i = 0; i < 2; i++)
		step_record_put(job++, "lammps", "N", base, 3.0, "", ok,
				&victim);
	for (int i = 0; i < 9; i++)
		step_record_put(job++, "lammps", "N", base, 0.02, "", ok,
				&attacker);
	ck_assert_msg(cosched_learner_run(l, now + 70, &rep, &err) == 0, "%s",
		      err.msg);
	ck_assert_int_eq(rep.solos, 11);
	ck_assert_int_eq(cosched_learn_solo_time(t, "lammps", VICTIM, &solo),
			 1);
	ck_assert_double_eq_tol(solo, 3.0, 1e-9);
	/* The victim's honest pair (3.3 s: 1.1) is measured against the
	 * victim's own solo time, not the attacker's. */
	step_record_put(100, "lammps", "N", base + 10, 3.3, "\"101.0\"",
			ok, &victim);
	step_record_put(101, "lammps", "N", base + 10, 3.3, "\"100.0\"",
			ok, &victim);
	/* The attacker's pairs: with --nodelist (passthrough), with runs
	 * the profile refused, with no user known, with no application
	 * (decided at once, not left waiting for a solo time). */
	step_record_put(102, "lammps", "L", base + 20, 30, "\"103.0\"", ok,
			&bypass);
	step_record_put(103, "lammps", "L", base + 20, 30, "\"102.0\"", ok,
			&bypass);
	step_record_put(104, "lammps", "L", base + 60, 30, "\"105.0\"", ok,
			&refused);
	step_record_put(105, "lammps", "L", base + 60, 30, "\"104.0\"", ok,
			&nobody);
	step_record_put(106, NULL, "L", base + 100, 30, "\"107.0\"", ok,
			&attacker);
	step_record_put(107, NULL, "L", base + 100, 30, "\"106.0\"", ok,
			&attacker);
	for (uint32_t j = 100; j <= 107; j++)
		step_record_set_time(j, (double) now + 75);
	ck_assert_msg(cosched_learner_run(l, now + 80, &rep, &err) == 0, "%s",
		      err.msg);
	ck_assert_int_eq(rep.pairs, 2);
	ck_assert_int_eq(rep.pending, 0);
	ck_assert_int_eq(rep.skipped[COSCHED_SKIP_NOT_PLACED], 2);
	ck_assert_int_eq(rep.skipped[COSCHED_SKIP_NOT_MERGED], 1);
	ck_assert_int_eq(rep.skipped[COSCHED_SKIP_NO_USER], 1);
	ck_assert_int_eq(rep.skipped[COSCHED_SKIP_NO_APP], 2);
	ck_assert_int_eq(t->skipped[COSCHED_SKIP_NO_APP], 2);
	ck_assert_int_eq(t->cell[COSCHED_LCA_N][COSCHED_LCA_N].n, 2);
	ck_assert_double_eq_tol(cosched_learn_cell_value(
		&t->cell[COSCHED_LCA_N][COSCHED_LCA_N]), 1.1, 1e-6);
	ck_assert_int_eq(t->cell[COSCHED_LCA_L][COSCHED_LCA_L].n, 0);
	/* The attacker's own application: a 30 s solo run, then 1 s pairs
	 * (0.03 each, held to the configured range's 1.00): the cell in
	 * use stays the configured L:L. */
	step_record_put(200, "evil", "L", base + 200, 30, "", ok,
			&attacker);
	for (uint32_t j = 201; j < 217; j += 2) {
		char a[16], b[16];

		snprintf(a, sizeof(a), "\"%u.0\"", j + 1);
		snprintf(b, sizeof(b), "\"%u.0\"", j);
		step_record_put(j, "evil", "L", base + 300 + j, 1, a, ok,
				&attacker);
		step_record_put(j + 1, "evil", "L", base + 300 + j, 1, b,
				ok, &attacker);
	}
	for (uint32_t j = 200; j < 217; j++)
		step_record_set_time(j, (double) now + 85);
	ck_assert_msg(cosched_learner_run(l, now + 90, &rep, &err) == 0, "%s",
		      err.msg);
	ck_assert_int_eq(rep.pairs, 16);
	ck_assert_double_eq_tol(cosched_learn_cell_value(
		&t->cell[COSCHED_LCA_L][COSCHED_LCA_L]), 1.0, 1e-9);
	ck_assert_double_eq(used_value(t, COSCHED_LCA_L, COSCHED_LCA_L,
				       now + 90), 1.30);
	cosched_learner_free(l);
}
END_TEST

/* More records end at once than the set of decided names holds (an
 * outage's backlog): every one is decided over a few runs, the ones left
 * over are counted, and a record that ends afterwards is learned. */
START_TEST(test_learner_burst)
{
	const int burst = 100000;
	long long now = (long long) time(NULL);
	double base = (double) now + 5;
	const cosched_learn_table_t *t;
	cosched_learner_report_t rep;
	cosched_learner_t *l;
	long long solos = 0, unsettled = 0;
	int runs = 0;

	l = cosched_learner_create(dir, DAY, 0.5, &err);
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(cosched_learner_run(l, now, &rep, &err), 0);
	t = cosched_learner_table(l);
	/* Job numbers run against their times, so that name order and
	 * time order differ. */
	for (int i = 0; i < burst; i++) {
		uint32_t job = (uint32_t) (burst - i);

		step_record_put(job, "a", "N", base, 1.0, "", ok,
				&step_record_root);
		step_record_set_time(job, base + 10 + i * 0.001);
	}
	while (solos < burst && runs < 5) {
		ck_assert_msg(cosched_learner_run(l, now + 400 + runs, &rep,
						  &err) == 0, "%s", err.msg);
		solos += rep.solos;
		unsettled += rep.unsettled;
		runs++;
	}
	ck_assert_int_eq(solos, burst);
	ck_assert_int_eq(unsettled, burst - COSCHED_LEARN_SEEN_MAX);
	ck_assert_int_le(t->seen.n, COSCHED_LEARN_SEEN_MAX);
	/* Learning goes on: a record that ends now is decided. */
	step_record_put(burst + 1, "b", "N", (double) now + 400, 1.0, "",
			ok, &step_record_root);
	step_record_set_time(burst + 1, (double) now + 410);
	ck_assert_int_eq(cosched_learner_run(l, now + 420, &rep, &err), 0);
	ck_assert_int_eq(rep.solos, 1);
	ck_assert_int_eq(rep.unsettled, 0);
	cosched_learner_free(l);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("learn_users");
	TCase *tc = tcase_create("learn_users");

	tcase_add_checked_fixture(tc, setup, teardown);
	/* The burst writes and reads 100,000 records. */
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_one_user_moves_nothing_alone);
	tcase_add_test(tc, test_users_in_the_file);
	tcase_add_test(tc, test_learner_attacks);
	tcase_add_test(tc, test_learner_burst);
	suite_add_tcase(s, tc);
	return s;
}
