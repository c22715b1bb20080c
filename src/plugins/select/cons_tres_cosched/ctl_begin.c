/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ctl_begin.c - a job's life after job_test: job begin decides as it
 *  happened (where cons_tres put it, class, NUMA binding, frequency by
 *  energy-delay product, predicted slowdown), keeps the decision, writes
 *  it into SystemComment and enters the job; job end, suspend, resume and
 *  resize leave or re-enter it with the decision kept; the neighbours'
 *  predicted slowdowns follow.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "src/libcosched/model/power.h"

#include "ctl_internal.h"
#include "select_cons_tres_cosched.h"

/* CPU time of a job begin or end (job_begin, job_fini), with the flag:
 * one call in CTL_CPU_SAMPLE is timed (-1.0: not this one). */
static double _begin_end_start(cosched_ctl_t *c)
{
	return (c->conf.debug_flags & COSCHED_DEBUG_TIMING) &&
	       CTL_CPU_SAMPLED(c->e_calls) ? ctl_cpu_now() : -1.0;
}

static void _begin_end_done(cosched_ctl_t *c, double c0)
{
	if (c->conf.debug_flags & COSCHED_DEBUG_TIMING)
		c->e_calls++;
	if (c0 >= 0.0) {
		c->e_samples++;
		c->e_total += ctl_cpu_now() - c0;
	}
}

/* The slowdown the job's power policy accepts: its own energy:N, else
 * MaxSlowdown (also for edp). */
static double _max_slowdown(const cosched_ctl_t *c, const job_view_t *v)
{
	return v->opts.power == COSCHED_POWER_ENERGY ?
	       v->opts.max_slowdown_pct : c->conf.max_slowdown_pct;
}

/* One job of a frequency domain as the rule sees it: its request, the
 * frequency it already runs at (0: the joining job), its EDP points at
 * its cores per node and the slowdown its power policy accepts. */
static void _freq_request(const cosched_ctl_t *c, const job_view_t *v,
			  long requested, long running,
			  cosched_freq_request_t *r)
{
	cosched_power_policy_t p = v->opts.power != COSCHED_POWER_UNSET ?
				   v->opts.power : c->conf.power_policy;

	memset(r, 0, sizeof(*r));
	r->job_id = v->job.gj.job_id;
	r->requested_khz = requested;
	r->running_khz = running;
	r->threads = v->job.cores;
	if (v->has_prof) {
		r->points = v->prof.edp;
		r->npoints = (size_t) v->prof.n_edp;
	}
	r->max_slowdown_pct = p == COSCHED_POWER_PERFORMANCE ? 0.0 :
			      _max_slowdown(c, v);
}

/*
 * The co-occupants of the units h holds: fn for each other job (not
 * except), once however many of the units it shares, with the gang job it
 * was entered with (its class).  fn looks up what was decided for the job
 * when it needs it (ctl_record_kept), and the job itself with
 * find_job_record (a job Slurm no longer knows is passed over).
 */
typedef void (*co_occupant_fn)(cosched_ctl_t *c, const cosched_gang_job_t *gj,
			       void *arg);

static void _each_co_occupant(cosched_ctl_t *c, const cosched_hold_t *h,
			      size_t nh, uint32_t except, co_occupant_fn fn,
			      void *arg)
{
	const cosched_occupancy_t *occ = cosched_place_occupancy(c->place);
	uint32_t *seen = NULL;
	size_t nseen = 0, cap = 0;

	for (size_t k = 0; k < nh; k++) {
		cosched_socket_t sock;
		if (cosched_occupancy_socket(occ, h[k].socket, &sock))
			continue;
		for (int j = 0; j < sock.noccupants; j++) {
			cosched_gang_job_t gj = sock.occupants[j];
			bool again = false;

			for (size_t i = 0; i < nseen && !again; i++)
				again = seen[i] == gj.job_id;
			if (gj.job_id == except || again)
				continue;
			/* One unit held: its occupants are each there once. */
			if (nh > 1) {
				if (nseen == cap) {
					cap = cap ? 2 * cap : 8;
					xrealloc(seen, cap * sizeof(*seen));
				}
				seen[nseen++] = gj.job_id;
			}
			fn(c, &gj, arg);
		}
	}
	xfree(seen);
}

