/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_interference.c - predicted slowdown among co-runners
 * (src/libcosched/model/interference.c). */

/*
 * This file is built without _GNU_SOURCE (the build passes it on the
 * command line), so it also checks that the public headers of the decision
 * core compile with plain -std=c11: none may need PATH_MAX or other
 * extensions.
 */
#undef _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "src/libcosched/model/classify.h"
#include "src/libcosched/conf/conf.h"
#include "src/libcosched/model/interference.h"
#include "src/libcosched/model/profile.h"
#include "src/libcosched/store/store.h"

static cosched_interference_model_t m;
static cosched_error_t err;

static void setup(void)
{
	cosched_interference_default(&m);
	cosched_error_clear(&err);
}

static cosched_class_t lca(cosched_lca_t l)
{
	cosched_class_t c = { cosched_lca_to_category(l), l, COSCHED_CLASS_FROM_PROFILE };
	return c;
}

static cosched_class_t cat(cosched_category_t k)
{
	cosched_class_t c = { k, COSCHED_LCA_UNKNOWN, COSCHED_CLASS_FROM_DECLARED };
	return c;
}

static double predict(cosched_class_t v, const cosched_class_t *co, int n,
		      cosched_prediction_t *out)
{
	cosched_prediction_t p;
	if (!out)
		out = &p;
	ck_assert_int_eq(cosched_interference_predict(&m, &v, co, n, out, &err), 0);
	return out->slowdown;
}

/*
 * The default model against the documents it comes from, through the
 * predictions it makes (not by reading its table back).
 *
 * "Effects of co-scheduling applications on multicore architectures" (NTUA
 * thesis, 2014), "Measured class-average slowdowns (Sandy Bridge, row = victim,
 * column = co-runner)", copied from the thesis.
 */
static const double seed001_sandy_bridge[4][4] = {
	/*          N     C     LC    L   */
	/* N  */ { 1.00, 1.02, 1.10, 1.07 },
	/* C  */ { 1.00, 1.06, 1.27, 2.15 },
	/* LC */ { 1.00, 1.06, 1.34, 1.76 },
	/* L  */ { 1.00, 1.00, 1.12, 1.30 },
};

/* "Power-aware gang scheduling on multicore" (NTUA thesis, 2013), "Application
 * categories", preference table (row = application, column = partner, 0 = "-"),
 * copied from the thesis. */
static const int seed002_preference[4][4] = {
	/*           cpu lim mem rand */
	/* cpu  */ { 1,  1,  1,  1 },
	/* lim  */ { 1,  2,  3,  0 },
	/* mem  */ { 1,  2,  0,  0 },
	/* rand */ { 2,  0,  0,  1 },
};

static const cosched_lca_t lca_order[4] = {
	COSCHED_LCA_N, COSCHED_LCA_C, COSCHED_LCA_LC, COSCHED_LCA_L
};
static const cosched_category_t cat_order[4] = {
	COSCHED_CAT_CPU, COSCHED_CAT_LIM, COSCHED_CAT_MEM, COSCHED_CAT_RAND
};

START_TEST(test_default_predictions_seed001)
{
	double worst = 0.0;
	int wv = -1, wc = -1;

	for (int v = 0; v < 4; v++)
		for (int c = 0; c < 4; c++) {
			cosched_class_t co = lca(lca_order[c]);
			double s = predict(lca(lca_order[v]), &co, 1, NULL);
			ck_assert_msg(fabs(s - seed001_sandy_bridge[v][c]) < 1e-12,
				      "%s next to %s: %g, seed 001 measured %.2f",
				      cosched_lca_name(lca_order[v]),
				      cosched_lca_name(lca_order[c]), s,
				      seed001_sandy_bridge[v][c]);
			if (s > worst)
				worst = s, wv = v, wc = c;
		}
	/* The 2014 co-scheduling thesis, "Interference expectations": C next to
	 * L is the largest slowdown, and L is unaffected by C. */
	ck_assert_int_eq(lca_order[wv], COSCHED_LCA_C);
	ck_assert_int_eq(lca_order[wc], COSCHED_LCA_L);
	{
		cosched_class_t c = lca(COSCHED_LCA_C);
		ck_assert_double_eq(predict(lca(COSCHED_LCA_L), &c, 1, NULL), 1.0);
	}
}
END_TEST

/* The "-" cells of the 2013 gang-scheduling thesis: a pair may share a gang
 * only when neither direction is "-"; a prediction reports such a pair as
 * forbidden. */
