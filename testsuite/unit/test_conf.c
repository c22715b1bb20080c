/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_conf.c - the cosched.conf parser (src/libcosched/conf/conf.c):
 * its form, defaults and refusals (test_conf_keys.c: each reader's keys). */
#include <check.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf_verdict.h"
#include "cosched_check.h"
#include "src/libcosched/conf/conf.h"

static cosched_conf_t conf;
static cosched_error_t err;

static void setup(void)
{
	cosched_conf_init(&conf);
	cosched_error_clear(&err);
}

/*
 * The defaults are what cosched.conf(5) documents: setting each key to the
 * value the man page gives as its default ("Default: \fBvalue\fR", and the
 * "\fBKey=value\fR" headings of CLASSIFICATION THRESHOLDS) changes
 * nothing.  Every key with a default must be documented with one.
 */
START_TEST(test_defaults_documented)
{
	static const char *const keys[] = {
		"CoschedPolicy", "MissRateBoundThreshold", "MissRateBoundWeight",
		"PowerPolicy", "MaxSlowdown", "FreqDomainRule", "PackDemand",
		"MaxCorunSlowdown", "GangMaxApps",
		"ClassifyMemBandwidthFraction",
		"ClassifyMemMPKI", "ClassifyLimBandwidthFraction", "ClassifyLimMPKI",
		"ClassifyRandReuse", "ClassifyRandCacheBandwidth", "LcaAlpha",
		"LcaBeta", "LcaGamma", "LcaDelta", "LcaEpsilon", "CorePeakBandwidth",
		"CorePeakIPC", "NodePeakBandwidth", "ProfileDir",
		"ProfileMergeWeight", "ProfileMaxSamples", "ProfileMinRuntime",
		"GangScope",
		"PlacementMode", "DefaultClass", "ProfileCacheRefresh",
		"RecordInAdminComment", "RecordInLaunch",
		"LiveLoads", "LiveLoadRefresh",
		"EnforceCores", "EnforceMemBind", "EnforceCpuFreq",
		"FreqDefaultGovernor", "MemBind",
		"SysfsRoot", "Topology", "ProfileJobs", "SampleInterval",
		"SampleEvents", "SampleBackend", "InterferenceSource",
		"InterferenceMinSamples", "InterferenceHalfLife",
		"NumaSocket", "NumaStateDir", "NumaStepDir", "NumaBatchPages",
		"NumaMaxPagesPerSecond", "NumaFreezeWindow", "NumaScanInterval",
		"NumaHighScans", "NumaHighMovesMax", "NumaMakeRoom",
	};
	enum { NKEYS = sizeof(keys) / sizeof(keys[0]) };
	bool seen[NKEYS] = { false };
	char *man = cosched_check_read_doc("doc/cosched.conf.5");
	char key[64], value[256];
	int found = 0;

	ck_assert_int_eq(cosched_conf_check(&conf, &err), 0);
	for (char *tp = strstr(man, "\n.TP\n"); tp; tp = strstr(tp + 1, "\n.TP\n")) {
		char *tag = tp + 5, *end = strstr(tag, "\\fR"), *eq, *def, *next;
		cosched_conf_t c;

		if (strncmp(tag, "\\fB", 3) || !end)
			continue;
		tag += 3;
		eq = memchr(tag, '=', (size_t) (end - tag));
		snprintf(key, sizeof(key), "%.*s", (int) ((eq ? eq : end) - tag), tag);
		if (eq) {		/* "\fBKey=value\fR" */
			snprintf(value, sizeof(value), "%.*s", (int) (end - eq - 1), eq + 1);
		} else {		/* "Default: \fBvalue\fR" before the next entry */
			next = strstr(tag, "\n.TP\n");
			def = strstr(tag, "Default: \\fB");
			if (!def || (next && def > next))
				continue;	/* a list key: no default */
			def += strlen("Default: \\fB");
			end = strstr(def, "\\fR");
			ck_assert_ptr_nonnull(end);
			snprintf(value, sizeof(value), "%.*s", (int) (end - def), def);
		}
		c = conf;
		ck_assert_msg(cosched_conf_set(&c, "cosched.conf(5)", key, value, &err) == 0,
			      "documented default %s=%s: %s", key, value, err.msg);
		ck_assert_msg(!memcmp(&c, &conf, sizeof(c)),
			      "%s=%s, the documented default, is not the default", key, value);
		for (int i = 0; i < NKEYS; i++)
			if (!strcmp(keys[i], key))
				seen[i] = true;
		found++;
	}
	for (int i = 0; i < NKEYS; i++)
		ck_assert_msg(seen[i], "cosched.conf(5) gives no default for %s", keys[i]);
	ck_assert_int_eq(found, NKEYS + 6);	/* + the six derivations */
	free(man);
}
END_TEST

/*
 * The defaults the seeds give in numbers, written here as the seeds write
 * them.  The classification thresholds and the interference tables are
 * the modules' defaults (checked against the seeds in test_classify.c and
 * test_interference.c); cosched.conf only gathers them.
 */
START_TEST(test_defaults_seed_figures)
{
	cosched_merge_params_t mp;
	cosched_classify_conf_t cls;
	cosched_interference_model_t im;
	cosched_lca_abs_t a;

	/* "Power-aware gang scheduling on multicore" (NTUA thesis, 2013),
	 * "Miss-Rate Bound": T = 12.0, a = 1/2 */
	ck_assert_double_eq(conf.mrb_threshold, 12.0);
	ck_assert_double_eq(conf.mrb_weight, 1.0 / 2);
	/* The 2013 gang-scheduling thesis, "Power model": ~15000 MB/s per
	 * package (1 MB = 10^6 bytes) */
	cosched_conf_merge_params(&conf, &mp);
	ck_assert_double_eq(mp.node_peak_bw, 15000.0 * 1e6);
	/* "Effects of co-scheduling applications on multicore architectures"
	 * (NTUA thesis, 2014), "Classification thresholds" on its test machine
	 * (B_max = 14 GB/s, IPC_max = 4): alpha 7 GB/s, beta 0.35 GB/s,
	 * epsilon 1 */
	cosched_lca_thresholds(&conf.classify.lca, &a);
	ck_assert_double_eq_tol(a.alpha_mbs, 7000.0, 1e-9);
	ck_assert_double_eq_tol(a.beta_mbs, 350.0, 1e-9);
	ck_assert_double_eq_tol(a.epsilon_ipc, 1.0, 1e-12);
	cosched_classify_conf_default(&cls);
	ck_assert(!memcmp(&cls, &conf.classify, sizeof(cls)));
	cosched_interference_default(&im);
	ck_assert(!memcmp(&im, &conf.interference, sizeof(im)));
}
END_TEST

/* The policy names cosched.conf(5) lists, in any case. */
START_TEST(test_policy_names)
{
	static const struct { const char *name; cosched_policy_t p; } names[] = {
		{ "gang", COSCHED_POLICY_GANG },
		{ "greedy_thread", COSCHED_POLICY_GREEDY_THREAD },
		{ "miss_rate_balance", COSCHED_POLICY_MISS_RATE_BALANCE },
		{ "miss_rate_bound", COSCHED_POLICY_MISS_RATE_BOUND },
		{ "app_aware", COSCHED_POLICY_APP_AWARE },
		{ "min_slowdown", COSCHED_POLICY_MIN_SLOWDOWN },
		{ "none", COSCHED_POLICY_NONE },
	};
	cosched_policy_t out;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char upper[32];

		out = COSCHED_POLICY_COUNT;
		ck_assert_int_eq(cosched_policy_parse("CoschedPolicy", names[i].name,
						      0, &out, &err), 0);
		ck_assert_int_eq(out, names[i].p);
		ck_assert_str_eq(cosched_policy_name(names[i].p), names[i].name);
		for (size_t k = 0; k <= strlen(names[i].name); k++)
			upper[k] = (char) toupper((unsigned char) names[i].name[k]);
		ck_assert_int_eq(cosched_conf_set(&conf, NULL, "CoschedPolicy", upper, &err), 0);
		ck_assert_int_eq(conf.policy, names[i].p);
	}
	ck_assert_int_eq(COSCHED_POLICY_COUNT, 7);	/* no undocumented policy */
	ck_assert_str_eq(cosched_policy_name(COSCHED_POLICY_COUNT), "unknown");
	/* The record's parser takes a name as written, and the code that
	 * places takes no none. */
	ck_assert_int_eq(cosched_policy_parse("policy", "Gang",
					      COSCHED_POLICY_EXACT, &out, &err), -1);
	ck_assert_str_eq(err.msg, "policy: invalid value \"Gang\" (allowed: gang, greedy_thread, miss_rate_balance, miss_rate_bound, app_aware, min_slowdown, none)");
	ck_assert_int_eq(cosched_policy_parse("--policy", "none",
					      COSCHED_POLICY_PLACING, &out, &err), -1);
	ck_assert_str_eq(err.msg, "--policy: invalid value \"none\" (allowed: gang, greedy_thread, miss_rate_balance, miss_rate_bound, app_aware, min_slowdown)");
	ck_assert(!cosched_policy_places(COSCHED_POLICY_NONE));
	ck_assert(cosched_policy_places(COSCHED_POLICY_MIN_SLOWDOWN));
	ck_assert_int_eq(cosched_policy_check("CoschedPolicy", COSCHED_POLICY_NONE,
					      0, &err), 0);
	ck_assert_int_eq(cosched_policy_check("policy", COSCHED_POLICY_NONE,
					      COSCHED_POLICY_PLACING, &err), -1);
	ck_assert_str_eq(err.msg, "policy: none places no job (cons_tres does)");
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
	"ProfileMinRuntime=0\n"
	"Interference=C:L=3.0,LC:L=2.0\n"
	"Interference=L:L=1.5\n"
	"PreferenceTable=lim:mem=-\n"
	"\t\n";

/* What conf's interference model predicts for victim next to one
 * co-runner, and whether two categories may share a gang. */
static double slowdown(cosched_lca_t victim, cosched_lca_t corunner)
{
	cosched_class_t v = { cosched_lca_to_category(victim), victim,
			      COSCHED_CLASS_FROM_PROFILE };
	cosched_class_t c = { cosched_lca_to_category(corunner), corunner,
			      COSCHED_CLASS_FROM_PROFILE };
	cosched_prediction_t p;

	ck_assert_int_eq(cosched_interference_predict(&conf.interference, &v, &c, 1,
						      &p, &err), 0);
	return p.slowdown;
}

static bool pair_allowed(cosched_category_t a, cosched_category_t b)
{
	cosched_class_t x = { a, COSCHED_LCA_UNKNOWN, COSCHED_CLASS_FROM_DECLARED };
	cosched_class_t y = { b, COSCHED_LCA_UNKNOWN, COSCHED_CLASS_FROM_DECLARED };
	return cosched_interference_allowed(&conf.interference, &x, &y);
}

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
	ck_assert_double_eq(conf.profile_min_runtime_s, 0.0);
	/* The two Interference= lines both apply (entries accumulate), the
	 * rest of the table stays that of the 2014 co-scheduling thesis, and
	 * PreferenceTable= forbids lim with mem: by what the model predicts. */
	ck_assert_double_eq_tol(slowdown(COSCHED_LCA_C, COSCHED_LCA_L), 3.0, 1e-12);
	ck_assert_double_eq_tol(slowdown(COSCHED_LCA_LC, COSCHED_LCA_L), 2.0, 1e-12);
	ck_assert_double_eq_tol(slowdown(COSCHED_LCA_L, COSCHED_LCA_L), 1.5, 1e-12);
	ck_assert_double_eq_tol(slowdown(COSCHED_LCA_N, COSCHED_LCA_L), 1.07, 1e-12);
	ck_assert(!pair_allowed(COSCHED_CAT_LIM, COSCHED_CAT_MEM));
	ck_assert(!pair_allowed(COSCHED_CAT_MEM, COSCHED_CAT_LIM));
	ck_assert(pair_allowed(COSCHED_CAT_LIM, COSCHED_CAT_LIM));
}
END_TEST

