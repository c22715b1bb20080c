/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * random.h - the one pseudo-random generator of the core, for the
 * choices that must be random yet reproducible (Miss-Rate Bound's first
 * gangs, the NUMA manager's random victim order): the same seed gives the
 * same choices on every machine and in every release, so a simulator run
 * or a test is repeated exactly.
 *
 * splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): 64 bits of state, every seed usable
 * (0 included), well mixed from the first output, no library state.
 */
#ifndef COSCHED_RANDOM_H
#define COSCHED_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/* The next output; advances *state. */
uint64_t cosched_splitmix64(uint64_t *state);

/* A uniform double in [0, 1) from the next output's top 53 bits. */
double cosched_random_unit(uint64_t *state);

/*
 * Shuffle n elements of size bytes at base in place (Fisher-Yates, from
 * the end: element i - 1 swaps with element splitmix64 % i, i = n .. 2),
 * starting from seed.  The reduction keeps its small modulo bias on
 * purpose: the documented reproduction figures were computed with it.
 */
void cosched_shuffle(void *base, size_t n, size_t size, uint64_t seed);

#endif