START_TEST(test_default_preferences_seed002)
{
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++) {
			cosched_class_t x = cat(cat_order[a]), y = cat(cat_order[b]);
			bool want = seed002_preference[a][b] && seed002_preference[b][a];
			cosched_prediction_t p;

			ck_assert_msg(cosched_interference_allowed(&m, &x, &y) == want,
				      "%s with %s", cosched_category_name(cat_order[a]),
				      cosched_category_name(cat_order[b]));
			predict(x, &y, 1, &p);
			ck_assert(p.forbidden == !want);
			/* the ranks themselves (the gang policies read them) */
			ck_assert_int_eq(m.pref.pref[cat_order[a]][cat_order[b]],
					 seed002_preference[a][b] ? seed002_preference[a][b]
								  : COSCHED_PREF_FORBIDDEN);
		}
}
END_TEST

/* The line at s, without its newline, in buf. */
static const char *one_line(const char *s, char *buf, size_t len)
{
	size_t n = strcspn(s, "\n");
	snprintf(buf, len, "%.*s", (int) n, s);
	return buf;
}

/*
 * cosched.conf(5) "INTERFERENCE TABLES" prints both tables: what it shows
 * is what the model predicts (a second document that must not drift).
 */
START_TEST(test_default_tables_man_page)
{
	char *man = cosched_check_read_doc("doc/cosched.conf.5");
	char *sec = strstr(man, ".SH \"INTERFERENCE TABLES\"");
	char *blk, name[8], cell[4][8], buf[128];
	int rows = 0;

	ck_assert_ptr_nonnull(sec);
	/* first block: the slowdowns, "N   1.00  1.02  1.10  1.07" */
	blk = strstr(sec, "\n.nf\n");
	ck_assert_ptr_nonnull(blk);
	for (char *line = strchr(blk + 1, '\n') + 1; strncmp(line, ".fi", 3);
	     line = strchr(line, '\n') + 1) {
		double s[4];
		cosched_lca_t v;
		if (sscanf(one_line(line, buf, sizeof(buf)), " %7s %lf %lf %lf %lf",
			   name, &s[0], &s[1], &s[2],
			   &s[3]) != 5)
			continue;	/* the header */
		ck_assert_int_eq(cosched_lca_parse("table", name, &v, &err), 0);
		for (int c = 0; c < 4; c++) {
			cosched_class_t co = lca(lca_order[c]);
			ck_assert_msg(fabs(predict(lca(v), &co, 1, NULL) - s[c]) < 1e-12,
				      "man page: %s next to %s is %.2f", name,
				      cosched_lca_name(lca_order[c]), s[c]);
		}
		rows++;
	}
	ck_assert_int_eq(rows, 4);
	/* second block: the preferences, "lim    1    2    3    -" */
	blk = strstr(strstr(blk, "\n.fi\n"), "\n.nf\n");
	ck_assert_ptr_nonnull(blk);
	rows = 0;
	for (char *line = strchr(blk + 1, '\n') + 1; strncmp(line, ".fi", 3);
	     line = strchr(line, '\n') + 1) {
		cosched_category_t a;
		if (sscanf(one_line(line, buf, sizeof(buf)), " %7s %7s %7s %7s %7s",
			   name, cell[0], cell[1], cell[2], cell[3]) != 5)
			continue;	/* the header */
		ck_assert_int_eq(cosched_category_parse("table", name, &a, &err), 0);
		for (int b = 0; b < 4; b++) {
			int want = strcmp(cell[b], "-") ? atoi(cell[b])
							: COSCHED_PREF_FORBIDDEN;
			ck_assert_msg(m.pref.pref[a][cat_order[b]] == want,
				      "man page: %s with %s is %s", name,
				      cosched_category_name(cat_order[b]), cell[b]);
		}
		rows++;
	}
	ck_assert_int_eq(rows, 4);
	free(man);
}
END_TEST

START_TEST(test_zero_and_one_corunner)
{
	cosched_class_t l = lca(COSCHED_LCA_L);
	ck_assert_double_eq(predict(lca(COSCHED_LCA_C), NULL, 0, NULL), 1.0);
	ck_assert_double_eq(predict(lca(COSCHED_LCA_C), &l, 1, NULL), 2.15);
	/* The 2013 gang-scheduling thesis, "Placement lessons": a memory-bound
	 * with a CPU-bound program slow each other by < 1.1 */
	{
		cosched_class_t c = cat(COSCHED_CAT_CPU), mm = cat(COSCHED_CAT_MEM);
		ck_assert(predict(mm, &c, 1, NULL) < 1.1);
		ck_assert(predict(c, &mm, 1, NULL) < 1.1);
	}
}
END_TEST

