/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpufreq.c - CPU frequency domains through the cpufreq sysfs
 * interface under a root prefix (see the header).
 *
 * sysfs attributes report a size of 4096 whatever they hold, so they are
 * read here until end of file into a page-sized buffer (not with
 * cosched_read_file(), which trusts the size), after the same safe open:
 * no link followed for the file itself, a regular file only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/libcosched/io/file.h"
#include "src/libcosched/base/text.h"
#include "src/node/cpufreq.h"
#include "src/node/sysfs.h"

/* The largest value a frequency file may hold: 100 GHz in kHz. */
#define KHZ_MAX 100000000L
/* A sysfs attribute holds at most a page. */
#define ATTR_MAX 8192

typedef struct {
	cosched_cpufreq_domain_t pub;
	char dir[COSCHED_PATH_MAX];	/* the policy directory, links resolved */
} domain_t;

/* A list of governor names (a domain's available ones, the site's). */
typedef struct {
	int *n;
	char (*names)[COSCHED_CPUFREQ_GOVERNOR_MAX + 1];
} govlist_t;

struct cosched_cpufreq {
	char cpudir[COSCHED_PATH_MAX];	/* ROOT/sys/devices/system/cpu */
	int n;
	domain_t *d;
	/* The governors the site allows (cosched_cpufreq_allow); nallowed
	 * -1: any the domain lists. */
	int nallowed;
	char allowed[COSCHED_CPUFREQ_GOVERNORS_MAX]
		    [COSCHED_CPUFREQ_GOVERNOR_MAX + 1];
	char allowed_what[64];
	/* The site's stated governor for a domain whose original is lost
	 * (cosched_cpufreq_default_governor); "" when it stated none. */
	char default_governor[COSCHED_CPUFREQ_GOVERNOR_MAX + 1];
};

/* ---- reading and writing one attribute ------------------------------ */

/* Write "VALUE\n" to DIR/NAME in one write(), as echo does. */
static int attr_write(const char *dir, const char *name, const char *value,
		      cosched_error_t *err)
{
	char path[COSCHED_PATH_MAX], line[64];
	size_t n;
	ssize_t w;
	int fd, saved;

	if ((size_t) snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return cosched_error_set(err, "%s/%s: path too long", dir, name);
	n = (size_t) snprintf(line, sizeof(line), "%s\n", value);
	if (n >= sizeof(line))
		return cosched_error_set(err, "%s: value %s too long", path,
					 COSCHED_QUOTE(value));
	fd = cosched_open_regular(path, O_WRONLY | O_TRUNC, 0, err);
	if (fd < 0)
		return -1;
	do
		w = write(fd, line, n);
	while (w < 0 && errno == EINTR);
	saved = errno;
	if (w != (ssize_t) n) {
		close(fd);
		if (w >= 0)
			return cosched_error_set(err,
				"%s: cannot write %s: short write (%zd of %zu bytes)",
				path, COSCHED_QUOTE(value), w, n);
		return cosched_error_set(err, "%s: cannot write %s: %s", path,
					 COSCHED_QUOTE(value), strerror(saved));
	}
	if (close(fd))
		return cosched_error_set(err, "%s: cannot write %s: %s", path,
					 COSCHED_QUOTE(value), strerror(errno));
	return 0;
}

/* ---- strict parsers -------------------------------------------------- */

/* A decimal without sign or leading zero, 0 .. max. */
static int parse_uint(const char *s, size_t n, long max, long *out)
{
	uint64_t v;

	if (cosched_sysfs_parse_u64(s, n, (uint64_t) max, &v))
		return -1;
	*out = (long) v;
	return 0;
}

static int read_khz(const char *dir, const char *name, long *khz,
		    cosched_error_t *err)
{
	char buf[ATTR_MAX];

	if (cosched_sysfs_read(dir, name, buf, sizeof(buf), NULL, NULL, err))
		return -1;
	if (parse_uint(buf, strlen(buf), KHZ_MAX, khz) || *khz == 0)
		return cosched_sysfs_malformed(dir, name, buf,
					       "a frequency in kHz, 1 .. 100000000",
					       err);
	return 0;
}

/*
 * The kernel's list form: words separated by single spaces, optionally one
 * space after the last (cpufreq's show functions write "a b c \n").  Calls
 * fn on each word; fn returns -1 to refuse it.
 */
typedef int (*word_fn)(const char *w, size_t n, void *arg);

static int parse_words(const char *text, word_fn fn, void *arg)
{
	size_t len = strlen(text);
	const char *p = text, *end;

	if (len && text[len - 1] == ' ')
		len--;
	if (!len)
		return -1;
	end = text + len;
	for (;;) {
		size_t n = 0;

		while (p + n < end && p[n] != ' ')
			n++;
		if (!n || fn(p, n, arg))
			return -1;
		p += n;
		if (p == end)
			return 0;
		p++;	/* the one space between two words */
		if (p == end)
			return -1;	/* two spaces at the end */
	}
}

static int cpu_word(const char *w, size_t n, void *arg)
{
	cosched_idset_t *set = arg;
	long cpu;

	if (parse_uint(w, n, COSCHED_DECISION_IDS_MAX - 1, &cpu) ||
	    cosched_idset_has(set, (int) cpu))
		return -1;
	return cosched_idset_add(set, (int) cpu, NULL);
}

static int governor_word(const char *w, size_t n, void *arg)
{
	govlist_t *l = arg;

	if (!cosched_decision_governor_ok(w, n) ||
	    *l->n == COSCHED_CPUFREQ_GOVERNORS_MAX)
		return -1;
	memcpy(l->names[*l->n], w, n);
	l->names[*l->n][n] = '\0';
	for (int i = 0; i < *l->n; i++)
		if (!strcmp(l->names[i], l->names[*l->n]))
			return -1;
	(*l->n)++;
	return 0;
}

typedef const char (*govnames_t)[COSCHED_CPUFREQ_GOVERNOR_MAX + 1];

static bool governor_listed(int n, govnames_t names, const char *gov)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], gov))
			return true;
	return false;
}

