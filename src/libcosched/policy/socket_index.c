/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * socket_index.c - the best socket for an arriving job, without
 * scanning every socket.
 *
 * A socket's score for a job depends only on its free cores, whether it is
 * empty, its categories present (Application-Aware only) and its MPKI load
 * (Miss-Rate policies only); how many applications it holds matters only
 * for "gang full", and full sockets are kept out of the index.  So sockets
 * are kept in buckets by (free cores, empty or occupied, category mask),
 * where every socket of a bucket scores alike except by load: each bucket is
 * an indexed binary heap by (load, socket), plus a max-heap by load for
 * Miss-Rate Balance (its score is extreme at either end).  min_slowdown's
 * score is its join cost, a sum over the category counts that differs by
 * arriving category: its buckets have one heap per arriving category slot,
 * by (cost for that slot, socket), and a query reads the job's.  A query
 * reads one or two heap tops per non-empty bucket, found through bitmaps:
 * one 64-bit word of non-empty buckets per free-core count and a bitmap of
 * the free-core counts that have any.
 *
 * Cores held by jobs that are not co-runners (foreign holders) count as
 * used: a socket with only foreign cores is empty for the policies, with
 * fewer free cores.  An unavailable socket (its node down) keeps what it
 * holds and is in no bucket, like a full one.
 *
 * Updates are all or nothing: the heaps of the bucket a socket moves to
 * are grown before it leaves its old one, so a failed update (out of
 * memory) leaves the index as it was.  Heaps never shrink, so a socket
 * can always go back to a bucket it just left: that is what undoes an
 * update (policy/occupancy.c) and what re-attaches the sockets a query
 * excluded.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/policy/bitmap.h"
#include "src/libcosched/policy/socket_index_internal.h"

/* The index and one of its sockets, as every per-socket update needs. */
static int index_socket_check(const cosched_socket_index_t *x, size_t s,
			      cosched_error_t *err)
{
	if (!x)
		return cosched_error_set(err, "index: NULL");
	if (s >= x->nsockets)
		return cosched_error_set(err,
			"socket: %zu out of range (%zu sockets)", s, x->nsockets);
	return 0;
}

/* Bucket b became empty (on = false) or non-empty (on = true). */
static void bucket_mark(cosched_socket_index_t *x, long b, bool on)
{
	size_t per_f = (size_t) LEVELS * x->nmasks;
	size_t f = (size_t) b / per_f;
	uint64_t bit = 1ull << ((size_t) b % per_f);

	if (on) {
		x->fbits[f] |= bit;
		cosched_bitmap_set(x->fany, f);
	} else {
		x->fbits[f] &= ~bit;
		if (!x->fbits[f])
			cosched_bitmap_clear(x->fany, f);
	}
}

/* Room for one more socket in bucket b's heaps (b < 0: nothing to do). */
static int bucket_reserve(cosched_socket_index_t *x, long b)
{
	if (b < 0)
		return 0;
	for (unsigned k = 0; k < bucket_nheaps(x, b); k++)
		if (cosched_heap_reserve(&x->heaps[k][b],
					 x->heaps[k][b].n + 1) < 0)
			return -1;
	return 0;
}

static void sock_detach(cosched_socket_index_t *x, size_t s)
{
	long b = x->bucket[s];

	if (b < 0)
		return;
	for (unsigned k = 0; k < bucket_nheaps(x, b); k++)
		cosched_heap_remove(&x->heaps[k][b], &x->order[k], s);
	if (x->heaps[0][b].n == 0)
		bucket_mark(x, b, false);
	x->bucket[s] = -1;
}

/* Into bucket b (its bucket in its current state); the caller reserved
 * room (bucket_reserve), so the pushes cannot fail. */
static void sock_attach(cosched_socket_index_t *x, size_t s, long b)
{
	x->bucket[s] = b;
	if (b < 0)
		return;
	for (unsigned k = 0; k < bucket_nheaps(x, b); k++)
		(void) cosched_heap_push(&x->heaps[k][b], &x->order[k], s);
	if (x->heaps[0][b].n == 1)
		bucket_mark(x, b, true);
}

