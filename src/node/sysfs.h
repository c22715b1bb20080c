/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysfs.h - reading one sysfs attribute, as cpufreq and powercap
 * (src/node/cpufreq.c, rapl.c) both do.
 *
 * sysfs attributes report 4096 bytes whatever they hold, so they are read
 * to end of file (never by their size, as cosched_read_file() does for
 * regular files), opened without following links (cosched_open_regular),
 * and their kernel forms parsed strictly.
 */
#ifndef COSCHED_SYSFS_H
#define COSCHED_SYSFS_H

#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/base/error.h"

/*
 * Read DIR/NAME into buf (len bytes with its NUL) without its one trailing
 * newline.  *missing (may be NULL) is set when the file does not exist.
 * hint (may be NULL) gives text to add to an open or read error for an
 * errno (powercap's root-only energy counters).  -1 with err; errno then
 * holds the failing call's.
 */
int cosched_sysfs_read(const char *dir, const char *name, char *buf,
		       size_t len, int *missing,
		       const char *(*hint)(int errnum), cosched_error_t *err);

/* "DIR/NAME: invalid value "TEXT" (expected EXPECTED)"; returns -1. */
int cosched_sysfs_malformed(const char *dir, const char *name,
			    const char *text, const char *expected,
			    cosched_error_t *err);

/* A decimal of n bytes without sign or leading zero, 0 .. max (at most
 * 19 digits); -1 when it is not one. */
int cosched_sysfs_parse_u64(const char *s, size_t n, uint64_t max,
			    uint64_t *out);

#endif
