/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_gang_rank.c - the gang policies of "Power-aware gang scheduling on
 * multicore" (NTUA thesis, 2013; src/libcosched/policy/gang.c), incremental
 * form: each policy's ranking of the sockets for one arriving job, and the
 * socket index that answers it in sublinear time. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "gang_job.h"
#include "src/libcosched/policy/socket_index.h"

static cosched_error_t err;

/* ---- incremental form -------------------------------------------- */

static void rank_strs(cosched_policy_t pol, const cosched_gang_params_t *p,
		      const cosched_socket_t *s, size_t n,
		      const cosched_gang_job_t *job, size_t expect_acc,
		      const char **expect)
{
	cosched_candidate_t out[16];
	size_t acc;
	char buf[160];

	ck_assert_int_eq(cosched_gang_rank(pol, p, s, n, job, out, &acc, &err), 0);
	ck_assert_uint_eq(acc, expect_acc);
	for (size_t i = 0; i < n; i++) {
		cosched_candidate_format(&out[i], buf, sizeof(buf));
		ck_assert_str_eq(buf, expect[i]);
	}
}

/* Every reason as its printf format writes it, whole and cut at every
 * length. */
START_TEST(test_candidate_format_as_printf)
{
	cosched_candidate_t c = {
		.socket = 17, .score = 1.0625, .threads = 3, .leftover = 1,
		.napps = 2, .max_apps = 2, .need = 4, .free_cores = 1,
		.cat_job = COSCHED_CAT_MEM, .cat_other = COSCHED_CAT_LIM,
		.mpki_combined = 23.105, .threshold = 12.0,
	};
	char want[160], got[160];

	for (int r = COSCHED_REJECT_NONE; r <= COSCHED_REJECT_MPKI_BOUND;
	     r++) {
		c.reject = (cosched_reject_t) r;
		for (size_t len = 1; len <= sizeof(got); len++) {
			switch (c.reject) {
			case COSCHED_REJECT_NONE:
				snprintf(want, len, "socket %zu: accepted, score %.3f, %d threads, %d cores left",
					 c.socket, c.score, c.threads, c.leftover);
				break;
			case COSCHED_REJECT_NO_FREE_CORES:
				snprintf(want, len, "socket %zu: no free cores", c.socket);
				break;
			case COSCHED_REJECT_GANG_FULL:
				snprintf(want, len, "socket %zu: gang full (%d of %d applications)",
					 c.socket, c.napps, c.max_apps);
				break;
			case COSCHED_REJECT_TOO_FEW_CORES:
				snprintf(want, len, "socket %zu: needs %d cores, %d free",
					 c.socket, c.need, c.free_cores);
				break;
			case COSCHED_REJECT_FORBIDDEN_PAIR:
				snprintf(want, len, "socket %zu: forbidden pair %s+%s", c.socket,
					 cosched_category_name(c.cat_job),
					 cosched_category_name(c.cat_other));
				break;
			default:
				snprintf(want, len, "socket %zu: combined MPKI %.2f > T %.2f",
					 c.socket, c.mpki_combined, c.threshold);
				break;
			}
			cosched_candidate_format(&c, got, len);
			ck_assert_str_eq(got, want);
		}
	}
}
END_TEST

