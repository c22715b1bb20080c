/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile_cache_dir.c - a profile directory for the profile cache's
 * tests, and the assertions on the cache that test_profile_cache.c and
 * test_profile_cache_threads.c share (profile_cache_dir.h). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile_cache_dir.h"
#include "src/libcosched/store/profile_json.h"

char dir[64];
cosched_conf_t conf;
cosched_error_t err;

void setup(void)
{
	cosched_check_tmpdir(dir, sizeof(dir), "pcache");
	cosched_conf_init(&conf);
	snprintf(conf.profile_dir, sizeof(conf.profile_dir), "%s", dir);
	cosched_error_clear(&err);
}

void teardown(void)
{
	char other[96];

	(void) chmod(dir, 0755);
	cosched_check_rm_rf(dir);
	snprintf(other, sizeof(other), "%s.moved", dir);
	cosched_check_rm_rf(other);
	snprintf(other, sizeof(other), "%s.outside.json", dir);
	unlink(other);
}

/*
 * A profile with data whose every figure tells its version v: runs_merged
 * v, MPKI mpki, mean threads v, and v EDP points (threads 1..v) of time
 * and energy v and v samples.  IPC 1.  With no node peak configured the
 * MPKI decides the category (src/libcosched/model/classify.c): 0.01 cpu, 1.66 lim,
 * 5.02 mem.
 */
char *profile_text(const char *app, int v, double mpki)
{
	cosched_profile_t p;
	char *text;

	ck_assert_int_eq(cosched_profile_init(&p, app, &err), 0);
	p.runs_merged = (unsigned long) v;
	p.derived.ipc = 1.0;
	p.derived.mpki = mpki;
	p.derived.threads = v;
	p.n_edp = v;
	p.edp = calloc((size_t) v, sizeof(*p.edp));
	ck_assert_ptr_nonnull(p.edp);
	for (int i = 0; i < v; i++) {
		p.edp[i].threads = i + 1;
		p.edp[i].freq_khz = 2200000;
		p.edp[i].time_s = v;
		p.edp[i].energy_j = v;
		p.edp[i].samples = (unsigned long) v;
	}
	text = cosched_profile_to_json(&p, &err);
	ck_assert_msg(text != NULL, "%s", err.msg);
	cosched_profile_free(&p);
	return text;
}

void path_of(char *path, size_t len, const char *name)
{
	snprintf(path, len, "%s/%s", dir, name);
}

/* Write name in place (same inode when it exists). */
void write_in_place(const char *name, const char *text)
{
	char path[128];
	int fd;

	path_of(path, sizeof(path), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t) strlen(text));
	ck_assert_int_eq(close(fd), 0);
}

/* Write name as the store does: a new file renamed over the old one. */
void write_renamed(const char *name, const char *text)
{
	char path[128], tmp[160];
	int fd;

	path_of(path, sizeof(path), name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name);
	fd = mkstemp(tmp);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t) strlen(text));
	ck_assert_int_eq(fchmod(fd, 0644), 0);
	ck_assert_int_eq(close(fd), 0);
	ck_assert_int_eq(rename(tmp, path), 0);
}

void put_profile(const char *app, int v, double mpki)
{
	char name[96];
	char *text = profile_text(app, v, mpki);

	snprintf(name, sizeof(name), "%s.json", app);
	write_renamed(name, text);
	free(text);
}

void remove_file(const char *name)
{
	char path[128];

	path_of(path, sizeof(path), name);
	ck_assert_int_eq(unlink(path), 0);
}

cosched_profile_cache_t *new_cache(void)
{
	cosched_profile_cache_t *c = cosched_profile_cache_create(&conf, &err);

	ck_assert_msg(c != NULL, "%s", err.msg);
	return c;
}

/* Refresh and require count profiles and nbad new failures. */
void refresh_ok(cosched_profile_cache_t *c, long count, int nbad)
{
	int bad = -1;
	long n = cosched_profile_cache_refresh(c, &bad, &err);

	ck_assert_msg(n == count, "refresh: %ld profiles, expected %ld (%s)",
		      n, count, err.msg);
	ck_assert_msg(bad == nbad, "refresh: nbad %d, expected %d (%s)", bad,
		      nbad, err.msg);
	if (!nbad)
		ck_assert_str_eq(err.msg, "");
	ck_assert_uint_eq(cosched_profile_cache_size(c), (size_t) count);
}

/* app is cached at version v with category cat. */
void check_entry(cosched_profile_cache_t *c, const char *app, int v,
			double mpki, cosched_category_t cat)
{
	cosched_profile_summary_t s;

	ck_assert_msg(cosched_profile_cache_lookup(c, app, &s) == 1,
		      "%s not cached", app);
	ck_assert_str_eq(s.app, app);
	ck_assert_msg(s.cls.cat == cat, "%s: category %s, expected %s", app,
		      cosched_category_name(s.cls.cat),
		      cosched_category_name(cat));
	ck_assert_int_eq(s.cls.lca, cosched_category_to_lca(cat));
	ck_assert_int_eq(s.cls.source, COSCHED_CLASS_FROM_PROFILE);
	ck_assert_double_eq(s.mpki, mpki);
	ck_assert_double_eq(s.threads, v);
	ck_assert_uint_eq(s.runs_merged, (unsigned long) v);
	ck_assert_int_eq(s.n_edp, v);
	for (int i = 0; i < v; i++) {
		ck_assert_int_eq(s.edp[i].threads, i + 1);
		ck_assert_double_eq(s.edp[i].time_s, v);
		ck_assert_uint_eq(s.edp[i].samples, (unsigned long) v);
	}
}

void check_absent(cosched_profile_cache_t *c, const char *app)
{
	cosched_profile_summary_t s;

	ck_assert_msg(cosched_profile_cache_lookup(c, app, &s) == 0,
		      "%s is cached", app);
}
