/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_cpufreq_journal.c - the cpufreq journal (src/node): holders taking
 * and releasing domains in fake cpufreq trees, the one-domain rule the
 * simulator's package model shares, site governors, and a holder that
 * dies holding.
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
#include "src/libcosched/model/power.h"
#include "research/sim/sim.h"

/* ---- the journal --------------------------------------------------------- */

typedef struct {
	const tree_t *t;
	char out[512];		/* where the child writes its holder */
} crash_arg_t;

/* A slurmstepd that takes domain 8 and dies without releasing it. */
static int crash_child(void *arg)
{
	crash_arg_t *a = arg;
	cosched_cpufreq_holder_t h;
	cosched_cpufreq_outcome_t out;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c = cosched_cpufreq_open(a->t->fake.root, &err);
	cosched_idset_t cpus;
	int idx[COSCHED_CPUFREQ_DOMAINS_MAX];
	FILE *f;

	if (!c || cosched_cpufreq_holder_self(&h, 42, 0, &err))
		return 1;
	snprintf(h.governor, sizeof(h.governor), "userspace");
	h.freq_khz = 1500000;
	cosched_idset_clear(&cpus);
	for (int cpu = 8; cpu < 16; cpu++)
		cosched_idset_add(&cpus, cpu, NULL);
	if (cosched_cpufreq_domains_of(c, &cpus, idx, &err) != 1 ||
	    cosched_cpufreq_acquire(c, a->t->spool, &h, idx, 1, NULL, &out, &err) ||
	    out.applied != 1)
		return 2;
	f = fopen(a->out, "w");
	if (!f)
		return 3;
	fputs(holder_line(&h), f);
	fclose(f);
	_exit(0);	/* no release: the crash */
}

