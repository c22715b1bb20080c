/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_occupancy.c - the occupancy by job id (src/libcosched/
 * src/libcosched/policy/occupancy.c) and what it needs of the socket index: exact undo
 * by id, the stored copy, foreign holders, unavailable sockets, exclusion
 * lists, copies, refused input, and seeded random sequences checked
 * against cosched_gang_rank and the self-check.  Planted corruption and
 * allocation failures are in test_occupancy_faults.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "occupancy_snap.h"

static cosched_error_t err;

/* ---- add and remove by id ------------------------------------------- */

/* Removing a job by id restores the state exactly (loads bit for bit, for
 * every policy); a second removal answers 0 and changes nothing. */
START_TEST(test_remove_restores_exactly)
{
	for (int pol = 0; pol < COSCHED_POLICY_PLACING_COUNT; pol++) {
		cosched_occupancy_t *o = mkocc(pol, 4, NULL);
		cosched_gang_job_t a = occ_job(1, 2, 0.1, COSCHED_CAT_CPU);
		cosched_gang_job_t b = occ_job(2, 2, 0.7, COSCHED_CAT_LIM);
		cosched_gang_job_t c = occ_job(3, 4, 0.2, COSCHED_CAT_RAND);
		cosched_hold_t hc[] = { { 1, 2 }, { 3, 1 } };
		snap_t *z;

		if (pol == COSCHED_POLICY_GANG) {
			/* one application per socket */
			add1(o, &a, 0, 2);
			foreign1(o, 5, 1, 3);
		} else {
			add1(o, &a, 0, 2);
			add1(o, &b, 1, 2);
			foreign1(o, 5, 1, 3);
		}
		z = snap_take(o);
		ck_assert_msg(cosched_occupancy_add(o, &c, hc, 2, &err) == 0,
			      "%s", err.msg);
		check_ok(o, "after add");
		ck_assert_int_eq(cosched_occupancy_remove(o, 3, &err), 1);
		same_as(o, z, cosched_policy_name(pol));
		z = snap_take(o);
		ck_assert_int_eq(cosched_occupancy_remove(o, 3, &err), 0);
		same_as(o, z, "second removal");
		/* foreign holders too */
		z = snap_take(o);
		foreign1(o, 6, 2, 8);
		ck_assert_int_eq(cosched_occupancy_free_cores(o, 2), 0);
		ck_assert_int_eq(cosched_occupancy_remove(o, 6, &err), 1);
		same_as(o, z, "foreign removal");
		cosched_occupancy_free(o);
	}
}
END_TEST

/* The caller's idea of a job changes after it was entered (a profile was
 * updated, a new class, a new MPKI); removal by id still takes out what
 * was put in.  The index alone, told the new class, refuses: the stored
 * copy is what makes removal exact. */
