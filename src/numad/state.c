/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state.c - what cosched-numad keeps across a restart, in
 * NumaStateDir/numad.state (replaced atomically after every batch, so a
 * daemon killed at any moment leaves the state of its last whole batch):
 *
 *   cosched-numad-state/1 boot=BOOT_ID next=ID
 *   priority job=J level=high|low
 *   frozen pid=P start=T addr=A pages=N node=D until=SECONDS
 *   request id=... (the line of numad_request_line(), the request in
 *           progress and the recent ones)
 *
 * At start: a state from another boot is dropped (no process of it is
 * left); a request found running was cut short by the daemon's end and
 * is reported "interrupted" with the pages its saved batches moved - it
 * is never resumed, so no page moves twice for one request; frozen runs
 * whose process is gone are dropped.  A state file that does not parse
 * is set aside (cosched_spool_set_aside) and the daemon starts afresh.
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/kv_file.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"
#include "src/numad/numad.h"

#define STATE_TAG "cosched-numad-state"
#define STATE_MAX (64 * 1024 * 1024)

/* ---- the requests kept: the recent ones and their line ---------------- */

static const char *const state_names[] = {
	[NUMAD_REQ_RUNNING] = "running", [NUMAD_REQ_DONE] = "done",
	[NUMAD_REQ_PARTIAL] = "partial",
	[NUMAD_REQ_INTERRUPTED] = "interrupted",
	[NUMAD_REQ_PLANNED] = "planned",
	[NUMAD_REQ_CANCELLED] = "cancelled",
};

static const char *numad_req_state_name(numad_req_state_t s)
{
	return s <= NUMAD_REQ_CANCELLED ? state_names[s] : "unknown";
}

void numad_request_line(const numad_request_t *r, cosched_kv_out_t *o)
{
	cosched_kv_put_str(o, "request");
	cosched_kv_put_int(o, "id", r->id);
	cosched_kv_put(o, "kind", "%s", r->kind);
	cosched_kv_put_int(o, "src", r->src);
	cosched_kv_put_int(o, "dst", r->dst);
	cosched_kv_put_int(o, "asked", r->asked);
	cosched_kv_put(o, "order", "%s", cosched_victim_order_name(r->order));
	cosched_kv_put_int(o, "job", r->job_id);
	cosched_kv_put_int(o, "uid", r->uid);
	cosched_kv_put(o, "state", "%s", numad_req_state_name(r->state));
	cosched_kv_put_int(o, "planned", r->planned);
	cosched_kv_put_int(o, "moved", r->moved);
	cosched_kv_put_int(o, "busy", r->failed_busy);
	cosched_kv_put_int(o, "shared", r->failed_shared);
	cosched_kv_put_int(o, "failed", r->failed_other);
	cosched_kv_put_int(o, "skipped", r->skipped);
	cosched_kv_put(o, "started", "%.3f", r->started);
	cosched_kv_put(o, "ended", "%.3f", r->ended);
	if (r->note[0])
		cosched_kv_put_quoted(o, "note", r->note);
}

void numad_keep_recent(numad_t *d, const numad_request_t *r)
{
	if (d->nrecent == NUMAD_RECENT_MAX) {
		memmove(d->recent, d->recent + 1,
			(NUMAD_RECENT_MAX - 1) * sizeof(*d->recent));
		d->nrecent--;
	}
	d->recent[d->nrecent] = *r;
	d->recent[d->nrecent].client = NULL;
	d->nrecent++;
}

/* ---- the file ----------------------------------------------------------- */

static int double_of(const char *key, const char *v, double *out,
		     cosched_error_t *err)
{
	if (cosched_parse_number(v, out))
		return cosched_error_set(err, "%s: invalid number %s", key,
					 COSCHED_QUOTE(v));
	return 0;
}

/* The request line's counters, read by name. */
static const struct {
	const char *key;
	size_t offset;
} u64_fields[] = {
	{ "id", offsetof(numad_request_t, id) },
	{ "asked", offsetof(numad_request_t, asked) },
	{ "planned", offsetof(numad_request_t, planned) },
	{ "moved", offsetof(numad_request_t, moved) },
	{ "busy", offsetof(numad_request_t, failed_busy) },
	{ "shared", offsetof(numad_request_t, failed_shared) },
	{ "failed", offsetof(numad_request_t, failed_other) },
	{ "skipped", offsetof(numad_request_t, skipped) },
};

/* One field of a request line: 0, 1 when the key is not the line's, or
 * -1 (err). */
