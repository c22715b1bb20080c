/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decisions.c - the running jobs' decision records by job id
 * (model/decisions.h): open addressing, linear probing, deletion by
 * backward shift, as the occupancy's ledger (policy/occupancy.c).  Each
 * record is the first cosched_decision_size() bytes of its
 * cosched_decision_t, copied out and back with memcpy.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/model/decisions.h"

typedef struct {
	uint32_t job_id;	/* 0: free */
	size_t size;		/* of bytes */
	unsigned char *bytes;	/* the record's first size bytes */
} kept_t;

struct cosched_decisions {
	kept_t *slots;		/* nslots, a power of two, at most half used */
	size_t nslots, count;
};

#define MIN_SLOTS 64

static size_t slot_home(size_t nslots, uint32_t id)
{
	uint64_t h = (uint64_t) id * 0x9e3779b97f4a7c15ull;

	return (size_t) (h ^ (h >> 32)) & (nslots - 1);
}

/* The slot holding id, or the free slot where it would go. */
static size_t slot_of(const cosched_decisions_t *t, uint32_t id)
{
	size_t mask = t->nslots - 1, i = slot_home(t->nslots, id);

	while (t->slots[i].job_id && t->slots[i].job_id != id)
		i = (i + 1) & mask;
	return i;
}

static const kept_t *find(const cosched_decisions_t *t, uint32_t id)
{
	const kept_t *k;

	if (!t || !id)
		return NULL;
	k = &t->slots[slot_of(t, id)];
	return k->job_id ? k : NULL;
}

/* Empty slot i; later entries of its run move back where their home
 * allows, so every entry stays reachable without tombstones. */
static void slot_delete(cosched_decisions_t *t, size_t i)
{
	size_t mask = t->nslots - 1, j = i;

	free(t->slots[i].bytes);
	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (!t->slots[j].job_id)
			break;
		k = slot_home(t->nslots, t->slots[j].job_id);
		/* The entry at j stays when its home is cyclically in
		 * (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t->slots[i] = t->slots[j];
		i = j;
	}
	memset(&t->slots[i], 0, sizeof(t->slots[i]));
	t->count--;
}

/* Room for one more at most half the slots used: 0, or -1 when out of
 * memory (t unchanged). */
static int reserve_one(cosched_decisions_t *t)
{
	size_t n = t->nslots * 2;
	kept_t *ns;

	if (t->count + 1 <= t->nslots / 2)
		return 0;
	if (n > ((size_t) -1) / sizeof(*ns) || !(ns = calloc(n, sizeof(*ns))))
		return -1;
	for (size_t i = 0; i < t->nslots; i++) {
		size_t j;

		if (!t->slots[i].job_id)
			continue;
		for (j = slot_home(n, t->slots[i].job_id); ns[j].job_id;
		     j = (j + 1) & (n - 1))
			;
		ns[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = ns;
	t->nslots = n;
	return 0;
}

cosched_decisions_t *cosched_decisions_create(void)
{
	cosched_decisions_t *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nslots = MIN_SLOTS;
	if (!(t->slots = calloc(t->nslots, sizeof(*t->slots)))) {
		free(t);
		return NULL;
	}
	return t;
}

void cosched_decisions_free(cosched_decisions_t *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nslots; i++)
		free(t->slots[i].bytes);
	free(t->slots);
	free(t);
}

int cosched_decisions_put(cosched_decisions_t *t, const cosched_decision_t *d)
{
	size_t size = cosched_decision_size(d), i;
	unsigned char *bytes;

	if (!t || !d->job_id || !(bytes = malloc(size)))
		return -1;
	memcpy(bytes, d, size);
	i = slot_of(t, d->job_id);
	if (!t->slots[i].job_id) {
		if (reserve_one(t)) {
			free(bytes);
			return -1;
		}
		i = slot_of(t, d->job_id);
		t->count++;
	}
	free(t->slots[i].bytes);
	t->slots[i] = (kept_t) { .job_id = d->job_id, .size = size,
				 .bytes = bytes };
	return 0;
}

bool cosched_decisions_get(const cosched_decisions_t *t, uint32_t job_id,
			   cosched_decision_t *d)
{
	const kept_t *k = find(t, job_id);

	if (k && d)
		memcpy(d, k->bytes, k->size);
	return k != NULL;
}

bool cosched_decisions_set_slowdown(cosched_decisions_t *t, uint32_t job_id,
				    double slowdown)
{
	const kept_t *k = find(t, job_id);

	if (k)
		memcpy(k->bytes + offsetof(cosched_decision_t, slowdown),
		       &slowdown, sizeof(slowdown));
	return k != NULL;
}

bool cosched_decisions_drop(cosched_decisions_t *t, uint32_t job_id)
{
	if (!find(t, job_id))
		return false;
	slot_delete(t, slot_of(t, job_id));
	return true;
}

size_t cosched_decisions_retain(cosched_decisions_t *t,
				bool (*keep)(uint32_t job_id, void *arg),
				void *arg)
{
	size_t gone = 0;

	if (!t)
		return 0;
	/* A deletion moves a later entry of the run back into slot i (or
	 * one already seen, from the run's wrapped start): i is looked at
	 * again, and no entry not yet seen moves before it. */
	for (size_t i = 0; i < t->nslots;) {
		if (t->slots[i].job_id && !keep(t->slots[i].job_id, arg)) {
			slot_delete(t, i);
			gone++;
		} else {
			i++;
		}
	}
	return gone;
}

size_t cosched_decisions_count(const cosched_decisions_t *t)
{
	return t ? t->count : 0;
}
