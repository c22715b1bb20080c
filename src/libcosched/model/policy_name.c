/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model/policy_name.c - gang policy names. */
#include "src/libcosched/base/nametable.h"
#include "src/libcosched/model/policy_name.h"

static const char *const policy_names[COSCHED_POLICY_COUNT] = {
	[COSCHED_POLICY_GANG] = "gang",
	[COSCHED_POLICY_GREEDY_THREAD] = "greedy_thread",
	[COSCHED_POLICY_MISS_RATE_BALANCE] = "miss_rate_balance",
	[COSCHED_POLICY_MISS_RATE_BOUND] = "miss_rate_bound",
	[COSCHED_POLICY_APP_AWARE] = "app_aware",
	[COSCHED_POLICY_MIN_SLOWDOWN] = "min_slowdown",
};

const char *cosched_policy_name(cosched_policy_t p)
{
	return cosched_name_of(policy_names, COSCHED_POLICY_COUNT, (int) p,
			       "unknown");
}

int cosched_policy_parse(const char *field, const char *str,
			 cosched_policy_t *out, cosched_error_t *err)
{
	int i = cosched_name_parse(field, "value", policy_names, 0,
				   COSCHED_POLICY_COUNT, str, true, err);

	if (i < 0)
		return -1;
	*out = (cosched_policy_t) i;
	return 0;
}

int cosched_policy_check(const char *field, cosched_policy_t p,
			 cosched_error_t *err)
{
	if ((int) p < 0 || p >= COSCHED_POLICY_COUNT)
		return cosched_error_set(err, "%s: unknown policy %d", field,
					 (int) p);
	return 0;
}
