/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * interference.c - cosched-status --interference and
 * --reset-interference: the interference table slurmctld learned from
 * the step records (src/libcosched/store/learner.h), set beside the configured one,
 * and its reset; and --observations: the observation rule
 * (src/libcosched/model/observe.h) over every step record, for reports
 * (cosched-model-check(1)), so that the report and the learner judge
 * records by one rule.  Reads cosched.conf (ProfileDir, InterferenceSource,
 * InterferenceMinSamples, InterferenceHalfLife) and the files; asks
 * slurmctld nothing.
 */
#include "cosched_config.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "src/libcosched/conf/conf.h"
#include "src/libcosched/store/learner.h"
#include "src/libcosched/base/text.h"
#include "src/status/interference.h"

const char *status_slurm_conf(void)
{
	const char *slurm_conf = getenv("SLURM_CONF");

	return slurm_conf && *slurm_conf ? slurm_conf : "/etc/slurm/slurm.conf";
}

/* cosched.conf beside slurm.conf, as Slurm's get_extra_conf_path finds
 * it. */
static void default_conf_path(char *buf, size_t len)
{
	char copy[COSCHED_PATH_MAX];

	snprintf(copy, sizeof(copy), "%s", status_slurm_conf());
	snprintf(buf, len, "%s/cosched.conf", dirname(copy));
}

static void print_time(FILE *out, const char *what, long long t)
{
	char buf[64];
	time_t tt = (time_t) t;
	struct tm tm;

	if (t > 0 && localtime_r(&tt, &tm))
		strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	else
		snprintf(buf, sizeof(buf), "-");
	fprintf(out, "%s %s", what, buf);
}

static int show(const cosched_conf_t *conf, const cosched_learn_table_t *t,
		bool found, const char *path, bool json, FILE *out)
{
	cosched_interference_model_t used;
	cosched_pref_rule_t rule;
	long long now = (long long) time(NULL);
	double half_life = conf->interference_half_life_days * 86400.0;
	bool learned = conf->interference_source == COSCHED_ISOURCE_LEARNED;
	int nused = 0;
	double lo, hi;

	cosched_interference_range(&conf->interference, &lo, &hi);
	cosched_pref_rule_default(&rule);
	cosched_learn_apply(t, &conf->interference,
			    conf->interference_min_samples, half_life, &rule,
			    now, &used, &nused);
	if (json) {
		json_t *o = json_object(), *cells = json_array();
		json_t *skipped = json_object();
		char *text;

		json_object_set_new(o, "file", json_string(path));
		json_object_set_new(o, "found", json_boolean(found));
		json_object_set_new(o, "source", json_string(
			cosched_interference_source_name(
				conf->interference_source)));
		json_object_set_new(o, "min_samples",
				    json_real(conf->interference_min_samples));
		json_object_set_new(o, "half_life_days",
				    json_real(conf->interference_half_life_days));
		json_object_set_new(o, "created", json_integer(t->created));
		json_object_set_new(o, "updated", json_integer(t->updated));
		json_object_set_new(o, "solo_apps", json_integer(t->nsolo));
		for (int v = 0; v < COSCHED_LCA_COUNT; v++)
			for (int c = 0; c < COSCHED_LCA_COUNT; c++) {
				const cosched_learn_cell_t *cell = &t->cell[v][c];
				double value;
				int users;
				json_t *e;

				if (!cell->n)
					continue;
				value = cosched_learn_cell_robust(cell,
					conf->interference.slowdown[v][c], lo,
					hi, now, half_life, &users);
				e = json_object();
				json_object_set_new(e, "victim", json_string(
					cosched_lca_name(v)));
				json_object_set_new(e, "corunner", json_string(
					cosched_lca_name(c)));
				json_object_set_new(e, "learned", json_real(
					cosched_learn_cell_value(cell)));
				json_object_set_new(e, "samples", json_real(
					cosched_learn_cell_samples(cell, now,
								   half_life)));
				json_object_set_new(e, "n", json_integer(cell->n));
				/* Who stands behind it: the users whose runs
				 * still count, and what their vote gives. */
				json_object_set_new(e, "users",
						    json_integer(users));
				json_object_set_new(e, "value",
						    json_real(value));
				json_object_set_new(e, "configured", json_real(
					conf->interference.slowdown[v][c]));
				json_object_set_new(e, "used", json_boolean(
					learned && used.slowdown[v][c] !=
					conf->interference.slowdown[v][c]));
				json_array_append_new(cells, e);
			}
		json_object_set_new(o, "cells", cells);
		for (int r = 0; r < COSCHED_SKIP_COUNT; r++)
			if (t->skipped[r])
				json_object_set_new(skipped,
					cosched_learn_skip_key(r),
					json_integer(t->skipped[r]));
		json_object_set_new(o, "skipped", skipped);
		text = json_dumps(o, JSON_INDENT(1) | JSON_SORT_KEYS);
		json_decref(o);
		if (!text)
			return -1;
		fprintf(out, "%s\n", text);
		free(text);
		return 0;
	}
	fprintf(out, "learned interference table %s", path);
	if (!found) {
		fprintf(out, ": none yet (slurmctld writes it at its first "
			"run with this release)\n");
	} else {
		fprintf(out, " (");
		print_time(out, "created", t->created);
		fprintf(out, ", ");
		print_time(out, "updated", t->updated);
		fprintf(out, ")\n");
	}
	fprintf(out, "InterferenceSource=%s InterferenceMinSamples=%g InterferenceHalfLife=%g days: %s\n",
		cosched_interference_source_name(conf->interference_source),
		conf->interference_min_samples,
		conf->interference_half_life_days,
		learned ? "cells with enough samples replace the configured ones" :
			  "learned, not used");
	fprintf(out, "%-7s %-10s %8s %8s %6s %5s %6s %11s %5s\n", "VICTIM",
		"CORUNNER", "LEARNED", "SAMPLES", "N", "USERS", "VALUE",
		"CONFIGURED", "USED");
	for (int v = 0; v < COSCHED_LCA_COUNT; v++)
		for (int c = 0; c < COSCHED_LCA_COUNT; c++) {
			const cosched_learn_cell_t *cell = &t->cell[v][c];
			double value;
			int users;

			if (!cell->n)
				continue;
			value = cosched_learn_cell_robust(cell,
				conf->interference.slowdown[v][c], lo, hi, now,
				half_life, &users);
			fprintf(out, "%-7s %-10s %8.2f %8.1f %6lld %5d %6.2f %11.2f %5s\n",
				cosched_lca_name(v), cosched_lca_name(c),
				cosched_learn_cell_value(cell),
				cosched_learn_cell_samples(cell, now, half_life),
				cell->n, users, value,
				conf->interference.slowdown[v][c],
				learned && used.slowdown[v][c] !=
				conf->interference.slowdown[v][c] ? "yes" : "no");
		}
	fprintf(out, "solo run times kept for %d applications and owners\n",
		t->nsolo);
	for (int r = 0; r < COSCHED_SKIP_COUNT; r++)
		if (t->skipped[r])
			fprintf(out, "not learned from: %lld (%s)\n",
				t->skipped[r], cosched_learn_skip_text(r));
	return 0;
}

