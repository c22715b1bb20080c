/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gang_job.h - a job as the gang policies take it, for the tests of
 * src/libcosched/policy/gang.c (test_gang.c and test_gang_rank.c). */
#ifndef GANG_JOB_H
#define GANG_JOB_H

#include <stdint.h>
#include <string.h>

#include "src/libcosched/policy/gang.h"

static inline cosched_gang_job_t mkjob(uint32_t id, const char *name,
				       int threads, double mpki,
				       cosched_category_t cat)
{
	cosched_gang_job_t j;

	memset(&j, 0, sizeof(j));
	j.job_id = id;
	j.name = name;
	j.threads = threads;
	j.mpki = mpki;
	j.category = cat;
	return j;
}

#endif
