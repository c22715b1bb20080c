/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  task_cosched_conf.c - which settings a node enforces: cosched.conf, or,
 *  while the file cannot be read, the last good copy this node kept.
 *
 *  Every node reads the one cosched.conf at every step.  A careless edit
 *  (EnforceCpuFreq=maybe, a Topology= that does not parse) followed by
 *  `scontrol reconfigure` must not switch cores, memory binding, frequency
 *  and profiling off on every node at once, and must not go unsaid:
 *
 *    slurmd      reads the file at its start (and, on series that start it
 *                again for a reconfigure, at every reconfigure) and looks
 *                at it again at every launch request (a stat(): device,
 *                inode, size and modification time).  A file it can read
 *                is copied to SlurmdSpoolDir/cosched/cosched.conf.good
 *                (root only, replaced atomically, only when its bytes
 *                changed; a missing file counts as the defaults, an empty
 *                copy); a file it cannot read is reported once for each
 *                change of the file, with what the node does instead.
 *    slurmstepd  reads the file; when it cannot, reads the copy (checked
 *                again as strictly: a copy an older release wrote is used
 *                only if this release reads it) and says so at debug
 *                level, since slurmd has said it at error level.
 *
 *  A key only slurmctld uses is never a reason to fall back: the node's
 *  reader skips such a line (cosched_conf_parse_file_for READER_NODE).
 *  With no copy (a node that never read a good file) the step enforces
 *  nothing and says so at every start, as before there were copies.
\*****************************************************************************/

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"

#include "src/libcosched/io/file.h"
#include "src/node/spool.h"

#include "task_cosched.h"

#define GOOD_NAME "cosched.conf.good"

/* The file as slurmd last looked at it. */
typedef struct {
	bool seen;		/* looked at once at least */
	bool exists;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	bool good;		/* it could be read then */
} conf_look_t;

static conf_look_t last_look;

static char *_good_path(void)
{
	return task_cosched_spool_path(GOOD_NAME);
}

/*
 * Parse the settings at path for this node into *out (defaults first):
 * 0, or -1 with err.  A missing file is the defaults, its text "", unless
 * *missing is given: then it is set and -1 returned.  *text (may be
 * NULL) gets the bytes parsed (malloc'd) on success.
 */
static int _read(const char *path, cosched_conf_t *out, char **text,
		 int *missing, cosched_error_t *skipped,
		 cosched_error_t *err)
{
	int absent = 0;
	char *buf = cosched_conf_read_text(path, &absent, err);
	int rc;

	if (text)
		*text = NULL;
	if (skipped)
		skipped->msg[0] = '\0';
	if (missing)
		*missing = absent;
	if (!buf && (!absent || missing))
		return -1;
	if (!buf && !(buf = strdup("")))
		return cosched_error_set(err, "%s: out of memory", path);
	cosched_conf_init(out);
	rc = cosched_conf_parse_string_for(out, path, buf,
					   COSCHED_CONF_READER_NODE,
					   skipped, err);
	if (!rc && text)
		*text = buf;
	else
		free(buf);
	return rc;
}

/* slurmd: keep text as the last good copy when it differs from it. */
static void _save_good(const char *text)
{
	char *dir = NULL, *path = _good_path();
	cosched_error_t err;
	char *old = NULL;

	if (!path)
		goto out;
	old = cosched_conf_read_text(path, NULL, &err);
	if (old && !strcmp(old, text))
		goto out;
	if (!(dir = task_cosched_spool_dir(NULL, &err)) ||
	    cosched_file_replace(path, text, strlen(text), 0600,
				 COSCHED_REPLACE_DURABLE, &err))
		error("%s: %s: this node keeps no copy of its last good settings",
		      plugin_type, err.msg);
out:
	free(old);
	xfree(dir);
	xfree(path);
}

