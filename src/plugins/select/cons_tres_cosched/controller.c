/*****************************************************************************\
 *  controller.c - contention- and power-aware placement in slurmctld: the
 *  version-independent half of select/cons_tres_cosched's job_test and job
 *  life cycle (see controller.h for the call order).
 *
 *  The decision core (src/libcosched) chooses; this file only adapts:
 *   - gangs ("units") are sockets, or whole nodes with GangScope=node;
 *   - a job's class comes from its profile (the profile cache, filled by a
 *     thread outside slurmctld's locks; never read from disk here), else
 *     its --cosched-class, else DefaultClass;
 *   - the rules for each kind of job are in cosched(8), PLACEMENT RULES,
 *     and repeated where they are applied below.
\*****************************************************************************/

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "cosched_config.h"

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "src/ctld/cosched_ctld.h"
#include "src/libcosched/cosched_conf.h"
#include "src/plugins/common/plugin_conf.h"
#include "src/libcosched/cosched_decision.h"
#include "src/libcosched/cosched_interference.h"
#include "src/libcosched/cosched_occupancy.h"
#include "src/libcosched/cosched_options.h"
#include "src/libcosched/cosched_power.h"
#include "src/libcosched/cosched_text.h"

#include "controller.h"
#include "select_cons_tres_cosched.h"

/*
 * Data that lives in slurmctld's libslurmfull.  The plugin is also loaded by
 * programs linked with the public libslurm.so (which exports only slurm_*
 * names), where a data reference would make the plugin fail to load: a
 * variable, unlike a function, must resolve at load time.  So slurmctld's
 * variables are looked up with dlsym() in slurmctld only (cosched_ctl_init).
 */
static int *ctld_node_record_count;
static node_record_t ***ctld_node_record_table_ptr;
static time_t *ctld_last_node_update;
#define node_record_count (*ctld_node_record_count)
#define node_record_table_ptr (*ctld_node_record_table_ptr)
#define last_node_update (*ctld_last_node_update)

int cosched_ctl_node_count(void)
{
	return ctld_node_record_count ? *ctld_node_record_count : 0;
}

/* Sockets tried one after another for a job before cosched gives up on
 * its best choices (cons_tres can refuse a socket for memory, GRES...). */
#define MAX_TRIES 4
/* SELECT_MODE_* without depending on where each series defines them. */
#define MODE_RUN_NOW	0
#define MODE_TEST_ONLY	1
#define MODE_WILL_RUN	2

static pthread_mutex_t ctl_mutex = PTHREAD_MUTEX_INITIALIZER;
static bool ctl_on;
static cosched_conf_t ctl_conf;
static char *conf_path;

/* cosched_ctld.so: the profile cache (it needs libjansson, which the
 * select plugin, loaded by every client command, must not). */
static void *ctld_handle;
static const cosched_ctld_api_t *ctld;
static cosched_profile_cache_t *profiles;
static pthread_t refresh_thread;
static bool refresh_running;
static pthread_mutex_t refresh_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t refresh_cond = PTHREAD_COND_INITIALIZER;
static bool refresh_stop, refresh_now;

/* Live loads (cosched_live.h): read by the refresh thread outside every
 * slurmctld lock into live_jobs (live_gen counts the reads), applied to
 * the occupancy under ctl_mutex by the next job_test. */
static pthread_mutex_t live_mutex = PTHREAD_MUTEX_INITIALIZER;
static cosched_live_job_t *live_jobs;	/* malloc'd by cosched_ctld.so */
static long live_n;
static unsigned long live_gen, live_applied_gen;

/* Units: unit_first[node] .. + unit_count[node]; unit_node[unit]. */
static cosched_occupancy_t *occ;
static int map_nodes;
static int *unit_first, *unit_count, *unit_node, *unit_cap;
static int *node_cps;		/* cores per socket of each node */
static int nunits;
static uint16_t *unit_closed;	/* wide jobs holding the unit whole */
static bool *node_ok;
static bool rebuild_needed = true;
static time_t node_state_seen;

/* slurmctld's own variables (see above). */
static void **ctld_job_list;		/* List / list_t * job_list */
static time_t *ctld_last_job_update;

/* DebugFlags=Timing: wall clock of every call; with the flag also the
 * calling thread's CPU time (a system call, so only then), which a busy
 * host's other processes do not inflate. */
static uint64_t t_calls, c_calls, e_calls;
static double t_total, t_forward, c_total, c_forward, e_total;
static bool c_on;	/* this call takes CPU time */

static double _now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double _cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time of a job begin or end (job_begin, job_fini), with the flag. */
static double _begin_end_start(void)
{
	return (ctl_conf.debug_flags & COSCHED_DEBUG_TIMING) ? _cpu_now() : -1.0;
}

static void _begin_end_done(double c0)
{
	if (c0 >= 0.0) {
		e_calls++;
		e_total += _cpu_now() - c0;
	}
}

/* The totals since slurmctld started, one line (cosched-bench-controller
 * parses it): every 1000 calls and whenever slurmctld reconfigures the
 * select plugin (scontrol reconfigure on 22.05, scontrol setdebugflags,
 * partition updates), since it calls fini only in memory-leak debug
 * builds. */
static void _log_timing(void)
{
	info("%s: timing: %" PRIu64 " job_test calls, %.2f us per call in cosched, %.2f us in cons_tres; CPU time over %" PRIu64 " calls: %.2f us per call in cosched, %.2f us in cons_tres; %" PRIu64 " job begin and end calls, %.2f us CPU per call",
	     plugin_type, t_calls,
	     t_calls ? (t_total - t_forward) * 1e6 / t_calls : 0.0,
	     t_calls ? t_forward * 1e6 / t_calls : 0.0, c_calls,
	     c_calls ? (c_total - c_forward) * 1e6 / c_calls : 0.0,
	     c_calls ? c_forward * 1e6 / c_calls : 0.0, e_calls,
	     e_calls ? e_total * 1e6 / e_calls : 0.0);
}

bool cosched_ctl_active(void)
{
	return ctl_on;
}

/* --- configuration ------------------------------------------------------ */

/* --- the profile cache -------------------------------------------------- */

static void _refresh_profiles(void)
{
	cosched_error_t err = { { 0 } };
	int nbad = 0;
	long n = ctld->profile_cache_refresh(profiles, &nbad, &err);

	if (n < 0)
		error("%s: profile cache: %s (keeping %zu cached profiles)",
		      plugin_type, err.msg, ctld->profile_cache_size(profiles));
	else if (nbad)
		error("%s: profile cache: %d profiles in %s not loaded, first: %s",
		      plugin_type, nbad, ctl_conf.profile_dir, err.msg);
	else
		debug("%s: profile cache: %ld profiles from %s", plugin_type,
		      n, ctl_conf.profile_dir);
}

/* The running jobs' live MPKI from ProfileDir/live, for the next
 * job_test to apply. */
static void _refresh_live(void)
{
	cosched_live_job_t *jobs = NULL, *old;
	cosched_error_t err = { { 0 } };
	int nbad = 0;
	long n = ctld->live_scan(ctl_conf.profile_dir, (long long) time(NULL),
				 COSCHED_LIVE_STALE_S, &jobs, &nbad, &err);

	if (n < 0) {
		error("%s: live loads: %s", plugin_type, err.msg);
		return;
	}
	if (nbad)
		error("%s: live loads: %d files in %s/%s not used, first: %s",
		      plugin_type, nbad, ctl_conf.profile_dir,
		      COSCHED_LIVE_SUBDIR, err.msg);
	pthread_mutex_lock(&live_mutex);
	old = live_jobs;
	live_jobs = jobs;
	live_n = n;
	live_gen++;
	pthread_mutex_unlock(&live_mutex);
	free(old);
	debug2("%s: live loads: %ld jobs", plugin_type, n);
}

/* Outside every slurmctld lock: the disk is read here, never in job_test.
 * Profiles every ProfileCacheRefresh seconds, live loads every
 * LiveLoadRefresh seconds (LiveLoads=yes). */
