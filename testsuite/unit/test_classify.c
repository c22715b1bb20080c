/* test_classify.c - seed 002 categories, seed 001 LCA classes, the mapping
 * between them and the effective class (src/libcosched/cosched_classify.c). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "src/libcosched/cosched_classify.h"

#define MB 1e6
/* Seed 002 "Power model": one package's full STREAM bandwidth. */
#define SEED002_NODE_PEAK (15000.0 * MB)

static cosched_classify_conf_t conf;
static cosched_error_t err;
static char why[256];

static void setup(void)
{
	cosched_classify_conf_default(&conf);
	cosched_error_clear(&err);
	why[0] = '\0';
}

/*
 * A run of 100 s with the given IPC, MPKI and threads at 2.2 GHz (seed
 * 002's top frequency); mem_mbs / l3l2_mbs are whole-job bandwidths in MB/s
 * (NAN = not measured).
 */
static cosched_run_t mkrun(double ipc, double mpki, int threads,
			   double mem_mbs, double l3l2_mbs)
{
	cosched_run_t r;
	double t = 100.0;

	cosched_run_init(&r);
	r.runtime_s = t;
	r.threads = threads;
	r.freq_khz = 2200000;
	r.cycles = 2.2e9 * t * threads;
	r.instructions = r.cycles * ipc;
	r.llc_misses = r.instructions * mpki / 1000.0;
	r.mem_bytes_per_s = mem_mbs * MB;
	r.llc_to_core_bytes_per_s = l3l2_mbs * MB;
	return r;
}

static cosched_derived_t derive(cosched_run_t r, double node_peak)
{
	cosched_derived_t d;
	cosched_run_derive(&r, node_peak, &d);
	return d;
}

static cosched_category_t cat_of(cosched_run_t r, double node_peak)
{
	cosched_derived_t d = derive(r, node_peak);
	return cosched_classify_category(&conf, &d, why, sizeof(why));
}

static cosched_lca_t lca_of(cosched_run_t r)
{
	cosched_derived_t d = derive(r, SEED002_NODE_PEAK);
	return cosched_classify_lca(&conf, &d, why, sizeof(why));
}

/* Seed 001 "Classification thresholds": B_max = 14 GB/s, IPC_max = 4 give
 * alpha = 7 GB/s, beta = 0.35 GB/s, gamma = 2 GB/s (0.15 x 14 = 2.1, the
 * seed rounds), delta = 0.25, epsilon = 1. */
START_TEST(test_lca_thresholds_seed001)
{
	cosched_lca_abs_t a;

	/* the defaults themselves are checked once, in test_conf.c */
	cosched_lca_thresholds(&conf.lca, &a);
	ck_assert_double_eq_tol(a.alpha_mbs, 7000.0, 1e-9);
	ck_assert_double_eq_tol(a.beta_mbs, 350.0, 1e-9);
	ck_assert_double_eq_tol(a.gamma_mbs, 2100.0, 1e-9);
	ck_assert(fabs(a.gamma_mbs - 2000.0) <= 100.0);
	ck_assert_double_eq(a.delta, 0.25);
	ck_assert_double_eq_tol(a.epsilon_ipc, 1.0, 1e-12);
}
END_TEST

/*
 * Seed 001 "Metrics": a prefetch-friendly stream moves 13,851 MB/s but its
 * LLC misses account for only 1,137 MB/s.  With the memory-traffic counter
 * it is L; from LLC misses alone it would be LC.
 */
START_TEST(test_lca_stream_prefers_memory_traffic)
{
	double t = 100.0;
	cosched_run_t r = mkrun(1.0, 0.0, 1, 13851.0, NAN);
	cosched_derived_t d;

	r.llc_misses = 1137.0 * MB * t / 64.0;
	d = derive(r, SEED002_NODE_PEAK);
	ck_assert_double_eq_tol(d.llc_miss_bw / MB, 1137.0, 1e-6);
	ck_assert_double_eq_tol(cosched_derived_mem_bw(&d) / MB, 13851.0, 1e-6);
	ck_assert_int_eq(cosched_classify_lca(&conf, &d, why, sizeof(why)),
			 COSCHED_LCA_L);
	ck_assert_ptr_nonnull(strstr(why, "memory-traffic"));

	r.mem_bytes_per_s = NAN;	/* machine without the counter */
	ck_assert_int_eq(lca_of(r), COSCHED_LCA_LC);
	ck_assert_ptr_nonnull(strstr(why, "LLC-miss"));
}
END_TEST

