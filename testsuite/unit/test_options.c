/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_options.c - the --cosched-* option parser (src/libcosched/model/options.c). */
#include <stdio.h>
#include <string.h>

#include "cosched_check.h"

#include "src/libcosched/model/options.h"
#include "src/libcosched/base/text.h"

static cosched_job_options_t opts;
static cosched_error_t err;

static void setup(void)
{
	cosched_options_init(&opts);
	cosched_error_clear(&err);
}

START_TEST(test_defaults)
{
	ck_assert(opts.enabled);
	ck_assert_str_eq(opts.app, "");
	ck_assert_int_eq(opts.declared_class, COSCHED_CAT_UNKNOWN);
	ck_assert_int_eq(opts.power, COSCHED_POWER_UNSET);
	ck_assert_int_eq(opts.numa, COSCHED_NUMA_UNSET);
}
END_TEST

START_TEST(test_valid_values)
{
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-app", "stream-2.1", &err), 0);
	ck_assert_str_eq(opts.app, "stream-2.1");
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-class", "rand", &err), 0);
	ck_assert_int_eq(opts.declared_class, COSCHED_CAT_RAND);
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-numa", "low", &err), 0);
	ck_assert_int_eq(opts.numa, COSCHED_NUMA_LOW);
	ck_assert_int_eq(cosched_option_set(&opts, "cosched", "off", &err), 0);
	ck_assert(!opts.enabled);
	ck_assert_int_eq(cosched_option_set(&opts, "cosched", "on", &err), 0);
	ck_assert(opts.enabled);
}
END_TEST

START_TEST(test_power_forms)
{
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-power", "performance", &err), 0);
	ck_assert_int_eq(opts.power, COSCHED_POWER_PERFORMANCE);
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-power", "edp", &err), 0);
	ck_assert_int_eq(opts.power, COSCHED_POWER_EDP);
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-power", "energy", &err), 0);
	ck_assert_int_eq(opts.power, COSCHED_POWER_ENERGY);
	ck_assert_double_eq(opts.max_slowdown_pct, COSCHED_MAX_SLOWDOWN_PCT_DEFAULT);
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-power", "energy:15%", &err), 0);
	ck_assert_double_eq(opts.max_slowdown_pct, 15.0);
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-power", "energy:7.5", &err), 0);
	ck_assert_double_eq(opts.max_slowdown_pct, 7.5);
}
END_TEST

