/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile_cache.c - the controller's in-memory copy of the profile
 * store (store/profile_cache.h).
 *
 * Two views of the store:
 *  - the scan state, the refresher's alone (under refresh_lock): one
 *    record per profile file seen, with the key of the version read and
 *    what came of it (a summary, no data, or an error);
 *  - the published table, the readers' (under the rwlock): a sorted array
 *    of pointers to the summaries.
 * A summary, once built, is never written again: a refresh carries the
 * pointer of an unchanged profile into its new state and table, builds new
 * summaries for changed ones, swaps the table under the write lock (the
 * only time it is taken), and frees the old table and the summaries nobody
 * carried, which no reader can still see.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/libcosched/base/appname.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/store/profile_cache.h"
#include "src/libcosched/store/profile_cache_internal.h"
#include "src/libcosched/store/profile_json.h"
#include "src/libcosched/store/store.h"

/*
 * A file whose mtime or ctime is this close to the start of the scan that
 * read it (or later) is read again at the next refresh whatever its key:
 * file timestamps advance in coarse steps (a clock tick, a whole second or
 * two on some file systems, a server's clock over NFS), so a second write
 * of the same size in place, in the same step, would leave the key as it
 * was (git's "racily clean" entries).
 */
#define RACY_WINDOW_NS_DEFAULT (2LL * 1000000000LL)

#define JSON_SUFFIX ".json"
#define JSON_SUFFIX_LEN 5

/* Which version of a file a record describes. */
typedef struct {
	unsigned long long dev, ino;
	long long size;
	long long mtime_ns, ctime_ns;
	unsigned int type;	/* st_mode & S_IFMT */
} file_key_t;

typedef enum {
	REC_SUMMARY,		/* loaded, with data: in the table */
	REC_NO_DATA,		/* loaded, no run merged yet: left out */
	REC_BAD			/* refused or unreadable: left out */
} rec_state_t;

typedef struct {
	char app[COSCHED_PROFILE_KEY_MAX + 1];	/* the profile's key */
	file_key_t key;
	bool racy;		/* read again at the next refresh */
	rec_state_t state;
	cosched_profile_summary_t *sum;	/* REC_SUMMARY only */
} record_t;

typedef struct {
	record_t *rec;		/* sorted by app */
	size_t n;
} scan_state_t;

typedef struct {
	cosched_profile_summary_t **sum;	/* sorted by app */
	size_t n;
} table_t;

struct cosched_profile_cache {
	char dir[COSCHED_PATH_MAX];
	cosched_classify_conf_t classify;

	pthread_mutex_t refresh_lock;	/* one refresh at a time */
	scan_state_t state;		/* under refresh_lock */
	long long racy_window_ns;	/* under refresh_lock */
	unsigned long files_read;	/* under refresh_lock */

	pthread_rwlock_t table_lock;
	table_t *table;			/* under table_lock */
};

/* --- summaries ----------------------------------------------------------- */

static long long total_samples(const cosched_edp_point_t *e, int n, int threads)
{
	unsigned long long sum = 0;

	for (int i = 0; i < n; i++)
		if (e[i].threads == threads)
			sum += e[i].samples;
	return sum > (unsigned long long) INT64_MAX ? INT64_MAX
						     : (long long) sum;
}

typedef struct {
	int idx;		/* in the profile's points */
	long long thread_samples;	/* all samples at its thread count */
	const cosched_edp_point_t *p;
} edp_rank_t;

/* Most used thread counts first (the sum of their points' samples); in a
 * thread count, the most sampled point first; then the profile's order. */
static int edp_rank_cmp(const void *a, const void *b)
{
	const edp_rank_t *x = a, *y = b;

	if (x->thread_samples != y->thread_samples)
		return x->thread_samples > y->thread_samples ? -1 : 1;
	if (x->p->threads != y->p->threads)
		return x->p->threads < y->p->threads ? -1 : 1;
	if (x->p->samples != y->p->samples)
		return x->p->samples > y->p->samples ? -1 : 1;
	return x->idx - y->idx;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *) a, y = *(const int *) b;
	return (x > y) - (x < y);
}

/*
 * At most COSCHED_PROFILE_CACHE_EDP_MAX points, in the profile's order
 * (threads, then frequency).  With more, the points of the most used
 * thread counts are kept first, so that whole frequency sweeps survive.
 */
