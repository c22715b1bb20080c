/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  task_cosched.c - cosched node-side task plugin: each step's tasks run on
 *  the cores the controller allocated, with their memory on the NUMA nodes
 *  local to those cores, at the frequency the job's power policy chose, and
 *  the node's cpufreq settings always come back.
 *
 *  Stacked after task/affinity (TaskPlugin=task/affinity,task/cosched), so
 *  its pre_launch narrows the mask task/affinity set.  Like task/cgroup,
 *  each part (task_cosched_cpuset.c, _membind.c, _cpufreq.c) has the same
 *  small set of functions (task_cosched.h) and init() decides once, from
 *  cosched.conf, which parts are on.
 *
 *  Call order on a node (both Slurm series):
 *    slurmd:       init -> cpufreq sweep; every launch request -> sweep
 *    slurmstepd:   init; pre_setuid (root, once per step): credential
 *                  cores -> CPUs, the decision record from slurmctld, each
 *                  part's step_start; pre_launch (each task, as the user,
 *                  after task/affinity): cpuset, then membind (which binds
 *                  the NUMA nodes of the mask cpuset left); post_step
 *                  (root): cpufreq step_end.
 *  The hooks that exist in one Slurm series only are in compat_<series>.c.
 *
 *  Every hook returns SLURM_SUCCESS: a cosched fault must never fail a job
 *  or drain a node.  Values from the job's SPANK environment are untrusted
 *  (any user can submit a job with one through libslurm): they reach the
 *  log only through the core's messages, which quote and cut them.
\*****************************************************************************/

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

/* Map log functions to their slurm_ names, as Slurm's own plugins do. */
#include "src/common/slurm_xlator.h"

#include "src/common/env.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"
#include "src/slurmd/slurmstepd/slurmstepd_job.h"

#include "src/libcosched/base/kv.h"
#include "src/libcosched/model/options.h"
#include "src/plugins/common/plugin_conf.h"

#include "task_cosched.h"

/* plugin_type, which every part's messages start with, is in
 * task_cosched_common.c with the rest of what the parts share. */
const char plugin_name[] = "cosched task plugin";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Variables the plugin adds to every task's environment (informational:
 * the task may change them; nothing on the node reads them back). */
#define ENV_JOB_CORES "COSCHED_JOB_CORES"
#define ENV_STEP_CORES "COSCHED_STEP_CORES"

static bool part_cpuset, part_membind, part_cpufreq, part_profile, part_numa;
static bool conf_ok;

/* The one step this slurmstepd runs (pre_setuid fills it; the tasks,
 * forked after, inherit it). */
static task_cosched_step_t step;
static bool step_valid;

/*
 * DebugFlags=Timing on a node: the CPU time slurmstepd spends in this
 * plugin for its step, by part, said in one line at the step's end, and
 * how long the tasks waited for the sampler to attach (wall clock: they
 * do not run until it answers).  What cosched costs a step on the node,
 * beside slurmctld's own timing line.  The thread's CPU clock (a system
 * call) is read once in init, then only with the flag.
 */
static struct {
	bool on;
	double init, start, record, sampler, tasks, end;	/* CPU, s */
	double attach_wall;					/* s */
} timing;

static double _clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double _cpu_now(void)
{
	return timing.on ? _clock(CLOCK_THREAD_CPUTIME_ID) : 0.0;
}

static void _timing_log(void)
{
	if (!timing.on)
		return;
	info("%s: %s: timing: %.0f us CPU in task/cosched: init %.0f, step start %.0f (record %.0f, sampler %.0f), tasks %.0f, step end %.0f; the tasks waited %.0f us for the sampler",
	     plugin_type, step.step_name,
	     (timing.init + timing.start + timing.tasks + timing.end) * 1e6,
	     timing.init * 1e6, timing.start * 1e6, timing.record * 1e6,
	     timing.sampler * 1e6, timing.tasks * 1e6, timing.end * 1e6,
	     timing.attach_wall * 1e6);
}

static const char *_node_name(void)
{
	return conf && conf->node_name ? conf->node_name : NULL;
}

/* Whether a part on needs the node's topology. */
static bool _topology_needed(void)
{
	return part_cpuset || part_membind || part_cpufreq;
}

