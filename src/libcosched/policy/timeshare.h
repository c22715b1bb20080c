/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeshare.h - which cores of one unit a job takes when the unit is
 * time-shared by Slurm's gang scheduler (PreemptMode=GANG with
 * OverSubscribe=FORCE:N): up to N jobs hold each core, jobs that share a
 * core never run in the same time slice, and jobs on disjoint cores may.
 * So the cores a job takes decide its slices: it alternates with the jobs
 * holding its cores and runs beside the others.
 *
 * The judgement is the policy's, pair by pair: a job pairs badly with
 * another when the policy's ranking refuses the two on one socket
 * (Application-Aware's forbidden pairs, Miss-Rate Bound's MPKI bound,
 * min_slowdown's MaxCorunSlowdown, one application per gang under GANG),
 * or, time-shared (cosched_gang_params_t.time_shared), ranks a slice of
 * the job's own above running beside the other: min_slowdown's, when the
 * two programs' summed speeds together would be below one alone's.
 * The choice, in this order:
 *   idle cores, when the job pairs well with every job of the unit (it
 *   runs beside each of them in turn);
 *   else the cores of a job it pairs badly with (alternating with it),
 *   when it pairs well with every job it would then run beside: the idle
 *   cores stay for jobs that pair well;
 *   else the cores of any job, on the same condition;
 *   else no choice: the allocator's own (Slurm takes idle cores first).
 * Pure: no Slurm, no hardware; the caller gives the unit's jobs and the
 * cores each holds.
 */
#ifndef COSCHED_TIMESHARE_H
#define COSCHED_TIMESHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/policy/place.h"

/* Cores of a unit this layer can judge (one bit each). */
#define COSCHED_TS_MAX_CORES 64

/* One job holding cores of the unit: its gang view (category, MPKI;
 * job_id; foreign holders as COSCHED_CAT_UNKNOWN, which pairs with
 * nothing) and the unit's cores it holds (bit c = core c). */
typedef struct {
	cosched_gang_job_t gj;
	uint64_t cores;
} cosched_ts_holder_t;

typedef enum {
	COSCHED_TS_NONE = 0,	/* no choice: the allocator's */
	COSCHED_TS_IDLE,	/* idle cores, beside every job */
	COSCHED_TS_ALTERNATE,	/* the cores of holders[with] */
} cosched_ts_how_t;

typedef struct {
	cosched_ts_how_t how;
	uint64_t cores;		/* the cores offered (0 with NONE) */
	long with;		/* ALTERNATE: the holder whose cores */
	bool with_bad;		/* ... one the job pairs badly with */
	/* The holders the job would alternate with (holding an offered
	 * core) and run beside (the others), bit h = holders[h]; the first
	 * 64 holders. */
	uint64_t alternates, beside;
	/* NONE: the holder it pairs badly with that ruled out the idle
	 * cores (-1 when there were too few idle cores). */
	long bad;
} cosched_ts_choice_t;

/*
 * Choose the cores of a unit of ncores cores (1..COSCHED_TS_MAX_CORES),
 * rows jobs a core (>= 1), for job (job->threads cores, the gang view
 * the engine's policy judges), given its holders[0..n).  Cores held by
 * rows jobs are full.  p gives the policy and its parameters (the
 * engine's, as for space sharing).  0, or -1 with err on bad input
 * (*out NONE).
 */
int cosched_ts_choose(const cosched_place_t *p, int ncores, int rows,
		      const cosched_ts_holder_t *holders, size_t n,
		      const cosched_gang_job_t *job, cosched_ts_choice_t *out,
		      cosched_error_t *err);

/* The predicted slowdown of a job of category cat beside the holders in
 * beside (bit h = holders[h], the first 64): the worst pair of the
 * engine's interference model, since they run beside it in turn, not all
 * at once; 1 when none. */
double cosched_ts_slowdown(const cosched_place_t *p, cosched_category_t cat,
			   const cosched_ts_holder_t *holders, size_t n,
			   uint64_t beside);

/* The holders a job holding the cores own (bit c = core c of the unit)
 * alternates with (they hold one of them) and runs beside (the others),
 * bit h = holders[h], the first 64; the holder whose job_id is self (the
 * job itself, once it holds them; 0 for none) is neither. */
void cosched_ts_partners(const cosched_ts_holder_t *holders, size_t n,
			 uint32_t self, uint64_t own, uint64_t *alternates,
			 uint64_t *beside);

/* Add id to ids[0..*n) kept ascending without repeats, at most max of
 * them (the decision record's alternates and beside). */
void cosched_ts_add_peer(uint32_t *ids, int *n, int max, uint32_t id);

/* Whether a unit with choice c and n holders is tried in pass 0 (occupied
 * units) or 1 (empty ones); never with NONE.  Occupied units first: a job
 * beside good partners, or alternating with a bad one, leaves the empty
 * units for others (as space sharing joins occupants before it opens a
 * socket). */
bool cosched_ts_unit_preferred(const cosched_ts_choice_t *c, size_t n,
			       int pass);

/* Whether the policy pairs job a beside job b on a unit of ncores cores:
 * the time-shared ranking of a socket holding b and an empty one (a's own
 * slice) puts b's first. */
bool cosched_ts_pairs_well(const cosched_place_t *p, int ncores,
			   const cosched_gang_job_t *a,
			   const cosched_gang_job_t *b);

#endif
