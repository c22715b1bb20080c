/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pages.c - finding a process's pages on a NUMA node and moving
 * them with move_pages(2), and the freeze window of LaRowe, Ellis and Holliday
 * (1992) and Corbalan, Martorell and Labarta (2004).
 *
 * A victim's pages are found in address order from a cursor that only
 * moves forward: the anonymous mappings of /proc/PID/maps (file-backed
 * ones hold page cache that other processes share), asked page by page
 * where each page is (move_pages with no target), at most one batch of
 * pages on src at a time.  So within a request no address is looked at
 * twice, and no page is moved twice.
 *
 * Freeze window: every page a migration moved is frozen on its new node
 * for NumaFreezeWindow seconds (kept as runs of consecutive pages, in the
 * state file across restarts): no request moves it again before then, so
 * a request src -> dst right after dst -> src does not undo it.
 */
#include <errno.h>
#include <inttypes.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/numad/numad.h"

/* Pages asked where they are in one call. */
#define QUERY_CHUNK 1024
/* Queries in one batch at most: a batch's work stays bounded in a
 * mapping of many gigabytes with few pages on src (the rest of it is
 * looked at in the next batches). */
#define QUERY_CHUNKS_MAX 64

uint64_t (*numad_frozen_totals(const numad_t *d))[COSCHED_VICTIM_MAX_NODES]
{
	uint64_t (*tot)[COSCHED_VICTIM_MAX_NODES] =
		calloc((size_t) d->nprocs + 1, sizeof(*tot));
	double now = numad_wall();

	if (!tot)
		return NULL;
	for (int i = 0; i < d->nfrozen; i++) {
		const numad_frozen_t *f = &d->frozen[i];
		int k;

		if (f->until <= now || f->node < 0 ||
		    f->node >= COSCHED_VICTIM_MAX_NODES)
			continue;
		k = numad_proc_index(d, &f->id);
		if (k >= 0)
			tot[k][f->node] += f->pages;
	}
	return tot;
}

void numad_frozen_expire(numad_t *d, bool scanned)
{
	double now = numad_wall();
	int k = 0;

	/* After a scan, a run whose process is not a step's any more goes
	 * (one lookup, no /proc read); at start, before any scan, each
	 * run's process is asked whether it is still the same. */
	for (int i = 0; i < d->nfrozen; i++) {
		const numad_frozen_t *f = &d->frozen[i];
		bool keep = f->until > now &&
			    (scanned ? numad_proc_index(d, &f->id) >= 0 :
			     numad_proc_same(&f->id));

		if (keep)
			d->frozen[k++] = *f;
	}
	d->nfrozen = k;
}

static int by_lo(const void *a, const void *b)
{
	const numad_span_t *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* This process's frozen spans, sorted (malloc'd; *n may be 0). */
numad_span_t *numad_frozen_spans(const numad_t *d,
				  const cosched_proc_id_t *id, size_t *n,
				  long page)
{
	double now = numad_wall();
	numad_span_t *s = malloc(((size_t) d->nfrozen + 1) * sizeof(*s));

	*n = 0;
	if (!s)
		return NULL;
	for (int i = 0; i < d->nfrozen; i++) {
		const numad_frozen_t *f = &d->frozen[i];

		if (f->until > now && f->id.pid == id->pid &&
		    f->id.start_time == id->start_time)
			s[(*n)++] = (numad_span_t){ f->addr, f->addr +
					      (uint64_t) f->pages * page };
	}
	qsort(s, *n, sizeof(*s), by_lo);
	return s;
}

