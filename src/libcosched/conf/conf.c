/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf.c - parse cosched.conf (slurm.conf style Key=Value lines).
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/libcosched/base/appname.h"
#include "src/libcosched/conf/conf.h"
#include "src/libcosched/conf/conf_internal.h"
#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"

/* Largest cosched.conf accepted (a configuration, not a data file). */
#define CONF_MAX_BYTES (1024 * 1024)

/* NodePeakBandwidth, MB/s: more than any node has, finite. */
static const cosched_range_t node_peak_bw_range = { 0.0, 1e8, true };

/* ProfileCacheRefresh and LiveLoadRefresh, seconds; GangMaxApps, 0 (the
 * policy's own bound) .. the largest capacity; SampleInterval, seconds. */
static const cosched_range_t profile_refresh_range = { 1.0, 3600.0, false };
static const cosched_range_t max_apps_range = {
	0.0, (double)COSCHED_GANG_MAX_CAPACITY, false };
static const cosched_range_t sample_interval_range = { 0.05, 3600.0, false };

/* The NUMA manager's Numa* keys. */
static const cosched_range_t numa_batch_range = { 1.0, 65536.0, false };
static const cosched_range_t numa_rate_range = { 1.0, 1e8, false };
static const cosched_range_t numa_freeze_range = { 0.0, 86400.0, false };
static const cosched_range_t numa_scan_range = { 0.05, 3600.0, false };
static const cosched_range_t numa_high_scans_range = { 1.0, 100.0, false };
static const cosched_range_t numa_high_moves_range = { 0.0, 1000.0, false };

/* InterferenceMinSamples; InterferenceHalfLife, days. */
static const cosched_range_t interference_min_samples_range = {
	1.0, 1e6, false };
static const cosched_range_t interference_half_life_range = {
	0.0, 3650.0, false };

static const char *const placement_modes[] = { "lenient", "strict" };
static const char *const interference_sources[COSCHED_ISOURCE_COUNT] = {
	"configured", "learned", "calibrated"
};

const char *cosched_interference_source_name(cosched_interference_source_t s)
{
	return s < COSCHED_ISOURCE_COUNT ? interference_sources[s] : "?";
}
static const char *const yes_no[] = { "no", "yes" };
/* MemBind=: the membind of a job that did not say --cosched-numa. */
static const char *const membind_modes[] = { "bind", "prefer" };

void cosched_conf_init(cosched_conf_t *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->privacy.owner = -1;
	cosched_classify_conf_default(&conf->classify);
	conf->node_peak_bw_mbs = COSCHED_CONF_DEFAULT_NODE_PEAK_BW_MBS;
	snprintf(conf->profile_dir, sizeof(conf->profile_dir), "%s",
		 COSCHED_STORE_DIR_DEFAULT);
	conf->profile_merge_weight = COSCHED_PROFILE_MERGE_WEIGHT_DEFAULT;
	conf->profile_max_samples = COSCHED_PROFILE_MAX_SAMPLES_DEFAULT;
	conf->profile_min_runtime_s = COSCHED_PROFILE_MIN_RUNTIME_DEFAULT;
	cosched_interference_default(&conf->interference);
	conf->policy = COSCHED_POLICY_DEFAULT;
	conf->scope = COSCHED_SCOPE_SOCKET;
	conf->default_class = COSCHED_CAT_UNKNOWN;
	conf->profile_refresh_s = COSCHED_PROFILE_REFRESH_DEFAULT;
	conf->live_loads = true;
	conf->record_admin_comment = true;
	conf->record_in_launch = true;
	conf->live_refresh_s = COSCHED_LIVE_REFRESH_DEFAULT;
	conf->mrb_threshold = COSCHED_MRB_THRESHOLD_DEFAULT;
	conf->mrb_weight = COSCHED_MRB_WEIGHT_DEFAULT;
	conf->pack_demand = COSCHED_PACK_DEMAND_DEFAULT;
	conf->power_policy = COSCHED_POWER_POLICY_DEFAULT;
	conf->max_slowdown_pct = COSCHED_MAX_SLOWDOWN_PCT_DEFAULT;
	conf->corun_slowdown_pct = COSCHED_CORUN_SLOWDOWN_PCT_DEFAULT;
	conf->freq_rule = COSCHED_FREQ_RULE_MAX_REQUEST;
	conf->enforce_cores = true;
	conf->enforce_membind = true;
	conf->enforce_cpufreq = true;
	snprintf(conf->freq_default_governor,
		 sizeof(conf->freq_default_governor), "%s",
		 COSCHED_FREQ_DEFAULT_GOVERNOR);
	/* Preferred by default: strict binding of a job whose memory
	 * outgrows its local nodes would fail it; --cosched-numa=high asks
	 * for strict. */
	conf->membind = COSCHED_MEMBIND_PREFER;
	snprintf(conf->sysfs_root, sizeof(conf->sysfs_root), "/");
	snprintf(conf->topology, sizeof(conf->topology), "%s",
		 COSCHED_TOPOLOGY_SYSTEM);
	conf->profile_jobs = true;
	conf->interference_min_samples = COSCHED_INTERFERENCE_MIN_SAMPLES_DEFAULT;
	conf->interference_half_life_days =
		COSCHED_INTERFERENCE_HALF_LIFE_DAYS_DEFAULT;
	conf->sample_interval_s = COSCHED_SAMPLE_INTERVAL_DEFAULT;
	snprintf(conf->sample_events, sizeof(conf->sample_events), "%s",
		 COSCHED_SAMPLE_EVENTS_DEFAULT);
	snprintf(conf->sample_backend, sizeof(conf->sample_backend), "perf");
	snprintf(conf->sampler_program, sizeof(conf->sampler_program), "%s",
		 COSCHED_SAMPLER_PROGRAM_DEFAULT);
	snprintf(conf->numa.socket, sizeof(conf->numa.socket), "%s",
		 COSCHED_NUMA_SOCKET_DEFAULT);
	snprintf(conf->numa.state_dir, sizeof(conf->numa.state_dir), "%s",
		 COSCHED_NUMA_STATE_DIR_DEFAULT);
	snprintf(conf->numa.step_dir, sizeof(conf->numa.step_dir), "%s",
		 COSCHED_NUMA_STEP_DIR_DEFAULT);
	conf->numa.batch_pages = COSCHED_NUMA_BATCH_PAGES_DEFAULT;
	conf->numa.pages_per_second = COSCHED_NUMA_PAGES_PER_SECOND_DEFAULT;
	conf->numa.freeze_window_s = COSCHED_NUMA_FREEZE_WINDOW_DEFAULT;
	conf->numa.scan_interval_s = COSCHED_NUMA_SCAN_INTERVAL_DEFAULT;
	conf->numa.high_scans = COSCHED_NUMA_HIGH_SCANS_DEFAULT;
	conf->numa.high_moves = COSCHED_NUMA_HIGH_MOVES_DEFAULT;
}

