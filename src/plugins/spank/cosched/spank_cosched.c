/*
 * spank_cosched.c - the --cosched-* options of sbatch, salloc and srun.
 *
 * Each value is checked by the decision core's option parser when the user
 * types it, so a malformed flag is refused at submit with a message naming
 * the option, the value and what is allowed.  Valid values are stored in the
 * job's control environment (spank_job_control_setenv), which slurmctld
 * keeps with the job as SPANK_COSCHED_*: that is where the select plugin and
 * the node code read them.  The copy the batch script and tasks see
 * (SLURM_SPANK_COSCHED_*) is the user's to change and is never trusted.
 *
 * sbatch and salloc ignore a static spank_options table, so the options are
 * registered from slurm_spank_init() (they then appear in --help).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "src/libcosched/cosched_options.h"

SPANK_PLUGIN(cosched, 1);

static cosched_job_options_t job_opts;
static char opt_value[COSCHED_OPTION_COUNT][COSCHED_APP_NAME_MAX + 1];
static int opt_given[COSCHED_OPTION_COUNT];

static int _opt_cb(int val, const char *optarg, int remote);

static struct spank_option options[] = {
	{ COSCHED_OPT_ENABLE, "on|off",
	  "Opt this job out of cosched co-scheduling (off) or in (on, the "
	  "default).", 1, COSCHED_OPTION_ENABLE, _opt_cb },
	{ COSCHED_OPT_APP, "NAME",
	  "Application name under which cosched keeps this job's profile "
	  "(default: the job name).", 1, COSCHED_OPTION_APP, _opt_cb },
	{ COSCHED_OPT_CLASS, "cpu|lim|mem|rand",
	  "Declared memory behaviour, used while cosched has no measured "
	  "profile of the application.", 1, COSCHED_OPTION_CLASS, _opt_cb },
	{ COSCHED_OPT_POWER, "performance|edp|energy[:MAXSLOWDOWN%]",
	  "Energy policy: highest frequency, minimum energy-delay product, or "
	  "minimum energy within a slowdown (default 10%).", 1, COSCHED_OPTION_POWER,
	  _opt_cb },
	{ COSCHED_OPT_NUMA, "high|low",
	  "NUMA priority: high keeps this job's memory local, low lets its "
	  "pages move first.", 1, COSCHED_OPTION_NUMA, _opt_cb },
	SPANK_OPTIONS_TABLE_END
};

static int _opt_cb(int val, const char *optarg, int remote)
{
	cosched_error_t err;

	if (val < 0 || val >= COSCHED_OPTION_COUNT)
		return -1;
	if (remote)
		return 0;	/* checked where the user typed it */
	if (cosched_option_set(&job_opts, cosched_option_names[val].option,
			       optarg, &err)) {
		slurm_error("%s", err.msg);
		return -1;
	}
	/* The parser bounds every accepted value (names at 64 bytes). */
	snprintf(opt_value[val], sizeof(opt_value[val]), "%s", optarg);
	opt_given[val] = 1;
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	(void) ac;
	(void) av;
	cosched_options_init(&job_opts);
	if (ctx != S_CTX_ALLOCATOR && ctx != S_CTX_LOCAL &&
	    ctx != S_CTX_REMOTE)
		return 0;
	for (struct spank_option *o = options; o->name; o++) {
		spank_err_t rc = spank_option_register(sp, o);
		if (rc == ESPANK_SUCCESS)
			continue;
		slurm_error("cosched: cannot register --%s: %s", o->name,
			    spank_strerror(rc));
		/*
		 * Refusing in sbatch/salloc/srun stops a submission the
		 * user can retry; in slurmstepd (the plugin is "required")
		 * it would fail the job step.
		 */
		if (ctx != S_CTX_REMOTE)
			return -1;
	}
	return 0;
}

/* Store what the user gave with the job, where slurmctld keeps it. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	(void) ac;
	(void) av;
	if (ctx != S_CTX_ALLOCATOR && ctx != S_CTX_LOCAL)
		return 0;
	for (int i = 0; i < COSCHED_OPTION_COUNT; i++) {
		spank_err_t rc;
		if (!opt_given[i])
			continue;
		/*
		 * srun inside an existing job creates a step, not a job:
		 * there is no job record left to carry the option.  Say so
		 * rather than drop it silently.
		 */
		if (ctx == S_CTX_LOCAL && getenv("SLURM_JOB_ID")) {
			slurm_info("cosched: --%s=%s ignored: srun inside job %s starts a step; give cosched options to sbatch or salloc",
				   cosched_option_names[i].option,
				   opt_value[i], getenv("SLURM_JOB_ID"));
			continue;
		}
		rc = spank_job_control_setenv(sp, cosched_option_names[i].env,
					      opt_value[i], 1);
		if (rc != ESPANK_SUCCESS) {
			slurm_error("cosched: cannot record --%s=%s: %s",
				    cosched_option_names[i].option, opt_value[i],
				    spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}