static void *_refresh_loop(void *arg)
{
	struct timespec now;
	time_t next_profiles, next_live;

	(void) arg;
	clock_gettime(CLOCK_REALTIME, &now);
	next_profiles = now.tv_sec + ctl_conf.profile_refresh_s;
	next_live = now.tv_sec;
	pthread_mutex_lock(&refresh_mutex);
	while (!refresh_stop) {
		struct timespec until = { 0, 0 };
		bool live_on = ctl_conf.live_loads, do_profiles, do_live;

		until.tv_sec = live_on && next_live < next_profiles ?
			       next_live : next_profiles;
		while (!refresh_stop && !refresh_now &&
		       pthread_cond_timedwait(&refresh_cond, &refresh_mutex,
					      &until) == 0)
			;
		if (refresh_stop)
			break;
		clock_gettime(CLOCK_REALTIME, &now);
		do_profiles = refresh_now || now.tv_sec >= next_profiles;
		do_live = live_on && (refresh_now || now.tv_sec >= next_live);
		refresh_now = false;
		pthread_mutex_unlock(&refresh_mutex);
		if (do_profiles) {
			_refresh_profiles();
			next_profiles = now.tv_sec + ctl_conf.profile_refresh_s;
		}
		if (do_live) {
			_refresh_live();
			next_live = now.tv_sec + ctl_conf.live_refresh_s;
		}
		pthread_mutex_lock(&refresh_mutex);
	}
	pthread_mutex_unlock(&refresh_mutex);
	return NULL;
}

static int _load_ctld(void)
{
	char *dirs = xstrdup(slurm_conf.plugindir), *save = NULL, *dir;
	char *tried = NULL;

	for (dir = strtok_r(dirs, ":", &save); dir && !ctld_handle;
	     dir = strtok_r(NULL, ":", &save)) {
		char *path = xstrdup_printf("%s/%s", dir, COSCHED_CTLD_SO);
		xstrfmtcat(tried, "%s%s", tried ? ", " : "", path);
		ctld_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		xfree(path);
	}
	xfree(dirs);
	if (!ctld_handle) {
		const char *why = dlerror();
		error("%s: cannot load cosched_ctld.so (tried %s): %s",
		      plugin_type, tried ? tried : "PluginDir is empty",
		      why ? why : "no such file");
		xfree(tried);
		return -1;
	}
	xfree(tried);
	ctld = dlsym(ctld_handle, COSCHED_CTLD_SYMBOL);
	if (!ctld || !cosched_ctld_api_compatible(ctld)) {
		error("%s: %s is from another cosched build (API %u, release %s; this plugin: API %u, release %s): install both from one build",
		      plugin_type, COSCHED_CTLD_SO, ctld ? ctld->version : 0,
		      ctld && ctld->version == COSCHED_CTLD_API_VERSION ?
		      ctld->release : "?", COSCHED_CTLD_API_VERSION,
		      PACKAGE_VERSION);
		dlclose(ctld_handle);
		ctld_handle = NULL;
		ctld = NULL;
		return -1;
	}
	return 0;
}

static int _start_profiles(void)
{
	cosched_error_t err;

	profiles = ctld->profile_cache_create(&ctl_conf, &err);
	if (!profiles) {
		error("%s: profile cache: %s", plugin_type, err.msg);
		return -1;
	}
	_refresh_profiles();
	/* Read now, so that after a reconfigure the next job_test has the
	 * loads of the new ProfileDir. */
	if (ctl_conf.live_loads)
		_refresh_live();
	refresh_stop = false;
	if (pthread_create(&refresh_thread, NULL, _refresh_loop, NULL)) {
		error("%s: cannot start the profile refresh thread", plugin_type);
		return -1;
	}
	refresh_running = true;
	return 0;
}

static void _stop_profiles(void)
{
	if (refresh_running) {
		pthread_mutex_lock(&refresh_mutex);
		refresh_stop = true;
		pthread_cond_signal(&refresh_cond);
		pthread_mutex_unlock(&refresh_mutex);
		pthread_join(refresh_thread, NULL);
		refresh_running = false;
	}
	if (profiles)
		ctld->profile_cache_free(profiles);
	profiles = NULL;
	pthread_mutex_lock(&live_mutex);
	free(live_jobs);
	live_jobs = NULL;
	live_n = 0;
	live_gen++;
	pthread_mutex_unlock(&live_mutex);
}

/* --- lifecycle ------------------------------------------------------------ */

int cosched_ctl_init(void)
{
	cosched_error_t err;

	if (!running_in_slurmctld())
		return SLURM_SUCCESS;
	ctld_job_list = dlsym(RTLD_DEFAULT, "job_list");
	ctld_last_job_update = dlsym(RTLD_DEFAULT, "last_job_update");
	ctld_node_record_count = dlsym(RTLD_DEFAULT, "node_record_count");
	ctld_node_record_table_ptr = dlsym(RTLD_DEFAULT,
					   "node_record_table_ptr");
	ctld_last_node_update = dlsym(RTLD_DEFAULT, "last_node_update");
	if (!ctld_job_list || !ctld_last_job_update ||
	    !ctld_node_record_count || !ctld_node_record_table_ptr ||
	    !ctld_last_node_update)
		fatal("%s: slurmctld does not export job_list, last_job_update, node_record_count, node_record_table_ptr or last_node_update",
		      plugin_type);
	conf_path = cosched_plugin_conf_path();
	/* A bad file stops slurmctld at start, naming key, value and line. */
	if (cosched_plugin_conf_read(conf_path, &ctl_conf, &err))
		fatal("%s: %s", plugin_type, err.msg);
	if (_load_ctld() || _start_profiles())
		fatal("%s: cannot start the controller (see above)",
		      plugin_type);
	ctl_on = true;
	info("%s: CoschedPolicy=%s GangScope=%s PlacementMode=%s DefaultClass=%s (%s)",
	     plugin_type,
	     ctl_conf.policy_none ? "none" : cosched_policy_name(ctl_conf.policy),
	     cosched_scope_name(ctl_conf.scope), ctl_conf.strict ? "strict" : "lenient",
	     cosched_category_name(ctl_conf.default_class), conf_path);
	return SLURM_SUCCESS;
}

static void _free_state(void)
{
	cosched_occupancy_free(occ);
	occ = NULL;
	xfree(unit_first);
	xfree(unit_count);
	xfree(unit_node);
	xfree(unit_cap);
	xfree(node_cps);
	xfree(unit_closed);
	xfree(node_ok);
	nunits = map_nodes = 0;
}

void cosched_ctl_fini(void)
{
	if (!ctl_on)
		return;
	if (ctl_conf.debug_flags & COSCHED_DEBUG_TIMING)
		_log_timing();
	_stop_profiles();
	if (ctld_handle)
		dlclose(ctld_handle);
	ctld_handle = NULL;
	ctld = NULL;
	_free_state();
	xfree(conf_path);
	ctl_on = false;
}

void cosched_ctl_reconfigure(void)
{
	cosched_conf_t fresh;
	cosched_error_t err;

	if (!ctl_on)
		return;
	if (cosched_plugin_conf_read(conf_path, &fresh, &err)) {
		error("%s: %s; keeping the settings in effect", plugin_type,
		      err.msg);
		return;
	}
	pthread_mutex_lock(&ctl_mutex);
	ctl_conf = fresh;
	rebuild_needed = true;
	if (ctl_conf.debug_flags & COSCHED_DEBUG_TIMING)
		_log_timing();
	pthread_mutex_unlock(&ctl_mutex);
	/* The new ProfileDir or thresholds take effect at the next refresh;
	 * the cache re-reads what changed. */
	_stop_profiles();
	if (_start_profiles())
		error("%s: profile cache not restarted: jobs are placed by declared and default classes",
		      plugin_type);
	info("%s: reconfigured: CoschedPolicy=%s GangScope=%s PlacementMode=%s",
	     plugin_type,
	     ctl_conf.policy_none ? "none" : cosched_policy_name(ctl_conf.policy),
	     cosched_scope_name(ctl_conf.scope), ctl_conf.strict ? "strict" : "lenient");
}

void cosched_ctl_invalidate(void)
{
	pthread_mutex_lock(&ctl_mutex);
	rebuild_needed = true;
	pthread_mutex_unlock(&ctl_mutex);
}

/* --- jobs as the decision core sees them ---------------------------------- */

