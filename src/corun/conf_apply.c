/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf_apply.c - measured lines into cosched.conf, atomically (see the
 * header).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "src/libcosched/conf/conf.h"
#include "src/libcosched/io/file.h"
#include "conf_apply.h"

#define CONF_MAX_BYTES (1024 * 1024)

/* Whether line (up to its end) sets one of the replaced keys. */
static int replaced_key(const char *line, size_t len)
{
	static const char *const keys[] = { "Interference", "PreferenceTable" };
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	for (size_t k = 0; k < 2; k++) {
		size_t kl = strlen(keys[k]), j = i + kl;
		if (len - i < kl || strncasecmp(line + i, keys[k], kl))
			continue;
		while (j < len && (line[j] == ' ' || line[j] == '\t'))
			j++;
		if (j < len && line[j] == '=')
			return 1;
	}
	return 0;
}

/* Append n bytes to a growing buffer. */
typedef struct {
	char *p;
	size_t len, cap;
} buf_t;

static int put(buf_t *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *q = realloc(b->p, cap);
		if (!q)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static int put_new(buf_t *b, const char *const *lines, int n,
		   const char *comment)
{
	int rc = 0;

	for (const char *c = comment; c && *c;) {
		size_t k = strcspn(c, "\n");
		rc |= put(b, "# ", 2) | put(b, c, k) | put(b, "\n", 1);
		c += k + (c[k] == '\n');
	}
	for (int i = 0; i < n; i++)
		rc |= put(b, lines[i], strlen(lines[i])) | put(b, "\n", 1);
	return rc;
}

int conf_apply(const char *path, const char *const *lines, int n,
	       const char *comment, int create, cosched_error_t *err)
{
	struct stat st;
	int missing = 0, done = 0, rc = -1;
	char *text = cosched_read_file_stat(path, CONF_MAX_BYTES, &missing, &st,
					    err);
	cosched_conf_t conf;
	buf_t out = { 0 };

	if (!text) {
		if (!(missing && create))
			return -1;
		if (!(text = strdup("")))
			return cosched_error_set(err, "out of memory");
	}
	cosched_conf_init(&conf);
	if (cosched_conf_parse_string(&conf, path, text, err)) {
		cosched_error_prefix(err, "refusing to change a file cosched "
				     "cannot parse");
		goto out;
	}
	for (const char *l = text; *l;) {
		size_t k = strcspn(l, "\n");
		size_t kn = k + (l[k] == '\n');

		if (replaced_key(l, k)) {
			if (!done && put_new(&out, lines, n, comment))
				goto oom;
			done = 1;
		} else if (put(&out, l, kn)) {
			goto oom;
		}
		l += kn;
	}
	if (!done) {
		if (out.len && out.p[out.len - 1] != '\n' && put(&out, "\n", 1))
			goto oom;
		if (put_new(&out, lines, n, comment))
			goto oom;
	}
	/* the result must parse too (the lines are ours, but check) */
	cosched_conf_init(&conf);
	if (cosched_conf_parse_string(&conf, path, out.p, err)) {
		cosched_error_prefix(err, "the new configuration does not parse "
				     "(file unchanged)");
		goto out;
	}
	/* The administrator's file: its owner and mode carry over (a new
	 * one is 0644), durable. */
	rc = cosched_file_replace(path, out.p, out.len,
				  missing ? 0644 : st.st_mode & 07777,
				  COSCHED_REPLACE_KEEP_OWNER |
				  COSCHED_REPLACE_DURABLE, err);
	goto out;
oom:
	cosched_error_set(err, "out of memory");
out:
	free(text);
	free(out.p);
	return rc;
}
