/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_common.h - what the libFuzzer targets of the parsers share: the
 * entry point's prototype, turning the input into a C string, and the
 * checks every error message must pass.
 *
 * A violated invariant aborts, which libFuzzer reports as a crash and
 * saves the input (scripts/fuzz names its path).
 */
#ifndef COSCHED_FUZZ_COMMON_H
#define COSCHED_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort naming the invariant (and the message or text involved). */
__attribute__((noreturn)) static inline void
fuzz_fail(const char *file, int line, const char *what, const char *detail)
{
	fprintf(stderr, "%s:%d: invariant violated: %s\n", file, line, what);
	if (detail)
		fprintf(stderr, "  detail: %s\n", detail);
	abort();
}

#define FUZZ_CHECK(cond, what, detail)					\
	do {								\
		if (!(cond))						\
			fuzz_fail(__FILE__, __LINE__, (what), (detail)); \
	} while (0)

/* The input as a NUL-terminated string (an embedded NUL ends it, as it
 * would end any C string the core is given).  Caller frees. */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Whether text has a control character (a byte < 0x20 or 0x7f). */
static inline int fuzz_has_control(const char *text)
{
	for (const unsigned char *p = (const unsigned char *) text; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 1;
	return 0;
}

/* An error to be filled: no NUL anywhere, so a message that was never
 * written (or not terminated) fails fuzz_check_error(). */
static inline void fuzz_error_poison(cosched_error_t *err)
{
	memset(err->msg, 0xa5, sizeof(err->msg));
}

/* A failure's message: written, terminated inside the buffer, not empty,
 * and free of control characters (it goes to Slurm's logs as it is). */
static inline void fuzz_check_error(const cosched_error_t *err)
{
	FUZZ_CHECK(memchr(err->msg, '\0', sizeof(err->msg)) != NULL,
		   "error message not written or not terminated in its buffer",
		   NULL);
	FUZZ_CHECK(err->msg[0] != '\0', "empty error message", NULL);
	FUZZ_CHECK(!fuzz_has_control(err->msg),
		   "control character in an error message", err->msg);
}

#endif