typedef enum {
	KIND_SINGLE,	/* one node, fits one unit: the best unit */
	KIND_WIDE,	/* one node, wider than a unit: whole units */
	KIND_MULTI,	/* several nodes: acceptable units on each */
	KIND_OFF,	/* --cosched=off */
	KIND_PASS,	/* a rule leaves it to cons_tres (reason says) */
} job_kind_t;

typedef struct {
	cosched_job_options_t opts;
	cosched_gang_job_t gj;
	cosched_class_t cls;
	cosched_profile_summary_t prof;
	bool has_prof;
	job_kind_t kind;
	int cores;		/* per node */
	char note[160];		/* why, for the record */
} job_view_t;

static int _threads_per_core(void)
{
	node_record_t *node_ptr;

	for (int i = 0; (node_ptr = next_node(&i)); i++)
		return node_ptr->threads ? node_ptr->threads : 1;
	return 1;
}

/* A declared or default class has no measured MPKI: take the lower MPKI
 * threshold of the class (cosched.conf ClassifyMemMPKI, ClassifyLimMPKI;
 * cpu and rand run with almost none, seed 002 "Limitations"). */
static double _nominal_mpki(cosched_category_t cat)
{
	switch (cat) {
	case COSCHED_CAT_MEM:
		return ctl_conf.classify.cat.mem_mpki;
	case COSCHED_CAT_LIM:
		return ctl_conf.classify.cat.lim_mpki;
	default:
		return 0.0;
	}
}

static void _job_view(job_record_t *job_ptr, job_view_t *v)
{
	/* struct job_details in 22.05, job_details_t in 24.11 */
	__typeof__(job_ptr->details) d = job_ptr->details;
	cosched_error_t err;
	uint32_t min_nodes, cpus, tpc = _threads_per_core();
	int min_cap = 0;

	memset(v, 0, sizeof(*v));
	cosched_options_init(&v->opts);
	if (cosched_options_from_env(&v->opts, job_ptr->spank_job_env,
				     job_ptr->spank_job_env_size, &err)) {
		/* The SPANK plugin refuses bad values at submit; a job
		 * submitted around it is placed as if it gave none. */
		snprintf(v->note, sizeof(v->note), "options ignored: %.120s",
			 err.msg);
		cosched_options_init(&v->opts);
	}
	if (!v->opts.app[0] && job_ptr->name &&
	    !cosched_app_name_is_generic(job_ptr->name) &&
	    !cosched_app_name_check("job name", job_ptr->name, NULL))
		snprintf(v->opts.app, sizeof(v->opts.app), "%s", job_ptr->name);

	/* Class: measured, declared, default (cosched(8) PLACEMENT RULES). */
	if (v->opts.app[0] && profiles &&
	    ctld->profile_cache_lookup(profiles, v->opts.app, &v->prof) == 1)
		v->has_prof = true;
	if (v->has_prof && v->prof.cls.cat != COSCHED_CAT_UNKNOWN) {
		v->cls = v->prof.cls;
		v->cls.source = COSCHED_CLASS_FROM_PROFILE;
		v->gj.mpki = isfinite(v->prof.mpki) ? v->prof.mpki :
						    _nominal_mpki(v->cls.cat);
		if (v->opts.declared_class != COSCHED_CAT_UNKNOWN &&
		    v->opts.declared_class != v->cls.cat)
			snprintf(v->note, sizeof(v->note),
				 "declared class %s ignored: the measured profile says %s",
				 cosched_category_name(v->opts.declared_class),
				 cosched_category_name(v->cls.cat));
	} else if (v->opts.declared_class != COSCHED_CAT_UNKNOWN) {
		v->cls.cat = v->opts.declared_class;
		v->cls.source = COSCHED_CLASS_FROM_DECLARED;
		v->gj.mpki = _nominal_mpki(v->cls.cat);
	} else {
		v->cls.cat = ctl_conf.default_class;
		v->cls.source = COSCHED_CLASS_FROM_DEFAULT;
		v->gj.mpki = _nominal_mpki(v->cls.cat);
	}
	v->cls.lca = cosched_category_to_lca(v->cls.cat);
	v->gj.job_id = job_ptr->job_id;
	v->gj.name = v->opts.app[0] ? v->opts.app : NULL;
	v->gj.category = v->cls.cat;

	/* Cores per node. */
	min_nodes = d && d->min_nodes ? d->min_nodes : 1;
	cpus = d ? d->min_cpus : 1;
	if (min_nodes > 1)
		cpus = (cpus + min_nodes - 1) / min_nodes;
	if (d && d->pn_min_cpus > cpus)
		cpus = d->pn_min_cpus;
	if (!cpus)
		cpus = 1;
	v->cores = (int) ((cpus + tpc - 1) / tpc);
	v->gj.threads = v->cores;

	/* The rules, in order. */
	if (!v->opts.enabled) {
		v->kind = KIND_OFF;
		return;
	}
	if (job_ptr->het_job_id) {
		v->kind = KIND_PASS;
		snprintf(v->note, sizeof(v->note),
			 "heterogeneous job: components are placed by cons_tres");
		return;
	}
	/* --exclusive sets whole_node; share_res alone is not it: backfill
	 * clears share_res for a moment to probe whole-node starts. */
	if (d && (d->whole_node & 1)) {
		v->kind = KIND_PASS;
		snprintf(v->note, sizeof(v->note),
			 "--exclusive: whole nodes, no co-runner");
		return;
	}
	if (d && (d->req_node_bitmap || d->core_spec != NO_VAL16)) {
		v->kind = KIND_PASS;
		snprintf(v->note, sizeof(v->note), "%s",
			 d->req_node_bitmap ?
			 "names its nodes (--nodelist): placed by cons_tres there" :
			 "names its cores (--core-spec): placed by cons_tres");
		return;
	}
	for (int u = 0; u < nunits; u++)
		if (!min_cap || unit_cap[u] < min_cap)
			min_cap = unit_cap[u];
	if (min_nodes > 1)
		v->kind = KIND_MULTI;
	else if (min_cap && v->cores > min_cap)
		v->kind = KIND_WIDE;
	else
		v->kind = KIND_SINGLE;
	if (v->gj.threads > min_cap && min_cap)
		v->gj.threads = min_cap;	/* WIDE/MULTI: per unit */
}

/* --- state: units, holders, rebuild ---------------------------------------- */

static void _sync_unit(int u)
{
	cosched_error_t err;
	bool avail = node_ok[unit_node[u]] && !unit_closed[u];

	if (cosched_occupancy_available(occ, u) != avail &&
	    cosched_occupancy_set_available(occ, u, avail, &err))
		error("%s: unit %d: %s", plugin_type, u, err.msg);
}

/* DOWN, DRAINED (or draining), FUTURE nodes take no new job. */
static void _sync_nodes(void)
{
	node_record_t *node_ptr;

	if (node_state_seen == last_node_update)
		return;
	node_state_seen = last_node_update;
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		if (i >= map_nodes)
			break;
		node_ok[i] = !IS_NODE_DOWN(node_ptr) &&
			     !IS_NODE_DRAIN(node_ptr) &&
			     !IS_NODE_FUTURE(node_ptr);
		for (int k = 0; k < unit_count[i]; k++)
			_sync_unit(unit_first[i] + k);
	}
}

/* The units a job holds (from its job_resources: the truth of what cons_tres
 * allocated), cores per unit.  Returns the number of holds. */
static int _job_holds(job_record_t *job_ptr, cosched_hold_t **holds)
{
	job_resources_t *jr = job_ptr->job_resrcs;
	node_record_t *node_ptr;
	int n = 0, j = 0;

	*holds = NULL;
	if (!jr || !jr->node_bitmap || !jr->core_bitmap)
		return 0;
	*holds = xcalloc(nunits ? nunits : 1, sizeof(cosched_hold_t));
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		if (i >= (int) bit_size(jr->node_bitmap))
			break;
		if (!bit_test(jr->node_bitmap, i))
			continue;
		if (i < map_nodes) {
			for (int s = 0; s < node_ptr->tot_sockets; s++) {
				int cores = 0, u;
				for (int c = 0; c < node_ptr->cores; c++)
					if (get_job_resources_bit(jr, j, s, c) == 1)
						cores++;
				if (!cores)
					continue;
				u = unit_first[i] +
				    (ctl_conf.scope == COSCHED_SCOPE_NODE ? 0 : s);
				if (n && (*holds)[n - 1].socket == (size_t) u)
					(*holds)[n - 1].cores += cores;
				else
					(*holds)[n++] = (cosched_hold_t) {
						.socket = u, .cores = cores };
			}
		}
		j++;
	}
	return n;
}

