/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_refresh.c - the controller's reader thread (src/libcosched/store/refresh.h),
 * built with ThreadSanitizer where the compiler has it (unit.am): the
 * thread refreshes without pause while the caller looks profiles up,
 * applies live loads, rewrites the files and changes its own configuration
 * and restarts the refresher, as slurmctld's reconfigure does.  Any access
 * of the thread to memory the caller owns (the old controller's thread read
 * its cosched_conf_t while reconfigure assigned it) is a data race that
 * ThreadSanitizer reports, and the test then fails (halt_on_error).  Also
 * checks what the refresher reads and the live loads' generations. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cosched_check.h"
#include "src/libcosched/conf/conf.h"
#include "src/libcosched/store/live.h"
#include "src/libcosched/store/live_reader.h"
#include "src/libcosched/store/profile_json.h"
#include "src/libcosched/store/refresh.h"

#ifdef COSCHED_TSAN
/* A race fails the test at once, in the forked test process. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "halt_on_error=1:exitcode=66:report_signal_unsafe=0";
}
#endif

static char dir[64];
static cosched_conf_t conf;
static cosched_error_t err;

static void setup(void)
{
	char live[96];

	cosched_check_tmpdir(dir, sizeof(dir), "refresh");
	snprintf(live, sizeof(live), "%s/%s", dir, COSCHED_LIVE_SUBDIR);
	ck_assert_int_eq(mkdir(live, 0755), 0);
	cosched_conf_init(&conf);
	snprintf(conf.profile_dir, sizeof(conf.profile_dir), "%s", dir);
	conf.live_loads = true;
	cosched_error_clear(&err);
}

static void teardown(void)
{
	cosched_check_rm_rf(dir);
}

/* A measured profile of app whose MPKI makes it mem. */
static void put_profile(const char *app, double mpki)
{
	cosched_profile_t p;
	char path[160], *text;

	ck_assert_int_eq(cosched_profile_init(&p, app, &err), 0);
	p.runs_merged = 1;
	p.derived.ipc = 1.0;
	p.derived.mpki = mpki;
	p.derived.threads = 2;
	text = cosched_profile_to_json(&p, &err);
	ck_assert_msg(text != NULL, "%s", err.msg);
	cosched_profile_free(&p);
	snprintf(path, sizeof(path), "%s/%s.json", dir, app);
	cosched_check_write_file(path, text);
	free(text);
}

static void put_live(uint32_t job, double mpki)
{
	cosched_live_t l;

	memset(&l, 0, sizeof(l));
	l.job_id = job;
	snprintf(l.node, sizeof(l.node), "n1");
	l.mpki = mpki;
	l.time = (long long)time(NULL);
	ck_assert_int_eq(cosched_live_write(dir, NULL, &l, &err), 0);
}

typedef struct {
	int calls;
	double mpki_sum;
} seen_t;

static void count_live(void *ctx, const cosched_live_job_t *job)
{
	seen_t *s = ctx;

	s->calls++;
	s->mpki_sum += job->mpki;
}

START_TEST(test_reads_and_generations)
{
	cosched_profile_summary_t sum;
	cosched_refresher_t *r;
	unsigned long gen = 0;
	seen_t seen = { 0 };

	put_profile("stream", 20.0);
	put_live(7, 3.0);
	put_live(8, 4.5);
	/* An hour between readings: only the first reading happens, which
	 * the thread makes at once (start does not wait for it: it runs in
	 * slurmctld's reconfigure). */
	conf.profile_refresh_s = conf.live_refresh_s = 3600;
	r = cosched_refresher_start(&conf, NULL, NULL, &err);
	ck_assert_msg(r != NULL, "%s", err.msg);
	ck_assert_int_eq(cosched_refresher_lookup(r, "stream", &sum), 1);
	ck_assert_int_eq(sum.cls.cat, COSCHED_CAT_MEM);
	ck_assert_int_eq(cosched_refresher_lookup(r, "nothere", &sum), 0);
	for (int i = 0; i < 500 &&
	     !cosched_refresher_live(r, &gen, false, count_live, &seen); i++)
		usleep(10000);
	ck_assert_int_eq(gen, 1);
	ck_assert_int_eq(seen.calls, 2);
	ck_assert_double_eq(seen.mpki_sum, 7.5);
	/* Nothing new since: not called again, unless asked (a rebuild). */
	ck_assert(!cosched_refresher_live(r, &gen, false, count_live, &seen));
	ck_assert_int_eq(seen.calls, 2);
	ck_assert(cosched_refresher_live(r, &gen, true, count_live, &seen));
	ck_assert_int_eq(seen.calls, 4);
	cosched_refresher_stop(r);
	cosched_refresher_stop(NULL);
}
END_TEST

/* Readings, counted from the refresher's log. */
static void count_readings(void *ctx, cosched_refresh_level_t lvl,
			   const char *msg)
{
	if (lvl == COSCHED_REFRESH_DEBUG2 && strstr(msg, "live loads: "))
		__atomic_add_fetch((int *) ctx, 1, __ATOMIC_SEQ_CST);
}

/* A reading that finds every job's MPKI unchanged (files rewritten with
 * the same value, as samplers do every minute) is no new generation:
 * slurmctld has nothing to apply; a changed value is one. */
