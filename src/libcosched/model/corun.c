/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corun.c - co-run measurements in the decision core: the
 * measured table's cosched.conf lines, the characterisation record and
 * its decision rule (see the header).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "src/libcosched/model/category.h"
#include "src/libcosched/model/corun.h"
#include "src/libcosched/model/interference.h"

void cosched_pref_rule_default(cosched_pref_rule_t *r)
{
	r->forbid_above = COSCHED_PREF_FORBID_ABOVE_DEFAULT;
	r->rank_step = COSCHED_PREF_RANK_STEP_DEFAULT;
}

/* forbid_above in (1, 100], rank_step in [0.01, 10]; messages name the
 * command-line options (--forbid-above, --rank-step). */
static int pref_rule_check(const cosched_pref_rule_t *r, cosched_error_t *err)
{
	if (!(r->forbid_above > 1.0 && r->forbid_above <= COSCHED_SLOWDOWN_MAX))
		return cosched_error_set(err,
			"--forbid-above: expected a slowdown above 1 and at most %g, got %g",
			COSCHED_SLOWDOWN_MAX, r->forbid_above);
	if (!(r->rank_step >= 0.01 && r->rank_step <= 10.0))
		return cosched_error_set(err,
			"--rank-step: expected a number from 0.01 to 10, got %g",
			r->rank_step);
	return 0;
}

/* Append to buf (len) at *pos; -1 when it does not fit. */
static int append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t) n >= len - *pos)
		return -1;
	*pos += n;
	return 0;
}

int cosched_pref_rank(const cosched_pref_rule_t *rule, double s)
{
	double r;

	if (s >= rule->forbid_above)
		return COSCHED_PREF_FORBIDDEN;
	r = 1.0 + floor((s - 1.0) / rule->rank_step + 1e-9);
	if (r < 1.0)
		return 1;
	return r > COSCHED_PREF_RANK_MAX ? COSCHED_PREF_RANK_MAX : (int) r;
}

int cosched_corun_conf_lines(const cosched_corun_table_t *t,
			     const cosched_pref_rule_t *rule,
			     char *interference, size_t ilen,
			     char *preference, size_t plen,
			     cosched_error_t *err)
{
	size_t ip = 0, pp = 0;
	int rc = 0;

	if (pref_rule_check(rule, err))
		return -1;
	for (int v = 0; v < COSCHED_CAT_COUNT; v++)
		for (int c = 0; c < COSCHED_CAT_COUNT; c++) {
			double s = t->s[v][c].median;
			if (!(isfinite(s) && s > 0.0))
				return cosched_error_set(err,
					"%s next to %s: not measured",
					cosched_category_name(v),
					cosched_category_name(c));
		}
	rc |= append(interference, ilen, &ip, "Interference=");
	/* The order of "Effects of co-scheduling applications on multicore
	 * architectures" (NTUA thesis, 2014): N, C, LC, L */
	for (int v = 0; v < COSCHED_LCA_COUNT; v++)
		for (int c = 0; c < COSCHED_LCA_COUNT; c++) {
			double s = t->s[cosched_lca_to_category(v)]
				       [cosched_lca_to_category(c)].median;
			/* 2 decimals, never 0 (the key needs > 0) */
			s = fmin(fmax(s, 0.01), COSCHED_SLOWDOWN_MAX);
			rc |= append(interference, ilen, &ip, "%s%s:%s=%.2f",
				     v || c ? "," : "", cosched_lca_name(v),
				     cosched_lca_name(c), s);
		}
	rc |= append(preference, plen, &pp, "PreferenceTable=");
	for (int a = 0; a < COSCHED_CAT_COUNT; a++)
		for (int p = 0; p < COSCHED_CAT_COUNT; p++) {
			int r = cosched_pref_rank(rule, t->s[a][p].median);
			char rk[16];
			snprintf(rk, sizeof(rk), "%d", r);
			rc |= append(preference, plen, &pp, "%s%s:%s=%s",
				     a || p ? "," : "", cosched_category_name(a),
				     cosched_category_name(p),
				     r == COSCHED_PREF_FORBIDDEN ? "-" : rk);
		}
	if (rc)
		return cosched_error_set(err, "configuration line too long");
	return 0;
}

