/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * interference.c - predicted slowdown among co-runners.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/model/interference.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"

void cosched_interference_default(cosched_interference_model_t *m)
{
	/*
	 * "Effects of co-scheduling applications on multicore architectures"
	 * (NTUA thesis, 2014), "Measured class-average slowdowns (Sandy Bridge,
	 * row = victim, column = co-runner)": two cores sharing only the LLC
	 * and the memory link, which is what two jobs on one socket share.
	 */
	static const double sandy_bridge[COSCHED_LCA_COUNT][COSCHED_LCA_COUNT] = {
		/*           N     C     LC    L   */
		/* N  */ { 1.00, 1.02, 1.10, 1.07 },
		/* C  */ { 1.00, 1.06, 1.27, 2.15 },
		/* LC */ { 1.00, 1.06, 1.34, 1.76 },
		/* L  */ { 1.00, 1.00, 1.12, 1.30 },
	};

	memcpy(m->slowdown, sandy_bridge, sizeof(sandy_bridge));
	/* The preference table of "Power-aware gang scheduling on multicore"
	 * (NTUA thesis, 2013). */
	cosched_pref_table_default(&m->pref);
}

static double row_max(const cosched_interference_model_t *m, int r)
{
	double x = 0.0;
	for (int c = 0; c < COSCHED_LCA_COUNT; c++)
		x = fmax(x, m->slowdown[r][c]);
	return x;
}

static double col_max(const cosched_interference_model_t *m, int c)
{
	double x = 0.0;
	for (int r = 0; r < COSCHED_LCA_COUNT; r++)
		x = fmax(x, m->slowdown[r][c]);
	return x;
}

double cosched_interference_pair(const cosched_interference_model_t *m,
				 cosched_lca_t victim, cosched_lca_t corunner)
{
	bool vk = victim >= 0 && victim < COSCHED_LCA_COUNT;
	bool ck = corunner >= 0 && corunner < COSCHED_LCA_COUNT;
	double x = 0.0;

	if (vk && ck)
		return m->slowdown[victim][corunner];
	/* Unknown: assume the worst the table holds for the known side. */
	if (vk)
		return row_max(m, victim);
	if (ck)
		return col_max(m, corunner);
	for (int r = 0; r < COSCHED_LCA_COUNT; r++)
		x = fmax(x, row_max(m, r));
	return x;
}

static cosched_lca_t lca_of(const cosched_class_t *c)
{
	if (c->lca >= 0 && c->lca < COSCHED_LCA_COUNT)
		return c->lca;
	return cosched_category_to_lca(c->cat);
}

bool cosched_interference_allowed(const cosched_interference_model_t *m,
				  const cosched_class_t *a,
				  const cosched_class_t *b)
{
	return cosched_pref_allowed(&m->pref, a->cat, b->cat);
}

/*
 * More than one co-runner.  The 2014 co-scheduling thesis measured pairs
 * only.  We add the excess slowdowns: s = 1 + sum_i (s_i - 1).  Why additive
 * rather than the product of the s_i:
 *  - the excess of a pair is, to first order, the co-runner's demand on the
 *    shared LLC and memory link relative to their capacity, and the demands
 *    of several co-runners add up on the same resources;
 *  - it equals the pairwise figure for one co-runner and never falls below
 *    the worst pair, so adding a co-runner never predicts an improvement
 *    unless its own entry is a speed-up (< 1, the 2014 co-scheduling thesis:
 *    small N programs can speed up when paired);
 *  - the product compounds: C with three L co-runners would give
 *    2.15^3 = 9.9, beyond the worst single pair the 2014 co-scheduling
 *    thesis measured on this machine (8.2x) for the average case, while the
 *    sum gives 4.45.
 * The result is floored at the smallest pairwise s_i so that several
 * speed-ups cannot compound into a nonsensical figure.
 */
int cosched_interference_predict(const cosched_interference_model_t *m,
				 const cosched_class_t *victim,
				 const cosched_class_t *corunners, int n,
				 cosched_prediction_t *out,
				 cosched_error_t *err)
{
	double sum = 1.0, smallest = INFINITY;
	cosched_lca_t v;

	if (n < 0 || (n > 0 && !corunners))
		return cosched_error_set(err,
			"interference: invalid co-runner list (%d entries)", n);
	v = lca_of(victim);
	out->slowdown = 1.0;
	out->forbidden = false;
	out->forbidden_with = -1;
	for (int i = 0; i < n; i++) {
		double s = cosched_interference_pair(m, v, lca_of(&corunners[i]));
		sum += s - 1.0;
		smallest = fmin(smallest, s);
		if (!out->forbidden &&
		    !cosched_interference_allowed(m, victim, &corunners[i])) {
			out->forbidden = true;
			out->forbidden_with = i;
		}
	}
	out->slowdown = cosched_interference_combine(sum, smallest, n);
	return 0;
}

void cosched_interference_range(const cosched_interference_model_t *m,
				double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = 0.0;
	for (int v = 0; v < COSCHED_LCA_COUNT; v++)
		for (int c = 0; c < COSCHED_LCA_COUNT; c++) {
			*lo = fmin(*lo, m->slowdown[v][c]);
			*hi = fmax(*hi, m->slowdown[v][c]);
		}
}

