/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpufreq_journal_text.c - the cpufreq journal in memory and its
 * text form, through the one key=value codec (src/libcosched/base/kv.h): the header
 * cpufreq_journal.h describes the form, the parser accepts
 * exactly what the writer writes (and, from a newer minor, skips what it
 * does not know).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/kv.h"
#include "src/libcosched/base/kv_file.h"
#include "src/libcosched/base/text.h"
#include "src/node/cpufreq_journal_internal.h"

#define LINE_MAX_BYTES (COSCHED_IDSET_TEXT_MAX + 256)

/* ---- the journal in memory -------------------------------------------- */

journal_t *cosched_journal_new(void)
{
	journal_t *j = calloc(1, sizeof(*j));

	if (j)
		j->d = calloc(COSCHED_CPUFREQ_DOMAINS_MAX, sizeof(*j->d));
	if (j && !j->d) {
		free(j);
		j = NULL;
	}
	if (j)
		strcpy(j->boot, "-");
	return j;
}

void cosched_journal_free(journal_t *j)
{
	if (!j)
		return;
	for (int i = 0; i < j->n; i++)
		free(j->d[i].h);
	free(j->d);
	free(j);
}

void cosched_journal_domain_remove(journal_t *j, int i)
{
	free(j->d[i].h);
	memmove(&j->d[i], &j->d[i + 1], (size_t) (j->n - i - 1) *
		sizeof(j->d[0]));
	j->n--;
}

/* The entry of domain id, added (ascending) when absent and add. */
jdom_t *cosched_journal_domain_get(journal_t *j, int id, bool add)
{
	int i;

	for (i = 0; i < j->n && j->d[i].id < id; i++)
		;
	if (i < j->n && j->d[i].id == id)
		return &j->d[i];
	if (!add || j->n == COSCHED_CPUFREQ_DOMAINS_MAX)
		return NULL;
	memmove(&j->d[i + 1], &j->d[i], (size_t) (j->n - i) * sizeof(j->d[0]));
	memset(&j->d[i], 0, sizeof(j->d[0]));
	j->d[i].id = id;
	j->n++;
	return &j->d[i];
}

int cosched_journal_holder_add(jdom_t *d, const cosched_cpufreq_holder_t *h)
{
	if (d->n == d->cap) {
		int cap = d->cap ? 2 * d->cap : 4;
		cosched_cpufreq_holder_t *nh;

		if (d->n == COSCHED_CPUFREQ_HOLDERS_MAX)
			return -1;
		if (cap > COSCHED_CPUFREQ_HOLDERS_MAX)
			cap = COSCHED_CPUFREQ_HOLDERS_MAX;
		nh = realloc(d->h, (size_t) cap * sizeof(*nh));
		if (!nh)
			return -1;
		d->h = nh;
		d->cap = cap;
	}
	d->h[d->n++] = *h;
	return 0;
}

void cosched_journal_holder_remove(jdom_t *d, int k)
{
	memmove(&d->h[k], &d->h[k + 1], (size_t) (d->n - k - 1) *
		sizeof(d->h[0]));
	d->n--;
}

int cosched_journal_holder_find(const jdom_t *d, uint32_t job_id, uint32_t step_id)
{
	for (int k = 0; k < d->n; k++)
		if (d->h[k].job_id == job_id && d->h[k].step_id == step_id)
			return k;
	return -1;
}

/* ---- reading ---------------------------------------------------------- */

