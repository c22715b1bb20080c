/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_power.c - thread count and frequency choices
 * (src/libcosched/model/power.c): "Power-aware gang scheduling on multicore"
 * (NTUA thesis, 2013), "Threads vs EDP" and "DVFS model". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"

#include "src/libcosched/model/power.h"

static cosched_error_t err;

/* The 2013 gang-scheduling thesis, "Threads vs EDP": ft.B on 1..8 cores. */
static const double ftb_time[] = { 80.8083, 44.2010, 32.8540, 28.4949,
				   23.9559, 21.1219, 20.0673, 21.0738 };
static const double ftb_energy[] = { 2352.26, 1528.45, 1301.77, 1241.17,
				     1144.55, 1088.20, 1110.99, 1226.19 };

static void ftb_points(cosched_edp_point_t *pts)
{
	for (int i = 0; i < 8; i++) {
		memset(&pts[i], 0, sizeof(pts[i]));
		pts[i].threads = i + 1;
		pts[i].freq_khz = 2200000;
		pts[i].time_s = ftb_time[i];
		pts[i].energy_j = ftb_energy[i];
		pts[i].samples = 1;
	}
}

START_TEST(test_ftb_min_edp)
{
	cosched_edp_point_t pts[8];
	int threads = 0;

	ftb_points(pts);
	/* the thesis's EDP row */
	ck_assert_double_eq_tol(cosched_power_point_edp(&pts[6]), 22294.6, 0.1);
	ck_assert_double_eq_tol(cosched_power_point_edp(&pts[5]), 22984.9, 0.1);
	ck_assert_int_eq(cosched_power_best_threads(pts, 8, 0.0, &threads, &err), 0);
	ck_assert_int_eq(threads, 7);
	/* 6 threads is 3.1% above the minimum, 5 threads 23.0%. */
	ck_assert_int_eq(cosched_power_best_threads(pts, 8, 0.02, &threads, &err), 0);
	ck_assert_int_eq(threads, 7);
	ck_assert_int_eq(cosched_power_best_threads(pts, 8, 0.05, &threads, &err), 0);
	ck_assert_int_eq(threads, 6);
	ck_assert_int_eq(cosched_power_best_threads(pts, 8, 0.20, &threads, &err), 0);
	ck_assert_int_eq(threads, 6);
	ck_assert_int_eq(cosched_power_best_threads(pts, 8, 0.25, &threads, &err), 0);
	ck_assert_int_eq(threads, 5);
	/* order of the points does not matter */
	cosched_edp_point_t rev[8];
	for (int i = 0; i < 8; i++)
		rev[i] = pts[7 - i];
	ck_assert_int_eq(cosched_power_best_threads(rev, 8, 0.0, &threads, &err), 0);
	ck_assert_int_eq(threads, 7);
	/* unknown energy is skipped */
	pts[6].energy_j = NAN;
	ck_assert_int_eq(cosched_power_best_threads(pts, 8, 0.0, &threads, &err), 0);
	ck_assert_int_eq(threads, 6);
}
END_TEST

/* Greedy Thread's "keeps scaling up to" from the same table. */
START_TEST(test_ftb_scaling)
{
	cosched_edp_point_t pts[8];
	int threads = 0;

	ftb_points(pts);
	ck_assert_int_eq(cosched_power_scaling_threads(pts, 8, 0.0, &threads, &err), 0);
	ck_assert_int_eq(threads, 7);	/* 8 threads is slower than 7 */
	/* 6 -> 7 gains 5.0%, 5 -> 6 gains 11.8% */
	ck_assert_int_eq(cosched_power_scaling_threads(pts, 8, 0.06, &threads, &err), 0);
	ck_assert_int_eq(threads, 6);
	ck_assert_int_eq(cosched_power_scaling_threads(pts, 8, 0.12, &threads, &err), 0);
	ck_assert_int_eq(threads, 5);	/* 4 -> 5 gains 15.9% */
	ck_assert_int_eq(cosched_power_scaling_threads(pts, 8, 1.0, &threads, &err), -1);
	ck_assert_str_eq(err.msg, "min_gain: must be in [0, 1), got 1");
}
END_TEST

