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
 *
 * Options describe jobs.  An srun that runs a step of a job that already
 * exists (inside a batch script or salloc, or with --jobid from outside)
 * cannot change them; the plugin says so, but only for what the user typed:
 * sbatch hands its options to the batch script's environment, so an srun
 * there sees them again as if typed, with the values the job already has.
 *
 * The plugin links nothing but libc and Slurm (plugstack.conf loads it
 * "required" in every sbatch, salloc, srun and slurmstepd).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "src/libcosched/cosched_options.h"

SPANK_PLUGIN(cosched, 1);

static cosched_job_options_t job_opts;
static char opt_value[COSCHED_OPTION_COUNT][COSCHED_OPTION_VALUE_MAX + 1];
/* Given on this command (typed, or inherited from the environment). */
static bool opt_given[COSCHED_OPTION_COUNT];
/* Typed with a value other than the one the environment hands down. */
static bool opt_typed[COSCHED_OPTION_COUNT];
/* When this srun started (CLOCK_MONOTONIC seconds). */
static double srun_started;

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
	  "minimum energy within a slowdown (default 10%, at least 1%).", 1,
	  COSCHED_OPTION_POWER, _opt_cb },
	{ COSCHED_OPT_NUMA, "high|low",
	  "NUMA priority: high keeps this job's memory local, low lets its "
	  "pages move first.", 1, COSCHED_OPTION_NUMA, _opt_cb },
	SPANK_OPTIONS_TABLE_END
};

static double _now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int _opt_cb(int val, const char *optarg, int remote)
{
	cosched_error_t err;

	if (val < 0 || val >= COSCHED_OPTION_COUNT)
		return -1;
	if (remote)
		return 0;	/* checked where the user typed it */
	/* The parser quotes and cuts the value in its message. */
	if (cosched_option_set(&job_opts, cosched_option_names[val].option,
			       optarg, &err)) {
		slurm_error("%s", err.msg);
		return -1;
	}
	/* Accepted values are at most COSCHED_OPTION_VALUE_MAX bytes. */
	snprintf(opt_value[val], sizeof(opt_value[val]), "%s", optarg);
	opt_given[val] = true;
	return 0;
}

/*
 * The value the environment hands this command for option i, as sbatch
 * passes its options to the batch script (Slurm's
 * SLURM_SPANK__SLURM_SPANK_OPTION_<plugin>_<option>, '-' written '_').
 */
static const char *_inherited(int i)
{
	char name[128];
	const char *opt = cosched_option_names[i].option;
	size_t at = (size_t) snprintf(name, sizeof(name),
				      "SLURM_SPANK__SLURM_SPANK_OPTION_cosched_");

	for (; *opt && at + 1 < sizeof(name); opt++)
		name[at++] = *opt == '-' ? '_' : *opt;
	name[at] = '\0';
	return getenv(name);
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	(void) ac;
	(void) av;
	cosched_options_init(&job_opts);
	if (ctx == S_CTX_LOCAL)
		srun_started = _now();
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

/* Store what the user gave with the job, where slurmctld keeps it.  An srun
 * that joins an existing job stores nothing there (the job exists); that is
 * found out and said in slurm_spank_local_user_init(). */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	(void) ac;
	(void) av;
	if (ctx != S_CTX_ALLOCATOR && ctx != S_CTX_LOCAL)
		return 0;
	for (int i = 0; i < COSCHED_OPTION_COUNT; i++) {
		const char *inherited;
		spank_err_t rc;

		if (!opt_given[i])
			continue;
		inherited = _inherited(i);
		opt_typed[i] = !inherited || strcmp(inherited, opt_value[i]);
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

/*
 * srun, once its job and step exist: if the job existed before this srun
 * started (a step in a batch job, in salloc, or srun --jobid), the options
 * typed here changed nothing.  Whether it existed is read from slurmctld,
 * never from the environment (SLURM_JOB_ID can say anything): the job's
 * submit time against slurmctld's clock, minus how long this srun has run.
 * A job submitted in the same second as srun started counts as srun's own
 * (then nothing is said, rather than something false).
 */
int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	job_info_msg_t *msg = NULL;
	uint32_t job_id = 0, step_id = 0;
	bool any = false;
	double elapsed;

	(void) ac;
	(void) av;
	for (int i = 0; i < COSCHED_OPTION_COUNT; i++)
		any |= opt_given[i] && opt_typed[i];
	if (!any || spank_context() != S_CTX_LOCAL ||
	    spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS)
		return 0;
	(void) spank_get_item(sp, S_JOB_STEPID, &step_id);
	elapsed = _now() - srun_started;
	if (slurm_load_job(&msg, job_id, SHOW_ALL) != SLURM_SUCCESS ||
	    !msg || msg->record_count < 1) {
		slurm_debug("cosched: cannot read job %u to check its options",
			    job_id);
		if (msg)
			slurm_free_job_info_msg(msg);
		return 0;
	}
	if ((double) msg->job_array[0].submit_time + 1.0 <
	    (double) msg->last_update - elapsed) {
		for (int i = 0; i < COSCHED_OPTION_COUNT; i++)
			if (opt_given[i] && opt_typed[i])
				slurm_info("cosched: --%s=%s ignored: this srun runs step %u.%u of job %u, which existed before it; cosched options describe jobs: give them to sbatch, salloc or an srun that starts its own job",
					   cosched_option_names[i].option,
					   opt_value[i], job_id, step_id,
					   job_id);
	}
	slurm_free_job_info_msg(msg);
	return 0;
}