static int read_conf(const char *conf_path, cosched_conf_t *conf,
		     FILE *errout)
{
	char path_buf[COSCHED_PATH_MAX];
	cosched_error_t err;

	if (!conf_path) {
		default_conf_path(path_buf, sizeof(path_buf));
		conf_path = path_buf;
	}
	cosched_conf_init(conf);
	if (cosched_conf_parse_file(conf, conf_path, &err)) {
		fprintf(errout, "cosched-status: %s\n", err.msg);
		return -1;
	}
	return 0;
}

/* Why a file under ProfileDir that path names cannot be read, when the
 * caller may not (nothing otherwise): the site's rule, not a fault. */
static const char *denied(const status_viewer_t *v, const char *path)
{
	if (!access(path, R_OK) || errno != EACCES)
		return "";
	return v->privacy.on ?
	       " (PrivateData=jobs: ProfileDir and the files in it about jobs are root's and SlurmUser's only; cosched(8), SECURITY)" :
	       " (needs read access to ProfileDir)";
}

/* ---- --observations ------------------------------------------------------ */

typedef struct {
	json_t *records;
	int n;
	const status_viewer_t *viewer;
	int hidden_unreadable;	/* records this caller could not read */
} obs_ctx_t;

/* squeue's rule: under PrivateData=jobs, a record is shown to root,
 * SlurmUser and the job's own user; one that could not be read is
 * nobody's that the caller can prove theirs. */
static bool obs_visible(const status_viewer_t *v,
			const cosched_step_record_t *r)
{
	return !v->privacy.on || v->sees_all || (r && r->uid == v->uid);
}

static const char *kind_name(cosched_obs_kind_t k)
{
	switch (k) {
	case COSCHED_OBS_PAIR: return "pair";
	case COSCHED_OBS_SOLO: return "solo";
	case COSCHED_OBS_PENDING: return "pending";
	default: return "skipped";
	}
}

