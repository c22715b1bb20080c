/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy_name.h - CoschedPolicy= in cosched.conf and policy= in the
 * decision record: the five gang policies of "Power-aware gang scheduling on
 * multicore" (NTUA thesis, 2013), cosched's own model-driven one, and none, by
 * name.
 *
 * From "Power-aware gang scheduling on multicore", diploma thesis, NTUA
 * CSLab, 2013 ("The five schedulers"); Greedy Thread after Bhadauria and
 * McKee, "An approach to resource-aware co-scheduling for CMPs", ICS 2010.
 * What each policy does is in policy/gang.h and cosched-policies(7).
 */
#ifndef COSCHED_POLICY_H
#define COSCHED_POLICY_H

#include <stdbool.h>

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
	/* cons_tres places, cosched records each job's class and
	 * co-runners.  Not a gang policy: the code that places refuses it
	 * (COSCHED_POLICY_PLACING). */
	COSCHED_POLICY_NONE,			/* "none" */
	COSCHED_POLICY_COUNT
} cosched_policy_t;

/* The policies that place jobs, the gang policies: every one before
 * none, 0 .. COSCHED_POLICY_PLACING_COUNT - 1. */
#define COSCHED_POLICY_PLACING_COUNT COSCHED_POLICY_NONE

/* The site's policy when cosched.conf sets none: the one the 2013
 * gang-scheduling thesis found best (it never co-locates the pairs that slow
 * each other most). */
#define COSCHED_POLICY_DEFAULT COSCHED_POLICY_APP_AWARE

/* Flags of cosched_policy_parse and cosched_policy_check. */
#define COSCHED_POLICY_EXACT	0x1	/* the name as written (the
					 * record's strict parser); without
					 * it any case (cosched.conf) */
#define COSCHED_POLICY_PLACING	0x2	/* a policy that places: none is
					 * refused (the gang policies' code,
					 * the simulator) */

/* The name above, or "unknown". */
const char *cosched_policy_name(cosched_policy_t p);

/* Whether p is a gang policy (not none, not out of the enum). */
bool cosched_policy_places(cosched_policy_t p);

/* Parse a policy name (flags above).  Returns 0 or -1 with err naming
 * field, quoting the value and listing the allowed names. */
int cosched_policy_parse(const char *field, const char *str, unsigned flags,
			 cosched_policy_t *out, cosched_error_t *err);

/* Refuse a value outside the enum (a corrupted or uninitialised field),
 * and with COSCHED_POLICY_PLACING none too. */
int cosched_policy_check(const char *field, cosched_policy_t p,
			 unsigned flags, cosched_error_t *err);

#endif