static int summary_edp(cosched_profile_summary_t *s, const cosched_profile_t *p)
{
	edp_rank_t *rank;
	int keep[COSCHED_PROFILE_CACHE_EDP_MAX];

	if (p->n_edp <= COSCHED_PROFILE_CACHE_EDP_MAX) {
		s->n_edp = p->n_edp > 0 ? p->n_edp : 0;
		if (s->n_edp)
			memcpy(s->edp, p->edp, sizeof(*p->edp) * s->n_edp);
		return 0;
	}
	rank = malloc(sizeof(*rank) * p->n_edp);
	if (!rank)
		return -1;
	for (int i = 0; i < p->n_edp; i++) {
		rank[i].idx = i;
		rank[i].p = &p->edp[i];
		rank[i].thread_samples = total_samples(p->edp, p->n_edp,
						       p->edp[i].threads);
	}
	qsort(rank, p->n_edp, sizeof(*rank), edp_rank_cmp);
	for (int i = 0; i < COSCHED_PROFILE_CACHE_EDP_MAX; i++)
		keep[i] = rank[i].idx;
	free(rank);
	qsort(keep, COSCHED_PROFILE_CACHE_EDP_MAX, sizeof(*keep), int_cmp);
	for (int i = 0; i < COSCHED_PROFILE_CACHE_EDP_MAX; i++)
		s->edp[i] = p->edp[keep[i]];
	s->n_edp = COSCHED_PROFILE_CACHE_EDP_MAX;
	return 0;
}

/* --- reading one profile ------------------------------------------------- */

static void key_of(const struct stat *st, file_key_t *k)
{
	memset(k, 0, sizeof(*k));
	k->dev = (unsigned long long) st->st_dev;
	k->ino = (unsigned long long) st->st_ino;
	k->size = (long long) st->st_size;
	k->mtime_ns = (long long) st->st_mtim.tv_sec * 1000000000LL +
		      st->st_mtim.tv_nsec;
	k->ctime_ns = (long long) st->st_ctim.tv_sec * 1000000000LL +
		      st->st_ctim.tv_nsec;
	k->type = st->st_mode & S_IFMT;
}

static bool key_eq(const file_key_t *a, const file_key_t *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns &&
	       a->type == b->type;
}

static bool key_racy(const file_key_t *k, long long scan_start_ns,
		     long long window_ns)
{
	long long limit = scan_start_ns - window_ns;

	return k->mtime_ns >= limit || k->ctime_ns >= limit;
}

/* load_record's results besides 0. */
#define LOAD_REFUSED	-1	/* what the file holds is refused */
#define LOAD_GONE	-2	/* removed since the directory was read */
#define LOAD_FAILED	-3	/* could not be read now (permissions, no
				 * descriptor or memory left...): retried */

/*
 * Read dir/<key>.json into rec (its app, the key, and key already set from the
 * directory scan).  The file is opened without following a link and
 * without blocking (cosched_read_file_stat), and rec->key becomes the key
 * of what was actually read.  Returns 0, or one of the LOAD_ codes with
 * the reason in err and rec->state REC_BAD.
 */
