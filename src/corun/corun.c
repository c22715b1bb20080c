/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corun.c - running programs alone and side by side (see corun.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "src/libcosched/base/number.h"
#include "src/libcosched/model/decision.h"
#include "src/node/topology.h"
#include "corun.h"

#ifndef COSCHED_APPS_DIR
#define COSCHED_APPS_DIR "/usr/local/libexec/cosched"
#endif

const char *corun_apps_dir_default(void)
{
	return COSCHED_APPS_DIR;
}

static int add_arg(corun_prog_t *p, int *n, const char *a, cosched_error_t *err)
{
	if (*n >= CORUN_ARGV_MAX)
		return cosched_error_set(err, "%s: more than %d arguments",
					 p->name, CORUN_ARGV_MAX);
	if (!(p->argv[(*n)++] = strdup(a)))
		return cosched_error_set(err, "out of memory");
	p->argv[*n] = NULL;
	return 0;
}

int corun_rep(corun_prog_t *p, const char *dir, const char *rep,
	      const char *scale, const char *llc, cosched_error_t *err)
{
	char path[4096];
	int n = 0;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", rep);
	snprintf(path, sizeof(path), "%s/cosched-app-%s", dir, rep);
	if (access(path, X_OK))
		return cosched_error_set(err,
			"representative program %s: %s (give the directory "
			"with --apps)", path, strerror(errno));
	if (add_arg(p, &n, path, err) || add_arg(p, &n, "--scale", err) ||
	    add_arg(p, &n, scale, err) ||
	    (llc && (add_arg(p, &n, "--llc", err) ||
		     add_arg(p, &n, llc, err)))) {
		corun_prog_free(p);
		return -1;
	}
	p->loop_arg = n;	/* argv[n] = "--loop" when a co-runner */
	return 0;
}

int corun_reps(corun_prog_t rep[COSCHED_CAT_COUNT], const char *dir,
	       const char *scale, const char *llc, cosched_error_t *err)
{
	for (int k = 0; k < COSCHED_CAT_COUNT; k++)
		if (corun_rep(&rep[k], dir, cosched_category_name(k), scale,
			      llc, err)) {
			while (k--)
				corun_prog_free(&rep[k]);
			return -1;
		}
	return 0;
}

int corun_cmd(corun_prog_t *p, const char *name, char *const *argv,
	      cosched_error_t *err)
{
	int n = 0;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->loop_arg = -1;
	for (int i = 0; argv[i]; i++)
		if (add_arg(p, &n, argv[i], err)) {
			corun_prog_free(p);
			return -1;
		}
	if (!n)
		return cosched_error_set(err, "%s: no command", name);
	return 0;
}

void corun_prog_free(corun_prog_t *p)
{
	for (int i = 0; i < CORUN_ARGV_MAX + 2 && p->argv[i]; i++)
		free(p->argv[i]);
	memset(p, 0, sizeof(*p));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "sched_setaffinity(CPU %d): %s\n", cpu,
			strerror(errno));
		_exit(127);
	}
}

