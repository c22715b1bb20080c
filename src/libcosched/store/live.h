/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live.h - the running jobs' live loads, from the nodes to
 * slurmctld.
 *
 * Why: Miss-Rate Bound, in "Power-aware gang scheduling on multicore" (NTUA
 * thesis, 2013), is online (each job's MPKI smoothed by an EWMA, a = 1/2,
 * every quantum), and a job's behaviour changes as it runs; the profile's
 * MPKI is an average over past runs.  Each step's sampler (cosched-sampler,
 * root on its node) therefore publishes the step's smoothed MPKI, and
 * slurmctld reads it back into the loads its placement compares.
 *
 * The channel is the profile store's own: a directory live/ under
 * ProfileDir, which the nodes and slurmctld already share for profiles.
 * A load is a file written by root and trusted only when it is owned by
 * root or SlurmUser and not writable by group or others - the rule the
 * profile cache applies to profiles (cosched_file_trusted) - so a user,
 * who can write neither, cannot plant or alter one.  Each step writes its
 * own file (no lock, no read-modify-write among nodes), atomically, at
 * most once per sampling interval, when its value moved or the file is a
 * minute old (cosched_live_should_publish), and removes it when the step
 * ends; slurmctld skips a file not rewritten for several minutes (a
 * sampler that could not remove its own).
 *
 * File: ProfileDir/live/JOB.STEP.NODE, one line:
 *   cosched-live/1 job=J step=S node=NODE mpki=X time=T
 * (mpki with up to 6 decimals, T seconds since the epoch).  The strict
 * parser refuses anything else, and a name that does not match the
 * content; of a newer minor (cosched-live/1.N) it skips the keys appended
 * after time, and it refuses another major (base/kv.h).
 */
#ifndef COSCHED_LIVE_H
#define COSCHED_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/base/error.h"
#include "src/libcosched/base/text.h"
#include "src/libcosched/io/private.h"

#define COSCHED_LIVE_SUBDIR "live"
#define COSCHED_LIVE_SCHEMA 1
#define COSCHED_LIVE_SCHEMA_TEXT "1"
#define COSCHED_LIVE_NODE_MAX 64
/* The bytes of a node name in a live load, and so of a live load's file
 * name (JOB.STEP.NODE): what the writer checks and the reader accepts. */
#define COSCHED_LIVE_NAME_CHARS COSCHED_FILE_NAME_CHARS
#define COSCHED_LIVE_LINE_MAX 256
/* A published value is replaced when it moves by more than this share of
 * itself (or by COSCHED_LIVE_MIN_CHANGE MPKI, for values near 0). */
#define COSCHED_LIVE_REL_CHANGE 0.10
#define COSCHED_LIVE_MIN_CHANGE 0.1
/* ... and rewritten at least this often, so that a file that stops
 * changing is known to be dead (cosched_live_scan's stale_s). */
#define COSCHED_LIVE_REFRESH_S 60
#define COSCHED_LIVE_STALE_S (5 * COSCHED_LIVE_REFRESH_S)

typedef struct {
	uint32_t job_id, step_id;
	char node[COSCHED_LIVE_NODE_MAX + 1];
	double mpki;			/* finite, >= 0 */
	long long time;
} cosched_live_t;

/* One job's live load: the largest of its steps' on all its nodes (a
 * job's sockets each carry its MPKI; the worst is what can overload). */
typedef struct {
	uint32_t job_id;
	double mpki;
	long long time;			/* the newest of its files */
	int files;
} cosched_live_job_t;

/* Node names as files may hold them: [A-Za-z0-9._-], 1 to 64. */
int cosched_live_node_check(const char *node, cosched_error_t *err);

int cosched_live_format(const cosched_live_t *l, char *buf, size_t len,
			cosched_error_t *err);
int cosched_live_parse(const char *text, cosched_live_t *l,
		       cosched_error_t *err);

/* The share of a core slurmctld's readings of live/ may take: a reading
 * that costs more (many files: users can start many steps) delays the
 * next one beyond LiveLoadRefresh. */
#define COSCHED_LIVE_CPU_SHARE 0.05

/* Seconds until the next reading after one that took cpu_s seconds of
 * CPU: refresh_s (LiveLoadRefresh), or the whole seconds that keep the
 * readings within COSCHED_LIVE_CPU_SHARE of a core when refresh_s does
 * not (a reading of 0.2 s: every 4 s). */
int cosched_live_interval(int refresh_s, double cpu_s);

/* Whether a new smoothed value replaces the published one (never
 * published: has_last false; age_s: seconds since it was written). */
bool cosched_live_should_publish(bool has_last, double last, double now,
				 double age_s);

/* The node side (root): write l atomically into profile_dir/live (the
 * directory created when missing), kept as privacy says (NULL: public;
 * io/private.h), or remove the step's file. */
int cosched_live_write(const char *profile_dir,
		       const cosched_private_t *privacy,
		       const cosched_live_t *l, cosched_error_t *err);
int cosched_live_remove(const char *profile_dir, uint32_t job_id,
			uint32_t step_id, const char *node,
			cosched_error_t *err);

/*
 * The controller side, one reading with no memory (store/live_reader.h
 * is the reader slurmctld keeps; this is one reading of a new one): read
 * every file in profile_dir/live into jobs
 * (malloc'd, one entry a job, sorted by job id; caller frees), skipping
 * and counting in *nbad (err: the first) files that are not trusted or do
 * not parse.  A missing live/ is no job and no error.  Files older than
 * stale_s seconds (a sampler that could not remove its own) are skipped
 * and, where this process may, removed.  Returns the number of jobs, -1
 * (err) when the directory cannot be read.
 */
long cosched_live_scan(const char *profile_dir, long long now, int stale_s,
		       cosched_live_job_t **jobs, int *nbad,
		       cosched_error_t *err);

#endif