START_TEST(test_reclassified_job_removed)
{
	cosched_occupancy_t *o = mkocc(COSCHED_POLICY_APP_AWARE, 2, NULL);
	cosched_gang_job_t j = occ_job(7, 2, 20.0, COSCHED_CAT_MEM);
	cosched_gang_job_t mem = occ_job(8, 2, 1.0, COSCHED_CAT_MEM);
	cosched_socket_t v;
	gang_index_socket_t st;
	cosched_candidate_t c;
	size_t ex = 1;

	add1(o, &j, 0, 2);
	j.category = COSCHED_CAT_CPU;	/* the caller's copy only */
	j.mpki = 0.5;
	j.name = NULL;
	ck_assert_int_eq(cosched_occupancy_socket(o, 0, &v), 0);
	ck_assert_int_eq(v.noccupants, 1);
	ck_assert_int_eq(v.occupants[0].category, COSCHED_CAT_MEM);
	ck_assert(v.occupants[0].mpki == 20.0);
	ck_assert_ptr_null(v.occupants[0].name);
	/* mem + mem is forbidden: socket 0 still holds a mem job */
	ck_assert_int_eq(cosched_occupancy_best(o, &mem, 0, &ex, 1, &c, &err),
			 COSCHED_INDEX_NONE);
	ck_assert_int_eq(cosched_socket_index_remove(gang_occupancy_index(o), 0,
						     &j, 2, &err), -1);
	ck_assert_str_eq(err.msg, "socket 0: job 7 (2 threads, cpu) is not there");

	ck_assert_int_eq(cosched_occupancy_remove(o, 7, &err), 1);
	check_ok(o, "after removal");
	ck_assert_int_eq(gang_index_socket(gang_occupancy_index(o), 0, &st), 0);
	ck_assert_int_eq(st.used, 0);
	ck_assert_int_eq(st.napps, 0);
	for (unsigned k = 0; k < GANG_CAT_SLOTS; k++)
		ck_assert_uint_eq(st.catcount[k], 0);
	ck_assert_int_eq(cosched_occupancy_best(o, &mem, 0, &ex, 1, &c, &err), 0);
	cosched_occupancy_free(o);

	/* Miss-Rate Bound: the load follows set_mpki, and removal takes out
	 * the MPKI set last, not the one entered. */
	o = mkocc(COSCHED_POLICY_MISS_RATE_BOUND, 1, NULL);
	j = occ_job(7, 2, 20.0, COSCHED_CAT_MEM);
	add1(o, &j, 0, 2);
	add1(o, &mem, 0, 2);
	ck_assert_int_eq(gang_index_socket(gang_occupancy_index(o), 0, &st), 0);
	ck_assert(st.load == 21.0);
	ck_assert_int_eq(cosched_occupancy_set_mpki(o, 7, 3.25, &err), 0);
	ck_assert_int_eq(gang_index_socket(gang_occupancy_index(o), 0, &st), 0);
	ck_assert(st.load == 4.25);
	ck_assert_int_eq(cosched_occupancy_socket(o, 0, &v), 0);
	ck_assert(v.occupants[0].mpki == 3.25);
	check_ok(o, "after set_mpki");
	ck_assert_int_eq(cosched_occupancy_remove(o, 7, &err), 1);
	ck_assert_int_eq(gang_index_socket(gang_occupancy_index(o), 0, &st), 0);
	ck_assert(st.load == 1.0);
	check_ok(o, "after removal");
	cosched_occupancy_free(o);
}
END_TEST

/* Foreign cores are used cores, not co-runners: under Application-Aware a
 * mem job may not join a mem job, but joins a socket whose other cores a
 * foreign job holds, as an empty socket (score 0), only smaller. */
START_TEST(test_foreign_not_corunner)
{
	cosched_occupancy_t *o = mkocc(COSCHED_POLICY_APP_AWARE, 2, NULL);
	cosched_gang_job_t occ = occ_job(1, 2, 0, COSCHED_CAT_MEM);
	cosched_gang_job_t job = occ_job(3, 4, 0, COSCHED_CAT_MEM);
	cosched_candidate_t c;
	cosched_socket_t v;
	bool foreign = false;

	add1(o, &occ, 0, 2);
	foreign1(o, 2, 1, 4);
	ck_assert(cosched_occupancy_has(o, 2, &foreign) && foreign);
	ck_assert(cosched_occupancy_has(o, 1, &foreign) && !foreign);
	ck_assert_int_eq(cosched_occupancy_free_cores(o, 1), 4);
	ck_assert_int_eq(cosched_occupancy_socket(o, 1, &v), 0);
	ck_assert_int_eq(v.used, 4);
	ck_assert_int_eq(v.noccupants, 0);
	ck_assert_int_eq(cosched_occupancy_best(o, &job, 0, NULL, 0, &c, &err), 1);
	ck_assert(c.score == 0);
	ck_assert_int_eq(c.leftover, 0);
	ck_assert_int_eq(cosched_occupancy_best(o, &job,
		COSCHED_INDEX_OCCUPIED_ONLY, NULL, 0, &c, &err), COSCHED_INDEX_NONE);
	/* too few cores left beside the foreign job for 5 threads */
	job.threads = 5;
	ck_assert_int_eq(cosched_occupancy_best(o, &job, 0, NULL, 0, &c, &err),
			 COSCHED_INDEX_NONE);
	/* foreign holders have no MPKI */
	ck_assert_int_eq(cosched_occupancy_set_mpki(o, 2, 1.0, &err), -1);
	ck_assert_str_eq(err.msg, "job 2: a foreign holder has no MPKI");
	check_ok(o, "foreign");
	cosched_occupancy_free(o);
}
END_TEST

