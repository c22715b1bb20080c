/*
 * cosched_file.h - the files cosched reads and the directories it is given.
 *
 * Every file cosched opens by a name that someone else could have placed
 * (cosched.conf, profiles and their lock files in ProfileDir) is opened
 * without following a symbolic link and without blocking, and must be a
 * regular file: a link to /etc/shadow is not read, a FIFO does not hang
 * slurmctld, a link named like a lock file does not make root create a
 * file elsewhere.
 */
#ifndef COSCHED_FILE_H
#define COSCHED_FILE_H

#include <stddef.h>

#include "cosched_error.h"

/* Longest path cosched stores (Linux's PATH_MAX, which <limits.h> only
 * defines under _GNU_SOURCE / POSIX; this header must compile with plain
 * -std=c11). */
#define COSCHED_PATH_MAX 4096

/*
 * A directory path an administrator gives (ProfileDir=): absolute, at most
 * max_len bytes, printable ASCII without blanks, no "." or ".." component
 * (the directory is exactly where the path says).  field names the setting
 * for the message, which quotes the path.
 */
int cosched_dir_path_check(const char *field, const char *path,
			   size_t max_len, cosched_error_t *err);

/*
 * Open path (flags: O_RDONLY or O_RDWR, optionally O_CREAT with mode)
 * with O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, refuse anything but a regular
 * file, then clear O_NONBLOCK.  Returns the descriptor, or -1 with errno
 * kept from open() (ENOENT: no such file; ELOOP: a symbolic link) and err
 * naming path and the reason.
 */
int cosched_open_regular(const char *path, int flags, int mode,
			 cosched_error_t *err);

/*
 * Read a whole regular file (cosched_open_regular) of at most max_bytes
 * into a malloc'd NUL-terminated buffer; a NUL byte inside is refused.
 * Returns the buffer (caller frees) or NULL with err set; *missing (may be
 * NULL) is set to 1 when the file does not exist, else 0.
 */
char *cosched_read_file(const char *path, size_t max_bytes, int *missing,
			cosched_error_t *err);

/* The same, and *st (may be NULL) receives the fstat() of the file read,
 * so a caller knows exactly which version it read (size, mtime, inode). */
struct stat;
char *cosched_read_file_stat(const char *path, size_t max_bytes, int *missing,
			     struct stat *st, cosched_error_t *err);

/*
 * Whether a file in ProfileDir, as fstat() saw it, may steer placement:
 * owned by root or by this process's user (slurmctld's SlurmUser) and not
 * writable by group or others; a file another user owns, or one others may
 * rewrite, could have been planted.  -1 with err naming path and what the
 * files are ("profiles", "live loads").
 */
int cosched_file_trusted(const char *path, const struct stat *st,
			 const char *what, cosched_error_t *err);

#endif
