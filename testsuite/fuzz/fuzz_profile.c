/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_profile.c - libFuzzer target of the profile JSON loader
 * (src/libcosched/store/profile_json.c): cosched_profile_from_json().
 *
 * The input is the text of a profile file (a NUL ends it).
 *
 * Invariants (a violation aborts):
 *   - on failure the profile is untouched and the message is written,
 *     terminated inside its buffer, not empty and free of control
 *     characters;
 *   - on success the profile is valid (application name, counts at most
 *     COSCHED_PROFILE_COUNT_MAX, no more runs kept than merged, every run
 *     passes cosched_run_check(), EDP points strictly sorted with 1 or more
 *     samples), cosched_profile_to_json() writes it and
 *     cosched_profile_from_json() reads that back as an equal profile
 *     (every field; NAN equals NAN);
 *   - merging one valid run (cosched_profile_add_run() with the default
 *     parameters) succeeds, counts on (saturating), keeps a valid profile,
 *     and the result is written and read back equal too.
 */
#include <math.h>
#include <stdbool.h>

#include "fuzz_common.h"
#include "src/libcosched/model/profile.h"
#include "src/libcosched/store/profile_json.h"

static bool same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static bool runs_equal(const cosched_run_t *a, const cosched_run_t *b)
{
	return same_double(a->instructions, b->instructions) &&
	       same_double(a->cycles, b->cycles) &&
	       same_double(a->llc_misses, b->llc_misses) &&
	       same_double(a->mem_bytes_per_s, b->mem_bytes_per_s) &&
	       same_double(a->llc_to_core_bytes_per_s,
			   b->llc_to_core_bytes_per_s) &&
	       same_double(a->mem_uops_fraction, b->mem_uops_fraction) &&
	       same_double(a->energy_pkg_j, b->energy_pkg_j) &&
	       same_double(a->energy_cores_j, b->energy_cores_j) &&
	       same_double(a->energy_dram_j, b->energy_dram_j) &&
	       same_double(a->runtime_s, b->runtime_s) &&
	       a->threads == b->threads && a->freq_khz == b->freq_khz;
}

static bool derived_equal(const cosched_derived_t *a,
			  const cosched_derived_t *b)
{
	return same_double(a->ipc, b->ipc) && same_double(a->mpki, b->mpki) &&
	       same_double(a->llc_miss_bw, b->llc_miss_bw) &&
	       same_double(a->mem_traffic_bw, b->mem_traffic_bw) &&
	       same_double(a->llc_to_core_bw, b->llc_to_core_bw) &&
	       same_double(a->llc_miss_bw_per_thread,
			   b->llc_miss_bw_per_thread) &&
	       same_double(a->mem_traffic_bw_per_thread,
			   b->mem_traffic_bw_per_thread) &&
	       same_double(a->llc_to_core_bw_per_thread,
			   b->llc_to_core_bw_per_thread) &&
	       same_double(a->mem_uops_fraction, b->mem_uops_fraction) &&
	       same_double(a->bw_fraction, b->bw_fraction) &&
	       same_double(a->threads, b->threads) &&
	       same_double(a->power_w, b->power_w);
}

static bool edp_equal(const cosched_edp_point_t *a,
		      const cosched_edp_point_t *b)
{
	return a->threads == b->threads && a->freq_khz == b->freq_khz &&
	       same_double(a->time_s, b->time_s) &&
	       same_double(a->energy_j, b->energy_j) &&
	       a->samples == b->samples;
}

static bool profiles_equal(const cosched_profile_t *a,
			   const cosched_profile_t *b)
{
	if (strcmp(a->app, b->app) || a->runs_merged != b->runs_merged ||
	    !derived_equal(&a->derived, &b->derived) ||
	    a->n_runs != b->n_runs || a->n_edp != b->n_edp)
		return false;
	for (int i = 0; i < a->n_runs; i++)
		if (!runs_equal(&a->runs[i], &b->runs[i]))
			return false;
	for (int i = 0; i < a->n_edp; i++)
		if (!edp_equal(&a->edp[i], &b->edp[i]))
			return false;
	return true;
}

static void check_valid(const cosched_profile_t *p)
{
	cosched_error_t err;

	FUZZ_CHECK(memchr(p->app, '\0', sizeof(p->app)) != NULL,
		   "application name not terminated", NULL);
	fuzz_error_poison(&err);
	FUZZ_CHECK(!cosched_app_name_check("app", p->app, &err),
		   "profile's application name fails cosched_app_name_check",
		   p->app);
	FUZZ_CHECK(p->runs_merged <= COSCHED_PROFILE_COUNT_MAX,
		   "runs_merged above COSCHED_PROFILE_COUNT_MAX", NULL);
	FUZZ_CHECK(p->n_runs >= 0 &&
		   p->n_runs <= COSCHED_PROFILE_MAX_SAMPLES_LIMIT,
		   "kept runs out of range", NULL);
	FUZZ_CHECK((unsigned long) p->n_runs <= p->runs_merged,
		   "more runs kept than merged", NULL);
	FUZZ_CHECK(p->n_runs == 0 || p->runs, "runs missing", NULL);
	for (int i = 0; i < p->n_runs; i++) {
		fuzz_error_poison(&err);
		FUZZ_CHECK(!cosched_run_check("runs[i]", &p->runs[i], &err),
			   "a kept run fails cosched_run_check",
			   memchr(err.msg, '\0', sizeof(err.msg)) ? err.msg : NULL);
	}
	FUZZ_CHECK(p->n_edp >= 0 && p->n_edp <= COSCHED_PROFILE_MAX_EDP_POINTS,
		   "EDP points out of range", NULL);
	FUZZ_CHECK(p->n_edp == 0 || p->edp, "EDP points missing", NULL);
	for (int i = 0; i < p->n_edp; i++) {
		const cosched_edp_point_t *e = &p->edp[i];
		FUZZ_CHECK(e->samples >= 1 &&
			   e->samples <= COSCHED_PROFILE_COUNT_MAX,
			   "EDP samples out of range", NULL);
		FUZZ_CHECK(e->threads >= 1 && e->freq_khz >= 0,
			   "EDP point's threads or frequency out of range",
			   NULL);
		FUZZ_CHECK(isfinite(e->time_s) && e->time_s > 0.0,
			   "EDP time not positive and finite", NULL);
		FUZZ_CHECK(isnan(e->energy_j) ||
			   (isfinite(e->energy_j) && e->energy_j >= 0.0),
			   "EDP energy negative or infinite", NULL);
		if (i > 0)
			FUZZ_CHECK(e[-1].threads < e->threads ||
				   (e[-1].threads == e->threads &&
				    e[-1].freq_khz < e->freq_khz),
				   "EDP points not strictly sorted", NULL);
	}
}

