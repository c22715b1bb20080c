/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ctl_timeshare.c - time sharing on Slurm's gang scheduler: which
 *  partitions cosched serves (decided at every rebuild from the partition
 *  records, logged when it changes), and job_test in them, the cores the
 *  pair judgement of src/libcosched/policy/timeshare.h chooses turned
 *  into steering.
 *
 *  gang.c keeps per partition one list of jobs and one active set, and
 *  two jobs that share a core never run in the same slice; it has no hook
 *  for who runs together, so the cores each job gets are the only lever
 *  (../shared design notes, "Slurm's gang scheduler").  Served: PreemptMode
 *  GANG (global) with a partition's OverSubscribe=FORCE:N (N >= 2) at core
 *  granularity (CR_Core, CR_Core_Memory: gang's GS_CORE).  Anything else
 *  with time slices is named in the log and its jobs are placed as space
 *  sharing places them.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "src/libcosched/policy/timeshare.h"

#include "ctl_internal.h"
#include "select_cons_tres_cosched.h"

/* SelectTypeParameters' granularity bits, the same in every series
 * (CR_CPU, CR_Socket, CR_Core up to 25.11; 26.05's SELECT_* enum). */
#define TS_SELECT_CPU		0x0001
#define TS_SELECT_SOCKET	0x0002
#define TS_SELECT_CORE		0x0004

void ctl_ts_free(cosched_ctl_t *c)
{
	for (int i = 0; i < c->ts_nparts; i++)
		xfree(c->ts_names[i]);
	xfree(c->ts_names);
	xfree(c->ts_rows);
	xfree(c->ts_node_rows);
	c->ts_nnodes = 0;
	c->ts_nparts = 0;
}

static const char *_granularity(uint16_t cr)
{
	if (cr & TS_SELECT_CORE)
		return NULL;
	if (cr & TS_SELECT_CPU)
		return "CPU";
	if (cr & TS_SELECT_SOCKET)
		return "socket";
	return "node";
}

/* Whether another partition of another PriorityTier shares a node with
 * part: preempt/partition_prio with suspend then stops its jobs outside
 * the slices (gang's shadows), which cosched does not judge. */
static bool _tiers_cross(part_record_t *part)
{
	struct listIterator *it;
	part_record_t *o;
	bool cross = false;

	if (!part->node_bitmap)
		return false;
	it = list_iterator_create(*cosched_ctl.part_list);
	while (!cross && (o = list_next(it)))
		cross = o != part && o->node_bitmap &&
			o->priority_tier != part->priority_tier &&
			bit_overlap_any(o->node_bitmap, part->node_bitmap);
	list_iterator_destroy(it);
	return cross;
}

/* Why cosched cannot serve part's time slices (NULL: it can; "" where
 * the partition has none). */
static const char *_not_served(part_record_t *part, char *buf, size_t len)
{
	bool gang = slurm_conf.preempt_mode & PREEMPT_MODE_GANG;
	bool force = part->max_share & SHARED_FORCE;
	int n = part->max_share & ~SHARED_FORCE;
	uint16_t cr = part->cr_type ? part->cr_type :
				      slurm_conf.select_type_param;
	const char *gran = _granularity(cr);

	if (!gang && force && n >= 2) {
		snprintf(buf, len, "OverSubscribe=FORCE:%d without PreemptMode=GANG shares cores with no time slices",
			 n);
		return buf;
	}
	if (!gang || n < 2)
		return "";		/* no time slices */
	if (!force) {
		snprintf(buf, len, "PreemptMode=GANG with OverSubscribe=YES:%d, not FORCE (jobs choose to share)",
			 n);
		return buf;
	}
	if (gran) {
		snprintf(buf, len, "gang time slices at %s granularity, not core (SelectTypeParameters=CR_Core or CR_Core_Memory)",
			 gran);
		return buf;
	}
	if ((slurm_conf.preempt_mode & PREEMPT_MODE_SUSPEND) &&
	    xstrstr(slurm_conf.preempt_type, "partition_prio") &&
	    _tiers_cross(part)) {
		snprintf(buf, len, "preempts by suspend across PriorityTier (preempt/partition_prio) on its nodes");
		return buf;
	}
	return NULL;
}

void ctl_ts_detect(cosched_ctl_t *c, int nnodes)
{
	struct listIterator *it;
	part_record_t *part;
	char *text = NULL;
	int cap = 0;

	ctl_ts_free(c);
	c->ts_node_rows = xcalloc(nnodes + 1, sizeof(int));
	c->ts_nnodes = nnodes;
	if (!c->part_list || !*c->part_list)
		return;
	it = list_iterator_create(*c->part_list);
	while ((part = list_next(it))) {
		char why[200];
		const char *no = _not_served(part, why, sizeof(why));
		int n = part->max_share & ~SHARED_FORCE;

		if (no && !no[0])
			continue;
		if (no) {
			xstrfmtcat(text, "%spartition %s not served: %s; its jobs are placed as space sharing places them",
				   text ? "\n" : "", part->name, no);
			continue;
		}
		xstrfmtcat(text, "%spartition %s served: time slices of OverSubscribe=FORCE:%d at core granularity",
			   text ? "\n" : "", part->name, n);
		if (c->ts_nparts == cap) {
			cap = cap ? 2 * cap : 4;
			xrecalloc(c->ts_names, cap, sizeof(char *));
			xrecalloc(c->ts_rows, cap, sizeof(int));
		}
		c->ts_names[c->ts_nparts] = xstrdup(part->name);
		c->ts_rows[c->ts_nparts++] = n;
		for (int i = 0; part->node_bitmap && i < nnodes &&
				i < (int) bit_size(part->node_bitmap); i++)
			if (bit_test(part->node_bitmap, i) &&
			    c->ts_node_rows[i] < n)
				c->ts_node_rows[i] = n;
	}
	list_iterator_destroy(it);
	/* Named at start and when a reconfigure changes it, not at every
	 * rebuild. */
	if (xstrcmp(text, c->ts_logged)) {
		char *lines = xstrdup(text), *save = NULL;

		for (char *line = strtok_r(lines, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			info("%s: time sharing: %s", plugin_type, line);
		xfree(lines);
		xfree(c->ts_logged);
		c->ts_logged = text;
	} else {
		xfree(text);
	}
}

int ctl_ts_rows(const cosched_ctl_t *c, const job_record_t *job_ptr)
{
	const char *name = job_ptr->part_ptr ? job_ptr->part_ptr->name : NULL;

	for (int i = 0; name && i < c->ts_nparts; i++)
		if (!xstrcmp(c->ts_names[i], name))
			return c->ts_rows[i];
	return 0;
}

int ctl_ts_node_rows(const cosched_ctl_t *c, int i)
{
	return c->ts_node_rows && i >= 0 && i < c->ts_nnodes ?
	       c->ts_node_rows[i] : 0;
}

/* --- job_test ------------------------------------------------------------- */

/* Units judged for one job at most (the first that may take it, in node
 * order): a job_test reads every running job's cores once. */
#define TS_MAX_UNITS 64

typedef struct {
	size_t unit;
	int node, first, ncores;	/* first: the unit's first core */
	cosched_ts_holder_t *h;
	size_t n, cap;
	cosched_ts_choice_t choice;
} ts_unit_t;

/* Unit u as judged here, when it is time-shared with at most
 * COSCHED_TS_MAX_CORES cores; false otherwise. */
static bool _unit_of(cosched_ctl_t *c, size_t u, ts_unit_t *t)
{
	int node = (int) cosched_place_unit_node(c->place, u);
	node_record_t *node_ptr = node_record_table_ptr[node];
	int ncores;

	if (!node_ptr || ctl_ts_node_rows(c, node) < 2)
		return false;
	ncores = c->conf.scope == COSCHED_SCOPE_NODE ? node_ptr->tot_cores :
						       node_ptr->cores;
	if (ncores > COSCHED_TS_MAX_CORES)
		return false;
	*t = (ts_unit_t) { .unit = u, .node = node, .ncores = ncores,
			   .first = (int) (u - cosched_place_unit_first(
					   c->place, node)) * ncores };
	return true;
}

/* The gang view of a job holding cores on unit u: as the occupancy
 * entered it, else a foreign holder (pairs with nothing). */
static cosched_gang_job_t _holder_view(const cosched_occupancy_t *occ,
				       size_t u, uint32_t job_id, int cores)
{
	cosched_gang_job_t gj = { .job_id = job_id, .threads = cores,
				  .category = COSCHED_CAT_UNKNOWN };
	cosched_socket_t sock;

	if (!cosched_occupancy_socket(occ, u, &sock))
		for (int k = 0; k < sock.noccupants; k++)
			if (sock.occupants[k].job_id == job_id) {
				gj = sock.occupants[k];
				gj.name = NULL;
				gj.threads = cores;
				break;
			}
	return gj;
}

/* The cores of unit t that a job holds (jr, its node t->node the j-th of
 * its nodes). */
static uint64_t _unit_mask(job_resources_t *jr, int j,
			   const node_record_t *node_ptr, const ts_unit_t *t)
{
	uint64_t mask = 0;

	for (int k = 0; k < t->ncores; k++) {
		int core = t->first + k;

		if (ctl_cores_has_core(jr, j, core / node_ptr->cores,
					   core % node_ptr->cores))
			mask |= (uint64_t) 1 << k;
	}
	return mask;
}

/* Every job holding cores (running, or suspended by a time slice) on the
 * units: their cores there, one pass over the job list.  starting (may be
 * NULL) counts too: at its job begin it is not running yet. */
static void _gather(cosched_ctl_t *c, ts_unit_t *units, size_t nunits,
		    const int *slot, const job_record_t *starting)
{
	const cosched_occupancy_t *occ = cosched_place_occupancy(c->place);
	struct listIterator *it = list_iterator_create(*c->job_list);
	job_record_t *jp;

	while ((jp = list_next(it))) {
		job_resources_t *jr = jp->job_resrcs;
		node_record_t *node_ptr;
		cosched_nodes_t nit;

		if (!jr || !jr->node_bitmap || !jr->core_bitmap ||
		    (jp != starting && !ctl_cores_counted(jp)))
			continue;
		cosched_nodes_begin(&nit, jr->node_bitmap);
		while ((node_ptr = cosched_nodes_next(&nit))) {
			int sockets = c->conf.scope == COSCHED_SCOPE_NODE ?
				      1 : node_ptr->tot_sockets;

			if (nit.i >= c->map_nodes)
				continue;
			for (int s = 0; s < sockets; s++) {
				size_t u = cosched_place_unit_first(c->place,
								    nit.i) + s;
				ts_unit_t *t;
				uint64_t mask;

				if (slot[u] < 0 || (size_t) slot[u] >= nunits)
					continue;
				t = &units[slot[u]];
				mask = _unit_mask(jr, nit.j, node_ptr, t);
				if (!mask)
					continue;
				if (t->n == t->cap) {
					t->cap = t->cap ? 2 * t->cap : 4;
					xrecalloc(t->h, t->cap, sizeof(*t->h));
				}
				t->h[t->n].cores = mask;
				t->h[t->n++].gj = _holder_view(occ, u,
					jp->job_id,
					__builtin_popcountll(mask));
			}
		}
	}
	list_iterator_destroy(it);
}

/* "; beside jobs 13,14": the holders of t in mask, after label. */
static void _note_jobs(char **s, const char *label, uint64_t mask,
		       const ts_unit_t *t)
{
	const char *sep = mask & (mask - 1) ? "s " : " ";

	if (!mask)
		return;
	xstrfmtcat(*s, "; %s job", label);
	for (size_t k = 0; k < t->n && k < 64; k++)
		if (mask & ((uint64_t) 1 << k)) {
			xstrfmtcat(*s, "%s%u", sep, t->h[k].gj.job_id);
			sep = ",";
		}
}

/* "time-shared, idle cores; beside jobs 13,14" for the record (not
 * "JobId=": scontrol shows SystemComment among its own key=value pairs). */
static void _note(cosched_ctl_t *c, job_record_t *job_ptr, const char *how,
		  const ts_unit_t *t)
{
	char *s = xstrdup_printf("time-shared, %s", how);

	if (t) {
		_note_jobs(&s, "alternates with", t->choice.alternates, t);
		_note_jobs(&s, "beside", t->choice.beside, t);
	}
	c->placed_note_job_id = job_ptr->job_id;
	snprintf(c->placed_note, sizeof(c->placed_note), "%s", s);
	xfree(s);
}

/* Try the job on t's chosen cores only. */
static int _try_unit(cosched_ctl_t *c, cosched_try_fn try, void *ctx,
		     bitstr_t *node_bitmap, const ts_unit_t *t)
{
	cosched_steer_t steer = { .core_node = t->node,
				  .core_first = t->first,
				  .core_allow = t->choice.cores };
	int rc;

	steer.nodes = bit_alloc(node_record_count);
	steer.socket_mask = xcalloc(node_record_count ? node_record_count : 1,
				    sizeof(uint64_t));
	bit_set(steer.nodes, t->node);
	rc = ctl_place_attempt(c, try, ctx, node_bitmap, &steer);
	FREE_NULL_BITMAP(steer.nodes);
	xfree(steer.socket_mask);
	return rc;
}

int ctl_ts_place(cosched_ctl_t *c, job_record_t *job_ptr, job_view_t *v,
		 bitstr_t *node_bitmap, uint16_t mode, cosched_try_fn try,
		 void *ctx)
{
	int rows = ctl_ts_rows(c, job_ptr), *slot, rc = SLURM_ERROR, tries = 0;
	size_t nunits = 0, nall = cosched_place_nunits(c->place);
	ts_unit_t *units;
	ts_unit_t *first_none = NULL;
	node_record_t *node_ptr;
	cosched_nodes_t it;
	bool debug = c->conf.debug_flags & COSCHED_DEBUG_PLACEMENT;

	/* Test only and will run: cons_tres's answer (the slices do not
	 * change whether or when a job can start). */
	if (mode != MODE_RUN_NOW || v->job.kind != COSCHED_PLACE_SINGLE)
		return ctl_place_attempt(c, try, ctx, node_bitmap, NULL);
	units = xcalloc(TS_MAX_UNITS, sizeof(*units));
	slot = xcalloc(nall + 1, sizeof(int));
	memset(slot, 0xff, (nall + 1) * sizeof(int));
	cosched_nodes_begin(&it, node_bitmap);
	while (nunits < TS_MAX_UNITS && (node_ptr = cosched_nodes_next(&it))) {
		int sockets = c->conf.scope == COSCHED_SCOPE_NODE ?
			      1 : node_ptr->tot_sockets;

		if (it.i >= c->map_nodes)
			continue;
		for (int s = 0; s < sockets && nunits < TS_MAX_UNITS; s++) {
			size_t u = cosched_place_unit_first(c->place, it.i) + s;

			if (cosched_occupancy_available(
				    cosched_place_occupancy(c->place), u) &&
			    _unit_of(c, u, &units[nunits]))
				slot[u] = (int) nunits++;
		}
	}
	_gather(c, units, nunits, slot, NULL);
	for (size_t k = 0; k < nunits; k++) {
		ts_unit_t *t = &units[k];
		cosched_error_t err;

		if (v->job.gj.threads > t->ncores)
			continue;	/* wider than the unit: cons_tres's */
		if (cosched_ts_choose(c->place, t->ncores, rows, t->h, t->n,
				      &v->job.gj, &t->choice, &err))
			error("%s: %pJ: %s", plugin_type, job_ptr, err.msg);
		if (t->choice.how == COSCHED_TS_NONE && !first_none)
			first_none = t;
	}
	for (int pass = 0; pass < 2 && rc != SLURM_SUCCESS; pass++) {
		for (size_t k = 0; k < nunits && rc != SLURM_SUCCESS &&
				   tries < COSCHED_PLACE_MAX_TRIES; k++) {
			ts_unit_t *t = &units[k];

			if (!cosched_ts_unit_preferred(&t->choice, t->n, pass))
				continue;
			tries++;
			rc = _try_unit(c, try, ctx, node_bitmap, t);
			if (rc != SLURM_SUCCESS)
				continue;
			_note(c, job_ptr, t->choice.how == COSCHED_TS_IDLE ?
			      "idle cores" : t->choice.with_bad ?
			      "the cores of a job it pairs badly with" :
			      "another job's cores", t);
			if (debug)
				info("%s: %pJ time-shared on %s socket %d: %s",
				     plugin_type, job_ptr,
				     node_record_table_ptr[t->node]->name,
				     c->conf.scope == COSCHED_SCOPE_NODE ? 0 :
				     t->first / t->ncores, c->placed_note);
		}
	}
	if (rc != SLURM_SUCCESS) {
		/* No choice pairs well (or cons_tres refused them all):
		 * cons_tres's own cores; a job never waits for a slice. */
		rc = ctl_place_attempt(c, try, ctx, node_bitmap, NULL);
		if (rc == SLURM_SUCCESS) {
			_note(c, job_ptr, "no choice pairs well: the cores cons_tres chose",
			      NULL);
			if (debug)
				info("%s: %pJ time-shared where cons_tres chose (%zu units judged%s)",
				     plugin_type, job_ptr, nunits,
				     first_none ? ", none pairs well" : "");
		}
	}
	for (size_t k = 0; k < nunits; k++)
		xfree(units[k].h);
	xfree(units);
	xfree(slot);
	return rc;
}

/* --- the record ----------------------------------------------------------- */

/* The time-shared units job_ptr holds cores on, with every job on them
 * (_gather; starting: as _gather takes it).  *nunits of them; free with
 * _job_units_free. */
static ts_unit_t *_job_units(cosched_ctl_t *c, job_record_t *job_ptr,
			     const job_record_t *starting, size_t *nunits)
{
	size_t nall = cosched_place_nunits(c->place);
	cosched_hold_t *holds = NULL;
	ts_unit_t *units;
	int *slot, nh = ctl_cores_holds(c, job_ptr, &holds);

	*nunits = 0;
	if (!nh) {
		xfree(holds);
		return NULL;
	}
	units = xcalloc(nh, sizeof(*units));
	slot = xcalloc(nall + 1, sizeof(int));
	memset(slot, 0xff, (nall + 1) * sizeof(int));
	for (int k = 0; k < nh; k++)
		if (_unit_of(c, holds[k].socket, &units[*nunits]))
			slot[holds[k].socket] = (int) (*nunits)++;
	_gather(c, units, *nunits, slot, starting);
	xfree(slot);
	xfree(holds);
	return units;
}

static void _job_units_free(ts_unit_t *units, size_t nunits)
{
	for (size_t k = 0; k < nunits; k++)
		xfree(units[k].h);
	xfree(units);
}

static void _record(cosched_ctl_t *c, job_record_t *job_ptr,
		    cosched_decision_t *d, const job_record_t *starting)
{
	double worst = 1.0;
	size_t nunits = 0;
	ts_unit_t *units;

	d->nalternates = d->nbeside = 0;
	if (!job_ptr->job_resrcs ||
	    !(units = _job_units(c, job_ptr, starting, &nunits)))
		return;
	for (size_t k = 0; k < nunits; k++) {
		const ts_unit_t *t = &units[k];
		uint64_t own = 0;
		node_record_t *node_ptr;
		cosched_nodes_t it;

		/* Its own cores from its job_resources: at job begin it may
		 * not count as running yet. */
		cosched_nodes_begin(&it, job_ptr->job_resrcs->node_bitmap);
		while ((node_ptr = cosched_nodes_next(&it)))
			if (it.i == t->node)
				own = _unit_mask(job_ptr->job_resrcs, it.j,
						 node_ptr, t);
		uint64_t alternates, beside;
		double sd;

		cosched_ts_partners(t->h, t->n, job_ptr->job_id, own,
				    &alternates, &beside);
		for (size_t h = 0; h < t->n && h < 64; h++) {
			uint32_t id = t->h[h].gj.job_id;

			if (alternates & ((uint64_t) 1 << h))
				cosched_ts_add_peer(d->alternates,
						    &d->nalternates,
						    COSCHED_DECISION_PEERS_MAX,
						    id);
			else if (beside & ((uint64_t) 1 << h))
				cosched_ts_add_peer(d->beside, &d->nbeside,
						    COSCHED_DECISION_PEERS_MAX,
						    id);
		}
		/* Beside its partners in turn, never beside those it
		 * alternates with: not the socket's every job at once. */
		if (!d->has_class)
			continue;
		sd = cosched_ts_slowdown(c->place, d->category, t->h, t->n,
					 beside);
		if (isfinite(sd) && sd > worst)
			worst = sd;
	}
	if (d->has_class && nunits)
		d->slowdown = worst;
	_job_units_free(units, nunits);
}

void ctl_ts_record(cosched_ctl_t *c, job_record_t *job_ptr,
		   cosched_decision_t *d)
{
	_record(c, job_ptr, d, NULL);
}

void ctl_ts_refresh_neighbours(cosched_ctl_t *c, job_record_t *mover,
			       bool started)
{
	size_t nunits = 0;
	uint32_t done[64];
	int ndone = 0;
	ts_unit_t *units = _job_units(c, mover, NULL, &nunits);

	if (!units)
		return;
	for (size_t k = 0; k < nunits; k++) {
		for (size_t h = 0; h < units[k].n; h++) {
			uint32_t id = units[k].h[h].gj.job_id;
			cosched_decision_t was, now;
			job_record_t *jp;
			bool seen = false;

			for (int i = 0; i < ndone && !seen; i++)
				seen = done[i] == id;
			if (seen || id == mover->job_id ||
			    ndone == (int) (sizeof(done) / sizeof(done[0])))
				continue;
			done[ndone++] = id;
			if (!(jp = find_job_record(id)) || !ctl_ts_rows(c, jp) ||
			    !ctl_record_kept(c, id, &was) ||
			    was.state != COSCHED_DECISION_PLACED)
				continue;
			now = was;
			_record(c, jp, &now, started ? mover : NULL);
			if (cosched_decision_equal(&was, &now))
				continue;
			ctl_record_keep(c, jp, &now);
			ctl_record_write(c, jp, &now);
		}
	}
	_job_units_free(units, nunits);
}
