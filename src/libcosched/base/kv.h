/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kv.h - the one codec of cosched's "key=value" lines: the decision
 * record, the node's state files (cpufreq journal, energy ledger, NUMA
 * step files, cosched-numad's state), the learned table and the live
 * loads.
 *
 * A line is an optional leading word ("cosched/1", "domain", "holder")
 * and then fields "KEY=VALUE" separated by exactly one blank, with no
 * blank at either end.  A VALUE is either bare (no blank; not starting
 * with '"') or double-quoted, '"' and '\' escaped with '\', printable
 * ASCII only.  Knowing that much lets a reader step over a field it does
 * not know, quoted or not: what lets an older reader skip a key a newer
 * writer added (below).
 *
 * Every reader is strict: a missing, repeated or unknown field, a value
 * not in the writer's one form, a second blank or trailing bytes is an
 * error naming the field and quoting the value (base/text.h).  The files
 * of such lines are read by one reader, base/kv_file.h, which applies
 * the version rule below to every line.
 *
 * Versions.  Every record and state file starts with TAG/VERSION, VERSION
 * MAJOR[.MINOR] ("1" is 1.0, and a writer writes ".MINOR" only when it is
 * not 0, so that a file of a 1.0 writer stays byte for byte what the
 * releases before minors wrote).  The rule (cosched(8) UPGRADE):
 *   - a newer MINOR of the reader's MAJOR is read: it may carry keys the
 *     reader does not know, which it skips (and says so once, at debug
 *     level); a minor never changes what a known key means;
 *   - a MAJOR other than the reader's is refused, naming both versions.
 * A writer bumps MINOR when it adds a key an older reader may skip, and
 * MAJOR when it changes what an existing key means or adds one that an
 * older reader must not skip.
 */
#ifndef COSCHED_KV_H
#define COSCHED_KV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/base/error.h"

/* ---- versions ---------------------------------------------------------- */

typedef struct {
	unsigned major, minor;
} cosched_kv_version_t;

/*
 * Read the version after TAG/ (text: "MAJOR[.MINOR]") against the version
 * this reader writes, own: 0 and *seen set when the major is own's; -1
 * with err otherwise: "WHAT schema TAG/2.0 is newer than READER
 * understands (TAG/1.x)", or older, or "WHAT schema: invalid version
 * "TEXT" (...)".  Numbers are decimal without sign or leading zero.
 * what: "decision record"; reader: "this node".
 */
int cosched_kv_version_read(const char *what, const char *reader,
			    const char *tag, const char *text,
			    cosched_kv_version_t own,
			    cosched_kv_version_t *seen, cosched_error_t *err);

/* "TAG/MAJOR" when minor is 0, else "TAG/MAJOR.MINOR", into buf. */
char *cosched_kv_version_text(const char *tag, cosched_kv_version_t v,
			      char *buf, size_t len);

/* Whether v is newer than own within own's major (its unknown keys are
 * then skipped, not refused). */
bool cosched_kv_version_newer_minor(cosched_kv_version_t v,
				    cosched_kv_version_t own);

/*
 * Saying what a newer minor carried: the reader of versioned files
 * (base/kv_file.h) reports the keys and lines it skipped through one
 * hook, which the program that reads them sets to
 * its logger at debug level (task/cosched for the cpufreq journal,
 * slurmctld's refresh thread for the live loads); without a hook nothing
 * is said (cosched-sampler, which logs errors only, sets none for the
 * energy ledger).  Once a process for each tag: a reader reads such files
 * over and over during an upgrade.
 */
typedef void (*cosched_kv_note_fn)(const char *msg);
void cosched_kv_set_note_hook(cosched_kv_note_fn fn);
/* "WHAT TAG/1.3 is newer than this reader's (TAG/1): skipped N keys or
 * lines it does not know", through the hook, the first time for tag. */
void cosched_kv_note_skipped(const char *what, const char *tag,
			     cosched_kv_version_t seen,
			     cosched_kv_version_t own, int skipped);

/* ---- reading ----------------------------------------------------------- */

/* A cursor over one line's fields.  The line is modified in place: keys
 * and values are terminated (a quoted value is unescaped) where they
 * stand. */
typedef struct {
	char *p;		/* the separator before the next field, or
				 * the field itself at the start */
	bool started;		/* a field or the word was read */
	bool sep_eaten;		/* p follows a blank that now ends a value */
	const char *what;	/* names the line in messages */
	int fields;		/* fields read so far */
} cosched_kv_reader_t;

typedef struct {
	char *key, *value;
	bool quoted;		/* the value was double-quoted */
} cosched_kv_field_t;

/* Start reading line; what prefixes the messages about the line's form
 * ("record", "line 3"). */
