/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ctl_place.c - job_test: the placement engine (src/libcosched/policy/place.h) chooses
 *  the units a job may take; this file turns them into steering for
 *  cons_tres (a narrowed node bitmap and the other sockets' cores
 *  excluded, controller.h) and records why a strict-mode job waits.
\*****************************************************************************/

#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "src/libcosched/base/text.h"

#include "ctl_internal.h"
#include "select_cons_tres_cosched.h"

/* What the engine's try callback needs to ask cons_tres. */
typedef struct {
	cosched_ctl_t *c;
	cosched_try_fn try;
	void *ctx;
	bitstr_t *node_bitmap;
} steer_ctx_t;

/* The engine's units as steering: their nodes, and on each node the
 * sockets they are (every socket of a node with GangScope=node), in the
 * state's steering, which is left clear again for the next attempt. */
static int _try_units(void *arg, const size_t *units, size_t n)
{
	steer_ctx_t *t = arg;
	const cosched_place_t *p = t->c->place;
	cosched_steer_t *steer = &t->c->steer;
	int rc;

	if (!units)
		return ctl_place_attempt(t->c, t->try, t->ctx, t->node_bitmap, NULL) ==
		       SLURM_SUCCESS ? 0 : -1;
	for (size_t k = 0; k < n; k++) {
		size_t node = cosched_place_unit_node(p, units[k]);
		size_t s = units[k] - cosched_place_unit_first(p, node);
		bit_set(steer->nodes, node);
		if (t->c->conf.scope == COSCHED_SCOPE_NODE)
			steer->socket_mask[node] = ~(uint64_t) 0;
		else if (s < 64)
			steer->socket_mask[node] |= (uint64_t) 1 << s;
	}
	rc = ctl_place_attempt(t->c, t->try, t->ctx, t->node_bitmap, steer);
	for (size_t k = 0; k < n; k++) {
		size_t node = cosched_place_unit_node(p, units[k]);
		bit_clear(steer->nodes, node);
		steer->socket_mask[node] = 0;
	}
	return rc == SLURM_SUCCESS ? 0 : -1;
}

/* The nodes the job may use (partition, features, availability as
 * slurmctld computed them), or NULL when every node. */
static bool *_allowed(cosched_ctl_t *c, bitstr_t *node_bitmap)
{
	bool *allowed;

	if (bit_set_count(node_bitmap) == c->map_nodes)
		return NULL;
	allowed = xcalloc(c->map_nodes + 1, sizeof(bool));
	for (int i = 0; i < c->map_nodes && i < (int) bit_size(node_bitmap);
	     i++)
		allowed[i] = bit_test(node_bitmap, i);
	return allowed;
}

/* The running jobs the engine knows and when they end (their time limit,
 * as backfill assumes), for a will-run search. */
static cosched_place_ending_t *_ends(cosched_ctl_t *c, size_t *n)
{
	const cosched_occupancy_t *occ = cosched_place_occupancy(c->place);
	cosched_place_ending_t *ends;
	struct listIterator *it;
	job_record_t *jp;
	size_t cap = 64;

	*n = 0;
	ends = xcalloc(cap, sizeof(*ends));
	it = list_iterator_create(*c->job_list);
	while ((jp = list_next(it))) {
		if (!IS_JOB_RUNNING(jp) ||
		    !cosched_occupancy_has(occ, jp->job_id, NULL))
			continue;
		if (*n == cap) {
			cap *= 2;
			xrecalloc(ends, cap, sizeof(*ends));
		}
		ends[(*n)++] = (cosched_place_ending_t) {
			.job_id = jp->job_id, .end = jp->end_time };
	}
	list_iterator_destroy(it);
	return ends;
}

/* A job that counts as waiting: pending and not held (priority 0). */
static bool _waiting(const job_record_t *jp)
{
	return IS_JOB_PENDING(jp) && jp->priority != 0;
}

/*
 * The jobs pending, this one left out (min_slowdown's choice between
 * sharing and an empty socket).  Held jobs (priority 0) do not count.  A
 * scan of the job list, so at most once a second; in between, each job
 * placed leaves the count (_place), so that a scheduling pass sees its
 * queue shrink as the simulator does.
 */
static long _queue_jobs(cosched_ctl_t *c, job_record_t *job_ptr)
{
	time_t now = time(NULL);
	long own = 0;

	if (now != c->queue_counted) {
		struct listIterator *it;
		job_record_t *jp;

		c->queue_jobs = 0;
		it = list_iterator_create(*c->job_list);
		while ((jp = list_next(it)))
			if (_waiting(jp))
				c->queue_jobs++;
		list_iterator_destroy(it);
		c->queue_counted = now;
	}
	if (_waiting(job_ptr))
		own = 1;
	return c->queue_jobs > own ? c->queue_jobs - own : 0;
}