/* The seed's decision order, at and around each threshold (strict >). */
START_TEST(test_lca_decision_order)
{
	cosched_run_t r;

	ck_assert_int_eq(lca_of(mkrun(1.0, 0, 1, 7000.0, 5000.0)), COSCHED_LCA_LC);
	ck_assert_int_eq(lca_of(mkrun(1.0, 0, 1, 7000.5, 5000.0)), COSCHED_LCA_L);
	ck_assert_int_eq(lca_of(mkrun(1.0, 0, 1, 351.0, 5000.0)), COSCHED_LCA_LC);
	/* below beta: cache-to-core traffic decides C before IPC is looked at */
	ck_assert_int_eq(lca_of(mkrun(3.0, 0, 1, 349.0, 2101.0)), COSCHED_LCA_C);
	ck_assert_int_eq(lca_of(mkrun(3.0, 0, 1, 349.0, 2099.0)), COSCHED_LCA_N);
	/* IPC > epsilon: CPU-bound N, whatever mem_uops says */
	r = mkrun(1.5, 0, 1, 10.0, 10.0);
	r.mem_uops_fraction = 0.9;
	ck_assert_int_eq(lca_of(r), COSCHED_LCA_N);
	/* low IPC: memory-bound (mem_uops > delta) is C, otherwise N */
	r = mkrun(0.8, 0, 1, 10.0, 10.0);
	r.mem_uops_fraction = 0.30;
	ck_assert_int_eq(lca_of(r), COSCHED_LCA_C);
	r.mem_uops_fraction = 0.25;
	ck_assert_int_eq(lca_of(r), COSCHED_LCA_N);
	/* mem_uops not measured: low IPC is taken as C (documented) */
	r.mem_uops_fraction = NAN;
	ck_assert_int_eq(lca_of(r), COSCHED_LCA_C);
	ck_assert_ptr_nonnull(strstr(why, "not measured"));
	/* unmeasured L3->L2 skips the gamma test */
	ck_assert_int_eq(lca_of(mkrun(3.0, 0, 1, 100.0, NAN)), COSCHED_LCA_N);
}
END_TEST

/* Per core: a 4-thread job moving 20 GB/s is 5 GB/s per core (LC). */
START_TEST(test_lca_per_core)
{
	ck_assert_int_eq(lca_of(mkrun(1.0, 0, 4, 20000.0, NAN)), COSCHED_LCA_LC);
	ck_assert_int_eq(lca_of(mkrun(1.0, 0, 2, 20000.0, NAN)), COSCHED_LCA_L);
}
END_TEST

START_TEST(test_lca_unknown)
{
	cosched_derived_t d;
	cosched_profile_t p;
	ck_assert_int_eq(cosched_profile_init(&p, "empty", &err), 0);
	d = p.derived;
	ck_assert_int_eq(cosched_classify_lca(&conf, &d, why, sizeof(why)),
			 COSCHED_LCA_UNKNOWN);
	ck_assert_int_eq(cosched_classify_category(&conf, &d, why, sizeof(why)),
			 COSCHED_CAT_UNKNOWN);
	cosched_profile_free(&p);
}
END_TEST

/*
 * Seed 002 "Application categories": the four representative programs with
 * the thread counts and MPI of the artificial workload.
 */
