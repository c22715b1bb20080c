/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_text.c - quoting untrusted text for messages and logs
 * (src/libcosched/base/text.c) and the last-line sanitising of error
 * messages (src/libcosched/base/error.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cosched_check.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/random.h"
#include "src/libcosched/base/text.h"

/* No byte a terminal or a log reader would act on. */
static void assert_printable(const char *s)
{
	for (const unsigned char *p = (const unsigned char *) s; *p; p++)
		ck_assert_msg(*p >= 0x20 && *p < 0x7f,
			      "byte 0x%02x at %zu in \"%s\"", *p,
			      (size_t) (p - (const unsigned char *) s), s);
}

/* Each escape src/libcosched/base/text.h promises, one byte at a time. */
START_TEST(test_quote_escapes)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "abc", "\"abc\"" },
		{ "", "\"\"" },
		{ "a\nb", "\"a\\nb\"" },
		{ "a\tb", "\"a\\tb\"" },
		{ "a\rb", "\"a\\rb\"" },
		{ "back\\slash", "\"back\\\\slash\"" },
		{ "say \"hi\"", "\"say \\\"hi\\\"\"" },
		{ "\x1b[2J", "\"\\x1b[2J\"" },		/* terminal escape */
		{ "\x01\x1f", "\"\\x01\\x1f\"" },	/* other control bytes */
		{ "del\x7f", "\"del\\x7f\"" },
		{ "caf\xc3\xa9", "\"caf\\xc3\\xa9\"" },	/* non-ASCII, byte by byte */
		{ "\xff", "\"\\xff\"" },
		{ " ~", "\" ~\"" },			/* printable ASCII ends */
	};
	char buf[COSCHED_QUOTE_BUF];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_str_eq(cosched_quote(buf, sizeof(buf), cases[i].in),
				 cases[i].out);
		ck_assert_str_eq(COSCHED_QUOTE(cases[i].in), cases[i].out);
	}
	ck_assert_str_eq(cosched_quote(buf, sizeof(buf), NULL), "(null)");
	ck_assert_str_eq(COSCHED_QUOTE(NULL), "(null)");
}
END_TEST

/* At most COSCHED_QUOTE_CHARS input bytes are shown; a longer text is cut
 * and its length given. */
START_TEST(test_quote_cut)
{
	char in[4097], want[COSCHED_QUOTE_BUF];
	const char *q;

	memset(in, 'a', sizeof(in) - 1);
	in[COSCHED_QUOTE_CHARS] = '\0';		/* exactly the limit: whole */
	snprintf(want, sizeof(want), "\"%.*s\"", COSCHED_QUOTE_CHARS, in);
	ck_assert_str_eq(COSCHED_QUOTE(in), want);

	in[COSCHED_QUOTE_CHARS] = 'b';		/* one more: cut before it */
	in[COSCHED_QUOTE_CHARS + 1] = '\0';
	snprintf(want, sizeof(want), "\"%.*s\"...(%d bytes)",
		 COSCHED_QUOTE_CHARS, in, COSCHED_QUOTE_CHARS + 1);
	ck_assert_str_eq(COSCHED_QUOTE(in), want);

	/* The worst case: every shown byte escaped to \xNN, 4 KiB long.
	 * Nothing is lost to the buffer: all COSCHED_QUOTE_CHARS bytes and
	 * the length are there. */
	memset(in, '\xff', sizeof(in) - 1);
	in[sizeof(in) - 1] = '\0';
	q = COSCHED_QUOTE(in);
	ck_assert_uint_eq(strlen(q), 1 + 4 * COSCHED_QUOTE_CHARS + 1 +
			  strlen("...(4096 bytes)"));
	ck_assert_str_eq(q + strlen(q) - strlen("\"...(4096 bytes)"),
			 "\"...(4096 bytes)");
	ck_assert_int_eq(strncmp(q, "\"\\xff\\xff", 9), 0);
	assert_printable(q);
}
END_TEST

/* A buffer too small for the whole quote is never overrun and stays
 * terminated. */
