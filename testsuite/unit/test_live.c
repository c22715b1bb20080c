/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_live.c - live loads from the nodes to slurmctld
 * (src/libcosched/store/live.c): the one-line format and its strict
 * parser, when a sampler publishes, and the controller's scan of
 * ProfileDir/live with the trust rule profiles have, and its reader that
 * remembers files from one reading to the next
 * (src/libcosched/store/live_reader.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "cosched_check.h"
#include "src/libcosched/store/live.h"
#include "src/libcosched/store/live_reader.h"

static cosched_error_t err;
static char dir[64];

static void setup(void)
{
	cosched_check_tmpdir(dir, sizeof(dir), "live");
	chmod(dir, 0755);
}

static void teardown(void)
{
	cosched_check_rm_rf(dir);
}

static cosched_live_t load(uint32_t job, uint32_t step, const char *node,
			   double mpki)
{
	cosched_live_t l;

	memset(&l, 0, sizeof(l));
	l.job_id = job;
	l.step_id = step;
	snprintf(l.node, sizeof(l.node), "%s", node);
	l.mpki = mpki;
	l.time = (long long) time(NULL);
	return l;
}

START_TEST(test_format_parse)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "", "expected one line" },
		{ "cosched-live/1 job=1 step=0 node=n1 mpki=2 time=5", "expected one line" },
		{ "cosched-live/2 job=1 step=0 node=n1 mpki=2 time=5\n", "cosched-live/2.0 is newer than this reader understands" },
		{ "cosched-live/1 job=x step=0 node=n1 mpki=2 time=5\n", "job: invalid number \"x\"" },
		{ "cosched-live/1 job=1 node=n1 step=0 mpki=2 time=5\n", "expected step= as field 3" },
		{ "cosched-live/1 job=1 step=0 node=../x mpki=2 time=5\n", "node: \"../x\"" },
		{ "cosched-live/1 job=1 step=0 node=n1 mpki=nan time=5\n", "mpki: \"nan\": expected 0 to 1e6" },
		/* strtod reads hexadecimal; the channel is decimal only */
		{ "cosched-live/1 job=1 step=0 node=n1 mpki=0x1p7 time=5\n", "mpki: \"0x1p7\": expected 0 to 1e6" },
		{ "cosched-live/1 job=1 step=0 node=n1 mpki=-1 time=5\n", "mpki: \"-1\"" },
		{ "cosched-live/1 job=1 step=0 node=n1 mpki=2 time=5 x=1\n", "more fields" },
		{ "cosched-live/1 job=1 step=0 node=n1 mpki=2\ntime=5\n", "expected one line" },
	};
	cosched_live_t l = load(42, 4294967291u, "n1", 11.5), q;
	char line[COSCHED_LIVE_LINE_MAX + 1];

	l.time = 1700000000;
	ck_assert_int_eq(cosched_live_format(&l, line, sizeof(line), &err), 0);
	ck_assert_str_eq(line, "cosched-live/1 job=42 step=4294967291 node=n1 mpki=11.500000 time=1700000000\n");
	ck_assert_msg(cosched_live_parse(line, &q, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(q.job_id, 42);
	ck_assert_uint_eq(q.step_id, 4294967291u);
	ck_assert_str_eq(q.node, "n1");
	ck_assert_double_eq(q.mpki, 11.5);
	ck_assert_int_eq(q.time, 1700000000);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(cosched_live_parse(bad[i].text, &q, &err), -1);
		ck_assert_msg(strstr(err.msg, bad[i].msg), "case %zu: %s lacks %s",
			      i, err.msg, bad[i].msg);
	}
	l.mpki = INFINITY;
	ck_assert_int_eq(cosched_live_format(&l, line, sizeof(line), &err), -1);
	strcpy(l.node, "a b");
	l.mpki = 1;
	ck_assert_int_eq(cosched_live_format(&l, line, sizeof(line), &err), -1);
	ck_assert_msg(strstr(err.msg, "node: \"a b\""), "%s", err.msg);
}
END_TEST

