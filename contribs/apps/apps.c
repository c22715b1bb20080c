/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apps.c - shared parts of the representative programs (see apps.h).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#include "src/node/topology.h"
#include "apps.h"

void app_bad(const char *prog, const char *opt, const char *val,
	     const char *expected)
{
	fprintf(stderr, "%s: invalid value '%s' for --%s: expected %s\n",
		prog, val, opt, expected);
	exit(2);
}

/* A positive number (plain decimal). */
static int app_parse_pos(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || strpbrk(s, "xXnNiI"))	/* no hex, nan, inf */
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v <= 0.0)
		return -1;
	*out = v;
	return 0;
}

int app_parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v, mul = 1;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'K': case 'k': mul = 1ULL << 10; end++; break;
	case 'M': case 'm': mul = 1ULL << 20; end++; break;
	case 'G': case 'g': mul = 1ULL << 30; end++; break;
	default: break;
	}
	if (*end || v == 0 || v > (1ULL << 40) / mul)
		return -1;
	*out = v * mul;
	return 0;
}

void app_parse(app_t *a, int argc, char **argv, const char *const *extra_opts,
	       app_extra_fn extra, const char *usage)
{
	struct option opts[32] = {
		{ "scale", required_argument, NULL, 's' },
		{ "loop", no_argument, NULL, 'L' },
		{ "topology", required_argument, NULL, 't' },
		{ "l2", required_argument, NULL, '2' },
		{ "llc", required_argument, NULL, '3' },
		{ "help", no_argument, NULL, 'h' },
	};
	int n = 6, c, idx;

	a->scale = 1.0;
	a->loop = false;
	a->topology = "system";
	a->l2 = a->llc = 0;
	for (int i = 0; extra_opts && extra_opts[i] && n < 31; i++, n++)
		opts[n] = (struct option) { extra_opts[i], required_argument,
					    NULL, 'x' };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, &idx)) != -1) {
		const char *name = c == '?' ? NULL : opts[idx].name;
		switch (c) {
		case 's':
			if (app_parse_pos(optarg, &a->scale) || a->scale > 1e6)
				app_bad(argv[0], name, optarg,
					"a number above 0 and at most 1e6");
			break;
		case 'L':
			a->loop = true;
			break;
		case 't':
			a->topology = optarg;
			break;
		case '2':
		case '3':
			if (app_parse_size(optarg, c == '2' ? &a->l2 : &a->llc))
				app_bad(argv[0], name, optarg,
					"a size in bytes (suffix K, M or G)");
			break;
		case 'h':
			printf("%s", usage);
			exit(0);
		case 'x':
			if (extra(name, optarg))
				exit(2);
			break;
		default:
			fprintf(stderr, "%s: unknown option or missing value: %s\n%s",
				argv[0], argv[optind - 1], usage);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n%s", argv[0],
			argv[optind], usage);
		exit(2);
	}
}

void app_caches(app_t *a)
{
	cosched_error_t err;
	cosched_cache_sizes_t c = { 0 };
	cosched_topology_t *t = NULL;

	if (!a->l2 || !a->llc) {
		t = cosched_topology_load(a->topology, &err);
		if (t) {
			cosched_topology_caches(t, &c);
			cosched_topology_free(t);
		} else {
			fprintf(stderr, "%s: topology: %s\n", a->name, err.msg);
		}
	}
	if (!a->l2)
		a->l2 = c.l2;
	if (!a->llc)
		a->llc = c.llc;
	if (!a->l2 || !a->llc) {
		fprintf(stderr, "%s: cache sizes unknown (topology %s): "
			"assuming L2 1M, LLC 32M; set --l2 and --llc\n",
			a->name, a->topology);
		if (!a->l2)
			a->l2 = 1ULL << 20;
		if (!a->llc)
			a->llc = 32ULL << 20;
	}
}

void *app_alloc(size_t bytes)
{
	void *p = NULL;

	size_t align = 2u << 20;	/* transparent huge pages where offered */

	if (posix_memalign(&p, align, bytes ? bytes : 64)) {
		fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
		exit(1);
	}
	/* The programs measure caches and the memory link, not the TLB
	 * (the microbenchmark of "Effects of co-scheduling applications on
	 * multicore architectures" (NTUA thesis, 2014) used 4 KiB pages, but
	 * its largest random list was 128 MB): ask for huge pages, a hint the
	 * kernel may ignore (THP "never"). */
	(void) madvise(p, bytes, MADV_HUGEPAGE);
	memset(p, 0, bytes);
	return p;
}

double app_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double app_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void app_report(const app_t *a, double cpu_s, double wall_s, double work,
		double bytes, double check, const char *extra)
{
	printf("app=%s cpu_s=%.6f wall_s=%.6f work=%.0f bytes=%.0f "
	       "bw_mbs=%.1f check=%.6g%s%s\n", a->name, cpu_s, wall_s, work,
	       bytes, cpu_s > 0 ? bytes / cpu_s / 1e6 : 0.0, check,
	       extra ? " " : "", extra ? extra : "");
	fflush(stdout);
}
