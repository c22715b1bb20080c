/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * learner.c - step records in, the learned table out
 * (store/learner.h).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/libcosched/io/dirlist.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/store/learner.h"

#define LEARNER_PATH_MAX (COSCHED_PATH_MAX + 256)

/* ---- the table file -------------------------------------------------------- */

static void table_path(char *buf, size_t len, const char *dir)
{
	snprintf(buf, len, "%s/%s", dir, COSCHED_LEARNER_FILE);
}

static int file_load_stat(const char *dir, cosched_learn_table_t *t,
			  struct stat *st, cosched_error_t *err)
{
	char path[LEARNER_PATH_MAX];
	int missing = 0;
	char *text;

	table_path(path, sizeof(path), dir);
	text = cosched_read_file_stat(path, COSCHED_LEARNER_FILE_MAX_BYTES,
				      &missing, st, err);
	if (!text)
		return missing ? 0 : -1;
	if (cosched_file_trusted(path, st, "learned interference tables",
				 err) ||
	    cosched_learn_parse(text, t, err)) {
		free(text);
		return cosched_error_prefix(err, path);
	}
	free(text);
	return 1;
}

int cosched_learner_file_load(const char *profile_dir,
			      cosched_learn_table_t *t, cosched_error_t *err)
{
	struct stat st;

	return file_load_stat(profile_dir, t, &st, err);
}

int cosched_learner_file_save(const char *profile_dir,
			      const cosched_private_t *privacy,
			      const cosched_learn_table_t *t,
			      cosched_error_t *err)
{
	char path[LEARNER_PATH_MAX];
	char *text = cosched_learn_format(t);
	int rc;

	if (!text)
		return cosched_error_set(err, "learned table: out of memory");
	table_path(path, sizeof(path), profile_dir);
	rc = cosched_private_replace(privacy, path, text, strlen(text),
				     COSCHED_REPLACE_DURABLE, err);
	free(text);
	return rc;
}

/* ---- the learner ------------------------------------------------------------ */

/* A file as it was when looked at: the same one, unchanged, while these
 * stay the same (the table file the learner wrote, a waiting record). */
typedef struct {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
} file_id_t;

static file_id_t file_id_of(const struct stat *st)
{
	file_id_t id = { st->st_dev, st->st_ino, st->st_size, st->st_mtim };

	return id;
}