/* Enter a running job.  The decision record (d, may be NULL) says how it
 * was placed; without one (started before cosched, or --cosched=off) the
 * job is a foreign holder: used cores, no co-runner. */
static void _enter(job_record_t *job_ptr, const cosched_decision_t *d)
{
	cosched_hold_t *holds;
	cosched_error_t err;
	int n = _job_holds(job_ptr, &holds), rc;

	if (!n) {
		xfree(holds);
		return;
	}
	if (d && d->has_class &&
	    (d->state == COSCHED_DECISION_PLACED ||
	     d->state == COSCHED_DECISION_PASSTHROUGH)) {
		cosched_gang_job_t gj = {
			.job_id = job_ptr->job_id,
			.threads = holds[0].cores,
			.mpki = isfinite(d->mpki) ? d->mpki : 0.0,
			.category = d->category,
		};
		rc = cosched_occupancy_add(occ, &gj, holds, n, &err);
		/* Wide jobs hold their sockets whole: nobody joins them. */
		if (!rc && d->threads > 0 && d->threads > unit_cap[holds[0].socket])
			for (int k = 0; k < n; k++) {
				unit_closed[holds[k].socket]++;
				_sync_unit(holds[k].socket);
			}
	} else {
		rc = cosched_occupancy_add_foreign(occ, job_ptr->job_id, holds,
						   n, &err);
	}
	if (rc)
		error("%s: %pJ not entered: %s", plugin_type, job_ptr, err.msg);
	xfree(holds);
}

static void _leave(job_record_t *job_ptr, const cosched_decision_t *d)
{
	cosched_error_t err;
	const cosched_hold_t *h;
	size_t n = 0;

	h = cosched_occupancy_holds(occ, job_ptr->job_id, &n);
	if (h && d && d->threads > 0 && n && d->threads > unit_cap[h[0].socket])
		for (size_t k = 0; k < n; k++) {
			if (unit_closed[h[k].socket])
				unit_closed[h[k].socket]--;
			_sync_unit(h[k].socket);
		}
	if (cosched_occupancy_remove(occ, job_ptr->job_id, &err) < 0)
		error("%s: %pJ: %s", plugin_type, job_ptr, err.msg);
}

/* The job's decision record from its SystemComment (1 found). */
static int _record(job_record_t *job_ptr, cosched_decision_t *d)
{
	cosched_error_t err;
	int rc = cosched_decision_find(job_ptr->system_comment, d, &err);

	if (rc < 0)
		error("%s: %pJ: its decision record is unreadable: %s",
		      plugin_type, job_ptr, err.msg);
	/* Slurm copies SystemComment to the task it splits off a job array:
	 * a record naming another job is not this job's decision. */
	if (rc == 1 && d->job_id != job_ptr->job_id)
		return 0;
	return rc;
}

static void _check(const char *when)
{
	cosched_error_t err;

	if (!(ctl_conf.debug_flags & COSCHED_DEBUG_CHECK))
		return;
	if (cosched_occupancy_check(occ, &err)) {
		error("%s: self-check failed after %s: %s; rebuilding from the job records",
		      plugin_type, when, err.msg);
		rebuild_needed = true;
	} else {
		info("%s: self-check passed after %s", plugin_type, when);
	}
}

/* Rebuild everything from the node and job records (after a restart, a
 * reconfiguration, a node change): cons_common's model. */
static int _rebuild(void)
{
	cosched_gang_params_t params;
	cosched_error_t err;
	node_record_t *node_ptr;
	struct listIterator *it;
	job_record_t *job_ptr;
	int u = 0;

	_free_state();
	map_nodes = node_record_count;
	unit_first = xcalloc(map_nodes + 1, sizeof(int));
	unit_count = xcalloc(map_nodes + 1, sizeof(int));
	node_cps = xcalloc(map_nodes + 1, sizeof(int));
	node_ok = xcalloc(map_nodes + 1, sizeof(bool));
	for (int i = 0; i < map_nodes; i++) {
		int k = i;
		node_ptr = next_node(&k);
		unit_first[i] = u;
		if (node_ptr != node_record_table_ptr[i] || !node_ptr)
			continue;	/* a hole in the node table */
		unit_count[i] = ctl_conf.scope == COSCHED_SCOPE_NODE ? 1 :
				node_ptr->tot_sockets;
		node_cps[i] = node_ptr->cores;
		u += unit_count[i];
	}
	nunits = u;
	unit_node = xcalloc(nunits + 1, sizeof(int));
	unit_cap = xcalloc(nunits + 1, sizeof(int));
	unit_closed = xcalloc(nunits + 1, sizeof(uint16_t));
	for (int i = 0; i < map_nodes; i++)
		for (int k = 0; k < unit_count[i]; k++) {
			node_ptr = node_record_table_ptr[i];
			unit_node[unit_first[i] + k] = i;
			unit_cap[unit_first[i] + k] =
				ctl_conf.scope == COSCHED_SCOPE_NODE ?
				node_ptr->tot_cores : node_ptr->cores;
		}
	cosched_gang_params_init(&params, 1);
	params.capacity = 1;
	for (int k = 0; k < nunits; k++)
		if (unit_cap[k] > params.capacity)
			params.capacity = unit_cap[k];
	params.mrb_threshold = ctl_conf.mrb_threshold;
	params.mrb_weight = ctl_conf.mrb_weight;
	params.pref = &ctl_conf.interference.pref;
	occ = cosched_occupancy_create(ctl_conf.policy, &params, nunits, unit_cap,
				       &err);
	if (!occ) {
		error("%s: %s", plugin_type, err.msg);
		_free_state();
		return -1;
	}
	for (int k = 0; k < nunits; k++)
		cosched_occupancy_set_available(occ, k, false, NULL);
	node_state_seen = 0;
	memset(node_ok, 0, sizeof(bool) * map_nodes);
	/* Every running job, placed by cosched or not. */
	it = list_iterator_create(*ctld_job_list);
	while ((job_ptr = list_next(it))) {
		cosched_decision_t d;
		if (!IS_JOB_RUNNING(job_ptr) && !IS_JOB_SUSPENDED(job_ptr))
			continue;
		_enter(job_ptr, _record(job_ptr, &d) == 1 ? &d : NULL);
	}
	list_iterator_destroy(it);
	_sync_nodes();
	/* Availability starts false: make every unit match its node. */
	for (int k = 0; k < nunits; k++)
		_sync_unit(k);
	rebuild_needed = false;
	debug("%s: rebuilt: %d nodes, %d %s", plugin_type, map_nodes, nunits,
	      ctl_conf.scope == COSCHED_SCOPE_NODE ? "nodes as gangs" : "sockets");
	_check("rebuild");
	return 0;
}

/* The latest live loads into the occupancy: each running job placed by
 * cosched carries its smoothed MPKI from its nodes instead of its
 * profile's, so Miss-Rate Bound and the socket loads follow the jobs as
 * they change.  Once per read (and again after a rebuild, which enters
 * the jobs with their records' MPKI). */
static void _apply_live(void)
{
	cosched_error_t err;

	pthread_mutex_lock(&live_mutex);
	if (live_gen != live_applied_gen) {
		for (long i = 0; i < live_n; i++) {
			bool foreign = false;

			if (!cosched_occupancy_has(occ, live_jobs[i].job_id,
						   &foreign) || foreign)
				continue;
			if (cosched_occupancy_set_mpki(occ, live_jobs[i].job_id,
						       live_jobs[i].mpki, &err))
				error("%s: live load of JobId=%u: %s",
				      plugin_type, live_jobs[i].job_id,
				      err.msg);
			else
				debug2("%s: JobId=%u: live MPKI %.2f",
				       plugin_type, live_jobs[i].job_id,
				       live_jobs[i].mpki);
		}
		live_applied_gen = live_gen;
	}
	pthread_mutex_unlock(&live_mutex);
}

