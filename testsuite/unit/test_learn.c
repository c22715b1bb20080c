/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_learn.c - the learned interference table: its rule
 * (src/libcosched/model/learn.c), the observation rule
 * (src/libcosched/model/observe.c) and the learner over a folder of step records
 * (src/libcosched/store/learner.c): hand-made observations give the expected cells,
 * too few samples leave the configured value, old ones decay, records
 * that cannot be trusted are skipped and counted, each record is learned
 * once across runs and restarts, and a reset is taken.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cosched_check.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/model/learn.h"
#include "src/libcosched/store/learner.h"
#include "src/libcosched/model/observe.h"
#include "step_records.h"

#define DAY 86400.0

START_TEST(test_cells_and_min_samples)
{
	cosched_learn_table_t t;
	cosched_interference_model_t conf, out;
	cosched_pref_rule_t rule;
	int used;

	cosched_learn_init(&t, 1000);
	cosched_interference_default(&conf);
	cosched_pref_rule_default(&rule);
	/* L next to L: 2.0 and 8.0 give the geometric mean 4.0. */
	ck_assert_int_eq(cosched_learn_add(&t, COSCHED_LCA_L, COSCHED_LCA_L,
					   2.0, 1000, 0, 0, &err), 0);
	ck_assert_int_eq(cosched_learn_add(&t, COSCHED_LCA_L, COSCHED_LCA_L,
					   8.0, 1000, 0, 0, &err), 0);
	ck_assert_double_eq_tol(cosched_learn_cell_value(
		&t.cell[COSCHED_LCA_L][COSCHED_LCA_L]), 4.0, 1e-9);
	ck_assert(isnan(cosched_learn_cell_value(
		&t.cell[COSCHED_LCA_N][COSCHED_LCA_L])));
	/* Two samples: with 3 required the configured cell stays. */
	cosched_learn_apply(&t, &conf, 3, 0, &rule, 1000, &out, &used);
	ck_assert_int_eq(used, 0);
	ck_assert_double_eq(out.slowdown[COSCHED_LCA_L][COSCHED_LCA_L],
			    conf.slowdown[COSCHED_LCA_L][COSCHED_LCA_L]);
	ck_assert_int_eq(out.pref.pref[COSCHED_CAT_MEM][COSCHED_CAT_MEM],
			 conf.pref.pref[COSCHED_CAT_MEM][COSCHED_CAT_MEM]);
	/* With 2 it is replaced (root's runs outweigh the configured
	 * value), held to the configured table's largest cell (C:L 2.15),
	 * and mem next to mem is forbidden (2.15 >= 1.5); every other cell
	 * is the configured one. */
	cosched_learn_apply(&t, &conf, 2, 0, &rule, 1000, &out, &used);
	ck_assert_int_eq(used, 1);
	ck_assert_double_eq_tol(out.slowdown[COSCHED_LCA_L][COSCHED_LCA_L],
				2.15, 1e-9);
	ck_assert_int_eq(out.pref.pref[COSCHED_CAT_MEM][COSCHED_CAT_MEM],
			 COSCHED_PREF_FORBIDDEN);
	ck_assert_double_eq(out.slowdown[COSCHED_LCA_C][COSCHED_LCA_L],
			    conf.slowdown[COSCHED_LCA_C][COSCHED_LCA_L]);
	/* A learned pair that does not hurt becomes allowed, rank 1. */
	cosched_learn_add(&t, COSCHED_LCA_C, COSCHED_LCA_L, 1.02, 1000, 0, 0,
			  &err);
	cosched_learn_add(&t, COSCHED_LCA_C, COSCHED_LCA_L, 1.04, 1000, 0, 0,
			  &err);
	cosched_learn_apply(&t, &conf, 2, 0, &rule, 1000, &out, &used);
	ck_assert_int_eq(used, 2);
	ck_assert_int_eq(out.pref.pref[COSCHED_CAT_RAND][COSCHED_CAT_MEM], 1);
	/* Out of range. */
	ck_assert_int_eq(cosched_learn_add(&t, COSCHED_LCA_L, COSCHED_LCA_L,
					   0.0, 1000, 0, 0, &err), -1);
	ck_assert_int_eq(cosched_learn_add(&t, COSCHED_LCA_UNKNOWN,
					   COSCHED_LCA_L, 2, 1000, 0, 0, &err), -1);
	cosched_learn_free(&t);
}
END_TEST

