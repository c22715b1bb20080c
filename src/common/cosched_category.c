/* cosched_category.c - names, parsing and seed 002's preference table. */
#include <string.h>

#include "cosched_category.h"

static const char *const cat_names[COSCHED_CAT_COUNT] = {
	"cpu", "lim", "mem", "rand"
};

static const char *const lca_names[COSCHED_LCA_COUNT] = {
	"N", "C", "LC", "L"
};

const char *cosched_category_name(cosched_category_t cat)
{
	if (cat < 0 || cat >= COSCHED_CAT_COUNT)
		return "unknown";
	return cat_names[cat];
}

int cosched_category_parse(const char *field, const char *str,
			   cosched_category_t *out, cosched_error_t *err)
{
	for (int i = 0; i < COSCHED_CAT_COUNT; i++) {
		if (str && !strcmp(str, cat_names[i])) {
			*out = (cosched_category_t) i;
			return 0;
		}
	}
	return cosched_error_set(err,
		"%s: invalid value \"%s\" (allowed: cpu, lim, mem, rand)",
		field, str ? str : "");
}

const char *cosched_lca_name(cosched_lca_t lca)
{
	if (lca < 0 || lca >= COSCHED_LCA_COUNT)
		return "unknown";
	return lca_names[lca];
}

int cosched_lca_parse(const char *field, const char *str, cosched_lca_t *out,
		      cosched_error_t *err)
{
	for (int i = 0; i < COSCHED_LCA_COUNT; i++) {
		if (str && !strcmp(str, lca_names[i])) {
			*out = (cosched_lca_t) i;
			return 0;
		}
	}
	return cosched_error_set(err,
		"%s: invalid value \"%s\" (allowed: N, C, LC, L)",
		field, str ? str : "");
}

void cosched_pref_table_default(cosched_pref_table_t *t)
{
	/* Seed 002, "Application categories", preference table. */
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
	if (a >= COSCHED_CAT_COUNT || b >= COSCHED_CAT_COUNT)
		return 1;	/* unknown behaviour: no rule forbids it */
	return t->pref[a][b] != COSCHED_PREF_FORBIDDEN &&
	       t->pref[b][a] != COSCHED_PREF_FORBIDDEN;
}