/* A profile mixing runs at an unknown frequency (0) with a sweep: a fast
 * 4-thread run whose frequency was not recorded must not become the thread
 * count, since no frequency can then be chosen for it. */
START_TEST(test_unknown_frequency_points)
{
	cosched_edp_point_t pts[] = {
		{ 4, 0, 5.0, 100, 1 },		/* EDP   500, frequency unknown */
		{ 8, 2200000, 10.0, 950, 1 },	/* EDP  9500 */
		{ 8, 1500000, 10.5, 800, 1 },	/* EDP  8400 */
		{ 2, 2200000, 30.0, 700, 1 },	/* EDP 21000 */
	};
	cosched_power_choice_t c;
	int threads = 0;

	ck_assert_int_eq(cosched_power_best_threads(pts, 4, 0.0, &threads, &err), 0);
	ck_assert_int_eq(threads, 8);
	ck_assert_int_eq(cosched_power_choose(pts, 4, COSCHED_POWER_EDP, 0, 0, &c,
					      &err), 0);
	ck_assert_int_eq(c.threads, 8);
	ck_assert_int_eq(c.freq_khz, 1500000);
	/* Scaling reads the same points: 2 -> 8 threads cuts 30 s to 10 s. */
	ck_assert_int_eq(cosched_power_scaling_threads(pts, 4, 0.0, &threads, &err), 0);
	ck_assert_int_eq(threads, 8);

	/* Energy measured only at the unknown frequency: that run is all
	 * there is to rank. */
	pts[1].energy_j = pts[2].energy_j = pts[3].energy_j = NAN;
	ck_assert_int_eq(cosched_power_best_threads(pts, 4, 0.0, &threads, &err), 0);
	ck_assert_int_eq(threads, 4);

	/* No frequency anywhere: the thread count still holds (ft.B). */
	cosched_edp_point_t ftb[8];
	ftb_points(ftb);
	for (int i = 0; i < 8; i++)
		ftb[i].freq_khz = 0;
	ck_assert_int_eq(cosched_power_choose(ftb, 8, COSCHED_POWER_EDP, 0, 0, &c,
					      &err), 0);
	ck_assert_int_eq(c.threads, 7);
	ck_assert_int_eq(c.freq_khz, 0);
	ck_assert_int_eq(cosched_power_scaling_threads(ftb, 8, 0.0, &threads, &err), 0);
	ck_assert_int_eq(threads, 7);
}
END_TEST

/* A memory-bound job at 8 threads over four frequencies. */
static const cosched_edp_point_t mem_pts[] = {
	{ 8, 1200000, 12.0, 900, 1 },	/* EDP 10800 */
	{ 8, 1500000, 10.5, 800, 1 },	/* EDP  8400 */
	{ 8, 1800000, 10.2, 850, 1 },	/* EDP  8670 */
	{ 8, 2200000, 10.0, 950, 1 },	/* EDP  9500 */
	{ 4, 2200000, 19.0, 1200, 1 },	/* EDP 22800 */
};

START_TEST(test_freq_policies)
{
	long f = 0;

	ck_assert_int_eq(cosched_power_choose_freq(mem_pts, 5, 8,
		COSCHED_POWER_PERFORMANCE, 0, &f, &err), 0);
	ck_assert_int_eq(f, 2200000);
	ck_assert_int_eq(cosched_power_choose_freq(mem_pts, 5, 8,
		COSCHED_POWER_EDP, 0, &f, &err), 0);
	ck_assert_int_eq(f, 1500000);
	/* energy: lowest energy whose time is within the slowdown of the
	 * highest frequency's 10.0 s */
	ck_assert_int_eq(cosched_power_choose_freq(mem_pts, 5, 8,
		COSCHED_POWER_ENERGY, 10.0, &f, &err), 0);
	ck_assert_int_eq(f, 1500000);	/* <= 11.0 s: 800 J */
	ck_assert_int_eq(cosched_power_choose_freq(mem_pts, 5, 8,
		COSCHED_POWER_ENERGY, 3.0, &f, &err), 0);
	ck_assert_int_eq(f, 1800000);	/* <= 10.3 s: 850 J */
	ck_assert_int_eq(cosched_power_choose_freq(mem_pts, 5, 8,
		COSCHED_POWER_ENERGY, 1.0, &f, &err), 0);
	ck_assert_int_eq(f, 2200000);	/* <= 10.1 s: only the top */
	ck_assert_int_eq(cosched_power_choose_freq(mem_pts, 5, 8,
		COSCHED_POWER_ENERGY, 25.0, &f, &err), 0);
	ck_assert_int_eq(f, 1500000);	/* 1.2 GHz costs more energy */

	cosched_power_choice_t c;
	ck_assert_int_eq(cosched_power_choose(mem_pts, 5, COSCHED_POWER_EDP, 0, 0,
					      &c, &err), 0);
	ck_assert_int_eq(c.threads, 8);
	ck_assert_int_eq(c.freq_khz, 1500000);
	ck_assert_double_eq(c.time_s, 10.5);
	ck_assert_double_eq(c.energy_j, 800);

	ck_assert_int_eq(cosched_power_choose_freq(mem_pts, 5, 3,
		COSCHED_POWER_EDP, 0, &f, &err), -1);
	ck_assert_str_eq(err.msg, "points: no point at 3 threads with a known frequency");
}
END_TEST

