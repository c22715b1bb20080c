/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gang.c - the gang policies' jobs and parameters: defaults,
 * checks, and the applications-per-gang bound each policy applies; the
 * plan type's release, here with the other shared parts because both the
 * batch policies (policy/gang_plan.c) and Miss-Rate Bound's snapshot
 * (policy/mrb.c) build plans, and the batch form runs Miss-Rate Bound:
 * in either of those files it would make the two depend on each other.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/policy/gang_internal.h"

void cosched_gang_plan_free(cosched_gang_plan_t *plan)
{
	if (!plan)
		return;
	free(plan->gangs);
	free(plan->members);
	memset(plan, 0, sizeof(*plan));
}

void cosched_gang_params_init(cosched_gang_params_t *p, int capacity)
{
	memset(p, 0, sizeof(*p));
	p->capacity = capacity;
	p->max_apps = 0;
	p->mrb_weight = COSCHED_MRB_WEIGHT_DEFAULT;
	p->mrb_threshold = COSCHED_MRB_THRESHOLD_DEFAULT;
	p->seed = 1;
	p->pref = NULL;
}

int cosched_gang_params_check(const cosched_gang_params_t *p,
			      cosched_error_t *err)
{
	if (!p)
		return cosched_error_set(err, "params: NULL");
	if (p->capacity < 1)
		return cosched_error_set(err,
			"capacity: must be >= 1 core, got %d", p->capacity);
	if (p->capacity > COSCHED_GANG_MAX_CAPACITY)
		return cosched_error_set(err,
			"capacity: must be <= %d cores, got %d",
			COSCHED_GANG_MAX_CAPACITY, p->capacity);
	if (p->max_apps < 0)
		return cosched_error_set(err,
			"max_apps: must be >= 0 (0 = policy default), got %d",
			p->max_apps);
	/* Every application holds at least one core. */
	if (p->max_apps > p->capacity)
		return cosched_error_set(err,
			"max_apps: must be <= capacity = %d (every application holds a core), got %d",
			p->capacity, p->max_apps);
	/* The ranges of cosched.conf's MissRateBoundWeight (a = 0 would
	 * never let a sample in) and MissRateBoundThreshold. */
	if (cosched_range_check("mrb_weight (EWMA a)",
				&cosched_mrb_weight_range, p->mrb_weight, NULL,
				err) ||
	    cosched_range_check("mrb_threshold (T)",
				&cosched_mrb_threshold_range, p->mrb_threshold,
				NULL, err))
		return -1;
	return 0;
}

int cosched_gang_max_apps(cosched_policy_t policy,
			  const cosched_gang_params_t *p)
{
	switch (policy) {
	case COSCHED_POLICY_GANG:
		return 1;	/* one application per gang */
	case COSCHED_POLICY_MISS_RATE_BALANCE:
	case COSCHED_POLICY_APP_AWARE:
		/* "Power-aware gang scheduling on multicore" (NTUA thesis,
		 * 2013): "A gang holds at most 2 applications" (Miss-Rate
		 * Balance); "in practice a gang holds at most 2"
		 * (Application-Aware). */
		return p->max_apps ? p->max_apps : 2;
	default:
		return p->max_apps;	/* 0 = unlimited */
	}
}


int cosched_gang_job_check(const char *field, const cosched_gang_job_t *job,
			   int capacity, cosched_error_t *err)
{
	if (!field)
		field = "job";
	if (!job)
		return cosched_error_set(err, "%s: NULL", field);
	if (job->threads < 1)
		return cosched_error_set(err,
			"%s.threads: must be >= 1, got %d", field, job->threads);
	if (job->threads > capacity)
		return cosched_error_set(err,
			"%s.threads: %d exceeds the capacity of %d cores",
			field, job->threads, capacity);
	if (job->min_threads < 0 || job->min_threads > job->threads)
		return cosched_error_set(err,
			"%s.min_threads: must be in [0, threads = %d], got %d",
			field, job->threads, job->min_threads);
	if (job->max_threads != 0 && job->max_threads < job->threads)
		return cosched_error_set(err,
			"%s.max_threads: must be 0 or >= threads = %d, got %d",
			field, job->threads, job->max_threads);
	if (!isfinite(job->mpki) || job->mpki < 0)
		return cosched_error_set(err,
			"%s.mpki: must be a finite number >= 0, got %g", field,
			job->mpki);
	if ((int)job->category < 0 || job->category > COSCHED_CAT_UNKNOWN)
		return cosched_error_set(err,
			"%s.category: invalid value %d", field,
			(int)job->category);
	if (job->freq_khz < 0)
		return cosched_error_set(err,
			"%s.freq_khz: must be >= 0, got %ld", field,
			job->freq_khz);
	if (!(job->max_slowdown == 0 ||
	      (job->max_slowdown >= 1 &&
	       job->max_slowdown <= COSCHED_SLOWDOWN_MAX)))
		return cosched_error_set(err,
			"%s.max_slowdown: must be 0 or in [1, %g], got %g",
			field, COSCHED_SLOWDOWN_MAX, job->max_slowdown);
	return 0;
}

int gang_jobs_check(const cosched_gang_job_t *jobs, size_t n, int capacity,
		    cosched_error_t *err)
{
	char field[48];

	if (n > 0 && !jobs)
		return cosched_error_set(err, "jobs: NULL with %zu jobs", n);
	for (size_t i = 0; i < n; i++) {
		snprintf(field, sizeof(field), "jobs[%zu]", i);
		if (cosched_gang_job_check(field, &jobs[i], capacity, err) < 0)
			return -1;
	}
	return 0;
}

/*
 * qsort() has no context argument in C11: the comparator reads the job
 * array through a thread-local pointer set just around the call
 * (thread-local keeps the core reentrant).
 */
static _Thread_local const cosched_gang_job_t *sort_jobs;
static _Thread_local gang_job_cmp_fn sort_cmp;

static int sort_trampoline(const void *pa, const void *pb)
{
	return sort_cmp(sort_jobs, *(const size_t *) pa, *(const size_t *) pb);
}

void gang_sort_indices(size_t *idx, size_t n, const cosched_gang_job_t *jobs,
		       gang_job_cmp_fn cmp)
{
	const cosched_gang_job_t *saved_jobs = sort_jobs;
	gang_job_cmp_fn saved_cmp = sort_cmp;

	sort_jobs = jobs;
	sort_cmp = cmp;
	qsort(idx, n, sizeof(size_t), sort_trampoline);
	sort_jobs = saved_jobs;
	sort_cmp = saved_cmp;
}

size_t *gang_sorted_indices(const cosched_gang_job_t *jobs, size_t n,
			    gang_job_cmp_fn cmp)
{
	size_t *idx = malloc((n + 1) * sizeof(size_t));

	if (!idx)
		return NULL;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	gang_sort_indices(idx, n, jobs, cmp);
	return idx;
}