static int _ensure_state(void)
{
	if (rebuild_needed || !occ || map_nodes != (int) node_record_count) {
		if (_rebuild())
			return -1;
		pthread_mutex_lock(&live_mutex);
		live_applied_gen = live_gen - 1;	/* apply again */
		pthread_mutex_unlock(&live_mutex);
	}
	_sync_nodes();
	if (ctl_conf.live_loads)
		_apply_live();
	return 0;
}

/* --- the decision record ----------------------------------------------------- */

static void _record_init(cosched_decision_t *d, job_record_t *job_ptr,
			 const job_view_t *v, cosched_decision_state_t state)
{
	cosched_decision_init(d);
	d->job_id = job_ptr->job_id;
	d->state = state;
	d->policy = ctl_conf.policy_none ? COSCHED_DECISION_POLICY_NONE :
				       ctl_conf.policy;
	d->scope = ctl_conf.scope;
	/* Checked when the view was built (cosched_app_name_check). */
	snprintf(d->app, sizeof(d->app), "%s", v->opts.app);
	if (state != COSCHED_DECISION_OFF) {
		d->has_class = true;
		d->category = v->cls.cat;
		d->lca = v->cls.lca;
		d->source = v->cls.source;
		d->mpki = v->gj.mpki;
		d->threads = v->cores;
	}
}

/* Write d into the job's SystemComment (only when it changed). */
static void _record_write(job_record_t *job_ptr, const cosched_decision_t *d)
{
	char buf[COSCHED_DECISION_TEXT_MAX];
	cosched_error_t err;
	char *spliced;

	if (cosched_decision_format(d, buf, sizeof(buf), &err)) {
		error("%s: %pJ: decision not recorded: %s", plugin_type,
		      job_ptr, err.msg);
		return;
	}
	spliced = cosched_decision_splice(job_ptr->system_comment, buf);
	if (!spliced)
		return;
	if (!job_ptr->system_comment || strcmp(spliced, job_ptr->system_comment)) {
		xfree(job_ptr->system_comment);
		job_ptr->system_comment = xstrdup(spliced);
		*ctld_last_job_update = time(NULL);
		if (ctl_conf.debug_flags & COSCHED_DEBUG_PLACEMENT)
			info("%s: %pJ %s", plugin_type, job_ptr, buf);
	}
	free(spliced);
}

/* --- steering ------------------------------------------------------------------ */

static void _steer_alloc(cosched_steer_t *s)
{
	s->nodes = bit_alloc(node_record_count);
	s->socket_mask = xcalloc(node_record_count ? node_record_count : 1,
				 sizeof(uint64_t));
}

static void _steer_free(cosched_steer_t *s)
{
	FREE_NULL_BITMAP(s->nodes);
	xfree(s->socket_mask);
}

static void _steer_add_unit(cosched_steer_t *s, int u)
{
	int node = unit_node[u];

	bit_set(s->nodes, node);
	if (ctl_conf.scope == COSCHED_SCOPE_NODE)
		s->socket_mask[node] = ~(uint64_t) 0;
	else if (u - unit_first[node] < 64)
		s->socket_mask[node] |= (uint64_t) 1 << (u - unit_first[node]);
}

/* One forwarded attempt, the given bitmap narrowed to steer's nodes; on
 * success the result (cons_tres's choice) is copied back. */
static int _attempt(cosched_try_fn try, void *ctx, bitstr_t *node_bitmap,
		    const cosched_steer_t *steer)
{
	bitstr_t *bm = bit_copy(node_bitmap);
	double t0 = _now(), c0 = c_on ? _cpu_now() : 0.0;
	int rc;

	if (steer)
		bit_and(bm, steer->nodes);
	rc = bit_ffs(bm) < 0 ? SLURM_ERROR : try(ctx, bm, steer);
	if (rc == SLURM_SUCCESS)
		bit_copybits(node_bitmap, bm);
	FREE_NULL_BITMAP(bm);
	t_forward += _now() - t0;
	if (c_on)
		c_forward += _cpu_now() - c0;
	return rc;
}

/* Units outside the job's node bitmap (partition, features, availability
 * as slurmctld computed it), for the index queries. */
static size_t *_excluded_units(bitstr_t *node_bitmap, size_t *n)
{
	size_t *ex = NULL, cnt = 0;

	if (bit_set_count(node_bitmap) == map_nodes) {
		*n = 0;
		return NULL;
	}
	ex = xcalloc(nunits ? nunits : 1, sizeof(size_t));
	for (int i = 0; i < map_nodes; i++)
		if (i >= (int) bit_size(node_bitmap) || !bit_test(node_bitmap, i))
			for (int k = 0; k < unit_count[i]; k++)
				ex[cnt++] = unit_first[i] + k;
	*n = cnt;
	return ex;
}

/* Whether unit u accepts the job now (the policy's rule), with the reason
 * when not. */
static bool _unit_accepts(int u, const cosched_gang_job_t *gj,
			  cosched_candidate_t *cand)
{
	cosched_gang_params_t params;
	cosched_socket_t sock;
	cosched_error_t err;
	size_t nacc = 0;

	if (!cosched_occupancy_available(occ, u) ||
	    cosched_occupancy_socket(occ, u, &sock))
		return false;
	cosched_gang_params_init(&params, sock.capacity);
	params.mrb_threshold = ctl_conf.mrb_threshold;
	params.mrb_weight = ctl_conf.mrb_weight;
	params.pref = &ctl_conf.interference.pref;
	if (gj->threads > sock.capacity)
		return false;
	if (cosched_gang_rank(ctl_conf.policy, &params, &sock, 1, gj, cand, &nacc,
			      &err))
		return false;
	cand->socket = u;
	return nacc == 1;
}

/* A wide job needs k whole units of one node, free of every holder. */
static bool _unit_empty(int u)
{
	cosched_socket_t sock;

	return cosched_occupancy_available(occ, u) &&
	       !cosched_occupancy_socket(occ, u, &sock) && sock.used == 0;
}

/* Why no unit accepts the job: the most common rejection, for the pending
 * reason ("miss_rate_bound: no socket keeps the MPKI sum at or below 12.0
 * (4 sockets would reach 31.0 or more)"). */
static void _why_none(const job_view_t *v, char *buf, size_t len)
{
	int count[COSCHED_REJECT_COUNT] = { 0 };
	cosched_candidate_t c, first[COSCHED_REJECT_COUNT];
	int best = COSCHED_REJECT_NO_FREE_CORES;
	char cbuf[160];

	for (int u = 0; u < nunits; u++) {
		if (!cosched_occupancy_available(occ, u))
			continue;
		memset(&c, 0, sizeof(c));
		if (_unit_accepts(u, &v->gj, &c) || c.reject <= 0 ||
		    c.reject >= COSCHED_REJECT_COUNT)
			continue;
		if (!count[c.reject]++)
			first[c.reject] = c;
	}
	/* The policy's own rules before "full". */
	for (int r = COSCHED_REJECT_FORBIDDEN_PAIR; r < COSCHED_REJECT_NO_SOCKET; r++)
		if (count[r]) {
			best = r;
			break;
		}
	if (!count[best])
		for (int r = 1; r < COSCHED_REJECT_COUNT; r++)
			if (count[r]) {
				best = r;
				break;
			}
	if (!count[best]) {
		snprintf(buf, len, "%s: no available %s", plugin_type,
			 ctl_conf.scope == COSCHED_SCOPE_NODE ? "node" : "socket");
		return;
	}
	cosched_candidate_format(&first[best], cbuf, sizeof(cbuf));
	snprintf(buf, len, "%s %s: no %s accepts this %s job (%s on %d; first: %s)",
		 ctl_conf.strict ? "strict" : "lenient",
		 cosched_policy_name(ctl_conf.policy),
		 ctl_conf.scope == COSCHED_SCOPE_NODE ? "node" : "socket",
		 cosched_category_name(v->gj.category),
		 cosched_reject_name(best), count[best], cbuf);
}

/* The single-unit rule: the best unit the index gives, then the next best
 * when cons_tres refuses it (memory, GRES), MAX_TRIES in all. */
