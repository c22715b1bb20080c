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
	char dir[LIVE_PATH_MAX], file[LIVE_PATH_MAX], tmp[LIVE_PATH_MAX + 8];
	char line[COSCHED_LIVE_LINE_MAX + 1];
	struct stat st;
	size_t len;
	int fd;

	if (live_paths(profile_dir, l->job_id, l->step_id, l->node, dir, file,
		       err) ||
	    cosched_live_format(l, line, sizeof(line), err))
		return -1;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return cosched_error_set(err, "%s: cannot create: %s", dir,
					 strerror(errno));
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode))
		return cosched_error_set(err, "%s: not a directory", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0)
		return cosched_error_set(err, "%s: cannot create: %s", tmp,
					 strerror(errno));
	len = strlen(line);
	/* fchmod: the umask may have taken the read bits slurmctld needs,
	 * and must not leave write bits the trust check refuses. */
	if (write(fd, line, len) != (ssize_t) len || fchmod(fd, 0644)) {
		int saved = errno;
		close(fd);
		unlink(tmp);
		return cosched_error_set(err, "%s: cannot write: %s", tmp,
					 strerror(saved));
	}
	if (close(fd) || rename(tmp, file)) {
		int saved = errno;
		unlink(tmp);
		return cosched_error_set(err, "%s: cannot write: %s", file,
					 strerror(saved));
	}
	return 0;
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
