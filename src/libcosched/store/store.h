/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * store.h - the profile store: one JSON file per application.
 *
 * Layout of the directory (ProfileDir in cosched.conf), by profile key
 * (cosched_profile_key: <app> or <app>@<uid>):
 *   <key>.json          the profile (model/profile.h)
 *   .<key>.lock         lock file, kept forever (removing lock files races)
 *   .<key>.json.XXXXXX  a write in progress (mkstemp), renamed over <key>.json
 * Keys pass cosched_profile_key_parse() (no '/', no leading '.'), so no key
 * can leave the directory or hit a lock or temporary file.
 *
 * Whose runs go where (cosched_store_merge_run_by): root's and those of
 * an application the site shares into <app>.json; a user's into
 * <app>@<uid>.json, that user's own, whoever ran under the name first,
 * except that a user who owned <app>.json before users had profiles of
 * their own, and has no <app>@<uid>.json, goes on with it.  A user holds at
 * most user_profiles_max profiles of their own: a new one beyond is
 * refused, saying so.
 *
 * Writes are atomic: the new file is written and fsync()ed beside the old
 * one, then renamed over it, then the directory is fsync()ed, so a reader
 * sees the old or the new profile, never a partial one.  Concurrency:
 * flock() on the per-application lock file, shared for readers, exclusive
 * for writers, so read-merge-write cycles of several processes serialise
 * and no merged run is lost.  Readers never create the lock file (they need
 * no write access); where it does not exist yet nobody has written, and they
 * read unlocked, which the atomic rename makes safe.
 *
 * Profiles and lock files are opened with cosched_open_regular()
 * (io/file.h): a symbolic link, a FIFO or a device placed under a
 * profile's or a lock file's name is refused, never followed or waited on.
 */
#ifndef COSCHED_STORE_H
#define COSCHED_STORE_H

#include "src/libcosched/base/error.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/io/private.h"
#include "src/libcosched/model/profile.h"

/* ProfileDir when cosched.conf sets none: COSCHED_STORE_DIR_DEFAULT in
 * conf/conf.h (the io layer, below the store, reads it). */

/* Largest profile file read (bounded samples keep files far smaller). */
#define COSCHED_STORE_PROFILE_MAX_BYTES (16 * 1024 * 1024)

/* Default bound on one user's own profiles (<app>@<uid>.json): users'
 * runs add files only there, so the store grows by at most this much per
 * user who runs jobs. */
#define COSCHED_STORE_USER_PROFILES_MAX 512

typedef struct {
	char dir[COSCHED_PATH_MAX];
	cosched_merge_params_t merge;
	int user_profiles_max;		/* COSCHED_STORE_USER_PROFILES_MAX */
	/* How profiles are kept (io/private.h): public from
	 * cosched_store_open(); a writer that knows the site's PrivateData
	 * sets it. */
	cosched_private_t privacy;
} cosched_store_t;

/* Use directory dir (must exist) with the given merge parameters (NULL =
 * defaults). */
int cosched_store_open(cosched_store_t *s, const char *dir,
		       const cosched_merge_params_t *merge,
		       cosched_error_t *err);

/*
 * Load the profile of key (an application's name, or a user's key
 * APP@UID: cosched_profile_key) into *p (uninitialised on entry).  A
 * user's profile whose owner_uid is not its key's is refused.  Returns 1 when the
 * profile exists, 0 when it does not (then *p is an empty profile), -1 on
 * error (then *p is untouched); in both successful cases the caller frees
 * *p with cosched_profile_free().
 */
int cosched_store_load(const cosched_store_t *s, const char *app,
		       cosched_profile_t *p, cosched_error_t *err);

/*
 * Replace app's profile atomically (p->app names the file).  Success means
 * the new profile is in place: once rename() has succeeded the call
 * returns 0 even if the fsync() of the directory that follows fails (the
 * file is complete and visible; only the durability of the directory entry
 * across a crash is best effort), so a caller never retries a write that
 * happened.  On error the stored profile is unchanged.
 */
int cosched_store_save(const cosched_store_t *s, const cosched_profile_t *p,
		       cosched_error_t *err);

/*
 * Merge one run into app's profile under the exclusive lock (load, add,
 * atomic write).  When out is not NULL it receives the merged profile
 * (caller frees).  The stored profile is unchanged on error, and changed
 * exactly once on success (see cosched_store_save for the directory
 * fsync), so retrying a failed call never merges a run twice.  A run
 * without counter values (cosched_run_counted() false) keeps its runtime,
 * threads and energy in the profile, and counters (NULL: "unavailable")
 * becomes the profile's note of why; a run with them clears the note.
 */
int cosched_store_merge_run(const cosched_store_t *s, const char *app,
			    const cosched_run_t *run, const char *counters,
			    cosched_profile_t *out, cosched_error_t *err);
/*
 * The same for a run of a job of user uid into the profile that is the
 * user's to build (see the layout above; shared: the site shares app),
 * under its lock: cosched_profile_may_merge decides, and a profile
 * without an owner becomes uid's.  key (may be NULL) receives the key
 * of the profile merged into.  Refused: -1 with err, the stored profile
 * unchanged.
 */
int cosched_store_merge_run_by(const cosched_store_t *s, const char *app,
			       const cosched_run_t *run, const char *counters,
			       long uid, bool shared,
			       char key[COSCHED_PROFILE_KEY_MAX + 1],
			       cosched_profile_t *out, cosched_error_t *err);

/*
 * Set app's characterisation by co-run (cosched-characterise), keeping
 * its runs, under the exclusive lock; the profile is created when there
 * is none.  Replaces an earlier characterisation.  out as for
 * cosched_store_merge_run; the stored profile is unchanged on error.
 */
int cosched_store_set_characterisation(const cosched_store_t *s,
				       const char *app,
				       const cosched_corun_t *c,
				       cosched_profile_t *out,
				       cosched_error_t *err);


#endif