START_TEST(test_seed002_representatives)
{
	/* cpu: NAS ep.A, working set in L1/L2, MPI 0.01 */
	ck_assert_int_eq(cat_of(mkrun(2.0, 0.01, 4, NAN, 200.0), SEED002_NODE_PEAK),
			 COSCHED_CAT_CPU);
	/* lim: STREAM at ~25% bandwidth, 10 ops per transaction, MPI 1.66 */
	ck_assert_int_eq(cat_of(mkrun(1.0, 1.66, 4, 0.25 * 15000, 0.25 * 15000),
				SEED002_NODE_PEAK), COSCHED_CAT_LIM);
	/* mem: STREAM at ~80% bandwidth, 1 op per transaction, MPI 5.02 */
	ck_assert_int_eq(cat_of(mkrun(0.5, 5.02, 3, 0.80 * 15000, 0.80 * 15000),
				SEED002_NODE_PEAK), COSCHED_CAT_MEM);
	ck_assert_ptr_nonnull(strstr(why, "ClassifyMemBandwidthFraction"));
	/* rand: int array of half the LLC, 1000 random accesses per element:
	 * MPI 0.01, every access an L2 miss served by the LLC */
	ck_assert_int_eq(cat_of(mkrun(0.5, 0.01, 2, NAN, 2 * 3500.0),
				SEED002_NODE_PEAK), COSCHED_CAT_RAND);
	ck_assert_ptr_nonnull(strstr(why, "reuse"));
}
END_TEST

/*
 * Seed 002: "MPI alone does not decide (Floyd-Warshall MPI 2.28 is mem;
 * cg.B MPI 2.99 is lim)".  The seed gives no bandwidth for them; with a
 * memory-heavy Floyd-Warshall (60% of the peak) and a moderate cg.B (30%)
 * the bandwidth fraction separates what MPI orders the other way.
 */
START_TEST(test_mpi_alone_does_not_decide)
{
	ck_assert_int_eq(cat_of(mkrun(0.6, 2.28, 8, 0.60 * 15000, 0.60 * 15000),
				SEED002_NODE_PEAK), COSCHED_CAT_MEM);
	ck_assert_int_eq(cat_of(mkrun(0.6, 2.99, 8, 0.30 * 15000, 0.40 * 15000),
				SEED002_NODE_PEAK), COSCHED_CAT_LIM);
	/* Without a node peak the MPI fallback is used: cg.B stays lim and
	 * Floyd-Warshall is misread as lim (the documented limitation). */
	ck_assert_int_eq(cat_of(mkrun(0.6, 2.99, 8, NAN, NAN), 0.0), COSCHED_CAT_LIM);
	ck_assert_int_eq(cat_of(mkrun(0.6, 2.28, 8, NAN, NAN), 0.0), COSCHED_CAT_LIM);
	ck_assert_int_eq(cat_of(mkrun(0.5, 5.02, 3, NAN, NAN), 0.0), COSCHED_CAT_MEM);
	ck_assert_ptr_nonnull(strstr(why, "ClassifyMemMPKI"));
}
END_TEST

/* Seed 002 "Workload used for the headline comparison" from MPI alone. */
START_TEST(test_artificial_workload_mpi)
{
	static const struct { double mpi; int threads; cosched_category_t cat; } w[] = {
		{ 0.01, 4, COSCHED_CAT_CPU }, { 0.01, 5, COSCHED_CAT_CPU },
		{ 0.01, 6, COSCHED_CAT_CPU }, { 1.66, 4, COSCHED_CAT_LIM },
		{ 1.78, 5, COSCHED_CAT_LIM }, { 1.99, 6, COSCHED_CAT_LIM },
		{ 5.02, 3, COSCHED_CAT_MEM }, { 5.38, 4, COSCHED_CAT_MEM },
		{ 5.57, 5, COSCHED_CAT_MEM },
	};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		ck_assert_msg(cat_of(mkrun(1.0, w[i].mpi, w[i].threads, NAN, NAN), 0.0)
			      == w[i].cat, "MPI %.2f misclassified (%s)", w[i].mpi, why);
}
END_TEST

