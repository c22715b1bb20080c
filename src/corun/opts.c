/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opts.c - the options of the co-run commands (opts.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"
#include "opts.h"

void opt_bad(const char *prog, const char *opt, const char *val,
	     const char *expected)
{
	char q[COSCHED_QUOTE_BUF];

	fprintf(stderr, "%s: invalid value %s for --%s: expected %s\n", prog,
		cosched_quote(q, sizeof(q), val), opt, expected);
	exit(2);
}

double opt_num(const char *prog, const char *opt, const char *val, double lo,
	       double hi, const char *expected)
{
	double v;

	if (cosched_parse_number(val, &v) || !(v >= lo && v <= hi))
		opt_bad(prog, opt, val, expected);
	return v;
}

void corun_opts_init(corun_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	o->repeats = 3;
	o->scale = "1";
	o->apps = corun_apps_dir_default();
	o->topology = "system";
	o->warmup = 0.2;
	o->timeout = 300.0;
}

/* A size in bytes with an optional K, M or G (the programs' --llc). */
static void size_check(const char *prog, const char *val)
{
	const char *p = val;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == val || (*p && (!strchr("KMGkmg", *p) || p[1])) ||
	    atof(val) <= 0)
		opt_bad(prog, "llc", val,
			"a size in bytes with an optional K, M or G");
}

int corun_opts_take(corun_opts_t *o, const char *prog, int c,
		    const char *arg)
{
	switch (c) {
	case 'r':
		o->repeats = (int) opt_num(prog, "repeats", arg, 3,
			CORUN_REPEATS_MAX,
			"an integer from 3 to 1000 (a median needs 3)");
		if (o->repeats != atof(arg))
			opt_bad(prog, "repeats", arg, "an integer from 3 to 1000");
		return 1;
	case 's':
		opt_num(prog, "scale", arg, 1e-6, 1e6,
			"a number above 0 and at most 1e6");
		o->scale = arg;
		return 1;
	case 'c':
		o->cpus = arg;
		return 1;
	case 'a':
		o->apps = arg;
		return 1;
	case 'l':
		size_check(prog, arg);
		o->llc = arg;
		return 1;
	case 't':
		o->topology = arg;
		return 1;
	case 'w':
		o->warmup = opt_num(prog, "warmup", arg, 0, 60,
				    "seconds from 0 to 60");
		return 1;
	case 'T':
		o->timeout = opt_num(prog, "timeout", arg, 1, 86400,
				     "seconds from 1 to 86400");
		return 1;
	case 'j':
		o->json = 1;
		return 1;
	case 'q':
		o->quiet = 1;
		return 1;
	default:
		return 0;
	}
}

int corun_opts_unknown(const char *prog, const char *arg, const char *usage)
{
	fprintf(stderr, "%s: unknown option or missing value: %s\n%s", prog,
		arg, usage);
	return 2;
}
