/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile_cache_dir.h - a profile directory for the profile cache's tests
 * (a fixture: setup, teardown), profiles written in it as the store writes
 * them or in place, and the assertions on the cache that
 * test_profile_cache.c and test_profile_cache_threads.c share. */
#ifndef PROFILE_CACHE_DIR_H
#define PROFILE_CACHE_DIR_H

#include <stddef.h>

#include "cosched_check.h"
#include "src/libcosched/conf/conf.h"
#include "src/libcosched/store/profile_cache.h"

/* The test's ProfileDir, the configuration naming it, the last error. */
extern char dir[64];
extern cosched_conf_t conf;
extern cosched_error_t err;

void setup(void);
void teardown(void);

/*
 * A profile with data whose every figure tells its version v: runs_merged
 * v, MPKI mpki, mean threads v, and v EDP points (threads 1..v) of time
 * and energy v and v samples.  IPC 1.  With no node peak configured the
 * MPKI decides the category (src/libcosched/model/classify.c): 0.01 cpu, 1.66 lim,
 * 5.02 mem.  Malloc'd.
 */
char *profile_text(const char *app, int v, double mpki);
/* dir/name. */
void path_of(char *path, size_t len, const char *name);
/* Write name in place (same inode when it exists). */
void write_in_place(const char *name, const char *text);
/* Write name as the store does: a new file renamed over the old one. */
void write_renamed(const char *name, const char *text);
/* app.json at version v, renamed into place. */
void put_profile(const char *app, int v, double mpki);
void remove_file(const char *name);
cosched_profile_cache_t *new_cache(void);
/* Refresh and require count profiles and nbad new failures. */
void refresh_ok(cosched_profile_cache_t *c, long count, int nbad);
/* app is cached at version v with category cat. */
void check_entry(cosched_profile_cache_t *c, const char *app, int v,
		 double mpki, cosched_category_t cat);
void check_absent(cosched_profile_cache_t *c, const char *app);

#endif
