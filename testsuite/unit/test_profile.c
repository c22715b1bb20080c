/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_profile.c - application profiles, derived metrics, EDP points and
 * their JSON form (src/libcosched/model/profile.c). */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "src/libcosched/model/power.h"
#include "src/libcosched/model/profile.h"
#include "src/libcosched/store/profile_json.h"

static cosched_error_t err;
static cosched_merge_params_t mp;

static void setup(void)
{
	cosched_error_clear(&err);
	cosched_merge_params_default(&mp);
}

static cosched_run_t mkrun(double instr, double cycles, double misses,
			   double runtime, int threads)
{
	cosched_run_t r;
	cosched_run_init(&r);
	r.instructions = instr;
	r.cycles = cycles;
	r.llc_misses = misses;
	r.runtime_s = runtime;
	r.threads = threads;
	r.freq_khz = 2200000;
	return r;
}

static bool same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

START_TEST(test_names_refused)
{
	static const char *const bad[] = { "a/b", "..", "../etc", ".hidden", "", "a b" };
	cosched_profile_t p;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_error_clear(&err);
		ck_assert_int_eq(cosched_profile_init(&p, bad[i], &err), -1);
		ck_assert_msg(strstr(err.msg, "app:") != NULL, "%s", err.msg);
	}
	ck_assert_int_eq(cosched_profile_init(&p, "ft.B-8", &err), 0);
	ck_assert(!cosched_profile_has_data(&p));
	ck_assert(isnan(p.derived.ipc));
	cosched_profile_free(&p);
}
END_TEST

/* "Effects of co-scheduling applications on multicore architectures" (NTUA
 * thesis, 2014), "Metrics" and "Power-aware gang scheduling on multicore" (NTUA
 * thesis, 2013), "Metrics" on one run. */
START_TEST(test_derive)
{
	cosched_run_t r = mkrun(4e9, 2e9, 2e7, 10.0, 2);
	cosched_derived_t d;

	r.llc_to_core_bytes_per_s = 3e9;
	r.energy_pkg_j = 300.0;
	r.energy_dram_j = 50.0;
	cosched_run_derive(&r, 15000e6, &d);
	ck_assert_double_eq(d.ipc, 2.0);
	ck_assert_double_eq_tol(d.mpki, 5.0, 1e-12);
	ck_assert_double_eq_tol(d.llc_miss_bw, 2e7 * 64 / 10.0, 1e-3);
	ck_assert_double_eq_tol(d.llc_miss_bw_per_thread, 2e7 * 64 / 20.0, 1e-3);
	ck_assert(isnan(d.mem_traffic_bw));	/* not measured */
	ck_assert_double_eq_tol(cosched_derived_mem_bw(&d), d.llc_miss_bw, 1e-9);
	ck_assert_double_eq_tol(d.bw_fraction, 128e6 / 15000e6, 1e-12);
	ck_assert_double_eq_tol(d.llc_to_core_bw_per_thread, 1.5e9, 1e-3);
	ck_assert_double_eq_tol(d.power_w, 35.0, 1e-12);
	ck_assert(isnan(d.mem_uops_fraction));

	r.mem_bytes_per_s = 1e9;	/* measured traffic is preferred */
	cosched_run_derive(&r, 0.0, &d);
	ck_assert_double_eq(cosched_derived_mem_bw(&d), 1e9);
	ck_assert_double_eq(cosched_derived_mem_bw_per_thread(&d), 5e8);
	ck_assert(isnan(d.bw_fraction));	/* node peak unknown */
}
END_TEST

START_TEST(test_merge_ewma)
{
	cosched_profile_t p;
	cosched_run_t a = mkrun(4e9, 2e9, 0, 10.0, 1);	/* IPC 2 */
	cosched_run_t b = mkrun(1e9, 1e9, 0, 10.0, 1);	/* IPC 1 */

	mp.weight = 0.25;
	ck_assert_int_eq(cosched_profile_init(&p, "app", &err), 0);
	ck_assert_int_eq(cosched_profile_add_run(&p, &a, &mp, &err), 0);
	ck_assert(cosched_profile_has_data(&p));
	ck_assert_double_eq(p.derived.ipc, 2.0);	/* first run taken as is */
	ck_assert(isnan(p.derived.mem_traffic_bw));
	b.mem_bytes_per_s = 4e9;
	ck_assert_int_eq(cosched_profile_add_run(&p, &b, &mp, &err), 0);
	ck_assert_double_eq_tol(p.derived.ipc, 0.25 * 1.0 + 0.75 * 2.0, 1e-12);
	/* first measurement of a counter is taken as is */
	ck_assert_double_eq(p.derived.mem_traffic_bw, 4e9);
	/* a later run without the counter keeps the old value */
	ck_assert_int_eq(cosched_profile_add_run(&p, &a, &mp, &err), 0);
	ck_assert_double_eq(p.derived.mem_traffic_bw, 4e9);
	ck_assert_int_eq(p.runs_merged, 3);
	ck_assert_int_eq(p.n_runs, 3);
	cosched_profile_free(&p);
}
END_TEST

