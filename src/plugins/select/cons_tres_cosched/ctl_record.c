/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ctl_record.c - what was decided for each job: initialised from the
 *  job's view, kept in memory by job id (src/libcosched/model/decisions.h),
 *  and written from there into the job's SystemComment when it changed
 *  (only slurmctld writes it: a user cannot forge it;
 *  src/libcosched/model/decision.h), copied into AdminComment for
 *  accounting and into a batch job's SPANK environment for its node.
 *  The text is read back only to fill the memory after a restart.
\*****************************************************************************/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "src/libcosched/base/text.h"

#include "ctl_internal.h"
#include "select_cons_tres_cosched.h"

/* The job's decision record from its SystemComment (1 found); said
 * when it is unreadable or of a newer minor, unless quiet. */
static int _read(job_record_t *job_ptr, cosched_decision_t *d, bool quiet)
{
	cosched_decision_compat_t compat;
	char note[COSCHED_ERROR_MSG_LEN];
	cosched_error_t err;
	int rc = cosched_decision_find_compat(job_ptr->system_comment, d,
					      &compat, &err);

	/* After a rollback, records the newer release wrote: read, what
	 * this release does not know skipped, said once. */
	if (rc == 1 && !quiet &&
	    cosched_decision_compat_note(&compat, note, sizeof(note)))
		debug("%s: %pJ: %s", plugin_type, job_ptr, note);
	if (rc < 0 && !quiet)
		error("%s: %pJ: its decision record is unreadable: %s",
		      plugin_type, job_ptr, err.msg);
	/* Slurm copies SystemComment to the task it splits off a job array:
	 * a record naming another job is not this job's decision. */
	if (rc == 1 && d->job_id != job_ptr->job_id)
		return 0;
	return rc;
}

bool ctl_record_kept(cosched_ctl_t *c, uint32_t job_id, cosched_decision_t *d)
{
	return cosched_decisions_get(c->decided, job_id, d);
}

void ctl_record_keep(cosched_ctl_t *c, job_record_t *job_ptr,
		     const cosched_decision_t *d)
{
	if (cosched_decisions_put(c->decided, d))
		error("%s: %pJ: its decision is not kept: out of memory",
		      plugin_type, job_ptr);
}

void ctl_record_forget(cosched_ctl_t *c, uint32_t job_id)
{
	cosched_decisions_drop(c->decided, job_id);
}

int ctl_record_load(cosched_ctl_t *c, job_record_t *job_ptr,
		    cosched_decision_t *d)
{
	int rc = _read(job_ptr, d, false);

	if (rc == 1)
		ctl_record_keep(c, job_ptr, d);
	return rc;
}

void ctl_record_check(cosched_ctl_t *c, const char *when)
{
	struct listIterator *it = list_iterator_create(*c->job_list);
	job_record_t *job_ptr;
	int checked = 0, failed = 0;

	while ((job_ptr = list_next(it))) {
		cosched_decision_t kept, text;
		bool have = ctl_record_kept(c, job_ptr->job_id, &kept);
		int rc;

		if (!IS_JOB_RUNNING(job_ptr) && !IS_JOB_SUSPENDED(job_ptr))
			continue;
		checked++;
		rc = _read(job_ptr, &text, true);
		if (have == (rc == 1) &&
		    (!have || cosched_decision_equal(&kept, &text)))
			continue;
		failed++;
		error("%s: record check failed after %s: %pJ: %s", plugin_type,
		      when, job_ptr,
		      !have ? "its SystemComment has a record, none was kept" :
		      rc != 1 ? "a decision was kept, its SystemComment has no record of it" :
		      "its SystemComment's record is not the decision kept");
	}
	list_iterator_destroy(it);
	if (!failed)
		info("%s: record check passed after %s: %d jobs, %zu decisions kept",
		     plugin_type, when, checked,
		     cosched_decisions_count(c->decided));
}

void ctl_record_init(cosched_ctl_t *c, cosched_decision_t *d,
		     job_record_t *job_ptr, const job_view_t *v,
		     cosched_decision_state_t state)
{
	cosched_decision_init(d);
	d->job_id = job_ptr->job_id;
	d->state = state;
	d->policy = c->conf.policy;
	d->scope = c->conf.scope;
	/* Checked when the view was built (cosched_app_name_check). */
	cosched_text_copy(d->app, sizeof(d->app), v->opts.app);
	if (state != COSCHED_DECISION_OFF) {
		d->has_class = true;
		d->category = v->job.cls.cat;
		d->lca = v->job.cls.lca;
		d->source = v->job.cls.source;
		d->mpki = v->job.gj.mpki;
		d->threads = v->job.cores;
	}
}

/* The records' comments are spliced straight into memory slurmctld frees
 * (xfree) when it replaces a job's comment: no copy after the splice. */
static void *_xalloc(size_t size)
{
	return xmalloc_nz(size);
}

/* Comment (xmalloc'd) becomes *field unless it says the same; either way
 * it is taken.  true when the field changed. */
static bool _take_comment(char **field, char *comment)
{
	if (*field && !strcmp(comment, *field)) {
		xfree(comment);
		return false;
	}
	xfree(*field);
	*field = comment;
	return true;
}

