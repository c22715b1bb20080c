/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nametable.h - the names of an enum's values, written once.
 *
 * Every cosched enum that has names (categories, LCA classes, policies,
 * power policies, rejection reasons...) keeps them in one array indexed by
 * the value; these helpers turn a value into its name and a typed name
 * into a value, with one message form for a name that is not allowed:
 *   FIELD: invalid NOUN "TEXT" (allowed: a, b, c)
 */
#ifndef COSCHED_NAMETABLE_H
#define COSCHED_NAMETABLE_H

#include <stdbool.h>

#include "src/libcosched/base/error.h"

/* The name of value in names[0 .. count), or unknown when it is outside. */
const char *cosched_name_of(const char *const *names, int count, int value,
			    const char *unknown);

/*
 * The index of str among names[first .. count) (ignore_case: any case, as
 * cosched.conf is read), or -1 with err set: "FIELD: invalid NOUN "STR"
 * (allowed: ...)", STR quoted with COSCHED_QUOTE().
 */
int cosched_name_parse(const char *field, const char *noun,
		       const char *const *names, int first, int count,
		       const char *str, bool ignore_case, cosched_error_t *err);

#endif