/* A job already in the domain that asked for a frequency. */
typedef struct {
	job_record_t *job;
	long requested_khz;		/* its decision's freq_req_khz */
	long running_khz;		/* its decision's freq_khz */
} domain_job_t;

typedef struct {
	domain_job_t *jobs;
	size_t n, cap;
} domain_jobs_t;

static void _add_domain_job(cosched_ctl_t *c, const cosched_gang_job_t *gj,
			    void *arg)
{
	domain_jobs_t *dj = arg;
	job_record_t *job;
	cosched_decision_t d;

	/* Only the decision has the frequencies. */
	if (!ctl_record_kept(c, gj->job_id, &d) || d.freq_req_khz <= 0 ||
	    !(job = find_job_record(gj->job_id)))
		return;
	if (dj->n == dj->cap) {
		dj->cap = dj->cap ? 2 * dj->cap : 8;
		xrealloc(dj->jobs, dj->cap * sizeof(*dj->jobs));
	}
	dj->jobs[dj->n++] = (domain_job_t) {
		.job = job, .requested_khz = d.freq_req_khz,
		.running_khz = d.freq_khz };
}

/* The other jobs on the units the joining job holds that asked for a
 * frequency (xmalloc'ed; *n of them). */
static domain_job_t *_domain_jobs(cosched_ctl_t *c, uint32_t self,
				  const cosched_hold_t *h, size_t nh,
				  size_t *n)
{
	domain_jobs_t dj = { 0 };

	_each_co_occupant(c, h, nh, self, _add_domain_job, &dj);
	*n = dj.n;
	return dj.jobs;
}

/*
 * The frequency of the domain the job joins (the units it holds: one
 * package, one frequency) with the jobs already there, by the core's one
 * rule (cosched_power_resolve_domain, FreqDomainRule=).  The other jobs'
 * profiles are looked up only for min_edp_sum, the rule that reads their
 * points.
 */
static long _domain_freq(cosched_ctl_t *c, const job_view_t *v, long f,
			 const cosched_hold_t *h, size_t nh)
{
	cosched_freq_rule_t rule = c->conf.freq_rule;
	bool points = rule == COSCHED_FREQ_RULE_MIN_EDP_SUM;
	cosched_freq_request_t *req;
	job_view_t *views = NULL;
	cosched_error_t err;
	size_t n;
	domain_job_t *jobs = _domain_jobs(c, v->job.gj.job_id, h, nh, &n);
	long dom = f;

	req = xcalloc(n + 1, sizeof(*req));
	_freq_request(c, v, f, 0, &req[0]);
	if (points)
		views = xcalloc(n, sizeof(*views));
	for (size_t i = 0; i < n; i++) {
		if (points) {
			ctl_view(c, jobs[i].job, &views[i]);
			_freq_request(c, &views[i], jobs[i].requested_khz,
				      jobs[i].running_khz, &req[i + 1]);
		} else {
			req[i + 1].job_id = jobs[i].job->job_id;
			req[i + 1].requested_khz = jobs[i].requested_khz;
		}
	}
	if (cosched_power_resolve_domain(req, n + 1, rule, &dom, NULL, &err)) {
		/* Only a request out of range fails: never slower than
		 * asked then. */
		error("%s: JobId=%u: frequency domain (%s): %s: highest request used",
		      plugin_type, v->job.gj.job_id,
		      cosched_freq_rule_name(rule), err.msg);
		if (cosched_power_resolve_domain(req, n + 1,
						 COSCHED_FREQ_RULE_MAX_REQUEST,
						 &dom, NULL, &err))
			dom = f;
	}
	xfree(views);
	xfree(req);
	xfree(jobs);
	return dom;
}

/* Frequency and governor ("Power-aware gang scheduling on multicore", NTUA
 * thesis, 2013, "DVFS model"): the job's power policy over its EDP points at
 * its thread count; then its frequency domains resolved with the jobs
 * already there (_domain_freq). */
