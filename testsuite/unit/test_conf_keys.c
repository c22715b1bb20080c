/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_conf_keys.c - the cosched.conf keys each reader reads
 * (src/libcosched/conf/conf.c): the controller's, the node's, the
 * sampler's events by CPU, and what a node skips of a file it shares with
 * slurmctld (test_conf.c: the file's form, defaults and refusals). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "src/libcosched/conf/conf.h"

static cosched_conf_t conf;
static cosched_error_t err;

static void setup(void)
{
	cosched_conf_init(&conf);
	cosched_error_clear(&err);
}

/* The controller's keys (cosched.conf(5), "The controller"). */
START_TEST(test_controller_keys)
{
	cosched_conf_t conf;
	cosched_error_t err;

	cosched_conf_init(&conf);
	ck_assert(conf.policy == COSCHED_POLICY_DEFAULT && !conf.strict);
	ck_assert_int_eq(conf.scope, COSCHED_SCOPE_SOCKET);
	ck_assert_int_eq(conf.default_class, COSCHED_CAT_UNKNOWN);
	ck_assert_int_eq(conf.profile_refresh_s, COSCHED_PROFILE_REFRESH_DEFAULT);
	ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf",
		"CoschedPolicy=None\nGangScope=node\nPlacementMode=Strict\n"
		"DefaultClass=mem\nDebugFlags=placement, Timing\n"
		"ProfileCacheRefresh=2\n", &err), 0);
	ck_assert(conf.policy == COSCHED_POLICY_NONE && conf.strict);
	ck_assert_int_eq(conf.scope, COSCHED_SCOPE_NODE);
	ck_assert_int_eq(conf.default_class, COSCHED_CAT_MEM);
	ck_assert_uint_eq(conf.debug_flags,
			  COSCHED_DEBUG_PLACEMENT | COSCHED_DEBUG_TIMING);
	ck_assert_int_eq(conf.profile_refresh_s, 2);
	/* A policy after none turns placement back on. */
	ck_assert_int_eq(cosched_conf_set(&conf, NULL, "CoschedPolicy", "gang",
					  &err), 0);
	ck_assert_int_eq(conf.policy, COSCHED_POLICY_GANG);

	static const struct { const char *text, *want; } bad[] = {
		{ "GangScope=rack\n", "GangScope" },
		{ "PlacementMode=lax\n", "PlacementMode: invalid mode \"lax\"" },
		{ "DefaultClass=heavy\n", "unknown)" },
		{ "DebugFlags=Placement,Bogus\n", "DebugFlags: invalid flag \"Bogus\"" },
		{ "ProfileCacheRefresh=0\n", "ProfileCacheRefresh" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_conf_t before = conf;
		ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf",
							   bad[i].text, &err), -1);
		ck_assert_msg(strstr(err.msg, bad[i].want), "%s", err.msg);
		ck_assert_msg(strstr(err.msg, "t.conf:1"), "%s", err.msg);
		ck_assert(!memcmp(&before, &conf, sizeof(conf)));
	}
}
END_TEST

