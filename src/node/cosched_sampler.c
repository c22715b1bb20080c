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

#include "src/libcosched/base/number.h"
#include "src/libcosched/store/live.h"
#include "src/node/sampler.h"
#include "src/node/task_stopped.h"

#define CONTROL_FD 3
#define MSG_MAX 256

static sampler_t S;

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void) sig;
	stop = 1;
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

/* One interval: totals, and Miss-Rate Bound's smoothed MPKI ("Power-aware gang
 * scheduling on multicore" (NTUA thesis, 2013): EWMA with a = 1/2 every
 * quantum), and the energy ledger brought up to now.  last: the step's last
 * reading, whose ledger update is also its leaving (one locked update at the
 * end, not two). */
static void sample(bool last)
{
	uint64_t sum[COSCHED_COUNTERS_MAX];
	bool ok[COSCHED_COUNTERS_MAX];
	struct timespec now;
	double dt;
	int ins = sampler_event_index(&S, "instructions");
	int miss = sampler_event_index(&S, "LLC-load-misses");

	if (!S.ntasks) {
		if (last)
			sampler_energy_update(&S.energy, true);
		return;
	}
	read_all(sum, ok);
	clock_gettime(CLOCK_MONOTONIC, &now);
	dt = sampler_elapsed_s(&S.last_sample, &now);
	S.last_sample = now;
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
		int clk = sampler_event_index(&S, "task-clock");

		sampler_energy_rates(&S.energy, dt,
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
	S.energy.me.stopped = !last && step_stopped();
	sampler_suspend_sample(&S.suspend, S.energy.me.stopped, dt);
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
	S.start_s = sampler_wall_now();
	clock_gettime(CLOCK_MONOTONIC, &S.t0);
	S.last_sample = S.t0;
	sampler_energy_start(&S.energy, S.job, S.step, S.threads);
	/* The cpufreq journal is in the ledger's directory, SlurmdSpoolDir/
	 * cosched, and its domains under the same SysfsRoot. */
	S.suspend.sysfs_root = S.energy.sysfs_root;
	S.suspend.journal_dir = S.energy.ledger_dir;
	S.suspend.default_governor = S.conf.freq_default_governor;
	S.suspend.job = S.job;
	S.suspend.step = S.step;
	sampler_suspend_start(&S.suspend);
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
	sampler_merge_profile(&S);
	return sampler_write_record(&S);
}