/* The rule for several co-runners: s = 1 + sum(s_i - 1), order-free. */
START_TEST(test_several_corunners)
{
	cosched_class_t two_l[] = { lca(COSCHED_LCA_L), lca(COSCHED_LCA_L) };
	cosched_class_t l_lc[] = { lca(COSCHED_LCA_L), lca(COSCHED_LCA_LC) };
	cosched_class_t lc_l[] = { lca(COSCHED_LCA_LC), lca(COSCHED_LCA_L) };
	cosched_class_t three_n[] = { lca(COSCHED_LCA_N), lca(COSCHED_LCA_N), lca(COSCHED_LCA_N) };

	ck_assert_double_eq_tol(predict(lca(COSCHED_LCA_C), two_l, 2, NULL), 3.30, 1e-12);
	ck_assert_double_eq_tol(predict(lca(COSCHED_LCA_C), l_lc, 2, NULL), 2.42, 1e-12);
	ck_assert_double_eq_tol(predict(lca(COSCHED_LCA_C), lc_l, 2, NULL), 2.42, 1e-12);
	ck_assert_double_eq_tol(predict(lca(COSCHED_LCA_L), two_l, 2, NULL), 1.60, 1e-12);
	ck_assert_double_eq_tol(predict(lca(COSCHED_LCA_N), three_n, 3, NULL), 1.0, 1e-12);
	/* never below the worst pair */
	ck_assert(predict(lca(COSCHED_LCA_C), l_lc, 2, NULL) >= 2.15);
}
END_TEST

/* Speed-ups (< 1) do not compound: floored at the smallest pair. */
START_TEST(test_speedup_floor)
{
	cosched_class_t two_n[] = { lca(COSCHED_LCA_N), lca(COSCHED_LCA_N) };
	ck_assert_int_eq(cosched_interference_override(&m, "Interference", "N:N=0.9", &err), 0);
	ck_assert_double_eq_tol(predict(lca(COSCHED_LCA_N), two_n, 1, NULL), 0.9, 1e-12);
	ck_assert_double_eq_tol(predict(lca(COSCHED_LCA_N), two_n, 2, NULL), 0.9, 1e-12);
}
END_TEST

/* The "-" cells of the 2013 gang-scheduling thesis are reported as forbidden,
 * with the culprit. */
START_TEST(test_forbidden_pairs)
{
	cosched_prediction_t p;
	cosched_class_t co[] = { cat(COSCHED_CAT_CPU), cat(COSCHED_CAT_LIM), cat(COSCHED_CAT_MEM) };

	predict(cat(COSCHED_CAT_RAND), co, 3, &p);
	ck_assert(p.forbidden);
	ck_assert_int_eq(p.forbidden_with, 1);
	predict(cat(COSCHED_CAT_MEM), co + 2, 1, &p);
	ck_assert(p.forbidden);	/* mem with mem */
	ck_assert_int_eq(p.forbidden_with, 0);
	predict(cat(COSCHED_CAT_LIM), co, 3, &p);
	ck_assert(!p.forbidden);	/* lim with cpu, lim, mem: allowed */
	ck_assert_int_eq(p.forbidden_with, -1);
	/* the table is not symmetric; a pair is allowed only both ways */
	{
		cosched_class_t r = cat(COSCHED_CAT_RAND), c = cat(COSCHED_CAT_CPU);
		ck_assert(cosched_interference_allowed(&m, &r, &c));
		ck_assert(cosched_interference_allowed(&m, &c, &r));
		ck_assert_int_eq(cosched_preference_override(&m.pref, NULL, "cpu:rand=-", &err), 0);
		ck_assert(!cosched_interference_allowed(&m, &r, &c));
	}
	/* every "-" cell of the table of the 2013 gang-scheduling thesis */
	{
		static const int forbidden[][2] = {
			{ COSCHED_CAT_LIM, COSCHED_CAT_RAND }, { COSCHED_CAT_MEM, COSCHED_CAT_MEM },
			{ COSCHED_CAT_MEM, COSCHED_CAT_RAND }, { COSCHED_CAT_RAND, COSCHED_CAT_LIM },
			{ COSCHED_CAT_RAND, COSCHED_CAT_MEM },
		};
		cosched_interference_default(&m);
		for (size_t i = 0; i < 5; i++) {
			cosched_class_t a = cat(forbidden[i][0]), b = cat(forbidden[i][1]);
			predict(a, &b, 1, &p);
			ck_assert(p.forbidden);
		}
	}
}
END_TEST