START_TEST(test_should_publish)
{
	ck_assert(cosched_live_should_publish(false, 0, 3, 0));
	ck_assert(!cosched_live_should_publish(true, 10, 10.9, 1));
	ck_assert(cosched_live_should_publish(true, 10, 11.1, 1));
	ck_assert(cosched_live_should_publish(true, 10, 8.9, 1));
	/* near 0: the absolute step decides */
	ck_assert(!cosched_live_should_publish(true, 0.01, 0.05, 1));
	ck_assert(cosched_live_should_publish(true, 0.01, 0.2, 1));
	/* a minute old: rewritten so the controller knows it lives */
	ck_assert(cosched_live_should_publish(true, 10, 10, COSCHED_LIVE_REFRESH_S));
}
END_TEST

static void plant(const char *name, const char *text, int mode)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/live/%s", dir, name);
	cosched_check_write_file(path, text);
	ck_assert_int_eq(chmod(path, mode), 0);
}

START_TEST(test_write_scan)
{
	cosched_live_t a0 = load(7, 0, "n1", 3.0), a1 = load(7, 1, "n2", 9.0);
	cosched_live_t b = load(8, 0, "n1", 1.5);
	cosched_live_job_t *jobs;
	long long now = (long long) time(NULL);
	char path[256];
	struct stat st;
	int nbad;

	/* No live/ yet: nothing, no error. */
	ck_assert_int_eq(cosched_live_scan(dir, now, 300, &jobs, &nbad, &err), 0);
	ck_assert_int_eq(nbad, 0);
	free(jobs);

	umask(077);	/* the file must still be readable by slurmctld */
	ck_assert_int_eq(cosched_live_write(dir, NULL, &a0, &err), 0);
	umask(022);
	ck_assert_int_eq(cosched_live_write(dir, NULL, &a1, &err), 0);
	ck_assert_int_eq(cosched_live_write(dir, NULL, &b, &err), 0);
	snprintf(path, sizeof(path), "%s/live/7.0.n1", dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0644);

	/* Planted or broken files are skipped and counted, not used. */
	plant("9.0.n1", "cosched-live/1 job=9 step=0 node=n1 mpki=50 time=1\n", 0666);
	plant("10.0.n1", "cosched-live/1 job=11 step=0 node=n1 mpki=50 time=1\n", 0644);
	plant("12.0.n1", "junk\n", 0644);
	plant("13.0.n1\x1b[2J", "junk\n", 0644);
	ck_assert_int_eq(cosched_live_scan(dir, now, 300, &jobs, &nbad, &err), 2);
	ck_assert_int_eq(nbad, 4);
	ck_assert_uint_eq(jobs[0].job_id, 7);
	ck_assert_double_eq(jobs[0].mpki, 9.0);	/* the larger of its steps */
	ck_assert_int_eq(jobs[0].files, 2);
	ck_assert_uint_eq(jobs[1].job_id, 8);
	ck_assert_double_eq(jobs[1].mpki, 1.5);
	free(jobs);

	/* A file its sampler stopped rewriting is stale: skipped, removed. */
	snprintf(path, sizeof(path), "%s/live/8.0.n1", dir);
	{
		struct utimbuf old = { now - 1000, now - 1000 };
		ck_assert_int_eq(utime(path, &old), 0);
	}
	ck_assert_int_eq(cosched_live_scan(dir, now, 300, &jobs, &nbad, &err), 1);
	ck_assert_uint_eq(jobs[0].job_id, 7);
	free(jobs);
	ck_assert_int_eq(access(path, F_OK), -1);

	/* The step ends: its file goes. */
	ck_assert_int_eq(cosched_live_remove(dir, 7, 1, "n2", &err), 0);
	ck_assert_int_eq(cosched_live_remove(dir, 7, 1, "n2", &err), 0);
	ck_assert_int_eq(cosched_live_scan(dir, now, 300, &jobs, &nbad, &err), 1);
	ck_assert_double_eq(jobs[0].mpki, 3.0);
	free(jobs);
	ck_assert_int_eq(cosched_live_remove(dir, 7, 1, "../x", &err), -1);
}
END_TEST

