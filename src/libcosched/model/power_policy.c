/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model/power_policy.c - parse and name power policies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/model/power_policy.h"
#include "src/libcosched/base/text.h"

static const char *const power_names[COSCHED_POWER_COUNT] = {
	[COSCHED_POWER_UNSET] = "default",
	[COSCHED_POWER_PERFORMANCE] = "performance",
	[COSCHED_POWER_EDP] = "edp",
	[COSCHED_POWER_ENERGY] = "energy",
};

const char *cosched_power_policy_name(cosched_power_policy_t p)
{
	return cosched_name_of(power_names, COSCHED_POWER_COUNT, (int) p,
			       "unknown");
}

int cosched_max_slowdown_check(const char *field, const char *text,
			       double pct, cosched_error_t *err)
{
	char shown[48];

	if (pct >= COSCHED_MAX_SLOWDOWN_PCT_MIN &&
	    pct <= COSCHED_MAX_SLOWDOWN_PCT_MAX)
		return 0;
	cosched_number_text(shown, sizeof(shown), text, pct);
	return cosched_error_set(err,
		"%s: maximum slowdown %s out of range (%g <= MAXSLOWDOWN <= %g, in percent)",
		field, shown, COSCHED_MAX_SLOWDOWN_PCT_MIN,
		COSCHED_MAX_SLOWDOWN_PCT_MAX);
}

int cosched_max_slowdown_parse(const char *field, const char *text,
			       double *pct, cosched_error_t *err)
{
	size_t n = strlen(text);
	char *num;
	double x;
	int rc;

	if (n && text[n - 1] == '%')
		n--;
	if (!n)
		return 1;
	num = strndup(text, n);
	if (!num)
		return cosched_error_set(err, "%s: out of memory", field);
	if (cosched_parse_number(num, &x))
		rc = 1;
	else
		rc = cosched_max_slowdown_check(field, num, x, err);
	free(num);
	if (!rc)
		*pct = x;
	return rc;
}

/* "energy", "energy:15", "energy:15%" or "energy:7.5%". */
int cosched_power_policy_parse(const char *field, const char *value,
			       bool ignore_case,
			       cosched_power_policy_t *policy,
			       double *max_slowdown_pct, bool *slowdown_given,
			       cosched_error_t *err)
{
	int (*ncmp)(const char *, const char *, size_t) =
		ignore_case ? strncasecmp : strncmp;
	double pct;
	int i;

	if (slowdown_given)
		*slowdown_given = false;
	if (value && !ncmp(value, "energy:", 7)) {
		switch (cosched_max_slowdown_parse(field, value + 7, &pct,
						   err)) {
		case 0:
			break;
		case 1:
			return cosched_error_set(err,
				"%s: invalid maximum slowdown in %s (expected energy:MAXSLOWDOWN%%, e.g. energy:10%%)",
				field, COSCHED_QUOTE(value));
		default:
			return -1;
		}
		*policy = COSCHED_POWER_ENERGY;
		*max_slowdown_pct = pct;
		if (slowdown_given)
			*slowdown_given = true;
		return 0;
	}
	/* A plain name: performance, edp or energy ("default" is what an
	 * unset policy is called, not a value anybody types). */
	i = cosched_name_parse(field, "value", power_names,
			       COSCHED_POWER_PERFORMANCE, COSCHED_POWER_COUNT,
			       value, ignore_case, err);
	if (i < 0)
		return cosched_error_set(err,
			"%s: invalid value %s (allowed: performance, edp, energy[:MAXSLOWDOWN%%])",
			field, COSCHED_QUOTE(value ? value : ""));
	*policy = (cosched_power_policy_t) i;
	if (*policy == COSCHED_POWER_ENERGY)
		*max_slowdown_pct = COSCHED_MAX_SLOWDOWN_PCT_DEFAULT;
	return 0;
}
