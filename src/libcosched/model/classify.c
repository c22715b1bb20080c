/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * classify.c - "Power-aware gang scheduling on multicore" (NTUA thesis, 2013)
 * categories and "Effects of co-scheduling applications on multicore
 * architectures" (NTUA thesis, 2014) LCA classes from a profile's derived
 * metrics, the mapping between the two, and the choice of a job's effective
 * class.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "src/libcosched/model/classify.h"
#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"

/*
 * Default thresholds for the categories of the 2013 gang-scheduling thesis.
 * The thesis ("Application categories") gives representative programs and no
 * numeric rule; it also says MPKI alone does not decide (Floyd-Warshall MPKI
 * 2.28 is mem, cg.B MPKI 2.99 is lim).  The defaults below are read off its
 * programs and tables:
 *
 * MEM_BW_FRACTION 0.5: the lim representative is STREAM at ~25% of the
 *   package bandwidth, the mem representative STREAM at ~80%.  The midpoint
 *   is 0.525; rounded down to 0.5 so a borderline program is kept away from
 *   other memory-heavy ones (the 2013 gang-scheduling thesis, "Placement
 *   lessons": separate memory-heavy programs).  Its "DVFS model" also shows
 *   bandwidth-bound behaviour (EDP minimum below the top frequency) from 60%
 *   on.
 *
 * MEM_MPKI 4.0, used only when no bandwidth fraction is known (no node peak
 *   configured): in the artificial workload ("Workload used for the
 *   headline comparison") lim programs have MPKI 1.66..1.99 and mem programs
 *   5.02..5.57; cg.B (lim) has 2.99.  4.0 sits midway between the highest
 *   lim (2.99) and the lowest mem (5.02).  This fallback misclassifies
 *   Floyd-Warshall (2.28, mem) as lim, which is why the bandwidth fraction
 *   decides when it is known.
 *
 * LIM_MPKI 0.5: cpu and rand programs of the artificial workload have MPKI
 *   0.01, the lowest lim 1.66.  The log-scale midpoint is 0.13; 0.5 keeps a
 *   factor 50 of headroom above cpu programs' noise and stays more than 3x
 *   below every lim program.
 *
 * LIM_BW_FRACTION 0.1: the lim representative uses ~25% of the bandwidth;
 *   cpu programs (working set in L1/L2) use next to none.  0.1 is below half
 *   the lim representative, so a lim program with a low MPKI but real
 *   streaming traffic (prefetched streams miss few times, the 2014
 *   co-scheduling thesis, "Metrics") is still lim.
 *
 * RAND_REUSE 10 (L3->L2 bytes per memory byte): the rand representative is
 *   an int array of half the LLC, each element accessed 1000 times in
 *   random order; after its first touch every line is served by the LLC,
 *   so cache-to-core traffic exceeds memory traffic by orders of magnitude
 *   (standalone MPKI ~0.01).  Streaming programs (the lim and mem STREAMs)
 *   bring each line from memory once and move it to L2 once: ratio ~1.
 *   10 is an order of magnitude above streams and far below rand.
 *   The rule also matches a sequential program whose working set fits in
 *   the LLC (the 2013 gang-scheduling thesis would call it lim): its L2
 *   misses are LLC hits too.  cosched.conf(5) says what that means under
 *   Application-Aware.
 *
 * RAND_CACHE_BW 0.15 (L3->L2 bandwidth per thread, as a fraction of
 *   CorePeakBandwidth): the gamma of the 2014 co-scheduling thesis, "high
 *   cache-to-core bandwidth".  Without it a cpu program, whose tiny L3->L2
 *   and memory traffic give an arbitrary ratio, could pass the reuse test; a
 *   random LLC-resident program misses L2 on nearly every access and easily
 *   exceeds it.
 */
#define DEF_MEM_BW_FRACTION	0.5
#define DEF_MEM_MPKI		4.0
#define DEF_LIM_BW_FRACTION	0.1
#define DEF_LIM_MPKI		0.5
#define DEF_RAND_REUSE		10.0
#define DEF_RAND_CACHE_BW	0.15

