/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cosched_check.c - the one main() of the unit test programs and their
 * helpers: child processes, documents, scratch files (cosched_check.h). */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cosched_check.h"

#ifndef COSCHED_PYTHON3
#define COSCHED_PYTHON3 "python3"
#endif

/* Run every test of s; EXIT_SUCCESS when none failed. */
static int cosched_check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(void)
{
	return cosched_check_run(cosched_test_suite());
}

pid_t cosched_child_start(cosched_child_fn fn, void *arg, unsigned flags,
			  unsigned timeout_s)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
	if (pid > 0)
		return pid;
	/* The child: never return into Check, never run its exit handlers. */
	if ((flags & COSCHED_CHILD_AS_NOBODY) && geteuid() == 0 &&
	    (setgroups(0, NULL) || setgid(65534) || setuid(65534))) {
		perror("child: drop to nobody");
		_exit(125);
	}
	if (timeout_s) {
		/* Check's own SIGALRM handler (inherited) would kill the
		 * whole test; the child must simply die of the signal. */
		sigset_t alrm;
		sigemptyset(&alrm);
		sigaddset(&alrm, SIGALRM);
		signal(SIGALRM, SIG_DFL);
		sigprocmask(SIG_UNBLOCK, &alrm, NULL);
		alarm(timeout_s);
	}
	_exit(fn(arg) & 0xff);
}

void cosched_child_wait(pid_t pid, const char *what)
{
	int status;
	pid_t got;

	do
		got = waitpid(pid, &status, 0);
	while (got < 0 && errno == EINTR);
	ck_assert_msg(got == pid, "%s: waitpid: %s", what, strerror(errno));
	if (WIFSIGNALED(status))
		ck_abort_msg("%s: child killed by signal %d (%s)%s", what,
			     WTERMSIG(status), strsignal(WTERMSIG(status)),
			     WTERMSIG(status) == SIGALRM ? ": it hung" : "");
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "%s: child failed with exit status %d", what,
		      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

void cosched_child_run(const char *what, cosched_child_fn fn, void *arg,
		       unsigned flags, unsigned timeout_s)
{
	cosched_child_wait(cosched_child_start(fn, arg, flags, timeout_s),
			   what);
}

void cosched_check_skip_all(const char *fmt, ...)
{
	va_list ap;

	fputs("SKIP: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(77);
}

char *cosched_check_read_doc(const char *relpath)
{
	const char *srcdir = getenv("srcdir");
	char path[4096], *text, *in, *out;
	size_t n, cap = 1 << 18;	/* cosched(8) is over 64 KiB */
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", srcdir ? srcdir : ".", relpath);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s: %s", path, strerror(errno));
	text = malloc(cap);
	ck_assert_ptr_nonnull(text);
	n = fread(text, 1, cap - 1, f);
	ck_assert_msg(feof(f) && !ferror(f), "%s: read error or larger than %zu bytes",
		      path, cap - 1);
	fclose(f);
	text[n] = '\0';
	for (in = out = text; *in; in++) {
		if (in[0] == '\\' && (in[1] == '-' || in[1] == 'e')) {
			*out++ = in[1] == '-' ? '-' : '\\';
			in++;
			continue;
		}
		*out++ = *in;
	}
	*out = '\0';
	return text;
}

void cosched_check_sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(NULL);
	rc = system(cmd);
	ck_assert_msg(rc == 0, "%s: exit status %d", cmd, rc);
}

void cosched_check_tmpdir(char *dir, size_t len, const char *name)
{
	ck_assert_msg((size_t) snprintf(dir, len, "/tmp/cosched-%s-XXXXXX",
					name) < len,
		      "cosched_check_tmpdir: %s: name too long", name);
	ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir,
		      strerror(errno));
}

void cosched_check_rm_rf(const char *path)
{
	cosched_check_sh("rm -rf '%s'", path);
}

void cosched_check_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_msg(fputs(text, f) >= 0, "%s: %s", path, strerror(errno));
	ck_assert_msg(fclose(f) == 0, "%s: %s", path, strerror(errno));
}

char *cosched_check_read_file(const char *path)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	ck_assert_msg(!ferror(f), "%s: read error", path);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

void cosched_check_tree_make(cosched_check_tree_t *t, const char *name,
			     const char *generator, const char *args)
{
	cosched_check_tmpdir(t->top, sizeof(t->top), name);
	snprintf(t->root, sizeof(t->root), "%s/root", t->top);
	cosched_check_sh("%s %s create %s %s", COSCHED_PYTHON3, generator,
			 t->root, args);
}

void cosched_check_tree_free(const cosched_check_tree_t *t)
{
	cosched_check_rm_rf(t->top);
}
