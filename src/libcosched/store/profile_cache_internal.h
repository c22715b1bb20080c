/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile_cache_internal.h - what the unit tests see of the
 * profile cache beyond its interface (store/profile_cache.h).  Not for
 * the controller: cosched_ctld.so does not export these.
 */
#ifndef COSCHED_PROFILE_CACHE_INTERNAL_H
#define COSCHED_PROFILE_CACHE_INTERNAL_H

#include "src/libcosched/store/profile_cache.h"

/* A file whose mtime or ctime is within ns before a refresh's start (or
 * later) is read again at the next refresh whatever its key (default
 * 2 s).  0 lets a test see that unchanged files are not read again. */
void cosched_profile_cache_set_racy_window(cosched_profile_cache_t *c,
					   long long ns);

/* Profile files read (opened and parsed) since the cache was created. */
unsigned long cosched_profile_cache_files_read(cosched_profile_cache_t *c);

#endif
