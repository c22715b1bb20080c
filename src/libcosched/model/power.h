/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * power.h - thread count and frequency choices from EDP points.
 *
 * Everything here reads a profile's EDP points (cosched_edp_point_t of
 * model/profile.h: threads x frequency -> time, energy) and answers one
 * question: how many threads, which frequency, and what happens when jobs
 * that share one frequency domain ask for different frequencies.
 *
 * Sources: "Power-aware gang scheduling on multicore" (diploma thesis, NTUA
 * CSLab, 2013): "Threads vs EDP" (minimum EDP; "among efficient choices take
 * the fewest cores"), "DVFS model" (the factor of Merkel, Stoess and Bellosa,
 * "Resource-conscious scheduling for energy efficiency on multicore
 * processors", EuroSys 2010; STREAM sweep), "Metrics" (EDP = E x t).  The
 * frequency conflict rule is cosched's own (cores of one package often share
 * one frequency, which the thesis does not discuss).
 *
 * Units: frequency in kHz (as model/profile.h), time in s, energy in J.
 */
#ifndef COSCHED_POWER_H
#define COSCHED_POWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/base/error.h"
#include "src/libcosched/model/power_policy.h"
#include "src/libcosched/model/profile.h"

/* EDP = energy x time (the 2013 gang-scheduling thesis, "Metrics"); NAN when
 * energy is unknown. */
double cosched_power_point_edp(const cosched_edp_point_t *p);

/*
 * Best thread count (the 2013 gang-scheduling thesis, "Threads vs EDP").  For
 * every thread count the lowest EDP over its frequencies is taken; the answer
 * is the thread count of the minimum.  With tolerance > 0 the thesis's "among
 * efficient choices take the fewest cores" applies: the fewest threads whose
 * EDP is within (1 + tolerance) x the minimum (ft.B: tolerance 0 -> 7 threads,
 * 0.05 -> 6, 0.25 -> 5).  Ties go to fewer threads.  Points with unknown
 * (NAN) energy are skipped; when any point with a measured energy has a
 * known frequency, points with frequency 0 (unknown) are skipped too, so
 * the answer is a thread count cosched_power_choose_freq() can serve.
 * Fails on no usable point, threads < 1, time <= 0, energy < 0, or
 * tolerance < 0 / not finite.
 */
int cosched_power_best_threads(const cosched_edp_point_t *pts, size_t n,
			       double tolerance, int *threads,
			       cosched_error_t *err);

/*
 * The thread count a program "keeps scaling up to" (Greedy Thread's step 3,
 * the 2013 gang-scheduling thesis, "The five schedulers": raise the thread
 * count "until its performance stops improving"; the 2013 gang-scheduling
 * thesis, "Threads vs EDP": "add cores only while the application keeps
 * scaling").  For every thread count the shortest time over its frequencies is
 * taken; walking up from the fewest threads measured, the answer is the last
 * count reached while each next measured count cuts the time by more than
 * min_gain (a fraction, >= 0; 0 = any improvement).  ft.B: min_gain 0 -> 7 (8
 * is slower), 0.06 -> 6 (6 -> 7 gains only 5%).  Energy is not needed.  As
 * above, points with frequency 0 are skipped when any point has a known
 * frequency.
 */
int cosched_power_scaling_threads(const cosched_edp_point_t *pts, size_t n,
				  double min_gain, int *threads,
				  cosched_error_t *err);

/*
 * Frequency for one power policy among the points at `threads`
 * (the 2013 gang-scheduling thesis, "DVFS model"; policies of
 * model/power_policy.h):
 *   PERFORMANCE: the highest measured frequency;
 *   EDP:         the lowest EDP;
 *   ENERGY:      the lowest energy among the points whose time is at most
 *                (1 + max_slowdown_pct / 100) x the time at the highest
 *                frequency (0 < max_slowdown_pct <= 100, the range of
 *                --cosched-power=energy:PCT and cosched.conf MaxSlowdown).
 * Ties go to the higher frequency (never slower for the same figure).
 * Points with frequency 0 (unknown) are skipped; UNSET is refused (the
 * caller resolves the site default first).
 */
int cosched_power_choose_freq(const cosched_edp_point_t *pts, size_t n,
			      int threads, cosched_power_policy_t policy,
			      double max_slowdown_pct, long *freq_khz,
			      cosched_error_t *err);

typedef struct {
	int threads;		/* cosched_power_best_threads() */
	long freq_khz;		/* cosched_power_choose_freq() at threads */
	double time_s;		/* that point's figures */
	double energy_j;
} cosched_power_choice_t;

/* Both choices at once: threads by minimum EDP (with tolerance), then the
 * policy's frequency at that thread count.  This is the (threads,
 * frequency) a job requests (the 2013 gang-scheduling thesis, "Threads vs EDP",
 * last line). */
int cosched_power_choose(const cosched_edp_point_t *pts, size_t n,
			 cosched_power_policy_t policy,
			 double max_slowdown_pct, double tolerance,
			 cosched_power_choice_t *out, cosched_error_t *err);