/*
 * The 2014 co-scheduling thesis, "Classification thresholds" (fractions of
 * B_max and IPC_max), and its test machine: B_max = 14 GB/s per core,
 * IPC_max = 4.
 */
#define DEF_LCA_ALPHA		0.5
#define DEF_LCA_BETA		0.025
#define DEF_LCA_GAMMA		0.15
#define DEF_LCA_DELTA		0.25
#define DEF_LCA_EPSILON		0.25
#define DEF_CORE_PEAK_BW_MBS	14000.0
#define DEF_CORE_PEAK_IPC	4.0

void cosched_classify_conf_default(cosched_classify_conf_t *c)
{
	c->cat.mem_bw_fraction = DEF_MEM_BW_FRACTION;
	c->cat.mem_mpki = DEF_MEM_MPKI;
	c->cat.lim_bw_fraction = DEF_LIM_BW_FRACTION;
	c->cat.lim_mpki = DEF_LIM_MPKI;
	c->cat.rand_reuse = DEF_RAND_REUSE;
	c->cat.rand_cache_bw = DEF_RAND_CACHE_BW;
	c->lca.alpha = DEF_LCA_ALPHA;
	c->lca.beta = DEF_LCA_BETA;
	c->lca.gamma = DEF_LCA_GAMMA;
	c->lca.delta = DEF_LCA_DELTA;
	c->lca.epsilon = DEF_LCA_EPSILON;
	c->lca.core_peak_bw_mbs = DEF_CORE_PEAK_BW_MBS;
	c->lca.core_peak_ipc = DEF_CORE_PEAK_IPC;
}

/*
 * The one list of the thresholds' ranges (cosched.conf keys): the check
 * below and cosched.conf's parser (through cosched_classify_key_set) both
 * read it.  lo < v <= hi (lo_open) or lo <= v <= hi.
 */
static const struct {
	const char *key;
	size_t offset;
	cosched_range_t range;
} ranges[] = {
#define CAT_R(k, f, lo, open, hi) \
	{ k, offsetof(cosched_classify_conf_t, cat.f), { lo, hi, open } }
#define LCA_R(k, f, lo, open, hi) \
	{ k, offsetof(cosched_classify_conf_t, lca.f), { lo, hi, open } }
	CAT_R("ClassifyMemBandwidthFraction", mem_bw_fraction, 0, true, 1),
	CAT_R("ClassifyMemMPKI", mem_mpki, 0, true, 1000),
	CAT_R("ClassifyLimBandwidthFraction", lim_bw_fraction, 0, true, 1),
	CAT_R("ClassifyLimMPKI", lim_mpki, 0, true, 1000),
	CAT_R("ClassifyRandReuse", rand_reuse, 1, false, 1e6),
	CAT_R("ClassifyRandCacheBandwidth", rand_cache_bw, 0, true, 100),
	LCA_R("LcaAlpha", alpha, 0, true, 1),
	LCA_R("LcaBeta", beta, 0, true, 1),
	LCA_R("LcaGamma", gamma, 0, true, 100),
	LCA_R("LcaDelta", delta, 0, true, 1),
	LCA_R("LcaEpsilon", epsilon, 0, true, 1),
	LCA_R("CorePeakBandwidth", core_peak_bw_mbs, 0, true, 1e7),
	LCA_R("CorePeakIPC", core_peak_ipc, 0, true, 64),
#undef CAT_R
#undef LCA_R
};
#define N_RANGES (sizeof(ranges) / sizeof(ranges[0]))

int cosched_classify_key_set(cosched_classify_conf_t *c, const char *key,
			     double v, const char *text, cosched_error_t *err)
{
	for (size_t i = 0; i < N_RANGES; i++) {
		if (strcasecmp(key, ranges[i].key))
			continue;
		if (cosched_range_check(ranges[i].key, &ranges[i].range, v,
					text, err))
			return -1;
		*(double *) ((char *) c + ranges[i].offset) = v;
		return 0;
	}
	return cosched_error_set(err, "unknown key %s", COSCHED_QUOTE(key));
}

