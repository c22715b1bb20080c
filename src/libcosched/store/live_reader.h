/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live_reader.h - slurmctld's reader of ProfileDir/live
 * (store/live.h), kept from one reading to the next.
 *
 * Why a reader with memory rather than a fresh scan every few seconds: a
 * scan that reads and checks every file costs slurmctld most of a core
 * with 100,000 files, and reports the same unusable file on every scan
 * (tens of thousands of log lines a day for one bad file).  The reader
 * remembers every file by name with what fstat saw of it (device, inode,
 * size, mtime, ctime, owner, mode): a file whose stat is unchanged is not
 * opened again, and an unusable file is reported once, and again only
 * when it changes.  A reading merges the files into jobs by sorting, so
 * its cost grows as F log F in the files, not F x jobs.
 *
 * Why a cap on the files checked: a user can start many steps, each with
 * its file, and an fstat of every file at every reading cost slurmctld a
 * fifth of a core in the reading alone with 100,000 of them at
 * LiveLoadRefresh=1 (cosched-bench-live(1) --scale).  A reading lists every name (a file gone is
 * forgotten at once), then checks at most COSCHED_LIVE_CHECK_MAX of them:
 * the files never read first, then the others in turn from where the
 * last reading stopped.  A file not checked keeps the load last read from
 * it, so one user's files delay the checks of everyone's equally (each
 * file is checked again within files / cap readings) and hide no load.
 *
 * Not thread-safe: one thread reads (slurmctld's refresher).
 */
#ifndef COSCHED_LIVE_READER_H
#define COSCHED_LIVE_READER_H

#include "src/libcosched/base/error.h"
#include "src/libcosched/store/live.h"

typedef struct cosched_live_reader cosched_live_reader_t;

/* A reader of profile_dir/live; NULL with err for a bad ProfileDir or out
 * of memory.  The directory need not exist yet. */
cosched_live_reader_t *cosched_live_reader_create(const char *profile_dir,
						  cosched_error_t *err);
void cosched_live_reader_free(cosched_live_reader_t *r);

/* Called once for a file the reading could not use (name, what was
 * wrong), and again only when that file changes. */
typedef void (*cosched_live_report_fn)(void *ctx, const char *name,
				       const char *why);

/*
 * Read the directory: every usable file's load, merged into jobs as
 * cosched_live_scan describes (*jobs malloc'd, sorted by job id, one
 * entry a job; the caller frees).  Files older than stale_s seconds are
 * skipped and, where this process may, removed.  *nbad counts the files
 * not used in this reading (reported or not).  Returns the number of
 * jobs, or -1 (err) when the directory cannot be read; a missing
 * directory is no job.
 */
long cosched_live_reader_read(cosched_live_reader_t *r, long long now,
			      int stale_s, cosched_live_job_t **jobs,
			      int *nbad, cosched_live_report_fn report,
			      void *ctx, cosched_error_t *err);

/* Files the reader remembers (for tests and the debug log). */
size_t cosched_live_reader_files(const cosched_live_reader_t *r);

/* Files checked (fstat'ed, and read when their stat changed) in one
 * reading by default: at most a few milliseconds of fstat calls. */
#define COSCHED_LIVE_CHECK_MAX 4096

/* The cap on files checked in one reading (0: every file). */
void cosched_live_reader_set_cap(cosched_live_reader_t *r, size_t cap);

/* What the last reading did with the files it listed. */
typedef struct {
	size_t files;		/* live files' names listed */
	size_t checked;		/* fstat'ed */
	size_t opened;		/* of those, read (new or changed) */
	size_t kept;		/* not checked: their last load kept */
	size_t unread;		/* not checked and never read: no load yet */
} cosched_live_reading_t;

void cosched_live_reader_last(const cosched_live_reader_t *r,
			      cosched_live_reading_t *out);

#endif
