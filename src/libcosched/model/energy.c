/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * energy.c - a node's energy split among its jobs (the rule is in
 * the header).
 *
 * The products part x weight need up to 128 bits; GCC and clang give
 * unsigned __int128 on every 64-bit target Slurm runs on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/model/energy.h"

#ifndef __SIZEOF_INT128__
#error "model/energy.c needs unsigned __int128 (a 64-bit GCC or clang)"
#endif

typedef unsigned __int128 u128;

typedef struct {
	u128 rem;	/* part x w mod W */
	size_t idx;
} rest_t;

/* Largest remainder first; ties to the earlier job. */
static int cmp_rest(const void *a, const void *b)
{
	const rest_t *x = a, *y = b;

	if (x->rem != y->rem)
		return x->rem > y->rem ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

int cosched_energy_apportion(uint64_t part, const uint64_t *w, size_t n,
			     uint64_t *out, cosched_error_t *err)
{
	u128 sum = 0;
	uint64_t given = 0;
	rest_t *rest;

	if (n < 1 || n > COSCHED_ENERGY_JOBS_MAX)
		return cosched_error_set(err,
			"energy: %zu shares (1 .. %d)", n,
			COSCHED_ENERGY_JOBS_MAX);
	for (size_t i = 0; i < n; i++)
		sum += w[i];
	if (!sum)
		return cosched_error_set(err,
			"energy: every weight is 0: nothing to share by");
	rest = malloc(n * sizeof(*rest));
	if (!rest)
		return cosched_error_set(err, "energy: out of memory");
	for (size_t i = 0; i < n; i++) {
		u128 p = (u128) part * w[i];

		/* floor(part * w / sum) <= part: fits in 64 bits. */
		out[i] = (uint64_t) (p / sum);
		rest[i].rem = p % sum;
		rest[i].idx = i;
		given += out[i];
	}
	/* sum(floor) > part - n, so fewer than n microjoules are left: one
	 * each to the largest remainders. */
	qsort(rest, n, sizeof(*rest), cmp_rest);
	for (size_t k = 0; given < part; k++, given++)
		out[rest[k].idx]++;
	free(rest);
	return 0;
}

static bool all_zero(const uint64_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w[i])
			return false;
	return true;
}