static int request_field(numad_request_t *r, const char *k, const char *v,
			 cosched_error_t *err)
{
	uint64_t x;

	for (size_t i = 0; i < sizeof(u64_fields) / sizeof(u64_fields[0]); i++)
		if (!strcmp(k, u64_fields[i].key))
			return cosched_kv_u64(k, v, UINT64_MAX,
					      (uint64_t *)((char *) r +
						u64_fields[i].offset), err);
	if (!strcmp(k, "kind")) {
		if (strcmp(v, "migrate") && strcmp(v, "drain") &&
		    strcmp(v, "room"))
			return cosched_error_set(err, "kind: %s",
						 COSCHED_QUOTE(v));
		snprintf(r->kind, sizeof(r->kind), "%s", v);
	} else if (!strcmp(k, "src") || !strcmp(k, "dst")) {
		if (cosched_kv_u64(k, v, COSCHED_VICTIM_MAX_NODES - 1, &x, err))
			return -1;
		*(k[0] == 's' ? &r->src : &r->dst) = (int) x;
	} else if (!strcmp(k, "order")) {
		return cosched_victim_order_parse(k, v, &r->order, err);
	} else if (!strcmp(k, "job") || !strcmp(k, "uid")) {
		if (cosched_kv_u64(k, v, UINT32_MAX, &x, err))
			return -1;
		*(k[0] == 'j' ? &r->job_id : &r->uid) = (uint32_t) x;
	} else if (!strcmp(k, "state")) {
		int s;

		for (s = 0; s <= NUMAD_REQ_CANCELLED; s++)
			if (!strcmp(v, numad_req_state_name(s)))
				break;
		if (s > NUMAD_REQ_CANCELLED)
			return cosched_error_set(err, "state: %s",
						 COSCHED_QUOTE(v));
		r->state = (numad_req_state_t) s;
	} else if (!strcmp(k, "started") || !strcmp(k, "ended")) {
		return double_of(k, v, k[0] == 's' ? &r->started : &r->ended,
				 err);
	} else if (!strcmp(k, "note")) {
		snprintf(r->note, sizeof(r->note), "%s", v);
	} else {
		return 1;
	}
	return 0;
}

/*
 * A line of a newer minor may hold a value this reader does not know (a
 * new request state, a new level): that line is let be and the rest
 * kept.  In this reader's own version it is an error.
 */
static int let_be_if_newer(const cosched_kv_line_t *line,
			   cosched_error_t *err)
{
	if (!cosched_kv_version_newer_minor(line->seen, line->own))
		return -1;
	numad_log(LOG_DEBUG, "state line %d of a newer minor skipped: %s",
		  line->number, err->msg);
	return COSCHED_KV_LINE_LET_BE;
}

/* "cosched-numad-state/1 boot=BOOT_ID next=ID": a state from another boot
 * is dropped whole (no process of it is left). */
static int read_head(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	numad_t *d = ctx;
	char *boot;
	uint64_t x;

	if (cosched_kv_expect(&line->r, "boot", &boot, err) ||
	    cosched_kv_expect_u64(&line->r, "next", UINT64_MAX - 1, &x, err))
		return -1;
	if (x > d->next_id)
		d->next_id = x;
	if (strcmp(boot, d->boot)) {
		numad_log(LOG_INFO, "state from another boot: dropped");
		return COSCHED_KV_FILE_DONE;
	}
	return 0;
}

/* "priority job=J level=high|low". */
static int read_priority(void *ctx, cosched_kv_line_t *line,
			 cosched_error_t *err)
{
	numad_t *d = ctx;
	uint64_t job;
	char *v;
	int lv;

	if (cosched_kv_expect_u64(&line->r, "job", UINT32_MAX, &job, err) ||
	    cosched_kv_expect(&line->r, "level", &v, err))
		return let_be_if_newer(line, err);
	lv = cosched_name_parse("level", "value", cosched_numa_priority_names,
				0, COSCHED_NUMA_COUNT, v, false, err);
	if (lv < 0 || numad_set_prio(d, (uint32_t) job,
				     (cosched_numa_priority_t) lv, err))
		return let_be_if_newer(line, err);
	return 0;
}

/* "frozen pid=P start=T addr=A pages=N node=D until=SECONDS": a run out
 * of bounds (or one past NUMAD_FROZEN_MAX) is left out. */
static int read_frozen(void *ctx, cosched_kv_line_t *line,
		       cosched_error_t *err)
{
	static const char *const keys[] = { "pid", "start", "addr", "pages",
					    "node" };
	numad_t *d = ctx;
	numad_frozen_t *f;
	uint64_t a[5];
	double until;
	char *v;

	for (int k = 0; k < 5; k++)
		if (cosched_kv_expect_u64(&line->r, keys[k], UINT64_MAX, &a[k],
					  err))
			return let_be_if_newer(line, err);
	if (cosched_kv_expect(&line->r, "until", &v, err) ||
	    double_of("until", v, &until, err))
		return let_be_if_newer(line, err);
	if (d->nfrozen == NUMAD_FROZEN_MAX ||
	    a[4] >= COSCHED_VICTIM_MAX_NODES || a[3] > UINT32_MAX || !a[0] ||
	    a[0] > INT32_MAX)
		return 0;
	f = &d->frozen[d->nfrozen++];
	f->id.pid = (pid_t) a[0];
	f->id.start_time = a[1];
	f->addr = a[2];
	f->pages = (uint32_t) a[3];
	f->node = (int) a[4];
	f->until = until;
	return 0;
}

/* "request id=...", numad_request_line()'s: one found running was cut
 * short by the daemon's end, and is never resumed. */