/* The 2013 gang-scheduling thesis, "DVFS model", Merkel & Bellosa at
 * 2.2 GHz. */
START_TEST(test_merkel_bellosa)
{
	static const long seed_list[] = { 1200000, 1300000, 1400000, 1500000,
		1600000, 1700000, 1800000, 1900000, 2000000, 2100000, 2200000 };
	double factor;
	long f;
	bool dvfs;

	ck_assert_int_eq(cosched_power_mb_factor(0.6, &factor, &err), 0);
	ck_assert_double_eq_tol(factor, 0.92, 1e-12);
	ck_assert_int_eq(cosched_power_mb_factor(0.8, &factor, &err), 0);
	ck_assert_double_eq_tol(factor, 0.76, 1e-12);
	ck_assert_int_eq(cosched_power_mb_factor(1.0, &factor, &err), 0);
	ck_assert_double_eq_tol(factor, 0.6, 1e-12);

	ck_assert_int_eq(cosched_power_mb_freq(0.6, 2200000, NULL, 0, &f, &dvfs, &err), 0);
	ck_assert_int_eq(f, 2024000);
	ck_assert(dvfs);
	ck_assert_int_eq(cosched_power_mb_freq(0.8, 2200000, NULL, 0, &f, &dvfs, &err), 0);
	ck_assert_int_eq(f, 1672000);
	ck_assert_int_eq(cosched_power_mb_freq(1.0, 2200000, NULL, 0, &f, &dvfs, &err), 0);
	ck_assert_int_eq(f, 1320000);
	/* factor >= 1: no DVFS */
	ck_assert_int_eq(cosched_power_mb_freq(0.5, 2200000, NULL, 0, &f, &dvfs, &err), 0);
	ck_assert_int_eq(f, 2200000);
	ck_assert(!dvfs);
	ck_assert_int_eq(cosched_power_mb_freq(0.3, 2200000, NULL, 0, &f, &dvfs, &err), 0);
	ck_assert_int_eq(f, 2200000);
	ck_assert(!dvfs);
	ck_assert_int_eq(cosched_power_mb_freq(0.0, 2200000, NULL, 0, &f, &dvfs, &err), 0);
	ck_assert(!dvfs);

	/* Snapped to the thesis's 0.1 GHz list (max taken from the list):
	 * 2.0, 1.7, 1.3 GHz, the thesis's measured STREAM minima. */
	ck_assert_int_eq(cosched_power_mb_freq(0.6, 0, seed_list, 11, &f, &dvfs, &err), 0);
	ck_assert_int_eq(f, 2000000);
	ck_assert_int_eq(cosched_power_mb_freq(0.8, 0, seed_list, 11, &f, &dvfs, &err), 0);
	ck_assert_int_eq(f, 1700000);
	ck_assert_int_eq(cosched_power_mb_freq(1.0, 0, seed_list, 11, &f, &dvfs, &err), 0);
	ck_assert_int_eq(f, 1300000);
	ck_assert(dvfs);
	/* never below the lowest offered */
	static const long two[] = { 2200000, 1800000 };
	ck_assert_int_eq(cosched_power_mb_freq(1.0, 0, two, 2, &f, &dvfs, &err), 0);
	ck_assert_int_eq(f, 1800000);
	/* a tie goes to the higher frequency: 0.75 -> 0.8 x 2.2 = 1.76 GHz,
	 * midway between 1.72 and 1.80 */
	static const long tie[] = { 1720000, 1800000, 2200000 };
	ck_assert_int_eq(cosched_power_mb_freq(0.75, 0, tie, 3, &f, &dvfs, &err), 0);
	ck_assert_int_eq(f, 1800000);
}
END_TEST