bool cosched_journal_governor_ok(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= COSCHED_CPUFREQ_GOVERNOR_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

/* What reading one journal knows besides its lines. */
typedef struct {
	journal_t *j;
	jdom_t *cur;			/* the last domain read */
	int nholders;
	bool ended;			/* the end line was read */
} jread_t;

static int expect_khz(cosched_kv_reader_t *r, const char *key, long *out,
		      cosched_error_t *err)
{
	uint64_t v;

	if (cosched_kv_expect_u64(r, key, 100000000, &v, err))
		return -1;
	*out = (long) v;
	return 0;
}

static int expect_governor(cosched_kv_reader_t *r, bool dash_ok, char *out,
			   size_t len, cosched_error_t *err)
{
	char *v;

	if (cosched_kv_expect(r, "governor", &v, err))
		return -1;
	if (!(dash_ok && !strcmp(v, "-")) && !cosched_journal_governor_ok(v))
		return cosched_error_set(err,
			"governor: invalid governor %s ([a-z0-9_], 1 to %d bytes%s)",
			COSCHED_QUOTE(v), COSCHED_CPUFREQ_GOVERNOR_MAX,
			dash_ok ? ", or -" : "");
	snprintf(out, len, "%s", strcmp(v, "-") ? v : "");
	return 0;
}

static int not_after_end(const jread_t *jr, const cosched_kv_line_t *line,
			 cosched_error_t *err)
{
	if (jr->ended)
		return cosched_error_set(err, "%s after the end line",
					 line->r.what);
	return 0;
}

/* "cosched-cpufreq-journal/1 boot=BOOT_ID": "-" or the kernel's form. */
static int read_head(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	jread_t *jr = ctx;
	char *boot;
	size_t n;

	if (cosched_kv_expect(&line->r, "boot", &boot, err))
		return -1;
	n = strlen(boot);
	if (!(strcmp(boot, "-") == 0 ||
	      (n == COSCHED_BOOT_ID_LEN &&
	       strspn(boot, "0123456789abcdef-") == COSCHED_BOOT_ID_LEN)))
		return cosched_error_set(err, "boot: invalid boot id %s",
					 COSCHED_QUOTE(boot));
	strcpy(jr->j->boot, boot);
	return 0;
}

/* "domain id=8 cpus=8-15 governor=G min=M max=X setspeed=S": ascending,
 * no CPU in two. */
static int read_domain(void *ctx, cosched_kv_line_t *line,
		       cosched_error_t *err)
{
	jread_t *jr = ctx;
	journal_t *j = jr->j;
	cosched_kv_reader_t *r = &line->r;
	jdom_t d;
	uint64_t id;
	char *v;

	memset(&d, 0, sizeof(d));
	if (not_after_end(jr, line, err) ||
	    cosched_kv_expect_u64(r, "id", COSCHED_IDSET_MAX - 1, &id, err) ||
	    cosched_kv_expect(r, "cpus", &v, err) ||
	    cosched_idset_parse("cpus", v, &d.cpus, err) ||
	    expect_governor(r, false, d.orig.governor,
			    sizeof(d.orig.governor), err) ||
	    expect_khz(r, "min", &d.orig.min_khz, err) ||
	    expect_khz(r, "max", &d.orig.max_khz, err) ||
	    expect_khz(r, "setspeed", &d.orig.setspeed_khz, err))
		return -1;
	d.id = (int) id;
	if (!d.orig.min_khz || d.orig.min_khz > d.orig.max_khz)
		return cosched_error_set(err,
			"min: %ld kHz, max %ld kHz (0 < min <= max)",
			d.orig.min_khz, d.orig.max_khz);
	if (cosched_idset_next(&d.cpus, 0) != d.id)
		return cosched_error_set(err,
			"id: %d is not the domain's first CPU", d.id);
	if ((d.orig.setspeed_khz != 0) !=
	    !strcmp(d.orig.governor, "userspace"))
		return cosched_error_set(err,
			"setspeed: %ld with governor %s (set exactly with userspace)",
			d.orig.setspeed_khz, d.orig.governor);
	if (j->n && j->d[j->n - 1].id >= d.id)
		return cosched_error_set(err,
			"id: domain %d out of order or twice", d.id);
	for (int i = 0; i < j->n; i++)
		if (cosched_idset_overlap(&j->d[i].cpus, &d.cpus))
			return cosched_error_set(err,
				"cpus: domain %d shares CPUs with domain %d",
				d.id, j->d[i].id);
	if (j->n == COSCHED_CPUFREQ_DOMAINS_MAX)
		return cosched_error_set(err, "more than %d domains",
					 COSCHED_CPUFREQ_DOMAINS_MAX);
	j->d[j->n] = d;
	jr->cur = &j->d[j->n++];
	return 0;
}

/* "holder job=J step=S pid=P start=T governor=G|- freq=F stopped=0|1"
 * (1.0: no stopped, the holder runs), of the domain above, once a
 * domain. */
static int read_holder(void *ctx, cosched_kv_line_t *line,
		       cosched_error_t *err)
{
	jread_t *jr = ctx;
	cosched_kv_reader_t *r = &line->r;
	uint64_t job, step, pid, start;
	cosched_cpufreq_holder_t h;

	memset(&h, 0, sizeof(h));
	if (not_after_end(jr, line, err) ||
	    cosched_kv_expect_u64(r, "job", UINT32_MAX, &job, err) ||
	    cosched_kv_expect_u64(r, "step", UINT32_MAX, &step, err) ||
	    cosched_kv_expect_u64(r, "pid", INT_MAX, &pid, err) ||
	    cosched_kv_expect_u64(r, "start", ULLONG_MAX, &start, err) ||
	    expect_governor(r, true, h.governor, sizeof(h.governor), err) ||
	    expect_khz(r, "freq", &h.freq_khz, err))
		return -1;
	if (line->seen.minor >= 1) {
		uint64_t stopped;

		if (cosched_kv_expect_u64(r, "stopped", 1, &stopped, err))
			return -1;
		h.stopped = stopped;
	}
	if (!pid)
		return cosched_error_set(err, "pid: 0 is no process");
	h.job_id = (uint32_t) job;
	h.step_id = (uint32_t) step;
	h.pid = (pid_t) pid;
	h.start_time = start;
	if (!jr->cur)
		return cosched_error_set(err, "holder before any domain");
	if (cosched_journal_holder_find(jr->cur, h.job_id, h.step_id) >= 0)
		return cosched_error_set(err,
			"holder job %" PRIu32 " step %" PRIu32
			" twice in domain %d", h.job_id, h.step_id,
			jr->cur->id);
	if (cosched_journal_holder_add(jr->cur, &h))
		return cosched_error_set(err,
			"more than %d holders in domain %d",
			COSCHED_CPUFREQ_HOLDERS_MAX, jr->cur->id);
	jr->nholders++;
	return 0;
}

/* "end domains=N holders=M": the counts of the lines above. */
static int read_end(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	jread_t *jr = ctx;
	uint64_t nd, nh;

	if (not_after_end(jr, line, err) ||
	    cosched_kv_expect_u64(&line->r, "domains", INT_MAX, &nd, err) ||
	    cosched_kv_expect_u64(&line->r, "holders", INT_MAX, &nh, err))
		return -1;
	if ((int) nd != jr->j->n || (int) nh != jr->nholders)
		return cosched_error_set(err,
			"domains=%d holders=%d do not match the %d domains and %d holders above",
			(int) nd, (int) nh, jr->j->n, jr->nholders);
	jr->ended = true;
	return 0;
}

static const cosched_kv_kind_t journal_kinds[] = {
	{ "domain", read_domain },
	{ "holder", read_holder },
	{ "end", read_end },
	{ NULL, NULL },
};

/* The version this release writes is own, 1.1 (a holder's "stopped"),
 * which every 1.x reader reads (src/libcosched/base/kv.h).  slurmd and the
 * slurmstepd of running jobs share the journal, and during an upgrade of
 * the node they run two releases. */
static const cosched_kv_form_t journal_form = {
	.what = "cpufreq journal", .reader = "this node", .tag = JOURNAL_TAG,
	.own = { JOURNAL_SCHEMA, JOURNAL_MINOR }, .head = read_head,
	.kinds = journal_kinds, .line_max = LINE_MAX_BYTES - 3,
};

int cosched_journal_parse(char *text, journal_t *j, cosched_error_t *err)
{
	jread_t jr = { .j = j };

	if (cosched_kv_file_read(&journal_form, text, &jr, err))
		return -1;
	if (!jr.ended)
		return cosched_error_set(err, "no end line (cut short?)");
	return 0;
}

/* ---- writing ---------------------------------------------------------- */

static void put_domain(cosched_kv_out_t *o, const jdom_t *d)
{
	char cpus[COSCHED_IDSET_TEXT_MAX];

	cosched_kv_put_str(o, "domain");
	cosched_kv_put_int(o, "id", d->id);
	cosched_kv_put(o, "cpus", "%s",
		       cosched_idset_format(&d->cpus, cpus, sizeof(cpus)));
	cosched_kv_put(o, "governor", "%s", d->orig.governor);
	cosched_kv_put_int(o, "min", d->orig.min_khz);
	cosched_kv_put_int(o, "max", d->orig.max_khz);
	cosched_kv_put_int(o, "setspeed", d->orig.setspeed_khz);
	cosched_kv_put_str(o, "\n");
}

static void put_holder(cosched_kv_out_t *o, const cosched_cpufreq_holder_t *h)
{
	cosched_kv_put_str(o, "holder");
	cosched_kv_put_int(o, "job", h->job_id);
	cosched_kv_put_int(o, "step", h->step_id);
	cosched_kv_put_int(o, "pid", (int) h->pid);
	cosched_kv_put(o, "start", "%llu", h->start_time);
	cosched_kv_put(o, "governor", "%s", h->governor[0] ? h->governor : "-");
	cosched_kv_put_int(o, "freq", h->freq_khz);
	cosched_kv_put_int(o, "stopped", h->stopped);
	cosched_kv_put_str(o, "\n");
}

/* The whole file, malloc'd. */
char *cosched_journal_format(const journal_t *j)
{
	char version[64];
	cosched_kv_out_t o;
	int nholders = 0;

	cosched_kv_out_grow(&o);
	cosched_kv_put_str(&o, cosched_kv_version_text(JOURNAL_TAG,
		journal_form.own, version, sizeof(version)));
	cosched_kv_put(&o, "boot", "%s", j->boot);
	cosched_kv_put_str(&o, "\n");
	for (int i = 0; i < j->n; i++) {
		put_domain(&o, &j->d[i]);
		for (int k = 0; k < j->d[i].n; k++) {
			put_holder(&o, &j->d[i].h[k]);
			nholders++;
		}
	}
	cosched_kv_put_str(&o, "end");
	cosched_kv_put_int(&o, "domains", j->n);
	cosched_kv_put_int(&o, "holders", nholders);
	cosched_kv_put_str(&o, "\n");
	return cosched_kv_out_take(&o);
}