static int scan_as_nobody(void *arg)
{
	cosched_live_job_t *jobs;
	int nbad;
	long n;

	(void) arg;
	/* root's files are trusted by anyone; nobody's own are not here. */
	n = cosched_live_scan(dir, (long long) time(NULL), 300, &jobs, &nbad,
			      &err);
	free(jobs);
	return n == 1 && nbad == 0 ? 0 : 1;
}

START_TEST(test_owner)
{
	cosched_live_t a = load(7, 0, "n1", 3.0);
	cosched_live_job_t *jobs;
	char path[256];
	int nbad;

	if (geteuid() != 0)
		return;		/* chown needs root */
	ck_assert_int_eq(cosched_live_write(dir, NULL, &a, &err), 0);
	cosched_child_run("scan as nobody", scan_as_nobody, NULL,
			  COSCHED_CHILD_AS_NOBODY, 10);
	snprintf(path, sizeof(path), "%s/live/7.0.n1", dir);
	ck_assert_int_eq(chown(path, 65534, 65534), 0);
	ck_assert_int_eq(cosched_live_scan(dir, (long long) time(NULL), 300,
					   &jobs, &nbad, &err), 0);
	free(jobs);
	ck_assert_int_eq(nbad, 1);
	ck_assert_msg(strstr(err.msg, "owned by uid 65534: only root or SlurmUser may write live loads"),
		      "%s", err.msg);
}
END_TEST


typedef struct {
	int calls;
	char last[256];
} reports_t;

static void count_report(void *ctx, const char *name, const char *why)
{
	reports_t *r = ctx;

	r->calls++;
	snprintf(r->last, sizeof(r->last), "%s: %s", name, why);
}

static long reread(cosched_live_reader_t *r, reports_t *rep, int *nbad,
		   cosched_live_job_t **jobs)
{
	long n = cosched_live_reader_read(r, (long long) time(NULL), 300, jobs,
					  nbad, count_report, rep, &err);

	ck_assert_msg(n >= 0, "%s", err.msg);
	return n;
}

/* An unusable file is reported once, and again only when it changes; a
 * job whose file is removed is not in the next reading. */
START_TEST(test_reader_reports_once)
{
	cosched_live_t a = load(7, 0, "n1", 3.0), b = load(8, 0, "n1", 4.0);
	cosched_live_reader_t *r = cosched_live_reader_create(dir, &err);
	cosched_live_job_t *jobs;
	reports_t rep = { 0 };
	char path[256];
	FILE *f;
	int nbad;

	ck_assert_msg(r != NULL, "%s", err.msg);
	ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 0);	/* no live/ */
	ck_assert_int_eq(cosched_live_write(dir, NULL, &a, &err), 0);
	ck_assert_int_eq(cosched_live_write(dir, NULL, &b, &err), 0);
	snprintf(path, sizeof(path), "%s/live/9.0.n1", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("cosched-live/1 job=9 step=0 node=n1 mpki=-1 time=5\n", f);
	fclose(f);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 2);
		ck_assert_int_eq(jobs[0].job_id, 7);
		ck_assert_int_eq(jobs[1].job_id, 8);
		free(jobs);
		ck_assert_int_eq(nbad, 1);
		ck_assert_int_eq(rep.calls, 1);		/* said once */
	}
	ck_assert_msg(strstr(rep.last, "9.0.n1: line 1: mpki: \"-1\""), "%s",
		      rep.last);
	ck_assert_int_eq(cosched_live_reader_files(r), 3);
	/* Changed (still bad): said again, once. */
	ck_assert_ptr_nonnull(f = fopen(path, "a"));
	fputs("x", f);
	fclose(f);
	ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 2);
	free(jobs);
	ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 2);
	free(jobs);
	ck_assert_int_eq(rep.calls, 2);
	/* Gone: forgotten, and its job with it. */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(cosched_live_remove(dir, 8, 0, "n1", &err), 0);
	ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 1);
	ck_assert_int_eq(jobs[0].job_id, 7);
	free(jobs);
	ck_assert_int_eq(nbad, 0);
	ck_assert_int_eq(cosched_live_reader_files(r), 1);
	/* A rewrite with a new value is read again. */
	a.mpki = 9.5;
	ck_assert_int_eq(cosched_live_write(dir, NULL, &a, &err), 0);
	ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 1);
	ck_assert_double_eq(jobs[0].mpki, 9.5);
	free(jobs);
	cosched_live_reader_free(r);
}
END_TEST

