/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_decision_comment.c - the decision record's copies
 * (src/libcosched/model/decision_comment.c): its line in a
 * SystemComment (find, splice, the slowdown set in place) and its launch
 * copy in a batch job's SPANK environment. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "src/libcosched/model/decision.h"
#include "decision_example.h"

static cosched_error_t err;

#define BASE "cosched/1 job=1 state=placed policy=gang scope=socket"

/* ---- SystemComment ---------------------------------------------------- */

#define REC "cosched/1 job=9 state=pending policy=gang scope=socket"
#define OLD "cosched/1 job=9 state=placed policy=none scope=socket"

START_TEST(test_find)
{
	static const char *const none[] = {
		"", "\n", "bb: staged in", "01/02/26 10:00:00 burst_buffer/lua: x\nmore",
		"x cosched/1 job=9 state=pending policy=gang",	/* not at a line start */
		" cosched/1 job=9 state=pending policy=gang",
		"cosched1 job=9", "Cosched/1 job=9 state=pending policy=gang",
	};
	cosched_decision_t d, before;

	memset(&d, 0x5a, sizeof(d));
	memcpy(&before, &d, sizeof(d));
	ck_assert_int_eq(cosched_decision_find(NULL, &d, &err), 0);
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		ck_assert_msg(cosched_decision_find(none[i], &d, &err) == 0,
			      "found a record in \"%s\"", none[i]);
	ck_assert(!memcmp(&d, &before, sizeof(d)));

	ck_assert_int_eq(cosched_decision_find(REC, &d, &err), 1);
	ck_assert_uint_eq(d.job_id, 9);
	ck_assert_int_eq(d.state, COSCHED_DECISION_PENDING);
	ck_assert_int_eq(cosched_decision_find("bb line\r\n" REC "\r\nafter\r\n",
					       &d, &err), 1);
	ck_assert_int_eq(cosched_decision_find("bb line\n" REC, &d, &err), 1);
	ck_assert_int_eq(cosched_decision_find("bb line\n" REC "\r", &d, &err), 1);

	memcpy(&before, &d, sizeof(d));
	ck_assert_int_eq(cosched_decision_find("bb\n" REC " frob=1\nx", &d, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "invalid key \"frob\""));
	ck_assert_int_eq(cosched_decision_find("cosched/2 job=9 x=y", &d, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cosched/2.0 is newer"));
	/* two record lines: a forgery or a bug, neither is believed */
	ck_assert_int_eq(cosched_decision_find(REC "\nbb\n" OLD, &d, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "2 lines start with cosched/"));
	ck_assert(!memcmp(&d, &before, sizeof(d)));
}
END_TEST

START_TEST(test_splice)
{
	static const struct { const char *comment, *record, *want; } cases[] = {
		{ NULL, REC, REC },
		{ "", REC, REC },
		{ "a", REC, "a\n" REC },
		{ "a\n", REC, "a\n" REC "\n" },
		{ "a\nb", REC, "a\nb\n" REC },
		{ "a\r\nb\r\n", REC, "a\r\nb\r\n" REC "\r\n" },
		{ "a\r\nb", REC, "a\r\nb\r\n" REC },
		{ "\n", REC, "\n" REC "\n" },
		/* a lone '\r' is a line's own byte, kept as it is */
		{ "a\r", REC, "a\r\r\n" REC },
		{ "a\nb\r", REC, "a\nb\r\r\n" REC },
		{ "a\r\r\n" OLD, NULL, "a\r" },
		/* replaced where it stands, keeping its line end */
		{ OLD, REC, REC },
		{ "a\n" OLD "\nb", REC, "a\n" REC "\nb" },
		{ "a\r\n" OLD "\r\nb\r\n", REC, "a\r\n" REC "\r\nb\r\n" },
		{ "a\n" OLD, REC, "a\n" REC },
		{ OLD "\na\n", REC, REC "\na\n" },
		/* a record line of another version is replaced too */
		{ "a\ncosched/2 job=9 x=1\nb", REC, "a\n" REC "\nb" },
		/* further record lines are dropped */
		{ OLD "\nx\n" OLD, REC, REC "\nx" },
		{ "a\n" OLD "\n" OLD "\nb", REC, "a\n" REC "\nb" },
		/* removed */
		{ NULL, NULL, "" },
		{ "a\nb", NULL, "a\nb" },
		{ OLD, NULL, "" },
		{ OLD "\n", NULL, "" },
		{ "a\n" OLD, NULL, "a" },
		{ "a\r\n" OLD, NULL, "a" },
		{ "a\n" OLD "\nb", NULL, "a\nb" },
		{ "a\r\n" OLD "\r\nb\r\n", NULL, "a\r\nb\r\n" },
		{ "a\n" OLD "\n", NULL, "a\n" },
		/* the record is one line */
		{ "a", REC "\nforged line", "a\n" REC },
		{ "a", REC "\r\n", "a\n" REC },
	};
	static const char *const comments[] = {
		"", "a", "a\n", "a\nb", "a\r\nb", "a\r\nb\r\n", "\n\n", "x\n\ny",
		"a\r", "a\rb", "\r\n",
	};
	cosched_decision_t d;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = cosched_decision_splice_alloc(cases[i].comment,
						    cases[i].record, malloc);
		ck_assert_ptr_nonnull(got);
		ck_assert_msg(!strcmp(got, cases[i].want),
			      "case %zu: got \"%s\", want \"%s\"", i, got,
			      cases[i].want);
		free(got);
	}
	/* add, find, replace, remove: the comment comes back */
	for (size_t i = 0; i < sizeof(comments) / sizeof(comments[0]); i++) {
		char *with = cosched_decision_splice_alloc(comments[i], OLD, malloc);
		char *again = cosched_decision_splice_alloc(with, REC, malloc);
		char *without = cosched_decision_splice_alloc(again, NULL, malloc);
		ck_assert_int_eq(cosched_decision_find(with, &d, &err), 1);
		ck_assert_int_eq(d.state, COSCHED_DECISION_PLACED);
		ck_assert_int_eq(cosched_decision_find(again, &d, &err), 1);
		ck_assert_int_eq(d.state, COSCHED_DECISION_PENDING);
		ck_assert_uint_eq(strlen(again), strlen(with) + strlen(REC) -
				  strlen(OLD));
		ck_assert_msg(!strcmp(without, comments[i]),
			      "comment \"%s\" came back as \"%s\"", comments[i],
			      without);
		ck_assert_int_eq(cosched_decision_find(without, &d, &err), 0);
		free(with);
		free(again);
		free(without);
	}
}
END_TEST

/* set_slowdown(comment, s) is what parse, set, format and splice give. */
/* The in-place edit of in that must splice: want in a new string, in
 * untouched. */
static void expect_spliced(const char *in, uint32_t job_id, double slowdown,
			   const char *want)
{
	char *copy = strdup(in), *got = NULL;

	ck_assert_int_eq(cosched_decision_set_slowdown_in_place(copy, job_id,
		slowdown, &got, malloc, &err), 1);
	ck_assert_str_eq(got, want);
	ck_assert_str_eq(copy, in);
	free(got);
	free(copy);
}

static void expect_set_slowdown(const char *comment, const cosched_decision_t *d,
				double slowdown)
{
	char was[COSCHED_DECISION_TEXT_MAX], want[COSCHED_DECISION_TEXT_MAX];
	cosched_decision_t with = *d;
	char *start, *wanted, *got = (char *) 1;
	int rc;

	with.slowdown = slowdown;
	ck_assert_int_eq(cosched_decision_format(d, was, sizeof(was), &err), 0);
	ck_assert_int_eq(cosched_decision_format(&with, want, sizeof(want),
						 &err), 0);
	start = cosched_decision_splice_alloc(comment, was, malloc);
	wanted = cosched_decision_splice_alloc(comment, want, malloc);
	rc = cosched_decision_set_slowdown(start, d->job_id, slowdown, &got,
					   &err);
	if (!strcmp(start, wanted)) {
		ck_assert_msg(rc == 0 && got == NULL,
			      "%s with slowdown %g: rc %d", start, slowdown, rc);
	} else {
		ck_assert_msg(rc == 1, "%s with slowdown %g: rc %d (%s)", start,
			      slowdown, rc, err.msg);
		ck_assert_msg(!strcmp(got, wanted), "%s with slowdown %g:\n got %s\nwant %s",
			      start, slowdown, got, wanted);
		free(got);
	}
	/* In place: the same text, written over the comment where the
	 * length allows, else allocated as the copying form does. */
	{
		char *in = strdup(start), *spliced = (char *) 1;
		int in_rc = cosched_decision_set_slowdown_in_place(
			in, d->job_id, slowdown, &spliced, malloc, &err);

		ck_assert_msg(in_rc == rc, "%s with slowdown %g in place: rc %d, not %d",
			      start, slowdown, in_rc, rc);
		if (rc == 1 && strlen(wanted) == strlen(start)) {
			ck_assert_ptr_null(spliced);
			ck_assert_str_eq(in, wanted);
		} else {
			ck_assert_str_eq(in, start);
			if (rc == 1)
				ck_assert_str_eq(spliced, wanted);
			else
				ck_assert_ptr_null(spliced);
			free(spliced);
		}
		free(in);
	}
	free(start);
	free(wanted);
}

START_TEST(test_set_slowdown)
{
	static const char *const comments[] = { NULL, "a", "a\r\nb\r\n", "x\n\ny" };
	static const double values[] = { 1.0, 1.25, 1.7600000000000002, 1000,
					 NAN };
	cosched_decision_t d;
	char *got;

	for (size_t c = 0; c < sizeof(comments) / sizeof(comments[0]); c++) {
		for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
			/* every key; slowdown unset; nothing after it; only
			 * the required keys and reason */
			decision_example(&d);
			expect_set_slowdown(comments[c], &d, values[v]);
			d.slowdown = NAN;
			expect_set_slowdown(comments[c], &d, values[v]);
			d.reason[0] = '\0';
			expect_set_slowdown(comments[c], &d, values[v]);
			d.slowdown = 3.5;
			expect_set_slowdown(comments[c], &d, values[v]);
			cosched_decision_init(&d);
			d.job_id = 7;
			d.policy = COSCHED_POLICY_GANG;
			cosched_decision_set_reason(&d, "r \"q\" slowdown=9");
			expect_set_slowdown(comments[c], &d, values[v]);
		}
	}
	/* In place when the new value's text is as long as the old one's,
	 * only the value's bytes written; the rest of the comment stays. */
	{
		char in[] = "first\n" BASE " slowdown=1.5\nlast";

		expect_spliced(in, 1, 1.75, "first\n" BASE " slowdown=1.75\nlast");
		ck_assert_int_eq(cosched_decision_set_slowdown_in_place(in, 1,
			2.5, &got, malloc, &err), 1);
		ck_assert_ptr_null(got);
		ck_assert_str_eq(in, "first\n" BASE " slowdown=2.5\nlast");
		ck_assert_int_eq(cosched_decision_set_slowdown_in_place(in, 1,
			2.5, &got, malloc, &err), 0);
		ck_assert_int_eq(cosched_decision_set_slowdown_in_place(in, 2,
			1.5, &got, malloc, &err), 0);
		ck_assert_int_eq(cosched_decision_set_slowdown_in_place(in, 1,
			0, &got, malloc, &err), -1);
		ck_assert_ptr_null(got);
		ck_assert_str_eq(in, "first\n" BASE " slowdown=2.5\nlast");
		ck_assert_int_eq(cosched_decision_set_slowdown_in_place(NULL, 1,
			2.5, &got, malloc, &err), 0);
	}
	/* A record line that ends the comment with a '\r' loses it to the
	 * splice, so it is spliced, never edited in place (found by
	 * fuzz_decision: the two forms gave different texts). */
	expect_spliced("first\r\n" BASE " slowdown=1.5\r", 1, 2.5,
		       "first\r\n" BASE " slowdown=2.5");
	/* A '\r' of the record's own before the line end (a newer minor's
	 * key may end in one) is kept by both forms, which write the same
	 * text (found by fuzz_decision: the copying form dropped it). */
	{
		char in[] = BASE " slowdown=1.5 z=a\r\r\nlast";
		char *copied = NULL;

		ck_assert_int_eq(cosched_decision_set_slowdown(in, 1, 2.5, &copied,
							       &err), 1);
		ck_assert_str_eq(copied, BASE " slowdown=2.5 z=a\r\r\nlast");
		free(copied);
		ck_assert_int_eq(cosched_decision_set_slowdown_in_place(in, 1,
			2.5, &got, malloc, &err), 1);
		ck_assert_ptr_null(got);
		ck_assert_str_eq(in, BASE " slowdown=2.5 z=a\r\r\nlast");
		expect_spliced(BASE " slowdown=1.5 z=a\r\r\nlast", 1, 2.25,
			       BASE " slowdown=2.25 z=a\r\r\nlast");
	}
	/* A newer minor's keys after reason stay where they are. */
	ck_assert_int_eq(cosched_decision_set_slowdown(
		"cosched/1.3 job=3 state=placed policy=gang scope=socket reason=\"x\" new=1",
		3, 2.5, &got, &err), 1);
	ck_assert_str_eq(got, "cosched/1.3 job=3 state=placed policy=gang scope=socket slowdown=2.5 reason=\"x\" new=1");
	free(got);
	/* ... and before the keys this release knows (found by fuzz_decision:
	 * slowdown went before the unknown key, ahead of job=). */
	ck_assert_int_eq(cosched_decision_set_slowdown(
		"cosched/1.3 new=1 job=3 state=placed policy=gang scope=socket",
		3, 2.5, &got, &err), 1);
	ck_assert_str_eq(got, "cosched/1.3 new=1 job=3 state=placed policy=gang scope=socket slowdown=2.5");
	free(got);
	/* A newer minor's record takes the full path: an unknown key's
	 * quoted value may hold anything, " slowdown=" too. */
	ck_assert_int_eq(cosched_decision_set_slowdown(
		"cosched/1.3 job=3 state=placed policy=gang scope=socket x=\"a slowdown=1.5\"",
		3, 1.5, &got, &err), 1);
	ck_assert_str_eq(got, "cosched/1.3 job=3 state=placed policy=gang scope=socket x=\"a slowdown=1.5\" slowdown=1.5");
	free(got);
	/* A '\r' inside an unknown key's value stays, and so does what
	 * follows it (found by fuzz_decision: the splice cut the record
	 * there, losing job=). */
	ck_assert_int_eq(cosched_decision_set_slowdown(
		"cosched/1.3 new=a\rb job=3 state=placed policy=gang scope=socket",
		3, 2.5, &got, &err), 1);
	ck_assert_str_eq(got, "cosched/1.3 new=a\rb job=3 state=placed policy=gang scope=socket slowdown=2.5");
	free(got);
	/* Nothing to change: no record, another job's (an array task's
	 * copy), the same value. */
	ck_assert_int_eq(cosched_decision_set_slowdown(NULL, 3, 2.5, &got, &err), 0);
	ck_assert_int_eq(cosched_decision_set_slowdown("a\nb", 3, 2.5, &got, &err), 0);
	ck_assert_int_eq(cosched_decision_set_slowdown(BASE, 2, 2.5, &got, &err), 0);
	ck_assert_int_eq(cosched_decision_set_slowdown(BASE " slowdown=2.5", 1,
						       2.5, &got, &err), 0);
	ck_assert_ptr_null(got);
	/* A record of this release's own version (the edit's quick path):
	 * the same number in another text is the same value; a job id that
	 * only starts like this job's is another job's. */
	{
		char text[COSCHED_DECISION_TEXT_MAX], other[COSCHED_DECISION_TEXT_MAX];
		char *at;

		cosched_decision_init(&d);
		d.job_id = 1;
		d.policy = COSCHED_POLICY_GANG;
		d.slowdown = 2.5;
		cosched_decision_set_reason(&d, "r slowdown=3 job=1");
		ck_assert_int_eq(cosched_decision_format(&d, text, sizeof(text), &err), 0);
		at = strstr(text, " slowdown=2.5 ");
		ck_assert_ptr_nonnull(at);
		snprintf(other, sizeof(other), "%.*s slowdown=2.50%s",
			 (int) (at - text), text, at + strlen(" slowdown=2.5"));
		/* Written otherwise than the record writes it: rewritten in
		 * the record's own form (a text comparison, no strtod). */
		ck_assert_int_eq(cosched_decision_set_slowdown(other, 1, 2.5,
							       &got, &err), 1);
		ck_assert_str_eq(got, text);
		free(got);
		ck_assert_int_eq(cosched_decision_set_slowdown(text, 1, 2.5,
							       &got, &err), 0);
		ck_assert_ptr_null(got);
		ck_assert_int_eq(cosched_decision_set_slowdown(other, 1, 2.25,
							       &got, &err), 1);
		d.slowdown = 2.25;
		ck_assert_int_eq(cosched_decision_format(&d, text, sizeof(text), &err), 0);
		ck_assert_str_eq(got, text);
		free(got);
		at = strstr(text, " job=1 ");
		ck_assert_ptr_nonnull(at);
		snprintf(other, sizeof(other), "%.*s job=12%s", (int) (at - text),
			 text, at + strlen(" job=1"));
		ck_assert_int_eq(cosched_decision_set_slowdown(other, 1, 2.75,
							       &got, &err), 0);
		ck_assert_int_eq(cosched_decision_set_slowdown(other, 12, 2.75,
							       &got, &err), 1);
		ck_assert_ptr_nonnull(strstr(got, " job=12 "));
		ck_assert_ptr_nonnull(strstr(got, " slowdown=2.75 "));
		ck_assert_ptr_nonnull(strstr(got, "reason=\"r slowdown=3 job=1\""));
		free(got);
	}
	/* Refused, naming what: the value, two records, a field out of form,
	 * no job. */
	ck_assert_int_eq(cosched_decision_set_slowdown(BASE, 1, 0, &got, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "slowdown: value \"0\" out of range"));
	ck_assert_int_eq(cosched_decision_set_slowdown(BASE, 1, 1000.5, &got, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "slowdown: value \"1000.5\" out of range"));
	ck_assert_int_eq(cosched_decision_set_slowdown(BASE "\n" BASE, 1, 2, &got, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "2 lines start with cosched/"));
	ck_assert_int_eq(cosched_decision_set_slowdown(BASE " frob", 1, 2, &got, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "has no value"));
	ck_assert_int_eq(cosched_decision_set_slowdown("cosched/1 state=placed", 1, 2, &got, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "job: required key missing"));
	ck_assert_int_eq(cosched_decision_set_slowdown(BASE " slowdown=\"2\"", 1, 1.5, &got, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "slowdown: value \"2\" is quoted"));
	ck_assert_int_eq(cosched_decision_set_slowdown("cosched/2 job=1 state=placed policy=gang scope=socket",
						       1, 1.5, &got, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cosched/2.0 is newer"));
	ck_assert_ptr_null(got);
	/* A record that would outgrow the limit stays as it was, readable,
	 * as the formatter refuses to write it. */
	{
		char text[COSCHED_DECISION_TEXT_MAX], name[61];
		cosched_decision_t big;
		size_t len = 0;

		cosched_decision_init(&big);
		big.job_id = 5;
		big.slowdown = 1;
		for (int k = 0; k < COSCHED_DECISION_NODES_MAX; k++) {
			snprintf(name, sizeof(name), "%060d", k);
			ck_assert_ptr_nonnull(cosched_decision_node(&big, name, &err));
		}
		/* Each id adds at most 15 bytes (",1022" in three keys):
		 * stopped at 16367 or more, the record still fits. */
		for (int i = 0; len < COSCHED_DECISION_TEXT_MAX - 17; i++) {
			cosched_decision_node_t *node =
				&big.nodes[i % COSCHED_DECISION_NODES_MAX];
			int id = 2 * (i / COSCHED_DECISION_NODES_MAX);
			cosched_idset_add(&node->sockets, id, &err);
			cosched_idset_add(&node->cores, id, &err);
			cosched_idset_add(&node->numa, id, &err);
			if (i < COSCHED_DECISION_NODES_MAX - 1)
				continue;	/* every node needs an id */
			ck_assert_msg(cosched_decision_format(&big, text, sizeof(text), &err) == 0,
				      "%d ids: %s", i, err.msg);
			len = strlen(text);
		}
		ck_assert_int_eq(cosched_decision_format(&big, text, sizeof(text), &err), 0);
		ck_assert_uint_gt(strlen(text) + 17, COSCHED_DECISION_TEXT_MAX - 1);
		ck_assert_int_eq(cosched_decision_set_slowdown(text, 5, 1.7600000000000002,
							       &got, &err), -1);
		ck_assert_ptr_nonnull(strstr(err.msg, "longer than 16383"));
		ck_assert_ptr_null(got);
	}
}
END_TEST

/* ---- The launch copy -------------------------------------------------- */

/* The _alloc forms: the comment in the caller's memory, the same text.
 * The allocator marks its blocks so that a comment made by malloc (a
 * copy the caller would have to make again) shows. */
#define ALLOC_MARK 0x5eu
static int allocs;

static void *marked_alloc(size_t size)
{
	unsigned char *p = malloc(size + 1);

	if (!p)
		return NULL;
	allocs++;
	p[0] = ALLOC_MARK;
	return p + 1;
}

static void marked_free(char *s)
{
	unsigned char *p = (unsigned char *) s - 1;

	ck_assert_uint_eq(p[0], ALLOC_MARK);
	free(p);
}

START_TEST(test_alloc_forms)
{
	static const char *const comments[] = {
		NULL, "", "bb: staged in", OLD, "a\r\n" OLD "\r\nb",
		"x\n" BASE " slowdown=1.5\ny",
	};

	for (size_t i = 0; i < sizeof(comments) / sizeof(comments[0]); i++) {
		char *want = cosched_decision_splice_alloc(comments[i], REC, malloc);
		char *got;

		allocs = 0;
		got = cosched_decision_splice_alloc(comments[i], REC,
						    marked_alloc);
		ck_assert_int_eq(allocs, 1);
		ck_assert_str_eq(got, want);
		marked_free(got);
		free(want);
	}
	/* In place, what does not fit is allocated with alloc. */
	for (size_t i = 0; i < sizeof(comments) / sizeof(comments[0]); i++) {
		char *want = NULL, *got = NULL;
		char *in = comments[i] ? strdup(comments[i]) : NULL;
		int rc = cosched_decision_set_slowdown(comments[i], 1, 2.25,
						       &want, &err);

		allocs = 0;
		ck_assert_int_eq(cosched_decision_set_slowdown_in_place(
			in, 1, 2.25, &got, marked_alloc, &err), rc);
		ck_assert_int_eq(allocs, got != NULL);
		if (rc == 1) {
			ck_assert_str_eq(got ? got : in, want);
			if (got)
				marked_free(got);
		} else {
			ck_assert_ptr_null(got);
		}
		free(in);
		free(want);
	}
}
END_TEST

START_TEST(test_launch)
{
	char *one[] = { "A=1", COSCHED_DECISION_LAUNCH_NAME "=" REC, "B=2" };
	char *two[] = { COSCHED_DECISION_LAUNCH_NAME "=" REC, "x=y",
			COSCHED_DECISION_LAUNCH_NAME "=" OLD };
	char *near[] = { "COSCHED_DECISION_X=" REC, "SPANK_COSCHED_DECISION=" REC,
			 "COSCHED_DECISIO=" REC, COSCHED_DECISION_LAUNCH_NAME,
			 "cosched_decision=" REC };
	char *nulled[] = { "A=1", COSCHED_DECISION_LAUNCH_NAME "=" REC "\nforged",
			   NULL, COSCHED_DECISION_LAUNCH_NAME "=" OLD };
	const char *v;
	size_t len = 0;

	ck_assert(cosched_decision_launch_is(COSCHED_DECISION_LAUNCH_NAME "="));
	ck_assert(!cosched_decision_launch_is(NULL));
	v = cosched_decision_launch_find(one, 3, &len);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(len, strlen(REC));
	ck_assert(!strncmp(v, REC, len));
	/* the count, not a NULL, ends a counted array */
	ck_assert_ptr_null(cosched_decision_launch_find(one, 1, &len));
	ck_assert_ptr_null(cosched_decision_launch_find(NULL, 3, &len));
	/* two: a forgery or a bug, neither is believed */
	ck_assert_ptr_null(cosched_decision_launch_find(two, 3, &len));
	ck_assert_ptr_nonnull(cosched_decision_launch_find(two, 2, NULL));
	/* only the exact name (Slurm's prolog prefix is no launch copy) */
	for (size_t i = 0; i < sizeof(near) / sizeof(near[0]); i++) {
		ck_assert_msg(!cosched_decision_launch_is(near[i]), "%s", near[i]);
		ck_assert_ptr_null(cosched_decision_launch_find(near + i, 1, &len));
	}
	/* count < 0: up to the NULL; the value is one line, as parsed */
	v = cosched_decision_launch_find(nulled, -1, &len);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(len, strlen(REC));
	ck_assert_ptr_null(cosched_decision_launch_find(nulled, 4, &len));
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("decision_comment");
	TCase *tc = tcase_create("decision_comment");

	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_splice);
	tcase_add_test(tc, test_set_slowdown);
	tcase_add_test(tc, test_alloc_forms);
	tcase_add_test(tc, test_launch);
	suite_add_tcase(s, tc);
	return s;
}
