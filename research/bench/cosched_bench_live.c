/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_bench_live.c - what a reading of ProfileDir/live costs
 * slurmctld's refresh thread, with and without the reader's memory, and
 * with and without its cap on the files a reading checks.
 *
 * Usage: cosched-bench-live [FILES [JOBS [REPEATS]]]
 *        cosched-bench-live --scale [REPEATS]
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
 * and the worst warm against the best cold).
 *
 * --scale: 1,000, 10,000 and 100,000 files (a quarter as many jobs),
 * each read by two warm readers, one checking every file at every
 * reading (cap 0, as before the cap) and one with the default cap
 * (COSCHED_LIVE_CHECK_MAX); before each reading a sixtieth of the files
 * is rewritten, as samplers republish each file once a minute and
 * LiveLoadRefresh=1 reads every second.  Each repeat times every reading
 * once, in the thread's CPU time; it prints each one's median and range,
 * and each against the baseline, 1,000 files read with no cap.
 *
 * Every reading is checked: JOBS jobs, each with its largest MPKI.  A
 * command, not a test (see cosched-bench-live(1)).  Exit status: 0; 1
 * when a reading fails or a check does not hold; 2 on a bad argument.
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

/* Files from..from+count-1 of files (of njobs jobs) written, as their
 * samplers write them (a new file renamed over the old). */
static int write_files(const char *dir, long files, long njobs, long from,
		       long count)
{
	cosched_error_t err = { { 0 } };

	for (long i = 0; i < count; i++) {
		long f = (from + i) % files;
		cosched_live_t l = { 0 };

		l.job_id = (uint32_t) (f % njobs + 1);
		l.step_id = (uint32_t) (f / njobs);
		snprintf(l.node, sizeof(l.node), "n%ld", f % 16);
		l.mpki = (double) (l.job_id % 97 + l.step_id);
		l.time = (long long) time(NULL);
		if (cosched_live_write(dir, NULL, &l, &err)) {
			fprintf(stderr, "cosched-bench-live: %s\n", err.msg);
			return -1;
		}
	}
	return 0;
}

/* One reading, checked; its thread CPU time in ms into *ms. */
static int timed_read(cosched_live_reader_t *r, long files, long njobs,
		      double *ms)
{
	cosched_error_t err = { { 0 } };
	cosched_live_job_t *jobs;
	double t0 = bench_ms(CLOCK_THREAD_CPUTIME_ID);
	int nbad, rc;
	long n;

	n = cosched_live_reader_read(r, (long long) time(NULL), 3600, &jobs,
				     &nbad, NULL, NULL, &err);
	*ms = bench_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
	rc = n < 0 || nbad || check(jobs, n, njobs, files) ? -1 : 0;
	if (n < 0)
		fprintf(stderr, "cosched-bench-live: %s\n", err.msg);
	free(jobs);
	return rc;
}

#define SCALE_SIZES 3

static int scale(int repeats)
{
	static const long sizes[SCALE_SIZES] = { 1000, 10000, 100000 };
	static const char *const mode[2] = { "all", "capped" };
	double t[SCALE_SIZES][2][MAX_REPEATS];
	char dirs[SCALE_SIZES][40] = { { 0 } }, cmd[128], label[48];
	cosched_live_reader_t *r[SCALE_SIZES][2] = { { NULL } };
	cosched_error_t err = { { 0 } };
	long churn_at[SCALE_SIZES] = { 0 };
	int rc = 0;

	for (int z = 0; z < SCALE_SIZES; z++) {
		snprintf(dirs[z], sizeof(dirs[z]),
			 "/tmp/cosched-bench-live-XXXXXX");
		if (!mkdtemp(dirs[z]) || chmod(dirs[z], 0755)) {
			perror("cosched-bench-live: mkdtemp");
			dirs[z][0] = '\0';
			rc = 1;
			goto out;
		}
	}
	for (int z = 0; z < SCALE_SIZES && !rc; z++) {
		if (write_files(dirs[z], sizes[z], sizes[z] / 4, 0, sizes[z]))
			rc = 1;
		for (int m = 0; m < 2 && !rc; m++) {
			cosched_live_reading_t last;

			if (!(r[z][m] = cosched_live_reader_create(dirs[z],
								   &err))) {
				fprintf(stderr, "cosched-bench-live: %s\n",
					err.msg);
				rc = 1;
				break;
			}
			cosched_live_reader_set_cap(r[z][m], m ? COSCHED_LIVE_CHECK_MAX : 0);
			/* Warm: until every file has been read once. */
			do {
				cosched_live_job_t *jobs;
				int nbad;

				if (cosched_live_reader_read(r[z][m],
					(long long) time(NULL), 3600, &jobs,
					&nbad, NULL, NULL, &err) < 0)
					rc = 1;
				free(jobs);
				cosched_live_reader_last(r[z][m], &last);
			} while (!rc && last.unread);
		}
	}
	for (int k = 0; k < repeats && !rc; k++)
		for (int z = 0; z < SCALE_SIZES && !rc; z++)
			for (int m = 0; m < 2 && !rc; m++) {
				long n = sizes[z] / 60 ? sizes[z] / 60 : 1;

				if (write_files(dirs[z], sizes[z], sizes[z] / 4,
						churn_at[z], n) ||
				    timed_read(r[z][m], sizes[z], sizes[z] / 4,
					       &t[z][m][k]))
					rc = 1;
				churn_at[z] += n;
			}
	if (rc) {
		fprintf(stderr, "cosched-bench-live: a reading failed\n");
		goto out;
	}
	printf("cosched-bench-live --scale: CPU ms a reading, %d interleaved repeats; a sixtieth of the files rewritten before each; cap %d files\n",
	       repeats, COSCHED_LIVE_CHECK_MAX);
	for (int z = 0; z < SCALE_SIZES; z++)
		for (int m = 0; m < 2; m++) {
			snprintf(label, sizeof(label), "%6ld files %-6s",
				 sizes[z], mode[m]);
			bench_print(label, 20, 2, t[z][m], repeats);
		}
	for (int z = 0; z < SCALE_SIZES; z++)
		for (int m = 0; m < 2; m++) {
			snprintf(label, sizeof(label), "%ld %s", sizes[z],
				 mode[m]);
			bench_print_ratio("", label, t[z][m], "1000 all",
					  t[0][0], repeats);
		}
out:
	for (int z = 0; z < SCALE_SIZES; z++) {
		for (int m = 0; m < 2; m++)
			cosched_live_reader_free(r[z][m]);
		if (!dirs[z][0])
			continue;
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dirs[z]);
		if (system(cmd))
			fprintf(stderr, "cosched-bench-live: cannot remove %s\n",
				dirs[z]);
	}
	return rc;
}

/* FILES [JOBS [REPEATS]]: cold against warm. */
static int cold_warm(int argc, char **argv)
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
	if (write_files(dir, files, njobs, 0, files)) {
		rc = 1;
		goto out;
	}
	if (!(reader = cosched_live_reader_create(dir, &err))) {
		fprintf(stderr, "cosched-bench-live: %s\n", err.msg);
		rc = 1;
		goto out;
	}
	cosched_live_reader_set_cap(reader, 0);	/* every file, every time */
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

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--scale")) {
		if (argc > 3) {
			fprintf(stderr, "usage: cosched-bench-live --scale [REPEATS]\n");
			return 2;
		}
		return scale(argc > 2 ? (int) bench_arg(PROG, argv[2], 1,
							  MAX_REPEATS,
							  "REPEATS") : 5);
	}
	return cold_warm(argc, argv);
}
