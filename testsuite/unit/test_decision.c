/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_decision.c - the per-job decision record
 * (src/libcosched/model/decision.c): formatter and strict parser (its
 * copies in a comment and the launch copy: test_decision_comment.c). */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "src/libcosched/model/decision.h"
#include "src/libcosched/model/decision_internal.h"
#include "decision_example.h"

static cosched_error_t err;

#define BASE "cosched/1 job=1 state=placed policy=gang scope=socket"

static void assert_printable(const char *s)
{
	for (const unsigned char *p = (const unsigned char *) s; *p; p++)
		ck_assert_msg(*p >= 0x20 && *p < 0x7f, "byte 0x%02x in \"%s\"",
			      *p, s);
}

/* format, compare with want (when given), parse back, compare. */
static void round_trip(const cosched_decision_t *d, const char *want)
{
	char buf[COSCHED_DECISION_TEXT_MAX], again[COSCHED_DECISION_TEXT_MAX];
	cosched_decision_t back;

	ck_assert_msg(cosched_decision_format(d, buf, sizeof(buf), &err) == 0,
		      "format: %s", err.msg);
	if (want)
		ck_assert_str_eq(buf, want);
	ck_assert_ptr_null(strchr(buf, '\n'));
	ck_assert_msg(cosched_decision_parse(buf, &back, &err) == 0,
		      "parse %s: %s", buf, err.msg);
	ck_assert(cosched_decision_equal(d, &back));
	ck_assert(cosched_decision_equal(&back, d));
	ck_assert_int_eq(cosched_decision_format(&back, again, sizeof(again),
						 &err), 0);
	ck_assert_str_eq(again, buf);
}

START_TEST(test_round_trip_full)
{
	cosched_decision_t d, back;

	decision_example(&d);
	round_trip(&d, DECISION_EXAMPLE_TEXT);
	/* The text read directly, its fields one by one. */
	ck_assert_int_eq(cosched_decision_parse(DECISION_EXAMPLE_TEXT, &back, &err), 0);
	ck_assert_uint_eq(back.job_id, 42);
	ck_assert_str_eq(back.app, "stream");
	ck_assert_int_eq(back.policy, COSCHED_POLICY_APP_AWARE);
	ck_assert(back.has_class);
	ck_assert_int_eq(back.category, COSCHED_CAT_MEM);
	ck_assert_int_eq(back.lca, COSCHED_LCA_L);
	ck_assert_int_eq(back.source, COSCHED_CLASS_FROM_PROFILE);
	ck_assert_double_eq(back.mpki, 21.5);
	ck_assert_int_eq(back.nnodes, 2);
	ck_assert_str_eq(back.nodes[1].name, "n2");
	ck_assert_int_eq(cosched_idset_count(&back.nodes[1].cores), 6);
	ck_assert(cosched_idset_has(&back.nodes[1].cores, 10));
	ck_assert(!cosched_idset_has(&back.nodes[1].cores, 9));
	ck_assert_int_eq(cosched_idset_count(&back.nodes[1].numa), 0);
	ck_assert_int_eq(back.freq_khz, 1400000);
	ck_assert_str_eq(back.reason, "joins \"cpu\" job 40 on n1 socket 1 \\ ok");
	/* A CRLF line end is not part of the record; nor is the next line. */
	{
		char crlf[sizeof(DECISION_EXAMPLE_TEXT) + 16];
		snprintf(crlf, sizeof(crlf), "%s\r\nnext line", DECISION_EXAMPLE_TEXT);
		ck_assert_int_eq(cosched_decision_parse(crlf, &back, &err), 0);
		decision_example(&d);
		ck_assert(cosched_decision_equal(&d, &back));
	}
}
END_TEST

START_TEST(test_round_trip_minimal)
{
	cosched_decision_t d;

	cosched_decision_init(&d);
	d.job_id = 7;
	d.state = COSCHED_DECISION_PENDING;
	round_trip(&d, "cosched/1 job=7 state=pending policy=none scope=socket");
	ck_assert_int_eq(cosched_decision_parse(
		"cosched/1 job=7 state=pending policy=none scope=socket", &d,
		&err), 0);
	ck_assert_int_eq(d.scope, COSCHED_SCOPE_SOCKET);
	ck_assert(isnan(d.mpki) && isnan(d.slowdown));
	ck_assert(!d.has_class);
	ck_assert_int_eq(d.nnodes, 0);

	/* Every state, policy, scope, membind, power and source value. */
	for (int s = 0; s < COSCHED_DECISION_STATE_COUNT; s++)
		for (int p = 0; p < COSCHED_POLICY_COUNT; p++) {
			cosched_decision_init(&d);
			d.job_id = 4294967293u;
			d.state = (cosched_decision_state_t) s;
			d.policy = (cosched_policy_t) p;
			d.scope = (cosched_scope_t) ((s + p) % COSCHED_SCOPE_COUNT);
			d.membind = (cosched_membind_t) ((s + p) % COSCHED_MEMBIND_COUNT);
			d.power = (cosched_power_policy_t) (p % COSCHED_POWER_COUNT);
			d.has_class = p % 2;
			d.category = (cosched_category_t) (s % COSCHED_CAT_COUNT);
			d.lca = (cosched_lca_t) (p % COSCHED_LCA_COUNT);
			d.source = (cosched_class_source_t) (s % COSCHED_CLASS_FROM_COUNT);
			round_trip(&d, NULL);
		}
}
END_TEST