START_TEST(test_rank_app_aware)
{
	cosched_gang_job_t full[] = { mkjob(1, "c", 8, 0, COSCHED_CAT_CPU) };
	cosched_gang_job_t mem[] = { mkjob(2, "m", 4, 0, COSCHED_CAT_MEM) };
	cosched_gang_job_t cpu[] = { mkjob(3, "c", 4, 0, COSCHED_CAT_CPU) };
	cosched_gang_job_t lim[] = { mkjob(4, "l", 4, 0, COSCHED_CAT_LIM) };
	cosched_gang_job_t two[] = { mkjob(5, "c", 2, 0, COSCHED_CAT_CPU),
				     mkjob(6, "c", 2, 0, COSCHED_CAT_CPU) };
	cosched_gang_job_t big[] = { mkjob(7, "c", 6, 0, COSCHED_CAT_CPU) };
	cosched_gang_job_t rnd[] = { mkjob(8, "r", 2, 0, COSCHED_CAT_RAND) };
	cosched_socket_t s[] = {
		{ 8, 8, full, 1 }, { 8, 4, mem, 1 }, { 8, 4, cpu, 1 },
		{ 8, 4, lim, 1 }, { 8, 0, NULL, 0 }, { 8, 4, two, 2 },
		{ 8, 6, big, 1 }, { 8, 2, rnd, 1 },
	};
	cosched_gang_job_t job = mkjob(100, "new", 4, 5.0, COSCHED_CAT_MEM);
	cosched_gang_params_t p;
	/* cpu partner: cost 1 + 1 = 2; lim partner: cost 2 + 3 = 5. */
	const char *expect[] = {
		"socket 2: accepted, score 1.333, 4 threads, 0 cores left",
		"socket 3: accepted, score 1.167, 4 threads, 0 cores left",
		"socket 4: accepted, score 0.000, 4 threads, 4 cores left",
		"socket 0: no free cores",
		"socket 1: forbidden pair mem+mem",
		"socket 5: gang full (2 of 2 applications)",
		"socket 6: needs 4 cores, 2 free",
		"socket 7: forbidden pair mem+rand",
	};

	cosched_gang_params_init(&p, 8);
	rank_strs(COSCHED_POLICY_APP_AWARE, &p, s, 8, &job, 3, expect);

	/* A rand job next to rand is fine (pref 1), never next to mem/lim. */
	cosched_gang_job_t rj = mkjob(101, "r", 2, 0, COSCHED_CAT_RAND);
	const char *expect_r[] = {
		"socket 7: accepted, score 1.333, 2 threads, 4 cores left",
		"socket 2: accepted, score 1.250, 2 threads, 2 cores left",
		"socket 4: accepted, score 0.000, 2 threads, 6 cores left",
		"socket 6: accepted, score 1.250, 2 threads, 0 cores left",
	};
	cosched_candidate_t out[8];
	size_t acc;
	char buf[160];
	ck_assert_int_eq(cosched_gang_rank(COSCHED_POLICY_APP_AWARE, &p, s, 8, &rj,
					   out, &acc, &err), 0);
	ck_assert_uint_eq(acc, 4);
	/* order: score desc, then fewer leftover cores */
	cosched_candidate_format(&out[0], buf, sizeof(buf));
	ck_assert_str_eq(buf, expect_r[0]);
	cosched_candidate_format(&out[1], buf, sizeof(buf));
	ck_assert_str_eq(buf, expect_r[3]);
	cosched_candidate_format(&out[2], buf, sizeof(buf));
	ck_assert_str_eq(buf, expect_r[1]);
	cosched_candidate_format(&out[3], buf, sizeof(buf));
	ck_assert_str_eq(buf, expect_r[2]);
	cosched_candidate_format(&out[5], buf, sizeof(buf));
	ck_assert_str_eq(buf, "socket 1: forbidden pair rand+mem");
	cosched_candidate_format(&out[6], buf, sizeof(buf));
	ck_assert_str_eq(buf, "socket 3: forbidden pair rand+lim");

	/* Unknown category runs alone. */
	cosched_gang_job_t uj = mkjob(102, "u", 2, 0, COSCHED_CAT_UNKNOWN);
	ck_assert_int_eq(cosched_gang_rank(COSCHED_POLICY_APP_AWARE, &p, s, 8, &uj,
					   out, &acc, &err), 0);
	ck_assert_uint_eq(acc, 1);
	ck_assert_uint_eq(out[0].socket, 4);
	cosched_candidate_format(&out[2], buf, sizeof(buf));
	ck_assert_str_eq(buf, "socket 1: forbidden pair unknown+mem");
}
END_TEST

START_TEST(test_rank_gang_greedy)
{
	cosched_gang_job_t o4[] = { mkjob(1, "a", 4, 0, COSCHED_CAT_CPU) };
	cosched_gang_job_t o5[] = { mkjob(2, "b", 5, 0, COSCHED_CAT_CPU) };
	cosched_gang_job_t o7[] = { mkjob(3, "c", 7, 0, COSCHED_CAT_CPU) };
	cosched_socket_t s[] = {
		{ 8, 0, NULL, 0 }, { 8, 4, o4, 1 }, { 8, 5, o5, 1 }, { 8, 7, o7, 1 },
		{ 8, 0, NULL, 0 },
	};
	cosched_gang_job_t job = mkjob(10, "j", 4, 0, COSCHED_CAT_MEM);
	cosched_gang_params_t p;
	const char *gang[] = {
		"socket 0: accepted, score 0.000, 4 threads, 4 cores left",
		"socket 4: accepted, score 0.000, 4 threads, 4 cores left",
		"socket 1: gang full (1 of 1 applications)",
		"socket 2: gang full (1 of 1 applications)",
		"socket 3: gang full (1 of 1 applications)",
	};
	/* Greedy Thread: admitted at its minimum (2); full request first,
	 * then best fit; contention-blind. */
	const char *greedy[] = {
		"socket 1: accepted, score 1.000, 4 threads, 0 cores left",
		"socket 0: accepted, score 1.000, 4 threads, 4 cores left",
		"socket 4: accepted, score 1.000, 4 threads, 4 cores left",
		"socket 2: accepted, score 0.750, 3 threads, 0 cores left",
		"socket 3: needs 2 cores, 1 free",
	};

	cosched_gang_params_init(&p, 8);
	rank_strs(COSCHED_POLICY_GANG, &p, s, 5, &job, 2, gang);
	job.min_threads = 2;
	rank_strs(COSCHED_POLICY_GREEDY_THREAD, &p, s, 5, &job, 4, greedy);
}
END_TEST

