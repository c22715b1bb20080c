/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counters_events.h - the names of the events the counters count: perf's
 * own (with their perf_event_attr type and config), perf::NAME for them,
 * and the roles of PAPI's presets the sampler derives from.  Its own file
 * so that PAPI's module, which needs the roles, links no perf backend.
 */
#ifndef COSCHED_COUNTERS_EVENTS_H
#define COSCHED_COUNTERS_EVENTS_H

#include <stdint.h>

typedef struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} cosched_event_def_t;

/* One of perf's names, or perf::NAME in any case (PAPI's name for the
 * same kernel event); NULL for any other name. */
const cosched_event_def_t *cosched_counters_find_event(const char *name);

#endif