START_TEST(test_node_keys)
{
	cosched_conf_t conf;
	cosched_error_t err;

	cosched_conf_init(&conf);
	ck_assert(conf.enforce_cores && conf.enforce_membind &&
		  conf.enforce_cpufreq);
	ck_assert_int_eq(conf.membind, COSCHED_MEMBIND_PREFER);
	ck_assert_str_eq(conf.sysfs_root, "/");
	ck_assert_str_eq(conf.topology, "system");
	ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf",
		"EnforceCores=no\nEnforceMemBind=No\nEnforceCpuFreq=YES\n"
		"MemBind=bind\nSysfsRoot=/srv/fake/%n\n"
		"Topology=synthetic:package:2 [numa] core:8 pu:1\n", &err), 0);
	ck_assert(!conf.enforce_cores && !conf.enforce_membind &&
		  conf.enforce_cpufreq);
	ck_assert_int_eq(conf.membind, COSCHED_MEMBIND_BIND);
	ck_assert_str_eq(conf.sysfs_root, "/srv/fake/%n");
	ck_assert_str_eq(conf.topology, "synthetic:package:2 [numa] core:8 pu:1");
	ck_assert_int_eq(cosched_conf_set(&conf, NULL, "Topology",
					  "xml:/etc/cosched/topo.xml", &err), 0);

	static const struct { const char *text, *want; } bad[] = {
		{ "EnforceCores=maybe\n", "EnforceCores: invalid value \"maybe\"" },
		{ "MemBind=interleave\n", "MemBind: invalid mode \"interleave\"" },
		{ "SysfsRoot=relative/sys\n", "SysfsRoot" },
		{ "SysfsRoot=/srv/../etc\n", "SysfsRoot" },
		{ "Topology=synthetic:\n", "Topology: invalid value \"synthetic:\"" },
		{ "Topology=xml:topo.xml\n", "Topology: invalid value \"xml:topo.xml\"" },
		{ "Topology=numa:2\n", "expected system, synthetic:" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_conf_t before = conf;
		ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf",
							   bad[i].text, &err), -1);
		ck_assert_msg(strstr(err.msg, bad[i].want), "%s", err.msg);
		ck_assert_msg(strstr(err.msg, "t.conf:1"), "%s", err.msg);
		ck_assert(!memcmp(&before, &conf, sizeof(conf)));
	}
}
END_TEST

/*
 * SampleEventsFor=VENDOR[-FAMILY[-MODEL]]:LIST, one line per CPU: the
 * entry that names the most of a node's CPU wins, SampleEvents is the
 * fallback; SampleBackend takes papi and auto.
 */
START_TEST(test_sample_events_for)
{
	char which[128];
	const char *l;

	ck_assert_int_eq(conf.n_sample_events_for, 0);
	ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf",
		"SampleEvents=task-clock,cycles\n"
		"SampleEventsFor=GenuineIntel:task-clock,PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_L3_TCM\n"
		"SampleEventsFor=genuineintel-6-143:task-clock,instructions,cycles,skx::OFFCORE_RESPONSE_0:L3_MISS\n"
		"SampleEventsFor=AuthenticAMD-25:perf::TASK-CLOCK:u=0,perf::INSTRUCTIONS\n"
		"SampleBackend=auto\n", &err), 0);
	ck_assert_int_eq(conf.n_sample_events_for, 3);
	/* the vendor as cpuinfo spells it, whatever the case written */
	ck_assert_str_eq(conf.sample_events_for[1].vendor, "GenuineIntel");
	ck_assert_int_eq(conf.sample_events_for[1].family, 6);
	ck_assert_int_eq(conf.sample_events_for[1].model, 143);
	ck_assert_int_eq(conf.sample_events_for[0].family, -1);
	ck_assert_str_eq(conf.sample_backend, "auto");

	/* most specific first: the model, then the family, then the vendor */
	l = cosched_conf_sample_events(&conf, "GenuineIntel", 6, 143, which,
				       sizeof(which));
	ck_assert_str_eq(l, "task-clock,instructions,cycles,skx::OFFCORE_RESPONSE_0:L3_MISS");
	ck_assert_str_eq(which, "SampleEventsFor=GenuineIntel-6-143");
	l = cosched_conf_sample_events(&conf, "GenuineIntel", 6, 85, which,
				       sizeof(which));
	ck_assert_str_eq(l, "task-clock,PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_L3_TCM");
	ck_assert_str_eq(which, "SampleEventsFor=GenuineIntel");
	l = cosched_conf_sample_events(&conf, "AuthenticAMD", 25, 17, which,
				       sizeof(which));
	ck_assert_str_eq(l, "perf::TASK-CLOCK:u=0,perf::INSTRUCTIONS");
	ck_assert_str_eq(which, "SampleEventsFor=AuthenticAMD-25");
	/* no match: another family, another vendor, an unknown CPU */
	ck_assert_str_eq(cosched_conf_sample_events(&conf, "AuthenticAMD", 23,
		1, which, sizeof(which)), "task-clock,cycles");
	ck_assert_str_eq(which, "SampleEvents");
	ck_assert_str_eq(cosched_conf_sample_events(&conf, "HygonGenuine", 24,
		0, NULL, 0), "task-clock,cycles");
	ck_assert_str_eq(cosched_conf_sample_events(&conf, NULL, -1, -1, which,
		sizeof(which)), "task-clock,cycles");
	/* a family entry does not match a CPU whose family is unknown */
	ck_assert_str_eq(cosched_conf_sample_events(&conf, "AuthenticAMD", -1,
		-1, which, sizeof(which)), "task-clock,cycles");
	ck_assert_int_eq(cosched_conf_set(&conf, NULL, "SampleBackend", "papi",
					  &err), 0);
	/* Set over what is there, as every key: a CPU that has a list gets
	 * the new one, so a file parsed again changes nothing. */
	ck_assert_int_eq(cosched_conf_set(&conf, NULL, "SampleEventsFor",
		"AuthenticAMD-25:task-clock", &err), 0);
	ck_assert_int_eq(conf.n_sample_events_for, 3);
	ck_assert_str_eq(cosched_conf_sample_events(&conf, "AuthenticAMD", 25,
		17, NULL, 0), "task-clock");
}
END_TEST

