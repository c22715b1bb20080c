/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mrb.h - Miss-Rate Bound, online: gangs kept across quanta and
 * rounds, split when their combined MPKI reaches T, singletons merged
 * where they fit ("Power-aware gang scheduling on multicore", diploma
 * thesis, NTUA CSLab, 2013, "Miss-Rate Bound").
 */
#ifndef COSCHED_MRB_H
#define COSCHED_MRB_H

#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/base/error.h"
#include "src/libcosched/policy/gang.h"

typedef struct cosched_mrb cosched_mrb_t;

typedef enum {
	COSCHED_MRB_MOVE_MERGE = 0,	/* a singleton joined a gang it fits */
	COSCHED_MRB_MOVE_SPLIT,		/* removal brings its gang below T */
	COSCHED_MRB_MOVE_NEW_GANG,	/* fallback: highest MPKI to a new gang */
} cosched_mrb_move_kind_t;

typedef struct {
	size_t job;		/* index into the jobs given at create */
	uint32_t job_id;
	int from_gang;
	int to_gang;
	cosched_mrb_move_kind_t kind;
	double mpki;		/* the job's smoothed MPKI when moved */
} cosched_mrb_move_t;

/*
 * Start (the 2013 gang-scheduling thesis, "Miss-Rate Bound"): jobs shuffled
 * with params->seed and packed in that order into gangs of params->capacity
 * cores (next fit), every job's MPKI = jobs[i].mpki (the thesis starts at
 * 0).  jobs is copied.
 */
cosched_mrb_t *cosched_mrb_create(const cosched_gang_params_t *params,
				  const cosched_gang_job_t *jobs, size_t njobs,
				  cosched_error_t *err);
/*
 * Start from given gangs instead (a controller that already runs jobs, or
 * a scripted test): initial_gang[i] in [0, njobs) is job i's gang; every
 * gang must fit the capacity (and max_apps).  MPKI = jobs[i].mpki.
 */
cosched_mrb_t *cosched_mrb_create_from(const cosched_gang_params_t *params,
				       const cosched_gang_job_t *jobs,
				       size_t njobs, const int *initial_gang,
				       cosched_error_t *err);
void cosched_mrb_free(cosched_mrb_t *s);

/* One quantum's MPKI sample of one job: MPKI = a x sample + (1 - a) x MPKI. */
int cosched_mrb_feed(cosched_mrb_t *s, size_t job, double mpki_sample,
		     cosched_error_t *err);

/*
 * End of round: singletons merged where they fit, gangs at or above T
 * split (more than one move per gang when needed), every move checks
 * cores and MPKI.  *moves points into s (valid until the next call).  On
 * error (out of memory) every move made so far is kept and each job is
 * in exactly one gang: the state stays consistent.
 */
int cosched_mrb_end_round(cosched_mrb_t *s, const cosched_mrb_move_t **moves,
			  size_t *nmoves, cosched_error_t *err);

/* Gang slots are 0 .. cosched_mrb_gang_slots() - 1; a slot may be empty. */
size_t cosched_mrb_gang_slots(const cosched_mrb_t *s);
size_t cosched_mrb_gang_count(const cosched_mrb_t *s);	/* non-empty */
int cosched_mrb_gang_cores(const cosched_mrb_t *s, int gang);
int cosched_mrb_gang_napps(const cosched_mrb_t *s, int gang);
double cosched_mrb_gang_mpki(const cosched_mrb_t *s, int gang);
int cosched_mrb_job_gang(const cosched_mrb_t *s, size_t job);
double cosched_mrb_job_mpki(const cosched_mrb_t *s, size_t job);
/* The current gangs as a plan (non-empty slots in slot order). */
int cosched_mrb_snapshot(const cosched_mrb_t *s, cosched_gang_plan_t *plan,
			 cosched_error_t *err);

#endif