START_TEST(test_rank_miss_rate)
{
	cosched_gang_job_t lo[] = { mkjob(1, "a", 4, 0.04, COSCHED_CAT_RAND) };
	cosched_gang_job_t mid[] = { mkjob(2, "b", 4, 4.0, COSCHED_CAT_LIM) };
	cosched_gang_job_t hi[] = { mkjob(3, "c", 2, 8.0, COSCHED_CAT_MEM) };
	cosched_gang_job_t pair[] = { mkjob(4, "d", 1, 1.0, COSCHED_CAT_CPU),
				      mkjob(5, "e", 1, 1.0, COSCHED_CAT_CPU) };
	cosched_socket_t s[] = {
		{ 8, 4, lo, 1 }, { 8, 4, mid, 1 }, { 8, 2, hi, 1 }, { 8, 0, NULL, 0 },
		{ 8, 2, pair, 2 },
	};
	cosched_gang_job_t job = mkjob(10, "j", 4, 5.0, COSCHED_CAT_MEM);
	cosched_gang_params_t p;
	/* Balance: pair with the most different MPKI first. */
	const char *bal[] = {
		"socket 0: accepted, score 5.960, 4 threads, 0 cores left",
		"socket 2: accepted, score 4.000, 4 threads, 2 cores left",
		"socket 1: accepted, score 2.000, 4 threads, 0 cores left",
		"socket 3: accepted, score 0.000, 4 threads, 4 cores left",
		"socket 4: gang full (2 of 2 applications)",
	};
	/* Bound (T = 12): combined MPKI must stay <= T; most headroom first. */
	const char *bound[] = {
		"socket 0: accepted, score 1.580, 4 threads, 0 cores left",
		"socket 4: accepted, score 1.417, 4 threads, 2 cores left",
		"socket 1: accepted, score 1.250, 4 threads, 0 cores left",
		"socket 3: accepted, score 0.000, 4 threads, 4 cores left",
		"socket 2: combined MPKI 13.00 > T 12.00",
	};

	cosched_gang_params_init(&p, 8);
	rank_strs(COSCHED_POLICY_MISS_RATE_BALANCE, &p, s, 5, &job, 4, bal);
	rank_strs(COSCHED_POLICY_MISS_RATE_BOUND, &p, s, 5, &job, 4, bound);
}
END_TEST

/*
 * The index answers what the ranking says, on random socket states, for
 * every policy: the first accepted candidate; with OCCUPIED_ONLY the first
 * accepted occupied one; with FIRST_FIT (the policies ordered by socket)
 * the lowest accepted socket index.  Capacities 8 (the 2013 gang-scheduling
 * thesis), 130 (free core counts spread over three bitmap words) and mixed
 * per-socket capacities; max_apps default and 5 (several occupancy counts
 * share one bucket).
 */