static bool same_file(const file_id_t *id, const struct stat *st)
{
	return id->dev == st->st_dev && id->ino == st->st_ino &&
	       id->size == st->st_size &&
	       id->mtime.tv_sec == st->st_mtim.tv_sec &&
	       id->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/*
 * A pending record that waits only for its application's solo time: what
 * the rule made of it and its file as it was read.  While the file stays
 * the same, the runs it waits through look at it (lstat) instead of
 * reading and parsing it and its co-runners' records again: the pending
 * set may hold COSCHED_LEARN_SEEN_MAX records for a day, and a run every
 * ProfileCacheRefresh seconds that parsed them all would keep a CPU of
 * slurmctld's node busy.  Memory only: a restarted slurmctld reads each
 * once more.
 */
typedef struct {
	char name[COSCHED_LEARN_NAME_MAX + 1];
	file_id_t file;
	char app[sizeof(((cosched_step_record_t *) 0)->app)];
	double runtime_s;
	long uid;			/* its user; with shared, whose */
	bool shared;			/* solo time it waits for */
	cosched_observation_t obs;	/* a pair */
	ino_t listed;			/* its inode in this run's listing
					 * of the folder (0: not listed) */
} waiting_t;

struct cosched_learner {
	char dir[COSCHED_PATH_MAX];
	double half_life_s, min_overlap;
	double lo, hi;			/* the configured table's range */
	cosched_private_t privacy;	/* how the table file is kept */
	cosched_learn_table_t table;
	bool loaded;			/* the file was looked at */
	bool known;			/* key: the file as last written or
					 * found unusable */
	file_id_t key;
	waiting_t *waiting;		/* by name */
	int nwaiting;
	cosched_dirlist_t *folder;	/* ProfileDir/jobs as last listed:
					 * names of files older than the
					 * watermark, or not records */
};

/* A record being decided in this run. */
typedef struct {
	char name[COSCHED_LEARN_NAME_MAX + 1];
	cosched_step_record_t rec;
	cosched_observation_t obs;
	double time;			/* its file's time (store/learner.h:
					 * the watermark's clock) */
	bool was_pending;		/* from the table's pending set */
	bool read;			/* rec read from its file in this run
					 * (st: the file as read) */
	bool decided;			/* obs from the waiting list */
	bool waits_solo;		/* a pair kept pending for want of
					 * its application's solo time */
	file_id_t file;			/* read or decided: its file as
					 * looked at before */
} candidate_t;

const cosched_learn_table_t *cosched_learner_table(const cosched_learner_t *l)
{
	return &l->table;
}

cosched_learner_t *cosched_learner_create(const char *profile_dir,
					  double half_life_s,
					  double min_overlap,
					  cosched_error_t *err)
{
	cosched_learner_t *l = calloc(1, sizeof(*l));

	if (!l) {
		cosched_error_set(err, "learned table: out of memory");
		return NULL;
	}
	if (!(l->folder = cosched_dirlist_create())) {
		free(l);
		cosched_error_set(err, "learned table: out of memory");
		return NULL;
	}
	snprintf(l->dir, sizeof(l->dir), "%s", profile_dir);
	l->half_life_s = half_life_s;
	l->min_overlap = min_overlap;
	l->privacy.owner = -1;
	{
		cosched_interference_model_t m;

		cosched_interference_default(&m);
		cosched_learner_set_range(l, &m);
	}
	cosched_learn_init(&l->table, 0);
	return l;
}

void cosched_learner_set_range(cosched_learner_t *l,
			       const cosched_interference_model_t *configured)
{
	cosched_interference_range(configured, &l->lo, &l->hi);
}

void cosched_learner_set_privacy(cosched_learner_t *l,
				 const cosched_private_t *privacy)
{
	l->privacy = *privacy;
}

void cosched_learner_free(cosched_learner_t *l)
{
	if (!l)
		return;
	cosched_learn_free(&l->table);
	free(l->waiting);
	cosched_dirlist_free(l->folder);
	free(l);
}

/* Whether the file is still the one this learner knows: a reset (or an
 * administrator's edit) since it looked wins over what it learned. */
static bool file_still_known(const cosched_learner_t *l)
{
	char path[LEARNER_PATH_MAX];
	struct stat st;
	int rc;

	table_path(path, sizeof(path), l->dir);
	rc = lstat(path, &st);
	if (!l->known)
		return rc != 0;		/* none then: none now */
	return rc == 0 && same_file(&l->key, &st);
}

/*
 * Take the file when it is not the one this learner knows (it wrote it,
 * or found it unusable): at the first run (the table a restarted
 * slurmctld left) and after a reset.  Returns whether the table must be
 * written (a new one).
 */
static bool adopt_file(cosched_learner_t *l, long long now,
		       cosched_learner_report_t *rep, cosched_error_t *note)
{
	char path[LEARNER_PATH_MAX];
	cosched_learn_table_t t;
	bool first = !l->loaded, dirty = false, aside_done = false;
	struct stat st;
	int rc;

	if (l->loaded && file_still_known(l))
		return false;	/* as the learner left it */
	table_path(path, sizeof(path), l->dir);
	l->loaded = true;
	/* What the listing remembered was judged against the table's
	 * watermark: another table (a reset, a restored file) judges
	 * again. */
	cosched_dirlist_forget(l->folder);
	cosched_learn_init(&t, now);
	rc = file_load_stat(l->dir, &t, &st, note);
	if (rc >= 0)
		note->msg[0] = '\0';	/* a missing file is no error */
	if (rc == 1) {
		cosched_learn_free(&l->table);
		l->table = t;
		rep->adopted = !first;
	} else {
		cosched_learn_free(&t);
		if (rc < 0 && first) {
			/* Another major after a rollback, a restored file
			 * someone else owns: kept aside for the administrator,
			 * never overwritten. */
			char aside[LEARNER_PATH_MAX + 32];

			snprintf(aside, sizeof(aside), "%s.bad.%lld", path, now);
			if (!rename(path, aside)) {
				cosched_error_set(note,
					"%.600s; set aside as %s, learning again from now",
					note->msg, aside);
				aside_done = true;
			}
		}
		if (rc == 0 || first) {
			/* No table (none yet, or removed: a reset too), or
			 * an unusable one at the start: learn from what ends
			 * from now on. */
			cosched_learn_free(&l->table);
			cosched_learn_init(&l->table, now);
			rep->adopted = !first && rc == 0;
			dirty = true;
		}
		/* An unusable file later: the learner keeps its own table,
		 * and replaces the file at its next change. */
	}
	/* Known from now on (an unusable file is said once): the file as
	 * read, or none. */
	l->known = rc != 0 && !aside_done;
	if (l->known)
		l->key = file_id_of(&st);
	return dirty;
}

/* A file's time (its mtime) in seconds, as the watermark counts. */
static double file_time(const struct timespec *mtime)
{
	return (double) mtime->tv_sec + (double) mtime->tv_nsec / 1e9;
}

static int waiting_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const waiting_t *) elem)->name);
}