/* min_slowdown: a socket's costs from its category counts (recomputed,
 * never adjusted, so they equal what the score computes). */
static void sock_costs(cosched_socket_index_t *x, size_t s)
{
	if (!x->cost)
		return;
	for (unsigned k = 0; k < GANG_CAT_SLOTS; k++)
		x->cost[k * x->nsockets + s] =
			gang_join_cost(&x->ctx, k,
				       &x->catcount[s * GANG_CAT_SLOTS]);
}

/* Every array of an index whose sizes are set (nsockets, maxcap, nbuckets,
 * nfwords, nheaps, ctx.policy); the pointers it had are overwritten.
 * Zeroed but for cap, bucket and the heaps' positions.  -1 when out of
 * memory (what was allocated is in x, for cosched_socket_index_free). */
static int index_alloc(cosched_socket_index_t *x)
{
	size_t n = x->nsockets;
	bool ms = x->ctx.policy == COSCHED_POLICY_MIN_SLOWDOWN;
	bool ok = true;

	x->cap = malloc(n * sizeof(int) + 1);
	x->used = calloc(n + 1, sizeof(int));
	x->foreign = calloc(n + 1, sizeof(int));
	x->napps = calloc(n + 1, sizeof(int));
	x->catcount = calloc(n * GANG_CAT_SLOTS + 1, sizeof(unsigned));
	x->avail = calloc(n + 1, 1);
	x->load = calloc(n + 1, sizeof(double));
	x->cost = ms ? calloc(n * GANG_CAT_SLOTS + 1, sizeof(double)) : NULL;
	x->bucket = malloc(n * sizeof(long) + 1);
	x->fbits = calloc((size_t) x->maxcap + 1, sizeof(uint64_t));
	x->fany = calloc(x->nfwords, sizeof(uint64_t));
	/* Heaps by (load, socket), lowest first, and for Miss-Rate Balance
	 * highest first too; min_slowdown by (cost[k], socket). */
	for (unsigned k = 0; k < x->nheaps; k++) {
		x->heaps[k] = calloc(x->nbuckets, sizeof(cosched_heap_t));
		x->order[k].pos = malloc(n * sizeof(size_t) + 1);
		x->order[k].highest_first = !ms && k == 1;
		x->order[k].key = ms ? (x->cost ? x->cost + k * n : NULL) :
				       x->load;
		ok = ok && x->heaps[k] && x->order[k].pos;
	}
	if (!ok || !x->cap || !x->used || !x->foreign || !x->napps ||
	    !x->catcount || !x->avail || !x->load || (ms && !x->cost) ||
	    !x->bucket || !x->fbits || !x->fany)
		return -1;
	return 0;
}

