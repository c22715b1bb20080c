/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bitmap.h - a bitmap in 64-bit words, with "next set bit at or
 * after" (the socket index's map of non-empty buckets).
 */
#ifndef COSCHED_BITMAP_H
#define COSCHED_BITMAP_H

#include <stddef.h>
#include <stdint.h>

/* Words needed for nbits bits. */
static inline size_t cosched_bitmap_words(size_t nbits)
{
	return nbits / 64 + 1;
}

static inline void cosched_bitmap_set(uint64_t *w, size_t bit)
{
	w[bit / 64] |= 1ull << (bit % 64);
}

static inline void cosched_bitmap_clear(uint64_t *w, size_t bit)
{
	w[bit / 64] &= ~(1ull << (bit % 64));
}

/* The lowest set bit at or above from in nwords words, or -1. */
long cosched_bitmap_next(const uint64_t *w, size_t nwords, size_t from);

#endif