static void _decide_power(cosched_ctl_t *c, job_view_t *v,
			  cosched_decision_t *d, const cosched_hold_t *h,
			  size_t nh)
{
	cosched_power_policy_t p = v->opts.power != COSCHED_POWER_UNSET ?
				   v->opts.power : c->conf.power_policy;
	cosched_error_t err;
	long f = 0;

	d->power = p;
	if (p == COSCHED_POWER_PERFORMANCE) {
		/* The site default leaves each node's governor as the site
		 * set it (installing cosched changes no speed); a job that
		 * asks for performance gets the performance governor. */
		if (v->opts.power == COSCHED_POWER_PERFORMANCE)
			snprintf(d->governor, sizeof(d->governor),
				 "performance");
		return;
	}
	if (!v->has_prof || !v->prof.n_edp ||
	    cosched_power_choose_freq(v->prof.edp, v->prof.n_edp, v->job.cores,
				      p, _max_slowdown(c, v), &f, &err) ||
	    f <= 0) {
		/* No points at its thread count: the frequency stays. */
		return;
	}
	d->freq_req_khz = f;
	snprintf(d->governor, sizeof(d->governor), "userspace");
	d->freq_khz = _domain_freq(c, v, f, h, nh);
}

/*
 * A job arrived on or is leaving these units: the predicted slowdown of
 * each job still there changes with its co-runners.  Its prediction with
 * the job and without it (cosched_place_predict_pair) say whether it
 * changed; only then are its decision and record edited.  A co-runner of the
 * same class as the one it replaces (most arrivals on a busy cluster)
 * costs two predictions, no record.  Their class is the one they were
 * entered with: the record's, whose LCA class the controller always
 * takes from the category (ctl_view.c).
 */
typedef struct {
	uint32_t mover;			/* the job arriving or leaving */
	bool arrived;			/* already entered; else still there */
} neighbour_change_t;

static void _refresh_slowdown(cosched_ctl_t *c, const cosched_gang_job_t *gj,
			      void *arg)
{
	const neighbour_change_t *m = arg;
	cosched_class_t cls = {
		.cat = gj->category,
		.lca = cosched_category_to_lca(gj->category),
		.source = COSCHED_CLASS_FROM_PROFILE,
	};
	double with, without;
	job_record_t *job;

	cosched_place_predict_pair(c->place, gj->job_id, &cls, m->mover,
				   &with, &without);

	/* A job time-sharing cores outside cons_tres's rows has no
	 * prediction until a rebuild (ctl_shared.c). */
	if (with == without || (c->nshared && ctl_shared_is(c, gj->job_id)) ||
	    !(job = find_job_record(gj->job_id)))
		return;
	/* Time-shared: only the jobs beside it count, which
	 * ctl_ts_refresh_neighbours predicts. */
	if (ctl_ts_rows(c, job))
		return;
	ctl_record_set_slowdown(c, job, m->arrived ? with : without);
}

/* The neighbours of mover on the units it holds: after it entered
 * (arrived) or before it leaves. */
static void _refresh_neighbours(cosched_ctl_t *c, uint32_t mover, bool arrived)
{
	neighbour_change_t m = { .mover = mover, .arrived = arrived };
	size_t nh = 0;
	const cosched_hold_t *h = cosched_occupancy_holds(
		cosched_place_occupancy(c->place), mover, &nh);

	if (h && nh)
		_each_co_occupant(c, h, nh, mover, _refresh_slowdown, &m);
}

/*
 * Every entering and leaving goes through these two, so that the decisions
 * of the jobs on the units always say their prediction at the time: the
 * edit above relies on it (it compares two predictions, not the record).
 * Leave: the neighbours' records first, while the job is there to be
 * left out of their predictions.  Enter: with its holds (n of them, from
 * ctl_cores_holds) or, n < 0, its job_resources'.
 */
static void _leave(cosched_ctl_t *c, job_record_t *job_ptr)
{
	_refresh_neighbours(c, job_ptr->job_id, false);
	ctl_state_leave(c, job_ptr);
}

static void _enter(cosched_ctl_t *c, job_record_t *job_ptr,
		   const cosched_decision_t *d, const cosched_hold_t *holds,
		   int n)
{
	if (n >= 0)
		ctl_state_enter_holds(c, job_ptr, d, holds, n);
	else
		ctl_state_enter(c, job_ptr, d);
	_refresh_neighbours(c, job_ptr->job_id, true);
}

/* Where cons_tres put the job, node by node: sockets and NUMA nodes from
 * the units it holds (ctl_cores_holds), cores from its job_resources. */
