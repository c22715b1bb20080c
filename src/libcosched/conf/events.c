/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events.c - the event names and roles (events.h).
 */
#include <linux/perf_event.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "src/libcosched/conf/events.h"

#define PERF_PREFIX "perf::"

#define HW_CACHE(cache, op, result) \
	((uint64_t) (cache) | ((uint64_t) (op) << 8) | \
	 ((uint64_t) (result) << 16))

static const cosched_event_def_t events[] = {
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "context-switches", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "LLC-loads", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
		   PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "LLC-load-misses", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
		   PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "LLC-stores", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_WRITE,
		   PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "LLC-store-misses", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_WRITE,
		   PERF_COUNT_HW_CACHE_RESULT_MISS) },
};
#define N_EVENTS (sizeof(events) / sizeof(events[0]))


const cosched_event_def_t *cosched_counters_find_event(const char *name)
{
	bool alias = !strncmp(name, PERF_PREFIX, strlen(PERF_PREFIX));

	if (alias)
		name += strlen(PERF_PREFIX);
	for (size_t i = 0; i < N_EVENTS; i++)
		if (alias ? !strcasecmp(events[i].name, name) :
			    !strcmp(events[i].name, name))
			return &events[i];
	return NULL;
}

/* The presets whose counts the sampler derives from (the header says
 * why the L3 ones are LLC-load-misses). */
static const struct {
	const char *preset, *role;
} preset_roles[] = {
	{ "PAPI_TOT_INS", "instructions" },
	{ "PAPI_TOT_CYC", "cycles" },
	{ "PAPI_L3_LDM", "LLC-load-misses" },
	{ "PAPI_L3_TCM", "LLC-load-misses" },
};

const char *cosched_counters_role(const char *name)
{
	const cosched_event_def_t *e = cosched_counters_find_event(name);

	if (e)
		return e->name;
	for (size_t i = 0; i < sizeof(preset_roles) / sizeof(preset_roles[0]);
	     i++)
		if (!strcmp(preset_roles[i].preset, name))
			return preset_roles[i].role;
	return NULL;
}

const char *cosched_counters_same_role(const char *a, const char *b)
{
	const char *ra = cosched_counters_role(a), *rb = cosched_counters_role(b);

	return ra && rb && !strcmp(ra, rb) ? ra : NULL;
}
