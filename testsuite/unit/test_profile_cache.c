/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_profile_cache.c - the controller's profile cache: rescans by file
 * version, refusals, summaries (src/libcosched/store/profile_cache.c;
 * readers during refreshes: test_profile_cache_threads.c). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profile_cache_dir.h"
#include "src/libcosched/store/profile_cache_internal.h"
#include "src/libcosched/store/profile_json.h"

START_TEST(test_create_refusals)
{
	cosched_conf_t bad;

	ck_assert_ptr_null(cosched_profile_cache_create(NULL, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "no configuration"));
	cosched_conf_init(&bad);
	bad.profile_dir[0] = '\0';
	ck_assert_ptr_null(cosched_profile_cache_create(&bad, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "ProfileDir: empty path"));
	/* NULL everywhere else is harmless */
	cosched_profile_cache_free(NULL);
	ck_assert_int_eq(cosched_profile_cache_refresh(NULL, NULL, &err), -1);
	ck_assert_int_eq(cosched_profile_cache_lookup(NULL, "a", NULL), 0);
	ck_assert_uint_eq(cosched_profile_cache_size(NULL), 0);
}
END_TEST

START_TEST(test_empty_dir)
{
	cosched_profile_cache_t *c = new_cache();

	ck_assert_uint_eq(cosched_profile_cache_size(c), 0);
	check_absent(c, "stream");
	refresh_ok(c, 0, 0);
	refresh_ok(c, 0, 0);
	check_absent(c, "stream");
	/* lock files and writes in progress are not profiles */
	write_in_place(".stream.lock", "");
	write_in_place(".stream.json.Ab12Cd", "{");
	refresh_ok(c, 0, 0);
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), 0);
	cosched_profile_cache_free(c);
}
END_TEST

/*
 * Profiles appear, change and disappear across refreshes; a profile
 * without data is left out; unchanged files are not read again.
 */
START_TEST(test_appear_change_disappear)
{
	cosched_profile_cache_t *c = new_cache();
	cosched_profile_t empty;

	cosched_profile_cache_set_racy_window(c, 0);
	put_profile("ep.A", 1, 0.01);
	refresh_ok(c, 1, 0);
	check_entry(c, "ep.A", 1, 0.01, COSCHED_CAT_CPU);
	check_absent(c, "stream");
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), 1);

	put_profile("stream", 3, 5.02);
	refresh_ok(c, 2, 0);
	check_entry(c, "stream", 3, 5.02, COSCHED_CAT_MEM);
	check_entry(c, "ep.A", 1, 0.01, COSCHED_CAT_CPU);
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), 2);

	/* ep.A changes class; stream is not read again */
	put_profile("ep.A", 2, 1.66);
	refresh_ok(c, 2, 0);
	check_entry(c, "ep.A", 2, 1.66, COSCHED_CAT_LIM);
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), 3);
	refresh_ok(c, 2, 0);
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), 3);

	/* a profile without data is no profile */
	ck_assert_int_eq(cosched_profile_init(&empty, "fresh", &err), 0);
	{
		char *text = cosched_profile_to_json(&empty, &err);
		ck_assert_ptr_nonnull(text);
		write_renamed("fresh.json", text);
		free(text);
	}
	cosched_profile_free(&empty);
	refresh_ok(c, 2, 0);
	check_absent(c, "fresh");

	remove_file("stream.json");
	refresh_ok(c, 1, 0);
	check_absent(c, "stream");
	check_entry(c, "ep.A", 2, 1.66, COSCHED_CAT_LIM);
	remove_file("ep.A.json");
	refresh_ok(c, 0, 0);
	check_absent(c, "ep.A");
	/* and back */
	put_profile("stream", 4, 5.02);
	refresh_ok(c, 1, 0);
	check_entry(c, "stream", 4, 5.02, COSCHED_CAT_MEM);
	cosched_profile_cache_free(c);
}
END_TEST

/* Two versions of app's text of exactly the same length (JSON allows
 * trailing blanks). */
