/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_numa.c - the dynamic migration experiment of "Dynamic memory
 * placement of applications on a NUMA system" (NTUA thesis, 2020) in model
 * form (cosched-sim --seed000): processes with bandwidths and pages on the
 * thesis's 4-node machine, a sequence of migrate requests 30 s apart, and
 * each victim order of the decision core (cosched_victim_plan) deciding
 * whose pages move.  Nothing here chooses a victim.
 *
 * Model (cosched-sim(1), NUMA MIGRATION), each part replaceable:
 *  - a process's time relative to all-local while a fraction f_n of its
 *    pages is on node n, its CPUs on node c:
 *        s = sum_n f_n x (1 + (r(bw) - 1) x (d(c, n) - 10) / 11)
 *    r(bw) = 1 + A ln(1 + bw / B) is its time with every page one hop
 *    away (distance 21); A and B go through the 2020 memory-placement
 *    thesis's two measured "remote" points, 619.lbm_s (15.6 GB/s, 398.8%)
 *    and 505.mcf_r (2.3 GB/s, 177.2%); it then gives 500.perlbench_r
 *    (39 MB/s) 101.6% (measured 100.5%).  Linear in the fraction and in
 *    the distance; no bandwidth saturation, no "stress effect" (the
 *    thesis's Limitations), no cost of the move itself;
 *  - each process needs requests x 30 s of work at local speed; its
 *    normalised time is how long it takes / that;
 *  - the system score is the geometric mean of normalised times.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "research/sim/sim.h"

#define NUMA_A 2.2472	/* fitted as above */
#define NUMA_B 5.61	/* GB/s */
#define BW_LO 0.039	/* GB/s: 500.perlbench_r */
#define BW_HI 15.6	/* GB/s: 619.lbm_s */
#define PAGES_LO 2.5e4	/* 100 MB of 4 KiB pages */
#define PAGES_HI 2.5e6	/* 10 GB */
#define REQ_LO 1e3	/* the thesis's request sizes */
#define REQ_HI 3e6

/* The 2020 memory-placement thesis's machine: 4 nodes, row-major
 * distances. */
static const unsigned sim_seed000_distance[16] = {
	10, 21, 21, 30,
	21, 10, 30, 21,
	21, 30, 10, 21,
	30, 21, 21, 10,
};

void sim_numa_conf_default(sim_numa_conf_t *c)
{
	memset(c, 0, sizeof(*c));
	c->nodes = 4;
	memcpy(c->distance, sim_seed000_distance, sizeof(sim_seed000_distance));
	c->procs = 16;
	c->requests = 50;
	c->interval_s = 30;
	c->seed = 1;
	c->freeze = 0;
	c->random_draws = 10;
}

double sim_numa_remote(double bw)
{
	return 1.0 + NUMA_A * log1p(bw / NUMA_B);
}

double sim_numa_slowdown(const sim_numa_conf_t *c,
			 const cosched_victim_proc_t *p)
{
	double total = 0, s = 0, r = sim_numa_remote(p->bandwidth);

	for (int n = 0; n < c->nodes; n++)
		total += (double)p->pages[n];
	if (total <= 0 || p->cpu_node < 0)
		return 1.0;
	for (int n = 0; n < c->nodes; n++) {
		double d = c->distance[p->cpu_node * c->nodes + n];
		s += (double)p->pages[n] / total *
			(1.0 + (r - 1.0) * (d - 10.0) / 11.0);
	}
	return s;
}

static double log_uniform(uint64_t *rng, double lo, double hi)
{
	return exp(log(lo) + (log(hi) - log(lo)) * sim_rng_unit(rng));
}

/* The processes (c->procs) and requests (c->requests) of c->seed. */
static int sim_numa_instance(const sim_numa_conf_t *c,
			     cosched_victim_proc_t *procs,
			     cosched_migration_t *reqs, cosched_error_t *err)
{
	uint64_t rng = c->seed ? c->seed : 1;

	if (c->nodes < 2 || c->nodes > SIM_NUMA_MAX_NODES)
		return cosched_error_set(err, "seed000: %d nodes, 2..%d",
					 c->nodes, SIM_NUMA_MAX_NODES);
	memset(procs, 0, c->procs * sizeof(*procs));
	for (size_t i = 0; i < c->procs; i++) {
		cosched_victim_proc_t *p = &procs[i];
		p->pid = (uint32_t)(i + 1);
		p->cpu_node = (int)(i % (size_t)c->nodes);
		p->bandwidth = log_uniform(&rng, BW_LO, BW_HI);
		/* First touch: every page local at the start. */
		p->pages[p->cpu_node] = (uint64_t)log_uniform(&rng, PAGES_LO,
							      PAGES_HI);
	}
	for (size_t j = 0; j < c->requests; j++) {
		cosched_migration_t *q = &reqs[j];
		q->src = (int)(sim_rng_next(&rng) % (uint64_t)c->nodes);
		q->dst = (int)(sim_rng_next(&rng) % (uint64_t)(c->nodes - 1));
		if (q->dst >= q->src)
			q->dst++;
		q->pages = (uint64_t)log_uniform(&rng, REQ_LO, REQ_HI);
	}
	return 0;
}

int sim_numa_run(const sim_numa_conf_t *c, cosched_victim_order_t order,
		 unsigned flags, uint64_t draw, sim_numa_result_t *r,
		 cosched_error_t *err)
{
	cosched_victim_proc_t *p = NULL;
	cosched_migration_t *q = NULL;
	cosched_victim_move_t *mv = NULL;
	double *done = NULL, work = (double)c->requests * c->interval_s;
	size_t n = c->procs;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (n < 1 || c->requests < 1 || !(c->interval_s > 0))
		return cosched_error_set(err, "seed000: processes, requests and "
					 "interval must be > 0");
	p = calloc(n, sizeof(*p));
	q = calloc(c->requests, sizeof(*q));
	mv = calloc(n, sizeof(*mv));
	done = calloc(n, sizeof(*done));
	r->norm = calloc(n, sizeof(*r->norm));
	if (!p || !q || !mv || !done || !r->norm) {
		cosched_error_set(err, "seed000: out of memory");
		goto out;
	}
	r->n = n;
	if (sim_numa_instance(c, p, q, err) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		r->norm[i] = NAN;
	/* Interval k runs with the placement after request k (request k
	 * comes at the start of interval k); after the last request the
	 * placement stays until every process has done its work. */
	size_t finished = 0;
	for (size_t k = 0; finished < n; k++) {
		if (k < c->requests) {
			size_t nm;
			uint64_t planned;
			int st = cosched_victim_plan(order, p, n, c->nodes,
						     c->distance, &q[k], flags,
						     draw * 1000003u + k, mv,
						     &nm, &planned, err);
			if (st < 0 ||
			    cosched_victim_apply(p, n, &q[k], mv, nm, err) < 0)
				goto out;
			if (st == 1)
				r->short_requests++;
			r->asked += q[k].pages;
			r->moved += planned;
			if (c->freeze == 0 || (k + 1) % c->freeze == 0)
				cosched_victim_thaw(p, n);
		}
		for (size_t i = 0; i < n; i++) {
			if (!isnan(r->norm[i]))
				continue;
			double s = sim_numa_slowdown(c, &p[i]);
			double prog = c->interval_s / s;
			if (done[i] + prog >= work) {
				double t = (double)k * c->interval_s +
					(work - done[i]) * s;
				r->norm[i] = t / work;
				finished++;
			} else {
				done[i] += prog;
			}
		}
		if (k > 1000000) {
			cosched_error_set(err, "seed000: no end");
			goto out;
		}
	}
	double lsum = 0;
	r->worst = 0;
	for (size_t i = 0; i < n; i++) {
		lsum += log(r->norm[i]);
		if (r->norm[i] > r->worst)
			r->worst = r->norm[i];
	}
	r->geomean = exp(lsum / (double)n);
	/* The lowest and highest bandwidth quarter (the thesis: under Worst
	 * the light barely change, the heavy slow by up to 2.7x). */
	{
		size_t qn = n / 4 ? n / 4 : 1;
		double lo = 0, hi = 0;
		size_t *idx = malloc(n * sizeof(*idx));
		if (!idx) {
			cosched_error_set(err, "seed000: out of memory");
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			idx[i] = i;
		for (size_t i = 1; i < n; i++)	/* insertion sort by bw */
			for (size_t j = i; j > 0 && p[idx[j - 1]].bandwidth >
			     p[idx[j]].bandwidth; j--) {
				size_t t = idx[j];
				idx[j] = idx[j - 1];
				idx[j - 1] = t;
			}
		for (size_t i = 0; i < qn; i++) {
			lo += r->norm[idx[i]];
			hi += r->norm[idx[n - 1 - i]];
		}
		r->light = lo / (double)qn;
		r->heavy = hi / (double)qn;
		free(idx);
	}
	rc = 0;
out:
	free(p);
	free(q);
	free(mv);
	free(done);
	if (rc < 0) {
		free(r->norm);
		r->norm = NULL;
	}
	return rc;
}

void sim_numa_result_free(sim_numa_result_t *r)
{
	free(r->norm);
	r->norm = NULL;
}