START_TEST(test_add_run_refusals)
{
	cosched_profile_t p;
	cosched_run_t r = mkrun(1e9, 1e9, 0, 1.0, 1);
	ck_assert_int_eq(cosched_profile_init(&p, "app", &err), 0);

	r.cycles = 0;
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), -1);
	ck_assert_str_eq(err.msg, "run.cycles: expected a positive number, got 0");
	r = mkrun(1e9, 1e9, 0, 1.0, 0);
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "run.threads"));
	r = mkrun(1e9, 1e9, 0, 1.0, 1);
	r.mem_uops_fraction = 1.2;
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "mem_uops_fraction"));
	r.mem_uops_fraction = NAN;
	mp.weight = 0;
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "ProfileMergeWeight"));
	mp.weight = 0.5;
	mp.max_samples = 0;
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "ProfileMaxSamples"));
	ck_assert_int_eq(p.runs_merged, 0);	/* nothing merged */
	ck_assert_int_eq(p.n_runs, 0);
	cosched_profile_free(&p);
}
END_TEST

/* ProfileMinRuntime: a run shorter than the bound changes nothing and the
 * error names both; a run of exactly the bound goes in; 0 takes any run;
 * the bound out of its range is refused as ProfileMinRuntime. */
START_TEST(test_min_runtime)
{
	cosched_profile_t p;
	cosched_run_t r = mkrun(4e9, 2e9, 0, 0.25, 1);

	ck_assert_double_eq(mp.min_runtime_s, 1.0);	/* the default */
	ck_assert_int_eq(cosched_profile_init(&p, "app", &err), 0);
	ck_assert_int_eq(cosched_run_long_enough(&r, &mp, &err), -1);
	ck_assert_str_eq(err.msg, "ran 0.25 s, under ProfileMinRuntime=1 s");
	cosched_error_clear(&err);
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), -1);
	ck_assert_str_eq(err.msg, "ran 0.25 s, under ProfileMinRuntime=1 s");
	ck_assert_int_eq(p.runs_merged, 0);
	ck_assert_int_eq(p.n_edp, 0);
	ck_assert(isnan(p.derived.ipc));

	r.runtime_s = 1.0;
	ck_assert_int_eq(cosched_run_long_enough(&r, &mp, &err), 0);
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), 0);
	ck_assert_int_eq(p.runs_merged, 1);

	mp.min_runtime_s = 0.0;
	r.runtime_s = 0.001;
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), 0);
	ck_assert_int_eq(p.runs_merged, 2);

	mp.min_runtime_s = -1.0;
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), -1);
	ck_assert_msg(strstr(err.msg, "ProfileMinRuntime: value -1 out of range") ==
		      err.msg, "%s", err.msg);
	mp.min_runtime_s = NAN;
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "ProfileMinRuntime"));
	ck_assert_int_eq(p.runs_merged, 2);
	cosched_profile_free(&p);
}
END_TEST

/* A tiny positive cycle count passes the run check but gives IPC inf: the
 * run is refused naming the value and the metric, nothing is merged. */
START_TEST(test_non_finite_derived)
{
	cosched_profile_t p;
	cosched_run_t r = mkrun(1e9, 1e-320, 0, 1.0, 1);

	ck_assert_int_eq(cosched_profile_init(&p, "app", &err), 0);
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), -1);
	ck_assert_msg(strstr(err.msg, "run.cycles: ") == err.msg &&
		      strstr(err.msg, "gives ipc inf") != NULL, "%s", err.msg);
	ck_assert_int_eq(p.runs_merged, 0);
	ck_assert_int_eq(p.n_runs, 0);
	ck_assert(isnan(p.derived.ipc));

	/* tiny runtime: bandwidth inf (merged at any length) */
	mp.min_runtime_s = 0.0;
	r = mkrun(1e9, 1e9, 1e300, 1e-300, 1);
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), -1);
	ck_assert_msg(strstr(err.msg, "run.runtime_s: ") == err.msg &&
		      strstr(err.msg, "llc_miss_bw inf") != NULL, "%s", err.msg);

	/* tiny node peak: bandwidth fraction inf */
	r = mkrun(1e9, 1e9, 1e9, 1.0, 1);
	mp.node_peak_bw = 1e-320;
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), -1);
	ck_assert_msg(strstr(err.msg, "NodePeakBandwidth: ") == err.msg &&
		      strstr(err.msg, "bw_fraction inf") != NULL, "%s", err.msg);

	/* energies whose sum overflows */
	mp.node_peak_bw = 0;
	r.energy_pkg_j = 1.5e308;
	r.energy_dram_j = 1.5e308;
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), -1);
	ck_assert_msg(strstr(err.msg, "run.energy_pkg_j: ") == err.msg, "%s",
		      err.msg);
	ck_assert_int_eq(p.runs_merged, 0);
	cosched_profile_free(&p);
}
END_TEST

