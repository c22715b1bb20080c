/* test_conf.c - the cosched.conf parser (src/libcosched/cosched_conf.c). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cosched_check.h"
#include "src/libcosched/cosched_conf.h"

static cosched_conf_t conf;
static cosched_error_t err;

static void setup(void)
{
	cosched_conf_init(&conf);
	cosched_error_clear(&err);
}

START_TEST(test_defaults)
{
	cosched_merge_params_t mp;

	ck_assert_int_eq(cosched_conf_check(&conf, &err), 0);
	/* seed 001 "Classification thresholds" */
	ck_assert_double_eq(conf.classify.lca.alpha, 0.5);
	ck_assert_double_eq(conf.classify.lca.beta, 0.025);
	ck_assert_double_eq(conf.classify.lca.gamma, 0.15);
	ck_assert_double_eq(conf.classify.lca.delta, 0.25);
	ck_assert_double_eq(conf.classify.lca.epsilon, 0.25);
	ck_assert_double_eq(conf.classify.lca.core_peak_bw_mbs, 14000.0);
	ck_assert_double_eq(conf.classify.lca.core_peak_ipc, 4.0);
	/* seed 002 derived thresholds (cosched_classify.c) */
	ck_assert_double_eq(conf.classify.cat.mem_bw_fraction, 0.5);
	ck_assert_double_eq(conf.classify.cat.mem_mpki, 4.0);
	ck_assert_double_eq(conf.classify.cat.lim_bw_fraction, 0.1);
	ck_assert_double_eq(conf.classify.cat.lim_mpki, 0.5);
	ck_assert_double_eq(conf.classify.cat.rand_reuse, 10.0);
	ck_assert_double_eq(conf.classify.cat.rand_cache_bw, 0.15);
	ck_assert_double_eq(conf.node_peak_bw_mbs, 15000.0);
	/* seed 002 "Miss-Rate Bound": T = 12.0, a = 1/2 */
	ck_assert_int_eq(conf.policy, COSCHED_POLICY_APP_AWARE);
	ck_assert_double_eq(conf.mrb_threshold, 12.0);
	ck_assert_double_eq(conf.mrb_weight, 0.5);
	ck_assert_int_eq(conf.power_policy, COSCHED_POWER_PERFORMANCE);
	ck_assert_double_eq(conf.max_slowdown_pct, 10.0);
	ck_assert_str_eq(conf.profile_dir, "/var/lib/cosched/profiles");
	cosched_conf_merge_params(&conf, &mp);
	ck_assert_double_eq(mp.weight, 0.25);
	ck_assert_int_eq(mp.max_samples, 32);
	ck_assert_double_eq(mp.node_peak_bw, 15000e6);
	ck_assert_double_eq(conf.interference.slowdown[COSCHED_LCA_C][COSCHED_LCA_L], 2.15);
}
END_TEST

START_TEST(test_policy_names)
{
	for (int p = 0; p < COSCHED_POLICY_COUNT; p++) {
		cosched_policy_t out;
		ck_assert_int_eq(cosched_policy_parse("CoschedPolicy",
			cosched_policy_name((cosched_policy_t) p), &out, &err), 0);
		ck_assert_int_eq(out, p);
	}
	ck_assert_str_eq(cosched_policy_name(COSCHED_POLICY_MISS_RATE_BOUND), "miss_rate_bound");
	ck_assert_str_eq(cosched_policy_name(COSCHED_POLICY_COUNT), "unknown");
}
END_TEST