/* Doubles come back bit for bit, written in their shortest form. */
START_TEST(test_round_trip_numbers)
{
	static const double values[] = { 0.1, 1.0 / 3, 2.0 / 3, 1e-300,
					 999.9999999999999, 1000, 1e6, 0,
					 123456.789, 1.25, 21.5 };
	cosched_decision_t d;
	char buf[256];

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		cosched_decision_init(&d);
		d.job_id = 1;
		d.mpki = values[i];
		if (values[i] > 0 && values[i] <= 1000)
			d.slowdown = values[i];
		round_trip(&d, NULL);
	}
	cosched_decision_init(&d);
	d.job_id = 1;
	d.mpki = -0.0;			/* written without its sign */
	d.slowdown = 1.0 / 3;
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), 0);
	ck_assert_str_eq(buf, "cosched/1 job=1 state=placed policy=none "
		"scope=socket mpki=0 slowdown=0.3333333333333333");
	d.mpki = 1e6;
	d.slowdown = NAN;
	d.threads = 65536;
	d.freq_khz = 100000000;
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), 0);
	ck_assert_str_eq(buf, "cosched/1 job=1 state=placed policy=none "
		"scope=socket mpki=1e+06 threads=65536 freq_khz=100000000");
	round_trip(&d, buf);
	/* what the parser would refuse, the formatter refuses */
	d.mpki = 5e-324;		/* subnormal: strtod says ERANGE */
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), -1);
	ck_assert_str_eq(err.msg, "mpki: invalid number \"5e-324\" (a decimal number without sign)");
	d.mpki = INFINITY;
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), -1);
	d.mpki = 1e6 + 1;
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), -1);
	ck_assert_str_eq(err.msg, "mpki: value \"1000001\" out of range (0 <= mpki <= 1e+06)");
	d.mpki = NAN;
	d.slowdown = -1;
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), -1);
	ck_assert_str_eq(err.msg, "slowdown: invalid number \"-1\" (a decimal number without sign)");
}
END_TEST

/* parse(text) fails, leaves d untouched, and its message holds every
 * needle (NULL-terminated) and nothing a log would act on. */
static void expect_error_v(const char *text, const char *const *needles)
{
	cosched_decision_t d, before;

	memset(&d, 0x5a, sizeof(d));
	memcpy(&before, &d, sizeof(d));
	memset(err.msg, 0, sizeof(err.msg));
	ck_assert_msg(cosched_decision_parse(text, &d, &err) == -1,
		      "accepted: %s", text);
	ck_assert_msg(!memcmp(&d, &before, sizeof(d)),
		      "a failed parse changed the record: %s", text);
	for (; *needles; needles++)
		ck_assert_msg(strstr(err.msg, *needles) != NULL,
			      "parse of %s: message \"%s\" lacks \"%s\"", text,
			      err.msg, *needles);
	assert_printable(err.msg);
}

#define expect_error(text, ...) \
	expect_error_v((text), (const char *const[]){ __VA_ARGS__, NULL })

START_TEST(test_errors_keys)
{
	/* unknown key */
	expect_error(BASE " frob=3", "invalid key \"frob\"", "value \"3\"");
	expect_error(BASE " Job=3", "invalid key \"Job\"", "value \"3\"");
	/* a key twice, in order or not */
	expect_error(BASE " scope=node", "scope: key given twice", "\"node\"");
	expect_error(BASE " job=2", "job: key given twice", "\"2\"");
	/* out of order */
	expect_error("cosched/1 state=placed job=1 policy=gang",
		     "job: key out of order", "after state", "\"1\"");
	expect_error(BASE " slowdown=1.5 mpki=2",
		     "mpki: key out of order", "after slowdown", "\"2\"");
	/* missing required keys */
	expect_error("cosched/1 job=1 state=placed", "policy: required key missing");
	/* scope has no unset value: the formatter always writes it */
	expect_error("cosched/1 job=1 state=placed policy=gang",
		     "scope: required key missing");
	expect_error("cosched/1 state=placed policy=gang", "job: required key missing");
	expect_error("cosched/1", "job: required key missing");
	expect_error(BASE " class=mem source=profile",
		     "lca: key missing", "go together");
	/* app: an application name, once, after scope */
	expect_error(BASE " app=../etc", "app:", "\"../etc\"");
	expect_error(BASE " app=.hidden", "app:", "\".hidden\"");
	expect_error(BASE " class=mem lca=L source=profile app=x",
		     "app: key out of order");
	/* a field without '=' and blanks */
	expect_error(BASE " junk", "field \"junk\" has no value");
	expect_error(BASE " ", "trailing bytes", "blank at the end");
	expect_error("cosched/1 job=1  state=placed policy=gang",
		     "two blanks", "\"state=placed");
	/* names, case-sensitive */
	expect_error("cosched/1 job=1 state=placed policy=gang scope=Socket",
		     "scope: invalid scope \"Socket\"", "socket, node");
	expect_error("cosched/1 job=1 state=running policy=gang",
		     "state: invalid value \"running\"", "passthrough");
	expect_error("cosched/1 job=1 state=placed policy=APP_AWARE",
		     "policy: invalid value \"APP_AWARE\"", "app_aware", "none");
	expect_error(BASE " class=memory lca=L source=profile",
		     "class: invalid category \"memory\"");
	expect_error(BASE " class=mem lca=l source=profile",
		     "lca: invalid LCA class \"l\"");
	expect_error(BASE " class=mem lca=L source=measured",
		     "source: invalid value \"measured\"", "declared");
	expect_error(BASE " membind=unset", "membind: invalid value \"unset\"",
		     "none, bind, prefer");
	expect_error(BASE " power=default", "power: invalid value \"default\"",
		     "performance, edp, energy");
	expect_error(BASE " power=energy:10%", "power: invalid value \"energy:10%\"");
	expect_error(BASE " governor=Perf", "governor: invalid governor \"Perf\"");
	expect_error(BASE " governor=abcdefghijabcdefghijabcdefghij12",
		     "governor: invalid governor \"abcdefghij");
	expect_error(BASE " governor=", "governor: invalid governor \"\"");
	/* not a record at all */
	expect_error("hello", "does not start with cosched/", "\"hello\"");
	expect_error("", "does not start with cosched/");
	ck_assert_int_eq(cosched_decision_parse(NULL, NULL, &err), -1);
}
END_TEST

