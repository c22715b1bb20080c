/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status.c - cosched-status(1) without Slurm (status.h): the report
 * (report.c) as text and as JSON. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/model/decision.h"
#include "src/libcosched/base/text.h"
#include "src/status/status.h"
#include "src/status/status_internal.h"

/* ---- the table -------------------------------------------------------- */

#define COLS_MAX 12

typedef struct {
	size_t ncols, nrows, cap;
	char **cells;		/* nrows x ncols, malloc'd strings */
	bool oom;
} table_t;

static void table_init(table_t *t, size_t ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
}

/* Add a row of ncols strings (taken over; NULL is out of memory). */
static void table_row(table_t *t, char **cells)
{
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		char **c = realloc(t->cells, cap * t->ncols * sizeof(*c));
		if (!c) {
			t->oom = true;
			for (size_t k = 0; k < t->ncols; k++)
				free(cells[k]);
			return;
		}
		t->cells = c;
		t->cap = cap;
	}
	for (size_t k = 0; k < t->ncols; k++) {
		t->oom = t->oom || !cells[k];
		t->cells[t->nrows * t->ncols + k] = cells[k];
	}
	t->nrows++;
}

/* Columns padded to their widest cell, the last one not; indent before
 * each row. */
static void table_print(const table_t *t, FILE *out, const char *indent)
{
	size_t width[COLS_MAX] = { 0 };

	for (size_t r = 0; r < t->nrows; r++)
		for (size_t k = 0; k < t->ncols; k++) {
			const char *c = t->cells[r * t->ncols + k];
			size_t n = c ? strlen(c) : 0;
			if (n > width[k])
				width[k] = n;
		}
	for (size_t r = 0; r < t->nrows; r++) {
		fputs(indent, out);
		for (size_t k = 0; k < t->ncols; k++) {
			const char *c = t->cells[r * t->ncols + k];
			if (k + 1 < t->ncols)
				fprintf(out, "%-*s  ", (int) width[k], c ? c : "");
			else
				fprintf(out, "%s\n", c ? c : "");
		}
	}
}

static void table_free(table_t *t)
{
	for (size_t k = 0; k < t->nrows * t->ncols; k++)
		free(t->cells[k]);
	free(t->cells);
}

/* USER STATE CLASS SOURCE SLOWDOWN FREQ_KHZ GOVERNOR REASON of job i
 * (slowdown to governor only when with_power). */
static size_t job_cells(status_report_t *r, size_t i, bool with_power,
			char **c)
{
	const job_t *j = &r->jobs[i];
	const cosched_decision_t *d = r->d;
	bool valid = status_job_load(r, i);
	size_t n = 0;

	c[n++] = status_printable(j->in->user, true);
	c[n++] = strdup(valid ? cosched_decision_state_name(d->state) : "-");
	c[n++] = strdup(valid && d->has_class ?
			cosched_category_name(d->category) : "-");
	c[n++] = strdup(valid && d->has_class ?
			cosched_class_source_name(d->source) : "-");
	if (with_power) {
		c[n++] = valid && !isnan(d->slowdown) ?
			 status_str_fmt("%g", d->slowdown) : strdup("-");
		c[n++] = valid && d->freq_khz ? status_str_fmt("%ld", d->freq_khz) :
						 strdup("-");
		c[n++] = strdup(valid && d->governor[0] ? d->governor : "-");
	}
	if (valid)
		c[n++] = strdup(d->reason[0] ? d->reason : "-");
	else if (j->rec == REC_NONE)
		c[n++] = strdup("no cosched record");
	else
		c[n++] = status_str_fmt("invalid cosched record: %s", j->error);
	return n;
}

static const char *const slot_head[] = {
	"NODE", "SOCKET", "JOB", "USER", "STATE", "CLASS", "SOURCE",
	"SLOWDOWN", "FREQ_KHZ", "GOVERNOR", "REASON",
};
static const char *const pending_head[] = {
	"JOB", "USER", "STATE", "CLASS", "SOURCE", "REASON",
};

static void head_row(table_t *t, const char *const *head, size_t n)
{
	char *c[COLS_MAX];

	for (size_t k = 0; k < n; k++)
		c[k] = strdup(head[k]);
	table_row(t, c);
}

