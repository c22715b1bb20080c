/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_rapl.c - RAPL energy through powercap (src/node/rapl.c)
 * against fake trees made by contribs/loopback/cosched_loopback/fake_powercap.py, and
 * the energy split (src/libcosched/model/energy.c) on what it measures:
 * a wraparound gives the right delta, two co-located jobs' shares sum to
 * the node's energy.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cosched_check.h"
#include "fake_rapl.h"
#include "src/node/rapl.h"
#include "src/node/spool.h"

typedef fake_rapl_tree_t tree_t;

static cosched_error_t err;

static void open_fails(const tree_t *t, const char *want)
{
	cosched_rapl_t *r;

	err.msg[0] = '\0';
	r = cosched_rapl_open(t->root, &err);
	ck_assert_msg(r == NULL, "open %s succeeded", t->root);
	ck_assert_msg(strstr(err.msg, want), "%s\n  lacks: %s", err.msg, want);
	ck_assert_msg(!strncmp(err.msg, "energy unavailable: ", 20), "%s",
		      err.msg);
}

/* Write text into the zone's file (as root, mode 0400 does not stop it). */
static void put(const tree_t *t, const char *zone, const char *file,
		const char *text)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/sys/class/powercap/%s/%s", t->root,
		 zone, file);
	cosched_check_write_file(path, text);
}

static void zone_is(const cosched_rapl_t *r, int i, const char *dir,
		    const char *name, cosched_rapl_kind_t kind, int package,
		    int die, uint64_t range)
{
	const cosched_rapl_zone_t *z = cosched_rapl_zone(r, i);

	ck_assert_ptr_nonnull(z);
	ck_assert_str_eq(z->dir, dir);
	ck_assert_str_eq(z->name, name);
	ck_assert_int_eq(z->kind, kind);
	ck_assert_int_eq(z->package, package);
	ck_assert_int_eq(z->die, die);
	ck_assert_uint_eq(z->max_range_uj, range);
}

static cosched_energy_node_t sample_ok(cosched_rapl_t *r,
				       cosched_rapl_delta_t *d)
{
	cosched_energy_node_t node;

	err.msg[0] = '\0';
	ck_assert_msg(cosched_rapl_sample(r, d, &node, &err) == 0, "%s",
		      err.msg);
	return node;
}

/* ---- scanning ----------------------------------------------------------- */

