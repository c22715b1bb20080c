/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  task_cosched_topology.c - the node's topology, for every step.
 *
 *  Every step's slurmstepd needs the topology to map the credential's
 *  cores to CPUs, NUMA nodes and frequency domains, and hwloc's scan of
 *  the machine reads about 300 files of /sys (1.8 ms a load on a 2-CPU
 *  VM, more with every core), once a step (the batch step, each srun
 *  step, the extern step).  With Topology=system slurmd scans it once at its
 *  start and keeps the result in SlurmdSpoolDir/cosched/topology.xml
 *  (cosched_topology_save: hwloc's XML, versioned), which each step loads
 *  instead (0.1 ms) -- as Slurm's own slurmd keeps hwloc's XML in its
 *  spool for its step daemons.
 *
 *  The copy is the machine slurmd saw at its start: a node whose CPUs
 *  change restarts slurmd (Slurm requires it for its own node record),
 *  which writes it again.  slurmd removes an earlier start's copy before
 *  anything else, so a copy it cannot write now leaves none behind; a
 *  step that finds no copy, or one it cannot read, scans the machine as
 *  before.  Removing the file is always safe.
\*****************************************************************************/

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "slurm/slurm.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"

#include "src/node/spool.h"

#include "task_cosched.h"

#define COPY_NAME "topology.xml"

void task_cosched_topology_node_init(bool needed)
{
	char *dir = NULL, *path = task_cosched_spool_path(COPY_NAME);
	cosched_topology_t *t = NULL;
	cosched_error_t err;
	char buf[256];

	if (!path)
		goto out;
	if (unlink(path) && errno != ENOENT)
		info("%s: %s: %m: steps read the machine's topology themselves",
		     plugin_type, path);
	if (!needed || strcmp(task_cosched_conf.topology, COSCHED_TOPOLOGY_SYSTEM))
		goto out;
	if (!(t = cosched_topology_load(COSCHED_TOPOLOGY_SYSTEM, &err))) {
		error("%s: %s: cores, memory binding and frequency left alone",
		      plugin_type, err.msg);
		goto out;
	}
	if (!(dir = task_cosched_spool_dir(NULL, &err)) ||
	    cosched_topology_save(t, path, &err))
		info("%s: %s: steps read the machine's topology themselves",
		     plugin_type, err.msg);
	else
		debug("%s: topology copy %s for the steps: %s", plugin_type,
		      path, cosched_topology_describe(t, buf, sizeof(buf)));
out:
	cosched_topology_free(t);
	xfree(dir);
	xfree(path);
}

cosched_topology_t *task_cosched_topology_step_load(const char *node_name)
{
	char *src = task_cosched_node_path(task_cosched_conf.topology,
					   node_name);
	char *path = NULL;
	cosched_topology_t *t = NULL;
	cosched_error_t err;
	int missing = 0;

	if (!strcmp(src, COSCHED_TOPOLOGY_SYSTEM) &&
	    (path = task_cosched_spool_path(COPY_NAME))) {
		t = cosched_topology_load_saved(path, &missing, &err);
		if (!t && !missing)
			info("%s: %s: reading the machine's topology instead",
			     plugin_type, err.msg);
	}
	if (!t && !(t = cosched_topology_load(src, &err)))
		error("%s: %s: cores, memory binding and frequency left alone",
		      plugin_type, err.msg);
	xfree(path);
	xfree(src);
	return t;
}
