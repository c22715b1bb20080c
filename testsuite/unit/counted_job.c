/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counted_job.c - the workload the counter tests attach to (see the
 * header).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "counted_job.h"

static double cpu_now(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

void counted_job_spin(double s)
{
	double start = cpu_now(CLOCK_THREAD_CPUTIME_ID);

	while (cpu_now(CLOCK_THREAD_CPUTIME_ID) - start < s)
		;
}

static void *thread_body(void *arg)
{
	(void) arg;
	counted_job_spin(0.25);
	return NULL;
}

static double tv(struct timeval t)
{
	return (double) t.tv_sec + (double) t.tv_usec / 1e6;
}

void counted_job_run(int go, int out)
{
	struct rusage self, kids;
	pthread_t t;
	char c, line[128];
	pid_t kid;

	if (read(go, &c, 1) != 1)
		_exit(1);
	pthread_create(&t, NULL, thread_body, NULL);
	kid = fork();
	if (!kid) {
		counted_job_spin(0.25);
		_exit(0);
	}
	counted_job_spin(0.25);
	for (int i = 0; i < 50; i++)
		usleep(1000);
	pthread_join(t, NULL);
	waitpid(kid, NULL, 0);
	usleep(300000);	/* the parent reads while this runs */
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	snprintf(line, sizeof(line), "%.6f\n",
		 tv(self.ru_utime) + tv(self.ru_stime) + tv(kids.ru_utime) +
		 tv(kids.ru_stime));
	if (write(out, line, strlen(line)) < 0)
		_exit(1);
	_exit(0);
}

double counted_job_uncharged_s(void)
{
	unsigned long long f[8] = { 0 };
	FILE *st = fopen("/proc/stat", "r");
	int got;

	if (!st)
		return 0;
	/* cpu user nice system idle iowait irq softirq steal */
	got = fscanf(st, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		     &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]);
	fclose(st);
	if (got != 8)
		return 0;
	return (double) (f[5] + f[6] + f[7]) / (double) sysconf(_SC_CLK_TCK);
}

double counted_job_clock_max(double did, double uncharged)
{
	return did * 1.05 + uncharged + 3.0 / (double) sysconf(_SC_CLK_TCK);
}