/* The writer names a non-finite value instead of claiming out of memory. */
START_TEST(test_json_not_finite)
{
	cosched_profile_t p;
	cosched_run_t r = mkrun(1e9, 1e9, 0, 1.0, 1);
	char *text;

	ck_assert_int_eq(cosched_profile_init(&p, "app", &err), 0);
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), 0);
	p.derived.ipc = INFINITY;
	text = cosched_profile_to_json(&p, &err);
	ck_assert_ptr_null(text);
	ck_assert_msg(strstr(err.msg, "derived.ipc: not finite") != NULL, "%s",
		      err.msg);
	p.derived.ipc = 1.0;
	p.runs[0].energy_pkg_j = -INFINITY;
	ck_assert_ptr_null(cosched_profile_to_json(&p, &err));
	ck_assert_msg(strstr(err.msg, "runs[0].energy_pkg_j: not finite") != NULL,
		      "%s", err.msg);
	p.runs[0].energy_pkg_j = NAN;
	p.edp[0].time_s = INFINITY;
	ck_assert_ptr_null(cosched_profile_to_json(&p, &err));
	ck_assert_msg(strstr(err.msg, "edp[0].time_s: not finite") != NULL,
		      "%s", err.msg);
	cosched_profile_free(&p);
}
END_TEST

START_TEST(test_sample_bound)
{
	cosched_profile_t p;

	mp.max_samples = 3;
	ck_assert_int_eq(cosched_profile_init(&p, "app", &err), 0);
	for (int i = 1; i <= 10; i++) {
		cosched_run_t r = mkrun(1e9, 1e9, 0, (double) i, 1);
		ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), 0);
		ck_assert_int_le(p.n_runs, 3);
	}
	ck_assert_int_eq(p.runs_merged, 10);
	ck_assert_int_eq(p.n_runs, 3);
	/* the newest are kept, oldest first */
	ck_assert_double_eq(p.runs[0].runtime_s, 8.0);
	ck_assert_double_eq(p.runs[2].runtime_s, 10.0);
	/* a shrunk bound trims on the next merge */
	mp.max_samples = 1;
	{
		cosched_run_t r = mkrun(1e9, 1e9, 0, 11.0, 1);
		ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), 0);
	}
	ck_assert_int_eq(p.n_runs, 1);
	ck_assert_double_eq(p.runs[0].runtime_s, 11.0);
	cosched_profile_free(&p);
}
END_TEST

/* The 2013 gang-scheduling thesis, "Threads vs EDP": ft.B on 1..8 cores. */
static const double ftb_time[8] = { 80.8083, 44.2010, 32.8540, 28.4949,
				    23.9559, 21.1219, 20.0673, 21.0738 };
static const double ftb_energy[8] = { 2352.26, 1528.45, 1301.77, 1241.17,
				      1144.55, 1088.20, 1110.99, 1226.19 };
static const double ftb_edp[8] = { 190082.3, 67559.2, 42768.5, 35367.1,
				   27418.8, 22984.9, 22294.6, 25840.6 };

static void add_ftb(cosched_profile_t *p)
{
	ck_assert_int_eq(cosched_profile_init(p, "ft.B", &err), 0);
	for (int i = 7; i >= 0; i--) {	/* any order: points are sorted */
		cosched_run_t r = mkrun(1e11, 5e10, 1e8, ftb_time[i], i + 1);
		r.energy_pkg_j = ftb_energy[i];	/* DRAM included in the figure */
		ck_assert_int_eq(cosched_profile_add_run(p, &r, &mp, &err), 0);
	}
}

START_TEST(test_edp_points_ftb)
{
	cosched_profile_t p;
	int best = 0;

	add_ftb(&p);
	ck_assert_int_eq(p.n_edp, 8);
	for (int i = 0; i < 8; i++) {
		const cosched_edp_point_t *e = &p.edp[i];
		ck_assert_int_eq(e->threads, i + 1);
		ck_assert_int_eq(e->freq_khz, 2200000);
		ck_assert_double_eq(e->time_s, ftb_time[i]);
		ck_assert_double_eq(e->energy_j, ftb_energy[i]);
		/* the thesis's EDP column: unrounded time x energy */
		ck_assert_double_eq_tol(e->energy_j * e->time_s, ftb_edp[i], 0.2);
	}
	/* Minimum at 7 (the 2013 gang-scheduling thesis), as the power choice
	 * reads them */
	ck_assert_msg(cosched_power_best_threads(p.edp, (size_t) p.n_edp, 0.0,
						 &best, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(best, 7);
	ck_assert_ptr_eq(cosched_profile_edp_find(&p, 7, 2200000), &p.edp[6]);
	ck_assert_ptr_null(cosched_profile_edp_find(&p, 7, 1500000));

	/* a repeated point is averaged (EWMA), not duplicated */
	{
		cosched_run_t r = mkrun(1e11, 5e10, 1e8, 30.0, 4);
		r.energy_pkg_j = 1300.0;
		r.energy_dram_j = 100.0;
		mp.weight = 0.5;
		ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), 0);
	}
	ck_assert_int_eq(p.n_edp, 8);
	ck_assert_double_eq_tol(p.edp[3].time_s, (28.4949 + 30.0) / 2, 1e-9);
	ck_assert_double_eq_tol(p.edp[3].energy_j, (1241.17 + 1400.0) / 2, 1e-9);
	ck_assert_int_eq(p.edp[3].samples, 2);
	cosched_profile_free(&p);
}
END_TEST