static void same_size_texts(const char *app, char **a, char **b)
{
	size_t la, lb;
	char *t;

	*a = profile_text(app, 2, 0.01);
	*b = profile_text(app, 2, 5.02);
	la = strlen(*a);
	lb = strlen(*b);
	t = realloc(la < lb ? *a : *b, (la > lb ? la : lb) + 1);
	ck_assert_ptr_nonnull(t);
	for (size_t i = la < lb ? la : lb; i < (la > lb ? la : lb); i++)
		t[i] = ' ';
	t[la > lb ? la : lb] = '\0';
	if (la < lb)
		*a = t;
	else
		*b = t;
	ck_assert_uint_eq(strlen(*a), strlen(*b));
}

static ino_t inode_of(const char *name)
{
	char path[128];
	struct stat st;

	path_of(path, sizeof(path), name);
	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_ino;
}

/*
 * A change right after a refresh (within the same second, likely the same
 * clock tick) is seen at the next refresh, however it is made: a new
 * inode of the same size, a new size in place, and - the hard case, where
 * the size and inode stay and the timestamps may not have moved - the
 * same size rewritten in place.
 */
START_TEST(test_change_within_the_same_second)
{
	cosched_profile_cache_t *c = new_cache();
	char *cpu, *mem;

	same_size_texts("app", &cpu, &mem);

	/* Same size, new inode (the store's rename). */
	cosched_profile_cache_set_racy_window(c, 0);
	write_renamed("app.json", cpu);
	refresh_ok(c, 1, 0);
	check_entry(c, "app", 2, 0.01, COSCHED_CAT_CPU);
	{
		ino_t before = inode_of("app.json");
		write_renamed("app.json", mem);
		ck_assert(inode_of("app.json") != before);
	}
	refresh_ok(c, 1, 0);
	check_entry(c, "app", 2, 5.02, COSCHED_CAT_MEM);

	/* New size, same inode. */
	{
		char *longer = profile_text("app", 3, 0.01);
		ino_t before = inode_of("app.json");
		write_in_place("app.json", longer);
		ck_assert(inode_of("app.json") == before);
		free(longer);
	}
	refresh_ok(c, 1, 0);
	check_entry(c, "app", 3, 0.01, COSCHED_CAT_CPU);

	/* Same size, same inode, at once: only the timestamps could tell,
	 * and within one clock tick they do not; the cache reads a file
	 * written this close to a refresh again at the next one. */
	cosched_profile_cache_set_racy_window(c, 2000000000LL);
	write_in_place("app.json", cpu);
	refresh_ok(c, 1, 0);
	check_entry(c, "app", 2, 0.01, COSCHED_CAT_CPU);
	write_in_place("app.json", mem);
	refresh_ok(c, 1, 0);
	check_entry(c, "app", 2, 5.02, COSCHED_CAT_MEM);
	write_in_place("app.json", cpu);
	refresh_ok(c, 1, 0);
	check_entry(c, "app", 2, 0.01, COSCHED_CAT_CPU);
	free(cpu);
	free(mem);
	cosched_profile_cache_free(c);
}
END_TEST

/*
 * A file older than the window is trusted by its key: an untouched file
 * is not read again, and a change that keeps the size and the inode and
 * sets the mtime one nanosecond later is seen.  (The ctime, which no
 * program can set, moves too where the clock has ticked in between; on a
 * kernel with fine-grained timestamps it always does.)
 */
START_TEST(test_mtime_nanoseconds)
{
	cosched_profile_cache_t *c = new_cache();
	struct timespec ts[2];
	char path[128], *cpu, *mem;
	unsigned long reads;

	same_size_texts("app", &cpu, &mem);
	path_of(path, sizeof(path), "app.json");
	cosched_profile_cache_set_racy_window(c, 0);
	write_in_place("app.json", cpu);
	ts[0].tv_sec = ts[1].tv_sec = 1000000000;	/* 2001 */
	ts[0].tv_nsec = ts[1].tv_nsec = 1;
	ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	refresh_ok(c, 1, 0);
	check_entry(c, "app", 2, 0.01, COSCHED_CAT_CPU);
	reads = cosched_profile_cache_files_read(c);
	refresh_ok(c, 1, 0);
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), reads);

	write_in_place("app.json", mem);
	ts[0].tv_nsec = ts[1].tv_nsec = 2;
	ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	refresh_ok(c, 1, 0);
	check_entry(c, "app", 2, 5.02, COSCHED_CAT_MEM);
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), reads + 1);
	free(cpu);
	free(mem);
	cosched_profile_cache_free(c);
}
END_TEST

