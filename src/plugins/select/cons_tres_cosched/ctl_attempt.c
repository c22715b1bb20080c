/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ctl_attempt.c - one forwarded attempt: cons_tres's job_test on the
 *  candidate nodes narrowed to where cosched steers the job, timed for
 *  DebugFlags=Timing.  Space sharing (ctl_place.c) and time sharing
 *  (ctl_timeshare.c) both ask cons_tres through it.
\*****************************************************************************/

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"

#include "ctl_internal.h"

/* One forwarded attempt, the given bitmap narrowed to steer's nodes; on
 * success the result (cons_tres's choice) is copied back.  The narrowed
 * copy is the state's scratch bitmap when the sizes agree. */
int ctl_place_attempt(cosched_ctl_t *c, cosched_try_fn try, void *ctx,
		      bitstr_t *node_bitmap, const cosched_steer_t *steer)
{
	bitstr_t *bm = c->attempt_nodes;
	double t0 = ctl_now(), c0 = c->c_on ? ctl_cpu_now() : 0.0;
	int rc;

	if (bm && bit_size(bm) == bit_size(node_bitmap))
		bit_copybits(bm, node_bitmap);
	else
		bm = bit_copy(node_bitmap);
	if (steer)
		bit_and(bm, steer->nodes);
	rc = bit_ffs(bm) < 0 ? SLURM_ERROR : try(ctx, bm, steer);
	if (rc == SLURM_SUCCESS)
		bit_copybits(node_bitmap, bm);
	if (bm != c->attempt_nodes)
		FREE_NULL_BITMAP(bm);
	c->t_forward += ctl_now() - t0;
	if (c->c_on)
		c->c_forward += ctl_cpu_now() - c0;
	return rc;
}
