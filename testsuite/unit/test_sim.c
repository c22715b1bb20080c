/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sim.c - the simulator's accounting (research/sim): small cases
 * computed by hand, the optimum against every policy, the calibrated
 * figure of "Power-aware gang scheduling on multicore" (NTUA thesis, 2013),
 * and the refusal of bad workload files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cosched_check.h"

#include "research/sim/sim.h"

static cosched_error_t err;

static void app(sim_workload_t *w, const char *name, int threads,
		cosched_category_t cat, double mpki, long mhz, double solo)
{
	sim_app_t a;
	memset(&a, 0, sizeof(a));
	snprintf(a.name, sizeof(a.name), "%s", name);
	a.threads = a.min_threads = a.max_threads = threads;
	a.cat = cat;
	a.mpki = mpki;
	a.mhz = mhz;
	a.solo_s = solo;
	ck_assert_int_eq(sim_workload_add(w, &a, &err), 0);
}

/* A: cpu, 4 threads, 10 s alone; B: mem, 4 threads, 20 s alone.  The
 * table of the 2013 gang-scheduling thesis: cpu next to mem 1.05, mem next
 * to cpu 1.05. */
static void two_apps(sim_workload_t *w)
{
	memset(w, 0, sizeof(*w));
	app(w, "A", 4, COSCHED_CAT_CPU, 0.01, 2200, 10.0);
	app(w, "B", 4, COSCHED_CAT_MEM, 5.0, 1500, 20.0);
}

/* Package power by hand from the model's constants (sim_model.c):
 * A+B together: core 0.43 + 3.85 + 3.16 x 0.8 + 4 x 3.70 + 4 x 4.17,
 * uncore 13.5 + 2.55 x 0.8, DRAM 3.2 + 1.6 + 6.7 x 0.8. */
#define P_AB (0.43 + 3.85 + 3.16 * 0.8 + 4 * 3.70 + 4 * 4.17 + \
	      13.5 + 2.55 * 0.8 + 3.2 + 1.6 + 6.7 * 0.8)
#define P_A (0.43 + 3.85 + 4 * 3.70 + 13.5 + 3.2 + 1.6)
#define P_B (0.43 + 3.85 + 3.16 * 0.8 + 4 * 4.17 + \
	     13.5 + 2.55 * 0.8 + 3.2 + 1.6 + 6.7 * 0.8)

START_TEST(test_one_gang_exact)
{
	sim_model_t m;
	sim_workload_t w;
	sim_ts_conf_t c;
	sim_ts_result_t r;
	int gang_of[2] = { 0, 0 }, threads[2] = { 4, 4 };

	sim_model_default(&m);
	two_apps(&w);
	sim_ts_conf_default(&c);
	c.window_s = 21;	/* 21 quanta of the one gang */
	ck_assert_int_eq(sim_ts_run_static(&m, &w, gang_of, threads, 1, &c, &r,
					   &err), 0);
	ck_assert_double_eq_tol(r.elapsed_s, 21, 1e-9);
	ck_assert_int_eq(r.rounds, 21);
	/* A runs at 1 / (10 x 1.05): 2 runs in 21 s; B 1 / (20 x 1.05): 1. */
	ck_assert_double_eq_tol(r.work_app[0], 2.0, 1e-9);
	ck_assert_double_eq_tol(r.work_app[1], 1.0, 1e-9);
	ck_assert_int_eq(r.compl_app[0], 2);
	ck_assert_int_eq(r.compl_app[1], 1);
	ck_assert_int_eq(r.completions, 3);
	ck_assert_double_eq_tol(r.throughput_h, 3.0 / 21 * 3600, 1e-6);
	ck_assert_double_eq_tol(r.fair[0], 1.05, 1e-9);
	ck_assert_double_eq_tol(r.fair[1], 1.05, 1e-9);
	ck_assert_double_eq_tol(r.fair_worst, 1.05, 1e-9);
	ck_assert_double_eq_tol(r.wait_avg_s, 0, 1e-9);
	ck_assert_double_eq_tol(r.energy_j, P_AB * 21, 1e-6);
	ck_assert_double_eq_tol(r.e_core + r.e_uncore + r.e_dram, r.energy_j,
				1e-9);
	ck_assert_double_eq_tol(r.edp, (P_AB * 21 / 3) * (21.0 / 3), 1e-6);
	sim_ts_result_free(&r);
	sim_workload_free(&w);
}
END_TEST