void cosched_corun_init(cosched_corun_t *c)
{
	memset(c, 0, sizeof(*c));
	c->cat = COSCHED_CAT_UNKNOWN;
	c->lca = COSCHED_LCA_UNKNOWN;
	c->alone_s = c->mem_mem = NAN;
	for (int k = 0; k < COSCHED_CAT_COUNT; k++)
		c->victim[k] = c->aggressor[k] = NAN;
}

static int slowdown_ok(const char *field, const char *name, double v,
		       cosched_error_t *err)
{
	if (!(isfinite(v) && v > 0.0 && v <= COSCHED_SLOWDOWN_MAX))
		return cosched_error_set(err,
			"%s.%s: expected a slowdown above 0 and at most %g, got %g",
			field, name, COSCHED_SLOWDOWN_MAX, v);
	return 0;
}

int cosched_corun_check(const char *field, const cosched_corun_t *c,
			cosched_error_t *err)
{
	char name[48];

	if (!field)
		field = "characterisation";
	if (c->cat < 0 || c->cat > COSCHED_CAT_UNKNOWN)
		return cosched_error_set(err, "%s.category: out of range", field);
	if (c->lca < 0 || c->lca > COSCHED_LCA_UNKNOWN)
		return cosched_error_set(err, "%s.lca: out of range", field);
	if (!(isfinite(c->alone_s) && c->alone_s > 0.0))
		return cosched_error_set(err,
			"%s.alone_s: expected a positive number, got %g", field,
			c->alone_s);
	for (int k = 0; k < COSCHED_CAT_COUNT; k++) {
		snprintf(name, sizeof(name), "next_to.%s", cosched_category_name(k));
		if (slowdown_ok(field, name, c->victim[k], err))
			return -1;
		snprintf(name, sizeof(name), "caused.%s", cosched_category_name(k));
		if (slowdown_ok(field, name, c->aggressor[k], err))
			return -1;
	}
	if (slowdown_ok(field, "mem_with_mem", c->mem_mem, err))
		return -1;
	if (c->repeats < 3 || c->repeats > 1000)
		return cosched_error_set(err,
			"%s.repeats: expected an integer from 3 to 1000, got %d",
			field, c->repeats);
	if (c->time < 0)
		return cosched_error_set(err, "%s.time: negative", field);
	for (const char *h = c->host; *h; h++)
		if ((unsigned char) *h < 0x20 || *h == 0x7f)
			return cosched_error_set(err,
				"%s.host: control character", field);
	return 0;
}

void cosched_corun_rule_default(cosched_corun_rule_t *r)
{
	r->mem_share = 0.6;
	r->lim_share = 0.2;
	r->rand_share = 0.35;
	r->noise = 0.05;
}

int cosched_corun_rule_check(const cosched_corun_rule_t *r, cosched_error_t *err)
{
	if (!(r->noise >= 0.0 && r->noise <= 1.0))
		return cosched_error_set(err,
			"--noise: expected a number from 0 to 1, got %g", r->noise);
	if (!(r->lim_share > 0.0 && r->lim_share <= 10.0))
		return cosched_error_set(err,
			"--lim-share: expected a number above 0 and at most 10, got %g",
			r->lim_share);
	if (!(r->mem_share > r->lim_share && r->mem_share <= 10.0))
		return cosched_error_set(err,
			"--mem-share: expected a number above --lim-share (%g) and at most 10, got %g",
			r->lim_share, r->mem_share);
	if (!(r->rand_share > 0.0 && r->rand_share <= 10.0))
		return cosched_error_set(err,
			"--rand-share: expected a number above 0 and at most 10, got %g",
			r->rand_share);
	return 0;
}

