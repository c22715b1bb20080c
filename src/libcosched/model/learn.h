/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * learn.h - the interference table a site learns from its own
 * co-runs.
 *
 * Why: the table of "Effects of co-scheduling applications on multicore
 * architectures" (NTUA thesis, 2014) was measured on 2013 Sandy Bridge
 * machines, and cosched-calibrate(8) measures representative programs, not the
 * site's applications.  Every co-run the cluster observes anyway (a step's
 * record: its run time, its one co-runner and their classes, model/observe.h)
 * measures one cell, slowdown[victim][co-runner] = run time / the application's
 * solo run time.  The table keeps, per LCA class pair, a decayed mean of those
 * measurements, and replaces the configured cell once the cell has enough
 * recent ones (InterferenceSource=learned, InterferenceMinSamples,
 * InterferenceHalfLife in cosched.conf(5)).
 *
 * The rule.  A cell keeps weight W and S = the weighted sum of
 * log(slowdown), both as of the time of its latest observation; an
 * observation at time t multiplies both by 2^-((t - last) / H) (H the
 * half-life; 0 = no decay) and adds 1 and log(s).  Its value is the
 * weighted geometric mean exp(S / W) (a ratio's mean: 2x and 0.5x
 * cancel; one wild run moves it less than an arithmetic mean); its
 * samples now are W * 2^-((now - last) / H).  An observation older than
 * the cell's latest comes in with its own decay.  Where the table
 * replaces a cell, the preference table's cell of the same categories
 * follows with cosched-calibrate's rule (model/corun.h: rank from the
 * slowdown, forbidden from 1.5), so Application-Aware and strict mode act
 * on what was learned.
 *
 * No one user steers a cell.  A cell also keeps the same decayed sums
 * per user who taught it (COSCHED_LEARN_CELL_USERS of them; the one heard
 * from longest ago goes first), and what the controller uses is not the
 * mean over records but a weighted median over voters, in log: the
 * configured value weighs COSCHED_LEARN_CONF_VOTES, root's runs (the
 * site's own measurements) COSCHED_LEARN_SITE_VOTES, and every other user
 * with at least half a sample left weighs 1 whatever the number of their
 * runs; a tie between two values gives their geometric mean.  So one
 * user's runs alone never move a cell; with others they move it at most
 * to the next value among the other voters.  Every observation, and the
 * value used, is held to the configured table's range (the smallest and
 * largest configured cell, cosched_interference_range): a run faster
 * than alone or slower than any configured pair teaches the range's end.
 * A cell of an earlier release's file (no users) is one voter of weight 1.
 * Where the vote lands on the configured value the cell is not replaced
 * at all: its preference entry stays the configured one.
 *
 * Solo times are kept per application and owner: the user who ran it,
 * or COSCHED_LEARN_OWNER_SITE for an application the site shares
 * (ProfileShare): a user's pairs are measured against that user's own
 * solo runs (or the site's), so runs under another user's application
 * name do not change that user's baseline.
 *
 * The text form (base/kv.h's codec; ProfileDir/interference.learned,
 * written by slurmctld, store/learner.h), one line each:
 *   cosched-interference/1 created=T updated=T through=T
 *   cell victim=LCA corunner=LCA n=N weight=W sum_log=S last=T
 *   skipped reason=KEY n=N
 *   voter victim=LCA corunner=LCA uid=U n=N weight=W sum_log=S last=T
 *                                    (1.1: one user's share of a cell)
 *   solo_of app=APP owner=U|site last=T runs=R,R,...
 *                                    (1.1: the latest solo run times,
 *                                    seconds, of the owner's runs; an
 *                                    earlier release's "solo" lines, of
 *                                    no owner, are read and dropped)
 *   seen record=JOB.STEP.NODE time=T (decided; its file's time, at or
 *                                    after through)
 *   pending record=JOB.STEP.NODE time=T  (waiting: a co-runner still
 *                                    runs, or no solo run yet)
 * Times in seconds since the epoch; the version by base/kv.h's rule
 * (a newer minor's keys and kinds of line are skipped).
 */
#ifndef COSCHED_LEARN_H
#define COSCHED_LEARN_H

#include <stdbool.h>
#include <stddef.h>

#include "src/libcosched/model/category.h"
#include "src/libcosched/model/corun.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/model/interference.h"

#define COSCHED_LEARN_SCHEMA 1
#define COSCHED_LEARN_SCHEMA_MINOR 1
#define COSCHED_LEARN_TAG "cosched-interference/"
/* Solo run times kept per application (their median is the solo time). */
#define COSCHED_LEARN_SOLO_RUNS 9
/* Applications whose solo runs the table keeps (the oldest go first). */
#define COSCHED_LEARN_APPS_MAX 4096
/* Records decided after the watermark, and records pending, remembered
 * by name (each set at most this many). */
#define COSCHED_LEARN_SEEN_MAX 65536
#define COSCHED_LEARN_NAME_MAX 128
/* Users a cell keeps apart, and the voters' weights (the rule above). */
#define COSCHED_LEARN_CELL_USERS 32
#define COSCHED_LEARN_CONF_VOTES 2.0
#define COSCHED_LEARN_SITE_VOTES 3.0
/* The owner of a shared application's solo runs (ProfileShare). */
#define COSCHED_LEARN_OWNER_SITE (-1L)

typedef struct {
	long uid;
	double weight, sum_log;	/* as the cell's, this user's runs only */
	long long n, last;
} cosched_learn_voter_t;

typedef struct {
	double weight;		/* decayed count, as of last */
	double sum_log;		/* decayed sum of log(slowdown), as of last */
	long long n;		/* observations ever */
	long long last;		/* time of the latest (0: none) */
	int nusers;
	cosched_learn_voter_t user[COSCHED_LEARN_CELL_USERS];
} cosched_learn_cell_t;

/* Why a record taught nothing (counted in the table). */
typedef enum {
	COSCHED_SKIP_UNREADABLE = 0,	/* not JSON, not trusted, no node */
	COSCHED_SKIP_NO_RUNTIME,	/* no measured run (runtime, times) */
	COSCHED_SKIP_NO_CLASS,		/* no class in its decision */
	COSCHED_SKIP_SIGNALLED,		/* a task ended by a signal (a
					 * time limit, scancel, a crash) */
	COSCHED_SKIP_FAILED,		/* a task exited nonzero */
	COSCHED_SKIP_NO_CORUNNER_LIST,	/* its co-runners are not known */
	COSCHED_SKIP_CORUNNER_MISSING,	/* a co-runner's record never came */
	COSCHED_SKIP_SEVERAL,		/* not exactly one co-runner */
	COSCHED_SKIP_CORUNNER_LATER,	/* the co-runner came after it */
	COSCHED_SKIP_CORUNNER_CLASS,	/* the co-runner's class unknown */
	COSCHED_SKIP_NO_SOLO,		/* no solo run of its application */
	COSCHED_SKIP_NO_EXIT,		/* how its tasks ended is not known */
	COSCHED_SKIP_CORUNNER_UNUSABLE,	/* a co-runner's record cannot be
					 * read, trusted or has no run */
	COSCHED_SKIP_TOO_MANY_PENDING,	/* the pending set was full */
	COSCHED_SKIP_NO_APP,		/* no application name (1.1) */
	COSCHED_SKIP_NOT_PLACED,	/* cosched did not place it (1.1) */
	COSCHED_SKIP_NOT_MERGED,	/* its profile refused the run (1.1) */
	COSCHED_SKIP_NO_USER,		/* its user is not known (1.1) */
	COSCHED_SKIP_COUNT
} cosched_learn_skip_t;

const char *cosched_learn_skip_key(cosched_learn_skip_t r);
const char *cosched_learn_skip_text(cosched_learn_skip_t r);

typedef struct {
	char app[COSCHED_LEARN_NAME_MAX + 1];
	long owner;				/* uid, or _OWNER_SITE */
	double runs[COSCHED_LEARN_SOLO_RUNS];	/* oldest first */
	int nruns;
	long long last;				/* when the latest came */
} cosched_learn_solo_t;

typedef struct {
	char name[COSCHED_LEARN_NAME_MAX + 1];	/* JOB.STEP.NODE */
	double time;				/* its file's time */
} cosched_learn_seen_t;

/* A set of record names, hashed. */
typedef struct {
	cosched_learn_seen_t *v;	/* malloc'd */
	int n, cap;
	int *index;			/* open addressing; -1 empty */
	size_t nindex;			/* a power of two, > 2 * cap */
} cosched_learn_names_t;

typedef struct {
	cosched_learn_cell_t cell[COSCHED_LCA_COUNT][COSCHED_LCA_COUNT];
	long long skipped[COSCHED_SKIP_COUNT];
	long long created, updated;
	double through;		/* every record whose file is older is
				 * decided (store/learner.h) */
	cosched_learn_solo_t *solo;	/* malloc'd */
	int nsolo, solo_cap;
	cosched_learn_names_t seen;	/* decided, file at or after through */
	cosched_learn_names_t pending;	/* not decided yet */
} cosched_learn_table_t;

/* An empty table created at now (through = now: a new or reset table
 * learns from what ends from now on). */
void cosched_learn_init(cosched_learn_table_t *t, long long now);
void cosched_learn_free(cosched_learn_table_t *t);

/* One observation of user uid: victim's slowdown s (> 0) next to
 * corunner at time t (the caller holds s to the configured range).
 * half_life_s 0: no decay.  -1 with err for a class or s out of range. */
int cosched_learn_add(cosched_learn_table_t *t, cosched_lca_t victim,
		      cosched_lca_t corunner, double s, long long t_obs,
		      long uid, double half_life_s, cosched_error_t *err);

/* The cell's mean over records (exp(S/W); NAN without observations) and
 * its samples at now. */
double cosched_learn_cell_value(const cosched_learn_cell_t *c);
/* What the controller uses: the weighted median over voters (the rule
 * above) with the configured value, held to [lo, hi]; *voters (may be
 * NULL) gets how many users vote. */
double cosched_learn_cell_robust(const cosched_learn_cell_t *c,
				 double configured, double lo, double hi,
				 long long now, double half_life_s,
				 int *voters);
double cosched_learn_cell_samples(const cosched_learn_cell_t *c,
				  long long now, double half_life_s);

/* A solo run time of app by owner (seconds, at least 0.001), kept among
 * its latest; -1 when the name is not an application name
 * (cosched_app_name_check) or memory ran out. */
int cosched_learn_solo_add(cosched_learn_table_t *t, const char *app,
			   long owner, double runtime_s, long long when,
			   cosched_error_t *err);
/* The median of owner's kept solo runs of app: 1 found, 0 none. */
int cosched_learn_solo_time(const cosched_learn_table_t *t, const char *app,
			    long owner, double *out);

/* Whether name was decided already; remember it (-1 with err when the
 * set is full or the name is not JOB.STEP.NODE). */
bool cosched_learn_seen(const cosched_learn_table_t *t, const char *name);
int cosched_learn_seen_add(cosched_learn_table_t *t, const char *name,
			   double time, cosched_error_t *err);
/* The same for the records waiting; and one leaving the wait. */
bool cosched_learn_pending(const cosched_learn_table_t *t, const char *name);
int cosched_learn_pending_add(cosched_learn_table_t *t, const char *name,
			      double time, cosched_error_t *err);
void cosched_learn_pending_remove(cosched_learn_table_t *t, const char *name);
/* Move the watermark to through (floored to the millisecond, as the text
 * keeps it) and forget the decided names older than it. */
void cosched_learn_advance(cosched_learn_table_t *t, double through);

/*
 * The model a controller uses: configured, with every cell that has at
 * least min_samples samples at now (to the nearest whole: a cell with
 * exactly min_samples observations keeps them until its samples fall
 * below min_samples - 1/2) replaced by the learned value
 * (cosched_learn_cell_robust, within the configured range), and
 * the preference table's cell of the same categories by rule.  *used
 * (may be NULL) gets how many cells were replaced.
 */
void cosched_learn_apply(const cosched_learn_table_t *t,
			 const cosched_interference_model_t *configured,
			 double min_samples, double half_life_s,
			 const cosched_pref_rule_t *rule, long long now,
			 cosched_interference_model_t *out, int *used);

/* The text form (malloc'd; NULL when memory ran out) and its strict
 * reader (into an initialised table, replaced on success; unchanged on
 * error). */
char *cosched_learn_format(const cosched_learn_table_t *t);
int cosched_learn_parse(const char *text, cosched_learn_table_t *t,
			cosched_error_t *err);

#endif
