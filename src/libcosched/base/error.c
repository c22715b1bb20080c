/* SPDX-License-Identifier: GPL-2.0-or-later */
/* base/error.c - error reporting for the decision core. */
#include <stdarg.h>
#include <stdio.h>

#include "src/libcosched/base/error.h"

int cosched_error_set(cosched_error_t *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		/* The last line of defence for logs: values are quoted with
		 * COSCHED_QUOTE(), but nothing may reach a log raw. */
		for (char *p = err->msg; *p; p++)
			if ((unsigned char) *p < 0x20 || *p == 0x7f)
				*p = '?';
	}
	return -1;
}

int cosched_error_prefix(cosched_error_t *err, const char *prefix)
{
	char msg[COSCHED_ERROR_MSG_LEN];

	if (!err)
		return -1;
	if (!prefix || !*prefix)
		return -1;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	return cosched_error_set(err, "%s: %s", prefix, msg);
}

void cosched_error_clear(cosched_error_t *err)
{
	if (err)
		err->msg[0] = '\0';
}
