/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched-app-rand - the "rand" representative of "Power-aware gang
 * scheduling on multicore" (NTUA thesis, 2013): an int array of half the
 * last-level cache, each element visited in random order over and over (the
 * thesis: 1000 times; here 16 x scale times by default, so a run is short),
 * each visit depending on the previous one (the array holds one random cycle
 * through all its elements, Sattolo's shuffle), so the prefetchers cannot
 * help and the program lives on LLC hits: alone its misses are few, next to
 * a program that streams through the LLC they go to memory.
 */
#include <stdio.h>
#include <stdlib.h>

#include "apps.h"

static const char usage[] =
	"usage: cosched-app-rand [--scale X] [--loop] [--llc SIZE] [--topology SRC]\n"
	"  seed 002's rand program: ints in half the LLC, 16 x X random visits each\n";

int main(int argc, char **argv)
{
	app_t a = { .name = "rand" };
	unsigned long long seed = 314159265ULL;

	app_parse(&a, argc, argv, NULL, NULL, usage);
	app_caches(&a);
	size_t n = a.llc / 2 / sizeof(unsigned);
	unsigned *next = app_alloc(n * sizeof(unsigned));
	for (size_t i = 0; i < n; i++)
		next[i] = (unsigned) i;
	for (size_t i = n - 1; i > 0; i--) {	/* Sattolo: one cycle */
		size_t j = app_rand(&seed) % i;
		unsigned t = next[i]; next[i] = next[j]; next[j] = t;
	}
	long long visits = (long long) (16.0 * a.scale * n);
	if (visits < 1)
		visits = 1;
	unsigned cur = 0;
	do {
		double w0 = app_wall(), c0 = app_cpu();

		for (long long v = 0; v < visits; v++)
			cur = next[cur];
		char note[64];
		snprintf(note, sizeof(note), "array_bytes=%zu",
			 n * sizeof(unsigned));
		app_report(&a, app_cpu() - c0, app_wall() - w0, (double) visits,
			   64.0 * visits, cur, note);
	} while (a.loop);
	return 0;
}
