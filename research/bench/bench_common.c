/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_common.c - what the C benchmarks share (bench_common.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_common.h"

double bench_ms(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

long bench_arg(const char *prog, const char *s, long lo, long hi,
	       const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "%s: %s: invalid value \"%.40s\" (%ld..%ld)\n",
			prog, what, s, lo, hi);
		exit(2);
	}
	return v;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return x < y ? -1 : x > y;
}

void bench_print(const char *what, int width, int decimals, double *t,
		 int n)
{
	qsort(t, (size_t) n, sizeof(*t), dcmp);	/* median, range */
	printf("  %-*s median %9.*f ms  range %9.*f .. %9.*f ms\n", width, what,
	       decimals, t[n / 2], decimals, t[0], decimals, t[n - 1]);
}

void bench_print_ratio(const char *prefix, const char *a_name,
		       const double *a, const char *b_name, const double *b,
		       int n)
{
	printf("  %s%s/%s median %.3f, worst %s / best %s %.3f\n", prefix,
	       a_name, b_name, a[n / 2] / b[n / 2], a_name, b_name,
	       a[n - 1] / b[0]);
}
