/* test_interference.c - predicted slowdown among co-runners
 * (src/libcosched/cosched_interference.c). */

/*
 * This file is built without _GNU_SOURCE (the build passes it on the
 * command line), so it also checks that the public headers of the decision
 * core compile with plain -std=c11: none may need PATH_MAX or other
 * extensions.
 */
#undef _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "src/libcosched/cosched_classify.h"
#include "src/libcosched/cosched_conf.h"
#include "src/libcosched/cosched_interference.h"
#include "src/libcosched/cosched_profile.h"
#include "src/libcosched/cosched_store.h"

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

/* Seed 001 "Measured class-average slowdowns (Sandy Bridge)". */
START_TEST(test_default_table_seed001)
{
	static const double t[4][4] = {
		{ 1.00, 1.02, 1.10, 1.07 },
		{ 1.00, 1.06, 1.27, 2.15 },
		{ 1.00, 1.06, 1.34, 1.76 },
		{ 1.00, 1.00, 1.12, 1.30 },
	};
	for (int v = 0; v < 4; v++)
		for (int c = 0; c < 4; c++)
			ck_assert_double_eq(cosched_interference_pair(&m, v, c), t[v][c]);
	/* seed 002 preference table is the default too */
	ck_assert_int_eq(m.pref.pref[COSCHED_CAT_LIM][COSCHED_CAT_MEM], 3);
	ck_assert_int_eq(m.pref.pref[COSCHED_CAT_MEM][COSCHED_CAT_MEM], COSCHED_PREF_FORBIDDEN);
}
END_TEST

START_TEST(test_zero_and_one_corunner)
{
	cosched_class_t l = lca(COSCHED_LCA_L);
	ck_assert_double_eq(predict(lca(COSCHED_LCA_C), NULL, 0, NULL), 1.0);
	ck_assert_double_eq(predict(lca(COSCHED_LCA_C), &l, 1, NULL), 2.15);
	/* seed 002 "Placement lessons": a memory-bound with a CPU-bound
	 * program slow each other by < 1.1 */
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

/* Seed 002 "-" cells are reported as forbidden, with the culprit. */
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
	/* every "-" cell of seed 002's table */
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

START_TEST(test_overrides)
{
	ck_assert_int_eq(cosched_interference_override(&m, "Interference",
		" c:l = 2.5 , LC:LC=2", &err), 0);
	ck_assert_double_eq(cosched_interference_pair(&m, COSCHED_LCA_C, COSCHED_LCA_L), 2.5);
	ck_assert_double_eq(cosched_interference_pair(&m, COSCHED_LCA_LC, COSCHED_LCA_LC), 2.0);
	ck_assert_int_eq(cosched_preference_override(&m.pref, "PreferenceTable",
		"lim:rand=2,rand:lim=3", &err), 0);
	{
		cosched_class_t a = cat(COSCHED_CAT_LIM), b = cat(COSCHED_CAT_RAND);
		ck_assert(cosched_interference_allowed(&m, &a, &b));
	}
	ck_assert_int_eq(m.pref.pref[COSCHED_CAT_RAND][COSCHED_CAT_LIM], 3);
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
	tcase_add_test(tc, test_default_table_seed001);
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