static int load_record(const cosched_profile_cache_t *c, record_t *rec,
		       cosched_error_t *err)
{
	char path[COSCHED_PATH_MAX + COSCHED_PROFILE_KEY_MAX + 8];
	char app[COSCHED_APP_NAME_MAX + 1];
	cosched_profile_t p;
	cosched_error_t perr;
	struct stat st;
	char *text;
	long uid;
	int missing;

	rec->state = REC_BAD;
	rec->sum = NULL;
	snprintf(path, sizeof(path), "%s/%s%s", c->dir, rec->app, JSON_SUFFIX);
	text = cosched_read_file_stat(path, COSCHED_STORE_PROFILE_MAX_BYTES,
				      &missing, &st, err);
	if (!text) {
		if (missing)
			return LOAD_GONE;
		/* Too large stays too large until the file changes. */
		return rec->key.size > COSCHED_STORE_PROFILE_MAX_BYTES
			? LOAD_REFUSED : LOAD_FAILED;
	}
	key_of(&st, &rec->key);
	/* Only root and the user slurmctld runs as (SlurmUser) write
	 * profiles: a file another user owns, or one others may rewrite,
	 * could have been planted to steer placement. */
	if (cosched_file_trusted(path, &st, "profiles", err)) {
		free(text);
		return LOAD_REFUSED;
	}
	if (cosched_profile_from_json(&p, text, &perr)) {
		free(text);
		cosched_error_set(err, "%s: %s", path, perr.msg);
		return LOAD_REFUSED;
	}
	free(text);
	/* Listed only under a key that parses (list_names). */
	cosched_profile_key_parse("key", rec->app, app, &uid, NULL);
	if (strcmp(p.app, app)) {
		cosched_error_set(err, "%s: app: holds \"%s\", expected \"%s\"",
				  path, p.app, app);
		cosched_profile_free(&p);
		return LOAD_REFUSED;
	}
	/* A user's own profile is theirs only (the store writes it so). */
	if (uid > 0 && p.owner_uid != uid) {
		cosched_error_set(err, "%s: owner_uid: holds %ld, expected %ld",
				  path, p.owner_uid, uid);
		cosched_profile_free(&p);
		return LOAD_REFUSED;
	}
	if (!cosched_profile_has_class(&p)) {
		cosched_profile_free(&p);
		rec->state = REC_NO_DATA;
		return 0;
	}
	rec->sum = calloc(1, sizeof(*rec->sum));
	if (!rec->sum || summary_edp(rec->sum, &p)) {
		free(rec->sum);
		rec->sum = NULL;
		cosched_profile_free(&p);
		cosched_error_set(err, "%s: out of memory", path);
		return LOAD_FAILED;
	}
	snprintf(rec->sum->app, sizeof(rec->sum->app), "%s", rec->app);
	rec->sum->cls = cosched_classify_effective(&c->classify, &p,
						   COSCHED_CAT_UNKNOWN);
	rec->sum->mpki = p.derived.mpki;
	rec->sum->threads = p.derived.threads;
	rec->sum->runs_merged = p.runs_merged;
	rec->sum->owner_uid = p.owner_uid;
	cosched_profile_free(&p);
	rec->state = REC_SUMMARY;
	return 0;
}

/* --- the directory -------------------------------------------------------- */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static void names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * The keys of dir's profile files, sorted: <key>.json where key is a valid
 * profile key, an application's or a user's (cosched_profile_key_parse:
 * this leaves out lock files, temporary files of writes in progress and
 * anything foreign).  The directory stays open in *dfd for fstatat().
 */
static int list_names(const char *dir, int *dfd, char ***out, size_t *count,
		      cosched_error_t *err)
{
	DIR *d;
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, cap = 0;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cosched_error_set(err, "ProfileDir %s: cannot open: %s",
					 dir, strerror(errno));
	d = fdopendir(dup(fd));
	if (!d) {
		cosched_error_set(err, "ProfileDir %s: cannot read: %s", dir,
				  strerror(errno));
		close(fd);
		return -1;
	}
	for (;;) {
		char name[COSCHED_PROFILE_KEY_MAX + 1];
		char app[COSCHED_APP_NAME_MAX + 1];
		size_t len;
		long uid;

		errno = 0;
		if (!(e = readdir(d))) {
			if (errno) {
				cosched_error_set(err,
					"ProfileDir %s: cannot read: %s", dir,
					strerror(errno));
				goto fail;
			}
			break;
		}
		len = strlen(e->d_name);
		if (len <= JSON_SUFFIX_LEN ||
		    strcmp(e->d_name + len - JSON_SUFFIX_LEN, JSON_SUFFIX) ||
		    len - JSON_SUFFIX_LEN > COSCHED_PROFILE_KEY_MAX)
			continue;
		memcpy(name, e->d_name, len - JSON_SUFFIX_LEN);
		name[len - JSON_SUFFIX_LEN] = '\0';
		if (cosched_profile_key_parse("key", name, app, &uid, NULL))
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			char **nv = realloc(v, sizeof(*v) * ncap);
			if (!nv)
				goto oom;
			v = nv;
			cap = ncap;
		}
		if (!(v[n] = strdup(name)))
			goto oom;
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof(*v), name_cmp);
	*dfd = fd;
	*out = v;
	*count = n;
	return 0;
oom:
	cosched_error_set(err, "ProfileDir %s: out of memory", dir);
fail:
	closedir(d);
	close(fd);
	names_free(v, n);
	return -1;
}

static const record_t *state_find(const scan_state_t *s, const char *app)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(app, s->rec[mid].app);
		if (!cmp)
			return &s->rec[mid];
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void state_free(scan_state_t *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->rec[i].sum);
	free(s->rec);
	s->rec = NULL;
	s->n = 0;
}

