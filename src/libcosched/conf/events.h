/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events.h - the names of the events the node's counters count: perf's
 * own (with their perf_event_attr type and config, the kernel's numbers),
 * perf::NAME for them, and the roles of PAPI's presets the sampler
 * derives from.  In the conf layer so that cosched.conf refuses a list
 * the samplers would (two names of one counter) where an administrator
 * reads it, and so that PAPI's module, which needs the roles, links no
 * perf backend.
 */
#ifndef COSCHED_CONF_EVENTS_H
#define COSCHED_CONF_EVENTS_H

#include <stdint.h>

typedef struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} cosched_event_def_t;

/* One of perf's names, or perf::NAME in any case (PAPI's name for the
 * same kernel event); NULL for any other name. */
const cosched_event_def_t *cosched_counters_find_event(const char *name);

/*
 * The role of an event name: the perf name of what it counts, for perf's
 * own names and for perf::NAME (any case), and for the presets the
 * sampler derives from: PAPI_TOT_INS instructions, PAPI_TOT_CYC cycles,
 * PAPI_L3_LDM and PAPI_L3_TCM LLC-load-misses (all L3 misses: the MPI of
 * "Power-aware gang scheduling on multicore" (NTUA thesis, 2013) counts
 * those, and some CPUs have no L3 load-miss preset).  NULL for any other name.
 */
const char *cosched_counters_role(const char *name);

/* What a and b both count when they have one role (instructions and
 * PAPI_TOT_INS), else NULL: a list naming both would leave the sampler
 * two counts of one thing to derive from, so both cosched.conf and the
 * sampler refuse it. */
const char *cosched_counters_same_role(const char *a, const char *b);

#endif