cosched_socket_index_t *cosched_socket_index_create(
	cosched_policy_t policy, const cosched_gang_params_t *params,
	size_t nsockets, const int *capacity, cosched_error_t *err)
{
	cosched_socket_index_t *x;

	if (cosched_policy_check("policy", policy, COSCHED_POLICY_PLACING, err) < 0 ||
	    cosched_gang_params_check(params, err) < 0)
		return NULL;
	x = calloc(1, sizeof(*x));
	if (!x) {
		cosched_error_set(err, "socket index: out of memory");
		return NULL;
	}
	gang_score_ctx_init(&x->ctx, policy, params);
	/* Its heaps order sockets by a score of their own: space sharing's
	 * (the batch plan that also asks it keeps its own rule for when a
	 * time-shared gang opens). */
	x->ctx.time_shared = false;
	x->nsockets = nsockets;
	x->maxcap = params->capacity;
	/* Only Application-Aware's score reads the categories present;
	 * min_slowdown's reads their counts, through its costs. */
	x->nmasks = policy == COSCHED_POLICY_APP_AWARE ? GANG_MASK_COUNT : 1;
	x->nheaps = policy == COSCHED_POLICY_MISS_RATE_BALANCE ? 2 :
		    policy == COSCHED_POLICY_MIN_SLOWDOWN ? GANG_CAT_SLOTS : 1;
	if (capacity)
		for (size_t i = 0; i < nsockets; i++) {
			if (capacity[i] < 1 ||
			    capacity[i] > COSCHED_GANG_MAX_CAPACITY) {
				cosched_error_set(err,
					"capacity[%zu]: must be in [1, %d], got %d", i,
					COSCHED_GANG_MAX_CAPACITY, capacity[i]);
				free(x);
				return NULL;
			}
			if (capacity[i] > x->maxcap)
				x->maxcap = capacity[i];
		}
	/* At most (1024 + 1) x 2 x 32 buckets: capacity is bounded. */
	x->nbuckets = (size_t) (x->maxcap + 1) * LEVELS * x->nmasks;
	x->nfwords = cosched_bitmap_words((size_t) x->maxcap);
	if (index_alloc(x) < 0)
		goto oom;
	for (size_t i = 0; i < nsockets; i++) {
		x->cap[i] = capacity ? capacity[i] : params->capacity;
		x->avail[i] = 1;
		x->bucket[i] = -1;
	}
	/* Every socket starts empty, all loads 0: pushing in socket order
	 * never sifts. */
	for (size_t i = 0; i < nsockets; i++) {
		long b = sock_bucket(x, i);
		if (bucket_reserve(x, b) < 0)
			goto oom;
		sock_attach(x, i, b);
	}
	return x;
oom:
	cosched_socket_index_free(x);
	cosched_error_set(err, "socket index: out of memory for %zu sockets",
			  nsockets);
	return NULL;
}

/* A heap's items into an empty heap of the copy (room for exactly them:
 * the copy grows where it changes). */
static int heap_copy(cosched_heap_t *to, const cosched_heap_t *from)
{
	if (from->n == 0)
		return 0;
	if (cosched_heap_reserve(to, from->n) < 0)
		return -1;
	memcpy(to->v, from->v, from->n * sizeof(*to->v));
	memcpy(to->k, from->k, from->n * sizeof(*to->k));
	to->n = from->n;
	return 0;
}

cosched_socket_index_t *cosched_socket_index_copy(
	const cosched_socket_index_t *x, cosched_error_t *err)
{
	cosched_socket_index_t *y;
	size_t n;

	if (!x) {
		cosched_error_set(err, "index: NULL");
		return NULL;
	}
	n = x->nsockets;
	y = malloc(sizeof(*y));
	if (!y) {
		cosched_error_set(err, "socket index: out of memory");
		return NULL;
	}
	*y = *x;
	if (index_alloc(y) < 0)
		goto oom;
	memcpy(y->cap, x->cap, n * sizeof(int));
	memcpy(y->used, x->used, n * sizeof(int));
	memcpy(y->foreign, x->foreign, n * sizeof(int));
	memcpy(y->napps, x->napps, n * sizeof(int));
	memcpy(y->catcount, x->catcount,
	       n * GANG_CAT_SLOTS * sizeof(unsigned));
	memcpy(y->avail, x->avail, n);
	memcpy(y->load, x->load, n * sizeof(double));
	if (x->cost)
		memcpy(y->cost, x->cost, n * GANG_CAT_SLOTS * sizeof(double));
	memcpy(y->bucket, x->bucket, n * sizeof(long));
	memcpy(y->fbits, x->fbits, ((size_t) x->maxcap + 1) * sizeof(uint64_t));
	memcpy(y->fany, x->fany, x->nfwords * sizeof(uint64_t));
	for (unsigned k = 0; k < x->nheaps; k++) {
		memcpy(y->order[k].pos, x->order[k].pos, n * sizeof(size_t));
		for (size_t b = 0; b < x->nbuckets; b++)
			if (heap_copy(&y->heaps[k][b], &x->heaps[k][b]) < 0)
				goto oom;
	}
	return y;
oom:
	cosched_socket_index_free(y);
	cosched_error_set(err, "socket index: out of memory copying %zu sockets",
			  n);
	return NULL;
}

