/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * occupancy.c - who holds which cores, by job id, over the socket
 * index (policy/occupancy.h).
 *
 * Three records of one truth, kept in step by every update:
 *  - the ledger: per job id (open addressing, linear probing, deletion by
 *    backward shift) the gang job it was entered with, whether it is a
 *    foreign holder, and its holds.  Removal and set_mpki work from this
 *    copy, never from what the caller says the job is now;
 *  - per socket, its occupants (copies, in arrival order) and the cores
 *    each holds there: the view cosched_gang_rank takes, and the MPKI sum
 *    that is the socket's load (always summed afresh in that order, so the
 *    index's load is exactly what the ranking computes from the view);
 *  - the socket index (counts, buckets, heaps).
 *
 * Updates are all or nothing.  Everything that can be refused is checked
 * first; then every allocation is made (ledger room, the holds, occupant
 * room); then the index is updated socket by socket, and when one fails
 * (out of memory) the sockets already done are undone, which cannot fail:
 * a socket goes back to a bucket it just left, whose heaps kept its room.
 * Only then are the ledger and the per-socket occupants changed, and they
 * cannot fail any more.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/policy/gang_internal.h"
#include "src/libcosched/policy/occupancy.h"

typedef struct {
	bool live;
	bool foreign;
	cosched_gang_job_t job;	/* name NULL; a foreign holder: job_id only */
	double entered_mpki;	/* job.mpki when it entered */
	unsigned reading;	/* the live reading that set job.mpki, or 0 */
	size_t nholds;		/* >= 1 */
	cosched_hold_t one;	/* the hold when nholds == 1 */
	cosched_hold_t *many;	/* the holds when nholds > 1 */
} occ_entry_t;

typedef struct {
	cosched_gang_job_t *jobs;	/* occupants, in arrival order */
	int *cores;			/* cores each holds here */
	int n, cap;
} occ_socket_t;

struct cosched_occupancy {
	cosched_policy_t policy;
	size_t nsockets;
	cosched_socket_index_t *idx;
	occ_socket_t *sock;
	occ_entry_t *slots;	/* nslots, a power of two, at most half live */
	size_t nslots, count;
	unsigned *mark;		/* per socket: named by the hold list being
				 * checked when mark == stamp */
	unsigned stamp;
	unsigned reading;	/* the live reading being applied (>= 1) */
};

#define OCC_MIN_SLOTS 16

static const cosched_hold_t *entry_holds(const occ_entry_t *e)
{
	return e->nholds == 1 ? &e->one : e->many;
}

/* ---- the ledger ---------------------------------------------------- */

static size_t slot_home(size_t nslots, uint32_t id)
{
	uint64_t h = (uint64_t) id * 0x9e3779b97f4a7c15ull;

	return (size_t) (h ^ (h >> 32)) & (nslots - 1);
}

static size_t slot_find(const cosched_occupancy_t *o, uint32_t id)
{
	size_t mask = o->nslots - 1;

	for (size_t i = slot_home(o->nslots, id);; i = (i + 1) & mask) {
		if (!o->slots[i].live)
			return GANG_NONE;
		if (o->slots[i].job.job_id == id)
			return i;
	}
}

/* Into the first free slot from its home (not present, room reserved). */
static void slot_put(occ_entry_t *slots, size_t nslots, const occ_entry_t *e)
{
	size_t mask = nslots - 1, i = slot_home(nslots, e->job.job_id);

	while (slots[i].live)
		i = (i + 1) & mask;
	slots[i] = *e;
}

/* Empty slot i; later entries of its run move back where their home
 * allows, so every entry stays reachable without tombstones. */