START_TEST(test_two_gangs_exact)
{
	sim_model_t m;
	sim_workload_t w;
	sim_ts_conf_t c;
	sim_ts_result_t r;

	sim_model_default(&m);
	two_apps(&w);
	sim_ts_conf_default(&c);
	c.window_s = 20;
	/* GANG: one application per gang, each runs every other second. */
	ck_assert_int_eq(sim_ts_run(&m, &w, COSCHED_POLICY_GANG, &c, &r, &err),
			 0);
	ck_assert_int_eq(r.gangs, 2);
	ck_assert_int_eq(r.rounds, 10);
	ck_assert_double_eq_tol(r.work_app[0], 1.0, 1e-9);
	ck_assert_double_eq_tol(r.work_app[1], 0.5, 1e-9);
	ck_assert_int_eq(r.compl_app[0], 1);
	ck_assert_int_eq(r.compl_app[1], 0);
	ck_assert_double_eq_tol(r.fair_avg, 1.0, 1e-9);
	/* waiting per run: A (20 - 10) / 1, B (20 - 10) / 0.5 */
	ck_assert_double_eq_tol(r.wait_avg_s, (10.0 + 20.0) / 2, 1e-9);
	ck_assert_double_eq_tol(r.energy_j, P_A * 10 + P_B * 10, 1e-6);
	sim_ts_result_free(&r);

	/* The window ends inside a round: the round is finished. */
	c.window_s = 5;
	ck_assert_int_eq(sim_ts_run(&m, &w, COSCHED_POLICY_GANG, &c, &r, &err),
			 0);
	ck_assert_double_eq_tol(r.elapsed_s, 6, 1e-9);
	ck_assert_int_eq(r.rounds, 3);
	sim_ts_result_free(&r);
	sim_workload_free(&w);
}
END_TEST

START_TEST(test_dvfs_and_threads)
{
	sim_model_t m;
	sim_workload_t w;
	sim_member_t mem[2] = { { 0, 4 }, { 1, 4 } };
	sim_perf_t p[2];
	sim_power_t pw;

	sim_model_default(&m);
	two_apps(&w);
	/* B alone at its 1500 MHz: 5% of its time scales with frequency. */
	ck_assert_int_eq(sim_gang_eval(&m, w.apps, &mem[1], 1, true, p, &pw,
				       &err), 0);
	ck_assert_int_eq(p[0].mhz, 1500);
	ck_assert_double_eq_tol(p[0].fslow, 0.05 * 2200.0 / 1500 + 0.95, 1e-12);
	ck_assert_double_eq_tol(p[0].rate, 1 / (20 * p[0].fslow), 1e-12);
	ck_assert_double_eq_tol(pw.core, 0.43 + 3.85 + 3.16 * 0.8 +
				4 * 4.17 * pow(1500.0 / 2200, 2), 1e-9);
	/* Both, one frequency domain: the highest request (2200) wins. */
	m.freq_rule = SIM_FREQ_DOMAIN_MAX;
	ck_assert_int_eq(sim_gang_eval(&m, w.apps, mem, 2, true, p, &pw, &err),
			 0);
	ck_assert_int_eq(p[0].mhz, 2200);
	ck_assert_int_eq(p[1].mhz, 2200);
	/* ft.B's scaling: A at 7 threads instead of 4. */
	mem[0].threads = 7;
	ck_assert_int_eq(sim_gang_eval(&m, w.apps, mem, 1, false, p, &pw, &err),
			 0);
	ck_assert_double_eq_tol(p[0].tslow, 20.0673 / 28.4949, 1e-12);
	/* Miss-Rate Bound's sample: rand slowed by s shows 5 x (s - 1) more. */
	app(&w, "R", 2, COSCHED_CAT_RAND, 0.01, 2200, 10.0);
	mem[0].threads = 4;
	sim_member_t rb[2] = { { 2, 2 }, { 1, 4 } };
	ck_assert_int_eq(sim_gang_eval(&m, w.apps, rb, 2, false, p, &pw, &err),
			 0);
	ck_assert_double_eq_tol(p[0].slowdown, SIM_CATASTROPHIC_DEFAULT, 1e-12);
	ck_assert_double_eq_tol(p[0].mpki, 0.01 + 5 * (SIM_CATASTROPHIC_DEFAULT - 1),
				1e-12);
	sim_workload_free(&w);
}
END_TEST

START_TEST(test_optimum_small)
{
	sim_model_t m;
	sim_workload_t w;
	sim_ts_conf_t c;
	int g[2], t[2], ng;
	double rate;

	sim_model_default(&m);
	two_apps(&w);
	sim_ts_conf_default(&c);
	/* Together: 1/10.5 + 1/21 per s; apart: (1/10 + 1/20) / 2. */
	ck_assert_int_eq(sim_optimum(&m, &w, &c, g, t, &ng, &rate, &err), 0);
	ck_assert_int_eq(ng, 1);
	ck_assert_int_eq(g[0], g[1]);
	ck_assert_double_eq_tol(rate, 1 / 10.5 + 1 / 21.0, 1e-12);
	/* rand next to mem (catastrophic): apart is better. */
	w.apps[0].cat = COSCHED_CAT_RAND;
	ck_assert(1 / (10 * SIM_CATASTROPHIC_DEFAULT) + 1 / 21.0 <
		  (1 / 10.0 + 1 / 20.0) / 2);
	ck_assert_int_eq(sim_optimum(&m, &w, &c, g, t, &ng, &rate, &err), 0);
	ck_assert_int_eq(ng, 2);
	ck_assert_double_eq_tol(rate, (1 / 10.0 + 1 / 20.0) / 2, 1e-12);
	sim_workload_free(&w);
}
END_TEST

/* The optimum is never worse than any policy, on the 2013 gang-scheduling
 * thesis's workload and on random ones, with and without DVFS. */
