/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_counters_papi.c - the PAPI backend of the counters
 * (src/node/counters_papi.c) with this machine's real libpapi:
 * what it says it can do matches what the machine has, and where it
 * cannot attach, an attach is a state with the reason, never a crash.
 * Its counting itself: test_counters_papi_attach.c, which skips where
 * PAPI cannot attach.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cosched_check.h"
#include "src/node/counters.h"

static cosched_error_t err;

/* Can this process count a hardware instructions counter on itself?
 * That is what PAPI 7.0's perf_event component opens to check whether
 * it may attach (src/node/counters_papi.c). */
static bool hardware_instructions(int *why)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_hv = 1;
	fd = (int) syscall(SYS_perf_event_open, &a, getpid(), -1, -1,
			   PERF_FLAG_FD_CLOEXEC);
	*why = errno;
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * auto takes papi exactly where PAPI can attach.  Where the machine has
 * no hardware instructions counter, PAPI cannot attach even for software
 * events, and auto says so in those words; where it has one, auto takes
 * papi unless PAPI's perf_event component is disabled (which it says).
 */
START_TEST(test_auto_matches_the_machine)
{
	cosched_counters_backend_t b;
	const char *file;
	char what[COSCHED_ERROR_MSG_LEN + 16];
	int errno_hw;
	bool hw = hardware_instructions(&errno_hw);

	ck_assert_int_eq(cosched_counters_backend_parse("auto", &b, &file,
		what, sizeof(what), &err), 0);
	if (strstr(what, "PAPI's perf_event component is disabled")) {
		ck_assert(b == COSCHED_COUNTERS_PERF);
		fprintf(stderr, "test_auto_matches_the_machine: %s\n", what);
		return;
	}
	if (hw) {
		ck_assert_msg(b == COSCHED_COUNTERS_PAPI, "%s", what);
		ck_assert_str_eq(what, "papi");
	} else {
		ck_assert_msg(errno_hw == ENOENT || errno_hw == EOPNOTSUPP ||
			      errno_hw == ENODEV, "perf_event_open: %s",
			      strerror(errno_hw));
		ck_assert(b == COSCHED_COUNTERS_PERF);
		ck_assert_str_eq(what,
			"perf (auto: PAPI cannot attach to a task here: PAPI_attach: Event does not exist (PAPI's perf_event component checks with a hardware instructions counter: none here))");
	}
	/* papi is taken as asked, whether or not it can attach. */
	ck_assert_int_eq(cosched_counters_backend_parse("papi", &b, &file,
		what, sizeof(what), &err), 0);
	ck_assert(b == COSCHED_COUNTERS_PAPI && !file);
	ck_assert_str_eq(what, "papi");
}
END_TEST

/*
 * An attach PAPI cannot make names the task and the call, and returns
 * nothing to read; the task runs on untouched.  Where PAPI can attach,
 * the same attach works (its counts: test_counters_papi_attach.c).
 */
START_TEST(test_attach_refused_is_a_state)
{
	char names[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	char want[128];
	cosched_counters_t *c;
	int go[2], n, status, errno_hw;
	pid_t pid;

	ck_assert_int_eq(cosched_counters_parse("SampleEvents",
		"perf::TASK-CLOCK,context-switches,PAPI_TOT_INS", names, &n,
		&err), 0);
	ck_assert_int_eq(pipe(go), 0);
	pid = fork();
	if (!pid) {
		char x;
		_exit(read(go[0], &x, 1) == 1 ? 7 : 1);
	}
	c = cosched_counters_attach(COSCHED_COUNTERS_PAPI, pid, names, n, NULL,
				    &err);
	if (!c && !strncmp(err.msg, "counters unavailable: PAPI's perf_event component is disabled: ", 63)) {
		/* A PAPI that knows no PMU of this CPU: no counting at all. */
		fprintf(stderr, "test_attach_refused_is_a_state: %s\n",
			err.msg);
	} else if (hardware_instructions(&errno_hw)) {
		ck_assert_msg(c != NULL, "%s", err.msg);
	} else {
		ck_assert_ptr_null(c);
		snprintf(want, sizeof(want),
			 "counters unavailable: PAPI cannot attach to task %d: PAPI_attach: Event does not exist (",
			 (int) pid);
		ck_assert_msg(!strncmp(err.msg, want, strlen(want)), "%s",
			      err.msg);
	}
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	cosched_counters_close(c);
	close(go[0]);
	close(go[1]);
}
END_TEST

/* No task: PAPI's refusal, not a crash, whatever the machine. */
START_TEST(test_attach_to_no_task)
{
	char names[1][COSCHED_COUNTER_NAME_MAX + 1] = { "perf::TASK-CLOCK" };
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	ck_assert_ptr_null(cosched_counters_attach(COSCHED_COUNTERS_PAPI, pid,
						   names, 1, NULL, &err));
	ck_assert_msg(!strncmp(err.msg, "counters unavailable: PAPI", 26),
		      "%s", err.msg);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("counters_papi");
	TCase *tc = tcase_create("papi");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_auto_matches_the_machine);
	tcase_add_test(tc, test_attach_refused_is_a_state);
	tcase_add_test(tc, test_attach_to_no_task);
	suite_add_tcase(s, tc);
	return s;
}
