/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  task_cosched_membind.c - each task's memory on the NUMA nodes local to
 *  its CPUs.
 *
 *  The mode comes from the decision record (membind=: --cosched-numa=high
 *  binds, low prefers, else cosched.conf MemBind=), or MemBind= when the
 *  job has no record.  A step with --mem-bind keeps the user's binding.
 *  Step start checks once, as root, that the nodes exist and may be used;
 *  each task then binds the nodes local to the mask it ends up with (after
 *  task/affinity and the cpuset part), through the same code the qemu NUMA
 *  tests run (src/node/mempolicy.c).  The task, between fork and
 *  exec, maps its CPUs through the table the topology read when the step
 *  started and allocates nothing (cosched_topology_cpu_numa(),
 *  cosched_mempolicy_apply()); COSCHED_MEMBIND is set again only where
 *  the task's nodes are not the step's.
\*****************************************************************************/

#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"

#include "src/node/mempolicy.h"

#include "task_cosched.h"

#define ENV_MEMBIND "COSCHED_MEMBIND"

static cosched_membind_t step_mode;
static cosched_idset_t step_numa;	/* the nodes of the step's CPUs */
static bool step_on;

int task_cosched_membind_init(const cosched_conf_t *conf)
{
	return 0;
}

void task_cosched_membind_fini(void)
{
	step_on = false;
}

/* The NUMA nodes local to a set of CPUs, through the topology. */
static int _numa_of(const cosched_idset_t *cpus, cosched_idset_t *numa,
		    cosched_error_t *err)
{
	return cosched_topology_cpu_numa(task_cosched_topo, cpus, numa, err);
}

void task_cosched_membind_step_start(task_cosched_step_t *st)
{
	cosched_idset_t numa;
	cosched_error_t err;
	char nodes[128];

	step_on = false;
	if (!st->have_cpus)
		return;
	if (st->user_mem_bind) {
		debug("%s: %s: --mem-bind given: the user's binding stays",
		      plugin_type, st->step_name);
		task_cosched_setenv(st, ENV_MEMBIND, "unchanged: --mem-bind");
		return;
	}
	step_mode = st->have_record && st->record->membind != COSCHED_MEMBIND_UNSET ?
		    st->record->membind : task_cosched_conf.membind;
	if (step_mode == COSCHED_MEMBIND_NONE)
		return;
	if (_numa_of(&st->step_cpus, &numa, &err)) {
		error("%s: %s: %s: memory policy left alone", plugin_type,
		      st->step_name, err.msg);
		return;
	}
	cosched_idset_format(&numa, nodes, sizeof(nodes));
	/* Check in slurmstepd, once, what each task would find: a node this
	 * machine lacks gets one line here and nothing in the tasks. */
	if (cosched_mempolicy_check(&numa, &err)) {
		error("%s: %s: %s %s: %s: memory policy left alone",
		      plugin_type, st->step_name,
		      cosched_membind_name(step_mode), nodes, err.msg);
		task_cosched_setenv(st, ENV_MEMBIND, "unchanged: %s %s: %s",
				    cosched_membind_name(step_mode), nodes,
				    err.msg);
		return;
	}
	step_on = true;
	step_numa = numa;
	task_cosched_setenv(st, ENV_MEMBIND, "%s %s",
			    cosched_membind_name(step_mode), nodes);
	verbose("%s: %s: memory %s to NUMA nodes %s", plugin_type,
		st->step_name, cosched_membind_name(step_mode), nodes);
}

void task_cosched_membind_task_start(task_cosched_step_t *st)
{
	cosched_idset_t cpus, numa;
	cosched_error_t err;
	cpu_set_t mask;
	char nodes[128];

	if (!step_on)
		return;
	/* This task's own CPUs: with --cpu-bind a task holds part of the
	 * step's CPUs and binds only their nodes. */
	if (sched_getaffinity(0, sizeof(mask), &mask))
		return;
	cosched_idset_clear(&cpus);
	for (int cpu = 0; cpu < CPU_SETSIZE && cpu < COSCHED_DECISION_IDS_MAX;
	     cpu++)
		if (CPU_ISSET(cpu, &mask))
			cosched_idset_add(&cpus, cpu, NULL);
	if (_numa_of(&cpus, &numa, &err) ||
	    cosched_mempolicy_apply(step_mode, &numa, &err)) {
		error("%s: %s: %s", plugin_type, st->step_name, err.msg);
		return;
	}
	/* The step's value is in the environment the task inherited. */
	if (!memcmp(&numa, &step_numa, sizeof(numa)))
		return;
	task_cosched_setenv(st, ENV_MEMBIND, "%s %s",
			    cosched_membind_name(step_mode),
			    cosched_idset_format(&numa, nodes, sizeof(nodes)));
}