/* An unavailable socket is never answered, reports no free cores and
 * used = capacity to the ranking, and keeps its holders, which can still
 * come and go. */
START_TEST(test_unavailable_socket)
{
	cosched_occupancy_t *o = mkocc(COSCHED_POLICY_GREEDY_THREAD, 2, NULL);
	cosched_gang_job_t a = occ_job(1, 2, 0, COSCHED_CAT_CPU);
	cosched_gang_job_t b = occ_job(2, 2, 0, COSCHED_CAT_CPU);
	cosched_gang_job_t job = occ_job(9, 2, 0, COSCHED_CAT_CPU);
	cosched_hold_t two[] = { { 0, 2 }, { 1, 2 } };
	cosched_socket_t v;
	cosched_candidate_t c;
	const cosched_hold_t *h;
	size_t n;

	add1(o, &a, 0, 2);
	ck_assert_int_eq(cosched_occupancy_best(o, &job, 0, NULL, 0, &c, &err), 0);
	ck_assert_int_eq(cosched_occupancy_set_available(o, 0, false, &err), 0);
	ck_assert(!cosched_occupancy_available(o, 0));
	ck_assert(cosched_occupancy_available(o, 1));
	ck_assert_int_eq(cosched_occupancy_best(o, &job, 0, NULL, 0, &c, &err), 1);
	ck_assert_int_eq(cosched_occupancy_free_cores(o, 0), 0);
	ck_assert_int_eq(cosched_occupancy_socket(o, 0, &v), 0);
	ck_assert_int_eq(v.used, v.capacity);
	ck_assert_int_eq(v.noccupants, 1);
	h = cosched_occupancy_holds(o, 1, &n);
	ck_assert_ptr_nonnull(h);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(h[0].socket, 0);
	/* a job still running there can be entered (a controller rebuilding
	 * its state after a restart) and removed */
	ck_assert_int_eq(cosched_occupancy_add(o, &b, two, 2, &err), 0);
	ck_assert_int_eq(cosched_occupancy_best(o, &job,
		COSCHED_INDEX_OCCUPIED_ONLY, NULL, 0, &c, &err), 1);
	ck_assert_int_eq(cosched_occupancy_set_available(o, 1, false, &err), 0);
	ck_assert_int_eq(cosched_occupancy_best(o, &job, 0, NULL, 0, &c, &err),
			 COSCHED_INDEX_NONE);
	ck_assert_int_eq(c.reject, COSCHED_REJECT_NO_SOCKET);
	check_ok(o, "both unavailable");
	ck_assert_int_eq(cosched_occupancy_remove(o, 2, &err), 1);
	check_ok(o, "removed while unavailable");
	ck_assert_int_eq(cosched_occupancy_set_available(o, 0, true, &err), 0);
	ck_assert_int_eq(cosched_occupancy_set_available(o, 0, true, &err), 0);
	ck_assert_int_eq(cosched_occupancy_best(o, &job, 0, NULL, 0, &c, &err), 0);
	ck_assert_int_eq(c.leftover, 4);
	ck_assert_int_eq(cosched_occupancy_set_available(o, 2, true, &err), -1);
	ck_assert_str_eq(err.msg, "socket: 2 out of range (2 sockets)");
	ck_assert(!cosched_occupancy_available(o, 2));
	ck_assert_int_eq(cosched_occupancy_free_cores(o, 2), 0);
	ck_assert_int_eq(cosched_occupancy_socket(o, 2, &v), -1);
	check_ok(o, "available again");
	cosched_occupancy_free(o);
}
END_TEST

/* An exclusion list is honoured, listed twice or not, and leaves no
 * trace; a bad list is refused. */
