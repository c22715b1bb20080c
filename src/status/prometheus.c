/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prometheus.c - cosched-status --prometheus: the controller's
 * placements as Prometheus metrics (status.h), through the one writer of
 * the format (src/libcosched/base/prom.h).  A scrape target or node_exporter's
 * textfile collector on the controller reads it; per-step energy comes
 * from each node (cosched-node metrics) and, once steps end, from
 * accounting.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/libcosched/model/category.h"
#include "src/libcosched/base/prom.h"
#include "src/status/status_internal.h"

/* The label of a socket: its number, or "unknown" where no record says. */
static void socket_label(int socket, char *buf, size_t len)
{
	if (socket < 0)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%d", socket);
}

/* Per node and socket (the slots are sorted: one run each): how many jobs
 * (slowdown false) or their largest predicted slowdown, where a record
 * predicts one (slowdown true).  One family at a time: the format wants
 * each family's samples together. */
static void socket_samples(status_report_t *r, FILE *out, bool slowdown)
{
	const char *name = slowdown ? "cosched_socket_predicted_slowdown_max" :
				      "cosched_socket_jobs";

	for (size_t k = 0; k < r->nslots;) {
		const slot_t *first = &r->slots[k];
		char sock[16];
		cosched_prom_label_t l[] = {
			{ "node", first->node }, { "socket", sock },
		};
		double worst = NAN;
		size_t n = 0;

		for (; k < r->nslots && !strcmp(r->slots[k].node, first->node) &&
		       r->slots[k].socket == first->socket; k++) {
			if (!r->slots[k].shown)
				continue;
			n++;
			if (slowdown && status_job_load(r, r->slots[k].job) &&
			    !isnan(r->d->slowdown) &&
			    (isnan(worst) || r->d->slowdown > worst))
				worst = r->d->slowdown;
		}
		if (!n || (slowdown && isnan(worst)))
			continue;	/* not asked for (--nodes), or none */
		socket_label(first->socket, sock, sizeof(sock));
		cosched_prom_sample(out, name, l, 2, slowdown ? worst : (double) n);
	}
}

static void sockets(status_report_t *r, FILE *out)
{
	cosched_prom_family(out, "cosched_socket_jobs", "gauge",
		"Jobs running on the socket (socket unknown: on the node, where no record names a socket).");
	socket_samples(r, out, false);
	cosched_prom_family(out, "cosched_socket_predicted_slowdown_max",
		"gauge",
		"The largest predicted slowdown among the socket's jobs, as their records predicted it at their start.");
	socket_samples(r, out, true);
}

/* Per job and socket: its predicted slowdown and decided frequency. */
static void jobs(status_report_t *r, FILE *out)
{
	cosched_prom_family(out, "cosched_job_predicted_slowdown", "gauge",
		"The job's predicted slowdown next to its co-runners, from its decision record.");
	for (size_t k = 0; k < r->nslots; k++) {
		const slot_t *s = &r->slots[k];
		const status_job_t *in = r->jobs[s->job].in;
		char job[16], sock[16];
		cosched_prom_label_t l[] = {
			{ "job", job }, { "user", in->user },
			{ "node", s->node }, { "socket", sock },
			{ "class", NULL }, { "policy", NULL },
		};

		if (!s->shown || !status_job_load(r, s->job) ||
		    isnan(r->d->slowdown))
			continue;
		snprintf(job, sizeof(job), "%u", in->job_id);
		socket_label(s->socket, sock, sizeof(sock));
		l[4].value = r->d->has_class ?
			     cosched_category_name(r->d->category) : "";
		l[5].value = cosched_decision_policy_of(r->d);
		cosched_prom_sample(out, "cosched_job_predicted_slowdown", l,
				    6, r->d->slowdown);
	}
	cosched_prom_family(out, "cosched_job_frequency_khz", "gauge",
		"The CPU frequency decided for the job's cores, where one was decided.");
	for (size_t i = 0; i < r->njobs; i++) {
		const status_job_t *in = r->jobs[i].in;
		char job[16];
		cosched_prom_label_t l[] = { { "job", job }, { "user", in->user } };

		if (!r->jobs[i].shown || in->pending || !status_job_load(r, i) ||
		    !r->d->freq_khz)
			continue;
		snprintf(job, sizeof(job), "%u", in->job_id);
		cosched_prom_sample(out, "cosched_job_frequency_khz", l, 2,
				    (double) r->d->freq_khz);
	}
}

/* The jobs by their record's state; "none" and "invalid" for jobs with
 * no record or one that does not read. */
static void states(status_report_t *r, FILE *out)
{
	double count[COSCHED_DECISION_STATE_COUNT + 2] = { 0 };

	for (size_t i = 0; i < r->njobs; i++) {
		if (!r->jobs[i].shown)
			continue;
		if (r->jobs[i].rec == REC_NONE)
			count[COSCHED_DECISION_STATE_COUNT]++;
		else if (!status_job_load(r, i))
			count[COSCHED_DECISION_STATE_COUNT + 1]++;
		else
			count[r->d->state]++;
	}
	cosched_prom_family(out, "cosched_jobs", "gauge",
		"Running and pending jobs by their decision record's state (none: no record; invalid: one that does not read).");
	for (int s = 0; s < COSCHED_DECISION_STATE_COUNT + 2; s++) {
		cosched_prom_label_t l[] = { { "state", NULL } };

		l[0].value = s == COSCHED_DECISION_STATE_COUNT ? "none" :
			     s == COSCHED_DECISION_STATE_COUNT + 1 ? "invalid" :
			     cosched_decision_state_name(s);
		cosched_prom_sample(out, "cosched_jobs", l, 1, count[s]);
	}
}

int status_report_prometheus(status_report_t *r, FILE *out,
			     cosched_error_t *err)
{
	sockets(r, out);
	jobs(r, out);
	states(r, out);
	if (fflush(out) || ferror(out))
		return cosched_error_set(err, "cannot write the metrics (output error)");
	return 0;
}