static void table_free(table_t *t)
{
	if (t) {
		free(t->sum);
		free(t);
	}
}

/* --- the interface -------------------------------------------------------- */

cosched_profile_cache_t *cosched_profile_cache_create(const cosched_conf_t *conf,
						      cosched_error_t *err)
{
	cosched_profile_cache_t *c;
	pthread_rwlockattr_t attr;

	if (!conf)
		return cosched_error_set(err, "profile cache: no configuration"),
		       NULL;
	if (!conf->profile_dir[0])
		return cosched_error_set(err, "ProfileDir: empty path"), NULL;
	if (strlen(conf->profile_dir) >= sizeof(c->dir))
		return cosched_error_set(err, "ProfileDir: path too long"), NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return cosched_error_set(err, "profile cache: out of memory"),
		       NULL;
	c->table = calloc(1, sizeof(*c->table));
	if (!c->table) {
		free(c);
		return cosched_error_set(err, "profile cache: out of memory"),
		       NULL;
	}
	snprintf(c->dir, sizeof(c->dir), "%s", conf->profile_dir);
	c->classify = conf->classify;
	c->racy_window_ns = RACY_WINDOW_NS_DEFAULT;
	pthread_mutex_init(&c->refresh_lock, NULL);
	pthread_rwlockattr_init(&attr);
#ifdef __GLIBC__
	/* Readers come and go all the time; the refresher must not wait
	 * for a moment when none holds the lock. */
	pthread_rwlockattr_setkind_np(&attr,
		PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
#endif
	pthread_rwlock_init(&c->table_lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	return c;
}

void cosched_profile_cache_free(cosched_profile_cache_t *c)
{
	if (!c)
		return;
	table_free(c->table);	/* the summaries belong to the state */
	state_free(&c->state);
	pthread_rwlock_destroy(&c->table_lock);
	pthread_mutex_destroy(&c->refresh_lock);
	free(c);
}

/*
 * One record for each name: carried over from the old state when the
 * file's key is the one read then and that read was not racy, else read
 * now.  Fills next (capacity n) and returns its length.  An old record
 * whose summary is carried has its pointer cleared, so that freeing the
 * old state frees exactly the summaries that left.
 */
static size_t scan(cosched_profile_cache_t *c, int dfd, char **names, size_t n,
		   record_t *next, int *nbad, cosched_error_t *err)
{
	long long start = now_ns();
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		char file[COSCHED_PROFILE_KEY_MAX + JSON_SUFFIX_LEN + 1];
		record_t *old = (record_t *) state_find(&c->state, names[i]);
		record_t *rec = &next[m];
		cosched_error_t why;
		struct stat st;
		int rc;

		memset(rec, 0, sizeof(*rec));
		snprintf(rec->app, sizeof(rec->app), "%s", names[i]);
		snprintf(file, sizeof(file), "%s%s", names[i], JSON_SUFFIX);
		if (fstatat(dfd, file, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno == ENOENT)
				continue;	/* removed since readdir */
			cosched_error_set(&why, "%s/%s: cannot stat: %s",
					  c->dir, file, strerror(errno));
			memset(&rec->key, 0, sizeof(rec->key));
			rc = LOAD_FAILED;
		} else {
			key_of(&st, &rec->key);
			if (old && !old->racy && key_eq(&old->key, &rec->key)) {
				*rec = *old;
				old->sum = NULL;	/* carried */
				/* Still not recent (unless the window grew). */
				rec->racy = key_racy(&rec->key, start,
						     c->racy_window_ns);
				m++;
				continue;
			}
			/* Never open a link, a FIFO or a device: only
			 * regular files are read (and cosched_open_regular
			 * refuses them again if one was swapped in since). */
			if (S_ISLNK(st.st_mode)) {
				cosched_error_set(&why,
					"%s/%s: is a symbolic link (not followed)",
					c->dir, file);
				rc = LOAD_REFUSED;
			} else if (!S_ISREG(st.st_mode)) {
				cosched_error_set(&why,
					"%s/%s: not a regular file", c->dir,
					file);
				rc = LOAD_REFUSED;
			} else {
				c->files_read++;
				rc = load_record(c, rec, &why);
				if (rc == LOAD_GONE)
					continue;	/* removed meanwhile */
			}
		}
		/* A file that could not be read now is tried again at the
		 * next refresh, changed or not (a profile must not stay
		 * out for an EMFILE); what it holds is judged once. */
		rec->racy = rc == LOAD_FAILED ||
			    key_racy(&rec->key, start, c->racy_window_ns);
		if (rc) {
			rec->state = REC_BAD;
			rec->sum = NULL;
			/* Reported once per version of the file: not when
			 * the same version failed before (a racy re-read). */
			if (!(old && old->state == REC_BAD &&
			      key_eq(&old->key, &rec->key))) {
				if (*nbad == 0 && err)
					*err = why;
				(*nbad)++;
			}
		}
		m++;
	}
	return m;
}

long cosched_profile_cache_refresh(cosched_profile_cache_t *c, int *nbad,
				   cosched_error_t *err)
{
	scan_state_t next = { NULL, 0 };
	table_t *table = NULL, *old_table;
	char **names = NULL;
	size_t n = 0;
	int dfd = -1, bad = 0;
	long rc = -1;

	if (nbad)
		*nbad = 0;
	cosched_error_clear(err);
	if (!c)
		return cosched_error_set(err, "profile cache: none");
	pthread_mutex_lock(&c->refresh_lock);
	if (list_names(c->dir, &dfd, &names, &n, err))
		goto out;
	/* Everything the refresh needs is allocated before the scan, which
	 * moves summaries out of the old state: nothing fails after it. */
	next.rec = calloc(n ? n : 1, sizeof(*next.rec));
	table = calloc(1, sizeof(*table));
	if (table)
		table->sum = calloc(n ? n : 1, sizeof(*table->sum));
	if (!next.rec || !table || !table->sum) {
		cosched_error_set(err, "profile cache: out of memory");
		goto out;
	}
	next.n = scan(c, dfd, names, n, next.rec, &bad, err);
	for (size_t i = 0; i < next.n; i++)
		if (next.rec[i].state == REC_SUMMARY)
			table->sum[table->n++] = next.rec[i].sum;

	/* Publish: the only moment readers wait. */
	pthread_rwlock_wrlock(&c->table_lock);
	old_table = c->table;
	c->table = table;
	pthread_rwlock_unlock(&c->table_lock);
	table = NULL;

	/* No reader can see the old table now: free it and the summaries
	 * that were not carried into the new state. */
	table_free(old_table);
	state_free(&c->state);
	c->state = next;
	next.rec = NULL;
	next.n = 0;
	if (nbad)
		*nbad = bad;
	if (!bad)
		cosched_error_clear(err);
	rc = (long) c->table->n;
out:
	pthread_mutex_unlock(&c->refresh_lock);
	if (rc < 0)
		state_free(&next);	/* nothing: failures come before the scan */
	table_free(table);
	names_free(names, n);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

static const cosched_profile_summary_t *table_find(const table_t *t,
						   const char *app)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(app, t->sum[mid]->app);
		if (!cmp)
			return t->sum[mid];
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

int cosched_profile_cache_lookup(cosched_profile_cache_t *c, const char *app,
				 cosched_profile_summary_t *out)
{
	const cosched_profile_summary_t *s;
	int found = 0;

	if (!c || !app || !out)
		return 0;
	pthread_rwlock_rdlock(&c->table_lock);
	s = table_find(c->table, app);
	if (s) {
		/* The points beyond n_edp are not copied. */
		memcpy(out, s, offsetof(cosched_profile_summary_t, edp) +
			       sizeof(s->edp[0]) * (size_t) s->n_edp);
		found = 1;
	}
	pthread_rwlock_unlock(&c->table_lock);
	return found;
}

size_t cosched_profile_cache_size(cosched_profile_cache_t *c)
{
	size_t n;

	if (!c)
		return 0;
	pthread_rwlock_rdlock(&c->table_lock);
	n = c->table->n;
	pthread_rwlock_unlock(&c->table_lock);
	return n;
}

/* --- for the tests (store/profile_cache_internal.h) ------------------- */

void cosched_profile_cache_set_racy_window(cosched_profile_cache_t *c,
					   long long ns)
{
	pthread_mutex_lock(&c->refresh_lock);
	c->racy_window_ns = ns;
	pthread_mutex_unlock(&c->refresh_lock);
}

unsigned long cosched_profile_cache_files_read(cosched_profile_cache_t *c)
{
	unsigned long n;

	pthread_mutex_lock(&c->refresh_lock);
	n = c->files_read;
	pthread_mutex_unlock(&c->refresh_lock);
	return n;
}
