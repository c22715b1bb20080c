/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * interference.h - predicted slowdown of a job among co-runners.
 *
 * Pairwise slowdowns come from the Sandy Bridge class-average table of
 * "Effects of co-scheduling applications on multicore architectures"
 * (diploma thesis, NTUA CSLab, 2014; LCA classes of Haritatos et al., PACT
 * 2014; row = victim, column = co-runner); pairs that must never share a
 * socket come from the preference table ("-" cells) of "Power-aware gang
 * scheduling on multicore" (NTUA thesis, 2013).  Both are replaceable from
 * cosched.conf (Interference=, PreferenceTable=).
 */
#ifndef COSCHED_INTERFERENCE_H
#define COSCHED_INTERFERENCE_H

#include <math.h>
#include <stdbool.h>

#include "src/libcosched/model/category.h"
#include "src/libcosched/model/classify.h"
#include "src/libcosched/base/error.h"

/* Largest slowdown a configuration may give one pair (the 2014 co-scheduling
 * thesis saw 12x). */
#define COSCHED_SLOWDOWN_MAX 100.0
/* Largest rank a PreferenceTable entry may give. */
#define COSCHED_PREF_RANK_MAX 100

typedef struct {
	/* slowdown[victim][corunner], LCA classes; 1 = none */
	double slowdown[COSCHED_LCA_COUNT][COSCHED_LCA_COUNT];
	/* the preference table of the 2013 gang-scheduling thesis */
	cosched_pref_table_t pref;
} cosched_interference_model_t;

typedef struct {
	double slowdown;	/* predicted t_co-run / t_solo of the victim */
	bool forbidden;		/* some co-runner is a "-" pair with the victim */
	int forbidden_with;	/* index of the first such co-runner, else -1 */
} cosched_prediction_t;

/* The Sandy Bridge table of the 2014 co-scheduling thesis and the preference
 * table of the 2013 gang-scheduling thesis. */
void cosched_interference_default(cosched_interference_model_t *m);

/*
 * Slowdown of victim next to one co-runner.  An unknown class is taken as
 * the worst case of its row or column (the 2013 gang-scheduling thesis,
 * "Limitations": hidden sensitivity is what makes Miss-Rate Balance
 * catastrophic).
 */
double cosched_interference_pair(const cosched_interference_model_t *m,
				 cosched_lca_t victim, cosched_lca_t corunner);

/*
 * Predicted slowdown of victim sharing a socket/node with n co-runners.
 * Classes give the LCA class (when UNKNOWN it is mapped from the
 * category).  Rule for n > 1: excess slowdowns add,
 *   s = 1 + sum_i (s_i - 1),
 * never below the smallest pairwise s_i; see model/interference.c.
 * n = 0 gives 1.  Returns 0, or -1 when n < 0 or corunners is NULL with n > 0.
 */
int cosched_interference_predict(const cosched_interference_model_t *m,
				 const cosched_class_t *victim,
				 const cosched_class_t *corunners, int n,
				 cosched_prediction_t *out,
				 cosched_error_t *err);

/* The rule above from a victim's pairwise figures: n co-runners, sum =
 * 1 plus their excesses (s_i - 1) added in turn, the smallest s_i being
 * smallest_pair.  Inline and shared: the placement policy computes it
 * from category counts for every socket it considers. */
static inline double cosched_interference_combine(double sum,
						  double smallest_pair, int n)
{
	return n > 0 ? fmax(sum, smallest_pair) : 1.0;
}

/* The smallest and largest slowdown of m's table: the range a learned
 * cell is held to (model/learn.h), so that measurements can refine the
 * configured table but never leave what the site configured. */
void cosched_interference_range(const cosched_interference_model_t *m,
				double *lo, double *hi);

/* Whether two jobs may share a gang at all (both directions of the
 * preference table). */
bool cosched_interference_allowed(const cosched_interference_model_t *m,
				  const cosched_class_t *a,
				  const cosched_class_t *b);

/*
 * Apply a configuration override.  field names the source for messages.
 *   Interference:    "VICTIM:CORUNNER=SLOWDOWN[,...]", LCA names,
 *                    0 < SLOWDOWN <= COSCHED_SLOWDOWN_MAX, e.g. "C:L=2.5"
 *   PreferenceTable: "APP:PARTNER=RANK|-[,...]", category names,
 *                    RANK 1..100 or "-" (forbidden), e.g. "lim:rand=-"
 * Names in any case; numbers in plain decimal (no hexadecimal, inf, nan);
 * an empty entry ("C:L=2,,") is refused.  All-or-nothing: on error the
 * model is unchanged.
 */
int cosched_interference_override(cosched_interference_model_t *m,
				  const char *field, const char *spec,
				  cosched_error_t *err);
int cosched_preference_override(cosched_pref_table_t *t, const char *field,
				const char *spec, cosched_error_t *err);

#endif