START_TEST(test_errors_numbers)
{
	expect_error("cosched/1 job=4x2 state=placed policy=gang",
		     "job: invalid number \"4x2\"");
	expect_error("cosched/1 job= state=placed policy=gang",
		     "job: invalid number \"\"");
	expect_error("cosched/1 job=042 state=placed policy=gang",
		     "job: invalid number \"042\"", "leading zero");
	expect_error("cosched/1 job=+42 state=placed policy=gang",
		     "job: invalid number \"+42\"");
	expect_error("cosched/1 job=0 state=placed policy=gang",
		     "job: value \"0\" out of range", "1 <= job <= 4294967293");
	expect_error("cosched/1 job=4294967294 state=placed policy=gang",
		     "job: value \"4294967294\" out of range");
	expect_error("cosched/1 job=99999999999999999999999 state=placed policy=gang",
		     "job: invalid number \"9999999999");
	expect_error(BASE " threads=0", "threads: value \"0\" out of range");
	expect_error(BASE " threads=65537", "threads: value \"65537\" out of range");
	expect_error(BASE " freq_khz=1e6", "freq_khz: invalid number \"1e6\"");
	expect_error(BASE " freq_req_khz=100000001",
		     "freq_req_khz: value \"100000001\" out of range");
	expect_error(BASE " mpki=-1", "mpki: invalid number \"-1\"");
	expect_error(BASE " mpki=nan", "mpki: invalid number \"nan\"");
	expect_error(BASE " mpki=inf", "mpki: invalid number \"inf\"");
	expect_error(BASE " mpki=0x10", "mpki: invalid number \"0x10\"");
	expect_error(BASE " mpki=.5", "mpki: invalid number \".5\"");
	expect_error(BASE " mpki=1e7", "mpki: value \"1e7\" out of range");
	/* a number in another spelling than the formatter's */
	expect_error(BASE " mpki=21.50", "mpki: value \"21.50\" is not written",
		     "(21.5)");
	expect_error(BASE " mpki=1e6", "mpki: value \"1e6\" is not written",
		     "(1e+06)");
	expect_error(BASE " slowdown=0", "slowdown: value \"0\" out of range",
		     "0 < slowdown <= 1000");
	expect_error(BASE " slowdown=1000.5", "slowdown: value \"1000.5\" out of range");
}
END_TEST

START_TEST(test_errors_nodes)
{
	char text[512], name[80];

	/* range lists */
	expect_error(BASE " cores=n1:4-7,0",
		     "cores: range list not sorted in \"n1:4-7,0\"");
	expect_error(BASE " cores=n1:7-4", "cores: range list not sorted in \"n1:7-4\"");
	expect_error(BASE " cores=n1:0-4,3", "cores: ranges overlap in \"n1:0-4,3\"");
	expect_error(BASE " cores=n1:2,2", "cores: ranges overlap in \"n1:2,2\"");
	expect_error(BASE " cores=n1:1024", "cores: id out of range",
		     "0 <= id < 1024", "\"n1:1024\"");
	expect_error(BASE " numa=n1:0-99999999", "numa: id out of range",
		     "\"n1:0-99999999\"");
	expect_error(BASE " cores=n1:0-1,2", "cores: ranges not merged",
		     "\"n1:0-1,2\"");
	expect_error(BASE " cores=n1:3-3", "cores: range 3-3 not written as 3",
		     "\"n1:3-3\"");
	expect_error(BASE " cores=n1:01", "cores: invalid range list in \"n1:01\"");
	expect_error(BASE " cores=n1:1,", "cores: invalid range list in \"n1:1,\"");
	expect_error(BASE " cores=n1:-1", "cores: invalid range list in \"n1:-1\"");
	expect_error(BASE " cores=n1:1:2", "cores: invalid range list in \"n1:1:2\"");
	/* node names */
	expect_error(BASE " sockets=n$1:0", "sockets: invalid node name in \"n$1:0\"");
	expect_error(BASE " sockets=:0", "sockets: invalid node name in \":0\"");
	expect_error(BASE " sockets=n1", "sockets: invalid node name in \"n1\"");
	expect_error(BASE " sockets=n1:0;", "sockets: invalid node name in \"\"");
	memset(name, 'a', 65);
	name[65] = '\0';
	snprintf(text, sizeof(text), BASE " sockets=%s:0", name);
	expect_error(text, "sockets: invalid node name", "1 to 64 bytes",
		     "\"aaaaaaaa");
	name[64] = '\0';		/* 64 bytes: fine */
	snprintf(text, sizeof(text), BASE " sockets=%s:0", name);
	ck_assert_msg(cosched_decision_parse(text, &(cosched_decision_t){ 0 },
					     &err) == 0, "%s", err.msg);
	expect_error(BASE " sockets=n1:0;n1:1", "sockets: node listed twice",
		     "\"n1:1\"");
	/* the three lists name the same nodes in the same order */
	expect_error(BASE " sockets=n1:0;n2:0 cores=n2:0;n1:0",
		     "cores: node 1 is not n1", "\"n2:0\"");
	expect_error(BASE " sockets=n1:0;n2:0 cores=n1:0",
		     "cores: 1 nodes, the key before lists 2", "\"n1:0\"");
	expect_error(BASE " sockets=n1:0 numa=n1:0;n2:0",
		     "numa: node 2 is not (none)", "\"n2:0\"");
	/* empty lists */
	expect_error(BASE " sockets=n1:", "sockets: every list is empty");
	expect_error(BASE " sockets=n1:;n2:0 cores=n1:;n2:1",
		     "node n1 has no socket, core or NUMA id");
}
END_TEST

