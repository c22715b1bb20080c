/*
 * bench_common.h - what the C benchmarks (cosched-bench-live,
 * cosched-bench-learner) share: a clock in milliseconds, a checked
 * numeric argument, and sorting repeats for their median and range.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <time.h>

/* clock (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID...) in milliseconds. */
double bench_ms(clockid_t clock);

/* s as a decimal integer in lo..hi, else "PROG: WHAT: invalid value "S"
 * (LO..HI)" on stderr and exit status 2. */
long bench_arg(const char *prog, const char *s, long lo, long hi,
	       const char *what);

/* t[0..n) in ascending order: t[n / 2] the median, t[0]..t[n - 1] the
 * range. */
void bench_sort(double *t, int n);

#endif
