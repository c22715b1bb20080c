/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sampler_record.c - what cosched-sampler writes when the step ends
 * (sampler.h): its run merged into its application's profile, and the
 * step record cosched(8) documents under PROFILING and ENERGY.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "src/libcosched/store/live.h"
#include "src/node/sampler.h"

int sampler_event_index(const sampler_t *s, const char *name)
{
	for (int i = 0; i < s->nevents; i++) {
		const char *role = cosched_counters_role(s->names[i]);

		if (!strcmp(s->names[i], name) || (role && !strcmp(role, name)))
			return i;
	}
	return -1;
}

/* The record's state: "measured", or "counters unavailable: REASON". */
static void counters_state(const sampler_t *s, char *state, size_t len)
{
	int ins = sampler_event_index(s, "instructions");
	int miss = sampler_event_index(s, "LLC-load-misses");
	bool any = false;

	for (int i = 0; i < s->nevents; i++)
		any |= s->counted[i];
	if (!s->ntasks)
		snprintf(state, len, "counters unavailable: no task ran");
	else if (!any)
		/* The counters' own messages may already say it. */
		snprintf(state, len, "counters unavailable: %.500s",
			 !s->attach_error[0] ? "no event read" :
			 !strncmp(s->attach_error, "counters unavailable: ", 22) ?
			 s->attach_error + 22 : s->attach_error);
	else if (ins < 0 || miss < 0 || !s->counted[ins] || !s->counted[miss])
		snprintf(state, len,
			 "counters unavailable: %s (runtime and software events only)",
			 ins >= 0 && s->first_unavailable[ins][0] ?
			 s->first_unavailable[ins] :
			 miss >= 0 && s->first_unavailable[miss][0] ?
			 s->first_unavailable[miss] :
			 "instructions and LLC-load-misses not in SampleEvents");
	else
		snprintf(state, len, "measured");
}

/*
 * The step's run, merged into the profile of its application that is its
 * user's to build (store/store.h) in the store
 * (ProfileDir, from cosched.conf) when the counters a profile needs
 * counted: instructions, cycles and LLC-load-misses.  What happened goes
 * into the record's "profile" field.
 */
