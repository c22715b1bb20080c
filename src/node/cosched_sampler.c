/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_sampler.c - cosched-sampler: one step's counters, sampled through
 * its life (started by task/cosched; not a command for users).
 *
 * Why a process of its own: a fault here (a bad event, a full disk, a bug)
 * must never fail the job or slurmstepd, and slurmstepd is the job's
 * parent.  task/cosched spawns it as root when the step starts (with
 * --detach: see detach()), with one end of a socket pair on fd 3, and
 * tells it each task's pid as
 * slurmstepd forks the task, before the task runs (the attach answers
 * within 100 ms, or slurmstepd goes on without it); the counters follow
 * every thread and process the task starts.  Every SampleInterval it reads
 * them; at "end" (the step ended) or when the socket closes (slurmstepd
 * gone) it writes the step's record and exits.
 *
 * Protocol on fd 3 (SOCK_SEQPACKET, one message a line):
 *   "attach PID"  ->  "ok" | "unavailable REASON"
 *   "exit PID ST" ->  (no answer: task PID ended with wait status ST)
 *   "end"         ->  (writes the record, exits)
 *
 * The record, OUT (atomically: temporary file, rename), is the step
 * record cosched(8) documents under PROFILING and ENERGY (its fields,
 * their states and who reads them: cosched-model-check, the learner,
 * cosched-report); "schema" versions it.  At the end the step's run is
 * merged into its application's profile in ProfileDir when instructions,
 * cycles and LLC-load-misses counted, so that slurmctld's profile cache
 * classifies the application's next job from it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "src/libcosched/conf/conf.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/store/live.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/store/store.h"
#include "src/node/counters.h"
#include "src/node/counters_backend.h"
#include "src/node/energy_ledger.h"
#include "src/node/rapl.h"
#include "src/node/sampler_energy.h"
#include "src/node/sampler_suspend.h"
#include "src/node/task_stopped.h"

#define CONTROL_FD 3
#define TASKS_MAX 1024
#define MSG_MAX 256

typedef struct {
	cosched_counters_t *c;
	pid_t pid;
} task_t;

static struct {
	unsigned job, step;
	const char *node, *out, *test_file;
	double interval;
	cosched_counters_backend_t backend;
	char names[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	int nevents;
	task_t task[TASKS_MAX];
	int ntasks;
	char first_unavailable[COSCHED_COUNTERS_MAX][160];
	uint64_t total[COSCHED_COUNTERS_MAX], prev[COSCHED_COUNTERS_MAX];
	bool counted[COSCHED_COUNTERS_MAX];
	int samples;
	double mpki_ewma, mpki_max;
	bool have_mpki;
	char attach_error[COSCHED_ERROR_MSG_LEN];
	time_t start;
	struct timespec t0;
	const char *app, *conf_path;
	int threads;
	long freq_khz;			/* decided by the controller; 0 none */
	long uid;			/* the job's user (--uid); -1: not given */
	cosched_private_t privacy;	/* --private-data: PrivateData hides
					 * jobs, SlurmUser's uid */
	/* What the controller decided for the job (--decision-*, from the
	 * record task/cosched parsed): what the model predicted, kept with
	 * what the step did.  state NULL: no record. */
	struct {
		const char *state, *policy, *cls, *lca, *source, *sockets;
		double slowdown;		/* NAN: none */
	} decision;
	char merged[COSCHED_PATH_MAX + COSCHED_PROFILE_KEY_MAX + 64];
	/* Energy: RAPL through the node's ledger. */
	sampler_energy_t energy;
	/* Slurm's suspend and resume: time stopped, frequency per slice. */
	sampler_suspend_t suspend;
	double start_s;			/* the wall clock at the start */
	/* cosched.conf, read once at the start. */
	cosched_conf_t conf;
	char conf_error[COSCHED_ERROR_MSG_LEN];
	/* The live load this step publishes (src/libcosched/store/live.h). */
	bool live_published;
	double live_last;
	struct timespec live_at;
	char live_state[COSCHED_ERROR_MSG_LEN + 32];
	char backend_what[COSCHED_ERROR_MSG_LEN + 16];	/* for the record */
	/* How the tasks ended ("exit PID STATUS" from task/cosched). */
	pid_t exited[TASKS_MAX];
	int nexited, signalled, first_signal, failed, first_status;
} S;

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void) sig;
	stop = 1;
}

