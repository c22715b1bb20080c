/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ctl_state.c - the placement engine's state built from Slurm's records:
 *  units from the node table (sockets, or nodes with GangScope=node), the
 *  running jobs entered from their job_resources and decision records,
 *  node availability followed, live loads applied.  Rebuilt from the job
 *  and node records whenever they change wholesale (select/cons_common's
 *  model): after a restart, a reconfigure, a node change.
\*****************************************************************************/

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "ctl_internal.h"
#include "select_cons_tres_cosched.h"

void ctl_state_free(cosched_ctl_t *c)
{
	cosched_place_free(c->place);
	c->place = NULL;
	c->map_nodes = 0;
	FREE_NULL_BITMAP(c->steer.nodes);
	xfree(c->steer.socket_mask);
	FREE_NULL_BITMAP(c->attempt_nodes);
}

static int _cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) *(void *const *) a;
	uintptr_t y = (uintptr_t) *(void *const *) b;

	return x < y ? -1 : x > y;
}

/*
 * The jobs holding cores here are those cons_tres's partition rows hold:
 * the occupancy can agree with itself and still count a job cons_tres
 * gave the cores of back (a suspended one), which holds jobs cons_tres
 * would start.  *jobs: how many were compared; -1 with err on the first
 * that differs, 0 also where the rows cannot be read (logged).
 */
static int _check_rows(cosched_ctl_t *c, size_t *jobs, cosched_error_t *err)
{
	const cosched_occupancy_t *occ = cosched_place_occupancy(c->place);
	struct listIterator *it;
	job_resources_t **rows;
	job_record_t *job_ptr;
	size_t n;
	int rc = 0;

	*jobs = 0;
	if (cosched_select_row_jobs(&rows, &n)) {
		error("%s: cons_tres's rows not found: occupancy not compared with them",
		      plugin_type);
		return 0;
	}
	qsort(rows, n, sizeof(*rows), _cmp_ptr);
	it = list_iterator_create(*c->job_list);
	while (!rc && (job_ptr = list_next(it))) {
		job_resources_t *jr = job_ptr->job_resrcs;
		bool in_rows, here;
		cosched_hold_t *holds = NULL;

		/* Not a job starting: cons_tres enters it into its rows
		 * after job begin (select_g_select_nodeinfo_set, every
		 * series), once it runs. */
		if (!jr || (!IS_JOB_RUNNING(job_ptr) &&
			    !IS_JOB_SUSPENDED(job_ptr)))
			continue;
		(*jobs)++;
		in_rows = bsearch(&jr, rows, n, sizeof(*rows), _cmp_ptr);
		here = cosched_occupancy_has(occ, job_ptr->job_id, NULL);
		if (in_rows == here)
			continue;
		/* Cores on no unit of the map (a node added since): none
		 * to count. */
		if (in_rows && !ctl_cores_holds(c, job_ptr, &holds))
			continue;
		xfree(holds);
		rc = cosched_error_set(err,
			"JobId=%u (%s%s) holds cores in %s but not in %s",
			job_ptr->job_id,
			IS_JOB_SUSPENDED(job_ptr) ? "suspended" : "running",
			IS_JOB_SUSPENDED(job_ptr) && !job_ptr->priority ?
			" by scontrol" : "",
			here ? "the occupancy" : "cons_tres's rows",
			here ? "cons_tres's rows" : "the occupancy");
	}
	list_iterator_destroy(it);
	xfree(rows);
	return rc;
}

void ctl_state_check(cosched_ctl_t *c, const char *when)
{
	cosched_error_t err;
	size_t jobs = 0;

	if (!(c->conf.debug_flags & COSCHED_DEBUG_CHECK))
		return;
	if (cosched_place_check(c->place, &err) ||
	    _check_rows(c, &jobs, &err)) {
		/* Just rebuilt: another rebuild would find the same (a
		 * job left out for want of cores), and at every call. */
		bool again = strcmp(when, "rebuild");

		error("%s: self-check failed after %s: %s; %s",
		      plugin_type, when, err.msg,
		      again ? "rebuilding from the job records" :
		      "not rebuilt again");
		c->rebuild_needed = again;
	} else {
		info("%s: self-check passed after %s: %zu jobs as in cons_tres's rows",
		     plugin_type, when, jobs);
	}
	ctl_record_check(c, when);
}

