/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c - cosched-status(1)'s report built from the jobs it is given:
 * each job's record read and checked, the sockets it is on, the filter
 * applied (status.h); status.c and timeshare.c print it. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/model/decision.h"
#include "src/libcosched/base/text.h"
#include "src/status/status.h"
#include "src/status/status_internal.h"

const char *const status_rec_names[] = {
	[REC_NONE] = "none", [REC_VALID] = "valid", [REC_INVALID] = "invalid",
};

/* ---- text helpers --------------------------------------------------- */

/* s as printable ASCII (any other byte '?'); malloc'd; "-" for NULL or
 * empty when dash. */
char *status_printable(const char *s, bool dash)
{
	char *out;

	if (!s || !*s)
		return strdup(dash ? "-" : "");
	out = strdup(s);
	if (!out)
		return NULL;
	for (unsigned char *p = (unsigned char *) out; *p; p++)
		if (*p < 0x20 || *p >= 0x7f)
			*p = '?';
	return out;
}

char *status_str_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* The record line of a comment (the first line starting with the tag),
 * and its length without its line end; NULL when there is none. */
const char *status_record_line(const char *comment, size_t *len)
{
	size_t taglen = strlen(COSCHED_DECISION_TAG);

	for (const char *p = comment; p && *p;) {
		const char *nl = strchr(p, '\n');
		if (!strncmp(p, COSCHED_DECISION_TAG, taglen)) {
			*len = nl ? (size_t) (nl - p) : strlen(p);
			if (*len && p[*len - 1] == '\r')
				(*len)--;
			return p;
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* ---- building ------------------------------------------------------- */

static int add_slot(status_report_t *r, const char *node, int socket,
		    size_t job)
{
	if (r->nslots == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		slot_t *s = realloc(r->slots, cap * sizeof(*s));
		if (!s)
			return -1;
		r->slots = s;
		r->cap = cap;
	}
	r->slots[r->nslots].node = strdup(node);
	if (!r->slots[r->nslots].node)
		return -1;
	r->slots[r->nslots].socket = socket;
	r->slots[r->nslots].job = job;
	r->slots[r->nslots].shown = true;
	r->nslots++;
	return 0;
}

static bool in_list(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] && !strcmp(list[i], name))
			return true;
	return false;
}

static const cosched_decision_node_t *record_node(const cosched_decision_t *d,
						  const char *name)
{
	for (int k = 0; k < d->nnodes; k++)
		if (!strcmp(d->nodes[k].name, name))
			return &d->nodes[k];
	return NULL;
}

/* Read job i's record into r->d: REC_*; *error (REC_INVALID) malloc'd. */
static int read_record(status_report_t *r, size_t i, char **error)
{
	const status_job_t *in = r->jobs[i].in;
	cosched_error_t err;
	const char *line;
	size_t len = 0;
	char *text;
	int rc;

	*error = NULL;
	rc = cosched_decision_find(in->comment, r->d, &err);
	if (rc == 0)
		return REC_NONE;
	if (rc == 1 && r->d->job_id == in->job_id)
		return REC_VALID;
	if (rc == 1) {
		*error = status_str_fmt("the record names job %u, not this job %u "
				 "(Slurm copies SystemComment when it splits a job array)",
				 r->d->job_id, in->job_id);
		return REC_INVALID;
	}
	line = status_record_line(in->comment, &len);
	text = line ? strndup(line, len) : NULL;
	*error = status_str_fmt("%s; line %s", err.msg, COSCHED_QUOTE(text));
	free(text);
	return REC_INVALID;
}

/* Where job i is: its record's sockets on the nodes Slurm runs it on, and
 * those nodes with the socket unknown where the record says nothing. */
static int add_job_slots(status_report_t *r, size_t i)
{
	const status_job_t *in = r->jobs[i].in;
	const cosched_decision_t *d = r->d;
	bool valid = r->jobs[i].rec == REC_VALID;

	if (in->pending)
		return 0;
	for (int k = 0; valid && k < d->nnodes; k++) {
		const cosched_decision_node_t *node = &d->nodes[k];
		bool any = false;
		if (in->nnodes && !in_list(in->nodes, in->nnodes, node->name))
			continue;	/* not where Slurm runs it */
		for (int s = 0; s < COSCHED_DECISION_IDS_MAX; s++) {
			if (!cosched_idset_has(&node->sockets, s))
				continue;
			if (add_slot(r, node->name, s, i))
				return -1;
			any = true;
		}
		if (!any && add_slot(r, node->name, -1, i))
			return -1;
	}
	for (size_t k = 0; k < in->nnodes; k++) {
		if (!in->nodes[k] || (valid && record_node(d, in->nodes[k])))
			continue;
		if (add_slot(r, in->nodes[k], -1, i))
			return -1;
	}
	return 0;
}

static int slot_cmp(const void *a, const void *b, void *arg)
{
	const slot_t *x = a, *y = b;
	const status_report_t *r = arg;
	int c = strverscmp(x->node, y->node);

	if (c)
		return c;
	if (x->socket != y->socket)
		return x->socket < 0 ? 1 : y->socket < 0 ? -1 :
		       (x->socket > y->socket) - (x->socket < y->socket);
	return (r->jobs[x->job].in->job_id > r->jobs[y->job].in->job_id) -
	       (r->jobs[x->job].in->job_id < r->jobs[y->job].in->job_id);
}

/* Whether slot s shares a node and socket with the explained job (an
 * unknown socket may be any). */
static bool next_to_explained(const status_report_t *r, const slot_t *s)
{
	for (size_t k = 0; k < r->nslots; k++) {
		const slot_t *x = &r->slots[k];
		if ((long) x->job == r->explain && !strcmp(x->node, s->node) &&
		    (x->socket == s->socket || x->socket < 0 || s->socket < 0))
			return true;
	}
	return false;
}

static void apply_filter(status_report_t *r, const status_filter_t *f)
{
	for (size_t k = 0; k < r->nslots; k++) {
		slot_t *s = &r->slots[k];
		if (f && f->nodes)
			s->shown = in_list(f->nodes, f->nnodes, s->node);
		if (r->explain >= 0)
			s->shown = s->shown && ((long) s->job == r->explain ||
						next_to_explained(r, s));
	}
	for (size_t i = 0; i < r->njobs; i++) {
		job_t *j = &r->jobs[i];
		if (j->in->pending)
			j->shown = !r->by_node && (r->explain < 0 ||
						   (long) i == r->explain);
		else
			j->shown = (long) i == r->explain;
	}
	for (size_t k = 0; k < r->nslots; k++)
		if (r->slots[k].shown)
			r->jobs[r->slots[k].job].shown = true;
}

status_report_t *status_report_build(const status_job_t *jobs, size_t n,
				     const status_filter_t *filter,
				     cosched_error_t *err)
{
	status_report_t *r = calloc(1, sizeof(*r));

	if (!r)
		goto oom;
	r->explain = -1;
	r->by_node = filter && filter->nodes;
	r->d = malloc(sizeof(*r->d));
	r->jobs = calloc(n ? n : 1, sizeof(*r->jobs));
	if (!r->d || !r->jobs)
		goto oom;
	r->njobs = n;
	for (size_t i = 0; i < n; i++) {
		r->jobs[i].in = &jobs[i];
		r->jobs[i].rec = read_record(r, i, &r->jobs[i].error);
		if (r->jobs[i].rec == REC_INVALID && !r->jobs[i].error)
			goto oom;
		if (add_job_slots(r, i))
			goto oom;
		if (filter && filter->job && jobs[i].job_id == filter->job)
			r->explain = (long) i;
	}
	if (filter && filter->job && r->explain < 0) {
		cosched_error_set(err,
			"job %u: not known to slurmctld (or it ended too long ago)",
			filter->job);
		status_report_free(r);
		return NULL;
	}
	qsort_r(r->slots, r->nslots, sizeof(*r->slots), slot_cmp, r);
	apply_filter(r, filter);
	return r;
oom:
	cosched_error_set(err, "out of memory");
	status_report_free(r);
	return NULL;
}

void status_report_free(status_report_t *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->jobs && i < r->njobs; i++)
		free(r->jobs[i].error);
	for (size_t k = 0; k < r->nslots; k++)
		free(r->slots[k].node);
	free(r->jobs);
	free(r->slots);
	free(r->d);
	free(r);
}

bool status_job_load(status_report_t *r, size_t i)
{
	char *error;
	int rec;

	if (r->jobs[i].rec != REC_VALID)
		return false;
	rec = read_record(r, i, &error);
	free(error);
	return rec == REC_VALID;
}
