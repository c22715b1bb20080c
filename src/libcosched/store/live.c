/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live.c - live loads from the nodes to slurmctld through
 * ProfileDir/live (see the header).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/libcosched/io/file.h"
#include "src/libcosched/base/kv.h"
#include "src/libcosched/base/kv_file.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"
#include "src/libcosched/store/live.h"

#define LIVE_TAG "cosched-live/"
#define LIVE_PATH_MAX (COSCHED_PATH_MAX + COSCHED_LIVE_NODE_MAX + 64)

int cosched_live_node_check(const char *node, cosched_error_t *err)
{
	size_t n = node ? strlen(node) : 0;

	if (!n || n > COSCHED_LIVE_NODE_MAX ||
	    strspn(node, COSCHED_LIVE_NAME_CHARS) != n || node[0] == '.')
		return cosched_error_set(err,
			"node: \"%.64s\": expected 1 to %d of A-Z a-z 0-9 . _ - (not starting with .)",
			node ? node : "", COSCHED_LIVE_NODE_MAX);
	return 0;
}

/* "cosched-live/1 job=J step=S node=NODE mpki=M time=T". */
static int read_head(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	cosched_live_t *l = ctx;
	uint64_t x;
	char *v;

	if (cosched_kv_expect_u64(&line->r, "job", UINT32_MAX, &x, err))
		return -1;
	l->job_id = (uint32_t) x;
	if (cosched_kv_expect_u64(&line->r, "step", UINT32_MAX, &x, err))
		return -1;
	l->step_id = (uint32_t) x;
	if (cosched_kv_expect(&line->r, "node", &v, err) ||
	    cosched_live_node_check(v, err))
		return -1;
	strcpy(l->node, v);
	if (cosched_kv_expect(&line->r, "mpki", &v, err))
		return -1;
	if (cosched_parse_number(v, &l->mpki) || l->mpki < 0.0 ||
	    l->mpki > 1e6)
		return cosched_error_set(err,
			"mpki: %s: expected 0 to 1e6", COSCHED_QUOTE(v));
	if (cosched_kv_expect_u64(&line->r, "time", LLONG_MAX, &x, err))
		return -1;
	l->time = (long long) x;
	return 0;
}

/* One line, the head.  The version this release writes is own: "/1"
 * while the minor is 0, what every 1.x reader reads (base/kv.h). */
static const cosched_kv_form_t live_form = {
	.what = "live load", .reader = "this reader", .tag = LIVE_TAG,
	.own = { COSCHED_LIVE_SCHEMA, 0 }, .head = read_head,
};

int cosched_live_parse(const char *text, cosched_live_t *l,
		       cosched_error_t *err)
{
	char line[COSCHED_LIVE_LINE_MAX + 1];
	size_t n = strlen(text);

	memset(l, 0, sizeof(*l));
	if (n == 0 || n > COSCHED_LIVE_LINE_MAX || text[n - 1] != '\n' ||
	    memchr(text, '\n', n - 1))
		return cosched_error_set(err,
			"expected one line of at most %d characters",
			COSCHED_LIVE_LINE_MAX);
	memcpy(line, text, n + 1);
	return cosched_kv_file_read(&live_form, line, l, err);
}

int cosched_live_format(const cosched_live_t *l, char *buf, size_t len,
			cosched_error_t *err)
{
	char version[32];
	cosched_kv_out_t o;

	if (cosched_live_node_check(l->node, err))
		return -1;
	if (!isfinite(l->mpki) || l->mpki < 0.0 || l->mpki > 1e6)
		return cosched_error_set(err, "mpki: %g: expected 0 to 1e6",
					 l->mpki);
	cosched_kv_out_fixed(&o, buf, len);
	cosched_kv_put_str(&o, cosched_kv_version_text(LIVE_TAG, live_form.own,
						       version,
						       sizeof(version)));
	cosched_kv_put_int(&o, "job", l->job_id);
	cosched_kv_put_int(&o, "step", l->step_id);
	cosched_kv_put(&o, "node", "%s", l->node);
	cosched_kv_put(&o, "mpki", "%.6f", l->mpki);
	cosched_kv_put_int(&o, "time", l->time);
	cosched_kv_put_str(&o, "\n");
	if (o.over)
		return cosched_error_set(err, "live load: buffer too small");
	return 0;
}

int cosched_live_interval(int refresh_s, double cpu_s)
{
	double need = cpu_s / COSCHED_LIVE_CPU_SHARE;

	if (!(need > (refresh_s > 1 ? refresh_s : 1)))
		return refresh_s;
	return need >= 86400.0 ? 86400 : (int) ceil(need);
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

int cosched_live_write(const char *profile_dir,
		       const cosched_private_t *privacy,
		       const cosched_live_t *l, cosched_error_t *err)
{
	char dir[LIVE_PATH_MAX], file[LIVE_PATH_MAX];
	char line[COSCHED_LIVE_LINE_MAX + 1];

	if (live_paths(profile_dir, l->job_id, l->step_id, l->node, dir, file,
		       err) ||
	    cosched_live_format(l, line, sizeof(line), err))
		return -1;
	if ((privacy && privacy->on &&
	     cosched_private_dir(privacy, profile_dir, false, err)) ||
	    cosched_private_dir(privacy, dir, true, err))
		return -1;
	/* Its mode whatever the umask: slurmctld must read it, and the
	 * trust check refuses write bits for others.  Not durable: the
	 * sampler rewrites it while the step runs, and a torn one is
	 * refused. */
	return cosched_private_replace(privacy, file, line, strlen(line), 0,
				       err);
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