/* rand is identified by reuse, not misses: a stream with the same L3->L2
 * traffic but reuse ~1 is not rand, and a cpu program's tiny cache traffic
 * does not pass the minimum whatever its ratio. */
START_TEST(test_rand_needs_reuse_and_traffic)
{
	ck_assert_int_eq(cat_of(mkrun(1.0, 1.7, 2, 7000.0, 7000.0), SEED002_NODE_PEAK),
			 COSCHED_CAT_LIM);
	ck_assert_int_eq(cat_of(mkrun(2.0, 0.0, 2, 0.0, 100.0), SEED002_NODE_PEAK),
			 COSCHED_CAT_CPU);
	/* reuse just at the threshold */
	ck_assert_int_eq(cat_of(mkrun(1.0, 0.0, 1, 300.0, 3000.0), SEED002_NODE_PEAK),
			 COSCHED_CAT_RAND);
	/* reuse 9.97: not rand; MPKI 0 and 2% of the peak: cpu */
	ck_assert_int_eq(cat_of(mkrun(1.0, 0.0, 1, 301.0, 3000.0), SEED002_NODE_PEAK),
			 COSCHED_CAT_CPU);
}
END_TEST

START_TEST(test_mapping_both_directions)
{
	static const struct { cosched_category_t cat; cosched_lca_t lca; } m[] = {
		{ COSCHED_CAT_CPU, COSCHED_LCA_N }, { COSCHED_CAT_RAND, COSCHED_LCA_C },
		{ COSCHED_CAT_LIM, COSCHED_LCA_LC }, { COSCHED_CAT_MEM, COSCHED_LCA_L },
		{ COSCHED_CAT_UNKNOWN, COSCHED_LCA_UNKNOWN },
	};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		ck_assert_int_eq(cosched_category_to_lca(m[i].cat), m[i].lca);
		ck_assert_int_eq(cosched_lca_to_category(m[i].lca), m[i].cat);
	}
}
END_TEST

static void profile_with(cosched_profile_t *p, cosched_run_t r)
{
	cosched_merge_params_t mp;
	cosched_merge_params_default(&mp);
	mp.node_peak_bw = SEED002_NODE_PEAK;
	ck_assert_int_eq(cosched_profile_init(p, "app", &err), 0);
	ck_assert_msg(cosched_profile_add_run(p, &r, &mp, &err) == 0, "%s", err.msg);
}

START_TEST(test_effective_class)
{
	cosched_profile_t p;
	cosched_class_t c;

	/* nothing known */
	c = cosched_classify_effective(&conf, NULL, COSCHED_CAT_UNKNOWN);
	ck_assert_int_eq(c.cat, COSCHED_CAT_UNKNOWN);
	ck_assert_int_eq(c.lca, COSCHED_LCA_UNKNOWN);
	ck_assert_int_eq(c.source, COSCHED_CLASS_FROM_NONE);
	/* declared only */
	c = cosched_classify_effective(&conf, NULL, COSCHED_CAT_MEM);
	ck_assert_int_eq(c.cat, COSCHED_CAT_MEM);
	ck_assert_int_eq(c.lca, COSCHED_LCA_L);
	ck_assert_str_eq(cosched_class_source_name(c.source), "declared");
	/* empty profile = no profile */
	ck_assert_int_eq(cosched_profile_init(&p, "app", &err), 0);
	c = cosched_classify_effective(&conf, &p, COSCHED_CAT_LIM);
	ck_assert_int_eq(c.cat, COSCHED_CAT_LIM);
	ck_assert_int_eq(c.source, COSCHED_CLASS_FROM_DECLARED);
	cosched_profile_free(&p);
	/* a measured profile wins over the declared class */
	profile_with(&p, mkrun(2.0, 0.01, 4, NAN, 100.0));
	c = cosched_classify_effective(&conf, &p, COSCHED_CAT_MEM);
	ck_assert_int_eq(c.cat, COSCHED_CAT_CPU);
	ck_assert_int_eq(c.lca, COSCHED_LCA_N);
	ck_assert_str_eq(cosched_class_source_name(c.source), "profile");
	/* ... also over a declared rand when cache-to-core was measured */
	c = cosched_classify_effective(&conf, &p, COSCHED_CAT_RAND);
	ck_assert_int_eq(c.cat, COSCHED_CAT_CPU);
	cosched_profile_free(&p);
	/* without L3->L2 counters a declared rand is believed */
	profile_with(&p, mkrun(0.5, 0.01, 2, NAN, NAN));
	c = cosched_classify_effective(&conf, &p, COSCHED_CAT_UNKNOWN);
	ck_assert_int_eq(c.cat, COSCHED_CAT_CPU);
	c = cosched_classify_effective(&conf, &p, COSCHED_CAT_RAND);
	ck_assert_int_eq(c.cat, COSCHED_CAT_RAND);
	ck_assert_int_eq(c.lca, COSCHED_LCA_C);
	ck_assert_int_eq(c.source, COSCHED_CLASS_FROM_DECLARED);
	cosched_profile_free(&p);
}
END_TEST

