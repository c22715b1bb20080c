/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_swf.c - arrivals from a Standard Workload Format trace (Parallel
 * Workloads Archive, Chapin et al. 1999; version 2.2): one job per line,
 * 18 whitespace-separated fields, ';' starts a header comment, -1 is
 * "unknown".  Used: 1 job number, 2 submit time (s), 4 run time (s),
 * 5 allocated processors (else 8, requested processors).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "research/sim/sim.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"

#define SWF_FIELDS 18

int sim_swf_load(const char *path, int cores, uint64_t seed, sim_mix_t mix,
		 sim_workload_t *w, size_t *skipped, size_t *clipped,
		 cosched_error_t *err)
{
	char buf[4096];
	int line = 0;
	uint64_t rng = seed;
	FILE *f = fopen(path, "r");

	*skipped = *clipped = 0;
	if (!f)
		return cosched_error_set(err, "%s: %s", COSCHED_QUOTE(path),
					 strerror(errno));
	while (fgets(buf, sizeof(buf), f)) {
		char *tok[SWF_FIELDS], *save = NULL;
		double v[SWF_FIELDS];
		int n = 0;
		sim_app_t a;
		line++;
		buf[strcspn(buf, ";\r\n")] = '\0';
		/* Count every field: a 19th must not pass for 18. */
		for (char *t = strtok_r(buf, " \t", &save); t;
		     t = strtok_r(NULL, " \t", &save)) {
			if (n < SWF_FIELDS)
				tok[n] = t;
			n++;
		}
		if (n == 0)
			continue;
		if (n != SWF_FIELDS) {
			fclose(f);
			return cosched_error_set(err, "%s:%d: %d fields, SWF has %d",
						 COSCHED_QUOTE(path), line,
						 n, SWF_FIELDS);
		}
		for (int k = 0; k < SWF_FIELDS; k++)
			if (cosched_parse_number(tok[k], &v[k]) < 0) {
				fclose(f);
				return cosched_error_set(err, "%s:%d: field %d: %s "
					"is not a number", COSCHED_QUOTE(path),
					line, k + 1, COSCHED_QUOTE(tok[k]));
			}
		double procs = v[4] > 0 ? v[4] : v[7];
		if (v[1] < 0 || v[3] <= 0 || procs <= 0) {
			(*skipped)++;
			continue;
		}
		memset(&a, 0, sizeof(a));
		snprintf(a.name, sizeof(a.name), "swf%.0f", v[0]);
		a.line = line;
		a.submit_s = v[1];
		a.solo_s = v[3];
		if (procs > cores) {
			(*clipped)++;
			procs = cores;
		}
		a.threads = a.min_threads = a.max_threads = (int)procs;
		sim_assign_class(&a, &rng, mix);
		if (sim_workload_add(w, &a, err) < 0) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	if (w->n == 0)
		return cosched_error_set(err, "%s: no usable job",
					 COSCHED_QUOTE(path));
	return 0;
}