bool numad_in_spans(const numad_span_t *s, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (addr < s[mid].lo)
			hi = mid;
		else if (addr >= s[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* Record pages moved to node (sorted addresses) as frozen runs. */
void numad_freeze(numad_t *d, const cosched_proc_id_t *id, void **addrs,
		  const int *status, size_t n, int node, long page)
{
	double until = numad_wall() + d->conf.numa.freeze_window_s;

	if (d->conf.numa.freeze_window_s <= 0)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = (uint64_t)(uintptr_t) addrs[i];
		numad_frozen_t *last = d->nfrozen ?
				       &d->frozen[d->nfrozen - 1] : NULL;

		if (status[i] != node)
			continue;
		if (last && last->node == node && last->id.pid == id->pid &&
		    last->id.start_time == id->start_time &&
		    last->addr + (uint64_t) last->pages * page == a &&
		    last->pages < UINT32_MAX) {
			last->pages++;
			last->until = until;
			continue;
		}
		if (d->nfrozen == NUMAD_FROZEN_MAX) {
			/* Full: the oldest run thaws early (said once). */
			static bool said;

			if (!said)
				numad_log(LOG_WARNING,
					  "more than %d frozen runs: the oldest thaw early",
					  NUMAD_FROZEN_MAX);
			said = true;
			memmove(d->frozen, d->frozen + 1,
				(NUMAD_FROZEN_MAX - 1) * sizeof(*d->frozen));
			d->nfrozen--;
		}
		d->frozen[d->nfrozen++] = (numad_frozen_t){ *id, a, 1, node,
							     until };
	}
}

bool numad_proc_same(const cosched_proc_id_t *id)
{
	cosched_proc_stat_t ps;

	return id->pid > 0 && !cosched_proc_stat(id->pid, &ps) &&
	       ps.state != 'Z' && ps.state != 'X' &&
	       ps.start_time == id->start_time;
}

/*
 * The anonymous mappings of /proc/PID/maps, in address order.  Each line
 * is read whole (getline): a mapped file's name is the user's and may be
 * long, and a line cut in two must not give a second line that looks
 * like a mapping; every mapping must be non-empty and above the one
 * before, or the file is not taken.
 */
int numad_anon_maps(const cosched_proc_id_t *id, numad_span_t **out,
		    size_t *nout)
{
	char path[64], *line = NULL;
	size_t cap = 0, n = 0, lcap = 0;
	numad_span_t *spans = NULL;
	uint64_t last = 0;
	int rc = 0;
	FILE *f;

	*out = NULL;
	*nout = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int) id->pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (getline(&line, &lcap, f) > 0) {
		unsigned long long a, b, ino;
		char perms[8], name[16] = "";
		int off = 0;

		if (sscanf(line, "%llx-%llx %7s %*s %*s %llu %n", &a, &b,
			   perms, &ino, &off) < 4 || a >= b || a < last) {
			rc = -1;	/* not the kernel's form: take nothing */
			break;
		}
		last = b;
		if (off > 0)
			sscanf(line + off, "%15s", name);
		/* Page cache, and the kernel's own mappings ([vdso], [vvar],
		 * [vsyscall] and the like), stay; [heap] and [stack] are
		 * the process's own. */
		if (ino || (name[0] && strcmp(name, "[heap]") &&
			    strcmp(name, "[stack]")))
			continue;
		if (n == cap) {
			numad_span_t *g;

			cap = cap ? 2 * cap : 64;
			g = realloc(spans, cap * sizeof(*g));
			if (!g) {
				rc = -1;
				break;
			}
			spans = g;
		}
		spans[n++] = (numad_span_t){ a, b };
	}
	free(line);
	fclose(f);
	if (rc) {
		free(spans);
		return -1;
	}
	*out = spans;
	*nout = n;
	return 0;
}

int numad_span_next(const numad_span_t *s, size_t n, uint64_t from,
		    uint64_t *lo, uint64_t *hi)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].hi > from) {
			*lo = s[i].lo > from ? s[i].lo : from;
			*hi = s[i].hi;
			return 0;
		}
	return 1;
}

/* The process asked for, not another that got its pid since, with its
 * anonymous mappings into *maps (the caller frees them); -1 when it is
 * gone or ending.  One with no mapping of its own left, not even its
 * stack, is ending: the kernel releases a process's memory before it
 * shows it as a zombie, and its empty maps would read as a process with
 * nothing to move. */
static int _live_maps(const cosched_proc_id_t *id, numad_span_t **maps,
		      size_t *nmaps)
{
	*maps = NULL;
	*nmaps = 0;
	if (!numad_proc_same(id) || numad_anon_maps(id, maps, nmaps))
		return -1;
	if (!*nmaps) {
		free(*maps);
		*maps = NULL;
		return -1;
	}
	return 0;
}

