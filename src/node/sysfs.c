/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysfs.c - reading one sysfs attribute (see the header).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "src/libcosched/io/file.h"
#include "src/libcosched/base/text.h"
#include "src/node/sysfs.h"

int cosched_sysfs_read(const char *dir, const char *name, char *buf,
		       size_t len, int *missing,
		       const char *(*hint)(int errnum), cosched_error_t *err)
{
	char path[COSCHED_PATH_MAX];
	size_t got = 0;
	int fd;

	if (missing)
		*missing = 0;
	if ((size_t) snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return cosched_error_set(err, "%s/%s: path too long", dir, name);
	fd = cosched_open_regular(path, O_RDONLY, 0, err);
	if (fd < 0) {
		int saved = errno;

		if (missing && saved == ENOENT)
			*missing = 1;
		if (hint && *hint(saved))
			cosched_error_set(err, "%s: cannot open: %s%s", path,
					  strerror(saved), hint(saved));
		errno = saved;
		return -1;
	}
	for (;;) {
		ssize_t r;

		if (got == len - 1) {
			close(fd);
			return cosched_error_set(err,
				"%s: longer than %zu bytes", path, len - 1);
		}
		r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int saved = errno;

			close(fd);
			cosched_error_set(err, "%s: cannot read: %s%s", path,
					  strerror(saved),
					  hint ? hint(saved) : "");
			errno = saved;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t) r;
	}
	close(fd);
	buf[got] = '\0';
	if (memchr(buf, '\0', got))
		return cosched_error_set(err, "%s: contains a NUL byte", path);
	if (got && buf[got - 1] == '\n')
		buf[got - 1] = '\0';
	return 0;
}

int cosched_sysfs_malformed(const char *dir, const char *name,
			    const char *text, const char *expected,
			    cosched_error_t *err)
{
	return cosched_error_set(err, "%s/%s: invalid value %s (expected %s)",
				 dir, name, COSCHED_QUOTE(text), expected);
}

int cosched_sysfs_parse_u64(const char *s, size_t n, uint64_t max,
			    uint64_t *out)
{
	uint64_t v = 0;

	if (!n || n > 19 || (s[0] == '0' && n > 1))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t) (s[i] - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}
