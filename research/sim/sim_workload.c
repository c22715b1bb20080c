/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_workload.c - the workload text format of cosched-sim(1), the
 * artificial workload of "Power-aware gang scheduling on multicore" (NTUA
 * thesis, 2013), and workloads drawn like it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "research/sim/sim.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"

#define LINE_MAX_BYTES 4096
#define COUNT_MAX 100000
#define MHZ_MAX 100000
#define SOLO_MAX 1e9

int sim_workload_add(sim_workload_t *w, const sim_app_t *a,
		     cosched_error_t *err)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		sim_app_t *p = realloc(w->apps, cap * sizeof(*p));
		if (!p)
			return cosched_error_set(err, "workload: out of memory");
		w->apps = p;
		w->cap = cap;
	}
	w->apps[w->n++] = *a;
	return 0;
}

void sim_workload_free(sim_workload_t *w)
{
	free(w->apps);
	memset(w, 0, sizeof(*w));
}

/* "FILE:LINE: field NAME: " + message; returns -1. */
static int bad(cosched_error_t *err, const char *fname, int line,
	       const char *field, const char *fmt, const char *val)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, COSCHED_QUOTE(val));
	return cosched_error_set(err, "%s:%d: field %s: %s", fname, line,
				 field, msg);
}

static int get_int(const char *fname, int line, const char *field,
		   const char *s, long lo, long hi, long *out,
		   cosched_error_t *err)
{
	char range[96];

	if (cosched_parse_long(s, out) < 0)
		return bad(err, fname, line, field, "%s is not an integer", s);
	if (*out < lo || *out > hi) {
		snprintf(range, sizeof(range), "%%s out of range (%ld..%ld)",
			 lo, hi);
		return bad(err, fname, line, field, range, s);
	}
	return 0;
}

static int get_num(const char *fname, int line, const char *field,
		   const char *s, double lo, bool lo_open, double hi,
		   double *out, cosched_error_t *err)
{
	char range[96];

	if (cosched_parse_number(s, out) < 0)
		return bad(err, fname, line, field, "%s is not a number", s);
	if (*out < lo || (lo_open && *out == lo) || *out > hi) {
		snprintf(range, sizeof(range), "%%s out of range (%s%g..%g)",
			 lo_open ? ">" : "", lo, hi);
		return bad(err, fname, line, field, range, s);
	}
	return 0;
}

static const char *const field_names[] = {
	"name", "threads", "mpki", "mhz", "category", "solo_s"
};

