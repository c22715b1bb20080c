/*
 * opts.h - option values of the co-run commands, checked with messages
 * that name the option and quote the value (exit status 2).
 */
#ifndef COSCHED_CORUN_OPTS_H
#define COSCHED_CORUN_OPTS_H

#include <stdio.h>
#include <stdlib.h>

#include "src/libcosched/cosched_number.h"
#include "src/libcosched/cosched_text.h"

static inline void opt_bad(const char *prog, const char *opt, const char *val,
			   const char *expected)
{
	char q[COSCHED_QUOTE_BUF];

	fprintf(stderr, "%s: invalid value %s for --%s: expected %s\n", prog,
		cosched_quote(q, sizeof(q), val), opt, expected);
	exit(2);
}

/* A number in [lo, hi] (plain decimal). */
static inline double opt_num(const char *prog, const char *opt,
			     const char *val, double lo, double hi,
			     const char *expected)
{
	double v;

	if (cosched_parse_number(val, &v) || !(v >= lo && v <= hi))
		opt_bad(prog, opt, val, expected);
	return v;
}

#endif