START_TEST(test_decay)
{
	cosched_learn_table_t t;
	cosched_interference_model_t conf, out;
	cosched_pref_rule_t rule;
	const cosched_learn_cell_t *c = &t.cell[COSCHED_LCA_LC][COSCHED_LCA_L];
	int used;

	cosched_learn_init(&t, 0);
	cosched_interference_default(&conf);
	cosched_pref_rule_default(&rule);
	/* Four old observations of 3.0, then one of 1.0 two half-lives
	 * later: the old ones weigh 4 x 1/4 = 1, the new one 1, so the
	 * value is sqrt(3) and there are 2 samples. */
	for (int i = 0; i < 4; i++)
		cosched_learn_add(&t, COSCHED_LCA_LC, COSCHED_LCA_L, 3.0, 0, 0,
				  DAY, &err);
	cosched_learn_add(&t, COSCHED_LCA_LC, COSCHED_LCA_L, 1.0,
			  (long long) (2 * DAY), 0, DAY, &err);
	ck_assert_double_eq_tol(cosched_learn_cell_value(c), sqrt(3.0), 1e-9);
	ck_assert_double_eq_tol(cosched_learn_cell_samples(c, (long long) (2 * DAY),
							   DAY), 2.0, 1e-9);
	/* A second later the cell still counts 2 samples (to the nearest
	 * whole), a day later only 1 is left: the cell is configured again. */
	cosched_learn_apply(&t, &conf, 2, DAY, &rule,
			    (long long) (2 * DAY) + 1, &out, &used);
	ck_assert_int_eq(used, 1);
	ck_assert_double_eq_tol(cosched_learn_cell_samples(c, (long long) (3 * DAY),
							   DAY), 1.0, 1e-9);
	cosched_learn_apply(&t, &conf, 1.5, DAY, &rule, (long long) (3 * DAY),
			    &out, &used);
	ck_assert_int_eq(used, 0);
	/* Without decay all 5 count. */
	ck_assert_double_eq_tol(cosched_learn_cell_samples(c, (long long) (30 * DAY),
							   0), 2.0, 1e-9);
	/* An observation older than the cell's latest comes in decayed. */
	cosched_learn_add(&t, COSCHED_LCA_LC, COSCHED_LCA_L, 3.0, 0, 0, DAY,
			  &err);
	ck_assert_double_eq_tol(c->weight, 2.25, 1e-9);
	ck_assert_int_eq(c->n, 6);
	cosched_learn_free(&t);
}
END_TEST

