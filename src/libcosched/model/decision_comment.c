/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decision_comment.c - the decision record as one line of a
 * job's SystemComment (model/decision.h): finding it, splicing a new
 * one in, and setting its slowdown in place; and its launch copy, one
 * entry of a batch job's SPANK environment.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/model/decision_internal.h"
#include "src/libcosched/base/text.h"

static bool is_record_line(const char *line)
{
	return !strncmp(line, COSCHED_DECISION_TAG,
			strlen(COSCHED_DECISION_TAG));
}

/* The record line of a comment: 1 with *record (and, len not NULL, its
 * length as cosched_decision_line_length measures it, from the walk's
 * own line end), 0 when there is none, -1 (err) when there are two or
 * more. */
static int record_line(const char *comment, const char **record,
		       size_t *len, cosched_error_t *err)
{
	int count = 0;

	for (const char *p = comment; p && *p;) {
		const char *nl = strchr(p, '\n');
		if (is_record_line(p) && !count++) {
			*record = p;
			if (len) {
				size_t n = nl ? (size_t) (nl - p) : strlen(p);

				*len = n && p[n - 1] == '\r' ? n - 1 : n;
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	if (count > 1)
		return cosched_error_set(err,
			"SystemComment: %d lines start with %s, one record expected: refusing them all",
			count, COSCHED_DECISION_TAG);
	return count;
}

int cosched_decision_find_compat(const char *comment, cosched_decision_t *d,
				 cosched_decision_compat_t *compat,
				 cosched_error_t *err)
{
	const char *record = NULL;
	int rc = record_line(comment, &record, NULL, err);

	if (rc <= 0)
		return rc;
	return cosched_decision_parse_compat(record, d, compat, err) ? -1 : 1;
}

/* Where the slowdown goes in a record line: the bytes [*from, *to) of the
 * blank and slowdown field there (from == to: none, insert at from), and
 * its value's text; the line's job must be job_id. */
static int slowdown_span(char *copy, size_t n, uint32_t job_id, size_t *from,
			 size_t *to, const char **value, bool *other_job,
			 cosched_error_t *err)
{
	cosched_kv_reader_t r;
	cosched_kv_field_t f;
	cosched_kv_version_t seen;
	char *word, id[16];
	bool have_job = false;
	int rc;

	*from = *to = n;
	*value = NULL;
	*other_job = false;
	snprintf(id, sizeof(id), "%u", job_id);
	cosched_kv_begin(&r, copy, "record");
	if (cosched_kv_word(&r, &word, err))
		return -1;
	/* Another major is another form: left to its readers, refused as
	 * the parser refuses it. */
	if (cosched_kv_version_read("decision record", "this node",
				    COSCHED_DECISION_TAG,
				    word + strlen(COSCHED_DECISION_TAG),
				    cosched_decision_own_version(), &seen,
				    err))
		return -1;
	while ((rc = cosched_kv_next(&r, &f, err)) > 0) {
		int key = cosched_decision_key_index(f.key);
		size_t at = (size_t) (f.key - copy) - 1;	/* its blank */

		if (key == K_JOB) {
			have_job = true;
			*other_job = strcmp(f.value, id) != 0;
		} else if (key == K_SLOWDOWN) {
			if (f.quoted)
				return cosched_error_set(err,
					"slowdown: value %s is quoted (only reason is)",
					COSCHED_QUOTE(f.value));
			*from = at;
			*to = (size_t) (f.value - copy) + strlen(f.value);
			*value = f.value;
			return have_job ? 0 : cosched_error_set(err,
				"job: required key missing");
		} else if (key > K_SLOWDOWN && *from == n) {
			/* The first key this release writes after slowdown:
			 * it goes before.  Keys it does not know (a newer
			 * minor's) are skipped wherever they stand. */
			*from = *to = at;
		}
	}
	if (rc < 0)
		return -1;
	return have_job ? 0 : cosched_error_set(err, "job: required key missing");
}

/* Whether key (" key=", a blank first) starts at at, before end. */
static bool key_at(const char *at, const char *end, const char *key,
		   size_t klen)
{
	return (size_t) (end - at) >= klen && !memcmp(at, key, klen);
}

/* Whether the job value [at, end) is id's, read by the record's own
 * integer rule (cosched_decision_parse_uint). */
static bool is_job_text(const char *at, const char *end, uint32_t id)
{
	char text[24];
	size_t len = (size_t) (end - at);
	unsigned long long v;
	cosched_error_t err;

	if (len >= sizeof(text))
		return false;
	memcpy(text, at, len);
	text[len] = '\0';
	return !cosched_decision_parse_uint("job", text, 1, JOB_ID_MAX, &v,
					    &err) && v == id;
}

/* Whether a record line is of a version this release writes or an
 * earlier minor of it (so it holds no key unknown here), by its first
 * word. */
static bool known_version(const char *line, size_t n)
{
	size_t tlen = strlen(COSCHED_DECISION_TAG), vlen;
	const char *sp = memchr(line, ' ', n), *v;
	cosched_kv_version_t seen, own = cosched_decision_own_version();
	cosched_error_t err;
	char text[16];

	_Static_assert(COSCHED_DECISION_SCHEMA < 10 &&
		       COSCHED_DECISION_SCHEMA_MINOR < 10,
		       "the versions this release writes are one digit each");

	if (!sp || (size_t) (sp - line) <= tlen ||
	    (vlen = (size_t) (sp - line) - tlen) >= sizeof(text))
		return false;
	/* The versions this release writes ("1", "1.1", "1.2": every record
	 * slurmctld edits) known without the reader's parse. */
	v = line + tlen;
	if (v[0] == '0' + COSCHED_DECISION_SCHEMA &&
	    (vlen == 1 ||
	     (vlen == 3 && v[1] == '.' && v[2] >= '1' &&
	      v[2] <= '0' + COSCHED_DECISION_SCHEMA_MINOR)))
		return true;
	memcpy(text, line + tlen, vlen);
	text[vlen] = '\0';
	return !cosched_kv_version_read("decision record", "this node",
					COSCHED_DECISION_TAG, text, own, &seen,
					&err) &&
	       !cosched_kv_version_newer_minor(seen, own);
}

/*
 * The slowdown's span in a record line (n bytes) of a version this
 * release knows every key of, found without the reader (whose walk over
 * every key was most of an edit's cost, and slurmctld edits a record for
 * every neighbour of every job that starts or ends): only bytes before
 * reason=" are looked at, where no value this release writes holds a
 * blank or a quote (names, numbers, range lists), so " job=" and
 * " slowdown=" there can only be the keys.  1 with [*from, *to) the
 * blank, key and value, and *value_at the value; 0 when the line is of
 * another minor (whose unknown keys may hold quoted values anywhere),
 * has a quote there or lacks either key: the reader decides then.
 * *other_job when the line's job is not id.
 */
static int own_slowdown_span(const char *line, size_t n, uint32_t job_id,
			     size_t *from, size_t *to, const char **value_at,
			     bool *other_job)
{
	static const char reason[] = " reason=\"", job[] = " job=",
			  sd[] = " slowdown=";
	const char *end = line + n, *j = NULL, *k = NULL, *at, *je, *v;

	*other_job = false;
	if (!known_version(line, n))
		return 0;
	/* One walk from blank to blank (a record line has a few dozen). */
	for (at = line; at < end && (at = memchr(at, ' ', (size_t) (end - at)));
	     at++) {
		if (key_at(at, end, reason, strlen(reason))) {
			end = at;
			break;
		}
		if (!j && key_at(at, end, job, strlen(job)))
			j = at;
		else if (!k && key_at(at, end, sd, strlen(sd)))
			k = at;
	}
	if (!j || !k || memchr(line, '"', (size_t) (end - line)))
		return 0;
	j += strlen(job);
	for (je = j; je < end && *je != ' '; je++)
		;
	*other_job = !is_job_text(j, je, job_id);
	for (v = k + strlen(sd); v < end && *v != ' '; v++)
		;
	*from = (size_t) (k - line);
	*to = (size_t) (v - line);
	*value_at = k + strlen(sd);
	return 1;
}

/* An edit of a record's slowdown: the record line (n bytes, inside the
 * comment), the bytes [from, to) of it to replace, and what goes there:
 * " slowdown=" and the number's text, or nothing (NAN). */
typedef struct {
	const char *record;
	size_t n, from, to, len;
	char put[sizeof(" slowdown=") + NUMBER_TEXT_MAX];
} slowdown_edit_t;

/* The edit that sets the record's slowdown: 1 with *e, 0 when there is
 * nothing to change (no record, another job's, or its value is written
 * as the record writes this one already: the shortest text that reads
 * back, so comparing texts is comparing numbers, without strtod), -1 with
 * err. */
static int slowdown_edit(const char *comment, uint32_t job_id,
			 double slowdown, slowdown_edit_t *e,
			 cosched_error_t *err)
{
	char text[NUMBER_TEXT_MAX] = "";
	const char *value = NULL;
	bool other_job, same;
	int rc, quick;

	if ((rc = record_line(comment, &e->record, &e->n, err)) <= 0)
		return rc;
	if (e->n >= COSCHED_DECISION_TEXT_MAX)
		return cosched_error_set(err,
			"record: %zu bytes, longer than %d", e->n,
			COSCHED_DECISION_TEXT_MAX - 1);
	quick = own_slowdown_span(e->record, e->n, job_id, &e->from, &e->to,
				  &value, &other_job);
	if (quick && other_job)
		return 0;
	if (!isnan(slowdown) &&
	    cosched_decision_double_write("slowdown", slowdown, 0, true,
					  SLOWDOWN_MAX, text, err))
		return -1;
	if (quick) {
		size_t vlen = (size_t) (e->record + e->to - value);

		if (vlen == strlen(text) && !memcmp(value, text, vlen))
			return 0;
	} else {
		char *copy = malloc(e->n + 1);

		if (!copy)
			return cosched_error_set(err, "record: out of memory");
		memcpy(copy, e->record, e->n);
		copy[e->n] = '\0';
		rc = slowdown_span(copy, e->n, job_id, &e->from, &e->to,
				   &value, &other_job, err);
		same = !rc && !other_job &&
		       (value ? !strcmp(value, text) : !text[0]);
		free(copy);
		if (rc || other_job || same)
			return rc;
	}
	e->len = 0;
	if (text[0]) {
		size_t k = strlen(" slowdown="), t = strlen(text);

		memcpy(e->put, " slowdown=", k);
		memcpy(e->put + k, text, t);
		e->len = k + t;
	}
	if (e->n - (e->to - e->from) + e->len >= COSCHED_DECISION_TEXT_MAX)
		/* As the formatter refuses a record that does not fit: the
		 * record stays as it was, readable. */
		return cosched_error_set(err,
			"record: %zu bytes with slowdown=%s, longer than %d",
			e->n - (e->to - e->from) + e->len, text,
			COSCHED_DECISION_TEXT_MAX - 1);
	return 1;
}

static char *splice_n(const char *comment, const char *record, size_t rlen,
		      cosched_alloc_fn alloc);

/* The comment with e applied, allocated with alloc: the bytes before the
 * span, the new field, the bytes after it, which is what splicing the
 * edited line in gives (the record is the comment's one record line, and
 * the splice keeps every other byte), without walking the comment's
 * lines again; slurmctld does this for a neighbour at most job starts
 * and ends. */
static char *splice_edit(const char *comment, const slowdown_edit_t *e,
			 cosched_alloc_fn alloc)
{
	size_t head = (size_t) (e->record - comment) + e->from;
	const char *rest = e->record + e->to;
	size_t tail;
	char *out;

	/* Except where the splice drops a byte: a '\r' ending the comment
	 * on the record's line (outside the line the parser reads). */
	if (e->record[e->n] == '\r' && !e->record[e->n + 1]) {
		/* The edited line: it fits COSCHED_DECISION_TEXT_MAX
		 * (checked). */
		char line[COSCHED_DECISION_TEXT_MAX];

		memcpy(line, e->record, e->from);
		memcpy(line + e->from, e->put, e->len);
		memcpy(line + e->from + e->len, rest, e->n - e->to);
		line[e->n - (e->to - e->from) + e->len] = '\0';
		/* Its exact length: a '\r' that ends it is the record's
		 * own byte, which measuring the line again would take for
		 * the line end's. */
		return splice_n(comment, line,
				e->n - (e->to - e->from) + e->len, alloc);
	}
	tail = strlen(rest);
	if (!(out = alloc(head + e->len + tail + 1)))
		return NULL;
	memcpy(out, comment, head);
	memcpy(out + head, e->put, e->len);
	memcpy(out + head + e->len, rest, tail + 1);
	return out;
}

/* Both forms: in the comment itself when it is writable (in), the new
 * field is as long as the old, and the splice would keep every other byte
 * (it drops a '\r' that ends the comment on the record's line, found by
 * fuzz_decision), else spliced into *out. */
static int set_slowdown(const char *comment, char *in, uint32_t job_id,
			double slowdown, char **out, cosched_alloc_fn alloc,
			cosched_error_t *err)
{
	slowdown_edit_t e;
	int rc;

	*out = NULL;
	if ((rc = slowdown_edit(comment, job_id, slowdown, &e, err)) <= 0)
		return rc;
	if (in && e.to - e.from == e.len &&
	    !(e.record[e.n] == '\r' && !e.record[e.n + 1])) {
		memcpy(in + (e.record - comment) + e.from, e.put, e.len);
		return 1;
	}
	if (!(*out = splice_edit(comment, &e, alloc)))
		return cosched_error_set(err, "record: out of memory");
	return 1;
}

int cosched_decision_set_slowdown(const char *comment, uint32_t job_id,
				  double slowdown, char **out,
				  cosched_error_t *err)
{
	return set_slowdown(comment, NULL, job_id, slowdown, out, malloc, err);
}

int cosched_decision_set_slowdown_in_place(char *comment, uint32_t job_id,
					   double slowdown, char **out,
					   cosched_alloc_fn alloc,
					   cosched_error_t *err)
{
	return set_slowdown(comment, comment, job_id, slowdown, out, alloc,
			    err);
}

int cosched_decision_find(const char *comment, cosched_decision_t *d,
			  cosched_error_t *err)
{
	return cosched_decision_find_compat(comment, d, NULL, err);
}

const char *cosched_decision_record_line(const char *comment, size_t *len)
{
	const char *record = NULL;
	cosched_error_t err;
	size_t n = 0;

	if (record_line(comment, &record, &n, &err) != 1)
		return NULL;
	if (len)
		*len = n;
	return record;
}

bool cosched_decision_launch_is(const char *entry)
{
	size_t n = strlen(COSCHED_DECISION_LAUNCH_NAME);

	return entry && !strncmp(entry, COSCHED_DECISION_LAUNCH_NAME, n) &&
	       entry[n] == '=';
}

const char *cosched_decision_launch_find(char *const *env, int count,
					 size_t *len)
{
	const char *value = NULL;

	for (int i = 0; env && (count < 0 ? env[i] != NULL : i < count); i++) {
		if (!cosched_decision_launch_is(env[i]))
			continue;
		if (value)
			return NULL;
		value = env[i] + strlen(COSCHED_DECISION_LAUNCH_NAME) + 1;
	}
	if (value && len)
		*len = cosched_decision_line_length(value);
	return value;
}

/* Whether the comment has a "\r\n": found by its '\r's, which most
 * comments have none of (glibc's strstr costs more than the rest of a
 * splice, and slurmctld splices at every job start and neighbour edit). */
static bool has_crlf(const char *comment)
{
	for (const char *p = strchr(comment, '\r'); p; p = strchr(p + 1, '\r'))
		if (p[1] == '\n')
			return true;
	return false;
}

/* comment with its record line replaced by the rlen bytes at record
 * (NULL: removed), allocated with alloc. */
static char *splice_n(const char *comment, const char *record, size_t rlen,
		      cosched_alloc_fn alloc)
{
	size_t clen = comment ? strlen(comment) : 0;
	/* The line end of an appended line: the comment's.  After a final
	 * '\r' it must be "\r\n", or that '\r' would become one. */
	const char *eol = comment && ((clen && comment[clen - 1] == '\r') ||
				      has_crlf(comment)) ?
			  "\r\n" : "\n";
	bool done = false;
	size_t at = 0;
	char *out;

	/* At most the comment, the record and one line end. */
	out = alloc(clen + rlen + 3);
	if (!out)
		return NULL;
	for (const char *p = comment; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t body = nl ? (size_t) (nl - p) : strlen(p);
		size_t end = nl ? 1 : 0;	/* the line end's length */

		if (nl && body && p[body - 1] == '\r') {
			body--;
			end = 2;
		}
		if (!is_record_line(p)) {
			memcpy(out + at, p, body + end);
			at += body + end;
		} else if (record && !done) {
			memcpy(out + at, record, rlen);
			memcpy(out + at + rlen, p + body, end);
			at += rlen + end;
			done = true;
		} else if (!nl) {
			/* The last line goes: so does the line end before
			 * it, which only separated it. */
			if (at >= 2 && out[at - 2] == '\r' && out[at - 1] == '\n')
				at -= 2;
			else if (at >= 1 && out[at - 1] == '\n')
				at--;
		}
		p = nl ? nl + 1 : NULL;
	}
	if (record && !done) {
		size_t elen = strlen(eol);
		if (at && out[at - 1] != '\n') {
			memcpy(out + at, eol, elen);
			at += elen;
			memcpy(out + at, record, rlen);
			at += rlen;
		} else {
			memcpy(out + at, record, rlen);
			at += rlen;
			if (at > rlen) {
				memcpy(out + at, eol, elen);
				at += elen;
			}
		}
	}
	out[at] = '\0';
	return out;
}

char *cosched_decision_splice_alloc(const char *comment, const char *record,
				    cosched_alloc_fn alloc)
{
	/* The record's line as the parser reads it: a '\r' inside it (a key
	 * of a newer minor this release skips may hold one) is kept, or a
	 * record edited in place would lose what follows it. */
	return splice_n(comment, record,
			record ? cosched_decision_line_length(record) : 0,
			alloc);
}
