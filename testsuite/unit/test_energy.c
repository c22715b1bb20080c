/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_energy.c - a node's energy split among its jobs
 * (src/libcosched/model/energy.c): hand-computed cases, each fallback,
 * and a property test (random inputs: shares non-negative, never more
 * than 1 uJ above the exact share, and summing exactly to the node).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"

#include "src/libcosched/model/energy.h"

#define U COSCHED_ENERGY_UNKNOWN

static cosched_error_t err;

static cosched_energy_node_t node(uint64_t pkg, uint64_t core, uint64_t dram)
{
	cosched_energy_node_t n = { pkg, core, dram, true, true };

	return n;
}

static void split_ok(const cosched_energy_node_t *n,
		     const cosched_energy_job_t *jobs, size_t njobs,
		     cosched_energy_share_t *sh, cosched_energy_split_t *s)
{
	err.msg[0] = '\0';
	ck_assert_msg(cosched_energy_split(n, jobs, njobs, sh, s, &err) == 0,
		      "%s", err.msg);
}

static void share_is(const cosched_energy_share_t *sh, uint64_t uncore,
		     uint64_t core, uint64_t dram)
{
	ck_assert_uint_eq(sh->uncore_uj, uncore);
	ck_assert_uint_eq(sh->core_uj, core);
	ck_assert_uint_eq(sh->dram_uj, dram);
	ck_assert_uint_eq(sh->total_uj, uncore + core + dram);
}

/*
 * Two jobs, hand-computed.  Package 100 J of which core 60 J, DRAM 20 J.
 * Job A: 3 cores, activity 1 (say 1 s of CPU time), memory 1;
 * job B: 1 core, activity 3, memory 0.
 * idle + uncore 40 J by cores 3:1 -> 30, 10; core 60 J by activity 1:3 ->
 * 15, 45; DRAM 20 J by memory 1:0 -> 20, 0.
 */
START_TEST(t_two_jobs)
{
	cosched_energy_node_t n = node(100000000, 60000000, 20000000);
	cosched_energy_job_t jobs[] = { { 3, 1000000000, 1 },
					{ 1, 3000000000u, 0 } };
	cosched_energy_share_t sh[2];
	cosched_energy_split_t s;

	split_ok(&n, jobs, 2, sh, &s);
	ck_assert_uint_eq(s.node_uj, 120000000);
	ck_assert_uint_eq(s.unattributed_uj, 0);
	ck_assert_uint_eq(s.flags, 0);
	share_is(&sh[0], 30000000, 15000000, 20000000);
	share_is(&sh[1], 10000000, 45000000, 0);
	ck_assert_uint_eq(sh[0].total_uj + sh[1].total_uj, s.node_uj);
}
END_TEST

/*
 * Remainders: 10 uJ in every part among three equal jobs: 3 each and one
 * left over, to the first job (equal remainders: the earlier job).
 * Then 10 uJ by weights 1, 1, 2 (exact 2.5, 2.5, 5): 2, 2, 5 and one
 * left over, to the first of the two .5 remainders.
 */
START_TEST(t_remainder_rule)
{
	cosched_energy_node_t n = node(20, 10, 10);
	cosched_energy_job_t jobs[] = { { 1, 7, 7 }, { 1, 7, 7 }, { 1, 7, 7 } };
	cosched_energy_share_t sh[3];
	uint64_t w[] = { 1, 1, 2 }, out[3];
	uint64_t w2[] = { 3, 3, 4 }, out2[3];

	split_ok(&n, jobs, 3, sh, NULL);
	share_is(&sh[0], 4, 4, 4);
	share_is(&sh[1], 3, 3, 3);
	share_is(&sh[2], 3, 3, 3);

	ck_assert_int_eq(cosched_energy_apportion(10, w, 3, out, &err), 0);
	ck_assert_uint_eq(out[0], 3);
	ck_assert_uint_eq(out[1], 2);
	ck_assert_uint_eq(out[2], 5);
	/* 10 by 3:3:4 -> 3, 3, 4 exactly: nothing left over. */
	ck_assert_int_eq(cosched_energy_apportion(10, w2, 3, out2, &err), 0);
	ck_assert_uint_eq(out2[0], 3);
	ck_assert_uint_eq(out2[1], 3);
	ck_assert_uint_eq(out2[2], 4);
	/* 10 by 2:2:3 (exact 2.857, 2.857, 4.286): 2, 2, 4 and two left
	 * over, to the two .857 remainders, not to the .286. */
	{
		uint64_t w3[] = { 2, 2, 3 }, o3[3];

		ck_assert_int_eq(cosched_energy_apportion(10, w3, 3, o3, &err),
				 0);
		ck_assert_uint_eq(o3[0], 3);
		ck_assert_uint_eq(o3[1], 3);
		ck_assert_uint_eq(o3[2], 4);
	}
}
END_TEST