START_TEST(test_errors_schema_trailing_reason)
{
	char text[512], reason[300];

	/* another schema version: both named */
	expect_error("cosched/2 job=1 state=placed policy=gang",
		     "decision record schema cosched/2.0 is newer than this node understands (cosched/1.x)",
		     "upgrade cosched here");
	expect_error("cosched/10", "schema cosched/10.0 is newer", "cosched/1.x");
	expect_error("cosched/0.5 job=1", "schema cosched/0.5 is older", "cosched/1.x");
	expect_error("cosched/x job=1", "schema: invalid version \"x\"",
		     "cosched/1.x");
	expect_error("cosched/ job=1", "schema: invalid version \"\"");
	expect_error("cosched/01 job=1", "invalid version \"01\"");
	expect_error("cosched/1.01 job=1", "invalid version \"1.01\"");
	expect_error("cosched/1. job=1", "invalid version \"1.\"");
	expect_error("cosched/1.2.3 job=1", "invalid version \"1.2.3\"");
	/* trailing bytes */
	expect_error(BASE " reason=\"x\" slowdown=1",
		     "reason: trailing bytes \" slowdown=1\"");
	expect_error(BASE " reason=\"x\"y", "reason: trailing bytes \"y\"");
	expect_error(BASE " reason=\"x\" ", "reason: trailing bytes \" \"");
	/* quotes and escapes */
	expect_error(BASE " reason=\"abc", "reason: unterminated quote in \"\\\"abc\"");
	expect_error(BASE " reason=\"abc\\\"", "reason: unterminated quote");
	expect_error(BASE " reason=abc", "reason: value \"abc\" is not double-quoted");
	expect_error(BASE " reason=\"a\\nb\"", "reason: invalid escape \"\\\\n\"",
		     "\"\\\"a\\\\nb\\\"\"");
	expect_error(BASE " reason=\"a\\", "reason: invalid escape");
	expect_error(BASE " reason=\"a\x01z\"", "reason: byte 0x01 not allowed");
	expect_error(BASE " reason=\"caf\xc3\xa9\"", "reason: byte 0xc3 not allowed");
	expect_error(BASE " reason=\"a\rb\"", "reason: byte 0x0d not allowed");
	expect_error(BASE " reason=\"\"", "reason: empty");
	memset(reason, 'r', 201);
	reason[201] = '\0';
	snprintf(text, sizeof(text), BASE " reason=\"%s\"", reason);
	expect_error(text, "reason: longer than 200 bytes", "...(203 bytes)");
	reason[200] = '\0';		/* 200: fine */
	snprintf(text, sizeof(text), BASE " reason=\"%s\"", reason);
	ck_assert_int_eq(cosched_decision_parse(text, &(cosched_decision_t){ 0 },
						&err), 0);
	/* values are quoted short and escaped, whatever their length */
	memset(reason, 'v', 299);
	reason[299] = '\0';
	snprintf(text, sizeof(text), BASE " frob=%s", reason);
	expect_error(text, "invalid key \"frob\"", "...(299 bytes)");
	expect_error(BASE " frob=\x1b[2J", "value \"\\x1b[2J\"");
}
END_TEST