START_TEST(t_scan_two_packages)
{
	tree_t t;
	cosched_rapl_t *r;

	fake_rapl_make(&t, "--packages 2");
	r = fake_rapl_open(&t);
	ck_assert_int_eq(cosched_rapl_nzones(r), 6);
	zone_is(r, 0, "intel-rapl:0", "package-0", COSCHED_RAPL_PACKAGE, 0, -1,
		262143328850ull);
	zone_is(r, 1, "intel-rapl:0:0", "core", COSCHED_RAPL_CORE, 0, -1,
		262143328850ull);
	zone_is(r, 2, "intel-rapl:0:1", "dram", COSCHED_RAPL_DRAM, 0, -1,
		65712999613ull);
	zone_is(r, 3, "intel-rapl:1", "package-1", COSCHED_RAPL_PACKAGE, 1, -1,
		262143328850ull);
	zone_is(r, 5, "intel-rapl:1:1", "dram", COSCHED_RAPL_DRAM, 1, -1,
		65712999613ull);
	ck_assert_ptr_null(cosched_rapl_zone(r, 6));
	ck_assert_int_eq(cosched_rapl_find(r, "intel-rapl:1:0"), 4);
	ck_assert_int_eq(cosched_rapl_find(r, "intel-rapl:2"), -1);
	ck_assert_str_eq(cosched_rapl_notes(r), "");
	ck_assert(cosched_rapl_has_core(r));
	ck_assert(cosched_rapl_has_dram(r));
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* Packages beyond 9 sort by number, not by name. */
START_TEST(t_scan_many_packages)
{
	tree_t t;
	cosched_rapl_t *r;

	fake_rapl_make(&t, "--packages 12 --no-dram");
	r = fake_rapl_open(&t);
	ck_assert_int_eq(cosched_rapl_nzones(r), 24);
	zone_is(r, 4, "intel-rapl:2", "package-2", COSCHED_RAPL_PACKAGE, 2, -1,
		262143328850ull);
	zone_is(r, 23, "intel-rapl:11:0", "core", COSCHED_RAPL_CORE, 11, -1,
		262143328850ull);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* A missing zone is said, by package; the node figures then leave it out. */
START_TEST(t_missing_zones)
{
	tree_t t;
	cosched_rapl_t *r;
	cosched_energy_node_t n;

	fake_rapl_make(&t, "--packages 2 --no-dram");
	r = fake_rapl_open(&t);
	ck_assert_int_eq(cosched_rapl_nzones(r), 4);
	ck_assert_str_eq(cosched_rapl_notes(r),
			 "package-0: no dram zone; package-1: no dram zone");
	ck_assert(cosched_rapl_has_core(r));
	ck_assert(!cosched_rapl_has_dram(r));
	n = sample_ok(r, NULL);
	ck_assert(n.has_core);
	ck_assert(!n.has_dram);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);

	/* One package without its core zone: no node-wide core figure. */
	fake_rapl_make(&t, "--packages 2");
	cosched_check_sh("rm %s/sys/class/powercap/intel-rapl:1:0", t.root);
	r = fake_rapl_open(&t);
	ck_assert_int_eq(cosched_rapl_nzones(r), 5);
	ck_assert_str_eq(cosched_rapl_notes(r), "package-1: no core zone");
	ck_assert(!cosched_rapl_has_core(r));
	fake_rapl(&t, "advance", "intel-rapl:0:0 500");
	n = sample_ok(r, NULL);
	ck_assert(!n.has_core);
	ck_assert_uint_eq(n.core_uj, 0);
	ck_assert(n.has_dram);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* AMD: package and core zones, named the same way, no DRAM zone. */
START_TEST(t_amd)
{
	tree_t t;
	cosched_rapl_t *r;

	fake_rapl_make(&t, "--vendor amd --packages 1");
	r = fake_rapl_open(&t);
	ck_assert_int_eq(cosched_rapl_nzones(r), 2);
	zone_is(r, 1, "intel-rapl:0:0", "core", COSCHED_RAPL_CORE, 0, -1,
		262143328850ull);
	ck_assert_str_eq(cosched_rapl_notes(r), "package-0: no dram zone");
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* psys and a client part's uncore (PP1) are left out without a note;
 * multi-die packages give one zone a die. */
START_TEST(t_psys_uncore_dies)
{
	tree_t t;
	cosched_rapl_t *r;

	fake_rapl_make(&t, "--packages 1 --uncore --psys");
	r = fake_rapl_open(&t);
	ck_assert_int_eq(cosched_rapl_nzones(r), 3);
	zone_is(r, 2, "intel-rapl:0:2", "dram", COSCHED_RAPL_DRAM, 0, -1,
		65712999613ull);
	ck_assert_str_eq(cosched_rapl_notes(r), "");
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);

	fake_rapl_make(&t, "--packages 1 --dies 2");
	r = fake_rapl_open(&t);
	ck_assert_int_eq(cosched_rapl_nzones(r), 6);
	zone_is(r, 3, "intel-rapl:1", "package-0-die-1", COSCHED_RAPL_PACKAGE,
		0, 1, 262143328850ull);
	zone_is(r, 4, "intel-rapl:1:0", "core", COSCHED_RAPL_CORE, 0, 1,
		262143328850ull);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* An unknown zone name is left out and said. */
START_TEST(t_unknown_zone)
{
	tree_t t;
	cosched_rapl_t *r;

	fake_rapl_make(&t, "--packages 1");
	put(&t, "intel-rapl:0:1", "name", "hbm\n");
	r = fake_rapl_open(&t);
	ck_assert_int_eq(cosched_rapl_nzones(r), 2);
	ck_assert_str_eq(cosched_rapl_notes(r),
			 "intel-rapl:0:1: zone \"hbm\" not used; package-0: no dram zone");
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* ---- no energy: a state with its reason --------------------------------- */

START_TEST(t_no_powercap)
{
	tree_t t;
	char want[400];

	fake_rapl_make(&t, "--no-powercap");
	snprintf(want, sizeof(want),
		 "energy unavailable: no powercap under %s/sys/class/powercap",
		 t.root);
	open_fails(&t, want);
	ck_assert_str_eq(err.msg, want);
	/* A root without even sys/ says the same. */
	cosched_check_sh("rm -rf %s/sys", t.root);
	open_fails(&t, want);
	ck_assert_str_eq(err.msg, want);
	/* powercap without any RAPL zone (another driver only). */
	cosched_check_sh("mkdir -p %s/sys/class/powercap/dtpm", t.root);
	snprintf(want, sizeof(want),
		 "energy unavailable: no RAPL package zone under %s/sys/class/powercap",
		 t.root);
	open_fails(&t, want);
	ck_assert_str_eq(err.msg, want);
	cosched_check_tree_free(&t);
	/* A SysfsRoot that is no absolute path. */
	err.msg[0] = '\0';
	ck_assert_ptr_null(cosched_rapl_open("relative/root", &err));
	ck_assert_msg(strstr(err.msg, "energy unavailable: ") == err.msg &&
		      strstr(err.msg, "SysfsRoot"), "%s", err.msg);
}
END_TEST

START_TEST(t_malformed)
{
	static const struct {
		const char *zone, *file, *text, *want;
	} cases[] = {
		{ "intel-rapl:0", "energy_uj", "12x\n",
		  "intel-rapl:0/energy_uj: invalid value \"12x\" (expected 0 .. 262143328850)" },
		{ "intel-rapl:0:0", "energy_uj", "012\n", "invalid value \"012\"" },
		{ "intel-rapl:0:0", "energy_uj", "-1\n", "invalid value \"-1\"" },
		{ "intel-rapl:0:1", "energy_uj", "65712999614\n",
		  "(expected 0 .. 65712999613)" },
		{ "intel-rapl:0:1", "energy_uj", "", "invalid value \"\"" },
		{ "intel-rapl:0:1", "energy_uj", "5\n\n", "invalid value \"5\\n\"" },
		{ "intel-rapl:0", "max_energy_range_uj", "0\n",
		  "max_energy_range_uj: invalid value \"0\" (expected 1 .. 281474976710656)" },
		{ "intel-rapl:0", "max_energy_range_uj", "281474976710657\n",
		  "invalid value \"281474976710657\"" },
		{ "intel-rapl:0", "name", "Package 0\n",
		  "name: invalid value \"Package 0\"" },
		{ "intel-rapl:0", "name", "package-00\n",
		  "zone \"package-00\" not used" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tree_t t;

		fake_rapl_make(&t, "--packages 1");
		put(&t, cases[i].zone, cases[i].file, cases[i].text);
		open_fails(&t, cases[i].want);
		cosched_check_tree_free(&t);
	}
}
END_TEST

/* Two zones of one package with one name; two packages with one name. */
START_TEST(t_duplicates)
{
	tree_t t;

	fake_rapl_make(&t, "--packages 2");
	put(&t, "intel-rapl:0:1", "name", "core\n");
	open_fails(&t, "two core zones in package-0");
	put(&t, "intel-rapl:0:1", "name", "dram\n");
	put(&t, "intel-rapl:1", "name", "package-0\n");
	open_fails(&t, "both named \"package-0\"");
	cosched_check_tree_free(&t);
}
END_TEST

/* The kernel's links are followed into ROOT/sys, and no further; the files
 * themselves are never links. */
START_TEST(t_links)
{
	tree_t t;
	cosched_rapl_t *r;

	fake_rapl_make(&t, "--packages 1");
	cosched_check_sh("mkdir %s/elsewhere && cp -a %s/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/intel-rapl:0:1 %s/elsewhere/",
	   t.top, t.root, t.top);
	cosched_check_sh("ln -sfn %s/elsewhere/intel-rapl:0:1 %s/sys/class/powercap/intel-rapl:0:1",
	   t.top, t.root);
	open_fails(&t, "intel-rapl:0:1: leads out of");
	cosched_check_sh("ln -sfn ../../devices/virtual/powercap/intel-rapl/intel-rapl:0/intel-rapl:0:1 %s/sys/class/powercap/intel-rapl:0:1",
	   t.root);
	r = fake_rapl_open(&t);
	cosched_rapl_close(r);
	cosched_check_sh("cd %s/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0 && mv energy_uj real && ln -s real energy_uj",
	   t.root);
	open_fails(&t, "energy_uj: is a symbolic link (not followed)");
	cosched_check_tree_free(&t);
}
END_TEST

/* An unreadable counter (a directory in its place: root cannot read it
 * either) fails open, and fails a sample without losing its baseline. */
START_TEST(t_unreadable)
{
	tree_t t;
	cosched_rapl_t *r;
	cosched_rapl_delta_t d[3];
	cosched_energy_node_t n;

	fake_rapl_make(&t, "--packages 1");
	fake_rapl(&t, "unreadable", "intel-rapl:0:0");
	open_fails(&t, "intel-rapl:0:0/energy_uj: not a regular file");
	fake_rapl(&t, "readable", "intel-rapl:0:0");
	r = fake_rapl_open(&t);
	fake_rapl(&t, "advance", "intel-rapl:0 100");
	fake_rapl(&t, "unreadable", "intel-rapl:0:0");
	err.msg[0] = '\0';
	ck_assert_int_eq(cosched_rapl_sample(r, d, &n, &err), -1);
	ck_assert_msg(strstr(err.msg, "energy unavailable: ") == err.msg &&
		      strstr(err.msg, "intel-rapl:0:0/energy_uj: not a regular file"),
		      "%s", err.msg);
	fake_rapl(&t, "readable", "intel-rapl:0:0");
	fake_rapl(&t, "advance", "intel-rapl:0 50");
	n = sample_ok(r, d);
	ck_assert_uint_eq(d[0].uj, 150);	/* both intervals */
	ck_assert_uint_eq(n.package_uj, 150);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* The message for EACCES, by itself, then for real: energy_uj is mode
 * 0400 in the tree as in the kernel, and a reader that is not root is
 * refused. */
START_TEST(t_eacces_hint)
{
	ck_assert_str_eq(cosched_rapl_errno_hint(EACCES),
			 " (energy_uj is readable by root only since CVE-2020-8694: read it as root)");
	ck_assert_str_eq(cosched_rapl_errno_hint(EPERM),
			 cosched_rapl_errno_hint(EACCES));
	ck_assert_str_eq(cosched_rapl_errno_hint(EISDIR), "");
	ck_assert_str_eq(cosched_rapl_errno_hint(ENOENT), "");
}
END_TEST

static int open_as_nobody(void *arg)
{
	const tree_t *t = arg;
	cosched_error_t e = { "" };
	cosched_rapl_t *r = cosched_rapl_open(t->root, &e);

	if (r) {
		fprintf(stderr, "open as uid %d succeeded\n", (int) getuid());
		return 1;
	}
	if (!strstr(e.msg, "energy unavailable: ") ||
	    !strstr(e.msg, "/energy_uj: cannot open: Permission denied (energy_uj is readable by root only since CVE-2020-8694: read it as root)")) {
		fprintf(stderr, "unexpected: %s\n", e.msg);
		return 2;
	}
	return 0;
}

START_TEST(t_eacces_real)
{
	tree_t t;

	if (geteuid() != 0)
		return;		/* the tree's own 0400 files bind us already */
	fake_rapl_make(&t, "--packages 1");
	ck_assert_int_eq(chmod(t.top, 0755), 0);
	cosched_child_run("open as nobody", open_as_nobody, &t,
			  COSCHED_CHILD_AS_NOBODY, 10);
	cosched_check_tree_free(&t);
}
END_TEST

/* ---- counting ----------------------------------------------------------- */

START_TEST(t_delta)
{
	bool w;

	ck_assert_uint_eq(cosched_rapl_delta(10, 25, 100, &w), 15);
	ck_assert(!w);
	ck_assert_uint_eq(cosched_rapl_delta(7, 7, 100, &w), 0);
	ck_assert(!w);
	/* 90 .. 100 is 10, 100 -> 0 is 1, 0 .. 5 is 5 */
	ck_assert_uint_eq(cosched_rapl_delta(90, 5, 100, &w), 16);
	ck_assert(w);
	ck_assert_uint_eq(cosched_rapl_delta(100, 0, 100, &w), 1);
	ck_assert(w);
	ck_assert_uint_eq(cosched_rapl_delta(1, 0, 100, NULL), 100);
	ck_assert_uint_eq(cosched_rapl_delta(0, COSCHED_RAPL_RANGE_MAX,
					     COSCHED_RAPL_RANGE_MAX, NULL),
			  COSCHED_RAPL_RANGE_MAX);
}
END_TEST

/* read() gives the counters and leaves the sampling state alone. */
START_TEST(t_read)
{
	tree_t t;
	cosched_rapl_t *r;
	uint64_t uj[3];
	cosched_rapl_delta_t d[3];

	fake_rapl_make(&t, "--packages 1 --energy 1000");
	r = fake_rapl_open(&t);
	fake_rapl(&t, "advance", "intel-rapl:0:1 234");
	ck_assert_int_eq(cosched_rapl_read(r, uj, &err), 0);
	ck_assert_uint_eq(uj[0], 1000);
	ck_assert_uint_eq(uj[1], 1000);
	ck_assert_uint_eq(uj[2], 1234);
	sample_ok(r, d);
	ck_assert_uint_eq(d[0].uj, 0);
	ck_assert_uint_eq(d[2].uj, 234);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/*
 * Wraparound, as the kernel does it: a range of 1000000 uJ (each counter
 * takes 0 .. 1000000).  From 700000, +500000 reads 199999: the delta is
 * 500000 and says it wrapped.  Two wraps in one interval read as the
 * remainder: the documented limit.
 */
START_TEST(t_wraparound)
{
	tree_t t;
	cosched_rapl_t *r;
	cosched_rapl_delta_t d[3];
	cosched_energy_node_t n;

	fake_rapl_make(&t, "--packages 1 --max-range 1000000 --dram-max-range 1000000 --energy 700000");
	r = fake_rapl_open(&t);
	fake_rapl(&t, "advance", "intel-rapl:0 500000");
	fake_rapl(&t, "advance", "intel-rapl:0:0 200000");
	fake_rapl(&t, "advance", "intel-rapl:0:1 300001");
	n = sample_ok(r, d);
	ck_assert_uint_eq(d[0].uj, 500000);
	ck_assert(d[0].wrapped);
	ck_assert_uint_eq(d[1].uj, 200000);
	ck_assert(!d[1].wrapped);
	ck_assert_uint_eq(d[2].uj, 300001);	/* 1000000 -> 0 exactly */
	ck_assert(d[2].wrapped);
	ck_assert_uint_eq(n.package_uj, 500000);
	ck_assert_uint_eq(n.core_uj, 200000);
	ck_assert_uint_eq(n.dram_uj, 300001);
	/* Nothing counted: nothing measured. */
	n = sample_ok(r, d);
	ck_assert_uint_eq(n.package_uj + n.core_uj + n.dram_uj, 0);
	/* 2 x 1000001 + 10: two whole wraps are invisible. */
	fake_rapl(&t, "advance", "intel-rapl:0 2000012");
	n = sample_ok(r, d);
	ck_assert_uint_eq(d[0].uj, 10);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/*
 * The energy test: a fake tree advanced by a test writer, through a
 * wraparound, gives the right job energy, and two co-located jobs' shares
 * sum to the node's energy.
 *
 * Two packages, ranges of 10 J.  Over the interval: package-0 10 J ->
 * wraps from 8 J by 6 J, its core 4 J, its DRAM 2 J; package-1 3 J, core
 * 1 J, DRAM 1 J.  Node: package 9 J, core 5 J, DRAM 3 J, 12 J in all.
 * Job A: 6 cores, 1 s of CPU time, 300 LLC misses; job B: 2 cores, 4 s,
 * 700 misses.  Idle + uncore 4 J by cores 3:1 -> 3 J, 1 J; core 5 J by
 * activity 1:4 -> 1 J, 4 J; DRAM 3 J by misses 3:7 -> 0.9 J, 2.1 J.
 * A: 4.9 J, B: 7.1 J.
 */
START_TEST(t_two_jobs_through_a_wrap)
{
	tree_t t;
	cosched_rapl_t *r;
	cosched_rapl_delta_t d[6];
	cosched_energy_node_t n;
	cosched_energy_job_t jobs[] = { { 6, 1000000000, 300 },
					{ 2, 4000000000u, 700 } };
	cosched_energy_share_t sh[2];
	cosched_energy_split_t s;

	fake_rapl_make(&t, "--packages 2 --max-range 10000000 --dram-max-range 10000000");
	fake_rapl(&t, "set", "intel-rapl:0 8000000");
	r = fake_rapl_open(&t);
	fake_rapl(&t, "advance", "intel-rapl:0 6000000");
	fake_rapl(&t, "advance", "intel-rapl:0:0 4000000");
	fake_rapl(&t, "advance", "intel-rapl:0:1 2000000");
	fake_rapl(&t, "advance", "intel-rapl:1 3000000");
	fake_rapl(&t, "advance", "intel-rapl:1:0 1000000");
	fake_rapl(&t, "advance", "intel-rapl:1:1 1000000");
	n = sample_ok(r, d);
	ck_assert(d[0].wrapped);
	ck_assert_uint_eq(d[0].uj, 6000000);
	ck_assert_uint_eq(n.package_uj, 9000000);
	ck_assert_uint_eq(n.core_uj, 5000000);
	ck_assert_uint_eq(n.dram_uj, 3000000);
	ck_assert(n.has_core && n.has_dram);

	err.msg[0] = '\0';
	ck_assert_msg(cosched_energy_split(&n, jobs, 2, sh, &s, &err) == 0,
		      "%s", err.msg);
	ck_assert_uint_eq(s.node_uj, 12000000);
	ck_assert_uint_eq(sh[0].uncore_uj, 3000000);
	ck_assert_uint_eq(sh[1].uncore_uj, 1000000);
	ck_assert_uint_eq(sh[0].core_uj, 1000000);
	ck_assert_uint_eq(sh[1].core_uj, 4000000);
	ck_assert_uint_eq(sh[0].dram_uj, 900000);
	ck_assert_uint_eq(sh[1].dram_uj, 2100000);
	ck_assert_uint_eq(sh[0].total_uj, 4900000);
	ck_assert_uint_eq(sh[1].total_uj, 7100000);
	ck_assert_uint_eq(sh[0].total_uj + sh[1].total_uj, s.node_uj);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("rapl");
	TCase *tc = tcase_create("powercap");

	/* Each test runs the generator a few times (python3 start-up). */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_scan_two_packages);
	tcase_add_test(tc, t_scan_many_packages);
	tcase_add_test(tc, t_missing_zones);
	tcase_add_test(tc, t_amd);
	tcase_add_test(tc, t_psys_uncore_dies);
	tcase_add_test(tc, t_unknown_zone);
	tcase_add_test(tc, t_no_powercap);
	tcase_add_test(tc, t_malformed);
	tcase_add_test(tc, t_duplicates);
	tcase_add_test(tc, t_links);
	tcase_add_test(tc, t_unreadable);
	tcase_add_test(tc, t_eacces_hint);
	tcase_add_test(tc, t_eacces_real);
	tcase_add_test(tc, t_delta);
	tcase_add_test(tc, t_read);
	tcase_add_test(tc, t_wraparound);
	tcase_add_test(tc, t_two_jobs_through_a_wrap);
	suite_add_tcase(s, tc);
	return s;
}