static int read_request(void *ctx, cosched_kv_line_t *line,
			cosched_error_t *err)
{
	numad_t *d = ctx;
	cosched_kv_field_t f;
	numad_request_t q;
	int rc;

	memset(&q, 0, sizeof(q));
	q.client = NULL;
	while ((rc = cosched_kv_next(&line->r, &f, err)) == 1) {
		rc = request_field(&q, f.key, f.value, err);
		if (rc > 0)
			rc = cosched_kv_line_unknown(line, &f, err);
		if (rc < 0)
			return let_be_if_newer(line, err);
	}
	if (rc < 0)
		return let_be_if_newer(line, err);
	if (q.state == NUMAD_REQ_RUNNING) {
		q.state = NUMAD_REQ_INTERRUPTED;
		q.ended = numad_wall();
		snprintf(q.note, sizeof(q.note),
			 "the daemon stopped during the request; moved counts its batches done before");
		numad_log(LOG_WARNING,
			  "request %" PRIu64 " was interrupted by the daemon's end: %" PRIu64 " of %" PRIu64 " pages moved; not resumed",
			  q.id, q.moved, q.asked);
	}
	numad_keep_recent(d, &q);
	return 0;
}

static const cosched_kv_kind_t state_kinds[] = {
	{ "priority", read_priority },
	{ "frozen", read_frozen },
	{ "request", read_request },
	{ NULL, NULL },
};

/* The version this release writes is own (src/libcosched/base/kv.h). */
static const cosched_kv_form_t state_form = {
	.what = "NUMA manager state", .reader = "this node",
	.tag = STATE_TAG "/", .own = { 1, 0 }, .head = read_head,
	.kinds = state_kinds,
};

static int parse_state(numad_t *d, char *text, cosched_error_t *err)
{
	if (cosched_kv_file_read(&state_form, text, d, err))
		return -1;
	numad_frozen_expire(d, false);
	return 0;
}

int numad_state_save(numad_t *d, cosched_error_t *err)
{
	char path[COSCHED_PATH_MAX], buf[1024];
	char version[64], *text;
	cosched_kv_out_t o, line;
	int rc;

	if (cosched_spool_path(path, sizeof(path), d->conf.numa.state_dir,
			       NUMAD_STATE_FILE, "", err))
		return -1;
	cosched_kv_out_grow(&o);
	cosched_kv_put_str(&o, cosched_kv_version_text(state_form.tag,
		state_form.own, version, sizeof(version)));
	cosched_kv_put(&o, "boot", "%s", d->boot);
	cosched_kv_put(&o, "next", "%" PRIu64, d->next_id);
	cosched_kv_put_str(&o, "\n");
	for (int i = 0; i < d->npriorities; i++)
		cosched_kv_put_fmt(&o, "priority job=%u level=%s\n",
				   d->priorities[i].job_id,
				   cosched_numa_priority_name(d->priorities[i].prio));
	for (int i = 0; i < d->nfrozen; i++) {
		const numad_frozen_t *f = &d->frozen[i];

		cosched_kv_put_fmt(&o, "frozen pid=%d start=%llu addr=%" PRIu64 " pages=%u node=%d until=%.3f\n",
				   (int) f->id.pid, f->id.start_time, f->addr,
				   f->pages, f->node, f->until);
	}
	for (int i = -1; i < d->nrecent; i++) {
		const numad_request_t *r = i < 0 ? &d->active : &d->recent[i];

		if (i < 0 && !d->busy)
			continue;
		cosched_kv_out_fixed(&line, buf, sizeof(buf));
		numad_request_line(r, &line);
		cosched_kv_put_fmt(&o, "%s\n", buf);
	}
	text = cosched_kv_out_take(&o);
	if (!text)
		return cosched_error_set(err, "state: out of memory");
	/* Durable at a request's end; after a batch the rename is enough
	 * (a daemon killed keeps the page cache; a power cut ends every
	 * process the state speaks of). */
	rc = cosched_file_replace(path, text, strlen(text), 0600,
				  d->busy ? 0 : COSCHED_REPLACE_DURABLE, err);
	free(text);
	return rc ? -1 : 0;
}

int numad_state_load(numad_t *d, cosched_error_t *err)
{
	const char *dir = d->conf.numa.state_dir;
	char path[COSCHED_PATH_MAX], bad[COSCHED_PATH_MAX];
	int missing = 0;
	char *text;

	if (cosched_spool_dir_ready("NumaStateDir", dir, err) ||
	    cosched_spool_path(path, sizeof(path), dir, NUMAD_STATE_FILE, "",
			       err))
		return -1;
	text = cosched_read_file(path, STATE_MAX, &missing, err);
	if (!text)
		return missing ? 0 : -1;
	if (parse_state(d, text, err)) {
		cosched_error_t e2;

		numad_log(LOG_ERR, "%s: %s: set aside, starting afresh", path,
			  err->msg);
		d->nrecent = d->nfrozen = d->npriorities = 0;
		if (cosched_spool_set_aside(dir, NUMAD_STATE_FILE, bad,
					    sizeof(bad), &e2))
			numad_log(LOG_ERR, "%s", e2.msg);
	}
	free(text);
	/* Requests found running are now interrupted: say so on disk. */
	return numad_state_save(d, err);
}