static waiting_t *waiting_named(const cosched_learner_t *l, const char *name)
{
	return l->nwaiting ? bsearch(name, l->waiting, (size_t) l->nwaiting,
				     sizeof(*l->waiting), waiting_cmp) : NULL;
}

/* A listing of ProfileDir/jobs gathering the records to decide. */
typedef struct {
	const cosched_learner_t *l;	/* NULL: every record (reports) */
	const char *dir;		/* ProfileDir/jobs */
	double since;
	candidate_t *c;
	int n, cap;
	bool oom;
} gather_t;

static cosched_dirlist_verdict_t gather_one(void *ctx, const char *name,
					    ino_t ino)
{
	gather_t *g = ctx;
	const cosched_learn_table_t *t = g->l ? &g->l->table : NULL;
	char path[LEARNER_PATH_MAX * 2], key[COSCHED_LEARN_NAME_MAX + 1];
	size_t len = strlen(name);
	cosched_error_t why;
	candidate_t *v;
	struct stat st;
	int rc;

	if (name[0] == '.' || len < 6 || strcmp(name + len - 5, ".json") ||
	    len - 5 > COSCHED_LEARN_NAME_MAX)
		return COSCHED_DIRLIST_REMEMBER;	/* not a record */
	memcpy(key, name, len - 5);
	key[len - 5] = '\0';
	/* Decided, or waiting (gather_pending reads those by name, and
	 * needs no look at a waiting one whose inode is as it was): not
	 * even a look at the file. */
	if (t && cosched_learn_seen(t, key))
		return COSCHED_DIRLIST_PASS;
	if (t && cosched_learn_pending(t, key)) {
		waiting_t *w = waiting_named(g->l, key);

		if (w)
			w->listed = ino;
		return COSCHED_DIRLIST_PASS;
	}
	snprintf(path, sizeof(path), "%s/%s", g->dir, name);
	if (lstat(path, &st))
		return COSCHED_DIRLIST_PASS;	/* gone since, or to retry */
	if (!S_ISREG(st.st_mode) || file_time(&st.st_mtim) < g->since)
		return COSCHED_DIRLIST_REMEMBER;
	if (g->n == g->cap) {
		int cap = g->cap ? 2 * g->cap : 64;
		candidate_t *more = realloc(g->c, (size_t) cap * sizeof(*more));

		if (!more) {
			g->oom = true;
			return COSCHED_DIRLIST_STOP;
		}
		g->c = more;
		g->cap = cap;
	}
	v = &g->c[g->n++];
	memset(v, 0, sizeof(*v));
	strcpy(v->name, key);
	rc = cosched_step_record_load(path, &v->rec, &why);
	v->time = file_time(&st.st_mtim);
	if (rc <= 0) {
		v->obs.kind = COSCHED_OBS_SKIP;
		v->obs.why = COSCHED_SKIP_UNREADABLE;
	} else {
		v->obs.kind = COSCHED_OBS_PENDING;	/* to decide */
		v->read = true;
		v->file = file_id_of(&st);
	}
	return COSCHED_DIRLIST_PASS;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const candidate_t *) a)->name,
		      ((const candidate_t *) b)->name);
}

/* By file time, then name: the order records are settled in. */
static int by_time(const void *a, const void *b)
{
	const candidate_t *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return by_name(a, b);
}

/*
 * The records to decide: *.json changed at or after the watermark less
 * the slack, not decided yet, in name order.  The folder's names older
 * than that (or not records) are remembered by the learner's listing
 * (l NULL: a listing of its own, every record) and not looked at again
 * while their inodes stay.  *listed: whether the folder was read (else
 * it did not change since the last listing).
 */
