/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rapl.c - RAPL energy through the powercap sysfs interface under
 * a root prefix (see the header).
 *
 * sysfs attributes report a size of 4096 whatever they hold, so they are
 * read here until end of file into a page-sized buffer (not with
 * cosched_read_file(), which trusts the size), after the same safe open:
 * no link followed for the file itself, a regular file only.  The reader
 * is cpufreq.c's, keeping errno for the EACCES explanation.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/libcosched/io/file.h"
#include "src/libcosched/base/text.h"
#include "src/node/rapl.h"
#include "src/node/sysfs.h"

/* A sysfs attribute holds at most a page. */
#define ATTR_MAX 8192
#define UNAVAILABLE "energy unavailable"

typedef struct {
	cosched_rapl_zone_t pub;
	char path[COSCHED_PATH_MAX];	/* the zone's directory, link resolved */
	int n, m;			/* intel-rapl:N[:M]; m -1 for a package */
	uint64_t last_uj;		/* the counter at the last sample */
} zone_t;

struct cosched_rapl {
	char classdir[COSCHED_PATH_MAX];	/* ROOT/sys/class/powercap */
	int n;
	zone_t *z;
	uint64_t *now;			/* a sample's reads, before they count */
	bool has_core, has_dram;
	char notes[COSCHED_RAPL_NOTES_MAX];
};

const char *cosched_rapl_errno_hint(int errnum)
{
	if (errnum == EACCES || errnum == EPERM)
		return " (energy_uj is readable by root only since CVE-2020-8694: read it as root)";
	return "";
}

/* ---- reading one attribute ------------------------------------------ */

/* ---- strict parsers -------------------------------------------------- */

static int parse_int(const char *s, size_t n, int *out)
{
	uint64_t v;

	if (cosched_sysfs_parse_u64(s, n, INT_MAX, &v))
		return -1;
	*out = (int) v;
	return 0;
}

/* "package-P" or "package-P-die-D"; 0 when text is one, else -1. */
static int parse_package_name(const char *text, int *package, int *die)
{
	const char *p, *d;

	if (strncmp(text, "package-", 8))
		return -1;
	p = text + 8;
	d = strstr(p, "-die-");
	if (!d) {
		*die = -1;
		return parse_int(p, strlen(p), package);
	}
	if (parse_int(p, (size_t) (d - p), package))
		return -1;
	return parse_int(d + 5, strlen(d + 5), die);
}

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > COSCHED_RAPL_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
		      s[i] == '_'))
			return false;
	return true;
}

static int read_counter(const zone_t *z, uint64_t *uj, cosched_error_t *err)
{
	char buf[ATTR_MAX], expected[64];

	if (cosched_sysfs_read(z->path, "energy_uj", buf, sizeof(buf), NULL,
			       cosched_rapl_errno_hint, err))
		return -1;
	if (cosched_sysfs_parse_u64(buf, strlen(buf), z->pub.max_range_uj, uj)) {
		snprintf(expected, sizeof(expected), "0 .. %llu",
			 (unsigned long long) z->pub.max_range_uj);
		return cosched_sysfs_malformed(z->path, "energy_uj", buf,
					       expected, err);
	}
	return 0;
}

/* ---- the scan -------------------------------------------------------- */

/* "intel-rapl:N" or "intel-rapl:N:M" (m = -1 for the first form). */
static int parse_zone_dir(const char *s, int *n, int *m)
{
	const char *colon;

	if (strncmp(s, "intel-rapl:", 11))
		return -1;
	s += 11;
	colon = strchr(s, ':');
	if (!colon) {
		*m = -1;
		return parse_int(s, strlen(s), n);
	}
	if (parse_int(s, (size_t) (colon - s), n))
		return -1;
	return parse_int(colon + 1, strlen(colon + 1), m);
}

