/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched-app-cpu - the "cpu" representative of "Power-aware gang scheduling
 * on multicore" (NTUA thesis, 2013) (NAS ep.A in the seed): its working set
 * fits in L1 and it only computes.  The kernel is ep's: pairs of uniform
 * pseudo-random numbers, the Gaussian deviates of the pairs inside the unit
 * circle (Marsaglia's polar method), counted in ten annuli.  Work: 2^24 x
 * scale pairs.
 */
#include <math.h>
#include <stdio.h>

#include "apps.h"

static const char usage[] =
	"usage: cosched-app-cpu [--scale X] [--loop]\n"
	"  seed 002's cpu program: 2^24 x X Gaussian pairs, all in L1\n";

int main(int argc, char **argv)
{
	app_t a = { .name = "cpu" };
	unsigned long long seed = 271828183ULL;
	double q[10] = { 0 };

	app_parse(&a, argc, argv, NULL, NULL, usage);
	long long n = (long long) (16777216.0 * a.scale);
	if (n < 1)
		n = 1;
	do {
		double w0 = app_wall(), c0 = app_cpu(), sx = 0.0, sy = 0.0;

		for (long long i = 0; i < n; i++) {
			double x = 2.0 * (app_rand(&seed) >> 11) * 0x1p-53 - 1.0;
			double y = 2.0 * (app_rand(&seed) >> 11) * 0x1p-53 - 1.0;
			double t = x * x + y * y;

			if (t <= 1.0 && t > 0.0) {
				double f = sqrt(-2.0 * log(t) / t);
				double gx = x * f, gy = y * f;
				int l = (int) fmax(fabs(gx), fabs(gy));

				if (l < 10)
					q[l] += 1.0;
				sx += gx;
				sy += gy;
			}
		}
		app_report(&a, app_cpu() - c0, app_wall() - w0, (double) n,
			   0.0, sx + sy + q[0], NULL);
	} while (a.loop);
	return 0;
}
