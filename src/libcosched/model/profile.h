/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile.h - an application's measured profile.
 *
 * A profile aggregates the runs of one application (by name): the raw
 * counters of each run (kept up to a bound, oldest dropped first), an
 * exponentially weighted moving average of the derived metrics the
 * classifiers use ("Metrics" of both "Effects of co-scheduling applications
 * on multicore architectures", diploma thesis, NTUA CSLab, 2014, and
 * "Power-aware gang scheduling on multicore", diploma thesis, NTUA CSLab,
 * 2013), and the EDP points (threads x frequency -> time, energy) the power
 * choices read (the 2013 gang-scheduling thesis, "Threads vs EDP", "DVFS
 * model").
 *
 * Unmeasured values are NAN (counters this machine lacks: memory traffic,
 * cache-to-core traffic, mem_uops, RAPL domains); in JSON they are absent
 * or null.  A missing frequency is 0.
 *
 * The JSON form is in store/profile_json.h.
 *
 * Units: bandwidth in bytes per second (1 MB/s = 1e6 bytes/s, as the seeds
 * quote MB/s), energy in joules, time in seconds, frequency in kHz.
 */
#ifndef COSCHED_PROFILE_H
#define COSCHED_PROFILE_H

#include <stdbool.h>

#include "src/libcosched/base/appname.h"
#include "src/libcosched/model/corun.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/base/number.h"

/* Version 2 added the optional "characterisation" (a characterisation by
 * co-run, model/corun.h).  Version 3 lets a run have no counter values
 * (instructions, cycles and llc_misses all null: measured where no
 * hardware counters exist) and adds "counters", why the last run had none.
 * A profile is written in the lowest version that holds it (2 unless it
 * has such a run or note), so that an older cosched still reads the
 * profiles it could hold.  Version 4 adds "owner_uid", the user whose
 * runs may be merged into it (cosched_profile_may_merge); versions 1 to 4
 * are read. */
#define COSCHED_PROFILE_SCHEMA_VERSION 4
#define COSCHED_PROFILE_SCHEMA_VERSION_MIN 1
/* Longest "counters" note kept. */
#define COSCHED_PROFILE_COUNTERS_MAX 200

/*
 * Largest count a profile keeps (runs_merged, an EDP point's samples):
 * 2^53 - 1, the largest integer every JSON reader holds exactly.  Counts
 * saturate there instead of wrapping, and the loader refuses larger ones,
 * so a profile once written can always be read and merged again.
 */
#define COSCHED_PROFILE_COUNT_MAX 9007199254740991ULL

/* The 2014 co-scheduling thesis, "Metrics": every transfer is one 64-byte cache
 * line. */
#define COSCHED_CACHE_LINE_BYTES 64.0
/* The seeds quote bandwidth in MB/s; one MB is 1e6 bytes. */
#define COSCHED_BYTES_PER_MB 1e6

/* Default and largest bound on raw runs kept per profile. */
#define COSCHED_PROFILE_MAX_SAMPLES_DEFAULT 32
#define COSCHED_PROFILE_MAX_SAMPLES_LIMIT 4096
/* Default EWMA weight of a new run (ProfileMergeWeight). */
#define COSCHED_PROFILE_MERGE_WEIGHT_DEFAULT 0.25
/* Default shortest run merged, seconds (ProfileMinRuntime): one default
 * SampleInterval, so a merged run was sampled at least once while it
 * ran. */
#define COSCHED_PROFILE_MIN_RUNTIME_DEFAULT 1.0
/* Bound on distinct (threads, frequency) EDP points per profile: 8 thread
 * counts x 11 frequencies is the whole sweep of the 2013 gang-scheduling
 * thesis; leave room. */
#define COSCHED_PROFILE_MAX_EDP_POINTS 1024

/* One measured run (all threads of the job together).  The three
 * counter values are all NAN where the run had no hardware counters. */
typedef struct {
	double instructions;		/* retired */
	double cycles;			/* unhalted core cycles, summed over threads */
	double llc_misses;
	double mem_bytes_per_s;		/* memory traffic; NAN = not measured */
	double llc_to_core_bytes_per_s;	/* L3->L2 traffic; NAN = not measured */
	double mem_uops_fraction;	/* mem_uops / all_uops; NAN = not measured */
	double energy_pkg_j;		/* RAPL PKG; NAN = not measured */
	double energy_cores_j;		/* RAPL PP0; NAN = not measured */
	double energy_dram_j;		/* RAPL DRAM; NAN = not measured */
	double runtime_s;		/* > 0 */
	int threads;			/* >= 1 */
	long freq_khz;			/* 0 = unknown */
} cosched_run_t;

/*
 * Derived metrics (one run's, or the EWMA over runs).  NAN = unknown.
 * Bandwidths are for the whole job; the _per_thread forms divide by its
 * threads, which is what the per-core thresholds of the 2014 co-scheduling
 * thesis compare against.
 */
typedef struct {
	double ipc;			/* instructions / cycles */
	double mpki;			/* LLC misses per 1000 instructions */
	double llc_miss_bw;		/* LLC misses x 64 / runtime */
	double mem_traffic_bw;		/* measured memory traffic */
	double llc_to_core_bw;		/* measured L3->L2 traffic */
	double llc_miss_bw_per_thread;
	double mem_traffic_bw_per_thread;
	double llc_to_core_bw_per_thread;
	double mem_uops_fraction;
	double bw_fraction;		/* preferred bandwidth / node peak */
	double threads;			/* mean thread count */
	double power_w;			/* (PKG + DRAM) / runtime */
} cosched_derived_t;

/* One EDP point: the 2013 gang-scheduling thesis, "Threads vs EDP" (energy =
 * PKG + DRAM, i.e. core + uncore + DRAM as the 2013 gang-scheduling thesis,
 * "Metrics" counts it). */
typedef struct {
	int threads;
	long freq_khz;			/* 0 = unknown */
	double time_s;			/* EWMA */
	double energy_j;		/* EWMA; NAN = not measured */
	unsigned long samples;		/* 1 .. COSCHED_PROFILE_COUNT_MAX */
} cosched_edp_point_t;

typedef struct {
	char app[COSCHED_APP_NAME_MAX + 1];
	unsigned long runs_merged;	/* every run ever merged, up to
					 * COSCHED_PROFILE_COUNT_MAX */
	cosched_derived_t derived;	/* EWMA; all NAN before the first run */
	int n_runs;			/* kept raw runs, oldest first */
	cosched_run_t *runs;
	int n_edp;
	cosched_edp_point_t *edp;	/* sorted by threads, then frequency */
	cosched_corun_t corun;		/* characterised by co-run, where
					 * corun.present (cosched-characterise) */
	char counters[COSCHED_PROFILE_COUNTERS_MAX + 1];
					/* "" when the last run merged counted;
					 * else why it had no counters
					 * ("unavailable: REASON") */
	long owner_uid;			/* whose runs merge in; -1: none
					 * recorded (before version 4) */
} cosched_profile_t;

/* How a run is merged (ProfileMergeWeight, ProfileMaxSamples,
 * ProfileMinRuntime, NodePeakBandwidth in cosched.conf). */
typedef struct {
	double weight;			/* 0 < weight <= 1: new = w x run + (1 - w) x old */
	int max_samples;		/* 1 .. COSCHED_PROFILE_MAX_SAMPLES_LIMIT */
	double min_runtime_s;		/* shorter runs are not merged; 0: all */
	double node_peak_bw;		/* bytes/s; <= 0 = unknown (no bw_fraction) */
} cosched_merge_params_t;

/* The ranges of ProfileMergeWeight (0, 1], ProfileMaxSamples
 * [1, COSCHED_PROFILE_MAX_SAMPLES_LIMIT] and ProfileMinRuntime
 * [0, 86400] seconds. */
extern const cosched_range_t cosched_merge_weight_range;
extern const cosched_range_t cosched_max_samples_range;
extern const cosched_range_t cosched_min_runtime_range;

void cosched_merge_params_default(cosched_merge_params_t *mp);
int cosched_merge_params_check(const cosched_merge_params_t *mp,
			       cosched_error_t *err);

/* A run with every value unmeasured (NAN / 0). */
void cosched_run_init(cosched_run_t *run);
/* Whether the run has its counter values (instructions, cycles,
 * llc_misses); cosched_run_check() allows all or none. */
bool cosched_run_counted(const cosched_run_t *run);
/* Whether a run is long enough to merge (mp->min_runtime_s): 0, or -1
 * with "ran T s, under ProfileMinRuntime=M s" in err.  A shorter run
 * measured its start (loading, first page faults, a failed open) more
 * than its work, and its time would make the EDP point of its frequency
 * look fast.  cosched_profile_add_run applies it; a writer calls it
 * first to skip the store when the run would not go in. */
int cosched_run_long_enough(const cosched_run_t *run,
			    const cosched_merge_params_t *mp,
			    cosched_error_t *err);
/* Check a run's values; field prefixes the message (e.g. "runs[2]"). */
int cosched_run_check(const char *field, const cosched_run_t *run,
		      cosched_error_t *err);
/* The derived metrics of one run.  node_peak_bw in bytes/s (<= 0: unknown). */
void cosched_run_derive(const cosched_run_t *run, double node_peak_bw,
			cosched_derived_t *out);

/* The bandwidth the classifiers use: measured memory traffic where the
 * machine has it, else the LLC-miss estimate (the 2014 co-scheduling thesis,
 * "Metrics": LLC-miss bandwidth undercounts prefetched streams).  NAN when
 * neither is known. */
double cosched_derived_mem_bw(const cosched_derived_t *d);
double cosched_derived_mem_bw_per_thread(const cosched_derived_t *d);

/* An empty profile for a valid application name. */
int cosched_profile_init(cosched_profile_t *p, const char *app,
			 cosched_error_t *err);
void cosched_profile_free(cosched_profile_t *p);

/*
 * Whether a run of a job of user uid may be merged into p (NULL: there is
 * no profile yet): root's runs always; otherwise the profile's owner's,
 * or anyone's when the site shares the application (shared: cosched.conf
 * ProfileShare=).  A new profile (no owner, no run) is the first
 * merging user's: cosched_profile_claim.  One with runs and no owner
 * (root's runs made it, or it was written before version 4) is the
 * site's: no user claims it.  Root's profiles stay without an owner, so
 * that they are written in the version they were before.  -1 with
 * err saying whose it is and how a site shares it.  Why: a profile steers
 * every later job of the application (its class, its frequency), so one
 * user's runs must not reshape another's.
 */
int cosched_profile_may_merge(const cosched_profile_t *p, long uid,
			      bool shared, cosched_error_t *err);
/* Record uid as p's owner when p is new (no owner, no run: call it
 * before merging the run); root's runs claim nothing, and a profile with
 * runs but no owner stays the site's. */
void cosched_profile_claim(cosched_profile_t *p, long uid);
/*
 * Whether a profile owned by owner_uid may classify and clock a job of
 * uid: the user's own, the site's (no owner, or root), or anyone's when
 * the site shares the application (shared).  Why: a name is anyone's to run under, so a
 * profile one user made under another's application name must not decide
 * that other's class and frequency.
 */
bool cosched_profile_serves(long owner_uid, long uid, bool shared);

/*
 * A profile's key in the store (the stem of its file, store/store.h):
 * the application's name for the site's profile, a shared one, or one a
 * user owned before users had profiles of their own; "APP@UID" for user
 * UID's own profile of APP.  '@' is in no application name, so a user's
 * key never names another profile, and a release that keys profiles by
 * application name only passes over such files (it skips a name that is
 * not an application's).  Why per user: a name is anyone's to run under;
 * the first user to run under it must not keep the others from
 * profiles of their own.
 */
#define COSCHED_PROFILE_UID_MAX 4294967294L	/* as "owner_uid" in JSON */
#define COSCHED_PROFILE_KEY_MAX (COSCHED_APP_NAME_MAX + 11)
/* uid's own key of app (uid 1 .. COSCHED_PROFILE_UID_MAX), or app itself
 * (uid <= 0: root's runs make the site's profile). */
void cosched_profile_key(char out[COSCHED_PROFILE_KEY_MAX + 1],
			 const char *app, long uid);
/* Split a key into app and uid (0 for an application's own key); -1 with
 * err (field prefixing it) for anything else, e.g. a uid with a leading
 * zero, so that one profile has one key. */
int cosched_profile_key_parse(const char *field, const char *key,
			      char app[COSCHED_APP_NAME_MAX + 1], long *uid,
			      cosched_error_t *err);
/*
 * The profile that classifies and clocks a job of uid running app, in
 * order: uid's own (key APP@UID), then the application's (key APP) where
 * it serves uid (cosched_profile_serves: the site's, a shared one, or
 * uid's from before per-user keys).  find(ctx, key, &owner_uid) looks a
 * key up: 1 when found (the caller keeps what it found), else 0.
 * Returns 1 when a profile serves (the last one find found), else 0:
 * the job goes by its declared class.
 */
typedef int (*cosched_profile_find_fn)(void *ctx, const char *key,
				       long *owner_uid);
int cosched_profile_find_for(const char *app, long uid, bool shared,
			     cosched_profile_find_fn find, void *ctx);
/* Deep copy into an uninitialised dst. */
int cosched_profile_copy(cosched_profile_t *dst, const cosched_profile_t *src,
			 cosched_error_t *err);
/* Whether the profile holds measurements (at least one run merged). */
bool cosched_profile_has_data(const cosched_profile_t *p);
/* Whether it gives a class: measured runs, or a characterisation by
 * co-run that decided a category. */
bool cosched_profile_has_class(const cosched_profile_t *p);

/* Merge one run: checks it, EWMA of derived metrics and of its EDP point,
 * keeps at most mp->max_samples raw runs, counts saturate at
 * COSCHED_PROFILE_COUNT_MAX.  p is unchanged on error. */
int cosched_profile_add_run(cosched_profile_t *p, const cosched_run_t *run,
			    const cosched_merge_params_t *mp,
			    cosched_error_t *err);

/* The EDP point for (threads, freq_khz), or NULL. */
const cosched_edp_point_t *cosched_profile_edp_find(const cosched_profile_t *p,
						    int threads, long freq_khz);

#endif