void cosched_conf_merge_params(const cosched_conf_t *conf,
			       cosched_merge_params_t *mp)
{
	mp->weight = conf->profile_merge_weight;
	mp->max_samples = conf->profile_max_samples;
	mp->min_runtime_s = conf->profile_min_runtime_s;
	mp->node_peak_bw = conf->node_peak_bw_mbs * COSCHED_BYTES_PER_MB;
}

/* --- the keys ----------------------------------------------------------- */

enum key_type {
	K_NUMBER,	/* a double in *range */
	K_INTEGER,	/* an int in *range */
	K_CLASSIFY,	/* a threshold: range in model/classify.c */
	K_PATH, K_POLICY, K_POWER, K_INTERFERENCE, K_PREFERENCE,
	K_SLOWDOWN,	/* MaxSlowdown: cosched_max_slowdown_check */
	K_CORUN,	/* MaxCorunSlowdown: the same form, set once */
	K_FREQ_RULE,	/* FreqDomainRule: max_request | min_edp_sum */
	K_SCOPE, K_MODE, K_CLASS, K_DEBUG,
	K_ISOURCE,	/* InterferenceSource */
	K_BOOL,		/* yes | no */
	K_MEMBIND,	/* bind | prefer */
	K_GOVERNOR,	/* a cpufreq governor's name */
	K_ROOT,		/* SysfsRoot: "/" or a directory (may hold %n) */
	K_TOPOLOGY,	/* system | synthetic:DESC | xml:/PATH */
	K_EVENTS,	/* SampleEvents: NAME[,NAME...] */
	K_EVENTS_FOR,	/* SampleEventsFor: VENDOR[-FAMILY[-MODEL]]:NAME[,...] */
	K_BACKEND,	/* SampleBackend: perf | papi | auto | test:/PATH */
	K_PROGRAM,	/* an absolute path of a program */
	K_SHARE		/* ProfileShare: APP[,APP...] | * */
};

typedef struct {
	const char *name;
	enum key_type type;
	size_t offset;
	const cosched_range_t *range;	/* K_NUMBER, K_INTEGER */
} conf_key_t;

/* List keys: each line adds entries (cosched.conf(5)); every other key
 * may be given once. */
static bool repeatable(const conf_key_t *k)
{
	return k->type == K_INTERFERENCE || k->type == K_PREFERENCE ||
	       k->type == K_EVENTS_FOR;
}

#define OFF(f) offsetof(cosched_conf_t, f)

