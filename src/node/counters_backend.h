/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counters_backend.h - what counters.c and a backend in a
 * file of its own share (private to src/node).
 *
 * The PAPI backend (counters_papi.c) is not in libcosched_node:
 * that library also goes into task/cosched, which slurmstepd loads, and
 * slurmstepd must not need libpapi (testsuite/python/test_plugin_deps.py).
 * The programs that count with PAPI (cosched-sampler, the tests) compile
 * that file in, and it defines cosched_counters_papi_ops.  Everywhere else
 * counters.c's weak reference to it stays null and the backend
 * says it is not built in; being hidden, that reference never reaches a
 * shared object's dynamic symbols, so nothing in slurmstepd can bind it
 * either.
 */
#ifndef COSCHED_COUNTERS_BACKEND_H
#define COSCHED_COUNTERS_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/node/counters.h"

/* Room for "NAME: why (what the library said)". */
#define COSCHED_COUNTER_REASON_MAX 256

typedef struct {
	/* 0 when the backend can attach to a task here; else -1 with err
	 * saying why not (auto then takes perf). */
	int (*usable)(cosched_error_t *err);
	/*
	 * Count names[0..n-1] on pid and everything it starts from now on.
	 * why[i] receives "" for an event that counts, else its reason,
	 * which names it.  Returns the backend's handle, or NULL with err
	 * when nothing could be attached at all (then why[] is not used).
	 */
	void *(*attach)(pid_t pid,
			char names[][COSCHED_COUNTER_NAME_MAX + 1], int n,
			char why[][COSCHED_COUNTER_REASON_MAX],
			cosched_error_t *err);
	/* values[i], valid[i] for each event that counts; the number read,
	 * or -1 when the read failed. */
	int (*read)(void *h, uint64_t *values, bool *valid);
	void (*close)(void *h);
} cosched_counters_ops_t;

/* counters_papi.c's; counters.c declares it weak. */
extern const cosched_counters_ops_t cosched_counters_papi_ops;
/* The same, what cosched_counters_papi.so exports. */
const cosched_counters_ops_t *cosched_counters_papi_module(void);

/*
 * The PAPI backend of a program that loads it as a module rather than
 * linking counters_papi.c in (cosched-sampler: libpapi and libpfm
 * cost every step that loads them 1.6 ms of relocations, and the default
 * SampleBackend=perf never calls them): ops, or NULL with why_not, which
 * the records then give instead of "this program was built without
 * PAPI".  A linked-in backend goes first.  Not thread-safe: before any
 * counting.
 */
void cosched_counters_set_papi(const cosched_counters_ops_t *ops,
			       const char *why_not);

/* cosched-sampler's (counters_module.c): load the PAPI backend's
 * module from beside the running program and set it; -1 with err (which
 * the records then give) when it cannot be loaded. */
int cosched_counters_load_papi(cosched_error_t *err);

#endif