int cosched_classify_conf_check(const cosched_classify_conf_t *c,
				cosched_error_t *err)
{
	const cosched_cat_thresholds_t *t = &c->cat;
	const cosched_lca_params_t *l = &c->lca;

	for (size_t i = 0; i < N_RANGES; i++)
		if (cosched_range_check(ranges[i].key, &ranges[i].range,
					*(const double *) ((const char *) c +
							   ranges[i].offset),
					NULL, err))
			return -1;
	/* Otherwise a class of the decision order can never be reached. */
	if (l->beta >= l->alpha)
		return cosched_error_set(err,
			"LcaBeta (%g) must be less than LcaAlpha (%g): otherwise LC is never chosen",
			l->beta, l->alpha);
	if (t->lim_bw_fraction >= t->mem_bw_fraction)
		return cosched_error_set(err,
			"ClassifyLimBandwidthFraction (%g) must be less than ClassifyMemBandwidthFraction (%g)",
			t->lim_bw_fraction, t->mem_bw_fraction);
	if (t->lim_mpki >= t->mem_mpki)
		return cosched_error_set(err,
			"ClassifyLimMPKI (%g) must be less than ClassifyMemMPKI (%g)",
			t->lim_mpki, t->mem_mpki);
	return 0;
}

void cosched_lca_thresholds(const cosched_lca_params_t *p,
			    cosched_lca_abs_t *out)
{
	out->alpha_mbs = p->alpha * p->core_peak_bw_mbs;
	out->beta_mbs = p->beta * p->core_peak_bw_mbs;
	out->gamma_mbs = p->gamma * p->core_peak_bw_mbs;
	out->delta = p->delta;
	out->epsilon_ipc = p->epsilon * p->core_peak_ipc;
}