/* The formatter refuses what the parser would, and never overruns. */
START_TEST(test_format_refuses)
{
	static const size_t sizes[] = { 0, 1, 10, 40, 56, 57 };
	cosched_decision_t d;
	char buf[64], big[COSCHED_DECISION_TEXT_MAX + 8];
	static char huge[1 << 16];

	cosched_decision_init(&d);
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "job: job id 0 out of range"));
	d.job_id = 5;
	d.slowdown = 0;
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "slowdown: value \"0\" out of range"));
	d.slowdown = NAN;
	strcpy(d.reason, "a\nforged");
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "reason: byte 0x0a at 1"));
	d.reason[0] = '\0';
	strcpy(d.governor, "a b");
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "governor: invalid governor \"a b\""));
	d.governor[0] = '\0';
	d.has_class = true;
	/* unknown is a class a job can have (nothing measured or declared,
	 * DefaultClass=unknown); one past it is not. */
	d.category = COSCHED_CAT_UNKNOWN;
	d.lca = COSCHED_LCA_UNKNOWN;
	ck_assert_int_eq(cosched_decision_format(&d, big, sizeof(big), &err), 0);
	ck_assert_ptr_nonnull(strstr(big, " class=unknown lca=unknown "));
	{
		cosched_decision_t back;
		ck_assert_int_eq(cosched_decision_parse(big, &back, &err), 0);
		ck_assert_int_eq(back.category, COSCHED_CAT_UNKNOWN);
		ck_assert_int_eq(back.lca, COSCHED_LCA_UNKNOWN);
	}
	d.category = COSCHED_CAT_UNKNOWN + 1;
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "class: category 5"));
	d.category = COSCHED_CAT_UNKNOWN;
	d.has_class = false;
	ck_assert_ptr_nonnull(cosched_decision_node(&d, "n1", &err));
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "nodes: node n1 has no socket, core or NUMA id"));
	d.nnodes = 0;
	d.policy = (cosched_policy_t) (COSCHED_DECISION_POLICY_NEWER + 1);
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "policy: unknown policy"));
	d.policy = COSCHED_POLICY_NONE;

	/* 53 bytes: "cosched/1 job=5 state=placed policy=none scope=socket";
	 * shorter buffers: -1, terminated, nothing written past them. */
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(buf, 'X', sizeof(buf));
		ck_assert_int_eq(cosched_decision_format(&d, buf, sizes[i], &err),
				 sizes[i] > 53 ? 0 : -1);
		if (sizes[i]) {
			ck_assert_uint_lt(strlen(buf), sizes[i]);
			ck_assert_int_eq(buf[sizes[i]], 'X');
		} else {
			ck_assert_int_eq(buf[0], 'X');
		}
	}
	ck_assert_int_eq(cosched_decision_format(&d, buf, 53, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "record: does not fit 53 bytes"));

	/* 64 nodes with every other core: longer than TEXT_MAX, refused
	 * even with room in the buffer. */
	for (int i = 0; i < COSCHED_DECISION_NODES_MAX; i++) {
		char name[16];
		cosched_decision_node_t *n;
		snprintf(name, sizeof(name), "node%03d", i);
		n = cosched_decision_node(&d, name, &err);
		ck_assert_ptr_nonnull(n);
		for (int c = 0; c < 256; c += 2)
			cosched_idset_add(&n->cores, c, &err);
	}
	ck_assert_ptr_null(cosched_decision_node(&d, "one-more", &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "nodes: more than 64 nodes"));
	ck_assert_int_eq(cosched_decision_format(&d, huge, sizeof(huge), &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "longer than 16383"));
	/* fewer cores: fits, and reads back */
	for (int i = 0; i < COSCHED_DECISION_NODES_MAX; i++) {
		cosched_idset_clear(&d.nodes[i].cores);
		cosched_idset_add(&d.nodes[i].cores, i, &err);
		cosched_idset_add(&d.nodes[i].sockets, 0, &err);
	}
	round_trip(&d, NULL);
	/* a line as long as TEXT_MAX is refused by the parser too */
	memset(big, 'a', COSCHED_DECISION_TEXT_MAX);
	memcpy(big, BASE " reason=\"", strlen(BASE " reason=\""));
	big[COSCHED_DECISION_TEXT_MAX] = '\0';
	expect_error(big, "record: 16384 bytes, longer than 16383");
}
END_TEST

