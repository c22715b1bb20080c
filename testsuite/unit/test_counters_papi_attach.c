/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_counters_papi_attach.c - counting through PAPI for real
 * (src/node/counters_papi.c): software events attached to a task
 * before it runs, counting the threads and processes it starts later,
 * live and at the end; two tasks at once; events PAPI cannot count as a
 * state; PAPI's presets in the roles the sampler derives from.
 *
 * Skipped, saying why, where PAPI cannot attach to a task: PAPI 7.0's
 * perf_event component cannot on a machine without a PMU (most VMs,
 * this project's development machines included), even for software
 * events.  test_counters_papi.c checks that claim against the machine.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cosched_check.h"
#include "counted_job.h"
#include "src/node/counters.h"

static cosched_error_t err;

typedef struct {
	pid_t pid;
	int go, out;
} job_t;

static void job_start(job_t *j)
{
	int go[2], out[2];

	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(out), 0);
	j->pid = fork();
	ck_assert_int_ge(j->pid, 0);
	if (!j->pid)
		counted_job_run(go[0], out[1]);
	close(go[0]);
	close(out[1]);
	j->go = go[1];
	j->out = out[0];
}

/* Wait for the job; its CPU time (self, thread and child) by rusage. */
static double job_end(job_t *j)
{
	char buf[64] = "";
	int status;

	ck_assert_int_gt(read(j->out, buf, sizeof(buf) - 1), 0);
	ck_assert_int_eq(waitpid(j->pid, &status, 0), j->pid);
	ck_assert(WIFEXITED(status) && !WEXITSTATUS(status));
	close(j->go);
	close(j->out);
	return atof(buf);
}

/* The perf backend's test (test_counters.c), through PAPI: a native
 * name and one of perf's, which PAPI counts as perf::CONTEXT-SWITCHES. */