void sampler_merge_profile(sampler_t *s)
{
	double runtime_s = sampler_runtime_s(s);
	int ins = sampler_event_index(s, "instructions"), cyc = sampler_event_index(s, "cycles");
	int miss = sampler_event_index(s, "LLC-load-misses");
	cosched_merge_params_t mp;
	cosched_store_t store;
	cosched_error_t err;
	cosched_run_t run;
	char state[COSCHED_ERROR_MSG_LEN + 64];
	char key[COSCHED_PROFILE_KEY_MAX + 1];
	const char *note = NULL;
	bool counted;

	if (!s->app || !*s->app) {
		snprintf(s->merged, sizeof(s->merged), "not merged: the job names no application");
		return;
	}
	counted = ins >= 0 && cyc >= 0 && miss >= 0 && s->counted[ins] &&
		  s->counted[cyc] && s->counted[miss] && s->total[ins] &&
		  s->total[cyc];
	if (!counted) {
		/* Runtime, threads and energy still go in; the profile
		 * notes why there are no counter values. */
		counters_state(s, state, sizeof(state));
		note = state + strlen("counters ");
		if (strncmp(state, "counters ", strlen("counters ")))
			note = "unavailable: instructions, cycles and LLC-load-misses did not all count";
	}
	if (s->conf_error[0]) {
		snprintf(s->merged, sizeof(s->merged), "not merged: %s",
			 s->conf_error);
		return;
	}
	cosched_conf_merge_params(&s->conf, &mp);
	cosched_run_init(&run);
	if (counted) {
		run.instructions = (double) s->total[ins];
		run.cycles = (double) s->total[cyc];
		run.llc_misses = (double) s->total[miss];
	}
	run.runtime_s = runtime_s > 0.001 ? runtime_s : 0.001;
	/* Most steps too short to merge (ProfileMinRuntime) are jobs that
	 * failed at once; asked before the store is opened so that they
	 * cost the node no lock, read or fsync. */
	if (cosched_run_long_enough(&run, &mp, &err)) {
		snprintf(s->merged, sizeof(s->merged), "not merged: %s", err.msg);
		return;
	}
	run.threads = s->threads > 0 ? s->threads : 1;
	if (s->freq_khz > 0 && s->freq_khz <= 100000000L)
		run.freq_khz = s->freq_khz;
	if (s->energy.in_ledger && s->energy.rapl) {
		/* The step's share of the node's (cosched(8) ENERGY):
		 * package is idle/uncore + core, as RAPL counts it. */
		const cosched_ledger_step_t *me = &s->energy.me;

		run.energy_pkg_j = (double) (me->energy.uncore_uj +
					     me->energy.core_uj) / 1e6;
		if (cosched_rapl_has_core(s->energy.rapl))
			run.energy_cores_j = (double) me->energy.core_uj / 1e6;
		if (cosched_rapl_has_dram(s->energy.rapl))
			run.energy_dram_j = (double) me->energy.dram_uj / 1e6;
	}
	/* Whose profile it is decides whether this run goes in: a user's
	 * runs must not reshape another's (cosched_profile_may_merge). */
	if (s->uid < 0) {
		snprintf(s->merged, sizeof(s->merged),
			 "not merged: the job's user is not known (--uid)");
		return;
	}
	if (cosched_store_open(&store, s->conf.profile_dir, &mp, &err)) {
		snprintf(s->merged, sizeof(s->merged), "not merged: %s", err.msg);
		return;
	}
	store.privacy = s->privacy;
	if (cosched_store_merge_run_by(&store, s->app, &run, note, s->uid,
				       cosched_conf_profile_shared(&s->conf,
								   s->app),
				       key, NULL, &err))
		snprintf(s->merged, sizeof(s->merged), "not merged: %s", err.msg);
	else
		snprintf(s->merged, sizeof(s->merged), "merged into %s/%s.json",
			 s->conf.profile_dir, key);
}

/* Replace path with o as the record is written (indented, keys sorted),
 * atomically (cosched_file_replace); not durable: a record torn by a
 * crash of the node does not parse and is the only one lost. */
static int json_replace(const char *path, const json_t *o,
			const cosched_private_t *privacy, cosched_error_t *err)
{
	char *text = json_dumps(o, JSON_INDENT(1) | JSON_SORT_KEYS);
	int rc;

	if (!text)
		return cosched_error_set(err, "%s: out of memory", path);
	rc = cosched_private_replace(privacy, path, text, strlen(text), 0,
				     err);
	free(text);
	return rc;
}

/*
 * A copy of the record in the store, ProfileDir/jobs/JOB.STEP.NODE.json,
 * where reports read every node's records in one place (the node's own
 * copy stays in its spool).  Root writes it atomically, public or private
 * as the site's PrivateData says (--private-data; io/private.h); the
 * record's "central" says where it went or why it did not.
 */
static void keep_central(const sampler_t *s, json_t *o)
{
	char dir[COSCHED_PATH_MAX + 16], path[COSCHED_PATH_MAX + 128];
	cosched_error_t err;
	char msg[COSCHED_ERROR_MSG_LEN + 16];

	if (s->conf_error[0]) {
		json_object_set_new(o, "central", json_string("not kept: cosched.conf unreadable"));
		return;
	}
	if (cosched_live_node_check(s->node, &err)) {
		json_object_set_new(o, "central", json_string("not kept: no usable node name"));
		return;
	}
	snprintf(dir, sizeof(dir), "%s/jobs", s->conf.profile_dir);
	snprintf(path, sizeof(path), "%s/%u.%u.%s.json", dir, s->job, s->step,
		 s->node);
	if ((!s->privacy.on || !cosched_private_dir(&s->privacy,
						   s->conf.profile_dir, false,
						   &err)) &&
	    !cosched_private_dir(&s->privacy, dir, true, &err)) {
		/* The copy says where it is kept. */
		json_object_set_new(o, "central", json_string(path));
		if (!json_replace(path, o, &s->privacy, &err))
			return;
	}
	snprintf(msg, sizeof(msg), "not kept: %s", err.msg);
	json_object_set_new(o, "central", json_string(msg));
}

