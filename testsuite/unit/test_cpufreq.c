/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_cpufreq.c - the cpufreq domains (src/node) scanned and written in
 * fake cpufreq trees made by contribs/loopback/cosched_loopback/fake_cpufreq.py, the
 * generator the cluster tests use too; the journal's tests are in
 * test_cpufreq_journal.c and test_cpufreq_recovery.c.
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

/* ---- scanning ----------------------------------------------------------- */

START_TEST(t_scan_packages)
{
	char buf[COSCHED_IDSET_TEXT_MAX];
	const cosched_cpufreq_domain_t *d;
	cosched_cpufreq_t *c;
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	ck_assert_int_eq(cosched_cpufreq_ndomains(c), 2);
	d = cosched_cpufreq_domain(c, 0);
	ck_assert_int_eq(d->id, 0);
	ck_assert_str_eq(cosched_idset_format(&d->cpus, buf, sizeof(buf)),
			 "0-7");
	ck_assert_int_eq(d->cpuinfo_min_khz, 800000);
	ck_assert_int_eq(d->cpuinfo_max_khz, 3000000);
	ck_assert_int_eq(d->ngovernors, 5);
	ck_assert_str_eq(d->governors[0], "performance");
	ck_assert_str_eq(d->governors[4], "schedutil");
	ck_assert_int_eq(d->nfreqs, 23);
	ck_assert_int_eq(d->freqs_khz[0], 800000);
	ck_assert_int_eq(d->freqs_khz[22], 3000000);
	d = cosched_cpufreq_domain(c, 1);
	ck_assert_int_eq(d->id, 8);
	ck_assert_str_eq(cosched_idset_format(&d->cpus, buf, sizeof(buf)),
			 "8-15");
	ck_assert_ptr_null(cosched_cpufreq_domain(c, 2));
	ck_assert_int_eq(cosched_cpufreq_find(c, 8), 1);
	ck_assert_int_eq(cosched_cpufreq_find(c, 3), -1);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

START_TEST(t_scan_per_cpu_descending_freqs)
{
	char buf[COSCHED_IDSET_TEXT_MAX];
	cosched_cpufreq_t *c;
	tree_t t;

	tree_make(&t, "--domains cpu --no-available-frequencies");
	c = tree_open(&t);
	ck_assert_int_eq(cosched_cpufreq_ndomains(c), 16);
	ck_assert_str_eq(cosched_idset_format(&cosched_cpufreq_domain(c, 5)->cpus,
					      buf, sizeof(buf)), "5");
	ck_assert_int_eq(cosched_cpufreq_domain(c, 5)->nfreqs, 0);
	cosched_cpufreq_close(c);
	/* acpi-cpufreq lists its table highest first: sorted ascending. */
	cosched_check_write_file(strcat(strcpy(buf, t.fake.root),
		    "/sys/devices/system/cpu/cpufreq/policy0/scaling_available_frequencies"),
	     "3000000 2000000 1000000 \n");
	c = tree_open(&t);
	ck_assert_int_eq(cosched_cpufreq_domain(c, 0)->nfreqs, 3);
	ck_assert_int_eq(cosched_cpufreq_domain(c, 0)->freqs_khz[0], 1000000);
	ck_assert_int_eq(cosched_cpufreq_domain(c, 0)->freqs_khz[2], 3000000);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

START_TEST(t_no_cpufreq)
{
	cosched_error_t err = { "" };
	char want[512];
	tree_t t;

	tree_make(&t, "--no-cpufreq");
	ck_assert_ptr_null(cosched_cpufreq_open(t.fake.root, &err));
	snprintf(want, sizeof(want),
		 "no cpufreq under %s/sys/devices/system/cpu: cpu0/cpufreq missing",
		 t.fake.root);
	ck_assert_str_eq(err.msg, want);
	/* No cpu directory at all, and no root at all. */
	cosched_check_sh("rm -rf %s/sys/devices/system/cpu/cpu*", t.fake.root);
	ck_assert_ptr_null(cosched_cpufreq_open(t.fake.root, &err));
	ck_assert_msg(strstr(err.msg, "no cpufreq under ") &&
		      strstr(err.msg, "no cpuN directory"), "%s", err.msg);
	ck_assert_ptr_null(cosched_cpufreq_open("/nonexistent-cosched", &err));
	ck_assert_str_eq(err.msg,
		"no cpufreq under /nonexistent-cosched/sys/devices/system/cpu: No such file or directory");
	ck_assert_ptr_null(cosched_cpufreq_open("relative", &err));
	ck_assert_msg(strstr(err.msg, "SysfsRoot"), "%s", err.msg);
	tree_free(&t);
}
END_TEST

/* Each malformed file is refused naming it and quoting its text. */
START_TEST(t_malformed)
{
	static const struct {
		const char *file, *text, *quoted;
	} bad[] = {
		{ "cpuinfo_max_freq", "3.0GHz\n", "\"3.0GHz\"" },
		{ "cpuinfo_max_freq", "03000000\n", "\"03000000\"" },
		{ "cpuinfo_min_freq", "-800000\n", "\"-800000\"" },
		{ "cpuinfo_min_freq", "\n", "\"\"" },
		{ "related_cpus", "0 1 x\n", "\"0 1 x\"" },
		{ "related_cpus", "0  1\n", "\"0  1\"" },
		{ "related_cpus", "0 1 1\n", "\"0 1 1\"" },
		{ "scaling_available_governors", "performance  userspace\n",
		  "\"performance  userspace\"" },
		{ "scaling_available_governors", "Performance\n",
		  "\"Performance\"" },
		{ "scaling_available_frequencies", "800000 1e6\n",
		  "\"800000 1e6\"" },
		{ "cpuinfo_max_freq", "3000000\n\n", "\"3000000\\n\"" },
	};
	tree_t t;

	tree_make(&t, "--cpus 2 --packages 1");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_error_t err = { "" };
		char path[512], *saved;

		snprintf(path, sizeof(path),
			 "%s/sys/devices/system/cpu/cpufreq/policy0/%s",
			 t.fake.root, bad[i].file);
		saved = strdup(cosched_check_read_file(path));
		cosched_check_write_file(path, bad[i].text);
		ck_assert_msg(cosched_cpufreq_open(t.fake.root, &err) == NULL,
			      "%s %s accepted", bad[i].file, bad[i].text);
		ck_assert_msg(strstr(err.msg, path) &&
			      strstr(err.msg, bad[i].quoted),
			      "%s: %s", bad[i].file, err.msg);
		cosched_check_write_file(path, saved);
		free(saved);
	}
	cosched_cpufreq_close(tree_open(&t));
	tree_free(&t);
}
END_TEST

/* A file that is a symbolic link is not read; a cpufreq link out of the
 * cpu directory is not followed. */
START_TEST(t_links)
{
	cosched_cpufreq_setting_t s;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	char dir[512];
	tree_t t;

	tree_make(&t, "");
	snprintf(dir, sizeof(dir), "%s/sys/devices/system/cpu/cpufreq/policy0",
		 t.fake.root);
	c = tree_open(&t);
	cosched_check_sh("mv %s/scaling_governor %s/gov && ln -s gov %s/scaling_governor",
	   dir, dir, dir);
	ck_assert_int_eq(cosched_cpufreq_read(c, 0, &s, &err), -1);
	ck_assert_msg(strstr(err.msg, "scaling_governor: is a symbolic link"),
		      "%s", err.msg);
	cosched_cpufreq_close(c);
	cosched_check_sh("mkdir %s/elsewhere && cp -a %s/. %s/elsewhere/ && rm %s/sys/devices/system/cpu/cpu8/cpufreq && ln -s %s/elsewhere %s/sys/devices/system/cpu/cpu8/cpufreq",
	   t.fake.top, dir, t.fake.top, t.fake.root, t.fake.top, t.fake.root);
	ck_assert_ptr_null(cosched_cpufreq_open(t.fake.root, &err));
	ck_assert_msg(strstr(err.msg, "cpu8/cpufreq: leads out of"), "%s",
		      err.msg);
	tree_free(&t);
}
END_TEST

START_TEST(t_domains_of)
{
	cosched_error_t err = { "" };
	int idx[COSCHED_CPUFREQ_DOMAINS_MAX];
	cosched_idset_t cpus;
	cosched_cpufreq_t *c;
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	cosched_idset_clear(&cpus);
	cosched_idset_add(&cpus, 3, NULL);
	cosched_idset_add(&cpus, 9, NULL);
	cosched_idset_add(&cpus, 15, NULL);
	ck_assert_int_eq(cosched_cpufreq_domains_of(c, &cpus, idx, &err), 2);
	ck_assert_int_eq(idx[0], 0);
	ck_assert_int_eq(idx[1], 1);
	cosched_idset_clear(&cpus);
	cosched_idset_add(&cpus, 12, NULL);
	ck_assert_int_eq(cosched_cpufreq_domains_of(c, &cpus, idx, &err), 1);
	ck_assert_int_eq(idx[0], 1);
	cosched_idset_clear(&cpus);
	ck_assert_int_eq(cosched_cpufreq_domains_of(c, &cpus, idx, &err), 0);
	cosched_idset_add(&cpus, 2, NULL);
	cosched_idset_add(&cpus, 16, NULL);
	ck_assert_int_eq(cosched_cpufreq_domains_of(c, &cpus, idx, &err), -1);
	ck_assert_msg(strstr(err.msg, "cpu16: in no cpufreq domain"), "%s",
		      err.msg);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

START_TEST(t_check)
{
	static const struct {
		cosched_cpufreq_setting_t s;
		const char *want;
	} bad[] = {
		{ { "turbo", 800000, 3000000, 0 },
		  "governor \"turbo\" not available (available: performance powersave userspace ondemand schedutil)" },
		{ { "userspace", 800000, 5000000, 5000000 },
		  "max=5000000 kHz out of range (800000 .. 3000000 kHz)" },
		{ { "userspace", 400000, 1500000, 1500000 },
		  "min=400000 kHz out of range" },
		{ { "userspace", 2000000, 1500000, 1500000 },
		  "min=2000000 kHz above max=1500000 kHz" },
		{ { "userspace", 800000, 1500000, 1550000 },
		  "setspeed=1550000 kHz out of range" },
		{ { "userspace", 800000, 1600000, 1550000 },
		  "setspeed=1550000 kHz is not an available frequency" },
		{ { "ondemand", 800000, 1600000, 1500000 },
		  "setspeed=1500000 kHz with governor \"ondemand\"" },
	};
	cosched_cpufreq_setting_t ok = { "userspace", 800000, 1500000,
					 1500000 };
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(cosched_cpufreq_check(c, 1, &bad[i].s, &err),
				 -1);
		ck_assert_msg(strstr(err.msg, "cpufreq domain 8 (cpus 8-15): ") &&
			      strstr(err.msg, bad[i].want), "%zu: %s", i,
			      err.msg);
		/* Refused by write too, with nothing written. */
		ck_assert_int_eq(cosched_cpufreq_write(c, 1, &bad[i].s, &err),
				 -1);
		ck_assert_str_eq(state(&t, 8), ORIGINAL);
	}
	ck_assert_int_eq(cosched_cpufreq_check(c, 1, &ok, &err), 0);
	ck_assert_int_eq(cosched_cpufreq_check(c, 2, &ok, &err), -1);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

/* The names of the files closed after writing, in order. */
static const char *written(int fd)
{
	static char names[1024];
	char buf[8192];
	ssize_t n;

	names[0] = '\0';
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *e = (struct inotify_event *) p;

			if (e->len) {
				strcat(names, names[0] ? "," : "");
				strcat(names, e->name);
			}
			p += sizeof(*e) + e->len;
		}
	return names;
}

START_TEST(t_write_order)
{
	cosched_cpufreq_setting_t down = { "userspace", 800000, 1500000,
					   1500000 };
	cosched_cpufreq_setting_t up = { "performance", 2000000, 3000000, 0 };
	cosched_cpufreq_setting_t wide = { "powersave", 800000, 3000000, 0 };
	cosched_cpufreq_setting_t s;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	char dir[512], text[128];
	tree_t t;
	int fd;

	tree_make(&t, "");
	c = tree_open(&t);
	snprintf(dir, sizeof(dir), "%s/sys/devices/system/cpu/cpufreq/policy0",
		 t.fake.root);
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(inotify_add_watch(fd, dir, IN_CLOSE_WRITE), 0);
	/* Within the current range: the minimum first, setspeed last. */
	ck_assert_msg(!cosched_cpufreq_write(c, 0, &down, &err), "%s", err.msg);
	ck_assert_str_eq(written(fd),
		"scaling_governor,scaling_min_freq,scaling_max_freq,scaling_setspeed");
	ck_assert_str_eq(state(&t, 0), "userspace 800000 1500000 1500000");
	ck_assert_str_eq(cosched_cpufreq_setting_format(&down, text,
							sizeof(text)),
		"governor=userspace min=800000 max=1500000 setspeed=1500000");
	ck_assert_int_eq(cosched_cpufreq_read(c, 0, &s, &err), 0);
	ck_assert_mem_eq(&s, &down, sizeof(s));
	/* Above the current maximum: the maximum first (a kernel refuses a
	 * minimum above the maximum); no setspeed without userspace. */
	ck_assert_msg(!cosched_cpufreq_write(c, 0, &up, &err), "%s", err.msg);
	ck_assert_str_eq(written(fd),
			 "scaling_governor,scaling_max_freq,scaling_min_freq");
	ck_assert_str_eq(attr(&t, 0, "scaling_min_freq"), "2000000");
	ck_assert_int_eq(cosched_cpufreq_read(c, 0, &s, &err), 0);
	ck_assert_mem_eq(&s, &up, sizeof(s));
	ck_assert_str_eq(cosched_cpufreq_setting_format(&up, text,
							sizeof(text)),
			 "governor=performance min=2000000 max=3000000");
	/* Whole values replace longer ones ("performance\n"). */
	ck_assert_msg(!cosched_cpufreq_write(c, 0, &wide, &err), "%s", err.msg);
	ck_assert_str_eq(written(fd),
			 "scaling_governor,scaling_min_freq,scaling_max_freq");
	ck_assert_str_eq(cosched_check_read_file(strcat(dir, "/scaling_governor")),
			 "powersave\n");
	/* Domain 8 untouched throughout. */
	ck_assert_str_eq(state(&t, 8), ORIGINAL);
	close(fd);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST

START_TEST(t_unwritable_write)
{
	cosched_cpufreq_setting_t s = { "userspace", 800000, 1500000, 1500000 };
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	char cmd[512];
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	snprintf(cmd, sizeof(cmd), "unwritable %s 8 scaling_max_freq", t.fake.root);
	tree_fake(cmd);
	ck_assert_int_eq(cosched_cpufreq_write(c, 1, &s, &err), -1);
	ck_assert_msg(strstr(err.msg, "scaling_max_freq") &&
		      strstr(err.msg, "not a regular file"), "%s", err.msg);
	cosched_cpufreq_close(c);
	tree_free(&t);
}
END_TEST


Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("cpufreq");
	TCase *tc = tcase_create("sysfs");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_scan_packages);
	tcase_add_test(tc, t_scan_per_cpu_descending_freqs);
	tcase_add_test(tc, t_no_cpufreq);
	tcase_add_test(tc, t_malformed);
	tcase_add_test(tc, t_links);
	tcase_add_test(tc, t_domains_of);
	tcase_add_test(tc, t_check);
	tcase_add_test(tc, t_write_order);
	tcase_add_test(tc, t_unwritable_write);
	suite_add_tcase(s, tc);
	return s;
}