START_TEST(test_optimum_bounds_policies)
{
	uint64_t rng = 7;

	for (int trial = 0; trial < 8; trial++) {
		sim_model_t m;
		sim_workload_t w = { 0 };
		sim_ts_conf_t c;
		int g[SIM_OPT_MAX_APPS], t[SIM_OPT_MAX_APPS], ng;
		double rate;

		sim_model_default(&m);
		sim_ts_conf_default(&c);
		c.window_s = 600;
		c.dvfs = trial % 2;
		c.seed = (uint64_t)trial + 1;
		if (trial < 2) {
			ck_assert_int_eq(sim_workload_seed002(&w, 50, &err), 0);
		} else {
			int n = 4 + (int)(sim_rng_next(&rng) % 9);
			for (int i = 0; i < n; i++) {
				sim_app_t a;
				memset(&a, 0, sizeof(a));
				snprintf(a.name, sizeof(a.name), "j%d", i);
				a.threads = 1 + (int)(sim_rng_next(&rng) % 6);
				a.min_threads = a.threads;
				a.max_threads = a.threads +
					(int)(sim_rng_next(&rng) % 3);
				a.solo_s = 5 + 50 * sim_rng_unit(&rng);
				sim_assign_class(&a, &rng, SIM_MIX_BALANCED);
				ck_assert_int_eq(sim_workload_add(&w, &a, &err), 0);
			}
		}
		ck_assert_int_eq(sim_optimum(&m, &w, &c, g, t, &ng, &rate, &err), 0);
		for (int p = 0; p < COSCHED_POLICY_PLACING_COUNT; p++) {
			sim_ts_result_t r;
			ck_assert_int_eq(sim_ts_run(&m, &w, (cosched_policy_t)p, &c,
						    &r, &err), 0);
			ck_assert_msg(r.throughput_h / 3600 <= rate * (1 + 1e-9),
				      "trial %d: %s %.6f above optimum %.6f", trial,
				      cosched_policy_name((cosched_policy_t)p),
				      r.throughput_h / 3600, rate);
			sim_ts_result_free(&r);
		}
		/* The optimum's partition, simulated, gives its rate. */
		{
			sim_ts_result_t r;
			ck_assert_int_eq(sim_ts_run_static(&m, &w, g, t, ng, &c, &r,
							   &err), 0);
			ck_assert_double_eq_tol(r.throughput_h / 3600, rate,
						rate * 1e-9);
			sim_ts_result_free(&r);
		}
		sim_workload_free(&w);
	}
}
END_TEST

/* The default catastrophic factor reproduces the 2013 gang-scheduling
 * thesis's figure: random-access programs run 3.35..4 x GANG's time under
 * Miss-Rate Balance. */
START_TEST(test_seed002_rand_under_mr_balance)
{
	sim_model_t m;
	sim_workload_t w = { 0 };
	sim_ts_conf_t c;
	sim_ts_result_t r, g;
	double rb = 0, rg = 0;

	sim_model_default(&m);
	sim_ts_conf_default(&c);
	c.window_s = 600;
	ck_assert_int_eq(sim_workload_seed002(&w, 50, &err), 0);
	ck_assert_int_eq(sim_ts_run(&m, &w, COSCHED_POLICY_MISS_RATE_BALANCE, &c,
				    &r, &err), 0);
	ck_assert_int_eq(sim_ts_run(&m, &w, COSCHED_POLICY_GANG, &c, &g, &err), 0);
	for (size_t i = 0; i < w.n; i++)
		if (w.apps[i].cat == COSCHED_CAT_RAND) {
			rb += r.fair[i];
			rg += g.fair[i];
		}
	ck_assert(rb / rg >= 3.35 && rb / rg <= 4.0);
	sim_ts_result_free(&r);
	sim_ts_result_free(&g);
	sim_workload_free(&w);
}
END_TEST

START_TEST(test_space_shared_exact)
{
	sim_model_t m;
	sim_workload_t w;
	sim_ss_conf_t c;
	sim_ss_result_t r;

	sim_model_default(&m);
	two_apps(&w);
	sim_ss_conf_default(&c);
	c.nodes = 1;
	c.sockets = 1;
	/* Application-Aware shares the socket: A ends at 10.5 s; B has done
	 * 10.5 / 21 by then and runs the other half alone in 10 s. */
	ck_assert_int_eq(sim_ss_run(&m, &w, SIM_VAR_POLICY,
				    COSCHED_POLICY_APP_AWARE, &c, &r, &err), 0);
	ck_assert_double_eq_tol(r.makespan_s, 20.5, 1e-9);
	ck_assert_double_eq_tol(r.wait_avg_s, 0, 1e-9);
	ck_assert_double_eq_tol(r.fair_avg, (1.05 + 20.5 / 20) / 2, 1e-9);
	ck_assert_double_eq_tol(r.energy_j, P_AB * 10.5 + P_B * 10, 1e-6);
	ck_assert_double_eq_tol(r.util, (4 * 10.5 + 4 * 20.5) / (8 * 20.5), 1e-9);
	/* Bounded slowdown, tau 10 s: A max(1, 10.5 / 10.5), B 20.5 / 20.5. */
	ck_assert_double_eq_tol(r.bsld_avg, 1.0, 1e-9);
	/* Exclusive: B waits for A's node. */
	ck_assert_int_eq(sim_ss_run(&m, &w, SIM_VAR_EXCLUSIVE, COSCHED_POLICY_GANG,
				    &c, &r, &err), 0);
	ck_assert_double_eq_tol(r.makespan_s, 30, 1e-9);
	ck_assert_double_eq_tol(r.wait_avg_s, 5, 1e-9);
	ck_assert_double_eq_tol(r.bsld_avg, (1.0 + 30.0 / 20) / 2, 1e-9);
	ck_assert_double_eq_tol(r.energy_j, P_A * 10 + P_B * 20, 1e-6);
	/* Contention-blind cores in order: shares like Application-Aware here. */
	ck_assert_int_eq(sim_ss_run(&m, &w, SIM_VAR_BLIND, COSCHED_POLICY_GANG,
				    &c, &r, &err), 0);
	ck_assert_double_eq_tol(r.makespan_s, 20.5, 1e-9);
	sim_workload_free(&w);
}
END_TEST