/* Whether AdminComment says what SystemComment says, byte for byte (both
 * unset included): taken before SystemComment changes. */
static bool _admin_is_system(const cosched_ctl_t *c,
			     const job_record_t *job_ptr)
{
	const char *a = job_ptr->admin_comment, *s = job_ptr->system_comment;

	if (!c->conf.record_admin_comment)
		return false;
	return !a || !s ? a == s : !strcmp(a, s);
}

/*
 * AdminComment was SystemComment before SystemComment's record line
 * changed (the usual case: neither holds anything else): the copy below
 * would splice that line into the same text, so it is SystemComment
 * whole, taken without looking for the line in either.  Not when
 * SystemComment holds a ' or \ anywhere (below).  false: not copied.
 */
static bool _copy_whole(job_record_t *job_ptr)
{
	const char *s = job_ptr->system_comment;
	size_t n;
	char *copy;

	if (!s)
		return false;
	n = strlen(s);
	if (memchr(s, '\'', n) || memchr(s, '\\', n))
		return false;
	if (job_ptr->admin_comment && strlen(job_ptr->admin_comment) == n) {
		memcpy(job_ptr->admin_comment, s, n);
		return true;
	}
	copy = xmalloc_nz(n + 1);
	memcpy(copy, s, n + 1);
	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = copy;
	return true;
}

/*
 * The record's copy in the job's AdminComment (RecordInAdminComment=yes),
 * its other lines kept: slurmctld sends AdminComment to slurmdbd with the
 * job's end and SystemComment never (Slurm 22.05 to 24.11), so this copy
 * is what sacct -o AdminComment and the reports read.  Like SystemComment
 * only an administrator can set it, so no user can forge the copy; an
 * administrator who rewrites AdminComment removes it until the next
 * change of the record.
 *
 * line (len bytes): the record line SystemComment holds, NULL to find it;
 * was_system: AdminComment was SystemComment before it changed
 * (_admin_is_system).
 */
static void _copy_to_admin_comment(cosched_ctl_t *c, job_record_t *job_ptr,
				   const char *line, size_t len,
				   bool was_system)
{
	size_t copy_len = 0;
	const char *copy;
	char *spliced;

	if (!c->conf.record_admin_comment)
		return;
	if (was_system && _copy_whole(job_ptr))
		return;
	/* The caller that just wrote the line passes it: no search. */
	if (!line)
		line = cosched_decision_record_line(job_ptr->system_comment,
						    &len);
	if (!line)
		return;
	/* slurmdbd (22.05 and 24.11) puts AdminComment into its SQL
	 * unescaped: a quote would fail the job's completion there, a
	 * backslash would be eaten.  Such a record (a reason quoting
	 * something) is not copied, and an older copy goes. */
	if (memchr(line, '\'', len) || memchr(line, '\\', len)) {
		debug("%s: %pJ: decision record not copied to AdminComment: it holds ' or \\, which slurmdbd does not escape",
		      plugin_type, job_ptr);
		line = NULL;
		if (!job_ptr->admin_comment)
			return;
	}
	/* A copy as long as the line (a slowdown edited in place): the line
	 * written over it, which is what the splice would give. */
	if (line && (copy = cosched_decision_record_line(
			     job_ptr->admin_comment, &copy_len)) &&
	    copy_len == len) {
		memcpy(job_ptr->admin_comment + (copy - job_ptr->admin_comment),
		       line, len);
		return;
	}
	spliced = cosched_decision_splice_alloc(job_ptr->admin_comment, line,
						_xalloc);
	if (spliced)
		_take_comment(&job_ptr->admin_comment, spliced);
}

/* The job's record changed: slurmctld saves the job; what changed goes
 * to the placement log. */
static void _comment_changed(cosched_ctl_t *c, job_record_t *job_ptr,
			     const char *what)
{
	*c->last_job_update = time(NULL);
	if (c->conf.debug_flags & COSCHED_DEBUG_PLACEMENT)
		info("%s: %pJ %s", plugin_type, job_ptr, what);
}

/* The job's SystemComment becomes comment (xmalloc'd, taken) when it
 * differs, and its AdminComment copy follows; line (len bytes): the
 * record line comment holds, or NULL to find it there; was_system:
 * _admin_is_system before. */
static void _set_comment(cosched_ctl_t *c, job_record_t *job_ptr,
			 char *comment, const char *line, size_t len,
			 bool was_system, const char *what)
{
	if (!_take_comment(&job_ptr->system_comment, comment))
		return;
	_copy_to_admin_comment(c, job_ptr, line, len, was_system);
	_comment_changed(c, job_ptr, what);
}

int ctl_record_write(cosched_ctl_t *c, job_record_t *job_ptr,
		     const cosched_decision_t *d)
{
	char buf[COSCHED_DECISION_TEXT_MAX];

	return ctl_record_write_line(c, job_ptr, d, buf);
}