START_TEST(test_estimate)
{
	double t, e;

	ck_assert(cosched_power_estimate(mem_pts, 5, 8, 2000000, &t, &e));
	ck_assert_double_eq_tol(t, 10.1, 1e-12);
	ck_assert_double_eq_tol(e, 900, 1e-9);
	ck_assert(cosched_power_estimate(mem_pts, 5, 8, 1500000, &t, &e));
	ck_assert_double_eq(t, 10.5);
	ck_assert(!cosched_power_estimate(mem_pts, 5, 8, 2400000, &t, &e));
	ck_assert(!cosched_power_estimate(mem_pts, 5, 4, 2000000, &t, &e));
	ck_assert(!cosched_power_estimate(NULL, 0, 8, 2000000, &t, &e));
}
END_TEST

/* A CPU-bound job: time falls in proportion to frequency. */
static const cosched_edp_point_t cpu_pts[] = {
	{ 4, 1500000, 14.67, 1000, 1 },	/* EDP 14670 */
	{ 4, 2200000, 10.0, 900, 1 },	/* EDP  9000 */
};
/* A limited-memory job, nearly flat. */
static const cosched_edp_point_t lim_pts[] = {
	{ 2, 1500000, 10.3, 700, 1 },	/* EDP 7210 */
	{ 2, 1800000, 10.0, 710, 1 },	/* EDP 7100 */
	{ 2, 2200000, 9.9, 760, 1 },
};

START_TEST(test_domain_max_request)
{
	cosched_freq_request_t req[2] = {
		{ 11, 1500000, 8, mem_pts, 5, 10.0, 0 },
		{ 12, 2200000, 4, cpu_pts, 2, 0.0, 0 },
	};
	cosched_freq_loss_t loss[2];
	long f;

	ck_assert_int_eq(cosched_power_resolve_domain(req, 2,
		COSCHED_FREQ_RULE_MAX_REQUEST, &f, loss, &err), 0);
	ck_assert_int_eq(f, 2200000);
	/* the memory-bound job runs faster and pays in energy */
	ck_assert_int_eq(loss[0].job_id, 11);
	ck_assert(loss[0].known);
	ck_assert_double_eq_tol(loss[0].slowdown_pct, 100.0 * (10.0 / 10.5 - 1), 1e-9);
	ck_assert_double_eq_tol(loss[0].energy_loss_pct, 18.75, 1e-9);
	ck_assert_double_eq_tol(loss[0].edp_loss_pct, 100.0 * (9500.0 / 8400 - 1), 1e-9);
	ck_assert(loss[1].known);
	ck_assert_double_eq(loss[1].slowdown_pct, 0);
	ck_assert_double_eq(loss[1].energy_loss_pct, 0);

	/* The opt-in rule agrees here: 1.5 GHz would slow the CPU-bound job
	 * by 46.7%, beyond its 0% allowance. */
	ck_assert_int_eq(cosched_power_resolve_domain(req, 2,
		COSCHED_FREQ_RULE_MIN_EDP_SUM, &f, loss, &err), 0);
	ck_assert_int_eq(f, 2200000);
	/* and with a 50% allowance relative EDP still favours 2.2 GHz:
	 * 1.131 + 1 < 1 + 1.63 */
	req[1].max_slowdown_pct = 50;
	ck_assert_int_eq(cosched_power_resolve_domain(req, 2,
		COSCHED_FREQ_RULE_MIN_EDP_SUM, &f, loss, &err), 0);
	ck_assert_int_eq(f, 2200000);

	/* a job without points: known = false at another frequency */
	cosched_freq_request_t bare[2] = {
		{ 21, 1200000, 8, NULL, 0, 0, 0 },
		{ 22, 2000000, 8, NULL, 0, 0, 0 },
	};
	ck_assert_int_eq(cosched_power_resolve_domain(bare, 2,
		COSCHED_FREQ_RULE_MAX_REQUEST, &f, loss, &err), 0);
	ck_assert_int_eq(f, 2000000);
	ck_assert(!loss[0].known);
	ck_assert(isnan(loss[0].slowdown_pct));
	ck_assert(loss[1].known);
	/* unknown loss only admits frequencies >= its request */
	ck_assert_int_eq(cosched_power_resolve_domain(bare, 2,
		COSCHED_FREQ_RULE_MIN_EDP_SUM, &f, loss, &err), 0);
	ck_assert_int_eq(f, 2000000);
}
END_TEST