/* Classes given by category only are mapped (rand -> C, mem -> L). */
START_TEST(test_category_mapping_and_unknown)
{
	cosched_class_t mm = cat(COSCHED_CAT_MEM), unk = cat(COSCHED_CAT_UNKNOWN);
	ck_assert_double_eq(predict(cat(COSCHED_CAT_RAND), &mm, 1, NULL), 2.15);
	/* unknown: the worst of the known side's row or column */
	ck_assert_double_eq(predict(cat(COSCHED_CAT_LIM), &unk, 1, NULL), 1.76);
	ck_assert_double_eq(predict(unk, &mm, 1, NULL), 2.15);
	ck_assert_double_eq(cosched_interference_pair(&m, COSCHED_LCA_UNKNOWN,
						      COSCHED_LCA_N), 1.00);
	ck_assert_double_eq(predict(unk, &unk, 1, NULL), 2.15);
	{
		cosched_prediction_t p;
		ck_assert_int_eq(cosched_interference_predict(&m, &unk, NULL, 2, &p, &err), -1);
		ck_assert_int_eq(cosched_interference_predict(&m, &unk, NULL, -1, &p, &err), -1);
	}
}
END_TEST

/* A category outside the table (negative, or past UNKNOWN) is forbidden by
 * no rule and never indexes the preference table. */
START_TEST(test_out_of_range_category)
{
	cosched_class_t bad = cat(COSCHED_CAT_MEM), mem = cat(COSCHED_CAT_MEM);
	cosched_prediction_t p;

	bad.cat = (cosched_category_t) -1;
	ck_assert(cosched_pref_allowed(&m.pref, (cosched_category_t) -1, COSCHED_CAT_MEM));
	ck_assert(cosched_pref_allowed(&m.pref, COSCHED_CAT_MEM, (cosched_category_t) -7));
	ck_assert(cosched_pref_allowed(&m.pref, (cosched_category_t) 99, COSCHED_CAT_MEM));
	ck_assert(cosched_interference_allowed(&m, &bad, &mem));
	bad.lca = (cosched_lca_t) -1;
	ck_assert_int_eq(cosched_interference_predict(&m, &bad, &mem, 1, &p, &err), 0);
	ck_assert(!p.forbidden);
	/* unknown class: the worst of the L column */
	ck_assert_double_eq(p.slowdown, 2.15);
}
END_TEST

/* Overrides, by what the model then predicts: the entries given change,
 * every other pair keeps the figure of the 2014 co-scheduling thesis, and the
 * rules built on the table (several co-runners, unknown classes, both
 * directions of the preference table) follow the new values. */
START_TEST(test_overrides)
{
	cosched_class_t l = lca(COSCHED_LCA_L), two_l[] = { l, l };
	cosched_class_t lim = cat(COSCHED_CAT_LIM), rnd = cat(COSCHED_CAT_RAND);
	cosched_class_t unk = cat(COSCHED_CAT_UNKNOWN);
	cosched_prediction_t p;

	ck_assert_int_eq(cosched_interference_override(&m, "Interference",
		" c:l = 2.5 , LC:LC=2", &err), 0);
	for (int v = 0; v < 4; v++)
		for (int c = 0; c < 4; c++) {
			cosched_class_t co = lca(lca_order[c]);
			double want = seed001_sandy_bridge[v][c];
			if (lca_order[v] == COSCHED_LCA_C && lca_order[c] == COSCHED_LCA_L)
				want = 2.5;
			if (lca_order[v] == COSCHED_LCA_LC && lca_order[c] == COSCHED_LCA_LC)
				want = 2.0;
			ck_assert_double_eq_tol(predict(lca(lca_order[v]), &co, 1, NULL),
						want, 1e-12);
		}
	ck_assert_double_eq_tol(predict(lca(COSCHED_LCA_C), two_l, 2, NULL), 4.0, 1e-12);
	ck_assert_double_eq_tol(predict(rnd, &l, 1, NULL), 2.5, 1e-12);	/* rand -> C */
	ck_assert_double_eq_tol(predict(unk, &l, 1, NULL), 2.5, 1e-12);	/* worst of L */
	/* a later override keeps the earlier one */
	ck_assert_int_eq(cosched_interference_override(&m, NULL, "L:L=1.5", &err), 0);
	ck_assert_double_eq_tol(predict(l, &l, 1, NULL), 1.5, 1e-12);
	ck_assert_double_eq_tol(predict(lca(COSCHED_LCA_C), &l, 1, NULL), 2.5, 1e-12);

	/* lim and rand: allowing one direction is not enough ... */
	ck_assert_int_eq(cosched_preference_override(&m.pref, "PreferenceTable",
		"lim:rand=2", &err), 0);
	predict(lim, &rnd, 1, &p);
	ck_assert(p.forbidden);
	ck_assert(!cosched_interference_allowed(&m, &rnd, &lim));
	/* ... both are */
	ck_assert_int_eq(cosched_preference_override(&m.pref, NULL, "rand:lim=3", &err), 0);
	predict(lim, &rnd, 1, &p);
	ck_assert(!p.forbidden);
	predict(rnd, &lim, 1, &p);
	ck_assert(!p.forbidden);
	/* and a "-" forbids a pair the 2013 gang-scheduling thesis allows */
	ck_assert_int_eq(cosched_preference_override(&m.pref, NULL, "CPU:Mem=-", &err), 0);
	{
		cosched_class_t mem = cat(COSCHED_CAT_MEM), cpu = cat(COSCHED_CAT_CPU);
		predict(mem, &cpu, 1, &p);
		ck_assert(p.forbidden);
		ck_assert_int_eq(p.forbidden_with, 0);
	}
}
END_TEST