START_TEST(test_exclusion_list)
{
	cosched_occupancy_t *o = mkocc(COSCHED_POLICY_MISS_RATE_BOUND, 4, NULL);
	cosched_gang_job_t j1 = occ_job(1, 2, 1.0, COSCHED_CAT_CPU);
	cosched_gang_job_t j2 = occ_job(2, 2, 2.0, COSCHED_CAT_CPU);
	cosched_gang_job_t j3 = occ_job(3, 2, 3.0, COSCHED_CAT_CPU);
	cosched_gang_job_t job = occ_job(9, 2, 4.0, COSCHED_CAT_MEM);
	cosched_candidate_t c;
	size_t ex[3];
	snap_t *z;

	add1(o, &j1, 0, 2);
	add1(o, &j2, 1, 2);
	add1(o, &j3, 2, 2);
	z = snap_take(o);
	/* the most headroom under T first: 0, 1, 2, then the empty 3 */
	ck_assert_int_eq(cosched_occupancy_best(o, &job, 0, NULL, 0, &c, &err), 0);
	ex[0] = 0;
	ck_assert_int_eq(cosched_occupancy_best(o, &job, 0, ex, 1, &c, &err), 1);
	ex[1] = 1; ex[2] = 0;
	ck_assert_int_eq(cosched_occupancy_best(o, &job, 0, ex, 3, &c, &err), 2);
	ck_assert(c.load == 3.0);
	ex[2] = 2;
	ck_assert_int_eq(cosched_occupancy_best(o, &job, 0, ex, 3, &c, &err), 3);
	ck_assert_int_eq(cosched_occupancy_best(o, &job,
		COSCHED_INDEX_OCCUPIED_ONLY, ex, 3, &c, &err), COSCHED_INDEX_NONE);
	ck_assert_int_eq(c.reject, COSCHED_REJECT_NO_SOCKET);
	ex[0] = 7;
	ck_assert_int_eq(cosched_occupancy_best(o, &job, 0, ex, 3, &c, &err),
			 COSCHED_INDEX_INVALID);
	ck_assert_int_eq(c.reject, COSCHED_REJECT_INVALID_QUERY);
	ck_assert_str_eq(err.msg, "exclude[0]: socket 7 out of range (4 sockets)");
	ck_assert_int_eq(cosched_occupancy_best(o, &job, 0, NULL, 2, &c, &err),
			 COSCHED_INDEX_INVALID);
	ck_assert_int_eq(cosched_occupancy_best(NULL, &job, 0, NULL, 0, &c, &err),
			 COSCHED_INDEX_INVALID);
	same_as(o, z, "after queries");
	ck_assert_int_eq(cosched_occupancy_best(o, &job, 0, NULL, 0, &c, &err), 0);
	cosched_occupancy_free(o);
}
END_TEST

/* A copy shares nothing: changing either leaves the other as it was, and
 * either outlives the other. */
START_TEST(test_copy_independent)
{
	cosched_occupancy_t *o = mkocc(COSCHED_POLICY_MISS_RATE_BALANCE, 4, NULL);
	cosched_occupancy_t *y;
	cosched_gang_job_t j1 = occ_job(1, 2, 1.5, COSCHED_CAT_CPU);
	cosched_gang_job_t j2 = occ_job(2, 2, 7.0, COSCHED_CAT_MEM);
	cosched_gang_job_t j3 = occ_job(3, 1, 2.0, COSCHED_CAT_RAND);
	cosched_hold_t h2[] = { { 1, 2 }, { 2, 3 } };
	cosched_candidate_t c1, c2;
	snap_t *z, *zy;

	add1(o, &j1, 0, 2);
	ck_assert_int_eq(cosched_occupancy_add(o, &j2, h2, 2, &err), 0);
	foreign1(o, 4, 3, 5);
	ck_assert_int_eq(cosched_occupancy_set_available(o, 2, false, &err), 0);
	z = snap_take(o);
	y = cosched_occupancy_copy(o, &err);
	ck_assert_msg(y != NULL, "%s", err.msg);
	zy = snap_take(y);
	snap_same(z, zy, "copy");
	free(zy);
	check_ok(y, "copy");

	/* the copy changes, the original does not */
	ck_assert_int_eq(cosched_occupancy_remove(y, 2, &err), 1);
	ck_assert_int_eq(cosched_occupancy_remove(y, 4, &err), 1);
	add1(y, &j3, 3, 1);
	ck_assert_int_eq(cosched_occupancy_set_mpki(y, 1, 30.0, &err), 0);
	ck_assert_int_eq(cosched_occupancy_set_available(y, 2, true, &err), 0);
	ck_assert_int_eq(cosched_occupancy_set_available(y, 1, false, &err), 0);
	check_ok(y, "changed copy");
	same_as(o, z, "original after the copy changed");

	/* the original changes, the copy does not */
	zy = snap_take(y);
	ck_assert_int_eq(cosched_occupancy_remove(o, 1, &err), 1);
	ck_assert_int_eq(cosched_occupancy_set_mpki(o, 2, 0.25, &err), 0);
	same_as(y, zy, "copy after the original changed");

	/* they answer differently (Miss-Rate Balance pairs the job, MPKI 2,
	 * with the load furthest from it); the copy outlives the original */
	ck_assert_int_eq(cosched_occupancy_best(o, &j3, 0, NULL, 0, &c1, &err), 1);
	ck_assert(c1.load == 0.25);
	cosched_occupancy_free(o);
	ck_assert_int_eq(cosched_occupancy_best(y, &j3, 0, NULL, 0, &c2, &err), 0);
	ck_assert(c2.load == 30.0);
	check_ok(y, "copy alone");
	cosched_occupancy_free(y);
	ck_assert_ptr_null(cosched_occupancy_copy(NULL, &err));
}
END_TEST

