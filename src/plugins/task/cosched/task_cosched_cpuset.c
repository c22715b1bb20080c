/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  task_cosched_cpuset.c - each task runs only on the CPUs of the cores the
 *  controller allocated to its step.
 *
 *  The cores come from the signed credential (step_alloc_cores, else
 *  job_alloc_cores); the topology maps them to CPUs.  In the task, after
 *  task/affinity set its mask, the mask is narrowed to those CPUs: a
 *  --cpu-bind inside the allocation is kept, a mask that lies wholly
 *  outside it is replaced by the allocation.  The kernel intersects any
 *  mask with the task's cpuset cgroup, so task/cgroup's ConstrainCores
 *  still holds.
\*****************************************************************************/

#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"

#include "task_cosched.h"

#define ENV_CPUS "COSCHED_CPUS"

/* Decided at step start: the CPUs each task may use (empty: leave the
 * tasks alone). */
static cpu_set_t step_mask;
static bool step_on;

int task_cosched_cpuset_init(const cosched_conf_t *conf)
{
	return 0;
}

void task_cosched_cpuset_fini(void)
{
	step_on = false;
}

void task_cosched_cpuset_step_start(task_cosched_step_t *st)
{
	cpu_set_t online;
	char cpus[256], missing[256];
	cosched_idset_t absent;

	step_on = false;
	if (!st->have_cpus)
		return;
	/* The CPUs this slurmstepd may run on: a CPU outside them (a
	 * topology that does not match the machine) cannot take a task. */
	CPU_ZERO(&online);
	if (sched_getaffinity(0, sizeof(online), &online)) {
		error("%s: %s: sched_getaffinity: %m: tasks keep their binding",
		      plugin_type, st->step_name);
		return;
	}
	CPU_ZERO(&step_mask);
	cosched_idset_clear(&absent);
	for (int cpu = 0; cpu < COSCHED_DECISION_IDS_MAX; cpu++) {
		if (!cosched_idset_has(&st->step_cpus, cpu))
			continue;
		if (cpu < CPU_SETSIZE && CPU_ISSET(cpu, &online))
			CPU_SET(cpu, &step_mask);
		else
			cosched_idset_add(&absent, cpu, NULL);
	}
	cosched_idset_format(&st->step_cpus, cpus, sizeof(cpus));
	if (cosched_idset_count(&absent)) {
		/* One line per step: the job runs as task/affinity bound it. */
		error("%s: %s: allocated cores map to CPUs %s, but CPUs %s are not available here (Topology=%s): tasks keep task/affinity's binding",
		      plugin_type, st->step_name, cpus,
		      cosched_idset_format(&absent, missing, sizeof(missing)),
		      task_cosched_conf.topology);
		task_cosched_setenv(st, ENV_CPUS, "unchanged: CPUs %s not available",
				    missing);
		return;
	}
	step_on = true;
	task_cosched_setenv(st, ENV_CPUS, "%s", cpus);
	verbose("%s: %s: tasks on CPUs %s", plugin_type, st->step_name, cpus);
}

void task_cosched_cpuset_task_start(task_cosched_step_t *st)
{
	cpu_set_t cur, want;

	if (!step_on)
		return;
	if (sched_getaffinity(0, sizeof(cur), &cur))
		return;
	CPU_AND(&want, &cur, &step_mask);
	/* task/affinity bound the task outside the allocation (or not at
	 * all inside it): the allocation wins. */
	if (!CPU_COUNT(&want))
		want = step_mask;
	if (CPU_EQUAL(&want, &cur))
		return;
	if (sched_setaffinity(0, sizeof(want), &want))
		error("%s: %s: sched_setaffinity: %m", plugin_type,
		      st->step_name);
}