/* Many files, many jobs: merged into one entry a job, the largest MPKI
 * of its files (the merge sorts: it does not grow with files x jobs). */
START_TEST(test_reader_many)
{
	cosched_live_reader_t *r = cosched_live_reader_create(dir, &err);
	cosched_live_job_t *jobs;
	reports_t rep = { 0 };
	int nbad;

	for (uint32_t j = 1; j <= 500; j++)
		for (int node = 0; node < 3; node++) {
			char name[16];
			cosched_live_t l;

			snprintf(name, sizeof(name), "n%d", node);
			l = load(1000 - j, 0, name, (double) (j % 7 + node));
			ck_assert_int_eq(cosched_live_write(dir, NULL, &l, &err), 0);
		}
	ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 500);
	for (long i = 0; i < 500; i++) {
		uint32_t j = 1000 - (uint32_t) (500 - i);

		ck_assert_int_eq(jobs[i].job_id, j);
		ck_assert_int_eq(jobs[i].files, 3);
		ck_assert_double_eq(jobs[i].mpki, (double) ((1000 - j) % 7 + 2));
	}
	free(jobs);
	ck_assert_int_eq(rep.calls, 0);
	cosched_live_reader_free(r);
}
END_TEST

/* A reading checks at most the reader's cap of files: the files never
 * read first, then the others in turn; a file not checked keeps its last
 * load (no job is missing), an unchanged one is not read again, a changed
 * one is read within files / cap readings, and a file gone is forgotten
 * at once. */
START_TEST(test_reader_cap)
{
	cosched_live_reader_t *r = cosched_live_reader_create(dir, &err);
	cosched_live_reading_t last;
	cosched_live_job_t *jobs;
	reports_t rep = { 0 };
	bool seen_new = false;
	int nbad;

	ck_assert_msg(r != NULL, "%s", err.msg);
	cosched_live_reader_set_cap(r, 4);
	for (uint32_t j = 1; j <= 10; j++) {
		cosched_live_t l = load(j, 0, "n1", (double) j);

		ck_assert_int_eq(cosched_live_write(dir, NULL, &l, &err), 0);
	}
	/* Never read: 4 a reading, counted. */
	ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 4);
	free(jobs);
	cosched_live_reader_last(r, &last);
	ck_assert_uint_eq(last.files, 10);
	ck_assert_uint_eq(last.checked, 4);
	ck_assert_uint_eq(last.opened, 4);
	ck_assert_uint_eq(last.unread, 6);
	ck_assert_uint_eq(last.kept, 0);
	ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 8);
	free(jobs);
	/* The last two new ones, then two known ones, not read again. */
	ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 10);
	free(jobs);
	cosched_live_reader_last(r, &last);
	ck_assert_uint_eq(last.checked, 4);
	ck_assert_uint_eq(last.opened, 2);
	ck_assert_uint_eq(last.unread, 0);
	ck_assert_uint_eq(last.kept, 6);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 10);
		for (int k = 0; k < 10; k++)
			ck_assert_double_eq(jobs[k].mpki, (double) (k + 1));
		free(jobs);
		cosched_live_reader_last(r, &last);
		ck_assert_uint_eq(last.checked, 4);
		ck_assert_uint_eq(last.opened, 0);
	}
	/* A new value: the old one until its turn, within 3 readings. */
	{
		cosched_live_t l = load(5, 0, "n1", 50.0);

		ck_assert_int_eq(cosched_live_write(dir, NULL, &l, &err), 0);
	}
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 10);
		ck_assert(jobs[4].mpki == 5.0 || jobs[4].mpki == 50.0);
		ck_assert(!seen_new || jobs[4].mpki == 50.0);
		seen_new = jobs[4].mpki == 50.0;
		free(jobs);
	}
	ck_assert(seen_new);
	/* Gone: not in the next reading, checked or not. */
	ck_assert_int_eq(cosched_live_remove(dir, 7, 0, "n1", &err), 0);
	ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 9);
	for (int k = 0; k < 9; k++)
		ck_assert_uint_ne(jobs[k].job_id, 7);
	free(jobs);
	/* No cap: every file checked. */
	cosched_live_reader_set_cap(r, 0);
	ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 9);
	free(jobs);
	cosched_live_reader_last(r, &last);
	ck_assert_uint_eq(last.checked, 9);
	ck_assert_uint_eq(last.kept, 0);
	ck_assert_int_eq(rep.calls, 0);
	cosched_live_reader_free(r);
}
END_TEST

