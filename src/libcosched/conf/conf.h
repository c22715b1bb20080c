/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf.h - cosched.conf, the site configuration of the decision core.
 *
 * Format as slurm.conf: one "Key=Value" per line, keys case-insensitive,
 * a value may be in double quotes.  '#' starts a comment at the start of a
 * line or after a blank; "\#" is a literal '#'; a '#' glued to a value
 * (ProfileDir=/srv/a#b) is refused rather than silently cutting the value.
 * A key given twice is refused naming both lines (so is MaxSlowdown= next
 * to PowerPolicy=energy:N%, which sets it too).  An unknown key is an error
 * naming file:line and the key; a value out of range is an error naming
 * the key and quoting the value as written.  Every key, its default, its
 * range and its source are listed in cosched.conf(5).
 *
 * Defaults are owned by the modules they configure (classification,
 * profiles, the store, the gang policies, power policies); this file only
 * gathers them.
 */
#ifndef COSCHED_CONF_H
#define COSCHED_CONF_H

#include "src/libcosched/model/classify.h"
#include "src/libcosched/model/decision.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/io/private.h"
#include "src/libcosched/model/interference.h"
#include "src/libcosched/model/policy_name.h"
#include "src/libcosched/conf/policy_params.h"
#include "src/libcosched/model/power.h"
#include "src/libcosched/model/power_policy.h"
#include "src/libcosched/model/profile.h"

/* ProfileDir when cosched.conf sets none (the profile store's directory,
 * store/store.h). */
#define COSCHED_STORE_DIR_DEFAULT "/var/lib/cosched/profiles"

/* DebugFlags= (comma-separated, any case). */
#define COSCHED_DEBUG_PLACEMENT	0x1	/* "Placement": every decision at info */
#define COSCHED_DEBUG_CHECK	0x2	/* "Check": occupancy self-check after
					 * every change */
#define COSCHED_DEBUG_TIMING	0x4	/* "Timing": job_test time statistics */

/* ProfileCacheRefresh=, seconds between rescans of ProfileDir by slurmctld. */
#define COSCHED_PROFILE_REFRESH_DEFAULT 10
/* LiveLoadRefresh=, seconds between reads of ProfileDir/live. */
#define COSCHED_LIVE_REFRESH_DEFAULT 2

/* InterferenceSource=: where the controller's interference table comes
 * from (model/learn.h). */
typedef enum {
	COSCHED_ISOURCE_CONFIGURED = 0,	/* published tables + Interference= */
	COSCHED_ISOURCE_LEARNED,	/* learned cells replace configured ones */
	COSCHED_ISOURCE_CALIBRATED,	/* Interference= must give all 16 cells */
	COSCHED_ISOURCE_COUNT
} cosched_interference_source_t;
const char *cosched_interference_source_name(cosched_interference_source_t s);
/* InterferenceMinSamples=, InterferenceHalfLife= (days). */
#define COSCHED_INTERFERENCE_MIN_SAMPLES_DEFAULT 5.0
#define COSCHED_INTERFERENCE_HALF_LIFE_DAYS_DEFAULT 14.0

/* "Power-aware gang scheduling on multicore" (NTUA thesis, 2013), "Power
 * model": a package's full STREAM bandwidth, MB/s. */
#define COSCHED_CONF_DEFAULT_NODE_PEAK_BW_MBS	15000.0

/* Topology= (the node's topology source, src/node/topology.h). */
#define COSCHED_TOPOLOGY_SOURCE_MAX 1024
/* The machine itself (hwloc's Linux backend), the default. */
#define COSCHED_TOPOLOGY_SYSTEM "system"

/* Check a Topology= value's form: "system", "synthetic:DESCRIPTION" or
 * "xml:/ABSOLUTE/PATH" (what hwloc makes of it is checked when the node
 * loads it).  field names the key in the message, which quotes the
 * value. */
int cosched_topology_source_check(const char *field, const char *source,
				  cosched_error_t *err);

/* The profiler on the node (cosched-sampler, started by task/cosched). */
#define COSCHED_SAMPLE_INTERVAL_DEFAULT 1.0	/* SampleInterval, seconds */
#define COSCHED_SAMPLE_EVENTS_MAX 512
/* Events in one list: what one sampler counts at most (the node's
 * COSCHED_COUNTERS_MAX is this). */
#define COSCHED_SAMPLE_EVENTS_COUNT_MAX 16
/* ProfileShare=APP[,APP...] or "*" (every application). */
#define COSCHED_PROFILE_SHARE_MAX 1024
/* FreqDefaultGovernor: the governor a frequency domain gets back when
 * its original was lost with an unreadable cpufreq journal (what Debian's
 * and most distributions' kernels start their CPUs with). */
#define COSCHED_FREQ_DEFAULT_GOVERNOR "schedutil"
/* Software events count on every Linux machine; the hardware ones where a
 * PMU is (the others say why not in each record). */
#define COSCHED_SAMPLE_EVENTS_DEFAULT \
	"task-clock,context-switches,cycles,instructions,LLC-load-misses"
/*
 * SampleEventsFor=CPU:LIST (repeatable): the event list of the nodes whose
 * CPU is CPU, VENDOR[-FAMILY[-MODEL]] as x86 Linux's /proc/cpuinfo names
 * it (vendor_id, "cpu family", model; decimal): GenuineIntel-6-143,
 * AuthenticAMD-25.  A node takes the entry that names the most of its CPU,
 * else SampleEvents.
 */
#define COSCHED_SAMPLE_EVENTS_FOR_MAX 16
#define COSCHED_CPU_VENDOR_MAX 31
typedef struct {
	char vendor[COSCHED_CPU_VENDOR_MAX + 1];	/* as cpuinfo spells it */
	long family, model;			/* -1: any */
	char events[COSCHED_SAMPLE_EVENTS_MAX];
} cosched_sample_events_for_t;
#ifndef COSCHED_SAMPLER_PROGRAM_DEFAULT	/* configure sets the installed one */
#define COSCHED_SAMPLER_PROGRAM_DEFAULT "/usr/local/libexec/cosched/cosched-sampler"
#endif

/*
 * The node's NUMA manager (cosched-numad(8)): where it listens and keeps
 * its state, where task/cosched names each step's processes for it, and
 * how hard it may move pages.
 */
#define COSCHED_NUMA_SOCKET_DEFAULT "/run/cosched/numad.sock"
#define COSCHED_NUMA_STATE_DIR_DEFAULT "/var/lib/cosched/numad"
#define COSCHED_NUMA_STEP_DIR_DEFAULT "/run/cosched/steps"
#define COSCHED_NUMA_BATCH_PAGES_DEFAULT 256
#define COSCHED_NUMA_PAGES_PER_SECOND_DEFAULT 65536	/* 256 MiB/s of 4 KiB */
#define COSCHED_NUMA_FREEZE_WINDOW_DEFAULT 60.0		/* seconds */
#define COSCHED_NUMA_SCAN_INTERVAL_DEFAULT 5.0		/* seconds */
#define COSCHED_NUMA_HIGH_SCANS_DEFAULT 2
#define COSCHED_NUMA_HIGH_MOVES_DEFAULT 1
typedef struct {
	char socket[COSCHED_PATH_MAX];		/* NumaSocket */
	char state_dir[COSCHED_PATH_MAX];	/* NumaStateDir */
	char step_dir[COSCHED_PATH_MAX];	/* NumaStepDir */
	int batch_pages;			/* NumaBatchPages */
	int pages_per_second;			/* NumaMaxPagesPerSecond */
	double freeze_window_s;			/* NumaFreezeWindow */
	double scan_interval_s;			/* NumaScanInterval */
	int high_scans;				/* NumaHighScans */
	int high_moves;				/* NumaHighMovesMax */
	bool make_room;				/* NumaMakeRoom */
} cosched_numa_conf_t;

typedef struct cosched_conf {
	cosched_classify_conf_t classify;	/* Classify*, Lca*, CorePeak* */
	double node_peak_bw_mbs;		/* NodePeakBandwidth */
	char profile_dir[COSCHED_PATH_MAX];		/* ProfileDir */
	double profile_merge_weight;		/* ProfileMergeWeight */
	int profile_max_samples;		/* ProfileMaxSamples */
	double profile_min_runtime_s;		/* ProfileMinRuntime */
	cosched_interference_model_t interference; /* Interference, PreferenceTable */
	unsigned interference_given;	/* cells Interference= set: bit
					 * victim * COSCHED_LCA_COUNT + corunner */
	cosched_interference_source_t interference_source; /* InterferenceSource */
	double interference_min_samples;	/* InterferenceMinSamples */
	double interference_half_life_days;	/* InterferenceHalfLife */
	cosched_policy_t policy;		/* CoschedPolicy (none: cons_tres
						 * places, cosched records) */
	cosched_scope_t scope;			/* GangScope */
	bool strict;				/* PlacementMode=strict */
	cosched_category_t default_class;	/* DefaultClass */
	unsigned debug_flags;			/* DebugFlags, COSCHED_DEBUG_* */
	int profile_refresh_s;			/* ProfileCacheRefresh */
	bool record_admin_comment;		/* RecordInAdminComment */
	bool record_in_launch;			/* RecordInLaunch (both sides) */
	bool live_loads;			/* LiveLoads (both sides) */
	int live_refresh_s;			/* LiveLoadRefresh */
	double mrb_threshold;			/* MissRateBoundThreshold */
	double mrb_weight;			/* MissRateBoundWeight */
	cosched_power_policy_t power_policy;	/* PowerPolicy (never UNSET) */
	double max_slowdown_pct;		/* MaxSlowdown, percent */
	double pack_demand;			/* PackDemand (min_slowdown) */
	double corun_slowdown_pct;		/* MaxCorunSlowdown, percent */
	int max_apps;				/* GangMaxApps (0: the
						 * policy's own) */
	cosched_freq_rule_t freq_rule;		/* FreqDomainRule (both sides) */
	/* The node side (task/cosched). */
	bool enforce_cores;			/* EnforceCores */
	bool enforce_membind;			/* EnforceMemBind */
	bool enforce_cpufreq;			/* EnforceCpuFreq */
	char freq_default_governor[COSCHED_DECISION_GOVERNOR_MAX + 1];
						/* FreqDefaultGovernor */
	cosched_membind_t membind;		/* MemBind: BIND or PREFER */
	char sysfs_root[COSCHED_PATH_MAX];	/* SysfsRoot ("/") */
	char topology[COSCHED_TOPOLOGY_SOURCE_MAX + 1];	/* Topology */
	bool profile_jobs;			/* ProfileJobs */
	double sample_interval_s;		/* SampleInterval */
	char sample_events[COSCHED_SAMPLE_EVENTS_MAX];	/* SampleEvents */
	cosched_sample_events_for_t sample_events_for[COSCHED_SAMPLE_EVENTS_FOR_MAX];
	int n_sample_events_for;			/* SampleEventsFor */
	char sample_backend[COSCHED_PATH_MAX];	/* SampleBackend */
	char sampler_program[COSCHED_PATH_MAX];	/* SamplerProgram */
	char profile_share[COSCHED_PROFILE_SHARE_MAX];	/* ProfileShare */
	cosched_numa_conf_t numa;		/* Numa* (the NUMA manager) */
	/* Not a key of cosched.conf: slurm.conf's PrivateData, which the
	 * program that reads this file inside Slurm sets, or is told
	 * (io/private.h); public by default. */
	cosched_private_t privacy;
} cosched_conf_t;

/* All defaults. */
void cosched_conf_init(cosched_conf_t *conf);

/* Whether ProfileShare= shares app's profile among users (any user's runs
 * merge into it: cosched_profile_may_merge). */
bool cosched_conf_profile_shared(const cosched_conf_t *conf, const char *app);

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
/* Read and parse a file (all or nothing): a regular file, not followed
 * through a symbolic link, at most 1 MiB. */
int cosched_conf_parse_file(cosched_conf_t *conf, const char *path,
			    cosched_error_t *err);

/*
 * Who reads the file.  slurmctld (and every tool) reads all of it and
 * refuses it for any wrong line, keeping its settings; a node's task
 * plugin and sampler skip a wrong line of a key only slurmctld uses
 * (CoschedPolicy=app-aware), so that a typo in a placement setting never
 * switches enforcement and profiling off on every node: the first such
 * line's message goes to *skipped ("" when none; may be NULL).
 */
typedef enum {
	COSCHED_CONF_READER_ALL = 0,
	COSCHED_CONF_READER_NODE,
} cosched_conf_reader_t;
int cosched_conf_parse_file_for(cosched_conf_t *conf, const char *path,
				cosched_conf_reader_t reader,
				cosched_error_t *skipped, cosched_error_t *err);

/* The same over text (the contents of a file called name). */
int cosched_conf_parse_string_for(cosched_conf_t *conf, const char *name,
				  const char *text,
				  cosched_conf_reader_t reader,
				  cosched_error_t *skipped,
				  cosched_error_t *err);
/* The bytes of a cosched.conf as cosched_conf_parse_file() reads them (a
 * regular file, not through a symbolic link, at most 1 MiB; malloc'd),
 * for a reader that keeps a copy of what it parsed; *missing as
 * cosched_read_file(). */
char *cosched_conf_read_text(const char *path, int *missing,
			     cosched_error_t *err);

/* Consistency across keys (e.g. LcaBeta < LcaAlpha). */
int cosched_conf_check(const cosched_conf_t *conf, cosched_error_t *err);

/*
 * The event list for a node whose CPU is vendor (cpuinfo's vendor_id; NULL
 * when unknown), family and model (-1 when unknown): the SampleEventsFor
 * entry that names the most of it, else SampleEvents.  which (len bytes,
 * may be NULL) names where the list came from: "SampleEventsFor=
 * AuthenticAMD-25" or "SampleEvents".
 */
const char *cosched_conf_sample_events(const cosched_conf_t *conf,
				       const char *vendor, long family,
				       long model, char *which, size_t len);

/* The merge parameters for the profile store (weight, bound, node peak). */
void cosched_conf_merge_params(const cosched_conf_t *conf,
			       cosched_merge_params_t *mp);

#endif
