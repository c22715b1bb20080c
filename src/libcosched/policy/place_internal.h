/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * place_internal.h - the placement engine's state, shared by its
 * two files (policy/place.c: state; policy/place_query.c: queries).
 * Not for use outside the engine.
 */
#ifndef COSCHED_PLACE_INTERNAL_H
#define COSCHED_PLACE_INTERNAL_H

#include "src/libcosched/policy/place.h"

struct cosched_place {
	cosched_place_conf_t conf;
	cosched_occupancy_t *occ;
	size_t nnodes, nunits;
	size_t *unit_first;		/* per node: its first unit */
	int *unit_count;		/* per node: its units (0: a hole) */
	bool *node_ok;			/* per node: takes new jobs */
	size_t *unit_node;		/* per unit */
	int *unit_cores;		/* per unit: its cores */
	uint16_t *unit_closed;		/* per unit: wide jobs holding it whole */
	uint32_t *closing;		/* ids of those wide jobs, sorted */
	size_t nclosing, closing_cap;
	/* Room for nunits + COSCHED_PLACE_MAX_TRIES unit numbers, for one
	 * query at a time (the units excluded or offered): a query is on the
	 * path of every job test, and allocating it each time cost the
	 * simulator a fifth of its instructions. */
	size_t *scratch;
	long queue_jobs;		/* cosched_place_set_queue_jobs */
	/* "lenient gang: no socket accepts this ": the words of the reason
	 * no unit accepts a job that depend on the configuration alone, put
	 * together once (place.c) rather than for each such
	 * job. */
	char why_head[96];
};

/* The gang parameters the engine ranks a unit of capacity cores with. */
void cosched_place_gang_params(const cosched_place_t *p, int capacity,
			       cosched_gang_params_t *params);

/* What a unit is called in reasons: "socket", or "node" with
 * GangScope=node. */
const char *cosched_place_unit_word(const cosched_place_t *p);

#endif