/* Every refusal names file:line and the key (and the value when it is out
 * of range), and leaves the configuration as it was. */
/* InterferenceSource and its two numbers; calibrated needs all 16 pairs
 * in Interference=, and says how many the file gives. */
START_TEST(test_interference_source)
{
	static const char *const full =
		"Interference=N:N=1,N:C=1,N:LC=1,N:L=1,C:N=1,C:C=1,C:LC=1\n"
		"Interference=C:L=2,LC:N=1,LC:C=1,LC:LC=1,LC:L=1.2,L:N=1\n"
		"Interference=L:C=1.1,L:LC=1.2,L:L=1.3\n";
	char text[1024];

	ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf",
		"InterferenceSource=Learned\nInterferenceMinSamples=3\n"
		"InterferenceHalfLife=0\n", &err), 0);
	ck_assert_int_eq(conf.interference_source, COSCHED_ISOURCE_LEARNED);
	ck_assert_double_eq(conf.interference_min_samples, 3);
	ck_assert_double_eq(conf.interference_half_life_days, 0);
	cosched_conf_init(&conf);
	ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf",
		"InterferenceSource=calibrated\nInterference=C:L=2\n", &err), -1);
	ck_assert_msg(strstr(err.msg, "InterferenceSource: calibrated, but "
			     "Interference= gives 1 of the 16 class pairs"),
		      "%s", err.msg);
	/* A node never refuses its file for it (slurmctld's key). */
	cosched_conf_init(&conf);
	ck_assert_msg(cosched_conf_parse_string_for(&conf, "t.conf",
		"InterferenceSource=calibrated\nInterference=C:L=2\n",
		COSCHED_CONF_READER_NODE, NULL, &err) == 0, "%s", err.msg);
	snprintf(text, sizeof(text), "InterferenceSource=calibrated\n%s", full);
	ck_assert_msg(cosched_conf_parse_string(&conf, "t.conf", text, &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(conf.interference_source, COSCHED_ISOURCE_CALIBRATED);
	ck_assert_double_eq(conf.interference.slowdown[COSCHED_LCA_L][COSCHED_LCA_L],
			    1.3);
	cosched_conf_init(&conf);
	ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf",
		"InterferenceSource=measured\n", &err), -1);
	ck_assert_msg(strstr(err.msg, "InterferenceSource") &&
		      strstr(err.msg, "\"measured\""), "%s", err.msg);
	ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf",
		"InterferenceMinSamples=0\n", &err), -1);
	ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf",
		"InterferenceHalfLife=-1\n", &err), -1);
}
END_TEST

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
		{ "ProfileMinRuntime=-0.5\n", "ProfileMinRuntime: value -0.5 out of range (0 <= value <= 86400)" },
		{ "ProfileMinRuntime=1d\n", "ProfileMinRuntime: invalid value \"1d\" (expected a number)" },
		{ "GangMaxApps=-1\n", "GangMaxApps: value -1 out of range (0 <= value <= 1024)" },
		{ "GangMaxApps=1025\n", "GangMaxApps: value 1025 out of range" },
		{ "GangMaxApps=two\n", "GangMaxApps: invalid value \"two\" (expected an integer)" },
		{ "CoschedPolicy=fifo\n", "CoschedPolicy: invalid value \"fifo\" (allowed: gang, greedy_thread, miss_rate_balance, miss_rate_bound, app_aware, min_slowdown, none)" },
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
	cosched_check_write_file(path, example);
	ck_assert_msg(cosched_conf_parse_file(&conf, path, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(conf.policy, COSCHED_POLICY_MISS_RATE_BOUND);
	unlink(path);
	ck_assert_int_eq(cosched_conf_parse_file(&conf, path, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot open"));
}
END_TEST

static void refused(const char *text, const char *msg)
{
	conf_refused(&conf, &err, text, msg);
}

static void accepted(const char *text)
{
	conf_accepted(&conf, &err, text);
}

/* A key given twice is refused naming both lines, in any case and with
 * the same value; Interference= and PreferenceTable= add entries. */
START_TEST(test_duplicate_keys)
{
	refused("CoschedPolicy=gang\n# two\nCoschedPolicy=app_aware\n",
		"t.conf:3: CoschedPolicy set twice (first on line 1); give it once");
	refused("lcaalpha=0.4\nLCAALPHA=0.4\n",
		"t.conf:2: LcaAlpha set twice (first on line 1); give it once");
	refused("ProfileDir=/a\nLcaBeta=0.01\n\nProfileDir=\"/a\"\n",
		"t.conf:4: ProfileDir set twice (first on line 1); give it once");

	accepted("Interference=C:L=3.0\nInterference=LC:L=2.0\nInterference=C:L=2.5\n");
	ck_assert_double_eq_tol(slowdown(COSCHED_LCA_C, COSCHED_LCA_L), 2.5, 1e-12);
	ck_assert_double_eq_tol(slowdown(COSCHED_LCA_LC, COSCHED_LCA_L), 2.0, 1e-12);
	/* lim with rand needs both directions: one line each */
	accepted("PreferenceTable=lim:rand=2\nPreferenceTable=rand:lim=2\n");
	ck_assert(pair_allowed(COSCHED_CAT_LIM, COSCHED_CAT_RAND));
	accepted("PreferenceTable=lim:rand=2\n");
	ck_assert(!pair_allowed(COSCHED_CAT_LIM, COSCHED_CAT_RAND));
}
END_TEST

/* MaxSlowdown= and PowerPolicy=energy:N% both set the maximum slowdown:
 * together they are refused, in either order; plain energy (or another
 * policy) next to MaxSlowdown= is fine. */
START_TEST(test_slowdown_set_twice)
{
	refused("MaxSlowdown=5\nPowerPolicy=energy:15%\n",
		"t.conf:2: the maximum slowdown is set twice (MaxSlowdown= and PowerPolicy=energy:N%, first on line 1); give it once");
	refused("PowerPolicy=Energy:15\n\nMaxSlowdown=5%\n",
		"t.conf:3: the maximum slowdown is set twice (MaxSlowdown= and PowerPolicy=energy:N%, first on line 1); give it once");
	accepted("PowerPolicy=energy\nMaxSlowdown=5\n");
	ck_assert_int_eq(conf.power_policy, COSCHED_POWER_ENERGY);
	ck_assert_double_eq(conf.max_slowdown_pct, 5.0);
	accepted("MaxSlowdown=5\nPowerPolicy=energy\n");
	ck_assert_double_eq(conf.max_slowdown_pct, 5.0);
	accepted("MaxSlowdown=5\nPowerPolicy=edp\n");
	ck_assert_int_eq(conf.power_policy, COSCHED_POWER_EDP);
	accepted("PowerPolicy=energy:15%\n");
	ck_assert_double_eq(conf.max_slowdown_pct, 15.0);
}
END_TEST

/* '#' starts a comment at the start of a line or after a blank; "\#" is a
 * literal '#'; a '#' glued to a value is refused (slurm.conf would cut
 * the value there without a word). */
START_TEST(test_comments)
{
	refused("ProfileDir=/srv/a#b\n",
		"t.conf:1: '#' inside a value (write \\# for a literal '#', or put a blank before a comment)");
	refused("LcaAlpha=0.4\nLcaBeta=0.01#x\n",
		"t.conf:2: '#' inside a value (write \\# for a literal '#', or put a blank before a comment)");
	refused("Interference=C:L=3#x\n",
		"t.conf:1: '#' inside a value (write \\# for a literal '#', or put a blank before a comment)");
	accepted("ProfileDir=/srv/a\\#b\n");
	ck_assert_str_eq(conf.profile_dir, "/srv/a#b");
	accepted("ProfileDir=/srv/a #b\n");
	ck_assert_str_eq(conf.profile_dir, "/srv/a");
	accepted("LcaAlpha=0.4\t# a tab before it\n#LcaAlpha=0.9\n  # indented\n");
	ck_assert_double_eq(conf.classify.lca.alpha, 0.4);
}
END_TEST

/* ProfileDir must say exactly where the directory is: absolute, printable
 * ASCII without blanks, no "." or ".." component.  The message quotes the
 * value escaped. */
START_TEST(test_profile_dir_refusals)
{
	static const char *const bad_chars[] = {
		"ProfileDir=/srv/a\001b\n", "ProfileDir=/srv/a\tb\n",
		"ProfileDir=\"/srv/a b\"\n", "ProfileDir=/srv/caf\xc3\xa9\n",
		"ProfileDir=/srv/\x7f\n",
	};
	static const char *const quoted[] = {
		"\"/srv/a\\x01b\"", "\"/srv/a\\tb\"", "\"/srv/a b\"",
		"\"/srv/caf\\xc3\\xa9\"", "\"/srv/\\x7f\"",
	};
	static const char *const dots[] = {
		"/srv/./p", "/srv/../etc", "/srv/p/..", "/.", "/..", "/srv/p/.",
	};
	char text[128], msg[256];

	for (size_t i = 0; i < sizeof(bad_chars) / sizeof(bad_chars[0]); i++) {
		snprintf(msg, sizeof(msg),
			 "t.conf:1: ProfileDir: invalid value %s (control characters, blanks and non-ASCII bytes are not allowed in a path)",
			 quoted[i]);
		refused(bad_chars[i], msg);
	}
	for (size_t i = 0; i < sizeof(dots) / sizeof(dots[0]); i++) {
		snprintf(text, sizeof(text), "ProfileDir=%s\n", dots[i]);
		snprintf(msg, sizeof(msg),
			 "t.conf:1: ProfileDir: invalid value \"%s\" (no \".\" or \"..\" component: give the directory itself)",
			 dots[i]);
		refused(text, msg);
	}
	refused("ProfileDir=srv/p\n",
		"t.conf:1: ProfileDir: invalid value \"srv/p\" (expected an absolute path)");
	refused("ProfileDir=\"\"\n", "t.conf:1: ProfileDir: missing value");
	/* names that only look like dot components are directories */
	accepted("ProfileDir=/srv/.cosched/p..q/...\n");
	ck_assert_str_eq(conf.profile_dir, "/srv/.cosched/p..q/...");
}
END_TEST

/* Out-of-range numbers are quoted as written, not as parsed: an int
 * cast would show 2147483648 as -2147483648 (or let 4294967297 pass as
 * 1), "%g" would show 1.0000001 as 1 and even "%.15g" 1 + 2^-52. */
START_TEST(test_values_as_written)
{
	refused("ProfileMaxSamples=2147483648\n",
		"t.conf:1: ProfileMaxSamples: value 2147483648 out of range (1 <= value <= 4096)");
	refused("ProfileMaxSamples=4294967297\n",
		"t.conf:1: ProfileMaxSamples: value 4294967297 out of range (1 <= value <= 4096)");
	refused("ProfileMaxSamples=-2147483649\n",
		"t.conf:1: ProfileMaxSamples: value -2147483649 out of range (1 <= value <= 4096)");
	refused("MissRateBoundWeight=1.0000001\n",
		"t.conf:1: MissRateBoundWeight: value 1.0000001 out of range (0 < value <= 1)");
	refused("LcaAlpha=1.00000000001\n",
		"t.conf:1: LcaAlpha: value 1.00000000001 out of range (0 < value <= 1)");
	/* 1 + 2^-52: 15 significant digits would show it as 1 */
	refused("MissRateBoundWeight=1.0000000000000002\n",
		"t.conf:1: MissRateBoundWeight: value 1.0000000000000002 out of range (0 < value <= 1)");
	refused("LcaDelta=1.0000000000000002\n",
		"t.conf:1: LcaDelta: value 1.0000000000000002 out of range (0 < value <= 1)");
	refused("MaxSlowdown=0.99999%\n",
		"t.conf:1: MaxSlowdown: maximum slowdown 0.99999 out of range (1 <= MAXSLOWDOWN <= 100, in percent)");
	refused("PowerPolicy=energy:1e-300%\n",
		"t.conf:1: PowerPolicy: maximum slowdown 1e-300 out of range (1 <= MAXSLOWDOWN <= 100, in percent)");
}
END_TEST

/* cosched_conf_parse_file() in a child under alarm(): a FIFO must be
 * refused at once (nobody writes to it). */
static int parse_fifo(void *path)
{
	cosched_conf_t c;
	cosched_error_t e;

	cosched_conf_init(&c);
	if (cosched_conf_parse_file(&c, path, &e) != -1 ||
	    !strstr(e.msg, "not a regular file")) {
		fprintf(stderr, "FIFO: %s\n", e.msg);
		return 1;
	}
	return 0;
}

/* The file must be a regular file, not reached through a symbolic link. */
START_TEST(test_parse_file_not_regular)
{
	char dir[64], path[96], link[96], msg[192];

	cosched_check_tmpdir(dir, sizeof(dir), "conf");
	snprintf(path, sizeof(path), "%s/fifo.conf", dir);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	cosched_child_run("cosched.conf as a FIFO", parse_fifo, path, 0, 2);
	unlink(path);

	snprintf(path, sizeof(path), "%s/real.conf", dir);
	cosched_check_write_file(path, "CoschedPolicy=gang\n");
	snprintf(link, sizeof(link), "%s/cosched.conf", dir);
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_int_eq(cosched_conf_parse_file(&conf, link, &err), -1);
	snprintf(msg, sizeof(msg), "%s: is a symbolic link (not followed)", link);
	ck_assert_str_eq(err.msg, msg);
	ck_assert_int_eq(conf.policy, COSCHED_POLICY_APP_AWARE);
	ck_assert_int_eq(cosched_conf_parse_file(&conf, path, &err), 0);
	ck_assert_int_eq(conf.policy, COSCHED_POLICY_GANG);
	unlink(link);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* The man page's EXAMPLE section parses (kept in sync by this test), and
 * etc/cosched.conf.example, the file sites copy, is that example after its
 * licence line. */
START_TEST(test_man_page_example)
{
	char *man = cosched_check_read_doc("doc/cosched.conf.5");
	char *shipped = cosched_check_read_doc("etc/cosched.conf.example");
	char *sec = strstr(man, "\n.SH \"EXAMPLE\"\n"), *from, *to;

	ck_assert_ptr_nonnull(sec);
	from = strstr(sec, "\n.nf\n");
	ck_assert_ptr_nonnull(from);
	from += strlen("\n.nf\n");
	to = strstr(from, "\n.fi\n");
	ck_assert_ptr_nonnull(to);
	to[1] = '\0';		/* the example, with its last newline */
	ck_assert_msg(cosched_conf_parse_string(&conf, "EXAMPLE", from, &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(strncmp(shipped, "# SPDX-License-Identifier:", 26), 0);
	ck_assert_str_eq(strchr(shipped, '\n') + 1, from);
	cosched_conf_init(&conf);
	{
		const char *srcdir = getenv("srcdir");
		char path[4096];
		snprintf(path, sizeof(path), "%s/etc/cosched.conf.example",
			 srcdir ? srcdir : ".");
		ck_assert_msg(cosched_conf_parse_file(&conf, path, &err) == 0,
			      "%s", err.msg);
	}
	ck_assert_int_eq(conf.policy, COSCHED_POLICY_APP_AWARE);
	free(man);
	free(shipped);
}
END_TEST

/*
 * A 10 KB value of any key gives a message of bounded length that names
 * the file, the line and the key and quotes a prefix of the value, cut,
 * with its length; so do a 10 KB key and a 10 KB line without '='.
 */
START_TEST(test_long_value_message_bounded)
{
	static const char *const keys[] = {
		"CoschedPolicy", "MissRateBoundThreshold", "MissRateBoundWeight",
		"PowerPolicy", "MaxSlowdown", "FreqDomainRule", "PackDemand",
		"MaxCorunSlowdown", "GangMaxApps",
		"ClassifyMemBandwidthFraction",
		"ClassifyMemMPKI", "ClassifyLimBandwidthFraction", "ClassifyLimMPKI",
		"ClassifyRandReuse", "ClassifyRandCacheBandwidth", "LcaAlpha",
		"LcaBeta", "LcaGamma", "LcaDelta", "LcaEpsilon", "CorePeakBandwidth",
		"CorePeakIPC", "NodePeakBandwidth", "ProfileDir",
		"ProfileMergeWeight", "ProfileMaxSamples", "Interference",
		"PreferenceTable", "SampleEventsFor", "InterferenceSource",
		"InterferenceMinSamples", "InterferenceHalfLife",
	};
	enum { LONG_LEN = 10240 };
	static char value[LONG_LEN + 1], text[LONG_LEN + 64];
	char named[64], prefix[64], cut[64];

	memset(value, 'x', LONG_LEN);
	value[LONG_LEN] = '\0';
	snprintf(prefix, sizeof(prefix), "\"%.48s", value);
	snprintf(cut, sizeof(cut), "\"...(%d bytes)", LONG_LEN);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(text, sizeof(text), "%s=%s\n", keys[i], value);
		snprintf(named, sizeof(named), "t.conf:1: %s: ", keys[i]);
		ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf", text, &err), -1);
		ck_assert_msg(strlen(err.msg) < 300, "%s: %zu bytes: %.400s",
			      keys[i], strlen(err.msg), err.msg);
		ck_assert_msg(!strncmp(err.msg, named, strlen(named)), "%s", err.msg);
		ck_assert_msg(strstr(err.msg, prefix) && strstr(err.msg, cut),
			      "%s", err.msg);
	}
	/* a 10 KB key, and a 10 KB line that is no setting */
	snprintf(text, sizeof(text), "%s=1\n", value);
	ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf", text, &err), -1);
	ck_assert_msg(strlen(err.msg) < 300 && strstr(err.msg, "unknown key") &&
		      strstr(err.msg, prefix) && strstr(err.msg, cut), "%s", err.msg);
	snprintf(text, sizeof(text), "%s\n", value);
	ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf", text, &err), -1);
	ck_assert_msg(strlen(err.msg) < 300 && strstr(err.msg, "t.conf:1: ") &&
		      strstr(err.msg, prefix) && strstr(err.msg, cut), "%s", err.msg);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("conf");
	TCase *tc = tcase_create("conf");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_defaults_documented);
	tcase_add_test(tc, test_defaults_seed_figures);
	tcase_add_test(tc, test_policy_names);
	tcase_add_test(tc, test_parse_example);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_interference_source);
	tcase_add_test(tc, test_set_one_key);
	tcase_add_test(tc, test_power_policy_forms);
	tcase_add_test(tc, test_parse_file);
	tcase_add_test(tc, test_man_page_example);
	tcase_add_test(tc, test_duplicate_keys);
	tcase_add_test(tc, test_slowdown_set_twice);
	tcase_add_test(tc, test_comments);
	tcase_add_test(tc, test_profile_dir_refusals);
	tcase_add_test(tc, test_values_as_written);
	tcase_add_test(tc, test_parse_file_not_regular);
	tcase_add_test(tc, test_long_value_message_bounded);
	suite_add_tcase(s, tc);
	return s;
}
