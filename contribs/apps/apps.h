/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apps.h - what the representative programs share (contribs/apps):
 * options, cache sizes from the node's topology, timing and the one
 * result line.
 *
 * Every program does a fixed amount of work (--scale multiplies it) and
 * prints one line on stdout, key=value pairs separated by blanks:
 *
 *   app=mem cpu_s=0.512345 wall_s=0.520001 work=... bytes=... bw_mbs=... check=...
 *
 * cpu_s is the CPU time of the timed kernel (setup excluded), the figure
 * the co-run commands compare: unlike wall time it is not inflated when
 * another process takes the CPU, but it grows with every stall on a
 * shared cache or the memory link.  --loop repeats the kernel until the
 * program is killed (a co-runner) and prints a line per repeat.
 * Bad options exit 2 with a message naming the option and the value.
 */
#ifndef COSCHED_APPS_H
#define COSCHED_APPS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
	const char *name;		/* "cpu", "lim", ... */
	double scale;			/* --scale, > 0 */
	bool loop;			/* --loop */
	const char *topology;		/* --topology (cosched.conf Topology=) */
	unsigned long long l2, llc;	/* --l2, --llc (bytes); 0 = topology */
} app_t;

/* Common options: --scale X, --loop, --topology SRC, --l2 SIZE, --llc SIZE,
 * --help.  extra (may be NULL) handles a program's own options: it gets
 * the option's name and value and returns 0, or -1 after printing the
 * error.  usage is the program's usage text.  Exits on error. */
typedef int (*app_extra_fn)(const char *opt, const char *val);
void app_parse(app_t *a, int argc, char **argv, const char *const *extra_opts,
	       app_extra_fn extra, const char *usage);

/* A size: bytes, or with a K, M or G suffix (powers of 1024). */
int app_parse_size(const char *s, unsigned long long *out);
/* Complain about an option's value and exit 2. */
void app_bad(const char *prog, const char *opt, const char *val,
	     const char *expected);

/* The L2 and last-level cache sizes (options, else the topology, else a
 * fallback of 1 MiB and 32 MiB with a note on stderr). */
void app_caches(app_t *a);

/* Aligned, touched memory (exits on failure). */
void *app_alloc(size_t bytes);

/* Monotonic wall time and the process's CPU time, seconds. */
double app_wall(void);
double app_cpu(void);

/* Print the result line; extra (may be NULL) is appended. */
void app_report(const app_t *a, double cpu_s, double wall_s, double work,
		double bytes, double check, const char *extra);

/* A small, fast pseudo-random generator (xorshift64*). */
static inline unsigned long long app_rand(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

#endif
