/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_upgrade.c - records that survive a rolling upgrade
 * (src/libcosched/base/kv.c, the decision record's versions): a newer
 * minor is read with its unknown keys skipped and said once, a newer
 * major is refused naming both versions, and the writer keeps writing
 * what the previous release reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "src/libcosched/model/decision.h"
#include "src/libcosched/base/kv.h"

static cosched_error_t err;

#define BASE "job=7 state=placed policy=gang scope=socket"

START_TEST(test_writer_writes_1_0_as_before)
{
	cosched_decision_t d;
	char text[256];

	cosched_decision_init(&d);
	d.job_id = 7;
	d.policy = COSCHED_POLICY_GANG;
	ck_assert_int_eq(cosched_decision_format(&d, text, sizeof(text), &err), 0);
	/* What the releases before minors read: they refuse anything else. */
	ck_assert_str_eq(text, "cosched/1 " BASE);
}
END_TEST

/* 1.1 added numa_priority (--cosched-numa, for the node's NUMA manager):
 * a record holding it is written as cosched/1.1, after reason; a 1.0
 * reader (simulated here by the newer-minor rule it applies) skips it;
 * the version and the keys must agree. */
START_TEST(test_numa_priority_is_1_1)
{
	static const char *const with =
		"cosched/1.1 " BASE " reason=\"r\" numa_priority=high";
	cosched_decision_t d, back;
	char text[256];

	cosched_decision_init(&d);
	d.job_id = 7;
	d.policy = COSCHED_POLICY_GANG;
	snprintf(d.reason, sizeof(d.reason), "r");
	d.numa_priority = COSCHED_NUMA_HIGH;
	ck_assert_int_eq(cosched_decision_format(&d, text, sizeof(text), &err), 0);
	ck_assert_str_eq(text, with);
	ck_assert_msg(cosched_decision_parse(text, &back, &err) == 0, "%s", err.msg);
	ck_assert(cosched_decision_equal(&d, &back));
	ck_assert_int_eq(back.numa_priority, COSCHED_NUMA_HIGH);
	d.numa_priority = COSCHED_NUMA_LOW;
	ck_assert_int_eq(cosched_decision_format(&d, text, sizeof(text), &err), 0);
	ck_assert_ptr_nonnull(strstr(text, " numa_priority=low"));
	/* Without it: 1.0, byte for byte. */
	d.numa_priority = COSCHED_NUMA_UNSET;
	ck_assert_int_eq(cosched_decision_format(&d, text, sizeof(text), &err), 0);
	ck_assert_str_eq(text, "cosched/1 " BASE " reason=\"r\"");
	/* The version and the keys agree, or the record is refused. */
	ck_assert_int_eq(cosched_decision_parse("cosched/1 " BASE
		" numa_priority=high", &back, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "a key of cosched/1.1 in a cosched/1 record"));
	ck_assert_int_eq(cosched_decision_parse("cosched/1.1 " BASE, &back, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cosched/1.1 without a key of 1.1"));
	ck_assert_int_eq(cosched_decision_parse("cosched/1.1 " BASE
		" numa_priority=default", &back, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "numa_priority"));
	ck_assert_int_eq(cosched_decision_parse("cosched/1.1 numa_priority=high "
		BASE, &back, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "out of order"));
	/* A later release's key after it is skipped in its newer minor. */
	ck_assert_msg(cosched_decision_parse("cosched/1.3 " BASE
		" reason=\"r\" numa_priority=low gpu=1", &back, &err) == 0,
		"%s", err.msg);
	ck_assert_int_eq(back.numa_priority, COSCHED_NUMA_LOW);
}
END_TEST

START_TEST(test_newer_minor_read_unknown_keys_skipped)
{
	static const char rec[] =
		"cosched/1.9 " BASE " gpu=a100 cores=n1:0-3 membind=bind"
		" note=\"two words \\\" and a quote\" reason=\"why\" after=1";
	cosched_decision_compat_t compat;
	cosched_decision_t d;
	char note[COSCHED_ERROR_MSG_LEN];

	ck_assert_msg(cosched_decision_parse_compat(rec, &d, &compat, &err) == 0,
		      "%s", err.msg);
	ck_assert_uint_eq(d.job_id, 7);
	ck_assert_int_eq(d.membind, COSCHED_MEMBIND_BIND);
	ck_assert(cosched_idset_has(&d.nodes[0].cores, 3));
	ck_assert_str_eq(d.reason, "why");
	ck_assert_uint_eq(compat.version.major, 1);
	ck_assert_uint_eq(compat.version.minor, 9);
	ck_assert_int_eq(compat.skipped, 3);
	ck_assert_str_eq(compat.first_skipped, "\"gpu\"");
	/* Said once a process, at the caller's debug level. */
	ck_assert(cosched_decision_compat_note(&compat, note, sizeof(note)));
	ck_assert_str_eq(note,
		"decision record schema cosched/1.9 is newer than this node's (cosched/1.2): skipped 3 keys it does not know (first: \"gpu\")");
	ck_assert(!cosched_decision_compat_note(&compat, note, sizeof(note)));
	/* Through a SystemComment too. */
	ck_assert_int_eq(cosched_decision_find_compat("bb\n" "cosched/1.3 " BASE
						      " new=1\n", &d, &compat,
						      &err), 1);
	ck_assert_int_eq(compat.skipped, 1);
	/* A known key keeps its rules in a newer minor. */
	ck_assert_int_eq(cosched_decision_parse("cosched/1.3 " BASE " membind=x",
						&d, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "membind: invalid value \"x\""));
	ck_assert_int_eq(cosched_decision_parse("cosched/1.3 " BASE " reason=\"a\" membind=bind",
						&d, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "membind: key out of order"));
	/* A quoted unknown value must still be well formed. */
	ck_assert_int_eq(cosched_decision_parse("cosched/1.3 " BASE " x=\"open",
						&d, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "x: unterminated quote"));
	/* "1.0" is 1: read as this version, strictly. */
	ck_assert_int_eq(cosched_decision_parse_compat("cosched/1.0 " BASE, &d,
						       &compat, &err), 0);
	ck_assert_int_eq(compat.skipped, 0);
}
END_TEST

/* 1.2 added alternates and beside (time sharing's slice partners): a
 * record holding either is written as cosched/1.2, after numa_priority;
 * a 1.1 reader skips them; the version and the keys agree. */
START_TEST(test_time_share_peers_are_1_2)
{
	static const char *const with =
		"cosched/1.2 " BASE " reason=\"r\" alternates=12 beside=13,14";
	cosched_decision_t d, back;
	char text[256];

	cosched_decision_init(&d);
	d.job_id = 7;
	d.policy = COSCHED_POLICY_GANG;
	snprintf(d.reason, sizeof(d.reason), "r");
	d.alternates[d.nalternates++] = 12;
	d.beside[d.nbeside++] = 13;
	d.beside[d.nbeside++] = 14;
	ck_assert_int_eq(cosched_decision_format(&d, text, sizeof(text), &err), 0);
	ck_assert_str_eq(text, with);
	ck_assert_msg(cosched_decision_parse(text, &back, &err) == 0, "%s", err.msg);
	ck_assert(cosched_decision_equal(&d, &back));
	ck_assert_int_eq(back.nbeside, 2);
	ck_assert_uint_eq(back.beside[1], 14);
	/* With numa_priority: still 1.2, the 1.1 key first. */
	d.numa_priority = COSCHED_NUMA_HIGH;
	ck_assert_int_eq(cosched_decision_format(&d, text, sizeof(text), &err), 0);
	ck_assert_str_eq(text, "cosched/1.2 " BASE
		" reason=\"r\" numa_priority=high alternates=12 beside=13,14");
	/* Out of order, repeated or in an older version: refused. */
	d.beside[1] = 13;
	ck_assert_int_eq(cosched_decision_format(&d, text, sizeof(text), &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "beside: job id 13 at 1"));
	ck_assert_int_eq(cosched_decision_parse("cosched/1.2 " BASE
		" beside=14,13", &back, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "beside: job id 13 after 14"));
	ck_assert_int_eq(cosched_decision_parse("cosched/1.2 " BASE
		" beside=14,", &back, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a list of job ids"));
	ck_assert_int_eq(cosched_decision_parse("cosched/1.1 " BASE
		" numa_priority=high alternates=12", &back, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg,
		"alternates: a key of cosched/1.2 in a cosched/1.1 record"));
	ck_assert_int_eq(cosched_decision_parse("cosched/1 " BASE
		" beside=3", &back, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "in a cosched/1 record"));
	ck_assert_int_eq(cosched_decision_parse("cosched/1.2 " BASE
		" numa_priority=high", &back, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cosched/1.2 without a key of 1.2"));
}
END_TEST

START_TEST(test_own_version_refuses_unknown_keys)
{
	/* The writer of this version (or an older one) knew every key it
	 * wrote: one more is a forgery or a bug. */
	ck_assert_int_eq(cosched_decision_parse("cosched/1 " BASE " gpu=a100",
						&(cosched_decision_t){ 0 }, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "invalid key \"gpu\""));
	ck_assert_int_eq(cosched_decision_parse("cosched/1.0 " BASE " gpu=a100",
						&(cosched_decision_t){ 0 }, &err), -1);
	ck_assert_int_eq(cosched_decision_parse("cosched/1 " BASE " reason=\"a\" x=1",
						&(cosched_decision_t){ 0 }, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "reason: trailing bytes"));
}
END_TEST

START_TEST(test_newer_major_refused_naming_both)
{
	cosched_decision_t d;

	memset(&d, 0x5a, sizeof(d));
	ck_assert_int_eq(cosched_decision_parse("cosched/2 " BASE, &d, &err), -1);
	ck_assert_msg(strstr(err.msg,
		"decision record schema cosched/2.0 is newer than this node understands (cosched/1.x)"),
		"%s", err.msg);
	ck_assert_int_eq(cosched_decision_parse("cosched/2.3 " BASE, &d, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cosched/2.3 is newer"));
}
END_TEST

START_TEST(test_kv_version)
{
	const cosched_kv_version_t own = { 1, 2 };
	cosched_kv_version_t v;
	char buf[32];

	ck_assert_int_eq(cosched_kv_version_read("x", "r", "t/", "1", own, &v, &err), 0);
	ck_assert_uint_eq(v.minor, 0);
	ck_assert_int_eq(cosched_kv_version_read("x", "r", "t/", "1.7", own, &v, &err), 0);
	ck_assert(cosched_kv_version_newer_minor(v, own));
	ck_assert_int_eq(cosched_kv_version_read("x", "r", "t/", "1.1", own, &v, &err), 0);
	ck_assert(!cosched_kv_version_newer_minor(v, own));
	ck_assert_int_eq(cosched_kv_version_read("x", "r", "t/", "3", own, &v, &err), -1);
	ck_assert_str_eq(err.msg, "x schema t/3.0 is newer than r understands (t/1.x)");
	ck_assert_str_eq(cosched_kv_version_text("t/", (cosched_kv_version_t){ 1, 0 },
						 buf, sizeof(buf)), "t/1");
	ck_assert_str_eq(cosched_kv_version_text("t/", own, buf, sizeof(buf)), "t/1.2");
	ck_assert_str_eq(cosched_kv_version_text("t/",
		(cosched_kv_version_t){ 4294967295u, 10 }, buf, sizeof(buf)),
		"t/4294967295.10");
	ck_assert_str_eq(cosched_kv_version_text("t/",
		(cosched_kv_version_t){ 0, 0 }, buf, sizeof(buf)), "t/0");
	/* cut as snprintf cuts: the first len - 1 bytes */
	ck_assert_str_eq(cosched_kv_version_text("t/",
		(cosched_kv_version_t){ 123, 45 }, buf, 6), "t/123");
	ck_assert_str_eq(cosched_kv_version_text("t/",
		(cosched_kv_version_t){ 123, 45 }, buf, 7), "t/123.");
	ck_assert_str_eq(cosched_kv_version_text("tag/",
		(cosched_kv_version_t){ 1, 0 }, buf, 3), "ta");
}
END_TEST

START_TEST(test_kv_reader)
{
	char line[] = "w a=1 b=\"x \\\\ y\" c=";
	cosched_kv_reader_t r;
	cosched_kv_field_t f;
	char *word, *v;

	cosched_kv_begin(&r, line, "line 1");
	ck_assert_int_eq(cosched_kv_word(&r, &word, &err), 0);
	ck_assert_str_eq(word, "w");
	ck_assert_int_eq(cosched_kv_expect(&r, "a", &v, &err), 0);
	ck_assert_str_eq(v, "1");
	ck_assert_int_eq(cosched_kv_next(&r, &f, &err), 1);
	ck_assert(f.quoted);
	ck_assert_str_eq(f.value, "x \\ y");
	ck_assert_int_eq(cosched_kv_expect(&r, "c", &v, &err), 0);
	ck_assert_str_eq(v, "");
	ck_assert_int_eq(cosched_kv_end(&r, &err), 0);

	char two[] = "a=1  b=2";
	cosched_kv_begin(&r, two, "line 2");
	ck_assert_int_eq(cosched_kv_next(&r, &f, &err), 1);
	ck_assert_int_eq(cosched_kv_next(&r, &f, &err), -1);
	ck_assert_str_eq(err.msg, "line 2: two blanks before \"b=2\" (one between keys)");

	char more[] = "a=1 b=2";
	cosched_kv_begin(&r, more, "live load");
	ck_assert_int_eq(cosched_kv_expect(&r, "a", &v, &err), 0);
	ck_assert_int_eq(cosched_kv_end(&r, &err), -1);
	ck_assert_str_eq(err.msg, "live load: more fields than expected: \"b=2\"");

	/* A quoted value where one is asked for, and either form refused
	 * where the other is. */
	char quoted[] = "a=\"x y\" b=1";
	cosched_kv_begin(&r, quoted, "line 3");
	ck_assert_int_eq(cosched_kv_expect_quoted(&r, "a", &v, &err), 0);
	ck_assert_str_eq(v, "x y");
	ck_assert_int_eq(cosched_kv_expect_quoted(&r, "b", &v, &err), -1);
	ck_assert_str_eq(err.msg, "b: value \"1\" is bare (a quoted value expected)");
	char bare[] = "a=\"x\"";
	cosched_kv_begin(&r, bare, "line 4");
	ck_assert_int_eq(cosched_kv_expect(&r, "a", &v, &err), -1);
	ck_assert_str_eq(err.msg, "a: value \"x\" is quoted (a bare value expected)");

	uint64_t x;
	ck_assert_int_eq(cosched_kv_u64("n", "007", 100, &x, &err), -1);
	ck_assert_int_eq(cosched_kv_u64("n", "101", 100, &x, &err), -1);
	ck_assert_str_eq(err.msg, "n: value \"101\" out of range (0 <= n <= 100)");
	ck_assert_int_eq(cosched_kv_u64("n", "18446744073709551615", UINT64_MAX, &x, &err), 0);
	ck_assert_int_eq(cosched_kv_u64("n", "18446744073709551616", UINT64_MAX, &x, &err), -1);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("upgrade");
	TCase *tc = tcase_create("upgrade");

	tcase_add_test(tc, test_writer_writes_1_0_as_before);
	tcase_add_test(tc, test_newer_minor_read_unknown_keys_skipped);
	tcase_add_test(tc, test_numa_priority_is_1_1);
	tcase_add_test(tc, test_time_share_peers_are_1_2);
	tcase_add_test(tc, test_own_version_refuses_unknown_keys);
	tcase_add_test(tc, test_newer_major_refused_naming_both);
	tcase_add_test(tc, test_kv_version);
	tcase_add_test(tc, test_kv_reader);
	suite_add_tcase(s, tc);
	return s;
}
