/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_ts.c - the time-shared setting ("Power-aware gang scheduling on
 * multicore", NTUA thesis, 2013, "Metrics", "The five schedulers"): gangs
 * run round-robin on one package, one quantum each;
 * every application is restarted when it ends; the run stops at the end
 * of the round in which the window is reached, so every gang has had the
 * same number of quanta.  And the exact optimum over gang partitions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "research/sim/sim.h"
#include "src/libcosched/base/random.h"
#include "src/libcosched/policy/mrb.h"

void sim_ts_conf_default(sim_ts_conf_t *c)
{
	memset(c, 0, sizeof(*c));
	c->capacity = 8;
	c->quantum_s = 1.0;
	/* The 2013 gang-scheduling thesis: 2-hour runs. */
	c->window_s = 7200.0;
	c->seed = 1;
	c->mrb_weight = COSCHED_MRB_WEIGHT_DEFAULT;
	c->mrb_threshold = COSCHED_MRB_THRESHOLD_DEFAULT;
	c->mrb_start_zero = true;
}

void sim_ts_result_free(sim_ts_result_t *r)
{
	free(r->first_done_s);
	free(r->fair);
	free(r->work_app);
	free(r->compl_app);
	r->first_done_s = r->fair = r->work_app = NULL;
	r->compl_app = NULL;
}

typedef struct {
	const sim_model_t *m;
	const sim_workload_t *w;
	const sim_ts_conf_t *c;
	double *running, *progress;
	sim_ts_result_t *r;
} acct_t;

static int acct_init(acct_t *a, const sim_model_t *m, const sim_workload_t *w,
		     const sim_ts_conf_t *c, sim_ts_result_t *r,
		     cosched_error_t *err)
{
	size_t n = w->n;

	memset(r, 0, sizeof(*r));
	a->m = m;
	a->w = w;
	a->c = c;
	a->r = r;
	r->napps = n;
	r->plan_value = NAN;
	a->running = calloc(n, sizeof(double));
	a->progress = calloc(n, sizeof(double));
	r->first_done_s = malloc(n * sizeof(double));
	r->fair = calloc(n, sizeof(double));
	r->work_app = calloc(n, sizeof(double));
	r->compl_app = calloc(n, sizeof(long));
	if (!a->running || !a->progress || !r->first_done_s || !r->fair ||
	    !r->work_app || !r->compl_app) {
		free(a->running);
		free(a->progress);
		sim_ts_result_free(r);
		return cosched_error_set(err, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		r->first_done_s[i] = INFINITY;
	return 0;
}

static void acct_free(acct_t *a)
{
	free(a->running);
	free(a->progress);
}

/* One quantum of a gang whose perf and power are known. */
static void quantum(acct_t *a, int gang, const sim_member_t *mem,
		    const sim_perf_t *perf, int n, const sim_power_t *pw)
{
	sim_ts_result_t *r = a->r;
	double q = a->c->quantum_s;

	if (a->c->on_quantum)
		a->c->on_quantum(a->c->on_quantum_ctx, r->elapsed_s, gang, a->w,
				 mem, perf, n);
	for (int i = 0; i < n; i++) {
		size_t k = mem[i].app;
		double dw = perf[i].rate * q;
		a->running[k] += q;
		/* Its first run ends inside this quantum, at its rate. */
		if (r->compl_app[k] == 0 && a->progress[k] + dw >= 1.0 - 1e-12)
			r->first_done_s[k] = r->elapsed_s +
				(1.0 - a->progress[k]) / perf[i].rate;
		r->work_app[k] += dw;
		a->progress[k] += dw;
		/* Restarted when it ends (the 2013 gang-scheduling thesis,
		 * "Metrics"). */
		while (a->progress[k] >= 1.0 - 1e-12) {
			a->progress[k] -= 1.0;
			r->compl_app[k]++;
		}
	}
	r->e_core += pw->core * q;
	r->e_uncore += pw->uncore * q;
	r->e_dram += pw->dram * q;
	r->elapsed_s += q;
}

static void acct_finish(acct_t *a)
{
	sim_ts_result_t *r = a->r;
	double fsum = 0, wsum = 0;

	r->work = 0;
	r->completions = 0;
	r->fair_worst = 0;
	r->all_once_s = 0;
	for (size_t i = 0; i < r->napps; i++) {
		if (r->first_done_s[i] > r->all_once_s)
			r->all_once_s = r->first_done_s[i];
		double wk = r->work_app[i];
		const sim_app_t *ap = &a->w->apps[i];
		r->work += wk;
		r->completions += r->compl_app[i];
		r->fair[i] = wk > 0 ? a->running[i] / (wk * ap->solo_s) : INFINITY;
		fsum += r->fair[i];
		wsum += wk > 0 ? (r->elapsed_s - a->running[i]) / wk : INFINITY;
		if (r->fair[i] > r->fair_worst)
			r->fair_worst = r->fair[i];
	}
	r->fair_avg = fsum / (double)r->napps;
	r->wait_avg_s = wsum / (double)r->napps;
	r->throughput_h = r->elapsed_s > 0 ? r->work / r->elapsed_s * 3600 : 0;
	r->energy_j = r->e_core + r->e_uncore + r->e_dram;
	r->edp = r->work > 0 ?
		(r->energy_j / r->work) * (r->elapsed_s / r->work) : INFINITY;
}

int sim_ts_run_static(const sim_model_t *m, const sim_workload_t *w,
		      const int *gang_of, const int *threads, int ngangs,
		      const sim_ts_conf_t *c, sim_ts_result_t *r,
		      cosched_error_t *err)
{
	acct_t a;
	sim_member_t *mem = malloc((w->n + 1) * sizeof(*mem));
	sim_perf_t *perf = malloc((w->n + 1) * sizeof(*perf));
	int *first = calloc((size_t)ngangs + 1, sizeof(int));
	sim_power_t *pw = malloc(((size_t)ngangs + 1) * sizeof(*pw));
	int rc = -1;

	if (!mem || !perf || !first || !pw) {
		cosched_error_set(err, "out of memory");
		goto out;
	}
	if (acct_init(&a, m, w, c, r, err) < 0)
		goto out;
	/* Members grouped by gang (stable: input order within a gang). */
	for (size_t i = 0; i < w->n; i++)
		first[gang_of[i] + 1]++;
	for (int g = 0; g < ngangs; g++)
		first[g + 1] += first[g];
	{
		int *fill = calloc((size_t)ngangs + 1, sizeof(int));
		if (!fill) {
			cosched_error_set(err, "out of memory");
			acct_free(&a);
			sim_ts_result_free(r);
			goto out;
		}
		for (size_t i = 0; i < w->n; i++) {
			int g = gang_of[i];
			mem[first[g] + fill[g]].app = i;
			mem[first[g] + fill[g]].threads = threads[i];
			fill[g]++;
		}
		free(fill);
	}
	for (int g = 0; g < ngangs; g++)
		if (sim_gang_eval(m, w->apps, &mem[first[g]], first[g + 1] - first[g],
				  c->dvfs, &perf[first[g]], &pw[g], err) < 0) {
			acct_free(&a);
			sim_ts_result_free(r);
			goto out;
		}
	r->round_s = ngangs * c->quantum_s;
	while (r->elapsed_s < c->window_s - 1e-9) {
		for (int g = 0; g < ngangs; g++)
			quantum(&a, g, &mem[first[g]], &perf[first[g]],
				first[g + 1] - first[g], &pw[g]);
		r->rounds++;
	}
	r->gangs = (size_t)ngangs;
	acct_finish(&a);
	acct_free(&a);
	rc = 0;
out:
	free(mem);
	free(perf);
	free(first);
	free(pw);
	return rc;
}

static cosched_gang_job_t *gang_jobs(const sim_workload_t *w, bool mpki_zero,
				     cosched_error_t *err)
{
	cosched_gang_job_t *jobs = calloc(w->n + 1, sizeof(*jobs));

	if (!jobs) {
		cosched_error_set(err, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < w->n; i++) {
		sim_gang_job(&w->apps[i], i, &jobs[i]);
		if (mpki_zero)
			jobs[i].mpki = 0;
	}
	return jobs;
}

/* The policies see the model's table as a site's configured one
 * (min_slowdown's costs; Application-Aware's preferences), and the
 * setting as time-shared: min_slowdown's ranking then weighs a new gang,
 * one more slice of the round, against joining one. */
static void gang_params(const sim_model_t *m, const sim_ts_conf_t *c,
			cosched_gang_params_t *p)
{
	cosched_gang_params_init(p, c->capacity);
	p->seed = c->seed;
	p->mrb_weight = c->mrb_weight;
	p->mrb_threshold = c->mrb_threshold;
	p->max_apps = c->max_apps < c->capacity ? c->max_apps : c->capacity;
	p->pref = &m->interf.pref;
	p->interference = &m->interf;
	p->time_shared = true;
}

/* Miss-Rate Bound online (the 2013 gang-scheduling thesis): every quantum,
 * the running gang's applications are sampled and fed (EWMA in
 * cosched_mrb_feed); at the end of each round, cosched_mrb_end_round moves
 * applications. */
static int run_mrb(const sim_model_t *m, const sim_workload_t *w,
		   const sim_ts_conf_t *c, sim_ts_result_t *r,
		   cosched_error_t *err)
{
	cosched_gang_params_t p;
	cosched_gang_job_t *jobs = gang_jobs(w, c->mrb_start_zero, err);
	sim_member_t *mem = malloc((w->n + 1) * sizeof(*mem));
	sim_perf_t *perf = malloc((w->n + 1) * sizeof(*perf));
	cosched_mrb_t *s = NULL;
	acct_t a;
	int rc = -1;
	bool acct = false;

	if (!jobs || !mem || !perf) {
		cosched_error_set(err, "out of memory");
		goto out;
	}
	gang_params(m, c, &p);
	s = cosched_mrb_create(&p, jobs, w->n, err);
	if (!s || acct_init(&a, m, w, c, r, err) < 0)
		goto out;
	acct = true;
	while (r->elapsed_s < c->window_s - 1e-9) {
		size_t slots = cosched_mrb_gang_slots(s);
		const cosched_mrb_move_t *mv;
		size_t nmv;
		double round_start = r->elapsed_s;
		for (size_t g = 0; g < slots; g++) {
			sim_power_t pw;
			int n = 0;
			for (size_t i = 0; i < w->n; i++)
				if (cosched_mrb_job_gang(s, i) == (int)g) {
					mem[n].app = i;
					mem[n].threads = w->apps[i].threads;
					n++;
				}
			if (n == 0)
				continue;
			if (sim_gang_eval(m, w->apps, mem, n, c->dvfs, perf, &pw,
					  err) < 0)
				goto out;
			quantum(&a, (int)g, mem, perf, n, &pw);
			for (int i = 0; i < n; i++)
				if (cosched_mrb_feed(s, mem[i].app, perf[i].mpki,
						     err) < 0)
					goto out;
		}
		r->rounds++;
		if (r->elapsed_s - round_start > r->round_s)
			r->round_s = r->elapsed_s - round_start;
		if (cosched_mrb_end_round(s, &mv, &nmv, err) < 0)
			goto out;
		r->moves += (long)nmv;
	}
	r->gangs = cosched_mrb_gang_count(s);
	acct_finish(&a);
	rc = 0;
out:
	if (acct) {
		acct_free(&a);
		if (rc < 0)
			sim_ts_result_free(r);
	}
	cosched_mrb_free(s);
	free(jobs);
	free(mem);
	free(perf);
	return rc;
}

/* The incremental form over arrivals (--arrive): the programs arrive one
 * at a time in an order shuffled from the seed, and each joins the gang
 * the policy's incremental ranking puts first (cosched_gang_rank, whose
 * first entry is the socket index's answer, what slurmctld places by),
 * every gang offered as a socket of the package's cores, and one empty
 * socket as a new gang: the round the time-shared ranking weighs.
 * Placed programs never move.  The gangs, grouped
 * in join order, fill plan as cosched_gang_plan would. */
static int arrive_plan(cosched_policy_t policy, const cosched_gang_params_t *p,
		       const cosched_gang_job_t *jobs, size_t n, uint64_t seed,
		       cosched_gang_plan_t *plan, cosched_error_t *err)
{
	size_t *order = malloc(n * sizeof(*order));
	/* occ[g * n ..]: gang g's members as the ranking sees them. */
	cosched_gang_job_t *occ = calloc(n * n, sizeof(*occ));
	size_t *occ_job = calloc(n * n, sizeof(*occ_job));
	cosched_socket_t *sock = calloc(n + 1, sizeof(*sock));
	cosched_candidate_t *cand = calloc(n + 1, sizeof(*cand));
	size_t ngangs = 0, nacc, k = 0;
	int rc = -1;

	memset(plan, 0, sizeof(*plan));
	plan->gangs = calloc(n, sizeof(*plan->gangs));
	plan->members = calloc(n, sizeof(*plan->members));
	if (!order || !occ || !occ_job || !sock || !cand || !plan->gangs ||
	    !plan->members) {
		cosched_error_set(err, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	cosched_shuffle(order, n, sizeof(*order), seed);
	for (size_t a = 0; a < n; a++) {
		const cosched_gang_job_t *job = &jobs[order[a]];
		for (size_t g = 0; g <= ngangs; g++) {
			sock[g].capacity = p->capacity;
			sock[g].used = 0;
			sock[g].occupants = &occ[g * n];
			sock[g].noccupants = g < ngangs ? plan->gangs[g].count : 0;
			for (int m = 0; m < sock[g].noccupants; m++)
				sock[g].used += occ[g * n + (size_t)m].threads;
		}
		if (cosched_gang_rank(policy, p, sock, ngangs + 1, job, cand,
				      &nacc, err) < 0)
			goto out;
		if (nacc == 0) {
			cosched_error_set(err, "%s: no gang accepts it, not even "
					  "a new one", job->name);
			goto out;
		}
		size_t g = cand[0].socket;
		cosched_gang_job_t *slot = &occ[g * n + (size_t)plan->gangs[g].count];
		*slot = *job;
		slot->threads = slot->min_threads = slot->max_threads =
			cand[0].threads;
		occ_job[g * n + (size_t)plan->gangs[g].count] = order[a];
		plan->gangs[g].count++;
		plan->gangs[g].cores += cand[0].threads;
		if (g == ngangs)
			ngangs++;
	}
	for (size_t g = 0; g < ngangs; g++) {
		plan->gangs[g].first = k;
		for (int m = 0; m < plan->gangs[g].count; m++, k++) {
			size_t j = occ_job[g * n + (size_t)m];
			plan->members[k].job = j;
			plan->members[k].threads = occ[g * n + (size_t)m].threads;
			plan->members[k].freq_khz = jobs[j].freq_khz;
		}
	}
	plan->ngangs = ngangs;
	plan->nmembers = k;
	rc = 0;
out:
	if (rc < 0)
		cosched_gang_plan_free(plan);
	free(order);
	free(occ);
	free(occ_job);
	free(sock);
	free(cand);
	return rc;
}

int sim_ts_run(const sim_model_t *m, const sim_workload_t *w,
	       cosched_policy_t policy, const sim_ts_conf_t *c,
	       sim_ts_result_t *r, cosched_error_t *err)
{
	cosched_gang_params_t p;
	cosched_gang_plan_t plan;
	cosched_gang_job_t *jobs;
	int *gang_of, *threads, rc;
	double value;

	if (w->n == 0)
		return cosched_error_set(err, "empty workload");
	for (size_t i = 0; i < w->n; i++)
		if (w->apps[i].threads > c->capacity)
			return cosched_error_set(err, "%s: %d threads on a "
				"%d-core package", w->apps[i].name,
				w->apps[i].threads, c->capacity);
	if (policy == COSCHED_POLICY_MISS_RATE_BOUND && !c->arrive) {
		rc = run_mrb(m, w, c, r, err);
		if (rc == 0)
			snprintf(r->label, sizeof(r->label), "%s",
				 cosched_policy_name(policy));
		return rc;
	}
	jobs = gang_jobs(w, false, err);
	if (!jobs)
		return -1;
	gang_params(m, c, &p);
	if ((c->arrive ? arrive_plan(policy, &p, jobs, w->n, c->seed, &plan,
				     err) :
	     cosched_gang_plan(policy, &p, jobs, w->n, &plan, err)) < 0) {
		free(jobs);
		return -1;
	}
	value = cosched_gang_plan_value(&p, jobs, w->n, &plan);
	free(jobs);
	gang_of = calloc(w->n + 1, sizeof(int));
	threads = calloc(w->n + 1, sizeof(int));
	if (!gang_of || !threads) {
		free(gang_of);
		free(threads);
		cosched_gang_plan_free(&plan);
		return cosched_error_set(err, "out of memory");
	}
	for (size_t g = 0; g < plan.ngangs; g++)
		for (int k = 0; k < plan.gangs[g].count; k++) {
			const cosched_gang_member_t *mb =
				&plan.members[plan.gangs[g].first + (size_t)k];
			gang_of[mb->job] = (int)g;
			threads[mb->job] = mb->threads;
		}
	rc = sim_ts_run_static(m, w, gang_of, threads, (int)plan.ngangs, c, r,
			       err);
	if (rc == 0)
		r->plan_value = value;
	if (rc == 0)
		snprintf(r->label, sizeof(r->label), "%s",
			 cosched_policy_name(policy));
	cosched_gang_plan_free(&plan);
	free(gang_of);
	free(threads);
	return rc;
}

/* ---- optimum ----------------------------------------------------- */

typedef struct {
	const sim_model_t *m;
	const sim_workload_t *w;
	bool dvfs;
	int capacity;
	sim_member_t mem[SIM_OPT_MAX_APPS];
	int n;
	double best;
	int best_threads[SIM_OPT_MAX_APPS];
	int rc;
	cosched_error_t *err;
} gang_search_t;

/* Every thread assignment in [min, max] of members k.. within the cores. */
static void assign(gang_search_t *s, int k, int cores)
{
	if (s->rc < 0)
		return;
	if (k == s->n) {
		sim_perf_t perf[SIM_OPT_MAX_APPS];
		sim_power_t pw;
		double sum = 0;
		if (sim_gang_eval(s->m, s->w->apps, s->mem, s->n, s->dvfs, perf,
				  &pw, s->err) < 0) {
			s->rc = -1;
			return;
		}
		for (int i = 0; i < s->n; i++)
			sum += perf[i].rate;
		if (sum > s->best) {
			s->best = sum;
			for (int i = 0; i < s->n; i++)
				s->best_threads[i] = s->mem[i].threads;
		}
		return;
	}
	const sim_app_t *a = &s->w->apps[s->mem[k].app];
	int rest = 0;
	for (int j = k + 1; j < s->n; j++)
		rest += s->w->apps[s->mem[j].app].min_threads;
	for (int t = a->min_threads; t <= a->max_threads &&
	     cores + t + rest <= s->capacity; t++) {
		s->mem[k].threads = t;
		assign(s, k + 1, cores + t);
	}
}

int sim_optimum(const sim_model_t *m, const sim_workload_t *w,
		const sim_ts_conf_t *c, int *gang_of, int *threads,
		int *ngangs, double *rate, cosched_error_t *err)
{
	size_t n = w->n, nm = (size_t)1 << n;
	double *val = NULL, *f = NULL;
	int *vthr = NULL, *choice = NULL;
	int rc = -1, bestk = 0;
	double bestrate = -1;

	if (n == 0 || n > SIM_OPT_MAX_APPS)
		return cosched_error_set(err, "optimum: %zu applications (1..%d)",
					 n, SIM_OPT_MAX_APPS);
	val = malloc(nm * sizeof(double));
	vthr = malloc(nm * SIM_OPT_MAX_APPS * sizeof(int));
	f = malloc(nm * (n + 1) * sizeof(double));
	choice = malloc(nm * (n + 1) * sizeof(int));
	if (!val || !vthr || !f || !choice) {
		cosched_error_set(err, "out of memory");
		goto out;
	}
	/* Value of every subset as one gang: best thread assignment. */
	val[0] = -1;
	for (size_t s = 1; s < nm; s++) {
		gang_search_t gs = { .m = m, .w = w, .dvfs = c->dvfs,
				     .capacity = c->capacity, .best = -1,
				     .err = err };
		for (size_t i = 0; i < n; i++)
			if (s & ((size_t)1 << i))
				gs.mem[gs.n++].app = i;
		assign(&gs, 0, 0);
		if (gs.rc < 0)
			goto out;
		val[s] = gs.best;	/* -1: does not fit */
		for (int i = 0; i < gs.n; i++)
			vthr[s * SIM_OPT_MAX_APPS + (size_t)i] = gs.best_threads[i];
	}
	/* f[mask][k]: the largest sum of gang values partitioning mask into k
	 * gangs (-1: impossible). */
	for (size_t s = 0; s < nm; s++)
		for (size_t k = 0; k <= n; k++) {
			f[s * (n + 1) + k] = (s == 0 && k == 0) ? 0 : -1;
			choice[s * (n + 1) + k] = 0;
		}
	for (size_t s = 1; s < nm; s++) {
		size_t low = s & (~s + 1);
		for (size_t k = 1; k <= n; k++) {
			double best = -1;
			int pick = 0;
			/* Sub-masks holding the lowest member. */
			for (size_t sub = s; sub; sub = (sub - 1) & s) {
				if (!(sub & low) || val[sub] < 0)
					continue;
				double rest = f[(s ^ sub) * (n + 1) + k - 1];
				if (rest < 0)
					continue;
				if (val[sub] + rest > best) {
					best = val[sub] + rest;
					pick = (int)sub;
				}
			}
			f[s * (n + 1) + k] = best;
			choice[s * (n + 1) + k] = pick;
		}
	}
	for (size_t k = 1; k <= n; k++) {
		double v = f[(nm - 1) * (n + 1) + k];
		if (v >= 0 && v / (double)k > bestrate) {
			bestrate = v / (double)k;
			bestk = (int)k;
		}
	}
	if (bestk == 0) {
		cosched_error_set(err, "optimum: no partition fits");
		goto out;
	}
	{
		size_t s = nm - 1;
		int k = bestk, g = 0;
		while (s) {
			size_t sub = (size_t)choice[s * (n + 1) + (size_t)k];
			int idx = 0;
			for (size_t i = 0; i < n; i++)
				if (sub & ((size_t)1 << i)) {
					gang_of[i] = g;
					threads[i] = vthr[sub * SIM_OPT_MAX_APPS +
							  (size_t)idx++];
				}
			s ^= sub;
			k--;
			g++;
		}
		*ngangs = g;
	}
	*rate = bestrate;
	rc = 0;
out:
	free(val);
	free(vthr);
	free(f);
	free(choice);
	return rc;
}
