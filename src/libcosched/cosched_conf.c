/*
 * cosched_conf.c - parse cosched.conf (slurm.conf style Key=Value lines).
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cosched_appname.h"
#include "cosched_conf.h"
#include "cosched_gang.h"
#include "cosched_nametable.h"
#include "cosched_number.h"
#include "cosched_text.h"

/* Largest cosched.conf accepted (a configuration, not a data file). */
#define CONF_MAX_BYTES (1024 * 1024)

/* NodePeakBandwidth, MB/s: more than any node has, finite. */
static const cosched_range_t node_peak_bw_range = { 0.0, 1e8, true };

const cosched_range_t cosched_profile_refresh_range = { 1.0, 3600.0, false };
const cosched_range_t cosched_sample_interval_range = { 0.05, 3600.0, false };

static const char *const placement_modes[] = { "lenient", "strict" };
static const char *const yes_no[] = { "no", "yes" };
/* MemBind=: the membind of a job that did not say --cosched-numa. */
static const char *const membind_modes[] = { "bind", "prefer" };
static const char *const debug_flag_names[] = { "Placement", "Check",
						"Timing" };
/* SampleEventsFor='s vendors: /proc/cpuinfo's vendor_id of the x86 server
 * parts; refusing any other catches a misspelt one, which would
 * otherwise never match. */
static const char *const cpu_vendors[] = { "GenuineIntel", "AuthenticAMD",
					   "HygonGenuine", "CentaurHauls" };
#define N_CPU_VENDORS (int) (sizeof(cpu_vendors) / sizeof(cpu_vendors[0]))
/* CPU families and models (cpuid gives 8 and 8 bits with extensions). */
static const cosched_range_t cpu_number_range = { 0.0, 65535.0, false };
#define N_DEBUG_FLAGS (int) (sizeof(debug_flag_names) / sizeof(debug_flag_names[0]))

void cosched_conf_init(cosched_conf_t *conf)
{
	memset(conf, 0, sizeof(*conf));
	cosched_classify_conf_default(&conf->classify);
	conf->node_peak_bw_mbs = COSCHED_CONF_DEFAULT_NODE_PEAK_BW_MBS;
	snprintf(conf->profile_dir, sizeof(conf->profile_dir), "%s",
		 COSCHED_STORE_DIR_DEFAULT);
	conf->profile_merge_weight = COSCHED_PROFILE_MERGE_WEIGHT_DEFAULT;
	conf->profile_max_samples = COSCHED_PROFILE_MAX_SAMPLES_DEFAULT;
	cosched_interference_default(&conf->interference);
	conf->policy = COSCHED_POLICY_DEFAULT;
	conf->scope = COSCHED_SCOPE_SOCKET;
	conf->default_class = COSCHED_CAT_UNKNOWN;
	conf->profile_refresh_s = COSCHED_PROFILE_REFRESH_DEFAULT;
	conf->live_loads = true;
	conf->live_refresh_s = COSCHED_LIVE_REFRESH_DEFAULT;
	conf->mrb_threshold = COSCHED_MRB_THRESHOLD_DEFAULT;
	conf->mrb_weight = COSCHED_MRB_WEIGHT_DEFAULT;
	conf->power_policy = COSCHED_POWER_POLICY_DEFAULT;
	conf->max_slowdown_pct = COSCHED_MAX_SLOWDOWN_PCT_DEFAULT;
	conf->freq_rule = COSCHED_FREQ_RULE_MAX_REQUEST;
	conf->enforce_cores = true;
	conf->enforce_membind = true;
	conf->enforce_cpufreq = true;
	/* Preferred by default: strict binding of a job whose memory
	 * outgrows its local nodes would fail it; --cosched-numa=high asks
	 * for strict. */
	conf->membind = COSCHED_MEMBIND_PREFER;
	snprintf(conf->sysfs_root, sizeof(conf->sysfs_root), "/");
	snprintf(conf->topology, sizeof(conf->topology), "system");
	conf->profile_jobs = true;
	conf->sample_interval_s = COSCHED_SAMPLE_INTERVAL_DEFAULT;
	snprintf(conf->sample_events, sizeof(conf->sample_events), "%s",
		 COSCHED_SAMPLE_EVENTS_DEFAULT);
	snprintf(conf->sample_backend, sizeof(conf->sample_backend), "perf");
	snprintf(conf->sampler_program, sizeof(conf->sampler_program), "%s",
		 COSCHED_SAMPLER_PROGRAM_DEFAULT);
}

