/*
 * cosched_conf.c - parse cosched.conf (slurm.conf style Key=Value lines).
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cosched_conf.h"
#include "cosched_util.h"

/* Largest cosched.conf accepted (a configuration, not a data file). */
#define CONF_MAX_BYTES (1024 * 1024)

static const char *const policy_names[COSCHED_POLICY_COUNT] = {
	"gang", "greedy_thread", "miss_rate_balance", "miss_rate_bound",
	"app_aware"
};

const char *cosched_policy_name(cosched_policy_t p)
{
	if (p < 0 || p >= COSCHED_POLICY_COUNT)
		return "unknown";
	return policy_names[p];
}

int cosched_policy_parse(const char *field, const char *str,
			 cosched_policy_t *out, cosched_error_t *err)
{
	for (int i = 0; i < COSCHED_POLICY_COUNT; i++)
		if (str && !strcasecmp(str, policy_names[i])) {
			*out = (cosched_policy_t) i;
			return 0;
		}
	return cosched_error_set(err,
		"%s: invalid value \"%s\" (allowed: gang, greedy_thread, miss_rate_balance, miss_rate_bound, app_aware)",
		field, str ? str : "");
}

void cosched_conf_init(cosched_conf_t *conf)
{
	memset(conf, 0, sizeof(*conf));
	cosched_classify_conf_default(&conf->classify);
	conf->node_peak_bw_mbs = COSCHED_CONF_DEFAULT_NODE_PEAK_BW_MBS;
	snprintf(conf->profile_dir, sizeof(conf->profile_dir), "%s",
		 COSCHED_CONF_DEFAULT_PROFILE_DIR);
	conf->profile_merge_weight = COSCHED_PROFILE_MERGE_WEIGHT_DEFAULT;
	conf->profile_max_samples = COSCHED_PROFILE_MAX_SAMPLES_DEFAULT;
	cosched_interference_default(&conf->interference);
	conf->policy = COSCHED_CONF_DEFAULT_POLICY;
	conf->mrb_threshold = COSCHED_CONF_DEFAULT_MRB_THRESHOLD;
	conf->mrb_weight = COSCHED_CONF_DEFAULT_MRB_WEIGHT;
	conf->power_policy = COSCHED_CONF_DEFAULT_POWER_POLICY;
	conf->max_slowdown_pct = COSCHED_DEFAULT_MAX_SLOWDOWN_PCT;
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
	K_DOUBLE,	/* a number in the range lo..hi of this table */
	K_CLASSIFY,	/* a threshold: range in cosched_classify.c */
	K_MERGE_WEIGHT,	/* ProfileMergeWeight: cosched_merge_params_check */
	K_MERGE_SAMPLES,/* ProfileMaxSamples: cosched_merge_params_check */
	K_PATH, K_POLICY, K_POWER, K_INTERFERENCE, K_PREFERENCE,
	K_PERCENT	/* MaxSlowdown: cosched_max_slowdown_check */
};

typedef struct {
	const char *name;
	enum key_type type;
	size_t offset;
	double lo, hi;		/* range of K_DOUBLE only */
	bool lo_open;		/* lo < v rather than lo <= v */
} conf_key_t;

#define OFF(f) offsetof(cosched_conf_t, f)

/*
 * Ranges and sources are documented in cosched.conf(5).  Each quantity's
 * range is written once: here for the keys only cosched.conf has, in the
 * owner's check for the others (thresholds: cosched_classify.c; profile
 * merge: cosched_merge_params_check; slowdown: cosched_max_slowdown_check).
 */
