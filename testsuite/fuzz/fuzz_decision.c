/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_decision.c - libFuzzer target of the decision record
 * (src/libcosched/model/decision.c): cosched_decision_parse(), and the
 * input as a job's SystemComment for cosched_decision_find() and
 * cosched_decision_splice_alloc(, malloc).
 *
 * Invariants (a violation aborts):
 *   - a failed parse leaves the record byte for byte as it was, and its
 *     message is written, terminated inside the 512-byte buffer, not empty
 *     and free of control characters;
 *   - a record that parsed formats again (into COSCHED_DECISION_TEXT_MAX
 *     bytes), unless it names a policy a newer minor added, which only a
 *     newer minor's record may and the formatter refuses; and that text parses to an equal record; when the line was
 *     of the writer's own version as it writes it ("cosched/1", not
 *     "cosched/1.0" or a newer minor, whose unknown keys are skipped), the
 *     text is exactly the line; the formatter never overruns a short
 *     buffer;
 *   - find() agrees with parse() on the comment's one record line;
 *   - splice(comment, R) holds exactly one record, R, and every other line
 *     of the comment in order; splice(comment, NULL) holds none; for a
 *     comment without a record line, removing what was appended gives the
 *     comment back.
 */
#include <math.h>
#include <stdbool.h>

#include "fuzz_common.h"
#include "src/libcosched/model/decision.h"

#define REC "cosched/1 job=9 state=pending policy=gang scope=socket"

static bool is_record_line(const char *line)
{
	return !strncmp(line, COSCHED_DECISION_TAG, strlen(COSCHED_DECISION_TAG));
}

/* The lines of text that are not record lines, without their line ends
 * ("\n" or "\r\n"), joined by '\n', trailing empty lines dropped: what
 * splice() must keep.  Caller frees. */
static char *other_lines(const char *text)
{
	size_t len = strlen(text), at = 0;
	char *out = malloc(len + 1);

	if (!out)
		abort();
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t) (nl - p) : strlen(p);
		if (!is_record_line(p)) {
			size_t body = nl && n && p[n - 1] == '\r' ? n - 1 : n;
			memcpy(out + at, p, body);
			at += body;
			out[at++] = '\n';
		}
		p = nl ? nl + 1 : p + n;
	}
	while (at && out[at - 1] == '\n')
		at--;
	out[at] = '\0';
	return out;
}

static int count_records(const char *text)
{
	int n = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		n += is_record_line(p);
		p = nl ? nl + 1 : p + strlen(p);
	}
	return n;
}

static void check_format_bounds(const cosched_decision_t *d)
{
	static const size_t sizes[] = { 1, 2, 9, 40, 100 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *buf = malloc(sizes[i]);	/* exact: ASan sees overruns */
		cosched_error_t err;
		if (!buf)
			abort();
		fuzz_error_poison(&err);
		if (cosched_decision_format(d, buf, sizes[i], &err))
			fuzz_check_error(&err);
		FUZZ_CHECK(memchr(buf, '\0', sizes[i]) != NULL,
			   "cosched_decision_format output not terminated", NULL);
		free(buf);
	}
}

