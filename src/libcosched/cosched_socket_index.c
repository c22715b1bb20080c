/*
 * cosched_socket_index.c - the best socket for an arriving job, without
 * scanning every socket.
 *
 * A socket's score for a job depends only on its free cores, whether it is
 * empty, its categories present (Application-Aware only) and its MPI load
 * (Miss-Rate policies only); how many applications it holds matters only
 * for "gang full", and full sockets are kept out of the index.  So sockets
 * are kept in buckets by (free cores, empty or occupied, category mask),
 * where every socket of a bucket scores alike except by load: each bucket is
 * an indexed binary heap by (load, socket), plus a max-heap by load for
 * Miss-Rate Balance (its score is extreme at either end).  A query reads
 * one or two heap tops per non-empty bucket, found through bitmaps: one
 * 64-bit word of non-empty buckets per free-core count and a bitmap of the
 * free-core counts that have any.
 *
 * Updates are all or nothing: the heaps of the bucket a socket moves to
 * are grown before it leaves its old one, so a failed update (out of
 * memory) leaves the index as it was.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_bitmap.h"
#include "cosched_gang_internal.h"
#include "cosched_heap.h"

#define LEVELS 2		/* 0 = empty socket, 1 = occupied, not full */

struct cosched_socket_index {
	gang_score_ctx_t ctx;
	size_t nsockets;
	int maxcap;
	unsigned nmasks;	/* GANG_MASK_COUNT (Application-Aware) or 1 */
	bool with_max;
	int *cap, *used, *napps;
	unsigned *catcount;	/* GANG_CAT_SLOTS per socket */
	double *load;
	long *bucket;		/* -1 = in no bucket (never acceptable) */
	size_t nbuckets;
	cosched_heap_t *minh, *maxh;
	cosched_heap_order_t by_min, by_max;
	/* Non-empty buckets: bit (level x nmasks + mask) of fbits[free
	 * cores] (LEVELS x GANG_MASK_COUNT = 64 bits), and bit f of fany
	 * when fbits[f] != 0. */
	uint64_t *fbits;
	uint64_t *fany;
	size_t nfwords;
};

static unsigned sock_mask(const cosched_socket_index_t *x, size_t s)
{
	unsigned m = 0;

	for (unsigned c = 0; c < GANG_CAT_SLOTS; c++)
		if (x->catcount[s * GANG_CAT_SLOTS + c])
			m |= 1u << c;
	return m;
}

/* The bucket of a socket in the given state, or -1 when no job can be
 * accepted there. */
static long bucket_of(const cosched_socket_index_t *x, int free_cores,
		      int napps, unsigned mask)
{
	if (free_cores <= 0)
		return -1;
	if (x->ctx.max_apps > 0 && napps >= x->ctx.max_apps)
		return -1;
	return ((long) free_cores * LEVELS + (napps > 0)) * (long) x->nmasks +
	       (x->nmasks > 1 ? (long) mask : 0);
}

static long sock_bucket(const cosched_socket_index_t *x, size_t s)
{
	return bucket_of(x, x->cap[s] - x->used[s], x->napps[s],
			 sock_mask(x, s));
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
	if (cosched_heap_reserve(&x->minh[b], x->minh[b].n + 1) < 0)
		return -1;
	if (x->with_max &&
	    cosched_heap_reserve(&x->maxh[b], x->maxh[b].n + 1) < 0)
		return -1;
	return 0;
}

static void sock_detach(cosched_socket_index_t *x, size_t s)
{
	long b = x->bucket[s];

	if (b < 0)
		return;
	cosched_heap_remove(&x->minh[b], &x->by_min, s);
	if (x->with_max)
		cosched_heap_remove(&x->maxh[b], &x->by_max, s);
	if (x->minh[b].n == 0)
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
	(void) cosched_heap_push(&x->minh[b], &x->by_min, s);
	if (x->with_max)
		(void) cosched_heap_push(&x->maxh[b], &x->by_max, s);
	if (x->minh[b].n == 1)
		bucket_mark(x, b, true);
}

