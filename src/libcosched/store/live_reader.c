/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live_reader.c - slurmctld's reader of ProfileDir/live, with
 * memory of what it read (store/live_reader.h), and the one-shot scan
 * built on it (cosched_live_scan, store/live.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/libcosched/io/file.h"
#include "src/libcosched/base/text.h"
#include "src/libcosched/store/live_reader.h"

#define LIVE_NAME_MAX (COSCHED_LIVE_NODE_MAX + 32)
#define LIVE_DIR_MAX (COSCHED_PATH_MAX + 16)

/* What fstat saw of a file: when all of it is unchanged, so is the file
 * (a rewrite is a rename, a new inode; chmod and chown move ctime). */
typedef struct {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	uid_t uid;
	mode_t mode;
} live_key_t;

typedef struct live_file {
	struct live_file *next;		/* in its bucket */
	char name[LIVE_NAME_MAX + 1];
	bool keyed;			/* key is valid (else: a bad name) */
	live_key_t key;
	bool usable;			/* load holds the file's content */
	cosched_live_t load;
	unsigned seen;			/* the reading that last saw it */
	unsigned checked;		/* ... that last fstat'ed it */
	bool stale;			/* not rewritten for stale_s then */
} live_file_t;

struct cosched_live_reader {
	char dir[LIVE_DIR_MAX];
	live_file_t **bucket;
	size_t nbuckets, count;		/* nbuckets: a power of two */
	unsigned reading;
	size_t cap;			/* files checked a reading; 0: all */
	size_t cursor;			/* where the next reading goes on */
	cosched_live_reading_t last;
};

static void key_of(const struct stat *st, live_key_t *k)
{
	memset(k, 0, sizeof(*k));
	k->dev = st->st_dev;
	k->ino = st->st_ino;
	k->size = st->st_size;
	k->mtime = st->st_mtim;
	k->ctime = st->st_ctim;
	k->uid = st->st_uid;
	k->mode = st->st_mode;
}

static bool key_same(const live_key_t *a, const live_key_t *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec &&
	       a->ctime.tv_nsec == b->ctime.tv_nsec && a->uid == b->uid &&
	       a->mode == b->mode;
}

cosched_live_reader_t *cosched_live_reader_create(const char *profile_dir,
						  cosched_error_t *err)
{
	cosched_live_reader_t *r;

	if (cosched_dir_path_check("ProfileDir", profile_dir,
				   COSCHED_PATH_MAX - 16, err))
		return NULL;
	r = calloc(1, sizeof(*r));
	if (r) {
		r->nbuckets = 64;
		r->bucket = calloc(r->nbuckets, sizeof(*r->bucket));
		r->cap = COSCHED_LIVE_CHECK_MAX;
	}
	if (!r || !r->bucket) {
		free(r);
		cosched_error_set(err, "live loads: out of memory");
		return NULL;
	}
	snprintf(r->dir, sizeof(r->dir), "%s/" COSCHED_LIVE_SUBDIR,
		 profile_dir);
	return r;
}

void cosched_live_reader_free(cosched_live_reader_t *r)
{
	if (!r)
		return;
	for (size_t b = 0; b < r->nbuckets; b++)
		for (live_file_t *f = r->bucket[b], *next; f; f = next) {
			next = f->next;
			free(f);
		}
	free(r->bucket);
	free(r);
}

size_t cosched_live_reader_files(const cosched_live_reader_t *r)
{
	return r ? r->count : 0;
}

void cosched_live_reader_set_cap(cosched_live_reader_t *r, size_t cap)
{
	r->cap = cap;
}

void cosched_live_reader_last(const cosched_live_reader_t *r,
			      cosched_live_reading_t *out)
{
	*out = r->last;
}

/* Twice the buckets when the files outnumber them; a failed grow only
 * makes the chains longer. */
static void grow(cosched_live_reader_t *r)
{
	size_t nb = 2 * r->nbuckets;
	live_file_t **nbk;

	if (r->count <= r->nbuckets || !(nbk = calloc(nb, sizeof(*nbk))))
		return;
	for (size_t b = 0; b < r->nbuckets; b++)
		for (live_file_t *f = r->bucket[b], *next; f; f = next) {
			size_t h = cosched_name_hash(f->name) & (nb - 1);

			next = f->next;
			f->next = nbk[h];
			nbk[h] = f;
		}
	free(r->bucket);
	r->bucket = nbk;
	r->nbuckets = nb;
}

/* The file called name, remembered or new (NULL: out of memory). */
static live_file_t *file_get(cosched_live_reader_t *r, const char *name,
			     bool *fresh)
{
	size_t h = cosched_name_hash(name) & (r->nbuckets - 1);
	live_file_t *f;

	*fresh = false;
	for (f = r->bucket[h]; f; f = f->next)
		if (!strcmp(f->name, name))
			return f;
	if (!(f = calloc(1, sizeof(*f))))
		return NULL;
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->next = r->bucket[h];
	r->bucket[h] = f;
	r->count++;
	*fresh = true;
	grow(r);
	return f;
}

/* Forget every file this reading did not see (gone from the directory). */
static void sweep(cosched_live_reader_t *r)
{
	for (size_t b = 0; b < r->nbuckets; b++)
		for (live_file_t **pp = &r->bucket[b]; *pp;) {
			live_file_t *f = *pp;

			if (f->seen == r->reading) {
				pp = &f->next;
				continue;
			}
			*pp = f->next;
			free(f);
			r->count--;
		}
}

/* Whether name is what a live file of l is called. */
static bool name_matches(const char *name, const cosched_live_t *l)
{
	char want[LIVE_NAME_MAX + 1];

	snprintf(want, sizeof(want), "%" PRIu32 ".%" PRIu32 ".%s", l->job_id,
		 l->step_id, l->node);
	return !strcmp(name, want);
}

/* Read, check and parse one file into f (usable or not, with why). */
static void file_load(const char *path, const char *name, live_file_t *f,
		      const struct stat *seen, cosched_error_t *why)
{
	struct stat st;
	int missing;
	char *text;

	f->usable = false;
	key_of(seen, &f->key);
	f->keyed = true;
	text = cosched_read_file_stat(path, COSCHED_LIVE_LINE_MAX, &missing,
				      &st, why);
	if (!text)
		return;
	key_of(&st, &f->key);		/* what was read, if it moved since */
	if (!cosched_file_trusted(path, &st, "live loads", why) &&
	    !cosched_live_parse(text, &f->load, why)) {
		if (name_matches(name, &f->load))
			f->usable = true;
		else
			cosched_error_set(why, "holds job %" PRIu32 " step %"
					  PRIu32 " node %s: not its name",
					  f->load.job_id, f->load.step_id,
					  f->load.node);
	}
	free(text);
}

static int job_cmp(const void *a, const void *b)
{
	uint32_t x = ((const cosched_live_job_t *) a)->job_id;
	uint32_t y = ((const cosched_live_job_t *) b)->job_id;

	return x < y ? -1 : x > y;
}

/* The files' loads (one entry a file, files 1) merged into jobs, in
 * place: sorted, then one pass (F log F; entries of 24 bytes, not the
 * files' whole loads, which made the sort most of a reading). */
static long merge_jobs(cosched_live_job_t *one, size_t n)
{
	size_t m = 0;

	if (!n)
		return 0;
	qsort(one, n, sizeof(*one), job_cmp);
	for (size_t i = 0; i < n; i++) {
		const cosched_live_job_t *l = &one[i];

		if (!m || one[m - 1].job_id != l->job_id) {
			one[m++] = *l;
			continue;
		}
		if (l->mpki > one[m - 1].mpki)
			one[m - 1].mpki = l->mpki;
		if (l->time > one[m - 1].time)
			one[m - 1].time = l->time;
		one[m - 1].files++;
	}
	return (long) m;
}

static bool live_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n <= LIVE_NAME_MAX && strspn(name, COSCHED_LIVE_NAME_CHARS) == n;
}

