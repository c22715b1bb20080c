/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.h - a job's cosched options (the --cosched-* flags).
 *
 * One parser serves every place that reads them: the SPANK plugin validates
 * them at submit (so a malformed flag is refused there), and the controller
 * and node code parse them again from the job's SPANK environment, which
 * slurmctld keeps with the job.  Never from the task environment: the user
 * can change SLURM_SPANK_* there.
 */
#ifndef COSCHED_OPTIONS_H
#define COSCHED_OPTIONS_H

#include <stdbool.h>

#include "src/libcosched/base/appname.h"
#include "src/libcosched/model/category.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/model/power_policy.h"

typedef enum {
	COSCHED_NUMA_UNSET = 0,	/* "default" */
	COSCHED_NUMA_HIGH,	/* keep this job's memory local */
	COSCHED_NUMA_LOW,	/* this job's pages may be moved first */
	COSCHED_NUMA_COUNT
} cosched_numa_priority_t;

typedef struct {
	bool enabled;			/* false after --cosched=off */
	char app[COSCHED_APP_NAME_MAX + 1];	/* "" = use the job name */
	cosched_category_t declared_class;	/* UNKNOWN = not declared */
	cosched_power_policy_t power;
	double max_slowdown_pct;	/* for COSCHED_POWER_ENERGY */
	cosched_numa_priority_t numa;
} cosched_job_options_t;

/* Longest option value, in bytes (the longest application name): every
 * value fits a fixed buffer wherever it travels. */
#define COSCHED_OPTION_VALUE_MAX COSCHED_APP_NAME_MAX

/* The option names, without the leading "--" (also the SPANK names). */
#define COSCHED_OPT_ENABLE	"cosched"
#define COSCHED_OPT_APP		"cosched-app"
#define COSCHED_OPT_CLASS	"cosched-class"
#define COSCHED_OPT_POWER	"cosched-power"
#define COSCHED_OPT_NUMA	"cosched-numa"

/*
 * Names under which the SPANK plugin stores the options in the job's
 * control environment.  slurmctld keeps them as given (job_ptr->
 * spank_job_env); prolog, epilog and slurmd see them with Slurm's "SPANK_"
 * prefix; the batch script and tasks see SLURM_SPANK_*, which the user can
 * change and which nothing reads.
 */
#define COSCHED_ENV_ENABLE	"COSCHED"
#define COSCHED_ENV_APP		"COSCHED_APP"
#define COSCHED_ENV_CLASS	"COSCHED_CLASS"
#define COSCHED_ENV_POWER	"COSCHED_POWER"
#define COSCHED_ENV_NUMA	"COSCHED_NUMA"
#define COSCHED_ENV_PREFIX	"SPANK_"

/* The options, in one order shared by every table that lists them. */
typedef enum {
	COSCHED_OPTION_ENABLE,
	COSCHED_OPTION_APP,
	COSCHED_OPTION_CLASS,
	COSCHED_OPTION_POWER,
	COSCHED_OPTION_NUMA,
	COSCHED_OPTION_COUNT
} cosched_option_t;

/* Each option's name (COSCHED_OPT_*) and control-environment name
 * (COSCHED_ENV_*), indexed by cosched_option_t. */
typedef struct {
	const char *option;
	const char *env;
} cosched_option_name_t;

extern const cosched_option_name_t cosched_option_names[COSCHED_OPTION_COUNT];

/* Defaults: enabled, nothing declared. */
void cosched_options_init(cosched_job_options_t *opts);

/*
 * Parse one option.  name is an option name above (COSCHED_OPT_*), value
 * its argument (at most COSCHED_OPTION_VALUE_MAX bytes).  On error opts is
 * left unchanged and err names the option, quotes the value and says what
 * is allowed.
 */
int cosched_option_set(cosched_job_options_t *opts, const char *name,
		       const char *value, cosched_error_t *err);

/*
 * Parse the options from a job's SPANK environment (an array of
 * "NAME=value" strings, count entries, or NULL-terminated when count < 0):
 * variables COSCHED_ENV_*, with or without the COSCHED_ENV_PREFIX.
 * Unrelated variables are ignored.  Any invalid value fails the whole
 * parse (nothing half-applied) with an error naming it.
 */
int cosched_options_from_env(cosched_job_options_t *opts, char **env,
			     int count, cosched_error_t *err);

/* "default", "high", "low" (--cosched-numa=, the record's
 * numa_priority=). */
extern const char *const cosched_numa_priority_names[COSCHED_NUMA_COUNT];
const char *cosched_numa_priority_name(cosched_numa_priority_t p);

/*
 * One-line description, e.g. "app=stream class=mem power=energy:10%
 * numa=high", or "off".  Returns buf.
 */
char *cosched_options_format(const cosched_job_options_t *opts, char *buf,
			     int len);

#endif