/* Room for a list of COSCHED_CPUFREQ_GOVERNORS_MAX names, as text. */
#define GOVERNORS_TEXT_MAX \
	(COSCHED_CPUFREQ_GOVERNORS_MAX * (COSCHED_CPUFREQ_GOVERNOR_MAX + 1) + 1)

/* "a b c" ("none" for an empty list); returns buf. */
static char *governors_format(int n, govnames_t names, char *buf, size_t len)
{
	size_t used = 0;

	snprintf(buf, len, "%s", n ? "" : "none");
	for (int i = 0; i < n && used < len; i++)
		used += (size_t) snprintf(buf + used, len - used, "%s%s",
					  i ? " " : "", names[i]);
	return buf;
}

static int freq_word(const char *w, size_t n, void *arg)
{
	cosched_cpufreq_domain_t *d = arg;
	long khz;

	if (parse_uint(w, n, KHZ_MAX, &khz) || !khz ||
	    d->nfreqs == COSCHED_CPUFREQ_FREQS_MAX)
		return -1;
	for (int i = 0; i < d->nfreqs; i++)
		if (d->freqs_khz[i] == khz)
			return -1;
	d->freqs_khz[d->nfreqs++] = khz;
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *) a, y = *(const long *) b;

	return (x > y) - (x < y);
}

static int read_cpus(const char *dir, cosched_idset_t *set,
		     cosched_error_t *err)
{
	char buf[ATTR_MAX];

	if (cosched_sysfs_read(dir, "related_cpus", buf, sizeof(buf), NULL,
			       NULL, err))
		return -1;
	cosched_idset_clear(set);
	if (parse_words(buf, cpu_word, set))
		return cosched_sysfs_malformed(dir, "related_cpus", buf,
					       "CPU numbers below 1024 separated by spaces, each once",
					       err);
	return 0;
}

