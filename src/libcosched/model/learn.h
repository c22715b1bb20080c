/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * learn.h - the interference table a site learns from its own
 * co-runs.
 *
 * Why: [NTUA-2014-corun]'s table was measured on 2013 Sandy Bridge machines,
 * and cosched-calibrate(8) measures representative programs, not the site's
 * applications.  Every co-run the cluster observes anyway (a step's
 * record: its run time, its one co-runner and their classes,
 * model/observe.h) measures one cell, slowdown[victim][co-runner] =
 * run time / the application's solo run time.  The table keeps, per LCA
 * class pair, a decayed mean of those measurements, and replaces the
 * configured cell once the cell has enough recent ones
 * (InterferenceSource=learned, InterferenceMinSamples,
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
 * The text form (base/kv.h's codec; ProfileDir/interference.learned,
 * written by slurmctld, store/learner.h), one line each:
 *   cosched-interference/1 created=T updated=T through=T
 *   cell victim=LCA corunner=LCA n=N weight=W sum_log=S last=T
 *   skipped reason=KEY n=N
 *   solo app=APP runs=R,R,...        (the latest solo run times, seconds)
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
#define COSCHED_LEARN_TAG "cosched-interference/"
/* Solo run times kept per application (their median is the solo time). */
#define COSCHED_LEARN_SOLO_RUNS 9
/* Applications whose solo runs the table keeps (the oldest go first). */
#define COSCHED_LEARN_APPS_MAX 4096
/* Records decided after the watermark, and records pending, remembered
 * by name (each set at most this many). */
#define COSCHED_LEARN_SEEN_MAX 65536
#define COSCHED_LEARN_NAME_MAX 128

typedef struct {
	double weight;		/* decayed count, as of last */
	double sum_log;		/* decayed sum of log(slowdown), as of last */
	long long n;		/* observations ever */
	long long last;		/* time of the latest (0: none) */
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
	COSCHED_SKIP_COUNT
} cosched_learn_skip_t;

const char *cosched_learn_skip_key(cosched_learn_skip_t r);
const char *cosched_learn_skip_text(cosched_learn_skip_t r);

typedef struct {
	char app[COSCHED_LEARN_NAME_MAX + 1];
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

/* One observation: victim's slowdown s (> 0) next to corunner at time t.
 * half_life_s 0: no decay.  -1 with err for a class or s out of range. */
int cosched_learn_add(cosched_learn_table_t *t, cosched_lca_t victim,
		      cosched_lca_t corunner, double s, long long t_obs,
		      double half_life_s, cosched_error_t *err);

/* The cell's value (exp(S/W); NAN without observations) and its samples
 * at now. */
double cosched_learn_cell_value(const cosched_learn_cell_t *c);
double cosched_learn_cell_samples(const cosched_learn_cell_t *c,
				  long long now, double half_life_s);

/* A solo run time of app (seconds, at least 0.001), kept among its
 * latest; -1 when the name is not an application name
 * (cosched_app_name_check) or memory ran out. */
int cosched_learn_solo_add(cosched_learn_table_t *t, const char *app,
			   double runtime_s, long long when,
			   cosched_error_t *err);
/* The median of app's kept solo runs: 1 found, 0 none. */
int cosched_learn_solo_time(const cosched_learn_table_t *t, const char *app,
			    double *out);

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
 * below min_samples - 1/2) replaced by the learned value, and
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
