/*****************************************************************************\
 *  task_cosched_numa.c - each step's processes named for the node's NUMA
 *  manager (cosched-numad(8)): slurmstepd writes NumaStepDir/JOB.STEP.NODE
 *  when the step starts and again as each task is forked, and removes it
 *  when the step ends (src/node/cosched_numa_step.h says why step files
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

#include <string.h>

#include "slurm/slurm.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/slurmd/slurmd/slurmd.h"

#include "src/node/cosched_numa_step.h"

#include "task_cosched.h"

static cosched_numa_step_t numa_step;
static bool numa_active;	/* this step's file is written */

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
	if (conf && conf->spooldir)
		snprintf(numa_step.ledger, sizeof(numa_step.ledger),
			 "%s/cosched", conf->spooldir);
	_write(st);
	if (numa_active)
		debug("%s: %s: named for the NUMA manager in %s (priority %s)",
		      plugin_type, st->step_name,
		      task_cosched_conf.numa.step_dir,
		      cosched_numa_priority_name(numa_step.priority));
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
