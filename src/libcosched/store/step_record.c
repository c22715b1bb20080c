/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * step_record.c - a step record's JSON (cosched-sampler's
 * ProfileDir/jobs/JOB.STEP.NODE.json) read into what the learner and its
 * reports use (store/learner.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "src/libcosched/base/appname.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/store/learner.h"
#include "src/libcosched/store/live.h"

static bool json_num(json_t *o, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return isfinite(*out);
}

static int json_u32(json_t *o, const char *key, uint32_t *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > (json_int_t) UINT32_MAX)
		return -1;
	*out = (uint32_t) json_integer_value(v);
	return 0;
}

/* A count: an integer from 0 to 1000000 (0 when absent). */
static int json_count(json_t *o, const char *key, int *out)
{
	json_t *v = json_object_get(o, key);

	*out = 0;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > 1000000)
		return -1;
	*out = (int) json_integer_value(v);
	return 0;
}

/* "JOB.STEP" (cosched_step_ref_format: special steps as numbers). */
static int step_ref_parse(const char *s, uint32_t *job, uint32_t *step)
{
	char *end;
	unsigned long j, st;

	errno = 0;
	j = strtoul(s, &end, 10);
	if (end == s || *end != '.' || errno || j > UINT32_MAX)
		return -1;
	s = end + 1;
	st = strtoul(s, &end, 10);
	if (end == s || *end || errno || st > UINT32_MAX)
		return -1;
	*job = (uint32_t) j;
	*step = (uint32_t) st;
	return 0;
}

static void record_decision(json_t *d, cosched_step_record_t *r)
{
	const char *lca = json_string_value(json_object_get(d, "lca"));
	const char *sockets = json_string_value(json_object_get(d, "sockets"));
	const char *state = json_string_value(json_object_get(d, "state"));

	if (lca && !cosched_lca_parse("lca", lca, &r->lca, NULL) &&
	    r->lca < COSCHED_LCA_COUNT)
		r->has_class = true;
	r->placed = state && !strcmp(state, "placed");
	if (json_num(d, "predicted_slowdown", &r->predicted))
		r->has_prediction = true;
	if (sockets && *sockets &&
	    !cosched_idset_parse("sockets", sockets, &r->sockets, NULL))
		r->has_sockets = true;
}

/* A step record's JSON (cosched-sampler) into *r: 0, or -1 with err. */
static int cosched_step_record_parse(const char *text,
				     cosched_step_record_t *r,
				     cosched_error_t *err)
{
	json_error_t jerr;
	json_t *o = json_loads(text, 0, &jerr), *v;
	const char *s;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (!json_is_object(o)) {
		cosched_error_set(err, "not a JSON object (line %d: %.100s)",
				  jerr.line, jerr.text);
		goto out;
	}
	s = json_string_value(json_object_get(o, "node"));
	/* The node names the co-runners' files: a name the live loads
	 * would take (cosched_live_node_check), never a path. */
	if (json_u32(o, "job", &r->job) || json_u32(o, "step", &r->step) ||
	    !s || cosched_live_node_check(s, NULL)) {
		cosched_error_set(err, "no job, step or usable node name");
		goto out;
	}
	strcpy(r->node, s);
	/* The controller's name for the application (checked when it was
	 * set); anything else is no application. */
	s = json_string_value(json_object_get(o, "app"));
	if (s && !cosched_app_name_check("app", s, NULL))
		strcpy(r->app, s);
	/* Whose run it is, and whether its profile took it (the sampler's
	 * merge_profile): only such runs teach the learned table. */
	r->uid = -1;
	if (json_is_integer(v = json_object_get(o, "uid")) &&
	    json_integer_value(v) >= 0 && json_integer_value(v) <= INT32_MAX)
		r->uid = (long) json_integer_value(v);
	r->shared = json_is_true(json_object_get(o, "profile_shared"));
	s = json_string_value(json_object_get(o, "profile"));
	r->merged = s && !strncmp(s, "merged into ", strlen("merged into "));
	r->has_run = json_num(o, "runtime_s", &r->runtime_s) &&
		     json_num(o, "start_s", &r->start_s) &&
		     json_num(o, "end_s", &r->end_s) && r->runtime_s > 0.0 &&
		     r->end_s >= r->start_s;
	if (json_is_object(v = json_object_get(o, "decision")))
		record_decision(v, r);
	if (json_is_object(v = json_object_get(o, "exit"))) {
		if (json_count(v, "signalled", &r->signalled) ||
		    json_count(v, "failed", &r->failed)) {
			cosched_error_set(err, "exit: signalled and failed must be counts");
			goto out;
		}
		r->has_exit = true;
	}
	if (json_is_array(v = json_object_get(o, "co_runners"))) {
		size_t i;
		json_t *e;

		r->corunners_known = true;
		json_array_foreach(v, i, e) {
			const char *id = json_string_value(e);

			if (r->ncorunners == COSCHED_OBSERVE_CORUNNERS_MAX ||
			    !id || step_ref_parse(id,
					&r->corunner_job[r->ncorunners],
					&r->corunner_step[r->ncorunners])) {
				r->corunners_known = false;
				break;
			}
			r->ncorunners++;
		}
		if (!json_object_get(o, "co_runners_seen"))
			r->corunners_seen = r->ncorunners;
		else if (json_count(o, "co_runners_seen", &r->corunners_seen))
			r->corunners_known = false;
	}
	rc = 0;
out:
	json_decref(o);
	return rc;
}

int cosched_step_record_load(const char *path, cosched_step_record_t *r,
			     cosched_error_t *err)
{
	struct stat st;
	int missing = 0, rc;
	char *text = cosched_read_file_stat(path, COSCHED_STEP_RECORD_MAX_BYTES,
					    &missing, &st, err);

	if (!text)
		return missing ? 0 : -1;
	if (cosched_file_trusted(path, &st, "step records", err)) {
		free(text);
		return -1;
	}
	rc = cosched_step_record_parse(text, r, err);
	free(text);
	if (rc)
		return cosched_error_prefix(err, path);
	/* A record is kept under its own name (cosched-sampler's
	 * keep_central): another name is someone's copy. */
	{
		const char *base = strrchr(path, '/');
		char want[COSCHED_LEARN_NAME_MAX + 16];

		snprintf(want, sizeof(want), "%" PRIu32 ".%" PRIu32 ".%s.json",
			 r->job, r->step, r->node);
		if (strcmp(base ? base + 1 : path, want))
			return cosched_error_set(err,
				"%s: the record is of %s", path, want);
	}
	return 1;
}