START_TEST(test_domain_min_edp_sum)
{
	/* Two memory-bound jobs at 1.5 GHz, a limited-memory one at 1.8 GHz
	 * that may lose 5%.  At 1.8: 8670/8400 x 2 + 1 = 3.064; at 1.5:
	 * 1 + 1 + 7210/7100 = 3.015: 1.5 GHz wins, the lim job 3% slower. */
	cosched_freq_request_t req[3] = {
		{ 1, 1500000, 8, mem_pts, 5, 10.0, 0 },
		{ 2, 1500000, 8, mem_pts, 5, 10.0, 0 },
		{ 3, 1800000, 2, lim_pts, 3, 5.0, 0 },
	};
	cosched_freq_loss_t loss[3];
	long f;

	ck_assert_int_eq(cosched_power_resolve_domain(req, 3,
		COSCHED_FREQ_RULE_MIN_EDP_SUM, &f, loss, &err), 0);
	ck_assert_int_eq(f, 1500000);
	ck_assert_double_eq_tol(loss[2].slowdown_pct, 3.0, 1e-9);
	ck_assert_double_eq_tol(loss[2].energy_loss_pct, 100.0 * (700.0 / 710 - 1), 1e-9);
	ck_assert_double_eq_tol(loss[2].edp_loss_pct, 100.0 * (7210.0 / 7100 - 1), 1e-9);
	ck_assert_double_eq(loss[0].slowdown_pct, 0);
	/* the default rule keeps 1.8 GHz and reports the mem jobs' cost */
	ck_assert_int_eq(cosched_power_resolve_domain(req, 3,
		COSCHED_FREQ_RULE_MAX_REQUEST, &f, loss, &err), 0);
	ck_assert_int_eq(f, 1800000);
	ck_assert_double_eq_tol(loss[0].energy_loss_pct, 6.25, 1e-9);
	ck_assert_double_eq_tol(loss[0].slowdown_pct, 100.0 * (10.2 / 10.5 - 1), 1e-9);
	/* a 2% allowance forbids 1.5 GHz for the lim job */
	req[2].max_slowdown_pct = 2.0;
	ck_assert_int_eq(cosched_power_resolve_domain(req, 3,
		COSCHED_FREQ_RULE_MIN_EDP_SUM, &f, loss, &err), 0);
	ck_assert_int_eq(f, 1800000);
	ck_assert_str_eq(cosched_freq_rule_name(COSCHED_FREQ_RULE_MAX_REQUEST),
			 "max_request");
}
END_TEST

/* A job already running keeps its frequency: the node holds each job at
 * the frequency decided when it began, so min_edp_sum decides no lower
 * for a job that joins (what it will run at), and max_request, where the
 * node re-resolves from the requests, ignores it. */
