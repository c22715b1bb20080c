/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * victim.h - whose pages move when memory must leave a NUMA node:
 * the migration-victim orders of "Dynamic memory placement of applications on
 * a NUMA system" (diploma thesis, NTUA CSLab, 2020, "The Resource Manager"),
 * for the node's NUMA manager to call.
 *
 * A request asks to move `pages` pages from node src to node dst (to free
 * src, for example).  The manager knows, for each process: its memory
 * bandwidth (LLC misses per interval; only the ranking matters), the node
 * its CPUs run on, its pages per node (/proc/PID/numa_maps), and whether it
 * is high priority (never a victim).  An order ranks the candidates (every
 * low-priority process with movable pages on src); the plan then takes
 * pages from each in turn until the request is met:
 *
 *   best       processes running on dst first, highest bandwidth first
 *              (their pages become local); then all the others, lowest
 *              bandwidth first (they lose least by going remote);
 *   best_plus  processes running on dst (bandwidth descending); then those
 *              running on neither src nor dst (remote to remote), pages
 *              getting closer first (distance from their CPUs' node to dst
 *              minus distance to src, ascending), then bandwidth ascending
 *              (descending where the pages get closer); then those running
 *              on src (local to remote, bandwidth ascending);
 *   random     one shuffled list (seeded: the same seed, the same list);
 *   worst      best's list reversed;
 *   worst_plus best_plus's list reversed.
 * Ties keep the callers' order of processes.  A process whose CPUs span
 * several nodes or are unknown (cpu_node -1) counts as running on neither.
 * The distance step inside best_plus's middle group is cosched's: the thesis
 * ranks that group by bandwidth alone; with every remote distance equal
 * (or distance NULL) the two agree.
 *
 * Page bouncing (LaRowe, Ellis and Holliday (1992) and Corbalan, Martorell and
 * Labarta (2004): limiting it matters more than catching every good move):
 *  - within a request, pages move only from src to dst and each process is
 *    chosen at most once, so no page planned here moves back;
 *  - across requests, pages that arrived on a node by a migration are
 *    frozen there (cosched_victim_apply() counts them) and are not
 *    eligible until the caller's freeze window ends
 *    (cosched_victim_thaw()); a request src -> dst right after dst -> src
 *    does not undo it.
 *
 * By default the plan moves just enough pages (the last victim gives only
 * the remainder).  COSCHED_VICTIM_WHOLE moves every eligible page of each
 * chosen process, as the thesis's program did (it overshoots the request).
 *
 * Pure computation: no system call, no allocation beyond the rank list,
 * not thread-safe only in the sense that procs must not change meanwhile.
 */
#ifndef COSCHED_VICTIM_H
#define COSCHED_VICTIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/base/error.h"

#define COSCHED_VICTIM_MAX_NODES 64

typedef enum {
	COSCHED_VICTIM_BEST = 0,	/* "best" */
	COSCHED_VICTIM_BEST_PLUS,	/* "best_plus" (also "best+") */
	COSCHED_VICTIM_RANDOM,		/* "random" */
	COSCHED_VICTIM_WORST,		/* "worst" */
	COSCHED_VICTIM_WORST_PLUS,	/* "worst_plus" (also "worst+") */
	COSCHED_VICTIM_COUNT
} cosched_victim_order_t;

/* The name above, or "unknown". */
const char *cosched_victim_order_name(cosched_victim_order_t o);
/* Parse an order name in any case ("best+" and "worst+" too).  Returns 0,
 * or -1 with err naming field, quoting the value and listing the names. */
int cosched_victim_order_parse(const char *field, const char *str,
			       cosched_victim_order_t *out,
			       cosched_error_t *err);

typedef struct {
	uint32_t pid;		/* the caller's id (messages only) */
	double bandwidth;	/* >= 0, finite; any unit */
	int cpu_node;		/* node its CPUs run on; -1: several, unknown */
	bool high_priority;	/* never a victim */
	uint64_t pages[COSCHED_VICTIM_MAX_NODES];  /* pages on each node */
	uint64_t frozen[COSCHED_VICTIM_MAX_NODES]; /* of those, arrived by a
						     * migration in the freeze
						     * window: not moved */
} cosched_victim_proc_t;

typedef struct {
	int src, dst;		/* distinct nodes */
	uint64_t pages;		/* >= 1 */
} cosched_migration_t;

typedef struct {
	size_t proc;		/* index into procs */
	uint64_t pages;		/* of its pages on src, to move to dst */
} cosched_victim_move_t;

/* Every eligible page of a chosen process moves (the thesis's way). */
#define COSCHED_VICTIM_WHOLE 1u

/*
 * The machine: nnodes nodes (1..COSCHED_VICTIM_MAX_NODES) and their
 * distances, row-major nnodes x nnodes as the firmware gives them (ACPI
 * SLIT, numactl --hardware: 10 = local), or NULL when unknown (every
 * remote node alike).  Refused: a distance of 0, or a remote one not
 * above the row's local one.
 */
int cosched_victim_check_machine(int nnodes, const unsigned *distance,
				 cosched_error_t *err);

/*
 * The candidates of a request in order: out[0..*nout) are indices into
 * procs (out holds n entries).  A candidate is a process that is not high
 * priority and has eligible pages on src (pages[src] - frozen[src] > 0).
 * seed drives the random order only.  Refused (nothing written): a bad
 * machine, order, request (node out of range, src = dst, no pages), or
 * process (bandwidth negative or not finite, cpu_node out of range,
 * frozen above pages).
 */
int cosched_victim_rank(cosched_victim_order_t order,
			const cosched_victim_proc_t *procs, size_t n,
			int nnodes, const unsigned *distance,
			const cosched_migration_t *req, uint64_t seed,
			size_t *out, size_t *nout, cosched_error_t *err);

/*
 * The plan: moves[0..*nmoves) (moves holds n entries) in the order they
 * are to be made, *planned their sum.  Returns 0 when the plan covers the
 * request (with COSCHED_VICTIM_WHOLE it may exceed it), 1 when the
 * eligible pages run out first (the thesis's "cannot migrate any more
 * pages": everything eligible is planned), -1 on the errors of
 * cosched_victim_rank() or out of memory.
 */
int cosched_victim_plan(cosched_victim_order_t order,
			const cosched_victim_proc_t *procs, size_t n,
			int nnodes, const unsigned *distance,
			const cosched_migration_t *req, unsigned flags,
			uint64_t seed, cosched_victim_move_t *moves,
			size_t *nmoves, uint64_t *planned,
			cosched_error_t *err);

/*
 * Record a plan as done (after the pages really moved): for each move,
 * pages[src] -= k, pages[dst] += k, frozen[dst] += k.  Refused, procs
 * unchanged: a move naming a process out of range or moving more than its
 * eligible pages on src.
 */
int cosched_victim_apply(cosched_victim_proc_t *procs, size_t n,
			 const cosched_migration_t *req,
			 const cosched_victim_move_t *moves, size_t nmoves,
			 cosched_error_t *err);

/* The freeze window is over: every page may move again. */
void cosched_victim_thaw(cosched_victim_proc_t *procs, size_t n);

#endif
