/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spool.c - node state files shared by the steps' processes (see
 * the header).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/libcosched/io/file.h"
#include "src/node/spool.h"

#define LOCK_SUFFIX ".lock"

/* ---- processes -------------------------------------------------------- */

int cosched_proc_stat(pid_t pid, cosched_proc_stat_t *ps)
{
	char path[64], buf[4096];
	const char *p;
	size_t got;
	FILE *f;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	got = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[got] = '\0';
	/* The command name may hold anything, ')' included: the fields
	 * start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ') {
		errno = EINVAL;
		return -1;
	}
	p += 2;
	memset(ps, 0, sizeof(*ps));
	ps->state = *p;
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
		if (field + 1 == 4)
			ps->ppid = (pid_t) strtol(p, NULL, 10);
		else if (field + 1 == 14)
			ps->utime = strtoull(p, NULL, 10);
		else if (field + 1 == 15)
			ps->stime = strtoull(p, NULL, 10);
	}
	if (!p || *p < '0' || *p > '9') {
		errno = EINVAL;
		return -1;
	}
	ps->start_time = strtoull(p, NULL, 10);
	return 0;
}

/* /proc/PID/stat: state and start time (field 22).  -1 with errno. */
static int proc_stat(pid_t pid, char *state, unsigned long long *start)
{
	cosched_proc_stat_t ps;

	if (cosched_proc_stat(pid, &ps))
		return -1;
	*state = ps.state;
	*start = ps.start_time;
	return 0;
}

int cosched_proc_self(cosched_proc_id_t *p, cosched_error_t *err)
{
	char state;

	p->pid = getpid();
	if (proc_stat(p->pid, &state, &p->start_time))
		return cosched_error_set(err,
			"/proc/%d/stat: cannot read the start time: %s",
			(int) p->pid, strerror(errno));
	return 0;
}

int cosched_proc_alive(const cosched_proc_id_t *p)
{
	unsigned long long start;
	char state;

	if (p->pid <= 0)
		return 0;
	if (proc_stat(p->pid, &state, &start))
		return errno == ENOENT || errno == ESRCH ? 0 : 1;
	if (state == 'Z' || state == 'X')
		return 0;
	return start == p->start_time;
}

void cosched_boot_id(char *buf)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	char line[64] = "";
	size_t n;

	strcpy(buf, "-");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		n = strcspn(line, "\n");
		line[n] = '\0';
		if (n == COSCHED_BOOT_ID_LEN &&
		    strspn(line, "0123456789abcdef-") == COSCHED_BOOT_ID_LEN)
			strcpy(buf, line);
	}
	fclose(f);
}

/* ---- the directory and its files --------------------------------------- */

int cosched_spool_path(char *buf, size_t len, const char *dir,
		       const char *name, const char *suffix,
		       cosched_error_t *err)
{
	if ((size_t) snprintf(buf, len, "%s/%s%s", dir, name, suffix) >= len)
		return cosched_error_set(err, "%s: path too long", dir);
	return 0;
}

/* fsync() of a directory, after a rename or unlink in it. */
static int cosched_spool_fsync_dir(const char *dir, cosched_error_t *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fsync(fd)) {
		int saved = errno;
		if (fd >= 0)
			close(fd);
		return cosched_error_set(err, "%s: fsync: %s", dir,
					 strerror(saved));
	}
	close(fd);
	return 0;
}

#define ASIDE_INFIX ".bad."

