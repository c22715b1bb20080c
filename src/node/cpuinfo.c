/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpuinfo.c - the node's CPU from /proc/cpuinfo under a root
 * prefix (see the header).
 *
 * /proc/cpuinfo reports a size of 0 and grows with the CPU count (about
 * 1.5 KB a processor): it is read a line at a time up to the end of the
 * first processor's block, never whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/libcosched/io/file.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"
#include "src/node/cpuinfo.h"

/* More than the first block of any x86 cpuinfo (the flags line is the
 * longest, under 2 KB): a file that is not cpuinfo ends here. */
#define FIRST_BLOCK_MAX (64 * 1024)

int cosched_cpuinfo_read(const char *root, cosched_cpuinfo_t *ci,
			 cosched_error_t *err)
{
	char path[COSCHED_PATH_MAX], *line = NULL;
	size_t cap = 0, total = 0, len = strlen(root);
	bool in_block = false;
	ssize_t got;
	FILE *f;
	int fd;

	memset(ci, 0, sizeof(*ci));
	ci->family = ci->model = -1;
	while (len > 1 && root[len - 1] == '/')
		len--;
	if (len >= sizeof(path) - 16)
		return cosched_error_set(err, "%s: path too long",
					 COSCHED_QUOTE(root));
	snprintf(path, sizeof(path), "%.*s/proc/cpuinfo",
		 (int) (len == 1 ? 0 : len), root);
	fd = cosched_open_regular(path, O_RDONLY, 0, err);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return cosched_error_set(err, "%s: %s", path, strerror(errno));
	}
	while ((got = getline(&line, &cap, f)) > 0 && total < FIRST_BLOCK_MAX) {
		char *colon, *key, *value;
		long v;

		total += (size_t) got;
		key = cosched_trim(line);
		if (!*key) {
			if (in_block)
				break;	/* the first processor's block ends */
			continue;
		}
		in_block = true;
		colon = strchr(key, ':');
		if (!colon)
			continue;
		*colon = '\0';
		key = cosched_trim(key);
		value = cosched_trim(colon + 1);
		if (!strcmp(key, "vendor_id"))
			snprintf(ci->vendor, sizeof(ci->vendor), "%s", value);
		else if (!strcmp(key, "cpu family") &&
			 !cosched_parse_long(value, &v) && v >= 0)
			ci->family = v;
		else if (!strcmp(key, "model") &&
			 !cosched_parse_long(value, &v) && v >= 0)
			ci->model = v;
	}
	free(line);
	fclose(f);
	if (!ci->vendor[0])
		return cosched_error_set(err, "%s names no vendor_id", path);
	return 0;
}

const char *cosched_cpuinfo_sample_events(const cosched_conf_t *conf,
					  const char *root, char *which,
					  size_t len)
{
	cosched_cpuinfo_t ci;
	cosched_error_t err;

	if (!conf->n_sample_events_for)
		return cosched_conf_sample_events(conf, NULL, -1, -1, which,
						  len);
	if (cosched_cpuinfo_read(root, &ci, &err)) {
		if (which)
			snprintf(which, len, "SampleEvents (%s)", err.msg);
		return conf->sample_events;
	}
	return cosched_conf_sample_events(conf, ci.vendor, ci.family,
					  ci.model, which, len);
}
