/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpufreq_journal.h - the node's record of every cpufreq change
 * cosched made, so that the original values always come back.
 *
 * One file per node, DIR/cpufreq.journal (DIR: SlurmdSpoolDir/cosched,
 * root only, created 0700 when missing; a DIR or journal that is a
 * symbolic link is refused), with a lock file beside it
 * (cpufreq.journal.lock, flock, waited for at most 2 s; slurmd never waits): slurmd and every
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
 *   - when every holder asks for nothing, the original setting;
 *   - else the performance governor when any holder asks for it, with
 *     the original scaling_min_freq and scaling_max_freq;
 *   - else the userspace governor at the highest frequency any holder
 *     asks for (max_request, the rule the controller predicts with),
 *     capped at the original scaling_max_freq (a site's cap is never
 *     lifted): setspeed and scaling_max_freq at it, scaling_min_freq the
 *     original lowered to it when above;
 *   - a holder that asks for nothing (no governor, freq_khz 0) holds the
 *     domain at its original setting: it counts as asking for the
 *     original governor at the original scaling_max_freq;
 *   - a frequency without a governor asks for userspace at it; a governor
 *     other than performance and userspace counts, in the rule, as asking
 *     for its frequency (the original scaling_max_freq when none);
 *   - a stopped holder (Slurm suspended its step: a gang time slice it is
 *     not in, or scontrol suspend) asks for nothing at all, so a domain
 *     runs at the choice of the holders that run, or at its originals
 *     when none runs; it stays a holder, so the domain stays in the
 *     journal until its step ends (cosched_cpufreq_set_stopped).
 * A holder joins a domain only where cosched_cpufreq_check() (the
 * domain's governors and range, and the governors the site allows:
 * cosched_cpufreq_allow()) passes for the governor it names, for what its
 * request comes to on the domain alone (performance or userspace) and for
 * the setting resolved with every holder; a resolved setting that is the
 * original is written back as a restore is, unchecked.
 * When the last holder goes (release, or a sweep that finds its process
 * gone), the originals are written back and the domain leaves the
 * journal; a failed restore keeps the entry (and logs), so the next sweep
 * retries.
 *
 * Sweeps run at slurmd start, at every job launch on the node and at every
 * change, so after a crash of the job, of slurmstepd or of slurmd the
 * originals come back at the latest when slurmd starts or the next job
 * arrives.
 *
 * The text form (schema 1.1; one record a line, every line ending in "\n",
 * keys always present and in this order, numbers in decimal without sign
 * or leading zero):
 *
 *   cosched-cpufreq-journal/1.1 boot=BOOT_ID
 *   domain id=8 cpus=8-15 governor=schedutil min=800000 max=3000000 setspeed=0
 *   holder job=42 step=0 pid=1234 start=5678 governor=userspace freq=1500000 stopped=0
 *   end domains=1 holders=1
 *
 *   BOOT_ID  /proc/sys/kernel/random/boot_id when written ("-" unknown);
 *            a journal of another boot is dropped without writing sysfs
 *            (the kernel reset every domain since; outcome.dropped)
 *   domain   one a domain cosched changed, ascending id, with its
 *            ORIGINAL setting (setspeed > 0 exactly when the original
 *            governor is userspace) and its CPUs as cosched_idset_format()
 *            writes them; a domain with no holder line is one whose
 *            restore failed and waits for the next sweep
 *   holder   the holders of the domain line above, in the order they
 *            came; governor "-" = none, freq 0 = none; (job, step) once
 *            per domain; stopped=1 while Slurm suspends the step (1.1;
 *            a 1.0 journal's holders run)
 *   end      the counts of the lines above: a journal cut short is
 *            refused, not half read
 * The parser accepts exactly what the writer writes, and, from a newer
 * minor of schema 1 (cosched-cpufreq-journal/1.N, src/libcosched/base/kv.h), skips
 * the keys appended to a line and the kinds of line it does not know (a
 * node's slurmd and steps run two releases during its upgrade); another
 * major is refused, as a corrupt journal is.  A journal that cannot be
 * read as one (it does not parse, holds NUL bytes, is too large, or a
 * directory or anything but a regular file stands in its place) is never
 * rewritten and never lost: whichever call finds it moves it to
 * DIR/cpufreq.journal.bad.TIME (never over another) and says so in err,
 * once, as the name is free again after it.  What it named is lost with
 * it, so that call gives every domain found at the userspace governor
 * pinned below its maximum (what cosched leaves while it holds a domain)
 * its hardware defaults (cosched_cpufreq_hardware_default), rather than
 * leave it pinned; a step that still holds one gives back the original it
 * kept when it ends.  The call then carries on with a new journal, and
 * later steps get their frequencies again.  A symbolic link in its place
 * is refused and left where it is.
 *
 * Return values and err: err is cleared first; a call that ends with
 * problems (a refused domain, a failed write or restore, a domain the
 * journal names that this node no longer has, the journal itself) sets err
 * to the first one, followed by "(and N more problems)".  Acquire returns
 * -1 only when no domain was taken; release and sweep return -1 whenever
 * there was a problem.  Either way out (may be NULL) counts what was done.
 */
#ifndef COSCHED_CPUFREQ_JOURNAL_H
#define COSCHED_CPUFREQ_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/node/cpufreq.h"

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
	bool stopped;			/* Slurm suspended the step: its
					 * request counts for nothing */
} cosched_cpufreq_holder_t;

/* The calling process as a holder (pid and start time filled). */
int cosched_cpufreq_holder_self(cosched_cpufreq_holder_t *h, uint32_t job_id,
				uint32_t step_id, cosched_error_t *err);

/* Whether the holder's process still runs (same pid, same start time):
 * 1 or 0.  A zombie (exited, not yet reaped) is dead; a /proc/PID/stat
 * that exists but cannot be read counts as alive (a running job's setting
 * is never taken away on a guess). */
int cosched_cpufreq_holder_alive(const cosched_cpufreq_holder_t *h);

/* What one call did, for the caller's one log line. */
typedef struct {
	int applied;			/* domains written with a new setting */
	int restored;			/* domains given back their originals */
	int failed;			/* domains whose write or restore failed */
	int dropped;			/* domains of a previous boot's journal,
					 * dropped without writing */
	cosched_cpufreq_setting_t last;	/* the last setting written */
} cosched_cpufreq_outcome_t;

/*
 * What a holder keeps of the domains it took (filled by acquire and
 * join, in the holder's own memory): their ids and the originals the
 * journal recorded.  Its release compares them with the journal: a
 * domain the journal lost while the step held it (someone removed or
 * replaced the file) gets its original back from this copy, and an entry
 * made again without the holder gets the older, true original; each
 * case is reported in err.  Without it a lost journal left the domain at
 * the held setting for good.
 */
typedef struct {
	int n;
	int id[COSCHED_CPUFREQ_DOMAINS_MAX];
	cosched_cpufreq_setting_t orig[COSCHED_CPUFREQ_DOMAINS_MAX];
} cosched_cpufreq_kept_t;

/*
 * Add h as a holder of the domains (indexes into c) and write each
 * domain's resolved setting.  A setting the domain cannot take
 * (cosched_cpufreq_check) adds no holder and writes nothing there: err
 * says why, and the return is -1 only when no domain was taken.  A holder
 * with the same job and step replaces the earlier one (a changed request).
 * When writing a domain fails, h leaves that domain again and the domain
 * is settled without it (its other holders' setting, or the originals),
 * so the job runs unchanged there; out->failed counts it.  When the
 * journal cannot be written, nothing is written to sysfs.
 */
int cosched_cpufreq_acquire(const cosched_cpufreq_t *c, const char *dir,
			    const cosched_cpufreq_holder_t *h,
			    const int *idx, int n,
			    cosched_cpufreq_kept_t *kept,
			    cosched_cpufreq_outcome_t *out,
			    cosched_error_t *err);

/*
 * The same for a step that asks for nothing (h's governor "" and
 * freq_khz 0), on the domains already in the journal only: a job the
 * controller gave no frequency, sharing a domain another job changed,
 * holds it at its original speed by the rule above, and takes no other
 * domain.  Returns 0 when it joined one, 1 when none of the domains is
 * held, -1 on error.
 */
int cosched_cpufreq_join(const cosched_cpufreq_t *c, const char *dir,
			 const cosched_cpufreq_holder_t *h,
			 const int *idx, int n,
			 cosched_cpufreq_kept_t *kept,
			 cosched_cpufreq_outcome_t *out,
			 cosched_error_t *err);

/* Remove the holders with this job id and, when step_id is not
 * COSCHED_CPUFREQ_ANY_STEP, this step id; re-resolve or restore.  kept
 * (may be NULL): what the step kept when it took its domains (above). */
#define COSCHED_CPUFREQ_ANY_STEP UINT32_MAX
int cosched_cpufreq_release(const cosched_cpufreq_t *c, const char *dir,
			    uint32_t job_id, uint32_t step_id,
			    const cosched_cpufreq_kept_t *kept,
			    cosched_cpufreq_outcome_t *out,
			    cosched_error_t *err);

/*
 * Slurm suspended (stopped) or resumed the step of job_id and step_id:
 * its holds stay, stopped or running again, and every domain it holds is
 * settled anew by the rule above, so that each gang time slice runs at
 * the frequency of the steps in it.  The step's sampler tells it when
 * it sees the step's tasks stop or run (it has no hook at Slurm's
 * suspend and resume).  Returns 0 when it changed a hold, 1 when the step
 * holds no domain or its holds already say so (nothing written), -1 on
 * error.
 */
int cosched_cpufreq_set_stopped(const cosched_cpufreq_t *c, const char *dir,
				uint32_t job_id, uint32_t step_id,
				bool stopped, cosched_cpufreq_outcome_t *out,
				cosched_error_t *err);

/* Remove every holder whose process is gone; re-resolve or restore.  A
 * journal naming a domain this node does not have (the tree changed) is
 * kept and reported in err. */
int cosched_cpufreq_sweep(const cosched_cpufreq_t *c, const char *dir,
			  cosched_cpufreq_outcome_t *out,
			  cosched_error_t *err);

/* The same, never waiting for the lock (slurmd's launch hooks answer
 * slurmctld and srun right after): 1 when another process holds it (and
 * then settles the journal itself). */
int cosched_cpufreq_sweep_try(const cosched_cpufreq_t *c, const char *dir,
			      cosched_cpufreq_outcome_t *out,
			      cosched_error_t *err);

/*
 * For an administrator (cosched-node restore): sweep, then, with force,
 * drop every holder, running or not, and restore every domain the journal
 * names.  Without force a running holder is left in place and named in
 * err (-1), and only the dead ones are swept.  *alive (may be NULL)
 * receives the number of holders that were still running.
 */
int cosched_cpufreq_restore_all(const cosched_cpufreq_t *c, const char *dir,
				bool force, int *alive,
				cosched_cpufreq_outcome_t *out,
				cosched_error_t *err);

#endif