/*
 * A corrupt profile is counted in nbad with its error, once per version,
 * and the others stay; a profile that holds another application's name
 * is refused the same way; a good profile that turns bad leaves the
 * cache, and comes back when repaired.
 */
START_TEST(test_corrupt_profile)
{
	cosched_profile_cache_t *c = new_cache();
	char *text;

	cosched_profile_cache_set_racy_window(c, 0);
	put_profile("ep.A", 1, 0.01);
	put_profile("stream", 2, 5.02);
	write_renamed("broken.json", "{\"schema_version\": 1, \"app\": \"bro");
	refresh_ok(c, 2, 1);
	ck_assert_msg(strstr(err.msg, "/broken.json: ") &&
		      strstr(err.msg, "invalid JSON"), "%s", err.msg);
	ck_assert_msg(strncmp(err.msg, dir, strlen(dir)) == 0, "%s", err.msg);
	check_entry(c, "ep.A", 1, 0.01, COSCHED_CAT_CPU);
	check_entry(c, "stream", 2, 5.02, COSCHED_CAT_MEM);
	check_absent(c, "broken");

	/* the same version is not reported again: neither when trusted by
	 * its key nor when read again for being recent */
	refresh_ok(c, 2, 0);
	cosched_profile_cache_set_racy_window(c, 3600LL * 1000000000LL);
	refresh_ok(c, 2, 0);	/* marks the three files recent */
	{
		unsigned long reads = cosched_profile_cache_files_read(c);
		refresh_ok(c, 2, 0);
		ck_assert_uint_eq(cosched_profile_cache_files_read(c), reads + 3);
	}
	cosched_profile_cache_set_racy_window(c, 0);
	refresh_ok(c, 2, 0);
	/* a new version is */
	write_renamed("broken.json", "[]");
	refresh_ok(c, 2, 1);
	ck_assert_msg(strstr(err.msg, "broken.json: (top level)"), "%s", err.msg);

	/* another application's profile under this name */
	text = profile_text("ep.A", 1, 0.01);
	write_renamed("thief.json", text);
	free(text);
	refresh_ok(c, 2, 1);
	ck_assert_msg(strstr(err.msg, "thief.json: app: holds \"ep.A\", expected \"thief\""),
		      "%s", err.msg);

	/* two new failures: both counted, the first by name reported */
	write_renamed("broken.json", "{}");
	write_renamed("thief.json", "null");
	refresh_ok(c, 2, 2);
	ck_assert_msg(strstr(err.msg, "broken.json"), "%s", err.msg);

	/* a good profile that turns bad leaves; the others stay */
	write_renamed("stream.json", "{\"schema_version\": 5}");
	refresh_ok(c, 1, 1);
	ck_assert_msg(strstr(err.msg, "stream.json: schema_version"), "%s", err.msg);
	check_absent(c, "stream");
	check_entry(c, "ep.A", 1, 0.01, COSCHED_CAT_CPU);
	put_profile("stream", 3, 5.02);
	refresh_ok(c, 2, 0);
	check_entry(c, "stream", 3, 5.02, COSCHED_CAT_MEM);
	cosched_profile_cache_free(c);
}
END_TEST

/* In a child under alarm(): refresh a directory holding a FIFO, a link
 * and a directory named like profiles, next to one good profile. */
