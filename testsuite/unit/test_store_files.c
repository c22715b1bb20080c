/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_store_files.c - what the profile store does with the files it finds
 * (src/libcosched/store/store.c): a malformed profile is named and left as
 * it was, strangers and a crashed writer's temporary files are let be,
 * readers need no write access, a merge is done once its rename is, and a
 * profile or lock file that is a link, a directory, a FIFO or too large is
 * refused without being followed or read. */
#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cosched_check.h"
#include "src/libcosched/store/store.h"

#include "store_dir.h"

/* A malformed file: load names the file and the field; a merge refuses to
 * overwrite it and leaves it as it was. */
START_TEST(test_corrupt_file)
{
	static const char text[] =
		"{\"schema_version\": 1, \"app\": \"ep.A\", \"runs_merged\": 1,"
		" \"derived\": {}, \"edp\": [], \"runs\": [{\"instructions\": \"abc\","
		" \"cycles\": 1, \"llc_misses\": 0, \"runtime_s\": 1, \"threads\": 1}]}";
	cosched_profile_t p;
	cosched_run_t r = mkrun(1.0);
	char path[128], buf[1024];
	FILE *f;
	size_t n;

	write_file("ep.A.json", text);
	ck_assert_int_eq(cosched_store_load(&store, "ep.A", &p, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "ep.A.json: runs[0].instructions: expected a non-negative number or null, got \"abc\""));
	ck_assert_int_eq(cosched_store_merge_run(&store, "ep.A", &r, NULL, NULL, &err), -1);
	snprintf(path, sizeof(path), "%s/ep.A.json", dir);
	f = fopen(path, "r");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	ck_assert_str_eq(buf, text);
	/* truncated file (what a non-atomic writer could leave) */
	write_file("ep.A.json", "{\"schema_version\": 1, \"app\": \"ep");
	ck_assert_int_eq(cosched_store_load(&store, "ep.A", &p, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "invalid JSON"));
}
END_TEST

/* Stale temporary files of a crashed writer and foreign files do not
 * disturb anything. */
START_TEST(test_stale_temp_and_list)
{
	static const char *const apps[] = { "ft.B", "bt.A", "MG" };
	cosched_run_t r = mkrun(1.0);
	cosched_profile_t p;

	write_file(".ft.B.json.a1b2c3", "{ partial");
	write_file("README", "not a profile");
	write_file("..json", "{}");
	ck_assert_int_eq(cosched_store_merge_run(&store, "ft.B", &r, NULL, NULL, &err), 0);
	ck_assert_int_eq(cosched_store_merge_run(&store, "bt.A", &r, NULL, NULL, &err), 0);
	ck_assert_int_eq(cosched_store_merge_run(&store, "MG", &r, NULL, NULL, &err), 0);
	for (size_t i = 0; i < sizeof(apps) / sizeof(apps[0]); i++) {
		char file[64];

		ck_assert_int_eq(cosched_store_load(&store, apps[i], &p, &err), 1);
		ck_assert_str_eq(p.app, apps[i]);
		ck_assert_uint_eq(p.runs_merged, 1);
		cosched_profile_free(&p);
		snprintf(file, sizeof(file), "%s.json", apps[i]);
		ck_assert_int_eq(count_entries(file), 1);
	}
	/* the strangers, untouched */
	ck_assert_int_eq(count_entries(".ft.B.json.a1b2c3"), 1);
	ck_assert_int_eq(count_entries("README"), 1);
	ck_assert_int_eq(count_entries("..json"), 1);
}
END_TEST

/*
 * Load "is.C" and "absent" without write access to the directory; exit
 * status 0 when both behave.  Runs in a child that lost the write access
 * (as root chmod does not stop writes, so the child runs as nobody).
 */
static int read_without_write_access(void *unused)
{
	cosched_profile_t p;
	cosched_error_t e;

	(void) unused;
	if (access(dir, W_OK) == 0) {
		fprintf(stderr, "reader: still has write access to %s\n", dir);
		return 3;
	}
	if (cosched_store_load(&store, "is.C", &p, &e) != 1) {
		fprintf(stderr, "reader: %s\n", e.msg);
		return 1;
	}
	if (p.runs_merged != 1)
		return 2;
	cosched_profile_free(&p);
	if (cosched_store_load(&store, "absent", &p, &e) != 0) {
		fprintf(stderr, "reader: %s\n", e.msg);
		return 1;
	}
	cosched_profile_free(&p);
	return 0;
}