/*
 * Ranges and sources are documented in cosched.conf(5).  Each quantity's
 * range is written once, by the module that owns it: thresholds in
 * model/classify.c, profile merging in model/profile.c, Miss-Rate
 * Bound in policy/gang.c, slowdowns in model/power_policy.c.
 */
static const conf_key_t keys[] = {
	/* "Power-aware gang scheduling on multicore" (NTUA thesis, 2013)
	 * categories (model/classify.c has the derivation). */
	{ "ClassifyMemBandwidthFraction", K_CLASSIFY, OFF(classify), NULL },
	{ "ClassifyMemMPKI", K_CLASSIFY, OFF(classify), NULL },
	{ "ClassifyLimBandwidthFraction", K_CLASSIFY, OFF(classify), NULL },
	{ "ClassifyLimMPKI", K_CLASSIFY, OFF(classify), NULL },
	{ "ClassifyRandReuse", K_CLASSIFY, OFF(classify), NULL },
	{ "ClassifyRandCacheBandwidth", K_CLASSIFY, OFF(classify), NULL },
	/* "Effects of co-scheduling applications on multicore architectures"
	 * (NTUA thesis, 2014), "Classification thresholds". */
	{ "LcaAlpha", K_CLASSIFY, OFF(classify), NULL },
	{ "LcaBeta", K_CLASSIFY, OFF(classify), NULL },
	{ "LcaGamma", K_CLASSIFY, OFF(classify), NULL },
	{ "LcaDelta", K_CLASSIFY, OFF(classify), NULL },
	{ "LcaEpsilon", K_CLASSIFY, OFF(classify), NULL },
	{ "CorePeakBandwidth", K_CLASSIFY, OFF(classify), NULL },
	{ "CorePeakIPC", K_CLASSIFY, OFF(classify), NULL },
	{ "NodePeakBandwidth", K_NUMBER, OFF(node_peak_bw_mbs),
	  &node_peak_bw_range },
	/* Profile store. */
	{ "ProfileDir", K_PATH, OFF(profile_dir), NULL },
	{ "ProfileMergeWeight", K_NUMBER, OFF(profile_merge_weight),
	  &cosched_merge_weight_range },
	{ "ProfileMaxSamples", K_INTEGER, OFF(profile_max_samples),
	  &cosched_max_samples_range },
	{ "ProfileMinRuntime", K_NUMBER, OFF(profile_min_runtime_s),
	  &cosched_min_runtime_range },
	/* Interference model overrides. */
	{ "Interference", K_INTERFERENCE, OFF(interference), NULL },
	{ "PreferenceTable", K_PREFERENCE, OFF(interference.pref), NULL },
	/* The table learned from co-runs (model/learn.h). */
	{ "InterferenceSource", K_ISOURCE, OFF(interference_source), NULL },
	{ "InterferenceMinSamples", K_NUMBER, OFF(interference_min_samples),
	  &interference_min_samples_range },
	{ "InterferenceHalfLife", K_NUMBER, OFF(interference_half_life_days),
	  &interference_half_life_range },
	/* Gang policies and power (the 2013 gang-scheduling thesis, "The five
	 * schedulers", "DVFS model"). */
	{ "CoschedPolicy", K_POLICY, OFF(policy), NULL },
	{ "MissRateBoundThreshold", K_NUMBER, OFF(mrb_threshold),
	  &cosched_mrb_threshold_range },
	{ "MissRateBoundWeight", K_NUMBER, OFF(mrb_weight),
	  &cosched_mrb_weight_range },
	{ "PackDemand", K_NUMBER, OFF(pack_demand), &cosched_pack_demand_range },
	{ "MaxCorunSlowdown", K_CORUN, OFF(corun_slowdown_pct), NULL },
	{ "GangMaxApps", K_INTEGER, OFF(max_apps),
	  &max_apps_range },
	{ "PowerPolicy", K_POWER, OFF(power_policy), NULL },
	{ "MaxSlowdown", K_SLOWDOWN, OFF(max_slowdown_pct), NULL },
	{ "FreqDomainRule", K_FREQ_RULE, OFF(freq_rule), NULL },
	/* The controller (slurmctld). */
	{ "GangScope", K_SCOPE, OFF(scope), NULL },
	{ "PlacementMode", K_MODE, OFF(strict), NULL },
	{ "DefaultClass", K_CLASS, OFF(default_class), NULL },
	{ "DebugFlags", K_DEBUG, OFF(debug_flags), NULL },
	{ "ProfileCacheRefresh", K_INTEGER, OFF(profile_refresh_s),
	  &profile_refresh_range },
	{ "RecordInAdminComment", K_BOOL, OFF(record_admin_comment), NULL },
	/* Both sides: slurmctld writes the launch copy, the nodes trust
	 * it; the samplers publish live loads, slurmctld reads them. */
	{ "RecordInLaunch", K_BOOL, OFF(record_in_launch), NULL },
	{ "LiveLoads", K_BOOL, OFF(live_loads), NULL },
	{ "LiveLoadRefresh", K_INTEGER, OFF(live_refresh_s),
	  &profile_refresh_range },
	/* The node (task/cosched): which parts are on, and where the
	 * hardware is.  MemBind is the controller's too (it writes the
	 * membind of each record). */
	{ "EnforceCores", K_BOOL, OFF(enforce_cores), NULL },
	{ "EnforceMemBind", K_BOOL, OFF(enforce_membind), NULL },
	{ "EnforceCpuFreq", K_BOOL, OFF(enforce_cpufreq), NULL },
	{ "FreqDefaultGovernor", K_GOVERNOR, OFF(freq_default_governor),
	  NULL },
	{ "MemBind", K_MEMBIND, OFF(membind), NULL },
	{ "SysfsRoot", K_ROOT, OFF(sysfs_root), NULL },
	{ "Topology", K_TOPOLOGY, OFF(topology), NULL },
	/* The profiler on the node (task/cosched starts cosched-sampler). */
	{ "ProfileJobs", K_BOOL, OFF(profile_jobs), NULL },
	{ "SampleInterval", K_NUMBER, OFF(sample_interval_s),
	  &sample_interval_range },
	{ "SampleEvents", K_EVENTS, OFF(sample_events), NULL },
	{ "SampleEventsFor", K_EVENTS_FOR, OFF(sample_events_for), NULL },
	{ "SampleBackend", K_BACKEND, OFF(sample_backend), NULL },
	{ "SamplerProgram", K_PROGRAM, OFF(sampler_program), NULL },
	{ "ProfileShare", K_SHARE, OFF(profile_share), NULL },
	/* The NUMA manager (cosched-numad; task/cosched names each step's
	 * processes in NumaStepDir when that directory exists). */
	{ "NumaSocket", K_PATH, OFF(numa.socket), NULL },
	{ "NumaStateDir", K_PATH, OFF(numa.state_dir), NULL },
	{ "NumaStepDir", K_PATH, OFF(numa.step_dir), NULL },
	{ "NumaBatchPages", K_INTEGER, OFF(numa.batch_pages),
	  &numa_batch_range },
	{ "NumaMaxPagesPerSecond", K_INTEGER, OFF(numa.pages_per_second),
	  &numa_rate_range },
	{ "NumaFreezeWindow", K_NUMBER, OFF(numa.freeze_window_s),
	  &numa_freeze_range },
	{ "NumaScanInterval", K_NUMBER, OFF(numa.scan_interval_s),
	  &numa_scan_range },
	{ "NumaHighScans", K_INTEGER, OFF(numa.high_scans),
	  &numa_high_scans_range },
	{ "NumaHighMovesMax", K_INTEGER, OFF(numa.high_moves),
	  &numa_high_moves_range },
	{ "NumaMakeRoom", K_BOOL, OFF(numa.make_room), NULL },
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static const conf_key_t *find_key(const char *name)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (!strcasecmp(name, keys[i].name))
			return &keys[i];
	return NULL;
}