/* The wall clock, in seconds with their fraction. */
double sampler_wall_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (double) now.tv_sec + (double) now.tv_nsec / 1e9;
}

double sampler_elapsed_s(const struct timespec *from,
			 const struct timespec *to)
{
	return (double) (to->tv_sec - from->tv_sec) +
	       (double) (to->tv_nsec - from->tv_nsec) / 1e9;
}

/* Seconds the step ran since the sampler started (the step's start),
 * monotonic, without the time Slurm kept it suspended. */
double sampler_runtime_s(const sampler_t *s)
{
	struct timespec now;
	double ran;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ran = sampler_elapsed_s(&s->t0, &now) - s->suspend.stopped_s;
	return ran > 0.0 ? ran : 0.0;
}

/* A string member when the value was given. */
static void set_string(json_t *o, const char *key, const char *value)
{
	if (value)
		json_object_set_new(o, key, json_string(value));
}

/*
 * What the controller decided and predicted for the job, beside what the
 * step measured: its class, the model's predicted slowdown when it
 * started, and its sockets on this node (the co-runners that shared
 * them are the ones the prediction is about): the observations
 * cosched-model-check(1) sets against the prediction.
 */
static json_t *decision_json(const sampler_t *s)
{
	json_t *o = json_object();

	set_string(o, "state", s->decision.state);
	set_string(o, "policy", s->decision.policy);
	set_string(o, "class", s->decision.cls);
	set_string(o, "lca", s->decision.lca);
	set_string(o, "source", s->decision.source);
	if (isfinite(s->decision.slowdown))
		json_object_set_new(o, "predicted_slowdown",
				    json_real(s->decision.slowdown));
	set_string(o, "sockets", s->decision.sockets);
	return o;
}