/* The topology of this node (slurmstepd; slurmd keeps a copy of it). */
static void _load_topology(void)
{
	if (!task_cosched_topo && _topology_needed())
		task_cosched_topo =
			task_cosched_topology_step_load(_node_name());
}

/* What a newer minor of the node's state files carried (the cpufreq
 * journal, shared with steps of another release during an upgrade). */
static void _kv_note(const char *msg)
{
	debug("%s: %s", plugin_type, msg);
}

extern int init(void)
{
	cosched_error_t err, skipped;
	char *path = cosched_plugin_conf_path();
	/* Read before it is known whether the flag is on: one call. */
	double c0 = running_in_slurmstepd() ?
		    _clock(CLOCK_THREAD_CPUTIME_ID) : 0.0;

	cosched_kv_set_note_hook(_kv_note);
	if (running_in_slurmd())
		cosched_plugin_privacy_export();

	xfree(task_cosched_conf_path);
	/* The file, or this node's last good copy of it
	 * (task_cosched_conf.c); the sampler reads the same. */
	conf_ok = !task_cosched_conf_load(path, &task_cosched_conf,
					  &task_cosched_conf_path, &skipped,
					  &err);
	if (conf_ok && skipped.msg[0])
		task_cosched_conf_skipped(&skipped);
	if (!conf_ok) {
		/* Never fail slurmd or a step for a bad file: enforce
		 * nothing, and say why at every start.  Restoring goes on,
		 * with the defaults (the file left them untouched). */
		error("%s: %s: enforcing nothing on this node", plugin_type,
		      err.msg);
		cosched_conf_init(&task_cosched_conf);
		task_cosched_conf_path = xstrdup(path);
		xfree(path);
		if (running_in_slurmd())
			task_cosched_topology_node_init(false);
		if (running_in_slurmd() && _node_name())
			task_cosched_cpufreq_node_sweep(_node_name());
		return SLURM_SUCCESS;
	}
	part_cpuset = task_cosched_conf.enforce_cores &&
		      !task_cosched_cpuset_init(&task_cosched_conf);
	part_membind = task_cosched_conf.enforce_membind &&
		       !task_cosched_membind_init(&task_cosched_conf);
	/* cpufreq's init runs even when EnforceCpuFreq=no: restoring what an
	 * earlier configuration changed must always work. */
	part_cpufreq = !task_cosched_cpufreq_init(&task_cosched_conf) &&
		       task_cosched_conf.enforce_cpufreq;
	/* Step files for the NUMA manager: slurmstepd's, always on (they
	 * are written only where the manager made NumaStepDir). */
	part_numa = running_in_slurmstepd();
	/* The sampler runs from slurmstepd only. */
	part_profile = running_in_slurmstepd() &&
		       !task_cosched_profile_init(&task_cosched_conf);
	debug("%s loaded from %s: cores %s, membind %s, cpufreq %s, profile %s",
	      plugin_name, task_cosched_conf_path, part_cpuset ? "on" : "off",
	      part_membind ? "on" : "off", part_cpufreq ? "on" : "off",
	      part_profile ? "on" : "off");
	xfree(path);
	if (running_in_slurmd())
		task_cosched_topology_node_init(_topology_needed());
	if (running_in_slurmd() && _node_name())
		task_cosched_cpufreq_node_sweep(_node_name());
	timing.on = running_in_slurmstepd() &&
		    (task_cosched_conf.debug_flags & COSCHED_DEBUG_TIMING);
	if (timing.on)
		timing.init = _cpu_now() - c0;
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	if (step_valid) {
		xfree(step.record);
	}
	step_valid = false;
	task_cosched_cpuset_fini();
	task_cosched_membind_fini();
	task_cosched_cpufreq_fini();
	task_cosched_profile_fini();
	cosched_topology_free(task_cosched_topo);
	task_cosched_topo = NULL;
	xfree(task_cosched_conf_path);
	return SLURM_SUCCESS;
}

/*
 * The launch requests carry the job's SPANK environment: from slurmctld for
 * a batch job, from srun for a step (which the user controls): logged, never
 * acted upon.
 */