START_TEST(test_idset_node_reason)
{
	cosched_idset_t s;
	cosched_decision_t d;
	char buf[COSCHED_IDSET_TEXT_MAX], small[6];

	cosched_idset_clear(&s);
	ck_assert_str_eq(cosched_idset_format(&s, buf, sizeof(buf)), "");
	ck_assert_int_eq(cosched_idset_add(&s, -1, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "id -1 out of range"));
	ck_assert_int_eq(cosched_idset_add(&s, 1024, &err), -1);
	for (int id = 0; id <= 3; id++)
		cosched_idset_add(&s, id, &err);
	cosched_idset_add(&s, 6, &err);
	cosched_idset_add(&s, 1023, &err);
	ck_assert_str_eq(cosched_idset_format(&s, buf, sizeof(buf)), "0-3,6,1023");
	ck_assert_int_eq(cosched_idset_count(&s), 6);
	ck_assert(cosched_idset_has(&s, 1023) && !cosched_idset_has(&s, 1024) &&
		  !cosched_idset_has(&s, -1));
	/* runs are found a word at a time: across words, to the last id */
	{
		cosched_idset_t w;
		cosched_idset_clear(&w);
		for (int id = 60; id <= 130; id++)
			cosched_idset_add(&w, id, &err);
		cosched_idset_add(&w, 191, &err);
		cosched_idset_add(&w, 192, &err);
		for (int id = 960; id < 1024; id++)
			cosched_idset_add(&w, id, &err);
		ck_assert_str_eq(cosched_idset_format(&w, buf, sizeof(buf)),
				 "60-130,191-192,960-1023");
		ck_assert_int_eq(cosched_idset_next(&w, 0), 60);
		ck_assert_int_eq(cosched_idset_next(&w, 131), 191);
		ck_assert_int_eq(cosched_idset_next(&w, 193), 960);
		ck_assert_int_eq(cosched_idset_next(&w, 1023), 1023);
		ck_assert_int_eq(cosched_idset_next(&w, 1024), -1);
		ck_assert_int_eq(cosched_idset_next(&w, -5), 60);
		cosched_idset_clear(&w);
		cosched_idset_add(&w, 63, &err);
		cosched_idset_add(&w, 64, &err);
		ck_assert_str_eq(cosched_idset_format(&w, buf, sizeof(buf)), "63-64");
		ck_assert_int_eq(cosched_idset_next(&w, 64), 64);
	}
	memset(small, 'X', sizeof(small));
	ck_assert_str_eq(cosched_idset_format(&s, small, 5), "0-3,");
	ck_assert_int_eq(small[5], 'X');
	/* the worst set fits COSCHED_IDSET_TEXT_MAX */
	cosched_idset_clear(&s);
	for (int id = 0; id < COSCHED_DECISION_IDS_MAX; id += 2)
		cosched_idset_add(&s, id, &err);
	cosched_idset_format(&s, buf, sizeof(buf));
	ck_assert_str_eq(buf + strlen(buf) - 5, ",1022");
	/* the parser reads back what the formatter wrote, and only that */
	{
		cosched_idset_t back;
		ck_assert_int_eq(cosched_idset_parse("cores", buf, &back, &err), 0);
		ck_assert(!memcmp(&back, &s, sizeof(s)));
		ck_assert_int_eq(cosched_idset_parse("cores", "", &back, &err), 0);
		ck_assert_int_eq(cosched_idset_count(&back), 0);
		ck_assert_int_eq(cosched_idset_parse("cores", "0-3,6", &back, &err), 0);
		ck_assert_int_eq(cosched_idset_count(&back), 5);
		ck_assert_int_eq(cosched_idset_parse("cores", "3,1", &back, &err), -1);
		ck_assert_ptr_nonnull(strstr(err.msg, "cores: range list not sorted in \"3,1\""));
		ck_assert_int_eq(cosched_idset_parse("cores", "0-1x", &back, &err), -1);
		ck_assert_ptr_nonnull(strstr(err.msg, "cores: invalid range list in \"0-1x\""));
		ck_assert_int_eq(cosched_idset_count(&back), 5);	/* untouched */
	}

	cosched_decision_init(&d);
	ck_assert_ptr_null(cosched_decision_node(&d, "bad name", &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "nodes: invalid node name \"bad name\""));
	ck_assert_ptr_null(cosched_decision_node(&d, "", &err));
	ck_assert_ptr_null(cosched_decision_node(&d, NULL, &err));
	ck_assert_ptr_eq(cosched_decision_node(&d, "n1", &err), &d.nodes[0]);
	ck_assert_ptr_eq(cosched_decision_node(&d, "n2", &err), &d.nodes[1]);
	ck_assert_ptr_eq(cosched_decision_node(&d, "n1", &err), &d.nodes[0]);
	ck_assert_int_eq(d.nnodes, 2);

	/* control and non-ASCII bytes become '?'; cut at 200 bytes */
	cosched_decision_set_reason(&d, "a\nb\x1b[1m\xc3\xa9 %s", "\x7f");
	ck_assert_str_eq(d.reason, "a?b?[1m?? ?");
	cosched_decision_set_reason(&d, "%0300d", 7);
	ck_assert_uint_eq(strlen(d.reason), COSCHED_DECISION_REASON_MAX);

	/* From parts: joined as they are, NULL skipped, the same cut and
	 * the same '?'s as the printf form. */
	{
		char big[COSCHED_DECISION_REASON_MAX + 40], want[sizeof(d.reason)];
		const char *parts[] = { "gang", " class ", NULL, "mem", "; ",
					"a\nb\x1b\xc3\xa9", "" };
		const char *cut[] = { "x", big, "never read" };

		cosched_decision_set_reason_parts(&d, parts, 7);
		ck_assert_str_eq(d.reason, "gang class mem; a?b???");
		cosched_decision_set_reason_parts(&d, parts, 0);
		ck_assert_str_eq(d.reason, "");
		memset(big, 'y', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		cosched_decision_set_reason(&d, "x%s%s", big, "never read");
		snprintf(want, sizeof(want), "%s", d.reason);
		cosched_decision_set_reason_parts(&d, cut, 3);
		ck_assert_str_eq(d.reason, want);
		ck_assert_uint_eq(strlen(d.reason), COSCHED_DECISION_REASON_MAX);
	}
}
END_TEST

START_TEST(test_equal_and_names)
{
	cosched_decision_t a, b;

	decision_example(&a);
	decision_example(&b);
	ck_assert(cosched_decision_equal(&a, &b));
	b.nodes[1].cores.bits[0] ^= 1;
	ck_assert(!cosched_decision_equal(&a, &b));
	decision_example(&b);
	b.slowdown = NAN;
	ck_assert(!cosched_decision_equal(&a, &b));
	a.slowdown = NAN;
	ck_assert(cosched_decision_equal(&a, &b));
	a.has_class = b.has_class = false;
	a.category = COSCHED_CAT_CPU;		/* not carried without class */
	ck_assert(cosched_decision_equal(&a, &b));
	a.nodes[5].name[0] = 'z';		/* beyond nnodes */
	ck_assert(cosched_decision_equal(&a, &b));

	ck_assert_str_eq(cosched_decision_state_name(COSCHED_DECISION_PASSTHROUGH),
			 "passthrough");
	ck_assert_str_eq(cosched_decision_state_name(COSCHED_DECISION_STATE_COUNT),
			 "unknown");
	ck_assert_str_eq(cosched_scope_name(COSCHED_SCOPE_NODE), "node");
	ck_assert_str_eq(cosched_membind_name(COSCHED_MEMBIND_PREFER), "prefer");
	{
		cosched_scope_t sc = COSCHED_SCOPE_SOCKET;
		ck_assert_int_eq(cosched_scope_parse("Scope", "node", &sc, &err), 0);
		ck_assert_int_eq(sc, COSCHED_SCOPE_NODE);
		ck_assert_int_eq(cosched_scope_parse("Scope", "gang", &sc, &err), -1);
		ck_assert_int_eq(sc, COSCHED_SCOPE_NODE);
		ck_assert_str_eq(err.msg,
			"Scope: invalid scope \"gang\" (allowed: socket, node)");
	}
}
END_TEST

/* The plain search the record's numbers were first written with: its
 * text is what every reader compares with. */
static void plain_double_text(char *buf, size_t len, double x)
{
	if (x == 0)
		x = 0;
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
}

static void same_text(double x)
{
	char fast[64], plain[64];

	cosched_decision_double_text(fast, sizeof(fast), x);
	plain_double_text(plain, sizeof(plain), x);
	ck_assert_msg(!strcmp(fast, plain), "%a: \"%s\", the plain search \"%s\"",
		      x, fast, plain);
}

START_TEST(test_double_text)
{
	uint64_t r = 0x9e3779b97f4a7c15ull;

	/* what the record holds: slowdowns as the model sums them, MPKI */
	for (int a = 0; a < 100; a++)
		for (int b = 0; b < 100; b++)
			same_text(1.0 + (1.0 + a / 100.0 - 1.0) + (b / 100.0));
	for (int k = 1; k <= 20000; k++) {
		same_text(k / 1000.0);
		same_text(k * 0.1);
	}
	/* powers of two and their neighbours, over the whole range */
	for (int e = -1074; e <= 1023; e++) {
		double p = ldexp(1.0, e);
		same_text(p);
		same_text(nextafter(p, 0));
		same_text(nextafter(p, INFINITY));
	}
	/* any finite bit pattern */
	for (int i = 0; i < 100000; i++) {
		double x;
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		memcpy(&x, &r, sizeof(x));
		if (isfinite(x))
			same_text(fabs(x));
		same_text((double) (r >> 11) / (double) (1ull << 53) * 1000.0);
	}
}
END_TEST

/*
 * The numbers' texts are kept in one memo for the process (slurmctld
 * writes a job's start and end in whichever thread serves the RPC): three
 * threads writing four times as many numbers as it has slots, so that
 * they keep taking each other's, each get every number's own text; and a
 * number kept there is still checked against the range it is written in.
 */
#define MEMO_VALUES 256
#define MEMO_THREADS 3

static double memo_value[MEMO_VALUES];
static char memo_plain[MEMO_VALUES][64];

static void *memo_writer(void *arg)
{
	uint32_t r = (uint32_t) (uintptr_t) arg;

	for (int i = 0; i < 20000; i++) {
		char text[64];
		int k;

		r = r * 1103515245u + 12345u;
		k = (int) ((r >> 8) % MEMO_VALUES);
		cosched_decision_double_text(text, sizeof(text), memo_value[k]);
		if (strcmp(text, memo_plain[k]))
			return (void *) (uintptr_t) (k + 1);
	}
	return NULL;
}

START_TEST(test_double_text_threads)
{
	pthread_t t[MEMO_THREADS];
	char text[NUMBER_TEXT_MAX];

	for (int k = 0; k < MEMO_VALUES; k++) {
		memo_value[k] = 1.0 + k * 0.07 + (k % 3) / 7.0;
		plain_double_text(memo_plain[k], sizeof(memo_plain[k]),
				  memo_value[k]);
	}
	for (int i = 0; i < MEMO_THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, memo_writer,
						(void *) (uintptr_t) (i + 1)), 0);
	for (int i = 0; i < MEMO_THREADS; i++) {
		void *bad;
		ck_assert_int_eq(pthread_join(t[i], &bad), 0);
		ck_assert_msg(bad == NULL, "%a: not \"%s\"",
			      memo_value[(uintptr_t) bad - 1],
			      memo_plain[(uintptr_t) bad - 1]);
	}
	/* Once written, 1.76 is in the memo: in range it is written again,
	 * out of it not. */
	ck_assert_int_eq(cosched_decision_double_write("slowdown", 1.76, 0, true,
						       1000, text, &err), 0);
	ck_assert_str_eq(text, "1.76");
	ck_assert_int_eq(cosched_decision_double_write("slowdown", 1.76, 0, true,
						       1.5, text, &err), -1);
	ck_assert_str_eq(err.msg,
		"slowdown: value \"1.76\" out of range (0 < slowdown <= 1.5)");
	ck_assert_int_eq(cosched_decision_double_write("slowdown", 1.76, 1.76,
						       true, 2, text, &err), -1);
}
END_TEST

