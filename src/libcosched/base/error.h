/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * error.h - error reporting for the decision core.
 *
 * The core knows nothing of Slurm's logging: every function that can fail
 * fills a caller-provided cosched_error_t with one message that names the
 * field and the offending value, and the adapters (plugins, node programs,
 * tools) print it with their own logger.
 *
 * Messages often quote what a user typed, and they end up in slurmctld's
 * and slurmd's logs: a value is quoted with COSCHED_QUOTE()
 * (base/text.h), which escapes and shortens it, and cosched_error_set()
 * replaces any control character left in the finished message, so no
 * message can start a forged log line or carry a terminal escape.
 */
#ifndef COSCHED_ERROR_H
#define COSCHED_ERROR_H

#define COSCHED_ERROR_MSG_LEN 512

typedef struct {
	char msg[COSCHED_ERROR_MSG_LEN];
} cosched_error_t;

/* Set err->msg (when err is not NULL) and return -1, so that callers can
 * write "return cosched_error_set(err, ...);".  Control characters in the
 * result become '?'. */
int cosched_error_set(cosched_error_t *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefix err's message with "prefix: " (a file and line, an option);
 * returns -1 like cosched_error_set(). */
int cosched_error_prefix(cosched_error_t *err, const char *prefix);

/* Clear an error (empty message). */
void cosched_error_clear(cosched_error_t *err);

#endif