static void _record_where(cosched_ctl_t *c, job_record_t *job_ptr,
			  const cosched_hold_t *holds, int n,
			  cosched_decision_t *d)
{
	cosched_error_t err;

	for (int k = 0; k < n; k++) {
		size_t u = holds[k].socket;
		size_t node = cosched_place_unit_node(c->place, u);
		int s = (int) (u - cosched_place_unit_first(c->place, node));
		cosched_decision_node_t *dn = cosched_decision_node(
			d, node_record_table_ptr[node]->name, &err);
		if (!dn)
			continue;
		if (c->conf.scope == COSCHED_SCOPE_NODE) {
			for (int x = 0; x < node_record_table_ptr[node]->tot_sockets; x++)
				cosched_idset_add(&dn->sockets, x, NULL);
		} else {
			cosched_idset_add(&dn->sockets, s, NULL);
			/* One NUMA node per socket as slurmctld sees it; the
			 * node maps it to its own topology. */
			cosched_idset_add(&dn->numa, s, NULL);
		}
	}
	if (job_ptr->job_resrcs && job_ptr->job_resrcs->core_bitmap) {
		job_resources_t *jr = job_ptr->job_resrcs;
		node_record_t *node_ptr;
		cosched_nodes_t it;

		cosched_nodes_begin(&it, jr->node_bitmap);
		while ((node_ptr = cosched_nodes_next(&it))) {
			cosched_decision_node_t *dn =
				cosched_decision_node(d, node_ptr->name, &err);
			int cores = node_ptr->cores;

			for (int s = 0; dn && s < node_ptr->tot_sockets; s++) {
				int first = ctl_cores_socket_first_bit(
					jr, it.j, s, cores);

				for (int k = 0; k < cores; k++)
					if (first >= 0 ?
					    bit_test(jr->core_bitmap, first + k) :
					    ctl_cores_has_core(jr, it.j,
								   s, k))
						cosched_idset_add(&dn->cores,
							s * cores + k, NULL);
			}
		}
	}
}

/* The reason: the rule that placed the job, its class and where the
 * class came from, then anything the view noted; cut where
 * cosched_decision_set_reason cuts. */
static void _record_reason(cosched_ctl_t *c, job_record_t *job_ptr,
			   const job_view_t *v, cosched_decision_t *d)
{
	const char *parts[12];
	size_t n = 0;

	if (v->kind != KIND_PASS && c->conf.policy == COSCHED_POLICY_NONE) {
		parts[n++] = "CoschedPolicy=none: placed by cons_tres";
	} else if (v->kind != KIND_PASS) {
		parts[n++] = cosched_policy_name(c->conf.policy);
		parts[n++] = " class ";
		parts[n++] = cosched_category_name(v->job.cls.cat);
		parts[n++] = " from ";
		parts[n++] = cosched_class_source_name(v->job.cls.source);
		if (v->job.kind == COSCHED_PLACE_WIDE)
			parts[n++] = "; whole sockets";
	}
	if (v->note[0]) {
		if (v->kind != KIND_PASS)
			parts[n++] = "; ";
		parts[n++] = v->note;
	}
	if (c->placed_note_job_id == job_ptr->job_id) {
		/* The lenient fallback placed it, or min_slowdown packed it:
		 * the class and its source first (they decide), then why
		 * ("lenient <policy>: ...", "packed: ..."). */
		parts[n++] = "; ";
		parts[n++] = c->placed_note;
		c->placed_note_job_id = 0;
	}
	cosched_decision_set_reason_parts(d, parts, n);
}

