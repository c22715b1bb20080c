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

void bench_sort(double *t, int n)
{
	qsort(t, (size_t) n, sizeof(*t), dcmp);
}