/* The event that counts name (a perf name): itself, or one of its role
 * (PAPI_TOT_INS for instructions: cosched_counters_role). */
static int event_index(const char *name)
{
	for (int i = 0; i < S.nevents; i++) {
		const char *role = cosched_counters_role(S.names[i]);

		if (!strcmp(S.names[i], name) || (role && !strcmp(role, name)))
			return i;
	}
	return -1;
}

/* The sums over the tasks now. */
static void read_all(uint64_t *sum, bool *ok)
{
	for (int i = 0; i < S.nevents; i++) {
		sum[i] = 0;
		ok[i] = false;
	}
	for (int t = 0; t < S.ntasks; t++) {
		uint64_t v[COSCHED_COUNTERS_MAX];
		bool valid[COSCHED_COUNTERS_MAX];
		cosched_error_t err;

		if (!S.task[t].c ||
		    cosched_counters_read(S.task[t].c, v, valid, &err) < 0)
			continue;
		for (int i = 0; i < S.nevents; i++)
			if (valid[i]) {
				sum[i] += v[i];
				ok[i] = true;
			}
	}
}

/* "PID STATUS", a wait status; slurmstepd reports every task again at
 * the step's end, so a pid counts once. */
static void task_exit(const char *text)
{
	int pid, status;

	if (sscanf(text, "%d %d", &pid, &status) != 2 || pid <= 0)
		return;
	for (int i = 0; i < S.nexited; i++)
		if (S.exited[i] == (pid_t) pid)
			return;
	if (S.nexited == TASKS_MAX)
		return;
	S.exited[S.nexited++] = (pid_t) pid;
	if (WIFSIGNALED(status)) {
		if (!S.signalled++)
			S.first_signal = WTERMSIG(status);
	} else if (WIFEXITED(status) && WEXITSTATUS(status)) {
		if (!S.failed++)
			S.first_status = WEXITSTATUS(status);
	}
}

/* Every task of the step still there is stopped: Slurm suspended the job
 * (task_stopped.h), and its energy share stops until it runs again. */
static bool step_stopped(void)
{
	int stopped = 0;

	for (int t = 0; t < S.ntasks; t++) {
		cosched_proc_stat_t ps;
		bool ended = false;

		for (int i = 0; i < S.nexited; i++)
			ended = ended || S.exited[i] == S.task[t].pid;
		if (ended || cosched_proc_stat(S.task[t].pid, &ps) ||
		    ps.state == 'Z')
			continue;
		if (!cosched_task_stopped(S.task[t].pid, "/sys/fs/cgroup"))
			return false;
		stopped++;
	}
	return stopped > 0;
}

/* ---- the live load ------------------------------------------------------ */

/* The step's smoothed MPKI to slurmctld (ProfileDir/live), when it moved
 * or a minute passed; the first failure stops it for the step, and the
 * record says why. */
static void live_publish(void)
{
	struct timespec now;
	cosched_error_t err;
	cosched_live_t l;
	double age;

	if (!S.conf.live_loads || S.conf_error[0] || S.live_state[0])
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	age = (double) (now.tv_sec - S.live_at.tv_sec);
	if (!cosched_live_should_publish(S.live_published, S.live_last,
					 S.mpki_ewma, age))
		return;
	memset(&l, 0, sizeof(l));
	l.job_id = S.job;
	l.step_id = S.step;
	snprintf(l.node, sizeof(l.node), "%s", S.node);
	l.mpki = S.mpki_ewma;
	l.time = (long long) time(NULL);
	if (cosched_live_write(S.conf.profile_dir, &S.privacy, &l, &err)) {
		snprintf(S.live_state, sizeof(S.live_state),
			 "not published: %.400s", err.msg);
		return;
	}
	S.live_published = true;
	S.live_last = S.mpki_ewma;
	S.live_at = now;
}

static void live_end(void)
{
	cosched_error_t err;

	if (!S.live_published)
		return;
	if (cosched_live_remove(S.conf.profile_dir, S.job, S.step, S.node,
				&err) && !S.live_state[0])
		snprintf(S.live_state, sizeof(S.live_state),
			 "not removed: %.400s", err.msg);
}