void cosched_socket_index_free(cosched_socket_index_t *x)
{
	if (!x)
		return;
	for (unsigned k = 0; k < x->nheaps; k++) {
		if (x->heaps[k])
			for (size_t b = 0; b < x->nbuckets; b++)
				cosched_heap_free(&x->heaps[k][b]);
		free(x->heaps[k]);
		free(x->order[k].pos);
	}
	free(x->cost);
	free(x->fbits);
	free(x->fany);
	free(x->cap);
	free(x->used);
	free(x->foreign);
	free(x->napps);
	free(x->catcount);
	free(x->avail);
	free(x->load);
	free(x->bucket);
	free(x);
}

static void sock_agg(const cosched_socket_index_t *x, size_t s,
		     gang_socket_agg_t *a)
{
	a->capacity = x->cap[s];
	a->used = x->used[s];
	a->napps = x->napps[s];
	a->mask = sock_mask(x, s);
	a->load = x->load[s];
	a->catcount = x->cost ? &x->catcount[s * GANG_CAT_SLOTS] : NULL;
}

/* Refuse a query the index cannot answer (socket_index.h). */
static int check_query(const cosched_socket_index_t *x,
		       const cosched_gang_job_t *job, unsigned flags,
		       cosched_error_t *err)
{
	const unsigned known = COSCHED_INDEX_OCCUPIED_ONLY |
			       COSCHED_INDEX_FIRST_FIT;

	if (!x)
		return cosched_error_set(err, "index: NULL");
	if (flags & ~known)
		return cosched_error_set(err, "flags: unknown flags 0x%x",
					 flags & ~known);
	/* The heaps are ordered by (key, socket): for the Miss-Rate
	 * policies and min_slowdown a bucket's top is its lowest load or
	 * cost, not its lowest socket, so "lowest acceptable socket" cannot
	 * be read from it. */
	if ((flags & COSCHED_INDEX_FIRST_FIT) &&
	    !gang_index_by_socket(x->ctx.policy))
		return cosched_error_set(err,
			"flags: COSCHED_INDEX_FIRST_FIT is not available for %s (its index is ordered by %s, not by socket)",
			cosched_policy_name(x->ctx.policy),
			gang_policy_uses_load(x->ctx.policy) ? "MPKI load" :
			"predicted cost");
	return cosched_gang_job_check("job", job, x->maxcap, err);
}

/* A refused query's answer. */
static long query_invalid(cosched_candidate_t *best)
{
	if (best) {
		memset(best, 0, sizeof(*best));
		best->reject = COSCHED_REJECT_INVALID_QUERY;
	}
	return COSCHED_INDEX_INVALID;
}

/*
 * min_slowdown with a slowdown bound: the bucket's cheapest socket broke
 * the bound, but a dearer one may not (the bound is on the worst
 * slowdown, the order on the summed growth).  The bucket's best socket
 * within the bound, by a scan of its heap: O(bucket), paid only in strict
 * mode and only when the cheapest choice is refused.
 */
static bool bucket_best_within_bound(const cosched_socket_index_t *x,
				     const cosched_heap_t *h,
				     const cosched_gang_job_t *job,
				     cosched_candidate_t *out)
{
	bool found = false;

	for (size_t i = 0; i < h->n; i++) {
		gang_socket_agg_t a;
		cosched_candidate_t c;

		sock_agg(x, h->v[i], &a);
		gang_score_socket(&x->ctx, job, &a, h->v[i], &c);
		if (c.reject == COSCHED_REJECT_NONE &&
		    (!found || gang_cand_better(&c, out))) {
			*out = c;
			found = true;
		}
	}
	return found;
}