/* Everything but the CPUs of a domain, from its policy directory. */
static int read_domain(domain_t *dom, cosched_error_t *err)
{
	cosched_cpufreq_domain_t *d = &dom->pub;
	char buf[ATTR_MAX];
	int missing;

	if (read_khz(dom->dir, "cpuinfo_min_freq", &d->cpuinfo_min_khz, err) ||
	    read_khz(dom->dir, "cpuinfo_max_freq", &d->cpuinfo_max_khz, err))
		return -1;
	if (d->cpuinfo_min_khz > d->cpuinfo_max_khz)
		return cosched_error_set(err,
			"%s: cpuinfo_min_freq %ld above cpuinfo_max_freq %ld",
			dom->dir, d->cpuinfo_min_khz, d->cpuinfo_max_khz);
	if (cosched_sysfs_read(dom->dir, "scaling_available_governors", buf,
			       sizeof(buf), NULL, NULL, err))
		return -1;
	d->ngovernors = 0;
	if (parse_words(buf, governor_word,
			&(govlist_t){ &d->ngovernors, d->governors }))
		return cosched_sysfs_malformed(dom->dir,
					       "scaling_available_governors", buf,
					       "governor names ([a-z0-9_], at most 31 bytes) separated by spaces, each once, at most 16",
					       err);
	d->nfreqs = 0;
	if (cosched_sysfs_read(dom->dir, "scaling_available_frequencies", buf,
			       sizeof(buf), &missing, NULL, err)) {
		if (!missing)
			return -1;
		return 0;	/* optional: many drivers list none */
	}
	if (parse_words(buf, freq_word, d))
		return cosched_sysfs_malformed(dom->dir,
					       "scaling_available_frequencies", buf,
					       "frequencies in kHz separated by spaces, each once, at most 64",
					       err);
	qsort(d->freqs_khz, (size_t) d->nfreqs, sizeof(long), cmp_long);
	return 0;
}

/* ---- the scan -------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *) a, y = *(const int *) b;

	return (x > y) - (x < y);
}

static int cmp_domain(const void *a, const void *b)
{
	return cmp_int(&((const domain_t *) a)->pub.id,
		       &((const domain_t *) b)->pub.id);
}

static bool idset_equal(const cosched_idset_t *a, const cosched_idset_t *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* The CPU numbers of the cpuN entries of dir, ascending. */
static int list_cpus(const char *dir, int *cpus, int *n, cosched_error_t *err)
{
	struct dirent *e;
	DIR *dp = opendir(dir);

	*n = 0;
	if (!dp)
		return cosched_error_set(err, "no cpufreq under %s: %s", dir,
					 strerror(errno));
	while ((e = readdir(dp))) {
		long cpu;

		if (strncmp(e->d_name, "cpu", 3) ||
		    parse_uint(e->d_name + 3, strlen(e->d_name + 3), LONG_MAX,
			       &cpu))
			continue;
		if (cpu >= COSCHED_DECISION_IDS_MAX) {
			closedir(dp);
			return cosched_error_set(err,
				"%s/cpu%ld: cosched handles CPUs 0 .. %d only",
				dir, cpu, COSCHED_DECISION_IDS_MAX - 1);
		}
		cpus[(*n)++] = (int) cpu;
	}
	closedir(dp);
	qsort(cpus, (size_t) *n, sizeof(int), cmp_int);
	return 0;
}

