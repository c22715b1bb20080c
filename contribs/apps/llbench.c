/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched-llbench - the linked-list microbenchmark ("The microbenchmark") of
 * "Effects of co-scheduling applications on multicore architectures" (NTUA
 * thesis, 2014): 1..8 independent linked lists ("streams") walked together,
 * so their loads overlap.  Each node is one 64-byte cache line (7 longs of
 * padding and the next pointer).  Sequential lists link node i to i + 1 (the
 * prefetchers follow); random lists are one random cycle through all their
 * nodes (Sattolo's shuffle).  The total size S is split into n lists of S/n;
 * each iteration advances every list by one node.
 *
 * Sizes by name, from the machine's caches (the topology, or --l2 and
 * --llc), following the thesis's rule of thumb that a data set reliably fits
 * a level only below about half of it:
 *   L2   = L2 / 2                    (seed: 204 KB on a 256 KB L2)
 *   L3s  = max(2 x L2, LLC / 16)     (beyond L2, small part of the LLC)
 *   L3m  = max(4 x L2, LLC / 8)
 *   L3l  = LLC / 2                   (seed: 13 MB of a 20 MB LLC)
 *   MEM  = max(4 x LLC, 128 MB)      (seed: 128 MB)
 * or a size in bytes (K, M, G suffixes).  Work: 2^24 x scale node visits
 * in all, whatever the size and the number of streams.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "apps.h"

struct node {
	long pad[7];
	struct node *next;
};

static const char *size_arg = "L3l", *order = "rand";
static int streams = 1;

static const char usage[] =
	"usage: cosched-llbench [--size L2|L3s|L3m|L3l|MEM|BYTES] [--streams 1..8]\n"
	"       [--order seq|rand] [--scale X] [--loop] [--l2 SIZE] [--llc SIZE]\n"
	"       [--topology SRC]\n"
	"  seed 001's linked-list microbenchmark: 2^24 x X node visits\n";

static int extra(const char *opt, const char *val)
{
	if (!strcmp(opt, "streams")) {
		char *end;
		long v = strtol(val, &end, 10);
		if (*val < '0' || *val > '9' || *end || v < 1 || v > 8)
			app_bad("cosched-llbench", opt, val,
				"an integer from 1 to 8");
		streams = (int) v;
	} else if (!strcmp(opt, "order")) {
		if (strcmp(val, "seq") && strcmp(val, "rand"))
			app_bad("cosched-llbench", opt, val, "seq or rand");
		order = val;
	} else {
		static const char *const names[] = { "L2", "L3s", "L3m", "L3l",
						     "MEM", NULL };
		unsigned long long b;
		int ok = !app_parse_size(val, &b) && b >= 64 * 8;
		for (int i = 0; names[i] && !ok; i++)
			ok = !strcasecmp(val, names[i]);
		if (!ok)
			app_bad("cosched-llbench", opt, val,
				"L2, L3s, L3m, L3l, MEM or a size of at least 512 bytes");
		size_arg = val;
	}
	return 0;
}

static unsigned long long max2(unsigned long long a, unsigned long long b)
{
	return a > b ? a : b;
}

int main(int argc, char **argv)
{
	static const char *const extra_opts[] = { "size", "streams", "order",
						  NULL };
	app_t a = { .name = "llbench" };
	unsigned long long seed = 161803398ULL, bytes;

	app_parse(&a, argc, argv, extra_opts, extra, usage);
	app_caches(&a);
	if (!strcasecmp(size_arg, "L2"))
		bytes = a.l2 / 2;
	else if (!strcasecmp(size_arg, "L3s"))
		bytes = max2(2 * a.l2, a.llc / 16);
	else if (!strcasecmp(size_arg, "L3m"))
		bytes = max2(4 * a.l2, a.llc / 8);
	else if (!strcasecmp(size_arg, "L3l"))
		bytes = a.llc / 2;
	else if (!strcasecmp(size_arg, "MEM"))
		bytes = max2(4 * a.llc, 128ULL << 20);
	else
		app_parse_size(size_arg, &bytes);
	size_t per = bytes / sizeof(struct node) / streams;
	if (per < 1)
		per = 1;
	bool rnd = !strcmp(order, "rand");
	struct node *nodes = app_alloc(per * streams * sizeof(struct node));
	struct node *head[8];
	size_t *perm = malloc(per * sizeof(size_t));
	if (!perm)
		return 1;
	for (int s = 0; s < streams; s++) {
		struct node *l = nodes + (size_t) s * per;
		for (size_t i = 0; i < per; i++)
			perm[i] = i;
		if (rnd)
			for (size_t i = per - 1; i > 0; i--) {
				size_t j = app_rand(&seed) % i, t = perm[i];
				perm[i] = perm[j];
				perm[j] = t;
			}
		/* seq: i -> i + 1; rand: the permutation's cycle */
		for (size_t i = 0; i < per; i++)
			l[i].next = rnd ? &l[perm[i]] : &l[(i + 1) % per];
		head[s] = l;
	}
	free(perm);
	long long iters = (long long) (16777216.0 * a.scale / streams);
	if (iters < 1)
		iters = 1;
	do {
		double w0 = app_wall(), c0 = app_cpu();

		for (long long it = 0; it < iters; it++)
			for (int s = 0; s < streams; s++)
				head[s] = head[s]->next;
		char note[160];
		snprintf(note, sizeof(note),
			 "size=%s order=%s streams=%d list_bytes=%zu name=%s_%dStr_%s",
			 size_arg, order, streams, per * streams * sizeof(struct node),
			 size_arg, streams, rnd ? "rdm" : "seq");
		app_report(&a, app_cpu() - c0, app_wall() - w0,
			   (double) iters * streams, 64.0 * iters * streams,
			   (double) (head[0]->pad[0] + (long) (head[0] - nodes)),
			   note);
	} while (a.loop);
	return 0;
}
