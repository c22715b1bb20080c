/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeshare.c - the cores a job takes on a time-shared unit
 * (policy/timeshare.h): each choice judged by the jobs it would run
 * beside, pair by pair with the policy's ranking.
 */
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/policy/timeshare.h"
#include "src/libcosched/policy/place_internal.h"

bool cosched_ts_pairs_well(const cosched_place_t *p, int ncores,
			   const cosched_gang_job_t *a,
			   const cosched_gang_job_t *b)
{
	cosched_gang_params_t params;
	/* b's slice, and a slice of a's own: running beside b must be
	 * accepted and ranked above alternating with it. */
	cosched_socket_t sock[2] = {
		{ .capacity = ncores, .used = b->threads, .occupants = b,
		  .noccupants = 1 },
		{ .capacity = ncores },
	};
	cosched_candidate_t cand[2];
	cosched_gang_job_t job = *a;
	size_t nacc = 0;

	if (a->threads + b->threads > ncores)
		return false;
	/* Sharing by choice, bounded as min_slowdown's packing is. */
	if (p->conf.max_slowdown > 0)
		job.max_slowdown = p->conf.max_slowdown;
	cosched_place_gang_params(p, ncores, &params);
	params.time_shared = true;
	if (cosched_gang_rank(p->conf.policy, &params, sock, 2, &job, cand,
			      &nacc, NULL))
		return false;
	return nacc > 0 && cand[0].reject == COSCHED_REJECT_NONE &&
	       cand[0].socket == 0;
}

double cosched_ts_slowdown(const cosched_place_t *p, cosched_category_t cat,
			   const cosched_ts_holder_t *holders, size_t n,
			   uint64_t beside)
{
	cosched_interference_model_t dflt;
	const cosched_interference_model_t *m = p->conf.interference;
	double worst = 1.0;

	if (!m) {
		cosched_interference_default(&dflt);
		m = &dflt;
	}
	for (size_t k = 0; k < n && k < 64; k++) {
		double s;

		if (!(beside & ((uint64_t) 1 << k)))
			continue;
		s = cosched_interference_pair(m, cosched_category_to_lca(cat),
			cosched_category_to_lca(holders[k].gj.category));
		if (s > worst)
			worst = s;
	}
	return worst;
}

void cosched_ts_partners(const cosched_ts_holder_t *holders, size_t n,
			 uint32_t self, uint64_t own, uint64_t *alternates,
			 uint64_t *beside)
{
	*alternates = *beside = 0;
	for (size_t k = 0; k < n && k < 64; k++) {
		if (self && holders[k].gj.job_id == self)
			continue;
		if (holders[k].cores & own)
			*alternates |= (uint64_t) 1 << k;
		else
			*beside |= (uint64_t) 1 << k;
	}
}

void cosched_ts_add_peer(uint32_t *ids, int *n, int max, uint32_t id)
{
	int i = 0;

	while (i < *n && ids[i] < id)
		i++;
	if ((i < *n && ids[i] == id) || *n >= max)
		return;
	memmove(&ids[i + 1], &ids[i], (size_t) (*n - i) * sizeof(*ids));
	ids[i] = id;
	(*n)++;
}

bool cosched_ts_unit_preferred(const cosched_ts_choice_t *c, size_t n,
			       int pass)
{
	if (c->how == COSCHED_TS_NONE)
		return false;
	return pass == 0 ? n > 0 : n == 0;
}

/* The holders a choice of cores leaves the job beside (holding none of
 * them), and alternating with (holding some); the first bad partner
 * beside, or -1. */
static long judge(const cosched_place_t *p, int ncores,
		  const cosched_ts_holder_t *h, size_t n,
		  const cosched_gang_job_t *job, uint64_t cores,
		  uint64_t *alternates, uint64_t *beside)
{
	cosched_ts_partners(h, n, 0, cores, alternates, beside);
	for (size_t k = 0; k < n; k++)
		if (!(h[k].cores & cores) &&
		    !cosched_ts_pairs_well(p, ncores, job, &h[k].gj))
			return (long) k;
	return -1;
}

static int ts_bad_input(cosched_error_t *err, const char *what, long value)
{
	cosched_error_set(err, "time sharing: %s %ld", what, value);
	return -1;
}

int cosched_ts_choose(const cosched_place_t *p, int ncores, int rows,
		      const cosched_ts_holder_t *holders, size_t n,
		      const cosched_gang_job_t *job, cosched_ts_choice_t *out,
		      cosched_error_t *err)
{
	int count[COSCHED_TS_MAX_CORES] = { 0 };
	uint64_t idle = 0, room = 0, alt, bes;
	bool *bad_partner;
	long bad;
	int pass;

	memset(out, 0, sizeof(*out));
	out->with = out->bad = -1;
	if (!p || !job || (n && !holders))
		return ts_bad_input(err, "no engine, job or holders", 0);
	if (ncores < 1 || ncores > COSCHED_TS_MAX_CORES)
		return ts_bad_input(err, "cores", ncores);
	if (rows < 1)
		return ts_bad_input(err, "rows", rows);
	if (job->threads < 1 || job->threads > ncores)
		return ts_bad_input(err, "job threads", job->threads);
	for (size_t k = 0; k < n; k++)
		for (int c = 0; c < ncores; c++)
			if (holders[k].cores & ((uint64_t) 1 << c))
				count[c]++;
	for (int c = 0; c < ncores; c++) {
		if (!count[c])
			idle |= (uint64_t) 1 << c;
		if (count[c] < rows)
			room |= (uint64_t) 1 << c;
	}
	/* Idle cores: beside every holder. */
	if (__builtin_popcountll(idle) >= job->threads) {
		bad = judge(p, ncores, holders, n, job, idle, &alt, &bes);
		if (bad < 0) {
			out->how = COSCHED_TS_IDLE;
			out->cores = idle;
			out->alternates = alt;
			out->beside = bes;
			return 0;
		}
		out->bad = bad;
	}
	/* A holder's cores with room: first those of a bad partner, then
	 * any (in the holders' order). */
	bad_partner = n ? calloc(n, sizeof(bool)) : NULL;
	if (n && !bad_partner)
		return ts_bad_input(err, "out of memory, holders", (long) n);
	for (size_t k = 0; k < n; k++)
		bad_partner[k] = !cosched_ts_pairs_well(p, ncores, job,
							&holders[k].gj);
	for (pass = 0; pass < 2; pass++) {
		for (size_t k = 0; k < n; k++) {
			uint64_t cores = holders[k].cores & room;

			if (bad_partner[k] != (pass == 0) ||
			    __builtin_popcountll(cores) < job->threads)
				continue;
			if (judge(p, ncores, holders, n, job, cores, &alt,
				  &bes) >= 0)
				continue;
			out->how = COSCHED_TS_ALTERNATE;
			out->cores = cores;
			out->with = (long) k;
			out->with_bad = bad_partner[k];
			out->alternates = alt;
			out->beside = bes;
			out->bad = -1;
			free(bad_partner);
			return 0;
		}
	}
	free(bad_partner);
	return 0;
}