static int slots_table(status_report_t *r, FILE *out, const char *indent)
{
	const size_t ncols = sizeof(slot_head) / sizeof(slot_head[0]);
	size_t rows = 0;
	table_t t;

	table_init(&t, ncols);
	head_row(&t, slot_head, ncols);
	for (size_t k = 0; k < r->nslots; k++) {
		const slot_t *s = &r->slots[k];
		char *c[COLS_MAX];
		if (!s->shown)
			continue;
		c[0] = strdup(s->node);
		c[1] = s->socket < 0 ? strdup("-") : status_str_fmt("%d", s->socket);
		c[2] = status_str_fmt("%u", r->jobs[s->job].in->job_id);
		job_cells(r, s->job, true, c + 3);
		table_row(&t, c);
		rows++;
	}
	if (rows)
		table_print(&t, out, indent);
	else
		fprintf(out, "%s(none)\n", indent);
	table_free(&t);
	return t.oom ? -1 : 0;
}

static int pending_table(status_report_t *r, FILE *out)
{
	const size_t ncols = sizeof(pending_head) / sizeof(pending_head[0]);
	size_t *order, n = 0;
	table_t t;

	order = malloc((r->njobs ? r->njobs : 1) * sizeof(*order));
	if (!order)
		return -1;
	for (size_t i = 0; i < r->njobs; i++)
		if (r->jobs[i].shown && r->jobs[i].in->pending)
			order[n++] = i;
	if (!n) {
		free(order);
		return 0;
	}
	/* By job id. */
	for (size_t a = 1; a < n; a++)
		for (size_t b = a; b > 0 && r->jobs[order[b - 1]].in->job_id >
					    r->jobs[order[b]].in->job_id; b--) {
			size_t x = order[b];
			order[b] = order[b - 1];
			order[b - 1] = x;
		}
	table_init(&t, ncols);
	head_row(&t, pending_head, ncols);
	for (size_t k = 0; k < n; k++) {
		char *c[COLS_MAX];
		c[0] = status_str_fmt("%u", r->jobs[order[k]].in->job_id);
		job_cells(r, order[k], false, c + 1);
		table_row(&t, c);
	}
	fputs("\nPending jobs:\n", out);
	table_print(&t, out, "");
	table_free(&t);
	free(order);
	return t.oom ? -1 : 0;
}

static void print_ids(FILE *out, const char *what, const cosched_idset_t *s)
{
	char buf[COSCHED_IDSET_TEXT_MAX];

	if (cosched_idset_count(s))
		fprintf(out, " %s %s", what,
			cosched_idset_format(s, buf, sizeof(buf)));
}

/* --jobs: the explained job's record, field by field. */
static void explain_job(status_report_t *r, FILE *out)
{
	size_t i = (size_t) r->explain;
	const job_t *j = &r->jobs[i];
	const cosched_decision_t *d = r->d;
	char *user = status_printable(j->in->user, true);
	char *state = status_printable(j->in->state, true);
	const char *line;
	size_t len = 0;

	fprintf(out, "Job %u: user %s, name %s, %s", j->in->job_id,
		user ? user : "-", COSCHED_QUOTE(j->in->name ? j->in->name : ""),
		state ? state : "-");
	if (j->in->nnodes) {
		fputs(" on ", out);
		for (size_t k = 0; k < j->in->nnodes; k++) {
			char *node = status_printable(j->in->nodes[k], true);
			fprintf(out, "%s%s", k ? "," : "", node ? node : "?");
			free(node);
		}
	}
	fputc('\n', out);
	free(user);
	free(state);
	if (j->rec == REC_NONE) {
		fputs("  record:     none (no cosched record)\n", out);
		return;
	}
	if (j->rec == REC_INVALID || !status_job_load(r, i)) {
		fprintf(out, "  record:     invalid cosched record: %s\n",
			j->error ? j->error : "?");
		return;
	}
	line = status_record_line(j->in->comment, &len);
	fprintf(out, "  record:     %.*s\n", (int) len, line);
	fprintf(out, "  decision:   %s, policy %s, scope %s\n",
		cosched_decision_state_name(d->state),
		cosched_decision_policy_of(d), cosched_scope_name(d->scope));
	if (d->has_class)
		fprintf(out, "  class:      %s (LCA %s), from %s\n",
			cosched_category_name(d->category),
			cosched_lca_name(d->lca),
			cosched_class_source_name(d->source));
	if (!isnan(d->mpki))
		fprintf(out, "  mpki:       %g\n", d->mpki);
	if (d->threads)
		fprintf(out, "  threads:    %d\n", d->threads);
	for (int k = 0; k < d->nnodes; k++) {
		fprintf(out, "  placement:  %s:", d->nodes[k].name);
		print_ids(out, "sockets", &d->nodes[k].sockets);
		print_ids(out, "cores", &d->nodes[k].cores);
		print_ids(out, "NUMA", &d->nodes[k].numa);
		fputc('\n', out);
	}
	if (d->membind != COSCHED_MEMBIND_UNSET)
		fprintf(out, "  membind:    %s\n", cosched_membind_name(d->membind));
	if (d->power != COSCHED_POWER_UNSET)
		fprintf(out, "  power:      %s\n", cosched_power_policy_name(d->power));
	if (d->freq_khz || d->freq_req_khz) {
		fputs("  frequency: ", out);
		if (d->freq_khz)
			fprintf(out, " %ld kHz", d->freq_khz);
		if (d->freq_req_khz)
			fprintf(out, " (its policy asked for %ld kHz)",
				d->freq_req_khz);
		fputc('\n', out);
	}
	if (d->governor[0])
		fprintf(out, "  governor:   %s\n", d->governor);
	if (!isnan(d->slowdown))
		fprintf(out, "  slowdown:   %g (predicted: time next to its co-runners / alone)\n",
			d->slowdown);
	if (d->reason[0])
		fprintf(out, "  reason:     %s\n", d->reason);
}