static int refresh_refusals(void *arg)
{
	cosched_profile_cache_t *c = arg;
	cosched_profile_summary_t s;
	cosched_error_t e;
	int bad = -1;
	long n;

	n = cosched_profile_cache_refresh(c, &bad, &e);
	if (n != 1 || bad != 3) {
		fprintf(stderr, "refresh: %ld profiles, %d bad: %s\n", n, bad,
			e.msg);
		return 1;
	}
	/* the first failure by name: adir.json < fifo.json < link.json */
	if (!strstr(e.msg, "adir.json: not a regular file")) {
		fprintf(stderr, "refresh: %s\n", e.msg);
		return 2;
	}
	if (cosched_profile_cache_lookup(c, "link", &s) ||
	    cosched_profile_cache_lookup(c, "fifo", &s) ||
	    cosched_profile_cache_lookup(c, "adir", &s) ||
	    cosched_profile_cache_lookup(c, "bad name", &s) ||
	    !cosched_profile_cache_lookup(c, "good", &s)) {
		fprintf(stderr, "lookups: wrong set of profiles\n");
		return 3;
	}
	/* only the good profile was ever opened */
	if (cosched_profile_cache_files_read(c) != 1) {
		fprintf(stderr, "%lu files read\n",
			cosched_profile_cache_files_read(c));
		return 5;
	}
	/* reported once: the next refresh is quiet */
	n = cosched_profile_cache_refresh(c, &bad, &e);
	if (n != 1 || bad != 0 || e.msg[0]) {
		fprintf(stderr, "second refresh: %ld, %d bad: %s\n", n, bad,
			e.msg);
		return 4;
	}
	return 0;
}

/*
 * Files that are not profiles are skipped: a bad application name is
 * ignored; a symbolic link (to a valid profile, which following would
 * load), a FIFO (which opening could block on) and a directory are
 * reported and never opened.
 */
START_TEST(test_links_fifos_bad_names)
{
	cosched_profile_cache_t *c = new_cache();
	char path[128], outside[128];
	char *text;

	cosched_profile_cache_set_racy_window(c, 0);
	put_profile("good", 1, 0.01);
	text = profile_text("link", 1, 5.02);
	snprintf(outside, sizeof(outside), "%s.outside.json", dir);
	cosched_check_write_file(outside, text);
	path_of(path, sizeof(path), "link.json");
	ck_assert_int_eq(symlink(outside, path), 0);
	free(text);
	path_of(path, sizeof(path), "fifo.json");
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	path_of(path, sizeof(path), "adir.json");
	ck_assert_int_eq(mkdir(path, 0755), 0);
	/* names no application has: never even looked at */
	text = profile_text("x", 1, 0.01);
	write_renamed("bad name.json", text);
	write_renamed("-.json.tmp", text);
	write_renamed(".hidden.json", text);
	free(text);

	cosched_child_run("refresh beside a FIFO and a link", refresh_refusals,
			  c, 0, 5);
	cosched_profile_cache_free(c);
}
END_TEST

/* In a child that cannot read secret.json: the failure is reported once,
 * but the file is tried again at every refresh, changed or not. */
static int refresh_unreadable_profile(void *arg)
{
	cosched_profile_cache_t *c = arg;
	cosched_error_t e;
	unsigned long reads;
	int bad = -1;
	long n;

	n = cosched_profile_cache_refresh(c, &bad, &e);
	if (n != 1 || bad != 1 || !strstr(e.msg, "secret.json") ||
	    !strstr(e.msg, "Permission denied")) {
		fprintf(stderr, "refresh: %ld, %d bad: %s\n", n, bad, e.msg);
		return 1;
	}
	reads = cosched_profile_cache_files_read(c);
	n = cosched_profile_cache_refresh(c, &bad, &e);
	if (n != 1 || bad != 0 || e.msg[0] ||
	    cosched_profile_cache_files_read(c) != reads + 1) {
		fprintf(stderr, "second refresh: %ld, %d bad, %lu reads: %s\n",
			n, bad, cosched_profile_cache_files_read(c) - reads,
			e.msg);
		return 2;
	}
	return 0;
}