static void one_observation(void *ctx, const char *name,
			    const cosched_step_record_t *r,
			    const cosched_observation_t *o)
{
	obs_ctx_t *c = ctx;
	json_t *e;

	if (!obs_visible(c->viewer, r)) {
		c->hidden_unreadable += !r;
		return;
	}
	e = json_object();
	json_object_set_new(e, "record", json_string(name));
	json_object_set_new(e, "kind", json_string(kind_name(o->kind)));
	if (o->kind == COSCHED_OBS_SKIP)
		json_object_set_new(e, "reason", json_string(
			cosched_learn_skip_key(o->why)));
	if (r) {
		/* The app is the controller's (a checked name), but a
		 * record is a file: jansson escapes whatever it holds. */
		json_object_set_new(e, "app", json_string(r->app));
		if (r->has_run)
			json_object_set_new(e, "runtime_s",
					    json_real(r->runtime_s));
		if (r->has_class)
			json_object_set_new(e, "class", json_string(
				cosched_lca_name(r->lca)));
		if (r->has_prediction)
			json_object_set_new(e, "predicted",
					    json_real(r->predicted));
	}
	if (o->kind == COSCHED_OBS_PAIR) {
		json_object_set_new(e, "victim", json_string(
			cosched_lca_name(o->victim)));
		json_object_set_new(e, "corunner", json_string(
			cosched_lca_name(o->corunner)));
	}
	json_array_append_new(c->records, e);
	c->n++;
}

int status_observations(const char *conf_path, const char *profile_dir,
			double min_overlap, const status_viewer_t *viewer,
			FILE *out, FILE *errout)
{
	obs_ctx_t ctx = { json_array(), 0, viewer, 0 };
	char jobs[COSCHED_PATH_MAX + 64];
	cosched_conf_t conf;
	cosched_error_t err;
	json_t *o;
	char *text;
	int rc = 1;

	if (!profile_dir) {
		if (read_conf(conf_path, &conf, errout)) {
			json_decref(ctx.records);
			return 1;
		}
		profile_dir = conf.profile_dir;
	}
	/* A folder the caller may not read is an answer of its own, not
	 * "no record". */
	snprintf(jobs, sizeof(jobs), "%s/%s", profile_dir,
		 COSCHED_LEARNER_JOBS_SUBDIR);
	if (*denied(viewer, jobs)) {
		fprintf(errout, "cosched-status: --observations: %s: %s%s\n",
			jobs, strerror(EACCES), denied(viewer, jobs));
		json_decref(ctx.records);
		return 1;
	}
	if (cosched_observe_dir(profile_dir, min_overlap, one_observation,
				&ctx, &err)) {
		fprintf(errout, "cosched-status: --observations: %s\n",
			err.msg);
		json_decref(ctx.records);
		return 1;
	}
	if (ctx.hidden_unreadable)
		fprintf(errout, "cosched-status: --observations: %d step records in %s could not be read and are not shown%s\n",
			ctx.hidden_unreadable, jobs, viewer->privacy.on ?
			" (PrivateData=jobs: records are root's and SlurmUser's only; cosched(8), SECURITY)" :
			"");
	o = json_object();
	json_object_set_new(o, "profile_dir", json_string(profile_dir));
	json_object_set_new(o, "min_overlap", json_real(min_overlap));
	json_object_set_new(o, "records", ctx.records);
	text = json_dumps(o, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(o);
	if (text && fprintf(out, "%s\n", text) >= 0 && !fflush(out))
		rc = 0;
	else
		fprintf(errout, "cosched-status: cannot write the observations\n");
	free(text);
	return rc;
}

/* ---- --interference ------------------------------------------------------- */

int status_interference(const char *conf_path, bool reset, bool json,
			const status_viewer_t *viewer, FILE *out,
			FILE *errout)
{
	char file[COSCHED_PATH_MAX + 64];
	cosched_learn_table_t t;
	cosched_conf_t conf;
	cosched_error_t err;
	int rc;

	if (read_conf(conf_path, &conf, errout))
		return 1;
	snprintf(file, sizeof(file), "%s/%s", conf.profile_dir,
		 COSCHED_LEARNER_FILE);
	cosched_learn_init(&t, (long long) time(NULL));
	if (reset) {
		if (cosched_learner_file_save(conf.profile_dir,
					      &viewer->privacy, &t, &err)) {
			fprintf(errout, "cosched-status: --reset-interference: %s (only root and SlurmUser may write ProfileDir)\n",
				err.msg);
			cosched_learn_free(&t);
			return 1;
		}
		fprintf(out, "%s: reset: slurmctld takes the empty table at its next profile refresh and learns from the records of steps that end from now on\n",
			file);
		cosched_learn_free(&t);
		return 0;
	}
	rc = cosched_learner_file_load(conf.profile_dir, &t, &err);
	if (rc < 0) {
		fprintf(errout, "cosched-status: %s%s\n", err.msg,
			denied(viewer, file));
		cosched_learn_free(&t);
		return 1;
	}
	rc = show(&conf, &t, rc == 1, file, json, out);
	cosched_learn_free(&t);
	if (rc || fflush(out)) {
		fprintf(errout, "cosched-status: cannot write the table\n");
		return 1;
	}
	return 0;
}
