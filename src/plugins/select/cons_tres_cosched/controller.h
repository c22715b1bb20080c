/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  controller.h - the placement half of select/cons_tres_cosched: what the
 *  compatibility files (one per Slurm series) and the version-independent
 *  controller give each other.
 *
 *  The controller runs only in slurmctld.  It keeps every socket's holders
 *  (src/libcosched/policy/occupancy.h), decides for each arriving job which sockets it
 *  may take, and hands cons_tres a narrowed node bitmap and a set of
 *  excluded cores ("steering", see ../shared design notes): cons_tres still
 *  chooses the cores, memory, GRES and licences, inside what cosched allows.
 *
 *  Call order (Slurm's, written down as cons_common does):
 *    init()                      read cosched.conf, load cosched_ctld.so
 *    job_init / node_init /
 *    reconfigure / update_node_config
 *                                mark the state for a rebuild from the job
 *                                and node records (done at the next call)
 *    job_test (run now, test only, will run)
 *                                steer cons_tres (cosched_ctl_job_test)
 *    job_begin                   enter the job's real cores (from its
 *                                job_resources), decide power, write the
 *                                decision record into SystemComment
 *    job_fini / job_suspend / job_resume / job_resized
 *                                leave / re-enter
 *  Every call runs under slurmctld's job write lock; the controller also
 *  takes its own mutex, so a call from an unexpected thread is still safe.
\*****************************************************************************/
#ifndef COSCHED_CONTROLLER_H
#define COSCHED_CONTROLLER_H

#include <stdbool.h>
#include <stdint.h>

#include "src/slurmctld/slurmctld.h"

/*
 * What cons_tres may use: nodes (a node bitmap) and, on each of them, the
 * sockets in socket_mask[node index] (bit s = socket s).  The compatibility
 * file turns the sockets left out into excluded cores.
 */
typedef struct {
	bitstr_t *nodes;
	uint64_t *socket_mask;		/* node_record_count entries */
	/* Time sharing (ctl_timeshare.c): on node core_node (-1: none) only
	 * the cores core_first + bit b of core_allow, whatever its mask. */
	int core_node;
	int core_first;
	uint64_t core_allow;
} cosched_steer_t;

/*
 * Call cons_tres's job_test once with node_bitmap (changed in place, as
 * cons_tres does) and, when steer is not NULL, its cores excluded; the
 * compatibility file's context carries the other arguments.
 */
typedef int (*cosched_try_fn)(void *ctx, bitstr_t *node_bitmap,
			      const cosched_steer_t *steer);

/* slurmctld's node_record_count (0 outside slurmctld). */
int cosched_ctl_node_count(void);

/*
 * The nodes set in a bitmap, in order, from the first set to the last,
 * not the whole node table (a job's nodes among 100,000):
 *	cosched_nodes_t it;
 *	cosched_nodes_begin(&it, bitmap);
 *	while ((node_ptr = cosched_nodes_next(&it)))
 *		... it.i (node index), it.j (its place among those set) ...
 */
typedef struct {
	bitstr_t *bitmap;
	int i, j;			/* node index, place among those set */
	int size, left;			/* the bitmap's bits, set bits left */
} cosched_nodes_t;

void cosched_nodes_begin(cosched_nodes_t *it, bitstr_t *bitmap);
node_record_t *cosched_nodes_next(cosched_nodes_t *it);

/* Lifecycle (select_cons_tres_cosched.c calls these). */
int cosched_ctl_init(void);
void cosched_ctl_fini(void);
/* Re-read cosched.conf (scontrol reconfigure): a bad file keeps the old
 * settings and logs why. */
void cosched_ctl_reconfigure(void);
/* The job and node records changed wholesale: rebuild before next use. */
void cosched_ctl_invalidate(void);

/* job_test for every mode; forwards through try. */
int cosched_ctl_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			 uint16_t mode, cosched_try_fn try, void *ctx);
void cosched_ctl_job_begin(job_record_t *job_ptr);
void cosched_ctl_job_fini(job_record_t *job_ptr);
void cosched_ctl_job_suspend(job_record_t *job_ptr, bool indf_susp);
void cosched_ctl_job_resume(job_record_t *job_ptr, bool indf_susp);
/* The job's cores changed (expand, shrink): leave and enter again. */
void cosched_ctl_job_resized(job_record_t *job_ptr);

/*
 * The jobs cons_tres's partition rows hold (*jobs xmalloc'd, *n of them):
 * those it counts as holding cores.  -1 where cons_tres's rows cannot be
 * found.  From the compatibility file: the rows' layout is the series'.
 */
int cosched_select_row_jobs(job_resources_t ***jobs, size_t *n);

/* The cores to exclude on node (index) under steer: every core of a socket
 * left out of its mask.  cores_per_socket from the node record. */
static inline bool cosched_steer_excludes(const cosched_steer_t *steer,
					  int node, int core,
					  int cores_per_socket)
{
	int socket = cores_per_socket > 0 ? core / cores_per_socket : 0;

	if (node == steer->core_node) {
		int rel = core - steer->core_first;

		return rel < 0 || rel >= 64 ||
		       !(steer->core_allow & ((uint64_t) 1 << rel));
	}
	return socket >= 64 ||
	       !(steer->socket_mask[node] & ((uint64_t) 1 << socket));
}

#endif
