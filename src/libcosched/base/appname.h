/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * appname.h - application names.
 *
 * An application name keys a profile in the store (<ProfileDir>/<app>.json)
 * and appears in logs, so it is checked wherever it comes from (the
 * --cosched-app option, a job name, a profile file): 1 to
 * COSCHED_APP_NAME_MAX bytes of [A-Za-z0-9._+-], not starting with '.'.
 * No accepted name can leave the profile directory or name its lock and
 * temporary files.
 */
#ifndef COSCHED_APPNAME_H
#define COSCHED_APPNAME_H

#include <stdbool.h>

#include "src/libcosched/base/error.h"

/* Longest application name, in bytes. */
#define COSCHED_APP_NAME_MAX 64

/* Check a name; field names its source for the message. */
int cosched_app_name_check(const char *field, const char *name,
			   cosched_error_t *err);

/*
 * Whether a job name is one Slurm gives when the user gave none ("wrap" for
 * --wrap, "sbatch" for a script on stdin, "interactive" for salloc) or a
 * shell: such a name says nothing about the application, so it is not used
 * as one (its profiles would mix unrelated programs).
 */
bool cosched_app_name_is_generic(const char *name);

#endif
