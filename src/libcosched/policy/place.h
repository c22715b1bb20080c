/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * place.h - the placement engine: which units (sockets, or whole
 * nodes with GangScope=node) a job may take, for the controller's job_test
 * (run now, test only, will run) and for the simulator's space-shared
 * setting, so that the simulator judges the placement the controller makes.
 *
 * State is explicit: a cosched_place_t holds the cluster's layout (nodes,
 * their units and each unit's cores), the occupancy (policy/occupancy.h),
 * which units are closed (a wide job holds them whole: nobody joins) and
 * which nodes take new jobs.  Will-run works on a copy (cosched_place_copy),
 * as cons_tres passes future_usage: the caller's state is never touched.
 *
 * The engine decides only which units to offer; an allocator (cons_tres in
 * slurmctld, the simulator's core counter) is asked through a try callback
 * whether it can place the job on them, and may refuse (memory, GRES).
 * The rules are those of cosched(8), PLACEMENT RULES:
 *   single  one node, fits one unit: the best unit the policy's index
 *           gives, then the next best when the allocator refuses it,
 *           COSCHED_PLACE_MAX_TRIES in all; min_slowdown asks for an
 *           occupied unit first when the queue's demand says to pack
 *           (pack_demand), then for any;
 *   wide    one node, wider than a unit: every empty unit on nodes with
 *           enough of them (the allocator chooses among them);
 *   multi   several nodes: on each node, its best accepting unit;
 *   test only: some node has units that could hold the job when empty
 *           (never a co-runner rule: those change as jobs end);
 *   will run: when nothing accepts the job now, the running jobs leave a
 *           copy in the order they end until some unit accepts it;
 *   lenient (PlacementMode=lenient): when no unit accepts a single job,
 *           the least-bad unit with the cores (lowest predicted slowdown,
 *           then the lower MPKI sum, then the lower index), else the
 *           allocator's own choice.
 *
 * Not thread-safe: the caller serialises (slurmctld's job write lock and
 * the controller's mutex).
 */
#ifndef COSCHED_PLACE_H
#define COSCHED_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/model/classify.h"
#include "src/libcosched/model/decision.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/conf/conf.h"
#include "src/libcosched/policy/gang.h"
#include "src/libcosched/model/interference.h"
#include "src/libcosched/policy/occupancy.h"
#include "src/libcosched/model/policy_name.h"
#include "src/libcosched/conf/policy_params.h"

/* Units tried one after another for a single job before the engine gives
 * up on its best choices (the allocator can refuse a unit). */
#define COSCHED_PLACE_MAX_TRIES 4
/* Running jobs ended in a will-run search before the engine gives up. */
#define COSCHED_PLACE_MAX_FUTURE 64
/* Longest reason text a query returns (with its terminating NUL). */
#define COSCHED_PLACE_WHY_MAX 256

typedef struct {
	cosched_policy_t policy;
	cosched_scope_t scope;		/* units are sockets or nodes */
	bool strict;			/* PlacementMode=strict */
	double mrb_threshold;		/* Miss-Rate Bound T (0: 12) */
	double mrb_weight;		/* Miss-Rate Bound a (0: 1/2) */
	/* The interference model (least-bad choice, predictions) and its
	 * preference table (Application-Aware).  Borrowed: it must outlive
	 * the engine and its copies.  NULL: the interference table of
	 * "Effects of co-scheduling applications on multicore architectures"
	 * (NTUA thesis, 2014) and the preference table of "Power-aware gang
	 * scheduling on multicore" (NTUA thesis, 2013). */
	const cosched_interference_model_t *interference;
	/* The socket index's flags for single jobs (policy/socket_index.h):
	 * 0 in the controller; the simulator's contention-blind baselines
	 * take the lowest unit with room (COSCHED_INDEX_FIRST_FIT). */
	unsigned index_flags;
	/* Fill the result's why when no unit accepts a job: one ranking per
	 * unit, which the controller pays for its records and the simulator
	 * does not need. */
	bool explain;
	/* min_slowdown only.  max_slowdown: the largest predicted slowdown
	 * a placement may cause on purpose, the job's or a co-runner's
	 * (1 + MaxCorunSlowdown/100; 0 = none): every placement in strict
	 * mode, packing in both.  pack_demand (PackDemand): a single job packs
	 * onto an occupied unit when the jobs waiting reach pack_demand
	 * times the empty units (cosched_place_set_queue_jobs); 0 = always
	 * pack, the time-shared reading. */
	double max_slowdown;
	double pack_demand;
	/* Jobs per unit (GangMaxApps): 0 = the policy's own bound
	 * (cosched_gang_max_apps); a value above a unit's cores bounds
	 * nothing beyond its cores.  GANG keeps one. */
	int max_apps;
} cosched_place_conf_t;

/*
 * The engine's configuration from cosched.conf's (slurmctld and
 * cosched-sim-replay read one file the same way): policy, scope, mode,
 * Miss-Rate Bound, MaxCorunSlowdown, PackDemand and GangMaxApps;
 * interference is borrowed (the file's model or a learned copy).  explain
 * and index_flags are 0.  CoschedPolicy=none gives the default policy
 * (COSCHED_POLICY_DEFAULT), which the caller never asks to place.
 */
void cosched_place_conf_from(const cosched_conf_t *conf,
			     const cosched_interference_model_t *interference,
			     cosched_place_conf_t *pc);

typedef struct cosched_place cosched_place_t;


typedef enum {
	COSCHED_PLACE_SINGLE = 0,	/* one node, fits one unit */
	COSCHED_PLACE_WIDE,		/* one node, wider than a unit */
	COSCHED_PLACE_MULTI,		/* several nodes */
} cosched_place_kind_t;

typedef enum {
	COSCHED_PLACE_RUN_NOW = 0,	/* Slurm's SELECT_MODE_RUN_NOW */
	COSCHED_PLACE_TEST_ONLY,	/* at submit: could it ever run */
	COSCHED_PLACE_WILL_RUN,		/* backfill: when could it run */
} cosched_place_mode_t;

/* A job as the engine places it. */
typedef struct {
	cosched_gang_job_t gj;		/* threads: per unit (<= a unit) */
	cosched_class_t cls;		/* for predictions (least-bad) */
	int cores;			/* cores per node */
	cosched_place_kind_t kind;
} cosched_place_job_t;

/* A running job and when it is expected to end (its time limit, as
 * backfill assumes), for will-run. */
typedef struct {
	uint32_t job_id;
	int64_t end;
} cosched_place_ending_t;

/*
 * Ask the allocator to place the job on the given units (units[0..n), in
 * the engine's numbering; n = 0 and units NULL: anywhere it likes, the
 * lenient last resort).  Returns 0 when it placed the job, -1 when not.
 */
typedef int (*cosched_place_try_fn)(void *ctx, const size_t *units, size_t n);

typedef struct {
	int rc;				/* 0 placed, -1 not */
	/* A single job placed by the policy: the unit it was offered and
	 * the threads the policy gives it there (Greedy Thread may give
	 * fewer than asked); -1 and 0 otherwise. */
	long unit;
	int threads;
	/* min_slowdown: the job was packed onto an occupied unit because
	 * the queue asked for the empty ones (pack_demand). */
	bool packed;
	/* Lenient fallback: the job went to the least-bad unit
	 * (least_bad >= 0) or where the allocator chose (-1). */
	bool lenient;
	long least_bad;
	/* Will run: the job cannot start before this (the end of the last
	 * running job the search removed), 0 when it runs now; ended counts
	 * the jobs removed and waited_for is the last of them. */
	int64_t start_after;
	int ended;
	uint32_t waited_for;
	/* Why no unit accepted the job (strict: the pending reason;
	 * lenient: the first half of the record's reason), "" otherwise. */
	char why[COSCHED_PLACE_WHY_MAX];
} cosched_place_result_t;

/*
 * A cluster of nnodes nodes: node i has units[i] units (0: a hole in the
 * node table, it takes nothing) of unit_cores[i] cores each.  Every unit
 * starts empty and unavailable (no node is known to be up): the caller
 * enters the running jobs and then sets the nodes that take jobs
 * (cosched_place_set_node_ok).  NULL with err on a bad layout or
 * configuration (the message names the field and the value).
 */
cosched_place_t *cosched_place_create(const cosched_place_conf_t *conf,
				      size_t nnodes, const int *units,
				      const int *unit_cores,
				      cosched_error_t *err);
void cosched_place_free(cosched_place_t *p);
/* A deep copy (will-run, what-if); NULL with err when out of memory. */
cosched_place_t *cosched_place_copy(const cosched_place_t *p,
				    cosched_error_t *err);

/* Layout. */
size_t cosched_place_nunits(const cosched_place_t *p);
size_t cosched_place_unit_first(const cosched_place_t *p, size_t node);
size_t cosched_place_unit_node(const cosched_place_t *p, size_t unit);
/* The occupancy, for reading (holders, sockets as the ranking sees them). */
const cosched_occupancy_t *cosched_place_occupancy(const cosched_place_t *p);

/* Whether a node takes new jobs (not DOWN, DRAINED or FUTURE); its units'
 * holders stay either way. */
void cosched_place_set_node_ok(cosched_place_t *p, size_t node, bool ok);

/*
 * The jobs waiting in the queue (min_slowdown's choice between sharing
 * and an empty unit), the job being placed not counted: each would take
 * an empty unit of its own if it could, so units, not cores, are what
 * spreading uses up.  The caller sets it before a job is placed; it stays
 * until set again.  A value < 0 counts as 0.
 */
void cosched_place_set_queue_jobs(cosched_place_t *p, long jobs);
long cosched_place_queue_jobs(const cosched_place_t *p);
/* The empty units that take jobs (free cores, no co-runner, node up, not
 * closed by a wide job). */
long cosched_place_empty_units(const cosched_place_t *p);

/*
 * A job's kind from its node count and cores per node (the smallest unit
 * of the cluster decides what is wide), and gj->threads clamped to a unit
 * for wide and multi-node jobs (they take threads per unit).
 */
void cosched_place_job_shape(const cosched_place_t *p,
			     cosched_place_job_t *job, uint32_t min_nodes);

/*
 * Enter a running job holding holds[0..n) (its real cores, from the
 * allocator) as an occupant.  cores: the job's cores per node as decided;
 * a job wider than its first unit holds its units whole, and they are
 * closed to other jobs until it leaves.  Errors as cosched_occupancy_add.
 */
int cosched_place_enter(cosched_place_t *p, const cosched_gang_job_t *gj,
			int cores, const cosched_hold_t *holds, size_t n,
			cosched_error_t *err);
/* The same for a foreign holder (--cosched=off, started before cosched):
 * used cores, no co-runner. */
int cosched_place_enter_foreign(cosched_place_t *p, uint32_t job_id,
				const cosched_hold_t *holds, size_t n,
				cosched_error_t *err);
/* Remove what job_id holds (reopening the units it closed).  1 when it was
 * there, 0 when not, -1 on error. */
int cosched_place_leave(cosched_place_t *p, uint32_t job_id,
			cosched_error_t *err);
/* A reading of the live loads, as cosched_occupancy_live_begin, _set and
 * _end: a running job whose live load is no longer read carries the MPKI
 * it entered with again. */
void cosched_place_live_begin(cosched_place_t *p);
int cosched_place_live_set(cosched_place_t *p, uint32_t job_id, double mpki,
			   cosched_error_t *err);
size_t cosched_place_live_end(cosched_place_t *p);

/*
 * Place a job (the rules above).  node_allowed[0..nnodes) says which nodes
 * the job may use (partition, features, availability as the caller knows
 * it); NULL: every node.  ends[0..nends) are the running jobs and their
 * ends, for will-run (may be NULL with nends 0; the array is reordered).
 * The state is not changed: the caller enters the job once the allocator
 * has really placed it (job begin).  res is always filled.  Returns
 * res->rc.
 */
int cosched_place_job(cosched_place_t *p, const cosched_place_job_t *job,
		      const bool *node_allowed, cosched_place_mode_t mode,
		      cosched_place_ending_t *ends, size_t nends,
		      cosched_place_try_fn try, void *ctx,
		      cosched_place_result_t *res);

/* The predicted slowdown of a job (class cls) among the occupants of unit
 * (itself left out); INFINITY when it cannot be predicted. */
double cosched_place_unit_slowdown(const cosched_place_t *p, size_t unit,
				   uint32_t job_id, const cosched_class_t *cls);
/* The worst of those over the units job_id holds, 1 when alone. */
double cosched_place_predict(const cosched_place_t *p, uint32_t job_id,
			     const cosched_class_t *cls);
/* Both that (*with) and the same as if job apart were not there
 * (*without; apart == job_id: the same as *with): what a co-occupant's
 * prediction is with apart, and was before apart arrived or will be once
 * it has left, without entering or removing it, in one walk of its
 * units. */
void cosched_place_predict_pair(const cosched_place_t *p, uint32_t job_id,
				const cosched_class_t *cls, uint32_t apart,
				double *with, double *without);

/* Self-check (cosched_occupancy_check, and the closed units agree with the
 * wide jobs present); 0 or -1 with err. */
int cosched_place_check(const cosched_place_t *p, cosched_error_t *err);

#endif