static void index_vs_rank(int capacity, bool mixed, int max_apps, unsigned *r)
{
	enum { NS = 40, MAXO = 6 };

	for (int pol = 0; pol < COSCHED_POLICY_PLACING_COUNT; pol++) {
		for (int trial = 0; trial < 40; trial++) {
			cosched_gang_params_t p;
			cosched_gang_job_t occ[NS][MAXO];
			cosched_socket_t s[NS];
			cosched_candidate_t out[NS], best;
			cosched_socket_index_t *x;
			int caps[NS], apps;
			size_t acc;
			long got;

			cosched_gang_params_init(&p, capacity);
			p.max_apps = max_apps;
			apps = cosched_gang_max_apps(pol, &p);
			for (int i = 0; i < NS; i++) {
				*r = *r * 1103515245u + 12345u;
				caps[i] = mixed ? 1 + (int)((*r >> 16) % (unsigned)capacity) :
						capacity;
			}
			x = cosched_socket_index_create(pol, &p, NS, caps, &err);
			ck_assert_msg(x != NULL, "%s", err.msg);
			for (int i = 0; i < NS; i++) {
				int n = 0, used = 0;
				*r = *r * 1103515245u + 12345u;
				int want = (*r >> 16) % (MAXO + 1);
				if (apps > 0 && want > apps)
					want = apps;
				for (int k = 0; k < want; k++) {
					*r = *r * 1103515245u + 12345u;
					int t = 1 + (*r >> 16) % (capacity / 2 + 1);
					if (used + t > caps[i])
						break;
					occ[i][n] = mkjob(i * 10 + k, "o", t,
						((*r >> 6) % 80) / 10.0,
						(*r >> 3) % 4);
					ck_assert_int_eq(cosched_socket_index_add(x, i,
						&occ[i][n], t, &err), 0);
					used += t;
					n++;
				}
				s[i].capacity = caps[i];
				s[i].used = used;
				s[i].occupants = occ[i];
				s[i].noccupants = n;
			}
			*r = *r * 1103515245u + 12345u;
			cosched_gang_job_t job = mkjob(999, "j",
				1 + (*r >> 16) % (capacity * 3 / 4),
				((*r >> 5) % 90) / 10.0, (*r >> 2) % 4);
			job.min_threads = 1;
			/* min_slowdown with a bound on odd trials: the index
			 * then scans a bucket whose cheapest socket breaks it. */
			if (pol == COSCHED_POLICY_MIN_SLOWDOWN && trial % 2)
				job.max_slowdown = 1.25;
			ck_assert_int_eq(cosched_gang_rank(pol, &p, s, NS, &job, out,
							   &acc, &err), 0);

			/* best score */
			got = cosched_socket_index_best(x, &job, 0, &best, &err);
			if (acc == 0) {
				ck_assert_int_eq(got, COSCHED_INDEX_NONE);
				ck_assert_int_eq(best.reject, COSCHED_REJECT_NO_SOCKET);
			} else {
				/* Miss-Rate Balance scores 1 + |MPKI - load|:
				 * two loads an ulp apart can round to one
				 * score, and the index's heap tops then need
				 * not hold the lower load the ranking's tie
				 * break prefers (src/libcosched/policy/socket_index.h). */
				bool rounding_tie = pol ==
					COSCHED_POLICY_MISS_RATE_BALANCE &&
					best.score == out[0].score &&
					best.leftover == out[0].leftover &&
					fabs(best.load - out[0].load) <=
					1e-12 * fabs(out[0].load);
				ck_assert_msg(got == (long)out[0].socket ||
					      rounding_tie,
					"cap %d policy %d trial %d: index %ld, rank %zu",
					capacity, pol, trial, got, out[0].socket);
				ck_assert_double_eq(best.score, out[0].score);
			}

			/* occupied only */
			long want_occ = COSCHED_INDEX_NONE, want_ff = COSCHED_INDEX_NONE;
			for (size_t k = 0; k < acc; k++) {
				if (want_occ < 0 &&
				    s[out[k].socket].noccupants > 0)
					want_occ = (long)out[k].socket;
				if (s[out[k].socket].noccupants > 0 &&
				    (want_ff < 0 || (long)out[k].socket < want_ff))
					want_ff = (long)out[k].socket;
			}
			got = cosched_socket_index_best(x, &job,
				COSCHED_INDEX_OCCUPIED_ONLY, &best, &err);
			for (size_t k = 0; k < acc && got != want_occ; k++)
				if ((long)out[k].socket == want_occ &&
				    pol == COSCHED_POLICY_MISS_RATE_BALANCE &&
				    best.score == out[k].score &&
				    best.leftover == out[k].leftover &&
				    fabs(best.load - out[k].load) <=
				    1e-12 * fabs(out[k].load))
					want_occ = got;	/* a rounding tie, as above */
			ck_assert_msg(got == want_occ,
				"cap %d policy %d trial %d: occupied-only index %ld, rank %ld",
				capacity, pol, trial, got, want_occ);

			/* first fit among occupied sockets */
			got = cosched_socket_index_best(x, &job,
				COSCHED_INDEX_OCCUPIED_ONLY | COSCHED_INDEX_FIRST_FIT,
				NULL, &err);
			if (pol == COSCHED_POLICY_MISS_RATE_BALANCE ||
			    pol == COSCHED_POLICY_MISS_RATE_BOUND ||
			    pol == COSCHED_POLICY_MIN_SLOWDOWN)
				ck_assert_int_eq(got, COSCHED_INDEX_INVALID);
			else
				ck_assert_msg(got == want_ff,
					"cap %d policy %d trial %d: first-fit index %ld, rank %ld",
					capacity, pol, trial, got, want_ff);

			/* removing everything empties the index again */
			for (int i = 0; i < NS; i++)
				for (int k = 0; k < s[i].noccupants; k++)
					ck_assert_int_eq(cosched_socket_index_remove(x,
						i, &occ[i][k], occ[i][k].threads,
						&err), 0);
			for (int i = 0; i < NS; i++)
				ck_assert_int_eq(cosched_socket_index_free_cores(x, i),
						 caps[i]);
			got = cosched_socket_index_best(x, &job,
				COSCHED_INDEX_OCCUPIED_ONLY, NULL, &err);
			ck_assert_int_eq(got, COSCHED_INDEX_NONE);
			cosched_socket_index_free(x);
		}
	}
}