static int scan(cosched_cpufreq_t *c, cosched_error_t *err)
{
	int cpus[COSCHED_DECISION_IDS_MAX];
	char real_cpudir[PATH_MAX], real[PATH_MAX], path[COSCHED_PATH_MAX];
	int ncpus, first_cpu = -1;
	size_t rlen;

	if (!realpath(c->cpudir, real_cpudir))
		return cosched_error_set(err, "no cpufreq under %s: %s",
					 c->cpudir, strerror(errno));
	rlen = strlen(real_cpudir);
	if (list_cpus(c->cpudir, cpus, &ncpus, err))
		return -1;
	if (!ncpus)
		return cosched_error_set(err,
			"no cpufreq under %s: no cpuN directory", c->cpudir);
	c->d = calloc(COSCHED_CPUFREQ_DOMAINS_MAX, sizeof(*c->d));
	if (!c->d)
		return cosched_error_set(err, "cpufreq: out of memory");
	for (int i = 0; i < ncpus; i++) {
		cosched_idset_t related;
		struct stat st;
		domain_t *dom = NULL;

		if ((size_t) snprintf(path, sizeof(path), "%s/cpu%d/cpufreq",
				      c->cpudir, cpus[i]) >= sizeof(path))
			return cosched_error_set(err, "%s: path too long",
						 c->cpudir);
		if (stat(path, &st)) {
			if (errno == ENOENT)
				continue;	/* no cpufreq for this CPU */
			return cosched_error_set(err, "%s: %s", path,
						 strerror(errno));
		}
		if (!S_ISDIR(st.st_mode))
			return cosched_error_set(err, "%s: not a directory",
						 path);
		/* The kernel's link to ../cpufreq/policyN is followed; a
		 * link out of the cpu directory is not. */
		if (!realpath(path, real))
			return cosched_error_set(err, "%s: %s", path,
						 strerror(errno));
		if (strncmp(real, real_cpudir, rlen) || real[rlen] != '/')
			return cosched_error_set(err,
				"%s: leads out of %s (to %s)", path, c->cpudir,
				COSCHED_QUOTE(real));
		if (strlen(real) >= sizeof(dom->dir))
			return cosched_error_set(err, "%s: path too long", path);
		if (first_cpu < 0)
			first_cpu = cpus[i];
		if (read_cpus(real, &related, err))
			return -1;
		if (!cosched_idset_has(&related, cpus[i]))
			return cosched_error_set(err,
				"%s/related_cpus: does not list cpu%d itself",
				real, cpus[i]);
		for (int k = 0; k < c->n; k++)
			if (cosched_idset_overlap(&c->d[k].pub.cpus, &related)) {
				dom = &c->d[k];
				break;
			}
		if (dom) {
			char a[COSCHED_IDSET_TEXT_MAX], b[COSCHED_IDSET_TEXT_MAX];

			if (idset_equal(&dom->pub.cpus, &related))
				continue;
			return cosched_error_set(err,
				"%s/related_cpus: CPUs %s overlap another domain's %s",
				real, cosched_idset_format(&related, a, sizeof(a)),
				cosched_idset_format(&dom->pub.cpus, b, sizeof(b)));
		}
		if (c->n == COSCHED_CPUFREQ_DOMAINS_MAX)
			return cosched_error_set(err,
				"%s: more than %d frequency domains", c->cpudir,
				COSCHED_CPUFREQ_DOMAINS_MAX);
		dom = &c->d[c->n];
		memset(dom, 0, sizeof(*dom));
		snprintf(dom->dir, sizeof(dom->dir), "%s", real);
		dom->pub.cpus = related;
		dom->pub.id = cosched_idset_next(&related, 0);
		if (read_domain(dom, err))
			return -1;
		c->n++;
	}
	if (!c->n)
		return cosched_error_set(err,
			"no cpufreq under %s: cpu%d/cpufreq missing", c->cpudir,
			cpus[0]);
	qsort(c->d, (size_t) c->n, sizeof(*c->d), cmp_domain);
	return 0;
}

cosched_cpufreq_t *cosched_cpufreq_open(const char *root, cosched_error_t *err)
{
	cosched_cpufreq_t *c;
	size_t len;

	if (cosched_dir_path_check("SysfsRoot", root, COSCHED_PATH_MAX - 64,
				   err))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		cosched_error_set(err, "cpufreq: out of memory");
		return NULL;
	}
	c->nallowed = -1;
	len = strlen(root);
	while (len > 1 && root[len - 1] == '/')
		len--;
	snprintf(c->cpudir, sizeof(c->cpudir), "%.*s/sys/devices/system/cpu",
		 (int) (len == 1 ? 0 : len), root);
	if (scan(c, err)) {
		cosched_cpufreq_close(c);
		return NULL;
	}
	return c;
}

