/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model/options.c - parse and check a job's --cosched-* options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/nametable.h"
#include "src/libcosched/model/options.h"
#include "src/libcosched/base/text.h"

const char *const cosched_numa_priority_names[COSCHED_NUMA_COUNT] = {
	[COSCHED_NUMA_UNSET] = "default",
	[COSCHED_NUMA_HIGH] = "high",
	[COSCHED_NUMA_LOW] = "low",
};

static const char *const enable_names[] = { "on", "off" };

void cosched_options_init(cosched_job_options_t *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->enabled = true;
	opts->declared_class = COSCHED_CAT_UNKNOWN;
	opts->power = COSCHED_POWER_UNSET;
	opts->max_slowdown_pct = COSCHED_MAX_SLOWDOWN_PCT_DEFAULT;
	opts->numa = COSCHED_NUMA_UNSET;
}

int cosched_option_set(cosched_job_options_t *opts, const char *name,
		       const char *value, cosched_error_t *err)
{
	char field[64];
	size_t len;
	int i;

	if (!name)
		return cosched_error_set(err, "missing option name");
	/* The field errors name (every call: printf was most of its cost). */
	field[0] = field[1] = '-';
	cosched_text_copy(field + 2, sizeof(field) - 2, name);
	if (!value || !*value)
		return cosched_error_set(err, "%s: missing value", field);
	len = strlen(value);
	if (len > COSCHED_OPTION_VALUE_MAX)
		return cosched_error_set(err,
			"%s: value %s is too long (%zu bytes, at most %d)",
			field, COSCHED_QUOTE(value), len,
			COSCHED_OPTION_VALUE_MAX);

	if (!strcmp(name, COSCHED_OPT_ENABLE)) {
		i = cosched_name_parse(field, "value", enable_names, 0, 2,
				       value, false, err);
		if (i < 0)
			return -1;
		opts->enabled = i == 0;
		return 0;
	}
	if (!strcmp(name, COSCHED_OPT_APP)) {
		if (cosched_app_name_check(field, value, err))
			return -1;
		memcpy(opts->app, value, len + 1);
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
		i = cosched_name_parse(field, "value", cosched_numa_priority_names,
				       COSCHED_NUMA_HIGH, COSCHED_NUMA_COUNT,
				       value, false, err);
		if (i < 0)
			return -1;
		opts->numa = (cosched_numa_priority_t) i;
		return 0;
	}
	return cosched_error_set(err, "unknown option %s",
				 COSCHED_QUOTE(field));
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

const char *cosched_numa_priority_name(cosched_numa_priority_t p)
{
	return cosched_name_of(cosched_numa_priority_names, COSCHED_NUMA_COUNT, (int) p,
			       "unknown");
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
	/* The application name passed cosched_app_name_check(): it is safe
	 * in a log line as it is. */
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