/* Parse the value of a number-valued key (the text is quoted in every
 * message exactly as written). */
static int number_value(const char *field, const char *value, bool integer,
			double *out, cosched_error_t *err)
{
	long v;

	if (integer) {
		if (cosched_parse_long(value, &v))
			return cosched_error_set(err,
				"%s: invalid value %s (expected an integer)",
				field, COSCHED_QUOTE(value));
		*out = (double) v;
		return 0;
	}
	if (cosched_parse_number(value, out))
		return cosched_error_set(err,
			"%s: invalid value %s (expected a number)", field,
			COSCHED_QUOTE(value));
	return 0;
}

/* A name table's "(allowed: a, b)" message, with one more name the key
 * takes besides the table's. */
static int or_also(cosched_error_t *err, const char *name)
{
	char msg[sizeof(err->msg)];
	size_t n;

	snprintf(msg, sizeof(msg), "%s", err->msg);
	n = strlen(msg);
	if (n && msg[n - 1] == ')') {
		msg[n - 1] = '\0';
		return cosched_error_set(err, "%s, %s)", msg, name);
	}
	return cosched_error_set(err, "%s (or %s)", msg, name);
}

/* Apply one key (no "where" in messages: the caller adds it). */
static int set_key(cosched_conf_t *conf, const conf_key_t *k,
		   const char *value, cosched_error_t *err)
{
	void *ptr = (char *) conf + k->offset;
	const char *field = k->name;
	double x;

	if (!*value)
		return cosched_error_set(err, "%s: missing value", field);

	switch (k->type) {
	case K_NUMBER:
	case K_INTEGER:
		if (number_value(field, value, k->type == K_INTEGER, &x, err) ||
		    cosched_range_check(field, k->range, x, value, err))
			return -1;
		if (k->type == K_INTEGER)
			*(int *) ptr = (int) x;	/* in range: fits */
		else
			*(double *) ptr = x;
		return 0;
	case K_CLASSIFY:
		if (number_value(field, value, false, &x, err))
			return -1;
		return cosched_classify_key_set(ptr, k->name, x, value, err);
	case K_SLOWDOWN:
	case K_CORUN:
		switch (cosched_max_slowdown_parse(field, value, &x, err)) {
		case 0:
			*(double *) ptr = x;
			return 0;
		case 1:
			return cosched_error_set(err,
				"%s: invalid value %s (expected a percentage, e.g. 10 or 10%%)",
				field, COSCHED_QUOTE(value));
		default:
			return -1;
		}
	case K_PATH:
		/* Room for "/<key>.json" (a profile's, cosched_profile_key)
		 * and the lock and temporary names. */
		if (cosched_dir_path_check(field, value,
					   COSCHED_PATH_MAX - COSCHED_PROFILE_KEY_MAX - 16,
					   err))
			return -1;
		snprintf((char *) ptr, COSCHED_PATH_MAX, "%s", value);
		return 0;
	case K_POLICY:
		return cosched_policy_parse(field, value, 0,
					    (cosched_policy_t *) ptr, err);
	case K_SCOPE:
		/* Any case, as every name of cosched.conf (the record's
		 * parser, which shares cosched_scope_parse, is strict). */
		for (int i = 0; i < COSCHED_SCOPE_COUNT; i++)
			if (!strcasecmp(value, cosched_scope_name(i))) {
				*(cosched_scope_t *) ptr = (cosched_scope_t) i;
				return 0;
			}
		return cosched_scope_parse(field, value, (cosched_scope_t *) ptr,
					   err);
	case K_MODE: {
		int i = cosched_name_parse(field, "mode", placement_modes, 0, 2,
					   value, true, err);
		if (i < 0)
			return -1;
		*(bool *) ptr = i == 1;
		return 0;
	}
	case K_CLASS: {
		cosched_category_t c;
		if (strcasecmp(value, "unknown") &&
		    cosched_category_parse_nocase(field, value, &c, err))
			return or_also(err, "unknown");
		*(cosched_category_t *) ptr = strcasecmp(value, "unknown") ?
			c : COSCHED_CAT_UNKNOWN;
		return 0;
	}
	case K_DEBUG:
		return conf_debug_flags_parse(field, value, (unsigned *) ptr, err);
	case K_BOOL: {
		int i = cosched_name_parse(field, "value", yes_no, 0, 2, value,
					   true, err);
		if (i < 0)
			return -1;
		*(bool *) ptr = i == 1;
		return 0;
	}
	case K_MEMBIND: {
		int i = cosched_name_parse(field, "mode", membind_modes, 0, 2,
					   value, true, err);
		if (i < 0)
			return -1;
		*(cosched_membind_t *) ptr = i ? COSCHED_MEMBIND_PREFER :
						 COSCHED_MEMBIND_BIND;
		return 0;
	}
	case K_GOVERNOR:
		if (!cosched_decision_governor_ok(value, strlen(value)))
			return cosched_error_set(err,
				"%s: invalid value %s (expected a cpufreq governor's name: [a-z0-9_], at most %d bytes)",
				field, COSCHED_QUOTE(value),
				COSCHED_DECISION_GOVERNOR_MAX);
		snprintf((char *) ptr, COSCHED_DECISION_GOVERNOR_MAX + 1, "%s",
			 value);
		return 0;
	case K_ROOT:
		/* "/" is the machine itself; anything else is a test tree
		 * ("%n": the node's name, as in slurm.conf's paths). */
		if (strcmp(value, "/") &&
		    cosched_dir_path_check(field, value,
					   COSCHED_PATH_MAX - 256, err))
			return -1;
		for (const char *pc = strchr(value, '%'); pc;
		     pc = strchr(pc + 2, '%'))
			if (pc[1] != 'n')
				return cosched_error_set(err,
					"%s: invalid value %s (%%%c: only %%n, the node's name, is replaced)",
					field, COSCHED_QUOTE(value),
					pc[1] ? pc[1] : ' ');
		snprintf((char *) ptr, COSCHED_PATH_MAX, "%s", value);
		return 0;
	case K_EVENTS:
		if (conf_events_check(field, value, value, err))
			return -1;
		snprintf((char *) ptr, COSCHED_SAMPLE_EVENTS_MAX, "%s", value);
		return 0;
	case K_EVENTS_FOR:
		return conf_sample_events_for_set(conf, field, value, err);
	case K_BACKEND:
		/* Whether this node's sampler has PAPI is the node's to say
		 * (cosched-sampler, in each step's record). */
		if (!strcasecmp(value, "perf") || !strcasecmp(value, "papi") ||
		    !strcasecmp(value, "auto")) {
			/* Stored as the node compares it: lower case. */
			char *out = ptr;
			size_t i;

			for (i = 0; value[i]; i++)
				out[i] = (char) tolower((unsigned char) value[i]);
			out[i] = '\0';
			return 0;
		}
		if (strncasecmp(value, "test:", 5) ||
		    cosched_dir_path_check(field, value + 5,
					   COSCHED_PATH_MAX - 256, NULL))
			return cosched_error_set(err,
				"%s: invalid value %s (expected perf, papi, auto or test:/ABSOLUTE/FILE)",
				field, COSCHED_QUOTE(value));
		snprintf((char *) ptr, COSCHED_PATH_MAX, "test:%s", value + 5);
		return 0;
	case K_SHARE:
		if (conf_profile_share_check(field, value, err))
			return -1;
		snprintf((char *) ptr, COSCHED_PROFILE_SHARE_MAX, "%s", value);
		return 0;
	case K_PROGRAM:
		if (cosched_dir_path_check(field, value, COSCHED_PATH_MAX - 1,
					   err))
			return -1;
		snprintf((char *) ptr, COSCHED_PATH_MAX, "%s", value);
		return 0;
	case K_TOPOLOGY:
		if (cosched_topology_source_check(field, value, err))
			return -1;
		snprintf((char *) ptr, COSCHED_TOPOLOGY_SOURCE_MAX + 1, "%s",
			 value);
		return 0;
	case K_POWER: {
		/* The job option's parser (--cosched-power), in any case;
		 * "energy:N%" also sets MaxSlowdown. */
		cosched_power_policy_t p;
		double pct = conf->max_slowdown_pct;
		bool given;
		if (cosched_power_policy_parse(field, value, true, &p, &pct,
					       &given, err))
			return -1;
		*(cosched_power_policy_t *) ptr = p;
		if (given)
			conf->max_slowdown_pct = pct;
		return 0;
	}
	case K_FREQ_RULE:
		return cosched_freq_rule_parse(field, value,
					       (cosched_freq_rule_t *) ptr, err);
	case K_INTERFERENCE: {
		/* Which cells the line gives: the same entries applied to a
		 * table of zeros (no valid slowdown) leave the others 0. */
		cosched_interference_model_t given;

		memset(&given, 0, sizeof(given));
		if (cosched_interference_override(ptr, field, value, err))
			return -1;
		cosched_interference_override(&given, field, value, NULL);
		for (int v = 0; v < COSCHED_LCA_COUNT; v++)
			for (int c = 0; c < COSCHED_LCA_COUNT; c++)
				if (given.slowdown[v][c] > 0.0)
					conf->interference_given |=
						1u << (v * COSCHED_LCA_COUNT + c);
		return 0;
	}
	case K_ISOURCE: {
		int i = cosched_name_parse(field, "source",
					   interference_sources, 0,
					   COSCHED_ISOURCE_COUNT, value, true,
					   err);
		if (i < 0)
			return -1;
		*(cosched_interference_source_t *) ptr =
			(cosched_interference_source_t) i;
		return 0;
	}
	case K_PREFERENCE:
		return cosched_preference_override(ptr, field, value, err);
	}
	return cosched_error_set(err, "%s: internal error", field);
}