static const conf_key_t keys[] = {
	/* Seed 002 categories (cosched_classify.c has the derivation). */
	{ "ClassifyMemBandwidthFraction", K_CLASSIFY, OFF(classify), 0, 0, false },
	{ "ClassifyMemMPKI", K_CLASSIFY, OFF(classify), 0, 0, false },
	{ "ClassifyLimBandwidthFraction", K_CLASSIFY, OFF(classify), 0, 0, false },
	{ "ClassifyLimMPKI", K_CLASSIFY, OFF(classify), 0, 0, false },
	{ "ClassifyRandReuse", K_CLASSIFY, OFF(classify), 0, 0, false },
	{ "ClassifyRandCacheBandwidth", K_CLASSIFY, OFF(classify), 0, 0, false },
	/* Seed 001 "Classification thresholds". */
	{ "LcaAlpha", K_CLASSIFY, OFF(classify), 0, 0, false },
	{ "LcaBeta", K_CLASSIFY, OFF(classify), 0, 0, false },
	{ "LcaGamma", K_CLASSIFY, OFF(classify), 0, 0, false },
	{ "LcaDelta", K_CLASSIFY, OFF(classify), 0, 0, false },
	{ "LcaEpsilon", K_CLASSIFY, OFF(classify), 0, 0, false },
	{ "CorePeakBandwidth", K_CLASSIFY, OFF(classify), 0, 0, false },
	{ "CorePeakIPC", K_CLASSIFY, OFF(classify), 0, 0, false },
	{ "NodePeakBandwidth", K_DOUBLE, OFF(node_peak_bw_mbs), 0, 1e8, true },
	/* Profile store. */
	{ "ProfileDir", K_PATH, OFF(profile_dir), 0, 0, false },
	{ "ProfileMergeWeight", K_MERGE_WEIGHT, OFF(profile_merge_weight), 0, 0, false },
	{ "ProfileMaxSamples", K_MERGE_SAMPLES, OFF(profile_max_samples), 0, 0, false },
	/* Interference model overrides. */
	{ "Interference", K_INTERFERENCE, OFF(interference), 0, 0, false },
	{ "PreferenceTable", K_PREFERENCE, OFF(interference.pref), 0, 0, false },
	/* Gang policies and power (seed 002 "The five schedulers", "DVFS model"). */
	{ "CoschedPolicy", K_POLICY, OFF(policy), 0, 0, false },
	{ "MissRateBoundThreshold", K_DOUBLE, OFF(mrb_threshold), 0, 1000, true },
	{ "MissRateBoundWeight", K_DOUBLE, OFF(mrb_weight), 0, 1, true },
	{ "PowerPolicy", K_POWER, OFF(power_policy), 0, 0, false },
	{ "MaxSlowdown", K_PERCENT, OFF(max_slowdown_pct), 0, 0, false },
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static const conf_key_t *find_key(const char *name)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (!strcasecmp(name, keys[i].name))
			return &keys[i];
	return NULL;
}

/* "where: " or "" */
static const char *pfx(const char *where, char *buf, size_t len)
{
	if (!where || !*where)
		return "";
	snprintf(buf, len, "%s: ", where);
	return buf;
}

/* The range check of a K_DOUBLE key. */
static int key_range(const conf_key_t *k, double x, cosched_error_t *err)
{
	if ((k->lo_open ? x > k->lo : x >= k->lo) && x <= k->hi)
		return 0;
	return cosched_error_set(err, "%s: value %g out of range (%g %s value <= %g)",
				 k->name, x, k->lo, k->lo_open ? "<" : "<=", k->hi);
}

/* Put "where: " before the message an owner's check left in err. */
static int with_where(const char *where, cosched_error_t *err)
{
	char msg[COSCHED_ERROR_MSG_LEN], b[COSCHED_PATH_MAX + 32];

	if (!err)
		return -1;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	return cosched_error_set(err, "%s%s", pfx(where, b, sizeof(b)), msg);
}

int cosched_conf_set(cosched_conf_t *conf, const char *where, const char *key,
		     const char *value, cosched_error_t *err)
{
	const conf_key_t *k;
	char b[COSCHED_PATH_MAX + 32], field[COSCHED_PATH_MAX + 96];
	void *ptr;
	double x;
	long v;

	if (!key || !*key)
		return cosched_error_set(err, "%smissing key",
					 pfx(where, b, sizeof(b)));
	k = find_key(key);
	if (!k)
		return cosched_error_set(err, "%sunknown key \"%s\"",
					 pfx(where, b, sizeof(b)), key);
	if (!value)
		value = "";
	ptr = (char *) conf + k->offset;
	snprintf(field, sizeof(field), "%s%s", pfx(where, b, sizeof(b)),
		 k->name);
	if (!*value && k->type != K_PATH)
		return cosched_error_set(err, "%s: missing value", field);

	switch (k->type) {
	case K_DOUBLE:
	case K_CLASSIFY:
	case K_MERGE_WEIGHT:
		if (cosched_parse_number(value, &x))
			return cosched_error_set(err,
				"%s: invalid value \"%s\" (expected a number)",
				field, value);
		if (k->type == K_DOUBLE) {
			if (key_range(k, x, err))
				return with_where(where, err);
			*(double *) ptr = x;
		} else if (k->type == K_CLASSIFY) {
			if (cosched_classify_key_set(ptr, k->name, x, err))
				return with_where(where, err);
		} else {
			cosched_merge_params_t mp;
			cosched_conf_merge_params(conf, &mp);
			mp.weight = x;
			if (cosched_merge_params_check(&mp, err))
				return with_where(where, err);
			*(double *) ptr = x;
		}
		return 0;
	case K_PERCENT: {
		char num[64];
		size_t n = strlen(value);
		if (n >= sizeof(num))
			return cosched_error_set(err,
				"%s: invalid value \"%.40s...\" (expected a percentage)",
				field, value);
		memcpy(num, value, n + 1);
		if (n && num[n - 1] == '%')
			num[n - 1] = '\0';
		if (cosched_parse_number(num, &x))
			return cosched_error_set(err,
				"%s: invalid value \"%s\" (expected a percentage, e.g. 10 or 10%%)",
				field, value);
		if (cosched_max_slowdown_check(field, x, err))
			return -1;
		*(double *) ptr = x;
		return 0;
	}
	case K_MERGE_SAMPLES: {
		cosched_merge_params_t mp;
		if (cosched_parse_long(value, &v))
			return cosched_error_set(err,
				"%s: invalid value \"%s\" (expected an integer)",
				field, value);
		cosched_conf_merge_params(conf, &mp);
		mp.max_samples = v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int) v;
		if (cosched_merge_params_check(&mp, err))
			return with_where(where, err);
		*(int *) ptr = mp.max_samples;
		return 0;
	}
	case K_PATH:
		if (value[0] != '/')
			return cosched_error_set(err,
				"%s: invalid value \"%s\" (expected an absolute path)",
				field, value);
		if (strlen(value) >= COSCHED_PATH_MAX - COSCHED_APP_NAME_MAX - 16)
			return cosched_error_set(err,
				"%s: path \"%.40s...\" too long", field, value);
		snprintf((char *) ptr, COSCHED_PATH_MAX, "%s", value);
		return 0;
	case K_POLICY:
		return cosched_policy_parse(field, value, (cosched_policy_t *) ptr,
					    err);
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
	case K_INTERFERENCE:
		return cosched_interference_override(ptr, field, value, err);
	case K_PREFERENCE:
		return cosched_preference_override(ptr, field, value, err);
	}
	return cosched_error_set(err, "%s: internal error", field);
}

