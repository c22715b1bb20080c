/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  task_cosched_profile.c - every step measured on its node: slurmstepd
 *  starts cosched-sampler (src/node/cosched_sampler.c) when the step
 *  starts, hands it each task as the task is forked (before it runs, so
 *  that every thread and process it starts is counted), and tells it when
 *  the step ends; the sampler writes the step's record into
 *  SlurmdSpoolDir/cosched/steps/.
 *
 *  The sampler is a process of its own so that no fault of the profiler
 *  can reach the job: nothing here fails a step, an attach waits at most
 *  ATTACH_WAIT_MS for the sampler's answer (FIRST_ATTACH_WAIT_MS for the
 *  first, which also waits for the sampler to load PAPI and open its
 *  events), and the sampler ends by itself when told or when
 *  slurmstepd's end of the socket closes.
 *
 *  What goes wrong here is logged with info(), not error(): in a step's
 *  slurmstepd, error() also goes to the job's stderr, and a profiler
 *  state is the site's business, not a line in the user's output.
\*****************************************************************************/

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"

#include "src/node/cpuinfo.h"

#include "src/plugins/common/plugin_conf.h"

#include "task_cosched.h"

#define ATTACH_WAIT_MS 100
#define FIRST_ATTACH_WAIT_MS 1000
#define CONTROL_FD 3

static int ctl = -1;		/* our end of the socket pair */
static bool warned;		/* one line per step */
static bool attached_once;	/* the sampler has answered an attach */

int task_cosched_profile_init(const cosched_conf_t *c)
{
	if (!c->profile_jobs)
		return -1;
	if (access(c->sampler_program, X_OK)) {
		/* Jobs run unprofiled; say so once per daemon start. */
		error("%s: SamplerProgram=%s: %m: jobs are not profiled",
		      plugin_type, c->sampler_program);
		return -1;
	}
	return 0;
}

void task_cosched_profile_fini(void)
{
	if (ctl >= 0)
		close(ctl);
	ctl = -1;
}

/*
 * The spawned sampler's first process, which exits as soon as the sampler
 * has detached (--detach, about a millisecond).  One that does not (a
 * SamplerProgram that hangs, or is not a sampler) is killed after
 * FIRST_ATTACH_WAIT_MS: slurmstepd waits on it no longer than on a first
 * attach.  Returns 0 when it detached, -1 (said) when the step goes
 * unprofiled.
 */
static int _reap_detached(task_cosched_step_t *st, pid_t pid)
{
	struct timespec nap = { 0, 100 * 1000 };	/* doubled up to 50 ms */
	long waited_ns = 0;
	int status;
	pid_t r;

	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r < 0 && errno == EINTR)
			continue;
		if (r != 0 || waited_ns >= FIRST_ATTACH_WAIT_MS * 1000000L)
			break;
		nanosleep(&nap, NULL);
		waited_ns += nap.tv_nsec;
		if (nap.tv_nsec < 50 * 1000000L)
			nap.tv_nsec *= 2;
	}
	if (r == 0) {
		kill(pid, SIGKILL);
		while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
			;
		/* It may have detached between the last look and the kill
		 * (a zombie takes the signal): then it is running. */
		if (r == pid && WIFEXITED(status) && !WEXITSTATUS(status))
			return 0;
		info("%s: %s: %s did not detach within %d ms: killed, step not profiled",
		     plugin_type, st->step_name,
		     task_cosched_conf.sampler_program, FIRST_ATTACH_WAIT_MS);
		return -1;
	}
	if (r == pid && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		/* What it wrote on stderr is lost (slurmd gives slurmstepd
		 * /dev/null there): the status is what there is.  2 is the
		 * sampler's refusal of its arguments, which a sampler of
		 * another build gives for an option it does not know. */
		int code = WIFEXITED(status) ? WEXITSTATUS(status) :
			   128 + WTERMSIG(status);

		info("%s: %s: %s ended with status %d before it detached%s: step not profiled",
		     plugin_type, st->step_name,
		     task_cosched_conf.sampler_program, code,
		     code == 2 ? " (it refused its arguments: not the sampler of this build?)" :
		     code == 1 ? " (it could not fork)" : "");
		return -1;
	}
	return 0;	/* r < 0: no longer ours to wait for */
}