int cosched_conf_set(cosched_conf_t *conf, const char *where, const char *key,
		     const char *value, cosched_error_t *err)
{
	cosched_conf_t tmp = *conf;
	const conf_key_t *k;

	if (!key || !*key)
		return cosched_error_set(err, "%s%smissing key",
					 where ? where : "", where ? ": " : "");
	k = find_key(key);
	if (!k)
		return cosched_error_set(err, "%s%sunknown key %s",
					 where ? where : "", where ? ": " : "",
					 COSCHED_QUOTE(key));
	if (set_key(&tmp, k, value ? value : "", err))
		return where ? cosched_error_prefix(err, where) : -1;
	*conf = tmp;
	return 0;
}

int cosched_conf_check(const cosched_conf_t *conf, cosched_error_t *err)
{
	cosched_merge_params_t mp;

	if (cosched_classify_conf_check(&conf->classify, err))
		return -1;
	for (size_t i = 0; i < N_KEYS; i++) {
		const void *ptr = (const char *) conf + keys[i].offset;
		double v;
		if (keys[i].type == K_NUMBER)
			v = *(const double *) ptr;
		else if (keys[i].type == K_INTEGER)
			v = *(const int *) ptr;
		else
			continue;
		if (cosched_range_check(keys[i].name, keys[i].range, v, NULL,
					err))
			return -1;
	}
	cosched_conf_merge_params(conf, &mp);
	if (cosched_merge_params_check(&mp, err))
		return -1;
	if (cosched_max_slowdown_check("MaxSlowdown", NULL,
				       conf->max_slowdown_pct, err))
		return -1;
	if (cosched_policy_check("CoschedPolicy", conf->policy, 0, err))
		return -1;
	if (conf->power_policy <= COSCHED_POWER_UNSET ||
	    conf->power_policy >= COSCHED_POWER_COUNT)
		return cosched_error_set(err, "PowerPolicy: not set");
	return cosched_dir_path_check("ProfileDir", conf->profile_dir,
				      COSCHED_PATH_MAX, err);
}