/* ProfileShare: "*", or application names separated by single commas. */
static int profile_share_check(const char *field, const char *value,
			       cosched_error_t *err)
{
	char name[COSCHED_APP_NAME_MAX + 1];

	if (!strcmp(value, "*"))
		return 0;
	if (strlen(value) >= COSCHED_PROFILE_SHARE_MAX)
		return cosched_error_set(err, "%s: %s is too long", field,
					 COSCHED_QUOTE(value));
	for (const char *a = value; ; a++) {
		size_t n = strcspn(a, ",");

		if (!n || n > COSCHED_APP_NAME_MAX)
			return cosched_error_set(err,
				"%s: invalid value %s (expected * or application names separated by single commas)",
				field, COSCHED_QUOTE(value));
		memcpy(name, a, n);
		name[n] = '\0';
		if (cosched_app_name_check(field, name, err))
			return -1;
		a += n;
		if (!*a)
			return 0;
	}
}

bool cosched_conf_profile_shared(const cosched_conf_t *conf, const char *app)
{
	const char *s = conf->profile_share;
	size_t n = app ? strlen(app) : 0;

	if (!strcmp(s, "*"))
		return true;
	if (!n)
		return false;
	for (const char *a = s; *a; ) {
		size_t an = strcspn(a, ",");

		if (an == n && !strncmp(a, app, n))
			return true;
		a += an;
		if (*a)
			a++;
	}
	return false;
}

#define SYNTHETIC_PREFIX "synthetic:"
#define XML_PREFIX "xml:"

/* One level of an hwloc synthetic description: TYPE:COUNT or a memory
 * child [TYPE], either with (ATTRIBUTES); TYPE letters and digits. */
static bool synthetic_level(const char *t, size_t n, bool *counted)
{
	size_t i = 0, name;
	bool bracket = t[0] == '[';

	if (bracket) {
		if (n < 3 || t[n - 1] != ']')
			return false;
		t++;
		n -= 2;
	}
	while (i < n && isalnum((unsigned char) t[i]))
		i++;
	if (!(name = i) || !isalpha((unsigned char) t[0]))
		return false;
	if (!bracket) {
		size_t digits;

		if (i >= n || t[i++] != ':')
			return false;
		for (digits = 0; i < n && isdigit((unsigned char) t[i]);
		     i++, digits++)
			;
		if (!digits || t[i - digits] == '0')
			return false;
		*counted = true;
	}
	if (i < n && t[i] == '(') {
		while (i < n && t[i] != ')')
			i++;
		if (i++ >= n)
			return false;
	}
	return i == n;
}

/* What hwloc_topology_set_synthetic takes, as far as its form goes:
 * blank-separated levels, at least one TYPE:COUNT.  Which types and
 * counts hwloc accepts the node says (cosched_topology_load). */
static bool synthetic_check(const char *desc)
{
	bool counted = false;

	while (*desc) {
		size_t n = strcspn(desc, " \t");

		if (n && !synthetic_level(desc, n, &counted))
			return false;
		desc += n;
		desc += strspn(desc, " \t");
	}
	return counted;
}

