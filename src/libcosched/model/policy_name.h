/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy_name.h - the five gang policies of [NTUA-2013-gang] and cosched's own
 * model-driven one, by name (CoschedPolicy= in cosched.conf).
 *
 * From "Power-aware gang scheduling on multicore", diploma thesis, NTUA
 * CSLab, 2013 ([NTUA-2013-gang], "The five schedulers"); Greedy Thread after
 * Bhadauria and McKee, "An approach to resource-aware co-scheduling for
 * CMPs", ICS 2010.  What each policy does is in policy/gang.h and
 * cosched-policies(7).
 */
#ifndef COSCHED_POLICY_H
#define COSCHED_POLICY_H

#include "src/libcosched/base/error.h"

typedef enum {
	COSCHED_POLICY_GANG = 0,		/* "gang" */
	COSCHED_POLICY_GREEDY_THREAD,		/* "greedy_thread" */
	COSCHED_POLICY_MISS_RATE_BALANCE,	/* "miss_rate_balance" */
	COSCHED_POLICY_MISS_RATE_BOUND,		/* "miss_rate_bound" */
	COSCHED_POLICY_APP_AWARE,		/* "app_aware" */
	/* cosched's own, not a published one: the unit where the interference
	 * model predicts the least slowdown, the job's and its
	 * co-runners' (cosched-policies(7)). */
	COSCHED_POLICY_MIN_SLOWDOWN,		/* "min_slowdown" */
	COSCHED_POLICY_COUNT
} cosched_policy_t;

/* The site's policy when cosched.conf sets none: the one [NTUA-2013-gang] found
 * best (it never co-locates the pairs that slow each other most). */
#define COSCHED_POLICY_DEFAULT COSCHED_POLICY_APP_AWARE

/* The name above, or "unknown". */
const char *cosched_policy_name(cosched_policy_t p);

/* Parse a policy name in any case.  Returns 0 or -1 with err naming
 * field, quoting the value and listing the allowed names. */
int cosched_policy_parse(const char *field, const char *str,
			 cosched_policy_t *out, cosched_error_t *err);

/* Refuse a value outside the enum (a corrupted or uninitialised field). */
int cosched_policy_check(const char *field, cosched_policy_t p,
			 cosched_error_t *err);

#endif