/* Every bad SampleEventsFor (and SampleEvents, SampleBackend) value is
 * refused naming the file, the line, the key and the value, and nothing
 * of the file is applied. */
START_TEST(test_sample_events_for_refusals)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "SampleEventsFor=GenuineIntel\n",
		  "t.conf:1: SampleEventsFor: invalid value \"GenuineIntel\" (expected VENDOR[-FAMILY[-MODEL]]:EVENT[,EVENT...])" },
		{ "SampleEventsFor=:task-clock\n",
		  "t.conf:1: SampleEventsFor: invalid value \":task-clock\" (expected VENDOR" },
		{ "SampleEventsFor=GenuineIntle:task-clock\n",
		  "t.conf:1: SampleEventsFor: invalid value \"GenuineIntle:task-clock\" (CPU vendor \"GenuineIntle\": expected GenuineIntel, AuthenticAMD, HygonGenuine or CentaurHauls)" },
		{ "SampleEventsFor=AMD-25:task-clock\n",
		  "SampleEventsFor: invalid value \"AMD-25:task-clock\" (CPU vendor \"AMD\"" },
		{ "SampleEventsFor=AuthenticAMD-0x19:task-clock\n",
		  "t.conf:1: SampleEventsFor: invalid value \"AuthenticAMD-0x19:task-clock\" (CPU family \"0x19\": expected a decimal number from 0 to 65535, as /proc/cpuinfo gives it)" },
		{ "SampleEventsFor=AuthenticAMD-25-:task-clock\n",
		  "(CPU model \"\": expected a decimal number" },
		{ "SampleEventsFor=AuthenticAMD--17:task-clock\n",
		  "(CPU family \"\": expected a decimal number" },
		{ "SampleEventsFor=GenuineIntel-6-65536:task-clock\n",
		  "(CPU model \"65536\": expected a decimal number from 0 to 65535" },
		{ "SampleEventsFor=GenuineIntel-6-85-4:task-clock\n",
		  "(CPU model \"85-4\": expected a decimal number" },
		{ "SampleEventsFor=GenuineIntel-6:\n",
		  "t.conf:1: SampleEventsFor: invalid value \"GenuineIntel-6:\" (no event)" },
		{ "SampleEventsFor=GenuineIntel:task-clock,,cycles\n",
		  "t.conf:1: SampleEventsFor: invalid value \"GenuineIntel:task-clock,,cycles\" (expected event names separated by commas)" },
		{ "SampleEventsFor=GenuineIntel:task-clock,\n",
		  "(expected event names separated by commas)" },
		{ "SampleEventsFor=GenuineIntel:task-clock cycles\n",
		  "(expected event names separated by commas)" },
		{ "SampleEventsFor=GenuineIntel:a\nSampleEventsFor=genuineintel:b\n",
		  "t.conf:2: SampleEventsFor: invalid value \"genuineintel:b\" (a list for that CPU is on line 1 already: one per CPU)" },
		{ "SampleEvents=,task-clock\n",
		  "t.conf:1: SampleEvents: invalid value \",task-clock\" (expected event names separated by commas)" },
		{ "SampleEvents=task-clock;cycles\n",
		  "t.conf:1: SampleEvents: invalid value \"task-clock;cycles\"" },
		{ "SampleBackend=PAPY\n",
		  "t.conf:1: SampleBackend: invalid value \"PAPY\" (expected perf, papi, auto or test:/ABSOLUTE/FILE)" },
		{ "SampleBackend=papi:/x\n", "SampleBackend: invalid value \"papi:/x\"" },
		/* an error late in the file: nothing of it applies */
		{ "SampleEventsFor=GenuineIntel:a\nSampleEventsFor=Foo:b\n",
		  "t.conf:2: SampleEventsFor: invalid value \"Foo:b\"" },
	};
	char text[4096], want[128];
	int k = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_conf_t before;
		cosched_conf_init(&conf);
		before = conf;
		ck_assert_msg(cosched_conf_parse_string(&conf, "t.conf", bad[i].text, &err) == -1,
			      "accepted: %s", bad[i].text);
		ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL,
			      "\"%s\" lacks \"%s\"", err.msg, bad[i].msg);
		ck_assert_msg(!memcmp(&before, &conf, sizeof(conf)),
			      "half-applied: %s", bad[i].text);
	}
	/* at most COSCHED_SAMPLE_EVENTS_FOR_MAX CPUs */
	for (int m = 0; m <= COSCHED_SAMPLE_EVENTS_FOR_MAX; m++)
		k += snprintf(text + k, sizeof(text) - (size_t) k,
			      "SampleEventsFor=GenuineIntel-6-%d:cycles\n", m);
	cosched_conf_init(&conf);
	ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf", text, &err), -1);
	snprintf(want, sizeof(want), "t.conf:%d: SampleEventsFor: more than %d CPUs",
		 COSCHED_SAMPLE_EVENTS_FOR_MAX + 1, COSCHED_SAMPLE_EVENTS_FOR_MAX);
	ck_assert_str_eq(err.msg, want);
	ck_assert_int_eq(conf.n_sample_events_for, 0);
}
END_TEST