START_TEST(test_counterless_json)
{
	/* Version 3 holds a run without counters and the note; versions 1
	 * and 2 never do, so such a file saying version 2 is refused. */
	static const char *v2 =
		"{\"schema_version\": 2, \"app\": \"x\", \"runs_merged\": 1,"
		" \"derived\": {}, \"edp\": [], \"runs\": [{\"runtime_s\": 1,"
		" \"threads\": 1}]}";
	static const char *note_v2 =
		"{\"schema_version\": 2, \"app\": \"x\", \"runs_merged\": 0,"
		" \"derived\": {}, \"edp\": [], \"runs\": [],"
		" \"counters\": \"unavailable: x\"}";
	static const char *bad_note =
		"{\"schema_version\": 3, \"app\": \"x\", \"runs_merged\": 0,"
		" \"derived\": {}, \"edp\": [], \"runs\": [],"
		" \"counters\": \"line\\nbreak\"}";
	cosched_profile_t p, q;
	cosched_run_t r = mkrun(NAN, NAN, NAN, 4.0, 2);
	char *text;

	ck_assert_int_eq(cosched_profile_init(&p, "vm", &err), 0);
	r.energy_pkg_j = 40.0;
	ck_assert_msg(cosched_profile_add_run(&p, &r, &mp, &err) == 0, "%s",
		      err.msg);
	strcpy(p.counters, "unavailable: no PMU");
	text = cosched_profile_to_json(&p, &err);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text, "\"schema_version\": 3"));
	ck_assert_msg(cosched_profile_from_json(&q, text, &err) == 0, "%s",
		      err.msg);
	ck_assert_str_eq(q.counters, "unavailable: no PMU");
	ck_assert_int_eq(q.n_runs, 1);
	ck_assert(!cosched_run_counted(&q.runs[0]));
	ck_assert_double_eq(q.runs[0].runtime_s, 4.0);
	ck_assert(!cosched_profile_has_data(&q));
	cosched_profile_free(&q);
	free(text);
	cosched_profile_free(&p);

	ck_assert_int_eq(cosched_profile_from_json(&q, v2, &err), -1);
	ck_assert_msg(strstr(err.msg, "runs[0]: no counter values, which schema version 2 does not allow (version 3 does)"),
		      "%s", err.msg);
	ck_assert_int_eq(cosched_profile_from_json(&q, note_v2, &err), -1);
	ck_assert_msg(strstr(err.msg, "counters"), "%s", err.msg);
	ck_assert_int_eq(cosched_profile_from_json(&q, bad_note, &err), -1);
	ck_assert_msg(strstr(err.msg, "counters: expected a note of 1 to 200 printable characters"),
		      "%s", err.msg);
}
END_TEST

