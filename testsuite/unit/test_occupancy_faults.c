/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_occupancy_faults.c - the occupancy (src/libcosched/
 * src/libcosched/policy/occupancy.c) when something is wrong: its self-check and the
 * socket index's find planted corruption, and every allocation failing
 * in turn leaves the occupancy as it was. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "occupancy_snap.h"

static cosched_error_t err;

/* ---- allocation failure injection ----------------------------------
 *
 * This program is linked with --wrap=malloc, --wrap=calloc and
 * --wrap=realloc (unit.am): every such call of the core's objects comes
 * here.  With fail_after = n > 0 the n-th call from now fails (once). */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

static long fail_after;

static bool alloc_fails(void)
{
	return fail_after > 0 && --fail_after == 0;
}

void *__wrap_malloc(size_t n)
{
	return alloc_fails() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return alloc_fails() ? NULL : __real_realloc(p, n);
}


/* ---- the self-check catches planted corruption ------------------------- */

static void check_fails(const cosched_occupancy_t *o, const char *want)
{
	ck_assert_int_eq(cosched_occupancy_check(o, &err), -1);
	ck_assert_msg(strstr(err.msg, want) != NULL, "check said \"%s\", not \"%s\"",
		      err.msg, want);
}

static void index_check_fails(cosched_socket_index_t *x, const char *want)
{
	ck_assert_int_eq(cosched_socket_index_check(x, &err), -1);
	ck_assert_msg(strstr(err.msg, want) != NULL,
		      "index check said \"%s\", not \"%s\"", err.msg, want);
}

/* Each planted fault is found, and the check passes again once it is
 * undone, so the check is what found it. */
START_TEST(test_check_finds_corruption)
{
	cosched_occupancy_t *o = mkocc(COSCHED_POLICY_MISS_RATE_BOUND, 4, NULL);
	cosched_socket_index_t *x = gang_occupancy_index(o);
	cosched_gang_job_t j1 = occ_job(1, 2, 3.0, COSCHED_CAT_MEM);
	cosched_gang_job_t j2 = occ_job(2, 2, 5.0, COSCHED_CAT_CPU);
	cosched_gang_job_t ghost = occ_job(3, 1, 0, COSCHED_CAT_CPU);
	gang_index_raw_t raw;
	cosched_heap_t *h;
	size_t b, f, t, ci;
	long saved;

	add1(o, &j1, 0, 2);
	add1(o, &j2, 1, 2);
	check_ok(o, "planted nothing");

	/* Behind the occupancy's back, through the index's own API: the
	 * index stays consistent in itself, the ledger disagrees. */
	ck_assert_int_eq(cosched_socket_index_add_foreign(x, 2, 1, &err), 0);
	ck_assert_int_eq(cosched_socket_index_check(x, &err), 0);
	check_fails(o, "socket 2: the index counts 1 cores used (1 foreign) by 0 occupants, the ledger 0 (0 foreign) by 0");
	ck_assert_int_eq(cosched_socket_index_remove_foreign(x, 2, 1, &err), 0);
	check_ok(o, "foreign cores undone");
	ck_assert_int_eq(cosched_socket_index_add(x, 3, &ghost, 1, &err), 0);
	check_fails(o, "socket 3: the index counts 1 cores used (0 foreign) by 1 occupants, the ledger 0 (0 foreign) by 0");
	ck_assert_int_eq(cosched_socket_index_remove(x, 3, &ghost, 1, &err), 0);
	check_ok(o, "ghost undone");
	ck_assert_int_eq(cosched_socket_index_set_load(x, 0, 3.5, &err), 0);
	check_fails(o, "socket 0: the index's load is 3.5 MPKI, the occupants' sum 3");
	ck_assert_int_eq(cosched_socket_index_set_load(x, 0, 3.0 * (1 + 1e-12),
						       &err), 0);
	check_ok(o, "a load within 1e-9 relative");
	ck_assert_int_eq(cosched_socket_index_set_load(x, 0, 3.0, &err), 0);

	/* In the index's arrays. */
	gang_index_raw(x, &raw);
	b = (size_t) raw.bucket[0];
	ck_assert_int_eq(raw.bucket[1], (long) b);	/* 6 free, occupied */
	h = &raw.minh[b];
	ck_assert_uint_eq(h->n, 2);
	ck_assert_uint_eq(h->v[0], 0);		/* load 3 before load 5 */

	/* heap order: swap the two with their keys, positions kept right */
	h->v[0] = 1; h->v[1] = 0;
	h->k[0] = 5.0; h->k[1] = 3.0;
	raw.min_order->pos[1] = 0; raw.min_order->pos[0] = 1;
	index_check_fails(x, "min heap order broken: socket 0 (key 3) sits below socket 1 (key 5)");
	check_fails(o, "heap order broken");
	h->v[0] = 0; h->v[1] = 1;
	h->k[0] = 3.0; h->k[1] = 5.0;
	raw.min_order->pos[0] = 0; raw.min_order->pos[1] = 1;
	check_ok(o, "heap order restored");

	/* the heap's copy of a key that is not the socket's load */
	h->k[1] = 4.0;
	index_check_fails(x, "min heap holds socket 1 with key 4, its key is 5");
	h->k[1] = 5.0;
	check_ok(o, "heap key restored");

	/* a position that points elsewhere */
	raw.min_order->pos[1] = 0;
	index_check_fails(x, "socket 1: not in heap 0 of its bucket");
	raw.min_order->pos[1] = 1;

	/* a socket twice in a heap */
	h->v[1] = 0;
	index_check_fails(x, "");
	h->v[1] = 1;
	check_ok(o, "heap restored");

	/* the non-empty bucket bitmaps */
	f = b / raw.per_free;
	raw.fbits[f] &= ~(1ull << (b % raw.per_free));
	index_check_fails(x, "marked empty in the bitmap of 6 free cores");
	raw.fbits[f] |= 1ull << (b % raw.per_free);
	raw.fany[f / 64] &= ~(1ull << (f % 64));
	index_check_fails(x, "free cores 6: marked empty, its buckets are not all empty");
	raw.fany[f / 64] |= 1ull << (f % 64);
	raw.fany[0] |= 1ull << 7;	/* 7 free cores: no socket has that */
	index_check_fails(x, "free cores 7: marked non-empty, its buckets are all empty");
	raw.fany[0] &= ~(1ull << 7);
	check_ok(o, "bitmaps restored");

	/* a socket recorded in another bucket than its state implies */
	saved = raw.bucket[2];
	raw.bucket[2] = (long) b;
	index_check_fails(x, "socket 2: in bucket");
	raw.bucket[2] = saved;

	/* counts: a core more used moves the socket's bucket; a category
	 * swapped changes no bucket (Miss-Rate Bound ignores categories), so
	 * only the ledger can tell */
	raw.used[0]++;
	check_fails(o, "socket 0: the index counts 3 cores used (0 foreign) by 1 occupants, the ledger 2 (0 foreign) by 1");
	index_check_fails(x, "socket 0: in bucket");
	raw.used[0]--;
	ci = 0;		/* socket 0's first category count */
	raw.catcount[ci + COSCHED_CAT_MEM]--;
	raw.catcount[ci + COSCHED_CAT_RAND]++;
	ck_assert_int_eq(cosched_socket_index_check(x, &err), 0);
	check_fails(o, "socket 0: the index counts 0 mem occupants, the ledger 1");
	raw.catcount[ci + COSCHED_CAT_MEM]++;
	raw.catcount[ci + COSCHED_CAT_RAND]--;
	raw.napps[1]++;
	index_check_fails(x, "socket 1: 2 applications, its category counts add up to 1");
	raw.napps[1]--;
	raw.load[1] = NAN;
	index_check_fails(x, "socket 1: load nan");
	raw.load[1] = 5.0;
	t = raw.minh[raw.bucket[2]].n;
	raw.minh[raw.bucket[2]].n = t - 1;	/* a socket falls out */
	index_check_fails(x, "not in heap 0 of its bucket");
	raw.minh[raw.bucket[2]].n = t;
	check_ok(o, "all restored");
	cosched_occupancy_free(o);
}
END_TEST

