/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counters_module.c - cosched-sampler's PAPI backend, loaded as a
 * module (cosched_counters_papi.so beside the sampler) only when
 * SampleBackend asks for PAPI (papi, auto).
 *
 * Linked in, libpapi and libpfm cost every step's sampler about 1.6 ms
 * of CPU at exec (their relocations: doc/bench-profiler.md), although the
 * default SampleBackend=perf never calls them; and a node without libpapi
 * could not start the sampler at all.  Loaded, a step counted with perf
 * pays nothing for PAPI, and a module that cannot be loaded is a reason
 * in the step's record (SampleBackend=papi counts nothing and says why,
 * auto counts with perf), like a PMU that is not there.
 *
 * The module is found beside the running program (/proc/self/exe), where
 * "make install" puts both (pkglibexecdir) and the build leaves both
 * (src/node): never on a search path, which the sampler, run as root by
 * slurmstepd, must not take from anyone.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "src/node/counters_backend.h"

#define PAPI_MODULE "cosched_counters_papi.so"

int cosched_counters_load_papi(cosched_error_t *err)
{
	char exe[PATH_MAX], path[PATH_MAX + sizeof(PAPI_MODULE)];
	const cosched_counters_ops_t *(*get)(void);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	void *handle;

	if (n <= 0) {
		cosched_error_set(err,
			"PAPI's module not loaded: /proc/self/exe: %s",
			n < 0 ? strerror(errno) : "empty");
		goto none;
	}
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash) {
		cosched_error_set(err,
			"PAPI's module not loaded: /proc/self/exe is %.200s",
			exe);
		goto none;
	}
	*slash = '\0';
	snprintf(path, sizeof(path), "%s/%s", exe, PAPI_MODULE);
	/* RTLD_LOCAL: its copy of the counters' code stays its own. */
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		const char *why = dlerror();

		cosched_error_set(err, "PAPI's module not loaded: %.400s",
				  why ? why : path);
		goto none;
	}
	*(void **) &get = dlsym(handle, "cosched_counters_papi_module");
	if (!get) {
		cosched_error_set(err,
			"PAPI's module not loaded: %.200s has no cosched_counters_papi_module",
			path);
		dlclose(handle);
		goto none;
	}
	/* Kept loaded for the program's life. */
	cosched_counters_set_papi(get(), NULL);
	return 0;
none:
	cosched_counters_set_papi(NULL, err->msg);
	return -1;
}