START_TEST(test_quote_small_buffer)
{
	char buf[16];

	memset(buf, 'X', sizeof(buf));
	cosched_quote(buf, 8, "abcdefghij");
	ck_assert_uint_lt(strlen(buf), 8);
	ck_assert_int_eq(buf[0], '"');
	ck_assert_int_eq(buf[8], 'X');		/* nothing written past len */
	memset(buf, 'X', sizeof(buf));
	cosched_quote(buf, 8, "\n\n\n\n\n");	/* an escape that does not fit */
	ck_assert_uint_lt(strlen(buf), 8);
	ck_assert_int_eq(buf[8], 'X');
	assert_printable(buf);
	cosched_quote(buf, 2, "abc");
	ck_assert_str_eq(buf, "");
	buf[0] = 'X';
	ck_assert_ptr_eq(cosched_quote(buf, 0, "abc"), buf);
	ck_assert_int_eq(buf[0], 'X');		/* len 0: untouched */
}
END_TEST

/* cosched_error_set() is the last line of defence: a control byte that
 * reaches it unquoted becomes '?'. */
START_TEST(test_error_set_sanitises)
{
	cosched_error_t err;

	ck_assert_int_eq(cosched_error_set(&err, "x: %s", "a\nb\x1b[2J\x7f\tc"), -1);
	ck_assert_str_eq(err.msg, "x: a?b?[2J??c");
	ck_assert_int_eq(cosched_error_prefix(&err, "f.conf:3"), -1);
	ck_assert_str_eq(err.msg, "f.conf:3: x: a?b?[2J??c");
	/* a quoted value keeps its escapes: nothing for the sanitiser */
	ck_assert_int_eq(cosched_error_set(&err, "v %s", COSCHED_QUOTE("a\nb")), -1);
	ck_assert_str_eq(err.msg, "v \"a\\nb\"");
	ck_assert_int_eq(cosched_error_set(NULL, "no error %d", 1), -1);
}
END_TEST

START_TEST(test_trim)
{
	char a[] = " \t x y \n", b[] = "   ", c[] = "z";

	ck_assert_str_eq(cosched_trim(a), "x y");
	ck_assert_str_eq(cosched_trim(b), "");
	ck_assert_str_eq(cosched_trim(c), "z");
}
END_TEST

/* As snprintf(dst, size, "%s", src) writes it, cut or not. */
START_TEST(test_text_copy)
{
	static const char *const srcs[] = { "", "a", "abcd", "abcde", "abcdefgh" };
	char got[5], want[5];

	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++)
		for (size_t size = 1; size <= sizeof(got); size++) {
			int n = snprintf(want, size, "%s", srcs[i]);

			memset(got, 'x', sizeof(got));
			ck_assert_uint_eq(cosched_text_copy(got, size, srcs[i]),
					  (size_t) n < size ? (size_t) n : size - 1);
			ck_assert_str_eq(got, want);
		}
}
END_TEST

/* As printf's "%.*f": ties to even on the exact binary value (0.125 is
 * one, 2.675 is below its decimal), signs of zero, and beyond the range
 * done by hand. */
START_TEST(test_fixed_as_printf)
{
	static const double vs[] = {
		0, -0.0, 0.125, 0.375, 2.675, 1.005, 0.5, 1.5, 2.5, -2.5,
		-0.001, -0.004, 0.0049999999, 0.995, 9.995, 99.9951, 12.0,
		23.1, 1234.5678, 999999999999999.0, 1e15, -1e15, 1e300,
		-1e300, 5e-324, INFINITY, -INFINITY, NAN,
	};
	uint64_t state = 42;
	char got[COSCHED_FIXED_MAX], want[COSCHED_FIXED_MAX];

	for (int d = 0; d <= 3; d++) {
		for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
			int n = snprintf(want, sizeof(want), "%.*f", d, vs[i]);

			ck_assert_uint_eq(cosched_fixed(got, vs[i], d),
					  (size_t) n);
			ck_assert_str_eq(got, want);
		}
		/* Random values of every magnitude, and on the ties of
		 * each step (k + 1/2) / 10^d. */
		for (int k = 0; k < 20000; k++) {
			double v = (cosched_random_unit(&state) - 0.5) *
				   pow(10, (double) (k % 17) - 2);
			double tie = ((double) (k - 10000) + 0.5) /
				     pow(10, d);

			snprintf(want, sizeof(want), "%.*f", d, v);
			cosched_fixed(got, v, d);
			ck_assert_str_eq(got, want);
			snprintf(want, sizeof(want), "%.*f", d, tie);
			cosched_fixed(got, tie, d);
			ck_assert_str_eq(got, want);
		}
	}
}
END_TEST

