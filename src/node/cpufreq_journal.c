/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpufreq_journal.c - the node's record of every cpufreq change
 * cosched made (see the header for the protocol and the text form): the
 * file under its lock, the domains' settings resolved from their holders
 * and written to sysfs, and the API.  The journal in memory and its text
 * form are cpufreq_journal_text.c, its file cpufreq_journal_file.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/libcosched/base/kv.h"
#include "src/libcosched/model/power.h"
#include "src/libcosched/base/text.h"
#include "src/node/cpufreq_journal.h"
#include "src/node/cpufreq_journal_internal.h"
#include "src/node/spool.h"

/* slurmstepd waits this long for the lock (a step start or end); slurmd's
 * launch hooks never wait (cosched_cpufreq_sweep_try). */
#define LOCK_WAIT_MS 2000

/* Problems of one call: the first message, and how many there were. */
typedef struct {
	cosched_error_t *err;
	int count;
} problems_t;

static void problem(problems_t *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(problems_t *p, const char *fmt, ...)
{
	char msg[COSCHED_ERROR_MSG_LEN];
	va_list ap;

	if (p->count++)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cosched_error_set(p->err, "%s", msg);
}

/* Finish: "(and N more problems)" when there were several; -1 when any. */
static int problems_end(problems_t *p)
{
	char msg[COSCHED_ERROR_MSG_LEN];

	if (!p->count)
		return 0;
	if (p->count > 1 && p->err) {
		snprintf(msg, sizeof(msg), "%s", p->err->msg);
		cosched_error_set(p->err, "%s (and %d more problems)", msg,
				  p->count - 1);
	}
	return -1;
}

/* ---- processes -------------------------------------------------------- */

int cosched_cpufreq_holder_self(cosched_cpufreq_holder_t *h, uint32_t job_id,
				uint32_t step_id, cosched_error_t *err)
{
	cosched_proc_id_t self;

	memset(h, 0, sizeof(*h));
	h->job_id = job_id;
	h->step_id = step_id;
	if (cosched_proc_self(&self, err))
		return -1;
	h->pid = self.pid;
	h->start_time = self.start_time;
	return 0;
}

int cosched_cpufreq_holder_alive(const cosched_cpufreq_holder_t *h)
{
	cosched_proc_id_t p = { h->pid, h->start_time };

	return cosched_proc_alive(&p);
}

/* ---- resolution -------------------------------------------------------- */

/* The documented rule (header, cosched(8) "CPU FREQUENCY"); the
 * frequency by the core's one rule (cosched_power_resolve_domain),
 * max_request over the holders: under either FreqDomainRule a holder asks
 * for what the node must not go below (its request, or the controller's
 * decision for its job).  Returns whether s is the domain's original
 * setting (no holder asks for anything). */
static bool resolve(const jdom_t *d, cosched_cpufreq_setting_t *s)
{
	cosched_freq_request_t req[COSCHED_CPUFREQ_HOLDERS_MAX];
	bool perf = false, any = false;
	size_t nreq = 0;
	long f = 0;

	for (int k = 0; k < d->n && k < COSCHED_CPUFREQ_HOLDERS_MAX; k++) {
		const cosched_cpufreq_holder_t *h = &d->h[k];
		bool none = !h->governor[0] && !h->freq_khz;

		if (h->stopped)		/* not in the running slice */
			continue;
		const char *g = none ? d->orig.governor :
				h->governor[0] ? h->governor : "userspace";
		long hf = none || !h->freq_khz ? d->orig.max_khz : h->freq_khz;

		any = any || !none;
		perf = perf || !strcmp(g, "performance");
		if (hf > 0)
			req[nreq++] = (cosched_freq_request_t) {
				.job_id = h->job_id, .requested_khz = hf };
	}
	if (nreq && cosched_power_resolve_domain(req, nreq,
						 COSCHED_FREQ_RULE_MAX_REQUEST,
						 &f, NULL, NULL))
		f = 0;	/* not reached: every request is > 0 */
	/* The domain's scaling_max_freq as cosched found it is the site's
	 * ceiling (an administrator's cap, a thermal limit): a request above
	 * it runs at it, never lifts it. */
	if (f > d->orig.max_khz)
		f = d->orig.max_khz;
	memset(s, 0, sizeof(*s));
	if (!any) {
		*s = d->orig;
		return true;
	} else if (perf) {
		snprintf(s->governor, sizeof(s->governor), "performance");
		s->min_khz = d->orig.min_khz;
		s->max_khz = d->orig.max_khz;
	} else {
		snprintf(s->governor, sizeof(s->governor), "userspace");
		s->min_khz = d->orig.min_khz < f ? d->orig.min_khz : f;
		s->max_khz = f;
		s->setspeed_khz = f;
	}
	return false;
}

/* The index in c of the journal's domain d, or -1 (reported) when this
 * node has no such domain now. */
static int node_domain(const cosched_cpufreq_t *c, const jdom_t *d,
		       problems_t *p)
{
	char a[COSCHED_IDSET_TEXT_MAX], b[COSCHED_IDSET_TEXT_MAX];
	int k = cosched_cpufreq_find(c, d->id);

	if (k < 0) {
		problem(p,
			"cpufreq journal: domain %d (cpus %s) is not on this node any more: entry kept, its originals (governor=%s min=%ld max=%ld) not restored",
			d->id, cosched_idset_format(&d->cpus, a, sizeof(a)),
			d->orig.governor, d->orig.min_khz, d->orig.max_khz);
		return -1;
	}
	if (memcmp(&cosched_cpufreq_domain(c, k)->cpus, &d->cpus,
		   sizeof(d->cpus))) {
		problem(p,
			"cpufreq journal: domain %d was cpus %s, is now cpus %s: entry kept, not restored",
			d->id, cosched_idset_format(&d->cpus, a, sizeof(a)),
			cosched_idset_format(&cosched_cpufreq_domain(c, k)->cpus,
					     b, sizeof(b)));
		return -1;
	}
	return k;
}

static void outcome_clear(cosched_cpufreq_outcome_t *out)
{
	if (out)
		memset(out, 0, sizeof(*out));
}

/*
 * Bring sysfs in line with the journal: a domain without holders gets its
 * originals back and leaves the journal (kept when that fails); a touched
 * domain gets its resolved setting.  For the acquiring holder acq (may be
 * NULL), a domain whose write fails loses that holder again and is
 * settled without it.  Returns whether the journal changed.
 */
static bool settle(const cosched_cpufreq_t *c, journal_t *j,
		   const cosched_cpufreq_holder_t *acq, int *taken,
		   cosched_cpufreq_outcome_t *out, problems_t *p)
{
	bool changed = false;

	for (int i = 0; i < j->n; i++) {
		jdom_t *d = &j->d[i];
		cosched_cpufreq_setting_t s;
		cosched_error_t werr;
		int k;

		if (d->n && !d->touched)
			continue;
		k = node_domain(c, d, p);
		if (k < 0)
			continue;
		if (!d->n) {
			if (cosched_cpufreq_restore(c, k, &d->orig, &werr)) {
				out->failed += !d->failed;
				d->failed = true;
				problem(p,
					"cpufreq domain %d: restoring the originals failed (kept in the journal for the next sweep): %s",
					d->id, werr.msg);
				continue;
			}
			out->restored++;
			out->last = d->orig;
			cosched_journal_domain_remove(j, i--);
			changed = true;
			continue;
		}
		/* Originals (every holder asks for nothing) come back as a
		 * restore does, unchecked: the site's list and the driver's
		 * bind only what cosched chooses. */
		if (!(resolve(d, &s) ? cosched_cpufreq_restore(c, k, &s, &werr) :
				       cosched_cpufreq_write(c, k, &s, &werr))) {
			out->applied++;
			out->last = s;
			if (d->added && taken)
				(*taken)++;
			d->touched = false;
			continue;
		}
		out->failed += !d->failed;
		d->failed = true;
		problem(p, "cpufreq domain %d: %s", d->id, werr.msg);
		if (d->added && acq) {
			/* The new holder runs unchanged: take it out and
			 * settle the domain for the others (or restore). */
			int h = cosched_journal_holder_find(d, acq->job_id, acq->step_id);
			if (h >= 0)
				cosched_journal_holder_remove(d, h);
			d->added = false;
			changed = true;
			i--;	/* again, without it */
		} else {
			d->touched = false;
		}
	}
	return changed;
}

/* Take out every holder whose process is gone. */
static bool sweep_dead(journal_t *j)
{
	bool changed = false;

	for (int i = 0; i < j->n; i++)
		for (int k = 0; k < j->d[i].n; k++)
			if (!cosched_cpufreq_holder_alive(&j->d[i].h[k])) {
				cosched_journal_holder_remove(&j->d[i], k--);
				j->d[i].touched = true;
				changed = true;
			}
	return changed;
}

/*
 * Whether s, found on a domain (dom) the journal does not name, looks
 * like a setting cosched holds rather than the node's own: the userspace
 * governor pinned (setspeed at scaling_max_freq) below the hardware
 * maximum.  Acquire refuses to record such a value as a domain's
 * original (the journal was lost while a step held the domain: recording
 * it would make the held speed permanent); the holder's release restores
 * the domain (cosched_cpufreq_kept_t), or `cosched-node restore`.  A site
 * that pins its CPUs that way itself gets no frequency from cosched, and
 * is told so.
 */
static bool cosched_cpufreq_looks_held(const cosched_cpufreq_domain_t *dom,
				       const cosched_cpufreq_setting_t *s)
{
	return !strcmp(s->governor, "userspace") && s->setspeed_khz > 0 &&
	       s->setspeed_khz == s->max_khz &&
	       s->max_khz < dom->cpuinfo_max_khz;
}

/*
 * A journal set aside: the domains cosched held, and their originals, are
 * lost with it.  Each domain that looks held (cosched_cpufreq_looks_held)
 * gets its hardware defaults (cosched_cpufreq_hardware_default) rather
 * than staying pinned until someone notices; the others are as their
 * owner left them.  A step still holding one gives back the original it
 * kept when it ends (cosched_cpufreq_kept_t).
 */
static void restore_lost(const cosched_cpufreq_t *c,
			 cosched_cpufreq_outcome_t *out, problems_t *p)
{
	for (int k = 0; k < cosched_cpufreq_ndomains(c); k++) {
		const cosched_cpufreq_domain_t *dom =
			cosched_cpufreq_domain(c, k);
		cosched_cpufreq_setting_t now, s;
		cosched_error_t e;

		if (cosched_cpufreq_read(c, k, &now, &e)) {
			problem(p, "cpufreq domain %d: %s", dom->id, e.msg);
			continue;
		}
		if (!cosched_cpufreq_looks_held(dom, &now))
			continue;
		cosched_cpufreq_hardware_default(c, k, NULL, &s);
		if (cosched_cpufreq_restore(c, k, &s, &e)) {
			out->failed++;
			problem(p,
				"cpufreq domain %d: giving back its hardware defaults failed: %s",
				dom->id, e.msg);
			continue;
		}
		out->restored++;
		out->last = s;
	}
}

/*
 * The common start: a new journal loaded under its lock (a journal set
 * aside is a problem of the call, reported once, as the file is gone
 * after it, and the call goes on afresh), a previous boot's journal
 * dropped, the dead holders swept.  NULL when it could not be, with
 * *lock -1 (p's err set) or -2 (the lock stayed taken for wait_ms).
 */
static journal_t *begin(const cosched_cpufreq_t *c, const char *dir,
			int wait_ms, int *lock, bool *changed,
			cosched_cpufreq_outcome_t *out, problems_t *p)
{
	char boot[COSCHED_BOOT_ID_LEN + 1];
	cosched_error_t lerr;
	journal_t *j;
	int rc;

	if (cosched_spool_dir_ready("cpufreq journal directory", dir,
				    p->err)) {
		*lock = -1;
		return NULL;
	}
	*lock = cosched_spool_lock(dir, COSCHED_CPUFREQ_JOURNAL_FILE, wait_ms,
				   p->err);
	if (*lock < 0)
		return NULL;
	j = cosched_journal_new();
	if (!j) {
		close(*lock);
		*lock = cosched_error_set(p->err,
					  "cpufreq journal: out of memory");
		return NULL;
	}
	rc = cosched_journal_load(dir, j, &lerr);
	if (rc < 0) {
		cosched_error_set(p->err, "%s", lerr.msg);
		close(*lock);
		*lock = -1;
		cosched_journal_free(j);
		return NULL;
	}
	if (rc) {
		problem(p, "%s", lerr.msg);
		restore_lost(c, out, p);
	}
	cosched_boot_id(boot);
	*changed = false;
	if (j->n && strcmp(boot, "-") && strcmp(j->boot, "-") &&
	    strcmp(boot, j->boot)) {
		/* Written before this boot: the kernel has reset every
		 * domain since, and cosched changed nothing in this boot. */
		out->dropped = j->n;
		for (int i = j->n - 1; i >= 0; i--)
			cosched_journal_domain_remove(j, i);
		*changed = true;
	}
	if (strcmp(j->boot, boot)) {
		strcpy(j->boot, boot);
		*changed = *changed || j->n;
	}
	*changed = sweep_dead(j) || *changed;
	return j;
}

static int finish(const char *dir, journal_t *j, bool changed, int lock,
		  problems_t *p)
{
	cosched_error_t werr;

	if (changed && cosched_journal_store(dir, j, &werr))
		problem(p, "%s", werr.msg);
	close(lock);
	cosched_journal_free(j);
	return problems_end(p);
}

/* ---- the API ----------------------------------------------------------- */

/* Whether the domain, across its whole range, can run governor gov (the
 * site allows it and the domain lists it). */
static int check_governor(const cosched_cpufreq_t *c, int index,
			  const char *gov, cosched_error_t *err)
{
	const cosched_cpufreq_domain_t *d = cosched_cpufreq_domain(c, index);
	cosched_cpufreq_setting_t s;

	memset(&s, 0, sizeof(s));
	snprintf(s.governor, sizeof(s.governor), "%s", gov);
	s.min_khz = d->cpuinfo_min_khz;
	s.max_khz = d->cpuinfo_max_khz;
	return cosched_cpufreq_check(c, index, &s, err);
}

/* Whether the domain has what h asks for itself: its governor, its
 * frequency (in range, and listed when the domain lists any), and the
 * governor the request comes to when h holds the domain alone (performance,
 * or userspace: the site must allow that one too, or h would hold the
 * domain at a setting it may not take once the other holders have gone). */
static int check_request(const cosched_cpufreq_t *c, int index,
			 const cosched_cpufreq_holder_t *h,
			 cosched_error_t *err)
{
	const cosched_cpufreq_domain_t *d = cosched_cpufreq_domain(c, index);
	cosched_cpufreq_holder_t self = *h;
	jdom_t alone = { .n = 1, .h = &self };
	cosched_cpufreq_setting_t s;

	if (h->governor[0] && check_governor(c, index, h->governor, err))
		return -1;
	if (h->freq_khz && (h->freq_khz < d->cpuinfo_min_khz ||
			    h->freq_khz > d->cpuinfo_max_khz))
		return cosched_error_set(err,
			"cpufreq domain %d: frequency %ld kHz out of range (%ld .. %ld kHz)",
			d->id, h->freq_khz, d->cpuinfo_min_khz,
			d->cpuinfo_max_khz);
	for (int i = 0; h->freq_khz && d->nfreqs; i++) {
		if (i == d->nfreqs)
			return cosched_error_set(err,
				"cpufreq domain %d: frequency %ld kHz is not an available frequency (%ld .. %ld kHz, %d listed)",
				d->id, h->freq_khz, d->freqs_khz[0],
				d->freqs_khz[d->nfreqs - 1], d->nfreqs);
		if (d->freqs_khz[i] == h->freq_khz)
			break;
	}
	/* The rule itself says what h comes to alone (the domain's true
	 * limits are read only when it is taken: its widest stand in). */
	alone.orig.min_khz = d->cpuinfo_min_khz;
	alone.orig.max_khz = d->cpuinfo_max_khz;
	if (!resolve(&alone, &s) && strcmp(s.governor, h->governor) &&
	    check_governor(c, index, s.governor, err))
		return -1;
	return 0;
}

static int valid_indexes(const cosched_cpufreq_t *c, const int *idx, int n,
			 cosched_error_t *err)
{
	if (n < 1 || n > COSCHED_CPUFREQ_DOMAINS_MAX)
		return cosched_error_set(err,
			"cpufreq: %d domains given (1 .. %d)", n,
			COSCHED_CPUFREQ_DOMAINS_MAX);
	for (int i = 0; i < n; i++)
		if (idx[i] < 0 || idx[i] >= cosched_cpufreq_ndomains(c))
			return cosched_error_set(err,
				"cpufreq: domain index %d out of range (%d domains)",
				idx[i], cosched_cpufreq_ndomains(c));
	return 0;
}

/* ---- what a holder keeps ---------------------------------------------- */

static bool same_setting(const cosched_cpufreq_setting_t *a,
			 const cosched_cpufreq_setting_t *b)
{
	return !strcmp(a->governor, b->governor) && a->min_khz == b->min_khz &&
	       a->max_khz == b->max_khz && a->setspeed_khz == b->setspeed_khz;
}

static void keep(cosched_cpufreq_kept_t *kept, int id,
		 const cosched_cpufreq_setting_t *orig)
{
	int i;

	if (!kept)
		return;
	for (i = 0; i < kept->n && kept->id[i] != id; i++)
		;
	if (i == kept->n) {
		if (kept->n == COSCHED_CPUFREQ_DOMAINS_MAX)
			return;
		kept->n++;
	}
	kept->id[i] = id;
	kept->orig[i] = *orig;
}

/* Drop from kept the domains h does not hold after all. */
static void unkeep_dropped(cosched_cpufreq_kept_t *kept, journal_t *j,
			   const cosched_cpufreq_holder_t *h)
{
	int n = 0;

	for (int i = 0; i < kept->n; i++) {
		const jdom_t *d = cosched_journal_domain_get(j, kept->id[i],
							     false);

		if (!d || cosched_journal_holder_find(d, h->job_id,
						      h->step_id) < 0)
			continue;
		kept->id[n] = kept->id[i];
		kept->orig[n++] = kept->orig[i];
	}
	kept->n = n;
}

static bool journal_job_holds(const jdom_t *d, uint32_t job_id)
{
	for (int k = 0; k < d->n; k++)
		if (d->h[k].job_id == job_id)
			return true;
	return false;
}

/*
 * Release's check of what the holder kept against the journal, before
 * the holder leaves it: a domain missing from the journal gets its
 * original back from the copy; an entry made again without this holder
 * gets the copy's older original.  Returns whether the journal changed.
 */
static bool recover_kept(const cosched_cpufreq_t *c, journal_t *j,
			 uint32_t job_id, uint32_t step_id,
			 const cosched_cpufreq_kept_t *kept,
			 cosched_cpufreq_outcome_t *out, problems_t *p)
{
	bool changed = false;

	for (int i = 0; i < kept->n; i++) {
		const cosched_cpufreq_setting_t *o = &kept->orig[i];
		jdom_t *d = cosched_journal_domain_get(j, kept->id[i], false);
		cosched_cpufreq_setting_t now;
		cosched_error_t werr;
		int k;

		if (d && (step_id == COSCHED_CPUFREQ_ANY_STEP ?
			  journal_job_holds(d, job_id) :
			  cosched_journal_holder_find(d, job_id, step_id) >= 0))
			continue;	/* as it should be */
		if (d) {
			if (same_setting(&d->orig, o))
				continue;
			problem(p,
				"cpufreq domain %d: its journal entry was made again without job %u, which held it (the journal was removed or replaced while it ran): its original set back to what the job kept (governor=%s min=%ld max=%ld)",
				d->id, job_id, o->governor, o->min_khz,
				o->max_khz);
			d->orig = *o;
			d->touched = true;
			changed = true;
			continue;
		}
		k = cosched_cpufreq_find(c, kept->id[i]);
		if (k < 0)
			continue;	/* the tree changed: nothing to write */
		if (!cosched_cpufreq_read(c, k, &now, &werr) &&
		    same_setting(&now, o))
			continue;	/* given back already (cosched-node
					 * restore --force) */
		if (cosched_cpufreq_restore(c, k, o, &werr)) {
			out->failed++;
			problem(p,
				"cpufreq domain %d: not in the journal though job %u held it (the journal was removed or replaced while it ran), and restoring the original the job kept failed: %s",
				kept->id[i], job_id, werr.msg);
			continue;
		}
		out->restored++;
		out->last = *o;
		problem(p,
			"cpufreq domain %d: not in the journal though job %u held it (the journal was removed or replaced while it ran): restored the original the job kept (governor=%s min=%ld max=%ld)",
			kept->id[i], job_id, o->governor, o->min_khz,
			o->max_khz);
	}
	return changed;
}

/* acquire, or with only_held join: the domains already in the journal
 * only (a step that asks for nothing holds a domain another job changed,
 * and takes no other). */
static int acquire_domains(const cosched_cpufreq_t *c, const char *dir,
			   const cosched_cpufreq_holder_t *h,
			   const int *idx, int n, bool only_held,
			   cosched_cpufreq_kept_t *kept,
			   cosched_cpufreq_outcome_t *out,
			   cosched_error_t *err)
{
	cosched_cpufreq_outcome_t dummy;
	problems_t p = { err, 0 };
	bool changed, recorded = false;
	int lock, taken = 0;
	journal_t *j;

	cosched_error_clear(err);
	if (!out)
		out = &dummy;
	outcome_clear(out);
	if (valid_indexes(c, idx, n, err))
		return -1;
	if (h->pid <= 0 || (h->governor[0] && !cosched_journal_governor_ok(h->governor)) ||
	    h->freq_khz < 0)
		return cosched_error_set(err,
			"cpufreq: invalid holder (pid %d, governor %s, freq %ld)",
			(int) h->pid, COSCHED_QUOTE(h->governor), h->freq_khz);
	j = begin(c, dir, LOCK_WAIT_MS, &lock, &changed, out, &p);
	if (!j)
		return -1;
	for (int i = 0; i < n; i++) {
		const cosched_cpufreq_domain_t *cd =
			cosched_cpufreq_domain(c, idx[i]);
		cosched_cpufreq_setting_t s;
		cosched_error_t cerr;
		jdom_t *d = cosched_journal_domain_get(j, cd->id, false);
		bool fresh = !d;
		int k;

		if (fresh && only_held)
			continue;
		if (check_request(c, idx[i], h, &cerr)) {
			problem(&p, "%s", cerr.msg);
			continue;
		}
		if (fresh) {
			cosched_cpufreq_setting_t orig;

			if (cosched_cpufreq_read(c, idx[i], &orig, &cerr)) {
				problem(&p, "cpufreq domain %d: %s", cd->id,
					cerr.msg);
				continue;
			}
			if (cosched_cpufreq_looks_held(cd, &orig)) {
				problem(&p,
					"cpufreq domain %d: not in the journal, yet at the userspace governor pinned at %ld kHz below its %ld kHz maximum, as cosched holds a domain: not taken (the journal may have been lost while a step held it, and recording that speed as the original would make it permanent; the holder restores it when it ends, or run cosched-node restore)",
					cd->id, orig.setspeed_khz,
					cd->cpuinfo_max_khz);
				continue;
			}
			d = cosched_journal_domain_get(j, cd->id, true);
			if (!d) {
				problem(&p, "cpufreq journal: full");
				continue;
			}
			d->cpus = cd->cpus;
			d->orig = orig;
		} else if (memcmp(&d->cpus, &cd->cpus, sizeof(d->cpus))) {
			node_domain(c, d, &p);
			continue;
		}
		k = cosched_journal_holder_find(d, h->job_id, h->step_id);
		if (k >= 0) {
			cosched_cpufreq_holder_t old = d->h[k];

			d->h[k] = *h;
			if (!resolve(d, &s) &&
			    cosched_cpufreq_check(c, idx[i], &s, &cerr)) {
				d->h[k] = old;
				problem(&p, "%s", cerr.msg);
				continue;
			}
		} else {
			if (cosched_journal_holder_add(d, h)) {
				problem(&p,
					"cpufreq domain %d: more than %d holders",
					cd->id, COSCHED_CPUFREQ_HOLDERS_MAX);
				if (fresh)
					cosched_journal_domain_remove(j, (int) (d - j->d));
				continue;
			}
			if (!resolve(d, &s) &&
			    cosched_cpufreq_check(c, idx[i], &s, &cerr)) {
				cosched_journal_holder_remove(d, d->n - 1);
				problem(&p, "%s", cerr.msg);
				if (fresh)
					cosched_journal_domain_remove(j, (int) (d - j->d));
				continue;
			}
		}
		d->touched = d->added = true;
		recorded = true;
		keep(kept, d->id, &d->orig);
	}
	/* The originals and the holder reach the disk before sysfs. */
	if (recorded || changed) {
		cosched_error_t werr;

		if (cosched_journal_store(dir, j, &werr)) {
			problem(&p, "%s (no frequency changed)", werr.msg);
			close(lock);
			cosched_journal_free(j);
			problems_end(&p);
			return -1;
		}
		changed = false;
	}
	changed = settle(c, j, h, &taken, out, &p);
	if (kept)	/* only what it holds now (a failed write drops it) */
		unkeep_dropped(kept, j, h);
	finish(dir, j, changed, lock, &p);
	if (only_held && !taken && !p.count)
		return 1;	/* nothing held here: nothing to join */
	return taken ? 0 : -1;
}

int cosched_cpufreq_acquire(const cosched_cpufreq_t *c, const char *dir,
			    const cosched_cpufreq_holder_t *h,
			    const int *idx, int n,
			    cosched_cpufreq_kept_t *kept,
			    cosched_cpufreq_outcome_t *out,
			    cosched_error_t *err)
{
	return acquire_domains(c, dir, h, idx, n, false, kept, out, err);
}

int cosched_cpufreq_join(const cosched_cpufreq_t *c, const char *dir,
			 const cosched_cpufreq_holder_t *h,
			 const int *idx, int n,
			 cosched_cpufreq_kept_t *kept,
			 cosched_cpufreq_outcome_t *out,
			 cosched_error_t *err)
{
	return acquire_domains(c, dir, h, idx, n, true, kept, out, err);
}

int cosched_cpufreq_release(const cosched_cpufreq_t *c, const char *dir,
			    uint32_t job_id, uint32_t step_id,
			    const cosched_cpufreq_kept_t *kept,
			    cosched_cpufreq_outcome_t *out,
			    cosched_error_t *err)
{
	cosched_cpufreq_outcome_t dummy;
	problems_t p = { err, 0 };
	bool changed;
	journal_t *j;
	int lock;

	cosched_error_clear(err);
	if (!out)
		out = &dummy;
	outcome_clear(out);
	j = begin(c, dir, LOCK_WAIT_MS, &lock, &changed, out, &p);
	if (!j)
		return -1;
	if (kept)
		changed = recover_kept(c, j, job_id, step_id, kept, out, &p) ||
			  changed;
	for (int i = 0; i < j->n; i++)
		for (int k = 0; k < j->d[i].n; k++)
			if (j->d[i].h[k].job_id == job_id &&
			    (step_id == COSCHED_CPUFREQ_ANY_STEP ||
			     j->d[i].h[k].step_id == step_id)) {
				cosched_journal_holder_remove(&j->d[i], k--);
				j->d[i].touched = true;
				changed = true;
			}
	changed = settle(c, j, NULL, NULL, out, &p) || changed;
	return finish(dir, j, changed, lock, &p);
}

int cosched_cpufreq_set_stopped(const cosched_cpufreq_t *c, const char *dir,
				uint32_t job_id, uint32_t step_id,
				bool stopped, cosched_cpufreq_outcome_t *out,
				cosched_error_t *err)
{
	cosched_cpufreq_outcome_t dummy;
	problems_t p = { err, 0 };
	bool changed, held = false;
	journal_t *j;
	int lock, rc;

	cosched_error_clear(err);
	if (!out)
		out = &dummy;
	outcome_clear(out);
	j = begin(c, dir, LOCK_WAIT_MS, &lock, &changed, out, &p);
	if (!j)
		return -1;
	for (int i = 0; i < j->n; i++) {
		int k = cosched_journal_holder_find(&j->d[i], job_id, step_id);

		if (k < 0 || j->d[i].h[k].stopped == stopped)
			continue;
		j->d[i].h[k].stopped = stopped;
		j->d[i].touched = true;
		held = changed = true;
	}
	/* As a release: the originals the journal keeps are unchanged, so
	 * sysfs may go first. */
	changed = settle(c, j, NULL, NULL, out, &p) || changed;
	rc = finish(dir, j, changed, lock, &p);
	return rc < 0 ? -1 : held ? 0 : 1;
}

/*
 * The sweeps: drop the holders whose process is gone and settle the
 * journal; with all, also every running holder (all && !force: refused,
 * naming the first).  wait_ms: how long to wait for the lock (-2 when it
 * stayed taken).  *alive (may be NULL): running holders found.
 */
static int sweep_journal(const cosched_cpufreq_t *c, const char *dir,
			 int wait_ms, bool all, bool force, int *alive,
			 cosched_cpufreq_outcome_t *out,
			 cosched_error_t *err)
{
	cosched_cpufreq_outcome_t dummy;
	problems_t p = { err, 0 };
	bool changed;
	journal_t *j;
	int lock, running = 0;

	cosched_error_clear(err);
	if (!out)
		out = &dummy;
	outcome_clear(out);
	j = begin(c, dir, wait_ms, &lock, &changed, out, &p);
	if (!j)
		return lock;
	/* begin() dropped the holders whose process is gone: what is left
	 * runs. */
	for (int i = 0; all && i < j->n; i++) {
		for (int k = 0; k < j->d[i].n; k++) {
			const cosched_cpufreq_holder_t *h = &j->d[i].h[k];

			if (!running++ && !force)
				problem(&p,
					"cpufreq domain %d is held by job %u step %u (pid %d), still running: not restored (force to restore anyway)",
					j->d[i].id, h->job_id, h->step_id,
					(int) h->pid);
		}
		if (force && j->d[i].n) {
			j->d[i].n = 0;
			j->d[i].touched = true;
			changed = true;
		}
	}
	if (alive)
		*alive = running;
	changed = settle(c, j, NULL, NULL, out, &p) || changed;
	return finish(dir, j, changed, lock, &p);
}

int cosched_cpufreq_sweep(const cosched_cpufreq_t *c, const char *dir,
			  cosched_cpufreq_outcome_t *out,
			  cosched_error_t *err)
{
	return sweep_journal(c, dir, LOCK_WAIT_MS, false, false, NULL, out,
			     err) < 0 ? -1 : 0;
}

int cosched_cpufreq_sweep_try(const cosched_cpufreq_t *c, const char *dir,
			      cosched_cpufreq_outcome_t *out,
			      cosched_error_t *err)
{
	int rc = sweep_journal(c, dir, 0, false, false, NULL, out, err);

	if (rc == -2) {
		cosched_error_clear(err);
		return 1;	/* busy: whoever holds the lock settles */
	}
	return rc;
}

int cosched_cpufreq_restore_all(const cosched_cpufreq_t *c, const char *dir,
				bool force, int *alive,
				cosched_cpufreq_outcome_t *out,
				cosched_error_t *err)
{
	return sweep_journal(c, dir, LOCK_WAIT_MS, true, force, alive, out,
			     err) < 0 ? -1 : 0;
}
