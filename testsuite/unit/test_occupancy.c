/* test_occupancy.c - the occupancy by job id (src/libcosched/
 * cosched_occupancy.c) and what it needs of the socket index: exact undo
 * by id, the stored copy, foreign holders, unavailable sockets, exclusion
 * lists, copies, seeded random sequences checked against cosched_gang_rank
 * and the self-check, planted corruption, and failure atomicity (refused
 * input, and every allocation failing in turn). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"

#include "src/libcosched/cosched_gang.h"
#include "src/libcosched/cosched_gang_internal.h"
#include "src/libcosched/cosched_occupancy.h"
#include "src/libcosched/cosched_socket_index.h"

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

/* ---- helpers --------------------------------------------------------- */

static cosched_gang_job_t mkjob(uint32_t id, int threads, double mpki,
				cosched_category_t cat)
{
	cosched_gang_job_t j;

	memset(&j, 0, sizeof(j));
	j.job_id = id;
	j.name = "job";
	j.threads = threads;
	j.mpki = mpki;
	j.category = cat;
	return j;
}

static cosched_occupancy_t *mkocc(cosched_policy_t pol, size_t n,
				  const int *caps)
{
	cosched_gang_params_t p;
	cosched_occupancy_t *o;

	cosched_gang_params_init(&p, 8);
	o = cosched_occupancy_create(pol, &p, n, caps, &err);
	ck_assert_msg(o != NULL, "%s", err.msg);
	return o;
}

static void check_ok(const cosched_occupancy_t *o, const char *what)
{
	ck_assert_msg(cosched_occupancy_check(o, &err) == 0, "%s: %s", what,
		      err.msg);
}

static void add1(cosched_occupancy_t *o, const cosched_gang_job_t *j,
		 size_t socket, int cores)
{
	cosched_hold_t h = { socket, cores };

	ck_assert_msg(cosched_occupancy_add(o, j, &h, 1, &err) == 0, "%s",
		      err.msg);
}

static void foreign1(cosched_occupancy_t *o, uint32_t id, size_t socket,
		     int cores)
{
	cosched_hold_t h = { socket, cores };

	ck_assert_msg(cosched_occupancy_add_foreign(o, id, &h, 1, &err) == 0,
		      "%s", err.msg);
}

/* Everything observable of an occupancy: per socket the index's counts
 * (the load bit for bit), availability, free cores and the occupants; per
 * job id 1..SNAP_IDS presence and holds. */
#define SNAP_SOCKETS 16
#define SNAP_OCC 32
#define SNAP_IDS 64

typedef struct {
	size_t nsockets;
	struct {
		gang_index_socket_t st;
		int free_cores, noccupants;
		cosched_gang_job_t occ[SNAP_OCC];
	} s[SNAP_SOCKETS];
	struct {
		bool has, foreign;
		size_t nholds;
		cosched_hold_t holds[SNAP_SOCKETS];
	} j[SNAP_IDS + 1];
} snap_t;

static snap_t *snap_take(cosched_occupancy_t *o)
{
	snap_t *z = calloc(1, sizeof(*z));
	cosched_socket_index_t *x = gang_occupancy_index(o);

	ck_assert_ptr_nonnull(z);
	z->nsockets = cosched_occupancy_nsockets(o);
	ck_assert_uint_le(z->nsockets, SNAP_SOCKETS);
	for (size_t s = 0; s < z->nsockets; s++) {
		cosched_socket_t v;

		ck_assert_int_eq(gang_index_socket(x, s, &z->s[s].st), 0);
		z->s[s].free_cores = cosched_occupancy_free_cores(o, s);
		ck_assert_int_eq(cosched_occupancy_socket(o, s, &v), 0);
		ck_assert_int_le(v.noccupants, SNAP_OCC);
		z->s[s].noccupants = v.noccupants;
		for (int k = 0; k < v.noccupants; k++)
			z->s[s].occ[k] = v.occupants[k];
	}
	for (uint32_t id = 1; id <= SNAP_IDS; id++) {
		const cosched_hold_t *h;

		z->j[id].has = cosched_occupancy_has(o, id, &z->j[id].foreign);
		h = cosched_occupancy_holds(o, id, &z->j[id].nholds);
		ck_assert(z->j[id].has == (h != NULL));
		for (size_t k = 0; k < z->j[id].nholds; k++)
			z->j[id].holds[k] = h[k];
	}
	return z;
}

/* a and b alike, field by field (padding is not state). */
static void snap_same(const snap_t *a, const snap_t *b, const char *what)
{
	ck_assert_uint_eq(a->nsockets, b->nsockets);
	for (size_t s = 0; s < a->nsockets; s++) {
		const gang_index_socket_t *x = &a->s[s].st, *y = &b->s[s].st;

		ck_assert_msg(x->capacity == y->capacity && x->used == y->used &&
			      x->foreign == y->foreign && x->napps == y->napps &&
			      x->available == y->available &&
			      !memcmp(x->catcount, y->catcount,
				      sizeof(x->catcount)),
			      "%s: socket %zu: used %d/%d foreign %d/%d napps %d/%d",
			      what, s, x->used, y->used, x->foreign, y->foreign,
			      x->napps, y->napps);
		ck_assert_msg(x->load == y->load,
			      "%s: socket %zu: load %.17g, was %.17g", what, s,
			      y->load, x->load);
		ck_assert_int_eq(a->s[s].free_cores, b->s[s].free_cores);
		ck_assert_int_eq(a->s[s].noccupants, b->s[s].noccupants);
		for (int k = 0; k < a->s[s].noccupants; k++) {
			const cosched_gang_job_t *p = &a->s[s].occ[k],
						 *q = &b->s[s].occ[k];
			ck_assert_msg(p->job_id == q->job_id &&
				      p->mpki == q->mpki &&
				      p->category == q->category &&
				      p->threads == q->threads,
				      "%s: socket %zu occupant %d differs", what,
				      s, k);
		}
	}
	for (uint32_t id = 1; id <= SNAP_IDS; id++) {
		ck_assert_msg(a->j[id].has == b->j[id].has &&
			      a->j[id].foreign == b->j[id].foreign &&
			      a->j[id].nholds == b->j[id].nholds,
			      "%s: job %u differs", what, id);
		for (size_t k = 0; k < a->j[id].nholds; k++)
			ck_assert(a->j[id].holds[k].socket ==
					  b->j[id].holds[k].socket &&
				  a->j[id].holds[k].cores ==
					  b->j[id].holds[k].cores);
	}
}