/* Pieces put one after another, cut as snprintf cuts the whole text. */
START_TEST(test_text_put_as_printf)
{
	for (size_t len = 1; len <= 24; len++) {
		char got[24], want[24];
		size_t at;

		snprintf(want, len, "%s%lld%s%.2f", "ab ", -42LL, " x ", 3.14159);
		memset(got, 'x', sizeof(got));
		got[0] = '\0';
		at = cosched_text_put(got, len, 0, "ab ");
		at = cosched_text_put_int(got, len, at, -42);
		at = cosched_text_put(got, len, at, " x ");
		at = cosched_text_put_fixed(got, len, at, 3.14159, 2);
		ck_assert_str_eq(got, want);
		ck_assert_uint_eq(at, strlen(want));
	}
}
END_TEST

/* splitmix64's published first outputs for seed 0: the generator is the
 * reference one, so a seed means the same on every machine. */
START_TEST(test_splitmix64_reference)
{
	static const uint64_t want[] = {
		0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL,
		0x06c45d188009454fULL, 0xf88bb8a8724c81ecULL,
	};
	uint64_t state = 0;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_uint_eq(cosched_splitmix64(&state), want[i]);
	/* The unit draw: the top 53 bits of the same outputs. */
	state = 0;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert(cosched_random_unit(&state) ==
			  (double) (want[i] >> 11) / 9007199254740992.0);
}
END_TEST

/* The shuffle is the Fisher-Yates the Miss-Rate Bound start and the
 * random victim order always used (element i - 1 with element
 * splitmix64 % i, from the end), for any element size: the same seed
 * gives the same order as before the two shared it. */
START_TEST(test_shuffle_same_order)
{
	struct wide { size_t id; double pad[3]; } w[37];
	size_t a[37], ref[37];
	uint64_t state = 20260907;

	for (size_t i = 0; i < 37; i++) {
		a[i] = ref[i] = i;
		w[i] = (struct wide) { .id = i };
	}
	for (size_t i = 37; i > 1; i--) {
		size_t k = (size_t) (cosched_splitmix64(&state) % i);
		size_t t = ref[i - 1];

		ref[i - 1] = ref[k];
		ref[k] = t;
	}
	cosched_shuffle(a, 37, sizeof(a[0]), 20260907);
	cosched_shuffle(w, 37, sizeof(w[0]), 20260907);
	for (size_t i = 0; i < 37; i++) {
		ck_assert_uint_eq(a[i], ref[i]);
		ck_assert_uint_eq(w[i].id, ref[i]);
	}
	/* Nothing to shuffle: untouched. */
	cosched_shuffle(a, 0, sizeof(a[0]), 1);
	cosched_shuffle(NULL, 0, sizeof(a[0]), 1);
	cosched_shuffle(a, 1, sizeof(a[0]), 1);
	ck_assert_uint_eq(a[0], ref[0]);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("text");

	tcase_add_test(tc, test_quote_escapes);
	tcase_add_test(tc, test_quote_cut);
	tcase_add_test(tc, test_quote_small_buffer);
	tcase_add_test(tc, test_error_set_sanitises);
	tcase_add_test(tc, test_trim);
	tcase_add_test(tc, test_text_copy);
	tcase_add_test(tc, test_fixed_as_printf);
	tcase_add_test(tc, test_text_put_as_printf);
	tcase_add_test(tc, test_splitmix64_reference);
	tcase_add_test(tc, test_shuffle_same_order);
	suite_add_tcase(s, tc);
	return s;
}
