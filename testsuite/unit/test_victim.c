/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_victim.c - the migration-victim orders of "Dynamic memory placement
 * of applications on a NUMA system" (NTUA thesis, 2020)
 * (src/libcosched/model/victim.h): orders and plans computed by hand on the
 * thesis's 4-node machine, the freeze that stops pages bouncing back, and the
 * refusals. */
#include <math.h>
#include <string.h>

#include "cosched_check.h"

#include "src/libcosched/model/victim.h"

static cosched_error_t err;

/* The machine of the 2020 memory-placement thesis (its "Experimental
 * setup"). */
static const unsigned D[16] = {
	10, 21, 21, 30,
	21, 10, 30, 21,
	21, 30, 10, 21,
	30, 21, 21, 10,
};

#define NP 9

/* Request 0 -> 1.  By hand:
 *   P0 on dst, bw 5, 100 pages on 0 (and 10 already on 1)
 *   P1 on dst, bw 9, 50 pages on 0
 *   P2 on src, bw 1, 80 pages
 *   P3 on src, bw 7, 60 pages
 *   P4 on node 2, bw 2, 40 pages: distance 21 -> 30, delta +9
 *   P5 on node 3, bw 3, 30 pages: distance 30 -> 21, delta -9
 *   P6 on node 2, no page on 0: never a candidate
 *   P7 on node 3, high priority, 500 pages on 0: never a victim
 *   P8 CPUs on several nodes, bw 4, 20 pages: delta 0
 * Eligible on node 0: 100 + 50 + 80 + 60 + 40 + 30 + 20 = 380. */
static void procs_init(cosched_victim_proc_t *p)
{
	static const struct {
		int node;
		double bw;
		uint64_t on0;
	} t[NP] = {
		{ 1, 5, 100 }, { 1, 9, 50 }, { 0, 1, 80 }, { 0, 7, 60 },
		{ 2, 2, 40 }, { 3, 3, 30 }, { 2, 0.5, 0 }, { 3, 0.1, 500 },
		{ -1, 4, 20 },
	};
	memset(p, 0, NP * sizeof(*p));
	for (int i = 0; i < NP; i++) {
		p[i].pid = 100 + (uint32_t)i;
		p[i].cpu_node = t[i].node;
		p[i].bandwidth = t[i].bw;
		p[i].pages[0] = t[i].on0;
	}
	p[0].pages[1] = 10;
	p[6].pages[2] = 100;
	p[7].high_priority = true;
}

