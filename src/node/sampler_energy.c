/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sampler_energy.c - a sampled step's energy through the node's
 * energy ledger (sampler_energy.h).
 */
#include <stdio.h>
#include <string.h>

#include "src/node/sampler_energy.h"

/* The energy ledger is shared by the node's samplers: each waits this
 * long for it, and counts its sample unattributed to itself otherwise. */
#define LEDGER_WAIT_MS 500
/* Updates that may fail in a row (the lock busy past LEDGER_WAIT_MS on a
 * loaded node) before the step's energy is given up; the last update,
 * as the step leaves, is tried this many times too. */
#define LEDGER_MISSES_MAX 10

static void energy_off(sampler_energy_t *e, const char *fmt, const char *why)
{
	snprintf(e->state, sizeof(e->state), fmt, why);
	/* Out of the ledger, its list of co-runners is no longer whole. */
	e->in_ledger = e->corunners_known = false;
}

/* RAPL and the node's ledger, joined as the step starts.  No RAPL is a
 * state of the record ("energy unavailable: ..."), not an error. */
void sampler_energy_start(sampler_energy_t *e, unsigned job, unsigned step,
			  int threads)
{
	cosched_error_t err;

	if (!e->sysfs_root || !e->ledger_dir) {
		energy_off(e, "%s", "energy unavailable: not asked for");
		return;
	}
	/* Without RAPL the step still joins the ledger, for presence: the
	 * ledger is what names its co-runners in the record (the learned
	 * interference table's observations, src/libcosched/model/observe.h). */
	e->rapl = cosched_rapl_open(e->sysfs_root, &err);
	if (!e->rapl)
		snprintf(e->state, sizeof(e->state), "%s", err.msg);
	e->me.id.job_id = job;
	e->me.id.step_id = step;
	e->me.cores = threads > 0 ? (uint32_t) threads : 1;
	e->me.mem_rate = COSCHED_ENERGY_UNKNOWN;
	if (cosched_proc_self(&e->me.proc, &err)) {
		energy_off(e, "energy unavailable: %.400s", err.msg);
		return;
	}
	if (cosched_energy_ledger_update(e->rapl, e->ledger_dir, &e->me, false,
					 LEDGER_WAIT_MS, NULL, NULL, &err)) {
		/* The ledger busy as the step starts: the next update joins
		 * it (sampler_energy_update), late, so the co-runners it names are
		 * not all of them. */
		e->ledger_misses = 1;
		e->in_ledger = true;
		e->corunners_known = false;
	} else {
		e->in_ledger = e->corunners_known = true;
	}
	if (e->rapl)
		snprintf(e->state, sizeof(e->state), "measured");
}

/* The step's rates over the interval just sampled, for the ledger's split:
 * CPU time per second (task-clock), and LLC misses per second where they
 * count (the memory activity DRAM energy is split by). */
void sampler_energy_rates(sampler_energy_t *e, double dt, bool clk_ok,
			  uint64_t clk, bool miss_ok, uint64_t miss)
{
	if (dt <= 0.0)
		return;
	e->me.rate = clk_ok ? (uint64_t) ((double) clk / dt) : 0;
	e->me.mem_rate = miss_ok ? (uint64_t) ((double) miss / dt) :
				   COSCHED_ENERGY_UNKNOWN;
}

void sampler_energy_update(sampler_energy_t *e, bool leave)
{
	cosched_ledger_step_t out;
	cosched_ledger_outcome_t oc;
	cosched_error_t err;

	if (!e->in_ledger)
		return;
	while (cosched_energy_ledger_update(e->rapl, e->ledger_dir, &e->me,
					    leave, LEDGER_WAIT_MS, &out, &oc,
					    &err)) {
		/* A failed update changed nothing, and the step is still in
		 * the ledger, where the other steps' updates keep splitting
		 * energy to it: a busy moment is made up by the next update
		 * (the last one, as the step leaves, is tried again at once).
		 * Only a ledger busy or broken this many times in a row loses
		 * the step's energy, and the record says why. */
		if (oc.lock_refused) {
			/* No retry mends it: say so now, and keep what was
			 * measured before in the record. */
			energy_off(e, "energy incomplete: %.400s", err.msg);
			e->partial = true;
			return;
		}
		if (++e->ledger_misses < LEDGER_MISSES_MAX) {
			if (leave)
				continue;
			return;
		}
		energy_off(e, "energy unavailable: %.400s", err.msg);
		return;
	}
	e->ledger_misses = 0;
	e->me.energy = out.energy;
	e->me.node_uj = out.node_uj;
	e->me.ncorunners = out.ncorunners;
	e->me.corunners_seen = out.corunners_seen;
	memcpy(e->me.corunners, out.corunners, sizeof(out.corunners));
	/* A ledger that started again forgot who was present before: the
	 * record's co-runners would be a part only. */
	if (oc.restarted)
		e->corunners_known = false;
	/* A ledger that started again at a loss: the step keeps what it
	 * had (carried), but what was spent since the ledger's last reading
	 * is no one's; the record says so. */
	if (oc.restarted && e->rapl && strcmp(oc.note, "new ledger"))
		snprintf(e->state, sizeof(e->state),
			 "measured, but the ledger started again: %.400s",
			 oc.note);
}

/* The record's "energy": the step's share and the node's energy while it
 * ran, or only the state when there was none to measure. */
json_t *sampler_energy_json(const sampler_energy_t *en)
{
	json_t *e = json_object();

	json_object_set_new(e, "state", json_string(en->state));
	if (!(en->in_ledger || en->partial) || !en->rapl)
		return e;
	json_object_set_new(e, "total_uj",
			    json_integer((json_int_t) en->me.energy.total_uj));
	json_object_set_new(e, "uncore_uj",
			    json_integer((json_int_t) en->me.energy.uncore_uj));
	if (cosched_rapl_has_core(en->rapl))
		json_object_set_new(e, "core_uj", json_integer(
			(json_int_t) en->me.energy.core_uj));
	if (cosched_rapl_has_dram(en->rapl))
		json_object_set_new(e, "dram_uj", json_integer(
			(json_int_t) en->me.energy.dram_uj));
	json_object_set_new(e, "node_uj",
			    json_integer((json_int_t) en->me.node_uj));
	return e;
}