/* ---- every allocation failing in turn ---------------------------------- */

/* Run op with the 1st, 2nd, ... allocation failing until it succeeds;
 * each failure must say "out of memory" and leave o as it was.  Returns
 * how many runs failed. */
typedef int (*occ_op_fn)(cosched_occupancy_t *o);

static int fail_each_alloc(cosched_occupancy_t *o, occ_op_fn op,
			   const char *what)
{
	int failures = 0;

	for (long n = 1; n < 1000; n++) {
		snap_t *z = snap_take(o);
		int rc;

		fail_after = n;
		rc = op(o);
		fail_after = 0;
		if (rc == 0) {
			free(z);
			check_ok(o, what);
			return failures;
		}
		failures++;
		ck_assert_msg(strstr(err.msg, "out of memory") != NULL,
			      "%s, allocation %ld failing: %s", what, n, err.msg);
		same_as(o, z, what);
	}
	ck_abort_msg("%s: still failing after 1000 allocations", what);
	return failures;
}

/* Job 10 on sockets 0 (2 cores) and 1 (3 cores): two buckets never used,
 * so the second socket's heap room is allocated after the first socket
 * moved, and its failure undoes the first. */
static int op_add_two(cosched_occupancy_t *o)
{
	cosched_gang_job_t j = occ_job(10, 2, 1.25, COSCHED_CAT_CPU);
	cosched_hold_t h[] = { { 0, 2 }, { 1, 3 } };

	return cosched_occupancy_add(o, &j, h, 2, &err);
}

static int op_add_foreign(cosched_occupancy_t *o)
{
	cosched_hold_t h[] = { { 2, 1 }, { 3, 5 } };

	return cosched_occupancy_add_foreign(o, 11, h, 2, &err);
}