/*
 * A profile the controller cannot read (here: its permissions; as well:
 * no file descriptor left) is not judged by its key: it is read again at
 * every refresh, so it comes in as soon as it can be read, while what a
 * readable file holds is judged once per version.
 */
START_TEST(test_unreadable_profile_retried)
{
	cosched_profile_cache_t *c = new_cache();
	char path[128];

	cosched_profile_cache_set_racy_window(c, 0);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	put_profile("ep.A", 1, 0.01);
	put_profile("secret", 1, 5.02);
	path_of(path, sizeof(path), "secret.json");
	ck_assert_int_eq(chmod(path, geteuid() == 0 ? 0600 : 0), 0);
	cosched_child_run("refresh with an unreadable profile",
			  refresh_unreadable_profile, c,
			  COSCHED_CHILD_AS_NOBODY, 5);
	cosched_profile_cache_free(c);
}
END_TEST

/*
 * A file written within the window before a refresh is read again at the
 * next refresh even when its key has not changed (its timestamps could
 * still take the same value at a second write); once older, never again.
 */
START_TEST(test_recent_files_read_again)
{
	cosched_profile_cache_t *c = new_cache();
	char path[128];
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	cosched_profile_cache_set_racy_window(c, 3600LL * 1000000000LL);
	put_profile("app", 1, 0.01);
	refresh_ok(c, 1, 0);
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), 1);
	refresh_ok(c, 1, 0);
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), 2);
	refresh_ok(c, 1, 0);
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), 3);
	check_entry(c, "app", 1, 0.01, COSCHED_CAT_CPU);
	/* an mtime of 2001 is old, but the ctime (now) is recent too */
	path_of(path, sizeof(path), "app.json");
	ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	refresh_ok(c, 1, 0);
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), 4);
	/* a window of 0: the version read last is trusted */
	cosched_profile_cache_set_racy_window(c, 0);
	refresh_ok(c, 1, 0);
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), 5);
	refresh_ok(c, 1, 0);
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), 5);
	cosched_profile_cache_free(c);
}
END_TEST

/* --- the directory fails --------------------------------------------------- */

static int refresh_unreadable(void *arg)
{
	cosched_profile_cache_t *c = arg;
	cosched_profile_summary_t s;
	cosched_error_t e;
	int bad = -1;

	if (cosched_profile_cache_refresh(c, &bad, &e) != -1 ||
	    !strstr(e.msg, "Permission denied") || bad != 0) {
		fprintf(stderr, "refresh: %s\n", e.msg);
		return 1;
	}
	if (cosched_profile_cache_size(c) != 2 ||
	    !cosched_profile_cache_lookup(c, "ep.A", &s) ||
	    s.cls.cat != COSCHED_CAT_CPU)
		return 2;
	return 0;
}

/*
 * A directory that cannot be read (gone, or closed to the caller) fails
 * the refresh with -1 and leaves the cache as it was; once it is back the
 * next refresh goes on from there.
 */
START_TEST(test_unreadable_dir)
{
	cosched_profile_cache_t *c = new_cache();
	char moved[96];
	int bad = -1;

	put_profile("ep.A", 1, 0.01);
	put_profile("stream", 2, 5.02);
	refresh_ok(c, 2, 0);

	snprintf(moved, sizeof(moved), "%s.moved", dir);
	ck_assert_int_eq(rename(dir, moved), 0);
	ck_assert_int_eq(cosched_profile_cache_refresh(c, &bad, &err), -1);
	ck_assert_int_eq(bad, 0);
	ck_assert_msg(strstr(err.msg, dir) && strstr(err.msg, "No such file"),
		      "%s", err.msg);
	ck_assert_uint_eq(cosched_profile_cache_size(c), 2);
	check_entry(c, "ep.A", 1, 0.01, COSCHED_CAT_CPU);
	check_entry(c, "stream", 2, 5.02, COSCHED_CAT_MEM);
	ck_assert_int_eq(rename(moved, dir), 0);
	refresh_ok(c, 2, 0);

	/* closed to the caller: as nobody when root (root reads anyway) */
	ck_assert_int_eq(chmod(dir, 0700), 0);
	if (geteuid() != 0)
		ck_assert_int_eq(chmod(dir, 0), 0);
	cosched_child_run("refresh of an unreadable directory",
			  refresh_unreadable, c, COSCHED_CHILD_AS_NOBODY, 5);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	cosched_profile_cache_free(c);
}
END_TEST

