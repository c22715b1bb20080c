/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile_json.c - a profile's JSON form (schema version
 * COSCHED_PROFILE_SCHEMA_VERSION), both directions, driven by the field
 * tables of model/profile_fields.h.
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/model/profile_fields.h"
#include "src/libcosched/store/profile_json.h"
#include "src/libcosched/base/text.h"

/* The profile's characterisation by co-run: key and method. */
#define CORUN_KEY "characterisation"
#define CORUN_METHOD "co-run"

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

/* The characterisation by co-run (schema version 2). */
static json_t *slowdowns_to_json(writer_t *w, const char *key,
				 const double *v)
{
	json_t *o = json_object();
	int rc = 0;

	if (!o)
		return NULL;
	for (int k = 0; k < COSCHED_CAT_COUNT && !rc; k++)
		rc = put_real(w, o, key, cosched_category_name(k), v[k], false);
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *corun_to_json(writer_t *w, const cosched_corun_t *c)
{
	json_t *o = json_object();
	int rc = 0;

	if (!o)
		return NULL;
	rc |= put(w, o, "method", json_string(CORUN_METHOD));
	rc |= put(w, o, "category", json_string(cosched_category_name(c->cat)));
	rc |= put(w, o, "lca", json_string(cosched_lca_name(c->lca)));
	if (!rc)
		rc |= put_real(w, o, CORUN_KEY, "alone_s", c->alone_s, false);
	if (!rc)
		rc |= put(w, o, "next_to", slowdowns_to_json(w, CORUN_KEY ".next_to",
							c->victim));
	if (!rc)
		rc |= put(w, o, "caused", slowdowns_to_json(w, CORUN_KEY ".caused",
						       c->aggressor));
	if (!rc)
		rc |= put_real(w, o, CORUN_KEY, "mem_with_mem", c->mem_mem, false);
	rc |= put(w, o, "repeats", json_integer(c->repeats));
	rc |= put(w, o, "time", json_integer(c->time));
	rc |= put(w, o, "host", json_string(c->host));
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The lowest version that holds p (model/profile.h). */
static int schema_needed(const cosched_profile_t *p)
{
	if (p->owner_uid >= 0)
		return 4;
	if (p->counters[0])
		return 3;
	for (int i = 0; i < p->n_runs; i++)
		if (!cosched_run_counted(&p->runs[i]))
			return 3;
	return 2;
}

char *cosched_profile_to_json(const cosched_profile_t *p, cosched_error_t *err)
{
	json_t *root = json_object(), *runs = json_array(), *edp = json_array();
	writer_t w = { err, false };
	char *text = NULL;
	int rc = 0;

	if (!root || !runs || !edp)
		goto fail;
	rc |= put(&w, root, "schema_version", json_integer(schema_needed(p)));
	rc |= put(&w, root, "app", json_string(p->app));
	rc |= put(&w, root, "runs_merged", json_integer((json_int_t) p->runs_merged));
	if (p->owner_uid >= 0)
		rc |= put(&w, root, "owner_uid", json_integer((json_int_t) p->owner_uid));
	if (!rc)
		rc |= put(&w, root, "derived",
			  fields_to_json(&w, "derived", &cosched_derived_fields[0].f,
					 sizeof(cosched_derived_fields[0]),
					 cosched_n_derived_fields, &p->derived, false));
	for (int i = 0; i < p->n_edp && !rc; i++) {
		char prefix[32];
		snprintf(prefix, sizeof(prefix), "edp[%d]", i);
		rc |= json_array_append_new(edp,
			fields_to_json(&w, prefix, cosched_edp_fields, sizeof(cosched_edp_fields[0]),
				       cosched_n_edp_fields, &p->edp[i], false));
	}
	for (int i = 0; i < p->n_runs && !rc; i++) {
		char prefix[32];
		snprintf(prefix, sizeof(prefix), "runs[%d]", i);
		rc |= json_array_append_new(runs,
			fields_to_json(&w, prefix, cosched_run_fields, sizeof(cosched_run_fields[0]),
				       cosched_n_run_fields, &p->runs[i], true));
	}
	if (rc)
		goto fail;
	if (p->counters[0] &&
	    json_object_set_new(root, "counters", json_string(p->counters)))
		goto fail;
	if (p->corun.present) {
		json_t *c = corun_to_json(&w, &p->corun);
		if (!c || json_object_set_new(root, "characterisation", c))
			goto fail;
	}
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
		cosched_quote(buf, len, json_string_value(v));
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
	char got[COSCHED_QUOTE_BUF];

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
			return cosched_error_set(err, "%s: unknown field %s",
				*prefix ? prefix : "(top level)",
				COSCHED_QUOTE(key));
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
			return cosched_error_set(err, "%s: unknown field %s",
				*prefix ? prefix : "(top level)",
				COSCHED_QUOTE(key));
	}
	return 0;
}

static int run_from_json(const json_t *o, const char *prefix,
			 cosched_run_t *r, cosched_error_t *err)
{
	if (!json_is_object(o))
		return bad_value("", prefix, "an object", o, err);
	if (check_field_keys(o, prefix, cosched_run_fields, sizeof(cosched_run_fields[0]),
			     cosched_n_run_fields, err))
		return -1;
	cosched_run_init(r);
	if (fields_from_json(o, prefix, cosched_run_fields, sizeof(cosched_run_fields[0]),
			     cosched_n_run_fields, r, err))
		return -1;
	return cosched_run_check(prefix, r, err);
}

static int derived_from_json(const json_t *o, cosched_derived_t *d,
			     cosched_error_t *err)
{
	const char *pf = "derived";

	if (!json_is_object(o))
		return bad_value("", pf, "an object", o, err);
	if (check_field_keys(o, pf, &cosched_derived_fields[0].f,
			     sizeof(cosched_derived_fields[0]), cosched_n_derived_fields, err))
		return -1;
	return fields_from_json(o, pf, &cosched_derived_fields[0].f,
				sizeof(cosched_derived_fields[0]), cosched_n_derived_fields, d,
				err);
}

static int edp_from_json(const json_t *o, const char *prefix,
			 cosched_edp_point_t *e, cosched_error_t *err)
{
	if (!json_is_object(o))
		return bad_value("", prefix, "an object", o, err);
	if (check_field_keys(o, prefix, cosched_edp_fields, sizeof(cosched_edp_fields[0]),
			     cosched_n_edp_fields, err))
		return -1;
	return fields_from_json(o, prefix, cosched_edp_fields, sizeof(cosched_edp_fields[0]),
				cosched_n_edp_fields, e, err);
}

static const char *const root_keys[] = {
	"schema_version", "app", "runs_merged", "derived", "edp", "runs",
	CORUN_KEY, "counters", "owner_uid", NULL
};
static const char *const root_keys_v3[] = {
	"schema_version", "app", "runs_merged", "derived", "edp", "runs",
	CORUN_KEY, "counters", NULL
};
static const char *const root_keys_v2[] = {
	"schema_version", "app", "runs_merged", "derived", "edp", "runs",
	CORUN_KEY, NULL
};
static const char *const root_keys_v1[] = {
	"schema_version", "app", "runs_merged", "derived", "edp", "runs", NULL
};

static int get_str(const json_t *obj, const char *prefix, const char *key,
		   const char **out, cosched_error_t *err)
{
	json_t *v = json_object_get(obj, key);

	if (!v || !json_is_string(v))
		return bad_value(prefix, key, "a string", v, err);
	*out = json_string_value(v);
	return 0;
}

static int slowdowns_from_json(const json_t *o, const char *key, double *v,
			       cosched_error_t *err)
{
	static const char *const keys[] = { "cpu", "lim", "mem", "rand", NULL };
	json_t *s = json_object_get(o, key);
	char prefix[64];

	snprintf(prefix, sizeof(prefix), CORUN_KEY ".%s", key);
	if (!json_is_object(s))
		return bad_value(CORUN_KEY, key, "an object", s, err);
	if (check_keys(s, prefix, keys, err))
		return -1;
	for (int k = 0; k < COSCHED_CAT_COUNT; k++)
		if (get_num(s, prefix, cosched_category_name(k), NUM_POSITIVE,
			    false, &v[k], err))
			return -1;
	return 0;
}

static int corun_from_json(const json_t *o, cosched_corun_t *c,
			   cosched_error_t *err)
{
	static const char *const keys[] = {
		"method", "category", "lca", "alone_s", "next_to", "caused",
		"mem_with_mem", "repeats", "time", "host", NULL
	};
	const char *pf = CORUN_KEY, *s = "";
	json_int_t i;

	cosched_corun_init(c);
	if (!json_is_object(o))
		return bad_value("", pf, "an object", o, err);
	if (check_keys(o, pf, keys, err) || get_str(o, pf, "method", &s, err))
		return -1;
	if (strcmp(s, CORUN_METHOD))
		return bad_value(pf, "method", "\"" CORUN_METHOD "\"",
				 json_object_get(o, "method"), err);
	if (get_str(o, pf, "category", &s, err))
		return -1;
	if (strcmp(s, "unknown") &&
	    cosched_category_parse(CORUN_KEY ".category", s, &c->cat, err))
		return -1;
	if (get_str(o, pf, "lca", &s, err))
		return -1;
	if (strcmp(s, "unknown") &&
	    cosched_lca_parse(CORUN_KEY ".lca", s, &c->lca, err))
		return -1;
	if (get_num(o, pf, "alone_s", NUM_POSITIVE, false, &c->alone_s, err) ||
	    slowdowns_from_json(o, "next_to", c->victim, err) ||
	    slowdowns_from_json(o, "caused", c->aggressor, err) ||
	    get_num(o, pf, "mem_with_mem", NUM_POSITIVE, false, &c->mem_mem, err))
		return -1;
	if (get_int(o, pf, "repeats", 3, 1000, false, 0, &i, err))
		return -1;
	c->repeats = (int) i;
	if (get_int(o, pf, "time", 0, (json_int_t) 1 << 53, false, 0, &i, err))
		return -1;
	c->time = (long long) i;
	if (get_str(o, pf, "host", &s, err))
		return -1;
	if (strlen(s) > COSCHED_CORUN_HOST_MAX)
		return cosched_error_set(err, "%s.host: longer than %d characters",
					 pf, COSCHED_CORUN_HOST_MAX);
	strcpy(c->host, s);
	c->present = true;
	return cosched_corun_check(pf, c, err);
}

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

/* The "counters" note: printable ASCII (it reaches logs and status). */
static bool note_ok(const char *s, size_t len)
{
	if (!len || len > COSCHED_PROFILE_COUNTERS_MAX || strlen(s) != len)
		return false;
	for (size_t k = 0; k < len; k++)
		if (s[k] < 0x20 || s[k] > 0x7e)
			return false;
	return true;
}

int cosched_profile_from_json(cosched_profile_t *out, const char *text,
			      cosched_error_t *err)
{
	cosched_profile_t tmp;
	json_error_t jerr;
	json_t *root, *v, *runs, *edp;
	json_int_t i;
	int rc = -1, schema;

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
	if (json_integer_value(v) < COSCHED_PROFILE_SCHEMA_VERSION_MIN ||
	    json_integer_value(v) > COSCHED_PROFILE_SCHEMA_VERSION) {
		cosched_error_set(err,
			"schema_version: unsupported version %" JSON_INTEGER_FORMAT
			" (this cosched reads versions %d to %d)",
			json_integer_value(v), COSCHED_PROFILE_SCHEMA_VERSION_MIN,
			COSCHED_PROFILE_SCHEMA_VERSION);
		goto out;
	}
	schema = (int) json_integer_value(v);
	if (check_keys(root, "", schema == 1 ? root_keys_v1 :
		       schema == 2 ? root_keys_v2 :
		       schema == 3 ? root_keys_v3 : root_keys, err))
		goto out;
	v = json_object_get(root, "app");
	if (!v || !json_is_string(v)) {
		bad_value("", "app", "a string", v, err);
		goto out;
	}
	if (cosched_profile_init(&tmp, json_string_value(v), err))
		goto out;
	if (get_int(root, "", "runs_merged", 0,
		    (json_int_t) COSCHED_PROFILE_COUNT_MAX, false, 0, &i, err))
		goto out;
	tmp.runs_merged = (unsigned long) i;
	if (get_int(root, "", "owner_uid", 0, (json_int_t) UINT32_MAX - 1,
		    true, -1, &i, err))
		goto out;
	tmp.owner_uid = (long) i;
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
		if (schema < 3 && !cosched_run_counted(&tmp.runs[k])) {
			cosched_error_set(err,
				"%s: no counter values, which schema version %d does not allow (version 3 does)",
				prefix, schema);
			goto out;
		}
		tmp.n_runs++;
	}
	v = json_object_get(root, "counters");
	if (v) {
		if (!json_is_string(v) || !note_ok(json_string_value(v),
						   json_string_length(v))) {
			bad_value("", "counters",
				  "a note of 1 to 200 printable characters", v,
				  err);
			goto out;
		}
		strcpy(tmp.counters, json_string_value(v));
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
			if (!cosched_edp_cmp(&tmp.edp[j], tmp.edp[k].threads,
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
		qsort(tmp.edp, tmp.n_edp, sizeof(*tmp.edp), cosched_edp_qsort_cmp);
	if (json_object_get(root, CORUN_KEY) &&
	    corun_from_json(json_object_get(root, CORUN_KEY), &tmp.corun, err))
		goto out;

	*out = tmp;	/* commit only now: nothing half-loaded */
	rc = 0;
out:
	if (rc)
		cosched_profile_free(&tmp);
	json_decref(root);
	return rc;
}