START_TEST(t_crash_restores_originals)
{
	cosched_cpufreq_outcome_t out;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	crash_arg_t a;
	char body[1024], first[64] = "";
	struct stat st;
	tree_t t;
	int fd, wd_spool, wd_policy;

	tree_make(&t, "");
	a.t = &t;
	snprintf(a.out, sizeof(a.out), "%s/holder", t.fake.top);
	/* The journal directory is made 0700 by the first call; watch it and
	 * the policy to see which is written first. */
	ck_assert_int_eq(mkdir(t.spool, 0700), 0);
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	wd_spool = inotify_add_watch(fd, t.spool, IN_MOVED_TO);
	snprintf(body, sizeof(body), "%s/sys/devices/system/cpu/cpufreq/policy8",
		 t.fake.root);
	wd_policy = inotify_add_watch(fd, body, IN_CLOSE_WRITE);
	ck_assert_int_ge(wd_spool, 0);
	ck_assert_int_ge(wd_policy, 0);
	cosched_child_run("crashing holder", crash_child, &a, 0, 30);
	{
		char buf[8192];
		ssize_t n = read(fd, buf, sizeof(buf));
		struct inotify_event *e = (struct inotify_event *) buf;

		ck_assert_int_gt(n, 0);
		cp(first, sizeof(first), e->name);
		ck_assert_int_eq(e->wd, wd_spool);
	}
	close(fd);
	ck_assert_str_eq(first, "cpufreq.journal");
	/* The journal names the originals and the dead holder. */
	cp(body, sizeof(body), DOMAIN8);
	strncat(body, cosched_check_read_file(a.out), sizeof(body) - strlen(body) - 1);
	journal_is(&t, body, 1, 1);
	ck_assert_int_eq(stat(t.journal, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	ck_assert_str_eq(state(&t, 8), "userspace 800000 1500000 1500000");
	ck_assert_str_eq(state(&t, 0), ORIGINAL);
	/* The next sweep (slurmd start, the next job) restores them. */
	c = tree_open(&t);
	ck_assert_msg(!cosched_cpufreq_sweep(c, t.spool, &out, &err), "%s",
		      err.msg);
	ck_assert_int_eq(out.restored, 1);
	ck_assert_int_eq(out.applied, 0);
	ck_assert_str_eq(state(&t, 8), "schedutil 800000 3000000 1500000");
	ck_assert_str_eq(attr(&t, 8, "scaling_governor"), "schedutil");
	journal_is(&t, "", 0, 0);
	/* Nothing more to do. */
	ck_assert_int_eq(cosched_cpufreq_sweep(c, t.spool, &out, &err), 0);
	ck_assert_int_eq(out.restored + out.applied + out.failed, 0);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

START_TEST(t_two_holders)
{
	cosched_cpufreq_holder_t a, b, p, n;
	cosched_cpufreq_t *c;
	char body[2048];
	struct stat st;
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	a = holder(1, "userspace", 1500000);
	b = holder(2, "userspace", 2000000);
	acquire_ok(c, &t, &a, 0);
	ck_assert_int_eq(stat(t.spool, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	ck_assert_str_eq(state(&t, 0), "userspace 800000 1500000 1500000");
	snprintf(body, sizeof(body), DOMAIN0 "%s", holder_line(&a));
	journal_is(&t, body, 1, 1);
	/* The highest request. */
	acquire_ok(c, &t, &b, 0);
	ck_assert_str_eq(state(&t, 0), "userspace 800000 2000000 2000000");
	snprintf(body, sizeof(body), DOMAIN0 "%s%s", holder_line(&a),
		 holder_line(&b));
	journal_is(&t, body, 1, 2);
	/* Performance wins, at the original limits. */
	p = holder(3, "performance", 0);
	acquire_ok(c, &t, &p, 0);
	ck_assert_str_eq(state(&t, 0), "performance 800000 3000000 2000000");
	release_ok(c, &t, 3, 1, 0);
	ck_assert_str_eq(state(&t, 0), "userspace 800000 2000000 2000000");
	/* A holder asking nothing holds the original maximum. */
	n = holder(4, "", 0);
	acquire_ok(c, &t, &n, 0);
	ck_assert_str_eq(state(&t, 0), "userspace 800000 3000000 3000000");
	snprintf(body, sizeof(body), DOMAIN0 "%s%s%s", holder_line(&a),
		 holder_line(&b), holder_line(&n));
	journal_is(&t, body, 1, 3);
	release_ok(c, &t, 4, 1, 0);
	/* One leaves: the other's request; the last: the originals. */
	release_ok(c, &t, 2, 1, 0);
	ck_assert_str_eq(state(&t, 0), "userspace 800000 1500000 1500000");
	snprintf(body, sizeof(body), DOMAIN0 "%s", holder_line(&a));
	journal_is(&t, body, 1, 1);
	release_ok(c, &t, 1, 0, 1);
	ck_assert_str_eq(attr(&t, 0, "scaling_governor"), "schedutil");
	ck_assert_str_eq(attr(&t, 0, "scaling_max_freq"), "3000000");
	journal_is(&t, "", 0, 0);
	/* Alone, a holder asking nothing changes nothing. */
	acquire_ok(c, &t, &n, 0);
	ck_assert_str_eq(state(&t, 0), "schedutil 800000 3000000 1500000");
	release_ok(c, &t, 4, 0, 1);
	ck_assert_str_eq(state(&t, 8), ORIGINAL);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/*
 * One frequency-domain rule for the controller, the node and the
 * simulator: for the same requests the core's rule (the controller's
 * decision, cosched_power_resolve_domain), the setting the node's journal
 * writes for holders asking for them and the frequency the simulator runs
 * a package at are the same.
 */
START_TEST(t_one_domain_rule)
{
	static const long sets[][3] = {
		{ 1500000, 0, 0 },
		{ 1500000, 2000000, 0 },
		{ 2000000, 1200000, 1800000 },
		{ 1200000, 1200000, 2900000 },
	};

	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		cosched_freq_request_t req[3];
		cosched_error_t err = { "" };
		sim_app_t apps[3];
		sim_member_t mem[3];
		sim_perf_t perf[3];
		sim_power_t pw;
		sim_model_t m;
		cosched_cpufreq_t *c;
		char want[128];
		long core;
		int n = 0;
		tree_t t;

		memset(apps, 0, sizeof(apps));
		for (int k = 0; k < 3 && sets[s][k]; k++, n++) {
			req[k] = (cosched_freq_request_t) {
				.job_id = (uint32_t) k + 1,
				.requested_khz = sets[s][k] };
			snprintf(apps[k].name, sizeof(apps[k].name), "a%d", k);
			apps[k].threads = apps[k].min_threads =
				apps[k].max_threads = 1;
			apps[k].mhz = sets[s][k] / 1000;
			apps[k].cat = COSCHED_CAT_CPU;
			apps[k].solo_s = 10.0;
			mem[k] = (sim_member_t) { .app = (size_t) k,
						  .threads = 1 };
		}
		/* The controller's decision. */
		ck_assert_msg(!cosched_power_resolve_domain(req, (size_t) n,
				COSCHED_FREQ_RULE_MAX_REQUEST, &core, NULL,
				&err), "%s", err.msg);
		/* The node. */
		tree_make(&t, "");
		c = tree_open(&t);
		for (int k = 0; k < n; k++) {
			cosched_cpufreq_holder_t h = holder((uint32_t) k + 1,
						"userspace", sets[s][k]);
			acquire_ok(c, &t, &h, 0);
		}
		snprintf(want, sizeof(want), "userspace 800000 %ld %ld", core,
			 core);
		ck_assert_str_eq(state(&t, 0), want);
		cosched_cpufreq_close(c);
		tree_free(&t);
		/* The simulator, a gang on one package of 3 GHz. */
		sim_model_default(&m);
		m.fmax_mhz = 3000;
		m.freq_rule = SIM_FREQ_DOMAIN_MAX;
		ck_assert_msg(!sim_gang_eval(&m, apps, mem, n, true, perf, &pw,
					     &err), "%s", err.msg);
		for (int k = 0; k < n; k++)
			ck_assert_int_eq(perf[k].mhz * 1000, core);
	}
}
END_TEST

/* A request below the original minimum lowers it; the originals, all of
 * them, come back. */
START_TEST(t_min_lowered)
{
	cosched_cpufreq_holder_t a;
	cosched_cpufreq_t *c;
	char body[1024];
	tree_t t;

	tree_make(&t, "--scaling-min 1200000 --scaling-max 2800000");
	c = tree_open(&t);
	a = holder(7, "userspace", 1000000);
	acquire_ok(c, &t, &a, 1);
	ck_assert_str_eq(state(&t, 8), "userspace 1000000 1000000 1000000");
	snprintf(body, sizeof(body),
		 "domain id=8 cpus=8-15 governor=schedutil min=1200000 max=2800000 setspeed=0\n%s",
		 holder_line(&a));
	journal_is(&t, body, 1, 1);
	release_ok(c, &t, 7, 0, 1);
	ck_assert_str_eq(state(&t, 8), "schedutil 1200000 2800000 1000000");
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/* A request above the original maximum (an administrator's cap) runs at
 * the cap; an original off the driver's list (a userspace speed of
 * 1.55 GHz where the list steps by 100 MHz) still comes back. */
START_TEST(t_cap_and_unlisted_original)
{
	cosched_cpufreq_holder_t a, p;
	cosched_cpufreq_t *c;
	tree_t t;

	tree_make(&t, "--scaling-max 2800000");
	c = tree_open(&t);
	a = holder(7, "userspace", 3000000);
	acquire_ok(c, &t, &a, 1);
	ck_assert_str_eq(state(&t, 8), "userspace 800000 2800000 2800000");
	release_ok(c, &t, 7, 0, 1);
	ck_assert_str_eq(state(&t, 8), "schedutil 800000 2800000 2800000");
	cosched_cpufreq_close(c);
	tree_free(&t);

	tree_make(&t, "");
	set_attr(&t, 8, "scaling_governor", "userspace");
	set_attr(&t, 8, "scaling_setspeed", "1550000");
	c = tree_open(&t);
	p = holder(8, "performance", 0);
	acquire_ok(c, &t, &p, 1);
	ck_assert_str_eq(attr(&t, 8, "scaling_governor"), "performance");
	release_ok(c, &t, 8, 0, 1);
	ck_assert_str_eq(state(&t, 8), "userspace 800000 3000000 1550000");
	journal_is(&t, "", 0, 0);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/* A step with no frequency of its own joins only the domains already
 * held, and holds them at the original maximum while it shares them. */
START_TEST(t_join_held_only)
{
	cosched_cpufreq_outcome_t out;
	cosched_cpufreq_holder_t a, n;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	int both[2] = { 0, 1 }, first = 0;
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	a = holder(1, "userspace", 1500000);
	acquire_ok(c, &t, &a, 1);
	n = holder(2, "", 0);
	ck_assert_int_eq(cosched_cpufreq_join(c, t.spool, &n, &first, 1, NULL, &out,
					      &err), 1);
	ck_assert_str_eq(state(&t, 0), ORIGINAL);
	ck_assert_int_eq(cosched_cpufreq_join(c, t.spool, &n, both, 2, NULL, &out,
					      &err), 0);
	ck_assert_str_eq(state(&t, 0), ORIGINAL);	/* not taken */
	ck_assert_str_eq(state(&t, 8), "userspace 800000 3000000 3000000");
	release_ok(c, &t, 2, 1, 0);
	ck_assert_str_eq(state(&t, 8), "userspace 800000 1500000 1500000");
	release_ok(c, &t, 1, 0, 1);
	ck_assert_str_eq(attr(&t, 8, "scaling_governor"), "schedutil");
	ck_assert_str_eq(attr(&t, 8, "scaling_max_freq"), "3000000");
	journal_is(&t, "", 0, 0);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/* slurmd's launch hooks never wait: with the lock held elsewhere the
 * sweep returns at once, and sweeps later. */
START_TEST(t_sweep_try_never_waits)
{
	cosched_cpufreq_outcome_t out;
	cosched_cpufreq_holder_t a;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	char lock[600];
	struct timespec t0, t1;
	tree_t t;
	int fd;

	tree_make(&t, "");
	c = tree_open(&t);
	a = holder(7, "userspace", 1500000);
	acquire_ok(c, &t, &a, 1);
	snprintf(lock, sizeof(lock), "%s.lock", t.journal);
	fd = open(lock, O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(cosched_cpufreq_sweep_try(c, t.spool, &out, &err), 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_int_lt((t1.tv_sec - t0.tv_sec) * 1000 +
			 (t1.tv_nsec - t0.tv_nsec) / 1000000, 100);
	close(fd);
	ck_assert_int_eq(cosched_cpufreq_sweep_try(c, t.spool, &out, &err), 0);
	release_ok(c, &t, 7, 0, 1);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

START_TEST(t_refused_request)
{
	cosched_cpufreq_holder_t a;
	cosched_cpufreq_t *c;
	int idx[2] = { 0, 1 };
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	a = holder(5, "turbo", 0);
	acquire_refused(c, &t, &a, idx, 2,
			"governor \"turbo\" not available (available: performance powersave userspace ondemand schedutil) (and 1 more problems)");
	a = holder(5, "userspace", 3100000);
	acquire_refused(c, &t, &a, idx, 2,
			"frequency 3100000 kHz out of range (800000 .. 3000000 kHz)");
	a = holder(5, "userspace", 1550000);
	acquire_refused(c, &t, &a, idx, 1,
			"frequency 1550000 kHz is not an available frequency");
	ck_assert_str_eq(state(&t, 0), ORIGINAL);
	ck_assert_str_eq(state(&t, 8), ORIGINAL);
	/* Nothing was changed, so nothing was written. */
	ck_assert_int_eq(access(t.journal, F_OK), -1);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/*
 * The governors the site allows (slurm.conf CpuFreqGovernors, given by
 * task/cosched): what a request comes to is checked, not only the governor
 * it names.  A request for ondemand, which the site allows, comes to
 * userspace, which it does not: refused, nothing written.  Originals come
 * back unchecked, even where the site would not let cosched choose them.
 */
START_TEST(t_site_governors)
{
	const char *what = "slurm.conf CpuFreqGovernors";
	cosched_cpufreq_outcome_t out;
	cosched_cpufreq_holder_t a, n;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	int idx[2] = { 0, 1 }, eight = 1;
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	ck_assert_int_eq(cosched_cpufreq_allow(c, what, "ondemand performance",
					       &err), 0);
	a = holder(5, "ondemand", 0);
	acquire_refused(c, &t, &a, idx, 2,
			"cpufreq domain 0 (cpus 0-7): governor \"userspace\" not allowed by slurm.conf CpuFreqGovernors (ondemand performance) (and 1 more problems)");
	a = holder(5, "userspace", 1500000);
	acquire_refused(c, &t, &a, idx, 1, "governor \"userspace\" not allowed");
	ck_assert_str_eq(state(&t, 0), ORIGINAL);
	ck_assert_str_eq(state(&t, 8), ORIGINAL);
	ck_assert_int_eq(access(t.journal, F_OK), -1);
	/* What the site allows is written; a request for ondemand is
	 * refused beside it too (it would be userspace once alone). */
	a = holder(5, "performance", 0);
	acquire_ok(c, &t, &a, 1);
	ck_assert_str_eq(attr(&t, 8, "scaling_governor"), "performance");
	n = holder(6, "ondemand", 0);
	acquire_refused(c, &t, &n, &eight, 1,
			"governor \"userspace\" not allowed");
	release_ok(c, &t, 5, 0, 1);
	ck_assert_str_eq(state(&t, 8), ORIGINAL);

	/* The originals (schedutil, outside the list) come back when the
	 * holder that asked for something leaves the one that did not. */
	ck_assert_int_eq(cosched_cpufreq_allow(c, what, "userspace", &err), 0);
	a = holder(5, "userspace", 1500000);
	acquire_ok(c, &t, &a, 1);
	n = holder(6, "", 0);
	ck_assert_int_eq(cosched_cpufreq_join(c, t.spool, &n, &eight, 1, NULL, &out,
					      &err), 0);
	ck_assert_str_eq(state(&t, 8), "userspace 800000 3000000 3000000");
	release_ok(c, &t, 5, 1, 0);
	ck_assert_str_eq(attr(&t, 8, "scaling_governor"), "schedutil");
	release_ok(c, &t, 6, 0, 1);
	ck_assert_str_eq(state(&t, 8), "schedutil 800000 3000000 3000000");
	journal_is(&t, "", 0, 0);

	/* The list's form; a refused one keeps the list before it. */
	ck_assert_int_eq(cosched_cpufreq_allow(c, what, "Performance", &err),
			 -1);
	ck_assert_str_eq(err.msg, "slurm.conf CpuFreqGovernors: \"Performance\": expected governor names ([a-z0-9_], at most 31 bytes) separated by spaces, each once, at most 16");
	ck_assert_int_eq(cosched_cpufreq_allow(c, what, "performance  userspace",
					       &err), -1);
	a = holder(5, "performance", 0);
	acquire_refused(c, &t, &a, &eight, 1,
			"governor \"performance\" not allowed by slurm.conf CpuFreqGovernors (userspace)");
	/* None allowed; then any the domain lists again. */
	ck_assert_int_eq(cosched_cpufreq_allow(c, what, "", &err), 0);
	acquire_refused(c, &t, &a, &eight, 1,
			"not allowed by slurm.conf CpuFreqGovernors (none)");
	ck_assert_int_eq(cosched_cpufreq_allow(c, what, NULL, &err), 0);
	acquire_ok(c, &t, &a, 1);
	release_ok(c, &t, 5, 0, 1);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/* A step's holds set stopped (gang suspended it) or running again: the
 * outcome and what the call returns. */
static int set_stopped(const cosched_cpufreq_t *c, const tree_t *t,
		       uint32_t job, bool stopped, int applied, int restored)
{
	cosched_cpufreq_outcome_t out;
	cosched_error_t err = { "" };
	int rc = cosched_cpufreq_set_stopped(c, t->spool, job, 0, stopped,
					     &out, &err);

	ck_assert_msg(rc >= 0 && !err.msg[0], "set_stopped: %d %s", rc,
		      err.msg);
	ck_assert_int_eq(out.applied, applied);
	ck_assert_int_eq(out.restored, restored);
	return rc;
}

/*
 * Two jobs alternating in gang time slices on one domain: the domain runs
 * at the request of the one running, at its originals while both are
 * stopped, and the stopped one keeps its hold: the journal still names
 * the domain's originals, which come back when the last holder ends.
 */
START_TEST(t_stopped_holders_ask_nothing)
{
	cosched_cpufreq_holder_t a, b, n;
	cosched_cpufreq_t *c;
	char body[2048];
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	a = holder(1, "userspace", 1500000);
	b = holder(2, "userspace", 1800000);
	acquire_ok(c, &t, &a, 0);
	acquire_ok(c, &t, &b, 0);
	ck_assert_str_eq(state(&t, 0), "userspace 800000 1800000 1800000");
	/* b's slice ends: a's frequency. */
	ck_assert_int_eq(set_stopped(c, &t, 2, true, 1, 0), 0);
	ck_assert_str_eq(state(&t, 0), "userspace 800000 1500000 1500000");
	b.stopped = true;
	snprintf(body, sizeof(body), DOMAIN0 "%s%s", holder_line(&a),
		 holder_line(&b));
	journal_is(&t, body, 1, 2);
	/* Said again: nothing to do, nothing written. */
	ck_assert_int_eq(set_stopped(c, &t, 2, true, 0, 0), 1);
	/* Both stopped: the originals, the domain still held. */
	ck_assert_int_eq(set_stopped(c, &t, 1, true, 1, 0), 0);
	ck_assert_str_eq(attr(&t, 0, "scaling_governor"), "schedutil");
	ck_assert_str_eq(attr(&t, 0, "scaling_max_freq"), "3000000");
	a.stopped = true;
	snprintf(body, sizeof(body), DOMAIN0 "%s%s", holder_line(&a),
		 holder_line(&b));
	journal_is(&t, body, 1, 2);
	/* b's slice: its frequency alone. */
	ck_assert_int_eq(set_stopped(c, &t, 2, false, 1, 0), 0);
	ck_assert_str_eq(state(&t, 0), "userspace 800000 1800000 1800000");
	/* A job without a frequency of its own running while a and b are
	 * stopped: the originals. */
	ck_assert_int_eq(set_stopped(c, &t, 2, true, 1, 0), 0);
	n = holder(3, "", 0);
	acquire_ok(c, &t, &n, 0);
	ck_assert_str_eq(attr(&t, 0, "scaling_governor"), "schedutil");
	release_ok(c, &t, 3, 1, 0);
	/* A step that holds nothing here. */
	ck_assert_int_eq(set_stopped(c, &t, 9, true, 0, 0), 1);
	/* The stopped holders end: the originals, the journal empty. */
	release_ok(c, &t, 2, 1, 0);
	release_ok(c, &t, 1, 0, 1);
	ck_assert_str_eq(state(&t, 0), "schedutil 800000 3000000 1800000");
	journal_is(&t, "", 0, 0);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/* A slurmstepd of a time-shared job: it takes domain 0 at khz, is
 * stopped or not, says so on fd and waits to be killed (the node killed
 * mid-slice). */
static pid_t slice_holder(const tree_t *t, uint32_t job, long khz,
			  bool stopped)
{
	int fd[2];
	char ok = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		cosched_cpufreq_outcome_t out;
		cosched_error_t err = { "" };
		cosched_cpufreq_t *c = cosched_cpufreq_open(t->fake.root, &err);
		cosched_cpufreq_holder_t h;
		int idx = 0;

		close(fd[0]);
		if (!c || cosched_cpufreq_holder_self(&h, job, 0, &err))
			_exit(1);
		snprintf(h.governor, sizeof(h.governor), "userspace");
		h.freq_khz = khz;
		if (cosched_cpufreq_acquire(c, t->spool, &h, &idx, 1, NULL,
					    &out, &err) ||
		    (stopped && cosched_cpufreq_set_stopped(c, t->spool, job,
							    0, true, &out,
							    &err)))
			_exit(2);
		if (write(fd[1], "k", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(fd[1]);
	ck_assert_int_eq(read(fd[0], &ok, 1), 1);
	close(fd[0]);
	return pid;
}

START_TEST(t_killed_mid_slice)
{
	cosched_cpufreq_outcome_t out;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	pid_t run, stop;
	tree_t t;

	tree_make(&t, "");
	run = slice_holder(&t, 1, 1500000, false);
	stop = slice_holder(&t, 2, 1800000, true);
	/* The slice of job 1: its frequency, job 2's hold kept stopped. */
	ck_assert_str_eq(state(&t, 0), "userspace 800000 1500000 1500000");
	ck_assert_msg(strstr(cosched_check_read_file(t.journal),
			     "holder job=2 step=0 ") &&
		      strstr(cosched_check_read_file(t.journal),
			     " freq=1800000 stopped=1\n"), "%s",
		      cosched_check_read_file(t.journal));
	/* The node killed; the sweep at slurmd's start: the originals. */
	kill(run, SIGKILL);
	kill(stop, SIGKILL);
	waitpid(run, NULL, 0);
	waitpid(stop, NULL, 0);
	c = tree_open(&t);
	ck_assert_msg(!cosched_cpufreq_sweep(c, t.spool, &out, &err), "%s",
		      err.msg);
	ck_assert_int_eq(out.restored, 1);
	ck_assert_str_eq(attr(&t, 0, "scaling_governor"), "schedutil");
	ck_assert_str_eq(attr(&t, 0, "scaling_max_freq"), "3000000");
	journal_is(&t, "", 0, 0);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST


Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("cpufreq_journal");
	TCase *tc = tcase_create("journal");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_crash_restores_originals);
	tcase_add_test(tc, t_two_holders);
	tcase_add_test(tc, t_one_domain_rule);
	tcase_add_test(tc, t_min_lowered);
	tcase_add_test(tc, t_refused_request);
	tcase_add_test(tc, t_site_governors);
	tcase_add_test(tc, t_cap_and_unlisted_original);
	tcase_add_test(tc, t_sweep_try_never_waits);
	tcase_add_test(tc, t_join_held_only);
	tcase_add_test(tc, t_stopped_holders_ask_nothing);
	tcase_add_test(tc, t_killed_mid_slice);
	suite_add_tcase(s, tc);
	return s;
}