int cosched_energy_split(const cosched_energy_node_t *node,
			 const cosched_energy_job_t *jobs, size_t njobs,
			 cosched_energy_share_t *shares,
			 cosched_energy_split_t *out, cosched_error_t *err)
{
	cosched_energy_split_t s = { 0, 0, 0 };
	uint64_t core, uncore, dram;
	uint64_t *w_cores = NULL, *w_act = NULL, *w_mem = NULL;
	uint64_t *p_uncore = NULL, *p_core = NULL, *p_dram = NULL;
	const uint64_t *w_core_part, *w_dram_part;
	bool mem_known = true;
	int rc = -1;

	dram = node->has_dram ? node->dram_uj : 0;
	if (!node->has_dram)
		s.flags |= COSCHED_ENERGY_NO_DRAM;
	if (node->package_uj > UINT64_MAX - dram)
		return cosched_error_set(err,
			"energy: package %llu uJ + dram %llu uJ does not fit in 64 bits",
			(unsigned long long) node->package_uj,
			(unsigned long long) dram);
	s.node_uj = node->package_uj + dram;
	if (njobs > COSCHED_ENERGY_JOBS_MAX)
		return cosched_error_set(err,
			"energy: %zu jobs on one node (at most %d)", njobs,
			COSCHED_ENERGY_JOBS_MAX);
	for (size_t i = 0; i < njobs; i++)
		if (jobs[i].cores < 1)
			return cosched_error_set(err,
				"energy: job %zu: cores=0 (a job holds at least one core)",
				i);
	if (!njobs) {
		s.unattributed_uj = s.node_uj;
		s.flags |= COSCHED_ENERGY_UNATTRIBUTED;
		if (out)
			*out = s;
		return 0;
	}

	/* The parts. */
	if (!node->has_core) {
		s.flags |= COSCHED_ENERGY_PACKAGE_BY_CORES;
		core = 0;
	} else if (node->core_uj > node->package_uj) {
		s.flags |= COSCHED_ENERGY_CORE_CLAMPED;
		core = node->package_uj;
	} else {
		core = node->core_uj;
	}
	uncore = node->package_uj - core;

	w_cores = malloc(njobs * sizeof(uint64_t));
	w_act = malloc(njobs * sizeof(uint64_t));
	w_mem = malloc(njobs * sizeof(uint64_t));
	p_uncore = malloc(njobs * sizeof(uint64_t));
	p_core = malloc(njobs * sizeof(uint64_t));
	p_dram = malloc(njobs * sizeof(uint64_t));
	if (!w_cores || !w_act || !w_mem || !p_uncore || !p_core || !p_dram) {
		cosched_error_set(err, "energy: out of memory");
		goto out;
	}
	for (size_t i = 0; i < njobs; i++) {
		w_cores[i] = jobs[i].cores;
		w_act[i] = jobs[i].activity;
		w_mem[i] = jobs[i].mem_activity;
		if (jobs[i].mem_activity == COSCHED_ENERGY_UNKNOWN)
			mem_known = false;
	}

	/* The weights of the core and DRAM parts, with their fallbacks. */
	w_core_part = w_act;
	if (all_zero(w_act, njobs)) {
		w_core_part = w_cores;
		if (node->has_core)
			s.flags |= COSCHED_ENERGY_CORE_BY_CORES;
	}
	w_dram_part = w_mem;
	if (!mem_known || all_zero(w_mem, njobs)) {
		w_dram_part = w_act;
		s.flags |= COSCHED_ENERGY_DRAM_BY_ACTIVITY;
		if (all_zero(w_act, njobs)) {
			w_dram_part = w_cores;
			s.flags &= ~COSCHED_ENERGY_DRAM_BY_ACTIVITY;
			s.flags |= COSCHED_ENERGY_DRAM_BY_CORES;
		}
	}
	if (!node->has_dram)
		s.flags &= ~(COSCHED_ENERGY_DRAM_BY_ACTIVITY |
			     COSCHED_ENERGY_DRAM_BY_CORES);

	if (cosched_energy_apportion(uncore, w_cores, njobs, p_uncore, err) ||
	    cosched_energy_apportion(core, w_core_part, njobs, p_core, err) ||
	    cosched_energy_apportion(dram, w_dram_part, njobs, p_dram, err))
		goto out;
	for (size_t i = 0; i < njobs; i++) {
		shares[i].uncore_uj = p_uncore[i];
		shares[i].core_uj = p_core[i];
		shares[i].dram_uj = p_dram[i];
		/* Each below its part, and the parts sum to node_uj. */
		shares[i].total_uj = p_uncore[i] + p_core[i] + p_dram[i];
	}
	if (out)
		*out = s;
	rc = 0;
out:
	free(w_cores);
	free(w_act);
	free(w_mem);
	free(p_uncore);
	free(p_core);
	free(p_dram);
	return rc;
}

char *cosched_energy_split_describe(const cosched_energy_split_t *s,
				    size_t njobs, char *buf, size_t len)
{
	static const struct {
		unsigned flag;
		const char *text;
	} notes[] = {
		{ COSCHED_ENERGY_PACKAGE_BY_CORES,
		  "no core zone: package by cores" },
		{ COSCHED_ENERGY_CORE_CLAMPED,
		  "core above package: taken as package" },
		{ COSCHED_ENERGY_CORE_BY_CORES,
		  "no activity: core by cores" },
		{ COSCHED_ENERGY_DRAM_BY_ACTIVITY,
		  "no memory activity: DRAM by activity" },
		{ COSCHED_ENERGY_DRAM_BY_CORES,
		  "no activity: DRAM by cores" },
		{ COSCHED_ENERGY_NO_DRAM, "no DRAM zone" },
	};
	size_t used;

	if (!len)
		return buf;
	if (s->flags & COSCHED_ENERGY_UNATTRIBUTED)
		snprintf(buf, len, "node %llu.%06llu J unattributed: no job on the node",
			 (unsigned long long) (s->node_uj / 1000000),
			 (unsigned long long) (s->node_uj % 1000000));
	else
		snprintf(buf, len, "node %llu.%06llu J to %zu job%s",
			 (unsigned long long) (s->node_uj / 1000000),
			 (unsigned long long) (s->node_uj % 1000000), njobs,
			 njobs == 1 ? "" : "s");
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++) {
		if (!(s->flags & notes[i].flag))
			continue;
		used = strlen(buf);
		snprintf(buf + used, len - used, "; %s", notes[i].text);
	}
	return buf;
}