static int gather(const char *profile_dir, cosched_learner_t *l,
		  long long now, candidate_t **out, int *n, bool *listed,
		  cosched_error_t *err)
{
	char dir[LEARNER_PATH_MAX];
	gather_t g = { .l = l, .dir = dir,
		       .since = l ? l->table.through : -INFINITY };
	cosched_dirlist_t *folder = l ? l->folder : cosched_dirlist_create();
	int rc;

	*out = NULL;
	*n = 0;
	*listed = false;
	if (!folder)
		return cosched_error_set(err, "learned table: out of memory");
	snprintf(dir, sizeof(dir), "%s/%s", profile_dir,
		 COSCHED_LEARNER_JOBS_SUBDIR);
	for (int i = 0; l && i < l->nwaiting; i++)
		l->waiting[i].listed = 0;
	err->msg[0] = '\0';
	rc = cosched_dirlist_read(folder, dir, now, gather_one, &g, err);
	if (!l)
		cosched_dirlist_free(folder);
	if (rc < 0) {
		free(g.c);
		if (g.oom)
			cosched_error_set(err, "learned table: out of memory");
		return -1;
	}
	qsort(g.c, (size_t) g.n, sizeof(*g.c), by_name);
	*out = g.c;
	*n = g.n;
	*listed = rc == 1;
	return 0;
}

static int waiting_by_name(const void *a, const void *b)
{
	return strcmp(((const waiting_t *) a)->name,
		      ((const waiting_t *) b)->name);
}

/*
 * The waiting list's entry for name when its file is as it was: the
 * folder unchanged since it was last listed (not listed), or its inode in
 * this run's listing the one it had (records are replaced by rename,
 * never changed in place: io/dirlist.h), else when lstat finds it
 * the same.  *looked: lstat was called and found the file (*st).
 */
static const waiting_t *waiting_find(const cosched_learner_t *l,
				     const char *name, bool listed,
				     struct stat *st, int *looked)
{
	const waiting_t *w = waiting_named(l, name);
	char path[LEARNER_PATH_MAX * 2];

	*looked = 0;
	if (w && (!listed || (w->listed && w->listed == w->file.ino)))
		return w;
	snprintf(path, sizeof(path), "%s/%s/%s.json", l->dir,
		 COSCHED_LEARNER_JOBS_SUBDIR, name);
	*looked = !lstat(path, st);
	return w && *looked && same_file(&w->file, st) ? w : NULL;
}

/* The records the table keeps waiting, read again by name, but for a
 * pair waiting for a solo time whose file did not change. */
static int gather_pending(const cosched_learner_t *l, bool listed,
			  candidate_t **c, int *n, cosched_error_t *err)
{
	const cosched_learn_table_t *t = &l->table;
	const char *profile_dir = l->dir;
	candidate_t *more;

	if (!t->pending.n)
		return 0;
	more = realloc(*c, ((size_t) *n + (size_t) t->pending.n + 1) *
			   sizeof(**c));
	if (!more)
		return cosched_error_set(err, "learned table: out of memory");
	*c = more;
	for (int i = 0; i < t->pending.n; i++) {
		candidate_t *v = &more[(*n)++];
		char path[LEARNER_PATH_MAX * 2];
		const waiting_t *w;
		cosched_error_t why;
		struct stat st;
		int looked = 0;

		memset(v, 0, sizeof(*v));
		snprintf(v->name, sizeof(v->name), "%s", t->pending.v[i].name);
		v->time = t->pending.v[i].time;
		v->was_pending = true;
		w = waiting_find(l, v->name, listed, &st, &looked);
		if (w) {
			strcpy(v->rec.app, w->app);
			v->rec.runtime_s = w->runtime_s;
			v->rec.uid = w->uid;
			v->rec.shared = w->shared;
			v->obs = w->obs;
			v->decided = true;
			v->file = w->file;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s/%s.json", profile_dir,
			 COSCHED_LEARNER_JOBS_SUBDIR, v->name);
		if (looked &&
		    cosched_step_record_load(path, &v->rec, &why) == 1) {
			v->obs.kind = COSCHED_OBS_PENDING;	/* to decide */
			v->read = true;
			v->file = file_id_of(&st);
		} else {
			v->obs.kind = COSCHED_OBS_SKIP;	/* gone, or changed */
			v->obs.why = COSCHED_SKIP_UNREADABLE;
		}
	}
	return 0;
}

/* The records of a run read from their files, by name: a co-runner's
 * record that is one of them is not read again. */
