/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * energy_ledger.c - the node's energy handed out to its steps
 * (see the header for the rule, the protocol and the text form): the
 * update under the ledger's lock.  The text form is
 * energy_ledger_text.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/libcosched/io/file.h"
#include "src/libcosched/base/kv.h"
#include "src/libcosched/base/text.h"
#include "src/node/energy_ledger.h"

#define LEDGER_BYTES_MAX (4u << 20)

/* ---- the update --------------------------------------------------------- */

/* The ledger's reading as rapl's last, when it counts the same zones in
 * the same order; false when the ledger must start from the reading. */
static bool same_zones(const ledger_t *l, const cosched_rapl_t *r)
{
	if (!r)
		return l->nzones == 0;
	if (l->nzones != cosched_rapl_nzones(r))
		return false;
	for (int i = 0; i < l->nzones; i++)
		if (strcmp(l->zone[i].dir, cosched_rapl_zone(r, i)->dir))
			return false;
	return true;
}

static void corunner_add(cosched_ledger_step_t *s,
			 const cosched_step_ref_t *other)
{
	for (int k = 0; k < s->ncorunners; k++)
		if (cosched_step_ref_eq(&s->corunners[k], other))
			return;
	if (s->corunners_seen > s->ncorunners)
		return;		/* already past the names: counted below */
	if (s->ncorunners < COSCHED_LEDGER_CORUNNERS_MAX)
		s->corunners[s->ncorunners++] = *other;
	s->corunners_seen++;
}

/* Split node among the first n steps of l that ran: a step whose
 * tasks were stopped (suspended by Slurm: SIGSTOP or the freezer) takes
 * no share, not even of the idle power, since its cores were given back
 * to others; with none running the energy is unattributed. */