/* Staleness is judged on a file when a reading checks it, never on the
 * mtime remembered of one it does not (rewritten since, it would look
 * stale): a file not checked keeps its load until its turn. */
START_TEST(test_reader_cap_stale)
{
	cosched_live_reader_t *r = cosched_live_reader_create(dir, &err);
	long long later = (long long) time(NULL) + 400;
	cosched_live_job_t *jobs;
	reports_t rep = { 0 };
	int nbad;

	ck_assert_msg(r != NULL, "%s", err.msg);
	for (uint32_t j = 1; j <= 3; j++) {
		cosched_live_t l = load(j, 0, "n1", (double) j);

		ck_assert_int_eq(cosched_live_write(dir, NULL, &l, &err), 0);
	}
	ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 3);
	free(jobs);
	cosched_live_reader_set_cap(r, 1);
	/* 400 s on, every file is stale: one checked a reading, skipped and
	 * removed; the others keep their loads until their turn. */
	for (long want = 2; want >= 0; want--) {
		ck_assert_int_eq(cosched_live_reader_read(r, later, 300, &jobs,
							  &nbad, count_report,
							  &rep, &err), want);
		free(jobs);
	}
	/* Each removed, and forgotten at the reading after. */
	ck_assert_int_eq(reread(r, &rep, &nbad, &jobs), 0);
	ck_assert_int_eq(cosched_live_reader_files(r), 0);
	cosched_live_reader_free(r);
}
END_TEST

/* Readings further apart than LiveLoadRefresh only when one takes more
 * than COSCHED_LIVE_CPU_SHARE of a core at that pace. */
START_TEST(test_interval)
{
	ck_assert_int_eq(cosched_live_interval(2, 0.01), 2);
	ck_assert_int_eq(cosched_live_interval(1, 0.05), 1);
	ck_assert_int_eq(cosched_live_interval(1, 0.051), 2);
	ck_assert_int_eq(cosched_live_interval(1, 0.2), 4);
	ck_assert_int_eq(cosched_live_interval(10, 0.3), 10);
	ck_assert_int_eq(cosched_live_interval(10, 0.6), 12);
	ck_assert_int_eq(cosched_live_interval(0, 0.0002), 0);
	ck_assert_int_eq(cosched_live_interval(1, 1e9), 86400);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("live");
	TCase *tc = tcase_create("live");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_format_parse);
	tcase_add_test(tc, test_should_publish);
	tcase_add_test(tc, test_write_scan);
	tcase_add_test(tc, test_owner);
	tcase_add_test(tc, test_reader_reports_once);
	tcase_add_test(tc, test_reader_many);
	tcase_add_test(tc, test_reader_cap);
	tcase_add_test(tc, test_reader_cap_stale);
	tcase_add_test(tc, test_interval);
	suite_add_tcase(s, tc);
	return s;
}
