/*
 * cosched_sampler.c - cosched-sampler: one step's counters, sampled through
 * its life (started by task/cosched; not a command for users).
 *
 * Why a process of its own: a fault here (a bad event, a full disk, a bug)
 * must never fail the job or slurmstepd, and slurmstepd is the job's
 * parent.  task/cosched forks and execs it as root when the step starts,
 * with one end of a socket pair on fd 3, and tells it each task's pid as
 * slurmstepd forks the task, before the task runs (the attach answers
 * within 100 ms, or slurmstepd goes on without it); the counters follow
 * every thread and process the task starts.  Every SampleInterval it reads
 * them; at "end" (the step ended) or when the socket closes (slurmstepd
 * gone) it writes the step's record and exits.
 *
 * Protocol on fd 3 (SOCK_SEQPACKET, one message a line):
 *   "attach PID"  ->  "ok" | "unavailable REASON"
 *   "end"         ->  (writes the record, exits)
 *
 * The record, OUT (atomically: temporary file, rename), JSON:
 *   { "schema": 1, "job": J, "step": S, "node": N, "start": T0, "end": T1,
 *     "interval_s": I, "backend": B, "samples": K, "tasks": [pids],
 *     "events": { NAME: total, ... },
 *     "unavailable": { NAME: REASON, ... },
 *     "derived": { "cpu_s", "ipc", "mpki", "mpki_ewma", "mpki_max" },
 *     "state": "measured" | "counters unavailable: REASON",
 *     "app": APP, "profile": "merged into DIR/APP.json" | "not merged: WHY" }
 * At the end the step's run is merged into its application's profile in
 * the store (ProfileDir) when instructions, cycles and LLC-load-misses
 * counted; the profile cache in slurmctld then classifies the next job of
 * that application from it.
 * derived values appear when their events counted.
 */
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
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "src/libcosched/cosched_conf.h"
#include "src/libcosched/cosched_store.h"
#include "src/node/cosched_counters.h"

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
	char merged[COSCHED_PATH_MAX + COSCHED_APP_NAME_MAX + 64];
	char backend_what[COSCHED_ERROR_MSG_LEN + 16];	/* for the record */
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

/* One interval: totals, and Miss-Rate Bound's smoothed MPKI (seed 002:
 * EWMA with a = 1/2 every quantum). */
static void sample(void)
{
	uint64_t sum[COSCHED_COUNTERS_MAX];
	bool ok[COSCHED_COUNTERS_MAX];
	int ins = event_index("instructions");
	int miss = event_index("LLC-load-misses");

	if (!S.ntasks)
		return;
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
	}
	for (int i = 0; i < S.nevents; i++)
		if (ok[i]) {
			S.total[i] = S.prev[i] = sum[i];
			S.counted[i] = true;
		}
	S.samples++;
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

/*
 * The step's run, merged into its application's profile in the store
 * (ProfileDir, from cosched.conf) when the counters a profile needs
 * counted: instructions, cycles and LLC-load-misses.  What happened goes
 * into the record's "profile" field.
 */
static void merge_profile(double runtime_s)
{
	int ins = event_index("instructions"), cyc = event_index("cycles");
	int miss = event_index("LLC-load-misses");
	cosched_merge_params_t mp;
	cosched_conf_t conf;
	cosched_store_t store;
	cosched_error_t err;
	cosched_run_t run;
	struct stat st;

	if (!S.app || !*S.app) {
		snprintf(S.merged, sizeof(S.merged), "not merged: the job names no application");
		return;
	}
	if (ins < 0 || cyc < 0 || miss < 0 || !S.counted[ins] ||
	    !S.counted[cyc] || !S.counted[miss] || !S.total[ins]) {
		snprintf(S.merged, sizeof(S.merged),
			 "not merged: instructions, cycles and LLC-load-misses did not all count");
		return;
	}
	cosched_conf_init(&conf);
	if (S.conf_path && !stat(S.conf_path, &st) &&
	    cosched_conf_parse_file(&conf, S.conf_path, &err)) {
		snprintf(S.merged, sizeof(S.merged), "not merged: %s", err.msg);
		return;
	}
	cosched_conf_merge_params(&conf, &mp);
	cosched_run_init(&run);
	run.instructions = (double) S.total[ins];
	run.cycles = (double) S.total[cyc];
	run.llc_misses = (double) S.total[miss];
	run.runtime_s = runtime_s > 0.001 ? runtime_s : 0.001;
	run.threads = S.threads > 0 ? S.threads : 1;
	if (cosched_store_open(&store, conf.profile_dir, &mp, &err) ||
	    cosched_store_merge_run(&store, S.app, &run, NULL, &err))
		snprintf(S.merged, sizeof(S.merged), "not merged: %s", err.msg);
	else
		snprintf(S.merged, sizeof(S.merged), "merged into %s/%s.json",
			 conf.profile_dir, S.app);
}