START_TEST(test_conf_check)
{
	static const struct { size_t off; double v; const char *needle; } bad[] = {
		{ offsetof(cosched_classify_conf_t, lca.alpha), 1.5, "LcaAlpha: value 1.5 out of range" },
		{ offsetof(cosched_classify_conf_t, lca.alpha), 0.0, "LcaAlpha" },
		{ offsetof(cosched_classify_conf_t, lca.beta), -0.1, "LcaBeta" },
		{ offsetof(cosched_classify_conf_t, lca.beta), 0.6, "must be less than LcaAlpha" },
		{ offsetof(cosched_classify_conf_t, lca.delta), 1.01, "LcaDelta" },
		{ offsetof(cosched_classify_conf_t, lca.epsilon), NAN, "LcaEpsilon" },
		{ offsetof(cosched_classify_conf_t, lca.core_peak_bw_mbs), 0.0, "CorePeakBandwidth" },
		{ offsetof(cosched_classify_conf_t, lca.core_peak_ipc), 65.0, "CorePeakIPC" },
		{ offsetof(cosched_classify_conf_t, cat.mem_bw_fraction), 0.05, "must be less than ClassifyMemBandwidthFraction" },
		{ offsetof(cosched_classify_conf_t, cat.lim_mpki), 4.5, "must be less than ClassifyMemMPKI" },
		{ offsetof(cosched_classify_conf_t, cat.rand_reuse), 0.5, "ClassifyRandReuse" },
		{ offsetof(cosched_classify_conf_t, cat.rand_cache_bw), INFINITY, "ClassifyRandCacheBandwidth" },
	};
	ck_assert_int_eq(cosched_classify_conf_check(&conf, &err), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_classify_conf_t c;
		cosched_classify_conf_default(&c);
		*(double *) ((char *) &c + bad[i].off) = bad[i].v;
		cosched_error_clear(&err);
		ck_assert_int_eq(cosched_classify_conf_check(&c, &err), -1);
		ck_assert_msg(strstr(err.msg, bad[i].needle) != NULL,
			      "\"%s\" lacks \"%s\"", err.msg, bad[i].needle);
	}
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("classify");
	TCase *tc = tcase_create("classify");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_lca_thresholds_seed001);
	tcase_add_test(tc, test_lca_stream_prefers_memory_traffic);
	tcase_add_test(tc, test_lca_decision_order);
	tcase_add_test(tc, test_lca_per_core);
	tcase_add_test(tc, test_lca_unknown);
	tcase_add_test(tc, test_seed002_representatives);
	tcase_add_test(tc, test_mpi_alone_does_not_decide);
	tcase_add_test(tc, test_artificial_workload_mpi);
	tcase_add_test(tc, test_rand_needs_reuse_and_traffic);
	tcase_add_test(tc, test_mapping_both_directions);
	tcase_add_test(tc, test_effective_class);
	tcase_add_test(tc, test_conf_check);
	suite_add_tcase(s, tc);
	return s;
}
