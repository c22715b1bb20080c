/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy/bitmap.c - next set bit in a bitmap of 64-bit words. */
#include "src/libcosched/policy/bitmap.h"

long cosched_bitmap_next(const uint64_t *w, size_t nwords, size_t from)
{
	size_t i = from / 64;
	uint64_t cur;

	if (i >= nwords)
		return -1;
	cur = w[i] & (~0ull << (from % 64));
	for (;;) {
		if (cur)
			return (long) (i * 64 + (size_t) __builtin_ctzll(cur));
		if (++i >= nwords)
			return -1;
		cur = w[i];
	}
}