static int split(ledger_t *l, size_t n, const cosched_energy_node_t *node,
		 cosched_ledger_outcome_t *oc, cosched_error_t *err)
{
	cosched_energy_job_t *jobs = NULL;
	cosched_energy_share_t *sh = NULL;
	cosched_energy_split_t res;
	size_t *run = NULL, nrun = 0;
	int rc = -1;

	jobs = calloc(n + 1, sizeof(*jobs));
	sh = calloc(n + 1, sizeof(*sh));
	run = calloc(n + 1, sizeof(*run));
	if (!jobs || !sh || !run) {
		cosched_error_set(err, "energy ledger: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (l->step[i].stopped)
			continue;
		jobs[nrun].cores = l->step[i].cores;
		jobs[nrun].activity = l->step[i].rate;
		jobs[nrun].mem_activity = l->step[i].mem_rate;
		run[nrun++] = i;
	}
	if (!nrun)
		cosched_energy_split(node, NULL, 0, NULL, &res, err);
	else if (cosched_energy_split(node, jobs, nrun, sh, &res, err))
		goto out;
	l->unattributed += res.unattributed_uj;
	for (size_t j = 0; j < nrun; j++) {
		cosched_ledger_step_t *s = &l->step[run[j]];

		s->energy.uncore_uj += sh[j].uncore_uj;
		s->energy.core_uj += sh[j].core_uj;
		s->energy.dram_uj += sh[j].dram_uj;
		s->energy.total_uj += sh[j].total_uj;
	}
	/* A stopped step was still on the node: it shared it (co-runners)
	 * and the node's energy while present counts for it. */
	for (size_t i = 0; i < n; i++) {
		cosched_ledger_step_t *s = &l->step[i];

		s->node_uj += res.node_uj;
		for (size_t k = 0; k < n; k++)
			if (k != i)
				corunner_add(s, &l->step[k].id);
	}
	oc->split_uj = res.node_uj;
	oc->present = (int) nrun;
	oc->split_flags = res.flags;
	rc = 0;
out:
	free(jobs);
	free(sh);
	free(run);
	return rc;
}

/* A generation id for a ledger starting now: the clock in nanoseconds,
 * never the one it replaces (nor 0, a 1.0 writer's). */
static uint64_t new_gen(uint64_t old)
{
	struct timespec ts;
	uint64_t g;

	clock_gettime(CLOCK_REALTIME, &ts);
	g = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
	return g == old || !g ? old + 1 : g;
}

/* Keep why the ledger started again at a loss, for a settle to log once
 * (printable only: it is written quoted). */
static void keep_why(ledger_t *l, const char *note)
{
	size_t i;

	for (i = 0; note[i] && i < LEDGER_WHY_LEN; i++)
		l->why[i] = note[i] >= ' ' && note[i] <= '~' ? note[i] : '?';
	l->why[i] = '\0';
	l->why_told = false;
}

/* A step found dead leaves: what this ledger gave it is attributed when
 * a slurmstepd settled it into accounting, abandoned otherwise. */
static void drop_step(ledger_t *l, int i)
{
	cosched_ledger_step_t *s = &l->step[i];
	uint64_t given = s->energy.total_uj - s->carried_uj;

	if (s->stepd.pid)
		l->attributed += given;
	else
		l->abandoned += given;
	*s = l->step[--l->n];
}

/* Whether step s is gone: its sampler dead, and no slurmstepd of it
 * alive (while one is, the step runs: only its sampler was killed). */
static bool step_gone(const cosched_ledger_step_t *s)
{
	if (cosched_proc_alive(&s->proc))
		return false;
	return !s->stepd.pid || !cosched_proc_alive(&s->stepd);
}

/* Whether dir's lock is there and not a regular file. */
static bool lock_not_regular(const char *dir)
{
	char path[COSCHED_PATH_MAX];
	cosched_error_t perr;
	struct stat st;

	return !cosched_spool_path(path, sizeof(path), dir,
				   COSCHED_ENERGY_LEDGER_FILE, ".lock", &perr) &&
	       !lstat(path, &st) && !S_ISREG(st.st_mode);
}

/* Load dir's ledger into l; a missing one, one from another boot and one
 * that does not parse give an empty ledger with the reason in oc (one
 * that does not parse is set aside, unless keep: a settle leaves that to
 * the samplers, whose records say why). */
static int ledger_load(const char *dir, const char *boot, bool keep,
		       ledger_t *l, cosched_ledger_outcome_t *oc,
		       cosched_error_t *err)
{
	char path[COSCHED_PATH_MAX];
	cosched_error_t perr;
	int missing;
	char *text;

	cosched_ledger_clear(l);
	if (cosched_spool_path(path, sizeof(path), dir,
			       COSCHED_ENERGY_LEDGER_FILE, "", err))
		return -1;
	text = cosched_read_file(path, LEDGER_BYTES_MAX, &missing, &perr);
	if (!text && missing) {
		oc->restarted = true;
		snprintf(oc->note, sizeof(oc->note), "new ledger");
	} else if (!text || cosched_ledger_parse(text, l, &perr)) {
		/* Unreadable (NUL bytes, a directory where the file was, a
		 * file too large): set aside, so that this step says so once
		 * and every later one measures again, rather than each
		 * finding it and measuring nothing. */
		char bad[COSCHED_PATH_MAX];

		cosched_ledger_clear(l);
		oc->restarted = true;
		if (keep) {
			free(text);
			return 0;
		}
		if (cosched_spool_set_aside(dir, COSCHED_ENERGY_LEDGER_FILE, bad,
					    sizeof(bad), err)) {
			free(text);
			return cosched_error_prefix(err, "unreadable energy ledger");
		}
		snprintf(oc->note, sizeof(oc->note),
			 "%.120s: unreadable (%.150s): set aside as %.150s, started again",
			 path, perr.msg, bad);
	} else if (strcmp(l->boot, boot) || !strcmp(boot, "-")) {
		cosched_ledger_clear(l);
		oc->restarted = true;
		snprintf(oc->note, sizeof(oc->note),
			 "%.200s: from another boot: started again", path);
	}
	free(text);
	strcpy(l->boot, boot);
	return 0;
}

/*
 * The update and the settle in one: with me, me's sampler brings the
 * ledger up to now (joining, leaving, giving its rates); with me NULL,
 * anyone brings it up to now for step id, which must be present, and no
 * step's entry changes but by the split.  1: id is not in the ledger
 * (settle only; nothing written).
 */
static int advance(cosched_rapl_t *rapl, const char *dir,
		   const cosched_step_ref_t *id,
		   const cosched_ledger_step_t *me, bool leave, int wait_ms,
		   cosched_ledger_step_t *out,
		   cosched_ledger_outcome_t *outcome, cosched_error_t *err)
{
	cosched_ledger_outcome_t oc_local, *oc = outcome ? outcome : &oc_local;
	char boot[COSCHED_BOOT_ID_LEN + 1];
	uint64_t *last = NULL;
	cosched_energy_node_t node;
	ledger_t *l = NULL;
	char *text = NULL;
	int lock, rc = -1, mine = -1, present;

	memset(oc, 0, sizeof(*oc));
	if (me && !me->cores)
		return cosched_error_set(err, "energy ledger: a step with 0 cores");
	if (cosched_spool_dir_ready("energy ledger directory", dir, err))
		return -1;
	lock = cosched_spool_lock(dir, COSCHED_ENERGY_LEDGER_FILE, wait_ms,
				  err);
	if (lock < 0) {
		if (lock == -1 && lock_not_regular(dir)) {
			oc->lock_refused = true;
			cosched_error_prefix(err,
				"energy ledger lock refused (not measuring "
				"energy on this node until it is removed)");
		}
		return -1;
	}
	l = malloc(sizeof(*l));
	last = calloc(COSCHED_RAPL_ZONES_MAX, sizeof(*last));
	if (!l || !last) {
		cosched_error_set(err, "energy ledger: out of memory");
		goto done;
	}
	cosched_boot_id(boot);
	if (ledger_load(dir, boot, !me, l, oc, err))
		goto done;
	if (!me && (oc->restarted || l->nzones == 0)) {
		/* Settling in a ledger the samplers must start or restart
		 * first, or one that counts no energy yet. */
		rc = 1;
		goto done;
	}

	/* What was spent since the ledger's reading.  A step without RAPL
	 * (rapl NULL) only says it is present: it never restarts a ledger
	 * that counts zones, and splits nothing.  A step with RAPL finding
	 * a ledger of presence only (no zone yet) starts counting from its
	 * reading, keeping the steps present. */
	if (!oc->restarted && rapl && l->nzones == 0 && l->n > 0) {
		if (cosched_rapl_read(rapl, last, err))
			goto done;
		cosched_rapl_set_last(rapl, last);
		memset(&node, 0, sizeof(node));
		node.has_core = cosched_rapl_has_core(rapl);
		node.has_dram = cosched_rapl_has_dram(rapl);
	} else if (!oc->restarted && !rapl) {
		memset(&node, 0, sizeof(node));
	} else if (!oc->restarted && !same_zones(l, rapl)) {
		oc->restarted = true;
		snprintf(oc->note, sizeof(oc->note),
			 "the RAPL zones changed: started again");
	}
	if (oc->restarted) {
		/* From now: no interval to split yet.  Steps listed in an
		 * unusable ledger are not known to be alive with it; each
		 * joins again with what it had (carried). */
		if (!strcmp(oc->note, "new ledger") && me &&
		    me->energy.total_uj) {
			char path[COSCHED_PATH_MAX];

			if (cosched_spool_path(path, sizeof(path), dir,
					       COSCHED_ENERGY_LEDGER_FILE,
					       "", err))
				goto done;
			snprintf(oc->note, sizeof(oc->note),
				 "%.200s: gone while steps had energy: started again",
				 path);
		}
		if (strcmp(oc->note, "new ledger"))
			keep_why(l, oc->note);
		else
			l->why[0] = '\0';
		l->gen = new_gen(l->gen);
		l->n = 0;
		l->nzones = 0;
		memset(&node, 0, sizeof(node));
		if (rapl) {
			if (cosched_rapl_read(rapl, last, err))
				goto done;
			cosched_rapl_set_last(rapl, last);
			node.has_core = cosched_rapl_has_core(rapl);
			node.has_dram = cosched_rapl_has_dram(rapl);
		}
	} else if (!rapl || l->nzones == 0) {
		/* Presence only, or the first reading: nothing to split. */
	} else {
		for (int i = 0; i < l->nzones; i++)
			last[i] = l->zone[i].uj;
		cosched_rapl_set_last(rapl, last);
		if (cosched_rapl_sample(rapl, NULL, &node, err))
			goto done;
	}

	for (int i = 0; i < l->n; i++)
		if (cosched_step_ref_eq(&l->step[i].id, id))
			mine = i;
	if (!me && mine < 0) {
		/* Settling for a step the ledger does not hold (any more):
		 * the samplers start, restart and end ledgers. */
		rc = 1;
		goto done;
	}
	/* The interval is split among the steps present during it: a
	 * joining step was not (it is added after the split). */
	present = l->n;
	if (me && mine >= 0) {
		/* Its rate over its last interval: the best it can say of
		 * the interval being split. */
		l->step[mine].proc = me->proc;
		l->step[mine].cores = me->cores;
		l->step[mine].rate = me->rate;
		l->step[mine].mem_rate = me->mem_rate;
		l->step[mine].stopped = me->stopped;
	}
	if (!me) {
		/* The settler is the step's slurmstepd (its accounting). */
		if (cosched_proc_self(&l->step[mine].stepd, err))
			goto done;
		if (l->why[0] && !l->why_told) {
			snprintf(oc->note, sizeof(oc->note), "%s", l->why);
			oc->tell = true;
			l->why_told = true;
		}
	}
	/* A step whose sampler died was present until now: it takes its
	 * share of the interval (which is not the others'), and leaves
	 * after it unless its slurmstepd says the step still runs. */
	if (rapl && l->nzones > 0 &&
	    split(l, (size_t) present, &node, oc, err))
		goto done;
	for (int i = 0; i < l->n;) {
		if (!cosched_step_ref_eq(&l->step[i].id, id) &&
		    step_gone(&l->step[i])) {
			drop_step(l, i);
			continue;
		}
		i++;
	}
	mine = -1;
	for (int i = 0; i < l->n; i++)
		if (cosched_step_ref_eq(&l->step[i].id, id))
			mine = i;
	if (mine < 0) {
		if (l->n == COSCHED_LEDGER_STEPS_MAX) {
			cosched_error_set(err,
				"energy ledger: already %d steps on the node",
				COSCHED_LEDGER_STEPS_MAX);
			goto done;
		}
		/* A step joining again after the ledger started over goes
		 * on from its sampler's totals (0 for a new step); this
		 * generation did not split them. */
		mine = l->n++;
		l->step[mine] = *me;
		l->step[mine].energy.total_uj = me->energy.uncore_uj +
			me->energy.core_uj + me->energy.dram_uj;
		l->step[mine].carried_uj = l->step[mine].energy.total_uj;
		memset(&l->step[mine].stepd, 0, sizeof(l->step[mine].stepd));
		for (int i = 0; i < mine; i++) {
			corunner_add(&l->step[mine], &l->step[i].id);
			corunner_add(&l->step[i], &me->id);
		}
	}
	/* A joining step's rate counts from the next split. */
	if (me) {
		l->step[mine].rate = me->rate;
		l->step[mine].mem_rate = me->mem_rate;
		l->step[mine].stopped = me->stopped;
	}

	/* The reading moves on with RAPL; a presence-only update leaves the
	 * ledger's zones and reading as they were. */
	if (rapl) {
		l->nzones = cosched_rapl_nzones(rapl);
		cosched_rapl_get_last(rapl, last);
		for (int i = 0; i < l->nzones; i++) {
			snprintf(l->zone[i].dir, sizeof(l->zone[i].dir), "%s",
				 cosched_rapl_zone(rapl, i)->dir);
			l->zone[i].uj = last[i];
		}
	}
	if (out)
		*out = l->step[mine];
	oc->gen = l->gen;
	if (leave) {
		l->attributed += l->step[mine].energy.total_uj -
				 l->step[mine].carried_uj;
		l->step[mine] = l->step[--l->n];
	}
	if (l->n) {
		text = cosched_ledger_format(l);
		if (!text) {
			cosched_error_set(err, "energy ledger: out of memory");
			goto done;
		}
	}
	/* No step left: no file (the next step starts from its own
	 * reading; what is spent in between is no job's).  Not synced: the
	 * ledger holds this boot's state only (ledger_load starts again on
	 * another boot id), and a rename is atomic for every process without
	 * it; fsyncs were most of a step's cost in the ledger (three a
	 * write, a write as the step joins and one as it leaves). */
	rc = cosched_spool_replace(dir, COSCHED_ENERGY_LEDGER_FILE, text,
				   false, err);
done:
	free(text);
	free(last);
	free(l);
	close(lock);
	return rc;
}

int cosched_energy_ledger_update(cosched_rapl_t *rapl, const char *dir,
				 const cosched_ledger_step_t *me, bool leave,
				 int wait_ms, cosched_ledger_step_t *out,
				 cosched_ledger_outcome_t *outcome,
				 cosched_error_t *err)
{
	return advance(rapl, dir, &me->id, me, leave, wait_ms, out, outcome,
		       err);
}

int cosched_energy_ledger_settle(cosched_rapl_t *rapl, const char *dir,
				 const cosched_step_ref_t *id, int wait_ms,
				 cosched_ledger_step_t *out,
				 cosched_ledger_outcome_t *outcome,
				 cosched_error_t *err)
{
	if (!rapl)
		return cosched_error_set(err,
			"energy ledger: settling needs RAPL");
	return advance(rapl, dir, id, NULL, false, wait_ms, out, outcome,
		       err);
}
