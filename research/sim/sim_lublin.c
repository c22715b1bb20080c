/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_lublin.c - synthetic arrivals after U. Lublin and D. G. Feitelson,
 * "The workload on parallel supercomputers: modeling the characteristics
 * of rigid jobs", JPDC 63(11), 2003, implemented from the model's
 * structure (no code of theirs is used):
 *
 *  - size: serial with probability SERIAL; otherwise log2(size) is drawn
 *    from a two-stage uniform distribution, U(ULOW, UMED) with probability
 *    UPROB else U(UMED, UHI), UHI = log2(machine size), UMED = UHI - 2.5;
 *    with probability POW2 the size is rounded to a power of two;
 *  - run time: ln(run time) is hyper-gamma, Gamma(A1, B1) with probability
 *    p = PA x size + PB (clamped to [0, 1]), else Gamma(A2, B2): larger
 *    jobs run longer;
 *  - inter-arrival: ln(gap) is Gamma(AARR, BARR).  The daily cycle of the
 *    paper is left out (cosched-sim(1)); the gaps are then scaled so the
 *    offered load (core-seconds asked / core-seconds available over the
 *    arrival span) is the one asked, as the paper proposes for changing
 *    load.
 *
 * The constants are the paper's batch-job values as cosched-sim(1) lists
 * them; "machine size" is the socket's cores (jobs here fit one socket).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "research/sim/sim.h"

#define L_SERIAL 0.24
#define L_POW2 0.75
#define L_ULOW 0.8
#define L_UPROB 0.86
#define L_A1 4.2
#define L_B1 0.94
#define L_A2 312.0
#define L_B2 0.03
#define L_PA (-0.0054)
#define L_PB 0.78
#define L_AARR 10.23
#define L_BARR 0.4871
#define L_RUN_MIN 1.0
#define L_RUN_MAX 129600.0	/* 36 h: a site wall-clock limit */

static double normal(uint64_t *rng)
{
	double u1 = sim_rng_unit(rng), u2 = sim_rng_unit(rng);
	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Gamma(shape a, scale b): Marsaglia and Tsang, ACM TOMS 26(3), 2000. */
static double gamma_draw(double a, double b, uint64_t *rng)
{
	if (a < 1.0) {
		double u = sim_rng_unit(rng);
		return gamma_draw(a + 1.0, b, rng) * pow(u > 0 ? u : 1e-300, 1.0 / a);
	}
	double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
	for (;;) {
		double x = normal(rng), v = 1.0 + c * x, u;
		if (v <= 0)
			continue;
		v = v * v * v;
		u = sim_rng_unit(rng);
		if (u < 1.0 - 0.0331 * x * x * x * x)
			return d * v * b;
		if (log(u > 0 ? u : 1e-300) < 0.5 * x * x + d * (1.0 - v + log(v)))
			return d * v * b;
	}
}

int sim_lublin_generate(size_t n, int cores, uint64_t seed, sim_mix_t mix,
			sim_workload_t *w, cosched_error_t *err)
{
	uint64_t rng = seed ? seed : 1;
	double uhi = log2((double)cores), umed = uhi - 2.5, ulow = L_ULOW;
	double t = 0;

	if (n == 0 || cores < 1)
		return cosched_error_set(err, "generator: jobs and cores "
					 "must be > 0");
	if (umed < ulow)
		umed = ulow;
	if (uhi < umed)
		uhi = umed;
	for (size_t i = 0; i < n; i++) {
		sim_app_t a;
		double x, p, v, size;
		memset(&a, 0, sizeof(a));
		snprintf(a.name, sizeof(a.name), "job%zu", i + 1);
		if (sim_rng_unit(&rng) < L_SERIAL) {
			size = 1;
		} else {
			x = sim_rng_unit(&rng) < L_UPROB ?
				ulow + (umed - ulow) * sim_rng_unit(&rng) :
				umed + (uhi - umed) * sim_rng_unit(&rng);
			size = sim_rng_unit(&rng) < L_POW2 ? pow(2.0, round(x)) :
				round(pow(2.0, x));
		}
		if (size < 1)
			size = 1;
		if (size > cores)
			size = cores;
		p = L_PA * size + L_PB;
		p = p < 0 ? 0 : p > 1 ? 1 : p;
		v = sim_rng_unit(&rng) < p ? gamma_draw(L_A1, L_B1, &rng) :
			gamma_draw(L_A2, L_B2, &rng);
		a.solo_s = fmin(fmax(exp(v), L_RUN_MIN), L_RUN_MAX);
		a.threads = a.min_threads = a.max_threads = (int)size;
		sim_assign_class(&a, &rng, mix);
		a.submit_s = t;	/* gap units for now */
		t += exp(gamma_draw(L_AARR, L_BARR, &rng));
		if (sim_workload_add(w, &a, err) < 0)
			return -1;
	}
	return 0;
}

/* Scale the arrival times of jobs [first, n) so that the offered load on
 * total_cores is load: span = asked core-seconds / (load x cores). */
int sim_scale_load(sim_workload_t *w, size_t first, double total_cores,
		   double load, cosched_error_t *err)
{
	double asked = 0, span, last = 0;

	if (!(load > 0) || !(total_cores > 0))
		return cosched_error_set(err, "load and cores must be > 0");
	for (size_t i = first; i < w->n; i++) {
		asked += w->apps[i].threads * w->apps[i].solo_s;
		if (w->apps[i].submit_s > last)
			last = w->apps[i].submit_s;
	}
	if (last <= 0)
		return 0;
	span = asked / (load * total_cores);
	for (size_t i = first; i < w->n; i++)
		w->apps[i].submit_s *= span / last;
	return 0;
}

/* Another SplitMix64 stream than the jobs': the load does not hang on the
 * first job's draws, and --generate with the seed gives the same jobs. */
#define LOAD_STREAM 0xd1b54a32d192ed03ULL

double sim_lublin_draw_load(uint64_t seed)
{
	uint64_t rng = seed ^ LOAD_STREAM;

	return SIM_DRAW_MIN_LOAD + (SIM_DRAW_MAX_LOAD - SIM_DRAW_MIN_LOAD) *
		sim_rng_unit(&rng);
}
