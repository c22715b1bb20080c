/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched-app-lim and cosched-app-mem - the "lim" and "mem" representatives
 * of "Power-aware gang scheduling on multicore" (NTUA thesis, 2013):
 * STREAM-like passes over three arrays of the size of the last-level cache
 * each (3 x LLC in all, so every pass streams from memory, the prefetchers
 * helping).
 *
 *   mem: a[i] = b[i] + s x c[i], 1 arithmetic operation per element moved
 *        (the 2013 gang-scheduling thesis: STREAM at ~80% bandwidth, 1 op
 *        per transaction)
 *   lim: a[i] = p(b[i], c[i]), 10 operations per element
 *        (the 2013 gang-scheduling thesis: STREAM at ~25% bandwidth, 10
 *        ops per transaction)
 *
 * One binary; the name it is called by (or --kind) chooses.  Work: 6 GiB
 * x scale moved (mem) and 1.5 GiB x scale (lim), whole passes, so both
 * take a similar time alone.  --ops N changes lim's operations per
 * element.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps.h"

static int ops = 10;
static const char *kind;

static const char usage[] =
	"usage: cosched-app-mem|cosched-app-lim [--scale X] [--loop]\n"
	"       [--llc SIZE] [--topology SRC] [--ops N] [--kind lim|mem]\n"
	"  seed 002's mem (1 op per element) and lim (10 ops) STREAM programs\n"
	"  over 3 arrays of the LLC's size each (at least 16 MiB)\n";

static int extra(const char *opt, const char *val)
{
	if (!strcmp(opt, "ops")) {
		char *end;
		long v = strtol(val, &end, 10);
		if (*val < '0' || *val > '9' || *end || v < 1 || v > 1000)
			app_bad("cosched-app", opt, val,
				"an integer from 1 to 1000");
		ops = (int) v;
		return 0;
	}
	if (strcmp(val, "lim") && strcmp(val, "mem"))
		app_bad("cosched-app", opt, val, "lim or mem");
	kind = val;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const extra_opts[] = { "ops", "kind", NULL };
	app_t a = { 0 };
	const char *base = strrchr(argv[0], '/');

	base = base ? base + 1 : argv[0];
	kind = strstr(base, "lim") ? "lim" : "mem";
	app_parse(&a, argc, argv, extra_opts, extra, usage);
	a.name = kind;
	bool lim = !strcmp(kind, "lim");
	app_caches(&a);
	/* 3 x LLC in all, and at least 3 x 16 MiB: the arrays must exceed the
	 * LLC even when --llc says less than the topology */
	size_t n = (a.llc > (16u << 20) ? a.llc : (16u << 20)) / sizeof(double);
	double *x = app_alloc(n * sizeof(double));
	double *y = app_alloc(n * sizeof(double));
	double *z = app_alloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		y[i] = 1.0 + (double) (i & 7) * 1e-3;
		z[i] = 0.5;
	}
	/* Work in bytes moved (6 GiB x scale for mem, 1.5 GiB x scale for
	 * lim, about a quarter of a second each alone on the development
	 * machines), whatever the array size. */
	double traffic = (lim ? 1.5 : 6.0) * 1073741824.0 * a.scale;
	long long passes = (long long) (traffic / (3.0 * n * sizeof(double)) + 0.5);
	if (passes < 1)
		passes = 1;
	do {
		double w0 = app_wall(), c0 = app_cpu();

		for (long long p = 0; p < passes; p++) {
			if (!lim) {
				for (size_t i = 0; i < n; i++)
					x[i] = y[i] + 0.5 * z[i];
			} else {
				for (size_t i = 0; i < n; i++) {
					double b = y[i], r = z[i];
					/* ops - 2 dependent multiply-adds
					 * (Horner's rule) and a division */
					for (int k = 2; k < ops; k++)
						r = r * b + 0.25;
					x[i] = r / (1.0 + fabs(r));	/* bounded */
				}
			}
			double *t = x; x = y; y = t;	/* no pass is dead */
		}
		char note[64];
		snprintf(note, sizeof(note), "ops=%d array_bytes=%zu",
			 lim ? ops : 1, n * sizeof(double));
		app_report(&a, app_cpu() - c0, app_wall() - w0,
			   (double) passes * n, 3.0 * passes * n * sizeof(double),
			   x[n / 3] + y[n / 2], note);
	} while (a.loop);
	return 0;
}
