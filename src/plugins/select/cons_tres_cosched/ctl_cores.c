/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ctl_cores.c - a job's cores as Slurm's records hold them: whether
 *  cons_tres counts them, the nodes of a bitmap in order, and the cores a
 *  job holds on each unit (socket, or node with GangScope=node) of the
 *  placement engine.  Read by the state's rebuild, the records of jobs
 *  that time-share and the check against cons_tres's rows alike.
\*****************************************************************************/

#include <stdbool.h>
#include <stdint.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "ctl_internal.h"

bool ctl_cores_counted(const job_record_t *job_ptr)
{
	if (IS_JOB_RUNNING(job_ptr))
		return true;
	/* Slurm's own test, the same in 22.05 to 26.05: scontrol suspend
	 * sets the priority to 0 (job_mgr.c, _job_suspend_op), a gang
	 * time slice leaves it; cons_tres rebuilds its rows by it
	 * (select_p_reconfigure, select_p_select_nodeinfo_set). */
	return IS_JOB_SUSPENDED(job_ptr) && job_ptr->priority != 0;
}

void cosched_nodes_begin(cosched_nodes_t *it, bitstr_t *bitmap)
{
	int first = bitmap ? (int) bit_ffs(bitmap) : -1;	/* -1: none */

	it->bitmap = bitmap;
	it->j = -1;
	it->size = bitmap ? (int) bit_size(bitmap) : 0;
	if (it->size > node_record_count)
		it->size = node_record_count;
	/* The bitmap's own count, not a caller's (job_resources' nhosts):
	 * a word at a time, and never past the last set bit. */
	it->left = first >= 0 && first < it->size ? bit_set_count(bitmap) : 0;
	it->i = it->left ? first - 1 : it->size;
}

node_record_t *cosched_nodes_next(cosched_nodes_t *it)
{
	while (it->left > 0 && ++it->i < it->size) {
		node_record_t *node_ptr;

		if (!bit_test(it->bitmap, it->i))
			continue;
		it->left--;
		/* A hole in the node table (24.11) holds no job. */
		if (!(node_ptr = node_record_table_ptr[it->i]))
			continue;
		it->j++;
		return node_ptr;
	}
	return NULL;
}

int ctl_cores_socket_first_bit(job_resources_t *jr, int j, int s,
			       int cores)
{
	int first = get_job_resources_offset(jr, j, s, 0);

	if (first >= 0 && cores > 0 &&
	    get_job_resources_offset(jr, j, s, cores - 1) == first + cores - 1)
		return first;
	return -1;
}

bool ctl_cores_has_core(job_resources_t *jr, int j, int s, int k)
{
	int bit = get_job_resources_offset(jr, j, s, k);

	return bit >= 0 && bit_test(jr->core_bitmap, bit);
}

/* The job's cores on socket s of its node j (of cores a socket): one count
 * over the socket's bits where the job's layout has all of them (a bit at
 * a time cost 76 instructions a core, 4,900 a job on a node of 64 cores,
 * callgrind), else a bit at a time, as many as it has. */
static int _socket_cores(job_resources_t *jr, int j, int s, int cores)
{
	int first = ctl_cores_socket_first_bit(jr, j, s, cores), n = 0;

	if (first >= 0)
		return bit_set_count_range(jr->core_bitmap, first,
					   first + cores);
	for (int k = 0; k < cores; k++)
		if (ctl_cores_has_core(jr, j, s, k))
			n++;
	return n;
}

int ctl_cores_holds(cosched_ctl_t *c, job_record_t *job_ptr,
		    cosched_hold_t **holds)
{
	job_resources_t *jr = job_ptr->job_resrcs;
	node_record_t *node_ptr;
	cosched_nodes_t it;
	int n = 0, cap = 0;

	*holds = NULL;
	if (!jr || !jr->node_bitmap || !jr->core_bitmap)
		return 0;
	cosched_nodes_begin(&it, jr->node_bitmap);
	while ((node_ptr = cosched_nodes_next(&it))) {
		size_t first;

		if (it.i >= c->map_nodes)
			continue;
		first = cosched_place_unit_first(c->place, it.i);
		for (int s = 0; s < node_ptr->tot_sockets; s++) {
			int cores = _socket_cores(jr, it.j, s, node_ptr->cores);
			size_t u;

			if (!cores)
				continue;
			u = first + (c->conf.scope == COSCHED_SCOPE_NODE ?
				     0 : (size_t) s);
			if (n && (*holds)[n - 1].socket == u) {
				(*holds)[n - 1].cores += cores;
				continue;
			}
			if (n == cap) {
				cap = cap ? 2 * cap : 4;
				xrealloc(*holds, cap * sizeof(**holds));
			}
			(*holds)[n++] = (cosched_hold_t) {
				.socket = u, .cores = cores };
		}
	}
	return n;
}
