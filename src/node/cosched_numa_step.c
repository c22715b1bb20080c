/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_numa_step.c - the step files task/cosched writes for the NUMA
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
#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/text.h"
#include "cosched_numa_step.h"

static const cosched_kv_version_t step_version = { 1, 0 };

char *cosched_numa_step_format(const cosched_numa_step_t *s,
			       cosched_error_t *err)
{
	cosched_kv_out_t o;
	char *text;

	if (!cosched_decision_node_name_ok(s->node, strlen(s->node))) {
		cosched_error_set(err, "node: invalid node name %s",
				  COSCHED_QUOTE(s->node));
		return NULL;
	}
	cosched_kv_out_grow(&o);
	cosched_kv_put_str(&o, COSCHED_NUMA_STEP_TAG "/1");
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

static int parse_task(char *line, cosched_kv_version_t seen, int *skipped,
		      cosched_numa_step_t *s, cosched_error_t *err)
{
	cosched_kv_reader_t r;
	cosched_proc_id_t *t;
	uint32_t pid;
	uint64_t start;
	char *word, *v;

	if (s->ntasks == COSCHED_NUMA_STEP_TASKS_MAX)
		return cosched_error_set(err, "task: more than %d tasks",
					 COSCHED_NUMA_STEP_TASKS_MAX);
	cosched_kv_begin(&r, line, "task");
	if (cosched_kv_word(&r, &word, err) ||
	    expect_u32(&r, "pid", 1, &pid, err))
		return -1;
	if (pid > INT32_MAX)
		return cosched_error_set(err, "pid: %u is no process", pid);
	if (cosched_kv_expect(&r, "start", &v, err) ||
	    cosched_kv_u64("start", v, UINT64_MAX, &start, err) ||
	    cosched_kv_end_of(&r, seen, step_version, skipped, err))
		return -1;
	t = &s->tasks[s->ntasks++];
	t->pid = (pid_t) pid;
	t->start_time = start;
	return 0;
}

int cosched_numa_step_parse(char *text, cosched_numa_step_t *s,
			    cosched_error_t *err)
{
	cosched_kv_reader_t r;
	cosched_kv_version_t seen;
	char *line, *next, *word, *slash, *node;
	int skipped = 0, lineno = 1;

	memset(s, 0, sizeof(*s));
	next = strchr(text, '\n');
	if (!next)
		return cosched_error_set(err, "step file: no complete first line");
	*next++ = '\0';
	cosched_kv_begin(&r, text, "step file");
	if (cosched_kv_word(&r, &word, err))
		return -1;
	slash = strchr(word, '/');
	if (!slash || (size_t)(slash - word) != strlen(COSCHED_NUMA_STEP_TAG) ||
	    strncmp(word, COSCHED_NUMA_STEP_TAG, (size_t)(slash - word)))
		return cosched_error_set(err,
			"step file: expected " COSCHED_NUMA_STEP_TAG "/1, found %s",
			COSCHED_QUOTE(word));
	if (cosched_kv_version_read("NUMA step file", "this manager",
				    COSCHED_NUMA_STEP_TAG "/", slash + 1,
				    step_version, &seen, err) ||
	    expect_u32(&r, "job", 1, &s->job_id, err) ||
	    expect_u32(&r, "step", 0, &s->step_id, err) ||
	    cosched_kv_expect(&r, "node", &node, err))
		return -1;
	if (!cosched_decision_node_name_ok(node, strlen(node)))
		return cosched_error_set(err, "node: invalid node name %s",
					 COSCHED_QUOTE(node));
	snprintf(s->node, sizeof(s->node), "%s", node);
	if (expect_u32(&r, "uid", 0, &s->uid, err) ||
	    cosched_kv_expect(&r, "priority", &node, err))
		return -1;
	{
		int i = cosched_name_parse("priority", "value",
					   cosched_numa_priority_names, 0,
					   COSCHED_NUMA_COUNT, node, false, err);

		if (i < 0)
			return -1;
		s->priority = (cosched_numa_priority_t) i;
	}
	{
		cosched_kv_field_t f;

		if (cosched_kv_next(&r, &f, err) != 1 ||
		    strcmp(f.key, "ledger") || !f.quoted)
			return cosched_error_set(err,
				"step file: expected ledger=\"DIR\" after priority");
		if (f.value[0] && cosched_dir_path_check("ledger", f.value,
					COSCHED_PATH_MAX - 64, err))
			return -1;
		snprintf(s->ledger, sizeof(s->ledger), "%s", f.value);
	}
	if (cosched_kv_end_of(&r, seen, step_version, &skipped, err))
		return -1;
	for (line = next; line && *line; line = next) {
		lineno++;
		next = strchr(line, '\n');
		if (!next)
			return cosched_error_set(err,
				"step file: line %d has no end", lineno);
		*next++ = '\0';
		if (!strncmp(line, "task ", 5)) {
			if (parse_task(line, seen, &skipped, s, err))
				return cosched_error_prefix(err, "step file");
		} else if (cosched_kv_version_newer_minor(seen, step_version)) {
			skipped++;
		} else {
			return cosched_error_set(err,
				"step file: line %d: unknown line %s", lineno,
				COSCHED_QUOTE(line));
		}
	}
	if (skipped)
		cosched_kv_note_skipped("NUMA step file",
					COSCHED_NUMA_STEP_TAG, seen,
					step_version, skipped);
	return 0;
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
