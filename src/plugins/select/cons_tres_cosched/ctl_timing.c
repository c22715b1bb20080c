/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ctl_timing.c - DebugFlags=Timing: the clocks the controller's calls are
 *  timed by, and the line that gives their totals.
\*****************************************************************************/

#include <inttypes.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"

#include "ctl_internal.h"
#include "select_cons_tres_cosched.h"

double ctl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double ctl_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The totals since slurmctld started, one line (cosched-bench-controller
 * parses it; the CPU figures are per call over the calls timed, one in
 * CTL_CPU_SAMPLE, the job begin and end count is every call): every 1000
 * calls and whenever slurmctld reconfigures the
 * select plugin (scontrol reconfigure on 22.05, scontrol setdebugflags,
 * partition updates), since it calls fini only in memory-leak debug
 * builds. */
void ctl_log_timing(cosched_ctl_t *c)
{
	info("%s: timing: %" PRIu64 " job_test calls, %.2f us per call in cosched, %.2f us in cons_tres; CPU time over %" PRIu64 " calls: %.2f us per call in cosched, %.2f us in cons_tres; %" PRIu64 " job begin and end calls, %.2f us CPU per call",
	     plugin_type, c->t_calls,
	     c->t_calls ? (c->t_total - c->t_forward) * 1e6 / c->t_calls : 0.0,
	     c->t_calls ? c->t_forward * 1e6 / c->t_calls : 0.0, c->c_calls,
	     c->c_calls ? (c->c_total - c->c_forward) * 1e6 / c->c_calls : 0.0,
	     c->c_calls ? c->c_forward * 1e6 / c->c_calls : 0.0, c->e_calls,
	     c->e_samples ? c->e_total * 1e6 / c->e_samples : 0.0);
}
