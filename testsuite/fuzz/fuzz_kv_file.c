/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_kv_file.c - libFuzzer target of the one reader of versioned
 * key=value files (src/libcosched/base/kv_file.c): cosched_kv_file_read()
 * over a form whose lines use every way a file's functions read fields
 * (words, bare and quoted values, numbers, keys let be by the version
 * rule, a line let be, the end of reading), then the learned
 * interference table (cosched_learn_parse), a file of the same reader
 * with no target of its own.
 *
 * Invariants (a violation aborts):
 *   - a failed read's message is written, terminated, not empty, free of
 *     control characters, and names the line ("line N: ") or the file;
 *   - the head is handed first, once, as line 1, and the other lines in
 *     order, each at most once, never past the input's last newline;
 *   - in the reader's own version (the head's word exactly
 *     "cosched-fuzz/1") every line was handed to its kind: none was
 *     skipped;
 *   - what is said about skipped lines has no control character;
 *   - reading the same input again gives the same outcome.
 */
#include <stdbool.h>

#include "fuzz_common.h"
#include "src/libcosched/base/kv_file.h"
#include "src/libcosched/model/learn.h"

typedef struct {
	int calls, last, newlines;
	bool stopped;
} seen_t;

static int handed(seen_t *s, const cosched_kv_line_t *line)
{
	FUZZ_CHECK(s->calls ? line->number > s->last : line->number == 1,
		   "lines handed out of order or twice", NULL);
	FUZZ_CHECK(line->number <= s->newlines,
		   "a line handed past the last newline", NULL);
	s->calls++;
	s->last = line->number;
	return 0;
}

static int read_head(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	seen_t *s = ctx;
	char *boot;

	FUZZ_CHECK(s->calls == 0 && line->number == 1,
		   "the head is not handed first", NULL);
	handed(s, line);
	return cosched_kv_expect(&line->r, "boot", &boot, err);
}

/* "any K=V ...": every field, unknown ones by the version rule. */
static int read_any(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	cosched_kv_field_t f;
	int rc;

	handed(ctx, line);
	while ((rc = cosched_kv_next(&line->r, &f, err)) == 1)
		if (strcmp(f.key, "k") &&
		    cosched_kv_line_unknown(line, &f, err))
			return -1;
	return rc;
}

/* "num WORD n=N q="TEXT"". */
static int read_num(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	cosched_kv_field_t f;
	uint64_t n;
	char *word;

	handed(ctx, line);
	if (cosched_kv_word(&line->r, &word, err) ||
	    cosched_kv_expect_u64(&line->r, "n", 1000000, &n, err))
		return -1;
	if (cosched_kv_next(&line->r, &f, err) != 1 || strcmp(f.key, "q") ||
	    !f.quoted)
		return cosched_error_set(err, "expected q=\"...\"");
	return 0;
}

static int read_let(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	(void) err;
	handed(ctx, line);
	return COSCHED_KV_LINE_LET_BE;
}

static int read_stop(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	(void) err;
	handed(ctx, line);
	((seen_t *) ctx)->stopped = true;
	return COSCHED_KV_FILE_DONE;
}

static const cosched_kv_kind_t kinds[] = {
	{ "any", read_any }, { "num", read_num }, { "let", read_let },
	{ "stop", read_stop }, { NULL, NULL },
};

static const cosched_kv_form_t form = {
	.what = "fuzz file", .reader = "this target", .tag = "cosched-fuzz/",
	.own = { 1, 0 }, .head = read_head, .kinds = kinds, .line_max = 4096,
};

static void said(const char *msg)
{
	FUZZ_CHECK(!fuzz_has_control(msg), "control character in a note",
		   msg);
}

static int read_once(const uint8_t *data, size_t size, seen_t *s,
		     cosched_error_t *err)
{
	char *text = fuzz_strdup(data, size);
	int rc;

	memset(s, 0, sizeof(*s));
	for (const char *p = text; *p; p++)
		s->newlines += *p == '\n';
	fuzz_error_poison(err);
	rc = cosched_kv_file_read(&form, text, s, err);
	free(text);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cosched_error_t err, again_err;
	cosched_learn_table_t t;
	seen_t s, again;
	char *text;
	int rc;

	cosched_kv_set_note_hook(said);
	rc = read_once(data, size, &s, &err);
	if (rc) {
		fuzz_check_error(&err);
		FUZZ_CHECK(!strncmp(err.msg, "line ", 5) ||
			   !strncmp(err.msg, "fuzz file: ", 11),
			   "an error names neither the line nor the file",
			   err.msg);
	} else {
		FUZZ_CHECK(s.calls >= 1, "read without a head", NULL);
		text = fuzz_strdup(data, size);
		if (!strncmp(text, "cosched-fuzz/1 ", 15) && !s.stopped)
			FUZZ_CHECK(s.calls == s.newlines,
				   "a line skipped in the reader's own version",
				   NULL);
		free(text);
	}
	FUZZ_CHECK(read_once(data, size, &again, &again_err) == rc &&
		   again.calls == s.calls &&
		   (!rc || !strcmp(err.msg, again_err.msg)),
		   "a second read differs", NULL);

	cosched_learn_init(&t, 0);
	text = fuzz_strdup(data, size);
	fuzz_error_poison(&err);
	if (cosched_learn_parse(text, &t, &err))
		fuzz_check_error(&err);
	cosched_learn_free(&t);
	free(text);
	return 0;
}
