/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ctl_refresh.c - the controller's side of the reader thread: it starts
 *  and stops cosched_ctld.so's refresher (src/libcosched/store/refresh.h: the thread
 *  that refreshes the profile cache and reads the live loads outside every
 *  slurmctld lock, on its own copy of the settings), routes its messages
 *  to slurmctld's log, and applies the live loads and the learned
 *  interference table to the placement engine.
\*****************************************************************************/

#include <assert.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/slurmctld/slurmctld.h"

#include "src/libcosched/model/learn.h"

#include "ctl_internal.h"
#include "select_cons_tres_cosched.h"

static void _log(void *ctx, cosched_refresh_level_t lvl, const char *msg)
{
	(void) ctx;
	switch (lvl) {
	case COSCHED_REFRESH_ERROR:
		error("%s: %s", plugin_type, msg);
		break;
	case COSCHED_REFRESH_DEBUG:
		debug("%s: %s", plugin_type, msg);
		break;
	default:
		debug2("%s: %s", plugin_type, msg);
		break;
	}
}

int ctl_refresh_start(cosched_ctl_t *c)
{
	cosched_error_t err;

	c->live_applied_gen = 0;	/* a new refresher counts from 1 */
	c->learn_applied_gen = 0;
	c->learned_cells = 0;
	c->interference = c->conf.interference;
	c->refresh.refresher = c->refresh.api->refresher_start(&c->conf, _log,
							       NULL, &err);
	if (!c->refresh.refresher) {
		error("%s: %s", plugin_type, err.msg);
		return -1;
	}
	return 0;
}

void ctl_refresh_stop(cosched_ctl_t *c)
{
	if (c->refresh.api && c->refresh.refresher)
		c->refresh.api->refresher_stop(c->refresh.refresher);
	c->refresh.refresher = NULL;
}

typedef struct {
	cosched_ctl_t *c;
	cosched_profile_summary_t *out;
} lookup_ctx_t;

static int _find(void *ctx, const char *key, long *owner_uid)
{
	lookup_ctx_t *l = ctx;

	if (l->c->refresh.api->refresher_lookup(l->c->refresh.refresher, key,
						l->out) != 1)
		return 0;
	*owner_uid = l->out->owner_uid;
	return 1;
}

int ctl_refresh_lookup(cosched_ctl_t *c, const char *app, uid_t uid,
		       cosched_profile_summary_t *out)
{
	lookup_ctx_t l = { c, out };

	if (!c->refresh.refresher)
		return 0;
	return cosched_profile_find_for(app, (long) uid,
					cosched_conf_profile_shared(&c->conf,
								    app),
					_find, &l);
}

static void _apply_one(void *ctx, const cosched_live_job_t *job)
{
	cosched_ctl_t *c = ctx;
	cosched_error_t err;
	bool foreign = false;

	if (!cosched_occupancy_has(cosched_place_occupancy(c->place),
				   job->job_id, &foreign) || foreign)
		return;
	if (cosched_place_live_set(c->place, job->job_id, job->mpki, &err))
		error("%s: live load of JobId=%u: %s", plugin_type, job->job_id,
		      err.msg);
	else
		debug2("%s: JobId=%u: live MPKI %.2f", plugin_type, job->job_id,
		       job->mpki);
}

/* The latest live loads into the engine: each running job placed by
 * cosched carries its smoothed MPKI from its nodes instead of its
 * profile's, so Miss-Rate Bound and the socket loads follow the jobs as
 * they change, and a job whose file is gone (its step ended, or it went
 * stale) carries its record's MPKI again.  Once per reading, and again
 * after a rebuild (again), which enters the jobs with their records'
 * MPKI. */
void ctl_refresh_apply_live(cosched_ctl_t *c, bool again)
{
	size_t back;

	if (!c->refresh.refresher)
		return;
	cosched_place_live_begin(c->place);
	if (!c->refresh.api->refresher_live(c->refresh.refresher,
					    &c->live_applied_gen, again,
					    _apply_one, c))
		return;		/* nothing new: the reading stays applied */
	if ((back = cosched_place_live_end(c->place)))
		debug("%s: %zu running jobs no longer have a live load: back to their records' MPKI",
		      plugin_type, back);
}

/*
 * The learned table into the model the engine uses, when a new one was
 * published.  With InterferenceSource=configured or calibrated the
 * table is learned (cosched-status shows it) but never used.  The cells
 * with InterferenceMinSamples samples now replace cosched.conf's, and
 * the preference table follows by cosched-calibrate's rule.
 */
bool ctl_refresh_apply_learned(cosched_ctl_t *c)
{
	cosched_learn_table_t t;
	cosched_interference_model_t m;
	cosched_pref_rule_t rule;
	int used = 0;

	/* Called at every job_test, begin and fini: the cells (about 21 KB)
	 * are copied, and the rest of the table zeroed, only when the
	 * learner published a new table. */
	static_assert(offsetof(cosched_learn_table_t, cell) == 0,
		      "the cells lead the table");
	if (c->conf.interference_source != COSCHED_ISOURCE_LEARNED ||
	    !c->refresh.refresher ||
	    !c->refresh.api->refresher_interference(c->refresh.refresher,
						    &c->learn_applied_gen,
						    t.cell))
		return false;
	memset((char *) &t + sizeof(t.cell), 0, sizeof(t) - sizeof(t.cell));
	cosched_pref_rule_default(&rule);
	cosched_learn_apply(&t, &c->conf.interference,
			    c->conf.interference_min_samples,
			    c->conf.interference_half_life_days * 86400.0,
			    &rule, (long long) time(NULL), &m, &used);
	if (!memcmp(&m, &c->interference, sizeof(m)))
		return false;
	if (used != c->learned_cells)
		info("%s: InterferenceSource=learned: %d of %d class pairs now from the learned table (InterferenceMinSamples=%g)",
		     plugin_type, used, COSCHED_LCA_COUNT * COSCHED_LCA_COUNT,
		     c->conf.interference_min_samples);
	for (int v = 0; v < COSCHED_LCA_COUNT; v++)
		for (int k = 0; k < COSCHED_LCA_COUNT; k++)
			if (m.slowdown[v][k] != c->interference.slowdown[v][k])
				debug("%s: interference %s:%s %.2f (was %.2f)",
				      plugin_type, cosched_lca_name(v),
				      cosched_lca_name(k), m.slowdown[v][k],
				      c->interference.slowdown[v][k]);
	c->interference = m;
	c->learned_cells = used;
	return true;
}
