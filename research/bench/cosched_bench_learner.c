/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_bench_learner.c - what a run of the interference learner costs
 * slurmctld's reader thread as step records pile up in ProfileDir/jobs.
 *
 * Usage: cosched-bench-learner [KEPT [PENDING [REPEATS]]]
 *   KEPT     step records decided long ago (default 15000): solo runs
 *            whose files are older than the table's watermark, as a
 *            store holds them until the site removes them
 *   PENDING  pairs waiting for their application's solo time (default
 *            2000 records, two a pair)
 *   REPEATS  interleaved repeats (default 5)
 *
 * Two stores are made in temporary ProfileDirs: "kept" with KEPT old
 * records and PENDING waiting ones, and "empty" with the waiting ones
 * only.  Each store has its learner, which decides what is there in a
 * first run.  Then, REPEATS times, in turn on each store:
 *   new   a run after ten new records (five pairs of a known application)
 *         were written;
 *   idle  a run with nothing new since, the folder changed a moment ago;
 *   quiet a run when the folder has not changed for two minutes (its
 *         mtime set back by that much, as time would): the learner does
 *         not read it.
 * It prints each one's median and range in CPU milliseconds (the thread's
 * CPU time), and kept / empty (median, and the worst kept against the
 * best empty): a learner whose run costs what is new rather than what is
 * kept prints ratios near 1 however large KEPT is.  Every run is checked
 * (nothing learned when idle, the five pairs when new).  A command, not a
 * test (see cosched-bench-learner(1)).  Exit status: 0; 1 when a run
 * fails or a check does not hold; 2 on a bad argument.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

#include "bench_common.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/store/learner.h"

#define PROG "cosched-bench-learner"
#define MAX_REPEATS 50
#define NEW_PAIRS 5

static const char *const ok_exit =
	"{\"tasks\": 1, \"signalled\": 0, \"failed\": 0}";

/* ProfileDir/jobs/JOB.0.n1.json as the sampler writes it (atomically),
 * its file's time set to when (0: now).  co: the co-runner's job, or 0. */
static int put(const char *dir, unsigned job, const char *app,
	       double start, unsigned co, long long when)
{
	char path[512], text[1024], corunners[32] = "";
	struct timeval tv[2] = { { when, 0 }, { when, 0 } };
	cosched_error_t err;

	if (co)
		snprintf(corunners, sizeof(corunners), "\"%u.0\"", co);
	snprintf(path, sizeof(path), "%s/jobs/%u.0.n1.json", dir, job);
	snprintf(text, sizeof(text),
		 "{\"schema\": 1, \"job\": %u, \"step\": 0, \"node\": \"n1\","
		 " \"app\": \"%s\", \"runtime_s\": 10.000, \"start_s\": %.3f,"
		 " \"end_s\": %.3f, \"co_runners\": [%s],"
		 " \"co_runners_seen\": %d, \"exit\": %s, \"uid\": 0,"
		 " \"profile\": \"merged into %s/%s.json\","
		 " \"decision\": {\"state\": \"placed\", \"lca\": \"%s\","
		 " \"sockets\": \"0\", \"predicted_slowdown\": 1.1}}\n",
		 job, app, start, start + 10, corunners, co ? 1 : 0, ok_exit,
		 dir, app,
		 job % 2 ? "L" : "C");
	if (cosched_file_replace(path, text, strlen(text), 0644, 0, &err)) {
		fprintf(stderr, "cosched-bench-learner: %s\n", err.msg);
		return -1;
	}
	if (when && utimes(path, tv)) {
		perror("cosched-bench-learner: utimes");
		return -1;
	}
	return 0;
}

/* A store: kept old solo records, pending pairs of applications that
 * never ran alone, and one solo run of "known" (new pairs' application). */
static int make_store(char *dir, long kept, long pending, long long now)
{
	char jobs[512];
	unsigned job = 1;

	if (!mkdtemp(dir) || chmod(dir, 0755)) {
		perror("cosched-bench-learner: mkdtemp");
		return -1;
	}
	snprintf(jobs, sizeof(jobs), "%.400s/jobs", dir);
	if (mkdir(jobs, 0755)) {
		perror("cosched-bench-learner: mkdir");
		return -1;
	}
	for (long i = 0; i < kept; i++, job++)
		if (put(dir, job, "old", (double) now - 7200, 0, now - 7000))
			return -1;
	if (put(dir, job++, "known", (double) now - 50, 0, 0))
		return -1;
	for (long i = 0; i + 1 < pending; i += 2, job += 2)
		if (put(dir, job, "lonely", (double) now - 40, job + 1, 0) ||
		    put(dir, job + 1, "lonely", (double) now - 40, job, 0))
			return -1;
	return 0;
}

typedef struct {
	char dir[64];
	cosched_learner_t *l;
	unsigned next_job;
	double idle[MAX_REPEATS], fresh[MAX_REPEATS], quiet[MAX_REPEATS];
} store_t;

/* The folder as if nothing had changed in it for two minutes. */
static int settle_folder(const store_t *s, long long now)
{
	char jobs[128];
	struct timeval tv[2] = { { now - 120, 0 }, { now - 120, 0 } };

	snprintf(jobs, sizeof(jobs), "%.63s/jobs", s->dir);
	if (utimes(jobs, tv)) {
		perror("cosched-bench-learner: utimes");
		return -1;
	}
	return 0;
}

