/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * category.h - the two application taxonomies cosched uses.
 *
 * "Power-aware gang scheduling on multicore" (diploma thesis, NTUA CSLab,
 * 2013) sorts programs into four categories by how they use the memory
 * hierarchy: cpu, lim (limited memory), mem (memory-intensive) and rand
 * (random access).  "Effects of co-scheduling applications on multicore
 * architectures" (diploma thesis, NTUA CSLab, 2014) uses the LCA classes N,
 * C, LC and L of Haritatos et al., "LCA: a memory link and cache-aware
 * co-scheduling approach for CMPs", PACT 2014.  Both are kept: the gang
 * policies speak the language of the 2013 gang-scheduling thesis, the
 * interference model that of the 2014 co-scheduling thesis.  The mapping
 * between them is in model/classify.h.
 */
#ifndef COSCHED_CATEGORY_H
#define COSCHED_CATEGORY_H

#include "src/libcosched/base/error.h"

typedef enum {
	COSCHED_CAT_CPU = 0,	/* working set fits in L1/L2, scales well */
	COSCHED_CAT_LIM,	/* exceeds L1/L2, small LLC footprint */
	COSCHED_CAT_MEM,	/* streams through memory, may exceed LLC */
	COSCHED_CAT_RAND,	/* random access, lives on LLC reuse */
	COSCHED_CAT_COUNT,
	COSCHED_CAT_UNKNOWN = COSCHED_CAT_COUNT
} cosched_category_t;

typedef enum {
	COSCHED_LCA_N = 0,	/* private caches only */
	COSCHED_LCA_C,		/* reuses the shared cache */
	COSCHED_LCA_LC,		/* memory link and shared cache */
	COSCHED_LCA_L,		/* streams through the memory link */
	COSCHED_LCA_COUNT,
	COSCHED_LCA_UNKNOWN = COSCHED_LCA_COUNT
} cosched_lca_t;

/* "cpu", "lim", "mem", "rand" or "unknown". */
const char *cosched_category_name(cosched_category_t cat);
/* Parse a category name (case-sensitive, as the user types it).  Returns 0
 * or -1 with an error naming the field and the allowed values. */
int cosched_category_parse(const char *field, const char *str,
			   cosched_category_t *out, cosched_error_t *err);
/* The same, in any case (cosched.conf values, e.g. "LIM"). */
int cosched_category_parse_nocase(const char *field, const char *str,
				  cosched_category_t *out, cosched_error_t *err);

/* "N", "C", "LC", "L" or "unknown". */
const char *cosched_lca_name(cosched_lca_t lca);
int cosched_lca_parse(const char *field, const char *str, cosched_lca_t *out,
		      cosched_error_t *err);
int cosched_lca_parse_nocase(const char *field, const char *str,
			     cosched_lca_t *out, cosched_error_t *err);

/* The mapping between the taxonomies (by behaviour, see
 * model/category.c): cpu <-> N, rand <-> C, lim <-> LC, mem <-> L;
 * unknown <-> unknown.  Here, beside both names, so that every module of
 * the model (classification, co-run characterisation) reaches it without
 * depending on another. */
cosched_lca_t cosched_category_to_lca(cosched_category_t cat);
cosched_category_t cosched_lca_to_category(cosched_lca_t lca);

/*
 * The preference table of the 2013 gang-scheduling thesis ("Application
 * categories"): row is the application, column the partner; lower is preferred,
 * COSCHED_PREF_FORBIDDEN marks a pair that must never share a gang.
 *
 *          cpu lim mem rand
 *    cpu    1   1   1   1
 *    lim    1   2   3   -
 *    mem    1   2   -   -
 *    rand   2   -   -   1
 */
#define COSCHED_PREF_FORBIDDEN 0

typedef struct {
	int pref[COSCHED_CAT_COUNT][COSCHED_CAT_COUNT];
} cosched_pref_table_t;

/* Fill *t with the table above, from the 2013 gang-scheduling thesis. */
void cosched_pref_table_default(cosched_pref_table_t *t);

/* Whether two categories may share a gang: both directions must allow it
 * (the table is not symmetric, e.g. rand/cpu = 2 but cpu/rand = 1).  A
 * category outside the table (unknown, or any out-of-range value) is
 * forbidden by no rule. */
int cosched_pref_allowed(const cosched_pref_table_t *t,
			 cosched_category_t a, cosched_category_t b);

#endif