START_TEST(test_text_round_trip)
{
	cosched_learn_table_t t, back;
	char *text, *again;
	double solo;

	cosched_learn_init(&t, 1700000000);
	cosched_learn_add(&t, COSCHED_LCA_L, COSCHED_LCA_C, 2.5, 1700000100, 0,
			  DAY, &err);
	t.skipped[COSCHED_SKIP_SIGNALLED] = 3;
	ck_assert_int_eq(cosched_learn_solo_add(&t, "stream", 0, 10.0, 1700000050,
						&err), 0);
	/* What the strict reader would refuse is never written. */
	ck_assert_int_eq(cosched_learn_solo_add(&t, "app x", 0, 1.0, 1, &err), -1);
	ck_assert_int_eq(cosched_learn_solo_add(&t, "x", 0, 0.0, 1, &err), -1);
	cosched_learn_pending_add(&t, "14.0.n1", 1700000101.25, &err);
	cosched_learn_solo_add(&t, "stream", 0, 12.0, 1700000060, &err);
	cosched_learn_seen_add(&t, "12.0.n1", 1700000100.5, &err);
	text = cosched_learn_format(&t);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text, "cosched-interference/1.1 created=1700000000"));
	ck_assert_ptr_nonnull(strstr(text, "\ncell victim=L corunner=C n=1 weight=1.000000"));
	ck_assert_ptr_nonnull(strstr(text, "\nskipped reason=signalled n=3\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nvoter victim=L corunner=C uid=0 n=1 weight=1.000000"));
	ck_assert_ptr_nonnull(strstr(text, "\nsolo_of app=stream owner=0 last=1700000060 runs=10.000,12.000\n"));
	cosched_learn_init(&back, 0);
	ck_assert_msg(cosched_learn_parse(text, &back, &err) == 0, "%s", err.msg);
	again = cosched_learn_format(&back);
	ck_assert_str_eq(text, again);
	ck_assert_int_eq(cosched_learn_solo_time(&back, "stream", 0, &solo), 1);
	ck_assert_double_eq_tol(solo, 11.0, 1e-9);
	ck_assert(cosched_learn_seen(&back, "12.0.n1"));
	ck_assert(cosched_learn_pending(&back, "14.0.n1"));
	ck_assert(!cosched_learn_pending(&back, "12.0.n1"));
	free(again);

	/* A newer minor: unknown keys and lines are skipped. */
	{
		char newer[2048];

		snprintf(newer, sizeof(newer),
			 "cosched-interference/1.2 created=1 updated=2 through=3.000 extra=9\n"
			 "cell victim=N corunner=N n=2 weight=2.000000 sum_log=0.100000 last=5 more=1\n"
			 "future thing=1\n");
		ck_assert_msg(cosched_learn_parse(newer, &back, &err) == 0, "%s",
			      err.msg);
		ck_assert_int_eq(back.cell[COSCHED_LCA_N][COSCHED_LCA_N].n, 2);
	}
	/* Strict otherwise: another major, unknown line, a bad number, a
	 * record name that leaves the folder; the table is unchanged. */
	{
		static const struct {
			const char *text, *msg;
		} bad[] = {
			{ "cosched-interference/2 created=1 updated=2 through=3\n", "newer" },
			{ "cosched-interference/1 created=1 updated=2 through=3\nthing a=1\n", "unknown line" },
			{ "cosched-interference/1 created=1 updated=2 through=3\ncell victim=L corunner=L n=1 weight=x sum_log=0 last=1\n", "weight" },
			{ "cosched-interference/1 created=1 updated=2 through=3\nseen record=../../etc time=1\n", "record" },
			{ "cosched-interference/1 created=1 updated=2 through=3\nsolo app=a/b last=1 runs=1\n", "app" },
			{ "cosched-interference/1 created=1 updated=2 through=3", "no newline at the end" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			ck_assert_msg(cosched_learn_parse(bad[i].text, &back,
							  &err) == -1,
				      "accepted %s", bad[i].text);
			ck_assert_msg(strstr(err.msg, bad[i].msg), "%s: %s",
				      bad[i].text, err.msg);
		}
		ck_assert_int_eq(back.cell[COSCHED_LCA_N][COSCHED_LCA_N].n, 2);
	}
	free(text);
	cosched_learn_free(&t);
	cosched_learn_free(&back);
}
END_TEST

/* ---- the observation rule ------------------------------------------------ */

static cosched_step_record_t rec(uint32_t job, double start, double end,
				 cosched_lca_t lca)
{
	cosched_step_record_t r;

	memset(&r, 0, sizeof(r));
	r.job = job;
	snprintf(r.node, sizeof(r.node), "n1");
	snprintf(r.app, sizeof(r.app), "app%u", job);
	r.has_run = true;
	r.start_s = start;
	r.end_s = end;
	r.runtime_s = end - start;
	r.has_class = lca != COSCHED_LCA_UNKNOWN;
	r.lca = lca;
	r.has_exit = true;
	r.corunners_known = true;
	return r;
}

static void name(cosched_step_record_t *r, const cosched_step_record_t *o)
{
	r->corunner_job[r->ncorunners] = o->job;
	r->corunner_step[r->ncorunners] = o->step;
	r->ncorunners++;
	r->corunners_seen++;
}

