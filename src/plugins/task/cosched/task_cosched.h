/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  task_cosched.h - what the parts of task/cosched share.
 *
 *  Like task/cgroup, the plugin is a set of parts (cpuset, membind,
 *  cpufreq), each in its own file with the same small set of functions,
 *  and init() decides once, from cosched.conf, which parts are on:
 *
 *    _init(conf)       slurmd and slurmstepd, at plugin load: 0 = on
 *    _fini()
 *    _step_start(st)   slurmstepd, root, once per step before its tasks
 *                      start (task_p_pre_setuid); says in one log line
 *                      what it will do or why it does nothing
 *    _task_start(st)   in each task, as the job's user, after task/affinity
 *                      set its mask and before exec (task_p_pre_launch)
 *    _step_end(st)     slurmstepd, root, when the step ends (post_step)
 *    _node_sweep()     slurmd, root: at start and at every launch request
 *                      (cpufreq only: restores what crashed steps left)
 *    _task_forked()    slurmstepd, root, each task forked but not yet
 *                      running (profile: the sampler attaches; numa: the
 *                      step file names it)
 *
 *  The profile part measures rather than enforces: cosched-sampler, a
 *  process of its own, counts each step's tasks (task_cosched_profile.c).
 *  The numa part names each step's processes for the node's NUMA manager
 *  (task_cosched_numa.c), in slurmstepd whenever the configuration reads.
 *
 *  task_cosched.c decides and calls the parts; what they share is in
 *  task_cosched_common.c, so that no part calls back into it.
 *
 *  No function returns an error to Slurm: every fault is logged and the
 *  job runs as it would without cosched.
\*****************************************************************************/
#ifndef TASK_COSCHED_H
#define TASK_COSCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/libcosched/conf/conf.h"
#include "src/libcosched/model/decision.h"
#include "src/node/topology.h"

/* One step on this node, as slurmstepd knows it. */
typedef struct {
	uint32_t job_id;
	uint32_t step_id;
	uint32_t uid;			/* the job's user */
	char step_name[64];		/* "StepId=5.batch", for logs */
	const char *node_name;
	/* From the signed credential (Slurm's core numbering). */
	cosched_idset_t job_cores, step_cores;
	bool have_cores;
	/* Their CPUs (OS ids) through the topology. */
	cosched_idset_t job_cpus, step_cpus;
	bool have_cpus;
	/* The controller's decision record (SystemComment), when there is
	 * one for this job. */
	bool have_record;
	cosched_decision_t *record;
	/* What the user asked Slurm for on this step. */
	bool user_mem_bind;		/* --mem-bind other than none/verbose */
	bool user_cpu_freq;		/* --cpu-freq, or CpuFreqDef */
	uint64_t mem_mb;		/* the step's memory (--mem), or the
					 * job's; 0 unknown */
	char **env;			/* the tasks' environment (job->env) */
} task_cosched_step_t;

/* ---- task_cosched_common.c: what every part reads or uses ---------- */

/* The configuration init() read, the topology it loaded (NULL when it
 * could not: cores and membind are then off), the name every message
 * starts with. */
extern cosched_conf_t task_cosched_conf;
extern char *task_cosched_conf_path;		/* where it was read */
extern cosched_topology_t *task_cosched_topo;
extern const char plugin_type[];

/* SlurmdSpoolDir/cosched, or the file or directory name in it
 * (xmalloc'ed; conf->spooldir has %n and %h expanded); NULL without a
 * spool directory. */
char *task_cosched_spool_path(const char *name);

/* SlurmdSpoolDir/cosched, or the folder sub in it, made (0700) where
 * missing and refused where it is a symbolic link or not a folder
 * (cosched_spool_dir_ready): the one way every part of task/cosched makes
 * its folders, so that a link planted there is followed by none.  The
 * path (xmalloc'ed), or NULL with the reason in err. */
char *task_cosched_spool_dir(const char *sub, cosched_error_t *err);

/* SysfsRoot or an XML topology path with "%n" replaced by the node's name
 * (xstrdup'ed; caller xfree()s). */
char *task_cosched_node_path(const char *pattern, const char *node_name);

/* Set NAME=value in the tasks' environment (informational: the task may
 * change it; nothing on the node reads it back). */