/* Every refusal names the option and the value, and changes nothing. */
START_TEST(test_refusals)
{
	static const struct { const char *opt, *val, *needle; } bad[] = {
		{ "cosched-class", "memory", "allowed: cpu, lim, mem, rand" },
		{ "cosched-class", "MEM", "\"MEM\"" },
		{ "cosched-power", "fast", "allowed: performance, edp, energy" },
		{ "cosched-power", "energy:", "invalid maximum slowdown" },
		{ "cosched-power", "energy:abc", "invalid maximum slowdown" },
		{ "cosched-power", "energy:10%%", "invalid maximum slowdown" },
		{ "cosched-power", "energy:0", "out of range" },
		{ "cosched-power", "energy:150%", "out of range" },
		{ "cosched-power", "energyx", "allowed" },
		{ "cosched-power", "energy:-5", "out of range" },
		{ "cosched-power", "energy:0x10", "invalid maximum slowdown" },
		{ "cosched-power", "energy:inf", "invalid maximum slowdown" },
		{ "cosched-power", "energy: 5", "invalid maximum slowdown" },
		{ "cosched-numa", "medium", "allowed: high, low" },
		{ "cosched", "no", "allowed: on, off" },
		{ "cosched-app", "../etc/passwd", "must not start with '.'" },
		{ "cosched-app", "a/b", "character '/'" },
		{ "cosched-app", "..", "must not start" },
		{ "cosched-app", "a b", "character ' '" },
		{ "cosched-app", "", "missing value" },
		{ "cosched-bogus", "x", "unknown option" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_job_options_t before;
		cosched_options_init(&opts);
		before = opts;
		cosched_error_clear(&err);
		ck_assert_msg(cosched_option_set(&opts, bad[i].opt, bad[i].val, &err) == -1,
			      "%s=%s accepted", bad[i].opt, bad[i].val);
		ck_assert_msg(strstr(err.msg, bad[i].opt) != NULL,
			      "message \"%s\" does not name %s", err.msg, bad[i].opt);
		ck_assert_msg(strstr(err.msg, bad[i].needle) != NULL,
			      "message \"%s\" lacks \"%s\"", err.msg, bad[i].needle);
		ck_assert_msg(!memcmp(&before, &opts, sizeof(opts)),
			      "%s=%s changed the options", bad[i].opt, bad[i].val);
	}
}
END_TEST

START_TEST(test_app_name_length)
{
	char name[COSCHED_APP_NAME_MAX + 2];
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-app", name, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "at most 64"));
	name[COSCHED_APP_NAME_MAX] = '\0';
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-app", name, &err), 0);
}
END_TEST

START_TEST(test_generic_job_names)
{
	ck_assert(cosched_app_name_is_generic("wrap"));
	ck_assert(cosched_app_name_is_generic("sbatch"));
	ck_assert(cosched_app_name_is_generic("interactive"));
	ck_assert(cosched_app_name_is_generic("bash"));
	ck_assert(!cosched_app_name_is_generic("lulesh"));
	ck_assert(!cosched_app_name_is_generic("wrapper"));
}
END_TEST

START_TEST(test_from_env)
{
	char *env[] = {
		"PATH=/bin",
		"SPANK_COSCHED_APP=lulesh",
		"SPANK_COSCHED_CLASS=mem",
		"SPANK_COSCHED_POWER=energy:20%",
		"SPANK_COSCHED_NUMA=high",
		"SPANK_COSCHED_APPX=ignored",
		"SLURM_SPANK_COSCHED_CLASS=cpu",	/* the task's copy */
		"XCOSCHED_CLASS=cpu",
		NULL
	};
	char buf[256];
	ck_assert_int_eq(cosched_options_from_env(&opts, env, -1, &err), 0);
	ck_assert_str_eq(opts.app, "lulesh");
	ck_assert_int_eq(opts.declared_class, COSCHED_CAT_MEM);
	ck_assert_int_eq(opts.power, COSCHED_POWER_ENERGY);
	ck_assert_double_eq(opts.max_slowdown_pct, 20.0);
	ck_assert_int_eq(opts.numa, COSCHED_NUMA_HIGH);
	ck_assert_str_eq(cosched_options_format(&opts, buf, sizeof(buf)),
			 "app=lulesh class=mem power=energy:20% numa=high");
}
END_TEST

/* slurmctld keeps the names without Slurm's SPANK_ prefix. */
START_TEST(test_from_env_unprefixed)
{
	char *env[] = { "COSCHED_CLASS=lim", "COSCHED=off", "OTHER=1" };
	ck_assert_int_eq(cosched_options_from_env(&opts, env, 3, &err), 0);
	ck_assert_int_eq(opts.declared_class, COSCHED_CAT_LIM);
	ck_assert(!opts.enabled);
}
END_TEST

START_TEST(test_from_env_all_or_nothing)
{
	char *env[] = { "SPANK_COSCHED_APP=ok", "SPANK_COSCHED_NUMA=bad" };
	ck_assert_int_eq(cosched_options_from_env(&opts, env, 2, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "--cosched-numa"));
	ck_assert_str_eq(opts.app, "");	/* nothing half-applied */
}
END_TEST

START_TEST(test_preference_table)
{
	cosched_pref_table_t t;
	cosched_pref_table_default(&t);
	ck_assert(cosched_pref_allowed(&t, COSCHED_CAT_MEM, COSCHED_CAT_CPU));
	ck_assert(!cosched_pref_allowed(&t, COSCHED_CAT_MEM, COSCHED_CAT_MEM));
	ck_assert(!cosched_pref_allowed(&t, COSCHED_CAT_RAND, COSCHED_CAT_LIM));
	ck_assert(!cosched_pref_allowed(&t, COSCHED_CAT_LIM, COSCHED_CAT_RAND));
	ck_assert(cosched_pref_allowed(&t, COSCHED_CAT_RAND, COSCHED_CAT_RAND));
	ck_assert_int_eq(t.pref[COSCHED_CAT_LIM][COSCHED_CAT_MEM], 3);
	ck_assert_int_eq(t.pref[COSCHED_CAT_RAND][COSCHED_CAT_CPU], 2);
}
END_TEST

/* Every option (the names and the control-environment names are one
 * table, cosched_option_names). */
#define FOR_EACH_OPTION(o) \
	for (const cosched_option_name_t *o = cosched_option_names; \
	     o < cosched_option_names + COSCHED_OPTION_COUNT; o++)

/* No byte a terminal or a log reader would act on. */
static void assert_printable(const char *s)
{
	for (const unsigned char *p = (const unsigned char *) s; *p; p++)
		ck_assert_msg(*p >= 0x20 && *p != 0x7f,
			      "byte 0x%02x at %zu of \"%s\"", *p,
			      (size_t) (p - (const unsigned char *) s), s);
}

/* energy:N% below the 1% floor is refused: it could only ever pick the
 * highest frequency (src/libcosched/model/power_policy.h).  The floor itself is
 * allowed. */
START_TEST(test_slowdown_floor)
{
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-power", "energy:1e-300", &err), -1);
	ck_assert_str_eq(err.msg,
		"--cosched-power: maximum slowdown 1e-300 out of range (1 <= MAXSLOWDOWN <= 100, in percent)");
	ck_assert_int_eq(opts.power, COSCHED_POWER_UNSET);
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-power", "energy:0.999%", &err), -1);
	ck_assert_str_eq(err.msg,
		"--cosched-power: maximum slowdown 0.999 out of range (1 <= MAXSLOWDOWN <= 100, in percent)");
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-power", "energy:100.0000001", &err), -1);
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-power", "energy:1", &err), 0);
	ck_assert_double_eq(opts.max_slowdown_pct, COSCHED_MAX_SLOWDOWN_PCT_MIN);
	ck_assert_double_eq(COSCHED_MAX_SLOWDOWN_PCT_MIN, 1.0);
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-power", "energy:100%", &err), 0);
	ck_assert_double_eq(opts.max_slowdown_pct, 100.0);
}
END_TEST

/* A value longer than COSCHED_OPTION_VALUE_MAX is refused, whatever the
 * option, saying so and giving its length; one of that length is not
 * refused for its length. */
START_TEST(test_value_too_long)
{
	char value[COSCHED_OPTION_VALUE_MAX + 2], msg[COSCHED_ERROR_MSG_LEN];

	ck_assert_int_eq(COSCHED_OPTION_VALUE_MAX, 64);
	memset(value, 'a', sizeof(value) - 1);
	value[sizeof(value) - 1] = '\0';	/* 65 bytes */
	FOR_EACH_OPTION(o) {
		cosched_job_options_t before = opts;

		ck_assert_int_eq(cosched_option_set(&opts, o->option, value, &err), -1);
		snprintf(msg, sizeof(msg),
			 "--%s: value \"%.*s\"...(65 bytes) is too long (65 bytes, at most 64)",
			 o->option, COSCHED_QUOTE_CHARS, value);
		ck_assert_str_eq(err.msg, msg);
		ck_assert(!memcmp(&before, &opts, sizeof(opts)));
	}
	value[COSCHED_OPTION_VALUE_MAX] = '\0';	/* 64 bytes */
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-app", value, &err), 0);
	ck_assert_str_eq(opts.app, value);
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-class", value, &err), -1);
	ck_assert_ptr_null(strstr(err.msg, "too long"));
}
END_TEST

/*
 * Log injection: whatever a user puts in an option (a newline that would
 * start a forged log line, a terminal escape), every message keeps it
 * quoted and escaped: no control byte, no DEL; and a 4 KiB value gives a
 * short message whose quote ends with "...(N bytes)".
 */
START_TEST(test_log_injection)
{
	static const char *const injected[] = {
		"energy:5\nslurmctld: error: forged",
		"mem\x1b[2J\x1b]0;title\x07",
		"x\r\n\t\x7f\x01",
		"lulesh\n",
	};
	char big[4097];

	FOR_EACH_OPTION(o) {
		for (size_t i = 0; i < sizeof(injected) / sizeof(injected[0]); i++) {
			cosched_error_clear(&err);
			ck_assert_int_eq(cosched_option_set(&opts, o->option,
							    injected[i], &err), -1);
			assert_printable(err.msg);
			/* quoted (escaped), not just blanked out */
			ck_assert_msg(strstr(err.msg, "\\n") || strstr(err.msg, "\\x1b") ||
				      strstr(err.msg, "\\r"), "%s", err.msg);
		}
		/* 4 KiB, plain and all control bytes */
		for (int k = 0; k < 2; k++) {
			memset(big, k ? '\x1b' : 'A', sizeof(big) - 1);
			big[sizeof(big) - 1] = '\0';
			ck_assert_int_eq(cosched_option_set(&opts, o->option, big, &err), -1);
			assert_printable(err.msg);
			ck_assert_msg(strlen(err.msg) < 300, "%zu bytes: %s",
				      strlen(err.msg), err.msg);
			ck_assert_msg(strstr(err.msg, "\"...(4096 bytes)") != NULL, "%s",
				      err.msg);
		}
	}
	/* the same through the job's SPANK environment */
	{
		char *env[] = { "SPANK_COSCHED_CLASS=mem\n\x1b[31mforged", NULL };
		ck_assert_int_eq(cosched_options_from_env(&opts, env, -1, &err), -1);
		assert_printable(err.msg);
		ck_assert_ptr_nonnull(strstr(err.msg, "\"mem\\n\\x1b[31mforged\""));
	}
	/* and in the option's name */
	ck_assert_int_eq(cosched_option_set(&opts, "cosched-\n\x1b[2J", "x", &err), -1);
	assert_printable(err.msg);
}
END_TEST

/*
 * A 10 KB value, wherever it comes from, gives a message of bounded
 * length that names the option and quotes a prefix of the value, cut,
 * with its length: typed (cosched_option_set), from the job's SPANK
 * environment with and without Slurm's prefix (cosched_options_from_env),
 * and through the value parsers themselves, which cosched.conf and later
 * callers reach without the option's length check.
 */
#define LONG_LEN 10240
#define MSG_BOUND 300

static void assert_short_quote(const char *msg, const char *field,
			       const char *value)
{
	char prefix[COSCHED_QUOTE_CHARS + 2], cut[64];

	ck_assert_msg(strlen(msg) < MSG_BOUND, "%zu bytes: %.400s",
		      strlen(msg), msg);
	assert_printable(msg);
	ck_assert_msg(!strncmp(msg, field, strlen(field)) &&
		      msg[strlen(field)] == ':', "%s not named: %s", field, msg);
	snprintf(prefix, sizeof(prefix), "\"%.*s", COSCHED_QUOTE_CHARS, value);
	ck_assert_msg(strstr(msg, prefix) != NULL, "no prefix quoted: %s", msg);
	snprintf(cut, sizeof(cut), "\"...(%zu bytes)", strlen(value));
	ck_assert_msg(strstr(msg, cut) != NULL, "not cut: %s", msg);
}

START_TEST(test_long_value_message_bounded)
{
	static char value[LONG_LEN + 1], var[LONG_LEN + 64];
	char field[64];
	cosched_power_policy_t p = COSCHED_POWER_UNSET;
	cosched_category_t cat = COSCHED_CAT_UNKNOWN;
	double pct = 10.0;

	memset(value, 'x', LONG_LEN);
	value[LONG_LEN] = '\0';
	FOR_EACH_OPTION(o) {
		snprintf(field, sizeof(field), "--%s", o->option);
		ck_assert_int_eq(cosched_option_set(&opts, o->option, value, &err), -1);
		assert_short_quote(err.msg, field, value);
		for (int prefixed = 0; prefixed < 2; prefixed++) {
			char *env[] = { var, NULL };

			snprintf(var, sizeof(var), "%s%s=%s",
				 prefixed ? COSCHED_ENV_PREFIX : "", o->env, value);
			cosched_error_clear(&err);
			ck_assert_int_eq(cosched_options_from_env(&opts, env, -1, &err), -1);
			assert_short_quote(err.msg, field, value);
		}
	}
	/* The value parsers, past the option's length check. */
	ck_assert_int_eq(cosched_power_policy_parse("--cosched-power", value, false,
						    &p, &pct, NULL, &err), -1);
	assert_short_quote(err.msg, "--cosched-power", value);
	memcpy(value, "energy:", 7);
	ck_assert_int_eq(cosched_power_policy_parse("--cosched-power", value, false,
						    &p, &pct, NULL, &err), -1);
	assert_short_quote(err.msg, "--cosched-power", value);
	/* energy:<10 KB of digits>: too large to be a number */
	memset(value + 7, '9', LONG_LEN - 7);
	ck_assert_int_eq(cosched_power_policy_parse("--cosched-power", value, false,
						    &p, &pct, NULL, &err), -1);
	assert_short_quote(err.msg, "--cosched-power", value);
	/* energy:0.0<10 KB of digits>%: a number out of range, shown short */
	memcpy(value + 7, "0.0", 3);
	value[LONG_LEN - 1] = '%';
	ck_assert_int_eq(cosched_power_policy_parse("--cosched-power", value, false,
						    &p, &pct, NULL, &err), -1);
	ck_assert_msg(strlen(err.msg) < MSG_BOUND, "%zu bytes", strlen(err.msg));
	ck_assert_msg(strstr(err.msg, "--cosched-power: maximum slowdown 0.1 out of range") != NULL,
		      "%s", err.msg);
	memset(value, 'x', LONG_LEN);
	ck_assert_int_eq(cosched_category_parse("--cosched-class", value, &cat, &err), -1);
	assert_short_quote(err.msg, "--cosched-class", value);
	ck_assert_int_eq(p, COSCHED_POWER_UNSET);
	ck_assert_int_eq(cat, COSCHED_CAT_UNKNOWN);
	ck_assert_int_eq(opts.power, COSCHED_POWER_UNSET);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("parse");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_valid_values);
	tcase_add_test(tc, test_power_forms);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_app_name_length);
	tcase_add_test(tc, test_generic_job_names);
	tcase_add_test(tc, test_from_env);
	tcase_add_test(tc, test_from_env_unprefixed);
	tcase_add_test(tc, test_from_env_all_or_nothing);
	tcase_add_test(tc, test_preference_table);
	tcase_add_test(tc, test_slowdown_floor);
	tcase_add_test(tc, test_value_too_long);
	tcase_add_test(tc, test_log_injection);
	tcase_add_test(tc, test_long_value_message_bounded);
	suite_add_tcase(s, tc);
	return s;
}