static void note(cosched_rapl_t *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(cosched_rapl_t *r, const char *fmt, ...)
{
	size_t used = strlen(r->notes);
	va_list ap;

	if (used && used < sizeof(r->notes) - 2) {
		strcpy(r->notes + used, "; ");
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(r->notes + used, sizeof(r->notes) - used, fmt, ap);
	va_end(ap);
}

static int kind_rank(cosched_rapl_kind_t k)
{
	return (int) k;
}

static int cmp_zone(const void *a, const void *b)
{
	const zone_t *x = a, *y = b;
	int kx[3] = { x->pub.package, x->pub.die, kind_rank(x->pub.kind) };
	int ky[3] = { y->pub.package, y->pub.die, kind_rank(y->pub.kind) };

	for (int i = 0; i < 3; i++)
		if (kx[i] != ky[i])
			return (kx[i] > ky[i]) - (kx[i] < ky[i]);
	return 0;
}

static int cmp_int2(const void *a, const void *b)
{
	const int *x = a, *y = b;

	if (x[0] != y[0])
		return (x[0] > y[0]) - (x[0] < y[0]);
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Every intel-rapl:N[:M] entry of the class directory, sorted: a package
 * zone as (-1, N), so packages come first, a subzone as (N, M). */
static int list_zones(cosched_rapl_t *r, int (*nm)[2], int *count,
		      cosched_error_t *err)
{
	struct dirent *e;
	DIR *dp = opendir(r->classdir);

	*count = 0;
	if (!dp) {
		if (errno == ENOENT)
			return cosched_error_set(err, "no powercap under %s",
						 r->classdir);
		return cosched_error_set(err, "no powercap under %s: %s",
					 r->classdir, strerror(errno));
	}
	while ((e = readdir(dp))) {
		int n, m;

		if (parse_zone_dir(e->d_name, &n, &m))
			continue;
		if (*count == COSCHED_RAPL_ZONES_MAX) {
			closedir(dp);
			return cosched_error_set(err,
				"%s: more than %d RAPL zones", r->classdir,
				COSCHED_RAPL_ZONES_MAX);
		}
		nm[*count][0] = m < 0 ? -1 : n;
		nm[*count][1] = m < 0 ? n : m;
		(*count)++;
	}
	closedir(dp);
	qsort(nm, (size_t) *count, sizeof(nm[0]), cmp_int2);
	return 0;
}

/* Resolve ROOT/sys/class/powercap/DIR, which must stay inside ROOT/sys. */
static int zone_path(const cosched_rapl_t *r, const char *sysdir,
		     const char *dir, char *out, cosched_error_t *err)
{
	char path[COSCHED_PATH_MAX], real[PATH_MAX];
	size_t slen = strlen(sysdir);
	struct stat st;

	if ((size_t) snprintf(path, sizeof(path), "%s/%s", r->classdir, dir) >=
	    sizeof(path))
		return cosched_error_set(err, "%s/%s: path too long",
					 r->classdir, dir);
	if (!realpath(path, real))
		return cosched_error_set(err, "%s: %s", path, strerror(errno));
	if (strncmp(real, sysdir, slen) || real[slen] != '/')
		return cosched_error_set(err, "%s: leads out of %s (to %s)",
					 path, sysdir, COSCHED_QUOTE(real));
	if (stat(real, &st) || !S_ISDIR(st.st_mode))
		return cosched_error_set(err, "%s: not a directory", path);
	if (strlen(real) >= COSCHED_PATH_MAX)
		return cosched_error_set(err, "%s: path too long", path);
	snprintf(out, COSCHED_PATH_MAX, "%s", real);
	return 0;
}

/* Read a zone's name and range; 1 when the zone is not one cosched uses. */
static int read_zone(cosched_rapl_t *r, const char *sysdir, zone_t *z,
		     const zone_t *parent, cosched_error_t *err)
{
	char buf[ATTR_MAX];

	if (z->m < 0)
		snprintf(z->pub.dir, sizeof(z->pub.dir), "intel-rapl:%d", z->n);
	else
		snprintf(z->pub.dir, sizeof(z->pub.dir), "intel-rapl:%d:%d",
			 z->n, z->m);
	if (zone_path(r, sysdir, z->pub.dir, z->path, err) ||
	    cosched_sysfs_read(z->path, "name", buf, sizeof(buf), NULL,
			       cosched_rapl_errno_hint, err))
		return -1;
	if (!name_ok(buf))
		return cosched_sysfs_malformed(z->path, "name", buf,
			"a zone name ([a-z0-9_-], at most 31 bytes)", err);
	snprintf(z->pub.name, sizeof(z->pub.name), "%s", buf);
	if (!parent) {
		if (!strcmp(buf, "psys"))
			return 1;	/* the platform: includes the packages */
		if (parse_package_name(buf, &z->pub.package, &z->pub.die)) {
			note(r, "%s: zone %s not used", z->pub.dir,
			     COSCHED_QUOTE(buf));
			return 1;
		}
		z->pub.kind = COSCHED_RAPL_PACKAGE;
	} else {
		if (!strcmp(buf, "uncore"))
			return 1;	/* PP1: inside the package */
		if (!strcmp(buf, "core"))
			z->pub.kind = COSCHED_RAPL_CORE;
		else if (!strcmp(buf, "dram"))
			z->pub.kind = COSCHED_RAPL_DRAM;
		else {
			note(r, "%s: zone %s not used", z->pub.dir,
			     COSCHED_QUOTE(buf));
			return 1;
		}
		z->pub.package = parent->pub.package;
		z->pub.die = parent->pub.die;
	}
	if (cosched_sysfs_read(z->path, "max_energy_range_uj", buf,
			       sizeof(buf), NULL, cosched_rapl_errno_hint,
			       err))
		return -1;
	if (cosched_sysfs_parse_u64(buf, strlen(buf), COSCHED_RAPL_RANGE_MAX,
		      &z->pub.max_range_uj) || !z->pub.max_range_uj)
		return cosched_sysfs_malformed(z->path, "max_energy_range_uj",
					       buf, "1 .. 281474976710656",
					       err);
	return read_counter(z, &z->last_uj, err);
}

static int scan(cosched_rapl_t *r, const char *sysdir, cosched_error_t *err)
{
	int (*nm)[2];
	int count, npackages = 0;

	nm = calloc(COSCHED_RAPL_ZONES_MAX, sizeof(*nm));
	r->z = calloc(COSCHED_RAPL_ZONES_MAX, sizeof(*r->z));
	r->now = calloc(COSCHED_RAPL_ZONES_MAX, sizeof(*r->now));
	if (!nm || !r->z || !r->now) {
		free(nm);
		return cosched_error_set(err, "out of memory");
	}
	if (list_zones(r, nm, &count, err))
		goto fail;
	/* The package zones first, so each subzone finds its parent. */
	for (int i = 0; i < count; i++) {
		zone_t *z = &r->z[r->n];
		int rc;

		if (nm[i][0] != -1)
			continue;
		memset(z, 0, sizeof(*z));
		z->n = nm[i][1];
		z->m = -1;
		rc = read_zone(r, sysdir, z, NULL, err);
		if (rc < 0)
			goto fail;
		if (rc > 0)
			continue;
		for (int k = 0; k < r->n; k++)
			if (r->z[k].pub.package == z->pub.package &&
			    r->z[k].pub.die == z->pub.die) {
				cosched_error_set(err,
					"%s and %s: both named %s",
					r->z[k].path, z->path,
					COSCHED_QUOTE(z->pub.name));
				goto fail;
			}
		r->n++;
		npackages++;
	}
	if (!npackages) {
		if (r->notes[0])
			cosched_error_set(err, "no RAPL package zone under %s (%s)",
					  r->classdir, r->notes);
		else
			cosched_error_set(err, "no RAPL package zone under %s",
					  r->classdir);
		goto fail;
	}
	for (int i = 0; i < count; i++) {
		zone_t *z = &r->z[r->n], *parent = NULL;
		int rc;

		if (nm[i][0] == -1)
			continue;
		for (int k = 0; k < npackages; k++)
			if (r->z[k].n == nm[i][0])
				parent = &r->z[k];
		if (!parent)
			continue;	/* under psys or an unused zone */
		memset(z, 0, sizeof(*z));
		z->n = nm[i][0];
		z->m = nm[i][1];
		rc = read_zone(r, sysdir, z, parent, err);
		if (rc < 0)
			goto fail;
		if (rc > 0)
			continue;
		for (int k = npackages; k < r->n; k++)
			if (r->z[k].n == z->n && r->z[k].pub.kind == z->pub.kind) {
				cosched_error_set(err,
					"%s and %s: two %s zones in %s",
					r->z[k].path, z->path, z->pub.name,
					parent->pub.name);
				goto fail;
			}
		r->n++;
	}
	qsort(r->z, (size_t) r->n, sizeof(*r->z), cmp_zone);
	r->has_core = r->has_dram = true;
	for (int k = 0; k < r->n; k++) {
		bool core = false, dram = false;

		if (r->z[k].pub.kind != COSCHED_RAPL_PACKAGE)
			continue;
		for (int j = k + 1; j < r->n &&
		     r->z[j].pub.kind != COSCHED_RAPL_PACKAGE; j++) {
			core |= r->z[j].pub.kind == COSCHED_RAPL_CORE;
			dram |= r->z[j].pub.kind == COSCHED_RAPL_DRAM;
		}
		if (!core) {
			r->has_core = false;
			note(r, "%s: no core zone", r->z[k].pub.name);
		}
		if (!dram) {
			r->has_dram = false;
			note(r, "%s: no dram zone", r->z[k].pub.name);
		}
	}
	free(nm);
	return 0;
fail:
	free(nm);
	return -1;
}

cosched_rapl_t *cosched_rapl_open(const char *root, cosched_error_t *err)
{
	char sysdir[COSCHED_PATH_MAX], realsys[PATH_MAX];
	cosched_rapl_t *r;
	size_t len;

	if (cosched_dir_path_check("SysfsRoot", root, COSCHED_PATH_MAX - 128,
				   err)) {
		cosched_error_prefix(err, UNAVAILABLE);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		cosched_error_set(err, UNAVAILABLE ": out of memory");
		return NULL;
	}
	len = strlen(root);
	while (len > 1 && root[len - 1] == '/')
		len--;
	/* The path check keeps both well inside COSCHED_PATH_MAX. */
	snprintf(sysdir, sizeof(sysdir), "%.*s/sys",
		 (int) (len == 1 ? 0 : len), root);
	snprintf(r->classdir, sizeof(r->classdir), "%.*s/sys/class/powercap",
		 (int) (len == 1 ? 0 : len), root);
	if (!realpath(sysdir, realsys)) {
		cosched_error_set(err, "no powercap under %s", r->classdir);
		goto fail;
	}
	if (scan(r, realsys, err))
		goto fail;
	return r;
fail:
	cosched_error_prefix(err, UNAVAILABLE);
	cosched_rapl_close(r);
	return NULL;
}

void cosched_rapl_close(cosched_rapl_t *r)
{
	if (!r)
		return;
	free(r->z);
	free(r->now);
	free(r);
}

int cosched_rapl_nzones(const cosched_rapl_t *r)
{
	return r->n;
}

const cosched_rapl_zone_t *cosched_rapl_zone(const cosched_rapl_t *r,
					     int index)
{
	if (index < 0 || index >= r->n)
		return NULL;
	return &r->z[index].pub;
}

int cosched_rapl_find(const cosched_rapl_t *r, const char *dir)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->z[i].pub.dir, dir))
			return i;
	return -1;
}