/* The answer of a checked query over the sockets now in buckets. */
static long index_query(const cosched_socket_index_t *x,
			const cosched_gang_job_t *job, unsigned flags,
			cosched_candidate_t *best)
{
	cosched_candidate_t c, b;
	bool found = false;
	bool first_fit = flags & COSCHED_INDEX_FIRST_FIT;
	/* Greedy Thread scores 1 wherever the requested threads fit, and
	 * leftover cores grow with the free cores: once a score-1 socket is
	 * found, sockets with more free cores are worse. */
	bool stop_early = !first_fit &&
		x->ctx.policy == COSCHED_POLICY_GREEDY_THREAD;
	uint64_t skip = 0;
	int need = gang_cores_needed(x->ctx.policy, job);
	/* The heaps whose tops can be the answer: every policy's all (at
	 * most two), min_slowdown's for the job's category (set per bucket
	 * below: an empty bucket has only heap 0). */
	unsigned h0 = 0, h1 = x->nheaps;

	if (flags & COSCHED_INDEX_OCCUPIED_ONLY)
		skip = (1ull << x->nmasks) - 1;	/* level 0: empty sockets */
	for (long f = cosched_bitmap_next(x->fany, x->nfwords, (size_t) need);
	     f >= 0; f = cosched_bitmap_next(x->fany, x->nfwords, (size_t) f + 1)) {
		uint64_t bits = x->fbits[f] & ~skip;
		size_t base = (size_t) f * LEVELS * x->nmasks;

		if (stop_early && found && b.score >= 1.0 &&
		    f - job->threads > b.leftover)
			break;
		while (bits) {
			size_t bk = base + (size_t) __builtin_ctzll(bits);

			bits &= bits - 1;
			if (bucket_nheaps(x, (long) bk) == 1) {
				h0 = 0;	/* min_slowdown's empty sockets */
				h1 = 1;
			} else if (x->cost) {
				h0 = gang_cat_slot(job->category);
				h1 = h0 + 1;
			}
			for (unsigned k = h0; k < h1; k++) {
				size_t top = cosched_heap_top(&x->heaps[k][bk]);
				gang_socket_agg_t a;

				if (top == COSCHED_HEAP_NONE)
					continue;
				sock_agg(x, top, &a);
				gang_score_socket(&x->ctx, job, &a, top, &c);
				if (c.reject == COSCHED_REJECT_SLOWDOWN_BOUND &&
				    bucket_best_within_bound(x, &x->heaps[k][bk],
							     job, &c))
					c.reject = COSCHED_REJECT_NONE;
				if (c.reject != COSCHED_REJECT_NONE)
					continue;
				if (!found ||
				    (first_fit ? c.socket < b.socket :
						 gang_cand_better(&c, &b))) {
					b = c;
					found = true;
				}
			}
		}
	}
	if (!found) {
		memset(&b, 0, sizeof(b));
		b.reject = COSCHED_REJECT_NO_SOCKET;
		b.need = need;
		b.cat_job = (cosched_category_t) gang_cat_slot(job->category);
		if (best)
			*best = b;
		return COSCHED_INDEX_NONE;
	}
	if (best)
		*best = b;
	return (long) b.socket;
}

long cosched_socket_index_best(cosched_socket_index_t *x,
			       const cosched_gang_job_t *job, unsigned flags,
			       cosched_candidate_t *best, cosched_error_t *err)
{
	if (check_query(x, job, flags, err) < 0)
		return query_invalid(best);
	return index_query(x, job, flags, best);
}

/*
 * The excluded sockets leave their buckets for the query and go back
 * after it.  Going back cannot fail: a heap keeps the room of the items it
 * lost.  A socket listed twice leaves once and goes back once; one in no
 * bucket (full, unavailable) stays in none.
 */
long cosched_socket_index_best_except(cosched_socket_index_t *x,
				      const cosched_gang_job_t *job,
				      unsigned flags, const size_t *exclude,
				      size_t nexclude,
				      cosched_candidate_t *best,
				      cosched_error_t *err)
{
	long r;

	if (check_query(x, job, flags, err) < 0)
		return query_invalid(best);
	if (nexclude > 0 && !exclude) {
		cosched_error_set(err, "exclude: NULL with %zu sockets",
				  nexclude);
		return query_invalid(best);
	}
	for (size_t i = 0; i < nexclude; i++)
		if (exclude[i] >= x->nsockets) {
			cosched_error_set(err,
				"exclude[%zu]: socket %zu out of range (%zu sockets)",
				i, exclude[i], x->nsockets);
			return query_invalid(best);
		}
	for (size_t i = 0; i < nexclude; i++)
		sock_detach(x, exclude[i]);
	r = index_query(x, job, flags, best);
	for (size_t i = 0; i < nexclude; i++)
		if (x->bucket[exclude[i]] < 0)
			sock_attach(x, exclude[i], sock_bucket(x, exclude[i]));
	return r;
}