/* A record that parsed from line (len bytes, no line end). */
static void check_parsed(const cosched_decision_t *d, const char *line,
			 size_t len, const cosched_decision_compat_t *compat)
{
	char own[32];
	size_t own_len;
	static char text[COSCHED_DECISION_TEXT_MAX];
	cosched_decision_t again;
	cosched_error_t err;

	/* A policy a newer minor added: read, never written again. */
	if (d->policy == COSCHED_DECISION_POLICY_NEWER) {
		FUZZ_CHECK(cosched_kv_version_newer_minor(compat->version,
				(cosched_kv_version_t){ COSCHED_DECISION_SCHEMA,
						COSCHED_DECISION_SCHEMA_MINOR }),
			   "an unknown policy read from this release's record",
			   d->newer_policy);
		fuzz_error_poison(&err);
		FUZZ_CHECK(cosched_decision_format(d, text, sizeof(text),
						   &err) == -1 &&
			   strstr(err.msg, "newer release's policy"),
			   "a newer release's policy was written", err.msg);
		check_format_bounds(d);
		return;
	}
	fuzz_error_poison(&err);
	FUZZ_CHECK(cosched_decision_format(d, text, sizeof(text), &err) == 0,
		   "a parsed record does not format", err.msg);
	FUZZ_CHECK(!fuzz_has_control(text),
		   "control character in a formatted record", text);
	/* The version the formatter writes for this record: the lowest
	 * that holds its keys (1.1 with numa_priority, else 1). */
	cosched_kv_version_text(COSCHED_DECISION_TAG,
		(cosched_kv_version_t){ COSCHED_DECISION_SCHEMA,
					d->numa_priority ? 1 : 0 },
		own, sizeof(own));
	own_len = strlen(own);
	if (!compat->skipped && len >= own_len && !memcmp(line, own, own_len) &&
	    (len == own_len || line[own_len] == ' '))
		FUZZ_CHECK(strlen(text) == len && !memcmp(text, line, len),
			   "format(parse(text)) differs from text", text);
	fuzz_error_poison(&err);
	FUZZ_CHECK(cosched_decision_parse(text, &again, &err) == 0,
		   "a formatted record does not parse", err.msg);
	FUZZ_CHECK(cosched_decision_equal(d, &again),
		   "parse(format(d)) differs from d", text);
	check_format_bounds(d);
}

static void check_splice(const char *comment)
{
	char *with = cosched_decision_splice_alloc(comment, REC, malloc);
	char *without = cosched_decision_splice_alloc(comment, NULL, malloc);
	char *kept, *kept_with, *kept_without, *back;
	cosched_decision_t d;
	cosched_error_t err;

	if (!with || !without)
		abort();
	FUZZ_CHECK(count_records(with) == 1,
		   "splice(comment, R) does not hold one record line", with);
	fuzz_error_poison(&err);
	FUZZ_CHECK(cosched_decision_find(with, &d, &err) == 1 &&
		   d.job_id == 9 && d.state == COSCHED_DECISION_PENDING,
		   "find(splice(comment, R)) is not R", with);
	FUZZ_CHECK(count_records(without) == 0,
		   "splice(comment, NULL) holds a record line", without);
	FUZZ_CHECK(cosched_decision_find(without, &d, &err) == 0,
		   "find(splice(comment, NULL)) found a record", without);
	kept = other_lines(comment);
	kept_with = other_lines(with);
	kept_without = other_lines(without);
	FUZZ_CHECK(!strcmp(kept, kept_with),
		   "splice(comment, R) changed the other lines", with);
	FUZZ_CHECK(!strcmp(kept, kept_without),
		   "splice(comment, NULL) changed the other lines", without);
	if (!count_records(comment)) {
		back = cosched_decision_splice_alloc(with, NULL, malloc);
		if (!back)
			abort();
		FUZZ_CHECK(!strcmp(back, comment),
			   "removing the appended record does not give the comment back",
			   back);
		free(back);
	}
	free(kept);
	free(kept_with);
	free(kept_without);
	free(with);
	free(without);
}

/* Setting the slowdown of a comment whose record parses gives the record
 * parse, set and format would (keys of a newer minor kept); on any other
 * comment it refuses or changes nothing, and never crashes. */