const char *cosched_rapl_notes(const cosched_rapl_t *r)
{
	return r->notes;
}

bool cosched_rapl_has_core(const cosched_rapl_t *r)
{
	return r->has_core;
}

bool cosched_rapl_has_dram(const cosched_rapl_t *r)
{
	return r->has_dram;
}

int cosched_rapl_read(const cosched_rapl_t *r, uint64_t *uj,
		      cosched_error_t *err)
{
	for (int i = 0; i < r->n; i++)
		if (read_counter(&r->z[i], &uj[i], err))
			return cosched_error_prefix(err, UNAVAILABLE);
	return 0;
}

void cosched_rapl_get_last(const cosched_rapl_t *r, uint64_t *uj)
{
	for (int i = 0; i < r->n; i++)
		uj[i] = r->z[i].last_uj;
}

void cosched_rapl_set_last(cosched_rapl_t *r, const uint64_t *uj)
{
	for (int i = 0; i < r->n; i++)
		r->z[i].last_uj = uj[i];
}

uint64_t cosched_rapl_delta(uint64_t prev, uint64_t cur, uint64_t max_range,
			    bool *wrapped)
{
	if (wrapped)
		*wrapped = cur < prev;
	if (cur >= prev)
		return cur - prev;
	/* prev .. max_range, then 0 .. cur: the counter takes max_range + 1
	 * values. */
	return max_range - prev + 1 + cur;
}