/* One interval: totals, and Miss-Rate Bound's smoothed MPKI ([NTUA-2013-gang]:
 * EWMA with a = 1/2 every quantum), and the energy ledger brought up to
 * now.  last: the step's last reading, whose ledger update is also its
 * leaving (one locked update at the end, not two). */
static void sample(bool last)
{
	uint64_t sum[COSCHED_COUNTERS_MAX];
	bool ok[COSCHED_COUNTERS_MAX];
	int ins = event_index("instructions");
	int miss = event_index("LLC-load-misses");

	if (!S.ntasks) {
		if (last)
			sampler_energy_update(&S.energy, true);
		return;
	}
	read_all(sum, ok);
	if (ins >= 0 && miss >= 0 && ok[ins] && ok[miss] &&
	    sum[ins] > S.prev[ins]) {
		double mpki = 1000.0 * (double) (sum[miss] - S.prev[miss]) /
			      (double) (sum[ins] - S.prev[ins]);
		S.mpki_ewma = S.have_mpki ? 0.5 * S.mpki_ewma + 0.5 * mpki :
					    mpki;
		if (mpki > S.mpki_max)
			S.mpki_max = mpki;
		S.have_mpki = true;
		live_publish();
	}
	{
		int clk = event_index("task-clock");

		sampler_energy_rates(&S.energy,
			clk >= 0 && ok[clk] && sum[clk] >= S.prev[clk],
			clk >= 0 ? sum[clk] - S.prev[clk] : 0,
			miss >= 0 && ok[miss] && sum[miss] >= S.prev[miss],
			miss >= 0 ? sum[miss] - S.prev[miss] : 0);
	}
	for (int i = 0; i < S.nevents; i++)
		if (ok[i]) {
			S.total[i] = S.prev[i] = sum[i];
			S.counted[i] = true;
		}
	S.samples++;
	{
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		S.energy.me.stopped = !last && step_stopped();
		sampler_suspend_sample(&S.suspend, S.energy.me.stopped, &now);
	}
	sampler_energy_update(&S.energy, last);
}

static void reply(const char *msg)
{
	if (send(CONTROL_FD, msg, strlen(msg), MSG_NOSIGNAL) < 0)
		return;	/* slurmstepd gone: the record still gets written */
}

static void attach(pid_t pid)
{
	cosched_error_t err;
	char msg[MSG_MAX + 32];

	if (S.ntasks == TASKS_MAX) {
		reply("unavailable too many tasks");
		return;
	}
	S.task[S.ntasks].pid = pid;
	S.task[S.ntasks].c = cosched_counters_attach(S.backend, pid, S.names,
						     S.nevents, S.test_file,
						     &err);
	if (!S.task[S.ntasks].c) {
		snprintf(S.attach_error, sizeof(S.attach_error), "%s", err.msg);
		snprintf(msg, sizeof(msg), "unavailable %.200s", err.msg);
		S.ntasks++;
		reply(msg);
		return;
	}
	for (int i = 0; i < S.nevents; i++) {
		const char *why = cosched_counters_unavailable(S.task[S.ntasks].c,
							       i);
		if (why && !S.first_unavailable[i][0])
			snprintf(S.first_unavailable[i],
				 sizeof(S.first_unavailable[i]), "%s", why);
	}
	S.ntasks++;
	reply("ok");
}

