/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology.h - the node's topology, through hwloc: the CPUs (OS
 * processor ids) of each core as Slurm numbers cores, and the NUMA nodes
 * local to a set of CPUs.
 *
 * Slurm numbers a node's cores 0..N-1 package by package, in the order
 * hwloc lists them (the credential's job_alloc_cores and the decision
 * record's cores= use that numbering); core i here is hwloc's core of
 * logical index i.  Where a machine has no core objects (some VMs) the
 * PUs stand for cores.
 *
 * Source (cosched.conf Topology=), hwloc's backends behind one API:
 *   system             this machine (hwloc's Linux backend)
 *   synthetic:DESC     an hwloc synthetic description, e.g.
 *                      "package:2 [numa] core:8 pu:1"
 *   xml:PATH           an hwloc XML export (lstopo --of xml): a captured
 *                      machine (hwloc's own fsroot switch is an environment
 *                      variable, which a threaded daemon cannot set safely)
 * The same code maps cores in tests and in production; only the source
 * differs.
 */
#ifndef COSCHED_TOPOLOGY_H
#define COSCHED_TOPOLOGY_H

#include "src/libcosched/conf/conf.h"	/* source check */
#include "src/libcosched/base/error.h"
#include "src/libcosched/base/idset.h"

typedef struct cosched_topology cosched_topology_t;

/* The source's form is checked by cosched_topology_source_check()
 * (src/libcosched/conf/conf.h), which cosched.conf's Topology= uses too. */

/* Load the topology.  NULL with err naming the source and hwloc's
 * reason. */
cosched_topology_t *cosched_topology_load(const char *source,
					  cosched_error_t *err);
void cosched_topology_free(cosched_topology_t *t);

/*
 * A copy of a loaded topology, so that a process that needs the machine's
 * topology often (every step's slurmstepd) reads one small file instead
 * of hwloc's scan of /sys (about 300 files, 1.8 ms on a 2-CPU VM, more
 * with every core).  The copy is hwloc's XML export, versioned by an info
 * of its root object, "CoschedTopology" = "cosched-topology/1", which
 * its reader checks by src/libcosched/base/kv.h's rule.
 *
 * Save: written with cosched_file_replace() (mode 0600, atomic, not
 * synced: a cache).  It adds that info to t's root object.
 * Load: the file must be a regular file of root's or of this process's
 * user, not writable by others (cosched_file_trusted); NULL with err
 * otherwise, or when it does not parse or holds another major, *missing
 * (may be NULL) set when there is no such file.  The topology loaded
 * says source=system: it is the machine's, as its writer read it.
 */
int cosched_topology_save(cosched_topology_t *t, const char *path,
			  cosched_error_t *err);
cosched_topology_t *cosched_topology_load_saved(const char *path,
						int *missing,
						cosched_error_t *err);

int cosched_topology_ncores(const cosched_topology_t *t);
int cosched_topology_npackages(const cosched_topology_t *t);
int cosched_topology_nnuma(const cosched_topology_t *t);

/* The CPUs (OS ids) of the cores in cores (Slurm's numbering).  A core id
 * the topology lacks is an error naming it and the node's core count;
 * *cpus is then untouched. */
int cosched_topology_core_cpus(const cosched_topology_t *t,
			       const cosched_idset_t *cores,
			       cosched_idset_t *cpus, cosched_error_t *err);

/* The packages (logical index, Slurm's socket numbering) holding any of
 * the cores. */
int cosched_topology_core_packages(const cosched_topology_t *t,
				   const cosched_idset_t *cores,
				   cosched_idset_t *packages,
				   cosched_error_t *err);

/* The NUMA nodes (OS ids, as set_mempolicy() and numa_maps name them)
 * local to any CPU of cpus: the memory objects attached at or above each
 * CPU.  Never empty for a non-empty cpus of this topology.  It maps
 * through a table of each node's CPUs that cosched_topology_load() reads
 * once: it allocates nothing and calls no hwloc, so a task forked after
 * the load (task/cosched's membind, between fork and exec) may call it. */
int cosched_topology_cpu_numa(const cosched_topology_t *t,
			      const cosched_idset_t *cpus,
			      cosched_idset_t *numa, cosched_error_t *err);

/* The data caches a core of the first package sees, in bytes (0: the
 * topology does not say): the first-level data cache, the second level
 * and the last level (L3; the L2 where there is no L3), with how many
 * cores share that last level.  The representative programs size their
 * working sets from these (contribs/apps, "Effects of co-scheduling
 * applications on multicore architectures" (NTUA thesis, 2014), "The
 * microbenchmark"). */
typedef struct {
	unsigned long long l1d, l2, llc;
	int llc_level;		/* 2 or 3; 0 when unknown */
	int llc_cores;		/* cores sharing the last level; 0 unknown */
} cosched_cache_sizes_t;

void cosched_topology_caches(const cosched_topology_t *t,
			     cosched_cache_sizes_t *out);

/* One line for logs and tests: "packages=2 cores=16 pus=16 numa=2
 * source=synthetic:..." (cut to len).  Returns buf. */
char *cosched_topology_describe(const cosched_topology_t *t, char *buf,
				size_t len);

#endif