static int index_update(cosched_socket_index_t *x, size_t s,
			const cosched_gang_job_t *job, int threads, int sign,
			cosched_error_t *err)
{
	unsigned cat, mask;
	int used, napps;
	long to;

	if (index_socket_check(x, s, err))
		return -1;
	if (!job)
		return cosched_error_set(err, "job: NULL");
	if (threads < 0)
		return cosched_error_set(err, "threads: must be >= 0, got %d",
					 threads);
	cat = gang_cat_slot(job->category);
	if (sign > 0 && x->used[s] + threads > x->cap[s])
		return cosched_error_set(err,
			"socket %zu: %d threads exceed its %d free cores", s,
			threads, x->cap[s] - x->used[s]);
	if (sign > 0 && gang_policy_uses_load(x->ctx.policy) &&
	    (!isfinite(job->mpki) || job->mpki < 0))
		return cosched_error_set(err,
			"job %u: MPKI must be a finite number >= 0, got %g",
			job->job_id, job->mpki);
	if (sign < 0 && (x->napps[s] == 0 ||
			 x->used[s] - x->foreign[s] < threads ||
			 x->catcount[s * GANG_CAT_SLOTS + cat] == 0))
		return cosched_error_set(err,
			"socket %zu: job %u (%d threads, %s) is not there", s,
			job->job_id, threads, cosched_category_name(job->category));
	/* Make room where the socket goes before it leaves where it is. */
	used = x->used[s] + sign * threads;
	napps = x->napps[s] + sign;
	mask = sock_mask(x, s);
	if (sign > 0)
		mask |= 1u << cat;
	else if (x->catcount[s * GANG_CAT_SLOTS + cat] == 1)
		mask &= ~(1u << cat);
	to = bucket_of(x, x->cap[s] - used, napps, mask, x->avail[s]);
	if (bucket_reserve(x, to) < 0)
		return cosched_error_set(err, "socket index: out of memory");
	sock_detach(x, s);
	x->used[s] = used;
	x->napps[s] = napps;
	x->catcount[s * GANG_CAT_SLOTS + cat] += sign;
	sock_costs(x, s);
	if (gang_policy_uses_load(x->ctx.policy)) {
		x->load[s] += sign * job->mpki;
		if (x->napps[s] == 0 || x->load[s] < 0)
			x->load[s] = 0;	/* no drift below an empty socket */
	}
	sock_attach(x, s, to);
	return 0;
}

int cosched_socket_index_add(cosched_socket_index_t *x, size_t socket,
			     const cosched_gang_job_t *job, int threads,
			     cosched_error_t *err)
{
	return index_update(x, socket, job, threads, +1, err);
}

int cosched_socket_index_remove(cosched_socket_index_t *x, size_t socket,
				const cosched_gang_job_t *job, int threads,
				cosched_error_t *err)
{
	return index_update(x, socket, job, threads, -1, err);
}

/* Foreign cores: used, no co-runner. */
static int index_foreign(cosched_socket_index_t *x, size_t s, int cores,
			 int sign, cosched_error_t *err)
{
	int used;
	long to;

	if (index_socket_check(x, s, err))
		return -1;
	if (cores < 0)
		return cosched_error_set(err, "cores: must be >= 0, got %d",
					 cores);
	if (sign > 0 && x->used[s] + cores > x->cap[s])
		return cosched_error_set(err,
			"socket %zu: %d foreign cores exceed its %d free cores", s,
			cores, x->cap[s] - x->used[s]);
	if (sign < 0 && x->foreign[s] < cores)
		return cosched_error_set(err,
			"socket %zu: %d foreign cores are not there (%d held)", s,
			cores, x->foreign[s]);
	used = x->used[s] + sign * cores;
	to = bucket_of(x, x->cap[s] - used, x->napps[s], sock_mask(x, s),
		       x->avail[s]);
	if (bucket_reserve(x, to) < 0)
		return cosched_error_set(err, "socket index: out of memory");
	sock_detach(x, s);
	x->used[s] = used;
	x->foreign[s] += sign * cores;
	sock_attach(x, s, to);
	return 0;
}