/* A job with no activity keeps its idle + uncore share and gets no core
 * or DRAM energy while another job is active. */
START_TEST(t_zero_activity_keeps_idle_share)
{
	cosched_energy_node_t n = node(50000000, 30000000, 10000000);
	cosched_energy_job_t jobs[] = { { 4, 0, 0 }, { 4, 500, 900 } };
	cosched_energy_share_t sh[2];

	split_ok(&n, jobs, 2, sh, NULL);
	share_is(&sh[0], 10000000, 0, 0);
	share_is(&sh[1], 10000000, 30000000, 10000000);
}
END_TEST

/* Every activity zero (an idle interval): core and DRAM by cores. */
START_TEST(t_all_idle)
{
	cosched_energy_node_t n = node(40, 4, 8);
	cosched_energy_job_t jobs[] = { { 1, 0, 0 }, { 3, 0, 0 } };
	cosched_energy_share_t sh[2];
	cosched_energy_split_t s;
	char buf[256];

	split_ok(&n, jobs, 2, sh, &s);
	ck_assert_uint_eq(s.flags, COSCHED_ENERGY_CORE_BY_CORES |
				   COSCHED_ENERGY_DRAM_BY_CORES);
	share_is(&sh[0], 9, 1, 2);
	share_is(&sh[1], 27, 3, 6);
	ck_assert_str_eq(cosched_energy_split_describe(&s, 2, buf, sizeof(buf)),
			 "node 0.000048 J to 2 jobs; no activity: core by cores; no activity: DRAM by cores");
}
END_TEST

/* No memory activity for one job: DRAM by activity (for every job). */
START_TEST(t_dram_by_activity)
{
	cosched_energy_node_t n = node(0, 0, 90);
	cosched_energy_job_t jobs[] = { { 1, 1, 5 }, { 1, 2, U } };
	cosched_energy_share_t sh[2];
	cosched_energy_split_t s;

	split_ok(&n, jobs, 2, sh, &s);
	ck_assert_uint_eq(s.flags, COSCHED_ENERGY_DRAM_BY_ACTIVITY);
	share_is(&sh[0], 0, 0, 30);
	share_is(&sh[1], 0, 0, 60);
	/* Known but all zero: the same. */
	jobs[1].mem_activity = 0;
	jobs[0].mem_activity = 0;
	split_ok(&n, jobs, 2, sh, &s);
	ck_assert_uint_eq(s.flags, COSCHED_ENERGY_DRAM_BY_ACTIVITY);
	ck_assert_uint_eq(sh[1].dram_uj, 60);
}
END_TEST

/* No core zone (Intel servers): the whole package by cores; no DRAM zone:
 * node energy is the package. */
START_TEST(t_missing_zones)
{
	cosched_energy_node_t n = { 80, 0, 0, false, false };
	cosched_energy_job_t jobs[] = { { 1, 100, U }, { 3, 0, U } };
	cosched_energy_share_t sh[2];
	cosched_energy_split_t s;
	char buf[256];

	split_ok(&n, jobs, 2, sh, &s);
	ck_assert_uint_eq(s.node_uj, 80);
	ck_assert_uint_eq(s.flags, COSCHED_ENERGY_PACKAGE_BY_CORES |
				   COSCHED_ENERGY_NO_DRAM);
	share_is(&sh[0], 20, 0, 0);
	share_is(&sh[1], 60, 0, 0);
	ck_assert_str_eq(cosched_energy_split_describe(&s, 2, buf, sizeof(buf)),
			 "node 0.000080 J to 2 jobs; no core zone: package by cores; no DRAM zone");
	/* A dram_uj without has_dram is ignored. */
	n.dram_uj = 1000;
	split_ok(&n, jobs, 2, sh, &s);
	ck_assert_uint_eq(s.node_uj, 80);
}
END_TEST

