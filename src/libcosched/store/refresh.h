/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * refresh.h - the controller's reader of the disk: a thread that
 * refreshes the profile cache every ProfileCacheRefresh seconds and reads
 * the live loads (ProfileDir/live) every LiveLoadRefresh seconds, so that
 * slurmctld's job_test never reads a file.
 *
 * With each refresh of the profiles it also runs the learner of the
 * interference table (store/learner.h) over the step records that
 * ended, and publishes the learned cells.
 *
 * Ownership, which is what keeps it free of data races (a ThreadSanitizer
 * unit test, testsuite/unit/test_refresh.c, runs it against a caller that
 * changes its configuration while the thread reads):
 *   - the thread reads only what the refresher owns: a copy of the
 *     settings taken at start (a reconfigure stops the refresher and
 *     starts a new one; the caller's cosched_conf_t is never read after
 *     start returns), the cache (locked inside), and the live loads it
 *     publishes under its own mutex;
 *   - the caller calls every function below from one thread at a time
 *     (slurmctld's locks and the controller's mutex).
 * Slurm-free: messages go to the caller's log function.
 */
#ifndef COSCHED_REFRESH_H
#define COSCHED_REFRESH_H

#include <stdbool.h>
#include <stddef.h>

#include "src/libcosched/conf/conf.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/model/learn.h"
#include "src/libcosched/store/live.h"
#include "src/libcosched/store/profile_cache.h"

typedef enum {
	COSCHED_REFRESH_ERROR = 0,
	COSCHED_REFRESH_DEBUG,
	COSCHED_REFRESH_DEBUG2,
} cosched_refresh_level_t;

/* A finished message (no trailing newline); called from the refresher's
 * thread and from start's: it must be thread-safe (Slurm's log is). */
typedef void (*cosched_refresh_log_fn)(void *ctx, cosched_refresh_level_t lvl,
				       const char *msg);

typedef struct cosched_refresher cosched_refresher_t;

/*
 * A cache over conf->profile_dir, read once now, then a thread refreshing
 * it and reading the live loads (when conf->live_loads; the first reading
 * at once, in the thread, so that a reconfigure never waits for it).  NULL with err when
 * the cache or the thread cannot be made.  The settings are copied: conf
 * may change or go away once this returns.
 */
cosched_refresher_t *cosched_refresher_start(const cosched_conf_t *conf,
					     cosched_refresh_log_fn log,
					     void *log_ctx,
					     cosched_error_t *err);
/* Stop the thread (waits for it) and free everything.  NULL is fine. */
void cosched_refresher_stop(cosched_refresher_t *r);

/* The application's profile summary from the cache (1 found, 0 not). */
int cosched_refresher_lookup(cosched_refresher_t *r, const char *app,
			     cosched_profile_summary_t *out);

/*
 * The live loads read since *gen (or all of them when again), each passed
 * to fn under the refresher's mutex (fn must not call back into it);
 * *gen becomes the generation seen (readings count from 1: start a new
 * refresher's caller at 0).  Returns whether a reading was passed (false
 * before the first reading, again or not).  A reading holds every job
 * with a live load: one missing from it has none now.  A reading that
 * gives every job the MPKI the last one gave is no new generation.
 */
bool cosched_refresher_live(cosched_refresher_t *r, unsigned long *gen,
			    bool again,
			    void (*fn)(void *ctx, const cosched_live_job_t *job),
			    void *ctx);

/*
 * The learned table's cells, when a table newer than *gen was published
 * (true; *gen becomes its generation; start a new refresher's caller at
 * 0).  The first is published before start returns.
 */
bool cosched_refresher_interference(cosched_refresher_t *r, unsigned long *gen,
				    cosched_learn_cell_t
				    cells[COSCHED_LCA_COUNT][COSCHED_LCA_COUNT]);

#endif