static int _place_single(job_view_t *v, bitstr_t *node_bitmap, uint16_t mode,
			 cosched_try_fn try, void *ctx, char *why, size_t wlen)
{
	size_t nex = 0, *ex = _excluded_units(node_bitmap, &nex);
	size_t cap = nex + MAX_TRIES;
	cosched_candidate_t best;
	cosched_error_t err;
	int rc = SLURM_ERROR;

	ex = xrealloc(ex, (cap ? cap : 1) * sizeof(size_t));
	why[0] = '\0';
	for (int t = 0; t < MAX_TRIES; t++) {
		cosched_steer_t steer;
		long u = cosched_occupancy_best(occ, &v->gj, 0, ex, nex, &best,
						&err);
		if (u == COSCHED_INDEX_INVALID) {
			snprintf(why, wlen, "%.200s", err.msg);
			break;
		}
		if (u < 0)
			break;
		_steer_alloc(&steer);
		_steer_add_unit(&steer, (int) u);
		rc = _attempt(try, ctx, node_bitmap, &steer);
		_steer_free(&steer);
		if (rc == SLURM_SUCCESS)
			break;
		ex[nex++] = (size_t) u;
		if (mode == MODE_TEST_ONLY)
			break;
	}
	xfree(ex);
	return rc;
}

/* Several nodes, or whole units: every unit that accepts the job (wide:
 * every empty unit on nodes with enough of them); cons_tres chooses
 * among them. */
static int _place_set(job_view_t *v, bitstr_t *node_bitmap, cosched_try_fn try,
		      void *ctx)
{
	cosched_steer_t steer;
	bool any = false;
	int rc;

	_steer_alloc(&steer);
	for (int i = 0; i < map_nodes; i++) {
		int need = 1, have = 0;
		if (i >= (int) bit_size(node_bitmap) || !bit_test(node_bitmap, i))
			continue;
		if (v->kind == KIND_WIDE && unit_count[i])
			need = (v->cores + unit_cap[unit_first[i]] - 1) /
			       unit_cap[unit_first[i]];
		for (int k = 0; k < unit_count[i]; k++) {
			int u = unit_first[i] + k;
			cosched_candidate_t c;
			if (v->kind == KIND_WIDE ? _unit_empty(u) :
			    _unit_accepts(u, &v->gj, &c))
				have++;
		}
		if (have < need)
			continue;
		if (v->kind == KIND_WIDE) {
			for (int k = 0; k < unit_count[i]; k++)
				if (_unit_empty(unit_first[i] + k))
					_steer_add_unit(&steer, unit_first[i] + k);
			any = true;
			continue;
		}
		/* Multi-node: the node's best accepting unit, so the job's
		 * cores on the node share one socket (cons_tres would spread
		 * its tasks over every socket it is given). */
		{
			int best = -1;
			double best_score = 0;
			for (int k = 0; k < unit_count[i]; k++) {
				int u = unit_first[i] + k;
				cosched_candidate_t c;
				if (_unit_accepts(u, &v->gj, &c) &&
				    (best < 0 || c.score > best_score)) {
					best = u;
					best_score = c.score;
				}
			}
			if (best >= 0) {
				_steer_add_unit(&steer, best);
				any = true;
			}
		}
	}
	rc = any ? _attempt(try, ctx, node_bitmap, &steer) : SLURM_ERROR;
	_steer_free(&steer);
	return rc;
}

/* Test-only (submit, sbatch --test-only): could the job ever run under
 * cosched's rules?  cons_tres ignores excluded cores in this mode, so the
 * rule is checked here: some node must have units that can hold the job
 * when empty (never a co-runner rule: those change as jobs end). */
static int _test_only(job_view_t *v, bitstr_t *node_bitmap, cosched_try_fn try,
		      void *ctx)
{
	cosched_steer_t steer;
	bool any = false;
	int rc;

	_steer_alloc(&steer);
	for (int i = 0; i < map_nodes; i++) {
		int cap = 0;
		if (i >= (int) bit_size(node_bitmap) || !bit_test(node_bitmap, i))
			continue;
		for (int k = 0; k < unit_count[i]; k++)
			cap += unit_cap[unit_first[i] + k];
		if (!unit_count[i] ||
		    (v->kind == KIND_SINGLE && v->cores > unit_cap[unit_first[i]]) ||
		    v->cores > cap)
			continue;
		for (int k = 0; k < unit_count[i]; k++)
			_steer_add_unit(&steer, unit_first[i] + k);
		any = true;
	}
	rc = any ? _attempt(try, ctx, node_bitmap, &steer) : SLURM_ERROR;
	_steer_free(&steer);
	return rc;
}

/* Lenient mode's last resort, for the record at job begin: which job
 * went there and why (job_begin follows job_test under the same lock). */
static uint32_t lenient_job_id;
static char lenient_why[COSCHED_DECISION_REASON_MAX + 1];

/* The predicted slowdown of the job among a unit's occupants (itself left
 * out: at job begin it is already there). */
static double _unit_slowdown(int u, const job_view_t *v)
{
	cosched_class_t co[64];
	cosched_prediction_t pr;
	cosched_socket_t sock;
	int n = 0;

	if (cosched_occupancy_socket(occ, u, &sock))
		return INFINITY;
	for (int j = 0; j < sock.noccupants && n < 64; j++) {
		if (sock.occupants[j].job_id == v->gj.job_id)
			continue;
		co[n].cat = sock.occupants[j].category;
		co[n].lca = cosched_category_to_lca(co[n].cat);
		co[n].source = COSCHED_CLASS_FROM_PROFILE;
		n++;
	}
	if (cosched_interference_predict(&ctl_conf.interference, &v->cls, co,
					 n, &pr, NULL))
		return INFINITY;
	return pr.slowdown;
}

/*
 * Lenient, when no unit accepts a one-socket job: the least-bad unit that
 * has the cores, by the predicted slowdown of the job there (seed 001's
 * table), then the lower MPKI sum, then the lower index.  -1 when no unit
 * has the cores.
 */
static int _least_bad(const job_view_t *v, bitstr_t *node_bitmap)
{
	int best = -1;
	double best_sd = INFINITY, best_load = INFINITY;

	for (int u = 0; u < nunits; u++) {
		cosched_socket_t sock;
		double sd, load = 0;
		int node = unit_node[u];
		if (node >= (int) bit_size(node_bitmap) ||
		    !bit_test(node_bitmap, node) ||
		    !cosched_occupancy_available(occ, u) ||
		    cosched_occupancy_free_cores(occ, u) < v->gj.threads ||
		    cosched_occupancy_socket(occ, u, &sock))
			continue;
		for (int j = 0; j < sock.noccupants; j++)
			load += sock.occupants[j].mpki;
		sd = _unit_slowdown(u, v);
		if (best < 0 || sd < best_sd ||
		    (sd == best_sd && load < best_load)) {
			best = u;
			best_sd = sd;
			best_load = load;
		}
	}
	return best;
}

typedef struct {
	time_t end;
	job_record_t *job_ptr;
} ending_t;

static int _by_end(const void *a, const void *b)
{
	const ending_t *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->job_ptr->job_id < y->job_ptr->job_id ? -1 :
	       x->job_ptr->job_id > y->job_ptr->job_id;
}

/* Running jobs ended in a will-run search before cosched gives up. */
#define MAX_FUTURE 64

/*
 * Will-run (backfill): no unit accepts the job now.  Walk the running jobs
 * in the order they end (their end time: the time limit, as backfill
 * assumes), each time on a copy of the occupancy without them, until some
 * unit accepts the job; then ask cons_tres when the cores there are free.
 * The job cannot start before the last job removed ends, so the predicted
 * start is at least that.  Pure read: the real occupancy is untouched.
 */
