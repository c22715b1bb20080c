/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * numa_step.c - the step files task/cosched writes for the NUMA
 * manager (see the header).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/libcosched/model/decision.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/base/kv.h"
#include "src/libcosched/base/kv_file.h"
#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/text.h"
#include "src/node/numa_step.h"

static int expect_u32(cosched_kv_reader_t *r, const char *key, uint32_t min,
		      uint32_t *out, cosched_error_t *err)
{
	uint64_t x;
	char *v;

	if (cosched_kv_expect(r, key, &v, err) ||
	    cosched_kv_u64(key, v, UINT32_MAX, &x, err))
		return -1;
	if (x < min)
		return cosched_error_set(err, "%s: %s is below %u", key, v,
					 min);
	*out = (uint32_t) x;
	return 0;
}

/* "cosched-numa-step/1 job=J step=S node=NODE uid=U priority=P
 * ledger="DIR"". */
static int read_head(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	cosched_numa_step_t *s = ctx;
	cosched_kv_reader_t *r = &line->r;
	char *v;
	int i;

	if (expect_u32(r, "job", 1, &s->job_id, err) ||
	    expect_u32(r, "step", 0, &s->step_id, err) ||
	    cosched_kv_expect(r, "node", &v, err))
		return -1;
	if (!cosched_decision_node_name_ok(v, strlen(v)))
		return cosched_error_set(err, "node: invalid node name %s",
					 COSCHED_QUOTE(v));
	snprintf(s->node, sizeof(s->node), "%s", v);
	if (expect_u32(r, "uid", 0, &s->uid, err) ||
	    cosched_kv_expect(r, "priority", &v, err))
		return -1;
	i = cosched_name_parse("priority", "value", cosched_numa_priority_names,
			       0, COSCHED_NUMA_COUNT, v, false, err);
	if (i < 0)
		return -1;
	s->priority = (cosched_numa_priority_t) i;
	if (cosched_kv_expect_quoted(r, "ledger", &v, err))
		return -1;
	if (v[0] && cosched_dir_path_check("ledger", v, COSCHED_PATH_MAX - 64,
					   err))
		return -1;
	snprintf(s->ledger, sizeof(s->ledger), "%s", v);
	return 0;
}

/* "task pid=P start=T". */
static int read_task(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	cosched_numa_step_t *s = ctx;
	uint32_t pid;
	uint64_t start;

	if (s->ntasks == COSCHED_NUMA_STEP_TASKS_MAX)
		return cosched_error_set(err, "task: more than %d tasks",
					 COSCHED_NUMA_STEP_TASKS_MAX);
	if (expect_u32(&line->r, "pid", 1, &pid, err))
		return -1;
	if (pid > INT32_MAX)
		return cosched_error_set(err, "pid: %u is no process", pid);
	if (cosched_kv_expect_u64(&line->r, "start", UINT64_MAX, &start, err))
		return -1;
	s->tasks[s->ntasks].pid = (pid_t) pid;
	s->tasks[s->ntasks].start_time = start;
	s->ntasks++;
	return 0;
}

static const cosched_kv_kind_t step_kinds[] = {
	{ "task", read_task },
	{ NULL, NULL },
};

/* The version this release writes is own (src/libcosched/base/kv.h). */
static const cosched_kv_form_t step_form = {
	.what = "NUMA step file", .reader = "this manager",
	.tag = COSCHED_NUMA_STEP_TAG "/", .own = { 1, 0 },
	.head = read_head, .kinds = step_kinds,
};

int cosched_numa_step_parse(char *text, cosched_numa_step_t *s,
			    cosched_error_t *err)
{
	memset(s, 0, sizeof(*s));
	return cosched_kv_file_read(&step_form, text, s, err);
}