/* Room for one more in a growing array of file pointers. */
static int list_add(live_file_t ***list, size_t *n, size_t *cap,
		    live_file_t *f)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 256;
		live_file_t **nl = realloc(*list, nc * sizeof(*nl));

		if (!nl)
			return -1;
		*list = nl;
		*cap = nc;
	}
	(*list)[(*n)++] = f;
	return 0;
}

/* Check one listed file: fstat, and read again when its stat changed. */
static void file_check(cosched_live_reader_t *r, int dfd, live_file_t *f,
		       cosched_live_report_fn report, void *ctx)
{
	char path[LIVE_DIR_MAX + LIVE_NAME_MAX + 2];
	cosched_error_t why = { { 0 } };
	struct stat st;
	live_key_t k;

	r->last.checked++;
	f->checked = r->reading;
	if (fstatat(dfd, f->name, &st, AT_SYMLINK_NOFOLLOW)) {
		f->seen = 0;	/* gone since readdir: forget it */
		return;
	}
	key_of(&st, &k);
	if (f->keyed && key_same(&f->key, &k))
		return;
	snprintf(path, sizeof(path), "%s/%s", r->dir, f->name);
	r->last.opened++;
	file_load(path, f->name, f, &st, &why);
	if (!f->usable && report)
		report(ctx, f->name, why.msg);
}

/*
 * Which listed files are checked: those never read first, then the
 * others from where the last reading stopped, up to r->cap in all (0:
 * every file).  The others keep the load last read from them, so a
 * directory of many files costs a bounded number of fstat calls a
 * reading, and every file is checked again within files / cap readings,
 * whoever's it is.
 */
