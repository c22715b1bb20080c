/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * file.h - the files cosched reads, the files it replaces and the
 * directories it is given.
 *
 * Every file cosched opens by a name that someone else could have placed
 * (cosched.conf, profiles and their lock files in ProfileDir) is opened
 * without following a symbolic link and without blocking, and must be a
 * regular file: a link to /etc/shadow is not read, a FIFO does not hang
 * slurmctld, a link named like a lock file does not make root create a
 * file elsewhere.  Every file cosched writes whole is replaced by
 * cosched_file_replace(), so a reader sees the old file or the new one.
 */
#ifndef COSCHED_FILE_H
#define COSCHED_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "src/libcosched/base/error.h"

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
/* A tool run by root or an administrator (cosched-status) trusts
 * SlurmUser's files too: uid, from slurmctld's configuration; -1 none.
 * Process-wide; slurmctld, which runs as SlurmUser, needs none. */
void cosched_file_trust_uid(long uid);

/* cosched_file_replace() flags. */
/* fsync() the new file before the rename and its directory after: the
 * new content, and its name, survive a power cut (journals, profiles,
 * cosched.conf).  Without it a crash may leave the new name on an empty
 * or partial file, which its reader refuses: for files that are caches
 * or that their writer rewrites anyway. */
#define COSCHED_REPLACE_DURABLE 0x1u
/* The new file takes the owner and group of the file it replaces (an
 * administrator's file changed in place); where this process may not
 * give a file away (EPERM), it stays the writer's. */
#define COSCHED_REPLACE_KEEP_OWNER 0x2u

/*
 * Replace the file at path with the len bytes at data, atomically: a
 * reader opening path sees the old file or the new one, whole.
 *
 * The bytes go to a new temporary file beside path (same directory, so
 * the rename stays within one file system), ".NAME.XXXXXX" with NAME the
 * last component of path: created with O_EXCL | O_CLOEXEC under a name
 * nobody can guess (mkostemp), so it is never a file or symbolic link
 * someone planted; the leading dot keeps it out of every scan of
 * cosched's directories.  It gets mode (fchmod: the umask does not
 * apply), then is renamed over path.  A symbolic link at path, or
 * anything but a regular file, is refused and left as it is (rename would
 * replace the link, not write where it points, but a link where a file
 * of cosched belongs was put there by someone else).  On any failure the
 * temporary file is removed, path is untouched, and -1 is returned with
 * errno kept and err naming path, the step that failed and why; the
 * directory's fsync after the rename (DURABLE) is best effort: the new
 * file is in place by then, and a caller must not retry a write that
 * happened (a caller that must know calls fsync on the directory itself).
 */
int cosched_file_replace(const char *path, const void *data, size_t len,
			 mode_t mode, unsigned flags, cosched_error_t *err);
/* The same, the new file given to the user owner (its group unchanged)
 * before the rename: root writing a file SlurmUser must read when it is
 * no one else's (io/private.h).  owner -1: the writer's. */
int cosched_file_replace_owned(const char *path, const void *data,
			       size_t len, mode_t mode, long owner,
			       unsigned flags, cosched_error_t *err);

#endif
