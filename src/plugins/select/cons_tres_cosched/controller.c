/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  controller.c - contention- and power-aware placement in slurmctld: the
 *  version-independent half of select/cons_tres_cosched's job_test and job
 *  life cycle (see controller.h for the call order, ctl_internal.h for how
 *  the controller is split).  This file: init, fini and reconfigure.
 *
 *  The decision core (src/libcosched) chooses; the controller only adapts:
 *   - gangs ("units") are sockets, or whole nodes with GangScope=node;
 *   - the placement engine (src/libcosched/policy/place.h) decides which units a job may
 *     take; cons_tres places it inside them;
 *   - a job's class comes from its profile (the profile cache, filled by a
 *     thread outside slurmctld's locks; never read from disk here), else
 *     its --cosched-class, else DefaultClass;
 *   - the rules for each kind of job are in cosched(8), PLACEMENT RULES.
\*****************************************************************************/

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "cosched_config.h"

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "src/plugins/common/plugin_conf.h"

#include "ctl_internal.h"
#include "select_cons_tres_cosched.h"

/* --- cosched_ctld.so ------------------------------------------------------- */

static int _load_ctld(cosched_ctl_t *c)
{
	char *dirs = xstrdup(slurm_conf.plugindir), *save = NULL, *dir;
	const cosched_ctld_api_t *api;
	char *tried = NULL;

	for (dir = strtok_r(dirs, ":", &save); dir && !c->ctld_handle;
	     dir = strtok_r(NULL, ":", &save)) {
		char *path = xstrdup_printf("%s/%s", dir, COSCHED_CTLD_SO);
		xstrfmtcat(tried, "%s%s", tried ? ", " : "", path);
		c->ctld_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		xfree(path);
	}
	xfree(dirs);
	if (!c->ctld_handle) {
		const char *why = dlerror();
		error("%s: cannot load cosched_ctld.so (tried %s): %s",
		      plugin_type, tried ? tried : "PluginDir is empty",
		      why ? why : "no such file");
		xfree(tried);
		return -1;
	}
	xfree(tried);
	api = dlsym(c->ctld_handle, COSCHED_CTLD_SYMBOL);
	if (!api || !cosched_ctld_api_compatible(api)) {
		error("%s: %s is from another cosched build (API %u, release %s; this plugin: API %u, release %s): install both from one build",
		      plugin_type, COSCHED_CTLD_SO, api ? api->version : 0,
		      api && api->version == COSCHED_CTLD_API_VERSION ?
		      api->release : "?", COSCHED_CTLD_API_VERSION,
		      PACKAGE_VERSION);
		dlclose(c->ctld_handle);
		c->ctld_handle = NULL;
		return -1;
	}
	c->refresh.api = api;
	return 0;
}

/* --- lifecycle ------------------------------------------------------------ */