START_TEST(test_index_matches_rank)
{
	unsigned r = 2024;

	index_vs_rank(8, false, 0, &r);
	index_vs_rank(8, true, 0, &r);
	index_vs_rank(8, false, 5, &r);
	index_vs_rank(130, false, 0, &r);
	index_vs_rank(130, true, 5, &r);
}
END_TEST

/* FIRST_FIT means the lowest acceptable socket index.  The Miss-Rate
 * policies keep each bucket ordered by MPKI load, so the flag is refused for
 * them instead of silently answering the lowest load. */
START_TEST(test_index_first_fit)
{
	cosched_gang_job_t heavy = mkjob(1, "h", 2, 9.0, COSCHED_CAT_RAND);
	cosched_gang_job_t light = mkjob(2, "l", 2, 1.0, COSCHED_CAT_CPU);
	cosched_gang_job_t job = mkjob(3, "j", 2, 1.0, COSCHED_CAT_CPU);
	cosched_gang_params_t p;
	cosched_candidate_t best;
	cosched_socket_index_t *x;

	cosched_gang_params_init(&p, 8);
	/* Application-Aware: sockets 0 (a rand job) and 1 (a cpu job) both
	 * take a cpu job; the best score is socket 1 (cpu+cpu cost 1 + 1 = 2,
	 * cpu+rand 1 + 2 = 3), the first fit socket 0. */
	x = cosched_socket_index_create(COSCHED_POLICY_APP_AWARE, &p, 3, NULL, &err);
	ck_assert_int_eq(cosched_socket_index_add(x, 0, &heavy, 2, &err), 0);
	ck_assert_int_eq(cosched_socket_index_add(x, 1, &light, 2, &err), 0);
	ck_assert_int_eq(cosched_socket_index_best(x, &job, 0, NULL, &err), 1);
	ck_assert_int_eq(cosched_socket_index_best(x, &job,
		COSCHED_INDEX_FIRST_FIT, NULL, &err), 0);
	cosched_socket_index_free(x);

	/* Miss-Rate Bound: socket 1's load (1.0) is lower than socket 0's
	 * (9.0), so a bucket's heap top is socket 1; "first fit" would have
	 * answered 1.  It is refused, with the reason. */
	x = cosched_socket_index_create(COSCHED_POLICY_MISS_RATE_BOUND, &p, 3, NULL,
					&err);
	ck_assert_int_eq(cosched_socket_index_add(x, 0, &heavy, 2, &err), 0);
	ck_assert_int_eq(cosched_socket_index_add(x, 1, &light, 2, &err), 0);
	ck_assert_int_eq(cosched_socket_index_best(x, &job,
		COSCHED_INDEX_OCCUPIED_ONLY | COSCHED_INDEX_FIRST_FIT, &best, &err),
		COSCHED_INDEX_INVALID);
	ck_assert_int_eq(best.reject, COSCHED_REJECT_INVALID_QUERY);
	ck_assert_str_eq(err.msg, "flags: COSCHED_INDEX_FIRST_FIT is not available for miss_rate_bound (its index is ordered by MPKI load, not by socket)");
	ck_assert_str_eq(cosched_reject_name(best.reject), "invalid query");
	/* without the flag: the best score, the most MPKI headroom */
	ck_assert_int_eq(cosched_socket_index_best(x, &job,
		COSCHED_INDEX_OCCUPIED_ONLY, &best, &err), 1);
	cosched_socket_index_free(x);

	x = cosched_socket_index_create(COSCHED_POLICY_MISS_RATE_BALANCE, &p, 3,
					NULL, &err);
	ck_assert_int_eq(cosched_socket_index_best(x, &job,
		COSCHED_INDEX_FIRST_FIT, NULL, &err), COSCHED_INDEX_INVALID);
	ck_assert_str_eq(err.msg, "flags: COSCHED_INDEX_FIRST_FIT is not available for miss_rate_balance (its index is ordered by MPKI load, not by socket)");
	/* other refusals: unknown flags, a NULL or invalid job */
	ck_assert_int_eq(cosched_socket_index_best(x, &job, 0x10, NULL, &err),
			 COSCHED_INDEX_INVALID);
	ck_assert_str_eq(err.msg, "flags: unknown flags 0x10");
	ck_assert_int_eq(cosched_socket_index_best(x, NULL, 0, &best, &err),
			 COSCHED_INDEX_INVALID);
	ck_assert_str_eq(err.msg, "job: NULL");
	job.threads = 9;
	ck_assert_int_eq(cosched_socket_index_best(x, &job, 0, NULL, &err),
			 COSCHED_INDEX_INVALID);
	ck_assert_str_eq(err.msg, "job.threads: 9 exceeds the capacity of 8 cores");
	cosched_socket_index_free(x);
}
END_TEST

