/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * learner.h - the learned interference table kept in the profile
 * store: the step records of ProfileDir/jobs read, each decided once by
 * the observation rule (model/observe.h), and the table
 * (model/learn.h) kept in ProfileDir/interference.learned.
 *
 * slurmctld's reader thread runs it every ProfileCacheRefresh seconds
 * (store/refresh.h); cosched-status reads, shows and resets the file.
 *
 * Trust, as for profiles (cosched_file_trusted): a step record or a table
 * file is read only when owned by root or this process's user and not
 * writable by group or others; records are the sampler's (root's), the
 * table slurmctld's (SlurmUser's).  A record that cannot be read is
 * counted (skipped, unreadable) and never read again.
 *
 * Which records are read: those whose file's time (mtime) is at or after
 * the table's watermark ("through"), not decided or pending yet, and the
 * pending ones again by name, but for a pair waiting only for its
 * application's solo time whose file has not changed since (the learner
 * remembers what it made of it; a co-runner's record read in the same
 * run is taken from that run too).
 *
 * What a run costs is what ended since, not what the folder keeps (step
 * records stay until the site removes them): the learner keeps its
 * listing of ProfileDir/jobs from one run to the next (io/dirlist.h).
 * A name found older than the watermark, or not a record's, is not looked
 * at again while its entry keeps its inode; a folder unchanged for a
 * minute is not read at all.  Records are replaced by rename, as the
 * sampler writes them, never changed in place: a record edited in place
 * keeps its inode and is not read again.  The watermark moves to now less
 * COSCHED_LEARNER_SLACK_S (a record is written as its step ends; the
 * slack covers clocks of nodes and shared file systems): every record
 * whose file is older was gathered, and is decided or pending.  A record
 * that stays pending for COSCHED_LEARNER_PENDING_MAX_S (a co-runner's
 * record never came, no solo run of its application) is skipped with
 * that reason.  A record that may never teach (cosched_observe_teaches:
 * no application, not placed by cosched, not merged, no user) is skipped
 * at once with its reason.  Records are settled oldest first (file
 * time): when more end at once than the set of decided names holds (a
 * burst after an outage), the rest are counted (unsettled) and left for
 * the next run, the watermark moves up to the first of them and the
 * names below it are forgotten, so every burst is worked through.
 *
 * A table file that cannot be used when the learner starts (another
 * major after a rollback, a file someone else owns) is renamed aside
 * (interference.learned.bad.TIME) and the learner starts again; one that
 * becomes unusable later is said once and replaced at the next change.
 *
 * A reset (cosched-status --reset-interference) writes an empty table
 * with the watermark at that moment; the learner finds the file is no
 * longer the one it wrote (inode, size, time) and takes it.  A table of
 * another major version, or one that does not parse, is not taken: the
 * learner says so and keeps its own, which it writes at its next change.
 */
#ifndef COSCHED_LEARNER_H
#define COSCHED_LEARNER_H

#include <stdbool.h>

#include "src/libcosched/base/error.h"
#include "src/libcosched/io/private.h"
#include "src/libcosched/model/learn.h"
#include "src/libcosched/model/observe.h"

#define COSCHED_LEARNER_FILE "interference.learned"
#define COSCHED_LEARNER_JOBS_SUBDIR "jobs"
#define COSCHED_LEARNER_SLACK_S 60.0
#define COSCHED_LEARNER_PENDING_MAX_S 86400.0
#define COSCHED_LEARNER_FILE_MAX_BYTES (16 * 1024 * 1024)
#define COSCHED_STEP_RECORD_MAX_BYTES (1024 * 1024)

/* ProfileDir/jobs/JOB.STEP.NODE.json, trusted: 1 read, 0 missing, -1
 * with err. */
int cosched_step_record_load(const char *path, cosched_step_record_t *r,
			     cosched_error_t *err);

/* The table file: 1 read into *t (initialised on entry), 0 missing, -1
 * with err (untrusted, unreadable, another major). */
int cosched_learner_file_load(const char *profile_dir,
			      cosched_learn_table_t *t, cosched_error_t *err);
/* Write *t atomically and durably, kept as privacy says (NULL: public;
 * io/private.h). */
int cosched_learner_file_save(const char *profile_dir,
			      const cosched_private_t *privacy,
			      const cosched_learn_table_t *t,
			      cosched_error_t *err);

/*
 * The rule over every record in ProfileDir/jobs at once, for reports
 * (cosched-status --observations, cosched-model-check(1)): each record
 * decided as the learner decides it, except that nothing is pending (a
 * co-runner's record that is not there is missing), passed to fn with
 * its name (JOB.STEP.NODE; r is NULL for a record that could not be read
 * or trusted, with o->why COSCHED_SKIP_UNREADABLE).  Solo runs and pairs
 * come as they are: the caller sets a run time against its solo time.
 */
typedef void (*cosched_observe_fn)(void *ctx, const char *name,
				   const cosched_step_record_t *r,
				   const cosched_observation_t *o);
int cosched_observe_dir(const char *profile_dir, double min_overlap,
			cosched_observe_fn fn, void *ctx, cosched_error_t *err);

typedef struct {
	int read;			/* records decided this run */
	int parsed;			/* step record files read this run
					 * (a record waiting for a solo time
					 * is not read again while its file
					 * stays the same) */
	int pairs, solos, pending;
	int skipped[COSCHED_SKIP_COUNT];
	int unsettled;			/* records left for the next run:
					 * the set of decided names was
					 * full (they are not lost) */
	bool listed;			/* ProfileDir/jobs was read (else it
					 * had not changed since the last
					 * run that read it) */
	bool changed;			/* the table changed */
	bool saved;			/* the file was written */
	bool adopted;			/* a file written by another (a
					 * reset) was taken */
} cosched_learner_report_t;

typedef struct cosched_learner cosched_learner_t;

cosched_learner_t *cosched_learner_create(const char *profile_dir,
					  double half_life_s,
					  double min_overlap,
					  cosched_error_t *err);
void cosched_learner_free(cosched_learner_t *l);
/* Only the table file (at slurmctld's start: no scan of the records,
 * which the reader thread does). */
int cosched_learner_load(cosched_learner_t *l, long long now,
			 cosched_learner_report_t *rep, cosched_error_t *err);
/* One run at now.  -1 with err when the jobs folder cannot be listed or
 * the table cannot be written (what was learned stays in memory). */
int cosched_learner_run(cosched_learner_t *l, long long now,
			cosched_learner_report_t *rep, cosched_error_t *err);
/* The configured table, whose range holds every observation (the
 * default table's until this is called). */
void cosched_learner_set_range(cosched_learner_t *l,
			       const cosched_interference_model_t *configured);
/* How the table file is written from now on (public until set). */
void cosched_learner_set_privacy(cosched_learner_t *l,
				 const cosched_private_t *privacy);
/* The table as learned so far (owned by the learner). */
const cosched_learn_table_t *cosched_learner_table(const cosched_learner_t *l);

#endif
