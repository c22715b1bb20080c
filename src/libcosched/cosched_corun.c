/*
 * cosched_corun.c - co-run measurements in the decision core: the
 * measured table's cosched.conf lines, the characterisation record and
 * its decision rule (see the header).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cosched_classify.h"
#include "cosched_corun.h"

void cosched_pref_rule_default(cosched_pref_rule_t *r)
{
	r->forbid_above = COSCHED_PREF_FORBID_ABOVE_DEFAULT;
	r->rank_step = COSCHED_PREF_RANK_STEP_DEFAULT;
}

int cosched_pref_rule_check(const cosched_pref_rule_t *r, cosched_error_t *err)
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

static int rank_of(const cosched_pref_rule_t *rule, double s)
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

	if (cosched_pref_rule_check(rule, err))
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
	/* seed 001's order: N, C, LC, L */
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
			int r = rank_of(rule, t->s[a][p].median);
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
	c->alone_s = c->mem_mem = c->rand_mem = NAN;
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
	if (slowdown_ok(field, "mem_with_mem", c->mem_mem, err) ||
	    slowdown_ok(field, "rand_with_mem", c->rand_mem, err))
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
 * The rule (cosched-characterise(8) "DECISION RULE").  Seed 002's
 * categories differ in two ways a co-run shows without counters:
 *
 *   pressure: how much the application slows a stream (the mem program)
 *     that shares the memory link and the LLC with it.  mem streams at
 *     ~80% of the bandwidth, lim at ~25% (seed 002), cpu and rand (LLC
 *     resident) barely use the link.  Measured as a share of how much the
 *     mem program slows itself, g = (caused.mem - 1) / (mem_with_mem - 1):
 *     about 1 for mem, a fraction for lim, about 0 for cpu and rand.
 *   sensitivity: how much a stream slows the application, as a share of
 *     how much it slows the rand program, the most sensitive one:
 *     v = (next_to.mem - 1) / (rand_with_mem - 1).  cpu lives in its
 *     private caches (v about 0); rand lives on LLC reuse (v about 1).
 *
 * Both are ratios to figures measured in the same run on the same CPUs,
 * so they hold on machines where contention is mild (a 1.3x machine) as
 * well as where it is severe (seed 001's Sandy Bridge, 2x and 8x).
 *
 *   E < noise                       unknown (no contention to compare with)
 *   g >= mem_share                  mem
 *   g >= lim_share                  lim
 *   R < noise                       cpu, said: rand cannot be told apart
 *   v >= rand_share                 rand
 *   otherwise                       cpu
 *
 * Default shares, 0.6, 0.2 and 0.35: between the representative
 * programs' own figures as cosched-calibrate measured them on the
 * development machines (doc/calibration.md); a program halfway between
 * two representatives goes to the more demanding category, which keeps
 * it away from sensitive partners (seed 002 "Placement lessons").
 */
cosched_category_t cosched_corun_classify(const cosched_corun_rule_t *r,
					  const cosched_corun_t *c,
					  char *reason, size_t reason_len)
{
	double e = c->mem_mem - 1.0, rr = c->rand_mem - 1.0;
	double g = (c->aggressor[COSCHED_CAT_MEM] - 1.0) / e;
	double v = (c->victim[COSCHED_CAT_MEM] - 1.0) / rr;
	char buf[256];
	cosched_category_t cat;

	if (!reason) {
		reason = buf;
		reason_len = sizeof(buf);
	}
	if (!(e >= r->noise)) {
		snprintf(reason, reason_len,
			 "mem next to mem %.2f: this machine shows no contention "
			 "above the noise %.2f, nothing can be told apart",
			 c->mem_mem, r->noise);
		return COSCHED_CAT_UNKNOWN;
	}
	if (g >= r->mem_share) {
		cat = COSCHED_CAT_MEM;
		snprintf(reason, reason_len,
			 "pressure %.2f >= %.2f (slows mem %.2fx, mem slows mem %.2fx)",
			 g, r->mem_share, c->aggressor[COSCHED_CAT_MEM], c->mem_mem);
	} else if (g >= r->lim_share) {
		cat = COSCHED_CAT_LIM;
		snprintf(reason, reason_len,
			 "pressure %.2f in [%.2f, %.2f) (slows mem %.2fx, mem slows mem %.2fx)",
			 g, r->lim_share, r->mem_share,
			 c->aggressor[COSCHED_CAT_MEM], c->mem_mem);
	} else if (!(rr >= r->noise)) {
		cat = COSCHED_CAT_CPU;
		snprintf(reason, reason_len,
			 "pressure %.2f < %.2f; mem slows rand only %.2fx here, so "
			 "rand cannot be told from cpu",
			 g, r->lim_share, c->rand_mem);
	} else if (v >= r->rand_share) {
		cat = COSCHED_CAT_RAND;
		snprintf(reason, reason_len,
			 "pressure %.2f < %.2f, sensitivity %.2f >= %.2f (mem slows it "
			 "%.2fx, rand %.2fx)", g, r->lim_share, v, r->rand_share,
			 c->victim[COSCHED_CAT_MEM], c->rand_mem);
	} else {
		cat = COSCHED_CAT_CPU;
		snprintf(reason, reason_len,
			 "pressure %.2f < %.2f, sensitivity %.2f < %.2f (mem slows it "
			 "%.2fx, rand %.2fx)", g, r->lim_share, v, r->rand_share,
			 c->victim[COSCHED_CAT_MEM], c->rand_mem);
	}
	return cat;
}
