/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_ctld.h - the interface of cosched_ctld.so, the part of cosched
 * that only slurmctld loads.
 *
 * The select plugin (select/cons_tres_cosched) is loaded by slurmctld and
 * by every client command (sbatch, squeue, ...) on hosts whose Slurm
 * client packages do not bring libjansson, so it links neither jansson nor
 * the profile store.  What needs them - the controller's profile cache -
 * lives in cosched_ctld.so, installed in the same directory as the plugins
 * (PluginDir), which the select plugin dlopen()s when it runs in slurmctld
 * and looks up COSCHED_CTLD_SYMBOL in.  The object exports that one symbol
 * and nothing else; it needs libjansson and libpthread.
 *
 * The select plugin and cosched_ctld.so are built from the same sources
 * and installed, upgraded and rolled back together: the loader refuses a
 * table whose version or layout differs (cosched_ctld_api_compatible), and
 * never calls through one it has refused.
 *
 * The functions are those of src/libcosched/store/profile_cache.h and
 * cosched_live_scan() (src/libcosched/store/live.h), with their contracts.
 */
#ifndef COSCHED_CTLD_H
#define COSCHED_CTLD_H

#include <stdbool.h>
#include <stddef.h>

#include "src/libcosched/conf/conf.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/store/live.h"
#include "src/libcosched/store/profile_cache.h"
#include "src/libcosched/store/refresh.h"

/* The file, in each directory of PluginDir, and its one symbol. */
#define COSCHED_CTLD_SO "cosched_ctld.so"
#define COSCHED_CTLD_SYMBOL "cosched_ctld_api"

/* Raised whenever a field below is added, removed or changes meaning. */
#define COSCHED_CTLD_API_VERSION 4	/* 2: live_scan, live_job_size;
					 * 3: the refresher;
					 * 4: refresher_interference */

typedef struct {
	/* First, whatever the version: COSCHED_CTLD_API_VERSION. */
	unsigned int version;
	/* The layouts the object was built with: sizeof(cosched_conf_t),
	 * sizeof(cosched_profile_summary_t), sizeof(cosched_error_t). */
	unsigned int conf_size;
	unsigned int summary_size;
	unsigned int error_size;
	unsigned int live_job_size;	/* sizeof(cosched_live_job_t) */
	/* The cosched release it comes from (PACKAGE_VERSION), for logs. */
	const char *release;

	cosched_profile_cache_t *(*profile_cache_create)(
		const cosched_conf_t *conf, cosched_error_t *err);
	void (*profile_cache_free)(cosched_profile_cache_t *c);
	long (*profile_cache_refresh)(cosched_profile_cache_t *c, int *nbad,
				      cosched_error_t *err);
	int (*profile_cache_lookup)(cosched_profile_cache_t *c,
				    const char *app,
				    cosched_profile_summary_t *out);
	size_t (*profile_cache_size)(cosched_profile_cache_t *c);
	long (*live_scan)(const char *profile_dir, long long now, int stale_s,
			  cosched_live_job_t **jobs, int *nbad,
			  cosched_error_t *err);
	/* The reader thread slurmctld runs (src/libcosched/store/refresh.h). */
	cosched_refresher_t *(*refresher_start)(const cosched_conf_t *conf,
						cosched_refresh_log_fn log,
						void *log_ctx,
						cosched_error_t *err);
	void (*refresher_stop)(cosched_refresher_t *r);
	int (*refresher_lookup)(cosched_refresher_t *r, const char *app,
				cosched_profile_summary_t *out);
	bool (*refresher_live)(cosched_refresher_t *r, unsigned long *gen,
			       bool again,
			       void (*fn)(void *ctx,
					  const cosched_live_job_t *job),
			       void *ctx);
	bool (*refresher_interference)(cosched_refresher_t *r,
				       unsigned long *gen,
				       cosched_learn_cell_t
				       cells[COSCHED_LCA_COUNT]
					    [COSCHED_LCA_COUNT]);
} cosched_ctld_api_t;

/* Defined by cosched_ctld.so, its only exported symbol. */
extern const cosched_ctld_api_t cosched_ctld_api;

/* Whether a table found in cosched_ctld.so can be used by code built
 * from these headers: same version, same layouts, every function there. */
static inline bool cosched_ctld_api_compatible(const cosched_ctld_api_t *api)
{
	return api && api->version == COSCHED_CTLD_API_VERSION &&
	       api->conf_size == sizeof(cosched_conf_t) &&
	       api->summary_size == sizeof(cosched_profile_summary_t) &&
	       api->error_size == sizeof(cosched_error_t) &&
	       api->live_job_size == sizeof(cosched_live_job_t) &&
	       api->profile_cache_create && api->profile_cache_free &&
	       api->profile_cache_refresh && api->profile_cache_lookup &&
	       api->profile_cache_size && api->live_scan &&
	       api->refresher_start && api->refresher_stop &&
	       api->refresher_lookup && api->refresher_live;
}

#endif