/*
 * Spawned, not forked: slurmstepd is a large process with threads, and a
 * fork copied its page tables (about half a millisecond of each step,
 * DebugFlags=Timing) only for the child to exec.  The sampler then leaves
 * slurmstepd's process tree itself (--detach, cosched_sampler.c says why
 * it must).  In a session of its own from the start, on /dev/null but for
 * stderr, fd on CONTROL_FD.  0, or an errno.
 */
static int _spawn(char **argv, int fd, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int rc;

	if ((rc = posix_spawn_file_actions_init(&fa)))
		return rc;
	if (!(rc = posix_spawnattr_init(&attr))) {
		if (!(rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
							     O_RDWR, 0)) &&
		    !(rc = posix_spawn_file_actions_adddup2(&fa, 0, 1)) &&
		    !(rc = posix_spawn_file_actions_adddup2(&fa, fd,
							     CONTROL_FD)) &&
		    !(rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID)))
			rc = posix_spawn(pid, argv[0], &fa, &attr, argv,
					 environ);
		posix_spawnattr_destroy(&attr);
	}
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

/* The text of the arguments _decision_args() gives. */
typedef struct {
	char slowdown[32];
	char sockets[COSCHED_IDSET_TEXT_MAX];
} decision_text_t;

/*
 * What the controller decided for the job, for the step's record beside
 * what the step measured ("decision": the class, the model's prediction,
 * the sockets on this node, which cosched-model-check(1) and the learner
 * read): the fields of the record this step parsed, never its text, so
 * that the sampler parses none.  The policy is the record's name for it,
 * a newer release's too.  Adds the arguments to argv; returns how many.
 */
static int _decision_args(const task_cosched_step_t *st, decision_text_t *t,
			  char **argv)
{
	const cosched_decision_t *d = st->record;
	const char *node = st->node_name ? st->node_name : "";
	int k = 0;

	argv[k++] = "--decision-state";
	argv[k++] = (char *) cosched_decision_state_name(d->state);
	argv[k++] = "--decision-policy";
	argv[k++] = (char *) cosched_decision_policy_of(d);
	if (d->has_class) {
		argv[k++] = "--decision-class";
		argv[k++] = (char *) cosched_category_name(d->category);
		argv[k++] = "--decision-lca";
		argv[k++] = (char *) cosched_lca_name(d->lca);
		argv[k++] = "--decision-source";
		argv[k++] = (char *) cosched_class_source_name(d->source);
	}
	if (isfinite(d->slowdown)) {
		/* Every digit: the sampler reads back the same double. */
		snprintf(t->slowdown, sizeof(t->slowdown), "%.17g",
			 d->slowdown);
		argv[k++] = "--decision-slowdown";
		argv[k++] = t->slowdown;
	}
	for (int i = 0; i < d->nnodes; i++) {
		if (strcmp(d->nodes[i].name, node))
			continue;
		argv[k++] = "--decision-sockets";
		argv[k++] = cosched_idset_format(&d->nodes[i].sockets,
						 t->sockets,
						 sizeof(t->sockets));
		break;
	}
	return k;
}