static void slot_delete(cosched_occupancy_t *o, size_t i)
{
	size_t mask = o->nslots - 1, j = i;

	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (!o->slots[j].live)
			break;
		k = slot_home(o->nslots, o->slots[j].job.job_id);
		/* The entry at j stays when its home is cyclically in
		 * (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		o->slots[i] = o->slots[j];
		i = j;
	}
	memset(&o->slots[i], 0, sizeof(o->slots[i]));
}

/* Room for want entries at most half the slots live; -1 when out of
 * memory (ledger unchanged). */
static int ledger_reserve(cosched_occupancy_t *o, size_t want)
{
	size_t n = o->nslots;
	occ_entry_t *ns;

	if (want <= n / 2)
		return 0;
	while (want > n / 2) {
		if (n > ((size_t) -1) / 2 / sizeof(*ns))
			return -1;
		n *= 2;
	}
	ns = calloc(n, sizeof(*ns));
	if (!ns)
		return -1;
	for (size_t i = 0; i < o->nslots; i++)
		if (o->slots[i].live)
			slot_put(ns, n, &o->slots[i]);
	free(o->slots);
	o->slots = ns;
	o->nslots = n;
	return 0;
}

/* ---- per-socket occupants ------------------------------------------ */

static int sock_reserve(occ_socket_t *sk, int want)
{
	cosched_gang_job_t *nj;
	int *nc, cap;

	if (want <= sk->cap)
		return 0;
	cap = sk->cap ? sk->cap * 2 : 4;
	while (cap < want)
		cap *= 2;
	nj = realloc(sk->jobs, (size_t) cap * sizeof(*nj));
	if (!nj)
		return -1;
	sk->jobs = nj;
	nc = realloc(sk->cores, (size_t) cap * sizeof(*nc));
	if (!nc)
		return -1;	/* jobs grew: harmless, cap stays */
	sk->cores = nc;
	sk->cap = cap;
	return 0;
}

static int sock_find(const occ_socket_t *sk, uint32_t id)
{
	for (int k = 0; k < sk->n; k++)
		if (sk->jobs[k].job_id == id)
			return k;
	return -1;
}

/* The occupants' MPKI sum, in their order (the ranking's order), with job
 * id's MPKI taken as mpki when replace. */
static double sock_sum(const occ_socket_t *sk, uint32_t id, double mpki,
		       bool replace)
{
	double sum = 0;

	for (int k = 0; k < sk->n; k++)
		sum += replace && sk->jobs[k].job_id == id ? mpki :
							     sk->jobs[k].mpki;
	return sum;
}

/* The index's load of socket s := its occupants' MPKI sum.  Cannot fail:
 * the socket is in range and the sum was checked finite. */
static void sock_refresh_load(cosched_occupancy_t *o, size_t s)
{
	cosched_error_t ignored;

	if (gang_policy_uses_load(o->policy))
		(void) cosched_socket_index_set_load(o->idx, s,
			sock_sum(&o->sock[s], 0, 0, false), &ignored);
}

/* ---- create, free, copy -------------------------------------------- */

void cosched_occupancy_free(cosched_occupancy_t *o)
{
	if (!o)
		return;
	cosched_socket_index_free(o->idx);
	if (o->sock)
		for (size_t s = 0; s < o->nsockets; s++) {
			free(o->sock[s].jobs);
			free(o->sock[s].cores);
		}
	free(o->sock);
	if (o->slots)
		for (size_t i = 0; i < o->nslots; i++)
			free(o->slots[i].many);
	free(o->slots);
	free(o->mark);
	free(o);
}

cosched_occupancy_t *cosched_occupancy_create(cosched_policy_t policy,
					      const cosched_gang_params_t *params,
					      size_t nsockets,
					      const int *capacity,
					      cosched_error_t *err)
{
	cosched_occupancy_t *o = calloc(1, sizeof(*o));

	if (!o) {
		cosched_error_set(err, "occupancy: out of memory");
		return NULL;
	}
	o->policy = policy;
	o->nsockets = nsockets;
	o->idx = cosched_socket_index_create(policy, params, nsockets, capacity,
					     err);
	if (!o->idx) {
		cosched_occupancy_free(o);
		return NULL;
	}
	o->sock = calloc(nsockets + 1, sizeof(*o->sock));
	o->mark = calloc(nsockets + 1, sizeof(*o->mark));
	o->nslots = OCC_MIN_SLOTS;
	o->slots = calloc(o->nslots, sizeof(*o->slots));
	if (!o->sock || !o->mark || !o->slots) {
		cosched_occupancy_free(o);
		cosched_error_set(err, "occupancy: out of memory for %zu sockets",
				  nsockets);
		return NULL;
	}
	return o;
}

cosched_occupancy_t *cosched_occupancy_copy(const cosched_occupancy_t *o,
					    cosched_error_t *err)
{
	cosched_occupancy_t *y;

	if (!o) {
		cosched_error_set(err, "occupancy: NULL");
		return NULL;
	}
	y = calloc(1, sizeof(*y));
	if (!y) {
		cosched_error_set(err, "occupancy: out of memory");
		return NULL;
	}
	y->policy = o->policy;
	y->nsockets = o->nsockets;
	y->nslots = o->nslots;
	y->count = o->count;
	y->reading = o->reading;
	y->idx = cosched_socket_index_copy(o->idx, err);
	if (!y->idx) {
		cosched_occupancy_free(y);
		return NULL;
	}
	y->sock = calloc(o->nsockets + 1, sizeof(*y->sock));
	y->mark = calloc(o->nsockets + 1, sizeof(*y->mark));
	/* zeroed: freeing a copy that failed frees no garbage */
	y->slots = calloc(o->nslots, sizeof(*y->slots));
	if (!y->sock || !y->mark || !y->slots)
		goto oom;
	memcpy(y->slots, o->slots, o->nslots * sizeof(*y->slots));
	for (size_t i = 0; i < y->nslots; i++)
		y->slots[i].many = NULL;	/* o's, until copied */
	for (size_t i = 0; i < y->nslots; i++) {
		const occ_entry_t *e = &o->slots[i];

		if (!e->live || e->nholds < 2)
			continue;
		y->slots[i].many = malloc(e->nholds * sizeof(*e->many));
		if (!y->slots[i].many)
			goto oom;
		memcpy(y->slots[i].many, e->many, e->nholds * sizeof(*e->many));
	}
	for (size_t s = 0; s < o->nsockets; s++) {
		const occ_socket_t *from = &o->sock[s];

		if (from->n == 0)
			continue;
		if (sock_reserve(&y->sock[s], from->n) < 0)
			goto oom;
		memcpy(y->sock[s].jobs, from->jobs,
		       (size_t) from->n * sizeof(*from->jobs));
		memcpy(y->sock[s].cores, from->cores,
		       (size_t) from->n * sizeof(*from->cores));
		y->sock[s].n = from->n;
	}
	return y;
oom:
	cosched_occupancy_free(y);
	cosched_error_set(err, "occupancy: out of memory copying %zu sockets",
			  o->nsockets);
	return NULL;
}

/* ---- add, remove ---------------------------------------------------- */

/* Refuse a hold list: empty, a socket out of range or given twice, cores
 * < 1, more cores than the socket has free. */
static int holds_check(cosched_occupancy_t *o, const cosched_hold_t *holds,
		       size_t n, cosched_error_t *err)
{
	if (n == 0)
		return cosched_error_set(err,
			"holds: none (a job holds cores on at least one socket)");
	if (!holds)
		return cosched_error_set(err, "holds: NULL with %zu holds", n);
	if (++o->stamp == 0) {
		memset(o->mark, 0, o->nsockets * sizeof(*o->mark));
		o->stamp = 1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t s = holds[i].socket;
		int free_cores;

		if (s >= o->nsockets)
			return cosched_error_set(err,
				"holds[%zu].socket: %zu out of range (%zu sockets)",
				i, s, o->nsockets);
		if (o->mark[s] == o->stamp)
			return cosched_error_set(err,
				"holds[%zu].socket: socket %zu given twice", i, s);
		o->mark[s] = o->stamp;
		if (holds[i].cores < 1)
			return cosched_error_set(err,
				"holds[%zu].cores: must be >= 1, got %d", i,
				holds[i].cores);
		free_cores = cosched_socket_index_free_cores(o->idx, s);
		if (holds[i].cores > free_cores)
			return cosched_error_set(err,
				"holds[%zu]: %d cores on socket %zu, which has %d free",
				i, holds[i].cores, s, free_cores);
	}
	return 0;
}

/* Hold k of entry e into (sign > 0) or out of (sign < 0) the index. */
static int index_hold(cosched_occupancy_t *o, const occ_entry_t *e,
		      const cosched_hold_t *h, int sign, cosched_error_t *err)
{
	if (e->foreign)
		return sign > 0 ?
			cosched_socket_index_add_foreign(o->idx, h->socket,
							 h->cores, err) :
			cosched_socket_index_remove_foreign(o->idx, h->socket,
							    h->cores, err);
	return sign > 0 ?
		cosched_socket_index_add(o->idx, h->socket, &e->job, h->cores,
					 err) :
		cosched_socket_index_remove(o->idx, h->socket, &e->job,
					    h->cores, err);
}

/*
 * e's holds into (sign > 0) or out of (sign < 0) the index, all or none:
 * when one fails, the ones done are undone (which cannot fail, see the top
 * of the file) and their loads summed again from the unchanged occupants.
 */
static int index_holds(cosched_occupancy_t *o, const occ_entry_t *e,
		       int sign, cosched_error_t *err)
{
	const cosched_hold_t *h = entry_holds(e);

	for (size_t i = 0; i < e->nholds; i++) {
		if (index_hold(o, e, &h[i], sign, err) == 0)
			continue;
		while (i-- > 0) {
			cosched_error_t ignored;
			(void) index_hold(o, e, &h[i], -sign, &ignored);
			if (!e->foreign)
				sock_refresh_load(o, h[i].socket);
		}
		return -1;
	}
	return 0;
}

static int occ_add(cosched_occupancy_t *o, const cosched_gang_job_t *job,
		   uint32_t id, const cosched_hold_t *holds, size_t n,
		   cosched_error_t *err)
{
	bool foreign = job == NULL;
	size_t at;
	occ_entry_t e;

	if (!o)
		return cosched_error_set(err, "occupancy: NULL");
	at = slot_find(o, id);
	if (at != GANG_NONE)
		return cosched_error_set(err, "job %u: already present (%s)", id,
			o->slots[at].foreign ? "foreign" : "occupant");
	if (!foreign && (!isfinite(job->mpki) || job->mpki < 0))
		return cosched_error_set(err,
			"job %u: MPKI must be a finite number >= 0, got %g", id,
			job->mpki);
	if (holds_check(o, holds, n, err) < 0)
		return -1;
	if (!foreign && gang_policy_uses_load(o->policy))
		for (size_t i = 0; i < n; i++) {
			size_t s = holds[i].socket;
			if (!isfinite(sock_sum(&o->sock[s], 0, 0, false) +
				      job->mpki))
				return cosched_error_set(err,
					"socket %zu: its MPKI sum with job %u would not be finite",
					s, id);
		}

	/* Room everywhere before anything changes. */
	memset(&e, 0, sizeof(e));
	e.live = true;
	e.foreign = foreign;
	if (foreign)
		e.job.job_id = id;
	else
		e.job = *job;
	e.job.name = NULL;
	e.entered_mpki = e.job.mpki;
	e.nholds = n;
	if (ledger_reserve(o, o->count + 1) < 0)
		return cosched_error_set(err, "occupancy: out of memory");
	if (n == 1) {
		e.one = holds[0];
	} else {
		e.many = malloc(n * sizeof(*holds));
		if (!e.many)
			return cosched_error_set(err,
				"occupancy: out of memory for %zu holds", n);
		memcpy(e.many, holds, n * sizeof(*holds));
	}
	if (!foreign)
		for (size_t i = 0; i < n; i++) {
			occ_socket_t *sk = &o->sock[holds[i].socket];
			if (sock_reserve(sk, sk->n + 1) < 0) {
				free(e.many);
				return cosched_error_set(err,
					"occupancy: out of memory");
			}
		}
	if (index_holds(o, &e, +1, err) < 0) {
		free(e.many);
		return -1;
	}

	/* Nothing below can fail. */
	slot_put(o->slots, o->nslots, &e);
	o->count++;
	if (!foreign)
		for (size_t i = 0; i < n; i++) {
			occ_socket_t *sk = &o->sock[holds[i].socket];
			sk->jobs[sk->n] = e.job;
			sk->cores[sk->n] = holds[i].cores;
			sk->n++;
			sock_refresh_load(o, holds[i].socket);
		}
	return 0;
}

int cosched_occupancy_add(cosched_occupancy_t *o, const cosched_gang_job_t *job,
			  const cosched_hold_t *holds, size_t n,
			  cosched_error_t *err)
{
	if (!job)
		return cosched_error_set(err, "job: NULL");
	return occ_add(o, job, job->job_id, holds, n, err);
}

int cosched_occupancy_add_foreign(cosched_occupancy_t *o, uint32_t job_id,
				  const cosched_hold_t *holds, size_t n,
				  cosched_error_t *err)
{
	return occ_add(o, NULL, job_id, holds, n, err);
}

int cosched_occupancy_remove(cosched_occupancy_t *o, uint32_t job_id,
			     cosched_error_t *err)
{
	size_t at;
	occ_entry_t *e;
	const cosched_hold_t *h;

	if (!o)
		return cosched_error_set(err, "occupancy: NULL");
	at = slot_find(o, job_id);
	if (at == GANG_NONE)
		return 0;
	e = &o->slots[at];
	if (index_holds(o, e, -1, err) < 0)
		return -1;
	h = entry_holds(e);
	if (!e->foreign)
		for (size_t i = 0; i < e->nholds; i++) {
			occ_socket_t *sk = &o->sock[h[i].socket];
			int k = sock_find(sk, job_id);
			/* The ledger and the occupants agree (see
			 * cosched_occupancy_check): k >= 0. */
			if (k < 0)
				continue;
			memmove(&sk->jobs[k], &sk->jobs[k + 1],
				(size_t) (sk->n - k - 1) * sizeof(*sk->jobs));
			memmove(&sk->cores[k], &sk->cores[k + 1],
				(size_t) (sk->n - k - 1) * sizeof(*sk->cores));
			sk->n--;
			sock_refresh_load(o, h[i].socket);
		}
	free(e->many);
	slot_delete(o, at);
	o->count--;
	return 1;
}

bool cosched_occupancy_has(const cosched_occupancy_t *o, uint32_t job_id,
			   bool *foreign)
{
	size_t at = o ? slot_find(o, job_id) : GANG_NONE;

	if (at == GANG_NONE)
		return false;
	if (foreign)
		*foreign = o->slots[at].foreign;
	return true;
}

static int entry_set_mpki(cosched_occupancy_t *o, occ_entry_t *e,
			  double mpki, cosched_error_t *err)
{
	uint32_t job_id = e->job.job_id;
	const cosched_hold_t *h;

	if (e->foreign)
		return cosched_error_set(err,
			"job %u: a foreign holder has no MPKI", job_id);
	if (!isfinite(mpki) || mpki < 0)
		return cosched_error_set(err,
			"mpki: must be a finite number >= 0, got %g", mpki);
	h = entry_holds(e);
	if (gang_policy_uses_load(o->policy))
		for (size_t i = 0; i < e->nholds; i++)
			if (!isfinite(sock_sum(&o->sock[h[i].socket], job_id,
					       mpki, true)))
				return cosched_error_set(err,
					"socket %zu: its MPKI sum with job %u at %g would not be finite",
					h[i].socket, job_id, mpki);
	e->job.mpki = mpki;
	for (size_t i = 0; i < e->nholds; i++) {
		occ_socket_t *sk = &o->sock[h[i].socket];
		int k = sock_find(sk, job_id);
		if (k >= 0)
			sk->jobs[k].mpki = mpki;
		sock_refresh_load(o, h[i].socket);
	}
	return 0;
}

static occ_entry_t *entry_of(cosched_occupancy_t *o, uint32_t job_id,
			     cosched_error_t *err)
{
	size_t at;

	if (!o) {
		cosched_error_set(err, "occupancy: NULL");
		return NULL;
	}
	at = slot_find(o, job_id);
	if (at == GANG_NONE) {
		cosched_error_set(err, "job %u: not present", job_id);
		return NULL;
	}
	return &o->slots[at];
}

int cosched_occupancy_set_mpki(cosched_occupancy_t *o, uint32_t job_id,
			       double mpki, cosched_error_t *err)
{
	occ_entry_t *e = entry_of(o, job_id, err);

	return e ? entry_set_mpki(o, e, mpki, err) : -1;
}

void cosched_occupancy_live_begin(cosched_occupancy_t *o)
{
	if (o && !++o->reading)
		o->reading = 1;		/* 0 means "no reading" */
}

int cosched_occupancy_live_set(cosched_occupancy_t *o, uint32_t job_id,
			       double mpki, cosched_error_t *err)
{
	occ_entry_t *e = entry_of(o, job_id, err);

	if (!e || entry_set_mpki(o, e, mpki, err))
		return -1;
	e->reading = o->reading;
	return 0;
}

size_t cosched_occupancy_live_end(cosched_occupancy_t *o)
{
	size_t back = 0;

	if (!o)
		return 0;
	for (size_t i = 0; i < o->nslots; i++) {
		occ_entry_t *e = &o->slots[i];

		if (!e->live || e->foreign || !e->reading ||
		    e->reading == o->reading)
			continue;
		/* Its file is gone (the step ended, or it went stale): the
		 * job carries the MPKI it entered with again, which was
		 * accepted then and so sums finitely now. */
		e->reading = 0;
		if (!entry_set_mpki(o, e, e->entered_mpki, NULL))
			back++;
	}
	return back;
}

/* ---- sockets and queries ------------------------------------------- */

int cosched_occupancy_set_available(cosched_occupancy_t *o, size_t socket,
				    bool available, cosched_error_t *err)
{
	if (!o)
		return cosched_error_set(err, "occupancy: NULL");
	return cosched_socket_index_set_available(o->idx, socket, available,
						  err);
}

bool cosched_occupancy_available(const cosched_occupancy_t *o, size_t socket)
{
	return o && cosched_socket_index_available(o->idx, socket);
}

long cosched_occupancy_empty_units(const cosched_occupancy_t *o)
{
	return cosched_socket_index_empty_units(o->idx);
}

long cosched_occupancy_best(cosched_occupancy_t *o,
			    const cosched_gang_job_t *job, unsigned flags,
			    const size_t *exclude, size_t nexclude,
			    cosched_candidate_t *best, cosched_error_t *err)
{
	return cosched_socket_index_best_except(o ? o->idx : NULL, job, flags,
						exclude, nexclude, best, err);
}

int cosched_occupancy_socket(const cosched_occupancy_t *o, size_t socket,
			     cosched_socket_t *out)
{
	int used, avail = o && out ? gang_index_socket_room(o->idx, socket,
					&out->capacity, &used) : -1;

	if (avail < 0)
		return -1;
	out->used = avail ? used : out->capacity;
	out->occupants = o->sock[socket].n ? o->sock[socket].jobs : NULL;
	out->noccupants = o->sock[socket].n;
	return 0;
}

size_t cosched_occupancy_nsockets(const cosched_occupancy_t *o)
{
	return o ? o->nsockets : 0;
}

int cosched_occupancy_free_cores(const cosched_occupancy_t *o, size_t socket)
{
	if (!cosched_occupancy_available(o, socket))
		return 0;
	return cosched_socket_index_free_cores(o->idx, socket);
}

const cosched_hold_t *cosched_occupancy_holds(const cosched_occupancy_t *o,
					      uint32_t job_id, size_t *n)
{
	size_t at = o ? slot_find(o, job_id) : GANG_NONE;

	if (n)
		*n = at == GANG_NONE ? 0 : o->slots[at].nholds;
	return at == GANG_NONE ? NULL : entry_holds(&o->slots[at]);
}

/* ---- self-check ---------------------------------------------------- */

/* What the holders say each socket holds. */
typedef struct {
	int used, foreign, napps;
	unsigned catcount[GANG_CAT_SLOTS];
	double load;
} occ_expect_t;

static bool load_close(double a, double b)
{
	double m = fmax(fabs(a), fabs(b));

	return fabs(a - b) <= 1e-9 * (m > 1.0 ? m : 1.0);
}

/* The ledger itself: reachable entries, valid holds; fills want. */
static int check_ledger(const cosched_occupancy_t *o, occ_expect_t *want,
			size_t *seen, cosched_error_t *err)
{
	size_t live = 0;

	for (size_t i = 0; i < o->nslots; i++) {
		const occ_entry_t *e = &o->slots[i];
		const cosched_hold_t *h;
		uint32_t id = e->job.job_id;

		if (!e->live)
			continue;
		live++;
		if (slot_find(o, id) != i)
			return cosched_error_set(err,
				"ledger: job %u in slot %zu is not found there", id,
				i);
		if (e->nholds == 0 || (e->nholds > 1 && !e->many))
			return cosched_error_set(err,
				"ledger: job %u has %zu holds%s", id, e->nholds,
				e->nholds ? " and no array" : "");
		h = entry_holds(e);
		for (size_t k = 0; k < e->nholds; k++) {
			size_t s = h[k].socket;
			occ_expect_t *w;

			if (s >= o->nsockets || h[k].cores < 1)
				return cosched_error_set(err,
					"ledger: job %u holds %d cores on socket %zu (%zu sockets)",
					id, h[k].cores, s, o->nsockets);
			if (seen[s] == i + 1)
				return cosched_error_set(err,
					"ledger: job %u holds socket %zu twice", id, s);
			seen[s] = i + 1;
			w = &want[s];
			w->used += h[k].cores;
			if (e->foreign) {
				w->foreign += h[k].cores;
				continue;
			}
			w->napps++;
			w->catcount[gang_cat_slot(e->job.category)]++;
			w->load += e->job.mpki;
		}
	}
	if (live != o->count)
		return cosched_error_set(err,
			"ledger: %zu jobs in its slots, %zu counted", live,
			o->count);
	return 0;
}

/* Socket s: its occupants are the ledger's, and the index counts what the
 * ledger says. */
static int check_socket(const cosched_occupancy_t *o, size_t s,
			const occ_expect_t *w, size_t *entry_mark,
			cosched_error_t *err)
{
	const occ_socket_t *sk = &o->sock[s];
	gang_index_socket_t st;
	double want_load;

	if (sk->n != w->napps)
		return cosched_error_set(err,
			"socket %zu: %d occupants listed, the ledger has %d", s,
			sk->n, w->napps);
	for (int k = 0; k < sk->n; k++) {
		const cosched_gang_job_t *j = &sk->jobs[k];
		size_t at = slot_find(o, j->job_id);
		const occ_entry_t *e;
		const cosched_hold_t *h;
		bool held = false;

		if (at == GANG_NONE || o->slots[at].foreign)
			return cosched_error_set(err,
				"socket %zu: occupant job %u is no occupant in the ledger",
				s, j->job_id);
		if (entry_mark[at] == s + 1)
			return cosched_error_set(err,
				"socket %zu: occupant job %u listed twice", s,
				j->job_id);
		entry_mark[at] = s + 1;
		e = &o->slots[at];
		h = entry_holds(e);
		for (size_t i = 0; i < e->nholds; i++)
			if (h[i].socket == s && h[i].cores == sk->cores[k])
				held = true;
		if (!held)
			return cosched_error_set(err,
				"socket %zu: occupant job %u with %d cores, the ledger's holds differ",
				s, j->job_id, sk->cores[k]);
		if (j->mpki != e->job.mpki || j->category != e->job.category ||
		    j->threads != e->job.threads)
			return cosched_error_set(err,
				"socket %zu: occupant job %u differs from the ledger's copy",
				s, j->job_id);
	}
	if (gang_index_socket(o->idx, s, &st) < 0)
		return cosched_error_set(err, "socket %zu: not in the index", s);
	if (st.used != w->used || st.foreign != w->foreign ||
	    st.napps != w->napps)
		return cosched_error_set(err,
			"socket %zu: the index counts %d cores used (%d foreign) by %d occupants, the ledger %d (%d foreign) by %d",
			s, st.used, st.foreign, st.napps, w->used, w->foreign,
			w->napps);
	for (unsigned c = 0; c < GANG_CAT_SLOTS; c++)
		if (st.catcount[c] != w->catcount[c])
			return cosched_error_set(err,
				"socket %zu: the index counts %u %s occupants, the ledger %u",
				s, st.catcount[c],
				cosched_category_name((cosched_category_t) c),
				w->catcount[c]);
	want_load = gang_policy_uses_load(o->policy) ? w->load : 0;
	if (!load_close(st.load, want_load))
		return cosched_error_set(err,
			"socket %zu: the index's load is %.17g MPKI, the occupants' sum %.17g",
			s, st.load, want_load);
	return 0;
}

int cosched_occupancy_check(const cosched_occupancy_t *o, cosched_error_t *err)
{
	occ_expect_t *want;
	size_t *seen, *entry_mark;
	int rc = 0;

	if (!o)
		return cosched_error_set(err, "occupancy: NULL");
	if (cosched_socket_index_nsockets(o->idx) != o->nsockets)
		return cosched_error_set(err,
			"occupancy: %zu sockets, the index %zu", o->nsockets,
			cosched_socket_index_nsockets(o->idx));
	want = calloc(o->nsockets + 1, sizeof(*want));
	seen = calloc(o->nsockets + 1, sizeof(*seen));
	entry_mark = calloc(o->nslots, sizeof(*entry_mark));
	if (!want || !seen || !entry_mark) {
		rc = cosched_error_set(err, "occupancy check: out of memory");
		goto out;
	}
	rc = check_ledger(o, want, seen, err);
	for (size_t s = 0; rc == 0 && s < o->nsockets; s++)
		rc = check_socket(o, s, &want[s], entry_mark, err);
	if (rc == 0)
		rc = cosched_socket_index_check(o->idx, err);
out:
	free(want);
	free(seen);
	free(entry_mark);
	return rc;
}

cosched_socket_index_t *gang_occupancy_index(cosched_occupancy_t *o)
{
	return o->idx;
}
