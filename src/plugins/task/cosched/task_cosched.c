/*****************************************************************************\
 *  task_cosched.c - cosched node-side task plugin.
 *
 *  Stacked after task/affinity (TaskPlugin=task/affinity,task/cosched).
 *  It learns each step's allocated cores from the signed credential
 *  (job_alloc_cores / step_alloc_cores): the trustworthy record, on the
 *  node, of what the controller allocated.  Enforcement (cpuset, NUMA
 *  binding, cpufreq) builds on this.
 *
 *  The hooks that exist in one Slurm series only are in compat_<series>.c.
 *
 *  Every hook returns SLURM_SUCCESS: a cosched fault must never fail a job
 *  or drain a node.  Values from the job's SPANK environment are untrusted
 *  (any user can submit a job with one through libslurm): they reach the
 *  log only through the core's messages, which quote and cut them.
\*****************************************************************************/

#include <stdio.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

/* Map log functions to their slurm_ names, as Slurm's own plugins do. */
#include "src/common/slurm_xlator.h"

#include "src/common/env.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"
#include "src/slurmd/slurmstepd/slurmstepd_job.h"

#include "src/libcosched/cosched_options.h"

const char plugin_name[] = "cosched task plugin";
const char plugin_type[] = "task/cosched";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Variables the plugin adds to every task's environment (informational:
 * the task may change them; nothing on the node reads them back). */
#define ENV_JOB_CORES "COSCHED_JOB_CORES"
#define ENV_STEP_CORES "COSCHED_STEP_CORES"

extern int init(void)
{
	debug("%s loaded", plugin_name);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	return SLURM_SUCCESS;
}

/*
 * The launch requests carry the job's SPANK environment as slurmctld keeps
 * it (the trustworthy copy of the --cosched-* options on the node).
 */
static void _log_options(const char *what, uint32_t job_id, char **env,
			 uint32_t env_size)
{
	cosched_job_options_t opts;
	cosched_error_t err;
	char buf[256];

	cosched_options_init(&opts);
	if (cosched_options_from_env(&opts, env, env_size, &err))
		error("%s: JobId=%u %s: %s", plugin_type, job_id, what,
		      err.msg);
	else
		debug("%s: JobId=%u %s: cosched options %s", plugin_type,
		      job_id, what,
		      cosched_options_format(&opts, buf, sizeof(buf)));
}

extern int task_p_slurmd_batch_request(batch_job_launch_msg_t *req)
{
	_log_options("batch request", req->job_id, req->spank_job_env,
		     req->spank_job_env_size);
	return SLURM_SUCCESS;
}

extern int task_p_slurmd_launch_request(launch_tasks_request_msg_t *req,
					uint32_t node_id, char **err_msg)
{
	_log_options("launch request", req->step_id.job_id,
		     req->spank_job_env, req->spank_job_env_size);
	return SLURM_SUCCESS;
}

/* Runs as root in slurmstepd, once per step, before the tasks start. */
extern int task_p_pre_setuid(stepd_step_rec_t *job)
{
	debug("%s: %ps on %s: job cores %s, step cores %s", plugin_type,
	     &job->step_id, job->node_name,
	     job->job_alloc_cores ? job->job_alloc_cores : "(none)",
	     job->step_alloc_cores ? job->step_alloc_cores : "(none)");
	if (job->job_alloc_cores)
		env_array_overwrite(&job->env, ENV_JOB_CORES,
				    job->job_alloc_cores);
	if (job->step_alloc_cores)
		env_array_overwrite(&job->env, ENV_STEP_CORES,
				    job->step_alloc_cores);
	return SLURM_SUCCESS;
}

extern int task_p_pre_launch(stepd_step_rec_t *job)
{
	return SLURM_SUCCESS;
}

extern int task_p_post_term(stepd_step_rec_t *job, stepd_step_task_info_t *task)
{
	return SLURM_SUCCESS;
}

extern int task_p_post_step(stepd_step_rec_t *job)
{
	return SLURM_SUCCESS;
}

extern int task_p_add_pid(pid_t pid)
{
	return SLURM_SUCCESS;
}
