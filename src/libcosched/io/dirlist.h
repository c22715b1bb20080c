/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dirlist.h - a folder's names kept from one listing to the next,
 * so that a reader that lists a folder often pays for what changed in it,
 * not for all it holds.
 *
 * Why: the learner (store/learner.h) lists ProfileDir/jobs every
 * ProfileCacheRefresh seconds, and step records stay there until the site
 * removes them.  Looking at every file at every listing made slurmctld's
 * reader thread cost grow with the records kept (tens of milliseconds a
 * listing at 15,000), whatever ended since.
 *
 * A listing (cosched_dirlist_read) first stats the folder.  When its
 * device, inode, mtime and ctime are those seen before the last complete
 * listing, and that mtime was already COSCHED_DIRLIST_SETTLED_S old then,
 * no name was added, removed or renamed since, and the folder is not
 * read.  (A younger mtime is not trusted: a name added in the same tick of
 * the file system's clock as the listing's stat leaves the mtime as it
 * was; the margin also covers a file server's clock ahead of this one's.)
 *
 * Otherwise the folder is read and each name passed to the caller's
 * function with its entry's inode, but a name the function asked to
 * remember (COSCHED_DIRLIST_REMEMBER) at an earlier listing whose entry
 * still has that inode: a file replaced by rename (cosched_file_replace)
 * comes again with its new inode.  A file changed in place keeps its
 * inode, so this is for folders whose files are replaced, never edited.
 * Names gone from the folder are forgotten.
 *
 * At most COSCHED_DIRLIST_MAX names are remembered; the others come to
 * the function at every listing.  Not thread-safe: one reader.
 */
#ifndef COSCHED_DIRLIST_H
#define COSCHED_DIRLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "src/libcosched/base/error.h"

#define COSCHED_DIRLIST_MAX (1 << 20)
#define COSCHED_DIRLIST_SETTLED_S 60

typedef enum {
	COSCHED_DIRLIST_STOP = -1,	/* end the listing: it fails */
	COSCHED_DIRLIST_PASS = 0,	/* come again at the next listing */
	COSCHED_DIRLIST_REMEMBER = 1	/* not again while its inode stays */
} cosched_dirlist_verdict_t;

/* One name of the folder ("." and ".." are not passed) and its entry's
 * inode (0 where the file system gives none: never remembered). */
typedef cosched_dirlist_verdict_t (*cosched_dirlist_fn)(void *ctx,
							 const char *name,
							 ino_t ino);

typedef struct cosched_dirlist cosched_dirlist_t;

/* NULL when out of memory. */
cosched_dirlist_t *cosched_dirlist_create(void);
void cosched_dirlist_free(cosched_dirlist_t *d);

/*
 * List path at now (the wall clock, seconds): 1 read (fn called), 0 not
 * read (unchanged since the last complete listing; a missing folder is
 * read as empty, 1), -1 with err (the folder cannot be read, out of
 * memory, or fn said stop: err says "listing stopped" unless fn's caller
 * sets its own).  A failed listing changes nothing remembered.
 */
int cosched_dirlist_read(cosched_dirlist_t *d, const char *path,
			 long long now, cosched_dirlist_fn fn, void *ctx,
			 cosched_error_t *err);

/* The next listing reads the folder, whatever its times say (a name the
 * function passed must come again). */
void cosched_dirlist_invalidate(cosched_dirlist_t *d);

/* Forget every name, and invalidate (what the function decided no longer
 * holds). */
void cosched_dirlist_forget(cosched_dirlist_t *d);

/* Names remembered (for tests and the debug log). */
size_t cosched_dirlist_count(const cosched_dirlist_t *d);

#endif
