/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  task_cosched_numa.c - each step's processes named for the node's NUMA
 *  manager (cosched-numad(8)): slurmstepd writes NumaStepDir/JOB.STEP.NODE
 *  when the step starts and again as each task is forked, and removes it
 *  when the step ends (src/node/numa_step.h says why step files
 *  and not cgroups).
 *
 *  Only where the manager runs: it makes NumaStepDir, and without that
 *  directory nothing is written.  The step file names the node's energy
 *  ledger too, where the sampler gives the step's LLC misses per second.
 *  The job's --cosched-numa comes from the
 *  controller's decision record (numa_priority, record 1.1), never from
 *  the task environment a user can change.  Like the profile part it logs
 *  with info(), never error(): a step's error() reaches the job's stderr.
\*****************************************************************************/

#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/slurmd/slurmd/slurmd.h"

#include "src/libcosched/base/kv.h"
#include "src/node/numa_ask.h"
#include "src/node/numa_step.h"

#include "task_cosched.h"

static cosched_numa_step_t numa_step;
static bool numa_active;	/* this step's file is written */

static void _make_room(task_cosched_step_t *st);

static void _write(task_cosched_step_t *st)
{
	cosched_error_t err;
	int rc = cosched_numa_step_write(task_cosched_conf.numa.step_dir,
					 &numa_step, &err);

	if (rc < 0) {
		info("%s: %s: NUMA manager step file: %s", plugin_type,
		     st->step_name, err.msg);
		numa_active = false;
	} else {
		numa_active = rc == 0;
	}
}

void task_cosched_numa_step_start(task_cosched_step_t *st)
{
	char *ledger;

	memset(&numa_step, 0, sizeof(numa_step));
	numa_active = false;
	/* The extern step's one process is slurmstepd's own sleeper. */
	if (st->step_id == SLURM_EXTERN_CONT || !st->node_name ||
	    !cosched_decision_node_name_ok(st->node_name,
					   strlen(st->node_name)))
		return;
	numa_step.job_id = st->job_id;
	numa_step.step_id = st->step_id;
	numa_step.uid = st->uid;
	snprintf(numa_step.node, sizeof(numa_step.node), "%s", st->node_name);
	if (st->have_record)
		numa_step.priority = st->record->numa_priority;
	/* Where the step's sampler gives its LLC misses per second (the
	 * energy ledger): the manager's measured bandwidth. */
	if ((ledger = task_cosched_spool_path(NULL)))
		snprintf(numa_step.ledger, sizeof(numa_step.ledger), "%s",
			 ledger);
	xfree(ledger);
	_write(st);
	if (!numa_active)
		return;
	debug("%s: %s: named for the NUMA manager in %s (priority %s)",
	      plugin_type, st->step_name, task_cosched_conf.numa.step_dir,
	      cosched_numa_priority_name(numa_step.priority));
	_make_room(st);
}

static void _say(void *arg, const char *line)
{
	task_cosched_step_t *st = arg;

	info("%s: %s: cosched-numad: %s", plugin_type, st->step_name, line);
}

/*
 * NumaMakeRoom=yes: a high-priority step that will bind its memory to
 * its NUMA nodes asks the manager for room there, its memory (--mem, as
 * the credential gives it) shared evenly among them.  The manager
 * decides whether anything must move and moves it by the best order
 * without this step waiting (the reply comes at once; at most
 * MAKE_ROOM_WAIT_MS).
 */
#define MAKE_ROOM_WAIT_MS 500
static void _make_room(task_cosched_step_t *st)
{
	long page = sysconf(_SC_PAGESIZE);
	cosched_idset_t numa;
	cosched_error_t err;
	uint64_t pages;
	int nnodes, left;

	if (!task_cosched_conf.numa.make_room ||
	    numa_step.priority != COSCHED_NUMA_HIGH || !st->mem_mb ||
	    !st->have_cpus || !task_cosched_topo || page <= 0)
		return;
	if (cosched_topology_cpu_numa(task_cosched_topo, &st->step_cpus,
				      &numa, &err)) {
		info("%s: %s: no room asked: %s", plugin_type, st->step_name,
		     err.msg);
		return;
	}
	nnodes = cosched_idset_count(&numa);
	if (nnodes <= 0)
		return;
	pages = st->mem_mb * (1024 * 1024 / (uint64_t) page) /
		(uint64_t) nnodes;
	/* One bound for all the step's nodes; the first that cannot be
	 * asked ends it.  The manager runs one request at a time, so on a
	 * step over several NUMA nodes the first node's room is made and
	 * the others' are refused while it runs (said in the log). */
	left = MAKE_ROOM_WAIT_MS;
	for (int n = cosched_idset_next(&numa, 0); n >= 0 && left > 0;
	     n = cosched_idset_next(&numa, n + 1)) {
		struct timespec t0, t1;
		char line[256];
		cosched_kv_out_t o;

		cosched_kv_out_fixed(&o, line, sizeof(line));
		cosched_kv_put_str(&o, "cosched-numa/1");
		cosched_kv_put(&o, "cmd", "make_room");
		cosched_kv_put_int(&o, "src", n);
		cosched_kv_put_int(&o, "pages", pages);
		cosched_kv_put_int(&o, "job", st->job_id);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (cosched_numa_ask(task_cosched_conf.numa.socket, line,
				     left, _say, st, &err) < 0) {
			info("%s: %s: no room asked on NUMA node %d: %s",
			     plugin_type, st->step_name, n, err.msg);
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		left -= (int)((t1.tv_sec - t0.tv_sec) * 1000 +
			      (t1.tv_nsec - t0.tv_nsec) / 1000000);
	}
}

void task_cosched_numa_task_forked(task_cosched_step_t *st, pid_t pid)
{
	cosched_proc_stat_t ps;
	cosched_proc_id_t *t;

	if (!numa_active ||
	    numa_step.ntasks == COSCHED_NUMA_STEP_TASKS_MAX ||
	    cosched_proc_stat(pid, &ps))
		return;
	t = &numa_step.tasks[numa_step.ntasks++];
	t->pid = pid;
	t->start_time = ps.start_time;
	_write(st);
}

void task_cosched_numa_step_end(task_cosched_step_t *st)
{
	cosched_error_t err;

	if (!numa_active)
		return;
	if (cosched_numa_step_remove(task_cosched_conf.numa.step_dir,
				     &numa_step, &err))
		info("%s: %s: NUMA manager step file: %s", plugin_type,
		     st->step_name, err.msg);
	numa_active = false;
}
