/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * classify.h - classify an application from its measured profile.
 *
 * Two taxonomies (model/category.h, where the works are cited): the
 * cpu/lim/mem/rand of "Power-aware gang scheduling on multicore" (NTUA thesis,
 * 2013), which the gang policies use, and the LCA N/C/LC/L of "Effects of
 * co-scheduling applications on multicore architectures" (NTUA thesis, 2014)
 * (Haritatos et al., PACT 2014), which the interference model uses.  The
 * derivation of every default threshold is in model/classify.c and in
 * cosched.conf(5).
 */
#ifndef COSCHED_CLASSIFY_H
#define COSCHED_CLASSIFY_H

#include <stddef.h>

#include "src/libcosched/model/category.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/model/profile.h"

/*
 * Category thresholds of the 2013 gang-scheduling thesis (cosched.conf keys
 * in brackets).  Defaults are derived from its "Application categories" and
 * "Workload used for the headline comparison"; see model/classify.c.
 */
typedef struct {
	double mem_bw_fraction;	/* [ClassifyMemBandwidthFraction] 0.5 */
	double mem_mpki;	/* [ClassifyMemMPKI] 4.0, only without bw fraction */
	double lim_bw_fraction;	/* [ClassifyLimBandwidthFraction] 0.1 */
	double lim_mpki;	/* [ClassifyLimMPKI] 0.5 */
	double rand_reuse;	/* [ClassifyRandReuse] 10: L3->L2 bytes per memory byte */
	double rand_cache_bw;	/* [ClassifyRandCacheBandwidth] 0.15: L3->L2 per thread,
				 * fraction of CorePeakBandwidth */
} cosched_cat_thresholds_t;

/*
 * The 2014 co-scheduling thesis, "Classification thresholds": fractions of the
 * per-core peak memory bandwidth B_max (alpha, beta, gamma), a fraction of uops
 * (delta) and a fraction of the peak IPC (epsilon).
 */
typedef struct {
	double alpha;		/* [LcaAlpha] 0.5 */
	double beta;		/* [LcaBeta] 0.025 */
	double gamma;		/* [LcaGamma] 0.15 */
	double delta;		/* [LcaDelta] 0.25 */
	double epsilon;		/* [LcaEpsilon] 0.25 */
	double core_peak_bw_mbs;	/* [CorePeakBandwidth] B_max, MB/s: 14000 */
	double core_peak_ipc;		/* [CorePeakIPC] IPC_max: 4 */
} cosched_lca_params_t;

/* The LCA thresholds in absolute units (the 2014 co-scheduling thesis: for
 * B_max = 14 GB/s and IPC_max = 4, alpha = 7 GB/s, beta = 0.35 GB/s,
 * gamma = 2 GB/s (2.1 unrounded), delta = 0.25, epsilon = 1). */
typedef struct {
	double alpha_mbs, beta_mbs, gamma_mbs;
	double delta;
	double epsilon_ipc;
} cosched_lca_abs_t;

typedef struct {
	cosched_cat_thresholds_t cat;
	cosched_lca_params_t lca;
} cosched_classify_conf_t;

/* Where an effective class came from. */
typedef enum {
	COSCHED_CLASS_FROM_NONE = 0,	/* neither measured nor declared */
	COSCHED_CLASS_FROM_PROFILE,	/* measured profile */
	COSCHED_CLASS_FROM_DECLARED,	/* the user's --cosched-class */
	COSCHED_CLASS_FROM_DEFAULT,	/* the site's DefaultClass */
	COSCHED_CLASS_FROM_COUNT
} cosched_class_source_t;

/* A job's class in both taxonomies. */
typedef struct {
	cosched_category_t cat;
	cosched_lca_t lca;
	cosched_class_source_t source;
} cosched_class_t;

void cosched_classify_conf_default(cosched_classify_conf_t *c);
/* Range and consistency checks; messages name the cosched.conf keys. */
int cosched_classify_conf_check(const cosched_classify_conf_t *c,
				cosched_error_t *err);
/* Set one threshold by its cosched.conf key (case-insensitive) after the
 * range check of cosched_classify_conf_check (the one place the ranges
 * are written); text (may be NULL) is the value as written, for the
 * message.  On error c is unchanged. */
int cosched_classify_key_set(cosched_classify_conf_t *c, const char *key,
			     double v, const char *text, cosched_error_t *err);

void cosched_lca_thresholds(const cosched_lca_params_t *p,
			    cosched_lca_abs_t *out);

/*
 * Category (of the 2013 gang-scheduling thesis) of derived metrics;
 * COSCHED_CAT_UNKNOWN when IPC or MPKI is unknown.  reason (may be NULL)
 * receives the deciding comparison.
 */
cosched_category_t cosched_classify_category(const cosched_classify_conf_t *c,
					     const cosched_derived_t *d,
					     char *reason, size_t reason_len);

/* LCA class of the 2014 co-scheduling thesis, in its decision order. */
cosched_lca_t cosched_classify_lca(const cosched_classify_conf_t *c,
				   const cosched_derived_t *d,
				   char *reason, size_t reason_len);

/*
 * The effective class of a job: its measured profile when it holds data
 * (profile may be NULL), else the profile's characterisation by co-run
 * (model/corun.h) when it decided a category, else the declared category
 * (COSCHED_CAT_UNKNOWN = not declared), else unknown.  A co-run rand also wins
 * over a measured cpu or lim that lacks cache-to-core counters (see below);
 * the source is COSCHED_CLASS_FROM_PROFILE.  One exception, from
 * the 2013 gang-scheduling thesis, "Limitations": a profile without
 * cache-to-core counters cannot show random access (its standalone MPKI is
 * ~0.01, like cpu), so a declared rand wins over a measured cpu or lim that
 * lacks those counters.
 */
cosched_class_t cosched_classify_effective(const cosched_classify_conf_t *c,
					   const cosched_profile_t *profile,
					   cosched_category_t declared);

const char *cosched_class_source_name(cosched_class_source_t s);

#endif