START_TEST(test_domain_running_not_lowered)
{
	cosched_freq_request_t req[3] = {
		{ 1, 1500000, 8, mem_pts, 5, 10.0, 0 },
		{ 2, 1500000, 8, mem_pts, 5, 10.0, 0 },
		{ 3, 1800000, 2, lim_pts, 3, 5.0, 1800000 },
	};
	cosched_freq_rule_t rule;
	long f;

	/* The lim job runs at 1.8 GHz: the two mem jobs join it there. */
	ck_assert_int_eq(cosched_power_resolve_domain(req, 3,
		COSCHED_FREQ_RULE_MIN_EDP_SUM, &f, NULL, &err), 0);
	ck_assert_int_eq(f, 1800000);
	/* Had a mem job run first at 1.5 GHz, the lim job joins at 1.5. */
	req[2].running_khz = 0;
	req[0].running_khz = 1500000;
	ck_assert_int_eq(cosched_power_resolve_domain(req, 3,
		COSCHED_FREQ_RULE_MIN_EDP_SUM, &f, NULL, &err), 0);
	ck_assert_int_eq(f, 1500000);
	/* A decision above every request now (its requester left) holds. */
	req[0].running_khz = 2000000;
	ck_assert_int_eq(cosched_power_resolve_domain(req, 3,
		COSCHED_FREQ_RULE_MIN_EDP_SUM, &f, NULL, &err), 0);
	ck_assert_int_eq(f, 2000000);
	ck_assert_int_eq(cosched_power_resolve_domain(req, 3,
		COSCHED_FREQ_RULE_MAX_REQUEST, &f, NULL, &err), 0);
	ck_assert_int_eq(f, 1800000);
	req[0].running_khz = -1;
	ck_assert_int_eq(cosched_power_resolve_domain(req, 3,
		COSCHED_FREQ_RULE_MIN_EDP_SUM, &f, NULL, &err), -1);
	ck_assert_msg(strstr(err.msg, "requests[0].running_khz"), "%s", err.msg);

	/* FreqDomainRule's names, in any case. */
	ck_assert_int_eq(cosched_freq_rule_parse("FreqDomainRule", "MIN_EDP_SUM",
						 &rule, &err), 0);
	ck_assert_int_eq(rule, COSCHED_FREQ_RULE_MIN_EDP_SUM);
	ck_assert_int_eq(cosched_freq_rule_parse("FreqDomainRule", "max_request",
						 &rule, &err), 0);
	ck_assert_int_eq(rule, COSCHED_FREQ_RULE_MAX_REQUEST);
	ck_assert_int_eq(cosched_freq_rule_parse("FreqDomainRule", "max",
						 &rule, &err), -1);
	ck_assert_msg(strstr(err.msg, "FreqDomainRule") &&
		      strstr(err.msg, "min_edp_sum"), "%s", err.msg);
}
END_TEST

