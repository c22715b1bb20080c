/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kv_file.c - the one reader of cosched's versioned files of key=value
 * lines (base/kv_file.h).
 */
#include <stdio.h>
#include <string.h>

#include "src/libcosched/base/kv_file.h"
#include "src/libcosched/base/text.h"

/* The head, "TAG/VERSION" and then the form's fields, or a line of
 * another kind: the first word, which the caller made sure is there. */
static int read_line(const cosched_kv_form_t *form, cosched_kv_line_t *line,
		     void *ctx, cosched_error_t *err)
{
	const char *text = line->r.p;
	size_t taglen = strlen(form->tag);
	char *word;

	if (cosched_kv_word(&line->r, &word, err))
		return -1;
	if (line->number > 1) {
		line->r.what = word;
		for (const cosched_kv_kind_t *k = form->kinds; k && k->kind;
		     k++)
			if (!strcmp(k->kind, word))
				return k->read(ctx, line, err);
		/* A kind of line a newer minor added. */
		if (cosched_kv_version_newer_minor(line->seen, form->own))
			return COSCHED_KV_LINE_LET_BE;
		if (line->r.sep_eaten)
			line->r.p[-1] = ' ';	/* the line whole again */
		return cosched_error_set(err, "unknown line %s",
					 COSCHED_QUOTE(text));
	}
	line->r.what = form->what;
	if (strncmp(word, form->tag, taglen))
		return cosched_error_set(err,
			"expected %s%u as the first word of the %s, found %s",
			form->tag, form->own.major, form->what,
			COSCHED_QUOTE(word));
	if (cosched_kv_version_read(form->what, form->reader, form->tag,
				    word + taglen, form->own, &line->seen,
				    err))
		return -1;
	return form->head ? form->head(ctx, line, err) : COSCHED_KV_LINE_READ;
}

int cosched_kv_file_read(const cosched_kv_form_t *form, char *text,
			 void *ctx, cosched_error_t *err)
{
	int skipped = 0;
	cosched_kv_line_t line = {
		.own = form->own, .skipped = &skipped,
	};
	char *nl;

	if (!*text)
		return cosched_error_set(err,
			"%s: empty (expected %s%u as its first line)",
			form->what, form->tag, form->own.major);
	for (char *at = text; *at; at = nl + 1) {
		cosched_error_t lerr;
		int rc;

		line.number++;
		nl = strchr(at, '\n');
		if (!nl)
			return cosched_error_set(err,
				"line %d: no newline at the end (cut short?)",
				line.number);
		*nl = '\0';
		if (form->line_max && (size_t) (nl - at) > form->line_max)
			return cosched_error_set(err,
				"line %d: longer than %zu bytes", line.number,
				form->line_max);
		if (!*at || *at == ' ')
			return cosched_error_set(err, "line %d: %s",
				line.number, *at ? "a blank at the start" :
				"empty");
		/* No message of the codec names the line before its first
		 * word, which is there: read_line names it by that word. */
		cosched_kv_begin(&line.r, at, "line");
		rc = read_line(form, &line, ctx, &lerr);
		if (rc == COSCHED_KV_FILE_DONE)
			return 0;
		if (rc == COSCHED_KV_LINE_LET_BE)
			skipped++;
		else if (rc < 0 || cosched_kv_end_of(&line.r, line.seen,
						     form->own, &skipped,
						     &lerr))
			return cosched_error_set(err, "line %d: %s",
						 line.number, lerr.msg);
	}
	cosched_kv_note_skipped(form->what, form->tag, line.seen, form->own,
				skipped);
	return 0;
}

int cosched_kv_line_unknown(cosched_kv_line_t *line,
			    const cosched_kv_field_t *f, cosched_error_t *err)
{
	if (cosched_kv_version_newer_minor(line->seen, line->own)) {
		(*line->skipped)++;
		return 0;
	}
	return cosched_error_set(err, "%s: unknown key, value %s", f->key,
				 COSCHED_QUOTE(f->value));
}
