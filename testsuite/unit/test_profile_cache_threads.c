/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_profile_cache_threads.c - the controller's profile cache read by
 * other threads while it refreshes: every lookup sees one whole version
 * (src/libcosched/store/profile_cache.c, its publication). */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "profile_cache_dir.h"

#define STRESS_APPS 8
#define STRESS_READERS 2

typedef struct {
	cosched_profile_cache_t *c;
	atomic_bool stop;
	atomic_ulong lookups;
	atomic_int failure;	/* 0 = none */
	char detail[256];
} stress_t;

/* Every app of the stress set is cached at every moment, and each copy is
 * one whole version (its figures all tell the same version). */
static void *stress_reader(void *arg)
{
	stress_t *st = arg;

	while (!atomic_load(&st->stop)) {
		sched_yield();	/* the refresher shares the cores */
		for (int a = 0; a < STRESS_APPS + 1; a++) {
			cosched_profile_summary_t s;
			char app[16];
			int v, found;
			size_t n;

			snprintf(app, sizeof(app), "app%d", a);
			memset(&s, 0xa5, sizeof(s));
			found = cosched_profile_cache_lookup(st->c, app, &s);
			n = cosched_profile_cache_size(st->c);
			atomic_fetch_add(&st->lookups, 1);
			if (n != STRESS_APPS && n != STRESS_APPS + 1) {
				snprintf(st->detail, sizeof(st->detail),
					 "size %zu", n);
				atomic_store(&st->failure, 1);
				return NULL;
			}
			if (!found) {
				if (a < STRESS_APPS) {
					snprintf(st->detail, sizeof(st->detail),
						 "%s not found", app);
					atomic_store(&st->failure, 2);
					return NULL;
				}
				continue;	/* the one that comes and goes */
			}
			v = (int) s.runs_merged;
			if (strcmp(s.app, app) || v < 1 || v > 64 ||
			    s.mpki != v || s.threads != v || s.n_edp != v ||
			    s.cls.source != COSCHED_CLASS_FROM_PROFILE) {
				snprintf(st->detail, sizeof(st->detail),
					 "%s: torn copy (runs %lu, mpki %g, n_edp %d)",
					 app, s.runs_merged, s.mpki, s.n_edp);
				atomic_store(&st->failure, 3);
				return NULL;
			}
			for (int i = 0; i < v; i++)
				if (s.edp[i].time_s != v ||
				    s.edp[i].samples != (unsigned long) v ||
				    s.edp[i].threads != i + 1) {
					snprintf(st->detail, sizeof(st->detail),
						 "%s: torn EDP point %d", app, i);
					atomic_store(&st->failure, 4);
					return NULL;
				}
		}
	}
	return NULL;
}

static double elapsed_s(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * Lookups from other threads while the main thread refreshes again and
 * again, every profile rewritten between refreshes (a new version, with a
 * new inode, as the store writes) and one profile coming and going: no
 * reader ever misses a profile present in every version, sees a size in
 * between, or copies a summary mixed of two versions.
 */
START_TEST(test_lookup_during_refresh)
{
	stress_t st;
	pthread_t readers[STRESS_READERS];
	struct timespec t0;
	int refreshes = 0;

	memset(&st, 0, sizeof(st));
	st.c = new_cache();
	for (int a = 0; a < STRESS_APPS; a++) {
		char app[16];
		snprintf(app, sizeof(app), "app%d", a);
		put_profile(app, 1, 1);
	}
	refresh_ok(st.c, STRESS_APPS, 0);
	for (int r = 0; r < STRESS_READERS; r++)
		ck_assert_int_eq(pthread_create(&readers[r], NULL,
						stress_reader, &st), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!atomic_load(&st.failure) &&
	       (elapsed_s(&t0) < 0.4 || refreshes < 20)) {
		int v = 1 + refreshes % 40;
		long n;
		for (int a = 0; a < STRESS_APPS; a++) {
			char app[16];
			snprintf(app, sizeof(app), "app%d", a);
			put_profile(app, v, v);
		}
		if (refreshes % 2)
			put_profile("app8", v, v);
		else if (refreshes > 0)
			remove_file("app8.json");
		n = cosched_profile_cache_refresh(st.c, NULL, &err);
		ck_assert_msg(n == STRESS_APPS + refreshes % 2,
			      "refresh %d: %ld (%s)", refreshes, n, err.msg);
		refreshes++;
		if (elapsed_s(&t0) > 20)
			break;
	}
	atomic_store(&st.stop, true);
	for (int r = 0; r < STRESS_READERS; r++)
		pthread_join(readers[r], NULL);
	ck_assert_msg(!atomic_load(&st.failure), "reader: %s", st.detail);
	ck_assert_int_ge(refreshes, 20);
	ck_assert_uint_ge(atomic_load(&st.lookups), 1000);
	cosched_profile_cache_free(st.c);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("profile_cache_threads");
	TCase *tc = tcase_create("profile_cache_threads");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_lookup_during_refresh);
	suite_add_tcase(s, tc);
	return s;
}