static void check_set_slowdown(const char *comment, int frc,
			       const cosched_decision_t *found)
{
	static const double values[] = { 1.5, 1.7600000000000002, NAN };
	cosched_error_t err;

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		uint32_t job = frc == 1 ? found->job_id : 1;
		char *out = NULL;
		int rc;

		fuzz_error_poison(&err);
		rc = cosched_decision_set_slowdown(comment, job, values[i],
						   &out, &err);
		FUZZ_CHECK(rc >= -1 && rc <= 1 && (rc == 1) == (out != NULL),
			   "set_slowdown returns -1, 0 or 1 with out", NULL);
		if (rc < 0)
			fuzz_check_error(&err);
		{
			/* In place: the same answer, the same text. */
			char *in = strdup(comment), *spliced = NULL;
			int irc = cosched_decision_set_slowdown_in_place(
				in, job, values[i], &spliced, malloc, &err);

			FUZZ_CHECK(irc == rc,
				   "set_slowdown_in_place answers otherwise", NULL);
			FUZZ_CHECK(rc != 1 || !strcmp(spliced ? spliced : in, out),
				   "set_slowdown_in_place wrote another text", in);
			FUZZ_CHECK(rc == 1 || (!spliced && !strcmp(in, comment)),
				   "set_slowdown_in_place changed a comment it refused",
				   in);
			free(spliced);
			free(in);
		}
		if (frc == 1) {
			cosched_decision_t want = *found, got;
			cosched_error_t err2;

			FUZZ_CHECK(rc >= 0, "set_slowdown refused a record that parses",
				   err.msg);
			want.slowdown = values[i];
			if (rc == 1) {
				FUZZ_CHECK(cosched_decision_find(out, &got, &err2) == 1,
					   "set_slowdown wrote a record that does not parse",
					   err2.msg);
				FUZZ_CHECK(cosched_decision_equal(&got, &want),
					   "set_slowdown changed more than the slowdown",
					   out);
			} else {
				FUZZ_CHECK(cosched_decision_equal(found, &want),
					   "set_slowdown left a different slowdown",
					   NULL);
			}
		}
		free(out);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strdup(data, size);
	cosched_decision_t d, before, found;
	cosched_decision_compat_t compat;
	cosched_error_t err;
	size_t len = strcspn(text, "\n");
	int rc, frc, records;
	const char *rec = NULL;

	if (len && text[len - 1] == '\r')
		len--;

	/* The input's first line as a record. */
	memset(&d, 0xa5, sizeof(d));
	memcpy(&before, &d, sizeof(d));
	fuzz_error_poison(&err);
	rc = cosched_decision_parse_compat(text, &d, &compat, &err);
	FUZZ_CHECK(rc == 0 || rc == -1, "cosched_decision_parse returns 0 or -1",
		   NULL);
	if (rc) {
		FUZZ_CHECK(!memcmp(&d, &before, sizeof(d)),
			   "a failed parse changed the record", err.msg);
		fuzz_check_error(&err);
	} else {
		check_parsed(&d, text, len, &compat);
	}

	/* The input as a SystemComment. */
	records = count_records(text);
	for (const char *p = text; *p && !rec;) {
		const char *nl = strchr(p, '\n');
		if (is_record_line(p))
			rec = p;
		p = nl ? nl + 1 : p + strlen(p);
	}
	memcpy(&found, &before, sizeof(found));
	fuzz_error_poison(&err);
	frc = cosched_decision_find(text, &found, &err);
	if (records == 0) {
		FUZZ_CHECK(frc == 0, "find() found a record where no line starts with the tag",
			   NULL);
	} else if (records > 1) {
		FUZZ_CHECK(frc == -1, "find() believed one of two record lines",
			   NULL);
		fuzz_check_error(&err);
	} else {
		cosched_decision_t direct;
		cosched_error_t err2;
		int prc = cosched_decision_parse(rec, &direct, &err2);
		FUZZ_CHECK(frc == (prc ? -1 : 1), "find() and parse() disagree",
			   NULL);
		if (frc == 1)
			FUZZ_CHECK(cosched_decision_equal(&found, &direct),
				   "find() and parse() give different records",
				   NULL);
		else
			fuzz_check_error(&err);
	}
	if (frc != 1)
		FUZZ_CHECK(!memcmp(&found, &before, sizeof(found)),
			   "find() changed the record without finding one",
			   NULL);

	check_splice(text);
	check_set_slowdown(text, frc, &found);
	free(text);
	return 0;
}
