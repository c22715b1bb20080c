/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spool.h - node state kept in SlurmdSpoolDir/cosched by the
 * processes of several steps at once: the cpufreq journal
 * (cpufreq_journal.h) and the energy ledger
 * (energy_ledger.h).
 *
 * Each such file is read and rewritten whole under an exclusive flock on
 * FILE.lock, replaced atomically (temporary file, fsync, rename, fsync of
 * the directory) so that a crash at any moment leaves the old or the new
 * text and never a mix, and names its writers by process identity (pid
 * and start time, so that a recycled pid is not taken for the dead
 * writer) and the kernel's boot id (so that state from before a reboot is
 * not taken as current).  None of it follows a symbolic link.
 */
#ifndef COSCHED_SPOOL_H
#define COSCHED_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "src/libcosched/base/error.h"

#define COSCHED_BOOT_ID_LEN 36

/* A process, told apart from a later one with the same pid. */
typedef struct {
	pid_t pid;
	unsigned long long start_time;	/* /proc/PID/stat field 22 */
} cosched_proc_id_t;

/* What /proc/PID/stat says of a process that cosched reads. */
typedef struct {
	char state;			/* field 3: R, S, Z, ... */
	pid_t ppid;			/* field 4 */
	unsigned long long utime, stime;	/* fields 14, 15: clock ticks */
	unsigned long long start_time;	/* field 22 */
} cosched_proc_stat_t;
/* 0, or -1 with errno (ENOENT: no such process). */
int cosched_proc_stat(pid_t pid, cosched_proc_stat_t *ps);

/* The calling process. */
int cosched_proc_self(cosched_proc_id_t *p, cosched_error_t *err);

/* Whether p still runs (same pid, same start time): 1 or 0.  A zombie
 * (exited, not yet reaped) is dead; a /proc/PID/stat that exists but
 * cannot be read counts as alive (what a live process holds is never
 * taken away on a guess). */
int cosched_proc_alive(const cosched_proc_id_t *p);

/* The kernel's boot id into buf (COSCHED_BOOT_ID_LEN + 1 bytes), "-"
 * when it cannot be read. */
void cosched_boot_id(char *buf);

/* dir exists (created 0700 when missing), is a directory and not a link;
 * field names it in messages. */
int cosched_spool_dir_ready(const char *field, const char *dir,
			    cosched_error_t *err);

/* dir/name + suffix into buf; -1 (err) when it does not fit. */
int cosched_spool_path(char *buf, size_t len, const char *dir,
		       const char *name, const char *suffix,
		       cosched_error_t *err);

/* The exclusive lock on dir/name.lock, waited for at most wait_ms
 * (0: not at all).  Returns its descriptor (close() releases it), -2 (err
 * set) when another process still holds it then, -1 on any other error. */
int cosched_spool_lock(const char *dir, const char *name, int wait_ms,
		       cosched_error_t *err);

/* Replace dir/name with text atomically; text NULL removes it.  The
 * caller holds the lock.  durable: the file and the directory are synced
 * before it returns, for what must survive a crash of the node (the
 * cpufreq journal); without, the replacement is atomic for every process
 * but may be lost with the kernel, which suits a file that holds only
 * this boot's state (the energy ledger: started again on another boot,
 * set aside first if a crash left it partial). */
int cosched_spool_replace(const char *dir, const char *name,
			  const char *text, bool durable,
			  cosched_error_t *err);

/*
 * Set dir/name aside as dir/name.bad.TIME[.N] (never over another name),
 * whatever it is (a file, a directory someone made there), so that the
 * node starts afresh without losing what it held: bad (len bytes) gets the
 * new path.  The caller holds the lock.
 */
int cosched_spool_set_aside(const char *dir, const char *name, char *bad,
			    size_t len, cosched_error_t *err);
/* Whether something of dir/name is set aside: its file name in buf. */
bool cosched_spool_aside(const char *dir, const char *name, char *buf,
			 size_t len);

#endif
