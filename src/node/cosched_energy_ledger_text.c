/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_energy_ledger_text.c - the energy ledger's text form through
 * the one key=value codec (src/libcosched/base/kv.h); its header
 * describes it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/kv.h"
#include "src/libcosched/base/text.h"
#include "cosched_energy_ledger_text.h"

void cosched_step_ref_format(const cosched_step_ref_t *r, char *buf,
			     size_t len)
{
	snprintf(buf, len, "%" PRIu32 ".%" PRIu32, r->job_id, r->step_id);
}

bool cosched_step_ref_eq(const cosched_step_ref_t *a, const cosched_step_ref_t *b)
{
	return a->job_id == b->job_id && a->step_id == b->step_id;
}

/* ---- text form ---------------------------------------------------------- */

/* The version this release writes: "/1" while the minor is 0, what every
 * 1.x reader reads (src/libcosched/base/kv.h): the samplers of jobs started before a
 * node's upgrade share the ledger with those started after. */
static const cosched_kv_version_t ledger_version = { LEDGER_SCHEMA, 0 };

char *cosched_ledger_format(const ledger_t *l)
{
	char version[64];
	cosched_kv_out_t o;

	cosched_kv_out_grow(&o);
	cosched_kv_put_str(&o, cosched_kv_version_text(LEDGER_TAG,
		ledger_version, version, sizeof(version)));
	cosched_kv_put(&o, "boot", "%s", l->boot);
	cosched_kv_put_str(&o, "\n");
	for (int i = 0; i < l->nzones; i++)
		cosched_kv_put_fmt(&o, "zone %s %" PRIu64 "\n",
				   l->zone[i].dir, l->zone[i].uj);
	cosched_kv_put_str(&o, "totals");
	cosched_kv_put(&o, "attributed", "%" PRIu64, l->attributed);
	cosched_kv_put(&o, "unattributed", "%" PRIu64, l->unattributed);
	cosched_kv_put(&o, "abandoned", "%" PRIu64, l->abandoned);
	cosched_kv_put_str(&o, "\n");
	for (int i = 0; i < l->n; i++) {
		const cosched_ledger_step_t *s = &l->step[i];
		char id[32];

		cosched_step_ref_format(&s->id, id, sizeof(id));
		cosched_kv_put_fmt(&o, "step %s", id);
		cosched_kv_put_int(&o, "pid", (int) s->proc.pid);
		cosched_kv_put(&o, "start", "%llu", s->proc.start_time);
		cosched_kv_put_int(&o, "cores", s->cores);
		cosched_kv_put(&o, "rate", "%" PRIu64, s->rate);
		if (s->mem_rate == COSCHED_ENERGY_UNKNOWN)
			cosched_kv_put(&o, "mem_rate", "-");
		else
			cosched_kv_put(&o, "mem_rate", "%" PRIu64, s->mem_rate);
		cosched_kv_put(&o, "uncore", "%" PRIu64, s->energy.uncore_uj);
		cosched_kv_put(&o, "core", "%" PRIu64, s->energy.core_uj);
		cosched_kv_put(&o, "dram", "%" PRIu64, s->energy.dram_uj);
		cosched_kv_put(&o, "node", "%" PRIu64, s->node_uj);
		cosched_kv_put_int(&o, "seen", s->corunners_seen);
		cosched_kv_put(&o, "corunners", "%s", s->ncorunners ? "" : "-");
		for (int k = 0; k < s->ncorunners; k++) {
			cosched_step_ref_format(&s->corunners[k], id,
						sizeof(id));
			cosched_kv_put_fmt(&o, "%s%s", k ? "," : "", id);
		}
		cosched_kv_put_str(&o, "\n");
	}
	return cosched_kv_out_take(&o);
}

/* "JOB.STEP", both decimal without leading zero. */
static int parse_ref(const char *field, const char *s, cosched_step_ref_t *r,
		     cosched_error_t *err)
{
	char buf[32], *dot;
	uint64_t j, st;

	if (strlen(s) >= sizeof(buf) || !(dot = strchr(strcpy(buf, s), '.')))
		return cosched_error_set(err, "%s: %s is not JOB.STEP", field,
					 COSCHED_QUOTE(s));
	*dot = '\0';
	if (cosched_kv_u64(field, buf, UINT32_MAX, &j, err) ||
	    cosched_kv_u64(field, dot + 1, UINT32_MAX, &st, err))
		return -1;
	r->job_id = (uint32_t) j;
	r->step_id = (uint32_t) st;
	return 0;
}