static const char example[] =
	"# cosched.conf for a 2-socket node\n"
	"\n"
	"coschedpolicy=Miss_Rate_Bound\n"
	"MissRateBoundThreshold = 10.5   # tuned on NAS\n"
	"MISSRATEBOUNDWEIGHT=0.25\n"
	"PowerPolicy=edp\n"
	"MaxSlowdown=5%\n"
	"   CorePeakBandwidth=10000\n"
	"CorePeakIPC=6\n"
	"NodePeakBandwidth=120000\n"
	"LcaAlpha=0.6\n"
	"LcaBeta=0.03\n"
	"LcaGamma=0.2\n"
	"LcaDelta=0.3\n"
	"LcaEpsilon=0.2\n"
	"ClassifyMemBandwidthFraction=0.6\n"
	"ClassifyMemMPKI=5\n"
	"ClassifyLimBandwidthFraction=0.15\n"
	"ClassifyLimMPKI=1\n"
	"ClassifyRandReuse=20\n"
	"ClassifyRandCacheBandwidth=0.2\n"
	"ProfileDir=\"/srv/cosched/profiles\"\n"
	"ProfileMergeWeight=0.5\n"
	"ProfileMaxSamples=100\n"
	"Interference=C:L=3.0,LC:L=2.0\n"
	"Interference=L:L=1.5\n"
	"PreferenceTable=lim:mem=-\n"
	"\t\n";