int status_report_text(status_report_t *r, FILE *out)
{
	int rc = 0;

	if (r->explain >= 0) {
		explain_job(r, out);
		if (r->jobs[r->explain].in->pending) {
			fputs("\nPending: on no node yet, next to no job.\n", out);
		} else {
			fputs("\nOn its nodes and sockets (socket \"-\": not known, may be any):\n",
			      out);
			rc = slots_table(r, out, "");
		}
	} else {
		fprintf(out, "Running jobs by node and socket%s:\n",
			r->by_node ? " (the nodes asked for)" : "");
		rc = slots_table(r, out, "");
		if (!rc)
			rc = pending_table(r, out);
		if (!rc)
			rc = status_timeshare_text(r, out);
	}
	return rc || ferror(out) ? -1 : 0;
}

/* ---- JSON ------------------------------------------------------------ */

/* A string for JSON (printable ASCII: valid UTF-8 whatever came in), or
 * null. */
static json_t *json_text(const char *s)
{
	char *p;
	json_t *j;

	if (!s)
		return json_null();
	p = status_printable(s, false);
	if (!p)
		return NULL;
	j = json_string(p);
	free(p);
	return j;
}

static json_t *json_ids(const cosched_idset_t *s)
{
	json_t *a = json_array();

	for (int id = 0; a && id < COSCHED_DECISION_IDS_MAX; id++)
		if (cosched_idset_has(s, id))
			json_array_append_new(a, json_integer(id));
	return a;
}

static json_t *json_decision(const cosched_decision_t *d, const char *line,
			     size_t len)
{
	json_t *o = json_object(), *placement = json_array();

	if (!o || !placement) {
		json_decref(o);
		json_decref(placement);
		return NULL;
	}
	for (int k = 0; k < d->nnodes; k++)
		json_array_append_new(placement, json_pack("{s:s, s:o, s:o, s:o}",
			"node", d->nodes[k].name,
			"sockets", json_ids(&d->nodes[k].sockets),
			"cores", json_ids(&d->nodes[k].cores),
			"numa", json_ids(&d->nodes[k].numa)));
	json_object_set_new(o, "text", json_stringn(line, len));
	json_object_set_new(o, "state",
			    json_string(cosched_decision_state_name(d->state)));
	json_object_set_new(o, "policy", json_string(
		cosched_decision_policy_of(d)));
	json_object_set_new(o, "scope", json_string(cosched_scope_name(d->scope)));
	json_object_set_new(o, "class", d->has_class ?
		json_string(cosched_category_name(d->category)) : json_null());
	json_object_set_new(o, "lca", d->has_class ?
		json_string(cosched_lca_name(d->lca)) : json_null());
	json_object_set_new(o, "source", d->has_class ?
		json_string(cosched_class_source_name(d->source)) : json_null());
	json_object_set_new(o, "mpki", isnan(d->mpki) ? json_null() :
						       json_real(d->mpki));
	json_object_set_new(o, "threads", d->threads ?
				json_integer(d->threads) : json_null());
	json_object_set_new(o, "placement", placement);
	json_object_set_new(o, "membind", d->membind == COSCHED_MEMBIND_UNSET ?
		json_null() : json_string(cosched_membind_name(d->membind)));
	json_object_set_new(o, "power", d->power == COSCHED_POWER_UNSET ?
		json_null() : json_string(cosched_power_policy_name(d->power)));
	json_object_set_new(o, "freq_req_khz", d->freq_req_khz ?
				json_integer(d->freq_req_khz) : json_null());
	json_object_set_new(o, "freq_khz", d->freq_khz ?
				json_integer(d->freq_khz) : json_null());
	json_object_set_new(o, "governor", d->governor[0] ?
				json_string(d->governor) : json_null());
	json_object_set_new(o, "slowdown", isnan(d->slowdown) ? json_null() :
						json_real(d->slowdown));
	json_object_set_new(o, "reason", d->reason[0] ?
				json_string(d->reason) : json_null());
	return o;
}