START_TEST(test_software_events_follow_the_tree)
{
	char names[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	uint64_t v[COSCHED_COUNTERS_MAX], live;
	bool valid[COSCHED_COUNTERS_MAX];
	cosched_counters_t *c;
	double did, u0;
	job_t j;
	int n;

	ck_assert_int_eq(cosched_counters_parse("SampleEvents",
		"perf::TASK-CLOCK,context-switches", names, &n, &err), 0);
	job_start(&j);
	/* Attached before the job runs, as slurmstepd does. */
	c = cosched_counters_attach(COSCHED_COUNTERS_PAPI, j.pid, names, n,
				    NULL, &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	ck_assert_ptr_null(cosched_counters_unavailable(c, 0));
	ck_assert_ptr_null(cosched_counters_unavailable(c, 1));
	u0 = counted_job_uncharged_s();
	ck_assert_int_eq(write(j.go, "g", 1), 1);
	/* Live: while the job and its thread and child run, the reading
	 * grows and already holds more than the job's own thread could. */
	usleep(200000);
	ck_assert_int_eq(cosched_counters_read(c, v, valid, &err), 2);
	live = v[0];
	ck_assert_msg(live > 100000000ull, "task-clock %llu ns after 0.2 s",
		      (unsigned long long) live);
	did = job_end(&j);
	ck_assert_int_eq(cosched_counters_read(c, v, valid, &err), 2);
	/* The totals match what the job did within 5%, and above it the
	 * interrupt and stolen time that rusage leaves out. */
	ck_assert_msg(did > 0.7 && v[0] / 1e9 > did * 0.95 &&
		      v[0] / 1e9 < counted_job_clock_max(did,
				counted_job_uncharged_s() - u0),
		      "task-clock %.3f s, the job's CPU time %.3f s, %.3f s uncharged",
		      v[0] / 1e9, did, counted_job_uncharged_s() - u0);
	ck_assert_uint_gt(v[0], live);
	ck_assert_msg(valid[1] && v[1] >= 50, "context-switches %llu",
		      (unsigned long long) v[1]);
	cosched_counters_close(c);
}
END_TEST

/* Two tasks attached at once (a step of two tasks): each its own event
 * set, each counting its own tree. */
START_TEST(test_two_tasks_at_once)
{
	char names[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	uint64_t v[COSCHED_COUNTERS_MAX];
	bool valid[COSCHED_COUNTERS_MAX];
	cosched_counters_t *c[2];
	double did[2], u0;
	job_t j[2];
	int n;

	ck_assert_int_eq(cosched_counters_parse("SampleEvents", "task-clock",
						names, &n, &err), 0);
	for (int k = 0; k < 2; k++) {
		job_start(&j[k]);
		c[k] = cosched_counters_attach(COSCHED_COUNTERS_PAPI, j[k].pid,
					       names, n, NULL, &err);
		ck_assert_msg(c[k] != NULL, "%s", err.msg);
	}
	u0 = counted_job_uncharged_s();
	for (int k = 0; k < 2; k++)
		ck_assert_int_eq(write(j[k].go, "g", 1), 1);
	for (int k = 0; k < 2; k++)
		did[k] = job_end(&j[k]);
	u0 = counted_job_uncharged_s() - u0;
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(cosched_counters_read(c[k], v, valid, &err), 1);
		ck_assert_msg(v[0] / 1e9 > did[k] * 0.95 &&
			      v[0] / 1e9 < counted_job_clock_max(did[k], u0),
			      "task %d: task-clock %.3f s, its CPU time %.3f s, %.3f s uncharged",
			      k, v[0] / 1e9, did[k], u0);
		cosched_counters_close(c[k]);
	}
}
END_TEST

/*
 * What PAPI cannot count here is a state naming the event, and the rest
 * counts: a native name PAPI does not know; a preset, which counts where
 * the CPU has it (and then in the role the sampler derives from).
 */
START_TEST(test_what_papi_cannot_count_is_a_state)
{
	char names[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	uint64_t v[COSCHED_COUNTERS_MAX];
	bool valid[COSCHED_COUNTERS_MAX];
	cosched_counters_t *c;
	const char *why;
	int n;

	ck_assert_int_eq(cosched_counters_parse("SampleEvents",
		"task-clock,perf::NO-SUCH-EVENT,PAPI_TOT_INS", names, &n,
		&err), 0);
	c = cosched_counters_attach(COSCHED_COUNTERS_PAPI, getpid(), names, n,
				    NULL, &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	ck_assert_ptr_null(cosched_counters_unavailable(c, 0));
	why = cosched_counters_unavailable(c, 1);
	ck_assert_msg(why && !strncmp(why,
		"perf::NO-SUCH-EVENT: PAPI has no such event (perf::NO-SUCH-EVENT: ",
		66), "%s", why ? why : "(counts)");
	why = cosched_counters_unavailable(c, 2);
	if (why)
		ck_assert_msg(!strncmp(why, "PAPI_TOT_INS: no such counter on this CPU", 41) ||
			      !strncmp(why, "PAPI_TOT_INS: no hardware counters here", 39),
			      "%s", why);
	counted_job_spin(0.1);
	ck_assert_int_eq(cosched_counters_read(c, v, valid, &err), why ? 1 : 2);
	ck_assert(valid[0] && v[0] > 50000000ull && !valid[1]);
	if (!why)
		ck_assert_uint_gt(v[2], 1000000);	/* instructions */
	cosched_counters_close(c);

	/* Nothing that counts: every event's reason, and no attach. */
	ck_assert_int_eq(cosched_counters_parse("SampleEvents",
		"perf::NO-SUCH-EVENT,perf::NOR-THIS-ONE", names, &n, &err), 0);
	ck_assert_ptr_null(cosched_counters_attach(COSCHED_COUNTERS_PAPI,
		getpid(), names, n, NULL, &err));
	ck_assert_msg(strstr(err.msg, "counters unavailable: perf::NO-SUCH-EVENT: PAPI has no such event") &&
		      strstr(err.msg, "; perf::NOR-THIS-ONE: "), "%s", err.msg);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("counters_papi_attach");
	TCase *tc = tcase_create("papi_attach");
	cosched_counters_backend_t b;
	const char *file;
	char what[COSCHED_ERROR_MSG_LEN + 16];

	/* auto's own check: what every attach does, on this process. */
	if (cosched_counters_backend_parse("auto", &b, &file, what,
					   sizeof(what), &err) ||
	    b != COSCHED_COUNTERS_PAPI)
		cosched_check_skip_all("PAPI cannot count tasks here: %s", what);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_software_events_follow_the_tree);
	tcase_add_test(tc, test_two_tasks_at_once);
	tcase_add_test(tc, test_what_papi_cannot_count_is_a_state);
	suite_add_tcase(s, tc);
	return s;
}
