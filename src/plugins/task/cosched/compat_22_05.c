/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  compat_22_05.c - task/cosched's hooks that exist in Slurm 22.05 only
 *  (its task plugin interface: src/slurmd/common/task_plugin.c).
 *  The hooks both series share are in task_cosched.c.
\*****************************************************************************/

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/slurmd/slurmstepd/slurmstepd_job.h"

#include "task_cosched.h"

extern int task_p_slurmd_suspend_job(uint32_t job_id)
{
	return SLURM_SUCCESS;
}

extern int task_p_slurmd_resume_job(uint32_t job_id)
{
	return SLURM_SUCCESS;
}

/* Root, in slurmstepd, after forking task node_tid, before it runs. */
extern int task_p_pre_set_affinity(stepd_step_rec_t *job, uint32_t node_tid)
{
	if (node_tid < job->node_tasks && job->task && job->task[node_tid])
		task_cosched_task_forked(node_tid, job->task[node_tid]->pid);
	return SLURM_SUCCESS;
}

extern int task_p_set_affinity(stepd_step_rec_t *job, uint32_t node_tid)
{
	return SLURM_SUCCESS;
}

extern int task_p_post_set_affinity(stepd_step_rec_t *job, uint32_t node_tid)
{
	return SLURM_SUCCESS;
}

/* slurmd, root: a batch job's launch request names its job in a field of
 * its own. */
extern int task_p_slurmd_batch_request(batch_job_launch_msg_t *req)
{
	task_cosched_batch_request(req->job_id, req->spank_job_env,
				   req->spank_job_env_size);
	return SLURM_SUCCESS;
}