int cosched_topology_source_check(const char *field, const char *source,
				  cosched_error_t *err)
{
	size_t len = strlen(source);

	if (!len || len > COSCHED_TOPOLOGY_SOURCE_MAX)
		return cosched_error_set(err,
			"%s: %s is empty or longer than %d bytes", field,
			COSCHED_QUOTE(source), COSCHED_TOPOLOGY_SOURCE_MAX);
	for (size_t i = 0; i < len; i++)
		if (source[i] < 0x20 || source[i] > 0x7e)
			return cosched_error_set(err,
				"%s: %s: only printable ASCII", field,
				COSCHED_QUOTE(source));
	if (!strcmp(source, "system"))
		return 0;
	if (!strncmp(source, SYNTHETIC_PREFIX, strlen(SYNTHETIC_PREFIX)) &&
	    synthetic_check(source + strlen(SYNTHETIC_PREFIX)))
		return 0;
	if (!strncmp(source, XML_PREFIX, strlen(XML_PREFIX)) &&
	    !cosched_dir_path_check(field, source + strlen(XML_PREFIX),
				    COSCHED_TOPOLOGY_SOURCE_MAX, NULL))
		return 0;
	return cosched_error_set(err,
		"%s: invalid value %s (expected system, synthetic:DESCRIPTION or xml:/ABSOLUTE/PATH)",
		field, COSCHED_QUOTE(source));
}

void cosched_conf_merge_params(const cosched_conf_t *conf,
			       cosched_merge_params_t *mp)
{
	mp->weight = conf->profile_merge_weight;
	mp->max_samples = conf->profile_max_samples;
	mp->node_peak_bw = conf->node_peak_bw_mbs * COSCHED_BYTES_PER_MB;
}

/* --- the keys ----------------------------------------------------------- */

