/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  task_cosched_cpufreq.c - the governor and frequency the controller
 *  decided, on the frequency domains holding the job's CPUs, and the
 *  originals back when the last job on a domain ends.
 *
 *  Every step's slurmstepd holds the domains of its job's CPUs while it
 *  runs (src/node/cpufreq_journal.h: the journal in SlurmdSpoolDir/cosched
 *  records the originals before any write, and resolves co-located jobs
 *  by the documented rule); post_step releases.  A step that never
 *  releases (slurmstepd killed) is swept: at slurmd start and at every
 *  launch request on the node the journal drops holders whose process is
 *  gone and restores their domains.
 *
 *  Slurm's own frequency control wins: a step with --cpu-freq, or a site
 *  with CpuFreqDef, is left to Slurm; what cosched resolves for a domain
 *  (performance, or userspace at a frequency) is written only where
 *  slurm.conf's CpuFreqGovernors and the domain's
 *  scaling_available_governors both have it.
\*****************************************************************************/

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"

#include "src/node/cpufreq.h"
#include "src/node/cpufreq_journal.h"

#include "task_cosched.h"

#define ENV_CPUFREQ "COSCHED_CPUFREQ"

static bool step_held;
/* The domains this step took and their originals, kept in slurmstepd's
 * memory: its release restores them should the journal lose them. */
static cosched_cpufreq_kept_t step_kept;

int task_cosched_cpufreq_init(const cosched_conf_t *conf)
{
	return 0;
}

void task_cosched_cpufreq_fini(void)
{
	step_held = false;
}

/* SlurmdSpoolDir/cosched. */
static char *_journal_dir(void)
{
	return task_cosched_spool_path(NULL);
}

/* The journal directory when a journal is in it (cosched holds a domain
 * of this node), else NULL: the common case, told without scanning
 * sysfs. */
static char *_held_journal_dir(void)
{
	char *dir = _journal_dir(), *journal;
	struct stat sb;

	if (!dir)
		return NULL;
	journal = xstrdup_printf("%s/%s", dir, COSCHED_CPUFREQ_JOURNAL_FILE);
	if (stat(journal, &sb))
		xfree(dir);
	xfree(journal);
	return dir;
}

/* The governors slurm.conf's CpuFreqGovernors lets cosched set, in the
 * kernel's names ("performance userspace"), or NULL when it does not say
 * (any the domain lists). */
static const char *_site_governors(char *buf, size_t len)
{
	static const struct { const char *name; uint32_t flag; } govs[] = {
		{ "conservative", CPU_FREQ_CONSERVATIVE },
		{ "ondemand", CPU_FREQ_ONDEMAND },
		{ "performance", CPU_FREQ_PERFORMANCE },
		{ "powersave", CPU_FREQ_POWERSAVE },
		{ "userspace", CPU_FREQ_USERSPACE },
		{ "schedutil", CPU_FREQ_SCHEDUTIL },
	};
	uint32_t allowed = slurm_conf.cpu_freq_govs;
	size_t used = 0;

	if (!allowed || allowed == NO_VAL)
		return NULL;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(govs) / sizeof(govs[0]); i++)
		if (allowed & govs[i].flag & ~CPU_FREQ_RANGE_FLAG)
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? " " : "", govs[i].name);
	return buf;
}

/*
 * The node's cpufreq domains; for a step that takes domains (site), with
 * the governors the site allows: what cosched resolves for a domain
 * (performance, or userspace at a frequency) is checked against them and
 * against the domain's own list when a step takes it, and refused there
 * before anything is written.  Releasing and sweeping need no list: they
 * settle among holders each taken under it, or restore originals.
 */