static int check_files(cosched_live_reader_t *r, int dfd,
		       live_file_t **list, size_t n,
		       cosched_live_report_fn report, void *ctx)
{
	size_t budget = r->cap ? r->cap : n, known = 0, start, j;
	live_file_t **kn = n ? malloc(n * sizeof(*kn)) : NULL;

	if (n && !kn)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (list[i]->keyed)
			kn[known++] = list[i];
		else if (r->last.checked < budget)
			file_check(r, dfd, list[i], report, ctx);
		else
			r->last.unread++;
	}
	start = known ? r->cursor % known : 0;
	for (j = 0; j < known && r->last.checked < budget; j++)
		file_check(r, dfd, kn[(start + j) % known], report, ctx);
	r->cursor = start + j;
	r->last.kept = known - j;
	free(kn);
	return 0;
}

long cosched_live_reader_read(cosched_live_reader_t *r, long long now,
			      int stale_s, cosched_live_job_t **jobs,
			      int *nbad, cosched_live_report_fn report,
			      void *ctx, cosched_error_t *err)
{
	char path[LIVE_DIR_MAX + LIVE_NAME_MAX + 2];
	live_file_t **list = NULL;
	cosched_live_job_t *loads = NULL;
	size_t nlist = 0, cap = 0, n = 0;
	struct dirent *e;
	long njobs;
	DIR *dp;

	*jobs = NULL;
	*nbad = 0;
	memset(&r->last, 0, sizeof(r->last));
	if (!++r->reading)
		r->reading = 1;
	if (!(dp = opendir(r->dir))) {
		if (errno != ENOENT)
			return cosched_error_set(err, "%s: %s", r->dir,
						 strerror(errno));
		sweep(r);
		return 0;
	}
	/* Every name, so that a file gone is forgotten at once. */
	while ((e = readdir(dp))) {
		char q[COSCHED_QUOTE_BUF];
		bool fresh, ok_name;
		live_file_t *f;

		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp"))
			continue;
		/* Names reach slurmctld's log: anything but a live file's
		 * characters is refused, quoted and shortened, unread. */
		ok_name = live_name_ok(e->d_name);
		if (!(f = file_get(r, ok_name ? e->d_name :
				   cosched_quote(q, sizeof(q), e->d_name),
				   &fresh)) ||
		    (ok_name && list_add(&list, &nlist, &cap, f))) {
			closedir(dp);
			free(list);
			return cosched_error_set(err,
						 "live loads: out of memory");
		}
		f->seen = r->reading;
		if (!ok_name) {
			++*nbad;
			if (fresh && report)
				report(ctx, f->name, "not a live load's name");
		}
	}
	r->last.files = nlist;
	if (check_files(r, dirfd(dp), list, nlist, report, ctx) ||
	    (nlist && !(loads = malloc(nlist * sizeof(*loads))))) {
		closedir(dp);
		free(list);
		return cosched_error_set(err, "live loads: out of memory");
	}
	for (size_t i = 0; i < nlist; i++) {
		live_file_t *f = list[i];

		if (f->seen != r->reading || !f->keyed)
			continue;	/* gone, or not read yet */
		if (!f->usable) {
			++*nbad;
			continue;
		}
		/* Judged on what this reading saw: a file not checked keeps
		 * its load (rewritten meanwhile, its remembered mtime would
		 * call it stale) until its next check, a cycle later. */
		if (f->checked == r->reading) {
			f->stale = now - (long long) f->key.mtime.tv_sec >
				   stale_s;
			if (f->stale) {
				/* Best effort: its sampler is gone. */
				snprintf(path, sizeof(path), "%s/%s", r->dir,
					 f->name);
				unlink(path);
			}
		}
		if (f->stale)
			continue;
		loads[n++] = (cosched_live_job_t) {
			.job_id = f->load.job_id, .mpki = f->load.mpki,
			.time = f->load.time, .files = 1 };
	}
	closedir(dp);
	free(list);
	sweep(r);
	if (!(njobs = merge_jobs(loads, n))) {
		free(loads);
		loads = NULL;
	}
	*jobs = loads;
	return njobs;
}

/* The one-shot form: a reader for one reading, its first unusable file
 * in err (as before the reader existed). */
static void first_bad(void *ctx, const char *name, const char *why)
{
	cosched_error_t *err = ctx;

	if (!err->msg[0])
		cosched_error_set(err, "%s: %s", name, why);
}

long cosched_live_scan(const char *profile_dir, long long now, int stale_s,
		       cosched_live_job_t **jobs, int *nbad,
		       cosched_error_t *err)
{
	cosched_live_reader_t *r;
	cosched_error_t bad = { { 0 } };
	long n;

	*jobs = NULL;
	*nbad = 0;
	if (!(r = cosched_live_reader_create(profile_dir, err)))
		return -1;
	cosched_live_reader_set_cap(r, 0);	/* one reading: every file */
	n = cosched_live_reader_read(r, now, stale_s, jobs, nbad, first_bad,
				     &bad, err);
	if (n >= 0 && *nbad)
		*err = bad;
	cosched_live_reader_free(r);
	return n;
}
