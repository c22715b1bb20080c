/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dirlist.c - a folder's names kept from one listing to the next
 * (io/dirlist.h).
 *
 * The names remembered are an open-addressing table (linear probing, at
 * most half full), keyed by name, each with its entry's inode and the
 * listing that last saw it.  Names are not removed one by one: a listing
 * that found some gone rebuilds the table from those it saw, which costs
 * what the listing itself costs (one pass over the names).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/libcosched/io/dirlist.h"
#include "src/libcosched/base/text.h"

typedef struct {
	char *name;			/* NULL: a free slot */
	ino_t ino;
	unsigned listing;		/* the listing that last saw it */
} dirlist_name_t;

struct cosched_dirlist {
	dirlist_name_t *slot;
	size_t nslots, count;		/* nslots: a power of two */
	unsigned listing;
	/* The folder as stat saw it before the last complete listing,
	 * when that listing may stand for the next (valid). */
	bool valid;
	dev_t dev;
	ino_t ino;
	struct timespec mtime, ctime;
};

cosched_dirlist_t *cosched_dirlist_create(void)
{
	cosched_dirlist_t *d = calloc(1, sizeof(*d));

	if (d) {
		d->nslots = 64;
		d->slot = calloc(d->nslots, sizeof(*d->slot));
		if (!d->slot) {
			free(d);
			d = NULL;
		}
	}
	return d;
}

static void free_names(dirlist_name_t *slot, size_t nslots)
{
	for (size_t i = 0; i < nslots; i++)
		free(slot[i].name);
}

void cosched_dirlist_free(cosched_dirlist_t *d)
{
	if (!d)
		return;
	free_names(d->slot, d->nslots);
	free(d->slot);
	free(d);
}

size_t cosched_dirlist_count(const cosched_dirlist_t *d)
{
	return d ? d->count : 0;
}

void cosched_dirlist_invalidate(cosched_dirlist_t *d)
{
	d->valid = false;
}

void cosched_dirlist_forget(cosched_dirlist_t *d)
{
	free_names(d->slot, d->nslots);
	memset(d->slot, 0, d->nslots * sizeof(*d->slot));
	d->count = 0;
	d->valid = false;
}

/* The slot of name, or the free slot where it would go. */
static size_t find(const dirlist_name_t *slot, size_t nslots,
		   const char *name)
{
	size_t i = cosched_name_hash(name) & (nslots - 1);

	while (slot[i].name && strcmp(slot[i].name, name))
		i = (i + 1) & (nslots - 1);
	return i;
}

/* The names this listing saw, in a table of nslots (the same size to
 * drop the gone ones, twice to grow): false when out of memory, and the
 * table stays as it was. */
static bool rehash(cosched_dirlist_t *d, size_t nslots, bool keep_unseen)
{
	dirlist_name_t *slot = calloc(nslots, sizeof(*slot));
	size_t count = 0;

	if (!slot)
		return false;
	for (size_t i = 0; i < d->nslots; i++) {
		dirlist_name_t *n = &d->slot[i];

		if (!n->name)
			continue;
		if (!keep_unseen && n->listing != d->listing) {
			free(n->name);
			continue;
		}
		slot[find(slot, nslots, n->name)] = *n;
		count++;
	}
	free(d->slot);
	d->slot = slot;
	d->nslots = nslots;
	d->count = count;
	return true;
}

/* Remember name with ino, seen by this listing.  Out of memory, or the
 * table full: not remembered (it comes again). */
static void remember(cosched_dirlist_t *d, const char *name, ino_t ino)
{
	size_t i;

	if (d->count >= COSCHED_DIRLIST_MAX)
		return;
	if (2 * (d->count + 1) > d->nslots &&
	    !rehash(d, 2 * d->nslots, true))
		return;
	i = find(d->slot, d->nslots, name);
	if (!(d->slot[i].name = strdup(name)))
		return;
	d->slot[i].ino = ino;
	d->slot[i].listing = d->listing;
	d->count++;
}

static bool same_folder(const cosched_dirlist_t *d, const struct stat *st)
{
	return d->valid && d->dev == st->st_dev && d->ino == st->st_ino &&
	       d->mtime.tv_sec == st->st_mtim.tv_sec &&
	       d->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       d->ctime.tv_sec == st->st_ctim.tv_sec &&
	       d->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

int cosched_dirlist_read(cosched_dirlist_t *d, const char *path,
			 long long now, cosched_dirlist_fn fn, void *ctx,
			 cosched_error_t *err)
{
	struct dirent *e;
	struct stat st;
	bool gone = false;
	DIR *dp;

	if (stat(path, &st) || !(dp = opendir(path))) {
		if (errno != ENOENT)
			return cosched_error_set(err, "%s: %s", path,
						 strerror(errno));
		cosched_dirlist_forget(d);	/* no folder: no name */
		return 1;
	}
	if (same_folder(d, &st)) {
		closedir(dp);
		return 0;
	}
	d->valid = false;
	if (!++d->listing)
		d->listing = 1;
	while ((errno = 0, e = readdir(dp))) {
		const char *name = e->d_name;
		dirlist_name_t *n;
		cosched_dirlist_verdict_t v;

		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		n = &d->slot[find(d->slot, d->nslots, name)];
		if (n->name && e->d_ino && n->ino == e->d_ino) {
			n->listing = d->listing;
			continue;
		}
		v = fn(ctx, name, e->d_ino);
		if (v == COSCHED_DIRLIST_STOP) {
			closedir(dp);
			if (!err->msg[0])
				cosched_error_set(err, "%s: listing stopped",
						  path);
			return -1;
		}
		if (n->name) {
			/* Replaced: what was decided of it no longer holds. */
			if (v == COSCHED_DIRLIST_REMEMBER && e->d_ino) {
				n->ino = e->d_ino;
				n->listing = d->listing;
			} else {
				gone = true;	/* not seen: dropped below */
			}
		} else if (v == COSCHED_DIRLIST_REMEMBER && e->d_ino) {
			remember(d, name, e->d_ino);
		}
	}
	if (errno) {
		int e_no = errno;

		closedir(dp);
		return cosched_error_set(err, "%s: %s", path, strerror(e_no));
	}
	closedir(dp);
	/* Names not seen by this listing are gone (or passed again). */
	if (!gone)
		for (size_t i = 0; i < d->nslots && !gone; i++)
			gone = d->slot[i].name &&
			       d->slot[i].listing != d->listing;
	if (gone && !rehash(d, d->nslots, false)) {
		/* Cannot drop them: forget all, and read all next time. */
		cosched_dirlist_forget(d);
		return 1;
	}
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	d->mtime = st.st_mtim;
	d->ctime = st.st_ctim;
	d->valid = (long long) st.st_mtim.tv_sec + COSCHED_DIRLIST_SETTLED_S
		   <= now;
	return 1;
}