START_TEST(test_override_refusals)
{
	static const struct { bool pref; const char *spec, *msg; } bad[] = {
		{ false, "X:L=2", "invalid LCA class \"X\" (allowed: N, C, LC, L)" },
		{ false, "C:L=0", "slowdown \"0\" for C:L out of range" },
		{ false, "C:L=101", "out of range (0 < slowdown <= 100)" },
		{ false, "C:L=abc", "slowdown \"abc\"" },
		{ false, "C-L=2", "expected VICTIM:CORUNNER=SLOWDOWN" },
		{ false, "C:L=2.5,X:N=1", "\"X\"" },
		{ false, "", "missing value" },
		{ true, "lim:foo=1", "invalid category \"foo\" (allowed: cpu, lim, mem, rand)" },
		{ true, "lim:rand=0", "rank \"0\" for lim:rand out of range" },
		{ true, "lim:rand=101", "out of range" },
		{ true, "lim:rand=x", "rank \"x\"" },
		{ true, "cpu:cpu=-,mem", "expected APP:PARTNER=RANK" },
		/* empty entries are refused, not skipped */
		{ false, "C:L=2,,", "empty entry in \"C:L=2,,\"" },
		{ false, ",C:L=2", "empty entry" },
		{ false, "C:L=2, ", "empty entry" },
		{ true, "lim:rand=-,,rand:lim=-", "empty entry" },
		/* strict decimal numbers */
		{ false, "C:L=0x2", "invalid slowdown \"0x2\" for C:L" },
		{ false, "C:L=inf", "invalid slowdown \"inf\"" },
		{ false, "C:L=nan", "invalid slowdown \"nan\"" },
		{ true, "lim:rand=0x2", "rank \"0x2\"" },
		{ true, "lim:rand= 2 x", "rank \"2 x\"" },
		{ false, " , ", "empty entry" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_interference_model_t before = m;
		const char *field = bad[i].pref ? "PreferenceTable" : "Interference";
		int rc = bad[i].pref ?
			cosched_preference_override(&m.pref, field, bad[i].spec, &err) :
			cosched_interference_override(&m, field, bad[i].spec, &err);
		ck_assert_msg(rc == -1, "\"%s\" accepted", bad[i].spec);
		ck_assert_msg(strstr(err.msg, field) && strstr(err.msg, bad[i].msg),
			      "\"%s\" lacks \"%s\"", err.msg, bad[i].msg);
		ck_assert_msg(!memcmp(&before, &m, sizeof(m)), "\"%s\" half-applied",
			      bad[i].spec);
	}
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("interference");
	TCase *tc = tcase_create("interference");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_default_predictions_seed001);
	tcase_add_test(tc, test_default_preferences_seed002);
	tcase_add_test(tc, test_default_tables_man_page);
	tcase_add_test(tc, test_zero_and_one_corunner);
	tcase_add_test(tc, test_several_corunners);
	tcase_add_test(tc, test_speedup_floor);
	tcase_add_test(tc, test_forbidden_pairs);
	tcase_add_test(tc, test_category_mapping_and_unknown);
	tcase_add_test(tc, test_out_of_range_category);
	tcase_add_test(tc, test_overrides);
	tcase_add_test(tc, test_override_refusals);
	suite_add_tcase(s, tc);
	return s;
}