void cosched_ctl_job_begin(job_record_t *job_ptr)
{
	cosched_ctl_t *c = &cosched_ctl;
	const cosched_occupancy_t *occ;
	cosched_hold_t *holds = NULL;
	cosched_decision_t d;
	char line[COSCHED_DECISION_TEXT_MAX];
	job_view_t own, *v = &c->view;
	bool placed = false;
	int nholds;
	double c0;

	if (!c->on)
		return;
	pthread_mutex_lock(&c->mutex);
	c0 = _begin_end_start(c);
	if (ctl_state_ensure(c))
		goto out;
	occ = cosched_place_occupancy(c->place);
	/* The view job_test took just now (under its id then), or, for a
	 * job begun without one (CoschedPolicy=none), a new one. */
	if (c->view_job == job_ptr &&
	    (c->view_job_id == job_ptr->job_id ||
	     (job_ptr->array_task_id != NO_VAL &&
	      c->view_job_id == job_ptr->array_job_id)))
		v->job.gj.job_id = job_ptr->job_id;
	else {
		v = &own;
		ctl_view(c, job_ptr, v);
	}
	c->view_job = NULL;
	ctl_record_init(c, &d, job_ptr, v,
			v->kind == KIND_OFF ? COSCHED_DECISION_OFF :
			v->kind == KIND_PASS ? COSCHED_DECISION_PASSTHROUGH :
			COSCHED_DECISION_PLACED);
	/* A requeued job may still be there: enter it anew. */
	if (cosched_occupancy_has(occ, job_ptr->job_id, NULL))
		_leave(c, job_ptr);
	nholds = ctl_cores_holds(c, job_ptr, &holds);
	_record_where(c, job_ptr, holds, nholds, &d);
	if (v->kind == KIND_OFF) {
		cosched_decision_set_reason(&d, "--cosched=off: counted as used cores, never as a co-runner");
		_enter(c, job_ptr, NULL, holds, nholds);
	} else {
		const cosched_hold_t *h;
		size_t nh = 0;
		/* --cosched-numa=high: strict; low: preferred (its pages
		 * may move first); neither: the site's MemBind=. */
		d.membind = v->opts.numa == COSCHED_NUMA_LOW ?
			    COSCHED_MEMBIND_PREFER :
			    v->opts.numa == COSCHED_NUMA_HIGH ?
			    COSCHED_MEMBIND_BIND : c->conf.membind;
		/* And for the node's NUMA manager (record 1.1). */
		d.numa_priority = v->opts.numa;
		_enter(c, job_ptr, &d, holds, nholds);
		h = cosched_occupancy_holds(occ, job_ptr->job_id, &nh);
		if (h) {
			_decide_power(c, v, &d, h, nh);
			d.slowdown = cosched_place_predict(c->place,
							   job_ptr->job_id,
							   &v->job.cls);
		}
		_record_reason(c, job_ptr, v, &d);
		if (ctl_ts_rows(c, job_ptr))
			ctl_ts_record(c, job_ptr, &d);
	}
	ctl_record_keep(c, job_ptr, &d);
	placed = !ctl_record_write_line(c, job_ptr, &d, line);
	if (v->kind != KIND_OFF && ctl_ts_rows(c, job_ptr))
		ctl_ts_refresh_neighbours(c, job_ptr, true);
	ctl_state_check(c, "job begin");
	xfree(holds);
out:
	/* Also when the state could not be built or the record not written
	 * (then without a copy: the record is an earlier start's): a user's
	 * own entry must never reach the node. */
	ctl_record_launch_copy(c, job_ptr, placed ? line : NULL);
	_begin_end_done(c, c0);
	pthread_mutex_unlock(&c->mutex);
}

/*
 * A job that goes back to the queue (scontrol requeue, a node failure
 * with --requeue, a batch launch that failed and is held) leaves pending:
 * its record must say so, not "placed" on cores it no longer has, until
 * its next start writes a new one.  Slurm calls job_fini for it with the
 * base state already PENDING (_job_complete with requeue,
 * _job_requeue_op), or with JOB_REQUEUE set (a federation requeue).  The
 * record is written from what was decided for the start that ends; the
 * decision itself is forgotten with the job's end (a pending job has
 * none kept).
 */
static void _record_requeued(cosched_ctl_t *c, job_record_t *job_ptr)
{
	cosched_decision_t d;

	if (!IS_JOB_PENDING(job_ptr) &&
	    !(job_ptr->job_state & (JOB_REQUEUE | JOB_REQUEUE_HOLD)))
		return;
	if (!ctl_record_kept(c, job_ptr->job_id, &d) ||
	    d.state != COSCHED_DECISION_PLACED)
		return;
	d.state = COSCHED_DECISION_PENDING;
	d.nnodes = 0;
	memset(d.nodes, 0, sizeof(d.nodes));
	d.freq_khz = 0;
	d.freq_req_khz = 0;
	d.governor[0] = '\0';
	d.slowdown = NAN;
	cosched_decision_set_reason(&d, "requeued (restart %u): placed again when it starts",
				    job_ptr->restart_cnt);
	ctl_record_write(c, job_ptr, &d);
}

