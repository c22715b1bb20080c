/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_records.h - a ProfileDir with its jobs folder (a fixture: setup,
 * teardown) and step records written into it as cosched-sampler writes
 * them, for the learner's tests (test_learn.c, test_learn_users.c). */
#ifndef STEP_RECORDS_H
#define STEP_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "src/libcosched/base/error.h"

/* The test's ProfileDir, and the last error. */
extern char dir[64];
extern cosched_error_t err;

void setup(void);
void teardown(void);

/* Who ran a record and what became of it; step_record_root is a placed
 * job of root's whose profile took the run. */
typedef struct {
	long uid;		/* -1: no "uid" (an earlier sampler) */
	bool merged;		/* "profile": "merged into ..." */
	bool shared;		/* "profile_shared": true */
	const char *state;	/* the decision's state */
} step_record_owner_t;

extern const step_record_owner_t step_record_root;

/*
 * dir/jobs/JOB.0.n1.json, replaced as the sampler replaces it: app (NULL:
 * none), class lca, run from start for runtime seconds, co-runners co
 * (a JSON list's inside, "" none), exit_json how its tasks ended.
 */
void step_record_put(uint32_t job, const char *app,
		     const char *lca, double start, double runtime,
		     const char *co, const char *exit_json,
		     const step_record_owner_t *who);
/* The record's file time: when its step ended, as the learner sees it. */
void step_record_set_time(uint32_t job, double when);

#endif
