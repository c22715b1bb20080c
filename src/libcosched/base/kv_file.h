/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kv_file.h - the one reader of cosched's versioned files of key=value
 * lines: the node's cpufreq journal and energy ledger, the NUMA step
 * files, cosched-numad's state, the learned interference table and the
 * live loads.  Each file says what its lines hold; this reader does what
 * is the same for all of them, so that the minor-version rule of
 * base/kv.h is applied in this one place:
 *
 *   - the text is lines, each ended by a newline (a last line without
 *     one was cut short);
 *   - the first line, the head, is "TAG/VERSION" and then the head's
 *     fields; its version is read by the rule (another major is refused,
 *     naming both versions);
 *   - every other line starts with a word, its kind, and the file's
 *     function for that kind reads the fields after it;
 *   - what a line's function leaves unread is refused in the reader's
 *     own version and skipped in a newer minor (keys a minor added at the
 *     end of a line), and so is a line of a kind the reader does not
 *     know;
 *   - what was skipped is said once (cosched_kv_note_skipped).
 *
 * Every error starts with the line's number ("line 3: cores: value "0"
 * ..."), the field and its value named by the line's function or by the
 * codec.
 */
#ifndef COSCHED_KV_FILE_H
#define COSCHED_KV_FILE_H

#include <stddef.h>

#include "src/libcosched/base/error.h"
#include "src/libcosched/base/kv.h"

/* One line being read. */
typedef struct {
	cosched_kv_reader_t r;		/* its fields, after its kind (the
					 * head: after the version) */
	int number;			/* 1: the head */
	cosched_kv_version_t seen;	/* the file's version */
	cosched_kv_version_t own;	/* the reader's */
	int *skipped;			/* keys and lines let be so far */
} cosched_kv_line_t;

/* What a line's function returns besides -1 (an error, in err). */
enum {
	COSCHED_KV_LINE_READ = 0,	/* read: the reader checks the rest */
	COSCHED_KV_LINE_LET_BE = 1,	/* let be (counted as skipped) */
	COSCHED_KV_FILE_DONE = 2,	/* stop: the rest of the file is not
					 * read, and that is no error */
};

/* Read one line's fields from line->r into ctx. */
typedef int (*cosched_kv_line_fn)(void *ctx, cosched_kv_line_t *line,
				  cosched_error_t *err);

typedef struct {
	const char *kind;		/* the line's first word */
	cosched_kv_line_fn read;
} cosched_kv_kind_t;

typedef struct {
	const char *what;		/* "cpufreq journal", in messages */
	const char *reader;		/* "this node", who refuses a
					 * major not its own */
	const char *tag;		/* "cosched-cpufreq-journal/" */
	cosched_kv_version_t own;	/* the version this release writes */
	cosched_kv_line_fn head;	/* the head's fields (NULL: none) */
	const cosched_kv_kind_t *kinds;	/* the other lines, up to
					 * { NULL } */
	size_t line_max;		/* the longest line read; 0: any */
} cosched_kv_form_t;

/*
 * Read text (modified in place: values are terminated where they stand)
 * as a file of form, handing each line to its function with ctx.  0, or
 * -1 with err: "line N: ..." (or "WHAT: empty").  What the file must hold
 * as a whole (an end line, a totals line) its reader checks after.
 */
int cosched_kv_file_read(const cosched_kv_form_t *form, char *text,
			 void *ctx, cosched_error_t *err);

/* A field f a line's function does not know: counted and let be in a
 * newer minor (0), refused in the reader's own version (-1, "KEY: unknown
 * key, value "V""). */
int cosched_kv_line_unknown(cosched_kv_line_t *line,
			    const cosched_kv_field_t *f, cosched_error_t *err);

#endif
