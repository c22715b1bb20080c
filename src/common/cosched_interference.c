/*
 * cosched_interference.c - predicted slowdown among co-runners.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cosched_interference.h"

void cosched_interference_default(cosched_interference_model_t *m)
{
	/*
	 * Seed 001 "Measured class-average slowdowns (Sandy Bridge, row =
	 * victim, column = co-runner)": two cores sharing only the LLC and the
	 * memory link, which is what two jobs on one socket share.
	 */
	static const double sandy_bridge[COSCHED_LCA_COUNT][COSCHED_LCA_COUNT] = {
		/*           N     C     LC    L   */
		/* N  */ { 1.00, 1.02, 1.10, 1.07 },
		/* C  */ { 1.00, 1.06, 1.27, 2.15 },
		/* LC */ { 1.00, 1.06, 1.34, 1.76 },
		/* L  */ { 1.00, 1.00, 1.12, 1.30 },
	};

	memcpy(m->slowdown, sandy_bridge, sizeof(sandy_bridge));
	cosched_pref_table_default(&m->pref);	/* seed 002 */
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
 * More than one co-runner.  Seed 001 measured pairs only.  We add the
 * excess slowdowns: s = 1 + sum_i (s_i - 1).  Why additive rather than the
 * product of the s_i:
 *  - the excess of a pair is, to first order, the co-runner's demand on the
 *    shared LLC and memory link relative to their capacity, and the demands
 *    of several co-runners add up on the same resources;
 *  - it equals the pairwise figure for one co-runner and never falls below
 *    the worst pair, so adding a co-runner never predicts an improvement
 *    unless its own entry is a speed-up (< 1, seed 001: small N programs can
 *    speed up when paired);
 *  - the product compounds: C with three L co-runners would give
 *    2.15^3 = 9.9, beyond seed 001's worst measured single pair on this
 *    machine (8.2x) for the average case, while the sum gives 4.45.
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
	if (n > 0)
		out->slowdown = fmax(sum, smallest);
	return 0;
}

/* --- overrides ---------------------------------------------------------- */

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char) *s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char) e[-1]))
		*--e = '\0';
	return s;
}

/*
 * Split "A:B=V" into its three parts (in place).  Returns 0 or -1 with a
 * message naming field and item.
 */
static int split_item(const char *field, char *item, char **a, char **b,
		      char **v, const char *form, cosched_error_t *err)
{
	char *colon = strchr(item, ':'), *eq = strchr(item, '=');

	if (!colon || !eq || eq < colon)
		return cosched_error_set(err,
			"%s: invalid entry \"%s\" (expected %s)", field,
			trim(item), form);
	*colon = '\0';
	*eq = '\0';
	*a = trim(item);
	*b = trim(colon + 1);
	*v = trim(eq + 1);
	return 0;
}

static int lca_parse_ci(const char *field, const char *s, cosched_lca_t *out,
			cosched_error_t *err)
{
	static const char *const names[] = { "N", "C", "LC", "L" };
	for (int i = 0; i < COSCHED_LCA_COUNT; i++)
		if (!strcasecmp(s, names[i])) {
			*out = (cosched_lca_t) i;
			return 0;
		}
	return cosched_error_set(err,
		"%s: invalid LCA class \"%s\" (allowed: N, C, LC, L)", field, s);
}

static int cat_parse_ci(const char *field, const char *s,
			cosched_category_t *out, cosched_error_t *err)
{
	static const char *const names[] = { "cpu", "lim", "mem", "rand" };
	for (int i = 0; i < COSCHED_CAT_COUNT; i++)
		if (!strcasecmp(s, names[i])) {
			*out = (cosched_category_t) i;
			return 0;
		}
	return cosched_error_set(err,
		"%s: invalid category \"%s\" (allowed: cpu, lim, mem, rand)",
		field, s);
}

int cosched_interference_override(cosched_interference_model_t *m,
				  const char *field, const char *spec,
				  cosched_error_t *err)
{
	cosched_interference_model_t tmp = *m;
	char *copy, *save = NULL, *item;
	int rc = 0, items = 0;

	if (!field)
		field = "Interference";
	if (!spec || !(copy = strdup(spec)))
		return cosched_error_set(err, "%s: missing value", field);
	for (item = strtok_r(copy, ",", &save); item && !rc;
	     item = strtok_r(NULL, ",", &save)) {
		char *a, *b, *v, *end;
		cosched_lca_t victim = COSCHED_LCA_N, corunner = COSCHED_LCA_N;
		double s;

		if (split_item(field, item, &a, &b, &v,
			       "VICTIM:CORUNNER=SLOWDOWN, e.g. C:L=2.5", err) ||
		    lca_parse_ci(field, a, &victim, err) ||
		    lca_parse_ci(field, b, &corunner, err)) {
			rc = -1;
			break;
		}
		errno = 0;
		s = strtod(v, &end);
		if (errno || end == v || *end || !isfinite(s) || s <= 0.0 ||
		    s > COSCHED_SLOWDOWN_MAX) {
			rc = cosched_error_set(err,
				"%s: slowdown \"%s\" for %s:%s out of range (0 < slowdown <= %g)",
				field, v, cosched_lca_name(victim),
				cosched_lca_name(corunner), COSCHED_SLOWDOWN_MAX);
			break;
		}
		tmp.slowdown[victim][corunner] = s;
		items++;
	}
	free(copy);
	if (!rc && !items)
		rc = cosched_error_set(err, "%s: missing value", field);
	if (!rc)
		*m = tmp;
	return rc;
}

int cosched_preference_override(cosched_pref_table_t *t, const char *field,
				const char *spec, cosched_error_t *err)
{
	cosched_pref_table_t tmp = *t;
	char *copy, *save = NULL, *item;
	int rc = 0, items = 0;

	if (!field)
		field = "PreferenceTable";
	if (!spec || !(copy = strdup(spec)))
		return cosched_error_set(err, "%s: missing value", field);
	for (item = strtok_r(copy, ",", &save); item && !rc;
	     item = strtok_r(NULL, ",", &save)) {
		char *a, *b, *v, *end;
		cosched_category_t app = COSCHED_CAT_CPU, partner = COSCHED_CAT_CPU;
		long rank;

		if (split_item(field, item, &a, &b, &v,
			       "APP:PARTNER=RANK or APP:PARTNER=-, e.g. lim:rand=-",
			       err) ||
		    cat_parse_ci(field, a, &app, err) ||
		    cat_parse_ci(field, b, &partner, err)) {
			rc = -1;
			break;
		}
		if (!strcmp(v, "-")) {
			tmp.pref[app][partner] = COSCHED_PREF_FORBIDDEN;
			items++;
			continue;
		}
		errno = 0;
		rank = strtol(v, &end, 10);
		if (errno || end == v || *end || rank < 1 || rank > 100) {
			rc = cosched_error_set(err,
				"%s: rank \"%s\" for %s:%s out of range (1..100, or - for forbidden)",
				field, v, cosched_category_name(app),
				cosched_category_name(partner));
			break;
		}
		tmp.pref[app][partner] = (int) rank;
		items++;
	}
	free(copy);
	if (!rc && !items)
		rc = cosched_error_set(err, "%s: missing value", field);
	if (!rc)
		*t = tmp;
	return rc;
}