/* Core read above package (counters read microseconds apart). */
START_TEST(t_core_clamped)
{
	cosched_energy_node_t n = node(100, 103, 0);
	cosched_energy_job_t jobs[] = { { 1, 1, 0 } };
	cosched_energy_share_t sh[1];
	cosched_energy_split_t s;

	split_ok(&n, jobs, 1, sh, &s);
	ck_assert_uint_eq(s.flags, COSCHED_ENERGY_CORE_CLAMPED |
				   COSCHED_ENERGY_DRAM_BY_ACTIVITY);
	share_is(&sh[0], 0, 100, 0);
}
END_TEST

START_TEST(t_no_job)
{
	cosched_energy_node_t n = node(5000000, 1, 1500000);
	cosched_energy_split_t s;
	char buf[256];

	split_ok(&n, NULL, 0, NULL, &s);
	ck_assert_uint_eq(s.node_uj, 6500000);
	ck_assert_uint_eq(s.unattributed_uj, 6500000);
	ck_assert_uint_eq(s.flags, COSCHED_ENERGY_UNATTRIBUTED);
	ck_assert_str_eq(cosched_energy_split_describe(&s, 0, buf, sizeof(buf)),
			 "node 6.500000 J unattributed: no job on the node");
}
END_TEST

START_TEST(t_refused)
{
	cosched_energy_node_t n = node(10, 5, 5);
	cosched_energy_job_t jobs[] = { { 1, 1, 1 }, { 0, 1, 1 } };
	cosched_energy_share_t sh[2] = { { 7, 7, 7, 7 }, { 7, 7, 7, 7 } };
	uint64_t zero[] = { 0, 0 }, out[2];

	ck_assert_int_eq(cosched_energy_split(&n, jobs, 2, sh, NULL, &err), -1);
	ck_assert_str_eq(err.msg,
			 "energy: job 1: cores=0 (a job holds at least one core)");
	ck_assert_uint_eq(sh[0].total_uj, 7);	/* untouched */
	n.package_uj = UINT64_MAX;
	jobs[1].cores = 1;
	ck_assert_int_eq(cosched_energy_split(&n, jobs, 2, sh, NULL, &err), -1);
	ck_assert_msg(strstr(err.msg, "does not fit in 64 bits"), "%s", err.msg);
	ck_assert_int_eq(cosched_energy_split(&n, jobs,
					      COSCHED_ENERGY_JOBS_MAX + 1, sh,
					      NULL, &err), -1);
	ck_assert_int_eq(cosched_energy_apportion(1, zero, 2, out, &err), -1);
	ck_assert_msg(strstr(err.msg, "every weight is 0"), "%s", err.msg);
}
END_TEST

/* Large values: products beyond 64 bits are exact. */
START_TEST(t_large)
{
	uint64_t w[] = { UINT64_MAX, UINT64_MAX - 1, 1 }, out[3];
	uint64_t part = UINT64_MAX;

	ck_assert_int_eq(cosched_energy_apportion(part, w, 3, out, &err), 0);
	ck_assert_uint_eq(out[0] + out[1] + out[2], part);
	/* exact shares: about part/2 each, and 2^-64 of part (about 1) */
	ck_assert_uint_le(out[2], 1);
	ck_assert_uint_ge(out[0], out[1]);
}
END_TEST

static uint64_t rnd64(unsigned *seed)
{
	uint64_t v = 0;

	for (int i = 0; i < 4; i++)
		v = (v << 16) ^ (uint64_t) (rand_r(seed) & 0xffff);
	return v;
}

/* A random magnitude: small, medium or huge, sometimes 0. */
static uint64_t rnd_value(unsigned *seed)
{
	switch (rand_r(seed) % 5) {
	case 0:
		return 0;
	case 1:
		return (uint64_t) (rand_r(seed) % 10);
	case 2:
		return (uint64_t) rand_r(seed);
	case 3:
		return rnd64(seed) >> (rand_r(seed) % 64);
	default:
		return rnd64(seed);
	}
}

