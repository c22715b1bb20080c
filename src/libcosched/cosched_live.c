/*
 * cosched_live.c - live loads from the nodes to slurmctld through
 * ProfileDir/live (see the header).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cosched_file.h"
#include "cosched_number.h"
#include "cosched_text.h"
#include "cosched_live.h"

#define LIVE_TAG "cosched-live/"
#define LIVE_PATH_MAX (COSCHED_PATH_MAX + COSCHED_LIVE_NODE_MAX + 64)

int cosched_live_node_check(const char *node, cosched_error_t *err)
{
	size_t n = node ? strlen(node) : 0;

	if (!n || n > COSCHED_LIVE_NODE_MAX ||
	    strspn(node, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789._-") != n || node[0] == '.')
		return cosched_error_set(err,
			"node: \"%.64s\": expected 1 to %d of A-Z a-z 0-9 . _ - (not starting with .)",
			node ? node : "", COSCHED_LIVE_NODE_MAX);
	return 0;
}

int cosched_live_format(const cosched_live_t *l, char *buf, size_t len,
			cosched_error_t *err)
{
	if (cosched_live_node_check(l->node, err))
		return -1;
	if (!isfinite(l->mpki) || l->mpki < 0.0 || l->mpki > 1e6)
		return cosched_error_set(err, "mpki: %g: expected 0 to 1e6",
					 l->mpki);
	if ((size_t) snprintf(buf, len,
			      LIVE_TAG "%d job=%" PRIu32 " step=%" PRIu32
			      " node=%s mpki=%.6f time=%lld\n",
			      COSCHED_LIVE_SCHEMA, l->job_id, l->step_id,
			      l->node, l->mpki, l->time) >= len)
		return cosched_error_set(err, "live load: buffer too small");
	return 0;
}

static int num_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (cosched_parse_u64(s, UINT32_MAX, &v))
		return -1;
	*out = (uint32_t) v;
	return 0;
}

int cosched_live_parse(const char *text, cosched_live_t *l,
		       cosched_error_t *err)
{
	char line[COSCHED_LIVE_LINE_MAX + 1], *tok, *save, *end;
	static const char *const keys[] = { "job", "step", "node", "mpki",
					    "time" };
	size_t n = strlen(text);
	int schema;

	memset(l, 0, sizeof(*l));
	if (n == 0 || n > COSCHED_LIVE_LINE_MAX || text[n - 1] != '\n' ||
	    memchr(text, '\n', n - 1))
		return cosched_error_set(err,
			"expected one line of at most %d characters",
			COSCHED_LIVE_LINE_MAX);
	memcpy(line, text, n - 1);
	line[n - 1] = '\0';
	tok = strtok_r(line, " ", &save);
	if (!tok || strncmp(tok, LIVE_TAG, strlen(LIVE_TAG)) ||
	    sscanf(tok + strlen(LIVE_TAG), "%d", &schema) != 1 ||
	    schema != COSCHED_LIVE_SCHEMA)
		return cosched_error_set(err,
			"not a version %d live load (\"%.32s\")",
			COSCHED_LIVE_SCHEMA, tok ? tok : "");
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		char *v;

		tok = strtok_r(NULL, " ", &save);
		if (!tok || strncmp(tok, keys[k], strlen(keys[k])) ||
		    tok[strlen(keys[k])] != '=')
			return cosched_error_set(err, "expected %s= as field %zu",
						 keys[k], k + 2);
		v = tok + strlen(keys[k]) + 1;
		switch (k) {
		case 0:
			if (num_u32(v, &l->job_id))
				return cosched_error_set(err, "job: \"%.32s\"", v);
			break;
		case 1:
			if (num_u32(v, &l->step_id))
				return cosched_error_set(err, "step: \"%.32s\"", v);
			break;
		case 2:
			if (cosched_live_node_check(v, err))
				return -1;
			strcpy(l->node, v);
			break;
		case 3:
			errno = 0;
			l->mpki = strtod(v, &end);
			if (errno || end == v || *end || !isfinite(l->mpki) ||
			    l->mpki < 0.0 || l->mpki > 1e6)
				return cosched_error_set(err,
					"mpki: \"%.32s\": expected 0 to 1e6", v);
			break;
		case 4:
			errno = 0;
			l->time = strtoll(v, &end, 10);
			if (errno || end == v || *end || l->time < 0)
				return cosched_error_set(err, "time: \"%.32s\"", v);
			break;
		}
	}
	if (strtok_r(NULL, " ", &save))
		return cosched_error_set(err, "more fields than expected");
	return 0;
}

bool cosched_live_should_publish(bool has_last, double last, double now,
				 double age_s)
{
	double change = fabs(now - last);

	if (!has_last || age_s >= COSCHED_LIVE_REFRESH_S)
		return true;
	return change > COSCHED_LIVE_MIN_CHANGE &&
	       change > COSCHED_LIVE_REL_CHANGE * fabs(last);
}

static int live_paths(const char *profile_dir, uint32_t job, uint32_t step,
		      const char *node, char *dir, char *file,
		      cosched_error_t *err)
{
	if (cosched_dir_path_check("ProfileDir", profile_dir,
				   COSCHED_PATH_MAX - 16, err) ||
	    cosched_live_node_check(node, err))
		return -1;
	snprintf(dir, LIVE_PATH_MAX, "%s/" COSCHED_LIVE_SUBDIR, profile_dir);
	snprintf(file, LIVE_PATH_MAX, "%s/%" PRIu32 ".%" PRIu32 ".%s", dir,
		 job, step, node);
	return 0;
}

int cosched_live_write(const char *profile_dir, const cosched_live_t *l,
		       cosched_error_t *err)
{
	char dir[LIVE_PATH_MAX], file[LIVE_PATH_MAX];
	char line[COSCHED_LIVE_LINE_MAX + 1];
	struct stat st;

	if (live_paths(profile_dir, l->job_id, l->step_id, l->node, dir, file,
		       err) ||
	    cosched_live_format(l, line, sizeof(line), err))
		return -1;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return cosched_error_set(err, "%s: cannot create: %s", dir,
					 strerror(errno));
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode))
		return cosched_error_set(err, "%s: not a directory", dir);
	/* 0644 whatever the umask: slurmctld must read it, and the trust
	 * check refuses write bits for others.  Not durable: the sampler
	 * rewrites it while the step runs, and a torn one is refused. */
	return cosched_file_replace(file, line, strlen(line), 0644, 0, err);
}