START_TEST(test_observe_rule)
{
	cosched_step_record_t v = rec(1, 100, 110, COSCHED_LCA_L);
	cosched_step_record_t a = rec(2, 100, 110, COSCHED_LCA_C);
	cosched_step_record_t b = rec(3, 100, 110, COSCHED_LCA_N);
	const cosched_step_record_t *co[2] = { &a, &b };
	cosched_observation_t o;

	/* Alone: a solo run. */
	cosched_observe(&v, NULL, 0, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.kind, COSCHED_OBS_SOLO);
	/* One co-runner throughout: the pair L next to C. */
	name(&v, &a);
	cosched_observe(&v, co, 1, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.kind, COSCHED_OBS_PAIR);
	ck_assert_int_eq(o.victim, COSCHED_LCA_L);
	ck_assert_int_eq(o.corunner, COSCHED_LCA_C);
	/* Its record not there yet: pending. */
	cosched_observe(&v, co, 0, 1, 0, 0.5, &o);
	ck_assert_int_eq(o.kind, COSCHED_OBS_PENDING);
	/* Two for most of the run: several. */
	name(&v, &b);
	cosched_observe(&v, co, 2, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.kind, COSCHED_OBS_SKIP);
	ck_assert_int_eq(o.why, COSCHED_SKIP_SEVERAL);
	/* ... unless the other one only touched it (0.4 s), or ran on
	 * another socket. */
	b.start_s = 109.6;
	cosched_observe(&v, co, 2, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.kind, COSCHED_OBS_PAIR);
	b.start_s = 100;
	v.has_sockets = b.has_sockets = a.has_sockets = true;
	cosched_idset_add(&v.sockets, 0, NULL);
	cosched_idset_add(&a.sockets, 0, NULL);
	cosched_idset_add(&b.sockets, 1, NULL);
	cosched_observe(&v, co, 2, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.kind, COSCHED_OBS_PAIR);
	/* The co-runner came 3 s later: its prediction was about others. */
	a.start_s = 103;
	cosched_observe(&v, co, 2, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.why, COSCHED_SKIP_CORUNNER_LATER);
	a.start_s = 100;
	a.has_class = false;
	cosched_observe(&v, co, 2, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.why, COSCHED_SKIP_CORUNNER_CLASS);
	a.has_class = true;
	/* A co-runner whose record cannot be used (unreadable, or of an
	 * earlier release without a run time) may have shared the sockets
	 * all along: not a pair, never a solo run. */
	cosched_observe(&v, co, 2, 0, 1, 0.5, &o);
	ck_assert_int_eq(o.why, COSCHED_SKIP_CORUNNER_UNUSABLE);
	a.has_run = false;
	cosched_observe(&v, co, 2, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.why, COSCHED_SKIP_CORUNNER_UNUSABLE);
	a.has_run = true;
	/* Records that cannot be trusted. */
	v.has_exit = false;		/* an earlier release */
	cosched_observe(&v, co, 2, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.why, COSCHED_SKIP_NO_EXIT);
	v.has_exit = true;
	v.signalled = 1;
	cosched_observe(&v, co, 2, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.why, COSCHED_SKIP_SIGNALLED);
	v.signalled = 0;
	v.failed = 1;
	cosched_observe(&v, co, 2, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.why, COSCHED_SKIP_FAILED);
	v.failed = 0;
	v.corunners_seen = 20;		/* more than the ledger names */
	cosched_observe(&v, co, 2, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.why, COSCHED_SKIP_NO_CORUNNER_LIST);
	v.corunners_seen = 2;
	v.has_run = false;
	cosched_observe(&v, co, 2, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.why, COSCHED_SKIP_NO_RUNTIME);
	v.has_run = true;
	v.has_class = false;
	cosched_observe(&v, co, 2, 0, 0, 0.5, &o);
	ck_assert_int_eq(o.why, COSCHED_SKIP_NO_CLASS);
}
END_TEST

/* ---- the learner over a folder ------------------------------------------- */

static void put_record(uint32_t job, const char *app, const char *lca,
		       double start, double runtime, const char *co,
		       const char *exit_json)
{
	step_record_put(job, app, lca, start, runtime, co, exit_json,
			&step_record_root);
}

static void set_time(uint32_t job, long long when)
{
	step_record_set_time(job, (double) when);
}

