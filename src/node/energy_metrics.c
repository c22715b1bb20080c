/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * energy_metrics.c - the node's energy ledger as Prometheus
 * metrics (energy_ledger.h, cosched_energy_ledger_metrics()):
 * what each step present has been given so far, for node_exporter's
 * textfile collector (cosched-node metrics).  Finished steps are in
 * Slurm's accounting (acct_gather_energy/cosched), not here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/libcosched/io/file.h"
#include "src/libcosched/base/prom.h"
#include "src/node/energy_ledger.h"

#define LEDGER_BYTES_MAX (4u << 20)

static void step_sample(FILE *out, const char *metric, const char *node,
			const cosched_ledger_step_t *s, double value)
{
	char job[16], step[16];
	cosched_prom_label_t l[] = {
		{ "node", node }, { "job", job }, { "step", step },
	};

	snprintf(job, sizeof(job), "%" PRIu32, s->id.job_id);
	snprintf(step, sizeof(step), "%" PRIu32, s->id.step_id);
	cosched_prom_sample(out, metric, l, 3, value);
}

int cosched_energy_ledger_metrics(const char *dir, const char *node,
				  FILE *out, cosched_error_t *err)
{
	static const char *const kinds[] = {
		"attributed", "unattributed", "abandoned",
	};
	cosched_prom_label_t nl[] = { { "node", node }, { "kind", NULL } };
	char path[COSCHED_PATH_MAX];
	ledger_t *l = calloc(1, sizeof(*l));
	char *text = NULL;
	int missing = 0, rc = -1;
	bool counts;

	if (!l)
		return cosched_error_set(err, "energy ledger: out of memory");
	if (cosched_spool_path(path, sizeof(path), dir,
			       COSCHED_ENERGY_LEDGER_FILE, "", err))
		goto out;
	/* No lock: the file is replaced whole, atomically. */
	text = cosched_read_file(path, LEDGER_BYTES_MAX, &missing, err);
	if (!text && !missing)
		goto out;
	if (text && cosched_ledger_parse(text, l, err)) {
		cosched_error_prefix(err, path);
		goto out;
	}
	counts = l->nzones > 0;
	cosched_prom_family(out, "cosched_ledger_steps", "gauge",
		"Steps present in the node's energy ledger.");
	cosched_prom_sample(out, "cosched_ledger_steps", nl, 1, l->n);
	cosched_prom_family(out, "cosched_ledger_measures_energy", "gauge",
		"1 when the ledger counts RAPL energy, 0 when it keeps presence only (no RAPL) or there is none.");
	cosched_prom_sample(out, "cosched_ledger_measures_energy", nl, 1,
			    counts);
	cosched_prom_family(out, "cosched_step_cores", "gauge",
		"Cores a step present holds on the node.");
	for (int i = 0; i < l->n; i++)
		step_sample(out, "cosched_step_cores", node, &l->step[i],
			    l->step[i].cores);
	if (!counts)
		goto done;
	cosched_prom_family(out, "cosched_step_energy_joules_total", "counter",
		"The step's share of the node's RAPL energy (package and DRAM) so far.");
	for (int i = 0; i < l->n; i++)
		step_sample(out, "cosched_step_energy_joules_total", node,
			    &l->step[i],
			    (double) l->step[i].energy.total_uj / 1e6);
	cosched_prom_family(out, "cosched_step_node_energy_joules_total",
		"counter", "The node's whole energy while the step was present.");
	for (int i = 0; i < l->n; i++)
		step_sample(out, "cosched_step_node_energy_joules_total", node,
			    &l->step[i], (double) l->step[i].node_uj / 1e6);
	cosched_prom_family(out, "cosched_ledger_energy_joules", "gauge",
		"Since the ledger started (with its first step): energy given to steps that left (attributed), spent with no step present (unattributed), given to steps whose sampler died (abandoned).");
	for (int k = 0; k < 3; k++) {
		uint64_t v = k == 0 ? l->attributed : k == 1 ? l->unattributed :
			     l->abandoned;

		nl[1].value = kinds[k];
		cosched_prom_sample(out, "cosched_ledger_energy_joules", nl, 2,
				    (double) v / 1e6);
	}
done:
	rc = ferror(out) ? cosched_error_set(err, "writing the metrics failed") : 0;
out:
	free(text);
	free(l);
	return rc;
}

int cosched_energy_ledger_mem_rate(const char *dir,
				   const cosched_step_ref_t *id,
				   uint64_t *mem_rate, cosched_error_t *err)
{
	char path[COSCHED_PATH_MAX];
	ledger_t *l = calloc(1, sizeof(*l));
	char *text = NULL;
	int missing = 0, rc = 1;

	if (!l)
		return cosched_error_set(err, "energy ledger: out of memory");
	if (cosched_spool_path(path, sizeof(path), dir,
			       COSCHED_ENERGY_LEDGER_FILE, "", err)) {
		rc = -1;
		goto out;
	}
	/* No lock: the file is replaced whole, atomically. */
	text = cosched_read_file(path, LEDGER_BYTES_MAX, &missing, err);
	if (!text) {
		rc = missing ? 1 : -1;
		goto out;
	}
	if (cosched_ledger_parse(text, l, err)) {
		cosched_error_prefix(err, path);
		rc = -1;
		goto out;
	}
	for (int i = 0; i < l->n; i++)
		if (cosched_step_ref_eq(&l->step[i].id, id)) {
			*mem_rate = l->step[i].mem_rate;
			rc = 0;
			break;
		}
out:
	free(text);
	free(l);
	return rc;
}
