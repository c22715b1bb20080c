/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * numad_state.c - what cosched-numad keeps across a restart, in
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

#include "src/libcosched/io/file.h"
#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"
#include "numad.h"

static const cosched_kv_version_t state_version = { 1, 0 };
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

const char *numad_req_state_name(numad_req_state_t s)
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
	d->recent[d->nrecent].client = -1;
	d->nrecent++;
}

/* ---- the file ----------------------------------------------------------- */

int numad_state_save(numad_t *d, cosched_error_t *err)
{
	char path[COSCHED_PATH_MAX], buf[1024];
	cosched_kv_out_t o, line;
	char *text;
	int rc;

	if (cosched_spool_path(path, sizeof(path), d->conf.numa.state_dir,
			       NUMAD_STATE_FILE, "", err))
		return -1;
	cosched_kv_out_grow(&o);
	cosched_kv_put_fmt(&o, STATE_TAG "/1 boot=%s next=%" PRIu64 "\n",
			   d->boot, d->next_id);
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

static int u64_of(const char *key, const char *v, uint64_t *out,
		  cosched_error_t *err)
{
	return cosched_kv_u64(key, v, UINT64_MAX, out, err);
}

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

static int parse_request_field(numad_request_t *r, const char *k,
			       const char *v, cosched_error_t *err)
{
	uint64_t x;

	for (size_t i = 0; i < sizeof(u64_fields) / sizeof(u64_fields[0]); i++)
		if (!strcmp(k, u64_fields[i].key))
			return u64_of(k, v, (uint64_t *)((char *) r +
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
	}
	/* Any other key: a newer minor's, skipped. */
	return 0;
}

static int parse_request_line(char *line, numad_request_t *r,
			      cosched_error_t *err)
{
	cosched_kv_reader_t rd;
	cosched_kv_field_t f;
	char *word;
	int rc;

	memset(r, 0, sizeof(*r));
	r->client = -1;
	cosched_kv_begin(&rd, line, "request");
	if (cosched_kv_word(&rd, &word, err))
		return -1;
	while ((rc = cosched_kv_next(&rd, &f, err)) == 1)
		if (parse_request_field(r, f.key, f.value, err))
			return -1;
	return rc < 0 ? -1 : 0;
}

static int parse_state(numad_t *d, char *text, cosched_error_t *err)
{
	cosched_kv_reader_t r;
	cosched_kv_version_t seen;
	char *line, *next, *boot, *v;
	bool same_boot;
	uint64_t x;
	int lineno = 1;

	next = strchr(text, '\n');
	if (!next)
		return cosched_error_set(err, "no complete first line");
	*next++ = '\0';
	if (cosched_kv_head_boot(&r, text, "NUMA manager state", STATE_TAG "/",
				 state_version, &seen, &boot, err))
		return -1;
	same_boot = !strcmp(boot, d->boot);
	if (cosched_kv_expect(&r, "next", &v, err) ||
	    cosched_kv_u64("next", v, UINT64_MAX - 1, &x, err))
		return -1;
	if (x > d->next_id)
		d->next_id = x;
	if (!same_boot) {
		numad_log(LOG_INFO, "state from another boot: dropped");
		return 0;
	}
	for (line = next; line && *line; line = next) {
		cosched_kv_reader_t lr;
		uint64_t a[6];
		double until;

		lineno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "priority ", 9)) {
			cosched_kv_begin(&lr, line, "priority");
			if (cosched_kv_word(&lr, &v, err) ||
			    cosched_kv_expect(&lr, "job", &v, err) ||
			    cosched_kv_u64("job", v, UINT32_MAX, &a[0], err) ||
			    cosched_kv_expect(&lr, "level", &v, err))
				goto bad;
			{
				int lv = cosched_name_parse("level", "value",
					cosched_numa_priority_names, 0,
					COSCHED_NUMA_COUNT, v, false, err);

				if (lv < 0 || numad_set_prio(d, (uint32_t) a[0],
					(cosched_numa_priority_t) lv, err))
					goto bad;
			}
		} else if (!strncmp(line, "frozen ", 7)) {
			static const char *const keys[] = { "pid", "start",
				"addr", "pages", "node" };
			numad_frozen_t *f;

			cosched_kv_begin(&lr, line, "frozen");
			if (cosched_kv_word(&lr, &v, err))
				goto bad;
			for (int k = 0; k < 5; k++)
				if (cosched_kv_expect(&lr, keys[k], &v, err) ||
				    u64_of(keys[k], v, &a[k], err))
					goto bad;
			if (cosched_kv_expect(&lr, "until", &v, err) ||
			    double_of("until", v, &until, err))
				goto bad;
			if (d->nfrozen == NUMAD_FROZEN_MAX ||
			    a[4] >= COSCHED_VICTIM_MAX_NODES ||
			    a[3] > UINT32_MAX || !a[0] || a[0] > INT32_MAX)
				continue;
			f = &d->frozen[d->nfrozen++];
			f->id.pid = (pid_t) a[0];
			f->id.start_time = a[1];
			f->addr = a[2];
			f->pages = (uint32_t) a[3];
			f->node = (int) a[4];
			f->until = until;
		} else if (!strncmp(line, "request ", 8)) {
			numad_request_t q;

			if (parse_request_line(line, &q, err)) {
				cosched_error_prefix(err, "request");
				goto bad;
			}
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
		} else if (!cosched_kv_version_newer_minor(seen,
							   state_version)) {
			return cosched_error_set(err, "line %d: unknown line %s",
						 lineno, COSCHED_QUOTE(line));
		}
		continue;
bad:
		/* A newer minor may write values this reader does not know
		 * (a new request state, a new level): that line is skipped,
		 * the rest kept.  In this reader's own version it is an
		 * error. */
		if (!cosched_kv_version_newer_minor(seen, state_version))
			return cosched_error_prefix(err, "line");
		numad_log(LOG_DEBUG, "state line %d of a newer minor skipped: %s",
			  lineno, err->msg);
	}
	numad_frozen_expire(d, false);
	return 0;
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
