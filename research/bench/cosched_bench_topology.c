/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_bench_topology.c - what a step daemon's topology load costs,
 * from the machine and from slurmd's copy.
 *
 * Usage: cosched-bench-topology [LOADS [REPEATS]]
 *   LOADS    loads timed in a row, for each source (default 50)
 *   REPEATS  interleaved repeats (default 5)
 *
 * Saves this machine's topology (Topology=system) to a temporary file as
 * slurmd does (cosched_topology_save), then times, in turn, REPEATS times
 * each, LOADS loads of:
 *   machine  cosched_topology_load("system"): hwloc's scan of /sys, what
 *            every step's slurmstepd did before the copy;
 *   copy     cosched_topology_load_saved: the copy, what a step loads now;
 * and prints each one's process CPU time a load (median and range, ms)
 * and copy / machine (median, and the worst copy against the best
 * machine).  Every load is checked: the same packages, cores, PUs and
 * NUMA nodes as the first.  A command, not a test (see
 * cosched-bench-topology(1)).  Exit status: 0; 1 when a load fails or
 * differs; 2 on a bad argument.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "src/node/topology.h"

#define PROG "cosched-bench-topology"
#define MAX_REPEATS 50

/* LOADS loads from path (NULL: the machine), each described against
 * want; the process CPU time a load, in ms, or -1 on a failure. */
static double time_loads(const char *path, long loads, const char *want)
{
	double t0 = bench_ms(CLOCK_PROCESS_CPUTIME_ID);
	cosched_error_t err = { { 0 } };
	char got[256];

	for (long i = 0; i < loads; i++) {
		cosched_topology_t *t = path ?
			cosched_topology_load_saved(path, NULL, &err) :
			cosched_topology_load("system", &err);

		if (!t) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			return -1;
		}
		cosched_topology_describe(t, got, sizeof(got));
		cosched_topology_free(t);
		if (strcmp(got, want)) {
			fprintf(stderr, PROG ": %s loaded as \"%s\", not \"%s\"\n",
				path ? path : "the machine", got, want);
			return -1;
		}
	}
	return (bench_ms(CLOCK_PROCESS_CPUTIME_ID) - t0) / (double) loads;
}

int main(int argc, char **argv)
{
	long loads = argc > 1 ?
		bench_arg(PROG, argv[1], 1, 100000, "LOADS") : 50;
	int repeats = argc > 2 ? (int) bench_arg(PROG, argv[2], 1,
						 MAX_REPEATS, "REPEATS") : 5;
	double machine[MAX_REPEATS], copy[MAX_REPEATS];
	char dir[] = "/tmp/cosched-bench-topology-XXXXXX", path[64];
	char want[256];
	cosched_error_t err = { { 0 } };
	cosched_topology_t *t;
	int rc = 1;

	if (argc > 3) {
		fprintf(stderr, "usage: " PROG " [LOADS [REPEATS]]\n");
		return 2;
	}
	if (!mkdtemp(dir)) {
		perror(PROG ": mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/topology.xml", dir);
	if (!(t = cosched_topology_load("system", &err)) ||
	    cosched_topology_save(t, path, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		goto out;
	}
	cosched_topology_describe(t, want, sizeof(want));
	printf("%s: %ld loads a repeat, %d interleaved repeats; %s\n", PROG,
	       loads, repeats, want);
	for (int r = 0; r < repeats; r++) {
		if ((machine[r] = time_loads(NULL, loads, want)) < 0 ||
		    (copy[r] = time_loads(path, loads, want)) < 0)
			goto out;
	}
	bench_print("machine", 8, 3, machine, repeats);
	bench_print("copy", 8, 3, copy, repeats);
	bench_print_ratio("", "copy", copy, "machine", machine, repeats);
	rc = 0;
out:
	cosched_topology_free(t);
	unlink(path);
	rmdir(dir);
	return rc;
}