START_TEST(test_json_roundtrip)
{
	cosched_profile_t p, q;
	cosched_run_t r;
	char *text, *text2;
	json_t *root;

	add_ftb(&p);
	r = mkrun(1e11, 5e10, 1e8, 25.0, 3);
	r.mem_bytes_per_s = 2.5e9;
	r.mem_uops_fraction = 0.3;
	r.freq_khz = 0;
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), 0);
	text = cosched_profile_to_json(&p, &err);
	ck_assert_ptr_nonnull(text);
	root = json_loads(text, 0, NULL);
	/* Counted runs only: the lowest version that holds it, 2. */
	ck_assert_int_eq(json_integer_value(json_object_get(root, "schema_version")),
			 2);
	/* unmeasured values are absent in runs, null in derived */
	ck_assert_ptr_null(json_object_get(json_array_get(json_object_get(root, "runs"), 0),
					   "mem_bytes_per_s"));
	ck_assert(json_is_null(json_object_get(json_object_get(root, "derived"),
					       "llc_to_core_bw")));
	json_decref(root);

	ck_assert_msg(cosched_profile_from_json(&q, text, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(q.app, "ft.B");
	ck_assert_int_eq(q.runs_merged, p.runs_merged);
	ck_assert_int_eq(q.n_runs, p.n_runs);
	ck_assert_int_eq(q.n_edp, p.n_edp);
	for (int i = 0; i < p.n_runs; i++) {
		ck_assert(same(q.runs[i].instructions, p.runs[i].instructions));
		ck_assert(same(q.runs[i].mem_bytes_per_s, p.runs[i].mem_bytes_per_s));
		ck_assert(same(q.runs[i].mem_uops_fraction, p.runs[i].mem_uops_fraction));
		ck_assert(same(q.runs[i].energy_pkg_j, p.runs[i].energy_pkg_j));
		ck_assert(same(q.runs[i].energy_dram_j, p.runs[i].energy_dram_j));
		ck_assert_int_eq(q.runs[i].threads, p.runs[i].threads);
		ck_assert_int_eq(q.runs[i].freq_khz, p.runs[i].freq_khz);
	}
	ck_assert(same(q.derived.ipc, p.derived.ipc));
	ck_assert(same(q.derived.mem_traffic_bw, p.derived.mem_traffic_bw));
	ck_assert(same(q.derived.llc_to_core_bw, p.derived.llc_to_core_bw));
	ck_assert(same(q.derived.bw_fraction, p.derived.bw_fraction));
	for (int i = 0; i < p.n_edp; i++) {
		ck_assert_int_eq(q.edp[i].threads, p.edp[i].threads);
		ck_assert(same(q.edp[i].energy_j, p.edp[i].energy_j));
	}
	/* serialising again gives the same text */
	text2 = cosched_profile_to_json(&q, &err);
	ck_assert_str_eq(text, text2);
	free(text);
	free(text2);
	cosched_profile_free(&p);
	cosched_profile_free(&q);
}
END_TEST

/* A valid profile as a json_t: 3 runs, 2 EDP points. */
static json_t *valid_json(void)
{
	cosched_profile_t p;
	char *text;
	json_t *root;

	ck_assert_int_eq(cosched_profile_init(&p, "stream", &err), 0);
	for (int i = 0; i < 3; i++) {
		cosched_run_t r = mkrun(1e9, 1e9, 1e6, 10.0, 1 + (i == 2));
		ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), 0);
	}
	text = cosched_profile_to_json(&p, &err);
	root = json_loads(text, 0, NULL);
	free(text);
	cosched_profile_free(&p);
	return root;
}

static json_t *at(json_t *root, const char *arr, int i)
{
	return json_array_get(json_object_get(root, arr), i);
}

/* Every malformed field is refused with its name and the problem, and the
 * output profile is not touched. */
