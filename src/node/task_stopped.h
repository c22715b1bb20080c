/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * task_stopped.h - whether a step's task is stopped, as Slurm leaves it
 * while the job is suspended (scontrol suspend, gang time slicing).
 *
 * slurmstepd suspends a step through its proctrack plugin: signals
 * (SIGTSTP then SIGSTOP: the process state is 'T') with
 * proctrack/linuxproc and pgid, the cgroup freezer with proctrack/cgroup
 * (the state stays 'S' or 'D'; cgroup v2 says "frozen 1" in the task's
 * cgroup.events, v1 "FROZEN" in its freezer.state).  Both are read, so the
 * answer holds on every Slurm series and proctrack.  The task's CPU time
 * not advancing would not tell a stopped task from one that sleeps, which
 * still holds its cores.
 */
#ifndef COSCHED_TASK_STOPPED_H
#define COSCHED_TASK_STOPPED_H

#include <stdbool.h>
#include <sys/types.h>

/* pid is stopped or frozen.  A process gone or unreadable is not (it is
 * not known to be suspended).  cgroup_root: where the cgroup file systems
 * are mounted ("/sys/fs/cgroup"). */
bool cosched_task_stopped(pid_t pid, const char *cgroup_root);

#endif
