/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile_cache.h - what slurmctld knows of every stored profile,
 * in memory, so that placement never reads the disk.
 *
 * slurmctld places jobs under its job and node locks; a disk read there
 * stalls every RPC.  The cache is filled outside those locks: a refresh
 * rescans the store directory (ProfileDir), re-reads only the profiles
 * whose file changed (its inode, size, mtime or ctime, to the nanosecond;
 * a file written within a couple of seconds of a refresh is read again at
 * the next one, since file timestamps advance in coarse steps), drops the
 * removed ones, and publishes the result at once; a lookup never blocks on
 * a refresh for longer than a pointer swap (read-write lock held only to
 * copy one entry).
 *
 * Each entry is the summary placement needs: the effective class of the
 * measured profile (cosched_classify_effective with nothing declared),
 * its MPKI, and its EDP points.  A profile without data (no run merged)
 * is left out.  A profile that fails to load (malformed JSON, an "app"
 * that is not its file's name, unreadable, too large) is reported once
 * per version of its file through the refresh's nbad and err, and left
 * out (the job is then placed as one without a profile); one that could
 * not be read at all (permissions, no descriptor or memory left) is tried
 * again at every refresh until it loads.  Files are read
 * as the store reads them (store/store.h): only <key>.json with a valid
 * profile key (an application's, or a user's own: APP@UID, whose owner
 * must be UID), never through a symbolic link, never a FIFO or a
 * device (such a file is reported, not opened); lock and temporary files
 * are not profiles.  No lock file is taken: the store replaces a profile
 * by rename(), so a read sees a whole version.
 *
 * Thread-safe: refreshes (from any thread; concurrent ones take turns)
 * and any number of readers.
 */
#ifndef COSCHED_PROFILE_CACHE_H
#define COSCHED_PROFILE_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "src/libcosched/model/classify.h"
#include "src/libcosched/conf/conf.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/model/profile.h"

/* EDP points kept per application in the cache.  A profile with more
 * keeps the points of its most used thread counts (the most samples over
 * their points) first, so whole frequency sweeps survive; the points kept
 * are in the profile's order (threads, then frequency). */
#define COSCHED_PROFILE_CACHE_EDP_MAX 128

typedef struct {
	char app[COSCHED_PROFILE_KEY_MAX + 1];	/* the profile's key:
						 * cosched_profile_key */
	cosched_class_t cls;		/* source COSCHED_CLASS_FROM_PROFILE */
	double mpki;			/* NAN = unknown */
	double threads;			/* mean measured thread count; NAN */
	unsigned long runs_merged;
	long owner_uid;			/* the profile's; -1 none: the
					 * site's (cosched_profile_serves) */
	int n_edp;
	cosched_edp_point_t edp[COSCHED_PROFILE_CACHE_EDP_MAX];
} cosched_profile_summary_t;

typedef struct cosched_profile_cache cosched_profile_cache_t;

/* A cache over conf->profile_dir with conf's classification thresholds
 * (both copied; the directory need not exist yet).  Empty until the first
 * refresh.  NULL with err set on error. */
cosched_profile_cache_t *cosched_profile_cache_create(const cosched_conf_t *conf,
						      cosched_error_t *err);
void cosched_profile_cache_free(cosched_profile_cache_t *c);

/*
 * Rescan the store.  Returns the number of profiles now cached, or -1 when
 * the directory cannot be read (the cache keeps what it had; err says
 * why).  Profile files that failed to load in this refresh are counted in
 * *nbad (may be NULL), and the first one's error (by name) is in err
 * (err->msg[0] == 0 when none).  A file is counted when its version fails
 * for the first time: an unchanged bad file is not counted again at every
 * refresh, so a caller can log each count and error as it comes.
 */
long cosched_profile_cache_refresh(cosched_profile_cache_t *c, int *nbad,
				   cosched_error_t *err);

/* Copy the summary of key (an application's, or a user's own:
 * cosched_profile_key; cosched_profile_find_for says which to ask) into
 * *out: 1 found, 0 not cached (out untouched).  Only
 * out->edp[0 .. n_edp - 1] of the points are written. */
int cosched_profile_cache_lookup(cosched_profile_cache_t *c, const char *app,
				 cosched_profile_summary_t *out);

/* Number of cached profiles. */
size_t cosched_profile_cache_size(cosched_profile_cache_t *c);

#endif