/* A run; want_pairs, want_listed: what it must report (-1: anything). */
static int run(store_t *s, long long now, double *ms, int want_pairs,
	       int want_listed)
{
	cosched_learner_report_t rep;
	cosched_error_t err = { { 0 } };
	double t0 = bench_ms(CLOCK_THREAD_CPUTIME_ID);
	int rc = cosched_learner_run(s->l, now, &rep, &err);

	*ms = bench_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
	if (rc) {
		fprintf(stderr, "cosched-bench-learner: %s: %s\n", s->dir,
			err.msg);
		return -1;
	}
	if (want_pairs >= 0 && rep.pairs != want_pairs) {
		fprintf(stderr, "cosched-bench-learner: %s: %d pairs learned, %d expected\n",
			s->dir, rep.pairs, want_pairs);
		return -1;
	}
	if (want_listed >= 0 && rep.listed != want_listed) {
		fprintf(stderr, "cosched-bench-learner: %s: the folder was%s read\n",
			s->dir, rep.listed ? "" : " not");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long kept = argc > 1 ?
		bench_arg(PROG, argv[1], 0, 1000000, "KEPT") : 15000;
	long pending = argc > 2 ?
		bench_arg(PROG, argv[2], 0, 60000, "PENDING") : 2000;
	int repeats = argc > 3 ? (int) bench_arg(PROG, argv[3], 1,
						 MAX_REPEATS, "REPEATS") : 5;
	long long now = (long long) time(NULL);
	store_t st[2] = { { .dir = "/tmp/cosched-bench-learner-XXXXXX" },
			  { .dir = "/tmp/cosched-bench-learner-XXXXXX" } };
	cosched_error_t err = { { 0 } };
	double first[2] = { 0, 0 };
	int rc = 0;

	if (argc > 4) {
		fprintf(stderr, "usage: cosched-bench-learner [KEPT [PENDING [REPEATS]]]\n");
		return 2;
	}
	for (int k = 0; k < 2 && !rc; k++) {
		if (make_store(st[k].dir, k ? 0 : kept, pending, now) ||
		    !(st[k].l = cosched_learner_create(st[k].dir, 86400, 0.5,
						       &err))) {
			if (err.msg[0])
				fprintf(stderr, "cosched-bench-learner: %s\n",
					err.msg);
			rc = 1;
			break;
		}
		st[k].next_job = (unsigned) (kept + pending + 10);
		/* The old records predate the first table's watermark
		 * (now less the slack): the first run decides the rest. */
		if (run(&st[k], now, &first[k], 0, 1))
			rc = 1;
	}
	for (int r = 0; r < repeats && !rc; r++) {
		now = (long long) time(NULL);
		for (int k = 0; k < 2 && !rc; k++) {
			store_t *s = &st[k];

			for (int p = 0; !rc && p < NEW_PAIRS; p++, s->next_job += 2)
				if (put(s->dir, s->next_job, "known",
					(double) now - 20, s->next_job + 1, 0) ||
				    put(s->dir, s->next_job + 1, "known",
					(double) now - 20, s->next_job, 0))
					rc = 1;
			if (!rc && run(s, now, &s->fresh[r], 2 * NEW_PAIRS, 1))
				rc = 1;
			/* The folder just changed: read again. */
			if (!rc && run(s, now, &s->idle[r], 0, 1))
				rc = 1;
			/* Read once more after it settled (a listing whose
			 * mtime is young stands for nothing), then quiet. */
			if (!rc && (settle_folder(s, now) ||
				    run(s, now, &s->quiet[r], 0, 1) ||
				    run(s, now, &s->quiet[r], 0, 0)))
				rc = 1;
		}
	}
	if (!rc) {
		printf("cosched-bench-learner: %ld kept, %ld pending, %d interleaved repeats (thread CPU)\n",
		       kept, pending, repeats);
		printf("  first run   kept %9.3f ms  empty %9.3f ms\n",
		       first[0], first[1]);
		bench_print("idle kept", 12, 3, st[0].idle, repeats);
		bench_print("idle empty", 12, 3, st[1].idle, repeats);
		bench_print("new kept", 12, 3, st[0].fresh, repeats);
		bench_print("new empty", 12, 3, st[1].fresh, repeats);
		bench_print("quiet kept", 12, 3, st[0].quiet, repeats);
		bench_print("quiet empty", 12, 3, st[1].quiet, repeats);
		bench_print_ratio("idle ", "kept", st[0].idle, "empty",
				  st[1].idle, repeats);
		bench_print_ratio("new  ", "kept", st[0].fresh, "empty",
				  st[1].fresh, repeats);
		bench_print_ratio("quiet ", "kept", st[0].quiet, "empty",
				  st[1].quiet, repeats);
	}
	for (int k = 0; k < 2; k++) {
		char cmd[96];

		cosched_learner_free(st[k].l);
		snprintf(cmd, sizeof(cmd), "rm -rf %.63s", st[k].dir);
		if (strchr(st[k].dir, 'X') == NULL && system(cmd))
			fprintf(stderr, "cosched-bench-learner: cannot remove %s\n",
				st[k].dir);
	}
	return rc;
}
