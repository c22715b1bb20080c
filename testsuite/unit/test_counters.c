/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_counters.c - event counters on a task tree (src/node/cosched_counters):
 * software events for real on this machine, attached to a task before it
 * runs, counting the threads and processes it starts later, live and at
 * the end; unavailable hardware events as a state; the test backend; the
 * names of every backend and their roles, and a program without PAPI
 * (this one) saying so.  The PAPI backend: test_counters_papi*.c.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sys/stat.h>

#include "cosched_check.h"
#include "counted_job.h"
#include "src/node/counters.h"
#include "src/node/cpuinfo.h"

static cosched_error_t err;

START_TEST(test_software_events_follow_the_tree)
{
	char names[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	uint64_t v[COSCHED_COUNTERS_MAX], live;
	bool valid[COSCHED_COUNTERS_MAX];
	cosched_counters_t *c;
	int go[2], out[2], n, status;
	char buf[64] = "";
	double did, u0;
	pid_t pid;

	ck_assert_int_eq(cosched_counters_parse("SampleEvents",
		"task-clock, context-switches", names, &n, &err), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(out), 0);
	pid = fork();
	if (!pid)
		counted_job_run(go[0], out[1]);
	/* Attached before the job runs, as slurmstepd does. */
	c = cosched_counters_attach(COSCHED_COUNTERS_PERF, pid, names, n, NULL,
				    &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	ck_assert_ptr_null(cosched_counters_unavailable(c, 0));
	u0 = counted_job_uncharged_s();
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	/* Live: while the job and its thread and child run, the reading
	 * grows past 0.1 s of CPU before the job ends.  Polled rather than
	 * read once after a fixed sleep: on a loaded machine the job may get
	 * less than half a CPU in any given 0.2 s. */
	for (int i = 0; i < 200; i++) {
		struct pollfd done = { .fd = out[0], .events = POLLIN };

		usleep(50000);
		ck_assert_int_eq(cosched_counters_read(c, v, valid, &err), 2);
		live = v[0];
		if (live > 100000000ull) {
			ck_assert_msg(poll(&done, 1, 0) == 0,
				      "the job ended before its reading grew");
			break;
		}
	}
	ck_assert_msg(live > 100000000ull, "task-clock %llu ns after 10 s",
		      (unsigned long long) live);
	ck_assert_int_gt(read(out[0], buf, sizeof(buf) - 1), 0);
	waitpid(pid, &status, 0);
	ck_assert_int_eq(cosched_counters_read(c, v, valid, &err), 2);
	did = atof(buf);
	/* The totals match what the job did (its own, its thread's and its
	 * child's CPU time, from rusage) within 5%, and above it the
	 * interrupt and stolen time that rusage leaves out (once 13% under
	 * CI's load). */
	ck_assert_msg(did > 0.7 && v[0] / 1e9 > did * 0.95 &&
		      v[0] / 1e9 < counted_job_clock_max(did,
				counted_job_uncharged_s() - u0),
		      "task-clock %.3f s, the job's CPU time %.3f s, %.3f s uncharged",
		      v[0] / 1e9, did, counted_job_uncharged_s() - u0);
	ck_assert_uint_gt(v[0], live);
	/* 50 sleeps at least: 50 context switches. */
	ck_assert_msg(valid[1] && v[1] >= 50, "context-switches %llu",
		      (unsigned long long) v[1]);
	cosched_counters_close(c);
}
END_TEST

START_TEST(test_hardware_events_are_a_state)
{
	char names[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	cosched_counters_t *c;
	const char *why;
	int n;

	ck_assert_int_eq(cosched_counters_parse("SampleEvents",
		"task-clock,instructions,LLC-load-misses", names, &n, &err), 0);
	c = cosched_counters_attach(COSCHED_COUNTERS_PERF, getpid(), names, n,
				    NULL, &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	ck_assert_ptr_null(cosched_counters_unavailable(c, 0));
	why = cosched_counters_unavailable(c, 1);
	if (why) {
		/* This machine has no PMU: a reason, naming the
		 * event, and the software event still counts. */
		ck_assert_msg(strstr(why, "instructions: no hardware counters here"),
			      "%s", why);
		cosched_counters_close(c);
		ck_assert_int_eq(cosched_counters_parse("SampleEvents",
			"instructions,cycles", names, &n, &err), 0);
		ck_assert_ptr_null(cosched_counters_attach(COSCHED_COUNTERS_PERF,
			getpid(), names, n, NULL, &err));
		ck_assert_msg(strstr(err.msg, "counters unavailable: instructions: no hardware counters here")
			      && strstr(err.msg, "; cycles:"), "%s", err.msg);
	} else {
		cosched_counters_close(c);
	}
}
END_TEST

START_TEST(test_parse_refusals)
{
	char names[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	int n = 0;

	ck_assert_int_eq(cosched_counters_parse("SampleEvents", "cycles,bogus",
						names, &n, &err), -1);
	ck_assert_msg(strstr(err.msg, "SampleEvents: unknown event \"bogus\""),
		      "%s", err.msg);
	ck_assert_int_eq(cosched_counters_parse("SampleEvents",
						"cycles, cycles", names, &n,
						&err), -1);
	ck_assert_msg(strstr(err.msg, "event \"cycles\" given twice"), "%s",
		      err.msg);
	ck_assert_int_eq(cosched_counters_parse("SampleEvents", ",", names, &n,
						&err), -1);
	ck_assert_msg(strstr(err.msg, "SampleEvents: no event"), "%s", err.msg);
}
END_TEST

START_TEST(test_test_backend)
{
	char names[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	char path[] = "/tmp/cosched-counters-XXXXXX";
	uint64_t v[COSCHED_COUNTERS_MAX];
	bool valid[COSCHED_COUNTERS_MAX];
	cosched_counters_t *c;
	int fd = mkstemp(path), n;
	const char *text = "instructions 2000000\nLLC-load-misses 30000\n";

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int) strlen(text));
	close(fd);
	ck_assert_int_eq(cosched_counters_parse("SampleEvents",
		"instructions,LLC-load-misses,cycles", names, &n, &err), 0);
	ck_assert_ptr_null(cosched_counters_attach(COSCHED_COUNTERS_TEST, 1,
						   names, n, NULL, &err));
	c = cosched_counters_attach(COSCHED_COUNTERS_TEST, 1, names, n, path,
				    &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	ck_assert_int_eq(cosched_counters_read(c, v, valid, &err), 2);
	ck_assert(valid[0] && valid[1] && !valid[2]);
	ck_assert_uint_eq(v[0], 2000000);
	ck_assert_uint_eq(v[1], 30000);
	unlink(path);
	ck_assert_int_eq(cosched_counters_read(c, v, valid, &err), -1);
	ck_assert_msg(strstr(err.msg, path), "%s", err.msg);
	cosched_counters_close(c);
}
END_TEST

/* perf::NAME is PAPI's name of one of perf's events: perf counts it as
 * that event (any case), names it as written, and gives it the event's
 * role; a PAPI-only name is a state naming it. */
START_TEST(test_perf_counts_papi_aliases)
{
	char names[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	uint64_t v[COSCHED_COUNTERS_MAX];
	bool valid[COSCHED_COUNTERS_MAX];
	cosched_counters_t *c;
	int n;

	ck_assert_int_eq(cosched_counters_parse("SampleEvents",
		"perf::TASK-CLOCK,perf::page-faults,PAPI_TOT_INS,amd64_fam19h_zen4::RETIRED_INSTRUCTIONS",
		names, &n, &err), 0);
	ck_assert_int_eq(n, 4);
	c = cosched_counters_attach(COSCHED_COUNTERS_PERF, getpid(), names, n,
				    NULL, &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	ck_assert_ptr_null(cosched_counters_unavailable(c, 0));
	ck_assert_ptr_null(cosched_counters_unavailable(c, 1));
	ck_assert_str_eq(cosched_counters_name(c, 0), "perf::TASK-CLOCK");
	ck_assert_str_eq(cosched_counters_unavailable(c, 2),
		"PAPI_TOT_INS: a PAPI event: the perf backend does not count it (SampleBackend=papi)");
	ck_assert_str_eq(cosched_counters_unavailable(c, 3),
		"amd64_fam19h_zen4::RETIRED_INSTRUCTIONS: a PAPI event: the perf backend does not count it (SampleBackend=papi)");
	counted_job_spin(0.05);
	ck_assert_int_eq(cosched_counters_read(c, v, valid, &err), 2);
	ck_assert_msg(valid[0] && v[0] >= 40000000ull, "task-clock %llu",
		      (unsigned long long) v[0]);
	ck_assert(!valid[2] && !valid[3]);
	cosched_counters_close(c);
}
END_TEST

START_TEST(test_names_and_roles)
{
	char names[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	char long_name[COSCHED_COUNTER_NAME_MAX + 16];
	static const struct {
		const char *list, *msg;
	} refused[] = {
		/* not PAPI's forms either */
		{ "PAPI_tot_ins", "unknown event \"PAPI_tot_ins\"" },
		{ "PAPI_", "unknown event \"PAPI_\"" },
		{ "::TASK-CLOCK", "unknown event \"::TASK-CLOCK\"" },
		{ "perf::", "unknown event \"perf::\"" },
		{ "perf::TASK CLOCK", "unknown event \"perf::TASK CLOCK\"" },
		{ "Instructions", "unknown event \"Instructions\"" },
		/* one thing counted twice: which would MPKI take? */
		{ "instructions,PAPI_TOT_INS",
		  "instructions and \"PAPI_TOT_INS\" both count instructions" },
		{ "task-clock,perf::task-clock",
		  "task-clock and \"perf::task-clock\" both count task-clock" },
		{ "PAPI_L3_TCM,perf::LLC-LOAD-MISSES",
		  "PAPI_L3_TCM and \"perf::LLC-LOAD-MISSES\" both count LLC-load-misses" },
	};
	int n;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		ck_assert_int_eq(cosched_counters_parse("SampleEvents",
			refused[i].list, names, &n, &err), -1);
		ck_assert_msg(!strncmp(err.msg, "SampleEvents: ", 14) &&
			      strstr(err.msg, refused[i].msg), "%s: %s",
			      refused[i].list, err.msg);
	}
	memset(long_name, 'A', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	memcpy(long_name, "pmu::", 5);
	ck_assert_int_eq(cosched_counters_parse("SampleEvents", long_name,
						names, &n, &err), -1);
	ck_assert_msg(strstr(err.msg, "is longer than 127 characters"), "%s",
		      err.msg);
	ck_assert_int_eq(cosched_counters_parse("SampleEvents",
		"PAPI_TOT_CYC,perf::TASK-CLOCK:u=0,skx::OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS,PAPI_L3_LDM",
		names, &n, &err), 0);
	ck_assert_int_eq(n, 4);
	ck_assert_str_eq(names[2], "skx::OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS");
	/* The roles the sampler derives from, whatever the backend. */
	ck_assert_str_eq(cosched_counters_role("instructions"), "instructions");
	ck_assert_str_eq(cosched_counters_role("PAPI_TOT_INS"), "instructions");
	ck_assert_str_eq(cosched_counters_role("perf::INSTRUCTIONS"),
			 "instructions");
	ck_assert_str_eq(cosched_counters_role("PAPI_TOT_CYC"), "cycles");
	ck_assert_str_eq(cosched_counters_role("PAPI_L3_TCM"),
			 "LLC-load-misses");
	ck_assert_str_eq(cosched_counters_role("PAPI_L3_LDM"),
			 "LLC-load-misses");
	ck_assert_str_eq(cosched_counters_role("perf::llc-load-misses"),
			 "LLC-load-misses");
	ck_assert_str_eq(cosched_counters_role("perf::TASK-CLOCK"),
			 "task-clock");
	/* A modifier makes it another count (user time only). */
	ck_assert_ptr_null(cosched_counters_role("perf::TASK-CLOCK:u=0"));
	ck_assert_ptr_null(cosched_counters_role("PAPI_L1_DCM"));
	ck_assert_ptr_null(cosched_counters_role("bogus"));
}
END_TEST

/* SampleBackend's values; this program has no PAPI backend linked in, as
 * task/cosched has none: papi says so, auto takes perf and says why. */
START_TEST(test_backend_values)
{
	cosched_counters_backend_t b;
	const char *file = "x";
	char what[COSCHED_ERROR_MSG_LEN + 16];
	char names[1][COSCHED_COUNTER_NAME_MAX + 1] = { "task-clock" };

	ck_assert_int_eq(cosched_counters_backend_parse("perf", &b, &file,
		what, sizeof(what), &err), 0);
	ck_assert(b == COSCHED_COUNTERS_PERF && !file);
	ck_assert_str_eq(what, "perf");
	ck_assert_int_eq(cosched_counters_backend_parse("test:/t/c", &b, &file,
		what, sizeof(what), &err), 0);
	ck_assert(b == COSCHED_COUNTERS_TEST);
	ck_assert_str_eq(file, "/t/c");
	ck_assert_int_eq(cosched_counters_backend_parse("auto", &b, &file,
		what, sizeof(what), &err), 0);
	ck_assert(b == COSCHED_COUNTERS_PERF);
	ck_assert_str_eq(what, "perf (auto: this program was built without PAPI)");
	/* papi is taken: each attach then says why nothing counts. */
	ck_assert_int_eq(cosched_counters_backend_parse("papi", &b, &file,
		what, sizeof(what), &err), 0);
	ck_assert(b == COSCHED_COUNTERS_PAPI);
	ck_assert_str_eq(what, "papi (this program was built without PAPI)");
	ck_assert_ptr_null(cosched_counters_attach(COSCHED_COUNTERS_PAPI,
		getpid(), names, 1, NULL, &err));
	ck_assert_str_eq(err.msg, "counters unavailable: this program was built without PAPI");
	ck_assert_int_eq(cosched_counters_backend_parse("PAPI", &b, &file,
		what, sizeof(what), &err), -1);
	ck_assert_str_eq(err.msg, "\"PAPI\": expected perf, papi, auto or test:FILE");
	ck_assert_int_eq(cosched_counters_backend_parse("test:", &b, &file,
		what, sizeof(what), &err), -1);
}
END_TEST

/* A fake node root holding proc/cpuinfo with text (NULL: no file). */
static void fake_cpuinfo(char *root, const char *text)
{
	char path[512];
	FILE *f;

	strcpy(root, "/tmp/cosched-cpuinfo-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	if (!text)
		return;
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void fake_cpuinfo_remove(const char *root)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", root);
	rmdir(path);
	rmdir(root);
}

/*
 * The node's CPU from ROOT/proc/cpuinfo (the first processor's block,
 * "model name" not taken for "model"), and the event list cosched.conf
 * gives it; without a vendor_id (not x86) or without the file,
 * SampleEvents, saying why; no file read without SampleEventsFor.
 */
START_TEST(test_cpuinfo_picks_the_list)
{
	static const char intel[] =
		"processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
		"model\t\t: 143\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n"
		"flags\t\t: fpu vme de pse\n\n"
		"processor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
		"model\t\t: 17\n\n";
	static const char arm[] =
		"processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n"
		"CPU architecture: 8\nCPU part\t: 0xd0c\n\n";
	cosched_cpuinfo_t ci;
	cosched_conf_t conf;
	char root[64], which[COSCHED_ERROR_MSG_LEN + 64];

	cosched_conf_init(&conf);
	ck_assert_int_eq(cosched_conf_parse_string(&conf, "t.conf",
		"SampleEvents=task-clock\n"
		"SampleEventsFor=GenuineIntel-6:task-clock,PAPI_TOT_INS\n"
		"SampleEventsFor=GenuineIntel-6-143:task-clock,instructions\n",
		&err), 0);

	fake_cpuinfo(root, intel);
	ck_assert_int_eq(cosched_cpuinfo_read(root, &ci, &err), 0);
	ck_assert_str_eq(ci.vendor, "GenuineIntel");
	ck_assert_int_eq(ci.family, 6);
	ck_assert_int_eq(ci.model, 143);
	ck_assert_str_eq(cosched_cpuinfo_sample_events(&conf, root, which,
		sizeof(which)), "task-clock,instructions");
	ck_assert_str_eq(which, "SampleEventsFor=GenuineIntel-6-143");
	fake_cpuinfo_remove(root);

	fake_cpuinfo(root, arm);
	ck_assert_int_eq(cosched_cpuinfo_read(root, &ci, &err), -1);
	ck_assert_msg(strstr(err.msg, "/proc/cpuinfo names no vendor_id"),
		      "%s", err.msg);
	ck_assert_str_eq(cosched_cpuinfo_sample_events(&conf, root, which,
		sizeof(which)), "task-clock");
	ck_assert_msg(!strncmp(which, "SampleEvents (/tmp/cosched-cpuinfo-",
			       strlen("SampleEvents (/tmp/cosched-cpuinfo-")) &&
		      strstr(which, "/proc/cpuinfo names no vendor_id)"), "%s",
		      which);
	fake_cpuinfo_remove(root);

	fake_cpuinfo(root, NULL);
	ck_assert_str_eq(cosched_cpuinfo_sample_events(&conf, root, which,
		sizeof(which)), "task-clock");
	ck_assert_msg(strstr(which, "/proc/cpuinfo: cannot open: No such file or directory)"),
		      "%s", which);
	/* Without SampleEventsFor no file is read (none here). */
	cosched_conf_init(&conf);
	ck_assert_str_eq(cosched_cpuinfo_sample_events(&conf, root, which,
		sizeof(which)), COSCHED_SAMPLE_EVENTS_DEFAULT);
	ck_assert_str_eq(which, "SampleEvents");
	fake_cpuinfo_remove(root);

#if defined(__x86_64__) || defined(__i386__)
	/* This machine, "/" with and without a trailing slash. */
	ck_assert_int_eq(cosched_cpuinfo_read("/", &ci, &err), 0);
	ck_assert_msg(ci.vendor[0] && ci.family > 0 && ci.model >= 0,
		      "%s %ld %ld", ci.vendor, ci.family, ci.model);
#endif
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("counters");
	TCase *tc = tcase_create("counters");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_software_events_follow_the_tree);
	tcase_add_test(tc, test_hardware_events_are_a_state);
	tcase_add_test(tc, test_parse_refusals);
	tcase_add_test(tc, test_test_backend);
	tcase_add_test(tc, test_perf_counts_papi_aliases);
	tcase_add_test(tc, test_names_and_roles);
	tcase_add_test(tc, test_backend_values);
	tcase_add_test(tc, test_cpuinfo_picks_the_list);
	suite_add_tcase(s, tc);
	return s;
}
