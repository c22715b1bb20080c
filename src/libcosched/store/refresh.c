/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * refresh.c - the profile and live-load reader thread
 * (store/refresh.h).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/libcosched/base/kv.h"
#include "src/libcosched/store/learner.h"
#include "src/libcosched/store/live_reader.h"
#include "src/libcosched/store/refresh.h"

struct cosched_refresher {
	/* Read by the thread; set before it starts, never changed. */
	char profile_dir[COSCHED_PATH_MAX];
	bool live_loads;
	int profile_refresh_s, live_refresh_s;
	cosched_refresh_log_fn log;
	void *log_ctx;
	cosched_profile_cache_t *cache;	/* locked inside */

	pthread_t thread;
	bool running;
	pthread_mutex_t mutex;		/* stop, cond */
	pthread_cond_t cond;
	bool stop;

	cosched_live_reader_t *reader;	/* the thread's only */
	bool live_capped;		/* its last reading left files unchecked */
	bool live_slowed;		/* readings further apart than asked */
	cosched_learner_t *learner;	/* the thread's only */
	char learn_error[COSCHED_ERROR_MSG_LEN];	/* the last said */

	pthread_mutex_t learn_mutex;	/* the learned cells below */
	cosched_learn_cell_t cells[COSCHED_LCA_COUNT][COSCHED_LCA_COUNT];
	unsigned long learn_gen;	/* tables published; 0: none yet */

	pthread_mutex_t live_mutex;	/* the live loads below */
	cosched_live_job_t *live_jobs;
	long live_n;
	unsigned long live_gen;		/* readings so far; 0: none yet */
};

