/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_store.c - the profile store: atomic writes, locking, merging, name
 * checks (src/libcosched/store/store.c); the files it finds on disk are
 * test_store_files.c's. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "cosched_check.h"
#include "src/libcosched/model/classify.h"
#include "src/libcosched/conf/conf.h"
#include "src/libcosched/model/interference.h"
#include "src/libcosched/store/profile_json.h"
#include "src/libcosched/store/store.h"

#include "store_dir.h"

START_TEST(test_open_refusals)
{
	cosched_store_t s;
	char path[128];

	ck_assert_int_eq(cosched_store_open(&s, "/nonexistent/cosched", NULL, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/cosched"));
	write_file("plain", "x");
	snprintf(path, sizeof(path), "%s/plain", dir);
	ck_assert_int_eq(cosched_store_open(&s, path, NULL, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a directory"));
	{
		cosched_merge_params_t mp;
		cosched_merge_params_default(&mp);
		mp.weight = 1.5;
		ck_assert_int_eq(cosched_store_open(&s, dir, &mp, &err), -1);
		ck_assert_ptr_nonnull(strstr(err.msg, "ProfileMergeWeight"));
	}
}
END_TEST

START_TEST(test_load_missing_then_merge)
{
	cosched_profile_t p, q;
	cosched_run_t r = mkrun(10.0);

	ck_assert_int_eq(cosched_store_load(&store, "stream", &p, &err), 0);
	ck_assert(!cosched_profile_has_data(&p));
	ck_assert_str_eq(p.app, "stream");
	cosched_profile_free(&p);

	ck_assert_msg(cosched_store_merge_run(&store, "stream", &r, NULL, &q, &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(q.runs_merged, 1);
	ck_assert_int_eq(cosched_store_load(&store, "stream", &p, &err), 1);
	ck_assert_int_eq(p.runs_merged, 1);
	ck_assert_double_eq(p.derived.ipc, 2.0);
	/* node peak from the store's merge parameters */
	ck_assert_double_eq_tol(p.derived.bw_fraction, 1e6 * 64 / 10.0 / 15000e6, 1e-15);
	ck_assert_int_eq(p.n_edp, 1);
	cosched_profile_free(&p);
	cosched_profile_free(&q);
	/* only the profile and its lock file are left */
	ck_assert_int_eq(count_entries(""), 2);
	ck_assert_int_eq(count_entries("stream.json"), 1);
	ck_assert_int_eq(count_entries(".stream.lock"), 1);
}
END_TEST

/* A user's runs build that user's own profile (APP@UID) whoever ran
 * under the name first; root's and a shared application's runs go into
 * the application's (the site's), which no user claims; a user who owned
 * the application's profile before users had their own keeps it.  A
 * user holds at most user_profiles_max profiles of their own. */
START_TEST(test_profile_owner)
{
	char key[COSCHED_PROFILE_KEY_MAX + 1], path[128];
	cosched_run_t r = mkrun(10.0);
	cosched_profile_t p;
	char *json;
	FILE *f;

	ck_assert_msg(!cosched_store_merge_run_by(&store, "p15", &r, NULL, 1001,
						  false, key, NULL, &err),
		      "%s", err.msg);
	ck_assert_str_eq(key, "p15@1001");
	/* The squatted name costs the next user nothing. */
	ck_assert_msg(!cosched_store_merge_run_by(&store, "p15", &r, NULL, 1002,
						  false, key, NULL, &err),
		      "%s", err.msg);
	ck_assert_str_eq(key, "p15@1002");
	ck_assert_int_eq(cosched_store_load(&store, "p15@1002", &p, &err), 1);
	ck_assert_int_eq(p.runs_merged, 1);
	ck_assert_int_eq(p.owner_uid, 1002);
	ck_assert_str_eq(p.app, "p15");
	json = cosched_profile_to_json(&p, &err);
	ck_assert_msg(json != NULL, "%s", err.msg);
	ck_assert_ptr_nonnull(strstr(json, "\"schema_version\": 4"));
	ck_assert_ptr_nonnull(strstr(json, "\"owner_uid\": 1002"));
	free(json);
	cosched_profile_free(&p);
	ck_assert_int_eq(cosched_store_load(&store, "p15", &p, &err), 0);
	cosched_profile_free(&p);
	/* Root's runs make the site's profile, written as before owners
	 * (no owner_uid, below version 4); a shared application's runs go
	 * there too, and it keeps no owner. */
	ck_assert(!cosched_store_merge_run_by(&store, "p15", &r, NULL, 0,
					      false, key, NULL, &err));
	ck_assert_str_eq(key, "p15");
	ck_assert(!cosched_store_merge_run_by(&store, "p15", &r, NULL, 1002,
					      true, key, NULL, &err));
	ck_assert_str_eq(key, "p15");
	ck_assert_int_eq(cosched_store_load(&store, "p15", &p, &err), 1);
	ck_assert_int_eq(p.owner_uid, -1);
	ck_assert_int_eq(p.runs_merged, 2);
	json = cosched_profile_to_json(&p, &err);
	ck_assert_ptr_null(strstr(json, "owner_uid"));
	ck_assert_ptr_null(strstr(json, "\"schema_version\": 4"));
	free(json);
	cosched_profile_free(&p);
	/* Not shared: 1002's runs stay in 1002's own. */
	ck_assert(!cosched_store_merge_run_by(&store, "p15", &r, NULL, 1002,
					      false, key, NULL, &err));
	ck_assert_str_eq(key, "p15@1002");
	ck_assert_int_eq(cosched_store_load(&store, "p15@1002", &p, &err), 1);
	ck_assert_int_eq(p.runs_merged, 2);
	cosched_profile_free(&p);

	/* Owned under the application's name by an earlier release: its
	 * owner's runs go on there; another user's make their own. */
	ck_assert(!cosched_profile_init(&p, "old", &err));
	p.owner_uid = 1001;
	ck_assert(!cosched_profile_add_run(&p, &r, &store.merge, &err));
	ck_assert(!cosched_store_save(&store, &p, &err));
	cosched_profile_free(&p);
	ck_assert(!cosched_store_merge_run_by(&store, "old", &r, NULL, 1001,
					      false, key, NULL, &err));
	ck_assert_str_eq(key, "old");
	ck_assert(!cosched_store_merge_run_by(&store, "old", &r, NULL, 1002,
					      false, key, NULL, &err));
	ck_assert_str_eq(key, "old@1002");
	ck_assert_int_eq(cosched_store_load(&store, "old", &p, &err), 1);
	ck_assert_int_eq(p.runs_merged, 2);
	ck_assert_int_eq(p.owner_uid, 1001);
	cosched_profile_free(&p);

	/* A file under a user's key that holds another owner is refused
	 * (and so is its merge). */
	ck_assert_int_eq(cosched_store_load(&store, "old@1002", &p, &err), 1);
	json = cosched_profile_to_json(&p, &err);
	cosched_profile_free(&p);
	snprintf(path, sizeof(path), "%s/old@1003.json", dir);
	ck_assert((f = fopen(path, "w")) != NULL);
	fputs(json, f);
	fclose(f);
	free(json);
	ck_assert_int_eq(cosched_store_load(&store, "old@1003", &p, &err), -1);
	ck_assert_msg(strstr(err.msg, "owner_uid: holds 1002, expected 1003"),
		      "%s", err.msg);
	ck_assert_int_eq(cosched_store_merge_run_by(&store, "old", &r, NULL,
						    1003, false, key, NULL,
						    &err), -1);

	/* The bound: 1004 makes two profiles, a third is refused, saying
	 * so; the existing ones still take runs. */
	store.user_profiles_max = 2;
	ck_assert(!cosched_store_merge_run_by(&store, "a", &r, NULL, 1004,
					      false, NULL, NULL, &err));
	ck_assert(!cosched_store_merge_run_by(&store, "b", &r, NULL, 1004,
					      false, NULL, NULL, &err));
	ck_assert_int_eq(cosched_store_merge_run_by(&store, "c", &r, NULL, 1004,
						    false, NULL, NULL, &err),
			 -1);
	ck_assert_msg(strstr(err.msg, "uid 1004 has 2 profiles of its own, the most a user may have (2): no new one for c"),
		      "%s", err.msg);
	ck_assert_int_eq(count_entries("c@1004.json"), 0);
	ck_assert(!cosched_store_merge_run_by(&store, "a", &r, NULL, 1004,
					      false, NULL, NULL, &err));
	/* Root's runs are not a user's: no bound. */
	ck_assert(!cosched_store_merge_run_by(&store, "c", &r, NULL, 0, false,
					      NULL, NULL, &err));

	/* Whose profile classifies a job: its user's own, the site's, one
	 * of no recorded owner, or a shared one; never another user's. */
	ck_assert(cosched_profile_serves(1001, 1001, false));
	ck_assert(!cosched_profile_serves(1001, 1002, false));
	ck_assert(cosched_profile_serves(1001, 1002, true));
	ck_assert(cosched_profile_serves(-1, 1002, false));
	ck_assert(cosched_profile_serves(0, 1002, false));
}
END_TEST

/* Keys: one form per profile, nothing that leaves the directory. */
START_TEST(test_profile_keys)
{
	char key[COSCHED_PROFILE_KEY_MAX + 1], app[COSCHED_APP_NAME_MAX + 1];
	long uid;

	cosched_profile_key(key, "lammps", 1000);
	ck_assert_str_eq(key, "lammps@1000");
	cosched_profile_key(key, "lammps", 0);
	ck_assert_str_eq(key, "lammps");
	ck_assert(!cosched_profile_key_parse("k", "lammps@1000", app, &uid,
					     &err));
	ck_assert_str_eq(app, "lammps");
	ck_assert_int_eq(uid, 1000);
	ck_assert(!cosched_profile_key_parse("k", "lammps", app, &uid, &err));
	ck_assert_int_eq(uid, 0);
	ck_assert(!cosched_profile_key_parse("k", "a@4294967294", app, &uid,
					     &err));
	static const char *const bad[] = {
		"a@0", "a@01", "a@", "@5", "a@5@6", "a@-5", "a@4294967295",
		"a@12345678901", "../a@5", ".a@5", "a/b@5", "a@5x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(cosched_profile_key_parse("k", bad[i], app, &uid,
							&err) == -1, "%s", bad[i]);
	ck_assert_msg(strstr(err.msg, "k: profile key \"a@5x\": expected APP@UID with UID 1 to 4294967294"),
		      "%s", err.msg);
}
END_TEST

/* The lookup order: the user's own, then the application's where it
 * serves the user, then none. */
typedef struct {
	const char *have[4];
	long owner[4];
} fake_store_t;

static int fake_find(void *ctx, const char *key, long *owner)
{
	const fake_store_t *s = ctx;

	for (int i = 0; i < 4 && s->have[i]; i++)
		if (!strcmp(s->have[i], key)) {
			*owner = s->owner[i];
			return 1;
		}
	return 0;
}

START_TEST(test_profile_find_order)
{
	fake_store_t squat = { { "lammps", "lammps@1002" }, { 1001, 1002 } };
	fake_store_t site = { { "lammps" }, { -1 } };
	fake_store_t theirs = { { "lammps" }, { 1001 } };

	ck_assert(cosched_profile_find_for("lammps", 1002, false, fake_find,
					   &squat));
	ck_assert(!cosched_profile_find_for("lammps", 1003, false, fake_find,
					    &squat));
	ck_assert(cosched_profile_find_for("lammps", 1003, true, fake_find,
					   &squat));
	ck_assert(cosched_profile_find_for("lammps", 1003, false, fake_find,
					   &site));
	ck_assert(cosched_profile_find_for("lammps", 1001, false, fake_find,
					   &theirs));
	ck_assert(!cosched_profile_find_for("lammps", 1002, false, fake_find,
					    &theirs));
	ck_assert(cosched_profile_find_for("lammps", 0, false, fake_find,
					   &site));
}
END_TEST

START_TEST(test_counterless_runs)
{
	/* Where a node has no hardware counters the run keeps its runtime
	 * and energy; the profile says why it has no counter values and
	 * gives no class from them; a counted run clears the note. */
	cosched_profile_t p;
	cosched_run_t r = mkrun(10.0);
	char *text;

	r.instructions = r.cycles = r.llc_misses = NAN;
	ck_assert_msg(cosched_store_merge_run(&store, "vm", &r,
		"unavailable: instructions: no hardware counters", NULL,
		&err) == 0, "%s", err.msg);
	ck_assert_int_eq(cosched_store_load(&store, "vm", &p, &err), 1);
	ck_assert_str_eq(p.counters,
			 "unavailable: instructions: no hardware counters");
	ck_assert_int_eq(p.runs_merged, 1);
	ck_assert(!cosched_profile_has_data(&p));
	ck_assert(isnan(p.derived.mpki) && isnan(p.derived.ipc));
	ck_assert_double_eq(p.derived.power_w, 10.0);
	ck_assert_int_eq(p.n_edp, 1);
	ck_assert_double_eq(p.edp[0].time_s, 10.0);
	ck_assert_double_eq(p.edp[0].energy_j, 100.0);
	cosched_profile_free(&p);
	text = NULL;
	{
		char path[128];
		FILE *f;
		long n;

		snprintf(path, sizeof(path), "%s/vm.json", dir);
		f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		text = calloc(1, 65536);
		n = (long) fread(text, 1, 65535, f);
		fclose(f);
		ck_assert_int_gt(n, 0);
	}
	/* Written as version 3, the only one that holds such a run. */
	ck_assert_ptr_nonnull(strstr(text, "\"schema_version\": 3"));
	ck_assert_ptr_null(strstr(text, "\"instructions\""));
	free(text);

	/* Half counted is refused, the profile unchanged. */
	r.instructions = 1e9;
	ck_assert_int_eq(cosched_store_merge_run(&store, "vm", &r, NULL, NULL,
						 &err), -1);
	ck_assert_msg(strstr(err.msg, "run: instructions, cycles and llc_misses: all three or none"),
		      "%s", err.msg);

	r = mkrun(10.0);
	ck_assert_int_eq(cosched_store_merge_run(&store, "vm", &r, NULL, NULL,
						 &err), 0);
	ck_assert_int_eq(cosched_store_load(&store, "vm", &p, &err), 1);
	ck_assert_str_eq(p.counters, "");
	ck_assert_int_eq(p.runs_merged, 2);
	ck_assert(cosched_profile_has_data(&p));
	ck_assert_double_eq(p.derived.ipc, 2.0);
	cosched_profile_free(&p);
}
END_TEST

START_TEST(test_bad_names)
{
	static const char *const bad[] = {
		"../evil", "..", "a/b", "/etc/passwd", ".hidden", "", "x\ny"
	};
	cosched_run_t r = mkrun(1.0);
	cosched_profile_t p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_error_clear(&err);
		ck_assert_int_eq(cosched_store_merge_run(&store, bad[i], &r, NULL, NULL, &err), -1);
		ck_assert_ptr_nonnull(strstr(err.msg, "application"));
		ck_assert_int_eq(cosched_store_load(&store, bad[i], &p, &err), -1);
	}
	/* nothing was created, inside or beside the directory */
	ck_assert_int_eq(count_entries(""), 0);
	{
		char path[128];
		snprintf(path, sizeof(path), "%s/../evil.json", dir);
		ck_assert_int_ne(access(path, F_OK), 0);
	}
}
END_TEST

START_TEST(test_sample_bound)
{
	cosched_profile_t p;
	for (int i = 1; i <= 12; i++) {
		cosched_run_t r = mkrun((double) i);
		ck_assert_int_eq(cosched_store_merge_run(&store, "lu.A", &r, NULL, NULL, &err), 0);
	}
	ck_assert_int_eq(cosched_store_load(&store, "lu.A", &p, &err), 1);
	ck_assert_int_eq(p.runs_merged, 12);
	ck_assert_int_eq(p.n_runs, 5);
	ck_assert_double_eq(p.runs[4].runtime_s, 12.0);
	cosched_profile_free(&p);
}
END_TEST

START_TEST(test_save_load_and_mismatch)
{
	cosched_profile_t p, q;
	cosched_run_t r = mkrun(3.0);
	cosched_merge_params_t mp;

	cosched_merge_params_default(&mp);
	ck_assert_int_eq(cosched_profile_init(&p, "bt.A", &err), 0);
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), 0);
	ck_assert_int_eq(cosched_store_save(&store, &p, &err), 0);
	ck_assert_int_eq(cosched_store_load(&store, "bt.A", &q, &err), 1);
	ck_assert_double_eq(q.runs[0].runtime_s, 3.0);
	cosched_profile_free(&q);
	/* a file holding another application's profile is refused */
	{
		char from[128], to[128];
		snprintf(from, sizeof(from), "%s/bt.A.json", dir);
		snprintf(to, sizeof(to), "%s/cg.B.json", dir);
		ck_assert_int_eq(rename(from, to), 0);
	}
	ck_assert_int_eq(cosched_store_load(&store, "cg.B", &q, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cg.B.json: app: holds \"bt.A\""));
	cosched_profile_free(&p);
}
END_TEST

/* A run whose derived metrics are not finite is refused with its reason,
 * and the stored profile is unchanged (it used to fail in the JSON writer
 * as "out of memory", after the merge). */
START_TEST(test_merge_non_finite_run)
{
	cosched_profile_t p;
	cosched_run_t r = mkrun(2.0);

	ck_assert_int_eq(cosched_store_merge_run(&store, "tiny", &r, NULL, NULL, &err), 0);
	r.cycles = 1e-320;
	ck_assert_int_eq(cosched_store_merge_run(&store, "tiny", &r, NULL, NULL, &err), -1);
	ck_assert_msg(strstr(err.msg, "run.cycles: ") && strstr(err.msg, "gives ipc inf"),
		      "%s", err.msg);
	ck_assert_int_eq(cosched_store_load(&store, "tiny", &p, &err), 1);
	ck_assert_int_eq(p.runs_merged, 1);
	cosched_profile_free(&p);
}
END_TEST

/*
 * The pieces together: cosched.conf gives the store's merge parameters and
 * the thresholds; runs of the representative programs of "Power-aware gang
 * scheduling on multicore" (NTUA thesis, 2013) are merged into the store,
 * loaded back, classified, and their pairs predicted.
 */
START_TEST(test_conf_store_classify_pipeline)
{
	static const struct {
		const char *app;
		double ipc, mpki, mem_mbs, l3l2_mbs;
		int threads;
		cosched_category_t cat;
	} progs[] = {
		{ "ep.A", 2.0, 0.01, NAN, 200.0, 4, COSCHED_CAT_CPU },
		{ "stream-lim", 1.0, 1.66, 3750.0, 3750.0, 4, COSCHED_CAT_LIM },
		{ "stream-mem", 0.5, 5.02, 12000.0, 12000.0, 3, COSCHED_CAT_MEM },
		{ "rand-llc", 0.5, 0.01, NAN, 7000.0, 2, COSCHED_CAT_RAND },
	};
	cosched_conf_t conf;
	cosched_merge_params_t mp;
	cosched_store_t s;
	cosched_class_t cls[4];
	char text[256];

	cosched_conf_init(&conf);
	snprintf(text, sizeof(text), "ProfileDir=%s\nProfileMaxSamples=4\n"
		 "NodePeakBandwidth=15000\nCoschedPolicy=app_aware\n", dir);
	ck_assert_msg(cosched_conf_parse_string(&conf, "t.conf", text, &err) == 0, "%s", err.msg);
	cosched_conf_merge_params(&conf, &mp);
	ck_assert_int_eq(cosched_store_open(&s, conf.profile_dir, &mp, &err), 0);
	for (int i = 0; i < 4; i++) {
		cosched_profile_t p;
		for (int k = 0; k < 6; k++) {
			cosched_run_t r;
			cosched_run_init(&r);
			r.runtime_s = 100.0;
			r.threads = progs[i].threads;
			r.cycles = 2.2e9 * 100.0 * r.threads;
			r.instructions = r.cycles * progs[i].ipc;
			r.llc_misses = r.instructions * progs[i].mpki / 1000.0;
			r.mem_bytes_per_s = progs[i].mem_mbs * 1e6;
			r.llc_to_core_bytes_per_s = progs[i].l3l2_mbs * 1e6;
			ck_assert_int_eq(cosched_store_merge_run(&s, progs[i].app, &r, NULL, NULL, &err), 0);
		}
		ck_assert_int_eq(cosched_store_load(&s, progs[i].app, &p, &err), 1);
		ck_assert_int_eq(p.n_runs, 4);
		ck_assert_int_eq(p.runs_merged, 6);
		cls[i] = cosched_classify_effective(&conf.classify, &p, COSCHED_CAT_UNKNOWN);
		ck_assert_msg(cls[i].cat == progs[i].cat, "%s classified %s", progs[i].app,
			      cosched_category_name(cls[i].cat));
		ck_assert_int_eq(cls[i].source, COSCHED_CLASS_FROM_PROFILE);
		cosched_profile_free(&p);
	}
	/* rand next to mem: forbidden (the 2013 gang-scheduling thesis); mem
	 * next to cpu: allowed */
	{
		cosched_prediction_t pr;
		ck_assert_int_eq(cosched_interference_predict(&conf.interference, &cls[3],
							      &cls[2], 1, &pr, &err), 0);
		ck_assert(pr.forbidden);
		ck_assert_int_eq(cosched_interference_predict(&conf.interference, &cls[2],
							      &cls[0], 1, &pr, &err), 0);
		ck_assert(!pr.forbidden);
		ck_assert(pr.slowdown < 1.1);
	}
}
END_TEST

#define WRITERS 8
#define RUNS_PER_WRITER 25

/* One writer: RUNS_PER_WRITER merges into "shared". */
static int writer(void *arg)
{
	int w = *(const int *) arg;

	for (int i = 0; i < RUNS_PER_WRITER; i++) {
		cosched_error_t e;
		cosched_run_t r = mkrun(1.0 + w);
		if (cosched_store_merge_run(&store, "shared", &r, NULL, NULL, &e)) {
			fprintf(stderr, "writer %d: %s\n", w, e.msg);
			return 1;
		}
	}
	return 0;
}

/*
 * The reader: every load must succeed (shared lock, atomic rename) and
 * the count it sees never goes back.  It reads until it has seen the
 * final count (or for 30 s) and reports, through the pipe *arg, how many
 * of its loads found the profile and the last count seen.
 */
static int reader(void *arg)
{
	int fd = *(const int *) arg;
	struct timeval start, now;
	unsigned long res[2] = { 0, 0 };	/* found, last count */

	gettimeofday(&start, NULL);
	for (int i = 0;; i++) {
		cosched_error_t e;
		cosched_profile_t p;
		int rc = cosched_store_load(&store, "shared", &p, &e);
		if (rc < 0) {
			fprintf(stderr, "reader: %s\n", e.msg);
			return 1;
		}
		if (p.n_runs > 5 || (unsigned long) p.n_runs > p.runs_merged ||
		    p.runs_merged < res[1])
			return 2;
		if (rc == 1) {
			res[0]++;
			res[1] = p.runs_merged;
		}
		cosched_profile_free(&p);
		gettimeofday(&now, NULL);
		if ((i >= 200 && res[1] == WRITERS * RUNS_PER_WRITER) ||
		    now.tv_sec - start.tv_sec > 30)
			break;
	}
	if (write(fd, res, sizeof(res)) != (ssize_t) sizeof(res))
		return 3;
	return res[0] > 0 ? 0 : 4;
}

/*
 * Several processes merge runs into one profile at once while another
 * keeps reading it: no merged run is lost (runs_merged counts every one),
 * every read sees a complete, valid profile, and no temporary file is left.
 */
START_TEST(test_concurrent_writers)
{
	pid_t pids[WRITERS + 1];
	int ids[WRITERS], fds[2];
	unsigned long seen[2];

	for (int w = 0; w < WRITERS; w++) {
		ids[w] = w;
		pids[w] = cosched_child_start(writer, &ids[w], 0, 0);
	}
	ck_assert_int_eq(pipe(fds), 0);
	pids[WRITERS] = cosched_child_start(reader, &fds[1], 0, 0);
	close(fds[1]);
	for (int w = 0; w <= WRITERS; w++)
		cosched_child_wait(pids[w], w < WRITERS ? "writer" : "reader");
	ck_assert_int_eq(read(fds[0], seen, sizeof(seen)), sizeof(seen));
	close(fds[0]);
	ck_assert_uint_gt(seen[0], 0);	/* it did read profiles */
	ck_assert_uint_eq(seen[1], WRITERS * RUNS_PER_WRITER);
	{
		cosched_profile_t p;
		ck_assert_int_eq(cosched_store_load(&store, "shared", &p, &err), 1);
		ck_assert_int_eq(p.runs_merged, WRITERS * RUNS_PER_WRITER);
		ck_assert_int_eq(p.n_runs, 5);
		ck_assert_int_eq(p.n_edp, 1);
		ck_assert_int_eq(p.edp[0].samples, WRITERS * RUNS_PER_WRITER);
		cosched_profile_free(&p);
	}
	/* no partial or temporary file left behind */
	ck_assert_int_eq(count_entries(""), 2);
	ck_assert_int_eq(count_entries(".shared.json."), 0);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_open_refusals);
	tcase_add_test(tc, test_load_missing_then_merge);
	tcase_add_test(tc, test_bad_names);
	tcase_add_test(tc, test_counterless_runs);
	tcase_add_test(tc, test_sample_bound);
	tcase_add_test(tc, test_save_load_and_mismatch);
	tcase_add_test(tc, test_merge_non_finite_run);
	tcase_add_test(tc, test_profile_owner);
	tcase_add_test(tc, test_profile_keys);
	tcase_add_test(tc, test_profile_find_order);
	tcase_add_test(tc, test_conf_store_classify_pipeline);
	tcase_add_test(tc, test_concurrent_writers);
	suite_add_tcase(s, tc);
	return s;
}