START_TEST(test_parse_example)
{
	ck_assert_msg(cosched_conf_parse_string(&conf, "cosched.conf", example, &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(conf.policy, COSCHED_POLICY_MISS_RATE_BOUND);
	ck_assert_double_eq(conf.mrb_threshold, 10.5);
	ck_assert_double_eq(conf.mrb_weight, 0.25);
	ck_assert_int_eq(conf.power_policy, COSCHED_POWER_EDP);
	ck_assert_double_eq(conf.max_slowdown_pct, 5.0);
	ck_assert_double_eq(conf.classify.lca.core_peak_bw_mbs, 10000.0);
	ck_assert_double_eq(conf.classify.lca.core_peak_ipc, 6.0);
	ck_assert_double_eq(conf.node_peak_bw_mbs, 120000.0);
	ck_assert_double_eq(conf.classify.lca.alpha, 0.6);
	ck_assert_double_eq(conf.classify.lca.beta, 0.03);
	ck_assert_double_eq(conf.classify.lca.gamma, 0.2);
	ck_assert_double_eq(conf.classify.lca.delta, 0.3);
	ck_assert_double_eq(conf.classify.lca.epsilon, 0.2);
	ck_assert_double_eq(conf.classify.cat.mem_bw_fraction, 0.6);
	ck_assert_double_eq(conf.classify.cat.mem_mpki, 5.0);
	ck_assert_double_eq(conf.classify.cat.lim_bw_fraction, 0.15);
	ck_assert_double_eq(conf.classify.cat.lim_mpki, 1.0);
	ck_assert_double_eq(conf.classify.cat.rand_reuse, 20.0);
	ck_assert_double_eq(conf.classify.cat.rand_cache_bw, 0.2);
	ck_assert_str_eq(conf.profile_dir, "/srv/cosched/profiles");
	ck_assert_double_eq(conf.profile_merge_weight, 0.5);
	ck_assert_int_eq(conf.profile_max_samples, 100);
	ck_assert_double_eq(conf.interference.slowdown[COSCHED_LCA_C][COSCHED_LCA_L], 3.0);
	ck_assert_double_eq(conf.interference.slowdown[COSCHED_LCA_LC][COSCHED_LCA_L], 2.0);
	ck_assert_double_eq(conf.interference.slowdown[COSCHED_LCA_L][COSCHED_LCA_L], 1.5);
	ck_assert_double_eq(conf.interference.slowdown[COSCHED_LCA_N][COSCHED_LCA_L], 1.07);
	ck_assert_int_eq(conf.interference.pref.pref[COSCHED_CAT_LIM][COSCHED_CAT_MEM],
			 COSCHED_PREF_FORBIDDEN);
}
END_TEST

/* Every refusal names file:line and the key (and the value when it is out
 * of range), and leaves the configuration as it was. */
START_TEST(test_refusals)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "Foo=1\n", "t.conf:1: unknown key \"Foo\"" },
		{ "# c\n\nLcaAlphaa=0.5\n", "t.conf:3: unknown key \"LcaAlphaa\"" },
		{ "LcaAlpha 0.5\n", "t.conf:1: expected Key=Value, got \"LcaAlpha 0.5\"" },
		{ "=0.5\n", "t.conf:1: missing key" },
		{ "LcaAlpha=\n", "t.conf:1: LcaAlpha: missing value" },
		{ "LcaAlpha=1.5\n", "t.conf:1: LcaAlpha: value 1.5 out of range (0 < value <= 1)" },
		{ "lcaalpha=0\n", "t.conf:1: LcaAlpha: value 0 out of range" },
		{ "LcaBeta=-0.1\n", "LcaBeta: value -0.1 out of range" },
		{ "LcaGamma=abc\n", "LcaGamma: invalid value \"abc\" (expected a number)" },
		{ "LcaDelta=0.3x\n", "LcaDelta: invalid value \"0.3x\"" },
		{ "LcaEpsilon=nan\n", "LcaEpsilon: invalid value \"nan\"" },
		{ "CorePeakBandwidth=0\n", "CorePeakBandwidth: value 0 out of range" },
		{ "CorePeakIPC=100\n", "CorePeakIPC: value 100 out of range" },
		{ "NodePeakBandwidth=-1\n", "NodePeakBandwidth: value -1 out of range" },
		{ "ClassifyMemBandwidthFraction=1.2\n", "ClassifyMemBandwidthFraction: value 1.2 out of range" },
		{ "ClassifyRandReuse=0.5\n", "ClassifyRandReuse: value 0.5 out of range (1 <= value <= 1e+06)" },
		{ "ClassifyLimMPKI=inf\n", "ClassifyLimMPKI: invalid value \"inf\"" },
		{ "ProfileDir=relative/dir\n", "ProfileDir: invalid value \"relative/dir\" (expected an absolute path)" },
		{ "ProfileMergeWeight=0\n", "ProfileMergeWeight: value 0 out of range" },
		{ "ProfileMaxSamples=0\n", "ProfileMaxSamples: value 0 out of range (1 <= value <= 4096)" },
		{ "ProfileMaxSamples=5000\n", "ProfileMaxSamples: value 5000 out of range" },
		{ "ProfileMaxSamples=3.5\n", "ProfileMaxSamples: invalid value \"3.5\" (expected an integer)" },
		{ "CoschedPolicy=fifo\n", "CoschedPolicy: invalid value \"fifo\" (allowed: gang, greedy_thread, miss_rate_balance, miss_rate_bound, app_aware)" },
		{ "MissRateBoundThreshold=0\n", "MissRateBoundThreshold: value 0 out of range" },
		{ "MissRateBoundWeight=1.5\n", "MissRateBoundWeight: value 1.5 out of range" },
		{ "PowerPolicy=turbo\n", "PowerPolicy: invalid value \"turbo\" (allowed: performance, edp, energy[:MAXSLOWDOWN%])" },
		{ "MaxSlowdown=0%\n", "t.conf:1: MaxSlowdown: maximum slowdown 0 out of range (1 <= MAXSLOWDOWN <= 100" },
		{ "MaxSlowdown=150\n", "MaxSlowdown: maximum slowdown 150 out of range" },
		{ "MaxSlowdown=ten\n", "MaxSlowdown: invalid value \"ten\"" },
		/* one strict number parser: no hexadecimal, no blanks inside */
		{ "LcaAlpha=0x0.8p0\n", "LcaAlpha: invalid value \"0x0.8p0\"" },
		{ "MissRateBoundThreshold=0x10\n", "MissRateBoundThreshold: invalid value \"0x10\"" },
		{ "ProfileMaxSamples=0x10\n", "ProfileMaxSamples: invalid value \"0x10\" (expected an integer)" },
		{ "ProfileMaxSamples=99999999999\n", "ProfileMaxSamples: value 99999999999 out of range (1 <= value <= 4096)" },
		{ "MaxSlowdown=1e1000\n", "MaxSlowdown: invalid value \"1e1000\"" },
		{ "PowerPolicy=energy:0x5\n", "PowerPolicy: invalid maximum slowdown in \"energy:0x5\"" },
		{ "PowerPolicy=energy:101%\n", "PowerPolicy: maximum slowdown 101 out of range" },
		/* empty entries of the override lists */
		{ "Interference=C:L=2,,\n", "t.conf:1: Interference: empty entry in \"C:L=2,,\"" },
		{ "PreferenceTable=,lim:rand=-\n", "t.conf:1: PreferenceTable: empty entry" },
		{ "Interference=C:L=0\n", "t.conf:1: Interference: slowdown \"0\" for C:L out of range" },
		{ "Interference=Q:L=2\n", "Interference: invalid LCA class \"Q\"" },
		{ "PreferenceTable=lim:rand=0\n", "t.conf:1: PreferenceTable: rank \"0\" for lim:rand out of range" },
		/* consistency across keys */
		{ "LcaBeta=0.6\n", "t.conf: LcaBeta (0.6) must be less than LcaAlpha (0.5)" },
		{ "ClassifyLimMPKI=5\n", "t.conf: ClassifyLimMPKI (5) must be less than ClassifyMemMPKI (4)" },
		{ "ClassifyLimBandwidthFraction=0.7\n", "must be less than ClassifyMemBandwidthFraction" },
		/* an error late in the file: the good lines before it are not applied */
		{ "CoschedPolicy=gang\nLcaAlpha=0.4\nbogus=1\n", "t.conf:3: unknown key \"bogus\"" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_conf_t before;
		cosched_conf_init(&conf);
		before = conf;
		cosched_error_clear(&err);
		ck_assert_msg(cosched_conf_parse_string(&conf, "t.conf", bad[i].text, &err) == -1,
			      "accepted: %s", bad[i].text);
		ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL,
			      "\"%s\" lacks \"%s\"", err.msg, bad[i].msg);
		ck_assert_msg(!memcmp(&before, &conf, sizeof(conf)),
			      "half-applied: %s", bad[i].text);
	}
}
END_TEST