/*
 * The rule (cosched-characterise(8) "DECISION RULE").  The categories of
 * "Power-aware gang scheduling on multicore" (NTUA thesis, 2013) differ in two
 * ways a co-run shows without counters, both against the mem program (the one
 * that shares the most: the memory link and the LLC) and both as shares of how
 * much the mem program slows itself, E = mem_with_mem - 1, measured in the
 * same run on the same CPUs:
 *
 *   pressure    g = (caused.mem - 1) / E: how much the application slows a
 *               stream.  mem streams at ~80% of the bandwidth, lim at
 *               ~25% (the 2013 gang-scheduling thesis), cpu and rand (LLC
 *               resident) barely use the link: g about 1 for mem, a fraction
 *               for lim, about 0 for cpu and rand.
 *   sensitivity v = (next_to.mem - 1) / E: how much a stream slows it.
 *               cpu lives in its private caches (v about 0); rand lives
 *               on LLC reuse, lim and mem on the link (v well above 0).
 *
 *   E < noise          unknown: no contention here to compare with
 *   g >= mem_share     mem
 *   v <  rand_share    cpu   (no stream slows it: private caches)
 *   g >= lim_share     lim   (slowed, and slows a stream somewhat)
 *   otherwise          rand  (slowed, slows nobody: LLC reuse)
 *
 * Being ratios to the machine's own E, the rule holds where contention is
 * mild (the development VMs: E about 0.3) as where it is severe (the
 * Sandy Bridge of the 2014 co-scheduling thesis: 2x).  Sensitivity decides cpu
 * before pressure does because it separates better on a noisy machine: a stream
 * slows lim and rand by about E, cpu by nothing, while lim's pressure is only a
 * fraction of E.  Default shares 0.6, 0.35 and 0.2 sit between the
 * representative programs' own figures measured by cosched-calibrate
 * (doc/calibration.md); a program halfway between two representatives
 * goes to the more demanding category, which keeps it away from sensitive
 * partners (the 2013 gang-scheduling thesis, "Placement lessons").
 */
cosched_category_t cosched_corun_classify(const cosched_corun_rule_t *r,
					  const cosched_corun_t *c,
					  char *reason, size_t reason_len)
{
	double e = c->mem_mem - 1.0;
	double g = (c->aggressor[COSCHED_CAT_MEM] - 1.0) / e;
	double v = (c->victim[COSCHED_CAT_MEM] - 1.0) / e;
	double caused = c->aggressor[COSCHED_CAT_MEM];
	double next_to = c->victim[COSCHED_CAT_MEM];
	char buf[256];
	cosched_category_t cat;
	const char *why;

	if (!reason) {
		reason = buf;
		reason_len = sizeof(buf);
	}
	if (!(e >= r->noise)) {
		snprintf(reason, reason_len,
			 "mem next to mem %.2f: no contention above the noise "
			 "%.2f on these CPUs, nothing can be told apart",
			 c->mem_mem, r->noise);
		return COSCHED_CAT_UNKNOWN;
	}
	if (g >= r->mem_share) {
		cat = COSCHED_CAT_MEM;
		why = "pressure >= mem share";
	} else if (v < r->rand_share) {
		cat = COSCHED_CAT_CPU;
		why = "sensitivity < rand share";
	} else if (g >= r->lim_share) {
		cat = COSCHED_CAT_LIM;
		why = "sensitivity >= rand share, pressure >= lim share";
	} else {
		cat = COSCHED_CAT_RAND;
		why = "sensitivity >= rand share, pressure < lim share";
	}
	snprintf(reason, reason_len,
		 "%s: pressure %.2f (slows mem %.2fx), sensitivity %.2f "
		 "(mem slows it %.2fx), mem slows mem %.2fx",
		 why, g, caused, v, next_to, c->mem_mem);
	return cat;
}

/*
 * Each category is a product of an interval of g and an interval of v
 * (the rule's thresholds), and g and v are each monotone in every figure
 * they read, so the box of figure ranges stays in one category exactly
 * when its eight corners do.  UNKNOWN (E below noise) at a corner counts
 * as another category.
 */
cosched_category_t cosched_corun_classify_other(const cosched_corun_rule_t *r,
						const cosched_corun_t *c,
						const cosched_figure_t *mem_mem,
						const cosched_figure_t *next_to_mem,
						const cosched_figure_t *caused_mem)
{
	const double mm[2] = { mem_mem->lo, mem_mem->hi };
	const double nt[2] = { next_to_mem->lo, next_to_mem->hi };
	const double ca[2] = { caused_mem->lo, caused_mem->hi };
	cosched_corun_t corner = *c;

	for (int i = 0; i < 8; i++) {
		cosched_category_t cat;

		corner.mem_mem = mm[i & 1];
		corner.victim[COSCHED_CAT_MEM] = nt[(i >> 1) & 1];
		corner.aggressor[COSCHED_CAT_MEM] = ca[(i >> 2) & 1];
		cat = cosched_corun_classify(r, &corner, NULL, 0);
		if (cat != c->cat)
			return cat;
	}
	return c->cat;
}