/* What reading one ledger knows besides its lines. */
typedef struct {
	cosched_kv_version_t seen;	/* the file's version */
	int skipped;			/* keys and lines of a newer minor */
} lread_t;

static int expect_u64(cosched_kv_reader_t *r, const char *key, uint64_t max,
		      uint64_t *out, cosched_error_t *err)
{
	char *v;

	if (cosched_kv_expect(r, key, &v, err))
		return -1;
	return cosched_kv_u64(key, v, max, out, err);
}

static int parse_step(char *line, lread_t *lr, cosched_ledger_step_t *s,
		      cosched_error_t *err)
{
	cosched_kv_reader_t r;
	char *word, *v;
	uint64_t x;

	memset(s, 0, sizeof(*s));
	cosched_kv_begin(&r, line, "step");
	if (cosched_kv_word(&r, &word, err) || cosched_kv_word(&r, &v, err) ||
	    parse_ref("step", v, &s->id, err))
		return -1;
	if (expect_u64(&r, "pid", INT32_MAX, &x, err))
		return -1;
	if (!x)
		return cosched_error_set(err, "pid: 0 is no process");
	s->proc.pid = (pid_t) x;
	if (expect_u64(&r, "start", UINT64_MAX, &x, err))
		return -1;
	s->proc.start_time = x;
	if (expect_u64(&r, "cores", UINT32_MAX, &x, err))
		return -1;
	if (!x)
		return cosched_error_set(err, "cores: 0 (at least 1)");
	s->cores = (uint32_t) x;
	if (expect_u64(&r, "rate", UINT64_MAX - 1, &s->rate, err) ||
	    cosched_kv_expect(&r, "mem_rate", &v, err))
		return -1;
	if (!strcmp(v, "-"))
		s->mem_rate = COSCHED_ENERGY_UNKNOWN;
	else if (cosched_kv_u64("mem_rate", v, UINT64_MAX - 1, &s->mem_rate,
				err))
		return -1;
	if (expect_u64(&r, "uncore", UINT64_MAX, &s->energy.uncore_uj, err) ||
	    expect_u64(&r, "core", UINT64_MAX, &s->energy.core_uj, err) ||
	    expect_u64(&r, "dram", UINT64_MAX, &s->energy.dram_uj, err) ||
	    expect_u64(&r, "node", UINT64_MAX, &s->node_uj, err) ||
	    expect_u64(&r, "seen", INT32_MAX, &x, err))
		return -1;
	s->corunners_seen = (int) x;
	if (cosched_kv_expect(&r, "corunners", &v, err))
		return -1;
	if (strcmp(v, "-")) {
		char *comma;

		for (char *c = v; c; c = comma ? comma + 1 : NULL) {
			comma = strchr(c, ',');
			if (comma)
				*comma = '\0';
			if (s->ncorunners == COSCHED_LEDGER_CORUNNERS_MAX)
				return cosched_error_set(err,
					"corunners: more than %d named",
					COSCHED_LEDGER_CORUNNERS_MAX);
			if (parse_ref("corunners", c,
				      &s->corunners[s->ncorunners], err))
				return -1;
			s->ncorunners++;
		}
	}
	if (s->corunners_seen < s->ncorunners)
		return cosched_error_set(err,
			"seen: %d, fewer than the %d corunners named",
			s->corunners_seen, s->ncorunners);
	if (cosched_kv_end_of(&r, lr->seen, ledger_version, &lr->skipped, err))
		return -1;
	s->energy.total_uj = s->energy.uncore_uj + s->energy.core_uj +
			     s->energy.dram_uj;
	return 0;
}

/* "cosched-energy-ledger/1 boot=BOOT_ID". */
static int parse_head(char *line, lread_t *lr, ledger_t *l,
		      cosched_error_t *err)
{
	cosched_kv_reader_t r;
	char *boot;

	if (cosched_kv_head_boot(&r, line, "energy ledger", LEDGER_TAG,
				 ledger_version, &lr->seen, &boot, err))
		return -1;
	if (!*boot || strlen(boot) > COSCHED_BOOT_ID_LEN)
		return cosched_error_set(err, "boot: invalid boot id %s",
					 COSCHED_QUOTE(boot));
	strcpy(l->boot, boot);
	return cosched_kv_end_of(&r, lr->seen, ledger_version, &lr->skipped,
				 err);
}

