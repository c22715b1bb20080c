/*
 * cosched_profile.c - application profiles: runs, derived metrics, EDP
 * points, and their JSON form.
 */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_profile.h"

/* Sanity bounds on values read from files (not physical limits). */
#define THREADS_LIMIT 1048576
#define FREQ_KHZ_LIMIT 100000000L	/* 100 GHz */

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
			"ProfileMergeWeight: value %g out of range (0 < weight <= 1)",
			mp->weight);
	if (mp->max_samples < 1 ||
	    mp->max_samples > COSCHED_PROFILE_MAX_SAMPLES_LIMIT)
		return cosched_error_set(err,
			"ProfileMaxSamples: value %d out of range (1..%d)",
			mp->max_samples, COSCHED_PROFILE_MAX_SAMPLES_LIMIT);
	if (isnan(mp->node_peak_bw) || isinf(mp->node_peak_bw))
		return cosched_error_set(err,
			"NodePeakBandwidth: value %g is not a finite number",
			mp->node_peak_bw);
	return 0;
}

void cosched_run_init(cosched_run_t *run)
{
	run->instructions = NAN;
	run->cycles = NAN;
	run->llc_misses = NAN;
	run->mem_bytes_per_s = NAN;
	run->llc_to_core_bytes_per_s = NAN;
	run->mem_uops_fraction = NAN;
	run->energy_pkg_j = NAN;
	run->energy_cores_j = NAN;
	run->energy_dram_j = NAN;
	run->runtime_s = NAN;
	run->threads = 0;
	run->freq_khz = 0;
}

static void derived_unknown(cosched_derived_t *d)
{
	d->ipc = d->mpki = NAN;
	d->llc_miss_bw = d->mem_traffic_bw = d->llc_to_core_bw = NAN;
	d->llc_miss_bw_per_thread = d->mem_traffic_bw_per_thread = NAN;
	d->llc_to_core_bw_per_thread = NAN;
	d->mem_uops_fraction = d->bw_fraction = NAN;
	d->threads = NAN;
	d->power_w = NAN;
}

/* --- checks ------------------------------------------------------------- */

static int check_nonneg(const char *field, const char *name, double v,
			bool optional, cosched_error_t *err)
{
	if (isnan(v) && optional)
		return 0;
	if (!isfinite(v) || v < 0.0)
		return cosched_error_set(err,
			"%s.%s: expected a non-negative number, got %g",
			field, name, v);
	return 0;
}