/* A workload text -> the error message, or "" when accepted. */
static const char *parse(const char *text)
{
	static char msg[COSCHED_ERROR_MSG_LEN];
	sim_workload_t w = { 0 };
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	ck_assert_ptr_nonnull(f);
	rc = sim_workload_parse(f, "w", 8, &w, &err);
	fclose(f);
	snprintf(msg, sizeof(msg), "%s", rc < 0 ? err.msg : "");
	sim_workload_free(&w);
	return msg;
}

START_TEST(test_refusals)
{
	sim_workload_t w = { 0 };
	const char *ok = "# comment\n\ncpu1 4 0.01 2200 cpu 50 # end\n"
		"m 3 5.0 1500 mem 40 submit=10 min=2 max=5 count=3\n";
	FILE *f = fmemopen((void *)ok, strlen(ok), "r");

	ck_assert_int_eq(sim_workload_parse(f, "w", 8, &w, &err), 0);
	fclose(f);
	ck_assert_int_eq(w.n, 4);
	ck_assert_str_eq(w.apps[1].name, "m.1");
	ck_assert_int_eq(w.apps[3].min_threads, 2);
	ck_assert_int_eq(w.apps[3].max_threads, 5);
	ck_assert_double_eq(w.apps[3].submit_s, 10);
	ck_assert_int_eq(w.apps[3].line, 4);
	sim_workload_free(&w);

	ck_assert_str_eq(parse("a 0 1 2200 cpu 10\n"),
			 "w:1: field threads: \"0\" out of range (1..8)");
	ck_assert_str_eq(parse("a 4 1 2200 cpu 10\nb 9 1 2200 cpu 10\n"),
			 "w:2: field threads: \"9\" out of range (1..8)");
	ck_assert_str_eq(parse("a 4 x 2200 cpu 10\n"),
			 "w:1: field mpki: \"x\" is not a number");
	ck_assert_str_eq(parse("a 4 -1 2200 cpu 10\n"),
			 "w:1: field mpki: \"-1\" out of range (0..1000)");
	ck_assert_str_eq(parse("a 4 1 2.2 cpu 10\n"),
			 "w:1: field mhz: \"2.2\" is not an integer");
	ck_assert_str_eq(parse("a 4 1 2200 fast 10\n"),
			 "w:1: field category: \"fast\" is not one of cpu, lim, "
			 "mem, rand");
	ck_assert_str_eq(parse("a 4 1 2200 cpu 0\n"),
			 "w:1: field solo_s: \"0\" out of range (>0..1e+09)");
	ck_assert_str_eq(parse("\n\na 4 1\n"),
			 "w:3: field mhz: missing (a line is NAME THREADS MPKI "
			 "MHZ CATEGORY SOLO_S [key=value...])");
	ck_assert_str_eq(parse("a 4 1 2200 cpu 10 color=red\n"),
			 "w:1: field color: unknown key \"color\" (submit, min, "
			 "max, count)");
	ck_assert_str_eq(parse("a 4 1 2200 cpu 10 min=5\n"),
			 "w:1: field min: 5 is above threads 4");
	ck_assert_str_eq(parse("a 4 1 2200 cpu 10 submit=-3\n"),
			 "w:1: field submit: \"-3\" out of range (0..1e+12)");
	ck_assert_str_eq(parse("# nothing\n"), "w: no application");
}
END_TEST

/* --mix: the share of each category among 4000 generated jobs is the
 * mix's (cpu, lim, mem, rand) within 3 points; the arrivals and sizes do
 * not depend on the mix. */