/* ---- refused input ---------------------------------------------------- */

/* Every refused update leaves the occupancy exactly as it was. */
START_TEST(test_refused_updates_change_nothing)
{
	cosched_occupancy_t *o = mkocc(COSCHED_POLICY_MISS_RATE_BOUND, 3, NULL);
	cosched_gang_job_t j1 = occ_job(1, 4, 2.0, COSCHED_CAT_MEM);
	cosched_gang_job_t j3 = occ_job(3, 2, 1.0, COSCHED_CAT_CPU);
	cosched_hold_t h[2] = { { 0, 0 }, { 0, 0 } };
	const double bad[] = { NAN, INFINITY, -1.0 };
	struct {
		cosched_hold_t h[2];
		size_t n;
		const char *msg;
	} cases[] = {
		{ { { 0, 2 }, { 3, 1 } }, 2,
		  "holds[1].socket: 3 out of range (3 sockets)" },
		{ { { 2, 2 }, { 2, 1 } }, 2,
		  "holds[1].socket: socket 2 given twice" },
		{ { { 2, 2 }, { 1, 3 } }, 2,
		  "holds[1]: 3 cores on socket 1, which has 2 free" },
		{ { { 2, 0 } }, 1, "holds[0].cores: must be >= 1, got 0" },
		{ { { 2, -3 } }, 1, "holds[0].cores: must be >= 1, got -3" },
		{ { { 0 } }, 0,
		  "holds: none (a job holds cores on at least one socket)" },
	};
	snap_t *z;

	add1(o, &j1, 0, 4);
	foreign1(o, 2, 1, 6);
	z = snap_take(o);

	ck_assert_int_eq(cosched_occupancy_add(o, &j1, h, 0, &err), -1);
	ck_assert_str_eq(err.msg, "job 1: already present (occupant)");
	h[0] = (cosched_hold_t) { 2, 1 };
	ck_assert_int_eq(cosched_occupancy_add_foreign(o, 1, h, 1, &err), -1);
	ck_assert_str_eq(err.msg, "job 1: already present (occupant)");
	j3.job_id = 2;
	ck_assert_int_eq(cosched_occupancy_add(o, &j3, h, 1, &err), -1);
	ck_assert_str_eq(err.msg, "job 2: already present (foreign)");
	j3.job_id = 3;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(cosched_occupancy_add(o, &j3, cases[i].h,
						       cases[i].n, &err), -1);
		ck_assert_str_eq(err.msg, cases[i].msg);
		ck_assert_int_eq(cosched_occupancy_add_foreign(o, 3, cases[i].h,
							       cases[i].n, &err), -1);
		ck_assert_str_eq(err.msg, cases[i].msg);
	}
	ck_assert_int_eq(cosched_occupancy_add(o, &j3, NULL, 1, &err), -1);
	ck_assert_str_eq(err.msg, "holds: NULL with 1 holds");
	ck_assert_int_eq(cosched_occupancy_add(o, NULL, h, 1, &err), -1);
	ck_assert_str_eq(err.msg, "job: NULL");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		j3.mpki = bad[i];
		ck_assert_int_eq(cosched_occupancy_add(o, &j3, h, 1, &err), -1);
		ck_assert_ptr_nonnull(strstr(err.msg,
			"job 3: MPKI must be a finite number >= 0"));
		ck_assert_int_eq(cosched_occupancy_set_mpki(o, 1, bad[i], &err),
				 -1);
		ck_assert_ptr_nonnull(strstr(err.msg,
			"mpki: must be a finite number >= 0"));
	}
	/* finite MPKIs whose sum is not */
	j3.mpki = 1.5e308;
	ck_assert_int_eq(cosched_occupancy_add(o, &j3, h, 1, &err), 0);
	ck_assert_int_eq(cosched_occupancy_remove(o, 3, &err), 1);
	h[0] = (cosched_hold_t) { 0, 1 };
	ck_assert_int_eq(cosched_occupancy_set_mpki(o, 1, 1.5e308, &err), 0);
	ck_assert_int_eq(cosched_occupancy_add(o, &j3, h, 1, &err), -1);
	ck_assert_str_eq(err.msg, "socket 0: its MPKI sum with job 3 would not be finite");
	ck_assert_int_eq(cosched_occupancy_set_mpki(o, 1, 2.0, &err), 0);
	ck_assert_int_eq(cosched_occupancy_set_mpki(o, 9, 1.0, &err), -1);
	ck_assert_str_eq(err.msg, "job 9: not present");
	ck_assert_int_eq(cosched_occupancy_set_mpki(o, 2, 1.0, &err), -1);
	ck_assert_int_eq(cosched_occupancy_set_available(o, 3, false, &err), -1);
	ck_assert_int_eq(cosched_occupancy_remove(o, 9, &err), 0);
	ck_assert_ptr_null(cosched_occupancy_holds(o, 9, NULL));
	same_as(o, z, "refused updates");
	cosched_occupancy_free(o);

	ck_assert_ptr_null(cosched_occupancy_create(COSCHED_POLICY_COUNT, NULL, 1,
						    NULL, &err));
	ck_assert_ptr_null(cosched_occupancy_create(COSCHED_POLICY_NONE, NULL, 1,
						    NULL, &err));
	ck_assert_int_eq(cosched_occupancy_check(NULL, &err), -1);
	ck_assert_int_eq(cosched_occupancy_remove(NULL, 1, &err), -1);
}
END_TEST