/* cosched(8) documents every key the record has, in the record's order. */
START_TEST(test_documented)
{
	char *doc = cosched_check_read_doc("doc/cosched.8");
	const char *section = strstr(doc, ".SH \"DECISION RECORD\"");
	const char *at;
	char keys[COSCHED_DECISION_TEXT_MAX];
	cosched_decision_t d;

	ck_assert_msg(section != NULL, "cosched(8) has no DECISION RECORD section");
	at = section;
	decision_example(&d);
	ck_assert_int_eq(cosched_decision_format(&d, keys, sizeof(keys), &err), 0);
	for (char *tok = strtok(keys + strlen("cosched/1 "), " "); tok;
	     tok = strtok(NULL, " ")) {
		char entry[64];
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;	/* words of the reason */
		*eq = '\0';
		snprintf(entry, sizeof(entry), ".B %s\n", tok);
		at = strstr(at, entry);
		ck_assert_msg(at != NULL,
			      "cosched(8) DECISION RECORD: key %s missing or out of order",
			      tok);
	}
	ck_assert_ptr_nonnull(strstr(section, "SystemComment"));
	ck_assert_ptr_nonnull(strstr(section, "sacct -o AdminComment"));
	free(doc);
}
END_TEST

/* A policy a newer minor added (cosched(8) UPGRADE): a node of this
 * release reads the record, keeping the name to show, and enforces it;
 * this release's own records, or a malformed name, are still refused;
 * the formatter never writes it. */