START_TEST(test_malformed)
{
	static const struct {
		const char *where;	/* "runs", "edp", "derived" or "" (root) */
		int index;
		const char *key;	/* NULL: replace the element itself */
		const char *value;	/* JSON text; NULL: delete the key */
		const char *msg;	/* expected message (substring) */
	} bad[] = {
		{ "runs", 2, "instructions", "\"abc\"",
		  "runs[2].instructions: expected a non-negative number or null, got \"abc\"" },
		{ "runs", 0, "instructions", "-1",
		  "runs[0].instructions: expected a non-negative number or null, got -1" },
		{ "runs", 1, "cycles", "0",
		  "runs[1].cycles: expected a positive number or null, got 0" },
		{ "runs", 0, "llc_misses", NULL,
		  "runs[0]: instructions, cycles and llc_misses: all three or none (a run without counters), got 2 of them" },
		{ "runs", 0, "mem_bytes_per_s", "\"x\"",
		  "runs[0].mem_bytes_per_s: expected a non-negative number or null, got \"x\"" },
		{ "runs", 0, "llc_to_core_bytes_per_s", "true",
		  "runs[0].llc_to_core_bytes_per_s: expected a non-negative number or null, got true" },
		{ "runs", 0, "mem_uops_fraction", "1.5",
		  "runs[0].mem_uops_fraction: expected a number from 0 to 1 or null, got 1.5" },
		{ "runs", 0, "energy_pkg_j", "-3.5",
		  "runs[0].energy_pkg_j: expected a non-negative number or null, got -3.5" },
		{ "runs", 0, "energy_cores_j", "[]",
		  "runs[0].energy_cores_j: expected a non-negative number or null, got an array" },
		{ "runs", 0, "energy_dram_j", "{}",
		  "runs[0].energy_dram_j: expected a non-negative number or null, got an object" },
		{ "runs", 1, "runtime_s", NULL,
		  "runs[1].runtime_s: expected a positive number, got nothing (field missing)" },
		{ "runs", 0, "threads", "0",
		  "runs[0].threads: expected an integer from 1 to 1048576, got 0" },
		{ "runs", 0, "threads", "2.5",
		  "runs[0].threads: expected an integer from 1 to 1048576, got 2.5" },
		{ "runs", 0, "freq_khz", "-1",
		  "runs[0].freq_khz: expected an integer from 0 to 100000000, got -1" },
		{ "runs", 0, "bogus", "1", "runs[0]: unknown field \"bogus\"" },
		{ "runs", 1, NULL, "5", "runs[1]: expected an object, got 5" },
		{ "", 0, "runs", "{}", "runs: expected an array, got an object" },
		{ "", 0, "edp", NULL, "edp: expected an array, got nothing (field missing)" },
		{ "edp", 0, "time_s", "0", "edp[0].time_s: expected a positive number, got 0" },
		{ "edp", 1, "threads", "1", "edp[1]: duplicate point (threads 1, freq_khz 2200000)" },
		{ "edp", 0, "samples", "0", "edp[0].samples: expected an integer from 1" },
		{ "derived", 0, "ipc", "\"fast\"",
		  "derived.ipc: expected a non-negative number or null, got \"fast\"" },
		{ "derived", 0, "extra", "1", "derived: unknown field \"extra\"" },
		{ "", 0, "derived", "[1]", "derived: expected an object, got an array" },
		{ "", 0, "schema_version", NULL, "schema_version: expected an integer, got nothing" },
		{ "", 0, "schema_version", "\"1\"", "schema_version: expected an integer, got \"1\"" },
		{ "", 0, "schema_version", "5", "schema_version: unsupported version 5 (this cosched reads versions 1 to 4)" },
		{ "", 0, "app", "\"../etc\"", "app: invalid application name \"../etc\"" },
		{ "", 0, "app", "\"a/b\"", "character '/'" },
		{ "", 0, "app", "7", "app: expected a string, got 7" },
		{ "", 0, "runs_merged", "2", "runs_merged: 2 is less than the 3 runs kept" },
		{ "", 0, "runs_merged", "-2", "runs_merged: expected an integer from 0" },
		{ "", 0, "foo", "1", "(top level): unknown field \"foo\"" },
	};
	cosched_profile_t out, before;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *root = valid_json(), *obj;
		char *text;

		if (!*bad[i].where)
			obj = root;
		else if (!strcmp(bad[i].where, "derived"))
			obj = json_object_get(root, "derived");
		else
			obj = at(root, bad[i].where, bad[i].index);
		ck_assert_ptr_nonnull(obj);
		if (!bad[i].key) {
			json_array_set_new(json_object_get(root, bad[i].where),
					   bad[i].index,
					   json_loads(bad[i].value, JSON_DECODE_ANY, NULL));
		} else if (!bad[i].value) {
			json_object_del(obj, bad[i].key);
		} else {
			json_t *v = json_loads(bad[i].value, JSON_DECODE_ANY, NULL);
			ck_assert_ptr_nonnull(v);
			json_object_set_new(obj, bad[i].key, v);
		}
		text = json_dumps(root, 0);
		memset(&out, 0x5a, sizeof(out));
		before = out;
		cosched_error_clear(&err);
		ck_assert_msg(cosched_profile_from_json(&out, text, &err) == -1,
			      "case %zu accepted: %s", i, text);
		ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL,
			      "case %zu: \"%s\" lacks \"%s\"", i, err.msg, bad[i].msg);
		ck_assert_msg(!memcmp(&out, &before, sizeof(out)),
			      "case %zu: half-loaded", i);
		free(text);
		json_decref(root);
	}
}
END_TEST

START_TEST(test_malformed_text)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "{", "invalid JSON" },
		{ "", "invalid JSON" },
		{ "[1, 2]", "(top level): expected an object, got an array" },
		{ "{\"schema_version\": 1, \"schema_version\": 1}", "invalid JSON" },
	};
	cosched_profile_t out;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_error_clear(&err);
		ck_assert_int_eq(cosched_profile_from_json(&out, bad[i].text, &err), -1);
		ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL, "\"%s\"", err.msg);
	}
	/* a minimal hand-written profile is accepted */
	ck_assert_msg(cosched_profile_from_json(&out,
		"{\"schema_version\": 1, \"app\": \"x\", \"runs_merged\": 1,"
		" \"derived\": {\"ipc\": 1, \"mpki\": 0.5},"
		" \"edp\": [], \"runs\": [{\"instructions\": 10, \"cycles\": 10,"
		" \"llc_misses\": 0, \"runtime_s\": 1, \"threads\": 1}]}", &err) == 0,
		"%s", err.msg);
	ck_assert(cosched_profile_has_data(&out));
	ck_assert(isnan(out.derived.mem_traffic_bw));
	ck_assert(isnan(out.runs[0].energy_pkg_j));
	ck_assert_int_eq(out.runs[0].freq_khz, 0);
	cosched_profile_free(&out);
}
END_TEST

/* A profile whose counts are given: runs_merged and the samples of one
 * EDP point (2 threads at 2.2 GHz, where mkrun(..., 2) lands); no raw runs
 * kept.  Caller frees. */