/* Readers create nothing and need no write access to the directory. */
START_TEST(test_readers_write_nothing)
{
	cosched_profile_t p;
	cosched_run_t r = mkrun(2.0);
	bool root = geteuid() == 0;

	ck_assert_int_eq(cosched_store_load(&store, "absent", &p, &err), 0);
	cosched_profile_free(&p);
	ck_assert_int_eq(count_entries(""), 0);	/* no lock file either */
	ck_assert_int_eq(cosched_store_merge_run(&store, "is.C", &r, NULL, NULL, &err), 0);
	/* root: others may read and enter, only root writes; else: nobody
	 * writes */
	ck_assert_int_eq(chmod(dir, root ? 0755 : 0555), 0);
	cosched_child_run("reader without write access", read_without_write_access,
			  NULL, COSCHED_CHILD_AS_NOBODY, 0);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(count_entries(""), 2);
}
END_TEST

/*
 * The rename is the commit point: a failure after it (here the directory
 * cannot be opened for its fsync, because it may be written and searched
 * but not read) must not report an error, or a caller retrying the merge
 * would merge the run twice.
 */
/* Merge a run into "dirfsync" from a directory that cannot be read. */
static int merge_in_unreadable_dir(void *unused)
{
	cosched_run_t r = mkrun(3.0);
	cosched_error_t e;
	int fd;

	(void) unused;
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		fprintf(stderr, "%s is still readable\n", dir);
		return 3;
	}
	if (cosched_store_merge_run(&store, "dirfsync", &r, NULL, NULL, &e)) {
		fprintf(stderr, "merge: %s\n", e.msg);
		return 1;
	}
	return 0;
}

START_TEST(test_success_after_rename)
{
	cosched_profile_t p;
	bool root = geteuid() == 0;

	/* root: others may write and search only; else the owner */
	ck_assert_int_eq(chmod(dir, root ? 0733 : 0333), 0);
	cosched_child_run("merge after a successful rename", merge_in_unreadable_dir,
			  NULL, COSCHED_CHILD_AS_NOBODY, 0);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(cosched_store_load(&store, "dirfsync", &p, &err), 1);
	ck_assert_int_eq(p.runs_merged, 1);
	cosched_profile_free(&p);
}
END_TEST

/* fstat failure, a non-regular file and a too-large file have distinct
 * messages. */
START_TEST(test_load_not_regular_or_too_large)
{
	cosched_profile_t p;
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/adir.json", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ck_assert_int_eq(cosched_store_load(&store, "adir", &p, &err), -1);
	ck_assert_msg(strstr(err.msg, "adir.json: not a regular file") != NULL,
		      "%s", err.msg);

	snprintf(path, sizeof(path), "%s/big.json", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 16 * 1024 * 1024 + 1), 0);
	close(fd);
	ck_assert_int_eq(cosched_store_load(&store, "big", &p, &err), -1);
	ck_assert_msg(strstr(err.msg,
			     "big.json: 16777217 bytes, more than the limit of 16777216 bytes") != NULL,
		      "%s", err.msg);
}
END_TEST

/*
 * A profile that is a symbolic link (here to /etc/passwd) is refused
 * without being read: the message says why and shows nothing of the file
 * it points to, and a merge leaves the link alone.
 */
