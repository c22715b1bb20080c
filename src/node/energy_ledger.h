/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * energy_ledger.h - a node's RAPL energy, handed out to the steps
 * that ran on it while it was spent.
 *
 * Why a ledger: RAPL counts a whole package, and each step's sampler
 * (cosched-sampler, one process a step) wakes on its own clock.  If each
 * sampler split what it saw since its own last reading, the same joules
 * would be handed out several times, and a step alone on a node for a
 * second would get the energy of a neighbour that had just left.  So the
 * node keeps one ledger, SlurmdSpoolDir/cosched/energy.ledger: the RAPL
 * reading it last counted, and every step present with what it has been
 * given.  Whichever sampler updates it reads RAPL, splits the energy
 * spent since the ledger's reading among the steps present then
 * (cosched_energy_split(): the rule in src/libcosched/model/energy.h and cosched(8)
 * ENERGY), and moves the ledger's reading on.  Every microjoule measured
 * while at least one step was present goes to exactly one step; what was
 * spent with none present is not a job's.
 *
 * A step's activity and memory activity in the split are its recent
 * rates (its work per second over its own last interval, given at its
 * latest update, this one for the updating step), not what it did since
 * the ledger's reading: the steps update at different moments, and a rate
 * is what each can say about the interval being split.  A step that has just joined has rate 0 until its
 * first update (it gets its idle and uncore share, by cores).
 *
 * Like the cpufreq journal (spool.h): rewritten whole under a
 * lock, atomically; a step's entry names its sampler by pid and start
 * time, so a sampler killed by SIGKILL is found dead at the next update
 * and its entry dropped (its energy counted as abandoned); a ledger from
 * before a reboot (whose counters restarted) or over other zones starts
 * again from the current reading; the file is removed when the last step
 * leaves.  A ledger that does not parse is replaced (energy, unlike a
 * frequency, leaves nothing on the node to restore), and the update says
 * so.
 *
 * Restarts lose only the energy spent since the last reading: each start
 * makes a new generation (its id in the file), and a step joining again
 * brings the totals its sampler last had (carried), so its entry goes on
 * from there; whoever keeps a step's running total from settles (Slurm's
 * accounting) sees the generation change and adds what the new one gives
 * past what was carried.  Why a generation started at a loss is kept in
 * the file until a settle has logged it: logged once.
 *
 * A step whose sampler found its tasks stopped (Slurm suspended the job:
 * task_stopped.h) takes no share until its sampler finds it running
 * again: its cores were given to others, who get what is spent; with
 * every step stopped the energy is unattributed.
 *
 * A sampler killed while its step runs: its entry keeps its share by the
 * rates it last gave (the step still runs on its cores) for as long as
 * the step's slurmstepd, which settles for it, lives; the others are not
 * charged for it.  Only then is it dropped.
 *
 * A lock that is not a regular file (a directory, a symbolic link) is
 * refused and left as it is: taking another lock beside it could let two
 * writers in at once.  The outcome says so (lock_refused) and every
 * update fails until an administrator removes it.
 *
 * The ledger in memory and its text form: energy_ledger_text.h.
 */
#ifndef COSCHED_ENERGY_LEDGER_H
#define COSCHED_ENERGY_LEDGER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/libcosched/base/error.h"
#include "src/node/energy_ledger_text.h"
#include "src/node/rapl.h"

/* What an update found and did (for the caller's record and log). */
typedef struct {
	uint64_t split_uj;		/* node energy split in this update */
	int present;			/* steps it was split among */
	unsigned split_flags;		/* cosched_energy_split_t.flags */
	bool restarted;			/* the ledger started again (new,
					 * rebooted, other zones, unreadable) */
	char note[COSCHED_ERROR_MSG_LEN];	/* why it restarted, or "" */
	uint64_t gen;			/* the ledger's generation after it */
	bool tell;			/* settle: note is why the ledger
					 * last started again at a loss, not
					 * logged yet: log it (once a
					 * generation, whichever step's
					 * settle comes first) */
	bool lock_refused;		/* the lock is not a regular file: no
					 * update works until it is removed */
} cosched_ledger_outcome_t;

/*
 * Bring the ledger in dir up to now for step me (id, proc, cores, rate,
 * mem_rate from the caller; its energy, node_uj and corunners, its
 * sampler's totals so far, are where a joining entry starts: 0 for a new
 * step, what it had when it joins again a ledger that started over, and
 * read only then): read rapl,
 * split what was spent since the ledger's reading among the steps that
 * were present, record me (joining when new: a joining step gets no
 * share of the energy spent before it joined), and store.  With leave,
 * me's entry is removed after the split (the file too, when it was the
 * last).  *out (may be NULL) gets me's entry after the update: its totals.
 * rapl NULL (a node without RAPL) keeps the ledger for presence only:
 * who shared the node with whom (each step's co-runners, which the
 * learned interference table needs), no zone and no energy; a ledger
 * that counted zones starts again (as when the zones change).
 * Fails (-1, err) when the directory, the lock (waited for at most
 * wait_ms) or RAPL cannot be used, or the ledger cannot be written; the
 * ledger on disk is then unchanged.
 */
int cosched_energy_ledger_update(cosched_rapl_t *rapl, const char *dir,
				 const cosched_ledger_step_t *me, bool leave,
				 int wait_ms, cosched_ledger_step_t *out,
				 cosched_ledger_outcome_t *outcome,
				 cosched_error_t *err);

/*
 * Bring the ledger in dir up to now for step id, as its sampler's update
 * would, but changing no step's cores or rates (the samplers give those):
 * what Slurm's accounting asks of a step at each of its polls
 * (acct_gather_energy/cosched), so that what slurmstepd reports is the
 * share up to the poll, and the energy it settles is handed out once
 * like any other.  The caller is taken to be the step's slurmstepd: its
 * entry names it (stepd), which keeps a step whose sampler was killed in
 * the split while it lives.  0: *out (may be NULL) gets id's entry; 1: id has no
 * entry (never joined, left, found dead), or the ledger is missing, from
 * another boot, unreadable or counts no energy yet: nothing is written
 * then (only samplers start, restart and set aside ledgers); -1 (err) as
 * for an update.  Needs RAPL (rapl not NULL).
 */
int cosched_energy_ledger_settle(cosched_rapl_t *rapl, const char *dir,
				 const cosched_step_ref_t *id, int wait_ms,
				 cosched_ledger_step_t *out,
				 cosched_ledger_outcome_t *outcome,
				 cosched_error_t *err);

/*
 * The ledger in dir as Prometheus metrics (src/libcosched/base/prom.h) labelled with
 * node: the steps present, each one's cores and, where the ledger counts
 * RAPL, its share so far and the node's energy while it was present, and
 * the ledger's totals.  Read without the lock (the file is replaced
 * atomically); no ledger is no step.  -1 (err) when the ledger cannot be
 * read or parsed, or out cannot be written.
 */
int cosched_energy_ledger_metrics(const char *dir, const char *node,
				  FILE *out, cosched_error_t *err);

/*
 * The memory rate (LLC misses per second) step id's sampler gave at its
 * latest update, for the node's NUMA manager (cosched-numad ranks
 * processes by it): 0 with *mem_rate (COSCHED_ENERGY_UNKNOWN where the
 * sampler counts no LLC misses), 1 when the ledger holds no such step or
 * there is no ledger, -1 (err) when it cannot be read.  No lock.
 */
int cosched_energy_ledger_mem_rate(const char *dir,
				   const cosched_step_ref_t *id,
				   uint64_t *mem_rate, cosched_error_t *err);

#endif