int cosched_spool_set_aside(const char *dir, const char *name, char *bad,
			    size_t len, cosched_error_t *err)
{
	long long now = (long long) time(NULL);
	char path[COSCHED_PATH_MAX];

	if (cosched_spool_path(path, sizeof(path), dir, name, "", err))
		return -1;
	for (int i = 0; i < 1000; i++) {
		char suffix[64];

		if (i)
			snprintf(suffix, sizeof(suffix), ASIDE_INFIX "%lld.%d",
				 now, i);
		else
			snprintf(suffix, sizeof(suffix), ASIDE_INFIX "%lld",
				 now);
		if (cosched_spool_path(bad, len, dir, name, suffix, err))
			return -1;
		/* RENAME_NOREPLACE: never over an earlier one, and a
		 * directory moves as a file does. */
		if (!renameat2(AT_FDCWD, path, AT_FDCWD, bad,
			       RENAME_NOREPLACE))
			return cosched_spool_fsync_dir(dir, err);
		if (errno != EEXIST)
			return cosched_error_set(err,
				"%s: cannot set it aside as %s: %s", path, bad,
				strerror(errno));
	}
	return cosched_error_set(err, "%s: cannot find a free name to set it aside",
				 path);
}

bool cosched_spool_aside(const char *dir, const char *name, char *buf,
			 size_t len)
{
	char prefix[COSCHED_PATH_MAX];
	struct dirent *e;
	DIR *dp = opendir(dir);
	bool found = false;

	if (!dp)
		return false;
	snprintf(prefix, sizeof(prefix), "%s" ASIDE_INFIX, name);
	while (!found && (e = readdir(dp)))
		if (!strncmp(e->d_name, prefix, strlen(prefix))) {
			snprintf(buf, len, "%s", e->d_name);
			found = true;
		}
	closedir(dp);
	return found;
}

int cosched_spool_dir_ready(const char *field, const char *dir,
			    cosched_error_t *err)
{
	struct stat st;

	if (cosched_dir_path_check(field, dir, COSCHED_PATH_MAX - 64, err))
		return -1;
	if (lstat(dir, &st)) {
		if (errno != ENOENT)
			return cosched_error_set(err, "%s: %s", dir,
						 strerror(errno));
		if (mkdir(dir, 0700) && errno != EEXIST)
			return cosched_error_set(err, "%s: cannot create: %s",
						 dir, strerror(errno));
		if (lstat(dir, &st))
			return cosched_error_set(err, "%s: %s", dir,
						 strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		return cosched_error_set(err,
			"%s: is a symbolic link (not followed)", dir);
	if (!S_ISDIR(st.st_mode))
		return cosched_error_set(err, "%s: not a directory", dir);
	return 0;
}

int cosched_spool_lock(const char *dir, const char *name, int wait_ms,
		       cosched_error_t *err)
{
	char path[COSCHED_PATH_MAX];
	int fd;

	if (cosched_spool_path(path, sizeof(path), dir, name, LOCK_SUFFIX,
			       err))
		return -1;
	fd = cosched_open_regular(path, O_RDWR | O_CREAT, 0600, err);
	if (fd < 0)
		return -1;
	for (int waited = 0;; waited += 10) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return fd;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int saved = errno;
			close(fd);
			return cosched_error_set(err, "%s: flock: %s", path,
						 strerror(saved));
		}
		if (waited >= wait_ms) {
			close(fd);
			cosched_error_set(err,
				"%s: still locked by another process after %d ms",
				path, wait_ms);
			return -2;
		}
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
}

int cosched_spool_replace(const char *dir, const char *name,
			  const char *text, bool durable,
			  cosched_error_t *err)
{
	char path[COSCHED_PATH_MAX];

	if (cosched_spool_path(path, sizeof(path), dir, name, "", err))
		return -1;
	if (!text) {
		if (unlink(path) && errno != ENOENT)
			return cosched_error_set(err, "%s: cannot remove: %s",
						 path, strerror(errno));
		return durable ? cosched_spool_fsync_dir(dir, err) : 0;
	}
	/* Root's only (0600).  Durable: the directory's fsync checked here,
	 * not best effort (cosched_file_replace's), so that a journal whose
	 * new name may not survive a crash is reported before sysfs is
	 * written; the file's own fsync is cosched_file_replace's. */
	if (cosched_file_replace(path, text, strlen(text), 0600,
				 durable ? COSCHED_REPLACE_DURABLE : 0, err))
		return -1;
	return durable ? cosched_spool_fsync_dir(dir, err) : 0;
}