int cosched_cpufreq_allow(cosched_cpufreq_t *c, const char *what,
			  const char *governors, cosched_error_t *err)
{
	char names[COSCHED_CPUFREQ_GOVERNORS_MAX]
		  [COSCHED_CPUFREQ_GOVERNOR_MAX + 1];
	int n = 0;

	if (!governors) {
		c->nallowed = -1;
		return 0;
	}
	if (governors[0] &&
	    parse_words(governors, governor_word, &(govlist_t){ &n, names }))
		return cosched_error_set(err,
			"%s: %s: expected governor names ([a-z0-9_], at most 31 bytes) separated by spaces, each once, at most 16",
			what, COSCHED_QUOTE(governors));
	memcpy(c->allowed, names, sizeof(names));
	c->nallowed = n;
	snprintf(c->allowed_what, sizeof(c->allowed_what), "%s", what);
	return 0;
}

void cosched_cpufreq_default_governor(cosched_cpufreq_t *c,
				      const char *governor)
{
	snprintf(c->default_governor, sizeof(c->default_governor), "%s",
		 governor ? governor : "");
}

void cosched_cpufreq_hardware_default(const cosched_cpufreq_t *c, int index,
				      const char *governor,
				      cosched_cpufreq_setting_t *s)
{
	const cosched_cpufreq_domain_t *d = &c->d[index].pub;
	const char *gov = NULL;

	if (governor && governor_listed(d->ngovernors, d->governors, governor))
		gov = governor;
	else if (governor_listed(d->ngovernors, d->governors,
				 c->default_governor))
		gov = c->default_governor;
	for (int i = 0; !gov && i < d->ngovernors; i++)
		if (strcmp(d->governors[i], "userspace"))
			gov = d->governors[i];
	memset(s, 0, sizeof(*s));
	snprintf(s->governor, sizeof(s->governor), "%s",
		 gov ? gov : "userspace");
	s->min_khz = d->cpuinfo_min_khz;
	s->max_khz = d->cpuinfo_max_khz;
	/* A domain with userspace alone runs at its top speed. */
	if (!gov)
		s->setspeed_khz = d->cpuinfo_max_khz;
}

void cosched_cpufreq_close(cosched_cpufreq_t *c)
{
	if (!c)
		return;
	free(c->d);
	free(c);
}

int cosched_cpufreq_ndomains(const cosched_cpufreq_t *c)
{
	return c->n;
}

const cosched_cpufreq_domain_t *cosched_cpufreq_domain(
	const cosched_cpufreq_t *c, int index)
{
	if (index < 0 || index >= c->n)
		return NULL;
	return &c->d[index].pub;
}

int cosched_cpufreq_find(const cosched_cpufreq_t *c, int id)
{
	for (int i = 0; i < c->n; i++)
		if (c->d[i].pub.id == id)
			return i;
	return -1;
}

int cosched_cpufreq_domains_of(const cosched_cpufreq_t *c,
			       const cosched_idset_t *cpus, int *idx,
			       cosched_error_t *err)
{
	bool taken[COSCHED_CPUFREQ_DOMAINS_MAX] = { false };
	int n = 0;

	for (int cpu = 0; cpu < COSCHED_DECISION_IDS_MAX; cpu++) {
		int k;

		if (!cosched_idset_has(cpus, cpu))
			continue;
		for (k = 0; k < c->n; k++)
			if (cosched_idset_has(&c->d[k].pub.cpus, cpu))
				break;
		if (k == c->n)
			return cosched_error_set(err,
				"cpu%d: in no cpufreq domain under %s", cpu,
				c->cpudir);
		taken[k] = true;
	}
	for (int k = 0; k < c->n; k++)
		if (taken[k])
			idx[n++] = k;
	return n;
}

