/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpufreq_tree.c - fake cpufreq trees and the assertions on them
 * (cpufreq_tree.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpufreq_tree.h"

/* A fake tree made with fake_cpufreq.py create ROOT ARGS. */
void tree_make(tree_t *t, const char *args)
{
	cosched_check_tree_make(&t->fake, "cpufreq", COSCHED_FAKE_CPUFREQ, args);
	snprintf(t->spool, sizeof(t->spool), "%s/spool/cosched", t->fake.top);
	snprintf(t->journal, sizeof(t->journal), "%s/cpufreq.journal",
		 t->spool);
	cosched_check_sh("mkdir %s/spool", t->fake.top);
}

/* fake_cpufreq.py ARGS. */
void tree_fake(const char *args)
{
	cosched_check_sh("%s %s %s", COSCHED_PYTHON3, COSCHED_FAKE_CPUFREQ,
			 args);
}

void tree_free(tree_t *t)
{
	cosched_check_tree_free(&t->fake);
}

cosched_cpufreq_t *tree_open(const tree_t *t)
{
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c = cosched_cpufreq_open(t->fake.root, &err);

	ck_assert_msg(c != NULL, "open %s: %s", t->fake.root, err.msg);
	return c;
}

/* A bounded copy (always terminated). */
void cp(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A policy file of cpu's domain: its text without the newline. */
const char *attr(const tree_t *t, int cpu, const char *name)
{
	static char buf[4096];
	char path[512];

	snprintf(path, sizeof(path),
		 "%s/sys/devices/system/cpu/cpu%d/cpufreq/%s", t->fake.root, cpu,
		 name);
	cp(buf, sizeof(buf), cosched_check_read_file(path));
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

void set_attr(const tree_t *t, int cpu, const char *name, const char *value)
{
	char path[512], line[128];

	snprintf(path, sizeof(path),
		 "%s/sys/devices/system/cpu/cpu%d/cpufreq/%s", t->fake.root, cpu,
		 name);
	snprintf(line, sizeof(line), "%s\n", value);
	cosched_check_write_file(path, line);
}

/* "schedutil 800000 3000000 <unsupported>": the four values of a domain. */
const char *state(const tree_t *t, int cpu)
{
	static char buf[256];
	char gov[64], min[32], max[32];

	snprintf(gov, sizeof(gov), "%s", attr(t, cpu, "scaling_governor"));
	snprintf(min, sizeof(min), "%s", attr(t, cpu, "scaling_min_freq"));
	snprintf(max, sizeof(max), "%s", attr(t, cpu, "scaling_max_freq"));
	snprintf(buf, sizeof(buf), "%s %s %s %s", gov, min, max,
		 attr(t, cpu, "scaling_setspeed"));
	return buf;
}

const char *boot(void)
{
	static const char id[] = "/proc/sys/kernel/random/boot_id";
	static char buf[64];

	cp(buf, sizeof(buf), access(id, R_OK) ? "-" :
			     cosched_check_read_file(id));
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* The journal as the format says: its lines between the tag and end. */
const char *journal_text(const char *body, int nd, int nh)
{
	static char buf[8192];

	snprintf(buf, sizeof(buf),
		 "cosched-cpufreq-journal/1.1 boot=%s\n%send domains=%d holders=%d\n",
		 boot(), body, nd, nh);
	return buf;
}

void journal_is(const tree_t *t, const char *body, int nd, int nh)
{
	const char *want = journal_text(body, nd, nh);

	/* Nothing held: no journal at all (slurmd's hooks stat it). */
	if (!nd && !nh && !body[0]) {
		ck_assert_msg(access(t->journal, F_OK) && errno == ENOENT,
			      "%s: a journal holding nothing is still there",
			      t->journal);
		return;
	}
	ck_assert_str_eq(cosched_check_read_file(t->journal), want);
}

const char *holder_line(const cosched_cpufreq_holder_t *h)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]),
		 "holder job=%u step=%u pid=%d start=%llu governor=%s freq=%ld stopped=%d\n",
		 h->job_id, h->step_id, (int) h->pid, h->start_time,
		 h->governor[0] ? h->governor : "-", h->freq_khz,
		 (int) h->stopped);
	return buf[i];
}

cosched_cpufreq_holder_t holder(uint32_t job, const char *gov, long khz)
{
	cosched_cpufreq_holder_t h;
	cosched_error_t err = { "" };

	ck_assert_msg(!cosched_cpufreq_holder_self(&h, job, 0, &err), "%s",
		      err.msg);
	snprintf(h.governor, sizeof(h.governor), "%s", gov);
	h.freq_khz = khz;
	return h;
}

void acquire_ok(const cosched_cpufreq_t *c, const tree_t *t,
		const cosched_cpufreq_holder_t *h, int index)
{
	cosched_cpufreq_outcome_t out;
	cosched_error_t err = { "" };
	int rc = cosched_cpufreq_acquire(c, t->spool, h, &index, 1, NULL, &out,
					 &err);

	ck_assert_msg(rc == 0 && !err.msg[0], "acquire: %d %s", rc, err.msg);
	ck_assert_int_eq(out.applied, 1);
	ck_assert_int_eq(out.failed, 0);
}

void release_ok(const cosched_cpufreq_t *c, const tree_t *t, uint32_t job,
		int applied, int restored)
{
	cosched_cpufreq_outcome_t out;
	cosched_error_t err = { "" };
	int rc = cosched_cpufreq_release(c, t->spool, job,
					 COSCHED_CPUFREQ_ANY_STEP, NULL, &out, &err);

	ck_assert_msg(rc == 0, "release: %s", err.msg);
	ck_assert_int_eq(out.applied, applied);
	ck_assert_int_eq(out.restored, restored);
}

/* An acquire refused on every domain, err saying want; nothing taken. */
void acquire_refused(const cosched_cpufreq_t *c, const tree_t *t,
		     const cosched_cpufreq_holder_t *h, int *idx, int n,
		     const char *want)
{
	cosched_cpufreq_outcome_t out;
	cosched_error_t err = { "" };

	ck_assert_int_eq(cosched_cpufreq_acquire(c, t->spool, h, idx, n, NULL, &out,
						 &err), -1);
	ck_assert_msg(strstr(err.msg, want), "%s\n  lacks: %s", err.msg, want);
	ck_assert_int_eq(out.applied + out.failed, 0);
}
