/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load_job.h - one job's record from slurmctld by its job id, whichever
 * way the target Slurm's libslurm asks for it: slurm_load_job() takes the
 * job id up to 25.11 and a slurm_step_id_t from 26.05 (configure tells
 * which).  Inline, so the SPANK plugin, which links nothing of the other
 * plugins, can use it too.
 */
#ifndef COSCHED_PLUGINS_LOAD_JOB_H
#define COSCHED_PLUGINS_LOAD_JOB_H

#include "cosched_config.h"

#include <stdint.h>

#include <slurm/slurm.h>

/* slurm_load_job() for job_id: its result; *msg as slurm_load_job sets
 * it, to free with slurm_free_job_info_msg(). */
static inline int cosched_load_job(job_info_msg_t **msg, uint32_t job_id,
				   uint16_t show_flags)
{
#ifdef HAVE_SLURM_LOAD_JOB_BY_STEP_ID
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	return slurm_load_job(msg, id, show_flags);
#else
	return slurm_load_job(msg, job_id, show_flags);
#endif
}

#endif