/* "domain 8 (cpus 8-15)" */
static const char *domain_name(const domain_t *dom, char *buf, size_t len)
{
	char cpus[COSCHED_IDSET_TEXT_MAX];

	snprintf(buf, len, "cpufreq domain %d (cpus %s)", dom->pub.id,
		 cosched_idset_format(&dom->pub.cpus, cpus, sizeof(cpus)));
	return buf;
}

#define DOMAIN_NAME(dom) domain_name((dom), (char[96]){ 0 }, 96)

static int bad_index(const cosched_cpufreq_t *c, int index,
		     cosched_error_t *err)
{
	return cosched_error_set(err,
		"cpufreq: domain index %d out of range (%d domains)", index,
		c->n);
}

int cosched_cpufreq_read(const cosched_cpufreq_t *c, int index,
			 cosched_cpufreq_setting_t *s, cosched_error_t *err)
{
	cosched_cpufreq_setting_t r;
	const domain_t *dom;
	char buf[ATTR_MAX];

	if (index < 0 || index >= c->n)
		return bad_index(c, index, err);
	dom = &c->d[index];
	memset(&r, 0, sizeof(r));
	if (cosched_sysfs_read(dom->dir, "scaling_governor", buf, sizeof(buf),
			       NULL, NULL, err))
		return -1;
	if (!cosched_decision_governor_ok(buf, strlen(buf)))
		return cosched_sysfs_malformed(dom->dir, "scaling_governor", buf,
					       "a governor name ([a-z0-9_], at most 31 bytes)",
					       err);
	snprintf(r.governor, sizeof(r.governor), "%s", buf);
	if (read_khz(dom->dir, "scaling_min_freq", &r.min_khz, err) ||
	    read_khz(dom->dir, "scaling_max_freq", &r.max_khz, err))
		return -1;
	if (!strcmp(r.governor, "userspace") &&
	    read_khz(dom->dir, "scaling_setspeed", &r.setspeed_khz, err))
		return -1;
	*s = r;
	return 0;
}

static bool listed(const domain_t *dom, long khz)
{
	for (int i = 0; i < dom->pub.nfreqs; i++)
		if (dom->pub.freqs_khz[i] == khz)
			return true;
	return false;
}

int cosched_cpufreq_check(const cosched_cpufreq_t *c, int index,
			  const cosched_cpufreq_setting_t *s,
			  cosched_error_t *err)
{
	const domain_t *dom;
	const cosched_cpufreq_domain_t *d;
	struct {
		const char *name;
		long khz;
	} f[] = { { "min", s->min_khz }, { "max", s->max_khz } };
	char list[GOVERNORS_TEXT_MAX];

	if (index < 0 || index >= c->n)
		return bad_index(c, index, err);
	dom = &c->d[index];
	d = &dom->pub;
	/* The site's word first: a governor it does not allow is never
	 * written, whatever the domain offers. */
	if (c->nallowed >= 0 &&
	    !governor_listed(c->nallowed, c->allowed, s->governor))
		return cosched_error_set(err,
			"%s: governor %s not allowed by %s (%s)",
			DOMAIN_NAME(dom), COSCHED_QUOTE(s->governor),
			c->allowed_what, governors_format(c->nallowed,
				c->allowed, list, sizeof(list)));
	if (!governor_listed(d->ngovernors, d->governors, s->governor))
		return cosched_error_set(err,
			"%s: governor %s not available (available: %s)",
			DOMAIN_NAME(dom), COSCHED_QUOTE(s->governor),
			governors_format(d->ngovernors, d->governors, list,
					 sizeof(list)));
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].khz < d->cpuinfo_min_khz ||
		    f[i].khz > d->cpuinfo_max_khz)
			return cosched_error_set(err,
				"%s: %s=%ld kHz out of range (%ld .. %ld kHz)",
				DOMAIN_NAME(dom), f[i].name, f[i].khz,
				d->cpuinfo_min_khz, d->cpuinfo_max_khz);
	if (s->min_khz > s->max_khz)
		return cosched_error_set(err,
			"%s: min=%ld kHz above max=%ld kHz", DOMAIN_NAME(dom),
			s->min_khz, s->max_khz);
	if (s->setspeed_khz == 0)
		return 0;
	if (strcmp(s->governor, "userspace"))
		return cosched_error_set(err,
			"%s: setspeed=%ld kHz with governor %s (only userspace takes a speed)",
			DOMAIN_NAME(dom), s->setspeed_khz,
			COSCHED_QUOTE(s->governor));
	if (s->setspeed_khz < s->min_khz || s->setspeed_khz > s->max_khz)
		return cosched_error_set(err,
			"%s: setspeed=%ld kHz out of range (min=%ld .. max=%ld kHz)",
			DOMAIN_NAME(dom), s->setspeed_khz, s->min_khz,
			s->max_khz);
	if (d->nfreqs && !listed(dom, s->setspeed_khz))
		return cosched_error_set(err,
			"%s: setspeed=%ld kHz is not an available frequency (%ld .. %ld kHz, %d listed)",
			DOMAIN_NAME(dom), s->setspeed_khz, d->freqs_khz[0],
			d->freqs_khz[d->nfreqs - 1], d->nfreqs);
	return 0;
}

