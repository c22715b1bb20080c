/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * heap.h - an indexed binary heap of item numbers.
 *
 * Items are small integers (socket numbers) ordered by a key the owner
 * keeps in an array (key[item], the socket's MPKI load), lowest or highest
 * first, ties to the lower item number so the top is deterministic.  Each
 * order keeps, in pos[item], where the item sits, so an item can be
 * removed in O(log n).  An item is in at most one heap of an order at a
 * time (the socket index keeps one heap per bucket, and a socket is in one
 * bucket).  The key is read, not called: the heap sits on the placement
 * path of every job.
 */
#ifndef COSCHED_HEAP_H
#define COSCHED_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/* No item (an empty heap's top). */
#define COSCHED_HEAP_NONE ((size_t) -1)

typedef struct {
	const double *key;	/* key[item] */
	bool highest_first;
	size_t *pos;		/* pos[item]: its slot in the heap holding it */
} cosched_heap_order_t;

typedef struct {
	size_t *v;		/* items in heap order */
	double *k;		/* k[i]: v[i]'s key when it was put there */
	size_t n, cap;
} cosched_heap_t;

/*
 * The operations (inline: they sit on the placement path of every job):
 *
 * cosched_heap_reserve(h, want): room for at least want items; 0, or -1
 *   when out of memory (heap unchanged).
 * cosched_heap_free(h).
 * cosched_heap_push(h, o, item): add item; -1 when out of memory (heap
 *   unchanged); never fails after a cosched_heap_reserve() that made room.
 * cosched_heap_remove(h, o, item): remove item, which must be in h.
 * cosched_heap_update(h, o, item): item's key changed; item must be in h.
 * cosched_heap_top(h): the top item, or COSCHED_HEAP_NONE.
 *
 * The heap copies each item's key next to it (k) when the item is pushed
 * or updated, and compares those: the sifts then read two arrays in heap
 * order instead of key[] and pos[] at items spread over the owner's
 * arrays (the simulator's million jobs: a third fewer cache misses).  So
 * a key may change only while its item is out of the heap, or followed by
 * cosched_heap_update, as before.
 */

/* Whether (key ka, item a) goes before (kb, b). */
static inline bool cosched_heap_less_(const cosched_heap_order_t *o, double ka,
				      size_t a, double kb, size_t b)
{
	if (ka != kb)
		return o->highest_first ? ka > kb : ka < kb;
	return a < b;
}

/* Whether item a goes before item b by the owner's keys (self-checks). */
static inline bool cosched_heap_before_(const cosched_heap_order_t *o, size_t a, size_t b)
{
	return cosched_heap_less_(o, o->key[a], a, o->key[b], b);
}

static inline void cosched_heap_put_(cosched_heap_t *h, const cosched_heap_order_t *o, size_t i,
		size_t item, double key)
{
	h->v[i] = item;
	h->k[i] = key;
	o->pos[item] = i;
}

static inline void cosched_heap_sift_up_(cosched_heap_t *h, const cosched_heap_order_t *o,
		    size_t i)
{
	size_t item = h->v[i];
	double key = h->k[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!cosched_heap_less_(o, key, item, h->k[parent], h->v[parent]))
			break;
		cosched_heap_put_(h, o, i, h->v[parent], h->k[parent]);
		i = parent;
	}
	cosched_heap_put_(h, o, i, item, key);
}

static inline void cosched_heap_sift_down_(cosched_heap_t *h, const cosched_heap_order_t *o,
		      size_t i)
{
	size_t item = h->v[i];
	double key = h->k[i];

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = l;
		if (l >= h->n)
			break;
		if (r < h->n && cosched_heap_less_(o, h->k[r], h->v[r], h->k[l], h->v[l]))
			m = r;
		if (!cosched_heap_less_(o, h->k[m], h->v[m], key, item))
			break;
		cosched_heap_put_(h, o, i, h->v[m], h->k[m]);
		i = m;
	}
	cosched_heap_put_(h, o, i, item, key);
}

static inline int cosched_heap_reserve(cosched_heap_t *h, size_t want)
{
	size_t nc;
	size_t *nv;
	double *nk;

	if (want <= h->cap)
		return 0;
	nc = h->cap ? h->cap : 8;
	while (nc < want)
		nc *= 2;
	nv = realloc(h->v, nc * sizeof(*nv));
	if (!nv)
		return -1;
	h->v = nv;
	nk = realloc(h->k, nc * sizeof(*nk));
	if (!nk)
		return -1;	/* v is larger, still valid; cap unchanged */
	h->k = nk;
	h->cap = nc;
	return 0;
}

static inline void cosched_heap_free(cosched_heap_t *h)
{
	free(h->v);
	free(h->k);
	h->v = NULL;
	h->k = NULL;
	h->n = h->cap = 0;
}

static inline int cosched_heap_push(cosched_heap_t *h, const cosched_heap_order_t *o,
		      size_t item)
{
	if (cosched_heap_reserve(h, h->n + 1) < 0)
		return -1;
	h->v[h->n] = item;
	h->k[h->n++] = o->key[item];
	cosched_heap_sift_up_(h, o, h->n - 1);
	return 0;
}

static inline void cosched_heap_remove(cosched_heap_t *h, const cosched_heap_order_t *o,
			 size_t item)
{
	size_t i = o->pos[item], last;
	double last_key;

	--h->n;
	last = h->v[h->n];
	last_key = h->k[h->n];
	if (i == h->n)
		return;
	cosched_heap_put_(h, o, i, last, last_key);
	cosched_heap_sift_up_(h, o, i);
	cosched_heap_sift_down_(h, o, o->pos[last]);
}

/* In place, not remove then push: the simulator moves a job's completion
 * event each time its socket's occupants change (research/sim/sim_ss.c). */
static inline void cosched_heap_update(cosched_heap_t *h, const cosched_heap_order_t *o,
			 size_t item)
{
	size_t i = o->pos[item];

	h->k[i] = o->key[item];
	cosched_heap_sift_up_(h, o, i);
	cosched_heap_sift_down_(h, o, o->pos[item]);
}

static inline size_t cosched_heap_top(const cosched_heap_t *h)
{
	return h->n ? h->v[0] : COSCHED_HEAP_NONE;
}

#endif
