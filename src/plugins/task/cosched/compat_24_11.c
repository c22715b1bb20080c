/*****************************************************************************\
 *  compat_24_11.c - task/cosched's hooks that exist in Slurm 24.11 only
 *  (its task plugin interface: src/interfaces/task.c).
 *  They do nothing yet; the hooks both series share are in task_cosched.c.
\*****************************************************************************/

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/slurmd/slurmstepd/slurmstepd_job.h"

/* In privileged mode, per task, before it starts (24.11 replaced the
 * affinity hooks of 22.05 with this one). */
extern int task_p_pre_launch_priv(stepd_step_rec_t *step, uint32_t node_tid,
				  uint32_t global_tid)
{
	return SLURM_SUCCESS;
}