void cosched_kv_begin(cosched_kv_reader_t *r, char *line, const char *what);

/* The next word before the fields (up to the next blank: the tag, a
 * line's kind, a positional value): 0, or -1 (err) when there is none,
 * or two blanks. */
int cosched_kv_word(cosched_kv_reader_t *r, char **word,
		    cosched_error_t *err);

/* The next field: 1, 0 after the last, -1 with err ("WHAT: two blanks
 * before ...", "WHAT: trailing bytes: a blank at the end of the line",
 * "WHAT: field "X" has no value (expected KEY=VALUE)", "KEY: unterminated
 * quote in ...", "KEY: invalid escape ...", "KEY: byte 0xNN not allowed
 * ...", "KEY: trailing bytes "..." after the value"). */
int cosched_kv_next(cosched_kv_reader_t *r, cosched_kv_field_t *f,
		    cosched_error_t *err);

/* The next field, which must be key (bare): 0 with *value, -1 with err
 * "WHAT: expected KEY= as field N, found ..." or the form's error. */
int cosched_kv_expect(cosched_kv_reader_t *r, const char *key, char **value,
		      cosched_error_t *err);

/* The same for a quoted value (one that may hold blanks): -1 with "KEY:
 * value "V" is bare (a quoted value expected)" for a bare one. */
int cosched_kv_expect_quoted(cosched_kv_reader_t *r, const char *key,
			     char **value, cosched_error_t *err);

/* The text left after the last field read, its separating blank
 * included: "" at the end.  Valid after a quoted value (a bare value's
 * blank ends it). */
const char *cosched_kv_rest(const cosched_kv_reader_t *r);

/* 0 when no field is left; else -1 with "WHAT: more fields than
 * expected: ...". */
int cosched_kv_end(cosched_kv_reader_t *r, cosched_error_t *err);

/* The end of a line of a file of version seen: as cosched_kv_end(), but
 * in a newer minor than own the fields left (keys a minor added at the
 * end of the line) are read, counted into *skipped and let be. */
int cosched_kv_end_of(cosched_kv_reader_t *r, cosched_kv_version_t seen,
		      cosched_kv_version_t own, int *skipped,
		      cosched_error_t *err);

/* Decimal digits without sign or leading zero, at most max: 0, or -1 with
 * "KEY: invalid number "V" (...)" or "KEY: value "V" out of range (0 <=
 * KEY <= MAX)".  *out untouched on error. */
int cosched_kv_u64(const char *key, const char *value, uint64_t max,
		   uint64_t *out, cosched_error_t *err);

/* The next field, which must be key (bare), as a number of at most max:
 * cosched_kv_expect(), then cosched_kv_u64(). */
int cosched_kv_expect_u64(cosched_kv_reader_t *r, const char *key,
			  uint64_t max, uint64_t *out, cosched_error_t *err);

/* ---- writing ----------------------------------------------------------- */

/* Text written into a buffer: a fixed one (cut, still terminated, and
 * over set when something did not fit) or, from cosched_kv_out_grow(), a
 * malloc'd one that grows (over set when memory ran out). */
typedef struct {
	char *buf;
	size_t len, at;
	bool over, grows;
} cosched_kv_out_t;

void cosched_kv_out_fixed(cosched_kv_out_t *o, char *buf, size_t len);
void cosched_kv_out_grow(cosched_kv_out_t *o);
/* The grown text (the caller frees), or NULL (freed) when it ran out of
 * memory. */
char *cosched_kv_out_take(cosched_kv_out_t *o);

void cosched_kv_put_str(cosched_kv_out_t *o, const char *s);
void cosched_kv_put_fmt(cosched_kv_out_t *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* " KEY=VALUE" (the blank before; none when nothing was written yet),
 * the value from fmt. */
void cosched_kv_put(cosched_kv_out_t *o, const char *key, const char *fmt,
		    ...)
	__attribute__((format(printf, 3, 4)));
/* " KEY=VALUE" with the value as it is (no blank, no quote: the caller
 * ensures), as cosched_kv_put(o, key, "%s", value) writes it. */
void cosched_kv_put_word(cosched_kv_out_t *o, const char *key,
			 const char *value);
/* " KEY=" alone: the value follows in pieces (cosched_kv_put_str). */
void cosched_kv_put_key(cosched_kv_out_t *o, const char *key);
/* " KEY=DIGITS": an integer, as "%lld" writes it (without snprintf). */
void cosched_kv_put_int(cosched_kv_out_t *o, const char *key, long long v);
/* " KEY="VALUE"", '"' and '\' escaped (value: printable ASCII, which the
 * caller ensures). */
void cosched_kv_put_quoted(cosched_kv_out_t *o, const char *key,
			   const char *value);

#endif