static int write_khz(const domain_t *dom, const char *name, long khz,
		     cosched_error_t *err)
{
	char v[24];

	snprintf(v, sizeof(v), "%ld", khz);
	return attr_write(dom->dir, name, v, err);
}

/* The writes, in the order the kernel accepts, unchecked. */
static int _write_setting(const cosched_cpufreq_t *c, int index,
			  const cosched_cpufreq_setting_t *s,
			  cosched_error_t *err)
{
	const domain_t *dom;
	long cur_max;

	if (index < 0 || index >= c->n)
		return cosched_error_set(err, "cpufreq: no domain %d", index);
	dom = &c->d[index];
	if (read_khz(dom->dir, "scaling_max_freq", &cur_max, err) ||
	    attr_write(dom->dir, "scaling_governor", s->governor, err))
		return -1;
	/* The kernel refuses a minimum above the current maximum: when the
	 * new range lies above the current one, raise the maximum first;
	 * otherwise lower (or set) the minimum first.  Either way the range
	 * is widened before it is narrowed. */
	if (s->min_khz > cur_max) {
		if (write_khz(dom, "scaling_max_freq", s->max_khz, err) ||
		    write_khz(dom, "scaling_min_freq", s->min_khz, err))
			return -1;
	} else {
		if (write_khz(dom, "scaling_min_freq", s->min_khz, err) ||
		    write_khz(dom, "scaling_max_freq", s->max_khz, err))
			return -1;
	}
	if (!strcmp(s->governor, "userspace") && s->setspeed_khz > 0 &&
	    write_khz(dom, "scaling_setspeed", s->setspeed_khz, err))
		return -1;
	return 0;
}

int cosched_cpufreq_write(const cosched_cpufreq_t *c, int index,
			  const cosched_cpufreq_setting_t *s,
			  cosched_error_t *err)
{
	if (cosched_cpufreq_check(c, index, s, err))
		return -1;
	return _write_setting(c, index, s, err);
}

int cosched_cpufreq_restore(const cosched_cpufreq_t *c, int index,
			    const cosched_cpufreq_setting_t *s,
			    cosched_error_t *err)
{
	/* No check: the originals were read from this very domain, and a
	 * value the driver showed but does not list (a userspace speed off
	 * its table, a limit an administrator set) must still come back;
	 * the kernel alone may refuse it. */
	return _write_setting(c, index, s, err);
}

char *cosched_cpufreq_setting_format(const cosched_cpufreq_setting_t *s,
				     char *buf, size_t len)
{
	if (s->setspeed_khz > 0)
		snprintf(buf, len, "governor=%s min=%ld max=%ld setspeed=%ld",
			 s->governor, s->min_khz, s->max_khz, s->setspeed_khz);
	else
		snprintf(buf, len, "governor=%s min=%ld max=%ld", s->governor,
			 s->min_khz, s->max_khz);
	return buf;
}
