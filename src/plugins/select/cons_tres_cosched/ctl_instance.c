/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ctl_instance.c - the one controller a slurmctld runs, which every part
 *  of it works on (controller.c starts and stops it), and the node count
 *  it reads through slurmctld's own variable.
\*****************************************************************************/

#include <pthread.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "ctl_internal.h"

cosched_ctl_t cosched_ctl = {
	.mutex = PTHREAD_MUTEX_INITIALIZER,
	.rebuild_needed = true,
};

int cosched_ctl_node_count(void)
{
	return cosched_ctl.ctld_node_record_count ? *cosched_ctl.ctld_node_record_count :
					       0;
}