void task_cosched_setenv(task_cosched_step_t *st, const char *name,
			 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- the parts, which task_cosched.c calls ------------------------ */

/*
 * The settings this node enforces (task_cosched_conf.c): path's, or while
 * path cannot be read, the node's last good copy of it (said by slurmd,
 * once for each change of the file).  0 with *used (xmalloc'ed) naming
 * the file read, or -1 with err when neither can be read.  *skipped: the
 * first line of a key only slurmctld uses that the node skipped
 * (cosched_conf_parse_file_for READER_NODE), "" when none.
 */
int task_cosched_conf_load(const char *path, cosched_conf_t *out,
			   char **used, cosched_error_t *skipped,
			   cosched_error_t *err);
/* slurmd, at each launch request: when path changed since it was last
 * read, read it again (keep a good copy, say a bad one once). */
void task_cosched_conf_watch(const char *path);
/* Say a skipped line of a key of slurmctld's (slurmd: error; step:
 * debug). */
void task_cosched_conf_skipped(const cosched_error_t *skipped);

/* slurmd, at its start: the copy of the machine's topology its steps
 * load (task_cosched_topology.c); needed: a part that uses the topology
 * is on.  An earlier start's copy goes in any case. */
void task_cosched_topology_node_init(bool needed);
/* slurmstepd: the node's topology, from slurmd's copy where there is one
 * (Topology=system), else from the source; NULL (logged) when neither
 * loads. */
cosched_topology_t *task_cosched_topology_step_load(const char *node_name);

int task_cosched_cpuset_init(const cosched_conf_t *conf);
void task_cosched_cpuset_fini(void);
void task_cosched_cpuset_step_start(task_cosched_step_t *st);
void task_cosched_cpuset_task_start(task_cosched_step_t *st);

int task_cosched_membind_init(const cosched_conf_t *conf);
void task_cosched_membind_fini(void);
void task_cosched_membind_step_start(task_cosched_step_t *st);
void task_cosched_membind_task_start(task_cosched_step_t *st);

int task_cosched_cpufreq_init(const cosched_conf_t *conf);
void task_cosched_cpufreq_fini(void);
void task_cosched_cpufreq_step_start(task_cosched_step_t *st);
void task_cosched_cpufreq_step_end(task_cosched_step_t *st);
void task_cosched_cpufreq_node_sweep(const char *node_name);

int task_cosched_profile_init(const cosched_conf_t *conf);
void task_cosched_profile_fini(void);
void task_cosched_profile_step_start(task_cosched_step_t *st);
void task_cosched_profile_task_forked(task_cosched_step_t *st, pid_t pid);
/* Task pid ended with wait status (slurmstepd may say so twice). */
void task_cosched_profile_task_exit(task_cosched_step_t *st, pid_t pid,
				    int status);
void task_cosched_profile_step_end(task_cosched_step_t *st);

/* The step's processes, named for the node's NUMA manager (slurmstepd
 * only; nothing where NumaStepDir does not exist). */
void task_cosched_numa_step_start(task_cosched_step_t *st);
void task_cosched_numa_task_forked(task_cosched_step_t *st, pid_t pid);
void task_cosched_numa_step_end(task_cosched_step_t *st);

/* slurmstepd, root, after it forked the step's task node_tid (pid) and
 * before that task runs (compat_<series>.c calls it from the hook its
 * series has there). */
void task_cosched_task_forked(uint32_t node_tid, pid_t pid);

/* slurmd: a batch job's launch request, with its SPANK environment
 * (compat_<series>.c's task_p_slurmd_batch_request gives its job id: a
 * field of its own up to 24.11, the step id from the credential from
 * 25.11). */
void task_cosched_batch_request(uint32_t job_id, char **env,
				uint32_t env_size);

/* The decision record of a job, parsed into *d, from slurmctld once per
 * job and node (task_cosched_record.c).  1: found, valid and naming this
 * job; 0: none (why says); -1: error (why says). */
int task_cosched_record_fetch(uint32_t job_id, uint32_t step_id,
			      cosched_decision_t *d, char *why, size_t len);
/* slurmd: drop the kept records of jobs with no step left on the node,
 * and launch copies no batch step took within an hour. */
void task_cosched_record_sweep(const char *node_name);
/* slurmd, at a batch launch request (slurmctld's): the node's copy from the
 * request's launch copy (src/libcosched/model/decision.h), or none. */
void task_cosched_record_from_launch(uint32_t job_id, char **env,
				     uint32_t env_size);

#endif
