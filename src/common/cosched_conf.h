/*
 * cosched_conf.h - cosched.conf, the site configuration of the decision core.
 *
 * Format as slurm.conf: one "Key=Value" per line, '#' starts a comment,
 * keys are case-insensitive.  An unknown key is an error naming file:line
 * and the key; a value out of range is an error naming the key and the
 * value.  Every key, its default, its range and its source (seed and
 * section) are listed in cosched.conf(5).
 */
#ifndef COSCHED_CONF_H
#define COSCHED_CONF_H

#include "cosched_classify.h"
#include "cosched_error.h"
#include "cosched_interference.h"
#include "cosched_options.h"
#include "cosched_profile.h"
#include "cosched_store.h"

/* The five gang policies of seed 002 "The five schedulers" (CoschedPolicy=). */
typedef enum {
	COSCHED_POLICY_GANG = 0,		/* "gang" */
	COSCHED_POLICY_GREEDY_THREAD,		/* "greedy_thread" */
	COSCHED_POLICY_MISS_RATE_BALANCE,	/* "miss_rate_balance" */
	COSCHED_POLICY_MISS_RATE_BOUND,		/* "miss_rate_bound" */
	COSCHED_POLICY_APP_AWARE,		/* "app_aware" */
	COSCHED_POLICY_COUNT
} cosched_policy_t;

/* Defaults (seed 002 "Miss-Rate Bound": T = 12.0, a = 1/2). */
#define COSCHED_CONF_DEFAULT_POLICY		COSCHED_POLICY_APP_AWARE
#define COSCHED_CONF_DEFAULT_MRB_THRESHOLD	12.0
#define COSCHED_CONF_DEFAULT_MRB_WEIGHT		0.5
#define COSCHED_CONF_DEFAULT_POWER_POLICY	COSCHED_POWER_PERFORMANCE
#define COSCHED_CONF_DEFAULT_PROFILE_DIR	"/var/lib/cosched/profiles"
/* Seed 002 "Power model": the package's full STREAM bandwidth ~15000 MB/s. */
#define COSCHED_CONF_DEFAULT_NODE_PEAK_BW_MBS	15000.0

typedef struct {
	cosched_classify_conf_t classify;	/* Classify*, Lca*, CorePeak* */
	double node_peak_bw_mbs;		/* NodePeakBandwidth */
	char profile_dir[COSCHED_PATH_MAX];		/* ProfileDir */
	double profile_merge_weight;		/* ProfileMergeWeight */
	int profile_max_samples;		/* ProfileMaxSamples */
	cosched_interference_model_t interference; /* Interference, PreferenceTable */
	cosched_policy_t policy;		/* CoschedPolicy */
	double mrb_threshold;			/* MissRateBoundThreshold */
	double mrb_weight;			/* MissRateBoundWeight */
	cosched_power_policy_t power_policy;	/* PowerPolicy (never UNSET) */
	double max_slowdown_pct;		/* MaxSlowdown, percent */
} cosched_conf_t;

/* All defaults. */
void cosched_conf_init(cosched_conf_t *conf);

/*
 * Apply one "Key=Value" setting (key case-insensitive).  where names the
 * source for messages (e.g. "cosched.conf:12"; may be NULL).  On error
 * conf is unchanged.
 */
int cosched_conf_set(cosched_conf_t *conf, const char *where, const char *key,
		     const char *value, cosched_error_t *err);

/*
 * Parse text (the contents of a file called name) over conf's current
 * values, then check consistency across keys.  All or nothing: on any
 * error conf is unchanged and err names name:line.
 */
int cosched_conf_parse_string(cosched_conf_t *conf, const char *name,
			      const char *text, cosched_error_t *err);
/* Read and parse a file (all or nothing). */
int cosched_conf_parse_file(cosched_conf_t *conf, const char *path,
			    cosched_error_t *err);

/* Consistency across keys (e.g. LcaBeta < LcaAlpha). */
int cosched_conf_check(const cosched_conf_t *conf, cosched_error_t *err);

/* The merge parameters for the profile store (weight, bound, node peak). */
void cosched_conf_merge_params(const cosched_conf_t *conf,
			       cosched_merge_params_t *mp);

const char *cosched_policy_name(cosched_policy_t p);
/* Case-insensitive: gang, greedy_thread, miss_rate_balance,
 * miss_rate_bound, app_aware. */
int cosched_policy_parse(const char *field, const char *str,
			 cosched_policy_t *out, cosched_error_t *err);

#endif
