/*
 * test_cpufreq.c - the cpufreq domains and the journal (src/node) against
 * fake cpufreq trees made by testsuite/python/lib/fake_cpufreq.py, the
 * generator the cluster tests use too.
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

#include "cosched_check.h"
#include "src/node/cosched_cpufreq.h"
#include "src/node/cosched_cpufreq_journal.h"
#include "src/libcosched/cosched_power.h"
#include "contribs/sim/sim.h"

typedef struct {
	cosched_check_tree_t fake;	/* the test's directory, SysfsRoot */
	char spool[300];	/* the journal directory */
	char journal[340];
} tree_t;

/* A fake tree made with fake_cpufreq.py create ROOT ARGS. */
static void tree_make(tree_t *t, const char *args)
{
	cosched_check_tree_make(&t->fake, "cpufreq", COSCHED_FAKE_CPUFREQ, args);
	snprintf(t->spool, sizeof(t->spool), "%s/spool/cosched", t->fake.top);
	snprintf(t->journal, sizeof(t->journal), "%s/cpufreq.journal",
		 t->spool);
	cosched_check_sh("mkdir %s/spool", t->fake.top);
}

/* fake_cpufreq.py ARGS. */
static void tree_fake(const char *args)
{
	cosched_check_sh("%s %s %s", COSCHED_PYTHON3, COSCHED_FAKE_CPUFREQ,
			 args);
}

static void tree_free(tree_t *t)
{
	cosched_check_tree_free(&t->fake);
}

static cosched_cpufreq_t *tree_open(const tree_t *t)
{
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c = cosched_cpufreq_open(t->fake.root, &err);

	ck_assert_msg(c != NULL, "open %s: %s", t->fake.root, err.msg);
	return c;
}

/* A bounded copy (always terminated). */
static void cp(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A policy file of cpu's domain: its text without the newline. */
static const char *attr(const tree_t *t, int cpu, const char *name)
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

static void set_attr(const tree_t *t, int cpu, const char *name,
		     const char *value)
{
	char path[512], line[128];

	snprintf(path, sizeof(path),
		 "%s/sys/devices/system/cpu/cpu%d/cpufreq/%s", t->fake.root, cpu,
		 name);
	snprintf(line, sizeof(line), "%s\n", value);
	cosched_check_write_file(path, line);
}

/* "schedutil 800000 3000000 <unsupported>": the four values of a domain. */
static const char *state(const tree_t *t, int cpu)
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

#define ORIGINAL "schedutil 800000 3000000 <unsupported>"

static const char *boot(void)
{
	static const char id[] = "/proc/sys/kernel/random/boot_id";
	static char buf[64];

	cp(buf, sizeof(buf), access(id, R_OK) ? "-" :
			     cosched_check_read_file(id));
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* The journal as the format says: its lines between the tag and end. */
static const char *journal_text(const char *body, int nd, int nh)
{
	static char buf[8192];

	snprintf(buf, sizeof(buf),
		 "cosched-cpufreq-journal/1 boot=%s\n%send domains=%d holders=%d\n",
		 boot(), body, nd, nh);
	return buf;
}

static void journal_is(const tree_t *t, const char *body, int nd, int nh)
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

static const char *holder_line(const cosched_cpufreq_holder_t *h)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]),
		 "holder job=%u step=%u pid=%d start=%llu governor=%s freq=%ld\n",
		 h->job_id, h->step_id, (int) h->pid, h->start_time,
		 h->governor[0] ? h->governor : "-", h->freq_khz);
	return buf[i];
}

#define DOMAIN0 "domain id=0 cpus=0-7 governor=schedutil min=800000 max=3000000 setspeed=0\n"
#define DOMAIN8 "domain id=8 cpus=8-15 governor=schedutil min=800000 max=3000000 setspeed=0\n"

static cosched_cpufreq_holder_t holder(uint32_t job, const char *gov,
				       long khz)
{
	cosched_cpufreq_holder_t h;
	cosched_error_t err = { "" };

	ck_assert_msg(!cosched_cpufreq_holder_self(&h, job, 0, &err), "%s",
		      err.msg);
	snprintf(h.governor, sizeof(h.governor), "%s", gov);
	h.freq_khz = khz;
	return h;
}

static void acquire_ok(const cosched_cpufreq_t *c, const tree_t *t,
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

static void release_ok(const cosched_cpufreq_t *c, const tree_t *t,
		       uint32_t job, int applied, int restored)
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
static void acquire_refused(const cosched_cpufreq_t *c, const tree_t *t,
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
 * The journal removed while a step holds a domain (issue 22): the next
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
	cosched_cpufreq_holder_t a;
	cosched_error_t err = { "" };
	cosched_cpufreq_t *c;
	char kept[512];
	int idx = 0;
	tree_t t;

	tree_make(&t, "");
	c = tree_open(&t);
	ck_assert_int_eq(mkdir(t.spool, 0700), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cosched_check_write_file(t.journal, bad[i]);
		ck_assert_int_eq(cosched_cpufreq_sweep(c, t.spool, &out, &err),
				 -1);
		ck_assert_int_eq(count_bad(&t, kept, sizeof(kept)), 1);
		ck_assert_msg(strstr(err.msg, "corrupt cpufreq journal") &&
			      strstr(err.msg, kept), "%zu: %s", i, err.msg);
		ck_assert_int_eq(access(t.journal, F_OK), -1);
		ck_assert_str_eq(cosched_check_read_file(kept), bad[i]);
		/* Until an administrator removes it, no change is made. */
		a = holder(20, "userspace", 1500000);
		ck_assert_int_eq(cosched_cpufreq_acquire(c, t.spool, &a, &idx,
							 1, NULL, &out, &err), -1);
		ck_assert_msg(strstr(err.msg, "kept aside"), "%s", err.msg);
		ck_assert_str_eq(state(&t, 0), ORIGINAL);
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
				      "holder job=1 step=0 pid=999999999 start=1 governor=userspace freq=1500000\n",
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
	tc = tcase_create("journal");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_crash_restores_originals);
	tcase_add_test(tc, t_two_holders);
	tcase_add_test(tc, t_one_domain_rule);
	tcase_add_test(tc, t_min_lowered);
	tcase_add_test(tc, t_refused_request);
	tcase_add_test(tc, t_site_governors);
	tcase_add_test(tc, t_dead_and_reused_pids);
	tcase_add_test(tc, t_zombie_is_dead);
	tcase_add_test(tc, t_failed_restore_kept);
	tcase_add_test(tc, t_failed_apply);
	tcase_add_test(tc, t_empty_journal_is_empty);
	tcase_add_test(tc, t_journal_lost_while_held);
	tcase_add_test(tc, t_corrupt_kept_aside);
	tcase_add_test(tc, t_links_refused);
	tcase_add_test(tc, t_previous_boot);
	tcase_add_test(tc, t_domain_gone);
	tcase_add_test(tc, t_cap_and_unlisted_original);
	tcase_add_test(tc, t_sweep_try_never_waits);
	tcase_add_test(tc, t_join_held_only);
	suite_add_tcase(s, tc);
	return s;
}
