/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_cpufreq_recovery.c - the cpufreq journal (src/node) when things go
 * wrong: holders dead or their pids reused, restores and applies that
 * fail, a journal lost, corrupt or from a previous boot, links and
 * domains that went away.
 */
#include <errno.h>
#include <sys/file.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpufreq_tree.h"

static int exit_now(void *arg)
{
	(void) arg;
	return 0;
}

START_TEST(t_dead_and_reused_pids)
{
	cosched_cpufreq_holder_t dead, reused, self;
	cosched_cpufreq_outcome_t out;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	char body[1024];
	pid_t pid;
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	self = holder(1, "userspace", 1200000);
	ck_assert_int_eq(cosched_cpufreq_holder_alive(&self), 1);
	pid = cosched_child_start(exit_now, NULL, 0, 10);
	cosched_child_wait(pid, "short-lived child");
	dead = holder(2, "userspace", 1500000);
	dead.pid = pid;
	ck_assert_int_eq(cosched_cpufreq_holder_alive(&dead), 0);
	reused = holder(3, "userspace", 2000000);
	reused.start_time++;
	ck_assert_int_eq(cosched_cpufreq_holder_alive(&reused), 0);
	acquire_ok(c, &t, &self, 0);
	acquire_ok(c, &t, &dead, 0);
	ck_assert_str_eq(state(&t, 0), "userspace 800000 1500000 1500000");
	/* The next call sweeps the dead one out before adding its holder. */
	acquire_ok(c, &t, &reused, 0);
	ck_assert_str_eq(state(&t, 0), "userspace 800000 2000000 2000000");
	snprintf(body, sizeof(body), DOMAIN0 "%s%s", holder_line(&self),
		 holder_line(&reused));
	journal_is(&t, body, 1, 2);
	ck_assert_msg(!cosched_cpufreq_sweep(c, t.spool, &out, &err), "%s",
		      err.msg);
	ck_assert_int_eq(out.applied, 1);
	ck_assert_str_eq(state(&t, 0), "userspace 800000 1200000 1200000");
	snprintf(body, sizeof(body), DOMAIN0 "%s", holder_line(&self));
	journal_is(&t, body, 1, 1);
	release_ok(c, &t, 1, 0, 1);
	journal_is(&t, "", 0, 0);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/* A zombie (exited, not reaped: slurmstepd's parent has not waited yet)
 * is dead. */
START_TEST(t_zombie_is_dead)
{
	cosched_cpufreq_holder_t h;
	cosched_error_t err = { "" };
	int pipefd[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(pipefd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(pipefd[0]);
		if (cosched_cpufreq_holder_self(&h, 9, 0, &err) ||
		    write(pipefd[1], &h, sizeof(h)) != sizeof(h))
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	ck_assert_int_eq(read(pipefd[0], &h, sizeof(h)), sizeof(h));
	close(pipefd[0]);
	ck_assert_int_eq(h.pid, pid);
	/* Wait until it is a zombie, without reaping it. */
	for (int i = 0; i < 500; i++) {
		siginfo_t si;

		si.si_pid = 0;
		ck_assert_int_eq(waitid(P_PID, (id_t) pid, &si,
					WEXITED | WNOWAIT | WNOHANG), 0);
		if (si.si_pid == pid)
			break;
		usleep(10000);
	}
	ck_assert_int_eq(cosched_cpufreq_holder_alive(&h), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(cosched_cpufreq_holder_alive(&h), 0);
}
END_TEST

START_TEST(t_failed_restore_kept)
{
	cosched_cpufreq_outcome_t out;
	cosched_cpufreq_holder_t a;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	char cmd[512];
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	a = holder(11, "userspace", 1500000);
	acquire_ok(c, &t, &a, 1);
	snprintf(cmd, sizeof(cmd), "unwritable %s 8 scaling_governor", t.fake.root);
	tree_fake(cmd);
	ck_assert_int_eq(cosched_cpufreq_release(c, t.spool, 11,
						 COSCHED_CPUFREQ_ANY_STEP, NULL,
						 &out, &err), -1);
	ck_assert_int_eq(out.failed, 1);
	ck_assert_int_eq(out.restored, 0);
	ck_assert_msg(strstr(err.msg, "cpufreq domain 8: restoring the originals failed (kept in the journal for the next sweep)") &&
		      strstr(err.msg, "scaling_governor"), "%s", err.msg);
	/* The domain stays, with no holder, naming the originals. */
	journal_is(&t, DOMAIN8, 1, 0);
	ck_assert_int_eq(cosched_cpufreq_sweep(c, t.spool, &out, &err), -1);
	ck_assert_int_eq(out.failed, 1);
	journal_is(&t, DOMAIN8, 1, 0);
	snprintf(cmd, sizeof(cmd), "writable %s 8 scaling_governor", t.fake.root);
	tree_fake(cmd);
	ck_assert_msg(!cosched_cpufreq_sweep(c, t.spool, &out, &err), "%s",
		      err.msg);
	ck_assert_int_eq(out.restored, 1);
	ck_assert_int_eq(out.failed, 0);
	ck_assert_str_eq(attr(&t, 8, "scaling_governor"), "schedutil");
	ck_assert_str_eq(attr(&t, 8, "scaling_max_freq"), "3000000");
	journal_is(&t, "", 0, 0);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/* An acquire whose sysfs write fails leaves the job unchanged: the holder
 * leaves again, the originals are written back (or kept for the sweep
 * when that fails too). */
START_TEST(t_failed_apply)
{
	cosched_cpufreq_outcome_t out;
	cosched_cpufreq_holder_t a;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	char cmd[512];
	int idx = 1;
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	a = holder(12, "userspace", 1500000);
	snprintf(cmd, sizeof(cmd), "unwritable %s 8 scaling_setspeed", t.fake.root);
	tree_fake(cmd);
	ck_assert_int_eq(cosched_cpufreq_acquire(c, t.spool, &a, &idx, 1, NULL,
						 &out, &err), -1);
	ck_assert_int_eq(out.failed, 1);
	ck_assert_int_eq(out.restored, 1);
	ck_assert_msg(strstr(err.msg, "scaling_setspeed"), "%s", err.msg);
	ck_assert_str_eq(attr(&t, 8, "scaling_governor"), "schedutil");
	ck_assert_str_eq(attr(&t, 8, "scaling_max_freq"), "3000000");
	journal_is(&t, "", 0, 0);
	/* Originals that cannot be read: the domain is not taken, nothing
	 * is written. */
	snprintf(cmd, sizeof(cmd), "unwritable %s 8 scaling_min_freq", t.fake.root);
	tree_fake(cmd);
	ck_assert_int_eq(cosched_cpufreq_acquire(c, t.spool, &a, &idx, 1, NULL,
						 &out, &err), -1);
	ck_assert_int_eq(out.failed + out.applied + out.restored, 0);
	ck_assert_msg(strstr(err.msg, "scaling_min_freq: not a regular file"),
		      "%s", err.msg);
	ck_assert_str_eq(attr(&t, 8, "scaling_governor"), "schedutil");
	journal_is(&t, "", 0, 0);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

static int count_bad(const tree_t *t, char *first, size_t len)
{
	char pattern[512];
	glob_t g;
	int n;

	snprintf(pattern, sizeof(pattern), "%s/cpufreq.journal.bad.*",
		 t->spool);
	if (glob(pattern, 0, NULL, &g))
		return 0;
	n = (int) g.gl_pathc;
	if (first)
		snprintf(first, len, "%s", g.gl_pathv[0]);
	globfree(&g);
	return n;
}

/* A 0-byte journal holds nothing to restore: it is an empty journal, not
 * a corrupt one (set aside, it stopped every frequency change on the
 * node until someone removed it by hand). */
START_TEST(t_empty_journal_is_empty)
{
	cosched_cpufreq_outcome_t out;
	cosched_cpufreq_holder_t a;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	char kept[512];
	int idx = 0;
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	ck_assert_int_eq(mkdir(t.spool, 0700), 0);
	cosched_check_write_file(t.journal, "");
	ck_assert_msg(cosched_cpufreq_sweep(c, t.spool, &out, &err) == 0, "%s",
		      err.msg);
	ck_assert_int_eq(count_bad(&t, kept, sizeof(kept)), 0);
	a = holder(20, "userspace", 1500000);
	ck_assert_msg(cosched_cpufreq_acquire(c, t.spool, &a, &idx, 1, NULL, &out,
					      &err) == 0, "%s", err.msg);
	ck_assert_str_eq(state(&t, 0), "userspace 800000 1500000 1500000");
	release_ok(c, &t, 20, 0, 1);
	/* Governor and limits back (the fake tree's setspeed keeps the
	 * last value written, as on a real machine under schedutil). */
	ck_assert_ptr_nonnull(strstr(state(&t, 0), "schedutil 800000 3000000"));
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/*
 * The journal removed while a step holds a domain: the next
 * job does not record the held speed as the original, the holder's
 * release restores the original it kept and says so, and an entry made
 * again without the holder gets the holder's older original back.
 */
START_TEST(t_journal_lost_while_held)
{
	cosched_cpufreq_outcome_t out;
	cosched_cpufreq_holder_t a, b;
	cosched_cpufreq_kept_t kept_a = { 0 }, kept_b = { 0 };
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	int idx = 0;
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	a = holder(30, "userspace", 1500000);
	ck_assert_msg(cosched_cpufreq_acquire(c, t.spool, &a, &idx, 1,
					      &kept_a, &out, &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(kept_a.n, 1);
	ck_assert_int_eq(kept_a.id[0], 0);
	ck_assert_str_eq(kept_a.orig[0].governor, "schedutil");
	ck_assert_str_eq(state(&t, 0), "userspace 800000 1500000 1500000");
	ck_assert_int_eq(unlink(t.journal), 0);

	/* The next job: the pinned speed is not taken as the original. */
	b = holder(31, "userspace", 2000000);
	acquire_refused(c, &t, &b, &idx, 1, "not in the journal, yet at the "
			"userspace governor pinned at 1500000 kHz");
	ck_assert_str_eq(state(&t, 0), "userspace 800000 1500000 1500000");
	journal_is(&t, "", 0, 0);

	/* The holder's release restores what it kept, and says so. */
	ck_assert_int_eq(cosched_cpufreq_release(c, t.spool, 30, a.step_id,
						 &kept_a, &out, &err), -1);
	ck_assert_msg(strstr(err.msg, "not in the journal though job 30 held "
			     "it") && strstr(err.msg, "restored the original "
					     "the job kept (governor="
					     "schedutil"), "%s", err.msg);
	ck_assert_int_eq(out.restored, 1);
	ck_assert_ptr_nonnull(strstr(state(&t, 0), "schedutil 800000 3000000"));

	/* A holder at the maximum does not look held: the next job makes
	 * the entry again with that "original"; the first holder's
	 * release sets the true one back, and the last release restores
	 * it. */
	a = holder(32, "userspace", 3000000);
	kept_a.n = 0;
	ck_assert_msg(cosched_cpufreq_acquire(c, t.spool, &a, &idx, 1,
					      &kept_a, &out, &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(unlink(t.journal), 0);
	b = holder(33, "userspace", 1500000);
	ck_assert_msg(cosched_cpufreq_acquire(c, t.spool, &b, &idx, 1,
					      &kept_b, &out, &err) == 0,
		      "%s", err.msg);
	ck_assert_str_eq(kept_b.orig[0].governor, "userspace");
	ck_assert_int_eq(cosched_cpufreq_release(c, t.spool, 32, a.step_id,
						 &kept_a, &out, &err), -1);
	ck_assert_msg(strstr(err.msg, "journal entry was made again without "
			     "job 32"), "%s", err.msg);
	ck_assert_msg(cosched_cpufreq_release(c, t.spool, 33, b.step_id,
					      &kept_b, &out, &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(out.restored, 1);
	ck_assert_ptr_nonnull(strstr(state(&t, 0), "schedutil 800000 3000000"));
	journal_is(&t, "", 0, 0);

	/* Nothing lost: the kept copy changes nothing and says nothing. */
	kept_a.n = 0;
	a = holder(34, "userspace", 1500000);
	ck_assert_msg(cosched_cpufreq_acquire(c, t.spool, &a, &idx, 1,
					      &kept_a, &out, &err) == 0,
		      "%s", err.msg);
	ck_assert_msg(cosched_cpufreq_release(c, t.spool, 34, a.step_id,
					      &kept_a, &out, &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(out.restored, 1);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/* cpu's domain at the userspace governor pinned at khz, as cosched
 * leaves a domain it holds. */
static void pin(const tree_t *t, int cpu, const char *khz)
{
	set_attr(t, cpu, "scaling_governor", "userspace");
	set_attr(t, cpu, "scaling_max_freq", khz);
	set_attr(t, cpu, "scaling_setspeed", khz);
}

/* After a journal was set aside (out: that call's outcome): domain 0,
 * found pinned, has its hardware defaults and the site's governor;
 * domain 8, found as its owner left it, is untouched; the next call
 * says nothing more, and the next job gets its frequency and gives it
 * back. */
static void after_set_aside(const cosched_cpufreq_t *c, const tree_t *t,
			    const cosched_cpufreq_outcome_t *out)
{
	cosched_cpufreq_outcome_t o;
	cosched_cpufreq_holder_t a = holder(20, "userspace", 1500000);
	cosched_error_t err = { "" };
	int idx = 0;

	ck_assert_int_eq(out->restored, 1);
	ck_assert_str_eq(state(t, 0), "schedutil 800000 3000000 1500000");
	ck_assert_str_eq(state(t, 8), ORIGINAL);
	ck_assert_msg(!cosched_cpufreq_sweep(c, t->spool, &o, &err), "%s",
		      err.msg);
	ck_assert_int_eq(o.restored, 0);
	ck_assert_msg(cosched_cpufreq_acquire(c, t->spool, &a, &idx, 1, NULL,
					      &o, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(state(t, 0), "userspace 800000 1500000 1500000");
	release_ok(c, t, 20, 0, 1);
	ck_assert_str_eq(state(t, 0), "schedutil 800000 3000000 1500000");
}

START_TEST(t_corrupt_kept_aside)
{
	static const char *const bad[] = {
		"garbage\n",
		"cosched-cpufreq-journal/2 boot=-\nend domains=0 holders=0\n",
		/* cut short: no end line */
		"cosched-cpufreq-journal/1 boot=-\n" DOMAIN0,
		"cosched-cpufreq-journal/1 boot=-\n" DOMAIN0
		"end domains=1 holders=0",
		"cosched-cpufreq-journal/1 boot=-\n" DOMAIN0
		"end domains=1 holders=1\n",
		"cosched-cpufreq-journal/1 boot=-\n"
		"domain id=0 cpus=0-7 governor=schedutil min=0800000 max=3000000 setspeed=0\n"
		"end domains=1 holders=0\n",
		"cosched-cpufreq-journal/1 boot=-\n"
		"domain id=0 cpus=0-3,4-7 governor=schedutil min=800000 max=3000000 setspeed=0\n"
		"end domains=1 holders=0\n",
		"cosched-cpufreq-journal/1 boot=-\n"
		"domain id=0 cpus=0-7 min=800000 governor=schedutil max=3000000 setspeed=0\n"
		"end domains=1 holders=0\n",
		"cosched-cpufreq-journal/1 boot=-\n"
		"domain id=0 cpus=0-7 governor=schedutil min=800000 max=3000000 setspeed=0 \n"
		"end domains=1 holders=0\n",
		"cosched-cpufreq-journal/1 boot=-\n"
		"holder job=1 step=0 pid=1 start=1 governor=- freq=0\n"
		"end domains=0 holders=1\n",
		"cosched-cpufreq-journal/1 boot=-\n" DOMAIN8 DOMAIN0
		"end domains=2 holders=0\n",
		"cosched-cpufreq-journal/1 boot=-\n" DOMAIN0
		"holder job=1 step=0 pid=1 start=1 governor=userspace freq=1500000 extra=1\n"
		"end domains=1 holders=1\n",
		"cosched-cpufreq-journal/1 boot=-\nend domains=0 holders=0\nmore\n",
	};
	cosched_cpufreq_outcome_t out;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	char kept[512];
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	cosched_cpufreq_default_governor(c, "schedutil");
	ck_assert_int_eq(mkdir(t.spool, 0700), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_check_write_file(t.journal, bad[i]);
		pin(&t, 0, "1500000");
		ck_assert_int_eq(cosched_cpufreq_sweep(c, t.spool, &out, &err),
				 -1);
		ck_assert_int_eq(count_bad(&t, kept, sizeof(kept)), 1);
		ck_assert_msg(strstr(err.msg, "unreadable cpufreq journal") &&
			      strstr(err.msg, kept), "%zu: %s", i, err.msg);
		ck_assert_int_eq(access(t.journal, F_OK), -1);
		ck_assert_str_eq(cosched_check_read_file(kept), bad[i]);
		after_set_aside(c, &t, &out);
		ck_assert_int_eq(unlink(kept), 0);
	}
	/* The sweep takes a valid journal's originals, not sysfs's. */
	set_attr(&t, 0, "scaling_governor", "userspace");
	set_attr(&t, 0, "scaling_max_freq", "1500000");
	set_attr(&t, 0, "scaling_setspeed", "1500000");
	{
		char text[1024];

		snprintf(text, sizeof(text), "%s",
			 journal_text(DOMAIN0
				      "holder job=1 step=0 pid=999999999 start=1 governor=userspace freq=1500000 stopped=0\n",
				      1, 1));
		cosched_check_write_file(t.journal, text);
	}
	ck_assert_msg(!cosched_cpufreq_sweep(c, t.spool, &out, &err), "%s",
		      err.msg);
	ck_assert_int_eq(out.restored, 1);
	ck_assert_str_eq(state(&t, 0), "schedutil 800000 3000000 1500000");
	journal_is(&t, "", 0, 0);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/* bytes (len of them, NULs too) as path's whole content. */
static void write_bytes(const char *path, const char *bytes, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * A journal replaced by bytes with NULs in them, or by a directory, while
 * a job holds its domain at 1.5 GHz: set aside once, and the domain given
 * its hardware defaults by whichever comes first (the job's end, the next
 * launch's sweep, cosched-node restore); the job's end gives back the
 * original it kept; later jobs get their frequency again.
 */
START_TEST(t_unreadable_set_aside)
{
	static const char nul[] = "cosched-cpufreq-journal/1 boot=-\n\0\0"
				  "\x01garbage\0\n";
	cosched_cpufreq_outcome_t out;
	cosched_cpufreq_holder_t a;
	cosched_cpufreq_kept_t kept_a;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	char kept[512], inside[600];
	int idx = 0;
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	cosched_cpufreq_default_governor(c, "schedutil");
	for (int how = 0; how < 6; how++) {
		bool dir = how % 2;

		/* A job holds domain 0 at 1.5 GHz, then its journal goes. */
		memset(&kept_a, 0, sizeof(kept_a));
		a = holder(40, "userspace", 1500000);
		ck_assert_msg(cosched_cpufreq_acquire(c, t.spool, &a, &idx, 1,
						      &kept_a, &out, &err) == 0,
			      "%s", err.msg);
		ck_assert_str_eq(state(&t, 0),
				 "userspace 800000 1500000 1500000");
		ck_assert_int_eq(unlink(t.journal), 0);
		if (dir) {
			ck_assert_int_eq(mkdir(t.journal, 0700), 0);
			snprintf(inside, sizeof(inside), "%s/x", t.journal);
			cosched_check_write_file(inside, "x\n");
		} else {
			write_bytes(t.journal, nul, sizeof(nul) - 1);
		}
		if (how < 2) {		/* the job's end */
			ck_assert_int_eq(cosched_cpufreq_release(c, t.spool, 40,
						a.step_id, &kept_a, &out,
						&err), -1);
		} else if (how < 4) {	/* the next launch, then the end */
			ck_assert_int_eq(cosched_cpufreq_sweep_try(c, t.spool,
						&out, &err), -1);
		} else {		/* cosched-node restore */
			ck_assert_int_eq(cosched_cpufreq_restore_all(c, t.spool,
						false, NULL, &out, &err), -1);
		}
		ck_assert_msg(strstr(err.msg, "unreadable cpufreq journal") &&
			      strstr(err.msg, "set aside as") &&
			      strstr(err.msg, "hardware defaults"),
			      "%d: %s", how, err.msg);
		ck_assert_int_eq(count_bad(&t, kept, sizeof(kept)), 1);
		ck_assert_msg(strstr(err.msg, kept), "%s", err.msg);
		ck_assert_int_eq(access(t.journal, F_OK), -1);
		ck_assert_ptr_nonnull(strstr(state(&t, 0),
					     "schedutil 800000 3000000"));
		ck_assert_str_eq(state(&t, 8), ORIGINAL);
		if (how >= 2)	/* its end still restores what it kept */
			cosched_cpufreq_release(c, t.spool, 40, a.step_id,
						&kept_a, &out, &err);
		ck_assert_ptr_nonnull(strstr(state(&t, 0),
					     "schedutil 800000 3000000"));
		/* Said once; then the next job gets its frequency. */
		ck_assert_msg(!cosched_cpufreq_sweep(c, t.spool, &out, &err),
			      "%s", err.msg);
		acquire_ok(c, &t, &a, 0);
		ck_assert_str_eq(state(&t, 0),
				 "userspace 800000 1500000 1500000");
		release_ok(c, &t, 40, 0, 1);
		cosched_check_sh("rm -r %s", kept);
	}

	/* No holder's copy: the site's stated governor, else the first
	 * the domain lists other than userspace. */
	cosched_cpufreq_default_governor(c, "ondemand");
	pin(&t, 0, "1500000");
	write_bytes(t.journal, nul, sizeof(nul) - 1);
	ck_assert_int_eq(cosched_cpufreq_sweep(c, t.spool, &out, &err), -1);
	ck_assert_ptr_nonnull(strstr(state(&t, 0), "ondemand 800000 3000000"));
	cosched_cpufreq_default_governor(c, "nosuch");
	pin(&t, 0, "1500000");
	ck_assert_int_eq(mkdir(t.journal, 0700), 0);
	ck_assert_int_eq(cosched_cpufreq_sweep(c, t.spool, &out, &err), -1);
	ck_assert_ptr_nonnull(strstr(state(&t, 0),
				     "performance 800000 3000000"));
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

START_TEST(t_links_refused)
{
	cosched_cpufreq_outcome_t out;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	char target[512];
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	ck_assert_int_eq(mkdir(t.spool, 0700), 0);
	snprintf(target, sizeof(target), "%s/elsewhere", t.fake.top);
	cosched_check_write_file(target, "precious\n");
	ck_assert_int_eq(symlink(target, t.journal), 0);
	ck_assert_int_eq(cosched_cpufreq_sweep(c, t.spool, &out, &err), -1);
	ck_assert_msg(strstr(err.msg, "cpufreq.journal: is a symbolic link"),
		      "%s", err.msg);
	ck_assert_str_eq(cosched_check_read_file(target), "precious\n");
	ck_assert_int_eq(unlink(t.journal), 0);
	/* The directory itself. */
	cosched_check_sh("rm -r %s && ln -s %s %s", t.spool, t.fake.top, t.spool);
	ck_assert_int_eq(cosched_cpufreq_sweep(c, t.spool, &out, &err), -1);
	ck_assert_msg(strstr(err.msg, "cosched: is a symbolic link"), "%s",
		      err.msg);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/* A journal of another boot: the kernel reset cpufreq since, cosched
 * changed nothing in this boot: nothing is written to sysfs. */
START_TEST(t_previous_boot)
{
	cosched_cpufreq_outcome_t out;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	ck_assert_int_eq(mkdir(t.spool, 0700), 0);
	cosched_check_write_file(t.journal,
	     "cosched-cpufreq-journal/1 boot=00000000-0000-0000-0000-000000000000\n"
	     DOMAIN0
	     "holder job=1 step=0 pid=999999999 start=1 governor=userspace freq=1500000\n"
	     "end domains=1 holders=1\n");
	set_attr(&t, 0, "scaling_governor", "ondemand");
	ck_assert_msg(!cosched_cpufreq_sweep(c, t.spool, &out, &err), "%s",
		      err.msg);
	ck_assert_int_eq(out.dropped, 1);
	ck_assert_int_eq(out.restored, 0);
	ck_assert_str_eq(attr(&t, 0, "scaling_governor"), "ondemand");
	journal_is(&t, "", 0, 0);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/* A domain the node no longer has stays in the journal, reported. */
START_TEST(t_domain_gone)
{
	cosched_cpufreq_outcome_t out;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	char text[1024];
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	ck_assert_int_eq(mkdir(t.spool, 0700), 0);
	snprintf(text, sizeof(text), "%s",
		 journal_text("domain id=4 cpus=4-5 governor=schedutil min=800000 max=3000000 setspeed=0\n",
			      1, 0));
	cosched_check_write_file(t.journal, text);
	ck_assert_int_eq(cosched_cpufreq_sweep(c, t.spool, &out, &err), -1);
	ck_assert_msg(strstr(err.msg, "domain 4 (cpus 4-5) is not on this node any more: entry kept"),
		      "%s", err.msg);
	ck_assert_str_eq(cosched_check_read_file(t.journal), text);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST


Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("cpufreq_recovery");
	TCase *tc = tcase_create("recovery");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_dead_and_reused_pids);
	tcase_add_test(tc, t_zombie_is_dead);
	tcase_add_test(tc, t_failed_restore_kept);
	tcase_add_test(tc, t_failed_apply);
	tcase_add_test(tc, t_empty_journal_is_empty);
	tcase_add_test(tc, t_journal_lost_while_held);
	tcase_add_test(tc, t_corrupt_kept_aside);
	tcase_add_test(tc, t_unreadable_set_aside);
	tcase_add_test(tc, t_links_refused);
	tcase_add_test(tc, t_previous_boot);
	tcase_add_test(tc, t_domain_gone);
	suite_add_tcase(s, tc);
	return s;
}
