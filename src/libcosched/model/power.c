/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model/power.c - thread count and frequency choices from EDP points
 * ("Power-aware gang scheduling on multicore" (NTUA thesis, 2013), "Threads vs
 * EDP" and "DVFS model"). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "src/libcosched/base/nametable.h"
#include "src/libcosched/model/power.h"

double cosched_power_point_edp(const cosched_edp_point_t *p)
{
	/* The 2013 gang-scheduling thesis, "Metrics": EDP = E x t. */
	return p->energy_j * p->time_s;
}

/* A point is usable when its figures are finite and sensible. */
static int point_check(const cosched_edp_point_t *p, size_t i,
		       cosched_error_t *err)
{
	if (p->threads < 1)
		return cosched_error_set(err,
			"points[%zu].threads: must be >= 1, got %d", i,
			p->threads);
	if (p->freq_khz < 0)
		return cosched_error_set(err,
			"points[%zu].freq_khz: must be >= 0, got %ld", i,
			p->freq_khz);
	if (!isfinite(p->time_s) || p->time_s <= 0)
		return cosched_error_set(err,
			"points[%zu].time_s: must be > 0, got %g", i,
			p->time_s);
	if (!isnan(p->energy_j) && (!isfinite(p->energy_j) || p->energy_j < 0))
		return cosched_error_set(err,
			"points[%zu].energy_j: must be >= 0, got %g", i,
			p->energy_j);
	return 0;
}

static int points_check(const cosched_edp_point_t *pts, size_t n,
			cosched_error_t *err)
{
	if (!pts || n == 0)
		return cosched_error_set(err, "points: none given");
	for (size_t i = 0; i < n; i++)
		if (point_check(&pts[i], i, err) < 0)
			return -1;
	return 0;
}

/*
 * Which points the thread choices rank.  The frequency choice can only use
 * points with a known frequency, so when the profile has any, the thread
 * choices rank only those too: otherwise a thread count measured only at an
 * unknown frequency could win and leave no frequency to choose.  Profiles
 * without any frequency (frequency 0 everywhere) still give a thread count.
 * need_energy: only points with a measured energy count as "any".
 */
static bool freq_known_only(const cosched_edp_point_t *pts, size_t n,
			    bool need_energy)
{
	for (size_t i = 0; i < n; i++)
		if (pts[i].freq_khz > 0 &&
		    (!need_energy || !isnan(pts[i].energy_j)))
			return true;
	return false;
}

/* A point's EDP in the thread ranking, or NAN when it does not count. */
static double rank_edp(const cosched_edp_point_t *p, bool freq_only)
{
	if (freq_only && p->freq_khz <= 0)
		return NAN;
	return cosched_power_point_edp(p);
}

int cosched_power_best_threads(const cosched_edp_point_t *pts, size_t n,
			       double tolerance, int *threads,
			       cosched_error_t *err)
{
	double best = INFINITY;
	int best_threads = 0;
	bool freq_only;

	if (!isfinite(tolerance) || tolerance < 0)
		return cosched_error_set(err,
			"tolerance: must be a finite number >= 0, got %g",
			tolerance);
	if (points_check(pts, n, err) < 0)
		return -1;
	freq_only = freq_known_only(pts, n, true);
	/* Minimum EDP over the ranked points (the 2013 gang-scheduling thesis,
	 * "Threads vs EDP"); ties to fewer threads. */
	for (size_t i = 0; i < n; i++) {
		double edp = rank_edp(&pts[i], freq_only);
		if (isnan(edp))
			continue;
		if (edp < best || (edp == best && pts[i].threads < best_threads)) {
			best = edp;
			best_threads = pts[i].threads;
		}
	}
	if (best_threads == 0)
		return cosched_error_set(err,
			"points: no point with a measured energy");
	/* "Among efficient choices take the fewest cores": every thread count
	 * whose best EDP is within the tolerance is efficient. */
	if (tolerance > 0) {
		double limit = best * (1.0 + tolerance);
		for (size_t i = 0; i < n; i++) {
			double edp = rank_edp(&pts[i], freq_only);
			if (!isnan(edp) && edp <= limit &&
			    pts[i].threads < best_threads)
				best_threads = pts[i].threads;
		}
	}
	*threads = best_threads;
	return 0;
}

int cosched_power_scaling_threads(const cosched_edp_point_t *pts, size_t n,
				  double min_gain, int *threads,
				  cosched_error_t *err)
{
	int cur = 0;
	double cur_time = 0;
	bool freq_only;

	if (!isfinite(min_gain) || min_gain < 0 || min_gain >= 1)
		return cosched_error_set(err,
			"min_gain: must be in [0, 1), got %g", min_gain);
	if (points_check(pts, n, err) < 0)
		return -1;
	/* The same points as the other choices (see freq_known_only). */
	freq_only = freq_known_only(pts, n, false);
	/* Walk the measured thread counts upwards (n is small: a sweep is at
	 * most threads x frequencies points, so O(n^2) is fine here). */
	for (;;) {
		int next = 0;
		double next_time = INFINITY;

		for (size_t i = 0; i < n; i++)
			if ((!freq_only || pts[i].freq_khz > 0) &&
			    pts[i].threads > cur &&
			    (next == 0 || pts[i].threads < next))
				next = pts[i].threads;
		if (next == 0)
			break;
		for (size_t i = 0; i < n; i++)
			if ((!freq_only || pts[i].freq_khz > 0) &&
			    pts[i].threads == next && pts[i].time_s < next_time)
				next_time = pts[i].time_s;
		if (cur > 0 && !(next_time < cur_time * (1.0 - min_gain)))
			break;	/* performance stops improving */
		cur = next;
		cur_time = next_time;
	}
	*threads = cur;
	return 0;
}

/* Choose among the points at `threads` with a known frequency; returns the
 * index or -1. */
static long choose_index(const cosched_edp_point_t *pts, size_t n,
			 int threads, cosched_power_policy_t policy,
			 double max_slowdown_pct)
{
	long top = -1, pick = -1;

	for (size_t i = 0; i < n; i++)
		if (pts[i].threads == threads && pts[i].freq_khz > 0 &&
		    (top < 0 || pts[i].freq_khz > pts[top].freq_khz))
			top = (long)i;
	if (top < 0 || policy == COSCHED_POWER_PERFORMANCE)
		return top;
	for (size_t i = 0; i < n; i++) {
		const cosched_edp_point_t *p = &pts[i];
		double v, bv;

		if (p->threads != threads || p->freq_khz <= 0 ||
		    isnan(p->energy_j))
			continue;
		if (policy == COSCHED_POWER_EDP) {
			v = cosched_power_point_edp(p);
		} else {
			/* Energy within the allowed slowdown, measured against
			 * the highest frequency's time. */
			if (p->time_s > pts[top].time_s *
					(1.0 + max_slowdown_pct / 100.0))
				continue;
			v = p->energy_j;
		}
		if (pick < 0) {
			pick = (long)i;
			continue;
		}
		bv = policy == COSCHED_POWER_EDP ?
			cosched_power_point_edp(&pts[pick]) : pts[pick].energy_j;
		if (v < bv || (v == bv && p->freq_khz > pts[pick].freq_khz))
			pick = (long)i;
	}
	/* No energy figures at all: performance is the safe answer. */
	return pick >= 0 ? pick : top;
}

static int choose_args_check(cosched_power_policy_t policy,
			     double max_slowdown_pct, cosched_error_t *err)
{
	if (policy != COSCHED_POWER_PERFORMANCE && policy != COSCHED_POWER_EDP &&
	    policy != COSCHED_POWER_ENERGY)
		return cosched_error_set(err,
			"power policy: %d is not performance, edp or energy (unset: resolve the site default first)",
			(int)policy);
	/* The range of --cosched-power=energy:PCT and cosched.conf's
	 * MaxSlowdown: the energy policy needs some room to save energy. */
	if (policy == COSCHED_POWER_ENERGY)
		return cosched_max_slowdown_check("max_slowdown_pct", NULL,
						  max_slowdown_pct, err);
	return 0;
}

int cosched_power_choose_freq(const cosched_edp_point_t *pts, size_t n,
			      int threads, cosched_power_policy_t policy,
			      double max_slowdown_pct, long *freq_khz,
			      cosched_error_t *err)
{
	long i;

	if (choose_args_check(policy, max_slowdown_pct, err) < 0 ||
	    points_check(pts, n, err) < 0)
		return -1;
	i = choose_index(pts, n, threads, policy, max_slowdown_pct);
	if (i < 0)
		return cosched_error_set(err,
			"points: no point at %d threads with a known frequency",
			threads);
	*freq_khz = pts[i].freq_khz;
	return 0;
}

int cosched_power_choose(const cosched_edp_point_t *pts, size_t n,
			 cosched_power_policy_t policy,
			 double max_slowdown_pct, double tolerance,
			 cosched_power_choice_t *out, cosched_error_t *err)
{
	int threads;
	long i;

	if (choose_args_check(policy, max_slowdown_pct, err) < 0 ||
	    cosched_power_best_threads(pts, n, tolerance, &threads, err) < 0)
		return -1;
	i = choose_index(pts, n, threads, policy, max_slowdown_pct);
	out->threads = threads;
	if (i < 0) {
		/* Profiles without frequencies: the thread count still holds. */
		out->freq_khz = 0;
		out->time_s = NAN;
		out->energy_j = NAN;
		for (size_t k = 0; k < n; k++)
			if (pts[k].threads == threads && !isnan(pts[k].energy_j)) {
				out->time_s = pts[k].time_s;
				out->energy_j = pts[k].energy_j;
				break;
			}
		return 0;
	}
	out->freq_khz = pts[i].freq_khz;
	out->time_s = pts[i].time_s;
	out->energy_j = pts[i].energy_j;
	return 0;
}

int cosched_power_mb_factor(double bw_fraction, double *factor,
			    cosched_error_t *err)
{
	if (!isfinite(bw_fraction) || bw_fraction < 0 || bw_fraction > 1)
		return cosched_error_set(err,
			"bw_fraction: must be in [0, 1], got %g", bw_fraction);
	/* The 2013 gang-scheduling thesis, "DVFS model", Merkel & Bellosa. */
	*factor = 1.4 - 0.8 * bw_fraction;
	return 0;
}

int cosched_power_mb_freq(double bw_fraction, long max_khz,
			  const long *avail_khz, size_t navail, long *freq_khz,
			  bool *dvfs, cosched_error_t *err)
{
	double factor, want;
	long top = max_khz, pick = 0;

	if (cosched_power_mb_factor(bw_fraction, &factor, err) < 0)
		return -1;
	if (navail > 0 && !avail_khz)
		return cosched_error_set(err, "avail_khz: NULL with %zu entries",
					 navail);
	for (size_t i = 0; i < navail; i++) {
		if (avail_khz[i] <= 0)
			return cosched_error_set(err,
				"avail_khz[%zu]: must be > 0, got %ld", i,
				avail_khz[i]);
		if (max_khz == 0 && avail_khz[i] > top)
			top = avail_khz[i];
	}
	if (top <= 0)
		return cosched_error_set(err,
			"max_khz: must be > 0 (or 0 with a frequency list), got %ld",
			max_khz);
	/* DVFS only when the factor is below 1 (the 2013 gang-scheduling
	 * thesis, "DVFS model"). */
	if (factor >= 1.0) {
		*freq_khz = top;
		if (dvfs)
			*dvfs = false;
		return 0;
	}
	/* kHz resolution: exact ties stay ties (then to the higher). */
	want = (double)lround((double)top * factor);
	if (navail == 0) {
		pick = (long)want;
	} else {
		double best = INFINITY;
		for (size_t i = 0; i < navail; i++) {
			double d = fabs((double)avail_khz[i] - want);
			/* Nearest; ties to the higher (performance-safe). */
			if (d < best || (d == best && avail_khz[i] > pick)) {
				best = d;
				pick = avail_khz[i];
			}
		}
	}
	*freq_khz = pick;
	if (dvfs)
		*dvfs = pick < top;
	return 0;
}

static const char *const freq_rule_names[COSCHED_FREQ_RULE_COUNT] = {
	[COSCHED_FREQ_RULE_MAX_REQUEST] = "max_request",
	[COSCHED_FREQ_RULE_MIN_EDP_SUM] = "min_edp_sum",
};

const char *cosched_freq_rule_name(cosched_freq_rule_t rule)
{
	return cosched_name_of(freq_rule_names, COSCHED_FREQ_RULE_COUNT,
			       (int) rule, "unknown");
}

int cosched_freq_rule_parse(const char *field, const char *str,
			    cosched_freq_rule_t *out, cosched_error_t *err)
{
	int i = cosched_name_parse(field, "rule", freq_rule_names, 0,
				   COSCHED_FREQ_RULE_COUNT, str, true, err);

	if (i < 0)
		return -1;
	*out = (cosched_freq_rule_t) i;
	return 0;
}

bool cosched_power_estimate(const cosched_edp_point_t *pts, size_t n,
			    int threads, long freq_khz, double *time_s,
			    double *energy_j)
{
	const cosched_edp_point_t *lo = NULL, *hi = NULL;
	double w;

	if (!pts)
		return false;
	for (size_t i = 0; i < n; i++) {
		const cosched_edp_point_t *p = &pts[i];
		if (p->threads != threads || p->freq_khz <= 0 ||
		    isnan(p->energy_j) || !(p->time_s > 0))
			continue;
		if (p->freq_khz == freq_khz) {
			*time_s = p->time_s;
			*energy_j = p->energy_j;
			return true;
		}
		if (p->freq_khz < freq_khz &&
		    (!lo || p->freq_khz > lo->freq_khz))
			lo = p;
		if (p->freq_khz > freq_khz &&
		    (!hi || p->freq_khz < hi->freq_khz))
			hi = p;
	}
	if (!lo || !hi)
		return false;	/* no extrapolation */
	w = (double)(freq_khz - lo->freq_khz) /
	    (double)(hi->freq_khz - lo->freq_khz);
	*time_s = lo->time_s + w * (hi->time_s - lo->time_s);
	*energy_j = lo->energy_j + w * (hi->energy_j - lo->energy_j);
	return true;
}

/* Loss of request r if the domain runs at f. */
static void loss_at(const cosched_freq_request_t *r, long f,
		    cosched_freq_loss_t *out)
{
	double t0, e0, t1, e1;

	out->job_id = r->job_id;
	out->known = false;
	out->slowdown_pct = NAN;
	out->energy_loss_pct = NAN;
	out->edp_loss_pct = NAN;
	if (f == r->requested_khz) {
		out->known = true;
		out->slowdown_pct = out->energy_loss_pct = out->edp_loss_pct = 0;
		return;
	}
	if (!cosched_power_estimate(r->points, r->npoints, r->threads,
				    r->requested_khz, &t0, &e0) ||
	    !cosched_power_estimate(r->points, r->npoints, r->threads, f, &t1,
				    &e1) ||
	    !(e0 > 0))
		return;
	out->known = true;
	out->slowdown_pct = 100.0 * (t1 / t0 - 1.0);
	out->energy_loss_pct = 100.0 * (e1 / e0 - 1.0);
	out->edp_loss_pct = 100.0 * ((e1 * t1) / (e0 * t0) - 1.0);
}

int cosched_power_resolve_domain(const cosched_freq_request_t *req, size_t n,
				 cosched_freq_rule_t rule, long *freq_khz,
				 cosched_freq_loss_t *loss,
				 cosched_error_t *err)
{
	long top = 0, pick;

	if (!req || n == 0)
		return cosched_error_set(err, "requests: none given");
	if (rule != COSCHED_FREQ_RULE_MAX_REQUEST &&
	    rule != COSCHED_FREQ_RULE_MIN_EDP_SUM)
		return cosched_error_set(err, "rule: unknown rule %d", (int)rule);
	for (size_t i = 0; i < n; i++) {
		if (req[i].requested_khz <= 0)
			return cosched_error_set(err,
				"requests[%zu].requested_khz: must be > 0, got %ld",
				i, req[i].requested_khz);
		/* 0 is allowed here: a performance job in the domain
		 * accepts no slowdown at all. */
		if (!(req[i].max_slowdown_pct >= 0 &&
		      req[i].max_slowdown_pct <= 100))
			return cosched_error_set(err,
				"requests[%zu].max_slowdown_pct: must be in [0, 100], got %g",
				i, req[i].max_slowdown_pct);
		if (req[i].npoints > 0 && !req[i].points)
			return cosched_error_set(err,
				"requests[%zu].points: NULL with %zu points", i,
				req[i].npoints);
		if (req[i].running_khz < 0)
			return cosched_error_set(err,
				"requests[%zu].running_khz: must be >= 0, got %ld",
				i, req[i].running_khz);
		if (req[i].requested_khz > top)
			top = req[i].requested_khz;
	}
	pick = top;
	if (rule == COSCHED_FREQ_RULE_MIN_EDP_SUM) {
		double best = INFINITY;
		/* Candidates: the requested frequencies, highest first, so a
		 * tie keeps the higher frequency. */
		long prev = LONG_MAX;
		for (;;) {
			long f = 0;
			double cost = 0;
			bool ok = true;

			for (size_t i = 0; i < n; i++)
				if (req[i].requested_khz < prev &&
				    req[i].requested_khz > f)
					f = req[i].requested_khz;
			if (f == 0)
				break;
			prev = f;
			for (size_t i = 0; i < n && ok; i++) {
				cosched_freq_loss_t l;
				loss_at(&req[i], f, &l);
				if (!l.known) {
					/* Unknown loss: only never-slower. */
					ok = f >= req[i].requested_khz;
					cost += 1.0;
				} else if (f != top &&
					   l.slowdown_pct > req[i].max_slowdown_pct) {
					ok = false;
				} else {
					cost += 1.0 + l.edp_loss_pct / 100.0;
				}
			}
			if (ok && cost < best) {
				best = cost;
				pick = f;
			}
		}
		/* Running jobs are not lowered (the header says why). */
		for (size_t i = 0; i < n; i++)
			if (req[i].running_khz > pick)
				pick = req[i].running_khz;
	}
	*freq_khz = pick;
	if (loss)
		for (size_t i = 0; i < n; i++)
			loss_at(&req[i], pick, &loss[i]);
	return 0;
}
