/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ctl_shared.c - jobs that time-share cores outside cons_tres's rows, in
 *  their records.  A job resumed by scontrol onto cores another job took
 *  while it was suspended is kept in none of cons_tres's rows ("job
 *  overflow"), and the occupancy leaves it out the same way; so does a
 *  rebuild that finds more running jobs than cores.  The predicted
 *  slowdowns of every job on those cores then hold for none of them: the
 *  job left out and every job holding its cores say with which jobs they
 *  time-share them, and no slowdown, until a rebuild counts them again.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "ctl_internal.h"
#include "select_cons_tres_cosched.h"

/* Job ids a note names; more are counted ("and 3 more"), and every one
 * of them has its own record marked. */
#define SHARED_IDS_MAX 4

/* How each note starts: a reason is cut at the first of them to give
 * back the reason the job was placed with. */
static const char *const _marks[] = {
	"; resumed onto cores other jobs held: time-shared",
	"; time-shared with job",
	"; left out at rebuild: time-shared",
};

/* The reason's length without any note of this file. */
static size_t _unmarked_len(const char *reason)
{
	size_t len = strlen(reason);

	for (size_t i = 0; i < sizeof(_marks) / sizeof(_marks[0]); i++) {
		const char *at = strstr(reason, _marks[i]);

		if (at && (size_t) (at - reason) < len)
			len = (size_t) (at - reason);
	}
	return len;
}

bool ctl_shared_marked(const cosched_decision_t *d)
{
	return d->reason[_unmarked_len(d->reason)] != '\0';
}

bool ctl_shared_is(const cosched_ctl_t *c, uint32_t job_id)
{
	for (size_t i = 0; i < c->nshared; i++)
		if (c->shared_ids[i] == job_id)
			return true;
	return false;
}

static void _shared_add(cosched_ctl_t *c, uint32_t job_id)
{
	if (ctl_shared_is(c, job_id))
		return;
	if (c->nshared == c->shared_cap) {
		c->shared_cap = c->shared_cap ? 2 * c->shared_cap : 8;
		xrealloc(c->shared_ids, c->shared_cap * sizeof(*c->shared_ids));
	}
	c->shared_ids[c->nshared++] = job_id;
}

void ctl_shared_forget(cosched_ctl_t *c, uint32_t job_id)
{
	for (size_t i = 0; i < c->nshared; i++)
		if (c->shared_ids[i] == job_id) {
			c->shared_ids[i] = c->shared_ids[--c->nshared];
			return;
		}
}

/* Whether the two jobs hold a core in common. */
static bool _cores_overlap(job_resources_t *a, job_resources_t *b)
{
	node_record_t *node_ptr;
	cosched_nodes_t it;

	if (!a || !b || !a->node_bitmap || !b->node_bitmap ||
	    !a->core_bitmap || !b->core_bitmap)
		return false;
	cosched_nodes_begin(&it, a->node_bitmap);
	while ((node_ptr = cosched_nodes_next(&it))) {
		int jb;

		if (it.i >= (int) bit_size(b->node_bitmap) ||
		    !bit_test(b->node_bitmap, it.i))
			continue;
		jb = bit_set_count_range(b->node_bitmap, 0, it.i);
		for (int s = 0; s < node_ptr->tot_sockets; s++)
			for (int k = 0; k < node_ptr->cores; k++)
				if (ctl_cores_has_core(a, it.j, s, k) &&
				    ctl_cores_has_core(b, jb, s, k))
					return true;
	}
	return false;
}

/* The running jobs the occupancy counts that hold a core of job_ptr's
 * (xmalloc'd; *n of them).  A scan of the job list: only a resume onto
 * taken cores and a rebuild that left a job out come here. */
static uint32_t *_counted_sharers(cosched_ctl_t *c, job_record_t *job_ptr,
				  size_t *n)
{
	const cosched_occupancy_t *occ = cosched_place_occupancy(c->place);
	struct listIterator *it = list_iterator_create(*c->job_list);
	job_record_t *other;
	uint32_t *ids = NULL;
	size_t cap = 0;

	*n = 0;
	while ((other = list_next(it))) {
		if (other == job_ptr || !ctl_cores_counted(other) ||
		    !cosched_occupancy_has(occ, other->job_id, NULL) ||
		    !_cores_overlap(job_ptr->job_resrcs, other->job_resrcs))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 4;
			xrealloc(ids, cap * sizeof(*ids));
		}
		ids[(*n)++] = other->job_id;
	}
	list_iterator_destroy(it);
	return ids;
}

/* "job 12" or "jobs 12,13 and 2 more". */
static void _ids_text(char *buf, size_t len, const uint32_t *ids, size_t n)
{
	size_t at = (size_t) snprintf(buf, len, "job%s ", n > 1 ? "s" : "");

	for (size_t i = 0; i < n && i < SHARED_IDS_MAX && at < len; i++)
		at += (size_t) snprintf(buf + at, len - at, "%s%u",
					i ? "," : "", ids[i]);
	if (n > SHARED_IDS_MAX && at < len)
		snprintf(buf + at, len - at, " and %zu more",
			 n - SHARED_IDS_MAX);
}

/* The job's decision with its reason as placed, then lead, the ids and
 * tail; no slowdown.  Kept and written when it changed: the whole record
 * (ctl_record_write), since the reason changes, which the neighbours'
 * in-place edit (ctl_record_set_slowdown) never touches; these edits
 * come only with a resume onto taken cores or a rebuild. */
