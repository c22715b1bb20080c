/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model/victim.c - the migration-victim orders of "Dynamic memory placement
 * of applications on a NUMA system" (NTUA thesis, 2020) (model/victim.h). */
#include <math.h>
#include <stdlib.h>
#include <strings.h>

#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/random.h"
#include "src/libcosched/model/victim.h"

static const char *const order_names[COSCHED_VICTIM_COUNT] = {
	[COSCHED_VICTIM_BEST] = "best",
	[COSCHED_VICTIM_BEST_PLUS] = "best_plus",
	[COSCHED_VICTIM_RANDOM] = "random",
	[COSCHED_VICTIM_WORST] = "worst",
	[COSCHED_VICTIM_WORST_PLUS] = "worst_plus",
};

const char *cosched_victim_order_name(cosched_victim_order_t o)
{
	return cosched_name_of(order_names, COSCHED_VICTIM_COUNT, (int)o,
			       "unknown");
}

int cosched_victim_order_parse(const char *field, const char *str,
			       cosched_victim_order_t *out,
			       cosched_error_t *err)
{
	int i;

	/* The thesis writes them Best+ and Worst+. */
	if (str && !strcasecmp(str, "best+")) {
		*out = COSCHED_VICTIM_BEST_PLUS;
		return 0;
	}
	if (str && !strcasecmp(str, "worst+")) {
		*out = COSCHED_VICTIM_WORST_PLUS;
		return 0;
	}
	i = cosched_name_parse(field, "victim order", order_names, 0,
			       COSCHED_VICTIM_COUNT, str ? str : "", true, err);
	if (i < 0)
		return -1;
	*out = (cosched_victim_order_t)i;
	return 0;
}

int cosched_victim_check_machine(int nnodes, const unsigned *distance,
				 cosched_error_t *err)
{
	if (nnodes < 1 || nnodes > COSCHED_VICTIM_MAX_NODES)
		return cosched_error_set(err, "nodes: %d, expected 1..%d",
					 nnodes, COSCHED_VICTIM_MAX_NODES);
	if (!distance)
		return 0;
	for (int i = 0; i < nnodes; i++) {
		unsigned local = distance[i * nnodes + i];
		for (int j = 0; j < nnodes; j++) {
			unsigned d = distance[i * nnodes + j];
			if (d == 0)
				return cosched_error_set(err, "distance %d->%d: "
							 "0", i, j);
			if (j != i && d <= local)
				return cosched_error_set(err, "distance %d->%d: "
					"%u, not above the local %u", i, j, d,
					local);
		}
	}
	return 0;
}

static int check_request(const cosched_victim_proc_t *procs, size_t n,
			 int nnodes, const unsigned *distance,
			 const cosched_migration_t *req, cosched_error_t *err)
{
	if (cosched_victim_check_machine(nnodes, distance, err) < 0)
		return -1;
	if (!req)
		return cosched_error_set(err, "migration: no request");
	if (req->src < 0 || req->src >= nnodes)
		return cosched_error_set(err, "migration: source node %d, the "
					 "nodes are 0..%d", req->src,
					 nnodes - 1);
	if (req->dst < 0 || req->dst >= nnodes)
		return cosched_error_set(err, "migration: destination node %d, "
					 "the nodes are 0..%d", req->dst,
					 nnodes - 1);
	if (req->src == req->dst)
		return cosched_error_set(err, "migration: source and "
					 "destination are both node %d",
					 req->src);
	if (req->pages == 0)
		return cosched_error_set(err, "migration: 0 pages");
	if (n > 0 && !procs)
		return cosched_error_set(err, "migration: no processes");
	for (size_t i = 0; i < n; i++) {
		const cosched_victim_proc_t *p = &procs[i];
		if (!isfinite(p->bandwidth) || p->bandwidth < 0)
			return cosched_error_set(err, "process %u: bandwidth %g",
						 p->pid, p->bandwidth);
		if (p->cpu_node < -1 || p->cpu_node >= nnodes)
			return cosched_error_set(err, "process %u: CPUs on node "
						 "%d, the nodes are 0..%d",
						 p->pid, p->cpu_node,
						 nnodes - 1);
		for (int k = 0; k < nnodes; k++)
			if (p->frozen[k] > p->pages[k])
				return cosched_error_set(err, "process %u: %llu "
					"frozen pages on node %d, %llu pages "
					"there", p->pid,
					(unsigned long long)p->frozen[k], k,
					(unsigned long long)p->pages[k]);
	}
	return 0;
}