static char *counted_profile(const char *runs_merged, const char *samples)
{
	char *text;
	ck_assert_int_ge(asprintf(&text,
		"{\"schema_version\": 1, \"app\": \"count\", \"runs_merged\": %s,"
		" \"derived\": {\"ipc\": 2, \"mpki\": 1},"
		" \"edp\": [{\"threads\": 2, \"freq_khz\": 2200000, \"time_s\": 10,"
		" \"energy_j\": null, \"samples\": %s}], \"runs\": []}",
		runs_merged, samples), 0);
	return text;
}

/* The count a profile's JSON holds at key (top level, or edp[0]). */
static json_int_t json_count(const char *text, bool edp, const char *key)
{
	json_t *root = json_loads(text, 0, NULL), *o;
	json_int_t v;

	ck_assert_ptr_nonnull(root);
	o = edp ? json_array_get(json_object_get(root, "edp"), 0) : root;
	ck_assert(json_is_integer(json_object_get(o, key)));
	v = json_integer_value(json_object_get(o, key));
	json_decref(root);
	return v;
}

/*
 * Counts saturate at COSCHED_PROFILE_COUNT_MAX (2^53 - 1, the largest
 * integer every JSON reader holds exactly): a profile loaded at the
 * maximum and merged once more stays there, is written, reads back and
 * merges again.  One below the maximum still counts up.
 */
