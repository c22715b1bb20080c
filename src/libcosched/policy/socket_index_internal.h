/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * socket_index_internal.h - the socket index's layout, shared by
 * its operations (policy/socket_index.c), its self-check
 * (policy/socket_index_check.c) and its reader of a socket's room
 * (policy/socket_index_room.c).  Not installed; the policy layer reads
 * the index through gang_index_socket, gang_index_socket_room and
 * gang_index_raw.
 */
#ifndef COSCHED_SOCKET_INDEX_INTERNAL_H
#define COSCHED_SOCKET_INDEX_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "src/libcosched/policy/gang_internal.h"
#include "src/libcosched/policy/heap.h"

#define LEVELS 2		/* 0 = empty socket, 1 = occupied, not full */
#define HEAPS_MAX GANG_CAT_SLOTS	/* orders per bucket, at most */

struct cosched_socket_index {
	gang_score_ctx_t ctx;
	size_t nsockets;
	int maxcap;
	unsigned nmasks;	/* GANG_MASK_COUNT (Application-Aware) or 1 */
	/* Heaps per bucket, one per order: 1 by lowest load; Miss-Rate
	 * Balance 2, by highest load too; min_slowdown GANG_CAT_SLOTS, by
	 * lowest cost[k] for a job of slot k. */
	unsigned nheaps;
	int *cap;
	int *used;		/* by anything: co-runners and foreign */
	int *foreign;		/* by foreign holders (part of used) */
	int *napps;		/* co-runners */
	unsigned *catcount;	/* GANG_CAT_SLOTS per socket */
	unsigned char *avail;	/* 0 = unavailable: in no bucket */
	double *load;
	double *cost;		/* min_slowdown: cost[k * nsockets + s], a job of
				 * slot k joining socket s (gang_join_cost) */
	long *bucket;		/* -1 = in no bucket (never acceptable) */
	size_t nbuckets;
	cosched_heap_t *heaps[HEAPS_MAX];	/* per order: nbuckets heaps */
	cosched_heap_order_t order[HEAPS_MAX];
	/* Non-empty buckets: bit (level x nmasks + mask) of fbits[free
	 * cores] (LEVELS x GANG_MASK_COUNT = 64 bits), and bit f of fany
	 * when fbits[f] != 0. */
	uint64_t *fbits;
	uint64_t *fany;
	size_t nfwords;
};

static inline unsigned sock_mask(const cosched_socket_index_t *x, size_t s)
{
	unsigned m = 0;

	for (unsigned c = 0; c < GANG_CAT_SLOTS; c++)
		if (x->catcount[s * GANG_CAT_SLOTS + c])
			m |= 1u << c;
	return m;
}

/* The bucket of a socket in the given state, or -1 when no job can be
 * accepted there. */
static inline long bucket_of(const cosched_socket_index_t *x, int free_cores,
		      int napps, unsigned mask, bool avail)
{
	if (!avail || free_cores <= 0)
		return -1;
	if (x->ctx.max_apps > 0 && napps >= x->ctx.max_apps)
		return -1;
	return ((long) free_cores * LEVELS + (napps > 0)) * (long) x->nmasks +
	       (x->nmasks > 1 ? (long) mask : 0);
}

static inline long sock_bucket(const cosched_socket_index_t *x, size_t s)
{
	return bucket_of(x, x->cap[s] - x->used[s], x->napps[s],
			 sock_mask(x, s), x->avail[s]);
}

/* The heaps bucket b keeps.  An empty socket costs min_slowdown nothing
 * whatever arrives, so its per-category heaps would all be in socket
 * order: an empty bucket keeps heap 0 only (at 300,000 sockets, most of
 * them empty, that is four heap updates of five saved per job). */
static inline unsigned bucket_nheaps(const cosched_socket_index_t *x, long b)
{
	if (x->cost && ((size_t) b / x->nmasks) % LEVELS == 0)
		return 1;
	return x->nheaps;
}

#endif