/* --- summaries ------------------------------------------------------------- */

/*
 * A profile with more EDP points than the cache keeps: 20 thread counts x
 * 10 frequencies, each point of thread count t sampled t times.  The
 * cache keeps whole sweeps of the most used thread counts (20 down to 9)
 * and the first 8 frequencies of the next (8), in the profile's order.
 */
/* A user's own profile (APP@UID.json) is cached under its key, and only
 * when it is that user's; a name that is no key is no profile. */
START_TEST(test_user_keys)
{
	cosched_profile_cache_t *c = new_cache();
	cosched_profile_summary_t s;
	cosched_profile_t p;
	char *text;

	cosched_profile_cache_set_racy_window(c, 0);
	put_profile("lammps", 1, 0.01);
	text = profile_text("lammps", 2, 5.02);
	ck_assert_int_eq(cosched_profile_from_json(&p, text, &err), 0);
	free(text);
	p.owner_uid = 1002;
	text = cosched_profile_to_json(&p, &err);
	ck_assert_ptr_nonnull(text);
	cosched_profile_free(&p);
	write_renamed("lammps@1002.json", text);
	write_renamed("lammps@1003.json", text);	/* not 1003's */
	write_renamed("lammps@01.json", text);
	write_renamed("lammps@x.json", text);
	free(text);
	refresh_ok(c, 2, 1);
	ck_assert_msg(strstr(err.msg, "lammps@1003.json: owner_uid: holds 1002, expected 1003"),
		      "%s", err.msg);
	ck_assert_int_eq(cosched_profile_cache_lookup(c, "lammps@1002", &s), 1);
	ck_assert_str_eq(s.app, "lammps@1002");
	ck_assert_int_eq(s.owner_uid, 1002);
	ck_assert_int_eq(s.cls.cat, COSCHED_CAT_MEM);
	check_entry(c, "lammps", 1, 0.01, COSCHED_CAT_CPU);
	check_absent(c, "lammps@1003");
	check_absent(c, "lammps@01");
	ck_assert_uint_eq(cosched_profile_cache_files_read(c), 3);
	cosched_profile_cache_free(c);
}
END_TEST

START_TEST(test_edp_bound)
{
	cosched_profile_cache_t *c = new_cache();
	cosched_profile_summary_t s;
	cosched_profile_t p;
	char *text;
	int k = 0;

	ck_assert_int_eq(cosched_profile_init(&p, "sweep", &err), 0);
	p.runs_merged = 2100;
	p.derived.ipc = 1.0;
	p.derived.mpki = 0.01;
	p.n_edp = 200;
	p.edp = calloc(200, sizeof(*p.edp));
	ck_assert_ptr_nonnull(p.edp);
	for (int t = 1; t <= 20; t++)
		for (int f = 0; f < 10; f++, k++) {
			p.edp[k].threads = t;
			p.edp[k].freq_khz = 1200000 + 100000L * f;
			p.edp[k].time_s = 100.0 / t;
			p.edp[k].energy_j = NAN;
			p.edp[k].samples = (unsigned long) t;
		}
	text = cosched_profile_to_json(&p, &err);
	ck_assert_msg(text != NULL, "%s", err.msg);
	cosched_profile_free(&p);
	write_renamed("sweep.json", text);
	free(text);
	refresh_ok(c, 1, 0);
	ck_assert_int_eq(cosched_profile_cache_lookup(c, "sweep", &s), 1);
	ck_assert_int_eq(s.n_edp, COSCHED_PROFILE_CACHE_EDP_MAX);
	ck_assert_uint_eq(s.runs_merged, 2100);
	ck_assert(isnan(s.threads));
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(s.edp[i].threads, 8);
		ck_assert_int_eq(s.edp[i].freq_khz, 1200000 + 100000L * i);
	}
	for (int i = 8; i < COSCHED_PROFILE_CACHE_EDP_MAX; i++) {
		ck_assert_int_eq(s.edp[i].threads, 9 + (i - 8) / 10);
		ck_assert_int_eq(s.edp[i].freq_khz,
				 1200000 + 100000L * ((i - 8) % 10));
		ck_assert_double_eq(s.edp[i].time_s, 100.0 / s.edp[i].threads);
		ck_assert(isnan(s.edp[i].energy_j));
	}
	cosched_profile_cache_free(c);
}
END_TEST

