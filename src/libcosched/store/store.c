/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * store.c - the profile store: atomic writes, flock() locking,
 * merging runs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/libcosched/base/appname.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/store/profile_json.h"
#include "src/libcosched/store/store.h"

/* Room for the directory, a profile key and the suffixes. */
#define STORE_PATH_MAX (COSCHED_PATH_MAX + COSCHED_PROFILE_KEY_MAX + 32)

int cosched_store_open(cosched_store_t *s, const char *dir,
		       const cosched_merge_params_t *merge,
		       cosched_error_t *err)
{
	struct stat st;

	if (!dir || !*dir)
		return cosched_error_set(err, "ProfileDir: empty path");
	if (strlen(dir) >= sizeof(s->dir) - COSCHED_PROFILE_KEY_MAX - 16)
		return cosched_error_set(err, "ProfileDir: path too long");
	if (stat(dir, &st))
		return cosched_error_set(err, "ProfileDir %s: %s", dir,
					 strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return cosched_error_set(err, "ProfileDir %s: not a directory",
					 dir);
	if (merge) {
		if (cosched_merge_params_check(merge, err))
			return -1;
		s->merge = *merge;
	} else {
		cosched_merge_params_default(&s->merge);
	}
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	s->user_profiles_max = COSCHED_STORE_USER_PROFILES_MAX;
	s->privacy.on = false;
	s->privacy.owner = -1;
	return 0;
}

/* The key check guarantees the file stays inside the directory. */
static int key_paths(const cosched_store_t *s, const char *key, char *file,
		     char *lock, cosched_error_t *err)
{
	char app[COSCHED_APP_NAME_MAX + 1];
	long uid;

	if (cosched_profile_key_parse("application", key, app, &uid, err))
		return -1;
	snprintf(file, STORE_PATH_MAX, "%s/%s.json", s->dir, key);
	snprintf(lock, STORE_PATH_MAX, "%s/.%s.lock", s->dir, key);
	return 0;
}

/*
 * Open and flock() the lock file; returns the fd, -1 on error, or -2 for a
 * reader when the lock file does not exist.  Readers open it read-only and
 * never create it, so they need no write access to the directory; a reader
 * that finds no lock file goes on unlocked, which is safe: writers replace
 * the profile by rename(), so it sees no file or a complete one.
 */
static int lock_app(const char *lock, int how, cosched_error_t *err)
{
	int fd;

	cosched_error_t why;

	/* Never through a symbolic link: root would create or lock a file
	 * wherever the link points. */
	if (how == LOCK_SH)
		fd = cosched_open_regular(lock, O_RDONLY, 0, &why);
	else
		fd = cosched_open_regular(lock, O_RDWR | O_CREAT, 0644, &why);
	if (fd < 0) {
		if (how == LOCK_SH && errno == ENOENT)
			return -2;
		return cosched_error_set(err, "lock file %s", why.msg);
	}
	while (flock(fd, how)) {
		if (errno == EINTR)
			continue;
		cosched_error_set(err, "%s: cannot lock: %s", lock,
				  strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void unlock_app(int fd)
{
	if (fd >= 0)
		close(fd);	/* releases the flock */
}

/* Read and parse the file of key (no locking).  1 found, 0 absent, -1
 * error: what it holds is not key's (another application, or a user's
 * key and another owner). */
static int load_file(const char *file, const char *key, cosched_profile_t *p,
		     cosched_error_t *err)
{
	char app[COSCHED_APP_NAME_MAX + 1];
	cosched_error_t perr;
	cosched_profile_t tmp;
	char *buf;
	long uid;
	int missing;

	if (cosched_profile_key_parse("application", key, app, &uid, err))
		return -1;
	buf = cosched_read_file(file, COSCHED_STORE_PROFILE_MAX_BYTES, &missing,
				err);
	if (!buf) {
		if (missing)
			return cosched_profile_init(p, app, err) ? -1 : 0;
		return -1;
	}
	if (cosched_profile_from_json(&tmp, buf, &perr)) {
		free(buf);
		return cosched_error_set(err, "%s: %s", file, perr.msg);
	}
	free(buf);
	if (strcmp(tmp.app, app)) {
		cosched_error_set(err, "%s: app: holds \"%s\", expected \"%s\"",
				  file, tmp.app, app);
		cosched_profile_free(&tmp);
		return -1;
	}
	if (uid > 0 && tmp.owner_uid != uid) {
		cosched_error_set(err, "%s: owner_uid: holds %ld, expected %ld",
				  file, tmp.owner_uid, uid);
		cosched_profile_free(&tmp);
		return -1;
	}
	*p = tmp;
	return 1;
}

int cosched_store_load(const cosched_store_t *s, const char *key,
		       cosched_profile_t *p, cosched_error_t *err)
{
	char file[STORE_PATH_MAX], lock[STORE_PATH_MAX];
	int fd, rc;

	if (key_paths(s, key, file, lock, err))
		return -1;
	fd = lock_app(lock, LOCK_SH, err);
	if (fd == -1)
		return -1;
	rc = load_file(file, key, p, err);
	unlock_app(fd);
	return rc;
}

/* Replace the profile's file, durably (cosched_file_replace): public
 * (0644) or private (0600, SlurmUser's, in a ProfileDir closed to others)
 * as the store's privacy says, so slurmctld and the reports read it; fsync
 * of the file and of ProfileDir, the latter best effort since the profile
 * is in place by then and a caller that saw an error would retry and merge
 * twice. */
static int write_atomic(const cosched_store_t *s, const char *file,
			const cosched_profile_t *p, cosched_error_t *err)
{
	char *text, *line;
	size_t len;
	int rc;

	if (s->privacy.on && cosched_private_dir(&s->privacy, s->dir, false,
						 err))
		return -1;
	text = cosched_profile_to_json(p, err);
	if (!text)
		return -1;
	len = strlen(text);
	line = realloc(text, len + 2);
	if (!line) {
		free(text);
		return cosched_error_set(err, "%s: out of memory", file);
	}
	line[len] = '\n';
	line[len + 1] = '\0';
	rc = cosched_private_replace(&s->privacy, file, line, len + 1,
				     COSCHED_REPLACE_DURABLE, err);
	free(line);
	return rc;
}

int cosched_store_save(const cosched_store_t *s, const cosched_profile_t *p,
		       cosched_error_t *err)
{
	char file[STORE_PATH_MAX], lock[STORE_PATH_MAX];
	int fd, rc;

	if (key_paths(s, p->app, file, lock, err))
		return -1;
	fd = lock_app(lock, LOCK_EX, err);
	if (fd < 0)
		return -1;
	rc = write_atomic(s, file, p, err);
	unlock_app(fd);
	return rc;
}

/*
 * Load key's profile under its exclusive lock (an empty one of app when
 * there is none), let change() alter it, and write it back atomically;
 * *out (may be NULL) gets the new profile, the caller frees it.  Nothing
 * is written when change() fails.
 */
static int update_locked(const cosched_store_t *s, const char *key,
			 int (*change)(cosched_profile_t *p, const void *arg,
				       cosched_error_t *err),
			 const void *arg, cosched_profile_t *out,
			 cosched_error_t *err)
{
	char file[STORE_PATH_MAX], lock[STORE_PATH_MAX];
	cosched_profile_t p;
	int fd, rc;

	if (key_paths(s, key, file, lock, err))
		return -1;
	fd = lock_app(lock, LOCK_EX, err);
	if (fd < 0)
		return -1;
	rc = load_file(file, key, &p, err);
	if (rc < 0) {
		unlock_app(fd);
		return -1;
	}
	rc = change(&p, arg, err);
	if (!rc)
		rc = write_atomic(s, file, &p, err);
	unlock_app(fd);
	if (!rc && out)
		*out = p;
	else
		cosched_profile_free(&p);
	return rc;
}

typedef struct {
	const cosched_run_t *run;
	const char *counters;
	const cosched_merge_params_t *merge;
	long uid;			/* -1: no ownership rule */
	bool shared;
} merge_arg_t;

static int merge_change(cosched_profile_t *p, const void *arg,
			cosched_error_t *err)
{
	const merge_arg_t *m = arg;

	/* A profile just created by update_locked has no runs and no
	 * owner: the check passes and the claim makes it the user's. */
	if (m->uid >= 0 &&
	    cosched_profile_may_merge(p, m->uid, m->shared, err))
		return -1;
	if (m->uid >= 0)
		cosched_profile_claim(p, m->uid);
	if (cosched_profile_add_run(p, m->run, m->merge, err))
		return -1;
	if (cosched_run_counted(m->run))
		p->counters[0] = '\0';
	else
		snprintf(p->counters, sizeof(p->counters), "%s",
			 m->counters && *m->counters ? m->counters :
			 "unavailable");
	/* The note reaches logs and cosched-status: printable only, as
	 * the reader insists. */
	for (char *c = p->counters; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
	return 0;
}

int cosched_store_merge_run(const cosched_store_t *s, const char *app,
			    const cosched_run_t *run, const char *counters,
			    cosched_profile_t *out, cosched_error_t *err)
{
	return cosched_store_merge_run_by(s, app, run, counters, -1, false,
					  NULL, out, err);
}

/* How many profiles of uid's own (<app>@<uid>.json) the directory holds;
 * -1 with err when it cannot be read. */
static int count_own(const cosched_store_t *s, long uid, cosched_error_t *err)
{
	char app[COSCHED_APP_NAME_MAX + 1], key[COSCHED_PROFILE_KEY_MAX + 1];
	struct dirent *e;
	DIR *d = opendir(s->dir);
	long owner;
	int n = 0;

	if (!d)
		return cosched_error_set(err, "ProfileDir %s: cannot read: %s",
					 s->dir, strerror(errno));
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len <= 5 || len - 5 > COSCHED_PROFILE_KEY_MAX ||
		    strcmp(e->d_name + len - 5, ".json"))
			continue;
		memcpy(key, e->d_name, len - 5);
		key[len - 5] = '\0';
		if (!cosched_profile_key_parse("key", key, app, &owner, NULL) &&
		    owner == uid)
			n++;
	}
	closedir(d);
	return n;
}

/*
 * The key a run of uid's goes into (store.h, the layout): 0, or -1 with
 * err when it would be a new profile of uid's own and uid already has
 * user_profiles_max of them.
 */
static int merge_key(const cosched_store_t *s, const char *app, long uid,
		     bool shared, char key[COSCHED_PROFILE_KEY_MAX + 1],
		     cosched_error_t *err)
{
	char file[STORE_PATH_MAX], lock[STORE_PATH_MAX];
	cosched_profile_t p;
	cosched_error_t ignored;
	struct stat st;
	int n;

	cosched_profile_key(key, app, uid > 0 && !shared ? uid : 0);
	if (uid <= 0 || shared)
		return 0;
	if (key_paths(s, key, file, lock, err))
		return -1;
	if (!lstat(file, &st))
		return 0;	/* a link or worse is refused when read */
	/* Owned before users had keys of their own: still theirs.  (An
	 * owner is set once, so the answer cannot change under us.) */
	if (cosched_store_load(s, app, &p, &ignored) == 1) {
		bool theirs = p.owner_uid == uid;

		cosched_profile_free(&p);
		if (theirs) {
			cosched_profile_key(key, app, 0);
			return 0;
		}
	}
	n = count_own(s, uid, err);
	if (n < 0)
		return -1;
	if (n >= s->user_profiles_max)
		return cosched_error_set(err,
			"uid %ld has %d profiles of its own, the most a user may have (%d): no new one for %s",
			uid, n, s->user_profiles_max, app);
	return 0;
}

int cosched_store_merge_run_by(const cosched_store_t *s, const char *app,
			       const cosched_run_t *run, const char *counters,
			       long uid, bool shared,
			       char key[COSCHED_PROFILE_KEY_MAX + 1],
			       cosched_profile_t *out, cosched_error_t *err)
{
	merge_arg_t m = { run, counters, &s->merge, uid, shared };
	char target[COSCHED_PROFILE_KEY_MAX + 1];

	if (cosched_app_name_check("application", app, err) ||
	    cosched_run_check("run", run, err) ||
	    merge_key(s, app, uid, shared, target, err))
		return -1;
	if (update_locked(s, target, merge_change, &m, out, err))
		return -1;
	if (key)
		snprintf(key, COSCHED_PROFILE_KEY_MAX + 1, "%s", target);
	return 0;
}

static int corun_change(cosched_profile_t *p, const void *arg,
			cosched_error_t *err)
{
	(void) err;
	p->corun = *(const cosched_corun_t *) arg;
	return 0;
}

int cosched_store_set_characterisation(const cosched_store_t *s,
				       const char *app,
				       const cosched_corun_t *c,
				       cosched_profile_t *out,
				       cosched_error_t *err)
{
	if (cosched_app_name_check("application", app, err))
		return -1;
	if (!c->present)
		return cosched_error_set(err, "characterisation: not present");
	if (cosched_corun_check("characterisation", c, err))
		return -1;
	return update_locked(s, app, corun_change, c, out, err);
}