START_TEST(test_unchanged_reading_not_published)
{
	cosched_refresher_t *r;
	unsigned long gen = 0;
	seen_t seen = { 0 };
	int readings = 0;

	put_live(7, 3.0);
	conf.profile_refresh_s = 3600;
	conf.live_refresh_s = 1;
	r = cosched_refresher_start(&conf, count_readings, &readings, &err);
	ck_assert_msg(r != NULL, "%s", err.msg);
	for (int i = 0; i < 500 &&
	     !cosched_refresher_live(r, &gen, false, count_live, &seen); i++)
		usleep(10000);
	ck_assert_int_eq(gen, 1);
	put_live(7, 3.0);
	for (int i = 0; i < 600 &&
	     __atomic_load_n(&readings, __ATOMIC_SEQ_CST) < 3; i++)
		usleep(10000);
	ck_assert_int_ge(__atomic_load_n(&readings, __ATOMIC_SEQ_CST), 3);
	ck_assert(!cosched_refresher_live(r, &gen, false, count_live, &seen));
	ck_assert_int_eq(gen, 1);
	put_live(7, 9.0);
	for (int i = 0; i < 500 &&
	     !cosched_refresher_live(r, &gen, false, count_live, &seen); i++)
		usleep(10000);
	ck_assert_int_eq(gen, 2);
	ck_assert_double_eq(seen.mpki_sum, 12.0);
	cosched_refresher_stop(r);
}
END_TEST

/* What the refresher's log said: readings, and the cap's notice. */
typedef struct {
	int readings, capped;
} said_t;

static void count_said(void *ctx, cosched_refresh_level_t lvl,
		       const char *msg)
{
	said_t *s = ctx;

	if (lvl == COSCHED_REFRESH_DEBUG2 && strstr(msg, "live loads: "))
		__atomic_add_fetch(&s->readings, 1, __ATOMIC_SEQ_CST);
	if (lvl == COSCHED_REFRESH_ERROR &&
	    strstr(msg, "more than the 4096 a reading checks"))
		__atomic_add_fetch(&s->capped, 1, __ATOMIC_SEQ_CST);
}

/* More live files than a reading checks: said once while it lasts, and
 * every job's load is there once each file has been read. */
START_TEST(test_cap_said_once)
{
	cosched_refresher_t *r;
	unsigned long gen = 0;
	seen_t seen = { 0 };
	said_t said = { 0, 0 };

	for (uint32_t j = 1; j <= COSCHED_LIVE_CHECK_MAX + 4; j++)
		put_live(j, 1.0);
	conf.profile_refresh_s = 3600;
	conf.live_refresh_s = 1;
	r = cosched_refresher_start(&conf, count_said, &said, &err);
	ck_assert_msg(r != NULL, "%s", err.msg);
	/* Readings may be further apart than a second (a slow machine). */
	for (int i = 0; i < 3000 &&
	     __atomic_load_n(&said.readings, __ATOMIC_SEQ_CST) < 3; i++)
		usleep(10000);
	ck_assert_int_ge(__atomic_load_n(&said.readings, __ATOMIC_SEQ_CST), 3);
	ck_assert_int_eq(__atomic_load_n(&said.capped, __ATOMIC_SEQ_CST), 1);
	ck_assert(cosched_refresher_live(r, &gen, true, count_live, &seen));
	ck_assert_int_eq(seen.calls, COSCHED_LIVE_CHECK_MAX + 4);
	cosched_refresher_stop(r);
}
END_TEST

START_TEST(test_bad_dir_refused)
{
	conf.profile_dir[0] = '\0';
	ck_assert_ptr_null(cosched_refresher_start(&conf, NULL, NULL, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "profile cache: ProfileDir: empty path"));
}
END_TEST

typedef struct {
	int errors, debugs;
} logged_t;

static void log_count(void *ctx, cosched_refresh_level_t lvl, const char *msg)
{
	logged_t *l = ctx;

	if (lvl == COSCHED_REFRESH_ERROR)
		fprintf(stderr, "logged error: %s\n", msg);
	__atomic_add_fetch(lvl == COSCHED_REFRESH_ERROR ? &l->errors :
			   &l->debugs, 1, __ATOMIC_RELAXED);
}

/*
 * The thread refreshes without pause (0 s between readings) while this
 * thread does everything a controller does between two reconfigures, and
 * writes into the configuration it started the refresher with.
 */
START_TEST(test_no_race_with_the_caller)
{
	logged_t logged = { 0 };

	put_profile("stream", 20.0);
	conf.profile_refresh_s = conf.live_refresh_s = 0;
	for (int round = 0; round < 20; round++) {
		cosched_refresher_t *r = cosched_refresher_start(&conf,
							log_count, &logged,
							&err);
		unsigned long gen = 0;

		ck_assert_msg(r != NULL, "%s", err.msg);
		for (int k = 0; k < 50; k++) {
			cosched_profile_summary_t sum;
			seen_t seen = { 0 };

			ck_assert_int_eq(cosched_refresher_lookup(r, "stream",
								  &sum), 1);
			cosched_refresher_live(r, &gen, k == 0, count_live,
					       &seen);
			if (k % 10 == 0)
				put_live((uint32_t)(100 + k), k);
			/* A reconfigure in the making: the caller's
			 * settings change while the thread runs. */
			conf.live_loads = !conf.live_loads;
			conf.profile_refresh_s = k % 2;
			conf.profile_dir[0] = '/';
			usleep(200);
		}
		conf.live_loads = true;
		cosched_refresher_stop(r);
	}
	ck_assert_int_eq(logged.errors, 0);
	ck_assert_int_gt(logged.debugs, 20);	/* the thread did read */
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("refresh");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_reads_and_generations);
	tcase_add_test(tc, test_unchanged_reading_not_published);
	tcase_add_test(tc, test_cap_said_once);
	tcase_add_test(tc, test_bad_dir_refused);
	tcase_add_test(tc, test_no_race_with_the_caller);
	suite_add_tcase(s, tc);
	return s;
}