int cosched_conf_check(const cosched_conf_t *conf, cosched_error_t *err)
{
	cosched_merge_params_t mp;

	if (cosched_classify_conf_check(&conf->classify, err))
		return -1;
	for (size_t i = 0; i < N_KEYS; i++)
		if (keys[i].type == K_DOUBLE &&
		    key_range(&keys[i], *(const double *) ((const char *) conf +
							   keys[i].offset), err))
			return -1;
	cosched_conf_merge_params(conf, &mp);
	if (cosched_merge_params_check(&mp, err))
		return -1;
	if (cosched_max_slowdown_check("MaxSlowdown", conf->max_slowdown_pct, err))
		return -1;
	if (conf->policy < 0 || conf->policy >= COSCHED_POLICY_COUNT)
		return cosched_error_set(err, "CoschedPolicy: invalid value %d",
					 (int) conf->policy);
	if (conf->power_policy == COSCHED_POWER_UNSET)
		return cosched_error_set(err, "PowerPolicy: not set");
	if (conf->profile_dir[0] != '/')
		return cosched_error_set(err,
			"ProfileDir: \"%s\" is not an absolute path",
			conf->profile_dir);
	return 0;
}

int cosched_conf_parse_string(cosched_conf_t *conf, const char *name,
			      const char *text, cosched_error_t *err)
{
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
		char where[COSCHED_PATH_MAX + 32], *eq, *hash, *key, *value;
		size_t vlen;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		/* As in slurm.conf, '#' starts a comment. */
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		line = cosched_trim(line);
		if (!*line)
			continue;
		snprintf(where, sizeof(where), "%s:%d", name, lineno);
		eq = strchr(line, '=');
		if (!eq) {
			rc = cosched_error_set(err,
				"%s: expected Key=Value, got \"%.80s\"", where, line);
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
		rc = cosched_conf_set(tmp, where, key, value, err);
	}
	if (!rc && cosched_conf_check(tmp, err)) {
		char msg[COSCHED_ERROR_MSG_LEN];
		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		rc = cosched_error_set(err, "%s: %s", name, msg);
	}
	if (!rc)
		*conf = *tmp;
	free(tmp);
	free(copy);
	return rc;
}

int cosched_conf_parse_file(cosched_conf_t *conf, const char *path,
			    cosched_error_t *err)
{
	FILE *f;
	char *buf;
	size_t n;
	int rc;

	f = fopen(path, "r");
	if (!f)
		return cosched_error_set(err, "%s: cannot open: %s", path,
					 strerror(errno));
	buf = malloc(CONF_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		return cosched_error_set(err, "%s: out of memory", path);
	}
	n = fread(buf, 1, CONF_MAX_BYTES + 1, f);
	if (ferror(f)) {
		rc = cosched_error_set(err, "%s: read error: %s", path,
				       strerror(errno));
	} else if (n > CONF_MAX_BYTES) {
		rc = cosched_error_set(err, "%s: larger than %d bytes", path,
				       CONF_MAX_BYTES);
	} else if (memchr(buf, '\0', n)) {
		rc = cosched_error_set(err, "%s: contains a NUL byte", path);
	} else {
		buf[n] = '\0';
		rc = cosched_conf_parse_string(conf, path, buf, err);
	}
	fclose(f);
	free(buf);
	return rc;
}