void task_cosched_profile_step_start(task_cosched_step_t *st)
{
	char *dir, *out, *interval, *job, *step, *threads, *ledger, *root;
	cosched_error_t err;
	char *freq = NULL, *uid = NULL, *owner = NULL, *backend;
	cosched_private_t privacy = cosched_plugin_privacy();
	char *argv[52], which[COSCHED_ERROR_MSG_LEN + 64];
	decision_text_t decision;
	const char *events;
	int sv[2], k = 0, rc = 0;
	pid_t pid;

	warned = false;
	attached_once = false;
	if (st->step_id == SLURM_EXTERN_CONT || !conf || !conf->spooldir)
		return;		/* no tasks of its own to count */
	/* SlurmdSpoolDir/cosched: the node's energy ledger, shared by
	 * every step's sampler, and steps/ for the step records. */
	if (!(ledger = task_cosched_spool_dir(NULL, &err)) ||
	    !(dir = task_cosched_spool_dir("steps", &err))) {
		info("%s: %s: %s: step not profiled", plugin_type,
		     st->step_name, err.msg);
		xfree(ledger);
		return;
	}
	root = task_cosched_node_path(task_cosched_conf.sysfs_root,
				      st->node_name);
	out = xstrdup_printf("%s/%s.json", dir, st->step_name +
			     (strncmp(st->step_name, "StepId=", 7) ? 0 : 7));
	interval = xstrdup_printf("%g", task_cosched_conf.sample_interval_s);
	job = xstrdup_printf("%u", st->job_id);
	step = xstrdup_printf("%u", st->step_id);
	threads = xstrdup_printf("%d", st->have_cores ?
				 cosched_idset_count(&st->step_cores) : 1);
	argv[k++] = task_cosched_conf.sampler_program;
	argv[k++] = "--detach";		/* see below */
	argv[k++] = "--job";
	argv[k++] = job;
	argv[k++] = "--step";
	argv[k++] = step;
	argv[k++] = "--node";
	argv[k++] = (char *) (st->node_name ? st->node_name : "");
	argv[k++] = "--interval";
	argv[k++] = interval;
	/* The list for this node's CPU (SampleEventsFor=, from cpuinfo
	 * under SysfsRoot), else SampleEvents=. */
	events = cosched_cpuinfo_sample_events(&task_cosched_conf, root,
					       which, sizeof(which));
	if (strchr(which, '('))	/* SampleEventsFor, but no CPU read */
		verbose("%s: %s: events of %s", plugin_type, st->step_name,
			which);
	argv[k++] = "--events";
	argv[k++] = (char *) events;
	argv[k++] = "--backend";
	argv[k++] = backend = task_cosched_node_path(
		task_cosched_conf.sample_backend, st->node_name);
	argv[k++] = "--out";
	argv[k++] = out;
	argv[k++] = "--threads";
	argv[k++] = threads;
	argv[k++] = "--conf";
	argv[k++] = task_cosched_conf_path;
	argv[k++] = "--sysfs-root";
	argv[k++] = root;
	argv[k++] = "--ledger-dir";
	argv[k++] = ledger;
	/* The job's user, from slurmstepd (the credential): whose runs may
	 * go into which profile. */
	uid = xstrdup_printf("%u", st->uid);
	argv[k++] = "--uid";
	argv[k++] = uid;
	/* slurm.conf's PrivateData, which the sampler cannot read: its
	 * files about the step are then SlurmUser's only. */
	if (privacy.on) {
		owner = xstrdup_printf("%ld", privacy.owner);
		argv[k++] = "--private-data";
		argv[k++] = owner;
	}
	/* The application the controller named (the record, never the
	 * job's environment): the step's run is merged into its profile. */
	/* The frequency the controller decided for it: the profile's EDP
	 * point is per (threads, frequency). */
	if (st->have_record && st->record->freq_khz > 0) {
		freq = xstrdup_printf("%ld", st->record->freq_khz);
		argv[k++] = "--freq-khz";
		argv[k++] = freq;
	}
	if (st->have_record && st->record->app[0]) {
		argv[k++] = "--app";
		argv[k++] = st->record->app;
	}
	if (st->have_record)
		k += _decision_args(st, &decision, argv + k);
	argv[k] = NULL;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		info("%s: %s: socketpair: %m: step not profiled",
		     plugin_type, st->step_name);
		goto done;
	}
	/* dup2 onto itself would keep close-on-exec. */
	if (sv[1] == CONTROL_FD) {
		int fd = fcntl(sv[1], F_DUPFD_CLOEXEC, CONTROL_FD + 1);

		rc = fd < 0 ? errno : 0;
		close(sv[1]);
		sv[1] = fd;
	}
	if (!rc)
		rc = _spawn(argv, sv[1], &pid);
	if (sv[1] >= 0)
		close(sv[1]);
	if (rc) {
		errno = rc;
		info("%s: %s: %s: %m: step not profiled", plugin_type,
		     st->step_name, argv[0]);
		close(sv[0]);
		goto done;
	}
	/* slurmstepd waits only for the first sampler process, which exits
	 * at once. */
	if (_reap_detached(st, pid)) {
		close(sv[0]);
		goto done;
	}
	ctl = sv[0];
	debug("%s: %s: cosched-sampler every %g s, events of %s, record %s",
	      plugin_type, st->step_name, task_cosched_conf.sample_interval_s,
	      which, out);
