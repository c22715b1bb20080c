/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpufreq_journal_file.c - the cpufreq journal's file in the spool
 * directory: loaded (an unreadable one set aside), stored atomically and
 * durably (cpufreq_journal.h gives the rules; the caller holds the lock).
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "src/libcosched/io/file.h"
#include "src/node/cpufreq_journal_internal.h"
#include "src/node/spool.h"

#define JOURNAL_BYTES_MAX (64u << 20)

/* Load DIR's journal (none: empty).  One that cannot be read as a
 * journal (no parse, NUL bytes, a directory or anything but a regular
 * file where it was, too large) is set aside: 1, err saying so and
 * where.  A symbolic link is refused (-1), never moved: it may point
 * anywhere. */
int cosched_journal_load(const char *dir, journal_t *j, cosched_error_t *err)
{
	char path[COSCHED_PATH_MAX], bad[COSCHED_PATH_MAX];
	cosched_error_t perr;
	struct stat st;
	char *text;
	int missing;

	if (cosched_spool_path(path, sizeof(path), dir,
			       COSCHED_CPUFREQ_JOURNAL_FILE, "", err))
		return -1;
	text = cosched_read_file(path, JOURNAL_BYTES_MAX, &missing, &perr);
	if (!text && (missing || (!lstat(path, &st) && S_ISLNK(st.st_mode)))) {
		if (missing)
			return 0;
		return cosched_error_set(err, "%s", perr.msg);
	}
	/* 0 bytes: it holds nothing to restore, so it is an empty journal
	 * (setting it aside would stop every frequency change here for
	 * nothing). */
	if (text && !text[0]) {
		free(text);
		return 0;
	}
	if (text && !cosched_journal_parse(text, j, &perr)) {
		free(text);
		return 0;
	}
	free(text);
	for (int i = 0; i < j->n; i++)
		free(j->d[i].h);
	j->n = 0;
	if (cosched_spool_set_aside(dir, COSCHED_CPUFREQ_JOURNAL_FILE, bad,
				    sizeof(bad), err))
		return cosched_error_prefix(err, "unreadable cpufreq journal");
	cosched_error_set(err,
		"%s: unreadable cpufreq journal (%s), set aside as %s: the domains cosched held were given back their hardware defaults",
		path, perr.msg, bad);
	return 1;
}

/* Write the journal atomically: temporary file, fsync, rename, fsync of
 * the directory. */
int cosched_journal_store(const char *dir, const journal_t *j,
			  cosched_error_t *err)
{
	char *text;
	int rc;

	/* Nothing held: no journal, so that slurmd's launch hooks see at a
	 * glance (one stat) that there is nothing to sweep, and a node
	 * cosched gave everything back to holds no file of it. */
	if (!j->n)
		return cosched_spool_replace(dir, COSCHED_CPUFREQ_JOURNAL_FILE,
					     NULL, true, err);
	text = cosched_journal_format(j);
	if (!text)
		return cosched_error_set(err, "cpufreq journal: out of memory");
	rc = cosched_spool_replace(dir, COSCHED_CPUFREQ_JOURNAL_FILE, text,
				   true, err);
	free(text);
	return rc;
}
