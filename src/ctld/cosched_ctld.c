/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_ctld.c - cosched_ctld.so: the profile cache for slurmctld, behind
 * one exported table (cosched_ctld.h).  Everything else in the object - the
 * decision core, its store layer and jansson's users - stays local to it
 * (ctld.am exports only cosched_ctld_api).
 */
#include "cosched_config.h"

#include "src/ctld/cosched_ctld.h"

const cosched_ctld_api_t cosched_ctld_api = {
	.version = COSCHED_CTLD_API_VERSION,
	.conf_size = sizeof(cosched_conf_t),
	.summary_size = sizeof(cosched_profile_summary_t),
	.error_size = sizeof(cosched_error_t),
	.live_job_size = sizeof(cosched_live_job_t),
	.release = PACKAGE_VERSION,
	.profile_cache_create = cosched_profile_cache_create,
	.profile_cache_free = cosched_profile_cache_free,
	.profile_cache_refresh = cosched_profile_cache_refresh,
	.profile_cache_lookup = cosched_profile_cache_lookup,
	.profile_cache_size = cosched_profile_cache_size,
	.live_scan = cosched_live_scan,
	.refresher_start = cosched_refresher_start,
	.refresher_stop = cosched_refresher_stop,
	.refresher_lookup = cosched_refresher_lookup,
	.refresher_live = cosched_refresher_live,
	.refresher_interference = cosched_refresher_interference,
};