/* Job 12 (1 core) after job 10 on socket 1: removing job 10 then moves
 * socket 0 to a bucket with room (the empty sockets') first and socket 1
 * to one never used (7 free, occupied), whose failure puts socket 0
 * back. */
static int op_add_third(cosched_occupancy_t *o)
{
	cosched_gang_job_t j = occ_job(12, 1, 0.5, COSCHED_CAT_LIM);
	cosched_hold_t h[] = { { 1, 1 } };

	return cosched_occupancy_add(o, &j, h, 1, &err);
}

static int op_remove_10(cosched_occupancy_t *o)
{
	return cosched_occupancy_remove(o, 10, &err) == 1 ? 0 : -1;
}

static int op_available_2(cosched_occupancy_t *o)
{
	return cosched_occupancy_set_available(o, 2, true, &err);
}

static int op_add_on_unavailable(cosched_occupancy_t *o)
{
	cosched_gang_job_t j = occ_job(13, 1, 0.5, COSCHED_CAT_RAND);
	cosched_hold_t h[] = { { 2, 4 } };

	return cosched_occupancy_add(o, &j, h, 1, &err);
}

static uint32_t next_id;

static int op_add_next(cosched_occupancy_t *o)
{
	cosched_hold_t h = { 4 + (next_id % 4), 1 };
	cosched_gang_job_t j = occ_job(next_id, 1, 0.125, COSCHED_CAT_CPU);

	return cosched_occupancy_add(o, &j, &h, 1, &err);
}

START_TEST(test_out_of_memory_changes_nothing)
{
	const cosched_policy_t pols[] = {
		COSCHED_POLICY_APP_AWARE, COSCHED_POLICY_MISS_RATE_BALANCE,
	};

	cosched_gang_params_t p;

	/* Gangs of any size: a full gang is in no bucket, and these
	 * scenarios need sockets to move between buckets. */
	cosched_gang_params_init(&p, 8);
	p.max_apps = 8;
	for (size_t i = 0; i < sizeof(pols) / sizeof(pols[0]); i++) {
		cosched_occupancy_t *o = cosched_occupancy_create(pols[i], &p, 8,
								  NULL, &err);
		cosched_occupancy_t *y = NULL;
		int failures;
		long n;

		ck_assert_int_gt(fail_each_alloc(o, op_add_two, "add"), 2);
		ck_assert_int_gt(fail_each_alloc(o, op_add_foreign,
						 "add_foreign"), 0);
		ck_assert_int_gt(fail_each_alloc(o, op_add_third, "add"), 0);
		failures = fail_each_alloc(o, op_remove_10, "remove");
		ck_assert_int_gt(failures, 0);
		ck_assert(!cosched_occupancy_has(o, 10, NULL));
		ck_assert_int_eq(cosched_occupancy_set_available(o, 2, false,
								 &err), 0);
		fail_each_alloc(o, op_add_on_unavailable, "add on unavailable");
		ck_assert_int_gt(fail_each_alloc(o, op_available_2,
						 "set_available"), 0);
		/* enough jobs to grow the ledger twice: a failed growth
		 * keeps every job reachable */
		for (next_id = 20; next_id < 40; next_id++)
			fail_each_alloc(o, op_add_next, "many jobs");
		for (uint32_t id = 20; id < 40; id++)
			ck_assert(cosched_occupancy_has(o, id, NULL));

		/* a copy that runs out of memory is no copy */
		for (n = 1; n < 1000; n++) {
			snap_t *z = snap_take(o);
			fail_after = n;
			y = cosched_occupancy_copy(o, &err);
			fail_after = 0;
			if (y) {
				free(z);
				break;
			}
			ck_assert_ptr_nonnull(strstr(err.msg, "out of memory"));
			same_as(o, z, "copy");
		}
		ck_assert_ptr_nonnull(y);
		ck_assert_int_gt(n, 5);
		check_ok(y, "copy");
		cosched_occupancy_free(y);
		cosched_occupancy_free(o);
	}
}
END_TEST

/* Creation that runs out of memory returns NULL and says so. */
START_TEST(test_create_out_of_memory)
{
	cosched_gang_params_t p;
	cosched_occupancy_t *o = NULL;
	long n;

	cosched_gang_params_init(&p, 8);
	for (n = 1; n < 1000; n++) {
		fail_after = n;
		o = cosched_occupancy_create(COSCHED_POLICY_APP_AWARE, &p, 4, NULL,
					     &err);
		fail_after = 0;
		if (o)
			break;
		ck_assert_ptr_nonnull(strstr(err.msg, "out of memory"));
	}
	ck_assert_ptr_nonnull(o);
	ck_assert_int_gt(n, 5);
	check_ok(o, "created");
	cosched_occupancy_free(o);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("occupancy_faults");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_check_finds_corruption);
	tcase_add_test(tc, test_out_of_memory_changes_nothing);
	tcase_add_test(tc, test_create_out_of_memory);
	suite_add_tcase(s, tc);
	return s;
}