static int _place(cosched_ctl_t *c, job_record_t *job_ptr, job_view_t *v,
		  bitstr_t *node_bitmap, uint16_t mode, cosched_try_fn try,
		  void *ctx)
{
	steer_ctx_t t = { .c = c, .try = try, .ctx = ctx,
			  .node_bitmap = node_bitmap };
	cosched_place_mode_t pm = mode == MODE_TEST_ONLY ?
				  COSCHED_PLACE_TEST_ONLY :
				  mode == MODE_WILL_RUN ?
				  COSCHED_PLACE_WILL_RUN : COSCHED_PLACE_RUN_NOW;
	cosched_place_ending_t *ends = NULL;
	cosched_place_result_t res;
	bool *allowed = _allowed(c, node_bitmap);
	size_t nends = 0;

	if (pm == COSCHED_PLACE_WILL_RUN)
		ends = _ends(c, &nends);
	/* Run now and will run alike: backfill plans the placement the
	 * scheduler would make. */
	if (c->conf.policy == COSCHED_POLICY_MIN_SLOWDOWN &&
	    pm != COSCHED_PLACE_TEST_ONLY && v->job.kind == COSCHED_PLACE_SINGLE)
		cosched_place_set_queue_jobs(c->place,
					      _queue_jobs(c, job_ptr));
	cosched_place_job(c->place, &v->job, allowed, pm, ends, nends,
			  _try_units, &t, &res);
	if (!res.rc && pm == COSCHED_PLACE_RUN_NOW && c->queue_jobs > 0 &&
	    _waiting(job_ptr))
		c->queue_jobs--;	/* it leaves the queue */
	xfree(allowed);
	xfree(ends);
	if (pm == COSCHED_PLACE_TEST_ONLY)
		return res.rc ? SLURM_ERROR : SLURM_SUCCESS;
	if (!res.rc && res.start_after) {
		if (job_ptr->start_time < res.start_after)
			job_ptr->start_time = res.start_after;
		if (c->conf.debug_flags & COSCHED_DEBUG_PLACEMENT)
			info("%s: %pJ will run at %ld once JobId=%u ends (%d running jobs ended in the search)",
			     plugin_type, job_ptr, (long) job_ptr->start_time,
			     res.waited_for, res.ended);
	}
	if (c->conf.debug_flags & COSCHED_DEBUG_PLACEMENT)
		info("%s: %pJ job_test mode %u: %s%s%s", plugin_type, job_ptr,
		     (unsigned) mode,
		     !res.rc ? (res.lenient ? "placed (lenient)" : "placed") :
		     "no unit", res.why[0] ? ": " : "", res.why);
	if (!res.rc && res.packed && mode == MODE_RUN_NOW) {
		c->placed_note_job_id = job_ptr->job_id;
		snprintf(c->placed_note, sizeof(c->placed_note),
			 "packed: %ld jobs pending, %ld empty %ss",
			 cosched_place_queue_jobs(c->place),
			 cosched_place_empty_units(c->place),
			 c->conf.scope == COSCHED_SCOPE_NODE ? "node" : "socket");
	} else if (!res.rc && res.lenient && mode == MODE_RUN_NOW) {
		/* "%.150s; took the %s" without printf (every job lenient
		 * mode places by its last resort). */
		size_t at = cosched_text_copy(c->placed_note, 150 + 1,
					      res.why);

		c->placed_note_job_id = job_ptr->job_id;
		at += cosched_text_copy(c->placed_note + at,
					sizeof(c->placed_note) - at,
					"; took the ");
		cosched_text_copy(c->placed_note + at,
				  sizeof(c->placed_note) - at,
				  res.least_bad >= 0 ? "least-bad socket" :
				  "cores cons_tres chose");
	} else if (res.rc && !res.lenient && mode == MODE_RUN_NOW) {
		/* Strict: the job waits; its record says which rule holds
		 * it (Slurm resets Reason= after every failed selection). */
		cosched_decision_t d;
		ctl_record_init(c, &d, job_ptr, v, COSCHED_DECISION_PENDING);
		cosched_decision_set_reason(&d, "%s", res.why);
		ctl_record_write(c, job_ptr, &d);
	}
	return res.rc ? SLURM_ERROR : SLURM_SUCCESS;
}

int cosched_ctl_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			 uint16_t mode, cosched_try_fn try, void *ctx)
{
	cosched_ctl_t *c = &cosched_ctl;
	double t0 = ctl_now(), c0 = 0.0;
	int rc;

	if (!c->on)
		return try(ctx, node_bitmap, NULL);
	pthread_mutex_lock(&c->mutex);
	c->c_on = (c->conf.debug_flags & COSCHED_DEBUG_TIMING) &&
		  CTL_CPU_SAMPLED(c->t_calls);
	if (c->c_on)
		c0 = ctl_cpu_now();
	if (ctl_state_ensure(c)) {
		c->c_on = false;
		pthread_mutex_unlock(&c->mutex);
		return try(ctx, node_bitmap, NULL);
	}
	/* Under CoschedPolicy=none cons_tres places every job: the job's
	 * view (its options, profile and shape) would go unread. */
	c->view_job = NULL;
	if (c->conf.policy == COSCHED_POLICY_NONE) {
		rc = ctl_place_attempt(c, try, ctx, node_bitmap, NULL);
	} else {
		job_view_t *v = &c->view;

		ctl_view(c, job_ptr, v);
		rc = v->kind != KIND_PLACE ?
		     ctl_place_attempt(c, try, ctx, node_bitmap, NULL) :
		     ctl_ts_rows(c, job_ptr) ?
		     ctl_ts_place(c, job_ptr, v, node_bitmap, mode, try, ctx) :
		     _place(c, job_ptr, v, node_bitmap, mode, try, ctx);
		if (rc == SLURM_SUCCESS && mode == MODE_RUN_NOW) {
			c->view_job = job_ptr;
			c->view_job_id = job_ptr->job_id;
		}
	}
	c->t_calls++;
	c->t_total += ctl_now() - t0;
	if (c->c_on) {
		c->c_calls++;
		c->c_total += ctl_cpu_now() - c0;
		c->c_on = false;
	}
	if ((c->conf.debug_flags & COSCHED_DEBUG_TIMING) &&
	    !(c->t_calls % 1000))
		ctl_log_timing(c);
	pthread_mutex_unlock(&c->mutex);
	return rc;
}
