/* SPDX-License-Identifier: GPL-2.0-or-later */
/* base/appname.c - application names: checked, and the generic ones. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "src/libcosched/base/appname.h"
#include "src/libcosched/base/text.h"

int cosched_app_name_check(const char *field, const char *name,
			   cosched_error_t *err)
{
	size_t len;

	if (!name || !*name)
		return cosched_error_set(err, "%s: empty application name",
					 field);
	len = strlen(name);
	if (len > COSCHED_APP_NAME_MAX)
		return cosched_error_set(err,
			"%s: application name %s is too long (%zu bytes, at most %d)",
			field, COSCHED_QUOTE(name), len, COSCHED_APP_NAME_MAX);
	if (name[0] == '.')
		return cosched_error_set(err,
			"%s: invalid application name %s (must not start with '.')",
			field, COSCHED_QUOTE(name));
	for (const char *p = name; *p; p++) {
		unsigned char c = (unsigned char) *p;
		char what[16];

		if (isalnum(c) || c == '.' || c == '_' || c == '-' || c == '+')
			continue;
		if (c >= 0x20 && c < 0x7f && c != '\'')
			snprintf(what, sizeof(what), "character '%c'", c);
		else
			snprintf(what, sizeof(what), "byte 0x%02x", c);
		return cosched_error_set(err,
			"%s: invalid application name %s (%s not allowed; use letters, digits and . _ + -)",
			field, COSCHED_QUOTE(name), what);
	}
	return 0;
}

bool cosched_app_name_is_generic(const char *name)
{
	static const char *const generic[] = {
		"wrap", "sbatch", "salloc", "srun", "interactive",
		"sh", "bash", "zsh", "csh", "tcsh", "ksh",
	};

	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (!strcmp(name, generic[i]))
			return true;
	return false;
}