/* What a careless administrator wrote and cosched.conf used to take (or
 * refuse though cosched.conf(5) says names are case-insensitive). */
START_TEST(test_conf_slips)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "DebugFlags=,\n", "DebugFlags: invalid value \",\" (an empty flag" },
		{ "DebugFlags=Placement,,Check\n", "(an empty flag: expected flags separated by single commas)" },
		{ "DebugFlags=Check,\n", "an empty flag" },
		{ "SampleEvents=task-clock,cycles,task-clock\n",
		  "t.conf:1: SampleEvents: event \"task-clock\" given twice in \"task-clock,cycles,task-clock\"" },
		{ "SampleEventsFor=GenuineIntel:cycles,cycles\n", "event \"cycles\" given twice" },
		/* two names of one counter: the sampler would refuse it at
		 * every step */
		{ "SampleEvents=task-clock,instructions,PAPI_TOT_INS\n",
		  "t.conf:1: SampleEvents: \"instructions\" and \"PAPI_TOT_INS\" both count instructions in \"task-clock,instructions,PAPI_TOT_INS\": give one" },
		{ "SampleEvents=perf::LLC-LOAD-MISSES,PAPI_L3_TCM\n",
		  "SampleEvents: \"perf::LLC-LOAD-MISSES\" and \"PAPI_L3_TCM\" both count LLC-load-misses" },
		{ "SampleEventsFor=GenuineIntel:PAPI_TOT_CYC,cycles\n",
		  "t.conf:1: SampleEventsFor: \"PAPI_TOT_CYC\" and \"cycles\" both count cycles in \"GenuineIntel:PAPI_TOT_CYC,cycles\"" },
		{ "SampleEvents=e1,e2,e3,e4,e5,e6,e7,e8,e9,e10,e11,e12,e13,e14,e15,e16,e17\n",
		  "SampleEvents: 17 events in \"e1,e2," },
		{ "SysfsRoot=/x/%q\n", "SysfsRoot: invalid value \"/x/%q\" (%q: only %n, the node's name, is replaced)" },
		{ "SysfsRoot=/x/%\n", "(% : only %n" },
		{ "Topology=synthetic:garbage\n", "Topology: invalid value \"synthetic:garbage\"" },
		{ "Topology=synthetic:package:0 core:2\n", "invalid value" },
		{ "Topology=synthetic:[numa]\n", "invalid value" },
		{ "Topology=synthetic:package:2(x core:2\n", "invalid value" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_conf_init(&conf);
		ck_assert_msg(cosched_conf_parse_string(&conf, "t.conf", bad[i].text, &err) == -1,
			      "accepted: %s", bad[i].text);
		ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL,
			      "\"%s\" lacks \"%s\"", err.msg, bad[i].msg);
	}
	cosched_conf_init(&conf);
	ck_assert_msg(!cosched_conf_parse_string(&conf, "t.conf",
		"GangScope=NODE\nSampleBackend=PAPI\nSysfsRoot=/t/%n/x%n\n"
		"SampleEvents=e1,e2,e3,e4,e5,e6,e7,e8,e9,e10,e11,e12,e13,e14,e15,e16\n"
		"Topology=synthetic:package:2(indexes=0,1) [numa(memory=1GB)] l3:1 core:4 pu:2\n",
		&err), "%s", err.msg);
	ck_assert_int_eq(conf.scope, COSCHED_SCOPE_NODE);
	ck_assert_str_eq(conf.sample_backend, "papi");
	ck_assert_str_eq(conf.sysfs_root, "/t/%n/x%n");
	ck_assert_msg(!cosched_conf_parse_string(&conf, "t.conf",
		"SampleBackend=Test:/tmp/counts\n", &err), "%s", err.msg);
	ck_assert_str_eq(conf.sample_backend, "test:/tmp/counts");
}
END_TEST

