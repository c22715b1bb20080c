/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_common.h - what the C benchmarks (cosched-bench-live,
 * cosched-bench-learner) share: a clock in milliseconds, a checked
 * numeric argument, and repeats printed as a median and a range, and
 * two sets of them against each other.
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

/* t sorted, then "  WHAT median M ms  range LO .. HI ms", WHAT in width
 * columns, the times with decimals places. */
void bench_print(const char *what, int width, int decimals, double *t,
		 int n);

/* Two sets of n repeats, each sorted (bench_print), set against each
 * other: "  PREFIXA/B median M, worst A / best B W" (the ratio of the
 * medians, and a's worst over b's best, so that ranges that overlap
 * show). */
void bench_print_ratio(const char *prefix, const char *a_name,
		       const double *a, const char *b_name, const double *b,
		       int n);

#endif