START_TEST(test_generator_mix)
{
	static const double want[SIM_MIX_COUNT][4] = {
		{ 0.25, 0.25, 0.25, 0.25 },
		{ 0.125, 0.25, 0.5, 0.125 },
		{ 0.5, 0.125, 0.125, 0.25 },
	};
	sim_workload_t w[SIM_MIX_COUNT] = { { 0 } };

	for (int m = 0; m < SIM_MIX_COUNT; m++) {
		size_t count[4] = { 0 };
		ck_assert_int_eq(sim_lublin_generate(4000, 16, 7, (sim_mix_t) m,
						     &w[m], &err), 0);
		for (size_t i = 0; i < w[m].n; i++) {
			ck_assert_int_lt(w[m].apps[i].cat, 4);
			count[w[m].apps[i].cat]++;
		}
		for (int c = 0; c < 4; c++)
			ck_assert_msg(fabs(count[c] / 4000.0 - want[m][c]) < 0.03,
				      "mix %s category %d: %zu of 4000",
				      sim_mix_names[m], c, count[c]);
		if (m > 0)
			for (size_t i = 0; i < w[m].n; i++) {
				ck_assert_double_eq(w[m].apps[i].submit_s,
						    w[0].apps[i].submit_s);
				ck_assert_int_eq(w[m].apps[i].threads,
						 w[0].apps[i].threads);
			}
	}
	for (int m = 0; m < SIM_MIX_COUNT; m++)
		sim_workload_free(&w[m]);
}
END_TEST

START_TEST(test_generator)
{
	sim_workload_t a = { 0 }, b = { 0 };

	ck_assert_int_eq(sim_lublin_generate(2000, 16, 3, SIM_MIX_BALANCED, &a, &err), 0);
	ck_assert_int_eq(sim_lublin_generate(2000, 16, 3, SIM_MIX_BALANCED, &b, &err), 0);
	ck_assert_int_eq(a.n, 2000);
	ck_assert_mem_eq(a.apps, b.apps, 2000 * sizeof(sim_app_t));
	int serial = 0;
	for (size_t i = 0; i < a.n; i++) {
		ck_assert(a.apps[i].threads >= 1 && a.apps[i].threads <= 16);
		ck_assert(a.apps[i].solo_s >= 1);
		if (i)
			ck_assert(a.apps[i].submit_s >= a.apps[i - 1].submit_s);
		serial += a.apps[i].threads == 1;
	}
	/* The model's serial share is 0.24 (some parallel jobs round to 1). */
	ck_assert(serial > 2000 * 0.2 && serial < 2000 * 0.45);
	ck_assert_int_eq(sim_scale_load(&a, 0, 64, 0.5, &err), 0);
	sim_workload_free(&a);
	sim_workload_free(&b);
}
END_TEST

/* The model of "Dynamic memory placement of applications on a NUMA system"
 * (NTUA thesis, 2020) by hand: r(bw) goes through the two measured remote
 * points (lbm 3.988, mcf 1.772); placement mixes are linear in the
 * fraction and the distance. */
START_TEST(test_seed000_model)
{
	sim_numa_conf_t c;
	cosched_victim_proc_t p;
	sim_numa_result_t a, b;

	sim_numa_conf_default(&c);
	ck_assert(fabs(sim_numa_remote(15.6) - 3.988) < 0.005);
	ck_assert(fabs(sim_numa_remote(2.3) - 1.772) < 0.005);
	memset(&p, 0, sizeof(p));
	p.cpu_node = 0;
	p.bandwidth = 2.3;
	p.pages[0] = 100;
	ck_assert(fabs(sim_numa_slowdown(&c, &p) - 1.0) < 1e-12);
	/* Half on node 3 (distance 30): 0.5 + 0.5 x (1 + 0.772 x 20/11). */
	p.pages[3] = 100;
	ck_assert(fabs(sim_numa_slowdown(&c, &p) -
		       (0.5 + 0.5 * (1 + (sim_numa_remote(2.3) - 1) * 20 / 11)))
		  < 1e-12);
	/* One run: Best never loses to Worst on the same instance, and
	 * every normalised time is at least 1. */
	c.procs = 12;
	c.requests = 20;
	ck_assert_int_eq(sim_numa_run(&c, COSCHED_VICTIM_BEST, 0, 1, &a, &err),
			 0);
	ck_assert_int_eq(sim_numa_run(&c, COSCHED_VICTIM_WORST, 0, 1, &b, &err),
			 0);
	ck_assert(a.geomean <= b.geomean);
	ck_assert_uint_eq(a.asked, b.asked);
	for (size_t i = 0; i < a.n; i++)
		ck_assert(a.norm[i] >= 1.0 - 1e-12 && b.norm[i] >= 1.0 - 1e-12);
	sim_numa_result_free(&a);
	sim_numa_result_free(&b);
}
END_TEST

/* One completion event per running job: the heap never holds more events
 * than the cluster has cores (one-core jobs at most fill them), however
 * often co-runners are re-rated.  (Versioned events left stale ones
 * behind: several per job.) */
START_TEST(test_space_shared_heap_bounded)
{
	sim_model_t m;
	sim_workload_t w = { 0 };
	sim_ss_conf_t c;
	sim_ss_result_t r;

	sim_model_default(&m);
	sim_ss_conf_default(&c);
	c.nodes = 3;
	ck_assert_int_eq(sim_lublin_generate(3000, c.cores, 5, SIM_MIX_BALANCED, &w, &err), 0);
	ck_assert_int_eq(sim_scale_load(&w, 0, 3.0 * 2 * 8, 0.9, &err), 0);
	ck_assert_int_eq(sim_ss_run(&m, &w, SIM_VAR_BLIND,
				    COSCHED_POLICY_GANG, &c, &r, &err), 0);
	ck_assert_uint_eq(r.jobs, 3000);
	/* Co-runners were re-rated many times... */
	ck_assert(r.occ_avg > 1.5);
	ck_assert(r.pushes > 2 * r.jobs);
	/* ...and the heap never held more than the running jobs. */
	ck_assert_uint_le(r.heap_max, 3 * 2 * 8);
	sim_workload_free(&w);
}
END_TEST

