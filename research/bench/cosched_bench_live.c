/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_bench_live.c - what a reading of ProfileDir/live costs
 * slurmctld's refresh thread, with and without the reader's memory.
 *
 * Usage: cosched-bench-live [FILES [JOBS [REPEATS]]]
 *   FILES    live files (default 100000), spread over
 *   JOBS     running jobs (default FILES / 4: four steps or nodes a job)
 *   REPEATS  interleaved repeats (default 5)
 *
 * Writes FILES live loads into a temporary ProfileDir, then times, in
 * turn, REPEATS times each:
 *   cold   cosched_live_scan: a reading that opens, checks and parses
 *          every file (a reader with no memory, as every reading was
 *          before the reader);
 *   warm   cosched_live_reader_read on a reader that has read the
 *          directory once: it stats every file and opens none that did
 *          not change.
 * and prints each one's median and range in ms, and warm / cold (median,
 * and the worst warm against the best cold).  Every reading is checked:
 * JOBS jobs, each with its largest MPKI.  A command, not a test (see
 * cosched-bench-live(1)).  Exit status: 0; 1 when a reading fails or a
 * check does not hold; 2 on a bad argument.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench_common.h"
#include "src/libcosched/store/live.h"
#include "src/libcosched/store/live_reader.h"

#define PROG "cosched-bench-live"
#define MAX_REPEATS 50

/* JOBS jobs, each with its largest MPKI: file f is job f % JOBS + 1's
 * step f / JOBS, with MPKI job % 97 + step. */
static int check(const cosched_live_job_t *jobs, long n, long njobs,
		 long files)
{
	if (n != njobs) {
		fprintf(stderr, "cosched-bench-live: %ld jobs read, %ld written\n",
			n, njobs);
		return -1;
	}
	for (long i = 0; i < n; i++) {
		uint32_t j = jobs[i].job_id;

		if (j != (uint32_t) (i + 1) ||
		    jobs[i].mpki != (double) (j % 97 + (files - j) / njobs)) {
			fprintf(stderr, "cosched-bench-live: job %u read wrong (MPKI %g)\n",
				j, jobs[i].mpki);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	long files = argc > 1 ?
		bench_arg(PROG, argv[1], 1, 10000000, "FILES") : 100000;
	long njobs = argc > 2 ? bench_arg(PROG, argv[2], 1, files, "JOBS") :
				(files / 4 ? files / 4 : 1);
	int repeats = argc > 3 ? (int) bench_arg(PROG, argv[3], 1,
						 MAX_REPEATS, "REPEATS") : 5;
	double cold[MAX_REPEATS], warm[MAX_REPEATS];
	char dir[] = "/tmp/cosched-bench-live-XXXXXX", cmd[64];
	cosched_live_reader_t *reader;
	cosched_live_job_t *jobs;
	cosched_error_t err = { { 0 } };
	int nbad, rc = 0;
	long n;

	if (argc > 4) {
		fprintf(stderr, "usage: cosched-bench-live [FILES [JOBS [REPEATS]]]\n");
		return 2;
	}
	if (!mkdtemp(dir) || chmod(dir, 0755)) {
		perror("cosched-bench-live: mkdtemp");
		return 1;
	}
	for (long f = 0; f < files; f++) {
		cosched_live_t l = { 0 };

		l.job_id = (uint32_t) (f % njobs + 1);
		l.step_id = (uint32_t) (f / njobs);
		snprintf(l.node, sizeof(l.node), "n%ld", f % 16);
		l.mpki = (double) (l.job_id % 97 + l.step_id);
		l.time = (long long) time(NULL);
		if (cosched_live_write(dir, NULL, &l, &err)) {
			fprintf(stderr, "cosched-bench-live: %s\n", err.msg);
			rc = 1;
			goto out;
		}
	}
	if (!(reader = cosched_live_reader_create(dir, &err))) {
		fprintf(stderr, "cosched-bench-live: %s\n", err.msg);
		rc = 1;
		goto out;
	}
	n = cosched_live_reader_read(reader, (long long) time(NULL), 3600,
				     &jobs, &nbad, NULL, NULL, &err);
	free(jobs);
	for (int r = 0; r < repeats && !rc; r++) {
		double t0 = bench_ms(CLOCK_MONOTONIC);

		n = cosched_live_scan(dir, (long long) time(NULL), 3600, &jobs,
				      &nbad, &err);
		cold[r] = bench_ms(CLOCK_MONOTONIC) - t0;
		if (n < 0 || nbad || check(jobs, n, njobs, files))
			rc = 1;
		free(jobs);
		t0 = bench_ms(CLOCK_MONOTONIC);
		n = cosched_live_reader_read(reader, (long long) time(NULL),
					     3600, &jobs, &nbad, NULL, NULL,
					     &err);
		warm[r] = bench_ms(CLOCK_MONOTONIC) - t0;
		if (n < 0 || nbad || check(jobs, n, njobs, files))
			rc = 1;
		free(jobs);
	}
	cosched_live_reader_free(reader);
	if (rc) {
		fprintf(stderr, "cosched-bench-live: a reading failed: %s\n",
			err.msg);
		goto out;
	}
	printf("cosched-bench-live: %ld files, %ld jobs, %d interleaved repeats\n",
	       files, njobs, repeats);
	bench_print("cold", 5, 2, cold, repeats);
	bench_print("warm", 5, 2, warm, repeats);
	bench_print_ratio("", "warm", warm, "cold", cold, repeats);
out:
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "cosched-bench-live: cannot remove %s\n", dir);
	return rc;
}
