/*****************************************************************************\
 *  ctl_refresh.c - the controller's reader of the disk: a thread, outside
 *  every slurmctld lock, that refreshes the profile cache every
 *  ProfileCacheRefresh seconds and reads the live loads (ProfileDir/live)
 *  every LiveLoadRefresh seconds; job_test never reads a file.
 *
 *  The thread reads only ctl_refresh_t: the settings copied into it when
 *  it started (a reconfigure stops it, replaces the controller's settings
 *  and starts it again), the cache (locked inside cosched_ctld.so) and the
 *  live loads it publishes under live_mutex.
\*****************************************************************************/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/slurmctld/slurmctld.h"

#include "ctl_internal.h"
#include "select_cons_tres_cosched.h"

static void _refresh_profiles(ctl_refresh_t *r)
{
	cosched_error_t err = { { 0 } };
	int nbad = 0;
	long n = r->api->profile_cache_refresh(r->profiles, &nbad, &err);

	if (n < 0)
		error("%s: profile cache: %s (keeping %zu cached profiles)",
		      plugin_type, err.msg,
		      r->api->profile_cache_size(r->profiles));
	else if (nbad)
		error("%s: profile cache: %d profiles in %s not loaded, first: %s",
		      plugin_type, nbad, r->settings.profile_dir, err.msg);
	else
		debug("%s: profile cache: %ld profiles from %s", plugin_type,
		      n, r->settings.profile_dir);
}

/* The running jobs' live MPKI from ProfileDir/live, for the next job_test
 * to apply. */
static void _refresh_live(ctl_refresh_t *r)
{
	cosched_live_job_t *jobs = NULL, *old;
	cosched_error_t err = { { 0 } };
	int nbad = 0;
	long n = r->api->live_scan(r->settings.profile_dir,
				   (long long) time(NULL), COSCHED_LIVE_STALE_S,
				   &jobs, &nbad, &err);

	if (n < 0) {
		error("%s: live loads: %s", plugin_type, err.msg);
		return;
	}
	if (nbad)
		error("%s: live loads: %d files in %s/%s not used, first: %s",
		      plugin_type, nbad, r->settings.profile_dir,
		      COSCHED_LIVE_SUBDIR, err.msg);
	pthread_mutex_lock(&r->live_mutex);
	old = r->live_jobs;
	r->live_jobs = jobs;
	r->live_n = n;
	r->live_gen++;
	pthread_mutex_unlock(&r->live_mutex);
	free(old);
	debug2("%s: live loads: %ld jobs", plugin_type, n);
}

static void *_refresh_loop(void *arg)
{
	ctl_refresh_t *r = arg;
	struct timespec now;
	time_t next_profiles, next_live;
	bool live_on = r->settings.live_loads;

	clock_gettime(CLOCK_REALTIME, &now);
	next_profiles = now.tv_sec + r->settings.profile_refresh_s;
	next_live = now.tv_sec;
	pthread_mutex_lock(&r->mutex);
	while (!r->stop) {
		struct timespec until = { 0, 0 };
		bool do_profiles, do_live;

		until.tv_sec = live_on && next_live < next_profiles ?
			       next_live : next_profiles;
		while (!r->stop &&
		       pthread_cond_timedwait(&r->cond, &r->mutex, &until) == 0)
			;
		if (r->stop)
			break;
		clock_gettime(CLOCK_REALTIME, &now);
		do_profiles = now.tv_sec >= next_profiles;
		do_live = live_on && now.tv_sec >= next_live;
		pthread_mutex_unlock(&r->mutex);
		if (do_profiles) {
			_refresh_profiles(r);
			next_profiles = now.tv_sec + r->settings.profile_refresh_s;
		}
		if (do_live) {
			_refresh_live(r);
			next_live = now.tv_sec + r->settings.live_refresh_s;
		}
		pthread_mutex_lock(&r->mutex);
	}
	pthread_mutex_unlock(&r->mutex);
	return NULL;
}

/* Called with the thread stopped: the settings are the thread's to read
 * from here on. */
int ctl_refresh_start(cosched_ctl_t *c)
{
	ctl_refresh_t *r = &c->refresh;
	cosched_error_t err;

	snprintf(r->settings.profile_dir, sizeof(r->settings.profile_dir),
		 "%s", c->conf.profile_dir);
	r->settings.live_loads = c->conf.live_loads;
	r->settings.profile_refresh_s = c->conf.profile_refresh_s;
	r->settings.live_refresh_s = c->conf.live_refresh_s;
	r->profiles = r->api->profile_cache_create(&c->conf, &err);
	if (!r->profiles) {
		error("%s: profile cache: %s", plugin_type, err.msg);
		return -1;
	}
	_refresh_profiles(r);
	/* Read now, so that after a reconfigure the next job_test has the
	 * loads of the new ProfileDir. */
	if (r->settings.live_loads)
		_refresh_live(r);
	r->stop = false;
	if (pthread_create(&r->thread, NULL, _refresh_loop, r)) {
		error("%s: cannot start the profile refresh thread", plugin_type);
		return -1;
	}
	r->running = true;
	return 0;
}

void ctl_refresh_stop(cosched_ctl_t *c)
{
	ctl_refresh_t *r = &c->refresh;

	if (r->running) {
		pthread_mutex_lock(&r->mutex);
		r->stop = true;
		pthread_cond_signal(&r->cond);
		pthread_mutex_unlock(&r->mutex);
		pthread_join(r->thread, NULL);
		r->running = false;
	}
	if (r->profiles)
		r->api->profile_cache_free(r->profiles);
	r->profiles = NULL;
	pthread_mutex_lock(&r->live_mutex);
	free(r->live_jobs);
	r->live_jobs = NULL;
	r->live_n = 0;
	r->live_gen++;
	pthread_mutex_unlock(&r->live_mutex);
}

int ctl_refresh_lookup(cosched_ctl_t *c, const char *app,
		       cosched_profile_summary_t *out)
{
	ctl_refresh_t *r = &c->refresh;

	if (!r->profiles || !app || !app[0])
		return 0;
	return r->api->profile_cache_lookup(r->profiles, app, out);
}

/* The latest live loads into the engine: each running job placed by
 * cosched carries its smoothed MPKI from its nodes instead of its
 * profile's, so Miss-Rate Bound and the socket loads follow the jobs as
 * they change.  Once per read, and again after a rebuild (again), which
 * enters the jobs with their records' MPKI. */
void ctl_refresh_apply_live(cosched_ctl_t *c, bool again)
{
	ctl_refresh_t *r = &c->refresh;
	const cosched_occupancy_t *occ = cosched_place_occupancy(c->place);
	cosched_error_t err;

	pthread_mutex_lock(&r->live_mutex);
	if (again || r->live_gen != c->live_applied_gen) {
		for (long i = 0; i < r->live_n; i++) {
			bool foreign = false;

			if (!cosched_occupancy_has(occ, r->live_jobs[i].job_id,
						   &foreign) || foreign)
				continue;
			if (cosched_place_set_mpki(c->place,
						   r->live_jobs[i].job_id,
						   r->live_jobs[i].mpki, &err))
				error("%s: live load of JobId=%u: %s",
				      plugin_type, r->live_jobs[i].job_id,
				      err.msg);
			else
				debug2("%s: JobId=%u: live MPKI %.2f",
				       plugin_type, r->live_jobs[i].job_id,
				       r->live_jobs[i].mpki);
		}
		c->live_applied_gen = r->live_gen;
	}
	pthread_mutex_unlock(&r->live_mutex);
}
