/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * power_policy.h - how much speed a job trades for energy.
 *
 * A job chooses with --cosched-power, a site sets the default with
 * PowerPolicy= and MaxSlowdown= in cosched.conf; both are read by the one
 * parser below.  The choices themselves (which frequency each policy
 * picks) are in model/power.h.  Source: "Power-aware gang scheduling
 * on multicore", diploma thesis, NTUA CSLab, 2013 ("DVFS model" and
 * "Metrics": EDP = E x t).
 */
#ifndef COSCHED_POWER_POLICY_H
#define COSCHED_POWER_POLICY_H

#include <stdbool.h>

#include "src/libcosched/base/error.h"

typedef enum {
	COSCHED_POWER_UNSET = 0,	/* site default applies ("default") */
	COSCHED_POWER_PERFORMANCE,	/* highest frequency */
	COSCHED_POWER_EDP,		/* minimum energy-delay product */
	COSCHED_POWER_ENERGY,		/* minimum energy within a slowdown */
	COSCHED_POWER_COUNT
} cosched_power_policy_t;

/* The site's policy when cosched.conf sets none: no job is slowed. */
#define COSCHED_POWER_POLICY_DEFAULT COSCHED_POWER_PERFORMANCE

/*
 * Maximum slowdown of the energy policy, in percent.  The floor: a
 * slowdown below 1% is below what repeated runs of one program reproduce
 * (the 2013 gang-scheduling thesis measures DVFS steps of about 5% in time), so
 * it could only ever select the highest frequency; asking for it is refused
 * rather than silently treated as "performance".
 */
#define COSCHED_MAX_SLOWDOWN_PCT_DEFAULT 10.0
#define COSCHED_MAX_SLOWDOWN_PCT_MIN 1.0
#define COSCHED_MAX_SLOWDOWN_PCT_MAX 100.0

/* "default", "performance", "edp", "energy"; "unknown" outside. */
const char *cosched_power_policy_name(cosched_power_policy_t p);

/*
 * Parse "performance", "edp", "energy" or "energy:MAXSLOWDOWN[%]".
 * ignore_case: names in any case (cosched.conf); the job option is
 * case-sensitive.  For "energy" *max_slowdown_pct receives the figure, or
 * COSCHED_MAX_SLOWDOWN_PCT_DEFAULT when none is given; it is untouched
 * otherwise.  *slowdown_given (may be NULL) tells whether a figure was
 * given.  Returns 0, or -1 with nothing changed and err naming field and
 * quoting the value.
 */
int cosched_power_policy_parse(const char *field, const char *value,
			       bool ignore_case,
			       cosched_power_policy_t *policy,
			       double *max_slowdown_pct, bool *slowdown_given,
			       cosched_error_t *err);

/*
 * Parse a maximum slowdown written "N" or "N%" and check its range (the one
 * parser of MaxSlowdown= and of the figure in energy:N%).  Returns 0 with
 * *pct set; 1 when text is not a number, err untouched (the caller says
 * which form it expected); -1 when out of range or out of memory, err set.
 */
int cosched_max_slowdown_parse(const char *field, const char *text,
			       double *pct, cosched_error_t *err);

/* The one range of a maximum slowdown: [MIN, MAX] percent.  text (may be
 * NULL) is the figure as written, quoted in the message. */
int cosched_max_slowdown_check(const char *field, const char *text,
			       double pct, cosched_error_t *err);

#endif
