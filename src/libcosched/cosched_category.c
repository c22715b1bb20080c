/* cosched_category.c - names, parsing and seed 002's preference table. */
#include <stdbool.h>
#include <string.h>

#include "cosched_category.h"
#include "cosched_nametable.h"

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
	/* unsigned: a negative value is out of the table too */
	if ((unsigned) a >= COSCHED_CAT_COUNT || (unsigned) b >= COSCHED_CAT_COUNT)
		return 1;	/* unknown behaviour: no rule forbids it */
	return t->pref[a][b] != COSCHED_PREF_FORBIDDEN &&
	       t->pref[b][a] != COSCHED_PREF_FORBIDDEN;
}