START_TEST(test_index_errors)
{
	cosched_gang_params_t p;
	cosched_gang_job_t j = mkjob(1, "a", 6, 0, COSCHED_CAT_CPU);
	cosched_socket_index_t *x;

	cosched_gang_params_init(&p, 8);
	x = cosched_socket_index_create(COSCHED_POLICY_APP_AWARE, &p, 2, NULL, &err);
	ck_assert_int_eq(cosched_socket_index_add(x, 2, &j, 6, &err), -1);
	ck_assert_str_eq(err.msg, "socket: 2 out of range (2 sockets)");
	ck_assert_int_eq(cosched_socket_index_add(x, 0, &j, 6, &err), 0);
	ck_assert_int_eq(cosched_socket_index_add(x, 0, &j, 6, &err), -1);
	ck_assert_str_eq(err.msg, "socket 0: 6 threads exceed its 2 free cores");
	ck_assert_int_eq(cosched_socket_index_remove(x, 1, &j, 6, &err), -1);
	ck_assert_str_eq(err.msg, "socket 1: job 1 (6 threads, cpu) is not there");
	/* A missing job is not a thread count problem. */
	ck_assert_int_eq(cosched_socket_index_add(x, 1, NULL, 2, &err), -1);
	ck_assert_str_eq(err.msg, "job: NULL");
	ck_assert_int_eq(cosched_socket_index_remove(x, 0, NULL, 6, &err), -1);
	ck_assert_str_eq(err.msg, "job: NULL");
	ck_assert_int_eq(cosched_socket_index_add(x, 1, &j, -1, &err), -1);
	ck_assert_str_eq(err.msg, "threads: must be >= 0, got -1");
	cosched_socket_index_free(x);
}
END_TEST

/* A load the index cannot order by (NaN compares false both ways and would
 * corrupt the heaps) or that makes no sense is refused, and the index
 * answers as before. */
START_TEST(test_index_set_load_refused)
{
	cosched_gang_params_t p;
	cosched_gang_job_t hi = mkjob(1, "hi", 2, 9.0, COSCHED_CAT_MEM);
	cosched_gang_job_t lo = mkjob(2, "lo", 2, 1.0, COSCHED_CAT_CPU);
	cosched_gang_job_t arriving = mkjob(3, "new", 2, 4.0, COSCHED_CAT_MEM);
	cosched_socket_index_t *x;
	cosched_candidate_t c;
	const double bad[] = { NAN, INFINITY, -1.0 };

	cosched_gang_params_init(&p, 8);
	x = cosched_socket_index_create(COSCHED_POLICY_MISS_RATE_BOUND, &p, 2,
					NULL, &err);
	ck_assert_ptr_nonnull(x);
	ck_assert_int_eq(cosched_socket_index_add(x, 0, &hi, 2, &err), 0);
	ck_assert_int_eq(cosched_socket_index_add(x, 1, &lo, 2, &err), 0);
	/* 4 + 1 <= T fits socket 1; 4 + 9 > T does not fit socket 0. */
	ck_assert_int_eq(cosched_socket_index_best(x, &arriving,
		COSCHED_INDEX_OCCUPIED_ONLY, &c, &err), 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(cosched_socket_index_set_load(x, 1, bad[i], &err),
				 -1);
		ck_assert_ptr_nonnull(strstr(err.msg, "load: must be a finite number >= 0"));
		ck_assert_int_eq(cosched_socket_index_best(x, &arriving,
			COSCHED_INDEX_OCCUPIED_ONLY, &c, &err), 1);
		ck_assert_double_eq(c.load, 1.0);
	}
	ck_assert_int_eq(cosched_socket_index_set_load(x, 2, 1.0, &err), -1);
	ck_assert_str_eq(err.msg, "socket: 2 out of range (2 sockets)");
	/* A valid load moves the answer: socket 1 no longer fits. */
	ck_assert_int_eq(cosched_socket_index_set_load(x, 1, 11.0, &err), 0);
	ck_assert_int_eq(cosched_socket_index_best(x, &arriving,
		COSCHED_INDEX_OCCUPIED_ONLY, &c, &err), COSCHED_INDEX_NONE);
	cosched_socket_index_free(x);
}
END_TEST

/* Occupants' categories are not validated like arriving jobs: a value out
 * of range, negative or past UNKNOWN, counts as unknown (runs alone under
 * Application-Aware) in the ranking and in the index alike. */
