/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * occupancy_snap.c - occupancies made, changed and compared whole
 * (occupancy_snap.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "occupancy_snap.h"

static cosched_error_t err;

cosched_gang_job_t occ_job(uint32_t id, int threads, double mpki,
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

cosched_occupancy_t *mkocc(cosched_policy_t pol, size_t n, const int *caps)
{
	cosched_gang_params_t p;
	cosched_occupancy_t *o;

	cosched_gang_params_init(&p, 8);
	o = cosched_occupancy_create(pol, &p, n, caps, &err);
	ck_assert_msg(o != NULL, "%s", err.msg);
	return o;
}

void check_ok(const cosched_occupancy_t *o, const char *what)
{
	ck_assert_msg(cosched_occupancy_check(o, &err) == 0, "%s: %s", what,
		      err.msg);
}

void add1(cosched_occupancy_t *o, const cosched_gang_job_t *j, size_t socket,
	  int cores)
{
	cosched_hold_t h = { socket, cores };

	ck_assert_msg(cosched_occupancy_add(o, j, &h, 1, &err) == 0, "%s",
		      err.msg);
}

void foreign1(cosched_occupancy_t *o, uint32_t id, size_t socket, int cores)
{
	cosched_hold_t h = { socket, cores };

	ck_assert_msg(cosched_occupancy_add_foreign(o, id, &h, 1, &err) == 0,
		      "%s", err.msg);
}


snap_t *snap_take(cosched_occupancy_t *o)
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
void snap_same(const snap_t *a, const snap_t *b, const char *what)
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
void same_as(cosched_occupancy_t *o, snap_t *z, const char *what)
{
	snap_t *now = snap_take(o);

	snap_same(z, now, what);
	check_ok(o, what);
	free(now);
	free(z);
}
