/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request.c - the NUMA manager's commands (cosched-numa(1)):
 *
 *   cosched-numa/1 cmd=migrate src=S dst=D pages=N order=O dry_run=yes|no
 *                  job=J|0 wait=yes|no
 *   cosched-numa/1 cmd=drain src=S dst=D|-1 order=O dry_run=.. job=.. wait=..
 *   cosched-numa/1 cmd=priority job=J level=high|low|default
 *   cosched-numa/1 cmd=make_room src=S pages=N job=J
 *   cosched-numa/1 cmd=cancel id=N
 *   cosched-numa/1 cmd=status
 *
 * make_room is task/cosched's (NumaMakeRoom=yes): job J, high priority,
 * starts on node S and needs N pages there; when S has fewer free, the
 * difference moves off S to its nearest node, best order, not waited
 * for.  dst=-1 (migrate, drain) is that nearest node with memory.
 *
 * one line a connection, each key at most once and every key its command
 * needs given; the reply is lines of text ending with "rc=N" (0 done, 1
 * refused, 2 a malformed request), kept in the connection's buffer
 * (client.c).  Only root and SlurmUser
 * may migrate, drain or set a priority; anyone may ask for the status,
 * and sees only their own jobs' processes (and no request: requests name
 * other users' processes).
 *
 * The plan is cosched_victim_plan()'s, unchanged: just enough pages from
 * the victims in the asked order, high-priority jobs never victims, pages
 * frozen by an earlier migration not eligible.  A request that cannot be
 * met is refused before any page moves, saying how many pages could move
 * and why the rest could not (the thesis's "not enough eligible pages").
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/text.h"
#include "src/numad/numad.h"

/* ---- replies ------------------------------------------------------------ */

/* Replies go into the client's own buffer (client.c), which it takes
 * at its pace: a client that never reads holds up no one. */
static void refuse(numad_client_t *c, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void refuse(numad_client_t *c, int rc, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	numad_reply(c, "error: %s", msg);
	numad_reply_end(c, rc);
}

static void say_request(numad_client_t *c, const numad_request_t *r)
{
	char buf[1024];
	cosched_kv_out_t o;

	cosched_kv_out_fixed(&o, buf, sizeof(buf));
	numad_request_line(r, &o);
	numad_reply(c, "%s", buf);
}

/* ---- parsing ------------------------------------------------------------ */

typedef struct {
	char cmd[16];
	long src, dst;
	uint64_t pages;
	cosched_victim_order_t order;
	bool dry_run, wait;
	uint32_t job;
	cosched_numa_priority_t level;
	bool has_level;
	uint64_t id;			/* cancel */
} req_t;

static int parse_yes_no(const char *key, const char *v, bool *out,
			cosched_error_t *err)
{
	if (!strcmp(v, "yes") || !strcmp(v, "no")) {
		*out = !strcmp(v, "yes");
		return 0;
	}
	return cosched_error_set(err, "%s: invalid value %s (yes or no)", key,
				 COSCHED_QUOTE(v));
}

static int parse_node(const char *key, const char *v, long *out,
		      cosched_error_t *err)
{
	uint64_t x;

	if (!strcmp(v, "-1")) {
		*out = -1;
		return 0;
	}
	if (cosched_kv_u64(key, v, COSCHED_VICTIM_MAX_NODES - 1, &x, err))
		return -1;
	*out = (long) x;
	return 0;
}

/* The request's keys, and which each command needs: a key given twice
 * is refused (taking the last would let one part of a request say what
 * another part seems to), and so is a command without what it needs
 * (a drain without src= would otherwise be refused as "NUMA node -1"). */
enum { R_CMD, R_SRC, R_DST, R_PAGES, R_ORDER, R_DRY_RUN, R_WAIT, R_JOB,
       R_ID, R_LEVEL, R_COUNT };
static const char *const req_keys[R_COUNT] = {
	"cmd", "src", "dst", "pages", "order", "dry_run", "wait", "job", "id",
	"level",
};
static const struct {
	const char *cmd;
	unsigned needs;		/* 1 << R_... */
} req_needs[] = {
	{ "migrate", 1u << R_SRC | 1u << R_DST | 1u << R_PAGES },
	{ "drain", 1u << R_SRC },
	{ "priority", 1u << R_JOB | 1u << R_LEVEL },
	{ "make_room", 1u << R_SRC | 1u << R_PAGES | 1u << R_JOB },
	{ "cancel", 1u << R_ID },
	{ "status", 0 },
};

static int parse_request(char *line, req_t *q, cosched_error_t *err)
{
	cosched_kv_reader_t r;
	cosched_kv_field_t f;
	uint64_t x;
	unsigned seen = 0;
	char *word;
	int rc;

	memset(q, 0, sizeof(*q));
	q->src = q->dst = -1;
	q->wait = true;
	cosched_kv_begin(&r, line, "request");
	if (cosched_kv_word(&r, &word, err))
		return -1;
	if (strcmp(word, "cosched-numa/1"))
		return cosched_error_set(err,
			"request: expected cosched-numa/1, found %s (client and daemon of different releases?)",
			COSCHED_QUOTE(word));
	while ((rc = cosched_kv_next(&r, &f, err)) == 1) {
		int k = 0;

		while (k < R_COUNT && strcmp(f.key, req_keys[k]))
			k++;
		if (k < R_COUNT && (seen & 1u << k))
			return cosched_error_set(err,
				"%s: key given twice, value %s", f.key,
				COSCHED_QUOTE(f.value));
		seen |= k < R_COUNT ? 1u << k : 0;
		if (!strcmp(f.key, "cmd")) {
			if (strcmp(f.value, "migrate") &&
			    strcmp(f.value, "drain") &&
			    strcmp(f.value, "priority") &&
			    strcmp(f.value, "make_room") &&
			    strcmp(f.value, "cancel") &&
			    strcmp(f.value, "status"))
				return cosched_error_set(err,
					"cmd: unknown command %s (migrate, drain, priority, make_room, cancel, status)",
					COSCHED_QUOTE(f.value));
			snprintf(q->cmd, sizeof(q->cmd), "%s", f.value);
		} else if (!strcmp(f.key, "src")) {
			if (parse_node("src", f.value, &q->src, err))
				return -1;
		} else if (!strcmp(f.key, "dst")) {
			if (parse_node("dst", f.value, &q->dst, err))
				return -1;
		} else if (!strcmp(f.key, "pages")) {
			if (cosched_kv_u64("pages", f.value, UINT64_MAX / 2,
					   &q->pages, err))
				return -1;
		} else if (!strcmp(f.key, "order")) {
			if (cosched_victim_order_parse("order", f.value,
						       &q->order, err))
				return -1;
		} else if (!strcmp(f.key, "dry_run")) {
			if (parse_yes_no("dry_run", f.value, &q->dry_run, err))
				return -1;
		} else if (!strcmp(f.key, "wait")) {
			if (parse_yes_no("wait", f.value, &q->wait, err))
				return -1;
		} else if (!strcmp(f.key, "job")) {
			if (cosched_kv_u64("job", f.value, 4294967293u, &x,
					   err))
				return -1;
			q->job = (uint32_t) x;
		} else if (!strcmp(f.key, "id")) {
			if (cosched_kv_u64("id", f.value, UINT64_MAX - 1,
					   &q->id, err))
				return -1;
		} else if (!strcmp(f.key, "level")) {
			if (!strcmp(f.value, "high"))
				q->level = COSCHED_NUMA_HIGH;
			else if (!strcmp(f.value, "low"))
				q->level = COSCHED_NUMA_LOW;
			else if (!strcmp(f.value, "default"))
				q->level = COSCHED_NUMA_UNSET;
			else
				return cosched_error_set(err,
					"level: invalid value %s (high, low or default)",
					COSCHED_QUOTE(f.value));
			q->has_level = true;
		} else {
			return cosched_error_set(err, "request: unknown key %s",
						 COSCHED_QUOTE(f.key));
		}
	}
	if (rc < 0)
		return -1;
	if (!q->cmd[0])
		return cosched_error_set(err, "request: no cmd=");
	for (size_t i = 0; i < sizeof(req_needs) / sizeof(req_needs[0]); i++)
		for (int k = 0; k < R_COUNT &&
		     !strcmp(q->cmd, req_needs[i].cmd); k++)
			if ((req_needs[i].needs & 1u << k) && !(seen & 1u << k))
				return cosched_error_set(err,
					"%s: %s= missing", q->cmd,
					req_keys[k]);
	return 0;
}

/* ---- status ------------------------------------------------------------- */

static void put_pages(cosched_kv_out_t *o, const char *key, const numad_t *d,
		      const uint64_t *pages)
{
	char buf[COSCHED_VICTIM_MAX_NODES * 24] = "";
	size_t at = 0;

	for (int n = 0; n < d->nnodes && at < sizeof(buf) - 24; n++)
		at += (size_t) snprintf(buf + at, sizeof(buf) - at, "%s%d:%" PRIu64,
					n ? "," : "", n, pages[n]);
	cosched_kv_put(o, key, "%s", buf);
}

/* The lines of a status for uid (malloc'd; NULL when out of memory):
 * an administrator's with every process and the requests, another
 * user's with their own processes only. */
static char *status_text(numad_t *d, uid_t uid, bool admin)
{
	uint64_t (*frozen)[COSCHED_VICTIM_MAX_NODES] = numad_frozen_totals(d);
	static const uint64_t none[COSCHED_VICTIM_MAX_NODES];
	cosched_kv_out_t t;
	char buf[2048];

	cosched_kv_out_grow(&t);
	cosched_kv_put_fmt(&t, "manager nodes=%d numa_balancing=%d batch_pages=%d pages_per_second=%d freeze_window=%g unfollowed=%d\n",
			   d->nnodes, numad_numa_balancing(),
			   d->conf.numa.batch_pages,
			   d->conf.numa.pages_per_second,
			   d->conf.numa.freeze_window_s, d->unfollowed);
	for (int n = 0; n < d->nnodes; n++)
		cosched_kv_put_fmt(&t, "node id=%d memory=%s free_pages=%lld\n",
				   n, d->node_has_mem[n] ? "yes" : "no",
				   numad_node_free_pages(n));
	for (int i = 0; i < d->nprocs; i++) {
		const numad_proc_t *p = &d->procs[i];
		cosched_kv_out_t o;

		if (!admin && p->uid != uid)
			continue;
		cosched_kv_out_fixed(&o, buf, sizeof(buf));
		cosched_kv_put_str(&o, "proc");
		cosched_kv_put_int(&o, "job", p->job_id);
		cosched_kv_put_int(&o, "step", p->step_id);
		cosched_kv_put_int(&o, "pid", (int) p->id.pid);
		cosched_kv_put_int(&o, "uid", p->uid);
		cosched_kv_put_int(&o, "cpu_node", p->cpu_node);
		cosched_kv_put(&o, "priority", "%s",
			       cosched_numa_priority_name(numad_proc_prio(d, p)));
		if (p->measured) {
			cosched_kv_put(&o, "bandwidth", "%.0f", p->mem_rate);
			cosched_kv_put(&o, "source", "%s", NUMAD_BW_MEASURED);
		} else {
			cosched_kv_put(&o, "bandwidth", "%.3f", p->bandwidth);
			cosched_kv_put(&o, "source", "%s", NUMAD_BW_ESTIMATE);
		}
		put_pages(&o, "pages", d, p->pages);
		put_pages(&o, "frozen", d, frozen ? frozen[i] : none);
		cosched_kv_put_int(&o, "other_pages", p->other_pages);
		cosched_kv_put_int(&o, "pulled", p->pulled);
		cosched_kv_put_int(&o, "pulls", p->pulls);
		cosched_kv_put_fmt(&t, "%s\n", buf);
	}
	free(frozen);
	for (int i = -1; admin && i < d->nrecent; i++) {
		cosched_kv_out_t o;

		if (i < 0 && !d->busy)
			continue;
		cosched_kv_out_fixed(&o, buf, sizeof(buf));
		numad_request_line(i < 0 ? &d->active : &d->recent[i], &o);
		cosched_kv_put_fmt(&t, "%s\n", buf);
	}
	return cosched_kv_out_take(&t);
}

/*
 * The status of users who are not administrators costs neither a scan
 * (they see the last one, at most NumaScanInterval old) nor more than
 * one rendering a user a second (STATUS_REUSE_S): however often they
 * ask, what the daemon spends on them stays bounded.  Root and
 * SlurmUser get a fresh scan, rendered for them.
 */
#define STATUS_REUSE_S 1.0
#define STATUS_USERS 16

static struct {
	uid_t uid;
	double scanned_at, made;	/* monotonic */
	char *text;
} rendered[STATUS_USERS];

static void status(numad_t *d, numad_client_t *c, uid_t uid)
{
	double now = numad_now();
	cosched_error_t err;
	int slot = 0;
	char *text;

	if (numad_is_admin(d, uid)) {
		if (numad_scan(d, &err))
			numad_reply(c, "warning: %s", err.msg);
		text = status_text(d, uid, true);
		if (text)
			numad_reply_text(c, text, strlen(text));
		free(text);
		numad_reply_end(c, text ? 0 : 1);
		return;
	}
	for (int i = 0; i < STATUS_USERS; i++) {
		if (rendered[i].text && rendered[i].uid == uid) {
			slot = i;
			break;
		}
		if (rendered[i].made < rendered[slot].made)
			slot = i;	/* the oldest goes */
	}
	if (!rendered[slot].text || rendered[slot].uid != uid ||
	    rendered[slot].scanned_at != d->scanned_at ||
	    now - rendered[slot].made >= STATUS_REUSE_S) {
		free(rendered[slot].text);
		rendered[slot].uid = uid;
		rendered[slot].scanned_at = d->scanned_at;
		rendered[slot].made = now;
		rendered[slot].text = status_text(d, uid, false);
	}
	text = rendered[slot].text;
	if (text)
		numad_reply_text(c, text, strlen(text));
	numad_reply_end(c, text ? 0 : 1);
}

/* ---- planning ----------------------------------------------------------- */

/* What the victim order ranks: the processes of job (0: all). */
static size_t victim_inputs(numad_t *d, uint32_t job, int src,
			    cosched_victim_proc_t *vp, size_t *index,
			    uint64_t why[3], bool *measured)
{
	size_t n = 0;
	uint64_t (*frozen)[COSCHED_VICTIM_MAX_NODES] = numad_frozen_totals(d);

	*measured = true;
	for (int i = 0; i < d->nprocs; i++)
		if ((!job || d->procs[i].job_id == job) &&
		    !d->procs[i].measured)
			*measured = false;

	why[0] = why[1] = why[2] = 0;	/* frozen, high priority, other */
	for (int i = 0; i < d->nprocs; i++) {
		numad_proc_t *p = &d->procs[i];
		cosched_victim_proc_t *v;

		if (job && p->job_id != job)
			continue;
		v = &vp[n];
		memset(v, 0, sizeof(*v));
		v->pid = (uint32_t) p->id.pid;
		v->bandwidth = *measured ? p->mem_rate : p->bandwidth;
		if (!isfinite(v->bandwidth) || v->bandwidth < 0)
			v->bandwidth = 0;
		v->cpu_node = p->cpu_node;
		v->high_priority = numad_proc_prio(d, p) == COSCHED_NUMA_HIGH;
		for (int k = 0; k < d->nnodes; k++) {
			v->pages[k] = p->pages[k];
			/* Without the totals (no memory), nothing counts
			 * as frozen here; the batches still skip frozen
			 * pages one by one. */
			v->frozen[k] = frozen ? frozen[i][k] : 0;
			if (v->frozen[k] > v->pages[k])
				v->frozen[k] = v->pages[k];
		}
		if (v->high_priority)
			why[1] += v->pages[src] - v->frozen[src];
		why[0] += v->frozen[src];
		index[n++] = (size_t) i;
	}
	free(frozen);
	return n;
}

/* The plan's figure for a move of k of v's pages: its bandwidth share
 * times the distance it gains (in units of the local distance 10). */
static double move_cost(const numad_t *d, const cosched_victim_proc_t *v,
			uint64_t k, int src, int dst)
{
	uint64_t total = 0;
	double step;
	int c = v->cpu_node;

	for (int n = 0; n < d->nnodes; n++)
		total += v->pages[n];
	if (!total)
		return 0;
	if (c < 0)
		step = 0;
	else if (d->distance[0])
		step = ((double) d->distance[c * d->nnodes + dst] -
			(double) d->distance[c * d->nnodes + src]) / 10.0;
	else
		step = c == src ? 1.0 : c == dst ? -1.0 : 0.0;
	return v->bandwidth * (double) k / (double) total * step;
}

/* Whether job has a process of a step on this node, by the last scan. */
static bool job_here(const numad_t *d, uint32_t job)
{
	for (int i = 0; i < d->nprocs; i++)
		if (d->procs[i].job_id == job)
			return true;
	return false;
}

static bool node_ok(const numad_t *d, numad_client_t *c, const char *what, long node)
{
	if (node < 0 || node >= d->nnodes) {
		refuse(c, 1, "%s: NUMA node %ld does not exist (this node has 0-%d)",
		       what, node, d->nnodes - 1);
		return false;
	}
	if (!d->node_has_mem[node]) {
		refuse(c, 1, "%s: NUMA node %ld has no memory", what, node);
		return false;
	}
	return true;
}

/* The nearest other node with memory, the freest among equals. */
static int drain_target(const numad_t *d, int src)
{
	int best = -1;
	long long best_free = -1;
	unsigned best_dist = 0;

	for (int n = 0; n < d->nnodes; n++) {
		unsigned dist = d->distance[0] ?
				d->distance[src * d->nnodes + n] : 20;
		long long f;

		if (n == src || !d->node_has_mem[n])
			continue;
		f = numad_node_free_pages(n);
		if (best < 0 || dist < best_dist ||
		    (dist == best_dist && f > best_free)) {
			best = n;
			best_dist = dist;
			best_free = f;
		}
	}
	return best;
}

static void migrate(numad_t *d, numad_client_t *c, uid_t uid, req_t *q)
{
	bool drain = !strcmp(q->cmd, "drain"),
	     room = !strcmp(q->cmd, "make_room");
	cosched_victim_proc_t *vp;
	cosched_victim_move_t *moves;
	size_t *index, n, nmoves = 0;
	uint64_t planned = 0, eligible = 0, why[3], total_src = 0;
	cosched_migration_t m;
	cosched_error_t err;
	numad_request_t *r;
	double cost = 0;
	bool measured;
	uint32_t room_job;
	int rc;

	if (d->busy) {
		refuse(c, 1,
		       "a migration is already pending: request %" PRIu64 " (%" PRIu64 " of %" PRIu64 " pages moved)",
		       d->active.id, d->active.moved, d->active.asked);
		return;
	}
	if (!node_ok(d, c, "src", q->src))
		return;
	if (room) {
		long long freep = numad_node_free_pages((int) q->src);

		if (!q->job || !q->pages) {
			refuse(c, 2, "make_room: give job= and pages=");
			return;
		}
		if (freep >= 0 && (uint64_t) freep >= q->pages) {
			numad_reply(c, "room: NUMA node %ld has %lld free pages, job %u needs %" PRIu64,
			    q->src, freep, q->job, q->pages);
			numad_log(LOG_INFO,
				  "make room for job %u: NUMA node %ld has %lld free pages, it needs %" PRIu64 ": nothing to move",
				  q->job, q->src, freep, q->pages);
			numad_reply_end(c, 0);
			return;
		}
		/* The log says what free count the shortfall came from: free
		 * memory moves between an operator's look and this one. */
		if (freep < 0)
			numad_log(LOG_INFO,
				  "make room for job %u: NUMA node %ld's free pages unknown, it needs %" PRIu64 ": all of them short",
				  q->job, q->src, q->pages);
		else
			numad_log(LOG_INFO,
				  "make room for job %u: NUMA node %ld has %lld free pages, it needs %" PRIu64 ": %" PRIu64 " pages short",
				  q->job, q->src, freep, q->pages,
				  q->pages - (uint64_t) freep);
		q->pages -= freep > 0 ? (uint64_t) freep : 0;
		q->order = COSCHED_VICTIM_BEST;
		q->wait = false;
		q->dry_run = false;
		q->dst = -1;
	}
	if (q->dst < 0) {
		q->dst = drain_target(d, (int) q->src);
		if (q->dst < 0) {
			refuse(c, 1, "%s: no other NUMA node with memory",
			       q->cmd);
			return;
		}
	}
	if (!node_ok(d, c, "dst", q->dst))
		return;
	if (q->src == q->dst) {
		refuse(c, 1, "src and dst are both NUMA node %ld", q->src);
		return;
	}
	if (!drain && !room && !q->pages) {
		refuse(c, 2, "pages: give at least 1");
		return;
	}
	if (numad_scan(d, &err)) {
		refuse(c, 1, "cannot scan the node: %s", err.msg);
		return;
	}
	/* make_room's job is who needs the room: every job's pages may
	 * move but its own (it is high priority). */
	room_job = q->job;
	if (room)
		q->job = 0;
	if (q->job) {
		if (!job_here(d, q->job)) {
			refuse(c, 1, "unknown job %u: no process of it runs on this node",
			       q->job);
			return;
		}
	}
	vp = calloc((size_t) d->nprocs + 1, sizeof(*vp));
	moves = calloc((size_t) d->nprocs + 1, sizeof(*moves));
	index = calloc((size_t) d->nprocs + 1, sizeof(*index));
	if (!vp || !moves || !index) {
		free(vp); free(moves); free(index);
		refuse(c, 1, "out of memory");
		return;
	}
	n = victim_inputs(d, q->job, (int) q->src, vp, index, why, &measured);
	for (size_t i = 0; i < n; i++) {
		total_src += vp[i].pages[q->src];
		if (!vp[i].high_priority)
			eligible += vp[i].pages[q->src] - vp[i].frozen[q->src];
	}
	for (int i = 0; i < d->nprocs; i++)
		if (!q->job || d->procs[i].job_id == q->job)
			why[2] += d->procs[i].other_pages;
	m.src = (int) q->src;
	m.dst = (int) q->dst;
	m.pages = drain ? eligible : q->pages;
	if (!m.pages) {
		free(vp); free(moves); free(index);
		refuse(c, 1,
		       "nothing eligible on NUMA node %d: %" PRIu64 " pages of jobs there, %" PRIu64 " frozen by an earlier migration, %" PRIu64 " of high-priority jobs (file-backed or huge pages, never moved: %" PRIu64 ")",
		       m.src, total_src, why[0], why[1], why[2]);
		return;
	}
	rc = cosched_victim_plan(q->order, vp, n, d->nnodes,
				 d->distance[0] ? d->distance : NULL, &m, 0,
				 (uint64_t) numad_wall(), moves, &nmoves,
				 &planned, &err);
	if (rc < 0) {
		free(vp); free(moves); free(index);
		refuse(c, 1, "plan: %s", err.msg);
		return;
	}
	if (rc == 1) {
		free(vp); free(moves); free(index);
		refuse(c, 1,
		       "not enough eligible pages: %" PRIu64 " asked, %" PRIu64 " could move from NUMA node %d; of the %" PRIu64 " pages of jobs there, %" PRIu64 " are frozen by an earlier migration and %" PRIu64 " belong to high-priority jobs (file-backed or huge pages, never moved: %" PRIu64 ")",
		       m.pages, planned, m.src, total_src, why[0], why[1],
		       why[2]);
		return;
	}
	r = &d->active;
	memset(r, 0, sizeof(*r));
	r->id = d->next_id++;
	strcpy(r->kind, drain ? "drain" : room ? "room" : "migrate");
	r->src = m.src;
	r->dst = m.dst;
	r->asked = m.pages;
	r->order = q->order;
	r->job_id = q->job;
	r->uid = (uint32_t) uid;
	r->planned = planned;
	r->started = numad_wall();
	r->client = NULL;
	if (room)
		snprintf(r->note, sizeof(r->note), "room for job %u", room_job);
	if (nmoves > NUMAD_VICTIMS_MAX) {
		/* More processes than a request follows: the plan is cut,
		 * and says so, rather than ending partial unexplained. */
		nmoves = NUMAD_VICTIMS_MAX;
		planned = 0;
		for (size_t i = 0; i < nmoves; i++)
			planned += moves[i].pages;
		r->planned = planned;
		snprintf(r->note, sizeof(r->note),
			 "plan cut at %d victims: %" PRIu64 " of %" PRIu64 " pages planned",
			 NUMAD_VICTIMS_MAX, planned, m.pages);
	}
	for (size_t i = 0; i < nmoves; i++) {
		const numad_proc_t *p = &d->procs[index[moves[i].proc]];
		numad_victim_t *v = &r->victims[r->nvictims++];

		v->id = p->id;
		v->job_id = p->job_id;
		v->planned = moves[i].pages;
		cost += move_cost(d, &vp[moves[i].proc], moves[i].pages,
				  m.src, m.dst);
	}
	numad_reply(c, "plan id=%" PRIu64 " kind=%s src=%d dst=%d asked=%" PRIu64 " planned=%" PRIu64 " eligible=%" PRIu64 " order=%s victims=%d source=%s cost=%.4f",
	    r->id, r->kind, m.src, m.dst, m.pages, planned, eligible,
	    cosched_victim_order_name(q->order), r->nvictims,
	    measured ? NUMAD_BW_MEASURED : NUMAD_BW_ESTIMATE, cost);
	for (size_t i = 0; i < nmoves; i++) {
		const cosched_victim_proc_t *v = &vp[moves[i].proc];
		const numad_proc_t *p = &d->procs[index[moves[i].proc]];

		numad_reply(c, "victim pid=%d job=%u step=%u cpu_node=%d bandwidth=%g pages=%" PRIu64 " cost=%.4f",
		    (int) p->id.pid, p->job_id, p->step_id, v->cpu_node,
		    v->bandwidth, moves[i].pages,
		    move_cost(d, v, moves[i].pages, m.src, m.dst));
	}
	free(vp); free(moves); free(index);
	if (q->dry_run) {
		r->state = NUMAD_REQ_PLANNED;
		r->ended = r->started;
		numad_keep_recent(d, r);
		say_request(c, r);
		numad_reply_end(c, 0);
		return;
	}
	r->state = NUMAD_REQ_RUNNING;
	d->busy = true;
	d->next_batch = numad_now();
	numad_log(LOG_INFO,
		  "request %" PRIu64 ": %s %d -> %d, %" PRIu64 " pages, order %s, by uid %u: %d victims",
		  r->id, r->kind, m.src, m.dst, m.pages,
		  cosched_victim_order_name(q->order), r->uid, r->nvictims);
	if (numad_state_save(d, &err))
		numad_log(LOG_ERR, "state: %s", err.msg);
	if (q->wait) {
		r->client = c;
	} else {
		say_request(c, r);
		numad_reply_end(c, 0);
	}
}

/* ---- the work ----------------------------------------------------------- */

static void request_end(numad_t *d, bool cancelled)
{
	numad_request_t *r = &d->active;
	cosched_error_t err;
	char buf[1024];
	cosched_kv_out_t o;

	r->ended = numad_wall();
	r->state = cancelled ? NUMAD_REQ_CANCELLED :
		   r->moved >= r->asked ? NUMAD_REQ_DONE : NUMAD_REQ_PARTIAL;
	cosched_kv_out_fixed(&o, buf, sizeof(buf));
	numad_request_line(r, &o);
	numad_log(LOG_INFO, "%s", buf);
	if (r->client) {
		numad_reply(r->client, "%s", buf);
		numad_reply_end(r->client, r->state == NUMAD_REQ_DONE ? 0 : 1);
		r->client = NULL;
	}
	d->busy = false;
	numad_keep_recent(d, r);
	if (numad_state_save(d, &err))
		numad_log(LOG_ERR, "state: %s", err.msg);
}

void numad_work(numad_t *d)
{
	numad_request_t *r = &d->active;
	cosched_error_t err;
	numad_victim_t *v;
	uint64_t moved = 0, max;
	int rc;

	if (!d->busy || numad_now() < d->next_batch)
		return;
	if (r->current >= r->nvictims) {
		request_end(d, false);
		return;
	}
	v = &r->victims[r->current];
	/* A job made high priority since the plan is no victim any more. */
	{
		numad_proc_t *p = numad_find_proc(d, &v->id);

		if (p && numad_proc_prio(d, p) == COSCHED_NUMA_HIGH) {
			r->skipped += v->planned - v->moved;
			snprintf(r->note, sizeof(r->note),
				 "job %u became high priority during the request",
				 v->job_id);
			r->current++;
			if (r->current >= r->nvictims)
				request_end(d, false);
			return;
		}
	}
	max = v->planned - v->moved;
	if (max > (uint64_t) d->conf.numa.batch_pages)
		max = (uint64_t) d->conf.numa.batch_pages;
	rc = numad_move_batch(d, r, v, max, &moved);
	v->moved += moved;
	r->moved += moved;
	if (rc < 0) {
		v->gone = true;
		r->skipped += v->planned - v->moved;
		snprintf(r->note, sizeof(r->note),
			 "process %d ended during the request", (int) v->id.pid);
	} else if (rc > 0) {
		r->skipped += v->planned - v->moved;
	}
	if (rc || v->moved >= v->planned)
		r->current++;
	/* The rate bound: the next batch when this one's pages are paid. */
	d->next_batch = numad_now() + (double)(moved ? moved : max) /
					      d->conf.numa.pages_per_second;
	if (r->current >= r->nvictims)
		request_end(d, false);
	else if (numad_state_save(d, &err))
		numad_log(LOG_ERR, "state: %s", err.msg);
}

/* ---- dispatch ----------------------------------------------------------- */

void numad_serve(numad_t *d, numad_client_t *c, uid_t uid, char *line)
{
	cosched_error_t err;
	req_t q;

	if (parse_request(line, &q, &err)) {
		refuse(c, 2, "%s", err.msg);
		return;
	}
	if (!strcmp(q.cmd, "status")) {
		status(d, c, uid);
		return;
	}
	if (!numad_is_admin(d, uid)) {
		refuse(c, 1, "%s: permission denied: only root and SlurmUser (%s) may %s",
		       q.cmd, d->slurm_user[0] ? d->slurm_user : "none",
		       strcmp(q.cmd, "priority") ? "move pages" :
		       "set a job's NUMA priority");
		return;
	}
	if (!strcmp(q.cmd, "cancel")) {
		if (!d->busy || d->active.id != q.id) {
			refuse(c, 1, "cancel: request %" PRIu64 " is not running%s",
			       q.id, d->busy ? "" : " (none is)");
			return;
		}
		snprintf(d->active.note, sizeof(d->active.note),
			 "cancelled by uid %u", (unsigned) uid);
		numad_log(LOG_INFO, "request %" PRIu64 " cancelled by uid %u",
			  q.id, (unsigned) uid);
		request_end(d, true);
		say_request(c, &d->recent[d->nrecent - 1]);
		numad_reply_end(c, 0);
		return;
	}
	if (!strcmp(q.cmd, "priority")) {
		if (!q.job || !q.has_level) {
			refuse(c, 2, "priority: give job= and level=");
			return;
		}
		if (numad_scan(d, &err))
			numad_log(LOG_WARNING, "scan: %s", err.msg);
		if (!job_here(d, q.job)) {
			refuse(c, 1, "unknown job %u: no process of it runs on this node",
			       q.job);
			return;
		}
		if (numad_set_prio(d, q.job, q.level, &err)) {
			refuse(c, 1, "%s", err.msg);
			return;
		}
		numad_log(LOG_INFO, "job %u: NUMA priority %s (by uid %u)",
			  q.job, cosched_numa_priority_name(q.level), (unsigned) uid);
		if (numad_state_save(d, &err))
			numad_log(LOG_ERR, "state: %s", err.msg);
		numad_reply(c, "job %u: priority %s", q.job, cosched_numa_priority_name(q.level));
		numad_reply_end(c, 0);
		return;
	}
	migrate(d, c, uid, &q);
}