/* --- overrides ---------------------------------------------------------- */

/* One "A:B=V" entry of an override list, its parts trimmed. */
typedef int (*entry_fn)(void *table, const char *field, const char *a,
			const char *b, const char *v, cosched_error_t *err);

/*
 * The one parser of "A:B=V[,A:B=V...]" lists (Interference=,
 * PreferenceTable=): every entry must be present (no empty entry between
 * commas or at either end) and have its three parts; apply() checks and
 * stores the values.  Returns 0 or -1 with a message naming field.
 */
static int parse_list(const char *field, const char *spec, const char *form,
		      entry_fn apply, void *table, cosched_error_t *err)
{
	char *copy, *item, *next;
	int rc = 0;

	if (!spec || !(copy = strdup(spec)))
		return cosched_error_set(err, "%s: missing value", field);
	if (!*cosched_trim(copy)) {
		free(copy);
		return cosched_error_set(err, "%s: missing value", field);
	}
	strcpy(copy, spec);
	for (item = copy; item && !rc; item = next) {
		char *colon, *eq, *entry;

		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		entry = cosched_trim(item);
		if (!*entry) {
			rc = cosched_error_set(err,
				"%s: empty entry in %s (expected %s)", field,
				COSCHED_QUOTE(spec), form);
			break;
		}
		colon = strchr(entry, ':');
		eq = strchr(entry, '=');
		if (!colon || !eq || eq < colon) {
			rc = cosched_error_set(err,
				"%s: invalid entry %s (expected %s)", field,
				COSCHED_QUOTE(entry), form);
			break;
		}
		*colon = '\0';
		*eq = '\0';
		rc = apply(table, field, cosched_trim(entry),
			   cosched_trim(colon + 1), cosched_trim(eq + 1), err);
	}
	free(copy);
	return rc;
}

static int slowdown_entry(void *table, const char *field, const char *a,
			  const char *b, const char *v, cosched_error_t *err)
{
	cosched_interference_model_t *m = table;
	cosched_lca_t victim, corunner;
	double s;

	if (cosched_lca_parse_nocase(field, a, &victim, err) ||
	    cosched_lca_parse_nocase(field, b, &corunner, err))
		return -1;
	if (cosched_parse_number(v, &s))
		return cosched_error_set(err,
			"%s: invalid slowdown %s for %s:%s (expected a number, 0 < slowdown <= %g)",
			field, COSCHED_QUOTE(v), cosched_lca_name(victim),
			cosched_lca_name(corunner), COSCHED_SLOWDOWN_MAX);
	if (!(s > 0.0 && s <= COSCHED_SLOWDOWN_MAX))
		return cosched_error_set(err,
			"%s: slowdown %s for %s:%s out of range (0 < slowdown <= %g)",
			field, COSCHED_QUOTE(v), cosched_lca_name(victim),
			cosched_lca_name(corunner), COSCHED_SLOWDOWN_MAX);
	m->slowdown[victim][corunner] = s;
	return 0;
}

static int rank_entry(void *table, const char *field, const char *a,
		      const char *b, const char *v, cosched_error_t *err)
{
	cosched_pref_table_t *t = table;
	cosched_category_t app, partner;
	long rank;

	if (cosched_category_parse_nocase(field, a, &app, err) ||
	    cosched_category_parse_nocase(field, b, &partner, err))
		return -1;
	if (!strcmp(v, "-")) {
		t->pref[app][partner] = COSCHED_PREF_FORBIDDEN;
		return 0;
	}
	if (cosched_parse_long(v, &rank) || rank < 1 || rank > COSCHED_PREF_RANK_MAX)
		return cosched_error_set(err,
			"%s: rank %s for %s:%s out of range (1..%d, or - for forbidden)",
			field, COSCHED_QUOTE(v), cosched_category_name(app),
			cosched_category_name(partner), COSCHED_PREF_RANK_MAX);
	t->pref[app][partner] = (int) rank;
	return 0;
}

int cosched_interference_override(cosched_interference_model_t *m,
				  const char *field, const char *spec,
				  cosched_error_t *err)
{
	cosched_interference_model_t tmp = *m;

	if (!field)
		field = "Interference";
	if (parse_list(field, spec, "VICTIM:CORUNNER=SLOWDOWN, e.g. C:L=2.5",
		       slowdown_entry, &tmp, err))
		return -1;
	*m = tmp;	/* all or nothing */
	return 0;
}

int cosched_preference_override(cosched_pref_table_t *t, const char *field,
				const char *spec, cosched_error_t *err)
{
	cosched_pref_table_t tmp = *t;

	if (!field)
		field = "PreferenceTable";
	if (parse_list(field, spec,
		       "APP:PARTNER=RANK or APP:PARTNER=-, e.g. lim:rand=-",
		       rank_entry, &tmp, err))
		return -1;
	*t = tmp;	/* all or nothing */
	return 0;
}
