/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * status.h - the part of cosched-status(1) that knows no Slurm: jobs as
 * libslurm gave them in (their SystemComment among them), the report out,
 * as a table or as the JSON document cosched-status(1) documents.
 *
 * Per node and socket, the jobs sharing it with what their decision
 * records say (class and its source, predicted slowdown, frequency and
 * governor, reason); pending jobs with theirs; jobs without a record as
 * "no cosched record"; a record that does not read as "invalid cosched
 * record" with the parser's message (values quoted, escaped and cut), the
 * other jobs printed as usual.
 *
 * Where a job is comes from its record (sockets per node) where the record
 * says, else from Slurm's node list with the socket unknown ("-" in the
 * table, null in JSON): the public libslurm API of 24.11 no longer gives a
 * job's CPUs on a node.
 */
#ifndef COSCHED_STATUS_H
#define COSCHED_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "src/libcosched/base/error.h"

/* The version of the JSON document (cosched-status(1), "JSON"). */
#define STATUS_JSON_SCHEMA 1

/* One job, as slurmctld described it.  Strings may be NULL; they are not
 * copied (they must outlive the report). */
typedef struct {
	uint32_t job_id;
	const char *state;	/* Slurm's state: RUNNING, PENDING, ... */
	bool pending;		/* not started: on no node */
	const char *user;
	const char *name;	/* the job name: the user's text */
	const char *comment;	/* SystemComment */
	const char *const *nodes;	/* the nodes it runs on */
	size_t nnodes;
	const char *partition;	/* where it runs (NULL: not known) */
	bool timeshared;	/* its partition is time-shared (gang
				 * time slices: cosched(8) TIME SHARING) */
} status_job_t;

/* What to report: everything, one job and its neighbours (job != 0), the
 * jobs on some nodes (nodes != NULL), or both. */
typedef struct {
	uint32_t job;
	const char *const *nodes;
	size_t nnodes;
} status_filter_t;

typedef struct status_report status_report_t;

/*
 * The report of jobs[0..n) (kept by reference: they must outlive it).
 * NULL with err set when out of memory, or when filter->job is not among
 * the jobs ("job N: not known to slurmctld").
 */
status_report_t *status_report_build(const status_job_t *jobs, size_t n,
				     const status_filter_t *filter,
				     cosched_error_t *err);
void status_report_free(status_report_t *r);

/* The table (with --jobs: the job's record explained, then who is next to
 * it).  Returns 0, or -1 when writing failed. */
int status_report_text(status_report_t *r, FILE *out);

/* The JSON document, ending with a newline.  Returns 0, or -1 with err
 * set. */
int status_report_json(status_report_t *r, FILE *out, cosched_error_t *err);

/* Prometheus' text format (cosched-status(1), "PROMETHEUS"): per node and
 * socket the jobs on it and the largest predicted slowdown, per job and
 * socket its predicted slowdown, and the jobs by record state.  Returns
 * 0, or -1 with err set when writing failed. */
int status_report_prometheus(status_report_t *r, FILE *out,
			     cosched_error_t *err);

#endif