int cosched_rapl_sample(cosched_rapl_t *r, cosched_rapl_delta_t *delta,
			cosched_energy_node_t *node, cosched_error_t *err)
{
	cosched_energy_node_t sum = { 0, 0, 0, r->has_core, r->has_dram };
	uint64_t *now = r->now;

	/* Every counter first: a zone that fails changes nothing. */
	if (cosched_rapl_read(r, now, err))
		return -1;
	for (int i = 0; i < r->n; i++) {
		zone_t *z = &r->z[i];
		bool wrapped;
		uint64_t d = cosched_rapl_delta(z->last_uj, now[i],
						z->pub.max_range_uj, &wrapped);

		if (delta) {
			delta[i].uj = d;
			delta[i].wrapped = wrapped;
		}
		/* Each delta is at most 2^48: no sum of 768 overflows. */
		switch (z->pub.kind) {
		case COSCHED_RAPL_PACKAGE:
			sum.package_uj += d;
			break;
		case COSCHED_RAPL_CORE:
			sum.core_uj += d;
			break;
		case COSCHED_RAPL_DRAM:
			sum.dram_uj += d;
			break;
		}
		z->last_uj = now[i];
	}
	if (!sum.has_core)
		sum.core_uj = 0;
	if (!sum.has_dram)
		sum.dram_uj = 0;
	if (node)
		*node = sum;
	return 0;
}
