/*
 * cosched_counters.h - event counters on a task and everything it starts,
 * behind one small interface with backends.
 *
 *   perf   Linux perf_event_open(2) on the task with inherit: the counts
 *          of every thread and process the task starts after the attach
 *          are summed in, while they run and after they end (the kernel
 *          adds each inherited child counter to the parent's reading).
 *          Software events (task-clock, context-switches, ...) work on
 *          every Linux machine, VMs included; hardware events need a PMU.
 *   test   counts read from a text file ("NAME VALUE" lines) that a test
 *          writes: the sampler's pipeline without the kernel.
 *
 * Attach before the task runs (slurmstepd holds each forked task until
 * its task-plugin hooks return), so nothing it starts escapes.  An event
 * the machine cannot count is not an error of the attach: it is marked
 * unavailable with the reason ("instructions: no hardware counters: ..."),
 * and the others count; the attach fails only when no event opens.
 *
 * Event names (perf's): task-clock, cpu-clock, context-switches,
 * cpu-migrations, page-faults (software); cycles, instructions,
 * cache-references, cache-misses, branch-instructions, branch-misses,
 * LLC-loads, LLC-load-misses, LLC-stores, LLC-store-misses (hardware).
 */
#ifndef COSCHED_COUNTERS_H
#define COSCHED_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/libcosched/cosched_error.h"

#define COSCHED_COUNTERS_MAX 16
#define COSCHED_COUNTER_NAME_MAX 31

typedef enum {
	COSCHED_COUNTERS_PERF = 0,
	COSCHED_COUNTERS_TEST,
} cosched_counters_backend_t;

typedef struct cosched_counters cosched_counters_t;

/* Parse a comma-separated event list ("task-clock,instructions"): known
 * names only, at most COSCHED_COUNTERS_MAX, none twice.  field names the
 * setting in messages. */
int cosched_counters_parse(const char *field, const char *list,
			   char names[][COSCHED_COUNTER_NAME_MAX + 1], int *n,
			   cosched_error_t *err);

/*
 * Start counting the events on pid and everything it starts from now on.
 * test_file: the test backend's file (ignored by perf).  NULL with err
 * when no event could be opened (err names each event and why).
 */
cosched_counters_t *cosched_counters_attach(cosched_counters_backend_t b,
					    pid_t pid,
					    char names[][COSCHED_COUNTER_NAME_MAX + 1],
					    int n, const char *test_file,
					    cosched_error_t *err);

int cosched_counters_count(const cosched_counters_t *c);
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
