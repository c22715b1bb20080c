/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_task_stopped.c - whether a step's task is stopped as Slurm leaves
 * it suspended (src/node/task_stopped.h): by signal, and in a frozen
 * cgroup of this machine's own freezer, v1 and v2, where it has them (a
 * test root's /sys/fs/cgroup may not: those cases say so and pass).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cosched_check.h"
#include "src/node/task_stopped.h"

/* A process stopped by SIGSTOP is stopped; running again, it is not; a
 * process gone is not. */
START_TEST(t_task_stopped)
{
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		for (;;)
			pause();
	}
	ck_assert(!cosched_task_stopped(pid, "/sys/fs/cgroup"));
	ck_assert_int_eq(kill(pid, SIGSTOP), 0);
	ck_assert_int_eq(waitpid(pid, &st, WUNTRACED), pid);
	ck_assert(cosched_task_stopped(pid, "/sys/fs/cgroup"));
	ck_assert_int_eq(kill(pid, SIGCONT), 0);
	ck_assert_int_eq(waitpid(pid, &st, WCONTINUED), pid);
	ck_assert(!cosched_task_stopped(pid, "/sys/fs/cgroup"));
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ck_assert(!cosched_task_stopped(pid, "/sys/fs/cgroup"));
}
END_TEST

/* A child that waits to be killed. */
static pid_t idle_child(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		for (;;)
			pause();
	}
	return pid;
}

static int write_text(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	rc = fputs(text, f) < 0;
	return fclose(f) || rc ? -1 : 0;
}

/* Wait up to 2 s for the kernel to settle the freeze. */
static bool stopped_within(pid_t pid, const char *root, bool want)
{
	for (int i = 0; i < 200; i++) {
		if (cosched_task_stopped(pid, root) == want)
			return true;
		nanosleep(&(struct timespec) { 0, 10000000 }, NULL);
	}
	return false;
}

/*
 * A task frozen by its cgroup (what proctrack/cgroup does to a suspended
 * step): its state stays S or D, and it is stopped while frozen, not
 * after.  root: where the hierarchy that holds the freezer is mounted as
 * the sampler finds it; dir, a new cgroup in it; freeze and thaw, what
 * the freezer's file takes.
 */
static void frozen_case(const char *what, const char *root,
			const char *mount, const char *file,
			const char *freeze, const char *thaw)
{
	char dir[256], pidtext[32];
	pid_t pid;
	int st;

	snprintf(dir, sizeof(dir), "%s/cosched-test-%d", mount, (int) getpid());
	if (mkdir(dir, 0755)) {
		printf("SKIP: %s: %s: %s (no writable freezer here)\n", what,
		       dir, strerror(errno));
		return;
	}
	pid = idle_child();
	snprintf(pidtext, sizeof(pidtext), "%d", (int) pid);
	ck_assert_msg(!write_text(dir, "cgroup.procs", pidtext), "%s: %s",
		      what, strerror(errno));
	ck_assert(!cosched_task_stopped(pid, root));
	ck_assert_msg(!write_text(dir, file, freeze), "%s: %s", what,
		      strerror(errno));
	ck_assert_msg(stopped_within(pid, root, true), "%s: not seen frozen",
		      what);
	ck_assert_msg(!write_text(dir, file, thaw), "%s: %s", what,
		      strerror(errno));
	ck_assert_msg(stopped_within(pid, root, false), "%s: still frozen",
		      what);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ck_assert_int_eq(rmdir(dir), 0);
}

START_TEST(t_task_frozen_v1)
{
	frozen_case("cgroup v1 freezer", "/sys/fs/cgroup",
		    "/sys/fs/cgroup/freezer", "freezer.state", "FROZEN",
		    "THAWED");
}
END_TEST

/* The unified hierarchy: mounted at /sys/fs/cgroup on a cgroup v2 node,
 * at /sys/fs/cgroup/unified beside v1 (where Slurm freezes by v1). */
START_TEST(t_task_frozen_v2)
{
	struct stat sb;
	const char *root = !stat("/sys/fs/cgroup/cgroup.controllers", &sb) ?
			   "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";

	frozen_case("cgroup v2 freezer", root, root, "cgroup.freeze", "1",
		    "0");
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("task_stopped");
	TCase *tc = tcase_create("task_stopped");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_task_stopped);
	tcase_add_test(tc, t_task_frozen_v1);
	tcase_add_test(tc, t_task_frozen_v2);
	suite_add_tcase(s, tc);
	return s;
}
