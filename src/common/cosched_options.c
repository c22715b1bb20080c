/* cosched_options.c - parse and check a job's --cosched-* options. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cosched_options.h"
#include "cosched_util.h"

void cosched_options_init(cosched_job_options_t *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->enabled = true;
	opts->declared_class = COSCHED_CAT_UNKNOWN;
	opts->power = COSCHED_POWER_UNSET;
	opts->max_slowdown_pct = COSCHED_DEFAULT_MAX_SLOWDOWN_PCT;
	opts->numa = COSCHED_NUMA_UNSET;
}

int cosched_app_name_check(const char *field, const char *name,
			   cosched_error_t *err)
{
	size_t len;

	if (!name || !*name)
		return cosched_error_set(err, "%s: empty application name",
					 field);
	len = strlen(name);
	if (len > COSCHED_APP_NAME_MAX)
		return cosched_error_set(err,
			"%s: application name \"%.32s...\" is %zu bytes long (at most %d)",
			field, name, len, COSCHED_APP_NAME_MAX);
	if (name[0] == '.')
		return cosched_error_set(err,
			"%s: invalid application name \"%s\" (must not start with '.')",
			field, name);
	for (const char *p = name; *p; p++) {
		unsigned char c = (unsigned char) *p;
		if (!isalnum(c) && c != '.' && c != '_' && c != '-' &&
		    c != '+')
			return cosched_error_set(err,
				"%s: invalid application name \"%s\" (character '%c' not allowed; use letters, digits and . _ + -)",
				field, name, isprint(c) ? c : '?');
	}
	return 0;
}

int cosched_max_slowdown_check(const char *field, double pct,
			       cosched_error_t *err)
{
	if (!(pct > 0.0 && pct <= COSCHED_MAX_SLOWDOWN_PCT_LIMIT))
		return cosched_error_set(err,
			"%s: maximum slowdown %g out of range (0 < MAXSLOWDOWN <= %g, in percent)",
			field, pct, COSCHED_MAX_SLOWDOWN_PCT_LIMIT);
	return 0;
}

bool cosched_app_name_is_generic(const char *name)
{
	static const char *const generic[] = {
		"wrap", "sbatch", "salloc", "srun", "interactive",
		"sh", "bash", "zsh", "csh", "tcsh", "ksh",
	};

	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (!strcmp(name, generic[i]))
			return true;
	return false;
}

/* "energy", "energy:15", "energy:15%" or "energy:7.5%". */
int cosched_power_policy_parse(const char *field, const char *value,
			       bool ignore_case,
			       cosched_power_policy_t *policy,
			       double *max_slowdown_pct, bool *slowdown_given,
			       cosched_error_t *err)
{
	int (*cmp)(const char *, const char *) = ignore_case ? strcasecmp : strcmp;
	int (*ncmp)(const char *, const char *, size_t) =
		ignore_case ? strncasecmp : strncmp;
	const char *colon;
	double pct;

	if (slowdown_given)
		*slowdown_given = false;
	if (!value)
		goto bad;
	if (!cmp(value, "performance")) {
		*policy = COSCHED_POWER_PERFORMANCE;
		return 0;
	}
	if (!cmp(value, "edp")) {
		*policy = COSCHED_POWER_EDP;
		return 0;
	}
	if (ncmp(value, "energy", 6) ||
	    (value[6] != '\0' && value[6] != ':'))
		goto bad;
	colon = value + 6;
	if (*colon == '\0') {
		*policy = COSCHED_POWER_ENERGY;
		*max_slowdown_pct = COSCHED_DEFAULT_MAX_SLOWDOWN_PCT;
		return 0;
	}
	colon++;
	{
		char num[32];
		size_t n = strlen(colon);
		if (n && colon[n - 1] == '%')
			n--;
		if (!n || n >= sizeof(num))
			goto bad_pct;
		memcpy(num, colon, n);
		num[n] = '\0';
		if (cosched_parse_number(num, &pct))
			goto bad_pct;
	}
	if (cosched_max_slowdown_check(field, pct, err))
		return -1;
	*policy = COSCHED_POWER_ENERGY;
	*max_slowdown_pct = pct;
	if (slowdown_given)
		*slowdown_given = true;
	return 0;

bad_pct:
	return cosched_error_set(err,
		"%s: invalid maximum slowdown in \"%s\" (expected energy:MAXSLOWDOWN%%, e.g. energy:10%%)",
		field, value);
bad:
	return cosched_error_set(err,
		"%s: invalid value \"%s\" (allowed: performance, edp, energy[:MAXSLOWDOWN%%])",
		field, value ? value : "");
}

