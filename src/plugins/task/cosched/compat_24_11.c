/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  compat_24_11.c - task/cosched's hooks that exist in Slurm 24.11 only
 *  (its task plugin interface: src/interfaces/task.c).
 *  The hooks both series share are in task_cosched.c.
\*****************************************************************************/

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/slurmd/slurmstepd/slurmstepd_job.h"

#include "task_cosched.h"

/* In privileged mode, per task, before it starts (24.11 replaced the
 * affinity hooks of 22.05 with this one). */
extern int task_p_pre_launch_priv(stepd_step_rec_t *step, uint32_t node_tid,
				  uint32_t global_tid)
{
	/* Root, in slurmstepd, after forking the task, before it runs. */
	if (node_tid < step->node_tasks && step->task && step->task[node_tid])
		task_cosched_task_forked(node_tid, step->task[node_tid]->pid);
	return SLURM_SUCCESS;
}