START_TEST(test_bad_input)
{
	cosched_edp_point_t pts[8];
	int threads;
	long f;
	double factor;
	cosched_power_choice_t c;

	ftb_points(pts);
	ck_assert_int_eq(cosched_power_best_threads(pts, 8, -0.1, &threads, &err), -1);
	ck_assert_str_eq(err.msg, "tolerance: must be a finite number >= 0, got -0.1");
	ck_assert_int_eq(cosched_power_best_threads(pts, 0, 0, &threads, &err), -1);
	ck_assert_str_eq(err.msg, "points: none given");
	pts[2].threads = 0;
	ck_assert_int_eq(cosched_power_best_threads(pts, 8, 0, &threads, &err), -1);
	ck_assert_str_eq(err.msg, "points[2].threads: must be >= 1, got 0");
	pts[2].threads = 3;
	pts[4].time_s = 0;
	ck_assert_int_eq(cosched_power_best_threads(pts, 8, 0, &threads, &err), -1);
	ck_assert_str_eq(err.msg, "points[4].time_s: must be > 0, got 0");
	pts[4].time_s = 1;
	pts[5].energy_j = -3;
	ck_assert_int_eq(cosched_power_best_threads(pts, 8, 0, &threads, &err), -1);
	ck_assert_str_eq(err.msg, "points[5].energy_j: must be >= 0, got -3");
	for (int i = 0; i < 8; i++)
		pts[i].energy_j = NAN;
	ck_assert_int_eq(cosched_power_best_threads(pts, 8, 0, &threads, &err), -1);
	ck_assert_str_eq(err.msg, "points: no point with a measured energy");

	ck_assert_int_eq(cosched_power_choose_freq(mem_pts, 5, 8, COSCHED_POWER_UNSET,
						   0, &f, &err), -1);
	ck_assert_str_eq(err.msg, "power policy: 0 is not performance, edp or energy (unset: resolve the site default first)");
	ck_assert_int_eq(cosched_power_choose(mem_pts, 5, COSCHED_POWER_ENERGY, 150,
					      0, &c, &err), -1);
	ck_assert_str_eq(err.msg, "max_slowdown_pct: maximum slowdown 150 out of range (1 <= MAXSLOWDOWN <= 100, in percent)");
	/* The range of --cosched-power=energy:PCT and MaxSlowdown: 0 leaves
	 * the energy policy no room. */
	ck_assert_int_eq(cosched_power_choose_freq(mem_pts, 5, 8,
		COSCHED_POWER_ENERGY, 0, &f, &err), -1);
	ck_assert_str_eq(err.msg, "max_slowdown_pct: maximum slowdown 0 out of range (1 <= MAXSLOWDOWN <= 100, in percent)");
	ck_assert_int_eq(cosched_power_choose_freq(mem_pts, 5, 8,
		COSCHED_POWER_ENERGY, NAN, &f, &err), -1);
	ck_assert_int_eq(cosched_power_choose_freq(mem_pts, 5, 8,
		COSCHED_POWER_ENERGY, 100, &f, &err), 0);
	/* the other policies ignore the figure */
	ck_assert_int_eq(cosched_power_choose_freq(mem_pts, 5, 8,
		COSCHED_POWER_EDP, 0, &f, &err), 0);

	ck_assert_int_eq(cosched_power_mb_factor(1.2, &factor, &err), -1);
	ck_assert_str_eq(err.msg, "bw_fraction: must be in [0, 1], got 1.2");
	ck_assert_int_eq(cosched_power_mb_freq(-0.1, 2200000, NULL, 0, &f, NULL, &err), -1);
	ck_assert_str_eq(err.msg, "bw_fraction: must be in [0, 1], got -0.1");
	ck_assert_int_eq(cosched_power_mb_freq(0.9, 0, NULL, 0, &f, NULL, &err), -1);
	ck_assert_str_eq(err.msg, "max_khz: must be > 0 (or 0 with a frequency list), got 0");
	static const long badlist[] = { 1200000, 0 };
	ck_assert_int_eq(cosched_power_mb_freq(0.9, 0, badlist, 2, &f, NULL, &err), -1);
	ck_assert_str_eq(err.msg, "avail_khz[1]: must be > 0, got 0");

	cosched_freq_request_t req[1] = { { 1, 0, 8, NULL, 0, 0, 0 } };
	ck_assert_int_eq(cosched_power_resolve_domain(req, 1,
		COSCHED_FREQ_RULE_MAX_REQUEST, &f, NULL, &err), -1);
	ck_assert_str_eq(err.msg, "requests[0].requested_khz: must be > 0, got 0");
	req[0].requested_khz = 1000000;
	req[0].max_slowdown_pct = -1;
	ck_assert_int_eq(cosched_power_resolve_domain(req, 1,
		COSCHED_FREQ_RULE_MAX_REQUEST, &f, NULL, &err), -1);
	ck_assert_str_eq(err.msg, "requests[0].max_slowdown_pct: must be in [0, 100], got -1");
	req[0].max_slowdown_pct = 101;
	ck_assert_int_eq(cosched_power_resolve_domain(req, 1,
		COSCHED_FREQ_RULE_MAX_REQUEST, &f, NULL, &err), -1);
	ck_assert_str_eq(err.msg, "requests[0].max_slowdown_pct: must be in [0, 100], got 101");
	req[0].max_slowdown_pct = 0;	/* a performance job: no slowdown */
	ck_assert_int_eq(cosched_power_resolve_domain(req, 1,
		COSCHED_FREQ_RULE_MAX_REQUEST, &f, NULL, &err), 0);
	ck_assert_int_eq(cosched_power_resolve_domain(req, 0,
		COSCHED_FREQ_RULE_MAX_REQUEST, &f, NULL, &err), -1);
	ck_assert_str_eq(err.msg, "requests: none given");
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("power");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_ftb_min_edp);
	tcase_add_test(tc, test_ftb_scaling);
	tcase_add_test(tc, test_unknown_frequency_points);
	tcase_add_test(tc, test_freq_policies);
	tcase_add_test(tc, test_merkel_bellosa);
	tcase_add_test(tc, test_estimate);
	tcase_add_test(tc, test_domain_max_request);
	tcase_add_test(tc, test_domain_min_edp_sum);
	tcase_add_test(tc, test_domain_running_not_lowered);
	tcase_add_test(tc, test_bad_input);
	suite_add_tcase(s, tc);
	return s;
}