static uint64_t eligible(const cosched_victim_proc_t *p, int src)
{
	return p->pages[src] - p->frozen[src];
}

/* Sort context: qsort is not stable, so ties fall back to the index. */
typedef struct {
	size_t idx;
	int group;		/* 0 runs on dst, 1 on neither, 2 on src */
	long delta;		/* distance to dst - distance to src */
	double bw;
} vkey_t;

static int cmp_bw(double a, double b)
{
	return a < b ? -1 : a > b;
}

static int cmp_best(const void *pa, const void *pb)
{
	const vkey_t *a = pa, *b = pb;
	int c;

	/* dst first, highest bandwidth first; then everyone else, lowest
	 * bandwidth first. */
	int ga = a->group ? 1 : 0, gb = b->group ? 1 : 0;
	if (ga != gb)
		return ga - gb;
	c = ga == 0 ? cmp_bw(b->bw, a->bw) : cmp_bw(a->bw, b->bw);
	if (c)
		return c;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int cmp_best_plus(const void *pa, const void *pb)
{
	const vkey_t *a = pa, *b = pb;
	int c;

	if (a->group != b->group)
		return a->group - b->group;
	if (a->group == 1 && a->delta != b->delta)
		return a->delta < b->delta ? -1 : 1;
	/* Pages becoming closer: the hungriest gains most; otherwise the
	 * lightest loses least. */
	if (a->group == 0 || (a->group == 1 && a->delta < 0))
		c = cmp_bw(b->bw, a->bw);
	else
		c = cmp_bw(a->bw, b->bw);
	if (c)
		return c;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int cosched_victim_rank(cosched_victim_order_t order,
			const cosched_victim_proc_t *procs, size_t n,
			int nnodes, const unsigned *distance,
			const cosched_migration_t *req, uint64_t seed,
			size_t *out, size_t *nout, cosched_error_t *err)
{
	vkey_t *k;
	size_t m = 0;

	if ((int)order < 0 || order >= COSCHED_VICTIM_COUNT)
		return cosched_error_set(err, "victim order %d: unknown",
					 (int)order);
	if (check_request(procs, n, nnodes, distance, req, err) < 0)
		return -1;
	if (!out || !nout)
		return cosched_error_set(err, "victim order: no output");
	*nout = 0;
	if (n == 0)
		return 0;
	k = malloc(n * sizeof(*k));
	if (!k)
		return cosched_error_set(err, "victim order: out of memory for "
					 "%zu processes", n);
	for (size_t i = 0; i < n; i++) {
		const cosched_victim_proc_t *p = &procs[i];
		if (p->high_priority || eligible(p, req->src) == 0)
			continue;
		k[m].idx = i;
		k[m].bw = p->bandwidth;
		k[m].group = p->cpu_node == req->dst ? 0 :
			p->cpu_node == req->src ? 2 : 1;
		k[m].delta = 0;
		if (distance && p->cpu_node >= 0)
			k[m].delta =
				(long)distance[p->cpu_node * nnodes + req->dst] -
				(long)distance[p->cpu_node * nnodes + req->src];
		m++;
	}
	switch (order) {
	case COSCHED_VICTIM_BEST:
	case COSCHED_VICTIM_WORST:
		qsort(k, m, sizeof(*k), cmp_best);
		break;
	case COSCHED_VICTIM_BEST_PLUS:
	case COSCHED_VICTIM_WORST_PLUS:
		qsort(k, m, sizeof(*k), cmp_best_plus);
		break;
	case COSCHED_VICTIM_RANDOM:
		cosched_shuffle(k, m, sizeof(*k), seed);
		break;
	default:
		break;
	}
	for (size_t i = 0; i < m; i++) {
		bool rev = order == COSCHED_VICTIM_WORST ||
			order == COSCHED_VICTIM_WORST_PLUS;
		out[i] = k[rev ? m - 1 - i : i].idx;
	}
	*nout = m;
	free(k);
	return 0;
}

int cosched_victim_plan(cosched_victim_order_t order,
			const cosched_victim_proc_t *procs, size_t n,
			int nnodes, const unsigned *distance,
			const cosched_migration_t *req, unsigned flags,
			uint64_t seed, cosched_victim_move_t *moves,
			size_t *nmoves, uint64_t *planned,
			cosched_error_t *err)
{
	size_t *rank = NULL, nr = 0;
	uint64_t left;

	if (!moves || !nmoves || !planned)
		return cosched_error_set(err, "victim plan: no output");
	if (n > 0) {
		rank = malloc(n * sizeof(*rank));
		if (!rank)
			return cosched_error_set(err, "victim plan: out of "
						 "memory for %zu processes", n);
	}
	if (cosched_victim_rank(order, procs, n, nnodes, distance, req, seed,
				rank, &nr, err) < 0) {
		free(rank);
		return -1;
	}
	*nmoves = 0;
	*planned = 0;
	left = req->pages;
	for (size_t i = 0; i < nr && left > 0; i++) {
		uint64_t e = eligible(&procs[rank[i]], req->src);
		uint64_t take = (flags & COSCHED_VICTIM_WHOLE) || e < left ?
			e : left;
		moves[*nmoves].proc = rank[i];
		moves[*nmoves].pages = take;
		(*nmoves)++;
		*planned += take;
		left = take >= left ? 0 : left - take;
	}
	free(rank);
	return left > 0 ? 1 : 0;
}

int cosched_victim_apply(cosched_victim_proc_t *procs, size_t n,
			 const cosched_migration_t *req,
			 const cosched_victim_move_t *moves, size_t nmoves,
			 cosched_error_t *err)
{
	if (!req || req->src < 0 || req->dst < 0 ||
	    req->src >= COSCHED_VICTIM_MAX_NODES ||
	    req->dst >= COSCHED_VICTIM_MAX_NODES || req->src == req->dst)
		return cosched_error_set(err, "apply: bad request");
	if (nmoves > 0 && (!moves || !procs))
		return cosched_error_set(err, "apply: no moves");
	/* Check first, so a refused plan changes nothing.  A process may
	 * appear once only (the plan never repeats one). */
	for (size_t i = 0; i < nmoves; i++) {
		if (moves[i].proc >= n)
			return cosched_error_set(err, "apply: move %zu names "
						 "process %zu of %zu", i,
						 moves[i].proc, n);
		for (size_t j = 0; j < i; j++)
			if (moves[j].proc == moves[i].proc)
				return cosched_error_set(err, "apply: process "
					"%u moved twice in one request",
					procs[moves[i].proc].pid);
		if (moves[i].pages > eligible(&procs[moves[i].proc], req->src))
			return cosched_error_set(err, "apply: process %u has "
				"%llu movable pages on node %d, the move takes "
				"%llu", procs[moves[i].proc].pid,
				(unsigned long long)eligible(
					&procs[moves[i].proc], req->src),
				req->src, (unsigned long long)moves[i].pages);
	}
	for (size_t i = 0; i < nmoves; i++) {
		cosched_victim_proc_t *p = &procs[moves[i].proc];
		p->pages[req->src] -= moves[i].pages;
		p->pages[req->dst] += moves[i].pages;
		p->frozen[req->dst] += moves[i].pages;
	}
	return 0;
}

void cosched_victim_thaw(cosched_victim_proc_t *procs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < COSCHED_VICTIM_MAX_NODES; k++)
			procs[i].frozen[k] = 0;
}
