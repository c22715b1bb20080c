/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_dirlist.c - a folder's names kept from one listing to the next
 * (src/libcosched/io/dirlist.h): what comes to the caller again,
 * what does not, and when the folder is not read at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cosched_check.h"
#include "src/libcosched/io/dirlist.h"
#include "src/libcosched/io/file.h"

static char dir[64];
static cosched_error_t err;

static void setup(void)
{
	cosched_check_tmpdir(dir, sizeof(dir), "dirlist");
	memset(&err, 0, sizeof(err));
}

static void teardown(void)
{
	cosched_check_rm_rf(dir);
}

/* What a listing passed: names joined in order of arrival, and which the
 * function remembers (names starting with "old"). */
typedef struct {
	char seen[512];
	int calls;
	const char *stop_at;
} passed_t;

static cosched_dirlist_verdict_t keep_old(void *ctx, const char *name,
					  ino_t ino)
{
	passed_t *p = ctx;
	struct stat st;
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* The inode given is the file's. */
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_uint_eq(st.st_ino, ino);
	p->calls++;
	if (strlen(p->seen) + strlen(name) + 2 <= sizeof(p->seen)) {
		strcat(p->seen, name);
		strcat(p->seen, " ");
	}
	if (p->stop_at && !strcmp(name, p->stop_at))
		return COSCHED_DIRLIST_STOP;
	return strncmp(name, "old", 3) ? COSCHED_DIRLIST_PASS :
					 COSCHED_DIRLIST_REMEMBER;
}

static void put(const char *name, const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_msg(cosched_file_replace(path, text, strlen(text), 0644, 0,
					   &err) == 0, "%s", err.msg);
}

/* The folder's mtime as if it had not changed for two minutes. */
static void age(long long now)
{
	struct timeval tv[2] = { { now - 120, 0 }, { now - 120, 0 } };

	ck_assert_int_eq(utimes(dir, tv), 0);
}

static int list(cosched_dirlist_t *d, long long now, passed_t *p)
{
	memset(p, 0, sizeof(*p));
	return cosched_dirlist_read(d, dir, now, keep_old, p, &err);
}

START_TEST(test_remembered_names_not_passed_again)
{
	cosched_dirlist_t *d = cosched_dirlist_create();
	long long now = (long long) time(NULL);
	passed_t p;

	ck_assert_ptr_nonnull(d);
	put("old1", "a");
	put("old2", "b");
	put("new1", "c");
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_int_eq(p.calls, 3);
	ck_assert_uint_eq(cosched_dirlist_count(d), 2);
	/* The folder changed a moment ago: read again, but only the name
	 * passed over comes to the function. */
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_str_eq(p.seen, "new1 ");
	/* A remembered file replaced (a new inode) comes again. */
	put("old1", "a2");
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_int_eq(p.calls, 2);
	ck_assert_msg(strstr(p.seen, "old1 ") && strstr(p.seen, "new1 "),
		      "%s", p.seen);
	ck_assert_uint_eq(cosched_dirlist_count(d), 2);
	/* A name gone is forgotten. */
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/old2", dir);
		ck_assert_int_eq(unlink(path), 0);
	}
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_str_eq(p.seen, "new1 ");
	ck_assert_uint_eq(cosched_dirlist_count(d), 1);
	/* forget: every name comes again. */
	cosched_dirlist_forget(d);
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_int_eq(p.calls, 2);
	cosched_dirlist_free(d);
}
END_TEST

START_TEST(test_quiet_folder_not_read)
{
	cosched_dirlist_t *d = cosched_dirlist_create();
	long long now = (long long) time(NULL);
	passed_t p;

	put("old1", "a");
	put("new1", "b");
	/* A young mtime stands for nothing: a name added in the same tick
	 * would leave it as it is. */
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_str_eq(p.seen, "new1 ");
	/* Settled: read once more (setting the time moved ctime), then
	 * not at all while nothing changes. */
	age(now);
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_int_eq(list(d, now, &p), 0);
	ck_assert_int_eq(p.calls, 0);
	ck_assert_int_eq(list(d, now + 3600, &p), 0);
	/* A name added: read. */
	put("new2", "c");
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_msg(strstr(p.seen, "new2 ") && strstr(p.seen, "new1 "),
		      "%s", p.seen);
	/* invalidate: read again, changed or not. */
	age(now);
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_int_eq(list(d, now, &p), 0);
	cosched_dirlist_invalidate(d);
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_int_eq(p.calls, 2);
	cosched_dirlist_free(d);
}
END_TEST

START_TEST(test_stop_and_missing_folder)
{
	cosched_dirlist_t *d = cosched_dirlist_create();
	long long now = (long long) time(NULL);
	passed_t p;
	char gone[128];

	put("old1", "a");
	put("new1", "b");
	age(now);
	/* The function stops the listing: it fails, and the next one reads
	 * the folder although it is settled. */
	memset(&p, 0, sizeof(p));
	p.stop_at = "new1";
	ck_assert_int_eq(cosched_dirlist_read(d, dir, now, keep_old, &p,
					      &err), -1);
	ck_assert_msg(strstr(err.msg, "listing stopped"), "%s", err.msg);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_int_eq(list(d, now, &p), 0);
	/* No folder: no name, nothing remembered. */
	snprintf(gone, sizeof(gone), "%s/none", dir);
	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(cosched_dirlist_read(d, gone, now, keep_old, &p,
					      &err), 1);
	ck_assert_int_eq(p.calls, 0);
	ck_assert_uint_eq(cosched_dirlist_count(d), 0);
	/* A folder that cannot be read: the error names it. */
	{
		char file[128];

		snprintf(file, sizeof(file), "%s/old1", dir);
		ck_assert_int_eq(cosched_dirlist_read(d, file, now, keep_old,
						      &p, &err), -1);
		ck_assert_msg(strstr(err.msg, file), "%s", err.msg);
	}
	cosched_dirlist_free(d);
}
END_TEST

/* Many names: the table grows, and a listing that drops some keeps the
 * others (the rebuild). */
START_TEST(test_many_names)
{
	cosched_dirlist_t *d = cosched_dirlist_create();
	long long now = (long long) time(NULL);
	passed_t p;
	char name[32], path[256];

	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "old%d", i);
		put(name, "x");
	}
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_int_eq(p.calls, 300);
	ck_assert_uint_eq(cosched_dirlist_count(d), 300);
	for (int i = 0; i < 300; i += 3) {
		snprintf(path, sizeof(path), "%s/old%d", dir, i);
		ck_assert_int_eq(unlink(path), 0);
	}
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_int_eq(p.calls, 0);
	ck_assert_uint_eq(cosched_dirlist_count(d), 200);
	put("old1", "y");
	ck_assert_int_eq(list(d, now, &p), 1);
	ck_assert_str_eq(p.seen, "old1 ");
	ck_assert_uint_eq(cosched_dirlist_count(d), 200);
	cosched_dirlist_free(d);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("dirlist");
	TCase *tc = tcase_create("dirlist");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_remembered_names_not_passed_again);
	tcase_add_test(tc, test_quiet_folder_not_read);
	tcase_add_test(tc, test_stop_and_missing_folder);
	tcase_add_test(tc, test_many_names);
	suite_add_tcase(s, tc);
	return s;
}