START_TEST(t_property)
{
	unsigned seed = 20251;
	static cosched_energy_job_t jobs[64];
	static cosched_energy_share_t sh[64];

	for (int round = 0; round < 20000; round++) {
		cosched_energy_node_t n;
		cosched_energy_split_t s;
		size_t nj = (size_t) (rand_r(&seed) % 64);
		uint64_t sum = 0, su = 0, sc = 0, sd = 0;

		n.package_uj = rnd_value(&seed) >> 2;
		n.core_uj = rnd_value(&seed) >> 2;
		n.dram_uj = rnd_value(&seed) >> 2;
		n.has_core = rand_r(&seed) % 4 != 0;
		n.has_dram = rand_r(&seed) % 4 != 0;
		for (size_t i = 0; i < nj; i++) {
			jobs[i].cores = 1 + (uint32_t) (rand_r(&seed) % 128);
			jobs[i].activity = rnd_value(&seed);
			jobs[i].mem_activity = rand_r(&seed) % 8 ?
				rnd_value(&seed) : U;
		}
		err.msg[0] = '\0';
		ck_assert_msg(cosched_energy_split(&n, jobs, nj, sh, &s, &err) == 0,
			      "round %d: %s", round, err.msg);
		ck_assert_uint_eq(s.node_uj, n.package_uj +
				  (n.has_dram ? n.dram_uj : 0));
		if (!nj) {
			ck_assert_uint_eq(s.unattributed_uj, s.node_uj);
			continue;
		}
		ck_assert_uint_eq(s.unattributed_uj, 0);
		for (size_t i = 0; i < nj; i++) {
			ck_assert_uint_eq(sh[i].total_uj, sh[i].uncore_uj +
					  sh[i].core_uj + sh[i].dram_uj);
			sum += sh[i].total_uj;
			su += sh[i].uncore_uj;
			sc += sh[i].core_uj;
			sd += sh[i].dram_uj;
		}
		ck_assert_msg(sum == s.node_uj, "round %d: shares %llu != node %llu",
			      round, (unsigned long long) sum,
			      (unsigned long long) s.node_uj);
		ck_assert_uint_eq(su + sc, n.package_uj);
		ck_assert_uint_eq(sd, n.has_dram ? n.dram_uj : 0);
		/* The idle + uncore part follows the cores: each share within
		 * 1 uJ of the exact one, |share x C - part x c| < C. */
		{
			uint64_t cores = 0;

			for (size_t i = 0; i < nj; i++)
				cores += jobs[i].cores;
			for (size_t i = 0; i < nj; i++) {
				__int128 d = (__int128) sh[i].uncore_uj * cores -
					     (__int128) su * jobs[i].cores;

				ck_assert_msg(d < (__int128) cores &&
					      -d < (__int128) cores,
					      "round %d job %zu: uncore %llu",
					      round, i,
					      (unsigned long long) sh[i].uncore_uj);
			}
		}
	}
}
END_TEST

/* The property again on the apportionment alone, with a brute-force check
 * of the rule: floor of the exact share, +1 for exactly the jobs with the
 * largest remainders (ties: earlier first). */
START_TEST(t_apportion_rule)
{
	unsigned seed = 7;

	for (int round = 0; round < 20000; round++) {
		size_t n = 1 + (size_t) (rand_r(&seed) % 12);
		uint64_t w[12], out[12], part = (uint64_t) (rand_r(&seed) % 1000);
		uint64_t W = 0, given = 0;

		for (size_t i = 0; i < n; i++) {
			w[i] = (uint64_t) (rand_r(&seed) % 7);
			W += w[i];
		}
		if (!W)
			w[0] = W = 1;
		ck_assert_int_eq(cosched_energy_apportion(part, w, n, out, &err), 0);
		for (size_t i = 0; i < n; i++)
			given += part * w[i] / W;
		for (size_t i = 0; i < n; i++) {
			uint64_t fl = part * w[i] / W, rem = part * w[i] % W;
			size_t better = 0;

			/* jobs ranked before i by the rule */
			for (size_t j = 0; j < n; j++) {
				uint64_t r = part * w[j] % W;

				if (r > rem || (r == rem && j < i))
					better++;
			}
			ck_assert_uint_eq(out[i],
					  fl + (better < part - given ? 1 : 0));
		}
	}
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("energy");
	TCase *tc = tcase_create("split");

	tcase_add_test(tc, t_two_jobs);
	tcase_add_test(tc, t_remainder_rule);
	tcase_add_test(tc, t_zero_activity_keeps_idle_share);
	tcase_add_test(tc, t_all_idle);
	tcase_add_test(tc, t_dram_by_activity);
	tcase_add_test(tc, t_missing_zones);
	tcase_add_test(tc, t_core_clamped);
	tcase_add_test(tc, t_no_job);
	tcase_add_test(tc, t_refused);
	tcase_add_test(tc, t_large);
	tcase_add_test(tc, t_property);
	tcase_add_test(tc, t_apportion_rule);
	suite_add_tcase(s, tc);
	return s;
}
