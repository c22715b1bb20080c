/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counters.h - event counters on a task and everything it starts,
 * behind one small interface with backends.
 *
 *   perf   Linux perf_event_open(2) on the task with inherit: the counts
 *          of every thread and process the task starts after the attach
 *          are summed in, while they run and after they end (the kernel
 *          adds each inherited child counter to the parent's reading).
 *          Software events (task-clock, context-switches, ...) work on
 *          every Linux machine, VMs included; hardware events need a PMU.
 *   papi   PAPI's perf_event component, attached to the task with
 *          inheritance (counters_papi.c): the same kernel
 *          counters, named by PAPI presets (PAPI_TOT_INS) or native names
 *          (perf::TASK-CLOCK, amd64_fam19h_zen4::RETIRED_INSTRUCTIONS).
 *          Only in programs built with PAPI; PAPI 7.0 cannot attach at
 *          all on a machine without a PMU (see that file).
 *   test   counts read from a text file ("NAME VALUE" lines) that a test
 *          writes: the sampler's pipeline without the kernel.
 *
 * Attach before the task runs (slurmstepd holds each forked task until
 * its task-plugin hooks return), so nothing it starts escapes.  An event
 * the machine cannot count is not an error of the attach: it is marked
 * unavailable with the reason ("instructions: no hardware counters: ..."),
 * and the others count; the attach fails only when no event opens.
 *
 * Event names: perf's task-clock, cpu-clock, context-switches,
 * cpu-migrations, page-faults (software); cycles, instructions,
 * cache-references, cache-misses, branch-instructions, branch-misses,
 * LLC-loads, LLC-load-misses, LLC-stores, LLC-store-misses (hardware),
 * which every backend counts (papi as perf::TASK-CLOCK and so on, the same
 * kernel events); PAPI presets (PAPI_ and capitals) and native names
 * (PMU::EVENT[:MASK...], as papi_native_avail prints them), which papi
 * counts and perf reports unavailable, except perf::NAME for one of
 * perf's own names, which perf counts too.
 *
 * Some names count what another backend names differently: each has a
 * role, the perf name of what it counts (cosched_counters_role), so that
 * what the sampler derives (cpu_s, IPC, MPKI) and merges into profiles
 * does not depend on the backend or the list.
 */
#ifndef COSCHED_COUNTERS_H
#define COSCHED_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/libcosched/conf/conf.h"
#include "src/libcosched/conf/events.h"
#include "src/libcosched/base/error.h"

#define COSCHED_COUNTERS_MAX COSCHED_SAMPLE_EVENTS_COUNT_MAX	/* cosched.conf checks */
/* Native names with unit masks are long
 * ("skx::OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS_LOCAL"). */
#define COSCHED_COUNTER_NAME_MAX 127

typedef enum {
	COSCHED_COUNTERS_PERF = 0,
	COSCHED_COUNTERS_TEST,
	COSCHED_COUNTERS_PAPI,
} cosched_counters_backend_t;

typedef struct cosched_counters cosched_counters_t;

/* Parse a comma-separated event list ("task-clock,PAPI_TOT_INS"): perf
 * names, PAPI presets and native names (the header's comment), at most
 * COSCHED_COUNTERS_MAX, none twice and no two of one role.  Whether a PAPI
 * name exists is PAPI's to say, at the attach.  field names the setting in
 * messages. */
int cosched_counters_parse(const char *field, const char *list,
			   char names[][COSCHED_COUNTER_NAME_MAX + 1], int *n,
			   cosched_error_t *err);

/*
 * A SampleBackend value as the sampler is given it: perf, papi, auto or
 * test:FILE (*test_file then points into spec).  auto is papi where PAPI
 * can attach to a task here (its perf_event component enabled, and
 * attaching with inheritance allowed), else perf.  what (len bytes)
 * receives the backend chosen for the record, with auto's reason:
 * "perf (auto: PAPI cannot attach here: ...)".  -1 with err for anything
 * else.  papi in a program built without PAPI is taken, and each attach
 * then says so (a state, as a missing PMU is).
 */
int cosched_counters_backend_parse(const char *spec,
				   cosched_counters_backend_t *b,
				   const char **test_file, char *what,
				   size_t len, cosched_error_t *err);

/*
 * Start counting the events on pid and everything it starts from now on.
 * test_file: the test backend's file (ignored by perf and papi).  NULL with err
 * when no event could be opened (err names each event and why).
 */
cosched_counters_t *cosched_counters_attach(cosched_counters_backend_t b,
					    pid_t pid,
					    char names[][COSCHED_COUNTER_NAME_MAX + 1],
					    int n, const char *test_file,
					    cosched_error_t *err);

const char *cosched_counters_name(const cosched_counters_t *c, int i);
/* NULL when event i counts, else why it does not. */
const char *cosched_counters_unavailable(const cosched_counters_t *c, int i);

/*
 * The totals so far: values[i] for each event (scaled by enabled/running
 * time when the kernel multiplexed it), valid[i] false for an unavailable
 * event or a failed read.  Returns the number of events read, -1 with err
 * when none could be.
 */
int cosched_counters_read(cosched_counters_t *c, uint64_t *values,
			  bool *valid, cosched_error_t *err);

void cosched_counters_close(cosched_counters_t *c);

#endif
