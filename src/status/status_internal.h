/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * status_internal.h - the report of cosched-status(1) in memory, shared
 * by its writers: the table and JSON (status.c) and the Prometheus
 * metrics (prometheus.c); not for use elsewhere.
 */
#ifndef COSCHED_STATUS_INTERNAL_H
#define COSCHED_STATUS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "src/libcosched/model/decision.h"
#include "src/status/status.h"

enum { REC_NONE, REC_VALID, REC_INVALID };

typedef struct {
	const status_job_t *in;
	int rec;		/* REC_* */
	char *error;		/* REC_INVALID: why, printable ASCII */
	bool shown;
} job_t;

/* A job on a node and socket (-1: the socket is not known). */
typedef struct {
	char *node;
	int socket;
	size_t job;
	bool shown;
} slot_t;

struct status_report {
	job_t *jobs;
	size_t njobs;
	slot_t *slots;		/* sorted by node, socket, job */
	size_t nslots, cap;
	long explain;		/* index of filter->job, or -1 */
	bool by_node;		/* --nodes given: no pending jobs */
	cosched_decision_t *d;	/* one record at a time */
};

/* report.c: the names of REC_*, by value. */
extern const char *const status_rec_names[];

/* s as printable ASCII (any other byte '?'); malloc'd; "-" for NULL or
 * empty when dash. */
char *status_printable(const char *s, bool dash);

/* printf into a malloc'd string (NULL when out of memory). */
__attribute__((format(printf, 1, 2)))
char *status_str_fmt(const char *fmt, ...);

/* The record line of a comment (the first line starting with the tag),
 * and its length without its line end; NULL when there is none. */
const char *status_record_line(const char *comment, size_t *len);

/* Read job i's record again into r->d (it was read when the report was
 * built): whether it is valid. */
bool status_job_load(status_report_t *r, size_t i);

/* The time-shared partitions' slices as they run (timeshare.c): the
 * text section after the pending jobs (nothing when no job shown is in
 * one), and the JSON array of them.  -1 when writing failed; NULL when
 * out of memory. */
int status_timeshare_text(status_report_t *r, FILE *out);
json_t *status_timeshare_json(status_report_t *r);

#endif