/* In the child: pin, stdout to fd out (or /dev/null), exec. */
static void child_exec(char *const *argv, int cpu, int out)
{
	int null = open("/dev/null", O_RDWR);

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pin(cpu);
	if (null >= 0) {
		dup2(null, 0);
		dup2(out >= 0 ? out : null, 1);
	}
	execv(argv[0], argv);
	fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* The last "key=NUMBER" in buf, or NAN. */
static double last_value(const char *buf, const char *key)
{
	const char *last = NULL, *s = buf;
	size_t kl = strlen(key);
	char num[64];
	double v;

	while ((s = strstr(s, key))) {
		last = s;
		s += kl;
	}
	if (!last)
		return NAN;
	size_t k = strcspn(last + kl, " \t\n");
	snprintf(num, sizeof(num), "%.*s", (int) (k < 63 ? k : 63), last + kl);
	if (cosched_parse_number(num, &v) || !(v > 0.0))
		return NAN;
	return v;
}

static const double corun_min_duty = 0.9;
static const int corun_max_tries = 4;
int corun_retried;

static int run_once(const corun_prog_t *p, int cpu, double timeout_s,
		    double *t, double *duty, cosched_error_t *err)
{
	double start = now();
	int pfd[2], status = 0;
	char buf[4096];
	size_t len = 0;
	struct rusage ru;
	double deadline = now() + timeout_s;
	pid_t pid;

	if (pipe(pfd))
		return cosched_error_set(err, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return cosched_error_set(err, "fork: %s", strerror(errno));
	}
	if (!pid) {
		close(pfd[0]);
		child_exec(p->argv, cpu, pfd[1]);
	}
	close(pfd[1]);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	for (;;) {
		ssize_t r = read(pfd[0], buf + len, sizeof(buf) - 1 - len);
		if (r > 0) {
			len += r;
			if (len >= sizeof(buf) - 1)	/* keep the last part */
				len = 0;
			continue;
		}
		if (r == 0)
			break;
		if (errno != EAGAIN && errno != EINTR)
			break;
		if (now() > deadline) {
			kill(pid, SIGKILL);
			break;
		}
		usleep(2000);
	}
	close(pfd[0]);
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	if (now() > deadline && !(WIFEXITED(status) && !WEXITSTATUS(status)))
		return cosched_error_set(err, "%s: still running after %.0f s "
					 "(killed)", p->name, timeout_s);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return cosched_error_set(err, "%s: %s %d", p->name,
			WIFEXITED(status) ? "exited with status" : "killed by signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	/* the last cpu_s= (and wall_s=) the program printed, else its
	 * rusage and the wall time of the process */
	double cpu_s = last_value(buf, "cpu_s="), wall_s = last_value(buf, "wall_s=");
	if (isnan(cpu_s) || isnan(wall_s)) {
		cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
			ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
		wall_s = now() - start;
	}
	if (!(cpu_s > 0.0))
		return cosched_error_set(err, "%s: took no measurable CPU time",
					 p->name);
	*t = cpu_s;
	*duty = wall_s > 0.0 ? cpu_s / wall_s : 1.0;
	return 0;
}

/*
 * A run during which the program had its CPU for less than corun_min_duty
 * of its wall time shared the CPU with another tenant, whose time slices
 * evict its caches and inflate even its CPU time: it is run again, up to
 * corun_max_tries times in all, and the run with the highest duty counts.
 */
int corun_run(const corun_prog_t *p, int cpu, double timeout_s, double *t,
	      cosched_error_t *err)
{
	double best_duty = -1.0;

	for (int i = 0; i < corun_max_tries; i++) {
		double ti, duty;

		if (run_once(p, cpu, timeout_s, &ti, &duty, err))
			return -1;
		if (duty > best_duty) {
			best_duty = duty;
			*t = ti;
		}
		if (duty >= corun_min_duty)
			return 0;
		corun_retried++;
	}
	return 0;
}

static volatile sig_atomic_t keeper_stop;

static void keeper_term(int sig)
{
	(void) sig;
	keeper_stop = 1;
}

/* The keeper: runs the co-runner, again each time it ends, until told to
 * stop; exits 3 when the co-runner fails twice in a row within a second
 * (a command that cannot run is not a co-runner). */
static void keeper(const corun_prog_t *p, int cpu)
{
	char *argv[CORUN_ARGV_MAX + 2];
	struct sigaction sa;
	int fails = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = keeper_term;
	sigaction(SIGTERM, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	memcpy(argv, p->argv, sizeof(argv));
	if (p->loop_arg >= 0) {
		argv[p->loop_arg] = "--loop";
		argv[p->loop_arg + 1] = NULL;
	}
	while (!keeper_stop) {
		double t0 = now();
		int status;
		pid_t pid = fork();
		if (pid < 0)
			_exit(3);
		if (!pid) {
			signal(SIGTERM, SIG_DFL);
			child_exec(argv, cpu, -1);
		}
		while (waitpid(pid, &status, 0) < 0) {
			if (errno != EINTR)
				_exit(3);
			if (keeper_stop)
				kill(pid, SIGKILL);
		}
		if (keeper_stop)
			break;
		if (!(WIFEXITED(status) && !WEXITSTATUS(status)) &&
		    now() - t0 < 1.0 && ++fails >= 2)
			_exit(3);
	}
	_exit(0);
}

/* A co-runner kept running on cpu until corun_bg_stop(). */
typedef struct {
	pid_t pid;			/* the keeper (its process group) */
} corun_bg_t;

/* Start bg on cpu and wait warmup_s for it to settle. */
static int corun_bg_start(corun_bg_t *bg, const corun_prog_t *p, int cpu,
			  double warmup_s, cosched_error_t *err)
{
	pid_t pid = fork();

	if (pid < 0)
		return cosched_error_set(err, "fork: %s", strerror(errno));
	if (!pid) {
		setpgid(0, 0);
		keeper(p, cpu);
	}
	setpgid(pid, pid);	/* both sides: no race */
	bg->pid = pid;
	if (warmup_s > 0) {
		struct timespec ts = { (time_t) warmup_s,
				       (long) ((warmup_s - floor(warmup_s)) * 1e9) };
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	return 0;
}

/* Stop it; returns -1 (err set) when it had failed to keep running
 * (e.g. the command exits non-zero at once). */
static int corun_bg_stop(corun_bg_t *bg, cosched_error_t *err)
{
	int status;

	if (bg->pid <= 0)
		return 0;
	kill(bg->pid, SIGTERM);
	while (waitpid(bg->pid, &status, 0) < 0 && errno == EINTR)
		;
	kill(-bg->pid, SIGKILL);	/* anything left in its group */
	bg->pid = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		return cosched_error_set(err,
			"the co-runner failed to keep running (it exits "
			"with an error at once)");
	return 0;
}

int corun_pair(const corun_prog_t *victim, int cpu_v, const corun_prog_t *bg,
	       int cpu_b, double warmup_s, double timeout_s, double *t,
	       cosched_error_t *err)
{
	corun_bg_t b = { 0 };
	cosched_error_t e2;
	int rc;

	if (corun_bg_start(&b, bg, cpu_b, warmup_s, err))
		return -1;
	rc = corun_run(victim, cpu_v, timeout_s, t, err);
	if (corun_bg_stop(&b, &e2) && !rc) {
		cosched_error_set(err, "%s next to %s: %s", victim->name,
				  bg->name, e2.msg);
		rc = -1;
	}
	return rc;
}

int corun_pick_cpus(const char *spec, const char *topology, int cpus[2],
		    cosched_error_t *err)
{
	cpu_set_t allowed;
	cosched_topology_t *t;
	int found = 0, rc = -1;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return cosched_error_set(err, "sched_getaffinity: %s",
					 strerror(errno));
	if (spec) {
		long a, b;
		char *comma = strchr(spec, ','), first[32];
		if (!comma || (size_t) (comma - spec) >= sizeof(first))
			return cosched_error_set(err,
				"--cpus: expected two CPU numbers A,B, got '%s'", spec);
		snprintf(first, sizeof(first), "%.*s", (int) (comma - spec), spec);
		if (cosched_parse_long(first, &a) || cosched_parse_long(comma + 1, &b) ||
		    a < 0 || b < 0 || a >= CPU_SETSIZE || b >= CPU_SETSIZE || a == b)
			return cosched_error_set(err,
				"--cpus: expected two different CPU numbers A,B, got '%s'",
				spec);
		if (!CPU_ISSET(a, &allowed) || !CPU_ISSET(b, &allowed))
			return cosched_error_set(err,
				"--cpus: CPU %ld is not one this process may use",
				CPU_ISSET(a, &allowed) ? b : a);
		cpus[0] = (int) a;
		cpus[1] = (int) b;
		return 0;
	}
	if (!(t = cosched_topology_load(topology, err)))
		return -1;
	for (int pkg = 0; pkg < cosched_topology_npackages(t) && found < 2; pkg++) {
		found = 0;
		for (int core = 0; core < cosched_topology_ncores(t) && found < 2; core++) {
			cosched_idset_t cores, p, c;
			char buf[64];
			int cpu;

			snprintf(buf, sizeof(buf), "%d", core);
			if (cosched_idset_parse("core", buf, &cores, err) ||
			    cosched_topology_core_packages(t, &cores, &p, err) ||
			    cosched_topology_core_cpus(t, &cores, &c, err))
				goto out;
			if (!cosched_idset_has(&p, pkg))
				continue;
			/* the core's first allowed CPU (one per core: SMT
			 * siblings would share the core itself) */
			for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
				if (cosched_idset_has(&c, cpu) && CPU_ISSET(cpu, &allowed))
					break;
			if (cpu < CPU_SETSIZE)
				cpus[found++] = cpu;
		}
	}
	if (found < 2) {
		cosched_error_set(err, "no package has two cores this process "
				  "may use (co-runs need two CPUs of one package)");
		goto out;
	}
	rc = 0;
out:
	cosched_topology_free(t);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return x < y ? -1 : x > y;
}

void corun_stats(double *v, int n, double *median, double *lo, double *hi)
{
	qsort(v, n, sizeof(*v), cmp_double);
	*lo = v[0];
	*hi = v[n - 1];
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}