static int write_record(void)
{
	json_t *o = json_object(), *ev = json_object(), *un = json_object();
	json_t *der = json_object(), *tasks = json_array();
	char tmp[4200], state[COSCHED_ERROR_MSG_LEN + 32];
	int ins = event_index("instructions"), cyc = event_index("cycles");
	int miss = event_index("LLC-load-misses");
	int clk = event_index("task-clock");
	bool any = false;
	int rc;

	for (int i = 0; i < S.nevents; i++) {
		if (S.counted[i]) {
			json_object_set_new(ev, S.names[i],
					    json_integer((json_int_t) S.total[i]));
			any = true;
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
		json_object_set_new(der, "mpki_max", json_real(S.mpki_max));
	}
	if (!S.ntasks)
		snprintf(state, sizeof(state), "counters unavailable: no task ran");
	else if (!any)
		snprintf(state, sizeof(state), "counters unavailable: %s",
			 S.attach_error[0] ? S.attach_error : "no event read");
	else if (ins < 0 || miss < 0 || !S.counted[ins] || !S.counted[miss])
		snprintf(state, sizeof(state),
			 "counters unavailable: %s (runtime and software events only)",
			 ins >= 0 && S.first_unavailable[ins][0] ?
			 S.first_unavailable[ins] :
			 miss >= 0 && S.first_unavailable[miss][0] ?
			 S.first_unavailable[miss] :
			 "instructions and LLC-load-misses not in SampleEvents");
	else
		snprintf(state, sizeof(state), "measured");
	json_object_set_new(o, "schema", json_integer(1));
	json_object_set_new(o, "job", json_integer(S.job));
	json_object_set_new(o, "step", json_integer(S.step));
	json_object_set_new(o, "node", json_string(S.node));
	json_object_set_new(o, "start", json_integer(S.start));
	json_object_set_new(o, "end", json_integer(time(NULL)));
	json_object_set_new(o, "interval_s", json_real(S.interval));
	json_object_set_new(o, "backend", json_string(S.backend_what));
	json_object_set_new(o, "samples", json_integer(S.samples));
	json_object_set_new(o, "tasks", tasks);
	json_object_set_new(o, "events", ev);
	json_object_set_new(o, "unavailable", un);
	json_object_set_new(o, "derived", der);
	json_object_set_new(o, "state", json_string(state));
	if (S.app && *S.app)
		json_object_set_new(o, "app", json_string(S.app));
	json_object_set_new(o, "profile", json_string(S.merged));
	snprintf(tmp, sizeof(tmp), "%s.tmp", S.out);
	rc = json_dump_file(o, tmp, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(o);
	if (rc || rename(tmp, S.out)) {
		fprintf(stderr, "cosched-sampler: %s: %s\n", S.out,
			strerror(errno));
		unlink(tmp);
		return 1;
	}
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
		{ NULL, 0, NULL, 0 }
	};
	const char *events = NULL, *backend = "perf";
	cosched_error_t err;
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
		default: return 2;
		}
	}
	if (!S.out || !events || !(S.interval >= 0.05)) {
		fprintf(stderr, "cosched-sampler: needs --out, --events and an --interval of at least 0.05 s\n");
		return 2;
	}
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
	S.start = time(NULL);
	clock_gettime(CLOCK_MONOTONIC, &S.t0);
	while (!stop) {
		struct pollfd p = { .fd = CONTROL_FD, .events = POLLIN };
		char msg[MSG_MAX + 1];
		ssize_t n;
		int r = poll(&p, 1, (int) (S.interval * 1000));

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			sample();
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
		} else if (!strcmp(msg, "end")) {
			break;
		}
	}
	/* Whatever happens from here, the sampler ends. */
	alarm(30);
	sample();
	{
		struct timespec t1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		merge_profile((double) (t1.tv_sec - S.t0.tv_sec) +
			      (double) (t1.tv_nsec - S.t0.tv_nsec) / 1e9);
	}
	return write_record();
}