/*
 * Cut a line's comment: '#' at the start or after a blank starts one,
 * "\#" is a literal '#' (as in slurm.conf), and any other '#' is an error:
 * slurm.conf would cut "ProfileDir=/srv/a#b" at the '#' without a word.
 * Works in place; 0 or -1 with err set.
 */
static int strip_comment(char *line, const char *where, cosched_error_t *err)
{
	char *in = line, *out = line;

	for (; *in; in++) {
		if (in[0] == '\\' && in[1] == '#') {
			*out++ = '#';
			in++;
			continue;
		}
		if (*in == '#') {
			if (in == line || in[-1] == ' ' || in[-1] == '\t')
				break;
			return cosched_error_set(err,
				"%s: '#' inside a value (write \\# for a literal '#', or put a blank before a comment)",
				where);
		}
		*out++ = *in;
	}
	*out = '\0';
	return 0;
}

/* Keys task/cosched and the sampler do not use: slurmctld's placement,
 * power and profile-cache settings, and the NUMA manager's own (all but
 * NumaStepDir, NumaSocket and NumaMakeRoom, which task/cosched uses).  A node's task plugin or
 * sampler reading the file skips such a line when it is wrong
 * (cosched_conf_parse_file_for): slurmctld, or cosched-numad, refuses the
 * whole file, and the administrator sees it there. */
