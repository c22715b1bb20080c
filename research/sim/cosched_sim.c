/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_sim.c - cosched-sim(1): what would each policy do to this
 * workload?  Replays it through the decision core (sim.h) and prints the
 * metrics of "Power-aware gang scheduling on multicore" (NTUA thesis, 2013)
 * as a table, CSV or JSON.  The options are in sim_options.c, the
 * experiments in sim_experiments.c, the output in sim_report.c
 * (sim_cli.h).
 *
 * Exit status: 0; 1 when the simulation fails; 2 on a bad argument or
 * workload file.
 */
#include "research/sim/sim_cli.h"

int main(int argc, char **argv)
{
	opts_t o;
	sim_model_t m;
	sim_workload_t w = { 0 };
	int rc = sim_options_parse(argc, argv, &o, &m);

	if (rc == SIM_OPTIONS_DONE)
		return SIM_EXIT_OK;
	if (rc != SIM_EXIT_OK)
		return rc;
	/* --bench-scale, --anchor and --seed000 make their own. */
	if (!o.bench_large && !o.anchor && !o.seed000) {
		rc = sim_options_workload(&o, &m, &w);
		if (rc != SIM_EXIT_OK)
			return rc;
	}
	rc = sim_run(&o, &m, &w);
	sim_workload_free(&w);
	return rc;
}