static int _will_run_future(job_view_t *v, job_record_t *job_ptr,
			    bitstr_t *node_bitmap, cosched_try_fn try,
			    void *ctx)
{
	cosched_occupancy_t *real = occ, *copy;
	uint16_t *closed_saved;
	ending_t *ends;
	struct listIterator *it;
	job_record_t *jp;
	cosched_error_t err;
	int n = 0, cap = 64, rc = SLURM_ERROR;

	copy = cosched_occupancy_copy(occ, &err);
	if (!copy)
		return SLURM_ERROR;
	ends = xcalloc(cap, sizeof(*ends));
	it = list_iterator_create(*ctld_job_list);
	while ((jp = list_next(it))) {
		if (!IS_JOB_RUNNING(jp) ||
		    !cosched_occupancy_has(occ, jp->job_id, NULL))
			continue;
		if (n == cap) {
			cap *= 2;
			xrecalloc(ends, cap, sizeof(*ends));
		}
		ends[n++] = (ending_t) { .end = jp->end_time, .job_ptr = jp };
	}
	list_iterator_destroy(it);
	qsort(ends, n, sizeof(*ends), _by_end);
	closed_saved = xcalloc(nunits + 1, sizeof(uint16_t));
	memcpy(closed_saved, unit_closed, nunits * sizeof(uint16_t));
	occ = copy;
	for (int k = 0; k < n && k < MAX_FUTURE; k++) {
		cosched_decision_t d;
		int have = _record(ends[k].job_ptr, &d) == 1;
		_leave(ends[k].job_ptr, have ? &d : NULL);
		if (k + 1 < n && ends[k + 1].end == ends[k].end)
			continue;	/* they end together */
		rc = _place_set(v, node_bitmap, try, ctx);
		if (rc == SLURM_SUCCESS) {
			if (job_ptr->start_time < ends[k].end)
				job_ptr->start_time = ends[k].end;
			if (ctl_conf.debug_flags & COSCHED_DEBUG_PLACEMENT)
				info("%s: %pJ will run at %ld once %pJ ends (%d running jobs ended in the search)",
				     plugin_type, job_ptr,
				     (long) job_ptr->start_time, ends[k].job_ptr,
				     k + 1);
			break;
		}
	}
	occ = real;
	memcpy(unit_closed, closed_saved, nunits * sizeof(uint16_t));
	xfree(closed_saved);
	cosched_occupancy_free(copy);
	xfree(ends);
	return rc;
}

int cosched_ctl_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			 uint16_t mode, cosched_try_fn try, void *ctx)
{
	double t0 = _now(), c0 = 0.0, fwd0;
	char why[256] = "";
	job_view_t v;
	int rc;

	if (!ctl_on)
		return try(ctx, node_bitmap, NULL);
	pthread_mutex_lock(&ctl_mutex);
	fwd0 = t_forward;
	c_on = ctl_conf.debug_flags & COSCHED_DEBUG_TIMING;
	if (c_on)
		c0 = _cpu_now();
	if (_ensure_state()) {
		c_on = false;
		pthread_mutex_unlock(&ctl_mutex);
		return try(ctx, node_bitmap, NULL);
	}
	_job_view(job_ptr, &v);
	if (ctl_conf.policy_none || v.kind == KIND_OFF || v.kind == KIND_PASS) {
		rc = _attempt(try, ctx, node_bitmap, NULL);
		goto done;
	}
	if (mode == MODE_TEST_ONLY) {
		rc = _test_only(&v, node_bitmap, try, ctx);
		goto done;
	}
	if (v.kind == KIND_SINGLE)
		rc = _place_single(&v, node_bitmap, mode, try, ctx, why,
				   sizeof(why));
	else
		rc = _place_set(&v, node_bitmap, try, ctx);
	if (rc != SLURM_SUCCESS && mode == MODE_WILL_RUN)
		rc = _will_run_future(&v, job_ptr, node_bitmap, try, ctx);
	if (ctl_conf.debug_flags & COSCHED_DEBUG_PLACEMENT)
		info("%s: %pJ job_test mode %u: %s%s%s", plugin_type, job_ptr,
		     (unsigned) mode, rc == SLURM_SUCCESS ? "placed" : "no unit",
		     why[0] ? ": " : "", why);
	if (rc != SLURM_SUCCESS && !why[0])
		_why_none(&v, why, sizeof(why));
	if (rc != SLURM_SUCCESS && !ctl_conf.strict) {
		/* Lenient: no acceptable unit.  A one-socket job takes the
		 * least-bad unit with the cores; anything else (or when
		 * cons_tres refuses that unit) is placed by cons_tres. */
		int u = v.kind == KIND_SINGLE ? _least_bad(&v, node_bitmap) : -1;
		rc = SLURM_ERROR;
		if (u >= 0) {
			cosched_steer_t steer;
			_steer_alloc(&steer);
			_steer_add_unit(&steer, u);
			rc = _attempt(try, ctx, node_bitmap, &steer);
			_steer_free(&steer);
		}
		if (rc != SLURM_SUCCESS)
			rc = _attempt(try, ctx, node_bitmap, NULL);
		if (rc == SLURM_SUCCESS && mode == MODE_RUN_NOW) {
			lenient_job_id = job_ptr->job_id;
			snprintf(lenient_why, sizeof(lenient_why),
				 "%.150s; took the %s", why,
				 u >= 0 ? "least-bad socket" :
				 "cores cons_tres chose");
		}
	} else if (rc != SLURM_SUCCESS && mode == MODE_RUN_NOW) {
		/* Strict: the job waits; its record says which rule holds
		 * it (Slurm resets Reason= after every failed selection). */
		cosched_decision_t d;
		_record_init(&d, job_ptr, &v, COSCHED_DECISION_PENDING);
		cosched_decision_set_reason(&d, "%s", why);
		_record_write(job_ptr, &d);
	}
done:
	t_calls++;
	t_total += _now() - t0;
	if (c_on) {
		c_calls++;
		c_total += _cpu_now() - c0;
		c_on = false;
	}
	if ((ctl_conf.debug_flags & COSCHED_DEBUG_TIMING) && !(t_calls % 1000))
		_log_timing();
	(void) fwd0;
	pthread_mutex_unlock(&ctl_mutex);
	return rc;
}

/* --- job begin: the decision as it happened ---------------------------------- */

/* Frequency and governor (seed 002 "DVFS model"): the job's power policy
 * over its EDP points at its thread count; then its frequency domains (the
 * units it holds: one package, one frequency) resolved with the jobs
 * already there by the core's rule (the highest request). */
static void _decide_power(job_view_t *v, cosched_decision_t *d,
			  const cosched_hold_t *h, size_t nh)
{
	cosched_power_policy_t p = v->opts.power != COSCHED_POWER_UNSET ?
				   v->opts.power : ctl_conf.power_policy;
	double slow = v->opts.power == COSCHED_POWER_ENERGY ?
		      v->opts.max_slowdown_pct : ctl_conf.max_slowdown_pct;
	cosched_error_t err;
	long f = 0, dom;

	d->power = p;
	if (p == COSCHED_POWER_PERFORMANCE) {
		/* The site default leaves each node's governor as the site
		 * set it (installing cosched changes no speed); a job that
		 * asks for performance gets the performance governor. */
		if (v->opts.power == COSCHED_POWER_PERFORMANCE)
			snprintf(d->governor, sizeof(d->governor),
				 "performance");
		return;
	}
	if (!v->has_prof || !v->prof.n_edp ||
	    cosched_power_choose_freq(v->prof.edp, v->prof.n_edp, v->cores, p,
				      slow, &f, &err) || f <= 0) {
		/* No points at its thread count: the frequency stays. */
		return;
	}
	d->freq_req_khz = f;
	snprintf(d->governor, sizeof(d->governor), "userspace");
	dom = f;
	for (size_t k = 0; k < nh; k++) {
		cosched_socket_t sock;
		if (cosched_occupancy_socket(occ, h[k].socket, &sock))
			continue;
		for (int j = 0; j < sock.noccupants; j++) {
			job_record_t *other;
			cosched_decision_t od;
			if (sock.occupants[j].job_id == v->gj.job_id)
				continue;
			other = find_job_record(sock.occupants[j].job_id);
			if (other && _record(other, &od) == 1 &&
			    od.freq_req_khz > dom)
				dom = od.freq_req_khz;
		}
	}
	d->freq_khz = dom;
}

/* The predicted slowdown of the job next to its co-runners: the worst over
 * the units it holds (seed 001's table; cosched_interference.h). */
static double _predict(const job_view_t *v, const cosched_hold_t *h, size_t nh)
{
	double worst = 1.0;

	for (size_t k = 0; k < nh; k++) {
		double sd = _unit_slowdown((int) h[k].socket, v);
		if (isfinite(sd) && sd > worst)
			worst = sd;
	}
	return worst;
}

/*
 * A job arrived on or left these units: the predicted slowdown in the
 * records of the jobs still there changes with their co-runners; write it
 * again (only records that change are rewritten).
 */