static const char *const ctld_only_keys[] = {
	"CoschedPolicy", "MissRateBoundThreshold", "MissRateBoundWeight",
	"PackDemand", "MaxCorunSlowdown", "GangMaxApps", "PowerPolicy",
	"MaxSlowdown", "GangScope", "PlacementMode",
	"DefaultClass", "DebugFlags", "ProfileCacheRefresh", "LiveLoadRefresh",
	"RecordInAdminComment",
	"Interference", "PreferenceTable", "InterferenceSource",
	"InterferenceMinSamples", "InterferenceHalfLife",
	"NumaStateDir", "NumaBatchPages", "NumaMaxPagesPerSecond",
	"NumaFreezeWindow", "NumaScanInterval", "NumaHighScans",
	"NumaHighMovesMax",
};

static bool ctld_only(const conf_key_t *k)
{
	for (size_t i = 0; k && i < sizeof(ctld_only_keys) /
					sizeof(ctld_only_keys[0]); i++)
		if (!strcmp(k->name, ctld_only_keys[i]))
			return true;
	return false;
}

static int parse_text(cosched_conf_t *conf, const char *name,
		      const char *text, cosched_conf_reader_t reader,
		      cosched_error_t *skipped, cosched_error_t *err)
{
	/* The line each key was set on (0 = not set), for duplicates; the
	 * line each CPU's SampleEventsFor was on. */
	int set_on[N_KEYS] = { 0 };
	int cpu_on[COSCHED_SAMPLE_EVENTS_FOR_MAX] = { 0 };
	int slowdown_line = 0;	/* PowerPolicy=energy:N% or MaxSlowdown= */
	cosched_conf_t *tmp;
	char *copy, *line, *next;
	int lineno = 0, rc = 0;

	if (!name)
		name = "cosched.conf";
	tmp = malloc(sizeof(*tmp));
	copy = strdup(text ? text : "");
	if (!tmp || !copy) {
		free(tmp);
		free(copy);
		return cosched_error_set(err, "%s: out of memory", name);
	}
	*tmp = *conf;
	for (line = copy; line && !rc; line = next) {
		char where[COSCHED_PATH_MAX + 32], *eq, *key, *value;
		const conf_key_t *k;
		size_t vlen, ki;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		snprintf(where, sizeof(where), "%s:%d", name, lineno);
		if ((rc = strip_comment(line, where, err)))
			break;
		line = cosched_trim(line);
		if (!*line)
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			rc = cosched_error_set(err,
				"%s: expected Key=Value, got %s", where,
				COSCHED_QUOTE(line));
			break;
		}
		*eq = '\0';
		key = cosched_trim(line);
		value = cosched_trim(eq + 1);
		vlen = strlen(value);
		if (vlen >= 2 && value[0] == '"' && value[vlen - 1] == '"') {
			value[vlen - 1] = '\0';
			value++;
		}
		k = find_key(key);
		if (k) {
			ki = (size_t) (k - keys);
			if (set_on[ki] && !repeatable(k)) {
				rc = cosched_error_set(err,
					"%s: %s set twice (first on line %d); give it once",
					where, k->name, set_on[ki]);
				if (reader == COSCHED_CONF_READER_NODE &&
				    ctld_only(k)) {
					if (skipped && !skipped->msg[0])
						*skipped = *err;
					rc = 0;
					continue;
				}
				break;
			}
			set_on[ki] = lineno;
		}
		rc = cosched_conf_set(tmp, where, key, value, err);
		if (rc && reader == COSCHED_CONF_READER_NODE && ctld_only(k)) {
			/* Not this reader's: the line is left out. */
			if (skipped && !skipped->msg[0])
				*skipped = *err;
			rc = 0;
			continue;
		}
		/* One list per CPU: a second would silently replace the
		 * first. */
		if (!rc && k && k->type == K_EVENTS_FOR) {
			cosched_sample_events_for_t e;
			int i;

			if (conf_sample_events_for_parse(k->name, value, &e, err) ||
			    (i = conf_sample_events_for_find(tmp, &e)) < 0) {
				rc = -1;	/* cannot be: it was just set */
				break;
			}
			if (cpu_on[i]) {
				rc = cosched_error_set(err,
					"%s: %s: invalid value %s (a list for that CPU is on line %d already: one per CPU)",
					where, k->name, COSCHED_QUOTE(value),
					cpu_on[i]);
				break;
			}
			cpu_on[i] = lineno;
		}
		/* MaxSlowdown= and PowerPolicy=energy:N% both set the
		 * slowdown: two lines would leave one of them ignored. */
		if (!rc && k && (k->type == K_SLOWDOWN ||
				 (k->type == K_POWER && strchr(value, ':')))) {
			if (slowdown_line) {
				rc = cosched_error_set(err,
					"%s: the maximum slowdown is set twice (MaxSlowdown= and PowerPolicy=energy:N%%, first on line %d); give it once",
					where, slowdown_line);
				break;
			}
			slowdown_line = lineno;
		}
	}
	if (!rc && cosched_conf_check(tmp, err))
		rc = cosched_error_prefix(err, name);
	/* slurmctld's only: a node never refuses its file for it. */
	if (!rc && reader == COSCHED_CONF_READER_ALL &&
	    tmp->interference_source == COSCHED_ISOURCE_CALIBRATED &&
	    tmp->interference_given !=
	    (1u << (COSCHED_LCA_COUNT * COSCHED_LCA_COUNT)) - 1)
		rc = cosched_error_set(err,
			"%s: InterferenceSource: calibrated, but Interference= gives %d of the %d class pairs (cosched-calibrate --apply writes all of them)",
			name, __builtin_popcount(tmp->interference_given),
			COSCHED_LCA_COUNT * COSCHED_LCA_COUNT);
	if (!rc)
		*conf = *tmp;
	free(tmp);
	free(copy);
	return rc;
}

