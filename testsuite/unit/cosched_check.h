/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_check.h - what every Check test program shares
 * (testsuite/unit/cosched_check.c).
 *
 * Each test program defines cosched_test_suite(); the one main() in
 * cosched_check.c runs it.  Tests that need a process of their own (to
 * drop privileges, or to survive a call that would hang) use
 * cosched_child_run(); tests of code that reads and writes files make
 * their scratch directories, files and fake sysfs trees with the helpers
 * at the end.
 */
#ifndef COSCHED_CHECK_H
#define COSCHED_CHECK_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The suite of this test program (each test file defines it). */
Suite *cosched_test_suite(void);

/* The body of a child process: its return value is the exit status. */
typedef int (*cosched_child_fn)(void *arg);

/* When root, the child drops to uid and gid 65534 ("nobody") before fn,
 * so that permission bits bind it as they bind an unprivileged user. */
#define COSCHED_CHILD_AS_NOBODY 1u

/*
 * Start fn(arg) in a child process that exits with fn's return value.
 * timeout_s > 0: the child is killed by SIGALRM after that many seconds,
 * so a call that hangs shows up as a failure, not as a hung test.
 */
pid_t cosched_child_start(cosched_child_fn fn, void *arg, unsigned flags,
			  unsigned timeout_s);

/* Wait for a child of cosched_child_start() and fail the test (naming
 * what) unless it exited with status 0. */
void cosched_child_wait(pid_t pid, const char *what);

/* Both: run fn(arg) in a child and require exit status 0. */
void cosched_child_run(const char *what, cosched_child_fn fn, void *arg,
		       unsigned flags, unsigned timeout_s);

/*
 * For a program none of whose tests can run on this machine (a library
 * that cannot do here what they test): print "SKIP: " and the reason,
 * and exit 77, which automake's test driver reports as SKIP, the reason
 * in the program's .log.  Call it from cosched_test_suite(), before any
 * test runs.
 */
void cosched_check_skip_all(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/*
 * A document of the source tree (path relative to $srcdir, which the test
 * harness sets), as text with the roff escapes its man pages use undone
 * (\- is '-', \e is a backslash); caller frees.  Fails the test when it
 * cannot be read.
 */
char *cosched_check_read_doc(const char *relpath);

/* ---- scratch files ------------------------------------------------------ */

/* Run a shell command (printf format) with /bin/sh; fail the test unless
 * it exits 0. */
void cosched_check_sh(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Make a new, empty directory /tmp/cosched-NAME-XXXXXX and put its path
 * in dir (len bytes); fail the test when it cannot. */
void cosched_check_tmpdir(char *dir, size_t len, const char *name);

/* Remove path and everything under it (rm -rf); fail the test when it
 * cannot. */
void cosched_check_rm_rf(const char *path);

/* Write text into path (created, or emptied first); fail the test, naming
 * the path, on any error, the closing included. */
void cosched_check_write_file(const char *path, const char *text);

/* The text of path, its first 64 KiB, in a buffer the next call reuses;
 * fail the test, naming the path, when it cannot be read. */
char *cosched_check_read_file(const char *path);

/*
 * A fake sysfs tree made by one of the generators the cluster tests use
 * too (contribs/loopback/cosched_loopback/fake_cpufreq.py, fake_powercap.py): a new
 * directory /tmp/cosched-NAME-XXXXXX (top) and in it root/, the tree's
 * SysfsRoot, made by `python3 GENERATOR create ROOT ARGS`.  Free removes
 * top and all in it.
 */
typedef struct {
	char top[256];
	char root[300];
} cosched_check_tree_t;

void cosched_check_tree_make(cosched_check_tree_t *t, const char *name,
			     const char *generator, const char *args);
void cosched_check_tree_free(const cosched_check_tree_t *t);

#endif
