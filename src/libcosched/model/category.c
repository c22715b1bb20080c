/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model/category.c - names, parsing and the preference table of
 * "Power-aware gang scheduling on multicore" (NTUA thesis, 2013). */
#include <stdbool.h>
#include <string.h>

#include "src/libcosched/model/category.h"
#include "src/libcosched/base/nametable.h"

static const char *const cat_names[COSCHED_CAT_COUNT] = {
	"cpu", "lim", "mem", "rand"
};

static const char *const lca_names[COSCHED_LCA_COUNT] = {
	"N", "C", "LC", "L"
};

const char *cosched_category_name(cosched_category_t cat)
{
	return cosched_name_of(cat_names, COSCHED_CAT_COUNT, (int) cat,
			       "unknown");
}

static int category_parse(const char *field, const char *str, bool ignore_case,
			  cosched_category_t *out, cosched_error_t *err)
{
	int i = cosched_name_parse(field, "category", cat_names, 0,
				   COSCHED_CAT_COUNT, str, ignore_case, err);

	if (i < 0)
		return -1;
	*out = (cosched_category_t) i;
	return 0;
}

int cosched_category_parse(const char *field, const char *str,
			   cosched_category_t *out, cosched_error_t *err)
{
	return category_parse(field, str, false, out, err);
}

int cosched_category_parse_nocase(const char *field, const char *str,
				  cosched_category_t *out, cosched_error_t *err)
{
	return category_parse(field, str, true, out, err);
}

const char *cosched_lca_name(cosched_lca_t lca)
{
	return cosched_name_of(lca_names, COSCHED_LCA_COUNT, (int) lca,
			       "unknown");
}

static int lca_parse(const char *field, const char *str, bool ignore_case,
		     cosched_lca_t *out, cosched_error_t *err)
{
	int i = cosched_name_parse(field, "LCA class", lca_names, 0,
				   COSCHED_LCA_COUNT, str, ignore_case, err);

	if (i < 0)
		return -1;
	*out = (cosched_lca_t) i;
	return 0;
}

int cosched_lca_parse(const char *field, const char *str, cosched_lca_t *out,
		      cosched_error_t *err)
{
	return lca_parse(field, str, false, out, err);
}

int cosched_lca_parse_nocase(const char *field, const char *str,
			     cosched_lca_t *out, cosched_error_t *err)
{
	return lca_parse(field, str, true, out, err);
}

void cosched_pref_table_default(cosched_pref_table_t *t)
{
	/* The 2013 gang-scheduling thesis, "Application categories", preference
	 * table. */
	static const int def[COSCHED_CAT_COUNT][COSCHED_CAT_COUNT] = {
		/*           cpu lim mem rand */
		/* cpu  */ { 1,  1,  1,  1 },
		/* lim  */ { 1,  2,  3,  COSCHED_PREF_FORBIDDEN },
		/* mem  */ { 1,  2,  COSCHED_PREF_FORBIDDEN, COSCHED_PREF_FORBIDDEN },
		/* rand */ { 2,  COSCHED_PREF_FORBIDDEN, COSCHED_PREF_FORBIDDEN, 1 },
	};
	memcpy(t->pref, def, sizeof(def));
}

int cosched_pref_allowed(const cosched_pref_table_t *t,
			 cosched_category_t a, cosched_category_t b)
{
	/* unsigned: a negative value is out of the table too */
	if ((unsigned) a >= COSCHED_CAT_COUNT || (unsigned) b >= COSCHED_CAT_COUNT)
		return 1;	/* unknown behaviour: no rule forbids it */
	return t->pref[a][b] != COSCHED_PREF_FORBIDDEN &&
	       t->pref[b][a] != COSCHED_PREF_FORBIDDEN;
}

/*
 * Mapping between the taxonomies (one-to-one; both directions), in the
 * words of the 2013 gang-scheduling thesis first and "Effects of co-scheduling
 * applications on multicore architectures" (NTUA thesis, 2014) second:
 *   cpu  <-> N   working set in L1/L2, "barely slowed by anyone";
 *                private caches only, row N of the table ~1.0.
 *   rand <-> C   "depends on LLC reuse", catastrophic next to lim or mem;
 *                reuses the shared cache, C next to L is the largest
 *                slowdown (random C up to 8.2x).
 *   lim  <-> LC  exceeds L1/L2, moderate bandwidth (~25%), 1.25x next to
 *                lim or mem; uses link and cache, LC-LC moderate (1.34
 *                average).
 *   mem  <-> L   streams, ~80% bandwidth, mem-mem ~2x; streams through
 *                the link, L-L up to ~2x.
 * The mapping is by behaviour, not by thresholds: a multithreaded mem
 * program spreads its bandwidth over its threads and may measure LC per
 * core.  Measured programs are classified in both taxonomies directly; the
 * mapping serves declared classes and configured tables.
 */
static const cosched_lca_t cat_to_lca[COSCHED_CAT_COUNT] = {
	[COSCHED_CAT_CPU] = COSCHED_LCA_N,
	[COSCHED_CAT_RAND] = COSCHED_LCA_C,
	[COSCHED_CAT_LIM] = COSCHED_LCA_LC,
	[COSCHED_CAT_MEM] = COSCHED_LCA_L,
};

static const cosched_category_t lca_to_cat[COSCHED_LCA_COUNT] = {
	[COSCHED_LCA_N] = COSCHED_CAT_CPU,
	[COSCHED_LCA_C] = COSCHED_CAT_RAND,
	[COSCHED_LCA_LC] = COSCHED_CAT_LIM,
	[COSCHED_LCA_L] = COSCHED_CAT_MEM,
};

cosched_lca_t cosched_category_to_lca(cosched_category_t cat)
{
	if ((unsigned) cat >= COSCHED_CAT_COUNT)
		return COSCHED_LCA_UNKNOWN;
	return cat_to_lca[cat];
}

cosched_category_t cosched_lca_to_category(cosched_lca_t lca)
{
	if ((unsigned) lca >= COSCHED_LCA_COUNT)
		return COSCHED_CAT_UNKNOWN;
	return lca_to_cat[lca];
}
