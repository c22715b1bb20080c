/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * local.c - high-priority jobs kept local ("pull their pages to the node of
 * their CPUs", from "Dynamic memory placement of applications on a NUMA
 * system" (NTUA thesis, 2020), with the hysteresis of LaRowe, Ellis and
 * Holliday (1992) and Corbalan, Martorell and Labarta (2004)).
 *
 * After every scan, for each process of a high-priority job whose CPUs are
 * on one node: its anonymous memory is looked at in 2 MiB ranges (at most
 * LOOK_PAGES pages a scan, going on from where the last look stopped); a
 * range with pages on another node counts one look "remote", one without
 * resets its count.  Only after NumaHighScans remote looks in a row are
 * its remote pages pulled home, and a range is pulled at most
 * NumaHighMovesMax times per NumaFreezeWindow; pulled pages are frozen
 * like a migration's.  So a page that two threads on two nodes touch in
 * turn (or that the kernel's own balancing moves back) is not chased: it
 * moves at most the cap's number of times a window.
 */
#include <errno.h>
#include <inttypes.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/numad/numad.h"

/* Pages looked at in one process per scan. */
#define LOOK_PAGES 65536

static numad_range_t *range_of(numad_t *d, const cosched_proc_id_t *id,
			       uint64_t base, bool add)
{
	for (int i = 0; i < d->nranges; i++) {
		numad_range_t *r = &d->ranges[i];

		if (r->base == base && r->id.pid == id->pid &&
		    r->id.start_time == id->start_time)
			return r;
	}
	if (!add || d->nranges == NUMAD_RANGES_MAX)
		return NULL;
	d->ranges[d->nranges] = (numad_range_t){ *id, base, 0, 0, 0 };
	return &d->ranges[d->nranges++];
}

/* Ranges of processes that are gone or no longer high priority. */
static void prune(numad_t *d)
{
	int k = 0;

	for (int i = 0; i < d->nranges; i++) {
		numad_proc_t *p = numad_find_proc(d, &d->ranges[i].id);

		if (p && numad_proc_prio(d, p) == COSCHED_NUMA_HIGH)
			d->ranges[k++] = d->ranges[i];
	}
	d->nranges = k;
}

/* Look at the 2 MiB range at base of p, every anonymous mapping in it
 * from from on (several small mappings can share a range: one look, one
 * count, one cap for all of them); pull it home when its time has come.
 * Returns the pages pulled. */
static uint64_t look(numad_t *d, numad_proc_t *p, uint64_t base,
		     uint64_t from, const numad_span_t *maps, size_t nmaps,
		     const numad_span_t *spans, size_t nspans, long page,
		     uint64_t budget)
{
	enum { N = NUMAD_RANGE_BYTES / 4096 };
	void *addrs[N], *remote[N];
	int status[N], nodes[N], moved_st[N];
	size_t n = 0, nremote = 0;
	uint64_t end = base + NUMAD_RANGE_BYTES, moved = 0, lo, hi;
	double now = numad_wall();
	numad_range_t *r;

	if (from < base)
		from = base;
	while (n < N && !numad_span_next(maps, nmaps, from, &lo, &hi) &&
	       lo < end) {
		for (uint64_t a = lo; a < hi && a < end && n < N;
		     a += (uint64_t) page)
			addrs[n++] = (void *)(uintptr_t) a;
		from = hi;
	}
	/* The process scanned, not one that got its pid since. */
	if (!n || !numad_proc_same(&p->id) ||
	    move_pages(p->id.pid, n, addrs, NULL, status, 0) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (status[i] >= 0 && status[i] != p->cpu_node &&
		    !numad_in_spans(spans, nspans,
				    (uint64_t)(uintptr_t) addrs[i]))
			remote[nremote++] = addrs[i];
	r = range_of(d, &p->id, base, nremote > 0);
	if (!nremote) {
		if (r)
			r->streak = 0;
		return 0;
	}
	if (!r)
		return 0;	/* the table is full: looked at again later */
	r->streak++;
	/* The cap's window: NumaFreezeWindow, and never shorter than a
	 * scan (with no freeze window the cap still holds per scan). */
	if (now - r->window_start >= (d->conf.numa.freeze_window_s >
				      d->conf.numa.scan_interval_s ?
				      d->conf.numa.freeze_window_s :
				      d->conf.numa.scan_interval_s)) {
		r->window_start = now;
		r->moves = 0;
	}
	if (r->streak < d->conf.numa.high_scans ||
	    r->moves >= d->conf.numa.high_moves || nremote > budget)
		return 0;
	for (size_t i = 0; i < nremote; i++)
		nodes[i] = p->cpu_node;
	if (!numad_proc_same(&p->id) || move_pages(p->id.pid, nremote, remote, nodes, moved_st,
		       MPOL_MF_MOVE) < 0)
		return 0;
	for (size_t i = 0; i < nremote; i++)
		if (moved_st[i] == p->cpu_node)
			moved++;
	numad_freeze(d, &p->id, remote, moved_st, nremote, p->cpu_node,
		     page);
	r->moves++;
	r->streak = 0;
	p->pulled += moved;
	p->pulls++;
	numad_log(LOG_INFO,
		  "job %u pid %d: pulled %" PRIu64 " of %zu remote pages of range 0x%" PRIx64 " home to node %d (pull %d of at most %d this window)",
		  p->job_id, (int) p->id.pid, moved, nremote, base,
		  p->cpu_node, r->moves, d->conf.numa.high_moves);
	return moved;
}

void numad_keep_local(numad_t *d)
{
	long page = sysconf(_SC_PAGESIZE);
	double per_scan = (double) d->conf.numa.pages_per_second *
			  d->conf.numa.scan_interval_s;
	uint64_t budget = per_scan > 1e12 ? (uint64_t) 1e12 :
			  (uint64_t) per_scan;

	prune(d);
	if (d->conf.numa.high_moves <= 0)
		return;
	for (int i = 0; i < d->nprocs && budget; i++) {
		numad_proc_t *p = &d->procs[i];
		uint64_t remote = 0, looked = 0, from = p->local_cursor;
		numad_span_t *spans, *maps;
		size_t nspans, nmaps;

		/* A home with memory to pull to. */
		if (numad_proc_prio(d, p) != COSCHED_NUMA_HIGH ||
		    p->cpu_node < 0 || !d->node_has_mem[p->cpu_node])
			continue;
		for (int n = 0; n < d->nnodes; n++)
			if (n != p->cpu_node)
				remote += p->pages[n];
		if (!remote)
			continue;
		if (numad_anon_maps(&p->id, &maps, &nmaps))
			continue;
		spans = numad_frozen_spans(d, &p->id, &nspans, page);
		if (!spans) {
			free(maps);
			continue;
		}
		while (looked < LOOK_PAGES && budget) {
			uint64_t lo, hi, base, got;

			if (numad_span_next(maps, nmaps, from, &lo, &hi)) {
				from = 0;	/* next scan: from the start */
				break;
			}
			base = lo & ~(uint64_t)(NUMAD_RANGE_BYTES - 1);
			got = look(d, p, base, lo, maps, nmaps, spans, nspans,
				   page, budget);
			budget -= got < budget ? got : budget;
			looked += NUMAD_RANGE_BYTES / (uint64_t) page;
			from = base + NUMAD_RANGE_BYTES;
		}
		p->local_cursor = from;
		free(spans);
		free(maps);
	}
}