/* A job whose decision is kept until a rebuild: it runs (or is
 * suspended, and may resume). */
static bool _job_runs(uint32_t job_id, void *arg)
{
	job_record_t *job_ptr = find_job_record(job_id);

	(void) arg;
	return job_ptr &&
	       (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr));
}

/* DOWN, DRAINED (or draining), FUTURE nodes take no new job. */
static void _sync_nodes(cosched_ctl_t *c, bool force)
{
	node_record_t *node_ptr;

	if (!force && c->node_state_seen == last_node_update)
		return;
	c->node_state_seen = last_node_update;
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		if (i >= c->map_nodes)
			break;
		cosched_place_set_node_ok(c->place, i,
					  !IS_NODE_DOWN(node_ptr) &&
					  !IS_NODE_DRAIN(node_ptr) &&
					  !IS_NODE_FUTURE(node_ptr));
	}
}

/* Enter a running job.  The decision record (d, may be NULL) says how it
 * was placed; without one (started before cosched, or --cosched=off) the
 * job is a foreign holder: used cores, no co-runner. */
void ctl_state_enter(cosched_ctl_t *c, job_record_t *job_ptr,
		     const cosched_decision_t *d)
{
	cosched_hold_t *holds;
	int n = ctl_cores_holds(c, job_ptr, &holds);

	ctl_state_enter_holds(c, job_ptr, d, holds, n);
	xfree(holds);
}

void ctl_state_enter_holds(cosched_ctl_t *c, job_record_t *job_ptr,
			   const cosched_decision_t *d,
			   const cosched_hold_t *holds, int n)
{
	cosched_error_t err;
	int rc;

	if (!n)
		return;
	if (d && d->has_class &&
	    (d->state == COSCHED_DECISION_PLACED ||
	     d->state == COSCHED_DECISION_PASSTHROUGH)) {
		cosched_gang_job_t gj = {
			.job_id = job_ptr->job_id,
			.threads = holds[0].cores,
			.mpki = isfinite(d->mpki) ? d->mpki : 0.0,
			.category = d->category,
		};
		rc = cosched_place_enter(c->place, &gj, (int) d->threads,
					 holds, n, &err);
	} else {
		rc = cosched_place_enter_foreign(c->place, job_ptr->job_id,
						 holds, n, &err);
	}
	if (rc)
		error("%s: %pJ not entered: %s", plugin_type, job_ptr, err.msg);
}

void ctl_state_leave(cosched_ctl_t *c, job_record_t *job_ptr)
{
	cosched_error_t err;

	if (cosched_place_leave(c->place, job_ptr->job_id, &err) < 0)
		error("%s: %pJ: %s", plugin_type, job_ptr, err.msg);
}

/* Job ids, growing. */
typedef struct {
	uint32_t *ids;
	size_t n, cap;
} id_list_t;

static void _add_id(id_list_t *l, uint32_t id)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		xrealloc(l->ids, l->cap * sizeof(*l->ids));
	}
	l->ids[l->n++] = id;
}