/* The state is as z recorded and consistent; frees z. */
static void same_as(cosched_occupancy_t *o, snap_t *z, const char *what)
{
	snap_t *now = snap_take(o);

	snap_same(z, now, what);
	check_ok(o, what);
	free(now);
	free(z);
}

/* ---- add and remove by id ------------------------------------------- */

/* Removing a job by id restores the state exactly (loads bit for bit, for
 * every policy); a second removal answers 0 and changes nothing. */
START_TEST(test_remove_restores_exactly)
{
	for (int pol = 0; pol < COSCHED_POLICY_COUNT; pol++) {
		cosched_occupancy_t *o = mkocc(pol, 4, NULL);
		cosched_gang_job_t a = mkjob(1, 2, 0.1, COSCHED_CAT_CPU);
		cosched_gang_job_t b = mkjob(2, 2, 0.7, COSCHED_CAT_LIM);
		cosched_gang_job_t c = mkjob(3, 4, 0.2, COSCHED_CAT_RAND);
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
	cosched_gang_job_t j = mkjob(7, 2, 20.0, COSCHED_CAT_MEM);
	cosched_gang_job_t mem = mkjob(8, 2, 1.0, COSCHED_CAT_MEM);
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
	j = mkjob(7, 2, 20.0, COSCHED_CAT_MEM);
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
	cosched_gang_job_t occ = mkjob(1, 2, 0, COSCHED_CAT_MEM);
	cosched_gang_job_t job = mkjob(3, 4, 0, COSCHED_CAT_MEM);
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
	cosched_gang_job_t a = mkjob(1, 2, 0, COSCHED_CAT_CPU);
	cosched_gang_job_t b = mkjob(2, 2, 0, COSCHED_CAT_CPU);
	cosched_gang_job_t job = mkjob(9, 2, 0, COSCHED_CAT_CPU);
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
	cosched_gang_job_t j1 = mkjob(1, 2, 1.0, COSCHED_CAT_CPU);
	cosched_gang_job_t j2 = mkjob(2, 2, 2.0, COSCHED_CAT_CPU);
	cosched_gang_job_t j3 = mkjob(3, 2, 3.0, COSCHED_CAT_CPU);
	cosched_gang_job_t job = mkjob(9, 2, 4.0, COSCHED_CAT_MEM);
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
	cosched_gang_job_t j1 = mkjob(1, 2, 1.5, COSCHED_CAT_CPU);
	cosched_gang_job_t j2 = mkjob(2, 2, 7.0, COSCHED_CAT_MEM);
	cosched_gang_job_t j3 = mkjob(3, 1, 2.0, COSCHED_CAT_RAND);
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
	cosched_gang_job_t j1 = mkjob(1, 4, 2.0, COSCHED_CAT_MEM);
	cosched_gang_job_t j3 = mkjob(3, 2, 1.0, COSCHED_CAT_CPU);
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
	cosched_gang_job_t job = mkjob(1000, 1 + rnd(r) % 6,
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
			cosched_gang_job_t j = mkjob(id, 1 + rnd(&r) % 4,
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
	for (int pol = 0; pol < COSCHED_POLICY_COUNT; pol++)
		for (unsigned seed = 1; seed <= 3; seed++)
			random_run(pol, seed * 7919u + (unsigned) pol, 400);
}
END_TEST

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
	cosched_gang_job_t j1 = mkjob(1, 2, 3.0, COSCHED_CAT_MEM);
	cosched_gang_job_t j2 = mkjob(2, 2, 5.0, COSCHED_CAT_CPU);
	cosched_gang_job_t ghost = mkjob(3, 1, 0, COSCHED_CAT_CPU);
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
	cosched_gang_job_t j = mkjob(10, 2, 1.25, COSCHED_CAT_CPU);
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
	cosched_gang_job_t j = mkjob(12, 1, 0.5, COSCHED_CAT_LIM);
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
	cosched_gang_job_t j = mkjob(13, 1, 0.5, COSCHED_CAT_RAND);
	cosched_hold_t h[] = { { 2, 4 } };

	return cosched_occupancy_add(o, &j, h, 1, &err);
}

static uint32_t next_id;

static int op_add_next(cosched_occupancy_t *o)
{
	cosched_hold_t h = { 4 + (next_id % 4), 1 };
	cosched_gang_job_t j = mkjob(next_id, 1, 0.125, COSCHED_CAT_CPU);

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
	tcase_add_test(tc, test_check_finds_corruption);
	tcase_add_test(tc, test_out_of_memory_changes_nothing);
	tcase_add_test(tc, test_create_out_of_memory);
	suite_add_tcase(s, tc);
	return s;
}
