/* SPDX-License-Identifier: GPL-2.0-or-later */
/* base/random.c - splitmix64 and the shuffle built on it. */
#include <string.h>

#include "src/libcosched/base/random.h"

uint64_t cosched_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double cosched_random_unit(uint64_t *state)
{
	return (double) (cosched_splitmix64(state) >> 11) / 9007199254740992.0;
}

/* Swap two elements of size bytes byte by byte: the callers' elements are
 * small, and no buffer is needed for any size. */
static void swap_bytes(unsigned char *a, unsigned char *b, size_t size)
{
	for (size_t k = 0; k < size; k++) {
		unsigned char t = a[k];

		a[k] = b[k];
		b[k] = t;
	}
}

void cosched_shuffle(void *base, size_t n, size_t size, uint64_t seed)
{
	unsigned char *e = base;
	uint64_t state = seed;

	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t) (cosched_splitmix64(&state) % i);

		if (j != i - 1)
			swap_bytes(e + (i - 1) * size, e + j * size, size);
	}
}