START_TEST(test_learner_folder)
{
	const char *ok = "{\"tasks\": 1, \"signalled\": 0, \"failed\": 0}";
	const char *killed = "{\"tasks\": 1, \"signalled\": 1, \"signal\": 15, \"failed\": 0}";
	cosched_learner_report_t rep;
	cosched_learner_t *l;
	const cosched_learn_table_t *t;
	cosched_learn_table_t onfile;
	long long now = (long long) time(NULL);
	double base = (double) now + 5;	/* after the new table's watermark */
	char path[256];

	l = cosched_learner_create(dir, DAY, 0.5, &err);
	ck_assert_ptr_nonnull(l);
	/* First run: no table yet, one is made (watermark now). */
	ck_assert_msg(cosched_learner_run(l, now, &rep, &err) == 0, "%s",
		      err.msg);
	ck_assert(rep.saved);
	/* Solo runs of two applications (10 s each), a pair (jobs 3 and 4,
	 * both twice as slow as alone), job 5 cut short by a signal next to
	 * job 6, and job 7 whose co-runner (job 8) has no record yet. */
	put_record(1, "stream", "L", base, 10, "", ok);
	put_record(2, "walk", "C", base, 10, "", ok);
	put_record(3, "stream", "L", base + 20, 20, "\"4.0\"", ok);
	put_record(4, "walk", "C", base + 20, 20, "\"3.0\"", ok);
	put_record(5, "stream", "L", base + 50, 30, "\"6.0\"", killed);
	put_record(6, "walk", "C", base + 50, 20, "\"5.0\"", ok);
	put_record(7, "stream", "L", base + 90, 20, "\"8.0\"", ok);
	ck_assert_msg(cosched_learner_run(l, now + 120, &rep, &err) == 0, "%s",
		      err.msg);
	t = cosched_learner_table(l);
	ck_assert_int_eq(rep.solos, 2);
	/* 3 next to 4, 4 next to 3, and 6 next to 5: 6's own run is clean,
	 * only 5's was cut. */
	ck_assert_int_eq(rep.pairs, 3);
	ck_assert_int_eq(rep.pending, 1);	/* 7 */
	ck_assert_int_eq(rep.skipped[COSCHED_SKIP_SIGNALLED], 1);	/* 5 */
	ck_assert_int_eq(t->cell[COSCHED_LCA_L][COSCHED_LCA_C].n, 1);
	ck_assert_int_eq(t->cell[COSCHED_LCA_C][COSCHED_LCA_L].n, 2);
	ck_assert_double_eq_tol(cosched_learn_cell_value(
		&t->cell[COSCHED_LCA_L][COSCHED_LCA_C]), 2.0, 1e-6);
	ck_assert_double_eq_tol(cosched_learn_cell_value(
		&t->cell[COSCHED_LCA_C][COSCHED_LCA_L]), 2.0, 1e-6);
	ck_assert_int_eq(t->skipped[COSCHED_SKIP_SIGNALLED], 1);

	/* Learned once: a second run changes nothing but the pending one,
	 * whose co-runner's record now comes. */
	put_record(8, "walk", "C", base + 90, 20, "\"7.0\"", ok);
	set_time(8, now + 125);		/* it ended after the last run */
	ck_assert_msg(cosched_learner_run(l, now + 130, &rep, &err) == 0, "%s",
		      err.msg);
	ck_assert_int_eq(rep.pending, 0);
	ck_assert_int_eq(t->cell[COSCHED_LCA_L][COSCHED_LCA_C].n, 2);
	ck_assert_int_eq(t->cell[COSCHED_LCA_C][COSCHED_LCA_L].n, 3);

	/* What a restarted slurmctld reads is the same table, and it
	 * learns nothing twice. */
	cosched_learn_init(&onfile, 0);
	ck_assert_msg(cosched_learner_file_load(dir, &onfile, &err) == 1, "%s",
		      err.msg);
	ck_assert_int_eq(onfile.cell[COSCHED_LCA_C][COSCHED_LCA_L].n, 3);
	cosched_learner_free(l);
	l = cosched_learner_create(dir, DAY, 0.5, &err);
	ck_assert_int_eq(cosched_learner_run(l, now + 140, &rep, &err), 0);
	ck_assert_int_eq(rep.read, 0);
	ck_assert_int_eq(cosched_learner_table(l)->cell[COSCHED_LCA_C]
						      [COSCHED_LCA_L].n, 3);

	/* A record waiting for its co-runner is still waiting after a
	 * restart (the table keeps it), and decided when that one ends. */
	put_record(10, "stream", "L", base + 100, 20, "\"11.0\"", ok);
	set_time(10, now + 142);
	ck_assert_int_eq(cosched_learner_run(l, now + 143, &rep, &err), 0);
	ck_assert_int_eq(rep.pending, 1);
	cosched_learner_free(l);
	l = cosched_learner_create(dir, DAY, 0.5, &err);
	put_record(11, "walk", "C", base + 100, 20, "\"10.0\"", ok);
	set_time(11, now + 144);
	ck_assert_int_eq(cosched_learner_run(l, now + 144, &rep, &err), 0);
	ck_assert_int_eq(rep.pending, 0);
	ck_assert_int_eq(rep.pairs, 2);
	ck_assert_int_eq(cosched_learner_table(l)->cell[COSCHED_LCA_L]
						      [COSCHED_LCA_C].n, 3);

	/* A record another user could have written is not read. */
	put_record(9, "stream", "L", base + 100, 10, "", ok);
	snprintf(path, sizeof(path), "%s/jobs/9.0.n1.json", dir);
	chmod(path, 0666);
	{
		/* Written after the watermark (which is now + 70 by now). */
		struct timeval tv[2] = { { now + 145, 0 }, { now + 145, 0 } };

		ck_assert_int_eq(utimes(path, tv), 0);
	}
	ck_assert_int_eq(cosched_learner_run(l, now + 150, &rep, &err), 0);
	ck_assert_int_eq(rep.skipped[COSCHED_SKIP_UNREADABLE], 1);
	ck_assert_int_eq(rep.solos, 0);
	/* ... nor one kept under another record's name. */
	{
		char from[256], to[256];

		put_record(12, "stream", "L", base + 110, 10, "", ok);
		snprintf(from, sizeof(from), "%s/jobs/12.0.n1.json", dir);
		snprintf(to, sizeof(to), "%s/jobs/13.0.n1.json", dir);
		ck_assert_int_eq(rename(from, to), 0);
		set_time(13, now + 151);
		ck_assert_int_eq(cosched_learner_run(l, now + 152, &rep, &err), 0);
		ck_assert_int_eq(rep.skipped[COSCHED_SKIP_UNREADABLE], 1);
	}

	/* A reset: an empty table written by the administrator's command
	 * is taken. */
	{
		cosched_learn_table_t empty;

		cosched_learn_init(&empty, now + 160);
		ck_assert_int_eq(cosched_learner_file_save(dir, NULL, &empty, &err), 0);
		cosched_learn_free(&empty);
	}
	ck_assert_int_eq(cosched_learner_run(l, now + 170, &rep, &err), 0);
	ck_assert(rep.adopted);
	ck_assert_int_eq(cosched_learner_table(l)->cell[COSCHED_LCA_C]
						      [COSCHED_LCA_L].n, 0);
	cosched_learn_free(&onfile);
	cosched_learner_free(l);
}
END_TEST

