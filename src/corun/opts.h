/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opts.h - the options of the co-run commands (cosched-calibrate(8),
 * cosched-characterise(8)): the ones both take, parsed and checked once
 * here, and the checks of a value, with messages that name the option and
 * quote the value (exit status 2).
 */
#ifndef COSCHED_CORUN_OPTS_H
#define COSCHED_CORUN_OPTS_H

#include <getopt.h>

#include "corun.h"

#define CORUN_REPEATS_MAX 1000

/* What the options both commands take say, or their defaults. */
typedef struct {
	int repeats;		/* --repeats N: 3 .. CORUN_REPEATS_MAX */
	const char *scale;	/* --scale X, as given (the programs take it) */
	const char *cpus;	/* --cpus A,B; NULL: two picked */
	const char *apps;	/* --apps DIR */
	const char *llc;	/* --llc SIZE; NULL: the topology's */
	const char *topology;	/* --topology SRC */
	double warmup;		/* --warmup S */
	double timeout;		/* --timeout S */
	int json, quiet;	/* --json, --quiet */
} corun_opts_t;

/* Their getopt_long entries, to open a command's own table with. */
#define CORUN_OPTIONS \
	{ "repeats", required_argument, NULL, 'r' }, \
	{ "scale", required_argument, NULL, 's' }, \
	{ "cpus", required_argument, NULL, 'c' }, \
	{ "apps", required_argument, NULL, 'a' }, \
	{ "llc", required_argument, NULL, 'l' }, \
	{ "topology", required_argument, NULL, 't' }, \
	{ "warmup", required_argument, NULL, 'w' }, \
	{ "timeout", required_argument, NULL, 'T' }, \
	{ "json", no_argument, NULL, 'j' }, \
	{ "quiet", no_argument, NULL, 'q' }

/* The defaults: 3 repeats, scale 1, CPUs picked, the installed programs,
 * their own LLC size, Topology "system", 0.2 s warm-up, 300 s timeout. */
void corun_opts_init(corun_opts_t *o);

/* getopt_long's answer c with its argument, when c is one of
 * CORUN_OPTIONS: taken (1), or the command exits 2 saying why the value
 * is wrong.  0: c is none of them, the command's own or unknown. */
int corun_opts_take(corun_opts_t *o, const char *prog, int c,
		    const char *arg);

/* An option getopt_long did not know or found without its value (arg, as
 * typed): said with the usage on stderr; returns 2, the exit status. */
int corun_opts_unknown(const char *prog, const char *arg, const char *usage);

/* Print "PROG: invalid value VAL for --OPT: expected EXPECTED" (the value
 * quoted and cut) and exit 2. */
void opt_bad(const char *prog, const char *opt, const char *val,
	     const char *expected) __attribute__((noreturn));

/* A number in [lo, hi] (plain decimal), or opt_bad(). */
double opt_num(const char *prog, const char *opt, const char *val, double lo,
	       double hi, const char *expected);

#endif