cosched_socket_index_t *cosched_socket_index_create(
	cosched_policy_t policy, const cosched_gang_params_t *params,
	size_t nsockets, const int *capacity, cosched_error_t *err)
{
	cosched_socket_index_t *x;

	if (cosched_policy_check("policy", policy, err) < 0 ||
	    cosched_gang_params_check(params, err) < 0)
		return NULL;
	x = calloc(1, sizeof(*x));
	if (!x) {
		cosched_error_set(err, "socket index: out of memory");
		return NULL;
	}
	gang_score_ctx_init(&x->ctx, policy, params);
	x->nsockets = nsockets;
	x->maxcap = params->capacity;
	/* Only Application-Aware's score reads the categories present. */
	x->nmasks = policy == COSCHED_POLICY_APP_AWARE ? GANG_MASK_COUNT : 1;
	x->with_max = policy == COSCHED_POLICY_MISS_RATE_BALANCE;
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
	x->cap = malloc(nsockets * sizeof(int) + 1);
	x->used = calloc(nsockets + 1, sizeof(int));
	x->napps = calloc(nsockets + 1, sizeof(int));
	x->catcount = calloc(nsockets * GANG_CAT_SLOTS + 1, sizeof(unsigned));
	x->load = calloc(nsockets + 1, sizeof(double));
	x->bucket = malloc(nsockets * sizeof(long) + 1);
	x->by_min.pos = malloc(nsockets * sizeof(size_t) + 1);
	x->by_max.pos = malloc(nsockets * sizeof(size_t) + 1);
	x->minh = calloc(x->nbuckets, sizeof(cosched_heap_t));
	x->maxh = x->with_max ? calloc(x->nbuckets, sizeof(cosched_heap_t)) :
				NULL;
	x->fbits = calloc((size_t) x->maxcap + 1, sizeof(uint64_t));
	x->fany = calloc(x->nfwords, sizeof(uint64_t));
	/* Heaps by (load, socket), lowest or highest load first. */
	x->by_min = (cosched_heap_order_t) { x->load, false, x->by_min.pos };
	x->by_max = (cosched_heap_order_t) { x->load, true, x->by_max.pos };
	if (!x->cap || !x->used || !x->napps || !x->catcount || !x->load ||
	    !x->bucket || !x->by_min.pos || !x->by_max.pos || !x->minh ||
	    (x->with_max && !x->maxh) || !x->fbits || !x->fany)
		goto oom;
	for (size_t i = 0; i < nsockets; i++) {
		x->cap[i] = capacity ? capacity[i] : params->capacity;
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

void cosched_socket_index_free(cosched_socket_index_t *x)
{
	if (!x)
		return;
	if (x->minh)
		for (size_t b = 0; b < x->nbuckets; b++)
			cosched_heap_free(&x->minh[b]);
	if (x->maxh)
		for (size_t b = 0; b < x->nbuckets; b++)
			cosched_heap_free(&x->maxh[b]);
	free(x->minh);
	free(x->maxh);
	free(x->fbits);
	free(x->fany);
	free(x->cap);
	free(x->used);
	free(x->napps);
	free(x->catcount);
	free(x->load);
	free(x->bucket);
	free(x->by_min.pos);
	free(x->by_max.pos);
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
}

int cosched_socket_index_check_query(const cosched_socket_index_t *x,
				     const cosched_gang_job_t *job,
				     unsigned flags, cosched_error_t *err)
{
	const unsigned known = COSCHED_INDEX_OCCUPIED_ONLY |
			       COSCHED_INDEX_FIRST_FIT;

	if (!x)
		return cosched_error_set(err, "index: NULL");
	if (flags & ~known)
		return cosched_error_set(err, "flags: unknown flags 0x%x",
					 flags & ~known);
	/* The heaps are ordered by (load, socket): for the Miss-Rate
	 * policies a bucket's top is its lowest load, not its lowest
	 * socket, so "lowest acceptable socket" cannot be read from it. */
	if ((flags & COSCHED_INDEX_FIRST_FIT) &&
	    gang_policy_uses_load(x->ctx.policy))
		return cosched_error_set(err,
			"flags: COSCHED_INDEX_FIRST_FIT is not available for %s (its index is ordered by MPI load, not by socket)",
			cosched_policy_name(x->ctx.policy));
	return cosched_gang_job_check("job", job, x->maxcap, err);
}

long gang_index_best_except(cosched_socket_index_t *x,
			    const cosched_gang_job_t *job, unsigned flags,
			    size_t except, cosched_candidate_t *best,
			    cosched_error_t *err)
{
	cosched_candidate_t c, b;
	bool found = false;
	bool first_fit = flags & COSCHED_INDEX_FIRST_FIT;
	/* Greedy Thread scores 1 wherever the requested threads fit, and
	 * leftover cores grow with the free cores: once a score-1 socket is
	 * found, sockets with more free cores are worse. */
	bool stop_early = !first_fit &&
		x && x->ctx.policy == COSCHED_POLICY_GREEDY_THREAD;
	uint64_t skip = 0;
	int need;

	if (cosched_socket_index_check_query(x, job, flags, err) < 0) {
		if (best) {
			memset(best, 0, sizeof(*best));
			best->reject = COSCHED_REJECT_INVALID_QUERY;
		}
		return COSCHED_INDEX_INVALID;
	}
	need = gang_cores_needed(x->ctx.policy, job);
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
			size_t tops[2];

			bits &= bits - 1;
			tops[0] = cosched_heap_top_except(&x->minh[bk],
							  &x->by_min, except);
			tops[1] = x->with_max ?
				cosched_heap_top_except(&x->maxh[bk],
							&x->by_max, except) :
				COSCHED_HEAP_NONE;
			for (int k = 0; k < 2; k++) {
				gang_socket_agg_t a;

				if (tops[k] == COSCHED_HEAP_NONE)
					continue;
				sock_agg(x, tops[k], &a);
				gang_score_socket(&x->ctx, job, &a, tops[k], &c);
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
	return gang_index_best_except(x, job, flags, GANG_NONE, best, err);
}

static int index_update(cosched_socket_index_t *x, size_t s,
			const cosched_gang_job_t *job, int threads, int sign,
			cosched_error_t *err)
{
	unsigned cat, mask;
	int used, napps;
	long to;

	if (!x)
		return cosched_error_set(err, "index: NULL");
	if (s >= x->nsockets)
		return cosched_error_set(err,
			"socket: %zu out of range (%zu sockets)", s, x->nsockets);
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
	if (sign < 0 && (x->napps[s] == 0 || x->used[s] < threads ||
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
	to = bucket_of(x, x->cap[s] - used, napps, mask);
	if (bucket_reserve(x, to) < 0)
		return cosched_error_set(err, "socket index: out of memory");
	sock_detach(x, s);
	x->used[s] = used;
	x->napps[s] = napps;
	x->catcount[s * GANG_CAT_SLOTS + cat] += sign;
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

int cosched_socket_index_set_load(cosched_socket_index_t *x, size_t s,
				  double load, cosched_error_t *err)
{
	long b;

	if (!x)
		return cosched_error_set(err, "index: NULL");
	if (s >= x->nsockets)
		return cosched_error_set(err,
			"socket: %zu out of range (%zu sockets)", s, x->nsockets);
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
	return s < x->nsockets ? x->cap[s] - x->used[s] : 0;
}