/* Whether move_pages failed with e because the process ended: ESRCH, or
 * EINVAL for one whose memory is already released (no mm to look in). */
static bool _ended(int e, const cosched_proc_id_t *id)
{
	numad_span_t *maps;
	size_t nmaps;

	if (e == ESRCH)
		return true;
	if (e != EINVAL)
		return false;
	if (_live_maps(id, &maps, &nmaps))
		return true;
	free(maps);
	return false;
}

int numad_move_batch(numad_t *d, numad_request_t *r, numad_victim_t *v,
		     uint64_t max, uint64_t *moved)
{
	long page = sysconf(_SC_PAGESIZE);
	void *q[QUERY_CHUNK];
	int qs[QUERY_CHUNK];
	void **pick;
	int *nodes, *status;
	size_t npick = 0, nspans;
	numad_span_t *spans, *maps = NULL;
	size_t nmaps = 0;
	pid_t pid = v->id.pid;
	int rc = 0, chunks = 0;

	*moved = 0;
	if (_live_maps(&v->id, &maps, &nmaps))
		return -1;
	if (max > QUERY_CHUNK * 16)
		max = QUERY_CHUNK * 16;
	pick = malloc(max * sizeof(*pick));
	nodes = malloc(max * sizeof(*nodes));
	status = malloc(max * sizeof(*status));
	spans = numad_frozen_spans(d, &v->id, &nspans, page);
	if (!pick || !nodes || !status || !spans) {
		free(pick); free(nodes); free(status); free(spans); free(maps);
		snprintf(r->note, sizeof(r->note), "out of memory");
		return 1;
	}
	/* Collect up to max of its pages on src, from the cursor on. */
	while (npick < max && chunks++ < QUERY_CHUNKS_MAX) {
		uint64_t lo, hi;
		size_t n = 0;
		long got;
		if (numad_span_next(maps, nmaps, v->cursor, &lo, &hi)) {
			rc = npick ? 0 : 1;
			v->cursor = UINT64_MAX;
			break;
		}
		for (uint64_t a = lo; a < hi && n < QUERY_CHUNK; a += page)
			q[n++] = (void *)(uintptr_t) a;
		got = move_pages(pid, n, q, NULL, qs, 0);
		if (got < 0) {
			int e = errno;

			rc = _ended(e, &v->id) ? -1 : 1;
			if (rc > 0)
				snprintf(r->note, sizeof(r->note),
					 "move_pages(pid %d): %s", (int) pid,
					 strerror(e));
			break;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t a = (uint64_t)(uintptr_t) q[i];

			v->cursor = a + page;
			if (qs[i] != r->src)
				continue;
			if (numad_in_spans(spans, nspans, a)) {
				r->skipped++;	/* frozen: arrived lately */
				continue;
			}
			pick[npick++] = q[i];
			if (npick == max)
				break;
		}
	}
	/* Checked again just before: the queries took time. */
	if (npick && !numad_proc_same(&v->id)) {
		npick = 0;
		rc = -1;
	}
	if (npick) {
		long got;

		for (size_t i = 0; i < npick; i++)
			nodes[i] = r->dst;
		got = move_pages(pid, npick, pick, nodes, status,
				 MPOL_MF_MOVE);
		if (got < 0) {
			int e = errno;

			if (_ended(e, &v->id)) {
				rc = -1;
			} else {
				r->failed_other += npick;
				snprintf(r->note, sizeof(r->note),
					 "move_pages(pid %d): %s", (int) pid,
					 strerror(e));
			}
		} else {
			for (size_t i = 0; i < npick; i++) {
				if (status[i] == r->dst)
					(*moved)++;
				else if (status[i] == -EBUSY)
					r->failed_busy++;
				else if (status[i] == -EACCES)
					r->failed_shared++;
				else if (status[i] == -ENOMEM) {
					r->failed_other++;
					snprintf(r->note, sizeof(r->note),
						 "node %d has no free memory left",
						 r->dst);
				} else
					r->failed_other++;
			}
			numad_freeze(d, &v->id, pick, status, npick, r->dst, page);
		}
	}
	free(pick); free(nodes); free(status); free(spans); free(maps);
	return rc;
}