/* PowerPolicy reads the --cosched-power forms (in any case): energy:N%
 * also sets MaxSlowdown; plain energy leaves it as configured. */
START_TEST(test_power_policy_forms)
{
	ck_assert_int_eq(cosched_conf_set(&conf, NULL, "MaxSlowdown", "7", &err), 0);
	ck_assert_int_eq(cosched_conf_set(&conf, NULL, "PowerPolicy", "Energy", &err), 0);
	ck_assert_int_eq(conf.power_policy, COSCHED_POWER_ENERGY);
	ck_assert_double_eq(conf.max_slowdown_pct, 7.0);
	ck_assert_int_eq(cosched_conf_set(&conf, NULL, "PowerPolicy", "energy:15%", &err), 0);
	ck_assert_double_eq(conf.max_slowdown_pct, 15.0);
	ck_assert_int_eq(cosched_conf_set(&conf, NULL, "PowerPolicy", "EDP", &err), 0);
	ck_assert_int_eq(conf.power_policy, COSCHED_POWER_EDP);
	ck_assert_double_eq(conf.max_slowdown_pct, 15.0);
	ck_assert_int_eq(cosched_conf_set(&conf, NULL, "PowerPolicy", "energy:0", &err), -1);
	ck_assert_int_eq(conf.power_policy, COSCHED_POWER_EDP);	/* unchanged */
	ck_assert_double_eq(conf.max_slowdown_pct, 15.0);
}
END_TEST

