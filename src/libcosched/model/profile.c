/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile.c - application profiles: runs, derived metrics, EDP
 * points (the model; the JSON form is store/profile_json.c).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"
#include "src/libcosched/model/profile.h"
#include "src/libcosched/model/profile_fields.h"

/* Sanity bounds on values read from files (not physical limits). */
#define THREADS_LIMIT 1048576
#define FREQ_KHZ_LIMIT 100000000L	/* 100 GHz */


#define RUN_F(f, kind, opt) \
	{ #f, offsetof(cosched_run_t, f), kind, opt, 0, 0 }

const field_t cosched_run_fields[] = {
	/* Optional since schema 3, all or none (cosched_run_check). */
	RUN_F(instructions, NUM_NONNEG, true),
	RUN_F(cycles, NUM_POSITIVE, true),
	RUN_F(llc_misses, NUM_NONNEG, true),
	RUN_F(mem_bytes_per_s, NUM_NONNEG, true),
	RUN_F(llc_to_core_bytes_per_s, NUM_NONNEG, true),
	RUN_F(mem_uops_fraction, NUM_FRACTION, true),
	RUN_F(energy_pkg_j, NUM_NONNEG, true),
	RUN_F(energy_cores_j, NUM_NONNEG, true),
	RUN_F(energy_dram_j, NUM_NONNEG, true),
	RUN_F(runtime_s, NUM_POSITIVE, false),
	{ "threads", offsetof(cosched_run_t, threads), NUM_INT, false,
	  1, THREADS_LIMIT },
	{ "freq_khz", offsetof(cosched_run_t, freq_khz), NUM_LONG, true,
	  0, FREQ_KHZ_LIMIT },
};
const size_t cosched_n_run_fields =
	sizeof(cosched_run_fields) / sizeof(cosched_run_fields[0]);

/* EDP points ("Power-aware gang scheduling on multicore" (NTUA thesis, 2013),
 * "Threads vs EDP"); every field is required but the energy, and NAN energy is
 * written as null. */
const field_t cosched_edp_fields[] = {
	{ "threads", offsetof(cosched_edp_point_t, threads), NUM_INT, false,
	  1, THREADS_LIMIT },
	{ "freq_khz", offsetof(cosched_edp_point_t, freq_khz), NUM_LONG, false,
	  0, FREQ_KHZ_LIMIT },
	{ "time_s", offsetof(cosched_edp_point_t, time_s), NUM_POSITIVE, false,
	  0, 0 },
	{ "energy_j", offsetof(cosched_edp_point_t, energy_j), NUM_NONNEG, true,
	  0, 0 },
	{ "samples", offsetof(cosched_edp_point_t, samples), NUM_ULONG, false,
	  1, (long long) COSCHED_PROFILE_COUNT_MAX },
};
const size_t cosched_n_edp_fields =
	sizeof(cosched_edp_fields) / sizeof(cosched_edp_fields[0]);

#define DER_F(f, kind, cause, formula) \
	{ { #f, offsetof(cosched_derived_t, f), kind, true, 0, 0 }, cause, formula }

const derived_field_t cosched_derived_fields[] = {
	DER_F(ipc, NUM_NONNEG, "cycles", "instructions / cycles"),
	DER_F(mpki, NUM_NONNEG, "instructions",
	      "llc_misses / instructions x 1000"),
	DER_F(llc_miss_bw, NUM_NONNEG, "runtime_s", "llc_misses x 64 / runtime_s"),
	DER_F(mem_traffic_bw, NUM_NONNEG, "mem_bytes_per_s", "mem_bytes_per_s"),
	DER_F(llc_to_core_bw, NUM_NONNEG, "llc_to_core_bytes_per_s",
	      "llc_to_core_bytes_per_s"),
	DER_F(llc_miss_bw_per_thread, NUM_NONNEG, "runtime_s",
	      "llc_misses x 64 / runtime_s / threads"),
	DER_F(mem_traffic_bw_per_thread, NUM_NONNEG, "mem_bytes_per_s",
	      "mem_bytes_per_s / threads"),
	DER_F(llc_to_core_bw_per_thread, NUM_NONNEG, "llc_to_core_bytes_per_s",
	      "llc_to_core_bytes_per_s / threads"),
	DER_F(mem_uops_fraction, NUM_FRACTION, "mem_uops_fraction",
	      "mem_uops_fraction"),
	DER_F(bw_fraction, NUM_NONNEG, NULL,
	      "memory bandwidth / NodePeakBandwidth"),
	DER_F(threads, NUM_NONNEG, "threads", "threads"),
	DER_F(power_w, NUM_NONNEG, "energy_pkg_j",
	      "(energy_pkg_j + energy_dram_j) / runtime_s"),
};
const size_t cosched_n_derived_fields =
	sizeof(cosched_derived_fields) / sizeof(cosched_derived_fields[0]);

void cosched_merge_params_default(cosched_merge_params_t *mp)
{
	mp->weight = COSCHED_PROFILE_MERGE_WEIGHT_DEFAULT;
	mp->max_samples = COSCHED_PROFILE_MAX_SAMPLES_DEFAULT;
	mp->min_runtime_s = COSCHED_PROFILE_MIN_RUNTIME_DEFAULT;
	mp->node_peak_bw = 0.0;
}

const cosched_range_t cosched_merge_weight_range = { 0.0, 1.0, true };
const cosched_range_t cosched_max_samples_range = {
	1.0, COSCHED_PROFILE_MAX_SAMPLES_LIMIT, false
};
const cosched_range_t cosched_min_runtime_range = { 0.0, 86400.0, false };

int cosched_merge_params_check(const cosched_merge_params_t *mp,
			       cosched_error_t *err)
{
	if (cosched_range_check("ProfileMergeWeight",
				&cosched_merge_weight_range, mp->weight, NULL,
				err) ||
	    cosched_range_check("ProfileMaxSamples",
				&cosched_max_samples_range, mp->max_samples,
				NULL, err) ||
	    cosched_range_check("ProfileMinRuntime",
				&cosched_min_runtime_range, mp->min_runtime_s,
				NULL, err))
		return -1;
	if (isnan(mp->node_peak_bw) || isinf(mp->node_peak_bw))
		return cosched_error_set(err,
			"NodePeakBandwidth: value %g is not a finite number",
			mp->node_peak_bw);
	return 0;
}

void cosched_run_init(cosched_run_t *run)
{
	for (size_t i = 0; i < cosched_n_run_fields; i++) {
		if (is_int_kind(cosched_run_fields[i].kind))
			int_set(run, &cosched_run_fields[i], 0);
		else
			*dbl_at(run, &cosched_run_fields[i]) = NAN;
	}
}

static void derived_unknown(cosched_derived_t *d)
{
	for (size_t i = 0; i < cosched_n_derived_fields; i++)
		*dbl_at(d, &cosched_derived_fields[i].f) = NAN;
}

/* --- checks ------------------------------------------------------------- */

bool cosched_run_counted(const cosched_run_t *run)
{
	return !isnan(run->instructions) && !isnan(run->cycles) &&
	       !isnan(run->llc_misses);
}

int cosched_run_check(const char *field, const cosched_run_t *run,
		      cosched_error_t *err)
{
	int counted;

	if (!field)
		field = "run";
	counted = !isnan(run->instructions) + !isnan(run->cycles) +
		  !isnan(run->llc_misses);
	if (counted != 0 && counted != 3)
		return cosched_error_set(err,
			"%s: instructions, cycles and llc_misses: all three or none (a run without counters), got %d of them",
			field, counted);
	for (size_t i = 0; i < cosched_n_run_fields; i++) {
		const field_t *f = &cosched_run_fields[i];

		if (is_int_kind(f->kind)) {
			long long v = int_get(run, f);
			if (v < f->lo || v > f->hi)
				return cosched_error_set(err,
					"%s.%s: expected an integer from %lld to %lld, got %lld",
					field, f->name, f->lo, f->hi, v);
			continue;
		}
		if (isnan(dbl_get(run, f)) && f->optional)
			continue;
		if (!num_ok(f->kind, dbl_get(run, f)))
			return cosched_error_set(err,
				"%s.%s: expected %s, got %g", field, f->name,
				num_expected(f->kind), dbl_get(run, f));
	}
	return 0;
}

/* --- derived metrics ---------------------------------------------------- */

void cosched_run_derive(const cosched_run_t *run, double node_peak_bw,
			cosched_derived_t *d)
{
	double t = run->runtime_s, n = run->threads;

	derived_unknown(d);
	/* "Effects of co-scheduling applications on multicore architectures"
	 * (NTUA thesis, 2014), "Metrics": IPC = instructions / unhalted
	 * cycles. */
	if (run->cycles > 0.0)
		d->ipc = run->instructions / run->cycles;
	/* MPKI = LLC misses / instructions x 1000 (the 2013 gang-scheduling
	 * thesis). */
	if (run->instructions > 0.0)
		d->mpki = run->llc_misses / run->instructions * 1000.0;
	else if (run->instructions == 0.0)
		d->mpki = 0.0;
	/* The 2014 co-scheduling thesis, "Metrics": LLC-miss bandwidth = misses
	 * x 64 / T. */
	if (t > 0.0)
		d->llc_miss_bw = run->llc_misses * COSCHED_CACHE_LINE_BYTES / t;
	d->mem_traffic_bw = run->mem_bytes_per_s;
	d->llc_to_core_bw = run->llc_to_core_bytes_per_s;
	if (n >= 1) {
		d->llc_miss_bw_per_thread = d->llc_miss_bw / n;
		d->mem_traffic_bw_per_thread = d->mem_traffic_bw / n;
		d->llc_to_core_bw_per_thread = d->llc_to_core_bw / n;
		d->threads = n;
	}
	d->mem_uops_fraction = run->mem_uops_fraction;
	if (node_peak_bw > 0.0)
		d->bw_fraction = cosched_derived_mem_bw(d) / node_peak_bw;
	/* Energy counted is core + uncore + DRAM (the 2013 gang-scheduling
	 * thesis). */
	if (t > 0.0 && !isnan(run->energy_pkg_j))
		d->power_w = (run->energy_pkg_j +
			      (isnan(run->energy_dram_j) ? 0.0 : run->energy_dram_j)) / t;
}

double cosched_derived_mem_bw(const cosched_derived_t *d)
{
	/* The 2014 co-scheduling thesis, "Metrics": classify from
	 * memory-traffic counters where the machine has them (13,851 MB/s real
	 * vs 1,137 MB/s from LLC misses). */
	return isnan(d->mem_traffic_bw) ? d->llc_miss_bw : d->mem_traffic_bw;
}

double cosched_derived_mem_bw_per_thread(const cosched_derived_t *d)
{
	return isnan(d->mem_traffic_bw_per_thread) ? d->llc_miss_bw_per_thread
						   : d->mem_traffic_bw_per_thread;
}

static void derived_merge(cosched_derived_t *acc, const cosched_derived_t *d,
			  double w)
{
	for (size_t i = 0; i < cosched_n_derived_fields; i++) {
		const field_t *f = &cosched_derived_fields[i].f;
		*dbl_at(acc, f) = cosched_ewma(dbl_get(acc, f), dbl_get(d, f), w);
	}
}

/*
 * Refuse a run whose derived metrics are not finite (e.g. cycles 1e-320
 * gives IPC inf): such a value would poison the EWMA for good and cannot be
 * written as JSON.  The message names the run value and the metric.
 */
static int derived_check(const char *field, const cosched_run_t *run,
			 const cosched_merge_params_t *mp,
			 const cosched_derived_t *d, cosched_error_t *err)
{
	for (size_t i = 0; i < cosched_n_derived_fields; i++) {
		const derived_field_t *df = &cosched_derived_fields[i];
		double v = dbl_get(d, &df->f);

		if (isnan(v) || isfinite(v))
			continue;
		if (!df->cause)
			return cosched_error_set(err,
				"NodePeakBandwidth: %g bytes/s gives %s.%s %g (%s)",
				mp->node_peak_bw, field, df->f.name, v,
				df->formula);
		for (size_t k = 0; k < cosched_n_run_fields; k++) {
			const field_t *rf = &cosched_run_fields[k];
			if (strcmp(rf->name, df->cause))
				continue;
			if (is_int_kind(rf->kind))
				return cosched_error_set(err,
					"%s.%s: %lld gives %s %g (%s)", field,
					rf->name, int_get(run, rf), df->f.name,
					v, df->formula);
			return cosched_error_set(err,
				"%s.%s: %g gives %s %g (%s)", field, rf->name,
				dbl_get(run, rf), df->f.name, v, df->formula);
		}
		return cosched_error_set(err, "%s: gives %s %g (%s)", field,
					 df->f.name, v, df->formula);
	}
	return 0;
}


/* --- profile ------------------------------------------------------------ */

int cosched_profile_init(cosched_profile_t *p, const char *app,
			 cosched_error_t *err)
{
	if (cosched_app_name_check("app", app, err))
		return -1;
	memset(p, 0, sizeof(*p));
	strcpy(p->app, app);
	derived_unknown(&p->derived);
	cosched_corun_init(&p->corun);
	p->owner_uid = -1;
	return 0;
}

/* No owner and nothing in it: a new profile, the first user's to claim. */
static bool unclaimed(const cosched_profile_t *p)
{
	return p->owner_uid < 0 && !p->runs_merged && !p->corun.present;
}

int cosched_profile_may_merge(const cosched_profile_t *p, long uid,
			      bool shared, cosched_error_t *err)
{
	if (uid == 0 || shared || !p || unclaimed(p) || p->owner_uid == uid)
		return 0;
	if (p->owner_uid < 0)
		return cosched_error_set(err,
			"%s's profile is the site's (root's runs, or written before profiles had owners), not uid %ld's (a site shares an application's profile with ProfileShare= in cosched.conf)",
			p->app, uid);
	return cosched_error_set(err,
		"%s's profile is uid %ld's, not uid %ld's (a site shares an application's profile with ProfileShare= in cosched.conf)",
		p->app, p->owner_uid, uid);
}

void cosched_profile_claim(cosched_profile_t *p, long uid)
{
	if (unclaimed(p) && uid > 0)
		p->owner_uid = uid;
}

bool cosched_profile_serves(long owner_uid, long uid, bool shared)
{
	return shared || owner_uid <= 0 || owner_uid == uid;
}

void cosched_profile_key(char out[COSCHED_PROFILE_KEY_MAX + 1],
			 const char *app, long uid)
{
	if (uid > 0)
		snprintf(out, COSCHED_PROFILE_KEY_MAX + 1, "%s@%ld", app, uid);
	else
		snprintf(out, COSCHED_PROFILE_KEY_MAX + 1, "%s", app);
}

int cosched_profile_key_parse(const char *field, const char *key,
			      char app[COSCHED_APP_NAME_MAX + 1], long *uid,
			      cosched_error_t *err)
{
	const char *at = key ? strchr(key, '@') : NULL;
	size_t len = at ? (size_t) (at - key) : 0;
	long v = 0;

	if (!at) {
		if (cosched_app_name_check(field, key, err))
			return -1;
		snprintf(app, COSCHED_APP_NAME_MAX + 1, "%s", key);
		*uid = 0;
		return 0;
	}
	if (len > COSCHED_APP_NAME_MAX)
		return cosched_error_set(err,
			"%s: profile key %s: application name too long",
			field, COSCHED_QUOTE(key));
	memcpy(app, key, len);
	app[len] = '\0';
	if (cosched_app_name_check(field, app, err))
		return -1;
	/* Digits only, no leading zero, within a uid's range. */
	if (at[1] < '1' || at[1] > '9' || strlen(at + 1) > 10)
		goto bad_uid;
	for (const char *c = at + 1; *c; c++) {
		if (*c < '0' || *c > '9')
			goto bad_uid;
		v = v * 10 + (*c - '0');
	}
	if (v > COSCHED_PROFILE_UID_MAX)
		goto bad_uid;
	*uid = v;
	return 0;
bad_uid:
	return cosched_error_set(err,
		"%s: profile key %s: expected APP@UID with UID 1 to %ld",
		field, COSCHED_QUOTE(key), COSCHED_PROFILE_UID_MAX);
}

int cosched_profile_find_for(const char *app, long uid, bool shared,
			     cosched_profile_find_fn find, void *ctx)
{
	char key[COSCHED_PROFILE_KEY_MAX + 1];
	long owner = -1;

	if (uid > 0) {
		cosched_profile_key(key, app, uid);
		/* The store refuses a file whose owner is not its key's. */
		if (find(ctx, key, &owner) == 1 && owner == uid)
			return 1;
	}
	return find(ctx, app, &owner) == 1 &&
	       cosched_profile_serves(owner, uid, shared);
}

void cosched_profile_free(cosched_profile_t *p)
{
	if (!p)
		return;
	free(p->runs);
	free(p->edp);
	p->runs = NULL;
	p->edp = NULL;
	p->n_runs = p->n_edp = 0;
}

int cosched_profile_copy(cosched_profile_t *dst, const cosched_profile_t *src,
			 cosched_error_t *err)
{
	cosched_profile_t tmp = *src;

	tmp.runs = NULL;
	tmp.edp = NULL;
	if (src->n_runs) {
		tmp.runs = malloc(sizeof(*tmp.runs) * src->n_runs);
		if (!tmp.runs)
			return cosched_error_set(err, "out of memory");
		memcpy(tmp.runs, src->runs, sizeof(*tmp.runs) * src->n_runs);
	}
	if (src->n_edp) {
		tmp.edp = malloc(sizeof(*tmp.edp) * src->n_edp);
		if (!tmp.edp) {
			free(tmp.runs);
			return cosched_error_set(err, "out of memory");
		}
		memcpy(tmp.edp, src->edp, sizeof(*tmp.edp) * src->n_edp);
	}
	*dst = tmp;
	return 0;
}

bool cosched_profile_has_data(const cosched_profile_t *p)
{
	return p && p->runs_merged > 0 && !isnan(p->derived.ipc) &&
	       !isnan(p->derived.mpki);
}

bool cosched_profile_has_class(const cosched_profile_t *p)
{
	return cosched_profile_has_data(p) ||
	       (p && p->corun.present && p->corun.cat < COSCHED_CAT_UNKNOWN);
}

int cosched_edp_cmp(const cosched_edp_point_t *a, int threads, long freq)
{
	if (a->threads != threads)
		return a->threads < threads ? -1 : 1;
	if (a->freq_khz != freq)
		return a->freq_khz < freq ? -1 : 1;
	return 0;
}

int cosched_edp_qsort_cmp(const void *a, const void *b)
{
	const cosched_edp_point_t *pb = b;
	return cosched_edp_cmp(a, pb->threads, pb->freq_khz);
}

const cosched_edp_point_t *cosched_profile_edp_find(const cosched_profile_t *p,
						    int threads, long freq_khz)
{
	for (int i = 0; i < p->n_edp; i++)
		if (!cosched_edp_cmp(&p->edp[i], threads, freq_khz))
			return &p->edp[i];
	return NULL;
}

int cosched_run_long_enough(const cosched_run_t *run,
			    const cosched_merge_params_t *mp,
			    cosched_error_t *err)
{
	if (run->runtime_s >= mp->min_runtime_s)
		return 0;
	return cosched_error_set(err, "ran %g s, under ProfileMinRuntime=%g s",
				 run->runtime_s, mp->min_runtime_s);
}

int cosched_profile_add_run(cosched_profile_t *p, const cosched_run_t *run,
			    const cosched_merge_params_t *mp,
			    cosched_error_t *err)
{
	cosched_derived_t d, acc = p->derived;
	cosched_run_t *runs;
	cosched_edp_point_t *edp;
	int keep, n_runs, n_edp = p->n_edp, idx = -1;
	double energy;

	if (cosched_merge_params_check(mp, err) ||
	    cosched_run_check("run", run, err) ||
	    cosched_run_long_enough(run, mp, err))
		return -1;

	cosched_run_derive(run, mp->node_peak_bw, &d);
	if (derived_check("run", run, mp, &d, err))
		return -1;
	derived_merge(&acc, &d, mp->weight);

	/* Raw runs: keep the newest max_samples (the bound may have shrunk). */
	keep = p->n_runs + 1 > mp->max_samples ? mp->max_samples - 1 : p->n_runs;
	runs = malloc(sizeof(*runs) * (keep + 1));
	if (!runs)
		return cosched_error_set(err, "out of memory");
	if (keep > 0)
		memcpy(runs, p->runs + (p->n_runs - keep), sizeof(*runs) * keep);
	runs[keep] = *run;
	n_runs = keep + 1;

	/* EDP point of (threads, frequency). */
	energy = NAN;
	if (!isnan(run->energy_pkg_j))
		energy = run->energy_pkg_j +
			 (isnan(run->energy_dram_j) ? 0.0 : run->energy_dram_j);
	if (isinf(energy)) {
		free(runs);
		return cosched_error_set(err,
			"run.energy_pkg_j: %g gives EDP energy %g (energy_pkg_j + energy_dram_j)",
			run->energy_pkg_j, energy);
	}
	edp = malloc(sizeof(*edp) * (p->n_edp + 1));
	if (!edp) {
		free(runs);
		return cosched_error_set(err, "out of memory");
	}
	if (p->n_edp)
		memcpy(edp, p->edp, sizeof(*edp) * p->n_edp);
	for (int i = 0; i < n_edp; i++)
		if (!cosched_edp_cmp(&edp[i], run->threads, run->freq_khz))
			idx = i;
	if (idx >= 0) {
		edp[idx].time_s = cosched_ewma(edp[idx].time_s, run->runtime_s, mp->weight);
		edp[idx].energy_j = cosched_ewma(edp[idx].energy_j, energy, mp->weight);
		if (edp[idx].samples < COSCHED_PROFILE_COUNT_MAX)
			edp[idx].samples++;
	} else {
		if (n_edp >= COSCHED_PROFILE_MAX_EDP_POINTS) {
			/* Bound reached: forget the least-sampled point. */
			int victim = 0;
			for (int i = 1; i < n_edp; i++)
				if (edp[i].samples < edp[victim].samples)
					victim = i;
			edp[victim] = edp[--n_edp];
		}
		edp[n_edp].threads = run->threads;
		edp[n_edp].freq_khz = run->freq_khz;
		edp[n_edp].time_s = run->runtime_s;
		edp[n_edp].energy_j = energy;
		edp[n_edp].samples = 1;
		n_edp++;
		qsort(edp, n_edp, sizeof(*edp), cosched_edp_qsort_cmp);
	}

	free(p->runs);
	free(p->edp);
	p->runs = runs;
	p->n_runs = n_runs;
	p->edp = edp;
	p->n_edp = n_edp;
	p->derived = acc;
	if (p->runs_merged < COSCHED_PROFILE_COUNT_MAX)
		p->runs_merged++;
	return 0;
}