static void _log_options(const char *what, uint32_t job_id, char **env,
			 uint32_t env_size)
{
	cosched_job_options_t opts;
	cosched_error_t err;
	char buf[256];

	cosched_options_init(&opts);
	if (cosched_options_from_env(&opts, env, env_size, &err))
		error("%s: JobId=%u %s: %s", plugin_type, job_id, what,
		      err.msg);
	else
		debug("%s: JobId=%u %s: cosched options %s", plugin_type,
		      job_id, what,
		      cosched_options_format(&opts, buf, sizeof(buf)));
}

/* slurmd: a changed cosched.conf is read again before the step that will
 * read it starts, so a good one is kept and a bad one said once. */
static void _conf_watch(void)
{
	char *path = cosched_plugin_conf_path();

	task_cosched_conf_watch(path);
	xfree(path);
}

void task_cosched_batch_request(uint32_t job_id, char **env,
				uint32_t env_size)
{
	_log_options("batch request", job_id, env, env_size);
	_conf_watch();
	task_cosched_cpufreq_node_sweep(_node_name());
	task_cosched_record_sweep(_node_name());
	task_cosched_record_from_launch(job_id, env, env_size);
}

extern int task_p_slurmd_launch_request(launch_tasks_request_msg_t *req,
					uint32_t node_id, char **err_msg)
{
	_log_options("launch request", req->step_id.job_id,
		     req->spank_job_env, req->spank_job_env_size);
	task_cosched_cpufreq_node_sweep(_node_name());
	task_cosched_record_sweep(_node_name());
	return SLURM_SUCCESS;
}

/* A core list of the credential ("0-3,6" in Slurm's numbering). */
static bool _parse_cores(const char *what, const char *list,
			 cosched_idset_t *set)
{
	cosched_error_t err;

	if (!list || !*list)
		return false;
	if (cosched_idset_parse(what, list, set, &err)) {
		error("%s: %s: %s", plugin_type, step.step_name, err.msg);
		return false;
	}
	return true;
}

static bool _user_mem_bind(stepd_step_rec_t *job)
{
	return (job->mem_bind_type & ~(MEM_BIND_VERBOSE | MEM_BIND_SORT)) != 0;
}

/* --cpu-freq on the step, or CpuFreqDef: Slurm sets the step's
 * frequency itself (and restores it), and cosched stands aside. */
static bool _user_cpu_freq(stepd_step_rec_t *job)
{
	return (job->cpu_freq_min && job->cpu_freq_min != NO_VAL) ||
	       (job->cpu_freq_max && job->cpu_freq_max != NO_VAL) ||
	       (job->cpu_freq_gov && job->cpu_freq_gov != NO_VAL) ||
	       (slurm_conf.cpu_freq_def && slurm_conf.cpu_freq_def != NO_VAL);
}