static int parse_line(char *s, const char *fname, int line, int capacity,
		      sim_workload_t *w, cosched_error_t *err)
{
	char *tok[32], *save = NULL;
	int ntok = 0;
	sim_app_t a;
	long v, count = 1;
	long tmax = capacity > 0 ? capacity : COSCHED_GANG_MAX_CAPACITY;

	for (char *t = strtok_r(s, " \t\r", &save); t;
	     t = strtok_r(NULL, " \t\r", &save)) {
		if (ntok == 32)
			return cosched_error_set(err,
				"%s:%d: more than 32 fields", fname, line);
		tok[ntok++] = t;
	}
	if (ntok == 0)
		return 0;
	if (ntok < 6)
		return cosched_error_set(err,
			"%s:%d: field %s: missing (a line is NAME THREADS MPKI "
			"MHZ CATEGORY SOLO_S [key=value...])", fname, line,
			field_names[ntok]);
	memset(&a, 0, sizeof(a));
	a.line = line;
	if (strlen(tok[0]) > SIM_NAME_MAX)
		return bad(err, fname, line, "name", "%s is longer than 63 bytes",
			   tok[0]);
	for (const char *p = tok[0]; *p; p++)
		if (*p < 0x21 || *p > 0x7e || *p == '=')
			return bad(err, fname, line, "name",
				   "%s: printable characters only, no '='",
				   tok[0]);
	strcpy(a.name, tok[0]);
	if (get_int(fname, line, "threads", tok[1], 1, tmax, &v, err) < 0)
		return -1;
	a.threads = a.min_threads = a.max_threads = (int)v;
	if (get_num(fname, line, "mpki", tok[2], 0, false, 1000, &a.mpki,
		    err) < 0)
		return -1;
	if (get_int(fname, line, "mhz", tok[3], 1, MHZ_MAX, &a.mhz, err) < 0)
		return -1;
	{
		cosched_error_t e2;
		if (cosched_category_parse("category", tok[4], &a.cat, &e2) < 0)
			return bad(err, fname, line, "category",
				   "%s is not one of cpu, lim, mem, rand",
				   tok[4]);
	}
	if (get_num(fname, line, "solo_s", tok[5], 0, true, SOLO_MAX,
		    &a.solo_s, err) < 0)
		return -1;
	for (int k = 6; k < ntok; k++) {
		char *eq = strchr(tok[k], '=');
		if (!eq)
			return bad(err, fname, line, "options",
				   "%s is not key=value (submit, min, max, count)",
				   tok[k]);
		*eq = '\0';
		const char *key = tok[k], *val = eq + 1;
		if (!strcmp(key, "submit")) {
			if (get_num(fname, line, "submit", val, 0, false, 1e12,
				    &a.submit_s, err) < 0)
				return -1;
		} else if (!strcmp(key, "min")) {
			if (get_int(fname, line, "min", val, 1, tmax, &v, err) < 0)
				return -1;
			a.min_threads = (int)v;
		} else if (!strcmp(key, "max")) {
			if (get_int(fname, line, "max", val, 1, tmax, &v, err) < 0)
				return -1;
			a.max_threads = (int)v;
		} else if (!strcmp(key, "count")) {
			if (get_int(fname, line, "count", val, 1, COUNT_MAX,
				    &count, err) < 0)
				return -1;
		} else {
			return bad(err, fname, line, key,
				   "unknown key %s (submit, min, max, count)", key);
		}
	}
	if (a.min_threads > a.threads)
		return cosched_error_set(err,
			"%s:%d: field min: %d is above threads %d", fname, line,
			a.min_threads, a.threads);
	if (a.max_threads < a.threads)
		return cosched_error_set(err,
			"%s:%d: field max: %d is below threads %d", fname, line,
			a.max_threads, a.threads);
	for (long c = 0; c < count; c++) {
		sim_app_t b = a;
		if (count > 1)
			snprintf(b.name, sizeof(b.name), "%.40s.%ld", a.name, c + 1);
		if (sim_workload_add(w, &b, err) < 0)
			return -1;
	}
	return 0;
}

static int cmp_name(const void *a, const void *b, void *ctx)
{
	const sim_app_t *apps = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(apps[x].name, apps[y].name);

	return c ? c : (x > y) - (x < y);
}

/* Names are the applications' keys (JSON "apps", the timeline): the
 * first repeat in file order is refused with both lines.  Sorted, not
 * compared pairwise: count= makes 10^5 applications from one line. */
static int check_unique_names(const sim_workload_t *w, const char *fname,
			      cosched_error_t *err)
{
	size_t *idx = malloc(w->n * sizeof(*idx)), dup = SIZE_MAX, orig = 0;

	if (!idx)
		return cosched_error_set(err, "workload: out of memory");
	for (size_t i = 0; i < w->n; i++)
		idx[i] = i;
	qsort_r(idx, w->n, sizeof(*idx), cmp_name, w->apps);
	for (size_t i = 1; i < w->n; i++)
		if (!strcmp(w->apps[idx[i]].name, w->apps[idx[i - 1]].name) &&
		    (dup == SIZE_MAX || idx[i] < dup)) {
			/* Equal names sort by position: idx[i - 1] came
			 * before, but the group's first is the original. */
			size_t k = i - 1;
			while (k > 0 && !strcmp(w->apps[idx[k - 1]].name,
						w->apps[idx[i]].name))
				k--;
			dup = idx[i];
			orig = idx[k];
		}
	free(idx);
	if (dup == SIZE_MAX)
		return 0;
	return cosched_error_set(err, "%s:%d: field name: %s is already the "
				 "name of line %d's application", fname,
				 w->apps[dup].line,
				 COSCHED_QUOTE(w->apps[dup].name),
				 w->apps[orig].line);
}