/* Lublin and Feitelson's model, its shape over many jobs against the
 * paper's constants written here again: the serial share, the mean of
 * ln(run time) given each job's size (hyper-gamma), the mean of
 * ln(inter-arrival), power-of-two sizes; the same seed the same jobs. */
START_TEST(test_generator_shape)
{
	const size_t n = 20000;
	sim_workload_t w = { 0 }, same = { 0 }, other = { 0 };
	double serial = 0, lrt = 0, want_lrt = 0, lgap = 0, par = 0, pow2 = 0;

	ck_assert_int_eq(sim_lublin_generate(n, 16, 11, SIM_MIX_BALANCED, &w, &err), 0);
	for (size_t i = 0; i < n; i++) {
		const sim_app_t *a = &w.apps[i];
		int t = a->threads;
		double p = fmin(1, fmax(0, -0.0054 * t + 0.78));
		ck_assert(t >= 1 && t <= 16);
		serial += t == 1;
		if (t > 1) {
			par++;
			pow2 += (t & (t - 1)) == 0;
		}
		lrt += log(a->solo_s);
		want_lrt += p * 4.2 * 0.94 + (1 - p) * 312 * 0.03;
		if (i)
			lgap += log(a->submit_s - w.apps[i - 1].submit_s);
	}
	/* 0.24 serial; standard error 0.003 at 20,000 jobs. */
	ck_assert_msg(fabs(serial / n - 0.24) < 0.015, "serial %g", serial / n);
	/* Standard error about 0.02 for the log run time, 0.011 for the log
	 * gap (Gamma(10.23, 0.4871): mean 4.983, sd 1.56). */
	ck_assert_msg(fabs(lrt / n - want_lrt / n) < 0.1, "ln run %g, want %g",
		      lrt / n, want_lrt / n);
	ck_assert_msg(fabs(lgap / (n - 1) - 10.23 * 0.4871) < 0.06,
		      "ln gap %g", lgap / (n - 1));
	/* 75% rounded to a power of two, and some of the rest are one. */
	ck_assert_msg(pow2 / par > 0.75 && pow2 / par < 0.95, "pow2 %g",
		      pow2 / par);
	ck_assert_int_eq(sim_lublin_generate(n, 16, 11, SIM_MIX_BALANCED, &same, &err), 0);
	ck_assert_mem_eq(w.apps, same.apps, n * sizeof(sim_app_t));
	ck_assert_int_eq(sim_lublin_generate(n, 16, 12, SIM_MIX_BALANCED, &other, &err), 0);
	ck_assert(memcmp(w.apps, other.apps, n * sizeof(sim_app_t)) != 0);
	/* Scaled to a load: asked core-seconds over the cores and the span
	 * of arrivals is the load. */
	double asked = 0;
	ck_assert_int_eq(sim_scale_load(&w, 0, 64, 0.7, &err), 0);
	for (size_t i = 0; i < n; i++)
		asked += w.apps[i].threads * w.apps[i].solo_s;
	ck_assert(fabs(asked / (64 * w.apps[n - 1].submit_s) - 0.7) < 1e-9);
	sim_workload_free(&w);
	sim_workload_free(&same);
	sim_workload_free(&other);
}
END_TEST

