/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * socket_index_check.c - the socket index's self-check: every
 * socket in the bucket its state says and in each of that bucket's heaps,
 * every heap in order, the bitmaps of non-empty buckets exact (as hwloc's
 * hwloc_topology_check: tests and fuzzers call it after every update).
 */
#include <math.h>
#include <stddef.h>

#include "src/libcosched/policy/socket_index_internal.h"

/* One heap of bucket b: items in range, each in bucket b at the slot its
 * position says, none before its parent. */
static int check_heap(const cosched_socket_index_t *x, size_t b,
		      const cosched_heap_t *h, const cosched_heap_order_t *o,
		      const char *which, cosched_error_t *err)
{
	if (h->n > h->cap)
		return cosched_error_set(err,
			"bucket %zu: %s heap holds %zu items in room for %zu", b,
			which, h->n, h->cap);
	for (size_t i = 0; i < h->n; i++) {
		size_t item = h->v[i];

		if (item >= x->nsockets)
			return cosched_error_set(err,
				"bucket %zu: %s heap slot %zu holds socket %zu (%zu sockets)",
				b, which, i, item, x->nsockets);
		if (x->bucket[item] != (long) b)
			return cosched_error_set(err,
				"bucket %zu: %s heap holds socket %zu, which is in bucket %ld",
				b, which, item, x->bucket[item]);
		if (o->pos[item] != i)
			return cosched_error_set(err,
				"bucket %zu: %s heap holds socket %zu at slot %zu, its position says %zu",
				b, which, item, i, o->pos[item]);
		if (h->k[i] != o->key[item])
			return cosched_error_set(err,
				"bucket %zu: %s heap holds socket %zu with key %g, its key is %g",
				b, which, item, h->k[i], o->key[item]);
		if (i > 0 && cosched_heap_before_(o, item, h->v[(i - 1) / 2]))
			return cosched_error_set(err,
				"bucket %zu: %s heap order broken: socket %zu (key %g) sits below socket %zu (key %g) and goes before it",
				b, which, item, o->key[item], h->v[(i - 1) / 2],
				o->key[h->v[(i - 1) / 2]]);
	}
	return 0;
}

int cosched_socket_index_check(const cosched_socket_index_t *x,
			       cosched_error_t *err)
{
	size_t per_f, attached = 0, held = 0;

	if (!x)
		return cosched_error_set(err, "index: NULL");
	per_f = (size_t) LEVELS * x->nmasks;
	for (size_t s = 0; s < x->nsockets; s++) {
		unsigned apps = 0;
		long want;

		for (unsigned c = 0; c < GANG_CAT_SLOTS; c++)
			apps += x->catcount[s * GANG_CAT_SLOTS + c];
		if (x->cap[s] < 1 || x->cap[s] > x->maxcap)
			return cosched_error_set(err,
				"socket %zu: capacity %d outside [1, %d]", s,
				x->cap[s], x->maxcap);
		if (x->foreign[s] < 0 || x->used[s] < x->foreign[s] ||
		    x->used[s] > x->cap[s])
			return cosched_error_set(err,
				"socket %zu: %d cores used, %d of them foreign, of %d",
				s, x->used[s], x->foreign[s], x->cap[s]);
		if (x->napps[s] < 0 || (unsigned) x->napps[s] != apps)
			return cosched_error_set(err,
				"socket %zu: %d applications, its category counts add up to %u",
				s, x->napps[s], apps);
		if (!isfinite(x->load[s]) || x->load[s] < 0 ||
		    (!gang_policy_uses_load(x->ctx.policy) && x->load[s] != 0))
			return cosched_error_set(err,
				"socket %zu: load %g", s, x->load[s]);
		want = sock_bucket(x, s);
		if (x->bucket[s] != want)
			return cosched_error_set(err,
				"socket %zu: in bucket %ld, its state (%d of %d cores used, %d applications, categories 0x%x, %savailable) says %ld",
				s, x->bucket[s], x->used[s], x->cap[s], x->napps[s],
				sock_mask(x, s), x->avail[s] ? "" : "not ", want);
		for (unsigned k = 0; x->cost && k < GANG_CAT_SLOTS; k++)
			if (x->cost[k * x->nsockets + s] !=
			    gang_join_cost(&x->ctx, k,
					   &x->catcount[s * GANG_CAT_SLOTS]))
				return cosched_error_set(err,
					"socket %zu: cost %g for category slot %u, its counts say %g",
					s, x->cost[k * x->nsockets + s], k,
					gang_join_cost(&x->ctx, k,
						&x->catcount[s * GANG_CAT_SLOTS]));
		if (want < 0)
			continue;
		attached++;
		for (unsigned k = 0; k < bucket_nheaps(x, want); k++)
			if (x->order[k].pos[s] >= x->heaps[k][want].n ||
			    x->heaps[k][want].v[x->order[k].pos[s]] != s)
				return cosched_error_set(err,
					"socket %zu: not in heap %u of its bucket %ld",
					s, k, want);
	}
	for (size_t b = 0; b < x->nbuckets; b++) {
		size_t f = b / per_f;
		bool marked = x->fbits[f] & (1ull << (b % per_f));

		static const char *const names[HEAPS_MAX] = {
			"min", "max", "third", "fourth", "fifth" };

		for (unsigned k = 0; k < x->nheaps; k++) {
			size_t want_n = k < bucket_nheaps(x, (long) b) ?
					x->heaps[0][b].n : 0;

			if (check_heap(x, b, &x->heaps[k][b], &x->order[k],
				       x->cost ? "cost" : names[k], err) < 0)
				return -1;
			if (x->heaps[k][b].n != want_n)
				return cosched_error_set(err,
					"bucket %zu: %zu sockets in heap %u, %zu expected",
					b, x->heaps[k][b].n, k, want_n);
		}
		held += x->heaps[0][b].n;
		if (marked != (x->heaps[0][b].n > 0))
			return cosched_error_set(err,
				"bucket %zu: %zu sockets, marked %s in the bitmap of %zu free cores",
				b, x->heaps[0][b].n, marked ? "non-empty" : "empty", f);
	}
	if (held != attached)
		return cosched_error_set(err,
			"%zu sockets in heaps, %zu in buckets", held, attached);
	for (size_t f = 0; f <= (size_t) x->maxcap; f++) {
		bool any = x->fany[f / 64] & (1ull << (f % 64));

		if (per_f < 64 && (x->fbits[f] >> per_f))
			return cosched_error_set(err,
				"free cores %zu: bitmap 0x%llx marks buckets that do not exist",
				f, (unsigned long long) x->fbits[f]);
		if (any != (x->fbits[f] != 0))
			return cosched_error_set(err,
				"free cores %zu: marked %s, its buckets are %s", f,
				any ? "non-empty" : "empty",
				x->fbits[f] ? "not all empty" : "all empty");
	}
	for (size_t f = (size_t) x->maxcap + 1; f < x->nfwords * 64; f++)
		if (x->fany[f / 64] & (1ull << (f % 64)))
			return cosched_error_set(err,
				"free cores %zu: marked, beyond the largest capacity %d",
				f, x->maxcap);
	return 0;
}
