/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common.c - what every part of cosched-numad uses: the log, the
 * clocks, finding a process of the last scan and who is an
 * administrator.  Here rather than in
 * cosched_numad.c, which calls the parts, so that no part calls back into
 * it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>
#include <time.h>

#include "src/numad/numad.h"

static FILE *log_file;		/* NULL: syslog */

void numad_log_to(FILE *f)
{
	log_file = f;
}

double numad_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

double numad_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

void numad_log(int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Anything a user named (a job, a path) is in msg: no control
	 * characters reach the log. */
	for (char *p = msg; *p; p++)
		if ((unsigned char) *p < 0x20 || (unsigned char) *p == 0x7f)
			*p = '?';
	if (!log_file) {
		syslog(level, "%s", msg);
		return;
	}
	{
		char when[32];
		time_t t = time(NULL);
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S",
			 localtime_r(&t, &tm));
		fprintf(log_file, "[%s] %s%s\n", when,
			level <= LOG_ERR ? "error: " :
			level == LOG_WARNING ? "warning: " : "", msg);
		fflush(log_file);
	}
}

int numad_proc_index(const numad_t *d, const cosched_proc_id_t *id)
{
	int lo = 0, hi = d->nprocs;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		const numad_proc_t *p = &d->procs[mid];

		if (p->id.pid < id->pid)
			lo = mid + 1;
		else if (p->id.pid > id->pid)
			hi = mid;
		else
			return p->id.start_time == id->start_time ? mid : -1;
	}
	return -1;
}

numad_proc_t *numad_find_proc(numad_t *d, const cosched_proc_id_t *id)
{
	int i = numad_proc_index(d, id);

	return i < 0 ? NULL : &d->procs[i];
}

bool numad_is_admin(const numad_t *d, uid_t uid)
{
	return uid == 0 || (d->slurm_uid >= 0 && (long) uid == d->slurm_uid);
}