int ctl_record_write_line(cosched_ctl_t *c, job_record_t *job_ptr,
			  const cosched_decision_t *d, char *buf)
{
	cosched_error_t err;
	char *spliced;

	if (cosched_decision_format(d, buf, COSCHED_DECISION_TEXT_MAX, &err)) {
		error("%s: %pJ: decision not recorded: %s", plugin_type,
		      job_ptr, err.msg);
		return -1;
	}
	spliced = cosched_decision_splice_alloc(job_ptr->system_comment, buf,
						_xalloc);
	if (!spliced) {
		error("%s: %pJ: decision not recorded: out of memory",
		      plugin_type, job_ptr);
		return -1;
	}
	/* The formatter writes no line end: buf is the line spliced in. */
	_set_comment(c, job_ptr, spliced, buf, strlen(buf),
		     _admin_is_system(c, job_ptr), buf);
	return 0;
}

/* Set the predicted slowdown in the job's decision and in its record's
 * text, where only that key is written (cosched_decision_set_slowdown):
 * slurmctld does this for every job on a socket whenever a job arrives
 * there or leaves, and a rewrite of the whole record would cost more
 * (doc/bench-controller.md) and drop the keys of a newer minor.  In the
 * comment itself when the value's text keeps its length (slurmctld holds
 * the job write lock here, and nothing else holds the string), else
 * spliced. */
void ctl_record_set_slowdown(cosched_ctl_t *c, job_record_t *job_ptr,
			     double slowdown)
{
	cosched_error_t err;
	char *edited = NULL, what[64] = "";
	/* Before an edit in place changes SystemComment. */
	bool was_system = _admin_is_system(c, job_ptr);
	int rc = job_ptr->system_comment ?
		 cosched_decision_set_slowdown_in_place(
			 job_ptr->system_comment, job_ptr->job_id, slowdown,
			 &edited, _xalloc, &err) : 0;

	if (rc < 0) {
		error("%s: %pJ: slowdown %g not recorded: %s", plugin_type,
		      job_ptr, slowdown, err.msg);
		return;
	}
	cosched_decisions_set_slowdown(c->decided, job_ptr->job_id, slowdown);
	if (rc != 1)
		return;
	/* Only the placement log reads it. */
	if (c->conf.debug_flags & COSCHED_DEBUG_PLACEMENT)
		snprintf(what, sizeof(what), "slowdown=%g", slowdown);
	if (edited) {
		_set_comment(c, job_ptr, edited, NULL, 0, was_system, what);
		return;
	}
	_copy_to_admin_comment(c, job_ptr, NULL, 0, was_system);
	_comment_changed(c, job_ptr, what);
}

/*
 * The launch copy (src/libcosched/model/decision.h): the record line as it is at the
 * job's start, in the SPANK environment that slurmctld sends in the batch
 * launch request, so that the node running the batch script needs no
 * job-info RPC for it (one per job that each waited for slurmctld's job
 * lock: doc/bench-controller.md).  Every entry of that name goes first,
 * whether RecordInLaunch is on or not: a user may have submitted one, and
 * nodes trust the entry they find in a batch launch request.  Only batch
 * jobs get one (no other job has a batch launch request); the record's
 * later edits (its neighbours' slowdown) are not copied: the node enforces
 * what was decided at the start.
 */
void ctl_record_launch_copy(cosched_ctl_t *c, job_record_t *job_ptr,
			    const char *line)
{
	uint32_t kept = 0, had = job_ptr->spank_job_env_size;
	size_t len = 0;

	for (uint32_t i = 0; i < had; i++) {
		if (cosched_decision_launch_is(job_ptr->spank_job_env[i]))
			xfree(job_ptr->spank_job_env[i]);
		else
			job_ptr->spank_job_env[kept++] =
				job_ptr->spank_job_env[i];
	}
	/* Some of Slurm's readers of the array stop at a NULL, not at its
	 * size (PrologSlurmctld's environment): none after the last kept. */
	for (uint32_t i = kept; i < had; i++)
		job_ptr->spank_job_env[i] = NULL;
	job_ptr->spank_job_env_size = kept;
	/* The line as SystemComment holds it (the formatter writes no line
	 * end): not searched for there again. */
	if (line && c->conf.record_in_launch && job_ptr->batch_flag)
		len = strlen(line);
	else
		line = NULL;
	if (!line) {
		if (!kept)
			xfree(job_ptr->spank_job_env);
		return;
	}
	/* One more for a NULL after the last: some of Slurm's readers of
	 * such arrays stop at one. */
	xrealloc(job_ptr->spank_job_env, sizeof(char *) * (kept + 2));
	/* Put together by hand: Slurm's xstrdup_printf formats into a
	 * buffer it grows a step at a time, 8,700 instructions a job. */
	{
		size_t nlen = strlen(COSCHED_DECISION_LAUNCH_NAME);
		char *entry = xmalloc(nlen + 1 + len + 1);

		memcpy(entry, COSCHED_DECISION_LAUNCH_NAME, nlen);
		entry[nlen] = '=';
		memcpy(entry + nlen + 1, line, len);
		entry[nlen + 1 + len] = '\0';
		job_ptr->spank_job_env[kept++] = entry;
	}
	job_ptr->spank_job_env[kept] = NULL;
	job_ptr->spank_job_env_size = kept;
}
