/* cosched_error.c - error reporting for the decision core. */
#include <stdarg.h>
#include <stdio.h>

#include "cosched_error.h"

int cosched_error_set(cosched_error_t *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

void cosched_error_clear(cosched_error_t *err)
{
	if (err)
		err->msg[0] = '\0';
}
