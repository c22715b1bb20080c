/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text.h - text that comes from outside: trimming, and quoting
 * for messages and logs.
 *
 * Anything a user can set (job options, the SPANK environment, job and
 * application names) is untrusted everywhere it travels.  Before it is
 * written into a message or a log line it is quoted: control characters,
 * backslashes, quotes and bytes outside printable ASCII are escaped (\n,
 * \t, \\, \", \xNN) and the text is cut after COSCHED_QUOTE_CHARS input
 * bytes, so a value can neither start a forged log line nor fill Slurm's
 * log message with itself.
 */
#ifndef COSCHED_TEXT_H
#define COSCHED_TEXT_H

#include <stddef.h>

/* The bytes a name from outside may have where it becomes part of a file
 * name (a node's name in a live load's, a step record's JOB.STEP.NODE):
 * no '/', no blank, nothing a shell or a log would read otherwise. */
#define COSCHED_FILE_NAME_CHARS \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

/* FNV-1a of s: the hash of the sets of names the readers keep. */
size_t cosched_name_hash(const char *s);

/* Strip leading and trailing whitespace in place; returns the start. */
char *cosched_trim(char *s);

/* src into dst (size bytes, size >= 1), cut to fit and always
 * terminated, as snprintf(dst, size, "%s", src) writes it but without
 * printf's cost on paths slurmctld takes for every job.  Returns the
 * bytes written. */
size_t cosched_text_copy(char *dst, size_t size, const char *src);

/* src after the at bytes already in buf (len bytes, len >= 1), cut to fit
 * as snprintf cuts its whole text; returns the new length.  A printf
 * format put together piece by piece (with cosched_decimal and
 * cosched_fixed for numbers), for reasons slurmctld writes for every
 * job. */
size_t cosched_text_put(char *buf, size_t len, size_t at, const char *src);
/* The same with v's decimal text (printf's "%d"), and with v's text of
 * decimals digits after the point (printf's "%.*f"). */
size_t cosched_text_put_int(char *buf, size_t len, size_t at, long long v);
size_t cosched_text_put_fixed(char *buf, size_t len, size_t at, double v,
			      int decimals);

/* Input bytes a quote shows before it is cut ("..." follows). */
#define COSCHED_QUOTE_CHARS 48
/* Room for the quote of any text: every byte may become \xNN, then the
 * quotes and "...(N bytes)". */
#define COSCHED_QUOTE_BUF (4 * COSCHED_QUOTE_CHARS + 40)

/*
 * Write s into buf (len bytes) as a quoted, escaped, shortened string:
 * "abc", "a\nb", "aaaa..."(300 bytes).  NULL is written as (null).
 * Returns buf.
 */
char *cosched_quote(char *buf, size_t len, const char *s);

/* cosched_quote() into a buffer that lives until the end of the enclosing
 * block, for one argument of a printf-style call. */
#define COSCHED_QUOTE(s) \
	cosched_quote((char[COSCHED_QUOTE_BUF]){ 0 }, COSCHED_QUOTE_BUF, (s))

#endif