typedef struct {
	const candidate_t **v;
	int n;
} read_index_t;

static int by_candidate_name(const void *a, const void *b)
{
	return strcmp((*(const candidate_t *const *) a)->name,
		      (*(const candidate_t *const *) b)->name);
}

static int name_cmp(const void *key, const void *elem)
{
	return strcmp(key, (*(const candidate_t *const *) elem)->name);
}

/* NULL when out of memory: then every co-runner is read from its file. */
static void read_index_make(read_index_t *ix, const candidate_t *c, int n)
{
	ix->n = 0;
	ix->v = malloc(((size_t) n + 1) * sizeof(*ix->v));
	if (!ix->v)
		return;
	for (int i = 0; i < n; i++)
		if (c[i].read)
			ix->v[ix->n++] = &c[i];
	qsort(ix->v, (size_t) ix->n, sizeof(*ix->v), by_candidate_name);
}

/* The rule on one record: its named co-runners' records, those read in
 * this run taken from ix, the others read by name (*parsed counts
 * them). */
static void decide(const char *profile_dir, double min_overlap,
		   const read_index_t *ix, candidate_t *v, int *parsed)
{
	cosched_step_record_t co[COSCHED_OBSERVE_CORUNNERS_MAX];
	const cosched_step_record_t *cop[COSCHED_OBSERVE_CORUNNERS_MAX];
	int nco = 0, missing = 0, unusable = 0;

	for (int i = 0; i < v->rec.ncorunners; i++) {
		char path[LEARNER_PATH_MAX * 2], name[COSCHED_LEARN_NAME_MAX + 32];
		const candidate_t *const *known = NULL;
		cosched_error_t why;
		int rc;

		snprintf(name, sizeof(name), "%" PRIu32 ".%" PRIu32 ".%s",
			 v->rec.corunner_job[i], v->rec.corunner_step[i],
			 v->rec.node);
		if (ix->n)
			known = bsearch(name, ix->v, (size_t) ix->n,
					sizeof(*ix->v), name_cmp);
		if (known) {
			cop[nco++] = &(*known)->rec;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s/%s.json", profile_dir,
			 COSCHED_LEARNER_JOBS_SUBDIR, name);
		rc = cosched_step_record_load(path, &co[nco], &why);
		if (rc)
			(*parsed)++;
		if (rc == 1) {
			cop[nco] = &co[nco];
			nco++;
		} else if (rc == 0) {
			missing++;
		} else {
			unusable++;	/* it may have shared the sockets */
		}
	}
	cosched_observe(&v->rec, cop, nco, missing, unusable, min_overlap,
			&v->obs);
}

int cosched_observe_dir(const char *profile_dir, double min_overlap,
			cosched_observe_fn fn, void *ctx, cosched_error_t *err)
{
	candidate_t *c = NULL;
	read_index_t ix;
	struct stat st;
	int n = 0, parsed = 0;
	bool listed;

	/* A ProfileDir that does not exist is a mistake, not "no record". */
	errno = 0;
	if (stat(profile_dir, &st) || !S_ISDIR(st.st_mode))
		return cosched_error_set(err, "%s: %s", profile_dir,
					 errno ? strerror(errno) :
					 "not a directory");
	if (gather(profile_dir, NULL, 0, &c, &n, &listed, err))
		return -1;
	read_index_make(&ix, c, n);
	for (int i = 0; i < n; i++) {
		if (c[i].obs.kind == COSCHED_OBS_PENDING)
			decide(profile_dir, min_overlap, &ix, &c[i], &parsed);
		if (c[i].obs.kind == COSCHED_OBS_PENDING) {
			c[i].obs.kind = COSCHED_OBS_SKIP;
			c[i].obs.why = COSCHED_SKIP_CORUNNER_MISSING;
		}
		fn(ctx, c[i].name,
		   c[i].obs.why == COSCHED_SKIP_UNREADABLE &&
		   c[i].obs.kind == COSCHED_OBS_SKIP ? NULL : &c[i].rec,
		   &c[i].obs);
	}
	free(ix.v);
	free(c);
	return 0;
}

/* A record decided: counted, and remembered so it is never decided
 * again.  -1 when the set of decided names is full (then nothing of it
 * was applied). */