/* Each record is read once: a co-runner's record read in the same run is
 * taken from it, and a pair waiting for a solo time is not read again
 * while its file stays the same (a long pending set would otherwise be
 * parsed whole, with its co-runners, at every run). */
START_TEST(test_learner_reads_once)
{
	const char *ok = "{\"tasks\": 1, \"signalled\": 0, \"failed\": 0}";
	cosched_learner_report_t rep;
	cosched_learner_t *l;
	const cosched_learn_table_t *t;
	long long now = (long long) time(NULL);
	double base = (double) now + 5;

	l = cosched_learner_create(dir, DAY, 0.5, &err);
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(cosched_learner_run(l, now, &rep, &err), 0);
	t = cosched_learner_table(l);
	/* A pair, and no solo run of either application yet. */
	put_record(3, "stream", "L", base + 20, 20, "\"4.0\"", ok);
	put_record(4, "walk", "C", base + 20, 30, "\"3.0\"", ok);
	ck_assert_msg(cosched_learner_run(l, now + 120, &rep, &err) == 0, "%s",
		      err.msg);
	ck_assert_int_eq(rep.pending, 2);
	ck_assert_int_eq(rep.parsed, 2);	/* not 4 */
	/* Still waiting: nothing read. */
	ck_assert_int_eq(cosched_learner_run(l, now + 130, &rep, &err), 0);
	ck_assert_int_eq(rep.pending, 2);
	ck_assert_int_eq(rep.parsed, 0);
	/* A record whose file changed is read again, and its co-runner,
	 * not read in this run, from its file. */
	put_record(3, "stream", "L", base + 20, 25, "\"4.0\"", ok);
	set_time(3, now + 131);
	ck_assert_int_eq(cosched_learner_run(l, now + 132, &rep, &err), 0);
	ck_assert_int_eq(rep.pending, 2);
	ck_assert_int_eq(rep.parsed, 2);
	ck_assert_int_eq(cosched_learner_run(l, now + 133, &rep, &err), 0);
	ck_assert_int_eq(rep.parsed, 0);
	/* The solo runs come: both pairs learned from what was kept, the
	 * changed run time (25 s against 10 alone) included. */
	put_record(1, "stream", "L", base, 10, "", ok);
	put_record(2, "walk", "C", base, 10, "", ok);
	set_time(1, now + 134);
	set_time(2, now + 134);
	ck_assert_int_eq(cosched_learner_run(l, now + 135, &rep, &err), 0);
	ck_assert_int_eq(rep.parsed, 2);
	ck_assert_int_eq(rep.solos, 2);
	ck_assert_int_eq(rep.pairs, 2);
	ck_assert_int_eq(rep.pending, 0);
	/* 2.5 and 3.0, each held to the configured table's largest cell,
	 * 2.15. */
	ck_assert_double_eq_tol(cosched_learn_cell_value(
		&t->cell[COSCHED_LCA_L][COSCHED_LCA_C]), 2.15, 1e-6);
	ck_assert_double_eq_tol(cosched_learn_cell_value(
		&t->cell[COSCHED_LCA_C][COSCHED_LCA_L]), 2.15, 1e-6);
	ck_assert_int_eq(cosched_learner_run(l, now + 136, &rep, &err), 0);
	ck_assert_int_eq(rep.read, 0);
	ck_assert_int_eq(rep.parsed, 0);
	cosched_learner_free(l);
}
END_TEST