START_TEST(test_set_one_key)
{
	ck_assert_int_eq(cosched_conf_set(&conf, NULL, "coschedPOLICY", "GANG", &err), 0);
	ck_assert_int_eq(conf.policy, COSCHED_POLICY_GANG);
	ck_assert_int_eq(cosched_conf_set(&conf, NULL, "MaxSlowdown", "7.5", &err), 0);
	ck_assert_double_eq(conf.max_slowdown_pct, 7.5);
	ck_assert_int_eq(cosched_conf_set(&conf, NULL, "Nope", "1", &err), -1);
	ck_assert_str_eq(err.msg, "unknown key \"Nope\"");
	ck_assert_int_eq(cosched_conf_set(&conf, "x.conf:4", "LcaAlpha", "2", &err), -1);
	ck_assert_str_eq(err.msg, "x.conf:4: LcaAlpha: value 2 out of range (0 < value <= 1)");
}
END_TEST

START_TEST(test_parse_file)
{
	char path[] = "/tmp/cosched-conf-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs("CoschedPolicy=greedy_thread\nLcaAlpha=2\n", f);
	fclose(f);
	ck_assert_int_eq(cosched_conf_parse_file(&conf, path, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, path));
	ck_assert_ptr_nonnull(strstr(err.msg, ":2: LcaAlpha: value 2 out of range"));
	ck_assert_int_eq(conf.policy, COSCHED_POLICY_APP_AWARE);
	f = fopen(path, "w");
	fputs(example, f);
	fclose(f);
	ck_assert_msg(cosched_conf_parse_file(&conf, path, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(conf.policy, COSCHED_POLICY_MISS_RATE_BOUND);
	unlink(path);
	ck_assert_int_eq(cosched_conf_parse_file(&conf, path, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot open"));
}
END_TEST

/* The man page's EXAMPLE section parses (kept in sync by this test). */
START_TEST(test_man_page_example)
{
	const char *srcdir = getenv("srcdir");
	char path[4096], line[1024], text[8192] = "";
	bool in_example = false, in_block = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/doc/cosched.conf.5", srcdir ? srcdir : ".");
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, ".SH ", 4))
			in_example = !strncmp(line, ".SH \"EXAMPLE\"", 13) ||
				     !strncmp(line, ".SH EXAMPLE", 11);
		else if (in_example && !strncmp(line, ".nf", 3))
			in_block = true;
		else if (in_example && !strncmp(line, ".fi", 3))
			in_block = false;
		else if (in_block && strlen(text) + strlen(line) < sizeof(text)) {
			/* roff escapes used in the example: \- and \e */
			char *p;
			while ((p = strstr(line, "\\-")))
				memmove(p, p + 1, strlen(p));
			strcat(text, line);
		}
	}
	fclose(f);
	ck_assert_msg(strlen(text) > 0, "no example in %s", path);
	ck_assert_msg(cosched_conf_parse_string(&conf, "EXAMPLE", text, &err) == 0,
		      "%s", err.msg);

	/* etc/cosched.conf.example, the file sites copy, is that example. */
	{
		char shipped[8192];
		size_t n;
		snprintf(path, sizeof(path), "%s/etc/cosched.conf.example",
			 srcdir ? srcdir : ".");
		f = fopen(path, "r");
		ck_assert_msg(f != NULL, "cannot open %s", path);
		n = fread(shipped, 1, sizeof(shipped) - 1, f);
		shipped[n] = '\0';
		fclose(f);
		ck_assert_str_eq(shipped, text);
		cosched_conf_init(&conf);
		ck_assert_msg(cosched_conf_parse_file(&conf, path, &err) == 0,
			      "%s", err.msg);
		ck_assert_int_eq(conf.policy, COSCHED_POLICY_APP_AWARE);
	}
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("conf");
	TCase *tc = tcase_create("conf");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_policy_names);
	tcase_add_test(tc, test_parse_example);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_set_one_key);
	tcase_add_test(tc, test_power_policy_forms);
	tcase_add_test(tc, test_parse_file);
	tcase_add_test(tc, test_man_page_example);
	suite_add_tcase(s, tc);
	return s;
}
