/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  task_cosched_record.c - the controller's decision record for a job,
 *  read on the node.
 *
 *  The record lives in the job's SystemComment, which only slurmctld sets
 *  (src/libcosched/model/decision.h says why that channel cannot be forged): the node
 *  asks slurmctld for it (a job-info RPC from slurmstepd, as root), never
 *  the job's environment, which the user controls (an srun launch request
 *  carries whatever SPANK environment srun sends).  The cores themselves
 *  come from the signed credential; the record adds what the credential
 *  lacks: the memory-binding mode and the frequency.
 *
 *  At most one RPC per job and node, not per step (and not two: the
 *  question is asked of this cluster only, never of a federation): the
 *  node's copy of the record is SlurmdSpoolDir/cosched/records/JOBID (root
 *  only, written to a temporary file and renamed), later steps read it
 *  there, and slurmd's sweep removes the files of jobs with no step left on
 *  the node.  No RPC at all where no record can exist (another SelectType;
 *  the extern step, which runs no task of the job), nor on the node that
 *  runs a batch script: slurmd writes the record's launch copy from the
 *  batch launch request (src/libcosched/model/decision.h) as JOBID.launch before the
 *  batch step starts, and that step takes it as the node's copy (a sweep
 *  of another launch request may come first: JOBID.launch is kept for an
 *  hour).  Each of those RPCs waited for slurmctld's job lock while it
 *  was scheduling (doc/bench-controller.md).
 *
 *  A step parses the record once, from the node's copy or from
 *  slurmctld's answer, into the fields its parts enforce and its sampler
 *  keeps (task_cosched_profile.c); slurmd only copies the launch copy,
 *  which the batch step parses as it parses any node's copy.
\*****************************************************************************/

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"

#include "src/libcosched/io/file.h"
#include "src/plugins/common/load_job.h"
#include "src/plugins/common/plugin_conf.h"

#include "task_cosched.h"

#define RECORDS "records"
/* The launch copy's suffix until the job's batch step takes it. */
#define LAUNCH_SUFFIX ".launch"
/* How long a launch copy no step took is kept: longer than a batch step
 * should take to start after its launch request, a prolog included (a
 * later one asks slurmctld).  Only the batch step of the same start takes
 * it, so a longer wait costs a small file, never a wrong record. */
#define LAUNCH_KEEP_S 3600

/* SlurmdSpoolDir/cosched/records[/JOBID[suffix]] (xmalloc'ed), NULL
 * without a spool directory. */
static char *_path_suffix(uint32_t job_id, const char *suffix)
{
	char *path = task_cosched_spool_path(RECORDS);

	if (path && job_id)
		xstrfmtcat(path, "/%u%s", job_id, suffix);
	return path;
}

static char *_path(uint32_t job_id)
{
	return _path_suffix(job_id, "");
}

/* A record of a newer minor: enforced, the keys this node does not know
 * skipped, said once a process. */
static void _compat_note(uint32_t job_id,
			 const cosched_decision_compat_t *compat)
{
	char note[COSCHED_ERROR_MSG_LEN];

	if (cosched_decision_compat_note(compat, note, sizeof(note)))
		debug("%s: job %u: %s", plugin_type, job_id, note);
}