/*
 * Merkel & Bellosa (the 2013 gang-scheduling thesis, "DVFS model"): when only
 * the fraction of the node's memory bandwidth a job uses is known, its
 * EDP-optimal frequency is max_khz x factor with factor = 1.4 - 0.8 x
 * bw_fraction; DVFS applies only when factor < 1 (bw_fraction > 0.5).
 *
 * bw_fraction must be in [0, 1] (a measured fraction above 1 means the
 * peak is underestimated: clamp it before calling).  avail_khz (navail
 * entries, any order; NULL or 0 = continuous) lists the frequencies the
 * hardware offers; the result is snapped to the nearest one (ties to the
 * higher) and never below the lowest.  max_khz 0 takes the highest of
 * avail_khz.  *dvfs tells whether the result is below max_khz.
 *
 * At 2.2 GHz: 60% -> 2.024 GHz, 80% -> 1.672 GHz, 100% -> 1.32 GHz; with
 * the thesis's 1.2..2.2 GHz list in 0.1 steps: 2.0, 1.7, 1.3 GHz (the thesis's
 * measured STREAM minima: 2.0, 1.6..1.7, 1.3).
 */
int cosched_power_mb_factor(double bw_fraction, double *factor,
			    cosched_error_t *err);
int cosched_power_mb_freq(double bw_fraction, long max_khz,
			  const long *avail_khz, size_t navail, long *freq_khz,
			  bool *dvfs, cosched_error_t *err);

/*
 * Frequency conflicts in one frequency domain (cores of one package that
 * share one frequency; cosched's rule, not the thesis's).
 *
 * COSCHED_FREQ_RULE_MAX_REQUEST (the default): the domain runs at the
 * highest requested frequency.  Why: no job is ever slowed below what it
 * asked for, so a "performance" job's contract and an "energy" job's
 * maximum slowdown both hold without needing anybody's profile; the price
 * is energy only, and the 2013 gang-scheduling thesis bounds that price: DVFS
 * saves 4..14% (about 9%) of energy, so running a memory-bound job at the
 * CPU-bound partner's frequency costs about that much, whereas lowering a
 * CPU-bound job's frequency costs time nearly in proportion (its EDP falls
 * almost linearly with frequency, the 2013 gang-scheduling thesis, "DVFS
 * model").  It is also the rule that needs no data, so it works for jobs
 * without profiles.
 *
 * COSCHED_FREQ_RULE_MIN_EDP_SUM (opt-in): among the requested frequencies,
 * the one minimising the sum over jobs of EDP(f) / EDP(requested) (each
 * job's relative EDP, so long jobs do not dominate), among the frequencies
 * at which every job stays within its max_slowdown_pct (a job whose loss
 * cannot be estimated admits only frequencies >= its request).  The
 * highest request is always admissible, so there is always an answer.
 * Ties go to the higher frequency.  A job that already runs in the domain
 * keeps its frequency (running_khz): the node holds each job at the
 * domain frequency decided when it began and never lowers it while the
 * job runs, so the domain goes no lower than the highest running_khz
 * (that is what the joining job will run at, and its record says so).
 *
 * The one rule for the controller (its decision, FreqDomainRule= in
 * cosched.conf), the node (task/cosched, which combines its holders by
 * max_request: under min_edp_sum each holder asks for the frequency the
 * controller decided for its job) and the simulator.
 *
 * Each job's expected loss at the chosen frequency is estimated from its
 * points at its thread count (exact point, else linear interpolation in
 * frequency between the neighbouring points; no extrapolation) and
 * reported relative to its requested frequency: slowdown_pct > 0 means
 * slower, energy_loss_pct > 0 means more energy.
 */
typedef enum {
	COSCHED_FREQ_RULE_MAX_REQUEST = 0,	/* "max_request" */
	COSCHED_FREQ_RULE_MIN_EDP_SUM,		/* "min_edp_sum" */
	COSCHED_FREQ_RULE_COUNT
} cosched_freq_rule_t;

typedef struct {
	uint32_t job_id;
	long requested_khz;		/* > 0 */
	int threads;			/* thread count the points are read at */
	const cosched_edp_point_t *points;	/* may be NULL */
	size_t npoints;
	double max_slowdown_pct;	/* MIN_EDP_SUM only; [0, 100]; 0 = a
					 * performance job: no slowdown */
	long running_khz;		/* MIN_EDP_SUM only: the frequency it
					 * already runs at here; 0 = none */
} cosched_freq_request_t;

typedef struct {
	uint32_t job_id;
	bool known;			/* false: no points around both frequencies */
	double slowdown_pct;		/* 100 x (t(f) / t(requested) - 1) */
	double energy_loss_pct;		/* 100 x (E(f) / E(requested) - 1) */
	double edp_loss_pct;		/* 100 x (EDP(f) / EDP(requested) - 1) */
} cosched_freq_loss_t;

const char *cosched_freq_rule_name(cosched_freq_rule_t rule);
/* A rule's name, in any case (cosched.conf FreqDomainRule=); -1 with err
 * naming field and the allowed names. */
int cosched_freq_rule_parse(const char *field, const char *str,
			    cosched_freq_rule_t *out, cosched_error_t *err);

/* Resolve one domain: *freq_khz and loss[i] for every request (loss has n
 * entries).  n >= 1. */
int cosched_power_resolve_domain(const cosched_freq_request_t *req, size_t n,
				 cosched_freq_rule_t rule, long *freq_khz,
				 cosched_freq_loss_t *loss,
				 cosched_error_t *err);

/* A job's estimated time and energy at threads and freq_khz from its
 * points (exact or interpolated, see above); false when not estimable. */
bool cosched_power_estimate(const cosched_edp_point_t *pts, size_t n,
			    int threads, long freq_khz, double *time_s,
			    double *energy_j);

#endif
