/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sampler_energy.h - a sampled step's energy (cosched-sampler):
 * its share of the node's RAPL energy while it ran, through the node's
 * energy ledger (energy_ledger.h), which also names the steps that
 * shared the node.  No RAPL is a state of the record, not an error: the
 * step still joins the ledger, for its co-runners.
 */
#ifndef COSCHED_SAMPLER_ENERGY_H
#define COSCHED_SAMPLER_ENERGY_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "src/libcosched/base/error.h"
#include "src/node/energy_ledger.h"
#include "src/node/rapl.h"

typedef struct {
	const char *sysfs_root, *ledger_dir;	/* NULL: not asked for */
	cosched_rapl_t *rapl;
	cosched_ledger_step_t me;	/* ids, rates; totals after an update */
	bool in_ledger;
	bool partial;			/* out of the ledger, but what it was
					 * given before stands in the record */
	int ledger_misses;		/* updates failed in a row */
	bool corunners_known;		/* it joined the ledger, which names
					 * the steps that shared the node */
	char state[COSCHED_ERROR_MSG_LEN + 32];	/* the record's "state" */
} sampler_energy_t;

/* Join RAPL and the ledger as the step starts; sysfs_root and ledger_dir
 * set before, zero the rest. */
void sampler_energy_start(sampler_energy_t *e, unsigned job, unsigned step,
			  int threads);

/* The step's task-clock and LLC-miss counts over the interval just
 * sampled, dt seconds (each when it counted), as rates for the ledger's
 * split. */
void sampler_energy_rates(sampler_energy_t *e, double dt, bool clk_ok,
			  uint64_t clk, bool miss_ok, uint64_t miss);

/* One update of the ledger (leave: the step's last, as it ends). */
void sampler_energy_update(sampler_energy_t *e, bool leave);

/* The record's "energy" object. */
json_t *sampler_energy_json(const sampler_energy_t *e);

#endif
