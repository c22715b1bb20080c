/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * energy_ledger_text.h - the node's energy ledger in memory and
 * its text form (energy_ledger_text.c), which the update and the
 * metrics (energy_ledger.h) read and write through; the codec
 * knows nothing of them.
 *
 * The text form (one line each; all integers decimal):
 *   cosched-energy-ledger/1.2 boot=BOOT_ID gen=G
 *   restart why="..." told=0|1         why this generation started
 *   zone DIR UJ                        the reading counted up to, per zone
 *   totals attributed=UJ unattributed=UJ abandoned=UJ
 *   step JOB.STEP pid=P start=T cores=N rate=R mem_rate=M|- uncore=UJ
 *        core=UJ dram=UJ node=UJ seen=N corunners=J.S,J.S,...|-
 *        carried=UJ stepd=P|- stepd_start=T stopped=0|1
 * (a step line is one line; the version, as for every state file, by the
 * rule of src/libcosched/base/kv.h: a newer minor's appended keys and new
 * kinds of line are skipped, another major restarts the ledger).
 * attributed: energy handed to steps that have left; unattributed: spent
 * while no step was present (between updates that found none);
 * abandoned: the shares of steps found dead.
 *
 * Added in 1.1 (a 1.0 reader skips them; a 1.0 file reads as gen 0, no
 * restart line, nothing carried, no stepd):
 *   gen      the ledger's generation, new each time it starts (again):
 *            a step's totals from two generations are not comparable,
 *            and whoever keeps a step's running total must know when
 *            its entry started over;
 *   restart  why the ledger started again when that was a loss (missing
 *            under a step that had energy, unreadable, other zones), and
 *            whether Slurm's accounting has logged it yet (once);
 *   carried  the part of a step's totals it brought from earlier
 *            generations (its sampler's totals as it joined again), not
 *            split by this one, so not in this one's totals;
 *   stepd    the slurmstepd that settles for the step (its accounting):
 *            while it lives, the step is running even if its sampler was
 *            killed, and keeps its share.
 *
 * Added in 1.2 (a 1.1 reader skips it; a 1.1 file reads as running):
 *   stopped  the step's tasks were stopped (Slurm suspended the job) at
 *            its sampler's latest update: it takes no share of what is
 *            spent until its sampler says it runs again.
 */
#ifndef COSCHED_ENERGY_LEDGER_TEXT_H
#define COSCHED_ENERGY_LEDGER_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "src/libcosched/base/error.h"
#include "src/libcosched/model/energy.h"
#include "src/node/rapl.h"
#include "src/node/spool.h"

#define COSCHED_ENERGY_LEDGER_FILE "energy.ledger"
/* Steps a ledger holds (a node's steps at once). */
#define COSCHED_LEDGER_STEPS_MAX 1024
/* Co-runners a step's entry names (more are counted, not named). */
#define COSCHED_LEDGER_CORUNNERS_MAX 16

typedef struct {
	uint32_t job_id, step_id;
} cosched_step_ref_t;

typedef struct {
	cosched_step_ref_t id;
	cosched_proc_id_t proc;		/* its sampler */
	uint32_t cores;			/* >= 1 */
	uint64_t rate;			/* activity per second (CPU ns/s) */
	uint64_t mem_rate;		/* LLC misses per second, or
					 * COSCHED_ENERGY_UNKNOWN */
	cosched_energy_share_t energy;	/* its share so far */
	uint64_t node_uj;		/* the node's energy while present */
	int ncorunners;			/* named in corunners[] */
	int corunners_seen;		/* all seen, named or not */
	cosched_step_ref_t corunners[COSCHED_LEDGER_CORUNNERS_MAX];
	uint64_t carried_uj;		/* of energy.total_uj, brought from
					 * earlier generations */
	cosched_proc_id_t stepd;	/* its slurmstepd (pid 0: none seen) */
	bool stopped;			/* its tasks stopped (suspended) at
					 * its sampler's latest update */
} cosched_ledger_step_t;

#define LEDGER_TAG "cosched-energy-ledger/"
#define LEDGER_SCHEMA 1
#define LEDGER_MINOR 2
/* The longest reason a restart line keeps. */
#define LEDGER_WHY_LEN 240

typedef struct {
	char dir[32];
	uint64_t uj;
} lzone_t;

typedef struct {
	char boot[COSCHED_BOOT_ID_LEN + 1];
	uint64_t gen;			/* 0: a 1.0 writer's, unknown */
	char why[LEDGER_WHY_LEN + 1];	/* "": no restart line */
	bool why_told;
	int nzones;
	lzone_t zone[COSCHED_RAPL_ZONES_MAX];
	uint64_t attributed, unattributed, abandoned;
	int n;
	cosched_ledger_step_t step[COSCHED_LEDGER_STEPS_MAX];
} ledger_t;

/* An empty ledger: everything before the steps zeroed.  The steps past
 * n are never read (a step is zeroed as it is parsed or joins), and
 * zeroing all COSCHED_LEDGER_STEPS_MAX of them (280 KB) at each load cost
 * a step more than the rest of its ledger update. */
static inline void cosched_ledger_clear(ledger_t *l)
{
	memset(l, 0, offsetof(ledger_t, step));
}

/* "JOB.STEP" with Slurm's special step ids as numbers. */
void cosched_step_ref_format(const cosched_step_ref_t *r, char *buf,
			     size_t len);
bool cosched_step_ref_eq(const cosched_step_ref_t *a,
			 const cosched_step_ref_t *b);
/* The whole file, malloc'd (NULL: out of memory). */
char *cosched_ledger_format(const ledger_t *l);
/* Parse the whole file (text is modified) into l; on error err names the
 * line and why.  A ledger of a newer minor is read, what it added skipped
 * and said once (cosched_kv_note_skipped); another major is refused. */
int cosched_ledger_parse(char *text, ledger_t *l, cosched_error_t *err);

#endif