static void _mark(cosched_ctl_t *c, job_record_t *job_ptr,
		  cosched_decision_t *d, const char *lead,
		  const uint32_t *ids, size_t n, const char *tail)
{
	char was[COSCHED_DECISION_REASON_MAX + 1], who[128];
	const char *parts[4] = { was, lead, who, tail };
	cosched_decision_t before = *d;
	size_t keep = _unmarked_len(d->reason), note;

	_ids_text(who, sizeof(who), ids, n);
	/* The reason is cut, not the note: a note cut short would not be
	 * found again (_unmarked_len). */
	note = strlen(lead) + strlen(who) + strlen(tail);
	if (keep + note > COSCHED_DECISION_REASON_MAX)
		keep = note < COSCHED_DECISION_REASON_MAX ?
		       COSCHED_DECISION_REASON_MAX - note : 0;
	snprintf(was, sizeof(was), "%.*s", (int) keep, d->reason);
	cosched_decision_set_reason_parts(d, parts, 4);
	d->slowdown = NAN;
	_shared_add(c, job_ptr->job_id);
	if (cosched_decision_equal(&before, d))
		return;
	ctl_record_keep(c, job_ptr, d);
	ctl_record_write(c, job_ptr, d);
}

/* A decision whose record says how the job runs beside others. */
static bool _predicted(const cosched_decision_t *d)
{
	return d->has_class && (d->state == COSCHED_DECISION_PLACED ||
				d->state == COSCHED_DECISION_PASSTHROUGH);
}

/* The counted job sharer holds cores that mover (left out) runs on:
 * its record says so. */
static void _mark_sharer(cosched_ctl_t *c, uint32_t sharer, uint32_t mover,
			 const char *tail)
{
	job_record_t *job_ptr = find_job_record(sharer);
	cosched_decision_t d;

	if (job_ptr && ctl_record_kept(c, sharer, &d) && _predicted(&d))
		_mark(c, job_ptr, &d, "; time-shared with ", &mover, 1, tail);
}

void ctl_shared_resumed(cosched_ctl_t *c, job_record_t *job_ptr,
			cosched_decision_t *d)
{
	size_t n;
	uint32_t *ids = _counted_sharers(c, job_ptr, &n);

	if (d)
		_mark(c, job_ptr, d,
		      "; resumed onto cores other jobs held: time-shared with ",
		      ids, n, ", uncounted until the next rebuild");
	for (size_t i = 0; i < n; i++)
		_mark_sharer(c, ids[i], job_ptr->job_id,
			     ", resumed onto its cores: slowdown not predicted until the next rebuild");
	xfree(ids);
}

/* A job counted again whose record still has a note: the reason it was
 * placed with, and its slowdown predicted as its neighbours' are
 * (_refresh_slowdown: the class from the category). */
static void _unmark(cosched_ctl_t *c, job_record_t *job_ptr,
		    cosched_decision_t *d)
{
	cosched_class_t cls = {
		.cat = d->category,
		.lca = cosched_category_to_lca(d->category),
		.source = COSCHED_CLASS_FROM_PROFILE,
	};
	char was[COSCHED_DECISION_REASON_MAX + 1];
	const char *parts[1] = { was };

	ctl_shared_forget(c, job_ptr->job_id);
	snprintf(was, sizeof(was), "%.*s", (int) _unmarked_len(d->reason),
		 d->reason);
	cosched_decision_set_reason_parts(d, parts, 1);
	d->slowdown = cosched_place_predict(c->place, job_ptr->job_id, &cls);
	ctl_record_keep(c, job_ptr, d);
	ctl_record_write(c, job_ptr, d);
}

void ctl_shared_counted(cosched_ctl_t *c, job_record_t *job_ptr,
			cosched_decision_t *d)
{
	if (ctl_shared_marked(d) && _predicted(d))
		_unmark(c, job_ptr, d);
	ctl_shared_forget(c, job_ptr->job_id);
}

void ctl_shared_rebuilt(cosched_ctl_t *c, const uint32_t *marked,
			size_t nmarked, const uint32_t *left, size_t nleft)
{
	const cosched_occupancy_t *occ = cosched_place_occupancy(c->place);

	/* Said again below for those who still time-share. */
	c->nshared = 0;

	for (size_t i = 0; i < nmarked; i++) {
		job_record_t *job_ptr = find_job_record(marked[i]);
		cosched_decision_t d;

		if (job_ptr &&
		    cosched_occupancy_has(occ, marked[i], NULL) &&
		    ctl_record_kept(c, marked[i], &d) && _predicted(&d))
			_unmark(c, job_ptr, &d);
	}
	for (size_t i = 0; i < nleft; i++) {
		job_record_t *job_ptr = find_job_record(left[i]);
		cosched_decision_t d;
		uint32_t *ids;
		size_t n;

		if (!job_ptr)
			continue;
		ids = _counted_sharers(c, job_ptr, &n);
		info("%s: %pJ left out at rebuild: its cores are held by %zu counted jobs (cons_tres's job overflow)",
		     plugin_type, job_ptr, n);
		if (ctl_record_kept(c, left[i], &d) && _predicted(&d))
			_mark(c, job_ptr, &d,
			      "; left out at rebuild: time-shared with ", ids,
			      n, ", uncounted as in cons_tres's rows");
		for (size_t k = 0; k < n; k++)
			_mark_sharer(c, ids[k], left[i],
				     ", left out at rebuild: slowdown not predicted");
		xfree(ids);
	}
}