/* ---- random sequences ------------------------------------------------- */

#define RS_SOCKETS 12
#define RS_IDS 48

/* What the test believes: per job id its holds, per socket the cores. */
typedef struct {
	bool has[RS_IDS + 1], foreign[RS_IDS + 1];
	size_t nholds[RS_IDS + 1];
	cosched_hold_t holds[RS_IDS + 1][3];
	int used[RS_SOCKETS];
	bool avail[RS_SOCKETS];
} model_t;

static unsigned rnd(unsigned *r)
{
	*r = *r * 1103515245u + 12345u;
	return *r >> 8;
}

static const int rs_caps[RS_SOCKETS] = { 8, 8, 6, 4, 8, 8, 6, 4, 8, 8, 6, 4 };

/* best() with a random job, flags and exclusion list against the first
 * acceptable socket of cosched_gang_rank over the occupancy's views. */
static void compare_best(cosched_occupancy_t *o, cosched_policy_t pol,
			 unsigned *r, int op)
{
	cosched_gang_params_t p;
	cosched_socket_t v[RS_SOCKETS];
	cosched_candidate_t out[RS_SOCKETS], c;
	cosched_gang_job_t job = occ_job(1000, 1 + rnd(r) % 6,
				       (rnd(r) % 200) / 7.0, rnd(r) % 5);
	size_t acc, ex[4], nex = rnd(r) % 5;
	unsigned flags = rnd(r) % 4;
	bool excluded[RS_SOCKETS] = { false };
	long want = COSCHED_INDEX_NONE, got;
	size_t wk = 0;

	job.min_threads = 1 + rnd(r) % job.threads;
	if (!gang_index_by_socket(pol))
		flags &= ~COSCHED_INDEX_FIRST_FIT;
	for (size_t i = 0; i < nex; i++) {
		ex[i] = rnd(r) % RS_SOCKETS;
		excluded[ex[i]] = true;
	}
	cosched_gang_params_init(&p, 8);
	for (size_t s = 0; s < RS_SOCKETS; s++)
		ck_assert_int_eq(cosched_occupancy_socket(o, s, &v[s]), 0);
	ck_assert_msg(cosched_gang_rank(pol, &p, v, RS_SOCKETS, &job, out, &acc,
					&err) == 0, "%s", err.msg);
	for (size_t k = 0; k < acc; k++) {
		size_t s = out[k].socket;
		if (excluded[s])
			continue;
		if ((flags & COSCHED_INDEX_OCCUPIED_ONLY) && v[s].noccupants == 0)
			continue;
		if (want < 0 || ((flags & COSCHED_INDEX_FIRST_FIT) &&
				 (long) s < want)) {
			want = (long) s;
			wk = k;
		}
		if (!(flags & COSCHED_INDEX_FIRST_FIT))
			break;
	}
	got = cosched_occupancy_best(o, &job, flags, ex, nex, &c, &err);
	ck_assert_msg(got == want,
		      "%s op %d flags %u: best %ld, rank %ld (%s)",
		      cosched_policy_name(pol), op, flags, got, want,
		      got == COSCHED_INDEX_INVALID ? err.msg : "");
	if (want >= 0) {
		ck_assert(c.score == out[wk].score);
		ck_assert(c.load == out[wk].load);
		ck_assert_int_eq(c.leftover, out[wk].leftover);
		ck_assert_int_eq(c.threads, out[wk].threads);
	}
}