int cosched_live_remove(const char *profile_dir, uint32_t job_id,
			uint32_t step_id, const char *node,
			cosched_error_t *err)
{
	char dir[LIVE_PATH_MAX], file[LIVE_PATH_MAX];

	if (live_paths(profile_dir, job_id, step_id, node, dir, file, err))
		return -1;
	if (unlink(file) && errno != ENOENT)
		return cosched_error_set(err, "%s: cannot remove: %s", file,
					 strerror(errno));
	return 0;
}

static int job_cmp(const void *a, const void *b)
{
	uint32_t x = ((const cosched_live_job_t *) a)->job_id;
	uint32_t y = ((const cosched_live_job_t *) b)->job_id;

	return x < y ? -1 : x > y;
}

/* Whether name is what a live file of l is called. */
static bool name_matches(const char *name, const cosched_live_t *l)
{
	char want[COSCHED_LIVE_NODE_MAX + 32];

	snprintf(want, sizeof(want), "%" PRIu32 ".%" PRIu32 ".%s", l->job_id,
		 l->step_id, l->node);
	return !strcmp(name, want);
}

long cosched_live_scan(const char *profile_dir, long long now, int stale_s,
		       cosched_live_job_t **jobs, int *nbad,
		       cosched_error_t *err)
{
	char dir[LIVE_PATH_MAX], path[LIVE_PATH_MAX + 300];
	cosched_live_job_t *out = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *dp;

	*jobs = NULL;
	*nbad = 0;
	if (cosched_dir_path_check("ProfileDir", profile_dir,
				   COSCHED_PATH_MAX - 16, err))
		return -1;
	snprintf(dir, sizeof(dir), "%s/" COSCHED_LIVE_SUBDIR, profile_dir);
	dp = opendir(dir);
	if (!dp) {
		if (errno == ENOENT)
			return 0;
		return cosched_error_set(err, "%s: %s", dir, strerror(errno));
	}
	while ((e = readdir(dp))) {
		cosched_error_t ferr;
		cosched_live_t l;
		struct stat st;
		int missing;
		char *text;
		size_t k;

		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp"))
			continue;
		/* Names reach slurmctld's log: anything but a live file's
		 * characters is refused, quoted and shortened, unread. */
		if (strlen(e->d_name) > COSCHED_LIVE_NODE_MAX + 32 ||
		    strspn(e->d_name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "abcdefghijklmnopqrstuvwxyz0123456789._-") !=
		    strlen(e->d_name)) {
			char q[COSCHED_QUOTE_BUF];

			if (!(*nbad)++)
				cosched_error_set(err, "%s: not a live load's name",
						  cosched_quote(q, sizeof(q),
								e->d_name));
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		text = cosched_read_file_stat(path, COSCHED_LIVE_LINE_MAX,
					      &missing, &st, &ferr);
		if (!text) {
			if (!missing && !(*nbad)++)
				*err = ferr;
			continue;
		}
		if (cosched_file_trusted(path, &st, "live loads", &ferr) ||
		    cosched_live_parse(text, &l, &ferr) ||
		    (!name_matches(e->d_name, &l) &&
		     cosched_error_set(&ferr, "holds job %" PRIu32 " step %"
				       PRIu32 " node %s: not its name",
				       l.job_id, l.step_id, l.node))) {
			free(text);
			if (!(*nbad)++)
				cosched_error_set(err, "%s: %s",
						  e->d_name, ferr.msg);
			continue;
		}
		free(text);
		if (now - (long long) st.st_mtime > stale_s) {
			unlink(path);	/* best effort: its sampler is gone */
			continue;
		}
		for (k = 0; k < n && out[k].job_id != l.job_id; k++)
			;
		if (k == n) {
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 64;
				cosched_live_job_t *no = realloc(out,
							nc * sizeof(*out));
				if (!no) {
					closedir(dp);
					free(out);
					return cosched_error_set(err,
						"live loads: out of memory");
				}
				out = no;
				cap = nc;
			}
			out[n].job_id = l.job_id;
			out[n].mpki = l.mpki;
			out[n].time = l.time;
			out[n].files = 0;
			n++;
		}
		if (l.mpki > out[k].mpki)
			out[k].mpki = l.mpki;
		if (l.time > out[k].time)
			out[k].time = l.time;
		out[k].files++;
	}
	closedir(dp);
	if (n > 1)
		qsort(out, n, sizeof(*out), job_cmp);
	*jobs = out;
	return (long) n;
}
