/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf_apply.h - write measured lines into cosched.conf atomically
 * (cosched-calibrate --apply).
 */
#ifndef COSCHED_CONF_APPLY_H
#define COSCHED_CONF_APPLY_H

#include "src/libcosched/base/error.h"

/*
 * Replace every Interference= and PreferenceTable= line of the file at
 * path with lines[0..n-1] (each "Key=Value", no newline), preceded by the
 * comment lines of comment (may be NULL; each line is prefixed "# "), at
 * the place of the first replaced line, or at the end when there was
 * none.  Every other line is kept byte for byte.  The file must parse
 * with cosched.conf's own parser before (a file it cannot parse is
 * refused, unchanged) and the result must parse after; the new text is
 * written beside the file (same owner and mode), fsync()ed and renamed
 * over it, then the directory is fsync()ed.  A missing file is created
 * (mode 0644) when create is set.
 */
int conf_apply(const char *path, const char *const *lines, int n,
	       const char *comment, int create, cosched_error_t *err);

#endif
