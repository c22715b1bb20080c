/*
 * cosched_profile.c - application profiles: runs, derived metrics, EDP
 * points, and their JSON form.
 */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "cosched_profile.h"
#include "cosched_util.h"

/* Sanity bounds on values read from files (not physical limits). */
#define THREADS_LIMIT 1048576
#define FREQ_KHZ_LIMIT 100000000L	/* 100 GHz */


/*
 * The fields of a run and of the derived metrics, each listed once: these
 * tables drive initialisation, checks, the EWMA merge and both directions
 * of the JSON form.
 */
enum num_kind {
	NUM_NONNEG,		/* double >= 0 */
	NUM_POSITIVE,		/* double > 0 */
	NUM_FRACTION,		/* double in [0, 1] */
	NUM_INT,		/* int in [lo, hi] */
	NUM_LONG,		/* long in [lo, hi] */
	NUM_ULONG,		/* unsigned long in [lo, hi] */
};

typedef struct {
	const char *name;
	size_t offset;
	enum num_kind kind;
	bool optional;	/* doubles: NAN (absent / null) allowed; integers:
			 * absent reads as 0 */
	long long lo, hi;	/* integer kinds */
} field_t;

#define RUN_F(f, kind, opt) \
	{ #f, offsetof(cosched_run_t, f), kind, opt, 0, 0 }

static const field_t run_fields[] = {
	RUN_F(instructions, NUM_NONNEG, false),
	RUN_F(cycles, NUM_POSITIVE, false),
	RUN_F(llc_misses, NUM_NONNEG, false),
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
#define N_RUN_FIELDS (sizeof(run_fields) / sizeof(run_fields[0]))

/* EDP points (seed 002 "Threads vs EDP"); every field is required but the
 * energy, and NAN energy is written as null. */
static const field_t edp_fields[] = {
	{ "threads", offsetof(cosched_edp_point_t, threads), NUM_INT, false,
	  1, THREADS_LIMIT },
	{ "freq_khz", offsetof(cosched_edp_point_t, freq_khz), NUM_LONG, false,
	  0, FREQ_KHZ_LIMIT },
	{ "time_s", offsetof(cosched_edp_point_t, time_s), NUM_POSITIVE, false,
	  0, 0 },
	{ "energy_j", offsetof(cosched_edp_point_t, energy_j), NUM_NONNEG, true,
	  0, 0 },
	{ "samples", offsetof(cosched_edp_point_t, samples), NUM_ULONG, false,
	  1, LLONG_MAX },
};
#define N_EDP_FIELDS (sizeof(edp_fields) / sizeof(edp_fields[0]))

/*
 * Derived metrics (all doubles, NAN = unknown).  cause names the run value
 * (or merge parameter) whose size decides whether the metric stays finite,
 * and how the metric is computed, for the message when it does not.
 */
typedef struct {
	field_t f;
	const char *cause;		/* run field; NULL: NodePeakBandwidth */
	const char *formula;
} derived_field_t;

#define DER_F(f, kind, cause, formula) \
	{ { #f, offsetof(cosched_derived_t, f), kind, true, 0, 0 }, cause, formula }

static const derived_field_t derived_fields[] = {
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
#define N_DERIVED_FIELDS (sizeof(derived_fields) / sizeof(derived_fields[0]))

static double *dbl_at(void *base, const field_t *f)
{
	return (double *) ((char *) base + f->offset);
}

static double dbl_get(const void *base, const field_t *f)
{
	return *(const double *) ((const char *) base + f->offset);
}

static long long int_get(const void *base, const field_t *f)
{
	const char *p = (const char *) base + f->offset;

	switch (f->kind) {
	case NUM_INT:
		return *(const int *) p;
	case NUM_LONG:
		return *(const long *) p;
	default:
		return (long long) *(const unsigned long *) p;
	}
}

/* v is within the field's range (checked by the caller). */
static void int_set(void *base, const field_t *f, long long v)
{
	char *p = (char *) base + f->offset;

	switch (f->kind) {
	case NUM_INT:
		*(int *) p = (int) v;
		break;
	case NUM_LONG:
		*(long *) p = (long) v;
		break;
	default:
		*(unsigned long *) p = (unsigned long) v;
	}
}

static bool is_int_kind(enum num_kind k)
{
	return k == NUM_INT || k == NUM_LONG || k == NUM_ULONG;
}

static const char *num_expected(enum num_kind k)
{
	switch (k) {
	case NUM_POSITIVE:
		return "a positive number";
	case NUM_FRACTION:
		return "a number from 0 to 1";
	default:
		return "a non-negative number";
	}
}

/* Whether v is a valid value of a double field of kind k (NAN excluded). */
static bool num_ok(enum num_kind k, double v)
{
	return isfinite(v) && v >= 0.0 && (k != NUM_POSITIVE || v > 0.0) &&
	       (k != NUM_FRACTION || v <= 1.0);
}

void cosched_merge_params_default(cosched_merge_params_t *mp)
{
	mp->weight = COSCHED_PROFILE_MERGE_WEIGHT_DEFAULT;
	mp->max_samples = COSCHED_PROFILE_MAX_SAMPLES_DEFAULT;
	mp->node_peak_bw = 0.0;
}

int cosched_merge_params_check(const cosched_merge_params_t *mp,
			       cosched_error_t *err)
{
	if (!(mp->weight > 0.0 && mp->weight <= 1.0))
		return cosched_error_set(err,
			"ProfileMergeWeight: value %g out of range (0 < value <= 1)",
			mp->weight);
	if (mp->max_samples < 1 ||
	    mp->max_samples > COSCHED_PROFILE_MAX_SAMPLES_LIMIT)
		return cosched_error_set(err,
			"ProfileMaxSamples: value %d out of range (1 <= value <= %d)",
			mp->max_samples, COSCHED_PROFILE_MAX_SAMPLES_LIMIT);
	if (isnan(mp->node_peak_bw) || isinf(mp->node_peak_bw))
		return cosched_error_set(err,
			"NodePeakBandwidth: value %g is not a finite number",
			mp->node_peak_bw);
	return 0;
}

void cosched_run_init(cosched_run_t *run)
{
	for (size_t i = 0; i < N_RUN_FIELDS; i++) {
		if (is_int_kind(run_fields[i].kind))
			int_set(run, &run_fields[i], 0);
		else
			*dbl_at(run, &run_fields[i]) = NAN;
	}
}

static void derived_unknown(cosched_derived_t *d)
{
	for (size_t i = 0; i < N_DERIVED_FIELDS; i++)
		*dbl_at(d, &derived_fields[i].f) = NAN;
}

/* --- checks ------------------------------------------------------------- */

int cosched_run_check(const char *field, const cosched_run_t *run,
		      cosched_error_t *err)
{
	if (!field)
		field = "run";
	for (size_t i = 0; i < N_RUN_FIELDS; i++) {
		const field_t *f = &run_fields[i];

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
	/* Seed 001 "Metrics": IPC = instructions / unhalted cycles. */
	if (run->cycles > 0.0)
		d->ipc = run->instructions / run->cycles;
	/* Seed 002 "Metrics": MPI = LLC misses / instructions x 1000. */
	if (run->instructions > 0.0)
		d->mpki = run->llc_misses / run->instructions * 1000.0;
	else if (run->instructions == 0.0)
		d->mpki = 0.0;
	/* Seed 001 "Metrics": LLC-miss bandwidth = misses x 64 / T. */
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
	/* Seed 002 "Metrics": energy counted is core + uncore + DRAM. */
	if (t > 0.0 && !isnan(run->energy_pkg_j))
		d->power_w = (run->energy_pkg_j +
			      (isnan(run->energy_dram_j) ? 0.0 : run->energy_dram_j)) / t;
}

double cosched_derived_mem_bw(const cosched_derived_t *d)
{
	/* Seed 001 "Metrics": classify from memory-traffic counters where the
	 * machine has them (13,851 MB/s real vs 1,137 MB/s from LLC misses). */
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
	for (size_t i = 0; i < N_DERIVED_FIELDS; i++) {
		const field_t *f = &derived_fields[i].f;
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
	for (size_t i = 0; i < N_DERIVED_FIELDS; i++) {
		const derived_field_t *df = &derived_fields[i];
		double v = dbl_get(d, &df->f);

		if (isnan(v) || isfinite(v))
			continue;
		if (!df->cause)
			return cosched_error_set(err,
				"NodePeakBandwidth: %g bytes/s gives %s.%s %g (%s)",
				mp->node_peak_bw, field, df->f.name, v,
				df->formula);
		for (size_t k = 0; k < N_RUN_FIELDS; k++) {
			const field_t *rf = &run_fields[k];
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
	return 0;
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

static int edp_cmp(const cosched_edp_point_t *a, int threads, long freq)
{
	if (a->threads != threads)
		return a->threads < threads ? -1 : 1;
	if (a->freq_khz != freq)
		return a->freq_khz < freq ? -1 : 1;
	return 0;
}

static int edp_qsort_cmp(const void *a, const void *b)
{
	const cosched_edp_point_t *pb = b;
	return edp_cmp(a, pb->threads, pb->freq_khz);
}

const cosched_edp_point_t *cosched_profile_edp_find(const cosched_profile_t *p,
						    int threads, long freq_khz)
{
	for (int i = 0; i < p->n_edp; i++)
		if (!edp_cmp(&p->edp[i], threads, freq_khz))
			return &p->edp[i];
	return NULL;
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
	    cosched_run_check("run", run, err))
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
		if (!edp_cmp(&edp[i], run->threads, run->freq_khz))
			idx = i;
	if (idx >= 0) {
		edp[idx].time_s = cosched_ewma(edp[idx].time_s, run->runtime_s, mp->weight);
		edp[idx].energy_j = cosched_ewma(edp[idx].energy_j, energy, mp->weight);
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
		qsort(edp, n_edp, sizeof(*edp), edp_qsort_cmp);
	}

	free(p->runs);
	free(p->edp);
	p->runs = runs;
	p->n_runs = n_runs;
	p->edp = edp;
	p->n_edp = n_edp;
	p->derived = acc;
	p->runs_merged++;
	return 0;
}

/* --- JSON out ----------------------------------------------------------- */

/*
 * The writer's state: the first error wins, so a value that cannot be
 * written ("derived.ipc: not finite") is not reported as out of memory.
 */
typedef struct {
	cosched_error_t *err;
	bool reported;		/* err holds the reason already */
} writer_t;

static int put(writer_t *w, json_t *obj, const char *key, json_t *val)
{
	(void) w;
	if (!val)
		return -1;
	return json_object_set_new(obj, key, val) ? -1 : 0;
}

/* NAN is written as null (derived) or left out (omit_nan, runs); an
 * infinite value has no JSON form and is an error naming the field. */
static int put_real(writer_t *w, json_t *obj, const char *prefix,
		    const char *key, double v, bool omit_nan)
{
	if (isnan(v))
		return omit_nan ? 0 : put(w, obj, key, json_null());
	if (!isfinite(v)) {
		if (!w->reported)
			cosched_error_set(w->err, "%s%s%s: not finite (%g)",
					  prefix, *prefix ? "." : "", key, v);
		w->reported = true;
		return -1;
	}
	return put(w, obj, key, json_real(v));
}

/* An object of the fields of table (n entries) of base. */
static json_t *fields_to_json(writer_t *w, const char *prefix,
			      const field_t *table, size_t stride, size_t n,
			      const void *base, bool omit_nan)
{
	json_t *o = json_object();
	int rc = 0;

	if (!o)
		return NULL;
	for (size_t i = 0; i < n && !rc; i++) {
		const field_t *f = (const field_t *) ((const char *) table +
						      i * stride);
		if (is_int_kind(f->kind))
			rc = put(w, o, f->name,
				 json_integer((json_int_t) int_get(base, f)));
		else
			rc = put_real(w, o, prefix, f->name, dbl_get(base, f),
				      omit_nan);
	}
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

char *cosched_profile_to_json(const cosched_profile_t *p, cosched_error_t *err)
{
	json_t *root = json_object(), *runs = json_array(), *edp = json_array();
	writer_t w = { err, false };
	char *text = NULL;
	int rc = 0;

	if (!root || !runs || !edp)
		goto fail;
	rc |= put(&w, root, "schema_version",
		  json_integer(COSCHED_PROFILE_SCHEMA_VERSION));
	rc |= put(&w, root, "app", json_string(p->app));
	rc |= put(&w, root, "runs_merged", json_integer((json_int_t) p->runs_merged));
	if (!rc)
		rc |= put(&w, root, "derived",
			  fields_to_json(&w, "derived", &derived_fields[0].f,
					 sizeof(derived_fields[0]),
					 N_DERIVED_FIELDS, &p->derived, false));
	for (int i = 0; i < p->n_edp && !rc; i++) {
		char prefix[32];
		snprintf(prefix, sizeof(prefix), "edp[%d]", i);
		rc |= json_array_append_new(edp,
			fields_to_json(&w, prefix, edp_fields, sizeof(edp_fields[0]),
				       N_EDP_FIELDS, &p->edp[i], false));
	}
	for (int i = 0; i < p->n_runs && !rc; i++) {
		char prefix[32];
		snprintf(prefix, sizeof(prefix), "runs[%d]", i);
		rc |= json_array_append_new(runs,
			fields_to_json(&w, prefix, run_fields, sizeof(run_fields[0]),
				       N_RUN_FIELDS, &p->runs[i], true));
	}
	if (rc)
		goto fail;
	rc |= json_object_set(root, "edp", edp);
	rc |= json_object_set(root, "runs", runs);
	if (rc)
		goto fail;
	text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
				JSON_REAL_PRECISION(17));
	if (!text)
		goto fail;
	json_decref(root);
	json_decref(runs);
	json_decref(edp);
	return text;
fail:
	json_decref(root);
	json_decref(runs);
	json_decref(edp);
	if (!w.reported)
		cosched_error_set(err,
			"%s: cannot serialise the profile (out of memory)", p->app);
	return NULL;
}

/* --- JSON in ------------------------------------------------------------ */

/* What a JSON value is, for "got ..." in messages. */
static void describe(const json_t *v, char *buf, size_t len)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		snprintf(buf, len, "\"%.40s%s\"", json_string_value(v),
			 json_string_length(v) > 40 ? "..." : "");
		break;
	case JSON_INTEGER:
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		snprintf(buf, len, "%g", json_real_value(v));
		break;
	case JSON_TRUE:
		snprintf(buf, len, "true");
		break;
	case JSON_FALSE:
		snprintf(buf, len, "false");
		break;
	case JSON_NULL:
		snprintf(buf, len, "null");
		break;
	case JSON_OBJECT:
		snprintf(buf, len, "an object");
		break;
	case JSON_ARRAY:
		snprintf(buf, len, "an array");
		break;
	default:
		snprintf(buf, len, "something else");
	}
}

static int bad_value(const char *prefix, const char *key, const char *expected,
		     const json_t *v, cosched_error_t *err)
{
	char got[64];

	if (v)
		describe(v, got, sizeof(got));
	else
		snprintf(got, sizeof(got), "nothing (field missing)");
	return cosched_error_set(err, "%s%s%s: expected %s, got %s",
				 prefix ? prefix : "", prefix && *prefix ? "." : "",
				 key, expected, got);
}


/*
 * Read obj[key] as a number.  optional: absent or null gives NAN.
 */
static int get_num(const json_t *obj, const char *prefix, const char *key,
		   enum num_kind kind, bool optional, double *out,
		   cosched_error_t *err)
{
	json_t *v = json_object_get(obj, key);
	const char *exp = num_expected(kind);
	char expbuf[80];
	double x;

	if (optional)
		snprintf(expbuf, sizeof(expbuf), "%s or null", exp);
	else
		snprintf(expbuf, sizeof(expbuf), "%s", exp);
	if (!v || json_is_null(v)) {
		if (optional) {
			*out = NAN;
			return 0;
		}
		return bad_value(prefix, key, expbuf, v, err);
	}
	if (!json_is_number(v))
		return bad_value(prefix, key, expbuf, v, err);
	x = json_number_value(v);
	if (!isfinite(x) || x < 0.0 || (kind == NUM_POSITIVE && x <= 0.0) ||
	    (kind == NUM_FRACTION && x > 1.0))
		return bad_value(prefix, key, expbuf, v, err);
	*out = x;
	return 0;
}

static int get_int(const json_t *obj, const char *prefix, const char *key,
		   json_int_t lo, json_int_t hi, bool optional, json_int_t def,
		   json_int_t *out, cosched_error_t *err)
{
	json_t *v = json_object_get(obj, key);
	char exp[96];

	snprintf(exp, sizeof(exp), "an integer from %" JSON_INTEGER_FORMAT
		 " to %" JSON_INTEGER_FORMAT, lo, hi);
	if (!v && optional) {
		*out = def;
		return 0;
	}
	if (!v || !json_is_integer(v) || json_integer_value(v) < lo ||
	    json_integer_value(v) > hi)
		return bad_value(prefix, key, exp, v, err);
	*out = json_integer_value(v);
	return 0;
}

/* Refuse keys a schema does not know (typos would silently be lost). */
static int check_keys(const json_t *obj, const char *prefix,
		      const char *const *known, cosched_error_t *err)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *) obj, key, v) {
		bool ok = false;
		(void) v;
		for (int i = 0; known[i]; i++)
			if (!strcmp(key, known[i]))
				ok = true;
		if (!ok)
			return cosched_error_set(err, "%s%s%s: unknown field",
				prefix, *prefix ? "." : "", key);
	}
	return 0;
}

/* Read the fields of table (n entries, stride bytes apart) from o into
 * base (already initialised: absent optional values keep theirs). */
static int fields_from_json(const json_t *o, const char *prefix,
			    const field_t *table, size_t stride, size_t n,
			    void *base, cosched_error_t *err)
{
	for (size_t i = 0; i < n; i++) {
		const field_t *f = (const field_t *) ((const char *) table +
						      i * stride);
		if (is_int_kind(f->kind)) {
			json_int_t v;
			if (get_int(o, prefix, f->name, f->lo, f->hi,
				    f->optional, 0, &v, err))
				return -1;
			int_set(base, f, (long long) v);
		} else if (get_num(o, prefix, f->name, f->kind, f->optional,
				   dbl_at(base, f), err)) {
			return -1;
		}
	}
	return 0;
}

/* Refuse keys a table does not know (typos would silently be lost). */
static int check_field_keys(const json_t *obj, const char *prefix,
			    const field_t *table, size_t stride, size_t n,
			    cosched_error_t *err)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *) obj, key, v) {
		bool ok = false;
		(void) v;
		for (size_t i = 0; i < n && !ok; i++)
			ok = !strcmp(key, ((const field_t *) ((const char *) table +
							      i * stride))->name);
		if (!ok)
			return cosched_error_set(err, "%s%s%s: unknown field",
				prefix, *prefix ? "." : "", key);
	}
	return 0;
}

static int run_from_json(const json_t *o, const char *prefix,
			 cosched_run_t *r, cosched_error_t *err)
{
	if (!json_is_object(o))
		return bad_value("", prefix, "an object", o, err);
	if (check_field_keys(o, prefix, run_fields, sizeof(run_fields[0]),
			     N_RUN_FIELDS, err))
		return -1;
	cosched_run_init(r);
	return fields_from_json(o, prefix, run_fields, sizeof(run_fields[0]),
				N_RUN_FIELDS, r, err);
}

static int derived_from_json(const json_t *o, cosched_derived_t *d,
			     cosched_error_t *err)
{
	const char *pf = "derived";

	if (!json_is_object(o))
		return bad_value("", pf, "an object", o, err);
	if (check_field_keys(o, pf, &derived_fields[0].f,
			     sizeof(derived_fields[0]), N_DERIVED_FIELDS, err))
		return -1;
	return fields_from_json(o, pf, &derived_fields[0].f,
				sizeof(derived_fields[0]), N_DERIVED_FIELDS, d,
				err);
}

static int edp_from_json(const json_t *o, const char *prefix,
			 cosched_edp_point_t *e, cosched_error_t *err)
{
	if (!json_is_object(o))
		return bad_value("", prefix, "an object", o, err);
	if (check_field_keys(o, prefix, edp_fields, sizeof(edp_fields[0]),
			     N_EDP_FIELDS, err))
		return -1;
	return fields_from_json(o, prefix, edp_fields, sizeof(edp_fields[0]),
				N_EDP_FIELDS, e, err);
}

static const char *const root_keys[] = {
	"schema_version", "app", "runs_merged", "derived", "edp", "runs", NULL
};

/*
 * root[key] must be an array of at most limit items (noun names them in
 * the message); *items gets zeroed storage for them, NULL when empty.
 */
static int get_array(json_t *root, const char *key, const char *noun,
		     size_t limit, size_t item_size, json_t **arr,
		     void **items, cosched_error_t *err)
{
	size_t n;

	*arr = json_object_get(root, key);
	if (!json_is_array(*arr))
		return bad_value("", key, "an array", *arr, err);
	n = json_array_size(*arr);
	if (n > limit)
		return cosched_error_set(err,
			"%s: %zu %s, more than the limit %zu", key, n, noun,
			limit);
	if (n && !(*items = calloc(n, item_size)))
		return cosched_error_set(err, "out of memory");
	return 0;
}

int cosched_profile_from_json(cosched_profile_t *out, const char *text,
			      cosched_error_t *err)
{
	cosched_profile_t tmp;
	json_error_t jerr;
	json_t *root, *v, *runs, *edp;
	json_int_t i;
	int rc = -1;

	memset(&tmp, 0, sizeof(tmp));
	root = json_loads(text ? text : "", JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return cosched_error_set(err, "line %d column %d: invalid JSON: %s",
					 jerr.line, jerr.column, jerr.text);
	if (!json_is_object(root)) {
		bad_value("", "(top level)", "an object", root, err);
		goto out;
	}
	v = json_object_get(root, "schema_version");
	if (!v || !json_is_integer(v)) {
		bad_value("", "schema_version", "an integer", v, err);
		goto out;
	}
	if (json_integer_value(v) != COSCHED_PROFILE_SCHEMA_VERSION) {
		cosched_error_set(err,
			"schema_version: unsupported version %" JSON_INTEGER_FORMAT
			" (this cosched reads version %d)",
			json_integer_value(v), COSCHED_PROFILE_SCHEMA_VERSION);
		goto out;
	}
	if (check_keys(root, "", root_keys, err))
		goto out;
	v = json_object_get(root, "app");
	if (!v || !json_is_string(v)) {
		bad_value("", "app", "a string", v, err);
		goto out;
	}
	if (cosched_profile_init(&tmp, json_string_value(v), err))
		goto out;
	if (get_int(root, "", "runs_merged", 0, (json_int_t) LLONG_MAX, false, 0, &i, err))
		goto out;
	tmp.runs_merged = (unsigned long) i;
	if (derived_from_json(json_object_get(root, "derived"), &tmp.derived, err))
		goto out;

	if (get_array(root, "runs", "runs", COSCHED_PROFILE_MAX_SAMPLES_LIMIT,
		      sizeof(*tmp.runs), &runs, (void **) &tmp.runs, err))
		goto out;
	if ((json_int_t) json_array_size(runs) > (json_int_t) tmp.runs_merged) {
		cosched_error_set(err,
			"runs_merged: %lu is less than the %zu runs kept",
			tmp.runs_merged, json_array_size(runs));
		goto out;
	}
	for (size_t k = 0; k < json_array_size(runs); k++) {
		char prefix[32];
		snprintf(prefix, sizeof(prefix), "runs[%zu]", k);
		if (run_from_json(json_array_get(runs, k), prefix,
				  &tmp.runs[k], err))
			goto out;
		tmp.n_runs++;
	}

	if (get_array(root, "edp", "points", COSCHED_PROFILE_MAX_EDP_POINTS,
		      sizeof(*tmp.edp), &edp, (void **) &tmp.edp, err))
		goto out;
	for (size_t k = 0; k < json_array_size(edp); k++) {
		char prefix[32];
		snprintf(prefix, sizeof(prefix), "edp[%zu]", k);
		if (edp_from_json(json_array_get(edp, k), prefix, &tmp.edp[k],
				  err))
			goto out;
		for (int j = 0; j < tmp.n_edp; j++)
			if (!edp_cmp(&tmp.edp[j], tmp.edp[k].threads,
				     tmp.edp[k].freq_khz)) {
				cosched_error_set(err,
					"%s: duplicate point (threads %d, freq_khz %ld)",
					prefix, tmp.edp[k].threads,
					tmp.edp[k].freq_khz);
				goto out;
			}
		tmp.n_edp++;
	}
	if (tmp.n_edp > 1)
		qsort(tmp.edp, tmp.n_edp, sizeof(*tmp.edp), edp_qsort_cmp);

	*out = tmp;	/* commit only now: nothing half-loaded */
	rc = 0;
out:
	if (rc)
		cosched_profile_free(&tmp);
	json_decref(root);
	return rc;
}
