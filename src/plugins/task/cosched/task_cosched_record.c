/*****************************************************************************\
 *  task_cosched_record.c - the controller's decision record for a job,
 *  read on the node.
 *
 *  The record lives in the job's SystemComment, which only slurmctld sets
 *  (cosched_decision.h says why that channel cannot be forged): the node
 *  asks slurmctld for it (one job-info RPC per step, from slurmstepd as
 *  root), never the job's environment, which the user controls (an srun
 *  launch request carries whatever SPANK environment srun sends).  The
 *  cores themselves come from the signed credential; the record adds what
 *  the credential lacks: the memory-binding mode and the frequency.
\*****************************************************************************/

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "task_cosched.h"

int task_cosched_record_fetch(uint32_t job_id, cosched_decision_t *d,
			      char *why, size_t len)
{
	job_info_msg_t *msg = NULL;
	const char *comment = NULL;
	cosched_error_t err;
	int rc;

	if (slurm_load_job(&msg, job_id, SHOW_ALL) != SLURM_SUCCESS || !msg) {
		snprintf(why, len, "slurmctld did not give the job's record: %s",
			 slurm_strerror(errno));
		return -1;
	}
	for (uint32_t i = 0; i < msg->record_count; i++)
		if (msg->job_array[i].job_id == job_id)
			comment = msg->job_array[i].system_comment;
	rc = cosched_decision_find(comment, d, &err);
	if (rc < 0)
		snprintf(why, len, "invalid decision record: %s", err.msg);
	else if (rc == 0)
		snprintf(why, len, "no decision record (SelectType is not select/cons_tres_cosched, or the job predates it)");
	else if (d->job_id != job_id) {
		/* A job split off an array keeps its parent's comment until
		 * the controller writes its own. */
		snprintf(why, len, "the record names job %u", d->job_id);
		rc = 0;
	}
	slurm_free_job_info_msg(msg);
	return rc;
}