int cosched_socket_index_add_foreign(cosched_socket_index_t *x, size_t socket,
				     int cores, cosched_error_t *err)
{
	return index_foreign(x, socket, cores, +1, err);
}

int cosched_socket_index_remove_foreign(cosched_socket_index_t *x,
					size_t socket, int cores,
					cosched_error_t *err)
{
	return index_foreign(x, socket, cores, -1, err);
}

int cosched_socket_index_set_available(cosched_socket_index_t *x, size_t s,
				       bool available, cosched_error_t *err)
{
	long to;

	if (index_socket_check(x, s, err))
		return -1;
	if ((bool) x->avail[s] == available)
		return 0;
	to = bucket_of(x, x->cap[s] - x->used[s], x->napps[s],
		       sock_mask(x, s), available);
	if (bucket_reserve(x, to) < 0)
		return cosched_error_set(err, "socket index: out of memory");
	sock_detach(x, s);
	x->avail[s] = available;
	sock_attach(x, s, to);
	return 0;
}

bool cosched_socket_index_available(const cosched_socket_index_t *x,
				    size_t s)
{
	return x && s < x->nsockets && x->avail[s];
}

int cosched_socket_index_set_load(cosched_socket_index_t *x, size_t s,
				  double load, cosched_error_t *err)
{
	long b;

	if (index_socket_check(x, s, err))
		return -1;
	if (!isfinite(load) || load < 0)
		return cosched_error_set(err,
			"load: must be a finite number >= 0, got %g", load);
	if (!gang_policy_uses_load(x->ctx.policy))
		return 0;
	/* Same bucket: the heaps keep their room, nothing can fail. */
	b = x->bucket[s];
	sock_detach(x, s);
	x->load[s] = load;
	sock_attach(x, s, b);
	return 0;
}

int cosched_socket_index_free_cores(const cosched_socket_index_t *x,
				    size_t s)
{
	return x && s < x->nsockets ? x->cap[s] - x->used[s] : 0;
}

size_t cosched_socket_index_nsockets(const cosched_socket_index_t *x)
{
	return x ? x->nsockets : 0;
}

long cosched_socket_index_empty_units(const cosched_socket_index_t *x)
{
	long n = 0;

	if (!x)
		return 0;
	/* An empty socket has no category: level 0, mask 0 of its
	 * free-core count. */
	for (long f = cosched_bitmap_next(x->fany, x->nfwords, 1); f >= 0;
	     f = cosched_bitmap_next(x->fany, x->nfwords, (size_t) f + 1))
		n += (long) x->heaps[0][(size_t) f * LEVELS * x->nmasks].n;
	return n;
}

/* ---- the policy layer's access ------------------------------------- */

int gang_index_socket(const cosched_socket_index_t *x, size_t s,
		      gang_index_socket_t *out)
{
	if (!x || s >= x->nsockets)
		return -1;
	out->capacity = x->cap[s];
	out->used = x->used[s];
	out->foreign = x->foreign[s];
	out->napps = x->napps[s];
	memcpy(out->catcount, &x->catcount[s * GANG_CAT_SLOTS],
	       sizeof(out->catcount));
	out->load = x->load[s];
	out->available = x->avail[s];
	return 0;
}

void gang_index_raw(cosched_socket_index_t *x, gang_index_raw_t *raw)
{
	raw->nsockets = x->nsockets;
	raw->nbuckets = x->nbuckets;
	raw->per_free = (size_t) LEVELS * x->nmasks;
	raw->used = x->used;
	raw->napps = x->napps;
	raw->catcount = x->catcount;
	raw->load = x->load;
	raw->bucket = x->bucket;
	raw->minh = x->heaps[0];
	raw->min_order = &x->order[0];
	raw->fbits = x->fbits;
	raw->fany = x->fany;
}
