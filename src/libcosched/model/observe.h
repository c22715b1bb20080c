/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * observe.h - what one step's record observed of interference:
 * the rule the learned table (model/learn.h, in slurmctld) and the
 * model check (cosched-status --model) share.
 *
 * A step's record (cosched-sampler: ProfileDir/jobs/JOB.STEP.NODE.json)
 * carries its run time, its start and end, the controller's decision
 * (class, predicted slowdown, sockets on the node), how its tasks ended,
 * and the steps that shared its node (the node's ledger names them).
 * Two steps co-ran when their sockets on the node meet (unknown sockets
 * meet any) and their runs overlapped by more than COSCHED_OBSERVE_TOUCH_S
 * (a job ending as the next starts on the freed core does not count).
 *
 * The rule, in order (the first that applies):
 *   - no measured run (runtime, start, end): skipped, no_runtime;
 *   - how its tasks ended is not known (no "exit": an earlier release):
 *     skipped, no_exit; a task ended by a signal (a time limit, scancel,
 *     a crash): skipped, signalled; a task exited nonzero: skipped,
 *     failed;
 *   - its co-runners are not all named (the step left the node's ledger,
 *     or more than the ledger names): skipped, no_corunner_list;
 *   - a named co-runner's record cannot be read or trusted, or has no
 *     run time (an earlier release): skipped, corunner_unusable (it may
 *     have shared the sockets all along);
 *   - a named co-runner has no record yet: pending (its caller waits;
 *     a record that stays pending is skipped, corunner_missing);
 *   - no step co-ran with it: a solo run of its application;
 *   - no class in its decision: skipped, no_class;
 *   - not exactly one step co-ran with it for at least min_overlap of its
 *     run: skipped, several;
 *   - that co-runner has no class: skipped, corunner_class;
 *   - it started more than COSCHED_OBSERVE_START_SLACK_S after this step
 *     (then this step's prediction was about others): corunner_later;
 *   - else an observation of the pair (its class, the co-runner's).
 * The measured slowdown is the run time over the median of the
 * application's solo run times (cosched_learn_solo_time).
 */
#ifndef COSCHED_OBSERVE_H
#define COSCHED_OBSERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "src/libcosched/model/category.h"
#include "src/libcosched/base/idset.h"
#include "src/libcosched/model/learn.h"

#define COSCHED_OBSERVE_TOUCH_S 0.5
#define COSCHED_OBSERVE_START_SLACK_S 1.0
#define COSCHED_OBSERVE_MIN_OVERLAP_DEFAULT 0.5
/* Names of co-runners a record keeps (the ledger's). */
#define COSCHED_OBSERVE_CORUNNERS_MAX 16

/* One step's record, as far as the rule reads it. */
typedef struct {
	uint32_t job, step;
	char node[65];
	char app[65];			/* "" unknown */
	bool has_run;			/* runtime_s, start_s, end_s */
	double runtime_s, start_s, end_s;
	bool has_class;
	cosched_lca_t lca;
	bool has_prediction;
	double predicted;
	bool has_sockets;
	cosched_idset_t sockets;	/* on its node */
	bool has_exit;
	int signalled, failed;
	bool corunners_known;		/* "co_runners" present */
	int ncorunners, corunners_seen;
	uint32_t corunner_job[COSCHED_OBSERVE_CORUNNERS_MAX];
	uint32_t corunner_step[COSCHED_OBSERVE_CORUNNERS_MAX];
	/* Who may teach (cosched_observe_teaches). */
	long uid;			/* the job's user; -1 not known */
	bool shared;			/* its application is ProfileShare'd */
	bool placed;			/* decision state "placed" */
	bool merged;			/* "profile": "merged into ..." */
} cosched_step_record_t;

typedef enum {
	COSCHED_OBS_PAIR,		/* victim next to corunner */
	COSCHED_OBS_SOLO,		/* a solo run of app */
	COSCHED_OBS_PENDING,		/* a co-runner's record is missing */
	COSCHED_OBS_SKIP,		/* why says why */
} cosched_obs_kind_t;

typedef struct {
	cosched_obs_kind_t kind;
	cosched_learn_skip_t why;	/* COSCHED_OBS_SKIP */
	cosched_lca_t victim, corunner;	/* COSCHED_OBS_PAIR */
} cosched_observation_t;

/*
 * Apply the rule to v, given the records found of its named co-runners
 * (co[0..nco), any order), how many named ones have none (missing) and
 * how many have one that cannot be read or trusted (unusable).
 */
void cosched_observe(const cosched_step_record_t *v,
		     const cosched_step_record_t *const *co, int nco,
		     int missing, int unusable, double min_overlap,
		     cosched_observation_t *out);

/*
 * Whether an observation (a solo run, a pair, or one pending) may teach
 * the learned table, else why not: a job that names no application (no
 * solo time can ever come: skipped at once, never left pending), one
 * cosched did not place (--nodelist, --exclusive, passthrough, off: its
 * user chose where it ran), one whose application's profile did not take
 * the run (too short, another user's profile: cosched_profile_may_merge)
 * and one of no known user.  The model check reports them all.
 */
bool cosched_observe_teaches(const cosched_step_record_t *v,
			     cosched_learn_skip_t *why);
/* Whose solo runs v is measured against: its user's, or the site's for a
 * shared application (model/learn.h). */
long cosched_observe_owner(const cosched_step_record_t *v);

#endif
