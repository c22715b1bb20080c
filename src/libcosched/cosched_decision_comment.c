/*
 * cosched_decision_comment.c - the decision record as one line of a
 * job's SystemComment (cosched_decision.h): finding it, and splicing a
 * new one in.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_decision_internal.h"

static bool is_record_line(const char *line)
{
	return !strncmp(line, COSCHED_DECISION_TAG,
			strlen(COSCHED_DECISION_TAG));
}

int cosched_decision_find_compat(const char *comment, cosched_decision_t *d,
				 cosched_decision_compat_t *compat,
				 cosched_error_t *err)
{
	const char *record = NULL;
	int count = 0;

	for (const char *p = comment; p && *p;) {
		const char *nl = strchr(p, '\n');
		if (is_record_line(p) && !count++)
			record = p;
		p = nl ? nl + 1 : NULL;
	}
	if (!count)
		return 0;
	if (count > 1)
		return cosched_error_set(err,
			"SystemComment: %d lines start with %s, one record expected: refusing them all",
			count, COSCHED_DECISION_TAG);
	return cosched_decision_parse_compat(record, d, compat, err) ? -1 : 1;
}

int cosched_decision_find(const char *comment, cosched_decision_t *d,
			  cosched_error_t *err)
{
	return cosched_decision_find_compat(comment, d, NULL, err);
}

char *cosched_decision_splice(const char *comment, const char *record)
{
	size_t clen = comment ? strlen(comment) : 0;
	size_t rlen = record ? strcspn(record, "\r\n") : 0;
	/* The line end of an appended line: the comment's.  After a final
	 * '\r' it must be "\r\n", or that '\r' would become one. */
	const char *eol = comment && (strstr(comment, "\r\n") ||
				      (clen && comment[clen - 1] == '\r')) ?
			  "\r\n" : "\n";
	bool done = false;
	size_t at = 0;
	char *out;

	/* At most the comment, the record and one line end. */
	out = malloc(clen + rlen + 3);
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
