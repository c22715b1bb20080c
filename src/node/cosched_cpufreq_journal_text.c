/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_cpufreq_journal_text.c - the cpufreq journal in memory and its
 * text form, through the one key=value codec (src/libcosched/base/kv.h): the header
 * cosched_cpufreq_journal.h describes the form, the parser accepts
 * exactly what the writer writes (and, from a newer minor, skips what it
 * does not know).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/kv.h"
#include "src/libcosched/base/text.h"
#include "cosched_cpufreq_journal_internal.h"

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

/* ---- the text form ---------------------------------------------------- */

/* The version this release writes: "/1" while the minor is 0, what every
 * 1.x reader reads (src/libcosched/base/kv.h).  slurmd and the slurmstepd of running
 * jobs share the journal, and during an upgrade of the node they run two
 * releases. */
static const cosched_kv_version_t journal_version = { JOURNAL_SCHEMA, 0 };

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
		journal_version, version, sizeof(version)));
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

/* What reading one journal knows besides its lines. */
typedef struct {
	cosched_kv_version_t seen;	/* the file's version */
	int skipped;			/* keys and lines of a newer minor */
} jread_t;

bool cosched_journal_governor_ok(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= COSCHED_CPUFREQ_GOVERNOR_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

/* A key's value as a number of at most max, through the codec. */
static int expect_u64(cosched_kv_reader_t *r, const char *key, uint64_t max,
		      uint64_t *out, cosched_error_t *err)
{
	char *v;

	if (cosched_kv_expect(r, key, &v, err))
		return -1;
	return cosched_kv_u64(key, v, max, out, err);
}

static int expect_khz(cosched_kv_reader_t *r, const char *key, long *out,
		      cosched_error_t *err)
{
	uint64_t v;

	if (expect_u64(r, key, 100000000, &v, err))
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

/* "domain id=8 cpus=8-15 governor=G min=M max=X setspeed=S" (line is
 * modified). */
static int parse_domain(char *line, jread_t *jr, jdom_t *d,
			cosched_error_t *err)
{
	const cosched_kv_version_t own = journal_version;
	cosched_kv_reader_t r;
	char *word, *v;
	uint64_t id;

	memset(d, 0, sizeof(*d));
	cosched_kv_begin(&r, line, "domain");
	if (cosched_kv_word(&r, &word, err) ||
	    expect_u64(&r, "id", COSCHED_IDSET_MAX - 1, &id, err) ||
	    cosched_kv_expect(&r, "cpus", &v, err) ||
	    cosched_idset_parse("cpus", v, &d->cpus, err) ||
	    expect_governor(&r, false, d->orig.governor,
			    sizeof(d->orig.governor), err) ||
	    expect_khz(&r, "min", &d->orig.min_khz, err) ||
	    expect_khz(&r, "max", &d->orig.max_khz, err) ||
	    expect_khz(&r, "setspeed", &d->orig.setspeed_khz, err) ||
	    cosched_kv_end_of(&r, jr->seen, own, &jr->skipped, err))
		return -1;
	d->id = (int) id;
	if (!d->orig.min_khz || d->orig.min_khz > d->orig.max_khz)
		return cosched_error_set(err,
			"min: %ld kHz, max %ld kHz (0 < min <= max)",
			d->orig.min_khz, d->orig.max_khz);
	if (cosched_idset_next(&d->cpus, 0) != d->id)
		return cosched_error_set(err,
			"id: %d is not the domain's first CPU", d->id);
	if ((d->orig.setspeed_khz != 0) !=
	    !strcmp(d->orig.governor, "userspace"))
		return cosched_error_set(err,
			"setspeed: %ld with governor %s (set exactly with userspace)",
			d->orig.setspeed_khz, d->orig.governor);
	return 0;
}

/* "holder job=J step=S pid=P start=T governor=G|- freq=F". */
static int parse_holder(char *line, jread_t *jr, cosched_cpufreq_holder_t *h,
			cosched_error_t *err)
{
	const cosched_kv_version_t own = journal_version;
	uint64_t job, step, pid, start;
	cosched_kv_reader_t r;
	char *word;

	memset(h, 0, sizeof(*h));
	cosched_kv_begin(&r, line, "holder");
	if (cosched_kv_word(&r, &word, err) ||
	    expect_u64(&r, "job", UINT32_MAX, &job, err) ||
	    expect_u64(&r, "step", UINT32_MAX, &step, err) ||
	    expect_u64(&r, "pid", INT_MAX, &pid, err) ||
	    expect_u64(&r, "start", ULLONG_MAX, &start, err) ||
	    expect_governor(&r, true, h->governor, sizeof(h->governor), err) ||
	    expect_khz(&r, "freq", &h->freq_khz, err) ||
	    cosched_kv_end_of(&r, jr->seen, own, &jr->skipped, err))
		return -1;
	if (!pid)
		return cosched_error_set(err, "pid: 0 is no process");
	h->job_id = (uint32_t) job;
	h->step_id = (uint32_t) step;
	h->pid = (pid_t) pid;
	h->start_time = start;
	return 0;
}

/* "cosched-cpufreq-journal/1 boot=BOOT_ID". */
static int parse_head(char *line, jread_t *jr, journal_t *j,
		      cosched_error_t *err)
{
	cosched_kv_reader_t r;
	char *boot;
	size_t n;

	if (cosched_kv_head_boot(&r, line, "cpufreq journal", JOURNAL_TAG,
				 journal_version, &jr->seen, &boot, err))
		return cosched_error_prefix(err, "line 1");
	n = strlen(boot);
	if (!(strcmp(boot, "-") == 0 ||
	      (n == COSCHED_BOOT_ID_LEN &&
	       strspn(boot, "0123456789abcdef-") == COSCHED_BOOT_ID_LEN)))
		return cosched_error_set(err, "line 1: invalid boot id %s",
					 COSCHED_QUOTE(boot));
	strcpy(j->boot, boot);
	if (cosched_kv_end_of(&r, jr->seen, journal_version, &jr->skipped,
			      err))
		return cosched_error_prefix(err, "line 1");
	return 0;
}

/* "end domains=N holders=M": the counts of the lines above. */
static int parse_end(char *line, jread_t *jr, int *domains, int *holders,
		     cosched_error_t *err)
{
	cosched_kv_reader_t r;
	uint64_t nd, nh;
	char *word;

	cosched_kv_begin(&r, line, "end");
	if (cosched_kv_word(&r, &word, err) ||
	    expect_u64(&r, "domains", INT_MAX, &nd, err) ||
	    expect_u64(&r, "holders", INT_MAX, &nh, err) ||
	    cosched_kv_end_of(&r, jr->seen, journal_version, &jr->skipped,
			      err))
		return -1;
	*domains = (int) nd;
	*holders = (int) nh;
	return 0;
}

/* Parse the whole file; on error err says which line and why. */
int cosched_journal_parse(char *text, journal_t *j, cosched_error_t *err)
{
	char *line = text, *nl;
	int lineno = 0, nholders = 0, end_domains, end_holders;
	bool ended = false;
	jdom_t *cur = NULL;
	jread_t jr = { { 0, 0 }, 0 };

	while (*line) {
		char quoted[COSCHED_QUOTE_BUF];
		cosched_error_t lerr;

		nl = strchr(line, '\n');
		if (!nl)
			return cosched_error_set(err,
				"line %d: no newline at the end of the file (cut short?)",
				lineno + 1);
		*nl = '\0';
		lineno++;
		if (ended)
			return cosched_error_set(err,
				"line %d: %s after the end line", lineno,
				COSCHED_QUOTE(line));
		if (strlen(line) >= LINE_MAX_BYTES - 2)
			return cosched_error_set(err, "line %d: too long",
						 lineno);
		cosched_quote(quoted, sizeof(quoted), line);
		if (lineno == 1) {
			if (parse_head(line, &jr, j, err))
				return -1;
		} else if (!strncmp(line, "domain ", 7)) {
			jdom_t d;

			if (parse_domain(line, &jr, &d, &lerr))
				return cosched_error_set(err,
					"line %d: invalid domain line %s: %s",
					lineno, quoted, lerr.msg);
			if (j->n && j->d[j->n - 1].id >= d.id)
				return cosched_error_set(err,
					"line %d: domain %d out of order or twice",
					lineno, d.id);
			for (int i = 0; i < j->n; i++)
				if (cosched_idset_overlap(&j->d[i].cpus, &d.cpus))
					return cosched_error_set(err,
						"line %d: domain %d shares CPUs with domain %d",
						lineno, d.id, j->d[i].id);
			if (j->n == COSCHED_CPUFREQ_DOMAINS_MAX)
				return cosched_error_set(err,
					"line %d: more than %d domains",
					lineno, COSCHED_CPUFREQ_DOMAINS_MAX);
			j->d[j->n] = d;
			cur = &j->d[j->n++];
		} else if (!strncmp(line, "holder ", 7)) {
			cosched_cpufreq_holder_t h;

			if (parse_holder(line, &jr, &h, &lerr))
				return cosched_error_set(err,
					"line %d: invalid holder line %s: %s",
					lineno, quoted, lerr.msg);
			if (!cur)
				return cosched_error_set(err,
					"line %d: holder before any domain",
					lineno);
			if (cosched_journal_holder_find(cur, h.job_id, h.step_id) >= 0)
				return cosched_error_set(err,
					"line %d: holder job %" PRIu32
					" step %" PRIu32 " twice in domain %d",
					lineno, h.job_id, h.step_id, cur->id);
			if (cosched_journal_holder_add(cur, &h))
				return cosched_error_set(err,
					"line %d: more than %d holders in domain %d",
					lineno, COSCHED_CPUFREQ_HOLDERS_MAX,
					cur->id);
			nholders++;
		} else if (!strncmp(line, "end ", 4)) {
			if (parse_end(line, &jr, &end_domains, &end_holders,
				      &lerr))
				return cosched_error_set(err,
					"line %d: invalid end line %s: %s",
					lineno, quoted, lerr.msg);
			if (end_domains != j->n || end_holders != nholders)
				return cosched_error_set(err,
					"line %d: %s does not match the %d domains and %d holders above",
					lineno, quoted, j->n, nholders);
			ended = true;
		} else if (*line && cosched_kv_version_newer_minor(jr.seen,
							journal_version)) {
			jr.skipped++;	/* a kind of line a newer minor added */
		} else {
			return cosched_error_set(err,
				"line %d: unknown line %s", lineno, quoted);
		}
		line = nl + 1;
	}
	if (!lineno)
		return cosched_error_set(err, "empty file");
	if (!ended)
		return cosched_error_set(err,
			"no end line after line %d (cut short?)", lineno);
	cosched_kv_note_skipped("cpufreq journal", JOURNAL_TAG, jr.seen,
				journal_version, jr.skipped);
	return 0;
}

