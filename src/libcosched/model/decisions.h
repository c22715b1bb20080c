/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decisions.h - the decision records slurmctld keeps in memory, one per
 * running job, by job id.
 *
 * What the controller decided for a job (model/decision.h) is kept here
 * beside the occupancy, and the record's text in the job's SystemComment
 * is written from it: the co-runners' frequencies, a requeue, a resume
 * and a resize read these fields, never the text.  The text is read back
 * only to fill this after a restart.
 *
 * A record is kept at the size of its own nodes (cosched_decision_size),
 * not the 29 KB of a cosched_decision_t with room for 64: about 0.4 KB
 * and 0.45 KB a node.
 *
 * Not thread-safe: the controller calls it under its own lock.
 */
#ifndef COSCHED_DECISIONS_H
#define COSCHED_DECISIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/model/decision.h"

typedef struct cosched_decisions cosched_decisions_t;

/* Empty; NULL when out of memory. */
cosched_decisions_t *cosched_decisions_create(void);
void cosched_decisions_free(cosched_decisions_t *t);

/* Keep a copy of d under d->job_id (> 0), in place of what was kept for
 * it: 0, or -1 when out of memory or d->job_id is 0 (t unchanged). */
int cosched_decisions_put(cosched_decisions_t *t, const cosched_decision_t *d);

/* The record kept for job_id into *d (d may be NULL): whether there is
 * one. */
bool cosched_decisions_get(const cosched_decisions_t *t, uint32_t job_id,
			   cosched_decision_t *d);

/* Set the kept record's predicted slowdown (NAN: unset), as a neighbour's
 * arrival or departure changes it: whether job_id has one. */
bool cosched_decisions_set_slowdown(cosched_decisions_t *t, uint32_t job_id,
				    double slowdown);

/* Forget job_id's record: whether there was one. */
bool cosched_decisions_drop(cosched_decisions_t *t, uint32_t job_id);

/* Forget every record whose job keep() says has ended; returns how many
 * went. */
size_t cosched_decisions_retain(cosched_decisions_t *t,
				bool (*keep)(uint32_t job_id, void *arg),
				void *arg);

/* Records kept. */
size_t cosched_decisions_count(const cosched_decisions_t *t);

#endif