int cosched_ctl_init(void)
{
	cosched_ctl_t *c = &cosched_ctl;
	cosched_error_t err;

	if (!running_in_slurmctld())
		return SLURM_SUCCESS;
	/* Loaded but not SelectType (cosched_plugin_selected): the
	 * controller stays off, reads no cosched.conf (a broken one must not
	 * stop a slurmctld rolled back to cons_tres) and starts no thread. */
	if (!cosched_plugin_selected()) {
		debug("%s: SelectType=%s: controller off", plugin_type,
		      slurm_conf.select_type ? slurm_conf.select_type : "");
		return SLURM_SUCCESS;
	}
	c->job_list = dlsym(RTLD_DEFAULT, "job_list");
	c->last_job_update = dlsym(RTLD_DEFAULT, "last_job_update");
	c->ctld_node_record_count = dlsym(RTLD_DEFAULT, "node_record_count");
	c->ctld_node_record_table_ptr = dlsym(RTLD_DEFAULT, "node_record_table_ptr");
	c->ctld_last_node_update = dlsym(RTLD_DEFAULT, "last_node_update");
	/* Without it, no partition is time-shared (ctl_timeshare.c). */
	c->part_list = dlsym(RTLD_DEFAULT, "part_list");
	if (!c->job_list || !c->last_job_update || !c->ctld_node_record_count ||
	    !c->ctld_node_record_table_ptr || !c->ctld_last_node_update)
		fatal("%s: slurmctld does not export job_list, last_job_update, node_record_count, node_record_table_ptr or last_node_update",
		      plugin_type);
	c->conf_path = cosched_plugin_conf_path();
	/* A bad file stops slurmctld at start, naming key, value and line. */
	if (cosched_plugin_conf_read(c->conf_path, &c->conf, &err))
		fatal("%s: %s", plugin_type, err.msg);
	if (!(c->decided = cosched_decisions_create()))
		fatal("%s: out of memory", plugin_type);
	c->decided_loaded = false;
	if (_load_ctld(c) || ctl_refresh_start(c))
		fatal("%s: cannot start the controller (see above)",
		      plugin_type);
	c->on = true;
	info("%s: CoschedPolicy=%s GangScope=%s PlacementMode=%s DefaultClass=%s (%s)",
	     plugin_type,
	     cosched_policy_name(c->conf.policy),
	     cosched_scope_name(c->conf.scope),
	     c->conf.strict ? "strict" : "lenient",
	     cosched_category_name(c->conf.default_class), c->conf_path);
	return SLURM_SUCCESS;
}

void cosched_ctl_fini(void)
{
	cosched_ctl_t *c = &cosched_ctl;

	if (!c->on)
		return;
	if (c->conf.debug_flags & COSCHED_DEBUG_TIMING)
		ctl_log_timing(c);
	ctl_refresh_stop(c);
	if (c->ctld_handle)
		dlclose(c->ctld_handle);
	c->ctld_handle = NULL;
	c->refresh.api = NULL;
	ctl_state_free(c);
	ctl_ts_free(c);
	xfree(c->ts_logged);
	cosched_decisions_free(c->decided);
	c->decided = NULL;
	xfree(c->shared_ids);
	c->nshared = c->shared_cap = 0;
	xfree(c->conf_path);
	c->on = false;
}

/*
 * The refresher is stopped before the settings change and a new one
 * started with a copy of them: its thread never reads c->conf, which is
 * replaced here (the thread used to read it while this assigned it).
 */
void cosched_ctl_reconfigure(void)
{
	cosched_ctl_t *c = &cosched_ctl;
	cosched_conf_t fresh;
	cosched_error_t err;

	if (!c->on)
		return;
	if (cosched_plugin_conf_read(c->conf_path, &fresh, &err)) {
		error("%s: %s; keeping the settings in effect", plugin_type,
		      err.msg);
		return;
	}
	/* Under the mutex, so that no job_test looks up a profile in a
	 * cache being replaced (slurmctld's job write lock already keeps
	 * them apart; this keeps the controller safe on its own). */
	pthread_mutex_lock(&c->mutex);
	ctl_refresh_stop(c);
	c->conf = fresh;
	c->rebuild_needed = true;
	if (c->conf.debug_flags & COSCHED_DEBUG_TIMING)
		ctl_log_timing(c);
	/* The new ProfileDir or thresholds: the cache re-reads what
	 * changed. */
	if (ctl_refresh_start(c))
		error("%s: profile cache not restarted: jobs are placed by declared and default classes",
		      plugin_type);
	pthread_mutex_unlock(&c->mutex);
	info("%s: reconfigured: CoschedPolicy=%s GangScope=%s PlacementMode=%s",
	     plugin_type,
	     cosched_policy_name(c->conf.policy),
	     cosched_scope_name(c->conf.scope),
	     c->conf.strict ? "strict" : "lenient");
}

void cosched_ctl_invalidate(void)
{
	cosched_ctl_t *c = &cosched_ctl;

	pthread_mutex_lock(&c->mutex);
	c->rebuild_needed = true;
	/* At start (node_init follows the partitions' node bitmaps), before
	 * any job: the log names what time sharing serves then, not at the
	 * first job. */
	if (c->on && !c->place)
		ctl_ts_detect(c, node_record_count);
	pthread_mutex_unlock(&c->mutex);
}