START_TEST(test_newer_minor_policy)
{
	static const char *const rec =
		"cosched/1.3 job=3 state=placed policy=future_policy scope=socket sockets=n1:0 cores=n1:2";
	char name[64], text[256], buf[512];
	cosched_decision_t d, again;

	ck_assert_int_eq(cosched_decision_parse(rec, &d, &err), 0);
	ck_assert_int_eq(d.policy, COSCHED_DECISION_POLICY_NEWER);
	ck_assert_str_eq(d.newer_policy, "future_policy");
	ck_assert_str_eq(cosched_decision_policy_of(&d), "future_policy");
	ck_assert_int_eq(d.nnodes, 1);		/* the rest read as before */
	ck_assert_int_eq(cosched_decision_parse(rec, &again, &err), 0);
	ck_assert(cosched_decision_equal(&d, &again));
	snprintf(again.newer_policy, sizeof(again.newer_policy), "other");
	ck_assert(!cosched_decision_equal(&d, &again));
	/* As a node finds it in a SystemComment. */
	snprintf(buf, sizeof(buf), "note\n%s\n", rec);
	ck_assert_int_eq(cosched_decision_find(buf, &again, &err), 1);
	ck_assert_str_eq(cosched_decision_policy_of(&again), "future_policy");
	/* Never written by this release. */
	ck_assert_int_eq(cosched_decision_format(&d, buf, sizeof(buf), &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg,
		"policy: \"future_policy\" is a newer release's policy"));
	/* This release's version: every policy it may write is known. */
	expect_error("cosched/1 job=3 state=placed policy=future_policy scope=socket",
		     "policy", "future_policy");
	expect_error("cosched/1.0 job=3 state=placed policy=future_policy scope=socket",
		     "policy", "future_policy");
	/* A name no release gives: refused in a newer minor too. */
	expect_error("cosched/1.3 job=3 state=placed policy=Future scope=socket",
		     "policy", "Future");
	expect_error("cosched/1.3 job=3 state=placed policy=9lives scope=socket",
		     "policy", "9lives");
	expect_error("cosched/1.3 job=3 state=placed policy=a-b scope=socket",
		     "policy", "a-b");
	memset(name, 'a', COSCHED_DECISION_POLICY_NAME_MAX + 1);
	name[COSCHED_DECISION_POLICY_NAME_MAX + 1] = '\0';
	snprintf(text, sizeof(text),
		 "cosched/1.3 job=3 state=placed policy=%s scope=socket", name);
	expect_error(text, "policy");
	name[COSCHED_DECISION_POLICY_NAME_MAX] = '\0';	/* the longest */
	snprintf(text, sizeof(text),
		 "cosched/1.3 job=3 state=placed policy=%s scope=socket", name);
	ck_assert_int_eq(cosched_decision_parse(text, &d, &err), 0);
	ck_assert_str_eq(d.newer_policy, name);
	/* A known policy after a newer one leaves no name behind. */
	ck_assert_int_eq(cosched_decision_parse(
		"cosched/1.3 job=3 state=placed policy=gang scope=socket", &d,
		&err), 0);
	ck_assert_int_eq(d.policy, COSCHED_POLICY_GANG);
	ck_assert_str_eq(cosched_decision_policy_of(&d), "gang");
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("decision");
	TCase *tc = tcase_create("decision");

	/* test_double_text compares about a million numbers' texts with a
	 * plain search: 3.4 s on the development machine, near Check's
	 * default of 4 s, and more on a loaded one.  A bound, not a target. */
	tcase_set_timeout(tc, 60);

	tcase_add_test(tc, test_round_trip_full);
	tcase_add_test(tc, test_round_trip_minimal);
	tcase_add_test(tc, test_round_trip_numbers);
	tcase_add_test(tc, test_errors_keys);
	tcase_add_test(tc, test_errors_numbers);
	tcase_add_test(tc, test_errors_nodes);
	tcase_add_test(tc, test_errors_schema_trailing_reason);
	tcase_add_test(tc, test_format_refuses);
	tcase_add_test(tc, test_idset_node_reason);
	tcase_add_test(tc, test_equal_and_names);
	tcase_add_test(tc, test_double_text);
	tcase_add_test(tc, test_double_text_threads);
	tcase_add_test(tc, test_documented);
	tcase_add_test(tc, test_newer_minor_policy);
	suite_add_tcase(s, tc);
	return s;
}