static int _cache_read(uint32_t job_id, bool batch, cosched_decision_t *d)
{
	char *path = _path(job_id), *text, *launch;
	cosched_decision_compat_t compat;
	cosched_error_t err;
	int parsed, rc = -1;

	if (!path)
		return -1;
	/* The batch step takes the launch copy slurmd wrote from its batch
	 * launch request (task_cosched_record_from_launch): it is the node's
	 * copy from now on, swept when no step runs.  Only the batch step: a
	 * copy no batch step took is an earlier start's (its launch failed,
	 * and the job now runs its script on another node). */
	if (batch) {
		launch = _path_suffix(job_id, LAUNCH_SUFFIX);
		if (!rename(launch, path))
			debug("%s: job %u: record from the batch launch request",
			      plugin_type, job_id);
		xfree(launch);
	}
	text = cosched_read_file(path, COSCHED_DECISION_TEXT_MAX, NULL, &err);
	parsed = text ? cosched_decision_parse_compat(text, d, &compat, &err) :
			-1;
	/* One line, this job's (a second record line is a damaged copy). */
	if (!parsed && d->job_id == job_id &&
	    cosched_decision_record_line(text, NULL)) {
		_compat_note(job_id, &compat);
		rc = 0;
	} else if (text) {
		/* Written by another release of this node's cosched (a
		 * rollback with the job running), damaged, or a launch copy
		 * that is not this job's: slurmctld's copy decides, and
		 * replaces it. */
		error("%s: job %u: cached decision record %s not used (%s): asking slurmctld",
		      plugin_type, job_id, path,
		      parsed ? err.msg : "it names another job");
	}
	free(text);
	xfree(path);
	return rc;
}

/* The node's copy, root's only (0600), the record line (len bytes) as
 * slurmctld wrote it (a newer minor's keys kept): a cache, so not
 * durable (a copy torn by a crash does not parse and is fetched again).
 * Its folder is made here: the first step of the first job on a node
 * comes here before anything else of cosched has made
 * SlurmdSpoolDir/cosched. */
static void _cache_write(uint32_t job_id, const char *suffix,
			 const char *line, size_t len)
{
	cosched_error_t err;
	char *dir = task_cosched_spool_dir(RECORDS, &err), *path;

	if (!dir) {
		debug("%s: %s: the job's record is not kept on the node",
		      plugin_type, err.msg);
		return;
	}
	path = _path_suffix(job_id, suffix);
	if (cosched_file_replace(path, line, len, 0600, 0, &err))
		debug("%s: %s", plugin_type, err.msg);
	xfree(dir);
	xfree(path);
}

/* slurmctld's record of the job: 1 with *d and the node's copy written,
 * 0 none, -1 not used (why says). */
static int _fetch(uint32_t job_id, cosched_decision_t *d, char *why,
		  size_t len)
{
	job_info_msg_t *msg = NULL;
	const char *comment = NULL;
	cosched_decision_compat_t compat;
	cosched_error_t err;
	int rc;

	/* SHOW_LOCAL: the record is this cluster's, and without it
	 * slurm_load_job() first asks slurmctld whether the cluster is in
	 * a federation (a FED_INFO RPC for every job on every node). */
	if (cosched_load_job(&msg, job_id, SHOW_ALL | SHOW_LOCAL) !=
	    SLURM_SUCCESS || !msg) {
		snprintf(why, len, "slurmctld did not give the job's record: %s",
			 slurm_strerror(errno));
		return -1;
	}
	for (uint32_t i = 0; i < msg->record_count; i++)
		if (msg->job_array[i].job_id == job_id)
			comment = msg->job_array[i].system_comment;
	rc = cosched_decision_find_compat(comment, d, &compat, &err);
	/* A controller already upgraded may write a newer minor during a
	 * rolling upgrade. */
	if (rc == 1)
		_compat_note(job_id, &compat);
	if (rc < 0)
		snprintf(why, len, "invalid decision record: %s", err.msg);
	else if (rc == 0)
		snprintf(why, len, "no decision record (the job predates cosched's controller)");
	else if (d->job_id != job_id) {
		/* A job split off an array keeps its parent's comment until
		 * the controller writes its own. */
		snprintf(why, len, "the record names job %u", d->job_id);
		rc = 0;
	} else {
		size_t n = 0;
		const char *rec = cosched_decision_record_line(comment, &n);

		_cache_write(job_id, "", rec, n);
	}
	slurm_free_job_info_msg(msg);
	return rc;
}