/* The thresholds are the configuration's, copied at creation: with
 * ClassifyMemMPKI raised above a profile's MPKI it is lim, not mem. */
START_TEST(test_conf_thresholds)
{
	cosched_profile_cache_t *c;
	cosched_profile_summary_t s;

	ck_assert_msg(cosched_conf_set(&conf, NULL, "ClassifyMemMPKI", "6", &err) == 0,
		      "%s", err.msg);
	c = new_cache();
	cosched_conf_init(&conf);	/* copied: changing it now is harmless */
	put_profile("stream", 2, 5.02);
	refresh_ok(c, 1, 0);
	ck_assert_int_eq(cosched_profile_cache_lookup(c, "stream", &s), 1);
	ck_assert_int_eq(s.cls.cat, COSCHED_CAT_LIM);
	cosched_profile_cache_free(c);
}
END_TEST

/* A user cannot plant or alter a profile: a file another user owns, or
 * one group or others may write, is refused with the reason; the same
 * file owned by root (the test runs as root) and 0644 is used. */
START_TEST(test_untrusted_profiles_refused)
{
	cosched_profile_cache_t *c = new_cache();
	char path[160];

	if (geteuid() != 0) {
		fprintf(stderr, "test_untrusted_profiles_refused: skipped: needs root to chown\n");
		cosched_profile_cache_free(c);
		return;
	}
	cosched_profile_cache_set_racy_window(c, 0);
	put_profile("stream", 2, 5.02);
	snprintf(path, sizeof(path), "%s/stream.json", dir);
	ck_assert_int_eq(chown(path, 65534, 65534), 0);
	refresh_ok(c, 0, 1);
	ck_assert_msg(strstr(err.msg, "stream.json: owned by uid 65534: only root or SlurmUser"),
		      "%s", err.msg);
	check_absent(c, "stream");
	ck_assert_int_eq(chown(path, 0, 0), 0);
	ck_assert_int_eq(chmod(path, 0666), 0);
	refresh_ok(c, 0, 1);
	ck_assert_msg(strstr(err.msg, "stream.json: writable by group or others (mode 0666)"),
		      "%s", err.msg);
	ck_assert_int_eq(chmod(path, 0644), 0);
	refresh_ok(c, 1, 0);
	check_entry(c, "stream", 2, 5.02, COSCHED_CAT_MEM);
	cosched_profile_cache_free(c);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("profile_cache");
	TCase *tc = tcase_create("profile_cache");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_create_refusals);
	tcase_add_test(tc, test_empty_dir);
	tcase_add_test(tc, test_appear_change_disappear);
	tcase_add_test(tc, test_change_within_the_same_second);
	tcase_add_test(tc, test_mtime_nanoseconds);
	tcase_add_test(tc, test_recent_files_read_again);
	tcase_add_test(tc, test_corrupt_profile);
	tcase_add_test(tc, test_links_fifos_bad_names);
	tcase_add_test(tc, test_unreadable_profile_retried);
	tcase_add_test(tc, test_unreadable_dir);
	tcase_add_test(tc, test_user_keys);
	tcase_add_test(tc, test_edp_bound);
	tcase_add_test(tc, test_conf_thresholds);
	tcase_add_test(tc, test_untrusted_profiles_refused);
	suite_add_tcase(s, tc);
	return s;
}