/* A pending record decided while its file is newer than the watermark
 * (its solo time came within the slack) is remembered as decided, not
 * gathered and learned again at the next run. */
START_TEST(test_learner_pending_decided_once)
{
	const char *ok = "{\"tasks\": 1, \"signalled\": 0, \"failed\": 0}";
	cosched_learner_report_t rep;
	cosched_learner_t *l;
	const cosched_learn_table_t *t;
	long long now = (long long) time(NULL);
	double base = (double) now + 5;

	l = cosched_learner_create(dir, DAY, 0.5, &err);
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(cosched_learner_run(l, now, &rep, &err), 0);
	t = cosched_learner_table(l);
	put_record(3, "stream", "L", base + 20, 20, "\"4.0\"", ok);
	put_record(4, "walk", "C", base + 20, 20, "\"3.0\"", ok);
	set_time(3, now + 100);
	set_time(4, now + 100);
	ck_assert_int_eq(cosched_learner_run(l, now + 110, &rep, &err), 0);
	ck_assert_int_eq(rep.pending, 2);
	put_record(1, "stream", "L", base, 10, "", ok);
	put_record(2, "walk", "C", base, 10, "", ok);
	set_time(1, now + 105);
	set_time(2, now + 105);
	ck_assert_int_eq(cosched_learner_run(l, now + 111, &rep, &err), 0);
	ck_assert_int_eq(rep.pairs, 2);
	ck_assert_int_eq(rep.pending, 0);
	ck_assert_int_eq(t->cell[COSCHED_LCA_L][COSCHED_LCA_C].n, 1);
	ck_assert_int_eq(cosched_learner_run(l, now + 112, &rep, &err), 0);
	ck_assert_int_eq(rep.read, 0);
	ck_assert_int_eq(t->cell[COSCHED_LCA_L][COSCHED_LCA_C].n, 1);
	ck_assert_int_eq(t->cell[COSCHED_LCA_C][COSCHED_LCA_L].n, 1);
	cosched_learner_free(l);
}
END_TEST


/* A run costs what ended since, not what the folder keeps: a folder that
 * has not changed for a minute is not read, and what is new is read as
 * soon as the folder changes. */