static char *swf_file(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/test_sim_swf.XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* SWF (Parallel Workloads Archive, version 2.2): 18 fields; 1 job number,
 * 2 submit time, 4 run time, 5 allocated processors, else 8 requested;
 * -1 unknown; ';' a header comment. */
START_TEST(test_swf_fields)
{
	sim_workload_t w = { 0 }, w2 = { 0 };
	size_t skipped, clipped;
	const char *ok =
		"; Version: 2.2\n"
		"; MaxProcs: 16\n"
		"\n"
		"1 0 5 100 4 -1 -1 4 120 -1 1 3 1 -1 1 -1 -1 -1\n"
		"2 30 0 250 -1 -1 -1 2 300 -1 1 3 1 -1 1 -1 -1 -1\n"
		"3 45 1 -1 8 -1 -1 8 60 -1 0 3 1 -1 1 -1 -1 -1\n"
		"4 60 0 40 32 -1 -1 32 60 -1 1 3 1 -1 1 -1 -1 -1 ; wide\n"
		"5 70 0 40 -1 -1 -1 -1 60 -1 1 3 1 -1 1 -1 -1 -1\n";
	char *path = swf_file(ok);

	ck_assert_int_eq(sim_swf_load(path, 16, 1, SIM_MIX_BALANCED, &w, &skipped, &clipped,
				      &err), 0);
	/* Job 3 has no run time, job 5 no processor count: skipped. */
	ck_assert_uint_eq(w.n, 3);
	ck_assert_uint_eq(skipped, 2);
	ck_assert_uint_eq(clipped, 1);
	ck_assert_str_eq(w.apps[0].name, "swf1");
	ck_assert(w.apps[0].submit_s == 0 && w.apps[0].solo_s == 100);
	ck_assert_int_eq(w.apps[0].threads, 4);	/* field 5 */
	ck_assert_int_eq(w.apps[0].line, 4);
	ck_assert_str_eq(w.apps[1].name, "swf2");
	ck_assert(w.apps[1].submit_s == 30 && w.apps[1].solo_s == 250);
	ck_assert_int_eq(w.apps[1].threads, 2);	/* field 8: 5 unknown */
	ck_assert_int_eq(w.apps[2].threads, 16);	/* 32 clipped to 16 */
	/* The category drawn for each job depends on the seed only. */
	ck_assert_int_eq(sim_swf_load(path, 16, 1, SIM_MIX_BALANCED, &w2, &skipped, &clipped,
				      &err), 0);
	for (size_t i = 0; i < w.n; i++) {
		ck_assert_int_eq(w.apps[i].cat, w2.apps[i].cat);
		ck_assert(w.apps[i].mpki == w2.apps[i].mpki);
	}
	sim_workload_free(&w);
	sim_workload_free(&w2);
	unlink(path);
}
END_TEST

static void swf_refused(const char *text, const char *want)
{
	sim_workload_t w = { 0 };
	size_t skipped, clipped;
	char *path = swf_file(text), msg[600];

	ck_assert_int_eq(sim_swf_load(path, 16, 1, SIM_MIX_BALANCED, &w, &skipped, &clipped,
				      &err), -1);
	snprintf(msg, sizeof(msg), "%s", err.msg);
	unlink(path);
	sim_workload_free(&w);
	ck_assert_msg(strstr(msg, path) && strstr(msg, want),
		      "\"%s\" lacks the file or \"%s\"", msg, want);
}

START_TEST(test_swf_refused)
{
	const char *good = "1 0 5 100 4 -1 -1 4 120 -1 1 3 1 -1 1 -1 -1 -1\n";
	char text[512];

	/* A field that is not a number: the line and the field. */
	snprintf(text, sizeof(text), "%s%s", good,
		 "2 30 0 abc 4 -1 -1 4 120 -1 1 3 1 -1 1 -1 -1 -1\n");
	swf_refused(text, ":2: field 4: \"abc\" is not a number");
	/* Too few and too many fields: the line and the count. */
	snprintf(text, sizeof(text), ";c\n%s%s", good,
		 "2 30 0 10 4 -1 -1 4 120 -1 1 3 1 -1 1 -1 -1\n");
	swf_refused(text, ":3: 17 fields, SWF has 18");
	snprintf(text, sizeof(text), "%s%s", good,
		 "2 30 0 10 4 -1 -1 4 120 -1 1 3 1 -1 1 -1 -1 -1 7\n");
	swf_refused(text, ":2: 19 fields, SWF has 18");
	/* Nothing usable. */
	swf_refused("; only a header\n", "no usable job");
}
END_TEST

/* --draw: every drawn field inside its documented range (cosched-sim(1),
 * DRAWN WORKLOADS) over many seeds, every count and category reached,
 * and the same seed giving the same workload. */
START_TEST(test_draw)
{
	static const double lo[] = { 0.0, 1.5, 5.0, 0.0 };
	static const double hi[] = { 0.1, 2.0, 6.0, 0.1 };
	bool seen_n[SIM_DRAW_MAX_APPS + 1] = { false };
	bool seen_t[SIM_DRAW_MAX_THREADS + 1] = { false };
	size_t per_cat[COSCHED_CAT_COUNT] = { 0 }, total = 0;
	double solo_lo = INFINITY, solo_hi = 0;
	cosched_error_t err;

	for (uint64_t seed = 1; seed <= 300; seed++) {
		sim_workload_t w = { 0 }, again = { 0 };

		ck_assert_int_eq(sim_workload_draw(&w, seed, SIM_MIX_BALANCED,
						   &err), 0);
		ck_assert(w.n >= SIM_DRAW_MIN_APPS && w.n <= SIM_DRAW_MAX_APPS);
		seen_n[w.n] = true;
		for (size_t i = 0; i < w.n; i++) {
			const sim_app_t *a = &w.apps[i];
			ck_assert(a->cat >= 0 && a->cat < COSCHED_CAT_COUNT);
			ck_assert(a->mpki >= lo[a->cat] && a->mpki <= hi[a->cat]);
			ck_assert_int_eq(a->mhz, a->cat == COSCHED_CAT_MEM ?
					 1500 : 2200);
			ck_assert(a->threads >= SIM_DRAW_MIN_THREADS &&
				  a->threads <= SIM_DRAW_MAX_THREADS);
			ck_assert_int_eq(a->min_threads, a->threads);
			ck_assert_int_eq(a->max_threads, a->threads);
			ck_assert(a->solo_s >= SIM_DRAW_MIN_SOLO_S &&
				  a->solo_s <= SIM_DRAW_MAX_SOLO_S);
			ck_assert(a->submit_s == 0);
			seen_t[a->threads] = true;
			per_cat[a->cat]++;
			total++;
			solo_lo = fmin(solo_lo, a->solo_s);
			solo_hi = fmax(solo_hi, a->solo_s);
		}
		ck_assert_int_eq(sim_workload_draw(&again, seed,
						   SIM_MIX_BALANCED, &err), 0);
		ck_assert_uint_eq(again.n, w.n);
		ck_assert(memcmp(again.apps, w.apps, w.n * sizeof(*w.apps)) == 0);
		sim_workload_free(&w);
		sim_workload_free(&again);
	}
	for (int n = SIM_DRAW_MIN_APPS; n <= SIM_DRAW_MAX_APPS; n++)
		ck_assert_msg(seen_n[n], "no draw of %d programs", n);
	for (int t = SIM_DRAW_MIN_THREADS; t <= SIM_DRAW_MAX_THREADS; t++)
		ck_assert_msg(seen_t[t], "no program of %d threads", t);
	/* Balanced: each category a quarter, give or take. */
	for (int c = 0; c < COSCHED_CAT_COUNT; c++)
		ck_assert_msg(per_cat[c] > total / 5 && per_cat[c] < total / 3,
			      "category %d: %zu of %zu", c, per_cat[c], total);
	/* The whole range is used, not a corner of it. */
	ck_assert(solo_lo < 30 && solo_hi > 85);
	/* Another seed, another workload. */
	{
		sim_workload_t a = { 0 }, b = { 0 };
		ck_assert_int_eq(sim_workload_draw(&a, 1, SIM_MIX_BALANCED,
						   &err), 0);
		ck_assert_int_eq(sim_workload_draw(&b, 2, SIM_MIX_BALANCED,
						   &err), 0);
		ck_assert(a.n != b.n ||
			  memcmp(a.apps, b.apps, a.n * sizeof(*a.apps)) != 0);
		sim_workload_free(&a);
		sim_workload_free(&b);
	}
}
END_TEST

/* min_slowdown's time-shared plan is never below a seed policy's plan
 * under the decision core's model, on 100 drawn workloads (its greedy
 * plan alone was below on half of them), with the simulator's table as
 * the site's, as cosched-sim runs it. */
START_TEST(test_draw_plan_never_below_seed)
{
	static const cosched_policy_t seeds[] = {
		COSCHED_POLICY_GANG, COSCHED_POLICY_GREEDY_THREAD,
		COSCHED_POLICY_MISS_RATE_BALANCE,
		COSCHED_POLICY_MISS_RATE_BOUND, COSCHED_POLICY_APP_AWARE,
	};
	sim_model_t m;
	cosched_gang_params_t p;
	cosched_error_t err;

	sim_model_default(&m);
	cosched_gang_params_init(&p, 8);
	p.pref = &m.interf.pref;
	p.interference = &m.interf;
	for (uint64_t seed = 1; seed <= 100; seed++) {
		sim_workload_t w = { 0 };
		cosched_gang_job_t jobs[SIM_DRAW_MAX_APPS];
		cosched_gang_plan_t plan;
		double ours;

		ck_assert_int_eq(sim_workload_draw(&w, seed, SIM_MIX_BALANCED,
						   &err), 0);
		for (size_t i = 0; i < w.n; i++)
			sim_gang_job(&w.apps[i], i, &jobs[i]);
		ck_assert_int_eq(cosched_gang_plan(COSCHED_POLICY_MIN_SLOWDOWN,
						   &p, jobs, w.n, &plan, &err), 0);
		ours = cosched_gang_plan_value(&p, jobs, w.n, &plan);
		cosched_gang_plan_free(&plan);
		ck_assert(ours > 0);
		for (size_t k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++) {
			double v;
			ck_assert_int_eq(cosched_gang_plan(seeds[k], &p, jobs,
							   w.n, &plan, &err), 0);
			v = cosched_gang_plan_value(&p, jobs, w.n, &plan);
			cosched_gang_plan_free(&plan);
			ck_assert_msg(ours >= v * (1 - 1e-12),
				      "seed %llu: %.6f below %s's %.6f",
				      (unsigned long long) seed, ours,
				      cosched_policy_name(seeds[k]), v);
		}
		sim_workload_free(&w);
	}
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_one_gang_exact);
	tcase_add_test(tc, test_two_gangs_exact);
	tcase_add_test(tc, test_dvfs_and_threads);
	tcase_add_test(tc, test_optimum_small);
	tcase_add_test(tc, test_optimum_bounds_policies);
	tcase_add_test(tc, test_seed002_rand_under_mr_balance);
	tcase_add_test(tc, test_space_shared_exact);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_generator);
	tcase_add_test(tc, test_seed000_model);
	tcase_add_test(tc, test_generator_shape);
	tcase_add_test(tc, test_generator_mix);
	tcase_add_test(tc, test_swf_fields);
	tcase_add_test(tc, test_swf_refused);
	tcase_add_test(tc, test_space_shared_heap_bounded);
	tcase_add_test(tc, test_draw);
	tcase_add_test(tc, test_draw_plan_never_below_seed);
	suite_add_tcase(s, tc);
	return s;
}