static void why(char *reason, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void why(char *reason, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!reason || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(reason, len, fmt, ap);
	va_end(ap);
}

/*
 * Category of the 2013 gang-scheduling thesis.  Order: mem by bandwidth
 * (memory-heavy programs must be separated whatever else they do), rand by
 * cache reuse (its MPKI of ~0.01 hides it, the thesis's "Limitations"), lim
 * by MPKI or bandwidth, else cpu.
 */
cosched_category_t cosched_classify_category(const cosched_classify_conf_t *c,
					     const cosched_derived_t *d,
					     char *reason, size_t reason_len)
{
	const cosched_cat_thresholds_t *t = &c->cat;
	double bw = cosched_derived_mem_bw(d);
	double l2_per_thread = d->llc_to_core_bw_per_thread;
	double rand_min = t->rand_cache_bw * c->lca.core_peak_bw_mbs *
			  COSCHED_BYTES_PER_MB;

	if (isnan(d->ipc) || isnan(d->mpki)) {
		why(reason, reason_len, "no measurement (IPC or MPKI unknown)");
		return COSCHED_CAT_UNKNOWN;
	}
	if (!isnan(d->bw_fraction)) {
		if (d->bw_fraction >= t->mem_bw_fraction) {
			why(reason, reason_len,
			    "bandwidth fraction %.3f >= ClassifyMemBandwidthFraction %.3f",
			    d->bw_fraction, t->mem_bw_fraction);
			return COSCHED_CAT_MEM;
		}
	} else if (d->mpki >= t->mem_mpki) {
		why(reason, reason_len,
		    "no bandwidth fraction; MPKI %.3f >= ClassifyMemMPKI %.3f",
		    d->mpki, t->mem_mpki);
		return COSCHED_CAT_MEM;
	}
	if (!isnan(l2_per_thread) && l2_per_thread >= rand_min) {
		double reuse = bw > 0.0 ? d->llc_to_core_bw / bw : INFINITY;
		if (reuse >= t->rand_reuse) {
			why(reason, reason_len,
			    "L3->L2 %.0f MB/s per thread >= %.0f MB/s and reuse %.1f >= ClassifyRandReuse %.1f",
			    l2_per_thread / COSCHED_BYTES_PER_MB,
			    rand_min / COSCHED_BYTES_PER_MB, reuse, t->rand_reuse);
			return COSCHED_CAT_RAND;
		}
	}
	if (d->mpki >= t->lim_mpki) {
		why(reason, reason_len, "MPKI %.3f >= ClassifyLimMPKI %.3f",
		    d->mpki, t->lim_mpki);
		return COSCHED_CAT_LIM;
	}
	if (!isnan(d->bw_fraction) && d->bw_fraction >= t->lim_bw_fraction) {
		why(reason, reason_len,
		    "bandwidth fraction %.3f >= ClassifyLimBandwidthFraction %.3f",
		    d->bw_fraction, t->lim_bw_fraction);
		return COSCHED_CAT_LIM;
	}
	why(reason, reason_len,
	    "MPKI %.3f < ClassifyLimMPKI %.3f, low bandwidth, no cache reuse",
	    d->mpki, t->lim_mpki);
	return COSCHED_CAT_CPU;
}

/*
 * LCA class of the 2014 co-scheduling thesis, in the thesis's decision order
 * ("Classification thresholds"), per core (per thread of the job):
 *   memory bandwidth > alpha            -> L
 *   memory bandwidth > beta             -> LC
 *   L3->L2 bandwidth > gamma            -> C
 *   IPC > epsilon                       -> N (CPU-bound)
 *   mem_uops / all_uops > delta         -> C (memory-bound)
 *   otherwise                           -> N
 * The memory bandwidth is the measured memory traffic where present, else
 * the LLC-miss estimate (the 2014 co-scheduling thesis, "Metrics").  When
 * mem_uops is not measured a low-IPC program is taken as C: it stalls on
 * something, and treating it as cache-sensitive protects it (the 2014
 * co-scheduling thesis, "Interference expectations": C suffers most).  An
 * unmeasured L3->L2 skips the gamma test.
 */
cosched_lca_t cosched_classify_lca(const cosched_classify_conf_t *c,
				   const cosched_derived_t *d,
				   char *reason, size_t reason_len)
{
	cosched_lca_abs_t a;
	double bw = cosched_derived_mem_bw_per_thread(d);
	double bw_mbs = bw / COSCHED_BYTES_PER_MB;
	double l2_mbs = d->llc_to_core_bw_per_thread / COSCHED_BYTES_PER_MB;
	const char *src = isnan(d->mem_traffic_bw_per_thread) ?
			  "LLC-miss" : "memory-traffic";

	cosched_lca_thresholds(&c->lca, &a);
	if (isnan(bw) || isnan(d->ipc)) {
		why(reason, reason_len, "no measurement (bandwidth or IPC unknown)");
		return COSCHED_LCA_UNKNOWN;
	}
	if (bw_mbs > a.alpha_mbs) {
		why(reason, reason_len, "%s bandwidth %.0f MB/s per core > alpha %.0f MB/s",
		    src, bw_mbs, a.alpha_mbs);
		return COSCHED_LCA_L;
	}
	if (bw_mbs > a.beta_mbs) {
		why(reason, reason_len, "%s bandwidth %.0f MB/s per core > beta %.0f MB/s",
		    src, bw_mbs, a.beta_mbs);
		return COSCHED_LCA_LC;
	}
	if (!isnan(l2_mbs) && l2_mbs > a.gamma_mbs) {
		why(reason, reason_len, "L3->L2 bandwidth %.0f MB/s per core > gamma %.0f MB/s",
		    l2_mbs, a.gamma_mbs);
		return COSCHED_LCA_C;
	}
	if (d->ipc > a.epsilon_ipc) {
		why(reason, reason_len, "IPC %.2f > epsilon %.2f", d->ipc,
		    a.epsilon_ipc);
		return COSCHED_LCA_N;
	}
	if (isnan(d->mem_uops_fraction)) {
		why(reason, reason_len,
		    "IPC %.2f <= epsilon %.2f, mem_uops not measured: taken as C",
		    d->ipc, a.epsilon_ipc);
		return COSCHED_LCA_C;
	}
	if (d->mem_uops_fraction > a.delta) {
		why(reason, reason_len, "IPC %.2f <= epsilon, mem_uops %.2f > delta %.2f",
		    d->ipc, d->mem_uops_fraction, a.delta);
		return COSCHED_LCA_C;
	}
	why(reason, reason_len, "IPC %.2f <= epsilon, mem_uops %.2f <= delta %.2f",
	    d->ipc, d->mem_uops_fraction, a.delta);
	return COSCHED_LCA_N;
}

cosched_class_t cosched_classify_effective(const cosched_classify_conf_t *c,
					   const cosched_profile_t *profile,
					   cosched_category_t declared)
{
	cosched_class_t out = {
		COSCHED_CAT_UNKNOWN, COSCHED_LCA_UNKNOWN, COSCHED_CLASS_FROM_NONE
	};

	if (declared < 0 || declared > COSCHED_CAT_UNKNOWN)
		declared = COSCHED_CAT_UNKNOWN;
	if (cosched_profile_has_data(profile)) {
		const cosched_derived_t *d = &profile->derived;
		out.cat = cosched_classify_category(c, d, NULL, 0);
		out.lca = cosched_classify_lca(c, d, NULL, 0);
		if (out.cat != COSCHED_CAT_UNKNOWN) {
			out.source = COSCHED_CLASS_FROM_PROFILE;
			/* The same for a characterisation by co-run that
			 * saw random access the counters cannot show. */
			if (profile->corun.present &&
			    profile->corun.cat == COSCHED_CAT_RAND &&
			    isnan(d->llc_to_core_bw) &&
			    (out.cat == COSCHED_CAT_CPU ||
			     out.cat == COSCHED_CAT_LIM)) {
				out.cat = COSCHED_CAT_RAND;
				out.lca = cosched_category_to_lca(out.cat);
			}
			/* The 2013 gang-scheduling thesis, "Limitations":
			 * without cache-to-core counters random access looks
			 * like cpu (MPKI ~0.01). */
			if (declared == COSCHED_CAT_RAND &&
			    isnan(d->llc_to_core_bw) &&
			    (out.cat == COSCHED_CAT_CPU ||
			     out.cat == COSCHED_CAT_LIM)) {
				out.cat = COSCHED_CAT_RAND;
				out.lca = cosched_category_to_lca(out.cat);
				out.source = COSCHED_CLASS_FROM_DECLARED;
			}
			if (out.lca == COSCHED_LCA_UNKNOWN)
				out.lca = cosched_category_to_lca(out.cat);
			return out;
		}
	}
	/* No counters to decide: a characterisation by co-run
	 * (cosched-characterise) does, as the 2013 gang-scheduling thesis
	 * classified its benchmarks. */
	if (profile && profile->corun.present &&
	    profile->corun.cat < COSCHED_CAT_UNKNOWN) {
		out.cat = profile->corun.cat;
		out.lca = profile->corun.lca < COSCHED_LCA_UNKNOWN ?
			  profile->corun.lca : cosched_category_to_lca(out.cat);
		out.source = COSCHED_CLASS_FROM_PROFILE;
		return out;
	}
	if (declared != COSCHED_CAT_UNKNOWN) {
		out.cat = declared;
		out.lca = cosched_category_to_lca(declared);
		out.source = COSCHED_CLASS_FROM_DECLARED;
	}
	return out;
}

static const char *const source_names[COSCHED_CLASS_FROM_COUNT] = {
	[COSCHED_CLASS_FROM_NONE] = "none",
	[COSCHED_CLASS_FROM_PROFILE] = "profile",
	[COSCHED_CLASS_FROM_DECLARED] = "declared",
	[COSCHED_CLASS_FROM_DEFAULT] = "default",
};

const char *cosched_class_source_name(cosched_class_source_t s)
{
	return cosched_name_of(source_names, COSCHED_CLASS_FROM_COUNT, (int) s,
			       "unknown");
}