START_TEST(test_out_of_range_category)
{
	cosched_gang_job_t neg[] = { mkjob(1, "n", 2, 0, (cosched_category_t)-1) };
	cosched_gang_job_t big[] = { mkjob(2, "b", 2, 0, (cosched_category_t)77) };
	cosched_gang_job_t cpu[] = { mkjob(3, "c", 2, 0, COSCHED_CAT_CPU) };
	cosched_socket_t s[] = {
		{ 8, 2, neg, 1 }, { 8, 2, big, 1 }, { 8, 2, cpu, 1 },
	};
	cosched_gang_job_t job = mkjob(10, "j", 2, 0, COSCHED_CAT_CPU);
	cosched_gang_params_t p;
	const char *expect[] = {
		"socket 2: accepted, score 1.333, 2 threads, 4 cores left",
		"socket 0: forbidden pair cpu+unknown",
		"socket 1: forbidden pair cpu+unknown",
	};
	cosched_socket_index_t *x;
	cosched_candidate_t best;

	cosched_gang_params_init(&p, 8);
	rank_strs(COSCHED_POLICY_APP_AWARE, &p, s, 3, &job, 1, expect);

	x = cosched_socket_index_create(COSCHED_POLICY_APP_AWARE, &p, 3, NULL, &err);
	ck_assert_ptr_nonnull(x);
	ck_assert_int_eq(cosched_socket_index_add(x, 0, &neg[0], 2, &err), 0);
	ck_assert_int_eq(cosched_socket_index_add(x, 1, &big[0], 2, &err), 0);
	ck_assert_int_eq(cosched_socket_index_best(x, &job,
		COSCHED_INDEX_OCCUPIED_ONLY, &best, &err), COSCHED_INDEX_NONE);
	ck_assert_int_eq(best.reject, COSCHED_REJECT_NO_SOCKET);
	ck_assert_int_eq(cosched_socket_index_remove(x, 0, &neg[0], 2, &err), 0);
	ck_assert_int_eq(cosched_socket_index_remove(x, 1, &big[0], 2, &err), 0);
	ck_assert_int_eq(cosched_socket_index_free_cores(x, 0), 8);
	cosched_socket_index_free(x);
}
END_TEST

/* Foreign cores are used cores, not co-runners: under Application-Aware
 * a mem job may not join a mem job, but a socket whose other cores are
 * held by a foreign job is empty for the policy, only smaller.  An
 * unavailable socket is never answered and keeps its counts. */
START_TEST(test_index_foreign_and_available)
{
	cosched_gang_job_t mem = mkjob(1, "m", 2, 0, COSCHED_CAT_MEM);
	cosched_gang_job_t job = mkjob(2, "j", 4, 0, COSCHED_CAT_MEM);
	cosched_gang_params_t p;
	cosched_candidate_t c;
	cosched_socket_index_t *x;

	cosched_gang_params_init(&p, 8);
	x = cosched_socket_index_create(COSCHED_POLICY_APP_AWARE, &p, 2, NULL, &err);
	ck_assert_ptr_nonnull(x);
	ck_assert_int_eq(cosched_socket_index_add(x, 0, &mem, 2, &err), 0);
	ck_assert_int_eq(cosched_socket_index_add_foreign(x, 1, 2, &err), 0);
	ck_assert_int_eq(cosched_socket_index_free_cores(x, 1), 6);
	ck_assert_int_eq(cosched_socket_index_best(x, &job, 0, &c, &err), 1);
	ck_assert_int_eq(c.napps, 0);
	ck_assert_int_eq(c.leftover, 2);
	ck_assert_int_eq(cosched_socket_index_best(x, &job,
		COSCHED_INDEX_OCCUPIED_ONLY, &c, &err), COSCHED_INDEX_NONE);
	/* Foreign cores fill a socket like any others. */
	ck_assert_int_eq(cosched_socket_index_add_foreign(x, 1, 7, &err), -1);
	ck_assert_str_eq(err.msg, "socket 1: 7 foreign cores exceed its 6 free cores");
	ck_assert_int_eq(cosched_socket_index_add_foreign(x, 1, 3, &err), 0);
	ck_assert_int_eq(cosched_socket_index_best(x, &job, 0, &c, &err),
			 COSCHED_INDEX_NONE);
	ck_assert_int_eq(cosched_socket_index_remove_foreign(x, 1, 6, &err), -1);
	ck_assert_str_eq(err.msg, "socket 1: 6 foreign cores are not there (5 held)");
	/* An occupant's removal cannot take foreign cores with it. */
	ck_assert_int_eq(cosched_socket_index_remove(x, 1, &mem, 2, &err), -1);
	ck_assert_int_eq(cosched_socket_index_remove_foreign(x, 1, 3, &err), 0);
	ck_assert_int_eq(cosched_socket_index_best(x, &job, 0, &c, &err), 1);
	ck_assert_int_eq(cosched_socket_index_check(x, &err), 0);

	ck_assert_int_eq(cosched_socket_index_set_available(x, 1, false, &err), 0);
	ck_assert(!cosched_socket_index_available(x, 1));
	ck_assert_int_eq(cosched_socket_index_best(x, &job, 0, &c, &err),
			 COSCHED_INDEX_NONE);
	ck_assert_int_eq(cosched_socket_index_free_cores(x, 1), 6);
	ck_assert_int_eq(cosched_socket_index_check(x, &err), 0);
	/* Updates still apply to an unavailable socket. */
	ck_assert_int_eq(cosched_socket_index_remove_foreign(x, 1, 2, &err), 0);
	ck_assert_int_eq(cosched_socket_index_check(x, &err), 0);
	ck_assert_int_eq(cosched_socket_index_set_available(x, 1, true, &err), 0);
	ck_assert_int_eq(cosched_socket_index_best(x, &job, 0, &c, &err), 1);
	ck_assert_int_eq(c.leftover, 4);
	ck_assert_int_eq(cosched_socket_index_set_available(x, 2, false, &err), -1);
	ck_assert_str_eq(err.msg, "socket: 2 out of range (2 sockets)");
	ck_assert_int_eq(cosched_socket_index_check(x, &err), 0);
	cosched_socket_index_free(x);
}
END_TEST

