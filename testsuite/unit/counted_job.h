/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counted_job.h - the workload the counter tests attach to
 * (test_counters.c, test_counters_papi_attach.c): one program, so that
 * both backends are held to the same tree of threads and processes.
 */
#ifndef COUNTED_JOB_H
#define COUNTED_JOB_H

/* Burn s seconds of this thread's CPU time. */
void counted_job_spin(double s);

/*
 * The job: waits for a byte on go, then starts a thread and a child
 * process that each burn CPU, burns some itself, sleeps and wakes 50
 * times, and writes what it did (its CPU time and its children's, in
 * seconds, one line) to out.  Never returns.
 */
void counted_job_run(int go, int out) __attribute__((noreturn));

/*
 * Interrupt and hypervisor-stolen time of every CPU so far, in seconds
 * (/proc/stat: irq, softirq, steal); 0 when unreadable.  The scheduler
 * charges it to no task (rq->clock_task leaves it out), so rusage misses
 * it, while perf's task-clock runs on local_clock() and counts the time
 * the task was current through it.
 */
double counted_job_uncharged_s(void);

/*
 * The most task-clock may read for a job whose rusage is did seconds,
 * with uncharged seconds of interrupt and stolen time (the growth of
 * counted_job_uncharged_s() over the run): 5% above, plus that time,
 * plus the three /proc/stat fields' tick each.
 */
double counted_job_clock_max(double did, double uncharged);

#endif