START_TEST(test_counts_saturate)
{
	const unsigned long long max = COSCHED_PROFILE_COUNT_MAX;
	char at[32], below[32], *text;
	cosched_profile_t p, q;
	cosched_run_t r = mkrun(2e9, 1e9, 1e6, 10.0, 2);

	ck_assert_uint_eq(max, (1ULL << 53) - 1);
	snprintf(at, sizeof(at), "%llu", max);
	snprintf(below, sizeof(below), "%llu", max - 1);
	text = counted_profile(at, at);
	ck_assert_msg(cosched_profile_from_json(&p, text, &err) == 0, "%s", err.msg);
	free(text);
	ck_assert_uint_eq(p.runs_merged, max);
	ck_assert_int_eq(p.n_edp, 1);
	ck_assert_uint_eq(p.edp[0].samples, max);

	ck_assert_msg(cosched_profile_add_run(&p, &r, &mp, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(p.runs_merged, max);
	ck_assert_uint_eq(p.edp[0].samples, max);
	ck_assert_int_eq(p.n_runs, 1);
	text = cosched_profile_to_json(&p, &err);
	ck_assert_msg(text != NULL, "%s", err.msg);
	ck_assert_int_eq(json_count(text, false, "runs_merged"), (json_int_t) max);
	ck_assert_int_eq(json_count(text, true, "samples"), (json_int_t) max);
	ck_assert_msg(cosched_profile_from_json(&q, text, &err) == 0, "%s", err.msg);
	free(text);
	ck_assert_uint_eq(q.runs_merged, max);
	ck_assert_uint_eq(q.edp[0].samples, max);
	ck_assert_int_eq(cosched_profile_add_run(&q, &r, &mp, &err), 0);
	ck_assert_uint_eq(q.runs_merged, max);
	cosched_profile_free(&p);
	cosched_profile_free(&q);

	text = counted_profile(below, below);
	ck_assert_int_eq(cosched_profile_from_json(&p, text, &err), 0);
	free(text);
	ck_assert_int_eq(cosched_profile_add_run(&p, &r, &mp, &err), 0);
	ck_assert_uint_eq(p.runs_merged, max);
	ck_assert_uint_eq(p.edp[0].samples, max);
	cosched_profile_free(&p);
}
END_TEST

/* Larger counts are refused naming the field, up to what a 64-bit
 * integer holds (2^63 - 1, which merged once would have wrapped negative)
 * and beyond it. */
START_TEST(test_counts_too_large)
{
	static const struct { const char *runs, *samples, *msg; } bad[] = {
		{ "9007199254740992", "1",
		  "runs_merged: expected an integer from 0 to 9007199254740991, got 9007199254740992" },
		{ "9223372036854775807", "1",
		  "runs_merged: expected an integer from 0 to 9007199254740991, got 9223372036854775807" },
		{ "1", "9007199254740992",
		  "edp[0].samples: expected an integer from 1 to 9007199254740991, got 9007199254740992" },
		{ "1", "9223372036854775807",
		  "edp[0].samples: expected an integer from 1 to 9007199254740991, got 9223372036854775807" },
		{ "18446744073709551615", "1", "invalid JSON" },
		{ "1", "-9223372036854775808", "edp[0].samples: expected an integer from 1" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *text = counted_profile(bad[i].runs, bad[i].samples);
		cosched_profile_t p;

		cosched_error_clear(&err);
		ck_assert_msg(cosched_profile_from_json(&p, text, &err) == -1,
			      "accepted: %s", text);
		ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL,
			      "\"%s\" lacks \"%s\"", err.msg, bad[i].msg);
		free(text);
	}
}
END_TEST

START_TEST(test_copy)
{
	cosched_profile_t p, q;
	add_ftb(&p);
	ck_assert_int_eq(cosched_profile_copy(&q, &p, &err), 0);
	ck_assert_ptr_ne(q.runs, p.runs);
	ck_assert_ptr_ne(q.edp, p.edp);
	ck_assert_int_eq(q.n_edp, 8);
	cosched_profile_free(&p);
	ck_assert_double_eq(q.edp[6].time_s, 20.0673);
	cosched_profile_free(&q);
}
END_TEST

/* Schema version 2: a characterisation by co-run round-trips, a version 1
 * file (no characterisation) still reads, and a bad characterisation is
 * refused naming its field. */
static cosched_corun_t mkcorun(void)
{
	cosched_corun_t c;
	cosched_corun_init(&c);
	c.present = true;
	c.cat = COSCHED_CAT_MEM;
	c.lca = COSCHED_LCA_L;
	c.alone_s = 0.41;
	for (int k = 0; k < COSCHED_CAT_COUNT; k++) {
		c.victim[k] = 1.0 + 0.1 * k;
		c.aggressor[k] = 1.05 + 0.1 * k;
	}
	c.mem_mem = 1.3;
	c.repeats = 3;
	c.time = 1700000000;
	snprintf(c.host, sizeof(c.host), "n1");
	return c;
}

START_TEST(test_characterisation_json)
{
	cosched_profile_t p, q;
	char *text, *bad;

	ck_assert_int_eq(cosched_profile_init(&p, "stream", &err), 0);
	ck_assert(!cosched_profile_has_class(&p));
	p.corun = mkcorun();
	ck_assert(cosched_profile_has_class(&p));
	ck_assert(!cosched_profile_has_data(&p));
	text = cosched_profile_to_json(&p, &err);
	ck_assert_msg(text != NULL, "%s", err.msg);
	ck_assert_ptr_nonnull(strstr(text, "\"method\": \"co-run\""));
	ck_assert_ptr_nonnull(strstr(text, "\"schema_version\": 2"));
	ck_assert_msg(!cosched_profile_from_json(&q, text, &err), "%s", err.msg);
	ck_assert(q.corun.present);
	ck_assert_int_eq(q.corun.cat, COSCHED_CAT_MEM);
	ck_assert_int_eq(q.corun.lca, COSCHED_LCA_L);
	for (int k = 0; k < COSCHED_CAT_COUNT; k++) {
		ck_assert(q.corun.victim[k] == p.corun.victim[k]);
		ck_assert(q.corun.aggressor[k] == p.corun.aggressor[k]);
	}
	ck_assert_str_eq(q.corun.host, "n1");
	cosched_profile_free(&q);

	/* a version 1 file has no characterisation, and may not have one */
	ck_assert_int_eq(cosched_profile_from_json(&q,
		"{\"schema_version\": 1, \"app\": \"x\", \"runs_merged\": 0,"
		" \"derived\": {}, \"edp\": [], \"runs\": []}", &err), 0);
	ck_assert(!q.corun.present);
	cosched_profile_free(&q);
	bad = strdup(text);
	memcpy(strstr(bad, "\"schema_version\": 2"), "\"schema_version\": 1", 19);
	ck_assert_int_eq(cosched_profile_from_json(&q, bad, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown field \"characterisation\""));
	free(bad);

	/* a slowdown out of range, an unknown method */
	bad = strdup(text);
	memcpy(strstr(bad, "\"repeats\": 3"), "\"repeats\": 2", 12);
	ck_assert_int_eq(cosched_profile_from_json(&q, bad, &err), -1);
	ck_assert_msg(strstr(err.msg, "characterisation.repeats"), "%s", err.msg);
	free(bad);
	bad = strdup(text);
	memcpy(strstr(bad, "co-run"), "co-ran", 6);
	ck_assert_int_eq(cosched_profile_from_json(&q, bad, &err), -1);
	ck_assert_msg(strstr(err.msg, "characterisation.method"), "%s", err.msg);
	free(bad);
	free(text);
	cosched_profile_free(&p);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("profile");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_names_refused);
	tcase_add_test(tc, test_derive);
	tcase_add_test(tc, test_merge_ewma);
	tcase_add_test(tc, test_add_run_refusals);
	tcase_add_test(tc, test_min_runtime);
	tcase_add_test(tc, test_non_finite_derived);
	tcase_add_test(tc, test_json_not_finite);
	tcase_add_test(tc, test_sample_bound);
	tcase_add_test(tc, test_edp_points_ftb);
	tcase_add_test(tc, test_json_roundtrip);
	tcase_add_test(tc, test_counterless_json);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_malformed_text);
	tcase_add_test(tc, test_copy);
	tcase_add_test(tc, test_counts_saturate);
	tcase_add_test(tc, test_counts_too_large);
	tcase_add_test(tc, test_characterisation_json);
	suite_add_tcase(s, tc);
	return s;
}