/* Random holds: 1 to 3 sockets (sometimes the same one twice), 1 to 3
 * cores each; whether the occupancy must take them. */
static size_t random_holds(const model_t *m, unsigned *r, cosched_hold_t *h,
			   bool *fits)
{
	size_t n = 1 + rnd(r) % 3;

	*fits = true;
	for (size_t i = 0; i < n; i++) {
		h[i].socket = rnd(r) % RS_SOCKETS;
		h[i].cores = 1 + rnd(r) % 3;
		if (m->used[h[i].socket] + h[i].cores > rs_caps[h[i].socket])
			*fits = false;
		for (size_t k = 0; k < i; k++)
			if (h[k].socket == h[i].socket)
				*fits = false;
	}
	return n;
}

static void random_run(cosched_policy_t pol, unsigned seed, int nops)
{
	cosched_gang_params_t p;
	cosched_occupancy_t *o;
	model_t m;
	unsigned r = seed;
	int nadd = 0, nrefused = 0, nremove = 0, ncopy = 0;

	memset(&m, 0, sizeof(m));
	for (size_t s = 0; s < RS_SOCKETS; s++)
		m.avail[s] = true;
	cosched_gang_params_init(&p, 8);
	o = cosched_occupancy_create(pol, &p, RS_SOCKETS, rs_caps, &err);
	ck_assert_msg(o != NULL, "%s", err.msg);
	for (int op = 0; op < nops; op++) {
		unsigned what = rnd(&r) % 100;
		uint32_t id = 1 + rnd(&r) % RS_IDS;
		cosched_hold_t h[3];
		bool fits, foreign = false;
		size_t n;
		int rc;

		if (what < 45) {
			/* occupant or foreign holder */
			bool fg = what >= 35;
			cosched_gang_job_t j = occ_job(id, 1 + rnd(&r) % 4,
				(rnd(&r) % 1000) / 37.0, rnd(&r) % 5);
			n = random_holds(&m, &r, h, &fits);
			fits = fits && !m.has[id];
			rc = fg ? cosched_occupancy_add_foreign(o, id, h, n, &err) :
				  cosched_occupancy_add(o, &j, h, n, &err);
			ck_assert_msg(rc == (fits ? 0 : -1), "op %d: add %u: %d (%s)",
				      op, id, rc, err.msg);
			if (rc == 0) {
				m.has[id] = true;
				m.foreign[id] = fg;
				m.nholds[id] = n;
				for (size_t i = 0; i < n; i++) {
					m.holds[id][i] = h[i];
					m.used[h[i].socket] += h[i].cores;
				}
				nadd++;
			} else {
				nrefused++;
			}
		} else if (what < 72) {
			rc = cosched_occupancy_remove(o, id, &err);
			ck_assert_int_eq(rc, m.has[id] ? 1 : 0);
			if (m.has[id]) {
				for (size_t i = 0; i < m.nholds[id]; i++)
					m.used[m.holds[id][i].socket] -=
						m.holds[id][i].cores;
				m.has[id] = false;
				nremove++;
			}
		} else if (what < 82) {
			rc = cosched_occupancy_set_mpki(o, id,
				(rnd(&r) % 1000) / 13.0, &err);
			ck_assert_int_eq(rc, m.has[id] && !m.foreign[id] ? 0 : -1);
		} else if (what < 90) {
			size_t s = rnd(&r) % RS_SOCKETS;
			bool on = rnd(&r) % 3 != 0;
			ck_assert_int_eq(cosched_occupancy_set_available(o, s, on,
									 &err), 0);
			m.avail[s] = on;
		} else if (what < 93) {
			/* go on with a copy */
			cosched_occupancy_t *y = cosched_occupancy_copy(o, &err);
			ck_assert_msg(y != NULL, "%s", err.msg);
			cosched_occupancy_free(o);
			o = y;
			ncopy++;
		}
		check_ok(o, "random sequence");
		ck_assert(cosched_occupancy_has(o, id, &foreign) == m.has[id]);
		if (m.has[id]) {
			const cosched_hold_t *got = cosched_occupancy_holds(o, id, &n);
			ck_assert(foreign == m.foreign[id]);
			ck_assert_uint_eq(n, m.nholds[id]);
			for (size_t i = 0; i < n; i++)
				ck_assert(got[i].socket == m.holds[id][i].socket &&
					  got[i].cores == m.holds[id][i].cores);
		}
		for (size_t s = 0; s < RS_SOCKETS; s++)
			ck_assert_int_eq(cosched_occupancy_free_cores(o, s),
				m.avail[s] ? rs_caps[s] - m.used[s] : 0);
		compare_best(o, pol, &r, op);
		compare_best(o, pol, &r, op);
	}
	/* the sequence did what it is for */
	ck_assert_int_gt(nadd, nops / 20);
	ck_assert_int_gt(nrefused, 0);
	ck_assert_int_gt(nremove, nops / 20);
	ck_assert_int_gt(ncopy, 0);
	/* everything out: every socket empty again */
	for (uint32_t id = 1; id <= RS_IDS; id++)
		ck_assert_int_eq(cosched_occupancy_remove(o, id, &err),
				 m.has[id] ? 1 : 0);
	for (size_t s = 0; s < RS_SOCKETS; s++) {
		gang_index_socket_t st;
		ck_assert_int_eq(gang_index_socket(gang_occupancy_index(o), s,
						   &st), 0);
		ck_assert_int_eq(st.used, 0);
		ck_assert_int_eq(st.napps, 0);
		ck_assert(st.load == 0);
	}
	check_ok(o, "emptied");
	cosched_occupancy_free(o);
}

START_TEST(test_random_sequences)
{
	for (int pol = 0; pol < COSCHED_POLICY_PLACING_COUNT; pol++)
		for (unsigned seed = 1; seed <= 3; seed++)
			random_run(pol, seed * 7919u + (unsigned) pol, 400);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("occupancy");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_remove_restores_exactly);
	tcase_add_test(tc, test_reclassified_job_removed);
	tcase_add_test(tc, test_foreign_not_corunner);
	tcase_add_test(tc, test_unavailable_socket);
	tcase_add_test(tc, test_exclusion_list);
	tcase_add_test(tc, test_copy_independent);
	tcase_add_test(tc, test_refused_updates_change_nothing);
	tcase_add_test(tc, test_random_sequences);
	suite_add_tcase(s, tc);
	return s;
}