/* Units from the node table: unit_count[i] per node, cores each. */
static int _rebuild(cosched_ctl_t *c)
{
	id_list_t marked = { 0 }, left = { 0 };
	cosched_hold_t *holds = NULL;
	cosched_place_conf_t pc;
	struct listIterator *it;
	job_record_t *job_ptr;
	cosched_error_t err;
	int *units, *cores;
	int nnodes = node_record_count;

	cosched_place_conf_from(&c->conf, &c->interference, &pc);
	pc.explain = true;
	ctl_state_free(c);
	ctl_ts_detect(c, nnodes);
	units = xcalloc(nnodes + 1, sizeof(int));
	cores = xcalloc(nnodes + 1, sizeof(int));
	for (int i = 0; i < nnodes; i++) {
		int k = i;
		node_record_t *node_ptr = next_node(&k);
		if (node_ptr != node_record_table_ptr[i] || !node_ptr)
			continue;	/* a hole in the node table */
		units[i] = c->conf.scope == COSCHED_SCOPE_NODE ? 1 :
			   node_ptr->tot_sockets;
		cores[i] = c->conf.scope == COSCHED_SCOPE_NODE ?
			   node_ptr->tot_cores : node_ptr->cores;
		/* Gang time slices: cons_tres keeps a row of cores for each
		 * of the N jobs a core may hold (a suspended slice keeps its
		 * cores), and so does the occupancy. */
		if (ctl_ts_node_rows(c, i) >= 2)
			cores[i] *= ctl_ts_node_rows(c, i);
	}
	c->place = cosched_place_create(&pc, nnodes, units, cores, &err);
	xfree(units);
	xfree(cores);
	if (!c->place) {
		error("%s: %s", plugin_type, err.msg);
		return -1;
	}
	c->map_nodes = nnodes;
	c->steer.nodes = bit_alloc(nnodes ? nnodes : 1);
	c->steer.socket_mask = xcalloc(nnodes ? nnodes : 1, sizeof(uint64_t));
	c->steer.core_node = -1;	/* whole sockets: time sharing steers
					 * by cores with a steer of its own */
	c->attempt_nodes = bit_alloc(nnodes ? nnodes : 1);
	/* Every job holding cores, placed by cosched or not, with what was
	 * decided for it: kept in memory, or after a restart read from its
	 * record.  A job suspended by scontrol holds none (cons_tres gave
	 * its cores back) but keeps its decision for its resume. */
	it = list_iterator_create(*c->job_list);
	while ((job_ptr = list_next(it))) {
		cosched_decision_t d;
		bool have;
		int n;

		if (!IS_JOB_RUNNING(job_ptr) && !IS_JOB_SUSPENDED(job_ptr))
			continue;
		have = ctl_record_kept(c, job_ptr->job_id, &d) ||
		       (!c->decided_loaded &&
			ctl_record_load(c, job_ptr, &d) == 1);
		if (have && ctl_shared_marked(&d))
			_add_id(&marked, job_ptr->job_id);
		if (!ctl_cores_counted(job_ptr))
			continue;
		n = ctl_cores_holds(c, job_ptr, &holds);
		ctl_state_enter_holds(c, job_ptr, have ? &d : NULL, holds, n);
		/* More running jobs than cores: cons_tres's job overflow. */
		if (n && !cosched_occupancy_has(cosched_place_occupancy(c->place),
						job_ptr->job_id, NULL))
			_add_id(&left, job_ptr->job_id);
		xfree(holds);
	}
	list_iterator_destroy(it);
	c->decided_loaded = true;
	/* Their records say what the occupancy now holds. */
	if (marked.n || left.n || c->nshared)
		ctl_shared_rebuilt(c, marked.ids, marked.n, left.ids, left.n);
	xfree(marked.ids);
	xfree(left.ids);
	/* A job that left without a word (none should) is forgotten. */
	cosched_decisions_retain(c->decided, _job_runs, NULL);
	/* Every unit starts unavailable: make each match its node. */
	_sync_nodes(c, true);
	c->rebuild_needed = false;
	debug("%s: rebuilt: %d nodes, %zu %s", plugin_type, c->map_nodes,
	      cosched_place_nunits(c->place),
	      c->conf.scope == COSCHED_SCOPE_NODE ? "nodes as gangs" : "sockets");
	ctl_state_check(c, "rebuild");
	return 0;
}

int ctl_state_ensure(cosched_ctl_t *c)
{
	bool again = false;

	if (ctl_refresh_apply_learned(c))
		c->rebuild_needed = true;
	if (c->rebuild_needed || !c->place ||
	    c->map_nodes != (int) node_record_count) {
		if (_rebuild(c))
			return -1;
		again = true;
	}
	_sync_nodes(c, false);
	if (c->conf.live_loads)
		ctl_refresh_apply_live(c, again);
	return 0;
}
