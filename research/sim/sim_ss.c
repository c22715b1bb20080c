/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_ss.c - the space-shared setting: jobs arrive, wait in a queue, and
 * are placed on sockets by the socket index the controller uses
 * (cosched_occupancy_best); a job's progress rate follows whoever shares
 * its socket at each moment (discrete events: arrivals and completions;
 * every change of a socket's occupants re-rates the jobs there).
 *
 * Variants, all placed by the placement engine the controller uses
 * (src/libcosched/policy/place.h), each job as a single job offered its best unit:
 *   a policy     the policy's best socket (the controller's choice);
 *   exclusive    one job per node: GANG (one application per entry) over
 *                one entry per node, lowest node first; the job runs on
 *                one package of its node, the node's other packages off;
 *   blind        contention-blind sharing, cores filled in order as
 *                cons_tres packs: Greedy Thread (contention-blind) with
 *                COSCHED_INDEX_FIRST_FIT (lowest socket with room), no
 *                limit on applications per socket, threads as requested.
 * A package without a job is off ("Power-aware gang scheduling on
 * multicore", NTUA thesis, 2013, "Placement lessons": "unused packages
 * assumed powered off").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "research/sim/sim.h"
#include "src/libcosched/policy/heap.h"
#include "src/libcosched/policy/place.h"

void sim_ss_conf_default(sim_ss_conf_t *c)
{
	memset(c, 0, sizeof(*c));
	c->nodes = 4;
	c->sockets = 2;
	c->cores = 8;
	c->queue_depth = 100;
	c->bsld_tau_s = 10.0;
}

/*
 * Completion events: libcosched's indexed heap (src/libcosched/policy/heap.h) of running
 * jobs keyed by their completion time (due[job]), so a job re-rated when
 * its socket changes has its event moved, not a second one pushed.  (A
 * heap of versioned events left the old ones behind until they reached the
 * top: about five per job with co-runners, a heap three times the jobs at
 * 10^6 jobs, out of the caches: the scale benchmark grew worse than
 * linearly, doc/sim-scale.md.)  Equal times pop lowest job first.
 */
#define NOPOS COSCHED_HEAP_NONE

typedef struct {
	double start, end, remaining, rate, last;
	int threads;
	long socket;		/* -1 = not running */
	size_t prev, next;	/* queue links */
} job_t;

typedef struct {
	int n;
	int first;		/* offset into the occupants pool */
	double pc, pu, pd;	/* core, uncore, DRAM watts while it holds them */
	double last;		/* time energy was integrated to */
} sock_t;

typedef struct {
	const sim_model_t *m;
	const sim_workload_t *w;
	const sim_ss_conf_t *c;
	sim_variant_kind_t kind;
	cosched_place_t *place;
	cosched_gang_job_t *gj;
	job_t *job;
	sock_t *sock;
	size_t *occupant;	/* nsock x cores slots */
	size_t nsock;
	int slots;
	cosched_heap_t heap;	/* running jobs, earliest completion first */
	cosched_heap_order_t by_due;	/* key due[job], pos[job] (NOPOS:
					 * not in the heap) */
	double *due;
	size_t *hpos;
	size_t qhead, qtail, qlen;	/* queue: linked list of jobs */
	/* EASY (sim_queue_t): the reserved unit (-1: none) and the time
	 * it is reserved from; cand_end is the estimated end of the job
	 * being offered units; will_run makes the allocator take any unit
	 * and remember it in found (the will-run query's answer). */
	long res_unit;
	double res_time, cand_end;
	bool will_run;
	long found;
	cosched_place_ending_t *ends;	/* a will-run query's running jobs */

	sim_member_t *mem;
	sim_perf_t *perf;
	double e_core, e_uncore, e_dram;
	size_t changes, rerated;
	sim_ss_result_t *r;
	cosched_error_t *err;
} ss_t;

#define NIL ((size_t)-1)

/* Job j completes at t: its event is entered or moved. */
static int heap_set(ss_t *s, size_t j, double t)
{
	s->due[j] = t;
	if (s->hpos[j] == NOPOS) {
		if (cosched_heap_push(&s->heap, &s->by_due, j) < 0)
			return -1;
	} else {
		cosched_heap_update(&s->heap, &s->by_due, j);
	}
	if (s->heap.n > s->r->heap_max)
		s->r->heap_max = s->heap.n;
	return 0;
}

/* Take job j's event out. */
static void heap_remove(ss_t *s, size_t j)
{
	if (s->hpos[j] == NOPOS)
		return;
	cosched_heap_remove(&s->heap, &s->by_due, j);
	s->hpos[j] = NOPOS;
}

static void queue_append(ss_t *s, size_t j)
{
	s->job[j].prev = s->qtail;
	s->job[j].next = NIL;
	if (s->qtail != NIL)
		s->job[s->qtail].next = j;
	else
		s->qhead = j;
	s->qtail = j;
	s->qlen++;
}

static void queue_remove(ss_t *s, size_t j)
{
	job_t *x = &s->job[j];
	if (x->prev != NIL)
		s->job[x->prev].next = x->next;
	else
		s->qhead = x->next;
	if (x->next != NIL)
		s->job[x->next].prev = x->prev;
	else
		s->qtail = x->prev;
	s->qlen--;
}

/* The occupants of a socket changed at time now: account its energy so
 * far, bring its jobs' progress up to now, and rate them again. */
static int socket_changed(ss_t *s, size_t k, double now)
{
	sock_t *so = &s->sock[k];
	sim_power_t pw;
	size_t *occ = &s->occupant[(size_t)so->first];

	/* The caller has integrated the energy up to now (energy_to). */
	for (int i = 0; i < so->n; i++) {
		job_t *j = &s->job[occ[i]];
		j->remaining -= j->rate * (now - j->last);
		if (j->remaining < 0)
			j->remaining = 0;
		j->last = now;
		s->mem[i].app = occ[i];
		s->mem[i].threads = j->threads;
	}
	if (so->n == 0) {
		so->pc = so->pu = so->pd = 0;	/* package off */
		so->last = now;
		return 0;
	}
	if (sim_gang_eval(s->m, s->w->apps, s->mem, so->n, s->c->dvfs, s->perf,
			  &pw, s->err) < 0)
		return -1;
	s->changes++;
	s->rerated += (size_t)so->n;
	for (int i = 0; i < so->n; i++) {
		job_t *j = &s->job[occ[i]];
		j->rate = s->perf[i].rate;	/* runs per second */
		if (heap_set(s, occ[i], now + j->remaining / j->rate) < 0)
			return cosched_error_set(s->err, "out of memory");
		s->r->pushes++;
	}
	so->pc = pw.core;
	so->pu = pw.uncore;
	so->pd = pw.dram;
	so->last = now;
	return 0;
}

/* Integrate a socket's power from its last change up to now. */
static void energy_to(ss_t *s, size_t k, double now)
{
	sock_t *so = &s->sock[k];
	double dt = now - so->last;

	if (dt <= 0)
		return;
	s->e_core += so->pc * dt;
	s->e_uncore += so->pu * dt;
	s->e_dram += so->pd * dt;
	so->last = now;
}

/* The allocator of the simulated cluster: a unit the engine offers has
 * the cores (the engine checks them), so it always takes it. */
static int take_unit(void *ctx, const size_t *units, size_t n)
{
	(void)ctx;
	return units && n == 1 ? 0 : -1;
}

/* The allocator with a queue: under EASY it refuses the reserved unit to
 * a job whose estimated end comes after the reservation's time; in a
 * will-run query it takes the unit and remembers it. */
static int queue_take_unit(void *ctx, const size_t *units, size_t n)
{
	ss_t *s = ctx;

	if (!units || n == 0)
		return -1;
	/* A will-run query offers one unit per node that accepts the job
	 * (several when running jobs on several nodes end together): the
	 * reservation takes the engine's first. */
	if (s->will_run) {
		s->found = (long)units[0];
		return 0;
	}
	if (s->res_unit >= 0 && (long)units[0] == s->res_unit &&
	    s->cand_end > s->res_time) {
		s->r->reserve_refusals++;
		return -1;
	}
	return take_unit(NULL, units, n);
}

int sim_ss_place(cosched_place_t *place, const cosched_gang_job_t *gj,
		 cosched_place_try_fn try, void *ctx, long *unit,
		 int *threads, cosched_error_t *err)
{
	cosched_place_job_t pj = { .gj = *gj, .cores = gj->threads,
				   .kind = COSCHED_PLACE_SINGLE };
	cosched_place_result_t res;
	cosched_hold_t hold;

	*unit = -1;
	if (!try)
		try = take_unit;
	if (cosched_place_job(place, &pj, NULL, COSCHED_PLACE_RUN_NOW, NULL, 0,
			      try, ctx, &res)) {
		/* Without explain, why holds only a refused query. */
		return res.why[0] ? cosched_error_set(err, "%s", res.why) : 0;
	}
	hold.socket = (size_t)res.unit;
	hold.cores = res.threads;
	if (cosched_place_enter(place, gj, res.threads, &hold, 1, err) < 0)
		return -1;
	*unit = res.unit;
	*threads = res.threads;
	return 0;
}

static int try_place(ss_t *s, size_t j, double now, bool *placed)
{
	long k;
	int threads = 0;
	sock_t *so;

	*placed = false;
	s->cand_end = now + s->w->apps[j].solo_s;
	if (sim_ss_place(s->place, &s->gj[j], queue_take_unit, s, &k,
			 &threads, s->err) < 0)
		return -1;
	if (k < 0)
		return 0;
	if (s->qlen > 0 && s->qhead != j)
		s->r->passed++;	/* an earlier job still waits */
	so = &s->sock[k];
	if (so->n >= s->slots)
		return cosched_error_set(s->err, "socket %ld: more than %d jobs",
					 k, s->slots);
	energy_to(s, (size_t)k, now);
	s->occupant[(size_t)so->first + (size_t)so->n++] = j;
	s->job[j].socket = k;
	s->job[j].threads = threads;
	s->job[j].start = now;
	s->job[j].last = now;
	s->job[j].remaining = 1.0;
	s->job[j].rate = 0;
	*placed = true;
	return socket_changed(s, (size_t)k, now);
}

/* EASY: the reservation of job j, which cannot start now: the unit and
 * time at which the placement engine's will-run query (the running jobs
 * leaving in the order of their expected ends, as slurmctld's backfill
 * asks the select plugin) lets it start.  None when no unit accepts it
 * within the query's horizon (COSCHED_PLACE_MAX_FUTURE ends). */
static void reserve(ss_t *s, size_t j)
{
	cosched_place_job_t pj = { .gj = s->gj[j], .cores = s->gj[j].threads,
				   .kind = COSCHED_PLACE_SINGLE };
	cosched_place_result_t res;
	size_t n = s->heap.n;

	for (size_t k = 0; k < n; k++) {
		size_t x = s->heap.v[k];
		s->ends[k].job_id = s->gj[x].job_id;
		/* Milliseconds: the engine compares whole numbers. */
		s->ends[k].end = (int64_t)ceil(s->due[x] * 1000.0);
	}
	s->will_run = true;
	s->found = -1;
	if (!cosched_place_job(s->place, &pj, NULL, COSCHED_PLACE_WILL_RUN,
			       s->ends, n, queue_take_unit, s, &res) &&
	    s->found >= 0 && res.start_after > 0) {
		s->res_unit = s->found;
		s->res_time = (double)res.start_after / 1000.0;
		s->r->reservations++;
	}
	s->will_run = false;
}

/* Try the first queue_depth queued jobs in order (Slurm's main scheduler
 * looks at default_queue_depth = 100 jobs per pass).  Under EASY the
 * first that cannot start reserves its unit for the jobs behind it; when
 * its will-run finds none, no job has a reservation until the next pass
 * (one will-run per pass, as EASY plans for the top job only). */
static int pass(ss_t *s, double now)
{
	size_t j = s->qhead, tried = 0;
	bool reserved = false;

	s->res_unit = -1;
	while (j != NIL && tried < s->c->queue_depth) {
		size_t next = s->job[j].next;
		bool placed;
		/* What waits besides this job: min_slowdown's choice between
		 * sharing and an empty socket, as slurmctld counts it. */
		cosched_place_set_queue_jobs(s->place, (long) s->qlen - 1);
		if (try_place(s, j, now, &placed) < 0)
			return -1;
		if (placed)
			queue_remove(s, j);
		else if (s->c->queue == SIM_QUEUE_EASY && !reserved) {
			reserve(s, j);
			reserved = true;
		}
		tried++;
		j = next;
	}
	return 0;
}

static int finish(ss_t *s, size_t j, double now)
{
	job_t *x = &s->job[j];
	size_t k = (size_t)x->socket;
	sock_t *so = &s->sock[k];
	size_t *occ = &s->occupant[(size_t)so->first];
	int rc;

	energy_to(s, k, now);
	rc = cosched_place_leave(s->place, s->gj[j].job_id, s->err);
	if (rc < 0)
		return -1;
	for (int i = 0; i < so->n; i++)
		if (occ[i] == j) {
			occ[i] = occ[--so->n];
			break;
		}
	x->end = now;
	x->socket = -1;
	heap_remove(s, j);
	return socket_changed(s, k, now);
}

static int cmp_submit(const void *a, const void *b, void *ctx)
{
	const sim_app_t *apps = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (apps[x].submit_s != apps[y].submit_s)
		return apps[x].submit_s < apps[y].submit_s ? -1 : 1;
	return x < y ? -1 : x > y;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int sim_ss_run(const sim_model_t *m, const sim_workload_t *w,
	       sim_variant_kind_t kind, cosched_policy_t policy,
	       const sim_ss_conf_t *c, sim_ss_result_t *r,
	       cosched_error_t *err)
{
	ss_t s;
	/* Every policy holds jobs (strict): the published ones because they are
	 * rules, min_slowdown within cosched.conf's default MaxCorunSlowdown,
	 * packing at its default PackDemand, as an untuned site would run
	 * it in strict mode. */
	cosched_place_conf_t pc = {
		.policy = policy, .strict = true, .interference = &m->interf,
		.max_slowdown = 1.0 + COSCHED_CORUN_SLOWDOWN_PCT_DEFAULT / 100.0,
		.pack_demand = COSCHED_PACK_DEMAND_DEFAULT,
		.max_apps = c->max_apps };
	int *units = NULL, *cores = NULL;
	size_t *order = NULL, *same_after = NULL, next_arrival = 0, done = 0;
	size_t n = w->n;
	double t0 = now_s(), first_submit = INFINITY, last_end = 0;
	double busy = 0, wsum = 0, bsum = 0, fsum = 0, fworst = 0;
	int rc = -1;

	memset(&s, 0, sizeof(s));
	memset(r, 0, sizeof(*r));
	s.m = m;
	s.w = w;
	s.c = c;
	s.kind = kind;
	s.r = r;
	s.err = err;
	s.qhead = s.qtail = NIL;
	s.res_unit = -1;
	if (n == 0)
		return cosched_error_set(err, "empty workload");
	if (c->nodes < 1 || c->sockets < 1 || c->cores < 1 ||
	    c->cores > COSCHED_GANG_MAX_CAPACITY || c->queue_depth < 1)
		return cosched_error_set(err, "cluster: nodes, sockets, cores "
					 "and queue depth must be >= 1");
	if (kind == SIM_VAR_EXCLUSIVE) {
		pc.policy = COSCHED_POLICY_GANG;
		pc.scope = COSCHED_SCOPE_NODE;
		pc.index_flags = COSCHED_INDEX_FIRST_FIT;
		s.nsock = c->nodes;
		snprintf(r->label, sizeof(r->label), "exclusive");
	} else if (kind == SIM_VAR_BLIND) {
		pc.policy = COSCHED_POLICY_GREEDY_THREAD;
		pc.index_flags = COSCHED_INDEX_FIRST_FIT;
		s.nsock = c->nodes * (size_t)c->sockets;
		snprintf(r->label, sizeof(r->label), "blind");
	} else {
		s.nsock = c->nodes * (size_t)c->sockets;
		snprintf(r->label, sizeof(r->label), "%s",
			 cosched_policy_name(policy));
	}
	s.slots = c->cores;
	/* The cluster: nodes of c->sockets units (one per node when
	 * exclusive), each of c->cores cores, every node up. */
	units = malloc(c->nodes * sizeof(int));
	cores = malloc(c->nodes * sizeof(int));
	if (!units || !cores) {
		free(units);
		free(cores);
		return cosched_error_set(err, "out of memory");
	}
	for (size_t i = 0; i < c->nodes; i++) {
		units[i] = kind == SIM_VAR_EXCLUSIVE ? 1 : c->sockets;
		cores[i] = c->cores;
	}
	s.place = cosched_place_create(&pc, c->nodes, units, cores, err);
	free(units);
	free(cores);
	if (!s.place)
		return -1;
	for (size_t i = 0; i < c->nodes; i++)
		cosched_place_set_node_ok(s.place, i, true);
	s.gj = calloc(n, sizeof(*s.gj));
	s.job = calloc(n, sizeof(*s.job));
	s.sock = calloc(s.nsock, sizeof(*s.sock));
	s.occupant = calloc(s.nsock * (size_t)s.slots, sizeof(size_t));
	s.mem = calloc((size_t)s.slots + 1, sizeof(*s.mem));
	s.perf = calloc((size_t)s.slots + 1, sizeof(*s.perf));
	s.due = malloc(n * sizeof(*s.due));
	s.hpos = malloc(n * sizeof(*s.hpos));
	s.ends = c->queue == SIM_QUEUE_EASY ?
		malloc(n * sizeof(*s.ends)) : NULL;
	order = malloc(n * sizeof(size_t));
	if (!s.gj || !s.job || !s.sock || !s.occupant || !s.mem || !s.perf ||
	    !s.due || !s.hpos || !order ||
	    (c->queue == SIM_QUEUE_EASY && !s.ends)) {
		cosched_error_set(err, "out of memory for %zu jobs", n);
		goto out;
	}
	s.by_due.key = s.due;
	s.by_due.pos = s.hpos;
	s.by_due.highest_first = false;
	for (size_t k = 0; k < s.nsock; k++)
		s.sock[k].first = (int)(k * (size_t)s.slots);
	for (size_t i = 0; i < n; i++) {
		const sim_app_t *a = &w->apps[i];
		if (a->threads > c->cores) {
			cosched_error_set(err, "%s: %d threads on a %d-core socket",
					  a->name, a->threads, c->cores);
			goto out;
		}
		sim_gang_job(a, i, &s.gj[i]);
		s.gj[i].name = NULL;
		if (kind == SIM_VAR_BLIND)
			s.gj[i].min_threads = s.gj[i].max_threads = a->threads;
		s.job[i].socket = -1;
		s.hpos[i] = NOPOS;
		order[i] = i;
	}
	qsort_r(order, n, sizeof(size_t), cmp_submit, (void *)w->apps);
	/* same_after[k]: the jobs submitted at the same time after the k-th
	 * arrival.  They are waiting as much as the queue is when it is
	 * placed (Slurm sees a burst of submissions pending together). */
	same_after = malloc((n ? n : 1) * sizeof(size_t));
	if (!same_after) {
		cosched_error_set(err, "out of memory");
		goto out;
	}
	for (size_t k = n; k-- > 0;)
		same_after[k] = k + 1 < n &&
				w->apps[order[k + 1]].submit_s ==
				w->apps[order[k]].submit_s ?
				same_after[k + 1] + 1 : 0;
	for (;;) {
		double ta = next_arrival < n ? w->apps[order[next_arrival]].submit_s
			: INFINITY;
		size_t top = cosched_heap_top(&s.heap);
		double tc = top != COSCHED_HEAP_NONE ? s.due[top] : INFINITY;
		if (ta == INFINITY && tc == INFINITY)
			break;
		r->events++;
		if (tc <= ta) {
			if (finish(&s, top, tc) < 0)
				goto out;
			done++;
			if (tc > last_end)
				last_end = tc;
			if (s.qlen > 0 && pass(&s, tc) < 0)
				goto out;
		} else {
			size_t j = order[next_arrival++];
			bool placed = false;
			if (ta < first_submit)
				first_submit = ta;
			/* Nothing was freed since the last pass: only the new
			 * job can start now, if it is within the depth. */
			cosched_place_set_queue_jobs(s.place, (long) s.qlen +
				(long) same_after[next_arrival - 1]);
			if (s.qlen < c->queue_depth &&
			    try_place(&s, j, ta, &placed) < 0)
				goto out;
			if (!placed) {
				queue_append(&s, j);
				/* The first job that waits reserves, as in
				 * a pass (pass); behind others, the pass
				 * decided. */
				if (c->queue == SIM_QUEUE_EASY && s.qlen == 1)
					reserve(&s, j);
			}
		}
	}
	if (done != n) {
		cosched_error_set(err, "%zu of %zu jobs never ran", n - done, n);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const job_t *x = &s.job[i];
		const sim_app_t *a = &w->apps[i];
		double wait = x->start - a->submit_s, run = x->end - x->start;
		double f = run / a->solo_s;
		busy += run * x->threads;
		wsum += wait;
		bsum += fmax(1.0, (wait + run) / fmax(run, c->bsld_tau_s));
		fsum += f;
		if (f > fworst)
			fworst = f;
	}
	r->jobs = n;
	r->makespan_s = last_end - first_submit;
	r->throughput_h = r->makespan_s > 0 ? (double)n / r->makespan_s * 3600 : 0;
	r->util = busy / ((double)c->nodes * c->sockets * c->cores *
			  r->makespan_s);
	r->wait_avg_s = wsum / (double)n;
	r->bsld_avg = bsum / (double)n;
	r->fair_avg = fsum / (double)n;
	r->fair_worst = fworst;
	r->e_core = s.e_core;
	r->e_uncore = s.e_uncore;
	r->e_dram = s.e_dram;
	r->energy_j = s.e_core + s.e_uncore + s.e_dram;
	r->edp = r->energy_j * r->makespan_s;
	r->occ_avg = s.changes ? (double)s.rerated / (double)s.changes : 0;
	{
		cosched_error_t e2;
		if (cosched_place_check(s.place, &e2) < 0) {
			cosched_error_set(err, "occupancy inconsistent at the end: %s",
					  e2.msg);
			goto out;
		}
	}
	rc = 0;
out:
	r->sim_s = now_s() - t0;
	cosched_place_free(s.place);
	free(s.gj);
	free(s.job);
	free(s.sock);
	free(s.occupant);
	free(s.mem);
	free(s.perf);
	cosched_heap_free(&s.heap);
	free(s.due);
	free(s.hpos);
	free(s.ends);
	free(order);
	free(same_after);
	return rc;
}
