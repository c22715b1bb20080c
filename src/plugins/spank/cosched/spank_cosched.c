/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 * cannot change them; the plugin says so, but only for what was typed on
 * that srun's command line: sbatch hands its options to the batch script's
 * environment, and an srun there is given them again through the same
 * callback (see _typed()).
 *
 * An invalid value is refused with the parser's message, which names the
 * option and quotes the value escaped and cut (COSCHED_QUOTE), and the
 * command stops in slurm_spank_init_post_opt().  The callback itself
 * never fails: Slurm follows a failed callback with a message of its own
 * that quotes the value whole ("Invalid --cosched-class argument: <10 KB>",
 * or "Invalid argument (<10 KB>) for environment variable: ...").
 *
 * The plugin links nothing but libc and Slurm (plugstack.conf loads it
 * "required" in every sbatch, salloc, srun and slurmstepd).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "src/libcosched/model/options.h"
#include "src/plugins/common/load_job.h"

SPANK_PLUGIN(cosched, 1);

static cosched_job_options_t job_opts;
static char opt_value[COSCHED_OPTION_COUNT][COSCHED_OPTION_VALUE_MAX + 1];
/* Given on this command (typed, or inherited from the environment). */
static bool opt_given[COSCHED_OPTION_COUNT];
/* The value in opt_value was typed on this command's own command line. */
static bool opt_typed[COSCHED_OPTION_COUNT];
/* A value was refused (the message is out): the command must stop. */
static bool opt_refused;
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

/*
 * Whether optarg lies in this process's command line, the argument strings
 * the kernel placed at exec (arg_start..arg_end of /proc/self/stat, fields
 * 48 and 49).  Slurm hands the callback the very pointer getopt_long()
 * found in argv (after "=", or the next argument), and for an option taken
 * from the environment (spank_process_env_options(): srun in a batch job
 * gets sbatch's options back from SLURM_SPANK__SLURM_SPANK_OPTION_cosched_*)
 * the pointer getenv() returned, which lies in the environment.
 *
 * Why not compare the value with that environment variable, as 0.2.0 did:
 * a value typed equal to the inherited one (srun --cosched-class=mem in a
 * job submitted with it, or srun --jobid=N into another job from a shell
 * whose job had the same value) was taken for inherited and silently
 * dropped.  Why not srun's argv from SPANK: slurm_spank_init()'s ac/av are
 * the plugin's arguments in plugstack.conf, not the command's.  Why not the
 * job's recorded options: slurm_load_job() does not return a job's SPANK
 * environment.  When the range cannot be read, nothing counts as typed:
 * better say nothing than something false.
 */
static bool _typed(const char *optarg)
{
	static unsigned long arg_start, arg_end;
	static bool read_once;
	uintptr_t p = (uintptr_t) optarg;

	if (!read_once) {
		char buf[2048], *at;
		size_t n = 0;
		FILE *f = fopen("/proc/self/stat", "re");

		read_once = true;
		if (f) {
			n = fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
		}
		buf[n] = '\0';
		/* Fields after the command name "(...)", which may hold
		 * blanks and parentheses: the state is field 3. */
		at = strrchr(buf, ')');
		for (int field = 2; at && field < 48; field++)
			at = strchr(at + 1, ' ');
		if (!at || sscanf(at, " %lu %lu", &arg_start, &arg_end) != 2 ||
		    arg_start >= arg_end) {
			slurm_debug("cosched: cannot read the command line's range from /proc/self/stat");
			arg_start = arg_end = 0;
		}
	}
	return optarg && p >= arg_start && p < arg_end;
}

static int _opt_cb(int val, const char *optarg, int remote)
{
	cosched_error_t err;

	if (val < 0 || val >= COSCHED_OPTION_COUNT)
		return -1;
	if (remote)
		return 0;	/* checked where the user typed it */
	/* The parser quotes and cuts the value in its message; returning
	 * 0 keeps Slurm from adding one that quotes it whole.  The command
	 * stops in slurm_spank_init_post_opt(). */
	if (cosched_option_set(&job_opts, cosched_option_names[val].option,
			       optarg, &err)) {
		slurm_error("%s", err.msg);
		opt_refused = true;
		return 0;
	}
	/* Accepted values are at most COSCHED_OPTION_VALUE_MAX bytes. */
	snprintf(opt_value[val], sizeof(opt_value[val]), "%s", optarg);
	opt_given[val] = true;
	/* Slurm reads the environment first, the command line last: a
	 * typed value replaces an inherited one, and so does its flag. */
	opt_typed[val] = _typed(optarg);
	return 0;
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
	if (opt_refused)
		return -1;	/* _opt_cb() said why */
	for (int i = 0; i < COSCHED_OPTION_COUNT; i++) {
		spank_err_t rc;

		if (!opt_given[i])
			continue;
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
	if (cosched_load_job(&msg, job_id, SHOW_ALL) != SLURM_SUCCESS ||
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