static int settle(cosched_learn_table_t *t, candidate_t *v,
		  cosched_learner_report_t *rep)
{
	double time = v->time;

	/* A pending one too: its file may still be newer than the
	 * watermark, and gathered again as undecided.  Its name stays
	 * until the watermark passes the file's time as last seen. */
	if ((v->read || v->decided) && file_time(&v->file.mtime) > time)
		time = file_time(&v->file.mtime);
	if (cosched_learn_seen_add(t, v->name, time, NULL)) {
		rep->unsettled++;
		return -1;
	}
	if (v->was_pending)
		cosched_learn_pending_remove(t, v->name);
	if (v->obs.kind == COSCHED_OBS_SKIP) {
		t->skipped[v->obs.why]++;
		rep->skipped[v->obs.why]++;
	}
	rep->read++;
	return 0;
}

int cosched_learner_load(cosched_learner_t *l, long long now,
			 cosched_learner_report_t *rep, cosched_error_t *err)
{
	cosched_error_t note = { { 0 } };

	memset(rep, 0, sizeof(*rep));
	adopt_file(l, now, rep, &note);
	if (note.msg[0]) {
		*err = note;
		return -1;
	}
	return 0;
}

/* The pairs still waiting for a solo time after this run, for the next
 * (those that wait for a co-runner's record are decided again).  Out of
 * memory: none, and the next run reads them all. */
static void waiting_keep(cosched_learner_t *l, const candidate_t *c, int n)
{
	int k = 0;

	free(l->waiting);
	l->nwaiting = 0;
	l->waiting = malloc(((size_t) n + 1) * sizeof(*l->waiting));
	if (!l->waiting)
		return;
	for (int i = 0; i < n; i++) {
		const candidate_t *v = &c[i];
		waiting_t *w = &l->waiting[k];

		/* Still pending (the table has the name): a pair that
		 * waits, with its file as read or as it was found. */
		if (!v->waits_solo || v->obs.kind != COSCHED_OBS_PENDING ||
		    !(v->read || v->decided) ||
		    !cosched_learn_pending(&l->table, v->name))
			continue;
		snprintf(w->name, sizeof(w->name), "%s", v->name);
		w->file = v->file;
		snprintf(w->app, sizeof(w->app), "%s", v->rec.app);
		w->runtime_s = v->rec.runtime_s;
		w->uid = v->rec.uid;
		w->shared = v->rec.shared;
		w->obs = v->obs;
		w->obs.kind = COSCHED_OBS_PAIR;
		k++;
	}
	qsort(l->waiting, (size_t) k, sizeof(*l->waiting), waiting_by_name);
	l->nwaiting = k;
	if (k) {
		waiting_t *fit = realloc(l->waiting,
					 (size_t) k * sizeof(*l->waiting));

		if (fit)
			l->waiting = fit;
	}
}

