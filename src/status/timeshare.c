/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeshare.c - cosched-status(1)'s view of the time-shared partitions
 * (gang time slices, cosched(8) TIME SHARING): per partition, the jobs
 * that run now and those suspended, as slurmctld gave their states, with
 * whom each alternates and runs beside (its record) and the predicted
 * slowdown of the running set: the worst of its jobs' predictions, since
 * the slice runs as long as its slowest pairing lets it.
 *
 * The jobs are those of the report (slurmctld already kept the ones
 * PrivateData hides from the caller out, as for the other views), so the
 * running set's figure is over the jobs the caller may see.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/model/category.h"
#include "src/status/status_internal.h"

static int part_cmp(const void *a, const void *b, void *arg)
{
	const status_report_t *r = arg;
	const status_job_t *x = r->jobs[*(const size_t *) a].in;
	const status_job_t *y = r->jobs[*(const size_t *) b].in;
	int c = strcmp(x->partition, y->partition);

	return c ? c : (x->job_id > y->job_id) - (x->job_id < y->job_id);
}

static bool running(const status_job_t *j)
{
	return j->state && !strcmp(j->state, "RUNNING");
}

static bool suspended(const status_job_t *j)
{
	return j->state && !strcmp(j->state, "SUSPENDED");
}

/* Indices of the shown time-shared jobs that run or are suspended, by
 * partition then job id; *n of them.  NULL when out of memory. */
static size_t *timeshared_jobs(status_report_t *r, size_t *n)
{
	size_t *order = malloc((r->njobs ? r->njobs : 1) * sizeof(*order));

	*n = 0;
	if (!order)
		return NULL;
	for (size_t i = 0; i < r->njobs; i++) {
		const status_job_t *j = r->jobs[i].in;

		if (r->jobs[i].shown && j->timeshared && j->partition &&
		    (running(j) || suspended(j)))
			order[(*n)++] = i;
	}
	qsort_r(order, *n, sizeof(*order), part_cmp, r);
	return order;
}

/* The end of the partition group starting at order[k]. */
static size_t group_end(status_report_t *r, const size_t *order, size_t n,
			size_t k)
{
	size_t e = k + 1;

	while (e < n && !strcmp(r->jobs[order[e]].in->partition,
				r->jobs[order[k]].in->partition))
		e++;
	return e;
}

/* The worst predicted slowdown of the group's running jobs; NAN when
 * none has one. */
static double running_slowdown(status_report_t *r, const size_t *order,
			       size_t k, size_t e)
{
	double worst = NAN;

	for (; k < e; k++)
		if (running(r->jobs[order[k]].in) &&
		    status_job_load(r, order[k]) && !isnan(r->d->slowdown) &&
		    (isnan(worst) || r->d->slowdown > worst))
			worst = r->d->slowdown;
	return worst;
}

static void print_peers(FILE *out, const uint32_t *ids, int n)
{
	if (!n)
		fputc('-', out);
	for (int k = 0; k < n; k++)
		fprintf(out, "%s%u", k ? "," : "", ids[k]);
}

int status_timeshare_text(status_report_t *r, FILE *out)
{
	size_t n, *order = timeshared_jobs(r, &n);

	if (!order)
		return -1;
	if (n)
		fputs("\nTime-shared partitions, the slices as they run now:\n",
		      out);
	for (size_t k = 0; k < n;) {
		size_t e = group_end(r, order, n, k);
		double worst = running_slowdown(r, order, k, e);
		char *part = status_printable(r->jobs[order[k]].in->partition,
					      true);

		fprintf(out, "%s: ", part ? part : "?");
		free(part);
		if (isnan(worst))
			fputs("running set's predicted slowdown -\n", out);
		else
			fprintf(out, "running set's predicted slowdown %g\n",
				worst);
		fputs("  SLICE      JOB  CLASS  ALTERNATES  BESIDE  SLOWDOWN\n",
		      out);
		/* Running first, then suspended. */
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = k; i < e; i++) {
				const status_job_t *j = r->jobs[order[i]].in;
				bool valid;

				if (running(j) != !pass)
					continue;
				valid = status_job_load(r, order[i]);
				fprintf(out, "  %-9s  %u  %s  ",
					pass ? "suspended" : "running",
					j->job_id, valid && r->d->has_class ?
					cosched_category_name(r->d->category) :
					"-");
				if (valid)
					print_peers(out, r->d->alternates,
						    r->d->nalternates);
				else
					fputc('-', out);
				fputs("  ", out);
				if (valid)
					print_peers(out, r->d->beside,
						    r->d->nbeside);
				else
					fputc('-', out);
				if (valid && !isnan(r->d->slowdown))
					fprintf(out, "  %g\n", r->d->slowdown);
				else
					fputs("  -\n", out);
			}
		k = e;
	}
	free(order);
	return ferror(out) ? -1 : 0;
}

static json_t *json_peers(const uint32_t *ids, int n)
{
	json_t *a = json_array();

	for (int k = 0; a && k < n; k++)
		json_array_append_new(a, json_integer(ids[k]));
	return a;
}

json_t *status_timeshare_json(status_report_t *r)
{
	size_t n, *order = timeshared_jobs(r, &n);
	json_t *parts = json_array();

	if (!order || !parts) {
		free(order);
		json_decref(parts);
		return NULL;
	}
	for (size_t k = 0; k < n;) {
		size_t e = group_end(r, order, n, k);
		double worst = running_slowdown(r, order, k, e);
		char *name = status_printable(r->jobs[order[k]].in->partition,
					      true);
		json_t *run = json_array(), *susp = json_array(),
		       *jobs = json_array();

		for (size_t i = k; i < e; i++) {
			const status_job_t *j = r->jobs[order[i]].in;
			bool valid = status_job_load(r, order[i]);

			json_array_append_new(running(j) ? run : susp,
					      json_integer(j->job_id));
			json_array_append_new(jobs, json_pack(
				"{s:I, s:s, s:o, s:o, s:o, s:o}",
				"job_id", (json_int_t) j->job_id,
				"slice", running(j) ? "running" : "suspended",
				"class", valid && r->d->has_class ?
					json_string(cosched_category_name(
						r->d->category)) : json_null(),
				"alternates", valid ? json_peers(
					r->d->alternates, r->d->nalternates) :
					json_null(),
				"beside", valid ? json_peers(r->d->beside,
					r->d->nbeside) : json_null(),
				"slowdown", valid && !isnan(r->d->slowdown) ?
					json_real(r->d->slowdown) :
					json_null()));
		}
		json_array_append_new(parts, json_pack(
			"{s:s?, s:o, s:o, s:o, s:o}", "partition", name,
			"running", run, "suspended", susp,
			"running_slowdown", isnan(worst) ? json_null() :
						json_real(worst),
			"jobs", jobs));
		free(name);
		k = e;
	}
	free(order);
	return parts;
}
