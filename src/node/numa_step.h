/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * numa_step.h - which processes a Slurm step runs on this node,
 * as slurmstepd tells the NUMA manager (cosched-numad(8)).
 *
 * Why step files and not the job cgroups: slurmstepd knows each task's
 * pid as it forks it (task/cosched's task_forked hook, the one the sampler
 * attaches at), as root, whatever ProctrackType the site runs; cgroup
 * paths differ between cgroup v1 and v2, between Slurm releases, and do
 * not exist with proctrack/linuxproc or pgid.  A user cannot forge a step
 * file (root's, 0600, in a root-owned directory), and cannot make a
 * process of theirs count as another user's step: the manager takes a
 * task's descendants too, which a user can only add to their own tasks.
 *
 * task/cosched writes NumaStepDir/JOB.STEP.NODE only while NumaStepDir
 * exists (cosched-numad makes it): without the manager nothing is
 * written.  The file is replaced whole at the step's start and at each
 * task's fork (a step forks its tasks within a second), and removed at
 * the step's end; a file whose tasks are all gone (a slurmstepd killed
 * by SIGKILL) is stale, and the manager ignores it and removes it.
 *
 * The text (lines; the version by the rule of src/libcosched/base/kv.h):
 *   cosched-numa-step/1 job=J step=S node=NODE uid=U priority=P
 *                       ledger="DIR"
 *   task pid=P start=T            (one a task; start: /proc/PID/stat 22)
 * S is Slurm's step id as a number (batch 4294967291 and the like); P
 * the job's --cosched-numa as the controller's decision record gives it
 * (default, high, low); DIR the directory of the node's energy ledger
 * (SlurmdSpoolDir/cosched, where the step's sampler gives its LLC misses
 * per second: the manager's measured bandwidth), "" when unknown.
 */
#ifndef COSCHED_NUMA_STEP_H
#define COSCHED_NUMA_STEP_H

#include <stdint.h>
#include <stddef.h>

#include "src/libcosched/base/error.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/model/options.h"
#include "src/node/spool.h"

#define COSCHED_NUMA_STEP_TAG "cosched-numa-step"
#define COSCHED_NUMA_STEP_TASKS_MAX 256
#define COSCHED_NUMA_STEP_NODE_MAX 64
/* Largest step file read. */
#define COSCHED_NUMA_STEP_FILE_MAX (64 * 1024)

typedef struct {
	uint32_t job_id, step_id, uid;
	cosched_numa_priority_t priority;	/* from the decision record */
	char node[COSCHED_NUMA_STEP_NODE_MAX + 1];	/* [A-Za-z0-9._-] */
	char ledger[COSCHED_PATH_MAX];		/* "" = unknown */
	int ntasks;
	cosched_proc_id_t tasks[COSCHED_NUMA_STEP_TASKS_MAX];
} cosched_numa_step_t;

/* The text above (malloc'd), or NULL with err (a node name out of form,
 * no memory). */
char *cosched_numa_step_format(const cosched_numa_step_t *s,
			       cosched_error_t *err);
/* Strict parse of text (modified in place) into *s; a newer minor's
 * appended keys and unknown lines are skipped. */
int cosched_numa_step_parse(char *text, cosched_numa_step_t *s,
			    cosched_error_t *err);

/* The file's name in the directory, "JOB.STEP.NODE", into buf. */
int cosched_numa_step_name(const cosched_numa_step_t *s, char *buf,
			   size_t len, cosched_error_t *err);

/* Write s into dir (replaced atomically, root's, 0600): 1 when dir does
 * not exist (no manager on this node: nothing written), 0 written, -1
 * (err). */
int cosched_numa_step_write(const char *dir, const cosched_numa_step_t *s,
			    cosched_error_t *err);
/* Remove s's file from dir (absent is fine). */
int cosched_numa_step_remove(const char *dir, const cosched_numa_step_t *s,
			     cosched_error_t *err);
/* Read dir/name (a regular file, not a link, at most
 * COSCHED_NUMA_STEP_FILE_MAX bytes, owned by the caller's user - root -
 * and 0600 as slurmstepd writes it) into *s. */
int cosched_numa_step_read(const char *dir, const char *name,
			   cosched_numa_step_t *s, cosched_error_t *err);

#endif
