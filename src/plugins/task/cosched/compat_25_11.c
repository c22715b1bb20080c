/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  compat_25_11.c - what task/cosched's hooks need of Slurm 25.11 alone (its
 *  task plugin interface: src/interfaces/task.c).  The hooks every series
 *  shares are in task_cosched.c.
\*****************************************************************************/

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/slurmd/slurmstepd/slurmstepd_job.h"

#include "task_cosched.h"

#include "pre_launch_priv.inc"

/* slurmd, root: a batch job's launch request names its job in the step id
 * slurmd takes from the job's credential (the request's own job id field
 * is deprecated). */
extern int task_p_slurmd_batch_request(batch_job_launch_msg_t *req)
{
	task_cosched_batch_request(req->step_id.job_id, req->spank_job_env,
				   req->spank_job_env_size);
	return SLURM_SUCCESS;
}