int cosched_option_set(cosched_job_options_t *opts, const char *name,
		       const char *value, cosched_error_t *err)
{
	char field[64];

	if (!name)
		return cosched_error_set(err, "missing option name");
	snprintf(field, sizeof(field), "--%s", name);
	if (!value || !*value)
		return cosched_error_set(err, "%s: missing value", field);

	if (!strcmp(name, COSCHED_OPT_ENABLE)) {
		if (!strcmp(value, "off"))
			opts->enabled = false;
		else if (!strcmp(value, "on"))
			opts->enabled = true;
		else
			return cosched_error_set(err,
				"%s: invalid value \"%s\" (allowed: on, off)",
				field, value);
		return 0;
	}
	if (!strcmp(name, COSCHED_OPT_APP)) {
		if (cosched_app_name_check(field, value, err))
			return -1;
		strcpy(opts->app, value);
		return 0;
	}
	if (!strcmp(name, COSCHED_OPT_CLASS))
		return cosched_category_parse(field, value,
					      &opts->declared_class, err);
	if (!strcmp(name, COSCHED_OPT_POWER)) {
		cosched_power_policy_t p;
		double s = opts->max_slowdown_pct;
		if (cosched_power_policy_parse(field, value, false, &p, &s,
					       NULL, err))
			return -1;
		opts->power = p;
		opts->max_slowdown_pct = s;
		return 0;
	}
	if (!strcmp(name, COSCHED_OPT_NUMA)) {
		if (!strcmp(value, "high"))
			opts->numa = COSCHED_NUMA_HIGH;
		else if (!strcmp(value, "low"))
			opts->numa = COSCHED_NUMA_LOW;
		else
			return cosched_error_set(err,
				"%s: invalid value \"%s\" (allowed: high, low)",
				field, value);
		return 0;
	}
	return cosched_error_set(err, "unknown option \"%s\"", field);
}

const cosched_option_name_t cosched_option_names[COSCHED_OPTION_COUNT] = {
	[COSCHED_OPTION_ENABLE] = { COSCHED_OPT_ENABLE, COSCHED_ENV_ENABLE },
	[COSCHED_OPTION_APP] = { COSCHED_OPT_APP, COSCHED_ENV_APP },
	[COSCHED_OPTION_CLASS] = { COSCHED_OPT_CLASS, COSCHED_ENV_CLASS },
	[COSCHED_OPTION_POWER] = { COSCHED_OPT_POWER, COSCHED_ENV_POWER },
	[COSCHED_OPTION_NUMA] = { COSCHED_OPT_NUMA, COSCHED_ENV_NUMA },
};

int cosched_options_from_env(cosched_job_options_t *opts, char **env,
			     int count, cosched_error_t *err)
{
	cosched_job_options_t tmp = *opts;
	const size_t plen = strlen(COSCHED_ENV_PREFIX);

	for (int i = 0; env && (count < 0 ? env[i] != NULL : i < count); i++) {
		const char *var = env[i], *eq;
		if (!var)
			continue;
		/* slurmctld keeps the names as set; the prolog and slurmd's
		 * copies carry Slurm's "SPANK_" prefix. */
		if (!strncmp(var, COSCHED_ENV_PREFIX, plen))
			var += plen;
		eq = strchr(var, '=');
		if (!eq)
			continue;
		for (int k = 0; k < COSCHED_OPTION_COUNT; k++) {
			const cosched_option_name_t *o = &cosched_option_names[k];
			size_t n = strlen(o->env);
			if ((size_t) (eq - var) != n || strncmp(var, o->env, n))
				continue;
			if (cosched_option_set(&tmp, o->option, eq + 1, err))
				return -1;
			break;
		}
	}
	*opts = tmp;
	return 0;
}

const char *cosched_power_policy_name(cosched_power_policy_t p)
{
	switch (p) {
	case COSCHED_POWER_PERFORMANCE:
		return "performance";
	case COSCHED_POWER_EDP:
		return "edp";
	case COSCHED_POWER_ENERGY:
		return "energy";
	default:
		return "default";
	}
}

const char *cosched_numa_priority_name(cosched_numa_priority_t p)
{
	switch (p) {
	case COSCHED_NUMA_HIGH:
		return "high";
	case COSCHED_NUMA_LOW:
		return "low";
	default:
		return "default";
	}
}

char *cosched_options_format(const cosched_job_options_t *opts, char *buf,
			     int len)
{
	int n;

	if (len <= 0)
		return buf;
	if (!opts->enabled) {
		snprintf(buf, len, "off");
		return buf;
	}
	n = snprintf(buf, len, "app=%s class=%s power=%s",
		     opts->app[0] ? opts->app : "(unset)",
		     cosched_category_name(opts->declared_class),
		     cosched_power_policy_name(opts->power));
	if (n < len && opts->power == COSCHED_POWER_ENERGY)
		n += snprintf(buf + n, len - n, ":%g%%",
			      opts->max_slowdown_pct);
	if (n < len)
		snprintf(buf + n, len - n, " numa=%s",
			 cosched_numa_priority_name(opts->numa));
	return buf;
}