static cosched_cpufreq_t *_open(const char *node_name, bool site,
				cosched_error_t *err)
{
	char *root = task_cosched_node_path(task_cosched_conf.sysfs_root,
					    node_name);
	cosched_cpufreq_t *c = cosched_cpufreq_open(root, err);
	char govs[128];

	xfree(root);
	if (c)
		cosched_cpufreq_default_governor(
			c, task_cosched_conf.freq_default_governor);
	if (c && site &&
	    cosched_cpufreq_allow(c, "slurm.conf CpuFreqGovernors",
				  _site_governors(govs, sizeof(govs)), err)) {
		cosched_cpufreq_close(c);
		return NULL;
	}
	return c;
}

static void _log_outcome(const char *who, const char *what,
			 const cosched_cpufreq_outcome_t *o)
{
	char set[160];

	if (!o->applied && !o->restored && !o->failed)
		return;
	cosched_cpufreq_setting_format(&o->last, set, sizeof(set));
	if (o->failed)
		error("%s: %s: %s: %d domains written, %d restored, %d failed (last: %s)",
		      plugin_type, who, what, o->applied, o->restored,
		      o->failed, set);
	else
		verbose("%s: %s: %s: %d domains written, %d restored (last: %s)",
			plugin_type, who, what, o->applied, o->restored, set);
}

/*
 * A step the controller gave no frequency, on a domain another job's step
 * changed: it joins that domain as a holder that asks for nothing, so
 * the domain runs at its original speed while they share it (the rule in
 * src/node/cpufreq_journal.h), rather than at the other job's choice.
 */
static void _join(task_cosched_step_t *st)
{
	cosched_cpufreq_outcome_t out = { 0 };
	cosched_cpufreq_holder_t h;
	cosched_cpufreq_t *c;
	cosched_error_t err;
	int idx[COSCHED_CPUFREQ_DOMAINS_MAX], n;
	char *dir = _held_journal_dir();

	if (!dir)		/* nothing held on this node */
		return;
	c = _open(st->node_name, true, &err);
	if (c && (n = cosched_cpufreq_domains_of(c, &st->job_cpus, idx,
						 &err)) > 0 &&
	    !cosched_cpufreq_holder_self(&h, st->job_id, st->step_id, &err) &&
	    cosched_cpufreq_join(c, dir, &h, idx, n, &step_kept, &out,
				 &err) == 0) {
		step_held = true;
		_log_outcome(st->step_name, "cpufreq (shared, no frequency of its own)",
			     &out);
	}
	if (c)
		cosched_cpufreq_close(c);
	xfree(dir);
}