char *cosched_numa_step_format(const cosched_numa_step_t *s,
			       cosched_error_t *err)
{
	char version[64], *text;
	cosched_kv_out_t o;

	if (!cosched_decision_node_name_ok(s->node, strlen(s->node))) {
		cosched_error_set(err, "node: invalid node name %s",
				  COSCHED_QUOTE(s->node));
		return NULL;
	}
	cosched_kv_out_grow(&o);
	cosched_kv_put_str(&o, cosched_kv_version_text(step_form.tag,
		step_form.own, version, sizeof(version)));
	cosched_kv_put_int(&o, "job", s->job_id);
	cosched_kv_put_int(&o, "step", s->step_id);
	cosched_kv_put(&o, "node", "%s", s->node);
	cosched_kv_put_int(&o, "uid", s->uid);
	cosched_kv_put(&o, "priority", "%s",
		       cosched_numa_priority_name(s->priority));
	cosched_kv_put_quoted(&o, "ledger", s->ledger);
	cosched_kv_put_str(&o, "\n");
	for (int i = 0; i < s->ntasks; i++)
		cosched_kv_put_fmt(&o, "task pid=%d start=%llu\n",
				   (int) s->tasks[i].pid,
				   s->tasks[i].start_time);
	text = cosched_kv_out_take(&o);
	if (!text)
		cosched_error_set(err, "step file: out of memory");
	return text;
}

int cosched_numa_step_name(const cosched_numa_step_t *s, char *buf,
			   size_t len, cosched_error_t *err)
{
	int n;

	if (!cosched_decision_node_name_ok(s->node, strlen(s->node)))
		return cosched_error_set(err, "node: invalid node name %s",
					 COSCHED_QUOTE(s->node));
	n = snprintf(buf, len, "%u.%u.%s", s->job_id, s->step_id, s->node);
	if (n < 0 || (size_t) n >= len)
		return cosched_error_set(err, "step file name too long");
	return 0;
}

int cosched_numa_step_write(const char *dir, const cosched_numa_step_t *s,
			    cosched_error_t *err)
{
	char name[128], path[COSCHED_PATH_MAX];
	struct stat st;
	char *text;
	int rc;

	if (lstat(dir, &st)) {
		if (errno == ENOENT)
			return 1;
		return cosched_error_set(err, "NumaStepDir %s: %s",
					 COSCHED_QUOTE(dir), strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return cosched_error_set(err,
			"NumaStepDir %s is not a directory", COSCHED_QUOTE(dir));
	if (cosched_numa_step_name(s, name, sizeof(name), err) ||
	    cosched_spool_path(path, sizeof(path), dir, name, "", err))
		return -1;
	text = cosched_numa_step_format(s, err);
	if (!text)
		return -1;
	/* Not durable: the directory is under /run, and a step file means
	 * nothing after a reboot. */
	rc = cosched_file_replace(path, text, strlen(text), 0600, 0, err);
	free(text);
	return rc ? -1 : 0;
}

int cosched_numa_step_remove(const char *dir, const cosched_numa_step_t *s,
			     cosched_error_t *err)
{
	char name[128], path[COSCHED_PATH_MAX];

	if (cosched_numa_step_name(s, name, sizeof(name), err) ||
	    cosched_spool_path(path, sizeof(path), dir, name, "", err))
		return -1;
	if (unlink(path) && errno != ENOENT)
		return cosched_error_set(err, "%s: cannot remove: %s", path,
					 strerror(errno));
	return 0;
}

int cosched_numa_step_read(const char *dir, const char *name,
			   cosched_numa_step_t *s, cosched_error_t *err)
{
	char path[COSCHED_PATH_MAX];
	char *text;
	int rc;

	struct stat st;

	if (cosched_spool_path(path, sizeof(path), dir, name, "", err))
		return -1;
	text = cosched_read_file_stat(path, COSCHED_NUMA_STEP_FILE_MAX, NULL,
				      &st, err);
	if (!text)
		return -1;
	/* slurmstepd writes them as root, 0600: anything else was put
	 * there by someone else, and is not read. */
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		free(text);
		return cosched_error_set(err,
			"%s: not a step file of slurmstepd's (owner %ld, mode %03o; expected this daemon's user and 0600)",
			path, (long) st.st_uid, (unsigned) (st.st_mode & 0777));
	}
	rc = cosched_numa_step_parse(text, s, err);
	free(text);
	if (rc)
		return cosched_error_prefix(err, path);
	return 0;
}