done:
	xfree(backend);
	xfree(dir);
	xfree(out);
	xfree(interval);
	xfree(job);
	xfree(step);
	xfree(threads);
	xfree(uid);
	xfree(owner);
	xfree(ledger);
	xfree(root);
	xfree(freq);
}

/* Slurmstepd, root, after forking task pid and before it runs. */
void task_cosched_profile_task_forked(task_cosched_step_t *st, pid_t pid)
{
	char msg[256];
	struct pollfd p;
	ssize_t n;
	int wait_ms = attached_once ? ATTACH_WAIT_MS : FIRST_ATTACH_WAIT_MS;

	if (ctl < 0)
		return;
	/* An answer that came after we stopped waiting belongs to an
	 * earlier task: drop it, or every later answer is read one late. */
	while ((n = recv(ctl, msg, sizeof(msg) - 1, MSG_DONTWAIT)) > 0)
		attached_once = true;
	if (n == 0)
		goto gone;
	snprintf(msg, sizeof(msg), "attach %d", (int) pid);
	if (send(ctl, msg, strlen(msg), MSG_NOSIGNAL) < 0)
		goto gone;
	p.fd = ctl;
	p.events = POLLIN;
	if (poll(&p, 1, wait_ms) <= 0) {
		if (!warned)
			info("%s: %s: cosched-sampler did not answer within %d ms: task %d may run unprofiled",
			     plugin_type, st->step_name, wait_ms, (int) pid);
		warned = true;
		return;
	}
	n = recv(ctl, msg, sizeof(msg) - 1, 0);
	if (n <= 0)
		goto gone;
	attached_once = true;
	msg[n] = '\0';
	if (strcmp(msg, "ok") && !warned) {
		/* Most VMs: no PMU.  A state, said once per step. */
		verbose("%s: %s: %s", plugin_type, st->step_name, msg);
		warned = true;
	}
	return;
gone:
	if (!warned)
		info("%s: %s: cosched-sampler is gone: step not profiled",
		     plugin_type, st->step_name);
	warned = true;
	close(ctl);
	ctl = -1;
}

/* No answer is awaited: a sampler of an earlier release ignores the
 * message, and its record then says nothing of how the tasks ended. */
void task_cosched_profile_task_exit(task_cosched_step_t *st, pid_t pid,
				    int status)
{
	char msg[64];

	if (ctl < 0)
		return;
	snprintf(msg, sizeof(msg), "exit %d %d", (int) pid, status);
	if (send(ctl, msg, strlen(msg), MSG_NOSIGNAL) < 0)
		debug("%s: %s: cosched-sampler already gone", plugin_type,
		      st->step_name);
}

/* The sampler takes a last reading, writes the record and exits on its
 * own (it is not slurmstepd's child); a closed socket says the same. */
void task_cosched_profile_step_end(task_cosched_step_t *st)
{
	if (ctl < 0)
		return;
	if (send(ctl, "end", 3, MSG_NOSIGNAL) < 0)
		debug("%s: %s: cosched-sampler already gone", plugin_type,
		      st->step_name);
	close(ctl);
	ctl = -1;
}