int sampler_write_record(sampler_t *s)
{
	json_t *o = json_object(), *ev = json_object(), *un = json_object();
	json_t *der = json_object(), *tasks = json_array();
	char state[COSCHED_ERROR_MSG_LEN + 32];
	cosched_error_t err;
	int ins = sampler_event_index(s, "instructions"), cyc = sampler_event_index(s, "cycles");
	int miss = sampler_event_index(s, "LLC-load-misses");
	int clk = sampler_event_index(s, "task-clock");
	int rc;

	for (int i = 0; i < s->nevents; i++) {
		if (s->counted[i]) {
			json_object_set_new(ev, s->names[i],
					    json_integer((json_int_t) s->total[i]));
		} else {
			json_object_set_new(un, s->names[i], json_string(
				s->first_unavailable[i][0] ?
				s->first_unavailable[i] :
				s->ntasks ? "not read" : "no task ran"));
		}
	}
	for (int t = 0; t < s->ntasks; t++)
		json_array_append_new(tasks, json_integer(s->task[t].pid));
	if (clk >= 0 && s->counted[clk])
		json_object_set_new(der, "cpu_s",
				    json_real((double) s->total[clk] / 1e9));
	if (ins >= 0 && cyc >= 0 && s->counted[ins] && s->counted[cyc] &&
	    s->total[cyc])
		json_object_set_new(der, "ipc", json_real(
			(double) s->total[ins] / (double) s->total[cyc]));
	if (ins >= 0 && miss >= 0 && s->counted[ins] && s->counted[miss] &&
	    s->total[ins]) {
		json_object_set_new(der, "mpki", json_real(
			1000.0 * (double) s->total[miss] / (double) s->total[ins]));
		json_object_set_new(der, "mpki_ewma", json_real(s->mpki_ewma));
		/* The bandwidth from misses of "Power-aware gang scheduling
		 * on multicore" (NTUA thesis, 2013): a line per miss, over the
		 * time it ran. */
		{
			double secs = sampler_runtime_s(s);

			if (secs > 0.0)
				json_object_set_new(der, "llc_miss_bw",
					json_real((double) s->total[miss] * 64.0 /
						  secs));
		}
		json_object_set_new(der, "mpki_max", json_real(s->mpki_max));
	}
	counters_state(s, state, sizeof(state));
	json_object_set_new(o, "schema", json_integer(1));
	json_object_set_new(o, "job", json_integer(s->job));
	json_object_set_new(o, "step", json_integer(s->step));
	json_object_set_new(o, "node", json_string(s->node));
	json_object_set_new(o, "start", json_integer(s->start));
	json_object_set_new(o, "end", json_integer(time(NULL)));
	json_object_set_new(o, "runtime_s", json_real(sampler_runtime_s(s)));
	{
		json_t *susp = sampler_suspend_json(&s->suspend);

		if (susp)
			json_object_set_new(o, "suspended", susp);
	}
	json_object_set_new(o, "start_s", json_real(s->start_s));
	json_object_set_new(o, "end_s", json_real(sampler_wall_now()));
	json_object_set_new(o, "interval_s", json_real(s->interval));
	json_object_set_new(o, "threads", json_integer(s->threads > 0 ?
							s->threads : 1));
	if (s->freq_khz > 0)
		json_object_set_new(o, "freq_khz", json_integer(s->freq_khz));
	json_object_set_new(o, "backend", json_string(s->backend_what));
	json_object_set_new(o, "samples", json_integer(s->samples));
	json_object_set_new(o, "tasks", tasks);
	json_object_set_new(o, "events", ev);
	json_object_set_new(o, "unavailable", un);
	json_object_set_new(o, "derived", der);
	json_object_set_new(o, "state", json_string(state));
	if (s->app && *s->app)
		json_object_set_new(o, "app", json_string(s->app));
	/* Whose run it is: the learner keeps each user's solo runs apart and
	 * weighs users, not runs (model/learn.h). */
	if (s->uid >= 0)
		json_object_set_new(o, "uid", json_integer(s->uid));
	if (s->app && *s->app && !s->conf_error[0] &&
	    cosched_conf_profile_shared(&s->conf, s->app))
		json_object_set_new(o, "profile_shared", json_true());
	json_object_set_new(o, "profile", json_string(s->merged));
	json_object_set_new(o, "energy", sampler_energy_json(&s->energy));
	json_object_set_new(o, "live", json_string(
		s->live_state[0] ? s->live_state :
		!s->conf.live_loads ? "off (LiveLoads=no)" :
		s->live_published ? "published" : "nothing to publish"));
	/* Who shared the node is known only through the node's ledger: a
	 * step that could not stay in it says nothing rather than "no
	 * co-runner". */
	if (s->energy.corunners_known) {
		json_t *co = json_array();
		char id[32];

		for (int k = 0; k < s->energy.me.ncorunners; k++) {
			cosched_step_ref_format(&s->energy.me.corunners[k], id,
						sizeof(id));
			json_array_append_new(co, json_string(id));
		}
		json_object_set_new(o, "co_runners", co);
		json_object_set_new(o, "co_runners_seen",
				    json_integer(s->energy.me.corunners_seen));
	}
	if (s->decision.state)
		json_object_set_new(o, "decision", decision_json(s));
	/* Absent when task/cosched said nothing (an earlier release). */
	if (s->nexited) {
		json_t *x = json_object();

		json_object_set_new(x, "tasks", json_integer(s->nexited));
		json_object_set_new(x, "signalled", json_integer(s->signalled));
		if (s->signalled)
			json_object_set_new(x, "signal",
					    json_integer(s->first_signal));
		json_object_set_new(x, "failed", json_integer(s->failed));
		if (s->failed)
			json_object_set_new(x, "status",
					    json_integer(s->first_status));
		json_object_set_new(o, "exit", x);
	}
	keep_central(s, o);
	/* In the spool's steps/ directory, root's only (0700), root's
	 * file: 0644 as the usual umask made it, 0600 under PrivateData
	 * should the directory be opened. */
	{
		cosched_private_t spool = { s->privacy.on, -1 };

		rc = json_replace(s->out, o, &spool, &err);
	}
	json_decref(o);
	if (rc) {
		fprintf(stderr, "cosched-sampler: %s\n", err.msg);
		return 1;
	}
	return 0;
}

