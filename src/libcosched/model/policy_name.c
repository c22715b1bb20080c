/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model/policy_name.c - policy names. */
#include "src/libcosched/base/nametable.h"
#include "src/libcosched/model/policy_name.h"

static const char *const policy_names[COSCHED_POLICY_COUNT] = {
	[COSCHED_POLICY_GANG] = "gang",
	[COSCHED_POLICY_GREEDY_THREAD] = "greedy_thread",
	[COSCHED_POLICY_MISS_RATE_BALANCE] = "miss_rate_balance",
	[COSCHED_POLICY_MISS_RATE_BOUND] = "miss_rate_bound",
	[COSCHED_POLICY_APP_AWARE] = "app_aware",
	[COSCHED_POLICY_MIN_SLOWDOWN] = "min_slowdown",
	[COSCHED_POLICY_NONE] = "none",
};

const char *cosched_policy_name(cosched_policy_t p)
{
	return cosched_name_of(policy_names, COSCHED_POLICY_COUNT, (int) p,
			       "unknown");
}

bool cosched_policy_places(cosched_policy_t p)
{
	return (int) p >= 0 && p < COSCHED_POLICY_PLACING_COUNT;
}

int cosched_policy_parse(const char *field, const char *str, unsigned flags,
			 cosched_policy_t *out, cosched_error_t *err)
{
	int i = cosched_name_parse(field, "value", policy_names, 0,
				   flags & COSCHED_POLICY_PLACING ?
				   COSCHED_POLICY_PLACING_COUNT :
				   COSCHED_POLICY_COUNT,
				   str, !(flags & COSCHED_POLICY_EXACT), err);

	if (i < 0)
		return -1;
	*out = (cosched_policy_t) i;
	return 0;
}

int cosched_policy_check(const char *field, cosched_policy_t p,
			 unsigned flags, cosched_error_t *err)
{
	if ((int) p < 0 || p >= COSCHED_POLICY_COUNT)
		return cosched_error_set(err, "%s: unknown policy %d", field,
					 (int) p);
	if ((flags & COSCHED_POLICY_PLACING) && !cosched_policy_places(p))
		return cosched_error_set(err,
			"%s: none places no job (cons_tres does)", field);
	return 0;
}