/* Runs as root in slurmstepd, once per step, before the tasks start. */
extern int task_p_pre_setuid(stepd_step_rec_t *job)
{
	cosched_error_t err;
	char why[COSCHED_ERROR_MSG_LEN];
	double c0, c1;

	debug("%s: %ps on %s: job cores %s, step cores %s", plugin_type,
	      &job->step_id, job->node_name,
	      job->job_alloc_cores ? job->job_alloc_cores : "(none)",
	      job->step_alloc_cores ? job->step_alloc_cores : "(none)");
	if (job->job_alloc_cores)
		env_array_overwrite(&job->env, ENV_JOB_CORES,
				    job->job_alloc_cores);
	if (job->step_alloc_cores)
		env_array_overwrite(&job->env, ENV_STEP_CORES,
				    job->step_alloc_cores);
	if (!conf_ok)
		return SLURM_SUCCESS;
	c0 = _cpu_now();

	if (step_valid) {
		xfree(step.record);
	}
	memset(&step, 0, sizeof(step));
	step.job_id = job->step_id.job_id;
	step.uid = job->uid;
	step.step_id = job->step_id.step_id;
	/* "StepId=5.batch", as Slurm's %ps prints it in its own logs. */
	log_build_step_id_str(&job->step_id, step.step_name,
			      sizeof(step.step_name), STEP_ID_FLAG_NONE);
	step.node_name = job->node_name;
	step.env = job->env;
	step.user_mem_bind = _user_mem_bind(job);
	step.user_cpu_freq = _user_cpu_freq(job);
	step.mem_mb = job->step_mem ? job->step_mem : job->job_mem;

	_load_topology();
	step.have_cores = _parse_cores("job cores", job->job_alloc_cores,
				       &step.job_cores);
	if (!_parse_cores("step cores", job->step_alloc_cores,
			  &step.step_cores))
		step.step_cores = step.job_cores;
	if (step.have_cores && task_cosched_topo) {
		if (cosched_topology_core_cpus(task_cosched_topo,
					       &step.job_cores, &step.job_cpus,
					       &err) ||
		    cosched_topology_core_cpus(task_cosched_topo,
					       &step.step_cores,
					       &step.step_cpus, &err))
			error("%s: %s: %s: cores, memory binding and frequency left alone",
			      plugin_type, step.step_name, err.msg);
		else
			step.have_cpus = true;
	}

	/* Membind, cpufreq and the profile (its application) need more
	 * than the credential. */
	if (part_membind || part_cpufreq || part_profile || part_numa) {
		c1 = _cpu_now();
		step.record = xmalloc(sizeof(*step.record));
		switch (task_cosched_record_fetch(step.job_id, step.step_id,
						  step.record, why,
						  sizeof(why))) {
		case 1:
			step.have_record = true;
			break;
		case 0:
			debug("%s: %s: %s", plugin_type, step.step_name, why);
			break;
		default:
			error("%s: %s: %s", plugin_type, step.step_name, why);
		}
		timing.record = _cpu_now() - c1;
	}
	step_valid = true;

	if (part_cpuset)
		task_cosched_cpuset_step_start(&step);
	if (part_membind)
		task_cosched_membind_step_start(&step);
	if (part_cpufreq)
		task_cosched_cpufreq_step_start(&step);
	if (part_profile) {
		c1 = _cpu_now();
		task_cosched_profile_step_start(&step);
		timing.sampler = _cpu_now() - c1;
	}
	if (part_numa)
		task_cosched_numa_step_start(&step);
	/* env_array_overwrite may have moved the array. */
	job->env = step.env;
	timing.start = _cpu_now() - c0;
	return SLURM_SUCCESS;
}

void task_cosched_task_forked(uint32_t node_tid, pid_t pid)
{
	double c0 = _cpu_now(),
	       w0 = timing.on ? _clock(CLOCK_MONOTONIC) : 0.0;

	(void) node_tid;
	if (step_valid && part_profile)
		task_cosched_profile_task_forked(&step, pid);
	if (timing.on)
		timing.attach_wall += _clock(CLOCK_MONOTONIC) - w0;
	if (step_valid && part_numa)
		task_cosched_numa_task_forked(&step, pid);
	timing.tasks += _cpu_now() - c0;
}

/* In each task, as the job's user, after task/affinity's pre_launch. */
extern int task_p_pre_launch(stepd_step_rec_t *job)
{
	if (!step_valid)
		return SLURM_SUCCESS;
	step.env = job->env;
	if (part_cpuset)
		task_cosched_cpuset_task_start(&step);
	if (part_membind)
		task_cosched_membind_task_start(&step);
	job->env = step.env;
	return SLURM_SUCCESS;
}

/* Root, in slurmstepd, as each task ends (and again for every task at
 * the step's end): how it ended goes into the step's record, since a run
 * cut short by a signal or a time limit measures nothing. */
extern int task_p_post_term(stepd_step_rec_t *job, stepd_step_task_info_t *task)
{
	double c0 = _cpu_now();

	if (step_valid && conf_ok && part_profile && task && task->exited)
		task_cosched_profile_task_exit(&step, task->pid,
					       task->estatus);
	timing.end += _cpu_now() - c0;
	return SLURM_SUCCESS;
}

/* Root, in slurmstepd, when the step ends (however its tasks ended). */
extern int task_p_post_step(stepd_step_rec_t *job)
{
	double c0 = _cpu_now();

	if (step_valid && conf_ok) {
		task_cosched_cpufreq_step_end(&step);
		if (part_profile)
			task_cosched_profile_step_end(&step);
		if (part_numa)
			task_cosched_numa_step_end(&step);
		timing.end += _cpu_now() - c0;
		_timing_log();
	}
	return SLURM_SUCCESS;
}

extern int task_p_add_pid(pid_t pid)
{
	return SLURM_SUCCESS;
}