/* One file, two readers: slurmctld refuses a wrong line anywhere; a node
 * skips a wrong line of a key only slurmctld uses, says which, and still
 * refuses a wrong line of its own. */
START_TEST(test_node_reader)
{
	char dir[64], path[128];
	cosched_error_t skipped;

	cosched_check_tmpdir(dir, sizeof(dir), "conf");
	snprintf(path, sizeof(path), "%s/cosched.conf", dir);
	cosched_check_write_file(path, "EnforceCores=no\nCoschedPolicy=app-aware\n"
				 "GangScope=rack\nGangScope=socket\n");
	cosched_conf_init(&conf);
	ck_assert_int_eq(cosched_conf_parse_file(&conf, path, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "CoschedPolicy"));
	ck_assert(conf.enforce_cores);			/* all or nothing */
	ck_assert_msg(!cosched_conf_parse_file_for(&conf, path,
			COSCHED_CONF_READER_NODE, &skipped, &err), "%s",
		      err.msg);
	ck_assert(!conf.enforce_cores);
	ck_assert_msg(strstr(skipped.msg, "cosched.conf:2: CoschedPolicy: invalid value \"app-aware\""),
		      "%s", skipped.msg);
	cosched_check_write_file(path, "EnforceCores=yess\nCoschedPolicy=gang\n");
	cosched_conf_init(&conf);
	ck_assert_int_eq(cosched_conf_parse_file_for(&conf, path,
			COSCHED_CONF_READER_NODE, &skipped, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "EnforceCores"));
	ck_assert_str_eq(skipped.msg, "");
	cosched_check_rm_rf(dir);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("conf_keys");
	TCase *tc = tcase_create("conf_keys");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_controller_keys);
	tcase_add_test(tc, test_node_keys);
	tcase_add_test(tc, test_sample_events_for);
	tcase_add_test(tc, test_sample_events_for_refusals);
	tcase_add_test(tc, test_conf_slips);
	tcase_add_test(tc, test_node_reader);
	suite_add_tcase(s, tc);
	return s;
}