START_TEST(test_learner_quiet_folder)
{
	const char *ok = "{\"tasks\": 1, \"signalled\": 0, \"failed\": 0}";
	long long now = (long long) time(NULL);
	char jobs[128];
	struct timeval old[2] = { { now - 120, 0 }, { now - 120, 0 } };
	cosched_learner_report_t rep;
	cosched_learner_t *l;

	snprintf(jobs, sizeof(jobs), "%s/jobs", dir);
	l = cosched_learner_create(dir, DAY, 0.5, &err);
	ck_assert_ptr_nonnull(l);
	put_record(1, "stream", "L", (double) now + 5, 10, "", ok);
	ck_assert_int_eq(cosched_learner_run(l, now, &rep, &err), 0);
	ck_assert(rep.listed && rep.solos == 1);
	/* Changed a moment ago: read. */
	ck_assert_int_eq(cosched_learner_run(l, now + 1, &rep, &err), 0);
	ck_assert(rep.listed && rep.read == 0);
	/* Unchanged for two minutes: read once more, then not at all. */
	ck_assert_int_eq(utimes(jobs, old), 0);
	ck_assert_int_eq(cosched_learner_run(l, now + 2, &rep, &err), 0);
	ck_assert(rep.listed);
	ck_assert_int_eq(cosched_learner_run(l, now + 3, &rep, &err), 0);
	ck_assert(!rep.listed && rep.read == 0 && rep.parsed == 0);
	/* A record ends: the folder changed, it is decided. */
	put_record(2, "walk", "C", (double) now + 5, 10, "", ok);
	ck_assert_int_eq(cosched_learner_run(l, now + 4, &rep, &err), 0);
	ck_assert(rep.listed);
	ck_assert_int_eq(rep.solos, 1);
	ck_assert_int_eq(rep.parsed, 1);
	cosched_learner_free(l);
}
END_TEST
/* A table slurmctld cannot use when it starts (another major, after a
 * rollback) is set aside, not overwritten; a reset written while a run
 * is under way is not overwritten by that run. */
START_TEST(test_learner_bad_file)
{
	cosched_learner_report_t rep;
	cosched_learner_t *l;
	char path[256], aside[300];
	long long now = (long long) time(NULL);
	FILE *f;

	snprintf(path, sizeof(path), "%s/interference.learned", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("cosched-interference/2 created=1 updated=1 through=1.000\n", f);
	fclose(f);
	chmod(path, 0644);
	l = cosched_learner_create(dir, DAY, 0.5, &err);
	ck_assert_int_eq(cosched_learner_load(l, now, &rep, &err), -1);
	ck_assert_msg(strstr(err.msg, "set aside as"), "%s", err.msg);
	snprintf(aside, sizeof(aside), "%s.bad.%lld", path, now);
	ck_assert_int_eq(access(aside, F_OK), 0);
	/* Its own table is written when it decides a record, over
	 * nothing (the watermark alone is not worth a write). */
	ck_assert_int_eq(cosched_learner_run(l, now, &rep, &err), 0);
	ck_assert(!rep.adopted);
	ck_assert_int_eq(cosched_learner_run(l, now + 120, &rep, &err), 0);
	ck_assert(!rep.saved && access(path, F_OK) != 0);
	put_record(1, "stream", "L", (double) now + 100, 10, "",
		   "{\"tasks\": 1, \"signalled\": 0, \"failed\": 0}");
	set_time(1, now + 130);
	ck_assert_int_eq(cosched_learner_run(l, now + 140, &rep, &err), 0);
	ck_assert(rep.saved && !rep.adopted && rep.solos == 1);
	ck_assert_int_eq(access(path, F_OK), 0);
	ck_assert_int_eq(access(aside, F_OK), 0);
	cosched_learner_free(l);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("learn");
	TCase *tc = tcase_create("learn");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_cells_and_min_samples);
	tcase_add_test(tc, test_decay);
	tcase_add_test(tc, test_text_round_trip);
	tcase_add_test(tc, test_observe_rule);
	tcase_add_test(tc, test_learner_folder);
	tcase_add_test(tc, test_learner_reads_once);
	tcase_add_test(tc, test_learner_pending_decided_once);
	tcase_add_test(tc, test_learner_quiet_folder);
	tcase_add_test(tc, test_learner_bad_file);
	suite_add_tcase(s, tc);
	return s;
}