int cosched_run_check(const char *field, const cosched_run_t *run,
		      cosched_error_t *err)
{
	if (!field)
		field = "run";
	if (check_nonneg(field, "instructions", run->instructions, false, err) ||
	    check_nonneg(field, "llc_misses", run->llc_misses, false, err) ||
	    check_nonneg(field, "mem_bytes_per_s", run->mem_bytes_per_s, true, err) ||
	    check_nonneg(field, "llc_to_core_bytes_per_s",
			 run->llc_to_core_bytes_per_s, true, err) ||
	    check_nonneg(field, "energy_pkg_j", run->energy_pkg_j, true, err) ||
	    check_nonneg(field, "energy_cores_j", run->energy_cores_j, true, err) ||
	    check_nonneg(field, "energy_dram_j", run->energy_dram_j, true, err))
		return -1;
	if (!isfinite(run->cycles) || run->cycles <= 0.0)
		return cosched_error_set(err,
			"%s.cycles: expected a positive number, got %g",
			field, run->cycles);
	if (!isfinite(run->runtime_s) || run->runtime_s <= 0.0)
		return cosched_error_set(err,
			"%s.runtime_s: expected a positive number, got %g",
			field, run->runtime_s);
	if (!isnan(run->mem_uops_fraction) &&
	    !(run->mem_uops_fraction >= 0.0 && run->mem_uops_fraction <= 1.0))
		return cosched_error_set(err,
			"%s.mem_uops_fraction: expected a number from 0 to 1, got %g",
			field, run->mem_uops_fraction);
	if (run->threads < 1 || run->threads > THREADS_LIMIT)
		return cosched_error_set(err,
			"%s.threads: expected an integer from 1 to %d, got %d",
			field, THREADS_LIMIT, run->threads);
	if (run->freq_khz < 0 || run->freq_khz > FREQ_KHZ_LIMIT)
		return cosched_error_set(err,
			"%s.freq_khz: expected an integer from 0 (unknown) to %ld, got %ld",
			field, FREQ_KHZ_LIMIT, run->freq_khz);
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

/* EWMA with NAN meaning "not known yet" on either side. */
static double ewma(double old, double new, double w)
{
	if (isnan(new))
		return old;
	if (isnan(old))
		return new;
	return w * new + (1.0 - w) * old;
}

static void derived_merge(cosched_derived_t *acc, const cosched_derived_t *d,
			  double w)
{
	acc->ipc = ewma(acc->ipc, d->ipc, w);
	acc->mpki = ewma(acc->mpki, d->mpki, w);
	acc->llc_miss_bw = ewma(acc->llc_miss_bw, d->llc_miss_bw, w);
	acc->mem_traffic_bw = ewma(acc->mem_traffic_bw, d->mem_traffic_bw, w);
	acc->llc_to_core_bw = ewma(acc->llc_to_core_bw, d->llc_to_core_bw, w);
	acc->llc_miss_bw_per_thread = ewma(acc->llc_miss_bw_per_thread,
					   d->llc_miss_bw_per_thread, w);
	acc->mem_traffic_bw_per_thread = ewma(acc->mem_traffic_bw_per_thread,
					      d->mem_traffic_bw_per_thread, w);
	acc->llc_to_core_bw_per_thread = ewma(acc->llc_to_core_bw_per_thread,
					      d->llc_to_core_bw_per_thread, w);
	acc->mem_uops_fraction = ewma(acc->mem_uops_fraction,
				      d->mem_uops_fraction, w);
	acc->bw_fraction = ewma(acc->bw_fraction, d->bw_fraction, w);
	acc->threads = ewma(acc->threads, d->threads, w);
	acc->power_w = ewma(acc->power_w, d->power_w, w);
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
		edp[idx].time_s = ewma(edp[idx].time_s, run->runtime_s, mp->weight);
		edp[idx].energy_j = ewma(edp[idx].energy_j, energy, mp->weight);
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

static int put(json_t *obj, const char *key, json_t *val)
{
	if (!val)
		return -1;
	return json_object_set_new(obj, key, val);
}

/* NAN is written as null (derived) or left out (optional=true, runs). */
static int put_real(json_t *obj, const char *key, double v, bool omit_nan)
{
	if (isnan(v))
		return omit_nan ? 0 : put(obj, key, json_null());
	return put(obj, key, json_real(v));
}

static json_t *derived_to_json(const cosched_derived_t *d)
{
	json_t *o = json_object();
	int rc = 0;

	if (!o)
		return NULL;
	rc |= put_real(o, "ipc", d->ipc, false);
	rc |= put_real(o, "mpki", d->mpki, false);
	rc |= put_real(o, "llc_miss_bw", d->llc_miss_bw, false);
	rc |= put_real(o, "mem_traffic_bw", d->mem_traffic_bw, false);
	rc |= put_real(o, "llc_to_core_bw", d->llc_to_core_bw, false);
	rc |= put_real(o, "llc_miss_bw_per_thread", d->llc_miss_bw_per_thread, false);
	rc |= put_real(o, "mem_traffic_bw_per_thread", d->mem_traffic_bw_per_thread, false);
	rc |= put_real(o, "llc_to_core_bw_per_thread", d->llc_to_core_bw_per_thread, false);
	rc |= put_real(o, "mem_uops_fraction", d->mem_uops_fraction, false);
	rc |= put_real(o, "bw_fraction", d->bw_fraction, false);
	rc |= put_real(o, "threads", d->threads, false);
	rc |= put_real(o, "power_w", d->power_w, false);
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *run_to_json(const cosched_run_t *r)
{
	json_t *o = json_object();
	int rc = 0;

	if (!o)
		return NULL;
	rc |= put_real(o, "instructions", r->instructions, true);
	rc |= put_real(o, "cycles", r->cycles, true);
	rc |= put_real(o, "llc_misses", r->llc_misses, true);
	rc |= put_real(o, "mem_bytes_per_s", r->mem_bytes_per_s, true);
	rc |= put_real(o, "llc_to_core_bytes_per_s", r->llc_to_core_bytes_per_s, true);
	rc |= put_real(o, "mem_uops_fraction", r->mem_uops_fraction, true);
	rc |= put_real(o, "energy_pkg_j", r->energy_pkg_j, true);
	rc |= put_real(o, "energy_cores_j", r->energy_cores_j, true);
	rc |= put_real(o, "energy_dram_j", r->energy_dram_j, true);
	rc |= put_real(o, "runtime_s", r->runtime_s, true);
	rc |= put(o, "threads", json_integer(r->threads));
	rc |= put(o, "freq_khz", json_integer(r->freq_khz));
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

char *cosched_profile_to_json(const cosched_profile_t *p, cosched_error_t *err)
{
	json_t *root = json_object(), *runs = json_array(), *edp = json_array();
	char *text = NULL;
	int rc = 0;

	if (!root || !runs || !edp)
		goto fail;
	rc |= put(root, "schema_version", json_integer(COSCHED_PROFILE_SCHEMA_VERSION));
	rc |= put(root, "app", json_string(p->app));
	rc |= put(root, "runs_merged", json_integer((json_int_t) p->runs_merged));
	rc |= put(root, "derived", derived_to_json(&p->derived));
	for (int i = 0; i < p->n_edp && !rc; i++) {
		const cosched_edp_point_t *e = &p->edp[i];
		json_t *o = json_object();
		if (!o) {
			rc = -1;
			break;
		}
		rc |= put(o, "threads", json_integer(e->threads));
		rc |= put(o, "freq_khz", json_integer(e->freq_khz));
		rc |= put_real(o, "time_s", e->time_s, false);
		rc |= put_real(o, "energy_j", e->energy_j, false);
		rc |= put(o, "samples", json_integer((json_int_t) e->samples));
		rc |= json_array_append_new(edp, o);
	}
	for (int i = 0; i < p->n_runs && !rc; i++)
		rc |= json_array_append_new(runs, run_to_json(&p->runs[i]));
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
	cosched_error_set(err, "%s: cannot serialise the profile (out of memory)",
			  p->app);
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

enum num_kind { NUM_NONNEG, NUM_POSITIVE, NUM_FRACTION };

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

static const char *const run_keys[] = {
	"instructions", "cycles", "llc_misses", "mem_bytes_per_s",
	"llc_to_core_bytes_per_s", "mem_uops_fraction", "energy_pkg_j",
	"energy_cores_j", "energy_dram_j", "runtime_s", "threads", "freq_khz",
	NULL
};

static int run_from_json(const json_t *o, const char *prefix,
			 cosched_run_t *r, cosched_error_t *err)
{
	json_int_t i;

	if (!json_is_object(o))
		return bad_value("", prefix, "an object", o, err);
	if (check_keys(o, prefix, run_keys, err))
		return -1;
	cosched_run_init(r);
	if (get_num(o, prefix, "instructions", NUM_NONNEG, false, &r->instructions, err) ||
	    get_num(o, prefix, "cycles", NUM_POSITIVE, false, &r->cycles, err) ||
	    get_num(o, prefix, "llc_misses", NUM_NONNEG, false, &r->llc_misses, err) ||
	    get_num(o, prefix, "mem_bytes_per_s", NUM_NONNEG, true, &r->mem_bytes_per_s, err) ||
	    get_num(o, prefix, "llc_to_core_bytes_per_s", NUM_NONNEG, true,
		    &r->llc_to_core_bytes_per_s, err) ||
	    get_num(o, prefix, "mem_uops_fraction", NUM_FRACTION, true,
		    &r->mem_uops_fraction, err) ||
	    get_num(o, prefix, "energy_pkg_j", NUM_NONNEG, true, &r->energy_pkg_j, err) ||
	    get_num(o, prefix, "energy_cores_j", NUM_NONNEG, true, &r->energy_cores_j, err) ||
	    get_num(o, prefix, "energy_dram_j", NUM_NONNEG, true, &r->energy_dram_j, err) ||
	    get_num(o, prefix, "runtime_s", NUM_POSITIVE, false, &r->runtime_s, err))
		return -1;
	if (get_int(o, prefix, "threads", 1, THREADS_LIMIT, false, 0, &i, err))
		return -1;
	r->threads = (int) i;
	if (get_int(o, prefix, "freq_khz", 0, FREQ_KHZ_LIMIT, true, 0, &i, err))
		return -1;
	r->freq_khz = (long) i;
	return 0;
}

static const char *const derived_keys[] = {
	"ipc", "mpki", "llc_miss_bw", "mem_traffic_bw", "llc_to_core_bw",
	"llc_miss_bw_per_thread", "mem_traffic_bw_per_thread",
	"llc_to_core_bw_per_thread", "mem_uops_fraction", "bw_fraction",
	"threads", "power_w", NULL
};

static int derived_from_json(const json_t *o, cosched_derived_t *d,
			     cosched_error_t *err)
{
	const char *pf = "derived";

	if (!json_is_object(o))
		return bad_value("", pf, "an object", o, err);
	if (check_keys(o, pf, derived_keys, err))
		return -1;
	if (get_num(o, pf, "ipc", NUM_NONNEG, true, &d->ipc, err) ||
	    get_num(o, pf, "mpki", NUM_NONNEG, true, &d->mpki, err) ||
	    get_num(o, pf, "llc_miss_bw", NUM_NONNEG, true, &d->llc_miss_bw, err) ||
	    get_num(o, pf, "mem_traffic_bw", NUM_NONNEG, true, &d->mem_traffic_bw, err) ||
	    get_num(o, pf, "llc_to_core_bw", NUM_NONNEG, true, &d->llc_to_core_bw, err) ||
	    get_num(o, pf, "llc_miss_bw_per_thread", NUM_NONNEG, true,
		    &d->llc_miss_bw_per_thread, err) ||
	    get_num(o, pf, "mem_traffic_bw_per_thread", NUM_NONNEG, true,
		    &d->mem_traffic_bw_per_thread, err) ||
	    get_num(o, pf, "llc_to_core_bw_per_thread", NUM_NONNEG, true,
		    &d->llc_to_core_bw_per_thread, err) ||
	    get_num(o, pf, "mem_uops_fraction", NUM_FRACTION, true,
		    &d->mem_uops_fraction, err) ||
	    get_num(o, pf, "bw_fraction", NUM_NONNEG, true, &d->bw_fraction, err) ||
	    get_num(o, pf, "threads", NUM_NONNEG, true, &d->threads, err) ||
	    get_num(o, pf, "power_w", NUM_NONNEG, true, &d->power_w, err))
		return -1;
	return 0;
}

static const char *const edp_keys[] = {
	"threads", "freq_khz", "time_s", "energy_j", "samples", NULL
};

static int edp_from_json(const json_t *o, const char *prefix,
			 cosched_edp_point_t *e, cosched_error_t *err)
{
	json_int_t i;

	if (!json_is_object(o))
		return bad_value("", prefix, "an object", o, err);
	if (check_keys(o, prefix, edp_keys, err))
		return -1;
	if (get_int(o, prefix, "threads", 1, THREADS_LIMIT, false, 0, &i, err))
		return -1;
	e->threads = (int) i;
	if (get_int(o, prefix, "freq_khz", 0, FREQ_KHZ_LIMIT, false, 0, &i, err))
		return -1;
	e->freq_khz = (long) i;
	if (get_num(o, prefix, "time_s", NUM_POSITIVE, false, &e->time_s, err) ||
	    get_num(o, prefix, "energy_j", NUM_NONNEG, true, &e->energy_j, err))
		return -1;
	if (get_int(o, prefix, "samples", 1, (json_int_t) LLONG_MAX, false, 0, &i, err))
		return -1;
	e->samples = (unsigned long) i;
	return 0;
}

static const char *const root_keys[] = {
	"schema_version", "app", "runs_merged", "derived", "edp", "runs", NULL
};

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

	runs = json_object_get(root, "runs");
	if (!json_is_array(runs)) {
		bad_value("", "runs", "an array", runs, err);
		goto out;
	}
	if (json_array_size(runs) > COSCHED_PROFILE_MAX_SAMPLES_LIMIT) {
		cosched_error_set(err, "runs: %zu runs, more than the limit %d",
				  json_array_size(runs),
				  COSCHED_PROFILE_MAX_SAMPLES_LIMIT);
		goto out;
	}
	if ((json_int_t) json_array_size(runs) > (json_int_t) tmp.runs_merged) {
		cosched_error_set(err,
			"runs_merged: %lu is less than the %zu runs kept",
			tmp.runs_merged, json_array_size(runs));
		goto out;
	}
	if (json_array_size(runs)) {
		tmp.runs = calloc(json_array_size(runs), sizeof(*tmp.runs));
		if (!tmp.runs) {
			cosched_error_set(err, "out of memory");
			goto out;
		}
	}
	for (size_t k = 0; k < json_array_size(runs); k++) {
		char prefix[32];
		snprintf(prefix, sizeof(prefix), "runs[%zu]", k);
		if (run_from_json(json_array_get(runs, k), prefix,
				  &tmp.runs[k], err))
			goto out;
		tmp.n_runs++;
	}

	edp = json_object_get(root, "edp");
	if (!json_is_array(edp)) {
		bad_value("", "edp", "an array", edp, err);
		goto out;
	}
	if (json_array_size(edp) > COSCHED_PROFILE_MAX_EDP_POINTS) {
		cosched_error_set(err, "edp: %zu points, more than the limit %d",
				  json_array_size(edp),
				  COSCHED_PROFILE_MAX_EDP_POINTS);
		goto out;
	}
	if (json_array_size(edp)) {
		tmp.edp = calloc(json_array_size(edp), sizeof(*tmp.edp));
		if (!tmp.edp) {
			cosched_error_set(err, "out of memory");
			goto out;
		}
	}
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