/* "zone DIR UJ". */
static int parse_zone(char *line, lread_t *lr, lzone_t *z,
		      cosched_error_t *err)
{
	cosched_kv_reader_t r;
	char *word, *dir, *uj;

	cosched_kv_begin(&r, line, "zone");
	if (cosched_kv_word(&r, &word, err) || cosched_kv_word(&r, &dir, err) ||
	    cosched_kv_word(&r, &uj, err))
		return -1;
	if (strlen(dir) >= sizeof(z->dir))
		return cosched_error_set(err, "zone: directory %s too long",
					 COSCHED_QUOTE(dir));
	if (cosched_kv_u64("zone", uj, UINT64_MAX, &z->uj, err))
		return -1;
	strcpy(z->dir, dir);
	return cosched_kv_end_of(&r, lr->seen, ledger_version, &lr->skipped,
				 err);
}

static int parse_totals(char *line, lread_t *lr, ledger_t *l,
			cosched_error_t *err)
{
	cosched_kv_reader_t r;
	char *word;

	cosched_kv_begin(&r, line, "totals");
	if (cosched_kv_word(&r, &word, err) ||
	    expect_u64(&r, "attributed", UINT64_MAX, &l->attributed, err) ||
	    expect_u64(&r, "unattributed", UINT64_MAX, &l->unattributed,
		       err) ||
	    expect_u64(&r, "abandoned", UINT64_MAX, &l->abandoned, err))
		return -1;
	return cosched_kv_end_of(&r, lr->seen, ledger_version, &lr->skipped,
				 err);
}

/* Strict: any line out of place is an error naming its number. */
int cosched_ledger_parse(char *text, ledger_t *l, cosched_error_t *err)
{
	lread_t lr = { { 0, 0 }, 0 };
	bool totals = false;
	char *line, *nl;
	int no = 0, rc;

	cosched_ledger_clear(l);
	for (line = text; *line; line = nl + 1) {
		cosched_error_t lerr;

		nl = strchr(line, '\n');
		if (!nl)
			return cosched_error_set(err,
				"line %d: no newline at the end (cut short?)",
				no + 1);
		*nl = '\0';
		no++;
		if (no == 1) {
			rc = parse_head(line, &lr, l, &lerr);
		} else if (!strncmp(line, "zone ", 5) && !totals) {
			if (l->nzones == COSCHED_RAPL_ZONES_MAX)
				return cosched_error_set(err,
					"line %d: more than %d zones", no,
					COSCHED_RAPL_ZONES_MAX);
			rc = parse_zone(line, &lr, &l->zone[l->nzones], &lerr);
			l->nzones += !rc;
		} else if (!strncmp(line, "totals ", 7) && !totals) {
			rc = parse_totals(line, &lr, l, &lerr);
			totals = true;
		} else if (!strncmp(line, "step ", 5) && totals) {
			if (l->n == COSCHED_LEDGER_STEPS_MAX)
				return cosched_error_set(err,
					"line %d: more than %d steps", no,
					COSCHED_LEDGER_STEPS_MAX);
			rc = parse_step(line, &lr, &l->step[l->n], &lerr);
			for (int i = 0; !rc && i < l->n; i++)
				if (cosched_step_ref_eq(&l->step[i].id, &l->step[l->n].id))
					return cosched_error_set(err,
						"line %d: step listed twice", no);
			l->n += !rc;
		} else if (*line && strncmp(line, "zone ", 5) &&
			   strncmp(line, "totals ", 7) &&
			   strncmp(line, "step ", 5) &&
			   cosched_kv_version_newer_minor(lr.seen,
							  ledger_version)) {
			lr.skipped++;	/* a kind of line a newer minor added */
			rc = 0;
		} else {
			return cosched_error_set(err, "line %d: unexpected",
						 no);
		}
		if (rc)
			return cosched_error_set(err, "line %d: %s", no,
						 lerr.msg);
	}
	if (!totals)
		return cosched_error_set(err, "no totals line");
	cosched_kv_note_skipped("energy ledger", LEDGER_TAG, lr.seen,
				ledger_version, lr.skipped);
	return 0;
}

