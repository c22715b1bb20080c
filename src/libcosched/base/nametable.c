/* SPDX-License-Identifier: GPL-2.0-or-later */
/* base/nametable.c - enum values to names and back. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/text.h"

const char *cosched_name_of(const char *const *names, int count, int value,
			    const char *unknown)
{
	if (value < 0 || value >= count || !names[value])
		return unknown;
	return names[value];
}

int cosched_name_parse(const char *field, const char *noun,
		       const char *const *names, int first, int count,
		       const char *str, bool ignore_case, cosched_error_t *err)
{
	char allowed[256];
	size_t at = 0;

	for (int i = first; str && i < count; i++)
		if (names[i] && (ignore_case ? !strcasecmp(str, names[i]) :
					       !strcmp(str, names[i])))
			return i;
	allowed[0] = '\0';
	for (int i = first; i < count && at < sizeof(allowed); i++)
		if (names[i])
			at += (size_t) snprintf(allowed + at, sizeof(allowed) - at,
						"%s%s", at ? ", " : "", names[i]);
	cosched_error_set(err, "%s: invalid %s %s (allowed: %s)", field, noun,
			  COSCHED_QUOTE(str ? str : ""), allowed);
	return -1;
}
