/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io/file.c - safe opening, reading and replacing of the files
 * cosched is given. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/libcosched/io/file.h"
#include "src/libcosched/base/text.h"

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

/* SlurmUser, where a tool that is not slurmctld knows it
 * (cosched_file_trust_uid); -1: none. */
static long trusted_uid = -1;

void cosched_file_trust_uid(long uid)
{
	trusted_uid = uid;
}

int cosched_file_trusted(const char *path, const struct stat *st,
			 const char *what, cosched_error_t *err)
{
	if (st->st_uid != 0 && st->st_uid != geteuid() &&
	    (trusted_uid < 0 || (long) st->st_uid != trusted_uid))
		return cosched_error_set(err,
			"%s: owned by uid %u: only root or SlurmUser may write %s; not used",
			path, (unsigned) st->st_uid, what);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return cosched_error_set(err,
			"%s: writable by group or others (mode %04o): not used",
			path, (unsigned) (st->st_mode & 07777));
	return 0;
}

/* The directory part of path ("." for a bare name), in buf. */
static void dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == path)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int) (slash - path), path);
}

/* fsync a directory, so that a rename in it survives a crash. */
static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t) n;
	}
	return 0;
}

int cosched_file_replace(const char *path, const void *data, size_t len,
			 mode_t mode, unsigned flags, cosched_error_t *err)
{
	return cosched_file_replace_owned(path, data, len, mode, -1, flags,
					  err);
}

int cosched_file_replace_owned(const char *path, const void *data,
			       size_t len, mode_t mode, long owner,
			       unsigned flags, cosched_error_t *err)
{
	char dir[COSCHED_PATH_MAX], tmp[COSCHED_PATH_MAX + 16];
	const char *base = strrchr(path, '/');
	const char *step;
	struct stat old;
	bool have_old;
	int fd, saved;

	base = base ? base + 1 : path;
	if (!*base) {
		errno = EINVAL;
		return cosched_error_set(err, "%s: not a file name", path);
	}
	if (strlen(path) >= sizeof(dir) ||
	    snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", (int) (base - path),
		     path, base) >= (int) sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return cosched_error_set(err, "%s: path too long", path);
	}
	dir_of(path, dir, sizeof(dir));
	have_old = !lstat(path, &old);
	if (!have_old && errno != ENOENT) {
		saved = errno;
		cosched_error_set(err, "%s: cannot stat: %s", path,
				  strerror(saved));
		errno = saved;
		return -1;
	}
	if (have_old && S_ISLNK(old.st_mode)) {
		errno = ELOOP;
		return cosched_error_set(err,
			"%s: is a symbolic link (not replaced)", path);
	}
	if (have_old && !S_ISREG(old.st_mode)) {
		errno = EINVAL;
		return cosched_error_set(err,
			"%s: not a regular file (not replaced)", path);
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		cosched_error_set(err,
			"%s: cannot create a temporary file beside it: %s",
			path, strerror(saved));
		errno = saved;
		return -1;
	}
	step = "cannot set the owner";
	if ((flags & COSCHED_REPLACE_KEEP_OWNER) && have_old &&
	    fchown(fd, old.st_uid, old.st_gid) && errno != EPERM)
		goto fail;
	if (owner >= 0 && fchown(fd, (uid_t) owner, (gid_t) -1))
		goto fail;
	step = "cannot set the mode";
	if (fchmod(fd, mode & 07777))
		goto fail;
	step = "cannot write";
	if (write_all(fd, data, len))
		goto fail;
	step = "cannot sync";
	if ((flags & COSCHED_REPLACE_DURABLE) && fsync(fd))
		goto fail;
	step = "cannot write";
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	step = "cannot rename the new file over it";
	if (rename(tmp, path))
		goto fail;
	/* In place: from here on the write happened, whatever follows. */
	if (flags & COSCHED_REPLACE_DURABLE)
		(void) sync_dir(dir);
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	cosched_error_set(err, "%s: %s: %s", path, step, strerror(saved));
	errno = saved;
	return -1;
}
