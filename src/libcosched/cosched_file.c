/* cosched_file.c - safe opening and reading of files cosched is given. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cosched_file.h"
#include "cosched_text.h"

int cosched_dir_path_check(const char *field, const char *path,
			   size_t max_len, cosched_error_t *err)
{
	size_t len;

	if (!path || !*path)
		return cosched_error_set(err, "%s: missing value", field);
	len = strlen(path);
	if (path[0] != '/')
		return cosched_error_set(err,
			"%s: invalid value %s (expected an absolute path)",
			field, COSCHED_QUOTE(path));
	if (len > max_len)
		return cosched_error_set(err,
			"%s: path %s is too long (%zu bytes, at most %zu)",
			field, COSCHED_QUOTE(path), len, max_len);
	for (const char *p = path; *p; p++)
		if ((unsigned char) *p <= ' ' || (unsigned char) *p >= 0x7f)
			return cosched_error_set(err,
				"%s: invalid value %s (control characters, blanks and non-ASCII bytes are not allowed in a path)",
				field, COSCHED_QUOTE(path));
	for (const char *c = path; c; c = strchr(c + 1, '/')) {
		const char *name = c + 1;
		size_t n = strcspn(name, "/");
		if ((n == 1 && name[0] == '.') ||
		    (n == 2 && name[0] == '.' && name[1] == '.'))
			return cosched_error_set(err,
				"%s: invalid value %s (no \".\" or \"..\" component: give the directory itself)",
				field, COSCHED_QUOTE(path));
	}
	return 0;
}

int cosched_open_regular(const char *path, int flags, int mode,
			 cosched_error_t *err)
{
	struct stat st;
	int fd, saved;

	fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
	if (fd < 0) {
		saved = errno;
		if (saved == ELOOP)
			cosched_error_set(err,
				"%s: is a symbolic link (not followed)", path);
		else
			cosched_error_set(err, "%s: cannot open: %s", path,
					  strerror(saved));
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st)) {
		saved = errno;
		cosched_error_set(err, "%s: cannot stat: %s", path,
				  strerror(saved));
		close(fd);
		errno = saved;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		cosched_error_set(err, "%s: not a regular file", path);
		close(fd);
		errno = EINVAL;
		return -1;
	}
	/* Regular files never block; clear the flag for plain reads. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		saved = errno;
		cosched_error_set(err, "%s: fcntl: %s", path, strerror(saved));
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

char *cosched_read_file(const char *path, size_t max_bytes, int *missing,
			cosched_error_t *err)
{
	return cosched_read_file_stat(path, max_bytes, missing, NULL, err);
}

char *cosched_read_file_stat(const char *path, size_t max_bytes, int *missing,
			     struct stat *st_out, cosched_error_t *err)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd;

	if (missing)
		*missing = 0;
	fd = cosched_open_regular(path, O_RDONLY, 0, err);
	if (fd < 0) {
		if (missing && errno == ENOENT)
			*missing = 1;
		return NULL;
	}
	if (fstat(fd, &st)) {
		cosched_error_set(err, "%s: cannot stat: %s", path,
				  strerror(errno));
		close(fd);
		return NULL;
	}
	if ((unsigned long long) st.st_size > max_bytes) {
		cosched_error_set(err,
			"%s: %lld bytes, more than the limit of %zu bytes", path,
			(long long) st.st_size, max_bytes);
		close(fd);
		return NULL;
	}
	buf = malloc((size_t) st.st_size + 1);
	if (!buf) {
		cosched_error_set(err, "%s: out of memory", path);
		close(fd);
		return NULL;
	}
	while (got < (size_t) st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t) st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t) n;
	}
	close(fd);
	if (got != (size_t) st.st_size) {
		cosched_error_set(err, "%s: short read (%zu of %lld bytes)",
				  path, got, (long long) st.st_size);
		free(buf);
		return NULL;
	}
	buf[got] = '\0';
	if (memchr(buf, '\0', got)) {
		cosched_error_set(err, "%s: contains a NUL byte", path);
		free(buf);
		return NULL;
	}
	if (st_out)
		*st_out = st;
	return buf;
}

int cosched_file_trusted(const char *path, const struct stat *st,
			 const char *what, cosched_error_t *err)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return cosched_error_set(err,
			"%s: owned by uid %u: only root or SlurmUser (uid %u) may write %s; not used",
			path, (unsigned) st->st_uid, (unsigned) geteuid(), what);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return cosched_error_set(err,
			"%s: writable by group or others (mode %04o): not used",
			path, (unsigned) (st->st_mode & 07777));
	return 0;
}