/* The record's state: "measured", or "counters unavailable: REASON". */
static void counters_state(char *state, size_t len)
{
	int ins = event_index("instructions");
	int miss = event_index("LLC-load-misses");
	bool any = false;

	for (int i = 0; i < S.nevents; i++)
		any |= S.counted[i];
	if (!S.ntasks)
		snprintf(state, len, "counters unavailable: no task ran");
	else if (!any)
		/* The counters' own messages may already say it. */
		snprintf(state, len, "counters unavailable: %.500s",
			 !S.attach_error[0] ? "no event read" :
			 !strncmp(S.attach_error, "counters unavailable: ", 22) ?
			 S.attach_error + 22 : S.attach_error);
	else if (ins < 0 || miss < 0 || !S.counted[ins] || !S.counted[miss])
		snprintf(state, len,
			 "counters unavailable: %s (runtime and software events only)",
			 ins >= 0 && S.first_unavailable[ins][0] ?
			 S.first_unavailable[ins] :
			 miss >= 0 && S.first_unavailable[miss][0] ?
			 S.first_unavailable[miss] :
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
static void merge_profile(double runtime_s)
{
	int ins = event_index("instructions"), cyc = event_index("cycles");
	int miss = event_index("LLC-load-misses");
	cosched_merge_params_t mp;
	cosched_store_t store;
	cosched_error_t err;
	cosched_run_t run;
	char state[COSCHED_ERROR_MSG_LEN + 64];
	char key[COSCHED_PROFILE_KEY_MAX + 1];
	const char *note = NULL;
	bool counted;

	if (!S.app || !*S.app) {
		snprintf(S.merged, sizeof(S.merged), "not merged: the job names no application");
		return;
	}
	counted = ins >= 0 && cyc >= 0 && miss >= 0 && S.counted[ins] &&
		  S.counted[cyc] && S.counted[miss] && S.total[ins] &&
		  S.total[cyc];
	if (!counted) {
		/* Runtime, threads and energy still go in; the profile
		 * notes why there are no counter values. */
		counters_state(state, sizeof(state));
		note = state + strlen("counters ");
		if (strncmp(state, "counters ", strlen("counters ")))
			note = "unavailable: instructions, cycles and LLC-load-misses did not all count";
	}
	if (S.conf_error[0]) {
		snprintf(S.merged, sizeof(S.merged), "not merged: %s",
			 S.conf_error);
		return;
	}
	cosched_conf_merge_params(&S.conf, &mp);
	cosched_run_init(&run);
	if (counted) {
		run.instructions = (double) S.total[ins];
		run.cycles = (double) S.total[cyc];
		run.llc_misses = (double) S.total[miss];
	}
	run.runtime_s = runtime_s > 0.001 ? runtime_s : 0.001;
	/* Most steps too short to merge (ProfileMinRuntime) are jobs that
	 * failed at once; asked before the store is opened so that they
	 * cost the node no lock, read or fsync. */
	if (cosched_run_long_enough(&run, &mp, &err)) {
		snprintf(S.merged, sizeof(S.merged), "not merged: %s", err.msg);
		return;
	}
	run.threads = S.threads > 0 ? S.threads : 1;
	if (S.freq_khz > 0 && S.freq_khz <= 100000000L)
		run.freq_khz = S.freq_khz;
	if (S.energy.in_ledger && S.energy.rapl) {
		/* The step's share of the node's (cosched(8) ENERGY):
		 * package is idle/uncore + core, as RAPL counts it. */
		const cosched_ledger_step_t *me = &S.energy.me;

		run.energy_pkg_j = (double) (me->energy.uncore_uj +
					     me->energy.core_uj) / 1e6;
		if (cosched_rapl_has_core(S.energy.rapl))
			run.energy_cores_j = (double) me->energy.core_uj / 1e6;
		if (cosched_rapl_has_dram(S.energy.rapl))
			run.energy_dram_j = (double) me->energy.dram_uj / 1e6;
	}
	/* Whose profile it is decides whether this run goes in: a user's
	 * runs must not reshape another's (cosched_profile_may_merge). */
	if (S.uid < 0) {
		snprintf(S.merged, sizeof(S.merged),
			 "not merged: the job's user is not known (--uid)");
		return;
	}
	if (cosched_store_open(&store, S.conf.profile_dir, &mp, &err)) {
		snprintf(S.merged, sizeof(S.merged), "not merged: %s", err.msg);
		return;
	}
	store.privacy = S.privacy;
	if (cosched_store_merge_run_by(&store, S.app, &run, note, S.uid,
				       cosched_conf_profile_shared(&S.conf,
								   S.app),
				       key, NULL, &err))
		snprintf(S.merged, sizeof(S.merged), "not merged: %s", err.msg);
	else
		snprintf(S.merged, sizeof(S.merged), "merged into %s/%s.json",
			 S.conf.profile_dir, key);
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
static void keep_central(json_t *o)
{
	char dir[COSCHED_PATH_MAX + 16], path[COSCHED_PATH_MAX + 128];
	cosched_error_t err;
	char msg[COSCHED_ERROR_MSG_LEN + 16];

	if (S.conf_error[0]) {
		json_object_set_new(o, "central", json_string("not kept: cosched.conf unreadable"));
		return;
	}
	if (cosched_live_node_check(S.node, &err)) {
		json_object_set_new(o, "central", json_string("not kept: no usable node name"));
		return;
	}
	snprintf(dir, sizeof(dir), "%s/jobs", S.conf.profile_dir);
	snprintf(path, sizeof(path), "%s/%u.%u.%s.json", dir, S.job, S.step,
		 S.node);
	if ((!S.privacy.on || !cosched_private_dir(&S.privacy,
						   S.conf.profile_dir, false,
						   &err)) &&
	    !cosched_private_dir(&S.privacy, dir, true, &err)) {
		/* The copy says where it is kept. */
		json_object_set_new(o, "central", json_string(path));
		if (!json_replace(path, o, &S.privacy, &err))
			return;
	}
	snprintf(msg, sizeof(msg), "not kept: %s", err.msg);
	json_object_set_new(o, "central", json_string(msg));
}

/* The wall clock, in seconds with their fraction. */
static double wall_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (double) now.tv_sec + (double) now.tv_nsec / 1e9;
}

/* Seconds the step ran since the sampler started (the step's start),
 * monotonic, without the time Slurm kept it suspended. */
static double runtime_s(void)
{
	struct timespec now;
	double ran;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ran = (double) (now.tv_sec - S.t0.tv_sec) +
	      (double) (now.tv_nsec - S.t0.tv_nsec) / 1e9 -
	      S.suspend.stopped_s;
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
static json_t *decision_json(void)
{
	json_t *o = json_object();

	set_string(o, "state", S.decision.state);
	set_string(o, "policy", S.decision.policy);
	set_string(o, "class", S.decision.cls);
	set_string(o, "lca", S.decision.lca);
	set_string(o, "source", S.decision.source);
	if (isfinite(S.decision.slowdown))
		json_object_set_new(o, "predicted_slowdown",
				    json_real(S.decision.slowdown));
	set_string(o, "sockets", S.decision.sockets);
	return o;
}

static int write_record(void)
{
	json_t *o = json_object(), *ev = json_object(), *un = json_object();
	json_t *der = json_object(), *tasks = json_array();
	char state[COSCHED_ERROR_MSG_LEN + 32];
	cosched_error_t err;
	int ins = event_index("instructions"), cyc = event_index("cycles");
	int miss = event_index("LLC-load-misses");
	int clk = event_index("task-clock");
	int rc;

	for (int i = 0; i < S.nevents; i++) {
		if (S.counted[i]) {
			json_object_set_new(ev, S.names[i],
					    json_integer((json_int_t) S.total[i]));
		} else {
			json_object_set_new(un, S.names[i], json_string(
				S.first_unavailable[i][0] ?
				S.first_unavailable[i] :
				S.ntasks ? "not read" : "no task ran"));
		}
	}
	for (int t = 0; t < S.ntasks; t++)
		json_array_append_new(tasks, json_integer(S.task[t].pid));
	if (clk >= 0 && S.counted[clk])
		json_object_set_new(der, "cpu_s",
				    json_real((double) S.total[clk] / 1e9));
	if (ins >= 0 && cyc >= 0 && S.counted[ins] && S.counted[cyc] &&
	    S.total[cyc])
		json_object_set_new(der, "ipc", json_real(
			(double) S.total[ins] / (double) S.total[cyc]));
	if (ins >= 0 && miss >= 0 && S.counted[ins] && S.counted[miss] &&
	    S.total[ins]) {
		json_object_set_new(der, "mpki", json_real(
			1000.0 * (double) S.total[miss] / (double) S.total[ins]));
		json_object_set_new(der, "mpki_ewma", json_real(S.mpki_ewma));
		/* [NTUA-2013-gang]'s bandwidth from misses: a line per miss,
		 * over the time it ran. */
		{
			double secs = runtime_s();

			if (secs > 0.0)
				json_object_set_new(der, "llc_miss_bw",
					json_real((double) S.total[miss] * 64.0 /
						  secs));
		}
		json_object_set_new(der, "mpki_max", json_real(S.mpki_max));
	}
	counters_state(state, sizeof(state));
	json_object_set_new(o, "schema", json_integer(1));
	json_object_set_new(o, "job", json_integer(S.job));
	json_object_set_new(o, "step", json_integer(S.step));
	json_object_set_new(o, "node", json_string(S.node));
	json_object_set_new(o, "start", json_integer(S.start));
	json_object_set_new(o, "end", json_integer(time(NULL)));
	json_object_set_new(o, "runtime_s", json_real(runtime_s()));
	{
		json_t *susp = sampler_suspend_json(&S.suspend);

		if (susp)
			json_object_set_new(o, "suspended", susp);
	}
	json_object_set_new(o, "start_s", json_real(S.start_s));
	json_object_set_new(o, "end_s", json_real(wall_now()));
	json_object_set_new(o, "interval_s", json_real(S.interval));
	json_object_set_new(o, "threads", json_integer(S.threads > 0 ?
							S.threads : 1));
	if (S.freq_khz > 0)
		json_object_set_new(o, "freq_khz", json_integer(S.freq_khz));
	json_object_set_new(o, "backend", json_string(S.backend_what));
	json_object_set_new(o, "samples", json_integer(S.samples));
	json_object_set_new(o, "tasks", tasks);
	json_object_set_new(o, "events", ev);
	json_object_set_new(o, "unavailable", un);
	json_object_set_new(o, "derived", der);
	json_object_set_new(o, "state", json_string(state));
	if (S.app && *S.app)
		json_object_set_new(o, "app", json_string(S.app));
	/* Whose run it is: the learner keeps each user's solo runs apart and
	 * weighs users, not runs (model/learn.h). */
	if (S.uid >= 0)
		json_object_set_new(o, "uid", json_integer(S.uid));
	if (S.app && *S.app && !S.conf_error[0] &&
	    cosched_conf_profile_shared(&S.conf, S.app))
		json_object_set_new(o, "profile_shared", json_true());
	json_object_set_new(o, "profile", json_string(S.merged));
	json_object_set_new(o, "energy", sampler_energy_json(&S.energy));
	json_object_set_new(o, "live", json_string(
		S.live_state[0] ? S.live_state :
		!S.conf.live_loads ? "off (LiveLoads=no)" :
		S.live_published ? "published" : "nothing to publish"));
	/* Who shared the node is known only through the node's ledger: a
	 * step that could not stay in it says nothing rather than "no
	 * co-runner". */
	if (S.energy.corunners_known) {
		json_t *co = json_array();
		char id[32];

		for (int k = 0; k < S.energy.me.ncorunners; k++) {
			cosched_step_ref_format(&S.energy.me.corunners[k], id,
						sizeof(id));
			json_array_append_new(co, json_string(id));
		}
		json_object_set_new(o, "co_runners", co);
		json_object_set_new(o, "co_runners_seen",
				    json_integer(S.energy.me.corunners_seen));
	}
	if (S.decision.state)
		json_object_set_new(o, "decision", decision_json());
	/* Absent when task/cosched said nothing (an earlier release). */
	if (S.nexited) {
		json_t *x = json_object();

		json_object_set_new(x, "tasks", json_integer(S.nexited));
		json_object_set_new(x, "signalled", json_integer(S.signalled));
		if (S.signalled)
			json_object_set_new(x, "signal",
					    json_integer(S.first_signal));
		json_object_set_new(x, "failed", json_integer(S.failed));
		if (S.failed)
			json_object_set_new(x, "status",
					    json_integer(S.first_status));
		json_object_set_new(o, "exit", x);
	}
	keep_central(o);
	/* In the spool's steps/ directory, root's only (0700), root's
	 * file: 0644 as the usual umask made it, 0600 under PrivateData
	 * should the directory be opened. */
	{
		cosched_private_t spool = { S.privacy.on, -1 };

		rc = json_replace(S.out, o, &spool, &err);
	}
	json_decref(o);
	if (rc) {
		fprintf(stderr, "cosched-sampler: %s\n", err.msg);
		return 1;
	}
	return 0;
}

/*
 * --detach: task/cosched spawns the sampler without forking slurmstepd
 * (posix_spawn shares its memory until the exec; a fork copied the page
 * tables of a large process, half a millisecond a step), so the sampler
 * leaves slurmstepd's process tree itself: it forks, its parent exits at
 * once (slurmstepd waits for that), and the child, reparented, runs in a
 * session of its own.  proctrack/linuxproc kills the step's process tree
 * at scancel, before the record could be written, and slurmstepd's own
 * wait loop must not meet it; signals to the job's tasks spare it.  The
 * descriptors slurmstepd had open (other than 0 to 3) are closed first.
 * Returns 0 in the child, -1 when it could not fork.
 */
static int detach(void)
{
	pid_t pid;

	/* close_range: Linux 5.9; before it, those /proc/self/fd lists
	 * (the limit may allow a million). */
	if (close_range(CONTROL_FD + 1, ~0U, 0)) {
		DIR *dp = opendir("/proc/self/fd");
		struct dirent *e;

		while (dp && (e = readdir(dp))) {
			int fd = atoi(e->d_name);

			if (fd > CONTROL_FD && fd != dirfd(dp))
				close(fd);
		}
		if (dp)
			closedir(dp);
	}
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	setsid();
	return 0;
}

/* A uid option's value into *out; -1 with the message said. */
static int uid_option(const char *name, const char *value, long *out)
{
	uint64_t v;

	if (cosched_parse_u64(value, UINT32_MAX - 2, &v)) {
		fprintf(stderr, "cosched-sampler: %s: invalid value \"%.20s\" (expected a uid)\n",
			name, value);
		return -1;
	}
	*out = (long) v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "job", required_argument, NULL, 'j' },
		{ "step", required_argument, NULL, 's' },
		{ "node", required_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'i' },
		{ "events", required_argument, NULL, 'e' },
		{ "backend", required_argument, NULL, 'b' },
		{ "out", required_argument, NULL, 'o' },
		{ "app", required_argument, NULL, 'a' },
		{ "conf", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{ "sysfs-root", required_argument, NULL, 'r' },
		{ "ledger-dir", required_argument, NULL, 'l' },
		{ "freq-khz", required_argument, NULL, 'f' },
		{ "uid", required_argument, NULL, 'u' },
		{ "decision-state", required_argument, NULL, 'S' },
		{ "decision-policy", required_argument, NULL, 'P' },
		{ "decision-class", required_argument, NULL, 'C' },
		{ "decision-lca", required_argument, NULL, 'L' },
		{ "decision-source", required_argument, NULL, 'O' },
		{ "decision-slowdown", required_argument, NULL, 'W' },
		{ "decision-sockets", required_argument, NULL, 'K' },
		{ "detach", no_argument, NULL, 'D' },
		{ "private-data", required_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 }
	};
	const char *events = NULL, *backend = "perf";
	cosched_error_t err;
	bool detached = false;
	int opt;

	/* slurmstepd's death closes the socket: the sampler writes its
	 * record and ends.  SIGTERM (an administrator) does the same. */
	{
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_term;	/* no SA_RESTART: poll returns */
		sigaction(SIGTERM, &sa, NULL);
	}

	S.node = "";
	S.interval = 1.0;
	S.uid = -1;
	S.privacy.owner = -1;
	S.decision.slowdown = NAN;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'j': S.job = (unsigned) strtoul(optarg, NULL, 10); break;
		case 's': S.step = (unsigned) strtoul(optarg, NULL, 10); break;
		case 'n': S.node = optarg; break;
		case 'i': S.interval = atof(optarg); break;
		case 'e': events = optarg; break;
		case 'b': backend = optarg; break;
		case 'o': S.out = optarg; break;
		case 'a': S.app = optarg; break;
		case 'c': S.conf_path = optarg; break;
		case 't': S.threads = atoi(optarg); break;
		case 'r': S.energy.sysfs_root = optarg; break;
		case 'l': S.energy.ledger_dir = optarg; break;
		case 'f': S.freq_khz = strtol(optarg, NULL, 10); break;
		case 'S': S.decision.state = optarg; break;
		case 'P': S.decision.policy = optarg; break;
		case 'C': S.decision.cls = optarg; break;
		case 'L': S.decision.lca = optarg; break;
		case 'O': S.decision.source = optarg; break;
		case 'K': S.decision.sockets = optarg; break;
		case 'W':
			if (cosched_parse_number(optarg, &S.decision.slowdown)) {
				fprintf(stderr, "cosched-sampler: --decision-slowdown: invalid value \"%.20s\"\n",
					optarg);
				return 2;
			}
			break;
		case 'D': detached = true; break;
		case 'X':
			if (uid_option("--private-data", optarg,
				       &S.privacy.owner))
				return 2;
			S.privacy.on = true;
			break;
		case 'u':
			if (uid_option("--uid", optarg, &S.uid))
				return 2;
			break;
		default: return 2;
		}
	}
	/* Before detaching: what it refuses, the first process's exit
	 * status says (2), which is all task/cosched can see of it. */
	if (!S.out || !events || !(S.interval >= 0.05)) {
		fprintf(stderr, "cosched-sampler: needs --out, --events and an --interval of at least 0.05 s\n");
		return 2;
	}
	if (detached && detach()) {
		fprintf(stderr, "cosched-sampler: fork: %s\n", strerror(errno));
		return 1;
	}
#ifdef COSCHED_PAPI_MODULE
	/* PAPI's module only where SampleBackend may count with it; why it
	 * could not be loaded is the backend's reason then. */
	if (!strcmp(backend, "papi") || !strcmp(backend, "auto"))
		(void) cosched_counters_load_papi(&err);
#endif
	if (cosched_counters_backend_parse(backend, &S.backend, &S.test_file,
					   S.backend_what,
					   sizeof(S.backend_what), &err)) {
		fprintf(stderr, "cosched-sampler: --backend: %s\n", err.msg);
		return 2;
	}
	if (cosched_counters_parse("SampleEvents", events, S.names,
				   &S.nevents, &err)) {
		fprintf(stderr, "cosched-sampler: %s\n", err.msg);
		/* No counters: the record still says why, with the runtime. */
		S.nevents = 0;
		snprintf(S.attach_error, sizeof(S.attach_error), "%s", err.msg);
	}
	cosched_conf_init(&S.conf);
	{
		struct stat st;

		if (S.conf_path && !stat(S.conf_path, &st) &&
		    cosched_conf_parse_file_for(&S.conf, S.conf_path,
						COSCHED_CONF_READER_NODE, NULL,
						&err))
			snprintf(S.conf_error, sizeof(S.conf_error), "%s",
				 err.msg);
	}
	S.start = time(NULL);
	S.start_s = wall_now();
	clock_gettime(CLOCK_MONOTONIC, &S.t0);
	sampler_energy_start(&S.energy, S.job, S.step, S.threads, &S.t0);
	/* The cpufreq journal is in the ledger's directory, SlurmdSpoolDir/
	 * cosched, and its domains under the same SysfsRoot. */
	S.suspend.sysfs_root = S.energy.sysfs_root;
	S.suspend.journal_dir = S.energy.ledger_dir;
	S.suspend.default_governor = S.conf.freq_default_governor;
	S.suspend.job = S.job;
	S.suspend.step = S.step;
	sampler_suspend_start(&S.suspend, &S.t0);
	while (!stop) {
		struct pollfd p = { .fd = CONTROL_FD, .events = POLLIN };
		char msg[MSG_MAX + 1];
		ssize_t n;
		int r = poll(&p, 1, (int) (S.interval * 1000));

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			sample(false);
			continue;
		}
		n = recv(CONTROL_FD, msg, MSG_MAX, 0);
		if (n <= 0)
			break;			/* slurmstepd gone */
		msg[n] = '\0';
		msg[strcspn(msg, "\n")] = '\0';
		if (!strncmp(msg, "attach ", 7)) {
			if (S.nevents) {
				attach((pid_t) atoi(msg + 7));
			} else {
				/* Counted as a task that ran unmeasured. */
				if (S.ntasks < TASKS_MAX)
					S.task[S.ntasks++].pid =
						(pid_t) atoi(msg + 7);
				reply("unavailable no valid SampleEvents");
			}
		} else if (!strncmp(msg, "exit ", 5)) {
			task_exit(msg + 5);
		} else if (!strcmp(msg, "end")) {
			break;
		}
	}
	/* Whatever happens from here, the sampler ends. */
	alarm(30);
	sample(true);
	live_end();
	merge_profile(runtime_s());
	return write_record();
}