void task_cosched_cpufreq_step_start(task_cosched_step_t *st)
{
	const cosched_decision_t *d = st->record;
	cosched_cpufreq_t *c = NULL;
	cosched_cpufreq_holder_t h;
	cosched_cpufreq_outcome_t out = { 0 };
	cosched_error_t err;
	int idx[COSCHED_CPUFREQ_DOMAINS_MAX], n;
	char *dir = NULL;

	step_held = false;
	step_kept.n = 0;
	if (!st->have_cpus)
		return;
	if (st->user_cpu_freq) {
		verbose("%s: %s: --cpu-freq or CpuFreqDef: Slurm sets this step's frequency, cosched's %s is not applied",
			plugin_type, st->step_name, d->governor);
		task_cosched_setenv(st, ENV_CPUFREQ, "unchanged: --cpu-freq or CpuFreqDef");
		return;
	}
	if (!st->have_record || !d->governor[0]) {
		/* Nothing decided: the node keeps its own speed, also on a
		 * domain it shares with a job that changed it. */
		_join(st);
		return;
	}
	dir = _journal_dir();
	if (!dir) {
		error("%s: %s: no SlurmdSpoolDir: frequency unchanged",
		      plugin_type, st->step_name);
		return;
	}
	c = _open(st->node_name, true, &err);
	if (!c) {
		/* A node without cpufreq (most VMs): a state of the node,
		 * not a fault; the job runs as it is. */
		info("%s: %s: %s: frequency unchanged", plugin_type,
		     st->step_name, err.msg);
		task_cosched_setenv(st, ENV_CPUFREQ, "unchanged: no cpufreq");
		goto done;
	}
	n = cosched_cpufreq_domains_of(c, &st->job_cpus, idx, &err);
	if (n <= 0) {
		error("%s: %s: %s: frequency unchanged", plugin_type,
		      st->step_name, n < 0 ? err.msg : "no frequency domain");
		goto done;
	}
	if (cosched_cpufreq_holder_self(&h, st->job_id, st->step_id, &err)) {
		error("%s: %s: %s: frequency unchanged", plugin_type,
		      st->step_name, err.msg);
		goto done;
	}
	snprintf(h.governor, sizeof(h.governor), "%s", d->governor);
	/* max_request: the job's own request, and the journal settles the
	 * domain at the highest; min_edp_sum: the domain frequency the
	 * controller decided for the job (freq_khz), which the node cannot
	 * work out itself without the jobs' profiles, and the highest of
	 * those is the latest decision (src/libcosched/model/power.h). */
	if (task_cosched_conf.freq_rule == COSCHED_FREQ_RULE_MIN_EDP_SUM)
		h.freq_khz = d->freq_khz > 0 ? d->freq_khz : d->freq_req_khz;
	else
		h.freq_khz = d->freq_req_khz > 0 ? d->freq_req_khz :
						   d->freq_khz;
	if (cosched_cpufreq_acquire(c, dir, &h, idx, n, &step_kept, &out,
				    &err)) {
		error("%s: %s: %s: frequency unchanged", plugin_type,
		      st->step_name, err.msg);
		task_cosched_setenv(st, ENV_CPUFREQ, "unchanged: %s", err.msg);
		goto done;
	}
	step_held = true;
	if (err.msg[0])		/* a domain refused or failed, others taken */
		error("%s: %s: %s", plugin_type, st->step_name, err.msg);
	_log_outcome(st->step_name, "cpufreq", &out);
	{
		char set[160];
		task_cosched_setenv(st, ENV_CPUFREQ, "%s",
			cosched_cpufreq_setting_format(&out.last, set,
						       sizeof(set)));
	}
done:
	if (c)
		cosched_cpufreq_close(c);
	xfree(dir);
}

void task_cosched_cpufreq_step_end(task_cosched_step_t *st)
{
	cosched_cpufreq_t *c;
	cosched_cpufreq_outcome_t out = { 0 };
	cosched_error_t err;
	char *dir;

	if (!step_held)
		return;
	step_held = false;
	dir = _journal_dir();
	c = _open(st->node_name, false, &err);
	if (!c || !dir)
		error("%s: %s: %s: the next sweep restores the frequency",
		      plugin_type, st->step_name, c ? "no SlurmdSpoolDir" :
		      err.msg);
	else if (cosched_cpufreq_release(c, dir, st->job_id, st->step_id,
					 &step_kept, &out, &err))
		error("%s: %s: release: %s", plugin_type, st->step_name,
		      err.msg);
	else
		_log_outcome(st->step_name, "cpufreq release", &out);
	if (c)
		cosched_cpufreq_close(c);
	xfree(dir);
}

void task_cosched_cpufreq_node_sweep(const char *node_name)
{
	cosched_cpufreq_t *c;
	cosched_cpufreq_outcome_t out = { 0 };
	cosched_error_t err;
	char *dir = _held_journal_dir();

	if (!dir)		/* nothing to sweep */
		return;
	c = _open(node_name, false, &err);
	if (!c)
		error("%s: cpufreq journal in %s, but %s", plugin_type, dir,
		      err.msg);
	else if (cosched_cpufreq_sweep_try(c, dir, &out, &err) < 0)
		error("%s: cpufreq sweep: %s", plugin_type, err.msg);
	else
		_log_outcome("node", "cpufreq sweep", &out);
	if (c)
		cosched_cpufreq_close(c);
	xfree(dir);
}