/* Write p, read it back, and compare. */
static void check_round_trip(const cosched_profile_t *p, const char *when)
{
	cosched_profile_t q;
	cosched_error_t err;
	char *json;

	fuzz_error_poison(&err);
	json = cosched_profile_to_json(p, &err);
	FUZZ_CHECK(json != NULL, when,
		   memchr(err.msg, '\0', sizeof(err.msg)) ? err.msg : NULL);
	fuzz_error_poison(&err);
	FUZZ_CHECK(!cosched_profile_from_json(&q, json, &err), when,
		   memchr(err.msg, '\0', sizeof(err.msg)) ? err.msg : NULL);
	FUZZ_CHECK(profiles_equal(p, &q), when, json);
	check_valid(&q);
	cosched_profile_free(&q);
	free(json);
}

/* A valid run: sane counters, or (when at is given) one at that EDP
 * point's threads and frequency, with the edge values every field
 * allows. */
static void valid_run(cosched_run_t *r, unsigned pick,
		      const cosched_edp_point_t *at)
{
	cosched_run_init(r);
	r->instructions = 4e9;
	r->cycles = 2e9;
	r->llc_misses = 3e6;
	r->runtime_s = 1.5;
	r->threads = 4;
	r->freq_khz = 2400000;
	switch (pick % 3) {
	case 0:
		r->mem_bytes_per_s = 1.2e10;
		r->energy_pkg_j = 80.0;
		r->energy_dram_j = 12.0;
		break;
	case 1:	/* no optional counter, frequency unknown */
		r->freq_khz = 0;
		r->threads = 1;
		break;
	default:	/* the edges */
		r->instructions = 0.0;
		r->llc_misses = 0.0;
		r->mem_uops_fraction = 1.0;
		r->llc_to_core_bytes_per_s = 0.0;
		r->energy_pkg_j = 0.0;
		r->energy_cores_j = 0.0;
		break;
	}
	if (at) {
		r->threads = at->threads;
		r->freq_khz = at->freq_khz;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strdup(data, size);
	cosched_profile_t p, before;
	cosched_merge_params_t mp;
	cosched_run_t run;
	cosched_error_t err;
	unsigned long merged;
	int rc, n_runs;

	memset(&p, 0x5a, sizeof(p));
	memcpy(&before, &p, sizeof(p));
	fuzz_error_poison(&err);
	rc = cosched_profile_from_json(&p, text, &err);
	FUZZ_CHECK(rc == 0 || rc == -1,
		   "cosched_profile_from_json returns 0 or -1", NULL);
	if (rc) {
		FUZZ_CHECK(!memcmp(&before, &p, sizeof(p)),
			   "cosched_profile_from_json touched the profile on failure",
			   err.msg);
		fuzz_check_error(&err);
		free(text);
		return 0;
	}
	check_valid(&p);
	check_round_trip(&p, "a loaded profile does not write and read back equal");

	/* Merge one valid run: at an existing EDP point or a new one. */
	cosched_merge_params_default(&mp);
	valid_run(&run, (unsigned) size,
		  p.n_edp && size % 2 ? &p.edp[size % (size_t) p.n_edp] : NULL);
	merged = p.runs_merged;
	n_runs = p.n_runs;
	fuzz_error_poison(&err);
	FUZZ_CHECK(!cosched_profile_add_run(&p, &run, &mp, &err),
		   "merging a valid run into a loaded profile fails",
		   memchr(err.msg, '\0', sizeof(err.msg)) ? err.msg : NULL);
	FUZZ_CHECK(p.runs_merged == (merged < COSCHED_PROFILE_COUNT_MAX ?
				     merged + 1 : merged),
		   "runs_merged does not count on (saturating)", NULL);
	FUZZ_CHECK(p.n_runs == (n_runs + 1 < mp.max_samples ? n_runs + 1 :
				mp.max_samples),
		   "runs kept after a merge", NULL);
	FUZZ_CHECK(runs_equal(&p.runs[p.n_runs - 1], &run),
		   "the merged run is not the newest kept", NULL);
	FUZZ_CHECK(cosched_profile_edp_find(&p, run.threads, run.freq_khz),
		   "the merged run has no EDP point", NULL);
	check_valid(&p);
	check_round_trip(&p, "a merged profile does not write and read back equal");

	cosched_profile_free(&p);
	free(text);
	return 0;
}