START_TEST(test_symlinked_profile)
{
	char link[128], first[64] = "root", buf[256];
	cosched_profile_t p;
	cosched_run_t r = mkrun(1.0);
	FILE *f = fopen("/etc/passwd", "r");

	/* the first user name in the file, whatever it is ("root") */
	if (f && fgets(buf, sizeof(buf), f) && strchr(buf, ':'))
		snprintf(first, sizeof(first), "%.*s", (int) (strchr(buf, ':') - buf), buf);
	if (f)
		fclose(f);
	snprintf(link, sizeof(link), "%s/passwd.json", dir);
	ck_assert_int_eq(symlink("/etc/passwd", link), 0);

	ck_assert_int_eq(cosched_store_load(&store, "passwd", &p, &err), -1);
	ck_assert_msg(strstr(err.msg, "passwd.json: is a symbolic link (not followed)"),
		      "%s", err.msg);
	ck_assert_msg(!strstr(err.msg, "root:") && !strstr(err.msg, first),
		      "the message shows the linked file: %s", err.msg);
	ck_assert_int_eq(cosched_store_merge_run(&store, "passwd", &r, NULL, NULL, &err), -1);
	ck_assert_msg(strstr(err.msg, "symbolic link") && !strstr(err.msg, first),
		      "%s", err.msg);
	ck_assert_int_eq(readlink(link, buf, sizeof(buf)), strlen("/etc/passwd"));
}
END_TEST

/*
 * A lock file that is a symbolic link pointing outside the store: a
 * merge (which would create the lock file) fails and creates nothing
 * where the link points; readers, removal and saving refuse it too.
 */
START_TEST(test_symlinked_lock)
{
	char link[128], target[128];
	cosched_profile_t p;
	cosched_run_t r = mkrun(1.0);

	snprintf(target, sizeof(target), "%s.outside", dir);
	snprintf(link, sizeof(link), "%s/.victim.lock", dir);
	ck_assert_int_eq(symlink(target, link), 0);

	ck_assert_int_eq(cosched_store_merge_run(&store, "victim", &r, NULL, NULL, &err), -1);
	ck_assert_msg(strstr(err.msg, ".victim.lock: is a symbolic link"), "%s", err.msg);
	ck_assert_msg(access(target, F_OK) != 0, "%s was created through the link", target);
	ck_assert_int_eq(count_entries("victim.json"), 0);
	ck_assert_int_eq(cosched_store_load(&store, "victim", &p, &err), -1);
	ck_assert_int_eq(cosched_profile_init(&p, "victim", &err), 0);
	ck_assert_int_eq(cosched_store_save(&store, &p, &err), -1);
	ck_assert_msg(access(target, F_OK) != 0, "%s was created through the link", target);
	ck_assert_int_eq(count_entries("victim.json"), 0);
	unlink(target);
}
END_TEST

/* In a child under alarm(): loading and merging app (whose profile or
 * lock file is a FIFO) fail at once, naming the FIFO as not a regular
 * file; a hang kills the child. */
static int fifo_refused(void *arg)
{
	const char *app = arg;
	cosched_profile_t p;
	cosched_run_t r = mkrun(1.0);
	cosched_error_t e;

	if (cosched_store_load(&store, app, &p, &e) != -1 ||
	    !strstr(e.msg, "not a regular file")) {
		fprintf(stderr, "load %s: %s\n", app, e.msg);
		return 1;
	}
	if (cosched_store_merge_run(&store, app, &r, NULL, NULL, &e) != -1 ||
	    !strstr(e.msg, "not a regular file")) {
		fprintf(stderr, "merge %s: %s\n", app, e.msg);
		return 2;
	}
	return 0;
}

/* A FIFO named like a profile, or like a lock file, is refused promptly:
 * nobody ever opens its other end. */
START_TEST(test_fifo_refused)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/fifo.json", dir);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	cosched_child_run("FIFO as a profile", fifo_refused, "fifo", 0, 2);
	snprintf(path, sizeof(path), "%s/.pipe.lock", dir);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	cosched_child_run("FIFO as a lock file", fifo_refused, "pipe", 0, 2);
	ck_assert_int_eq(count_entries("pipe.json"), 0);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("store_files");
	TCase *tc = tcase_create("store_files");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_corrupt_file);
	tcase_add_test(tc, test_stale_temp_and_list);
	tcase_add_test(tc, test_readers_write_nothing);
	tcase_add_test(tc, test_success_after_rename);
	tcase_add_test(tc, test_load_not_regular_or_too_large);
	tcase_add_test(tc, test_symlinked_profile);
	tcase_add_test(tc, test_symlinked_lock);
	tcase_add_test(tc, test_fifo_refused);
	suite_add_tcase(s, tc);
	return s;
}