int sim_workload_parse(FILE *f, const char *fname, int capacity,
		       sim_workload_t *w, cosched_error_t *err)
{
	char buf[LINE_MAX_BYTES + 2];
	int line = 0;

	while (fgets(buf, sizeof(buf), f)) {
		size_t len = strlen(buf);
		line++;
		if (len == sizeof(buf) - 1 && buf[len - 1] != '\n')
			return cosched_error_set(err,
				"%s:%d: line longer than %d bytes", fname, line,
				LINE_MAX_BYTES);
		if (memchr(buf, '\0', len) != NULL && strlen(buf) != len)
			return cosched_error_set(err, "%s:%d: NUL byte", fname,
						 line);
		buf[strcspn(buf, "\n")] = '\0';
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		if (parse_line(buf, fname, line, capacity, w, err) < 0)
			return -1;
	}
	if (ferror(f))
		return cosched_error_set(err, "%s: read error", fname);
	if (w->n == 0)
		return cosched_error_set(err, "%s: no application", fname);
	return check_unique_names(w, fname, err);
}

int sim_workload_load(const char *path, int capacity, sim_workload_t *w,
		      cosched_error_t *err)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f)
		return cosched_error_set(err, "%s: %s", COSCHED_QUOTE(path),
					 strerror(errno));
	rc = sim_workload_parse(f, path, capacity, w, err);
	fclose(f);
	return rc;
}

/* The 2013 gang-scheduling thesis, "Workload used for the headline
 * comparison (artificial)". */
int sim_workload_seed002(sim_workload_t *w, double solo_s,
			 cosched_error_t *err)
{
	static const struct {
		const char *name;
		int threads;
		double mpki;
		long mhz;
		cosched_category_t cat;
	} t[] = {
		{ "cpu1", 4, 0.01, 2200, COSCHED_CAT_CPU },
		{ "cpu2", 5, 0.01, 2200, COSCHED_CAT_CPU },
		{ "cpu3", 6, 0.01, 2200, COSCHED_CAT_CPU },
		{ "lim1", 4, 1.66, 2200, COSCHED_CAT_LIM },
		{ "lim2", 5, 1.78, 2200, COSCHED_CAT_LIM },
		{ "lim3", 6, 1.99, 2200, COSCHED_CAT_LIM },
		{ "mem1", 3, 5.02, 1500, COSCHED_CAT_MEM },
		{ "mem2", 4, 5.38, 1500, COSCHED_CAT_MEM },
		{ "mem3", 5, 5.57, 1500, COSCHED_CAT_MEM },
		{ "rand1", 2, 0.01, 2200, COSCHED_CAT_RAND },
		{ "rand2", 3, 0.01, 2200, COSCHED_CAT_RAND },
		{ "rand3", 4, 0.01, 2200, COSCHED_CAT_RAND },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		sim_app_t a;
		memset(&a, 0, sizeof(a));
		snprintf(a.name, sizeof(a.name), "%s", t[i].name);
		a.threads = a.min_threads = a.max_threads = t[i].threads;
		a.mpki = t[i].mpki;
		a.mhz = t[i].mhz;
		a.cat = t[i].cat;
		a.solo_s = solo_s;
		if (sim_workload_add(w, &a, err) < 0)
			return -1;
	}
	return 0;
}

int sim_workload_draw(sim_workload_t *w, uint64_t seed, sim_mix_t mix,
		      cosched_error_t *err)
{
	static const char *const cat_names[] = { "cpu", "lim", "mem", "rand" };
	uint64_t rng = seed;
	int n = SIM_DRAW_MIN_APPS + (int)(sim_rng_next(&rng) %
		(SIM_DRAW_MAX_APPS - SIM_DRAW_MIN_APPS + 1));

	for (int i = 0; i < n; i++) {
		sim_app_t a;
		double u;

		memset(&a, 0, sizeof(a));
		sim_assign_class(&a, &rng, mix);
		a.threads = SIM_DRAW_MIN_THREADS + (int)(sim_rng_next(&rng) %
			(SIM_DRAW_MAX_THREADS - SIM_DRAW_MIN_THREADS + 1));
		a.min_threads = a.max_threads = a.threads;
		/* Log-uniform: a program twice as long is as likely as one
		 * twice as short. */
		u = sim_rng_unit(&rng);
		a.solo_s = SIM_DRAW_MIN_SOLO_S *
			pow(SIM_DRAW_MAX_SOLO_S / SIM_DRAW_MIN_SOLO_S, u);
		snprintf(a.name, sizeof(a.name), "%s%d", cat_names[a.cat],
			 i + 1);
		if (sim_workload_add(w, &a, err) < 0)
			return -1;
	}
	return 0;
}