/* The job leaves its units: it ends (or goes back to the queue), or,
 * suspended, keeps its decision for its resume. */
static void _job_leaves(job_record_t *job_ptr, bool ends)
{
	cosched_ctl_t *c = &cosched_ctl;
	double c0;

	if (!c->on)
		return;
	pthread_mutex_lock(&c->mutex);
	c0 = _begin_end_start(c);
	if (ends) {
		_record_requeued(c, job_ptr);
		ctl_record_forget(c, job_ptr->job_id);
		ctl_shared_forget(c, job_ptr->job_id);
	}
	if (!ctl_state_ensure(c)) {
		_leave(c, job_ptr);
		if (ctl_ts_rows(c, job_ptr))
			ctl_ts_refresh_neighbours(c, job_ptr, false);
		ctl_state_check(c, "job end");
	}
	_begin_end_done(c, c0);
	pthread_mutex_unlock(&c->mutex);
}

void cosched_ctl_job_fini(job_record_t *job_ptr)
{
	_job_leaves(job_ptr, true);
}

/* An indefinitely suspended job gives its cores back (cons_tres frees
 * them); a gang-scheduled (time-sliced) one keeps them. */
void cosched_ctl_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	if (indf_susp)
		_job_leaves(job_ptr, false);
}

/* Resumed by scontrol onto cores another job took while it was
 * suspended: left out as cons_tres leaves it, and said in its record and
 * its neighbours' (ctl_shared.c). */
void cosched_ctl_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	cosched_ctl_t *c = &cosched_ctl;
	const cosched_occupancy_t *occ;
	cosched_decision_t d;
	bool have;

	if (!c->on || !indf_susp)
		return;
	pthread_mutex_lock(&c->mutex);
	if (ctl_state_ensure(c))
		goto out;
	occ = cosched_place_occupancy(c->place);
	if (cosched_occupancy_has(occ, job_ptr->job_id, NULL))
		goto out;
	have = ctl_record_kept(c, job_ptr->job_id, &d);
	_enter(c, job_ptr, have ? &d : NULL, NULL, -1);
	if (!cosched_occupancy_has(occ, job_ptr->job_id, NULL))
		ctl_shared_resumed(c, job_ptr, have ? &d : NULL);
	else if (have)
		ctl_shared_counted(c, job_ptr, &d);
	ctl_state_check(c, "job resume");
out:
	pthread_mutex_unlock(&c->mutex);
}

/* After a resize (scontrol update NumNodes= shrinking the job, or a job
 * expanded into another): the decision lists only the nodes the job still
 * has.  Returns whether it changed. */
static bool _record_keep_nodes(job_record_t *job_ptr, cosched_decision_t *d)
{
	int kept = 0;

	if (!job_ptr->node_bitmap)
		return false;
	for (int i = 0; i < d->nnodes; i++) {
		node_record_t *node_ptr;
		cosched_nodes_t it;
		bool has = false;

		/* The job's nodes, not find_node_record: the plugin leaves
		 * only the slurmctld functions test_plugin_deps lists (a
		 * resize is rare). */
		cosched_nodes_begin(&it, job_ptr->node_bitmap);
		while (!has && (node_ptr = cosched_nodes_next(&it)))
			has = !strcmp(node_ptr->name, d->nodes[i].name);
		if (has) {
			if (kept != i)
				d->nodes[kept] = d->nodes[i];
			kept++;
		}
	}
	if (kept == d->nnodes)
		return false;
	for (int i = kept; i < d->nnodes; i++)
		memset(&d->nodes[i], 0, sizeof(d->nodes[i]));
	d->nnodes = kept;
	return true;
}

void cosched_ctl_job_resized(job_record_t *job_ptr)
{
	cosched_ctl_t *c = &cosched_ctl;
	cosched_decision_t d;

	if (!c->on)
		return;
	pthread_mutex_lock(&c->mutex);
	if (!ctl_state_ensure(c)) {
		bool have = ctl_record_kept(c, job_ptr->job_id, &d);

		_leave(c, job_ptr);
		_enter(c, job_ptr, have ? &d : NULL, NULL, -1);
		if (have && _record_keep_nodes(job_ptr, &d)) {
			ctl_record_keep(c, job_ptr, &d);
			ctl_record_write(c, job_ptr, &d);
		}
	}
	pthread_mutex_unlock(&c->mutex);
}
