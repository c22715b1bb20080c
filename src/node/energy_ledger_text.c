/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * energy_ledger_text.c - the energy ledger's text form through
 * the one key=value codec (src/libcosched/base/kv.h); its header
 * describes it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/kv.h"
#include "src/libcosched/base/kv_file.h"
#include "src/libcosched/base/text.h"
#include "src/node/energy_ledger_text.h"

void cosched_step_ref_format(const cosched_step_ref_t *r, char *buf,
			     size_t len)
{
	snprintf(buf, len, "%" PRIu32 ".%" PRIu32, r->job_id, r->step_id);
}

bool cosched_step_ref_eq(const cosched_step_ref_t *a, const cosched_step_ref_t *b)
{
	return a->job_id == b->job_id && a->step_id == b->step_id;
}

/* ---- reading ---------------------------------------------------------- */

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
	ledger_t *l;
	bool totals;			/* the totals line was read */
} lread_t;

/* Whether the file being read is 1.1 or newer: what 1.1 added is there. */
static bool since_1_1(const cosched_kv_line_t *line)
{
	return line->seen.minor >= 1;
}

/* Whether the file being read is 1.2 or newer: a step's "stopped". */
static bool since_1_2(const cosched_kv_line_t *line)
{
	return line->seen.minor >= 2;
}

/* "cosched-energy-ledger/1.1 boot=BOOT_ID gen=G" (1.0: no gen). */
static int read_head(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	lread_t *lr = ctx;
	char *boot;

	if (cosched_kv_expect(&line->r, "boot", &boot, err))
		return -1;
	if (!*boot || strlen(boot) > COSCHED_BOOT_ID_LEN)
		return cosched_error_set(err, "boot: invalid boot id %s",
					 COSCHED_QUOTE(boot));
	strcpy(lr->l->boot, boot);
	if (since_1_1(line) &&
	    cosched_kv_expect_u64(&line->r, "gen", UINT64_MAX, &lr->l->gen,
				  err))
		return -1;
	return 0;
}

/* "restart why="..." told=0|1", before the zones, at most once. */
static int read_restart(void *ctx, cosched_kv_line_t *line,
			cosched_error_t *err)
{
	lread_t *lr = ctx;
	ledger_t *l = lr->l;
	uint64_t told;
	char *why;

	if (l->why[0] || l->nzones || lr->totals)
		return cosched_error_set(err,
			"restart line not first after the head, or twice");
	/* why is written quoted (a reason has blanks). */
	if (cosched_kv_expect_quoted(&line->r, "why", &why, err) ||
	    cosched_kv_expect_u64(&line->r, "told", 1, &told, err))
		return -1;
	if (!*why || strlen(why) > LEDGER_WHY_LEN)
		return cosched_error_set(err, "why: empty or longer than %d",
					 LEDGER_WHY_LEN);
	strcpy(l->why, why);
	l->why_told = told;
	return 0;
}

/* "zone DIR UJ", before the totals. */
static int read_zone(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	lread_t *lr = ctx;
	ledger_t *l = lr->l;
	char *dir, *uj;
	lzone_t *z;

	if (lr->totals)
		return cosched_error_set(err, "zone after the totals line");
	if (l->nzones == COSCHED_RAPL_ZONES_MAX)
		return cosched_error_set(err, "more than %d zones",
					 COSCHED_RAPL_ZONES_MAX);
	z = &l->zone[l->nzones];
	if (cosched_kv_word(&line->r, &dir, err) ||
	    cosched_kv_word(&line->r, &uj, err))
		return -1;
	if (strlen(dir) >= sizeof(z->dir))
		return cosched_error_set(err, "zone: directory %s too long",
					 COSCHED_QUOTE(dir));
	if (cosched_kv_u64("zone", uj, UINT64_MAX, &z->uj, err))
		return -1;
	strcpy(z->dir, dir);
	l->nzones++;
	return 0;
}

/* "totals attributed=UJ unattributed=UJ abandoned=UJ", once. */
static int read_totals(void *ctx, cosched_kv_line_t *line,
		       cosched_error_t *err)
{
	lread_t *lr = ctx;
	ledger_t *l = lr->l;

	if (lr->totals)
		return cosched_error_set(err, "a second totals line");
	lr->totals = true;
	return cosched_kv_expect_u64(&line->r, "attributed", UINT64_MAX,
				     &l->attributed, err) ||
	       cosched_kv_expect_u64(&line->r, "unattributed", UINT64_MAX,
				     &l->unattributed, err) ||
	       cosched_kv_expect_u64(&line->r, "abandoned", UINT64_MAX,
				     &l->abandoned, err) ? -1 : 0;
}

