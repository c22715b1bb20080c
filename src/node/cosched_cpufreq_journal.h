/*
 * cosched_cpufreq_journal.h - the node's record of every cpufreq change
 * cosched made, so that the original values always come back.
 *
 * One file per node, DIR/cpufreq.journal (DIR: SlurmdSpoolDir/cosched,
 * root only, 0700), with a lock file beside it (flock): slurmd and every
 * slurmstepd of the node share it.  Each change goes:
 *   lock; load; sweep; record the domain's original setting (first holder
 *   only) and the new holder; write the journal (temporary file, fsync,
 *   rename, fsync DIR); only then write sysfs; unlock.
 * so that a crash at any point leaves a journal that names the originals
 * of every domain cosched may have changed.
 *
 * A holder is one slurmstepd of a job (job id, step id, its pid and its
 * start time from /proc/PID/stat, so a reused pid is not taken for it).
 * A domain's setting is resolved from all its holders (the documented
 * rule, cosched(8) "CPU FREQUENCY"):
 *   - the performance governor when any holder asks for it;
 *   - else the userspace governor at the highest frequency any holder
 *     asks for (max_request, the rule the controller predicts with):
 *     setspeed and scaling_max_freq at it, scaling_min_freq the original
 *     lowered to it when above;
 *   - a holder that asks for nothing (no governor) holds the domain at its
 *     original setting: it counts as asking for the original governor at
 *     the original scaling_max_freq.
 * When the last holder goes (release, or a sweep that finds its process
 * gone), the originals are written back and the domain leaves the
 * journal; a failed restore keeps the entry (and logs), so the next sweep
 * retries.
 *
 * Sweeps run at slurmd start, at every job launch on the node and at every
 * change, so after a crash of the job, of slurmstepd or of slurmd the
 * originals come back at the latest when slurmd starts or the next job
 * arrives.
 */
#ifndef COSCHED_CPUFREQ_JOURNAL_H
#define COSCHED_CPUFREQ_JOURNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "cosched_cpufreq.h"

#define COSCHED_CPUFREQ_JOURNAL_FILE "cpufreq.journal"
#define COSCHED_CPUFREQ_HOLDERS_MAX 256	/* per domain */

typedef struct {
	uint32_t job_id;
	uint32_t step_id;		/* Slurm's step id (batch, extern:
					 * Slurm's special values) */
	pid_t pid;
	unsigned long long start_time;	/* /proc/PID/stat field 22 */
	char governor[COSCHED_CPUFREQ_GOVERNOR_MAX + 1];	/* "" = none */
	long freq_khz;			/* 0 = none */
} cosched_cpufreq_holder_t;

/* The calling process as a holder (pid and start time filled). */
int cosched_cpufreq_holder_self(cosched_cpufreq_holder_t *h, uint32_t job_id,
				uint32_t step_id, cosched_error_t *err);

/* Whether the holder's process still runs (same pid, same start time). */
int cosched_cpufreq_holder_alive(const cosched_cpufreq_holder_t *h);

/* What one call did, for the caller's one log line. */
typedef struct {
	int applied;			/* domains written with a new setting */
	int restored;			/* domains given back their originals */
	int failed;			/* domains whose write or restore failed */
	cosched_cpufreq_setting_t last;	/* the last setting written */
} cosched_cpufreq_outcome_t;

/*
 * Add h as a holder of the domains (indexes into c) and write each
 * domain's resolved setting.  A setting the domain cannot take
 * (cosched_cpufreq_check) adds no holder and writes nothing there: err
 * says why, and the return is -1 only when no domain was taken.
 */
int cosched_cpufreq_acquire(const cosched_cpufreq_t *c, const char *dir,
			    const cosched_cpufreq_holder_t *h,
			    const int *idx, int n,
			    cosched_cpufreq_outcome_t *out,
			    cosched_error_t *err);

/* Remove the holders with this job id and, when step_id is not
 * COSCHED_CPUFREQ_ANY_STEP, this step id; re-resolve or restore. */
#define COSCHED_CPUFREQ_ANY_STEP UINT32_MAX
int cosched_cpufreq_release(const cosched_cpufreq_t *c, const char *dir,
			    uint32_t job_id, uint32_t step_id,
			    cosched_cpufreq_outcome_t *out,
			    cosched_error_t *err);

/* Remove every holder whose process is gone; re-resolve or restore.  A
 * journal naming a domain this node does not have (the tree changed) is
 * kept and reported in err. */
int cosched_cpufreq_sweep(const cosched_cpufreq_t *c, const char *dir,
			  cosched_cpufreq_outcome_t *out,
			  cosched_error_t *err);

#endif