enum key_type {
	K_NUMBER,	/* a double in *range */
	K_INTEGER,	/* an int in *range */
	K_CLASSIFY,	/* a threshold: range in cosched_classify.c */
	K_PATH, K_POLICY, K_POWER, K_INTERFERENCE, K_PREFERENCE,
	K_SLOWDOWN,	/* MaxSlowdown: cosched_max_slowdown_check */
	K_FREQ_RULE,	/* FreqDomainRule: max_request | min_edp_sum */
	K_SCOPE, K_MODE, K_CLASS, K_DEBUG,
	K_BOOL,		/* yes | no */
	K_MEMBIND,	/* bind | prefer */
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
 * cosched_classify.c, profile merging in cosched_profile.c, Miss-Rate
 * Bound in cosched_gang.c, slowdowns in cosched_power_policy.c.
 */
static const conf_key_t keys[] = {
	/* Seed 002 categories (cosched_classify.c has the derivation). */
	{ "ClassifyMemBandwidthFraction", K_CLASSIFY, OFF(classify), NULL },
	{ "ClassifyMemMPKI", K_CLASSIFY, OFF(classify), NULL },
	{ "ClassifyLimBandwidthFraction", K_CLASSIFY, OFF(classify), NULL },
	{ "ClassifyLimMPKI", K_CLASSIFY, OFF(classify), NULL },
	{ "ClassifyRandReuse", K_CLASSIFY, OFF(classify), NULL },
	{ "ClassifyRandCacheBandwidth", K_CLASSIFY, OFF(classify), NULL },
	/* Seed 001 "Classification thresholds". */
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
	/* Interference model overrides. */
	{ "Interference", K_INTERFERENCE, OFF(interference), NULL },
	{ "PreferenceTable", K_PREFERENCE, OFF(interference.pref), NULL },
	/* Gang policies and power (seed 002 "The five schedulers", "DVFS
	 * model"). */
	{ "CoschedPolicy", K_POLICY, OFF(policy), NULL },
	{ "MissRateBoundThreshold", K_NUMBER, OFF(mrb_threshold),
	  &cosched_mrb_threshold_range },
	{ "MissRateBoundWeight", K_NUMBER, OFF(mrb_weight),
	  &cosched_mrb_weight_range },
	{ "PowerPolicy", K_POWER, OFF(power_policy), NULL },
	{ "MaxSlowdown", K_SLOWDOWN, OFF(max_slowdown_pct), NULL },
	{ "FreqDomainRule", K_FREQ_RULE, OFF(freq_rule), NULL },
	/* The controller (slurmctld). */
	{ "GangScope", K_SCOPE, OFF(scope), NULL },
	{ "PlacementMode", K_MODE, OFF(strict), NULL },
	{ "DefaultClass", K_CLASS, OFF(default_class), NULL },
	{ "DebugFlags", K_DEBUG, OFF(debug_flags), NULL },
	{ "ProfileCacheRefresh", K_INTEGER, OFF(profile_refresh_s),
	  &cosched_profile_refresh_range },
	/* Both sides: the samplers publish, slurmctld reads. */
	{ "LiveLoads", K_BOOL, OFF(live_loads), NULL },
	{ "LiveLoadRefresh", K_INTEGER, OFF(live_refresh_s),
	  &cosched_profile_refresh_range },
	/* The node (task/cosched): which parts are on, and where the
	 * hardware is.  MemBind is the controller's too (it writes the
	 * membind of each record). */
	{ "EnforceCores", K_BOOL, OFF(enforce_cores), NULL },
	{ "EnforceMemBind", K_BOOL, OFF(enforce_membind), NULL },
	{ "EnforceCpuFreq", K_BOOL, OFF(enforce_cpufreq), NULL },
	{ "MemBind", K_MEMBIND, OFF(membind), NULL },
	{ "SysfsRoot", K_ROOT, OFF(sysfs_root), NULL },
	{ "Topology", K_TOPOLOGY, OFF(topology), NULL },
	/* The profiler on the node (task/cosched starts cosched-sampler). */
	{ "ProfileJobs", K_BOOL, OFF(profile_jobs), NULL },
	{ "SampleInterval", K_NUMBER, OFF(sample_interval_s),
	  &cosched_sample_interval_range },
	{ "SampleEvents", K_EVENTS, OFF(sample_events), NULL },
	{ "SampleEventsFor", K_EVENTS_FOR, OFF(sample_events_for), NULL },
	{ "SampleBackend", K_BACKEND, OFF(sample_backend), NULL },
	{ "SamplerProgram", K_PROGRAM, OFF(sampler_program), NULL },
	{ "ProfileShare", K_SHARE, OFF(profile_share), NULL },
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

/* DebugFlags=Placement,Check,Timing (any case; "" is refused earlier). */
static int parse_debug_flags(const char *field, const char *value,
			     unsigned *out, cosched_error_t *err)
{
	char *copy = strdup(value), *save = NULL, *tok;
	unsigned flags = 0;

	if (!copy)
		return cosched_error_set(err, "%s: out of memory", field);
	/* strtok_r would skip an empty item: "Placement,,Check" and ","
	 * are mistakes, said as such. */
	if (value[0] == ',' || strstr(value, ",,") ||
	    value[strlen(value) - 1] == ',') {
		free(copy);
		return cosched_error_set(err,
			"%s: invalid value %s (an empty flag: expected flags separated by single commas)",
			field, COSCHED_QUOTE(value));
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int i = cosched_name_parse(field, "flag", debug_flag_names, 0,
					   N_DEBUG_FLAGS, cosched_trim(tok),
					   true, err);
		if (i < 0) {
			free(copy);
			return -1;
		}
		flags |= 1u << i;
	}
	free(copy);
	*out = flags;
	return 0;
}

/*
 * An event list's form (SampleEvents, SampleEventsFor): names of letters,
 * digits and "-_:.=" (perf's, PAPI's presets and native names with their
 * masks) separated by single commas.  Names only: the node knows which
 * exist (cosched-sampler refuses an unknown one, naming it, at each step).
 */
static int events_check(const char *field, const char *value,
			const char *list, cosched_error_t *err)
{
	for (const char *c = list; *c; c++)
		if (!(isalnum((unsigned char) *c) || strchr("-_:.=,", *c)) ||
		    (*c == ',' && (c == list || c[1] == ',' || !c[1])))
			return cosched_error_set(err,
				"%s: invalid value %s (expected event names separated by commas)",
				field, COSCHED_QUOTE(value));
	if (!*list)
		return cosched_error_set(err,
			"%s: invalid value %s (no event)", field,
			COSCHED_QUOTE(value));
	if (strlen(list) >= COSCHED_SAMPLE_EVENTS_MAX)
		return cosched_error_set(err, "%s: %s is too long", field,
					 COSCHED_QUOTE(value));
	/* Said here, once, rather than by every step's sampler. */
	for (const char *a = list; *a; ) {
		size_t an = strcspn(a, ","), count = 1;

		for (const char *b = a + an; *b; ) {
			size_t bn;

			b++;
			bn = strcspn(b, ",");
			if (bn == an && !strncmp(a, b, an))
				return cosched_error_set(err,
					"%s: event \"%.*s\" given twice in %s",
					field, (int) (an > 64 ? 64 : an), a,
					COSCHED_QUOTE(value));
			count++;
			b += bn;
		}
		if (a == list && count > COSCHED_SAMPLE_EVENTS_COUNT_MAX)
			return cosched_error_set(err,
				"%s: %zu events in %s: at most %d",
				field, count, COSCHED_QUOTE(value),
				COSCHED_SAMPLE_EVENTS_COUNT_MAX);
		a += an;
		if (*a)
			a++;
	}
	return 0;
}

/* A CPU family or model of SampleEventsFor: a decimal number, as
 * /proc/cpuinfo writes it. */
static int cpu_number(const char *field, const char *value, const char *what,
		      const char *text, long *out, cosched_error_t *err)
{
	if (cosched_parse_long(text, out) || *out < cpu_number_range.lo ||
	    *out > cpu_number_range.hi)
		return cosched_error_set(err,
			"%s: invalid value %s (CPU %s %s: expected a decimal number from 0 to 65535, as /proc/cpuinfo gives it)",
			field, COSCHED_QUOTE(value), what, COSCHED_QUOTE(text));
	return 0;
}

/* A SampleEventsFor value, VENDOR[-FAMILY[-MODEL]]:LIST, into e. */
static int sample_events_for_parse(const char *field, const char *value,
				   cosched_sample_events_for_t *e,
				   cosched_error_t *err)
{
	const char *colon = strchr(value, ':');
	char cpu[64], *family, *model;
	int v;

	if (!colon || colon == value ||
	    (size_t) (colon - value) >= sizeof(cpu))
		return cosched_error_set(err,
			"%s: invalid value %s (expected VENDOR[-FAMILY[-MODEL]]:EVENT[,EVENT...])",
			field, COSCHED_QUOTE(value));
	memset(e, 0, sizeof(*e));
	snprintf(cpu, sizeof(cpu), "%.*s", (int) (colon - value), value);
	family = strchr(cpu, '-');
	model = family ? strchr(family + 1, '-') : NULL;
	if (family)
		*family++ = '\0';
	if (model)
		*model++ = '\0';
	for (v = 0; v < N_CPU_VENDORS; v++)
		if (!strcasecmp(cpu, cpu_vendors[v]))
			break;
	if (v == N_CPU_VENDORS)
		return cosched_error_set(err,
			"%s: invalid value %s (CPU vendor %s: expected GenuineIntel, AuthenticAMD, HygonGenuine or CentaurHauls)",
			field, COSCHED_QUOTE(value), COSCHED_QUOTE(cpu));
	snprintf(e->vendor, sizeof(e->vendor), "%s", cpu_vendors[v]);
	e->family = e->model = -1;
	if (family && cpu_number(field, value, "family", family, &e->family,
				 err))
		return -1;
	if (model && cpu_number(field, value, "model", model, &e->model, err))
		return -1;
	if (events_check(field, value, colon + 1, err))
		return -1;
	snprintf(e->events, sizeof(e->events), "%s", colon + 1);
	return 0;
}

/* The entry of conf for e's CPU, or -1. */
static int sample_events_for_find(const cosched_conf_t *conf,
				  const cosched_sample_events_for_t *e)
{
	for (int i = 0; i < conf->n_sample_events_for; i++) {
		const cosched_sample_events_for_t *o = &conf->sample_events_for[i];
		if (!strcmp(o->vendor, e->vendor) && o->family == e->family &&
		    o->model == e->model)
			return i;
	}
	return -1;
}

/*
 * SampleEventsFor: the list of one CPU, set over conf's current values
 * as every key is (a CPU that has a list gets this one, so a file parsed
 * again changes nothing); two lines for one CPU in one file are refused
 * by cosched_conf_parse_string().
 */
static int sample_events_for(cosched_conf_t *conf, const char *field,
			     const char *value, cosched_error_t *err)
{
	cosched_sample_events_for_t e;
	int i;

	if (sample_events_for_parse(field, value, &e, err))
		return -1;
	i = sample_events_for_find(conf, &e);
	if (i < 0) {
		if (conf->n_sample_events_for == COSCHED_SAMPLE_EVENTS_FOR_MAX)
			return cosched_error_set(err, "%s: more than %d CPUs",
						 field,
						 COSCHED_SAMPLE_EVENTS_FOR_MAX);
		i = conf->n_sample_events_for++;
	}
	conf->sample_events_for[i] = e;
	return 0;
}

const char *cosched_conf_sample_events(const cosched_conf_t *conf,
				       const char *vendor, long family,
				       long model, char *which, size_t len)
{
	const cosched_sample_events_for_t *best = NULL;
	int best_score = 0;

	for (int i = 0; vendor && i < conf->n_sample_events_for; i++) {
		const cosched_sample_events_for_t *e = &conf->sample_events_for[i];
		int score;

		if (strcmp(e->vendor, vendor) ||
		    (e->family >= 0 && e->family != family) ||
		    (e->model >= 0 && e->model != model))
			continue;
		/* A model names more than a family, which names more than
		 * a vendor (an entry per CPU: no ties). */
		score = 1 + (e->family >= 0) + (e->model >= 0);
		if (score > best_score) {
			best = e;
			best_score = score;
		}
	}
	if (!best) {
		if (which)
			snprintf(which, len, "SampleEvents");
		return conf->sample_events;
	}
	if (which) {
		int k = snprintf(which, len, "SampleEventsFor=%s", best->vendor);
		if (best->family >= 0 && k > 0 && (size_t) k < len)
			k += snprintf(which + k, len - (size_t) k, "-%ld",
				      best->family);
		if (best->model >= 0 && k > 0 && (size_t) k < len)
			snprintf(which + k, len - (size_t) k, "-%ld",
				 best->model);
	}
	return best->events;
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
		/* Room for "/<app>.json" and the lock and temporary names. */
		if (cosched_dir_path_check(field, value,
					   COSCHED_PATH_MAX - COSCHED_APP_NAME_MAX - 16,
					   err))
			return -1;
		snprintf((char *) ptr, COSCHED_PATH_MAX, "%s", value);
		return 0;
	case K_POLICY:
		/* "none": cosched places nothing (cons_tres does) but still
		 * records each job's class and co-runners. */
		if (!strcasecmp(value, "none")) {
			conf->policy_none = true;
			return 0;
		}
		if (cosched_policy_parse(field, value, (cosched_policy_t *) ptr,
					 err))
			return or_also(err, "none");
		conf->policy_none = false;
		return 0;
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
		return parse_debug_flags(field, value, (unsigned *) ptr, err);
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
		if (events_check(field, value, value, err))
			return -1;
		snprintf((char *) ptr, COSCHED_SAMPLE_EVENTS_MAX, "%s", value);
		return 0;
	case K_EVENTS_FOR:
		return sample_events_for(conf, field, value, err);
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
		if (profile_share_check(field, value, err))
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
	case K_INTERFERENCE:
		return cosched_interference_override(ptr, field, value, err);
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
	if (cosched_policy_check("CoschedPolicy", conf->policy, err))
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

int cosched_conf_parse_string(cosched_conf_t *conf, const char *name,
			      const char *text, cosched_error_t *err)
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
				break;
			}
			set_on[ki] = lineno;
		}
		rc = cosched_conf_set(tmp, where, key, value, err);
		/* One list per CPU: a second would silently replace the
		 * first. */
		if (!rc && k && k->type == K_EVENTS_FOR) {
			cosched_sample_events_for_t e;
			int i;

			if (sample_events_for_parse(k->name, value, &e, err) ||
			    (i = sample_events_for_find(tmp, &e)) < 0) {
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
	if (!rc)
		*conf = *tmp;
	free(tmp);
	free(copy);
	return rc;
}

int cosched_conf_parse_file(cosched_conf_t *conf, const char *path,
			    cosched_error_t *err)
{
	char *buf = cosched_read_file(path, CONF_MAX_BYTES, NULL, err);
	int rc;

	if (!buf)
		return -1;
	rc = cosched_conf_parse_string(conf, path, buf, err);
	free(buf);
	return rc;
}