int cosched_conf_parse_string(cosched_conf_t *conf, const char *name,
			      const char *text, cosched_error_t *err)
{
	return parse_text(conf, name, text, COSCHED_CONF_READER_ALL, NULL,
			  err);
}

int cosched_conf_parse_string_for(cosched_conf_t *conf, const char *name,
				  const char *text,
				  cosched_conf_reader_t reader,
				  cosched_error_t *skipped,
				  cosched_error_t *err)
{
	if (skipped)
		skipped->msg[0] = '\0';
	return parse_text(conf, name, text, reader, skipped, err);
}

char *cosched_conf_read_text(const char *path, int *missing,
			     cosched_error_t *err)
{
	return cosched_read_file(path, CONF_MAX_BYTES, missing, err);
}

int cosched_conf_parse_file_for(cosched_conf_t *conf, const char *path,
				cosched_conf_reader_t reader,
				cosched_error_t *skipped, cosched_error_t *err)
{
	char *buf = cosched_conf_read_text(path, NULL, err);
	int rc;

	if (skipped)
		skipped->msg[0] = '\0';
	if (!buf)
		return -1;
	rc = parse_text(conf, path, buf, reader, skipped, err);
	free(buf);
	return rc;
}

int cosched_conf_parse_file(cosched_conf_t *conf, const char *path,
			    cosched_error_t *err)
{
	return cosched_conf_parse_file_for(conf, path, COSCHED_CONF_READER_ALL,
					   NULL, err);
}
