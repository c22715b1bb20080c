/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corun.h - what co-runs measure, and what the decision core
 * makes of it, on machines without hardware counters.
 *
 * "Power-aware gang scheduling on multicore" (NTUA thesis, 2013,
 * "Application categories") classified each real benchmark by co-running it
 * with four representative programs, cpu, lim, mem and rand, and gave no
 * numeric rule.  The programs are in contribs/apps (cosched-apps(7)); the
 * commands that run them are cosched-calibrate(8) (every pair of
 * representative programs: this machine's interference table) and
 * cosched-characterise(8) (one application next to each representative
 * program: its category).  This file is the part with no
 * processes in it: the table's cosched.conf lines, the characterisation
 * record a profile keeps, and the rule that turns slowdowns into a
 * category.
 *
 * A slowdown is t_co-run / t_alone of the victim ("Effects of co-scheduling
 * applications on multicore architectures" (NTUA thesis, 2014), "Metrics"),
 * 1 = none.  The representative program of category k stands for the LCA
 * class cosched_category_to_lca(k): cpu N, rand C, lim LC, mem L.
 */
#ifndef COSCHED_CORUN_H
#define COSCHED_CORUN_H

#include <stdbool.h>
#include <stddef.h>

#include "src/libcosched/model/category.h"
#include "src/libcosched/base/error.h"

/* A figure over repeats. */
typedef struct {
	double median, lo, hi;		/* NAN = not measured */
} cosched_figure_t;

/* The representative programs' pairs: s[victim][co-runner], categories. */
typedef struct {
	cosched_figure_t s[COSCHED_CAT_COUNT][COSCHED_CAT_COUNT];
	cosched_figure_t alone[COSCHED_CAT_COUNT];	/* seconds */
	int repeats;
} cosched_corun_table_t;

/*
 * How a measured table becomes a preference table (as in the 2013
 * gang-scheduling thesis, row = application, column = partner): the
 * application's slowdown s next to the partner gives rank
 * 1 + floor((s - 1) / rank_step) (1 for s below 1 + rank_step), and "-"
 * (never in one gang) from s >= forbid_above.
 */
typedef struct {
	double forbid_above;		/* default 1.5 */
	double rank_step;		/* default 0.1 */
} cosched_pref_rule_t;

#define COSCHED_PREF_FORBID_ABOVE_DEFAULT 1.5
#define COSCHED_PREF_RANK_STEP_DEFAULT 0.1

void cosched_pref_rule_default(cosched_pref_rule_t *r);
/* The preference rank of slowdown s by rule (COSCHED_PREF_FORBIDDEN
 * from forbid_above): cosched-calibrate's and the learned table's. */
int cosched_pref_rank(const cosched_pref_rule_t *rule, double s);

/*
 * The cosched.conf lines that encode a measured table: one Interference=
 * line with all 16 LCA pairs (2 decimals) and one PreferenceTable= line
 * with all 16 category pairs.  Every median must be measured (finite,
 * > 0); a slowdown above COSCHED_SLOWDOWN_MAX is written as the maximum.
 * Lines come without a newline.
 */
#define COSCHED_CORUN_LINE_MAX 512
int cosched_corun_conf_lines(const cosched_corun_table_t *t,
			     const cosched_pref_rule_t *rule,
			     char *interference, size_t ilen,
			     char *preference, size_t plen,
			     cosched_error_t *err);

/*
 * One application's characterisation by co-run, as its profile keeps it
 * ("characterisation" in the profile's JSON, store/profile_json.h).
 */
#define COSCHED_CORUN_HOST_MAX 64
typedef struct {
	bool present;
	cosched_category_t cat;		/* the decision */
	cosched_lca_t lca;		/* cosched_category_to_lca(cat) */
	double alone_s;			/* the application alone, median */
	double victim[COSCHED_CAT_COUNT];	/* its slowdown next to each
						 * representative (median) */
	double aggressor[COSCHED_CAT_COUNT];	/* each representative's
						 * slowdown next to it */
	double mem_mem;			/* mem next to mem, same run: the
					 * machine's scale */
	int repeats;			/* >= 3 */
	long long time;			/* when (seconds since the epoch) */
	char host[COSCHED_CORUN_HOST_MAX + 1];
} cosched_corun_t;

void cosched_corun_init(cosched_corun_t *c);
/* Values in range (slowdowns in (0, 100], repeats 3 ..
 * 1000, host printable); field prefixes the message. */
int cosched_corun_check(const char *field, const cosched_corun_t *c,
			cosched_error_t *err);

/*
 * The decision rule's thresholds (cosched-characterise(8) options in
 * brackets).  Excesses are measured against this machine's own scale,
 * taken in the same run: E = mem_mem - 1 (how much a stream slows a
 * stream here).
 */
typedef struct {
	double mem_share;	/* [--mem-share] 0.6 */
	double lim_share;	/* [--lim-share] 0.2 */
	double rand_share;	/* [--rand-share] 0.35 */
	double noise;		/* [--noise] 0.05: excess below is none */
} cosched_corun_rule_t;

void cosched_corun_rule_default(cosched_corun_rule_t *r);
int cosched_corun_rule_check(const cosched_corun_rule_t *r,
			     cosched_error_t *err);

/*
 * The category of c's measurements (cosched-characterise(8) "DECISION
 * RULE", derivation in model/corun.c).  reason receives the deciding
 * comparisons.  COSCHED_CAT_UNKNOWN when the machine shows no contention
 * to compare with (E below noise): then nothing can be told apart.
 */
cosched_category_t cosched_corun_classify(const cosched_corun_rule_t *r,
					  const cosched_corun_t *c,
					  char *reason, size_t reason_len);

/*
 * A category other than c->cat that the rule also gives somewhere within
 * the repeats' ranges of the three figures it reads (mem next to mem, the
 * application next to mem, mem next to the application), or c->cat when
 * every value in the ranges gives c->cat: then noise of the size the
 * repeats showed cannot have changed the decision.  c->cat must be
 * cosched_corun_classify's result for c.
 */
cosched_category_t cosched_corun_classify_other(const cosched_corun_rule_t *r,
						const cosched_corun_t *c,
						const cosched_figure_t *mem_mem,
						const cosched_figure_t *next_to_mem,
						const cosched_figure_t *caused_mem);

#endif