static void _refresh_neighbours(const cosched_hold_t *h, size_t nh,
				uint32_t except)
{
	for (size_t k = 0; k < nh; k++) {
		cosched_socket_t sock;
		if (cosched_occupancy_socket(occ, h[k].socket, &sock))
			continue;
		for (int j = 0; j < sock.noccupants; j++) {
			uint32_t id = sock.occupants[j].job_id;
			const cosched_hold_t *oh;
			job_record_t *other;
			cosched_decision_t od;
			job_view_t ov;
			size_t on = 0;
			if (id == except || !(other = find_job_record(id)) ||
			    _record(other, &od) != 1 || !od.has_class)
				continue;
			memset(&ov, 0, sizeof(ov));
			ov.gj.job_id = id;
			ov.cls.cat = od.category;
			ov.cls.lca = od.lca;
			ov.cls.source = od.source;
			oh = cosched_occupancy_holds(occ, id, &on);
			if (!oh)
				continue;
			od.slowdown = _predict(&ov, oh, on);
			_record_write(other, &od);
		}
	}
}

void cosched_ctl_job_begin(job_record_t *job_ptr)
{
	cosched_decision_t d;
	cosched_error_t err;
	const cosched_hold_t *h;
	size_t nh = 0;
	job_view_t v;
	char note[COSCHED_DECISION_REASON_MAX + 1] = "";
	double c0;

	if (!ctl_on)
		return;
	pthread_mutex_lock(&ctl_mutex);
	c0 = _begin_end_start();
	if (_ensure_state())
		goto out;
	_job_view(job_ptr, &v);
	_record_init(&d, job_ptr, &v,
		     v.kind == KIND_OFF ? COSCHED_DECISION_OFF :
		     v.kind == KIND_PASS ? COSCHED_DECISION_PASSTHROUGH :
		     COSCHED_DECISION_PLACED);
	/* A requeued job may still be there: enter it anew. */
	if (cosched_occupancy_has(occ, job_ptr->job_id, NULL))
		cosched_occupancy_remove(occ, job_ptr->job_id, &err);
	/* Where cons_tres put it, node by node. */
	{
		cosched_hold_t *holds;
		int n = _job_holds(job_ptr, &holds);
		for (int k = 0; k < n; k++) {
			int u = (int) holds[k].socket, node = unit_node[u];
			cosched_decision_node_t *dn = cosched_decision_node(
				&d, node_record_table_ptr[node]->name, &err);
			int s = u - unit_first[node];
			if (!dn)
				continue;
			if (ctl_conf.scope == COSCHED_SCOPE_NODE) {
				for (int x = 0; x < node_record_table_ptr[node]->tot_sockets; x++)
					cosched_idset_add(&dn->sockets, x, NULL);
			} else {
				cosched_idset_add(&dn->sockets, s, NULL);
				/* One NUMA node per socket as slurmctld sees
				 * it; the node maps it to its own topology. */
				cosched_idset_add(&dn->numa, s, NULL);
			}
		}
		xfree(holds);
	}
	/* Cores, from job_resources. */
	if (job_ptr->job_resrcs && job_ptr->job_resrcs->core_bitmap) {
		job_resources_t *jr = job_ptr->job_resrcs;
		node_record_t *node_ptr;
		for (int i = 0, j = 0; (node_ptr = next_node(&i)); i++) {
			cosched_decision_node_t *dn;
			if (i >= (int) bit_size(jr->node_bitmap) ||
			    !bit_test(jr->node_bitmap, i))
				continue;
			dn = cosched_decision_node(&d, node_ptr->name, &err);
			for (int s = 0; dn && s < node_ptr->tot_sockets; s++)
				for (int c = 0; c < node_ptr->cores; c++)
					if (get_job_resources_bit(jr, j, s, c) == 1)
						cosched_idset_add(&dn->cores,
							s * node_ptr->cores + c, NULL);
			j++;
		}
	}
	if (v.kind == KIND_OFF) {
		cosched_decision_set_reason(&d, "--cosched=off: counted as used cores, never as a co-runner");
		_enter(job_ptr, NULL);
	} else {
		/* --cosched-numa=high: strict; low: preferred (its pages
		 * may move first); neither: the site's MemBind=. */
		d.membind = v.opts.numa == COSCHED_NUMA_LOW ?
			    COSCHED_MEMBIND_PREFER :
			    v.opts.numa == COSCHED_NUMA_HIGH ?
			    COSCHED_MEMBIND_BIND : ctl_conf.membind;
		_enter(job_ptr, &d);
		h = cosched_occupancy_holds(occ, job_ptr->job_id, &nh);
		if (h) {
			_decide_power(&v, &d, h, nh);
			d.slowdown = _predict(&v, h, nh);
			_refresh_neighbours(h, nh, job_ptr->job_id);
		}
		if (v.kind == KIND_PASS)
			snprintf(note, sizeof(note), "%s", v.note);
		else if (ctl_conf.policy_none)
			snprintf(note, sizeof(note), "CoschedPolicy=none: placed by cons_tres%s%s",
				 v.note[0] ? "; " : "", v.note);
		else
			snprintf(note, sizeof(note), "%s class %s from %s%s%s%s",
				 cosched_policy_name(ctl_conf.policy),
				 cosched_category_name(v.cls.cat),
				 cosched_class_source_name(v.cls.source),
				 v.kind == KIND_WIDE ? "; whole sockets" : "",
				 v.note[0] ? "; " : "", v.note);
		if (lenient_job_id == job_ptr->job_id) {
			/* The lenient fallback placed it: the class and its
			 * source first (they decide), then why no socket
			 * accepted it ("lenient <policy>: ..."). */
			cosched_decision_set_reason(&d, "%s; %s", note,
						    lenient_why);
			lenient_job_id = 0;
		} else {
			cosched_decision_set_reason(&d, "%s", note);
		}
	}
	_record_write(job_ptr, &d);
	_check("job begin");
out:
	_begin_end_done(c0);
	pthread_mutex_unlock(&ctl_mutex);
}

void cosched_ctl_job_fini(job_record_t *job_ptr)
{
	cosched_decision_t d;
	int have;
	double c0;

	if (!ctl_on)
		return;
	pthread_mutex_lock(&ctl_mutex);
	c0 = _begin_end_start();
	if (!_ensure_state()) {
		const cosched_hold_t *h;
		cosched_hold_t *held = NULL;
		size_t nh = 0;
		bool maybe_wide = false;
		h = cosched_occupancy_holds(occ, job_ptr->job_id, &nh);
		/* Only a job holding two units of one node can be a wide job
		 * that closed them; parse its record only then (the parse
		 * is most of a job's cost in the controller). */
		for (size_t k = 1; h && k < nh; k++)
			if (unit_node[h[k].socket] == unit_node[h[k - 1].socket])
				maybe_wide = true;
		have = maybe_wide && _record(job_ptr, &d) == 1;
		if (h && nh)
			held = xcalloc(nh, sizeof(*held));
		if (held)
			memcpy(held, h, nh * sizeof(*held));
		_leave(job_ptr, have ? &d : NULL);
		if (held)
			_refresh_neighbours(held, nh, job_ptr->job_id);
		xfree(held);
		_check("job end");
	}
	_begin_end_done(c0);
	pthread_mutex_unlock(&ctl_mutex);
}

/* An indefinitely suspended job gives its cores back (cons_tres frees
 * them); a gang-scheduled (time-sliced) one keeps them. */
void cosched_ctl_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	if (indf_susp)
		cosched_ctl_job_fini(job_ptr);
}

void cosched_ctl_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	cosched_decision_t d;

	if (!ctl_on || !indf_susp)
		return;
	pthread_mutex_lock(&ctl_mutex);
	if (!_ensure_state() &&
	    !cosched_occupancy_has(occ, job_ptr->job_id, NULL))
		_enter(job_ptr, _record(job_ptr, &d) == 1 ? &d : NULL);
	pthread_mutex_unlock(&ctl_mutex);
}

void cosched_ctl_job_resized(job_record_t *job_ptr)
{
	cosched_decision_t d;

	if (!ctl_on)
		return;
	pthread_mutex_lock(&ctl_mutex);
	if (!_ensure_state()) {
		int have = _record(job_ptr, &d) == 1;
		_leave(job_ptr, have ? &d : NULL);
		_enter(job_ptr, have ? &d : NULL);
	}
	pthread_mutex_unlock(&ctl_mutex);
}