/* "2026-11-26T12:00:00", the copy's time, into buf. */
static void _copy_time(const char *path, char *buf, size_t len)
{
	struct stat st;
	struct tm tm;

	if (stat(path, &st) || !localtime_r(&st.st_mtime, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "unknown");
}

/* What a node does when path cannot be read: the copy's settings into
 * *out and 0, or -1.  *used (xmalloc'ed) names the copy. */
static int _fall_back(cosched_conf_t *out, char **used, char *why,
		      size_t len)
{
	char *good = _good_path();
	cosched_error_t err;
	char when[32];
	int missing = 0;

	if (!good) {
		snprintf(why, len, "no SlurmdSpoolDir to keep settings in");
		return -1;
	}
	if (_read(good, out, NULL, &missing, NULL, &err)) {
		if (missing)
			snprintf(why, len, "no good settings kept on this node");
		else
			snprintf(why, len, "its last good copy is unusable too (%s)",
				 err.msg);
		xfree(good);
		return -1;
	}
	_copy_time(good, when, sizeof(when));
	snprintf(why, len, "the last good settings this node read (%s, kept %s)",
		 good, when);
	*used = good;
	return 0;
}

static void _look(const char *path, conf_look_t *l)
{
	struct stat st;

	memset(l, 0, sizeof(*l));
	l->seen = true;
	if (stat(path, &st))
		return;
	l->exists = true;
	l->dev = st.st_dev;
	l->ino = st.st_ino;
	l->size = st.st_size;
	l->mtime = st.st_mtim;
}

static bool _same_look(const conf_look_t *a, const conf_look_t *b)
{
	return a->seen && b->seen && a->exists == b->exists &&
	       a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec;
}

int task_cosched_conf_load(const char *path, cosched_conf_t *out,
			   char **used, cosched_error_t *skipped,
			   cosched_error_t *err)
{
	cosched_error_t bad;
	char *text = NULL;
	char why[2 * COSCHED_ERROR_MSG_LEN];
	conf_look_t look;
	int rc = 0;

	*used = NULL;
	if (running_in_slurmd())
		_look(path, &look);
	if (!_read(path, out, &text, NULL, skipped, &bad)) {
		*used = xstrdup(path);
		if (running_in_slurmd())
			_save_good(text);
		free(text);
		look.good = true;
	} else {
		look.good = false;
		if (skipped)
			skipped->msg[0] = '\0';
		if (_fall_back(out, used, why, sizeof(why)))
			rc = cosched_error_set(err, "%s; %s", bad.msg, why);
		else if (running_in_slurmd())
			error("%s: %s: enforcing %s until the file is fixed",
			      plugin_type, bad.msg, why);
		else
			debug("%s: %s: enforcing %s", plugin_type, bad.msg,
			      why);
	}
	if (running_in_slurmd())
		last_look = look;
	return rc;
}

void task_cosched_conf_watch(const char *path)
{
	cosched_conf_t tmp;
	cosched_error_t skipped, err;
	conf_look_t look;
	char *used = NULL;
	bool was_good = last_look.good;

	_look(path, &look);
	if (_same_look(&look, &last_look))
		return;
	/* Says what it falls back to, if it does. */
	if (task_cosched_conf_load(path, &tmp, &used, &skipped, &err))
		error("%s: %s: new steps on this node enforce nothing until the file is fixed",
		      plugin_type, err.msg);
	else if (last_look.good && !was_good)
		info("%s: %s can be read again: new steps enforce its settings",
		     plugin_type, path);
	if (last_look.good && skipped.msg[0])
		task_cosched_conf_skipped(&skipped);
	xfree(used);
}

void task_cosched_conf_skipped(const cosched_error_t *skipped)
{
	/* Said by slurmd (at its start and each change of the file), not
	 * by every step. */
	if (running_in_slurmd())
		error("%s: %s: a setting of slurmctld's, ignored on this node (slurmctld refuses the file until it is fixed)",
		      plugin_type, skipped->msg);
	else
		debug("%s: %s: ignored on this node", plugin_type,
		      skipped->msg);
}