static json_t *json_job(status_report_t *r, size_t i)
{
	const job_t *j = &r->jobs[i];
	json_t *o = json_object(), *nodes = json_array();

	if (!o || !nodes) {
		json_decref(o);
		json_decref(nodes);
		return NULL;
	}
	for (size_t k = 0; k < j->in->nnodes; k++)
		json_array_append_new(nodes, json_text(j->in->nodes[k]));
	json_object_set_new(o, "job_id", json_integer(j->in->job_id));
	json_object_set_new(o, "slurm_state", json_text(j->in->state));
	json_object_set_new(o, "user", json_text(j->in->user));
	json_object_set_new(o, "name", json_text(j->in->name));
	json_object_set_new(o, "nodes", nodes);
	json_object_set_new(o, "record", json_string(status_rec_names[j->rec]));
	json_object_set_new(o, "error", json_text(j->error));
	if (status_job_load(r, i)) {
		size_t len = 0;
		const char *line = status_record_line(j->in->comment, &len);
		json_object_set_new(o, "decision", json_decision(r->d, line, len));
	} else {
		json_object_set_new(o, "decision", json_null());
	}
	return o;
}

static int id_cmp(const void *a, const void *b, void *arg)
{
	const status_report_t *r = arg;
	uint32_t x = r->jobs[*(const size_t *) a].in->job_id;
	uint32_t y = r->jobs[*(const size_t *) b].in->job_id;

	return (x > y) - (x < y);
}

int status_report_json(status_report_t *r, FILE *out, cosched_error_t *err)
{
	json_t *doc = json_object(), *sockets = json_array(),
	       *pending = json_array(), *jobs = json_array(), *group = NULL,
	       *timeshare;
	size_t *order = malloc((r->njobs ? r->njobs : 1) * sizeof(*order));
	size_t n = 0;
	int rc = -1;

	if (!doc || !sockets || !pending || !jobs || !order) {
		json_decref(sockets);
		json_decref(pending);
		json_decref(jobs);
		goto out;
	}
	json_object_set_new(doc, "schema", json_integer(STATUS_JSON_SCHEMA));
	json_object_set_new(doc, "record_schema",
			    json_integer(COSCHED_DECISION_SCHEMA));
	json_object_set_new(doc, "explain", r->explain < 0 ? json_null() :
		json_integer(r->jobs[r->explain].in->job_id));
	/* Slots are sorted: one group per node and socket. */
	for (size_t k = 0; k < r->nslots; k++) {
		const slot_t *s = &r->slots[k], *prev = NULL;
		if (!s->shown)
			continue;
		for (size_t p = k; p-- > 0;)
			if (r->slots[p].shown) {
				prev = &r->slots[p];
				break;
			}
		if (!prev || strcmp(prev->node, s->node) ||
		    prev->socket != s->socket) {
			group = json_pack("{s:o, s:o, s:[]}",
					  "node", json_text(s->node),
					  "socket", s->socket < 0 ? json_null() :
						    json_integer(s->socket),
					  "jobs");
			json_array_append_new(sockets, group);
		}
		if (group)
			json_array_append_new(json_object_get(group, "jobs"),
				json_integer(r->jobs[s->job].in->job_id));
	}
	json_object_set_new(doc, "sockets", sockets);
	for (size_t i = 0; i < r->njobs; i++)
		if (r->jobs[i].shown)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), id_cmp, r);
	for (size_t k = 0; k < n; k++) {
		if (r->jobs[order[k]].in->pending)
			json_array_append_new(pending,
				json_integer(r->jobs[order[k]].in->job_id));
		json_array_append_new(jobs, json_job(r, order[k]));
	}
	json_object_set_new(doc, "pending", pending);
	json_object_set_new(doc, "jobs", jobs);
	timeshare = status_timeshare_json(r);
	if (!timeshare)
		goto out;
	json_object_set_new(doc, "timeshare", timeshare);
	if (json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
	    fputc('\n', out) == EOF || ferror(out))
		goto out;
	rc = 0;
out:
	if (rc)
		cosched_error_set(err, "cannot write the JSON document (out of memory or output error)");
	json_decref(doc);
	free(order);
	return rc;
}