static void expect_rank(cosched_victim_order_t o, const unsigned *dist,
			const size_t *want, size_t nwant)
{
	cosched_victim_proc_t p[NP];
	cosched_migration_t req = { 0, 1, 100 };
	size_t out[NP], n = 99;

	procs_init(p);
	ck_assert_msg(cosched_victim_rank(o, p, NP, 4, dist, &req, 1, out, &n,
					  &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(n, nwant);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(out[i] == want[i], "%s: position %zu is P%zu, "
			      "expected P%zu", cosched_victim_order_name(o), i,
			      out[i], want[i]);
}

START_TEST(test_orders_by_hand)
{
	/* best: dst's processes by bandwidth descending (P1 9, P0 5), then
	 * all others ascending (P2 1, P4 2, P5 3, P8 4, P3 7). */
	static const size_t best[] = { 1, 0, 2, 4, 5, 8, 3 };
	/* best+: dst's (P1, P0); neither src nor dst with pages getting
	 * closer first (P5 -9, P8 0, P4 +9); then src's ascending (P2, P3). */
	static const size_t plus[] = { 1, 0, 5, 8, 4, 2, 3 };
	static const size_t worst[] = { 3, 8, 5, 4, 2, 0, 1 };
	static const size_t worst_plus[] = { 3, 2, 4, 8, 5, 0, 1 };
	/* Without distances the middle group is by bandwidth: P4, P5, P8. */
	static const size_t plus_nodist[] = { 1, 0, 4, 5, 8, 2, 3 };

	expect_rank(COSCHED_VICTIM_BEST, D, best, 7);
	expect_rank(COSCHED_VICTIM_BEST, NULL, best, 7);
	expect_rank(COSCHED_VICTIM_BEST_PLUS, D, plus, 7);
	expect_rank(COSCHED_VICTIM_WORST, D, worst, 7);
	expect_rank(COSCHED_VICTIM_WORST_PLUS, D, worst_plus, 7);
	expect_rank(COSCHED_VICTIM_BEST_PLUS, NULL, plus_nodist, 7);
}
END_TEST

START_TEST(test_random_is_seeded_permutation)
{
	cosched_victim_proc_t p[NP];
	cosched_migration_t req = { 0, 1, 100 };
	size_t a[NP], b[NP], n, m;
	bool differs = false;

	procs_init(p);
	ck_assert_int_eq(cosched_victim_rank(COSCHED_VICTIM_RANDOM, p, NP, 4, D,
					     &req, 7, a, &n, &err), 0);
	ck_assert_int_eq(cosched_victim_rank(COSCHED_VICTIM_RANDOM, p, NP, 4, D,
					     &req, 7, b, &m, &err), 0);
	ck_assert_uint_eq(n, 7);
	ck_assert_int_eq(memcmp(a, b, n * sizeof(*a)), 0);
	/* The candidates, each once. */
	unsigned seen = 0;
	for (size_t i = 0; i < n; i++) {
		ck_assert(a[i] != 6 && a[i] != 7 && a[i] < NP);
		ck_assert(!(seen & (1u << a[i])));
		seen |= 1u << a[i];
	}
	for (uint64_t s = 8; s < 16 && !differs; s++) {
		ck_assert_int_eq(cosched_victim_rank(COSCHED_VICTIM_RANDOM, p,
						     NP, 4, D, &req, s, b, &m,
						     &err), 0);
		differs = memcmp(a, b, n * sizeof(*a)) != 0;
	}
	ck_assert_msg(differs, "eight seeds gave the same order");
}
END_TEST

START_TEST(test_plan_exact_whole_short)
{
	cosched_victim_proc_t p[NP];
	cosched_migration_t req = { 0, 1, 170 };
	cosched_victim_move_t mv[NP];
	size_t n;
	uint64_t got;

	procs_init(p);
	/* Exact: P1 50 + P0 100 + 20 of P2's 80 = 170. */
	ck_assert_int_eq(cosched_victim_plan(COSCHED_VICTIM_BEST, p, NP, 4, D,
					     &req, 0, 1, mv, &n, &got, &err), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(got, 170);
	ck_assert(mv[0].proc == 1 && mv[0].pages == 50);
	ck_assert(mv[1].proc == 0 && mv[1].pages == 100);
	ck_assert(mv[2].proc == 2 && mv[2].pages == 20);
	/* The thesis's whole processes: all of P2's 80, 230 in all. */
	ck_assert_int_eq(cosched_victim_plan(COSCHED_VICTIM_BEST, p, NP, 4, D,
					     &req, COSCHED_VICTIM_WHOLE, 1, mv,
					     &n, &got, &err), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(got, 230);
	ck_assert(mv[2].proc == 2 && mv[2].pages == 80);
	/* Worst: P3's 60, P8's 20, P5's 30, P4's 40, then 20 of P2's 80:
	 * 60 + 20 + 30 + 40 + 20 = 170. */
	ck_assert_int_eq(cosched_victim_plan(COSCHED_VICTIM_WORST, p, NP, 4, D,
					     &req, 0, 1, mv, &n, &got, &err), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert(mv[0].proc == 3 && mv[0].pages == 60);
	ck_assert(mv[4].proc == 2 && mv[4].pages == 20);
	/* More than is eligible: everything eligible (380), status 1. */
	req.pages = 1000;
	ck_assert_int_eq(cosched_victim_plan(COSCHED_VICTIM_BEST_PLUS, p, NP, 4,
					     D, &req, 0, 1, mv, &n, &got,
					     &err), 1);
	ck_assert_uint_eq(n, 7);
	ck_assert_uint_eq(got, 380);
	/* Nobody eligible: an empty plan, status 1. */
	req.src = 3;
	req.dst = 2;
	ck_assert_int_eq(cosched_victim_plan(COSCHED_VICTIM_BEST, p, NP, 4, D,
					     &req, 0, 1, mv, &n, &got, &err), 1);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(got, 0);
}
END_TEST

START_TEST(test_no_bouncing)
{
	cosched_victim_proc_t p[NP];
	cosched_migration_t there = { 0, 1, 170 }, back = { 1, 0, 1000 };
	cosched_victim_move_t mv[NP];
	size_t n;
	uint64_t got;

	procs_init(p);
	ck_assert_int_eq(cosched_victim_plan(COSCHED_VICTIM_BEST, p, NP, 4, D,
					     &there, 0, 1, mv, &n, &got, &err), 0);
	ck_assert_int_eq(cosched_victim_apply(p, NP, &there, mv, n, &err), 0);
	ck_assert_uint_eq(p[0].pages[0], 0);
	ck_assert_uint_eq(p[0].pages[1], 110);
	ck_assert_uint_eq(p[0].frozen[1], 100);
	ck_assert_uint_eq(p[2].pages[0], 60);
	ck_assert_uint_eq(p[2].pages[1], 20);
	/* Straight back: only P0's 10 pages that were on node 1 before may
	 * move; the 170 that just arrived stay. */
	ck_assert_int_eq(cosched_victim_plan(COSCHED_VICTIM_BEST, p, NP, 4, D,
					     &back, 0, 1, mv, &n, &got, &err), 1);
	ck_assert_uint_eq(n, 1);
	ck_assert(mv[0].proc == 0 && mv[0].pages == 10);
	ck_assert_uint_eq(got, 10);
	/* The freeze window over, they may. */
	cosched_victim_thaw(p, NP);
	ck_assert_int_eq(cosched_victim_plan(COSCHED_VICTIM_BEST, p, NP, 4, D,
					     &back, 0, 1, mv, &n, &got, &err), 1);
	ck_assert_uint_eq(got, 180);
}
END_TEST

/* Any order, any request: each process at most once, never more than its
 * eligible pages, exactly min(request, eligible) in all, worst = best
 * reversed. */
START_TEST(test_plan_invariants)
{
	cosched_victim_proc_t p[24];
	cosched_victim_move_t mv[24];
	size_t rb[24], rw[24], nb, nw, n;
	uint64_t s = 12345, got;

	for (int round = 0; round < 200; round++) {
		uint64_t total = 0;
		cosched_migration_t req;
		memset(p, 0, sizeof(p));
		for (int i = 0; i < 24; i++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			p[i].pid = (uint32_t)i;
			p[i].cpu_node = (int)((s >> 33) % 5) - 1;
			p[i].bandwidth = (double)((s >> 20) % 1000) / 10;
			p[i].high_priority = ((s >> 40) % 7) == 0;
			for (int k = 0; k < 4; k++) {
				p[i].pages[k] = (s >> (8 * k)) % 50;
				p[i].frozen[k] = p[i].pages[k] / 3;
			}
		}
		req.src = round % 4;
		req.dst = (round / 4 + 1 + req.src) % 4;
		if (req.dst == req.src)
			req.dst = (req.src + 1) % 4;
		req.pages = 1 + (uint64_t)(round * 37 % 600);
		for (int i = 0; i < 24; i++)
			if (!p[i].high_priority)
				total += p[i].pages[req.src] - p[i].frozen[req.src];
		for (int o = 0; o < COSCHED_VICTIM_COUNT; o++) {
			int rc = cosched_victim_plan((cosched_victim_order_t)o, p,
						     24, 4, D, &req, 0,
						     (uint64_t)round, mv, &n,
						     &got, &err);
			ck_assert_int_eq(rc, total >= req.pages ? 0 : 1);
			ck_assert_uint_eq(got, total < req.pages ? total :
					  req.pages);
			uint64_t sum = 0;
			for (size_t i = 0; i < n; i++) {
				const cosched_victim_proc_t *v = &p[mv[i].proc];
				ck_assert(!v->high_priority);
				ck_assert(mv[i].pages >= 1);
				ck_assert(mv[i].pages <= v->pages[req.src] -
					  v->frozen[req.src]);
				for (size_t j = 0; j < i; j++)
					ck_assert(mv[j].proc != mv[i].proc);
				sum += mv[i].pages;
			}
			ck_assert_uint_eq(sum, got);
		}
		ck_assert_int_eq(cosched_victim_rank(COSCHED_VICTIM_BEST, p, 24,
						     4, D, &req, 0, rb, &nb,
						     &err), 0);
		ck_assert_int_eq(cosched_victim_rank(COSCHED_VICTIM_WORST, p, 24,
						     4, D, &req, 0, rw, &nw,
						     &err), 0);
		ck_assert_uint_eq(nb, nw);
		for (size_t i = 0; i < nb; i++)
			ck_assert_uint_eq(rb[i], rw[nb - 1 - i]);
	}
}
END_TEST

static void refused(const cosched_victim_proc_t *p, int nnodes,
		    const unsigned *dist, cosched_migration_t req,
		    const char *want)
{
	size_t out[NP], n = 42;

	ck_assert_int_eq(cosched_victim_rank(COSCHED_VICTIM_BEST, p, NP, nnodes,
					     dist, &req, 0, out, &n, &err), -1);
	ck_assert_msg(strstr(err.msg, want), "\"%s\" lacks \"%s\"", err.msg,
		      want);
	ck_assert_uint_eq(n, 42);
}

START_TEST(test_refusals)
{
	cosched_victim_proc_t p[NP];
	cosched_migration_t ok = { 0, 1, 10 };
	unsigned bad[16];
	cosched_victim_move_t mv[1] = { { 2, 81 } };
	cosched_victim_order_t o;

	procs_init(p);
	refused(p, 4, D, (cosched_migration_t){ 2, 2, 10 },
		"source and destination are both node 2");
	refused(p, 4, D, (cosched_migration_t){ 4, 1, 10 },
		"source node 4, the nodes are 0..3");
	refused(p, 4, D, (cosched_migration_t){ 0, -1, 10 },
		"destination node -1");
	refused(p, 4, D, (cosched_migration_t){ 0, 1, 0 }, "0 pages");
	refused(p, 0, NULL, ok, "nodes: 0");
	memcpy(bad, D, sizeof(bad));
	bad[2 * 4 + 3] = 10;
	refused(p, 4, bad, ok, "distance 2->3: 10, not above the local 10");
	p[4].bandwidth = NAN;
	refused(p, 4, D, ok, "process 104: bandwidth nan");
	procs_init(p);
	p[3].cpu_node = 4;
	refused(p, 4, D, ok, "process 103: CPUs on node 4");
	procs_init(p);
	p[2].frozen[0] = 81;
	refused(p, 4, D, ok, "process 102: 81 frozen pages on node 0, 80");
	/* Applying more than a process has leaves everything unchanged. */
	procs_init(p);
	ck_assert_int_eq(cosched_victim_apply(p, NP, &ok, mv, 1, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "process 102 has 80 movable"));
	ck_assert_uint_eq(p[2].pages[0], 80);
	ck_assert_uint_eq(p[2].pages[1], 0);
	/* Names. */
	ck_assert_int_eq(cosched_victim_order_parse("--order", "Best+", &o,
						    &err), 0);
	ck_assert_int_eq(o, COSCHED_VICTIM_BEST_PLUS);
	ck_assert_int_eq(cosched_victim_order_parse("--order", "WORST_PLUS", &o,
						    &err), 0);
	ck_assert_int_eq(o, COSCHED_VICTIM_WORST_PLUS);
	ck_assert_int_eq(cosched_victim_order_parse("--order", "bestest", &o,
						    &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "--order: invalid victim order "
				     "\"bestest\""));
	ck_assert_str_eq(cosched_victim_order_name(COSCHED_VICTIM_RANDOM),
			 "random");
	ck_assert_str_eq(cosched_victim_order_name(COSCHED_VICTIM_COUNT),
			 "unknown");
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("victim");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_orders_by_hand);
	tcase_add_test(tc, test_random_is_seeded_permutation);
	tcase_add_test(tc, test_plan_exact_whole_short);
	tcase_add_test(tc, test_no_bouncing);
	tcase_add_test(tc, test_plan_invariants);
	tcase_add_test(tc, test_refusals);
	suite_add_tcase(s, tc);
	return s;
}
