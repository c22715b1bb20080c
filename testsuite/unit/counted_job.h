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

#endif