static void say(cosched_refresher_t *r, cosched_refresh_level_t lvl,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(cosched_refresher_t *r, cosched_refresh_level_t lvl,
		const char *fmt, ...)
{
	char msg[COSCHED_ERROR_MSG_LEN + COSCHED_PATH_MAX + 128];
	va_list ap;

	if (!r->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->log(r->log_ctx, lvl, msg);
}

static void refresh_profiles(cosched_refresher_t *r)
{
	cosched_error_t err = { { 0 } };
	int nbad = 0;
	long n = cosched_profile_cache_refresh(r->cache, &nbad, &err);

	if (n < 0)
		say(r, COSCHED_REFRESH_ERROR,
		    "profile cache: %s (keeping %zu cached profiles)", err.msg,
		    cosched_profile_cache_size(r->cache));
	else if (nbad)
		say(r, COSCHED_REFRESH_ERROR,
		    "profile cache: %d profiles in %s not loaded, first: %s",
		    nbad, r->profile_dir, err.msg);
	else
		say(r, COSCHED_REFRESH_DEBUG, "profile cache: %ld profiles from %s",
		    n, r->profile_dir);
}

/* The step records that ended since the last run into the learned
 * interference table (store/learner.h), and its cells published for
 * the caller's next cosched_refresher_interference. */
static void publish_learned(cosched_refresher_t *r);

static void refresh_learned(cosched_refresher_t *r)
{
	cosched_learner_report_t rep;
	cosched_error_t err = { { 0 } };
	int rc = cosched_learner_run(r->learner, (long long) time(NULL), &rep,
				     &err);

	/* Said once for each new trouble (a ProfileDir slurmctld may not
	 * write would otherwise fill the log every refresh). */
	if (rc && strcmp(err.msg, r->learn_error)) {
		say(r, COSCHED_REFRESH_ERROR, "learned interference: %s",
		    err.msg);
		snprintf(r->learn_error, sizeof(r->learn_error), "%s", err.msg);
	} else if (!rc && r->learn_error[0]) {
		say(r, COSCHED_REFRESH_ERROR,
		    "learned interference: working again");
		r->learn_error[0] = '\0';
	}
	if (rep.adopted)
		say(r, COSCHED_REFRESH_ERROR,
		    "learned interference: %s/%s was replaced (a reset): learning again from now",
		    r->profile_dir, COSCHED_LEARNER_FILE);
	/* A full set never stops the learner, but the site hears of it. */
	if (rep.unsettled)
		say(r, COSCHED_REFRESH_ERROR,
		    "learned interference: %d records left for the next run (already %d decided records newer than the watermark)",
		    rep.unsettled, COSCHED_LEARN_SEEN_MAX);
	if (rep.skipped[COSCHED_SKIP_TOO_MANY_PENDING])
		say(r, COSCHED_REFRESH_ERROR,
		    "learned interference: %d records skipped (too_many_pending: already %d waiting)",
		    rep.skipped[COSCHED_SKIP_TOO_MANY_PENDING],
		    COSCHED_LEARN_SEEN_MAX);
	if (rep.read || rep.pending)
		say(r, COSCHED_REFRESH_DEBUG,
		    "learned interference: %d records decided (%d pair observations, %d solo runs), %d pending, %d files read, %s",
		    rep.read, rep.pairs, rep.solos, rep.pending, rep.parsed,
		    rep.listed ? "jobs folder listed" :
				 "jobs folder unchanged");
	/* Published every run, changed or not: the controller applies it
	 * with its own clock, so cells whose samples decayed below
	 * InterferenceMinSamples go back to the configured values even
	 * when nothing new was learned (or the file cannot be written). */
	publish_learned(r);
}

static void publish_learned(cosched_refresher_t *r)
{
	const cosched_learn_table_t *t = cosched_learner_table(r->learner);

	pthread_mutex_lock(&r->learn_mutex);
	memcpy(r->cells, t->cell, sizeof(r->cells));
	r->learn_gen++;
	pthread_mutex_unlock(&r->learn_mutex);
}

/* An unusable live file, said once (the reader asks again only when the
 * file changes). */
static void report_bad(void *ctx, const char *name, const char *why)
{
	cosched_refresher_t *r = ctx;

	say(r, COSCHED_REFRESH_ERROR, "live loads: %s/%s/%s not used: %s",
	    r->profile_dir, COSCHED_LIVE_SUBDIR, name, why);
}

/* The refresher whose scan runs on this thread: the live loads' reader
 * says through cosched_kv's hook what a newer minor carried, and the hook
 * has no context of its own. */
static __thread cosched_refresher_t *scanning;

static void live_note(const char *msg)
{
	if (scanning)
		say(scanning, COSCHED_REFRESH_DEBUG, "live loads: %s", msg);
}

/* Whether two readings give the same jobs the same loads: what the
 * caller applies (job and MPKI), not when or from how many files. */
static bool same_loads(const cosched_live_job_t *a, long na,
		       const cosched_live_job_t *b, long nb)
{
	if (na != nb)
		return false;
	for (long i = 0; i < na; i++)
		if (a[i].job_id != b[i].job_id || a[i].mpki != b[i].mpki)
			return false;
	return true;
}

/* Seconds until the next reading of live/ after one that took cpu_s:
 * said when that is longer than LiveLoadRefresh, once while it lasts. */
static int live_interval(cosched_refresher_t *r, double cpu_s)
{
	int s = cosched_live_interval(r->live_refresh_s, cpu_s);

	if (s != r->live_refresh_s && !r->live_slowed)
		say(r, COSCHED_REFRESH_ERROR, "live loads: a reading took %.0f ms of CPU: read every %d s instead of every %d s (LiveLoadRefresh), to take at most %.0f%% of a core",
		    cpu_s * 1e3, s, r->live_refresh_s,
		    100.0 * COSCHED_LIVE_CPU_SHARE);
	r->live_slowed = s != r->live_refresh_s;
	return s;
}

/* The running jobs' live MPKI from ProfileDir/live, published for the
 * caller's next cosched_refresher_live when they changed; the thread's
 * CPU seconds it took. */
static double refresh_live(cosched_refresher_t *r)
{
	struct timespec t0, t1;
	cosched_live_job_t *jobs = NULL, *old;
	cosched_error_t err = { { 0 } };
	cosched_live_reading_t last;
	int nbad = 0;
	long n;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	scanning = r;
	cosched_kv_set_note_hook(live_note);
	n = cosched_live_reader_read(r->reader, (long long)time(NULL),
				     COSCHED_LIVE_STALE_S, &jobs, &nbad,
				     report_bad, r, &err);
	scanning = NULL;

	if (n < 0) {
		say(r, COSCHED_REFRESH_ERROR, "live loads: %s", err.msg);
		return 0.0;
	}
	pthread_mutex_lock(&r->live_mutex);
	old = r->live_jobs;
	if (r->live_gen && same_loads(old, r->live_n, jobs, n)) {
		/* Nothing for slurmctld to apply under its lock (samplers
		 * rewrite unchanged values every minute). */
		old = jobs;
	} else {
		r->live_jobs = jobs;
		r->live_n = n;
		r->live_gen++;
	}
	pthread_mutex_unlock(&r->live_mutex);
	free(old);
	cosched_live_reader_last(r->reader, &last);
	say(r, COSCHED_REFRESH_DEBUG2, "live loads: %ld jobs (%zu files, %d not used; %zu checked, %zu read, %zu kept from earlier readings, %zu not read yet)",
	    n, cosched_live_reader_files(r->reader), nbad, last.checked,
	    last.opened, last.kept, last.unread);
	/* Said once while it lasts: someone runs that many steps. */
	if ((last.kept || last.unread) && !r->live_capped)
		say(r, COSCHED_REFRESH_ERROR, "live loads: %zu files, more than the %d a reading checks: the others keep the load last read from them, each checked again within %zu readings",
		    last.files, COSCHED_LIVE_CHECK_MAX,
		    (last.files + COSCHED_LIVE_CHECK_MAX - 1) /
		    COSCHED_LIVE_CHECK_MAX);
	r->live_capped = last.kept || last.unread;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	return (double) (t1.tv_sec - t0.tv_sec) +
	       (double) (t1.tv_nsec - t0.tv_nsec) / 1e9;
}

static void *loop(void *arg)
{
	cosched_refresher_t *r = arg;
	struct timespec now;
	time_t next_profiles, next_live;

	clock_gettime(CLOCK_REALTIME, &now);
	next_profiles = now.tv_sec + r->profile_refresh_s;
	/* The first reading of the live loads at once, here rather than in
	 * start: with many files it takes a while, and start runs inside
	 * slurmctld's reconfigure. */
	next_live = now.tv_sec + r->live_refresh_s;
	if (r->live_loads)
		next_live = now.tv_sec + live_interval(r, refresh_live(r));
	pthread_mutex_lock(&r->mutex);
	while (!r->stop) {
		struct timespec until = { 0, 0 };
		bool do_profiles, do_live;

		until.tv_sec = r->live_loads && next_live < next_profiles ?
			       next_live : next_profiles;
		while (!r->stop &&
		       pthread_cond_timedwait(&r->cond, &r->mutex, &until) == 0)
			;
		if (r->stop)
			break;
		pthread_mutex_unlock(&r->mutex);
		clock_gettime(CLOCK_REALTIME, &now);
		do_profiles = now.tv_sec >= next_profiles;
		do_live = r->live_loads && now.tv_sec >= next_live;
		if (do_profiles) {
			refresh_profiles(r);
			refresh_learned(r);
			next_profiles = now.tv_sec + r->profile_refresh_s;
		}
		if (do_live)
			next_live = now.tv_sec +
				    live_interval(r, refresh_live(r));
		pthread_mutex_lock(&r->mutex);
	}
	pthread_mutex_unlock(&r->mutex);
	return NULL;
}

static void destroy(cosched_refresher_t *r)
{
	cosched_profile_cache_free(r->cache);
	cosched_live_reader_free(r->reader);
	cosched_learner_free(r->learner);
	free(r->live_jobs);
	pthread_mutex_destroy(&r->learn_mutex);
	pthread_mutex_destroy(&r->mutex);
	pthread_mutex_destroy(&r->live_mutex);
	pthread_cond_destroy(&r->cond);
	free(r);
}

cosched_refresher_t *cosched_refresher_start(const cosched_conf_t *conf,
					     cosched_refresh_log_fn log,
					     void *log_ctx,
					     cosched_error_t *err)
{
	cosched_refresher_t *r = calloc(1, sizeof(*r));

	if (!r) {
		cosched_error_set(err, "profile cache: out of memory");
		return NULL;
	}
	snprintf(r->profile_dir, sizeof(r->profile_dir), "%s",
		 conf->profile_dir);
	r->live_loads = conf->live_loads;
	r->profile_refresh_s = conf->profile_refresh_s;
	r->live_refresh_s = conf->live_refresh_s;
	r->log = log;
	r->log_ctx = log_ctx;
	pthread_mutex_init(&r->mutex, NULL);
	pthread_mutex_init(&r->live_mutex, NULL);
	pthread_mutex_init(&r->learn_mutex, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->cache = cosched_profile_cache_create(conf, err);
	if (!r->cache) {
		cosched_error_prefix(err, "profile cache");
		destroy(r);
		return NULL;
	}
	if (r->live_loads &&
	    !(r->reader = cosched_live_reader_create(r->profile_dir, err))) {
		destroy(r);
		return NULL;
	}
	if (!(r->learner = cosched_learner_create(r->profile_dir,
			conf->interference_half_life_days * 86400.0,
			COSCHED_OBSERVE_MIN_OVERLAP_DEFAULT, err))) {
		destroy(r);
		return NULL;
	}
	cosched_learner_set_range(r->learner, &conf->interference);
	cosched_learner_set_privacy(r->learner, &conf->privacy);
	/* A site that just turned PrivateData on: ProfileDir, SlurmUser's,
	 * closed at once, which puts every older file in it out of reach
	 * before any node writes again. */
	if (conf->privacy.on) {
		cosched_error_t perr;

		if (cosched_private_dir(&conf->privacy, r->profile_dir, false,
					&perr))
			say(r, COSCHED_REFRESH_ERROR, "%s", perr.msg);
	}
	refresh_profiles(r);
	/* The table a restarted slurmctld left, before the first job; the
	 * records are read in the thread (a day of them may be many). */
	{
		cosched_learner_report_t rep;
		cosched_error_t lerr = { { 0 } };

		if (cosched_learner_load(r->learner, (long long) time(NULL),
					 &rep, &lerr))
			say(r, COSCHED_REFRESH_ERROR, "learned interference: %s",
			    lerr.msg);
		publish_learned(r);
	}
	if (pthread_create(&r->thread, NULL, loop, r)) {
		cosched_error_set(err, "cannot start the profile refresh thread");
		destroy(r);
		return NULL;
	}
	r->running = true;
	return r;
}

void cosched_refresher_stop(cosched_refresher_t *r)
{
	if (!r)
		return;
	if (r->running) {
		pthread_mutex_lock(&r->mutex);
		r->stop = true;
		pthread_cond_signal(&r->cond);
		pthread_mutex_unlock(&r->mutex);
		pthread_join(r->thread, NULL);
	}
	destroy(r);
}

int cosched_refresher_lookup(cosched_refresher_t *r, const char *app,
			     cosched_profile_summary_t *out)
{
	if (!r || !app || !app[0])
		return 0;
	return cosched_profile_cache_lookup(r->cache, app, out);
}

bool cosched_refresher_live(cosched_refresher_t *r, unsigned long *gen,
			    bool again,
			    void (*fn)(void *ctx, const cosched_live_job_t *job),
			    void *ctx)
{
	bool fresh;

	if (!r)
		return false;
	pthread_mutex_lock(&r->live_mutex);
	/* Before the first reading there is nothing to apply, again or not:
	 * the jobs keep what they carry. */
	fresh = r->live_gen && (again || r->live_gen != *gen);
	if (fresh)
		for (long i = 0; i < r->live_n; i++)
			fn(ctx, &r->live_jobs[i]);
	*gen = r->live_gen;
	pthread_mutex_unlock(&r->live_mutex);
	return fresh;
}

bool cosched_refresher_interference(cosched_refresher_t *r, unsigned long *gen,
				    cosched_learn_cell_t
				    cells[COSCHED_LCA_COUNT][COSCHED_LCA_COUNT])
{
	bool fresh;

	if (!r)
		return false;
	pthread_mutex_lock(&r->learn_mutex);
	fresh = r->learn_gen && r->learn_gen != *gen;
	if (fresh)
		memcpy(cells, r->cells, sizeof(r->cells));
	*gen = r->learn_gen;
	pthread_mutex_unlock(&r->learn_mutex);
	return fresh;
}