int cosched_learner_run(cosched_learner_t *l, long long now,
			cosched_learner_report_t *rep, cosched_error_t *err)
{
	cosched_learn_table_t *t = &l->table;
	candidate_t *c = NULL;
	cosched_error_t note = { { 0 } };
	double unsettled = INFINITY;
	read_index_t ix;
	bool changed, listed;
	int n = 0, rc = 0;

	memset(rep, 0, sizeof(*rep));
	changed = adopt_file(l, now, rep, &note);
	if (gather(l->dir, l, now, &c, &n, &listed, err) ||
	    gather_pending(l, listed, &c, &n, err)) {
		free(c);
		return -1;
	}
	rep->listed = listed;
	read_index_make(&ix, c, n);
	for (int i = 0; i < n; i++) {
		if (c[i].read)
			rep->parsed++;
		if (c[i].obs.kind == COSCHED_OBS_PENDING && !c[i].decided)
			decide(l->dir, l->min_overlap, &ix, &c[i],
			       &rep->parsed);
	}
	free(ix.v);
	/* Who may teach is known at once: a record that never may (no
	 * application, say) is not left waiting for a solo time. */
	for (int i = 0; i < n; i++) {
		candidate_t *v = &c[i];
		cosched_learn_skip_t why;

		if (v->obs.kind != COSCHED_OBS_SKIP && !v->decided &&
		    !cosched_observe_teaches(&v->rec, &why)) {
			v->obs.kind = COSCHED_OBS_SKIP;
			v->obs.why = why;
		}
	}
	/* Settled oldest first: when the set of decided names fills (a
	 * burst after an outage), the watermark still moves up to the
	 * first record left over, the names below it are forgotten, and
	 * the next run goes on from there. */
	qsort(c, (size_t) n, sizeof(*c), by_time);
	/* Solo runs first: a pair decided in the same run may need one. */
	for (int i = 0; i < n; i++) {
		candidate_t *v = &c[i];

		if (v->obs.kind != COSCHED_OBS_SOLO)
			continue;
		if (settle(t, v, rep)) {
			if (v->time < unsettled)
				unsettled = v->time;
			continue;
		}
		if (!cosched_learn_solo_add(t, v->rec.app,
					    cosched_observe_owner(&v->rec),
					    v->rec.runtime_s,
					    (long long) v->time, NULL))
			rep->solos++;
	}
	for (int i = 0; i < n; i++) {
		candidate_t *v = &c[i];
		bool old = (double) now - v->time > COSCHED_LEARNER_PENDING_MAX_S;
		double solo = 0.0;

		if (v->obs.kind == COSCHED_OBS_SOLO)
			continue;
		if (v->obs.kind == COSCHED_OBS_PAIR &&
		    !cosched_learn_solo_time(t, v->rec.app,
					     cosched_observe_owner(&v->rec),
					     &solo)) {
			if (old) {
				v->obs.kind = COSCHED_OBS_SKIP;
				v->obs.why = COSCHED_SKIP_NO_SOLO;
			} else {
				v->obs.kind = COSCHED_OBS_PENDING;
				v->waits_solo = true;
			}
		} else if (v->obs.kind == COSCHED_OBS_PENDING && old) {
			v->obs.kind = COSCHED_OBS_SKIP;
			v->obs.why = COSCHED_SKIP_CORUNNER_MISSING;
		}
		if (v->obs.kind == COSCHED_OBS_PENDING) {
			if (!v->was_pending &&
			    cosched_learn_pending_add(t, v->name, v->time,
						      NULL)) {
				v->obs.kind = COSCHED_OBS_SKIP;
				v->obs.why = COSCHED_SKIP_TOO_MANY_PENDING;
			} else {
				/* Newly waiting: the file keeps it; one that
				 * was waiting already changes nothing. */
				rep->pending++;
				if (!v->was_pending)
					changed = true;
				continue;
			}
		}
		if (settle(t, v, rep)) {
			if (v->time < unsettled)
				unsettled = v->time;
			continue;
		}
		if (v->obs.kind == COSCHED_OBS_PAIR) {
			/* Held to the configured range: a run faster than
			 * alone, or slower than any pair the site
			 * configured, teaches the range's end. */
			double s = fmin(fmax(v->rec.runtime_s / solo, l->lo),
					l->hi);

			cosched_learn_add(t, v->obs.victim, v->obs.corunner,
					  s, (long long) v->time, v->rec.uid,
					  l->half_life_s, NULL);
			rep->pairs++;
		}
	}
	waiting_keep(l, c, n);
	free(c);
	/* A record the set of decided names could not take was passed
	 * over by the listing: the next one must read the folder, changed
	 * or not. */
	if (isfinite(unsettled))
		cosched_dirlist_invalidate(l->folder);
	/* Every record whose file is older than now less the slack has
	 * been gathered: decided, or kept in the pending set; but not one
	 * the full set of decided names could not take (it is gathered
	 * again, once the watermark has moved up to it). */
	{
		double through = (double) now - COSCHED_LEARNER_SLACK_S;

		if (unsettled < through)
			through = unsettled;
		/* The watermark alone is not worth a write every refresh:
		 * a restart from an older one re-reads records it then finds
		 * decided (the file's names) or waiting. */
		if (through >= t->through + 0.001)
			cosched_learn_advance(t, through);
	}
	if (rep->read)
		changed = true;
	rep->changed = changed;
	if (changed && !file_still_known(l)) {
		/* Reset under this run: taken at the next one. */
		rep->saved = false;
	} else if (changed) {
		struct stat st;
		char path[LEARNER_PATH_MAX];

		t->updated = now;
		if (cosched_learner_file_save(l->dir, &l->privacy, t, err)) {
			rc = -1;
		} else {
			table_path(path, sizeof(path), l->dir);
			if (!lstat(path, &st)) {
				l->key = file_id_of(&st);
				l->known = true;
			}
			rep->saved = true;
		}
	}
	if (!rc && note.msg[0]) {
		*err = note;
		rc = -1;
	}
	return rc;
}