/* A query skips the sockets it excludes (listed twice, full or not) and
 * leaves the index as it was; a bad list is refused before anything
 * moves. */
START_TEST(test_index_best_except)
{
	cosched_gang_job_t job = mkjob(1, "j", 2, 0, COSCHED_CAT_CPU);
	cosched_gang_job_t big = mkjob(2, "b", 8, 0, COSCHED_CAT_CPU);
	cosched_gang_params_t p;
	cosched_candidate_t c;
	cosched_socket_index_t *x;
	size_t ex[4];

	cosched_gang_params_init(&p, 8);
	x = cosched_socket_index_create(COSCHED_POLICY_GREEDY_THREAD, &p, 4, NULL,
					&err);
	ck_assert_int_eq(cosched_socket_index_add(x, 3, &big, 8, &err), 0);
	ex[0] = 0;
	ck_assert_int_eq(cosched_socket_index_best_except(x, &job, 0, ex, 1, &c,
							  &err), 1);
	ex[1] = 1; ex[2] = 0; ex[3] = 3;
	ck_assert_int_eq(cosched_socket_index_best_except(x, &job, 0, ex, 4, &c,
							  &err), 2);
	ex[3] = 2;
	ck_assert_int_eq(cosched_socket_index_best_except(x, &job, 0, ex, 4, &c,
							  &err), COSCHED_INDEX_NONE);
	ck_assert_int_eq(c.reject, COSCHED_REJECT_NO_SOCKET);
	ck_assert_int_eq(cosched_socket_index_check(x, &err), 0);
	ck_assert_int_eq(cosched_socket_index_best(x, &job, 0, &c, &err), 0);
	ck_assert_int_eq(cosched_socket_index_best_except(x, &job, 0, NULL, 0, &c,
							  &err), 0);
	ex[1] = 4;
	ck_assert_int_eq(cosched_socket_index_best_except(x, &job, 0, ex, 2, &c,
							  &err), COSCHED_INDEX_INVALID);
	ck_assert_int_eq(c.reject, COSCHED_REJECT_INVALID_QUERY);
	ck_assert_str_eq(err.msg, "exclude[1]: socket 4 out of range (4 sockets)");
	ck_assert_int_eq(cosched_socket_index_best_except(x, &job, 0, NULL, 1, &c,
							  &err), COSCHED_INDEX_INVALID);
	ck_assert_str_eq(err.msg, "exclude: NULL with 1 sockets");
	ck_assert_int_eq(cosched_socket_index_check(x, &err), 0);
	ck_assert_int_eq(cosched_socket_index_best(x, &job, 0, &c, &err), 0);
	cosched_socket_index_free(x);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("gang_rank");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_rank_app_aware);
	tcase_add_test(tc, test_rank_gang_greedy);
	tcase_add_test(tc, test_rank_miss_rate);
	tcase_add_test(tc, test_index_matches_rank);
	tcase_add_test(tc, test_index_first_fit);
	tcase_add_test(tc, test_index_errors);
	tcase_add_test(tc, test_index_set_load_refused);
	tcase_add_test(tc, test_out_of_range_category);
	tcase_add_test(tc, test_index_foreign_and_available);
	tcase_add_test(tc, test_index_best_except);
	tcase_add_test(tc, test_candidate_format_as_printf);
	suite_add_tcase(s, tc);
	return s;
}