/* "step JOB.STEP pid=P ...", after the totals, once a step. */
static int read_step(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	lread_t *lr = ctx;
	ledger_t *l = lr->l;
	cosched_kv_reader_t *r = &line->r;
	cosched_ledger_step_t *s;
	uint64_t x;
	char *v;

	if (!lr->totals)
		return cosched_error_set(err, "step before the totals line");
	if (l->n == COSCHED_LEDGER_STEPS_MAX)
		return cosched_error_set(err, "more than %d steps",
					 COSCHED_LEDGER_STEPS_MAX);
	s = &l->step[l->n];
	memset(s, 0, sizeof(*s));
	if (cosched_kv_word(r, &v, err) || parse_ref("step", v, &s->id, err))
		return -1;
	for (int i = 0; i < l->n; i++)
		if (cosched_step_ref_eq(&l->step[i].id, &s->id))
			return cosched_error_set(err, "step %s listed twice",
						 COSCHED_QUOTE(v));
	if (cosched_kv_expect_u64(r, "pid", INT32_MAX, &x, err))
		return -1;
	if (!x)
		return cosched_error_set(err, "pid: 0 is no process");
	s->proc.pid = (pid_t) x;
	if (cosched_kv_expect_u64(r, "start", UINT64_MAX, &x, err))
		return -1;
	s->proc.start_time = x;
	if (cosched_kv_expect_u64(r, "cores", UINT32_MAX, &x, err))
		return -1;
	if (!x)
		return cosched_error_set(err, "cores: 0 (at least 1)");
	s->cores = (uint32_t) x;
	if (cosched_kv_expect_u64(r, "rate", UINT64_MAX - 1, &s->rate, err) ||
	    cosched_kv_expect(r, "mem_rate", &v, err))
		return -1;
	if (!strcmp(v, "-"))
		s->mem_rate = COSCHED_ENERGY_UNKNOWN;
	else if (cosched_kv_u64("mem_rate", v, UINT64_MAX - 1, &s->mem_rate,
				err))
		return -1;
	if (cosched_kv_expect_u64(r, "uncore", UINT64_MAX,
				  &s->energy.uncore_uj, err) ||
	    cosched_kv_expect_u64(r, "core", UINT64_MAX, &s->energy.core_uj,
				  err) ||
	    cosched_kv_expect_u64(r, "dram", UINT64_MAX, &s->energy.dram_uj,
				  err) ||
	    cosched_kv_expect_u64(r, "node", UINT64_MAX, &s->node_uj, err) ||
	    cosched_kv_expect_u64(r, "seen", INT32_MAX, &x, err))
		return -1;
	s->corunners_seen = (int) x;
	if (cosched_kv_expect(r, "corunners", &v, err))
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
	s->energy.total_uj = s->energy.uncore_uj + s->energy.core_uj +
			     s->energy.dram_uj;
	if (since_1_1(line)) {
		if (cosched_kv_expect_u64(r, "carried", s->energy.total_uj,
					  &s->carried_uj, err) ||
		    cosched_kv_expect(r, "stepd", &v, err))
			return -1;
		if (strcmp(v, "-")) {
			if (cosched_kv_u64("stepd", v, INT32_MAX, &x, err))
				return -1;
			if (!x)
				return cosched_error_set(err,
					"stepd: 0 is no process");
			s->stepd.pid = (pid_t) x;
		}
		if (cosched_kv_expect_u64(r, "stepd_start", UINT64_MAX, &x,
					  err))
			return -1;
		s->stepd.start_time = x;
	}
	if (since_1_2(line)) {
		if (cosched_kv_expect_u64(r, "stopped", 1, &x, err))
			return -1;
		s->stopped = x != 0;
	}
	l->n++;
	return 0;
}

static const cosched_kv_kind_t ledger_kinds[] = {
	{ "restart", read_restart },
	{ "zone", read_zone },
	{ "totals", read_totals },
	{ "step", read_step },
	{ NULL, NULL },
};

/* The version this release writes is own, 1.1, which every 1.x reader
 * reads (src/libcosched/base/kv.h): the samplers of jobs started before a
 * node's upgrade share the ledger with those started after.  A 1.0
 * writer's update drops what 1.1 added (it starts no generation and
 * carries nothing); the ledger's split stays right. */
static const cosched_kv_form_t ledger_form = {
	.what = "energy ledger", .reader = "this node", .tag = LEDGER_TAG,
	.own = { LEDGER_SCHEMA, LEDGER_MINOR }, .head = read_head,
	.kinds = ledger_kinds,
};

int cosched_ledger_parse(char *text, ledger_t *l, cosched_error_t *err)
{
	lread_t lr = { .l = l };

	cosched_ledger_clear(l);
	if (cosched_kv_file_read(&ledger_form, text, &lr, err))
		return -1;
	if (!lr.totals)
		return cosched_error_set(err, "no totals line");
	return 0;
}

/* ---- writing ---------------------------------------------------------- */

char *cosched_ledger_format(const ledger_t *l)
{
	char version[64];
	cosched_kv_out_t o;

	cosched_kv_out_grow(&o);
	cosched_kv_put_str(&o, cosched_kv_version_text(LEDGER_TAG,
		ledger_form.own, version, sizeof(version)));
	cosched_kv_put(&o, "boot", "%s", l->boot);
	cosched_kv_put(&o, "gen", "%" PRIu64, l->gen);
	cosched_kv_put_str(&o, "\n");
	if (l->why[0]) {
		cosched_kv_put_str(&o, "restart");
		cosched_kv_put_quoted(&o, "why", l->why);
		cosched_kv_put_int(&o, "told", l->why_told);
		cosched_kv_put_str(&o, "\n");
	}
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
		cosched_kv_put(&o, "carried", "%" PRIu64, s->carried_uj);
		if (s->stepd.pid)
			cosched_kv_put_int(&o, "stepd", (int) s->stepd.pid);
		else
			cosched_kv_put(&o, "stepd", "-");
		cosched_kv_put(&o, "stepd_start", "%llu", s->stepd.start_time);
		cosched_kv_put_int(&o, "stopped", s->stopped ? 1 : 0);
		cosched_kv_put_str(&o, "\n");
	}
	return cosched_kv_out_take(&o);
}