int task_cosched_record_fetch(uint32_t job_id, uint32_t step_id,
			      cosched_decision_t *d, char *why, size_t len)
{
	if (!cosched_plugin_selected()) {
		snprintf(why, len, "no decision record: SelectType=%s",
			 slurm_conf.select_type ? slurm_conf.select_type : "");
		return 0;
	}
	if (step_id == SLURM_EXTERN_CONT) {
		snprintf(why, len, "the extern step needs no record");
		return 0;
	}
	if (!_cache_read(job_id, step_id == SLURM_BATCH_SCRIPT, d))
		return 1;
	return _fetch(job_id, d, why, len);
}

void task_cosched_record_from_launch(uint32_t job_id, char **env,
				     uint32_t env_size)
{
	char *path, *launch;
	const char *value = NULL;
	size_t len = 0;

	if (!cosched_plugin_selected() ||
	    !(path = _path(job_id)))
		return;
	/* Copies left from an earlier start of this job (requeued) would be
	 * taken for this start's. */
	launch = _path_suffix(job_id, LAUNCH_SUFFIX);
	for (int i = 0; i < 2; i++) {
		const char *old = i ? launch : path;

		if (unlink(old) && errno != ENOENT)
			error("%s: job %u: %s: %m: its steps may take an earlier start's record",
			      plugin_type, job_id, old);
	}
	xfree(launch);
	if (task_cosched_conf.record_in_launch)
		value = cosched_decision_launch_find(env, (int) env_size, &len);
	/* As slurmctld wrote it: the batch step parses it (_cache_read), and
	 * asks slurmctld when it is not a record of this job.  A line longer
	 * than any record is none. */
	if (value && len < COSCHED_DECISION_TEXT_MAX)
		_cache_write(job_id, LAUNCH_SUFFIX, value, len);
	xfree(path);
}

/* Whether a step of job_id still runs here: slurmd keeps one socket per
 * running step in its spool directory, NODENAME_JOBID.STEPID. */
static bool _job_runs_here(const char *spool, const char *node,
			   const char *job)
{
	char prefix[256];
	struct dirent *e;
	bool found = false;
	DIR *dp = opendir(spool);

	if (!dp)
		return true;	/* cannot tell: keep */
	snprintf(prefix, sizeof(prefix), "%s_%s.", node, job);
	while ((e = readdir(dp)))
		if (!strncmp(e->d_name, prefix, strlen(prefix))) {
			found = true;
			break;
		}
	closedir(dp);
	return found;
}

void task_cosched_record_sweep(const char *node_name)
{
	time_t now = time(NULL);
	cosched_error_t err;
	char *dir;
	struct dirent *e;
	DIR *dp;

	if (!node_name)
		return;
	/* Not a folder a link leads to: what is removed is cosched's. */
	if (!(dir = task_cosched_spool_dir(RECORDS, &err))) {
		debug("%s: %s: no copies of records swept", plugin_type,
		      err.msg);
		return;
	}
	if (!(dp = opendir(dir))) {
		xfree(dir);
		return;
	}
	while ((e = readdir(dp))) {
		size_t digits = strspn(e->d_name, "0123456789");
		char job[16];
		struct stat st;

		if (!digits || digits >= sizeof(job))
			continue;
		memcpy(job, e->d_name, digits);
		job[digits] = '\0';
		if (!e->d_name[digits]) {
			if (_job_runs_here(conf->spooldir, node_name, job))
				continue;
		} else if (!strcmp(e->d_name + digits, LAUNCH_SUFFIX)) {
			/* Its batch step may not have started yet (another
			 * launch request's sweep comes first): kept for a
			 * while, then it is a step that never started. */
			if (fstatat(dirfd(dp), e->d_name, &st,
				    AT_SYMLINK_NOFOLLOW) ||
			    (st.st_mtime > now - LAUNCH_KEEP_S &&
			     st.st_mtime <= now + LAUNCH_KEEP_S))
				continue;
		} else {
			continue;	/* a temporary file being renamed */
		}
		unlinkat(dirfd(dp), e->d_name, 0);
	}
	closedir(dp);
	xfree(dir);
}
