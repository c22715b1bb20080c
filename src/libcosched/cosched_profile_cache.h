/*
 * cosched_profile_cache.h - what slurmctld knows of every stored profile,
 * in memory, so that placement never reads the disk.
 *
 * slurmctld places jobs under its job and node locks; a disk read there
 * stalls every RPC.  The cache is filled outside those locks: a refresh
 * rescans the store directory (ProfileDir), re-reads only the profiles
 * whose file changed (size, mtime or inode), drops the removed ones, and
 * publishes the result at once; a lookup never blocks on a refresh for
 * longer than a pointer swap (read-write lock held only to copy one entry).
 *
 * Each entry is the summary placement needs: the effective class of the
 * measured profile (cosched_classify_effective with nothing declared),
 * its MPKI, and its EDP points.  A profile that fails to load is logged
 * once per change through the refresh's error list and left out (the job
 * is then placed as one without a profile).
 *
 * Thread-safe: one refresher (any thread), any number of readers.
 */
#ifndef COSCHED_PROFILE_CACHE_H
#define COSCHED_PROFILE_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "cosched_classify.h"
#include "cosched_conf.h"
#include "cosched_error.h"
#include "cosched_profile.h"

/* EDP points kept per application in the cache (more are dropped, the
 * ones at the most used thread counts first kept). */
#define COSCHED_PROFILE_CACHE_EDP_MAX 128

typedef struct {
	char app[COSCHED_APP_NAME_MAX + 1];
	cosched_class_t cls;		/* source COSCHED_CLASS_FROM_PROFILE */
	double mpki;			/* NAN = unknown */
	double threads;			/* mean measured thread count; NAN */
	unsigned long runs_merged;
	int n_edp;
	cosched_edp_point_t edp[COSCHED_PROFILE_CACHE_EDP_MAX];
} cosched_profile_summary_t;

typedef struct cosched_profile_cache cosched_profile_cache_t;

/* A cache over conf->profile_dir with conf's classification thresholds
 * (copied).  Empty until the first refresh. */
cosched_profile_cache_t *cosched_profile_cache_create(const cosched_conf_t *conf,
						      cosched_error_t *err);
void cosched_profile_cache_free(cosched_profile_cache_t *c);

/*
 * Rescan the store.  Returns the number of profiles now cached, or -1 when
 * the directory cannot be read (the cache keeps what it had).  Profiles
 * that could not be loaded are counted in *nbad (may be NULL) and the first
 * one's error is in err (err->msg[0] == 0 when none).
 */
long cosched_profile_cache_refresh(cosched_profile_cache_t *c, int *nbad,
				   cosched_error_t *err);

/* Copy app's summary into *out: 1 found, 0 not cached. */
int cosched_profile_cache_lookup(cosched_profile_cache_t *c, const char *app,
				 cosched_profile_summary_t *out);

/* Number of cached profiles. */
size_t cosched_profile_cache_size(cosched_profile_cache_t *c);

#endif
