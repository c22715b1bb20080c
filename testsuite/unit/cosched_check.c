/* cosched_check.c - the one main() of the unit test programs and their
 * child-process helper (cosched_check.h). */
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
	size_t n, cap = 1 << 16;
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
