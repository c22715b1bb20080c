/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * occupancy.h - who occupies which socket, keyed by job id: the
 * life cycle a controller needs around the socket index.
 *
 * The socket index (policy/socket_index.h) answers "best socket for this
 * job" but must be told exactly what it was told before to undo it.  A
 * controller knows jobs by id and learns their class again at every
 * decision (a profile may change while a job runs), so this layer keeps,
 * per job id, the gang job it was entered with and the cores it holds on
 * each socket, and removes exactly that.  Model: Slurm's select/cons_common,
 * whose usage is rebuilt from the job records and copied for will-run.
 *
 * Two kinds of holders:
 *  - occupants (cosched jobs): count as used cores and as co-runners (their
 *    category and MPKI enter the scores);
 *  - foreign holders (jobs that do not use cosched: --cosched=off, other
 *    partitions, jobs started before cosched was enabled): count as used
 *    cores only.
 * A socket can be made unavailable (its node DOWN, DRAINED or FUTURE): it
 * keeps its holders but is never an answer.
 *
 * Miss-Rate loads: a socket's load is the sum of its occupants' MPKI
 * (misses per 1000 instructions), kept by this layer (set_mpki updates it
 * when a job's smoothed MPKI changes).
 *
 * Not thread-safe: the controller calls it under its own locks.
 */
#ifndef COSCHED_OCCUPANCY_H
#define COSCHED_OCCUPANCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/base/error.h"
#include "src/libcosched/policy/gang.h"
#include "src/libcosched/policy/socket_index.h"

typedef struct cosched_occupancy cosched_occupancy_t;

/* One socket a job holds cores on. */
typedef struct {
	size_t socket;
	int cores;		/* >= 1 */
} cosched_hold_t;

/* nsockets sockets (capacity[i] cores each, NULL = params->capacity), all
 * empty and available. */
cosched_occupancy_t *cosched_occupancy_create(cosched_policy_t policy,
					      const cosched_gang_params_t *params,
					      size_t nsockets,
					      const int *capacity,
					      cosched_error_t *err);
void cosched_occupancy_free(cosched_occupancy_t *o);

/* A deep copy (will-run: change the copy, throw it away).  Cost O(sockets +
 * holders), a few memcpy. */
cosched_occupancy_t *cosched_occupancy_copy(const cosched_occupancy_t *o,
					    cosched_error_t *err);

/*
 * Enter job (job->job_id is the key; job is copied, name not kept) as an
 * occupant holding holds[0..n).  Refused, occupancy unchanged: a job id
 * already present (occupant or foreign), job NULL, its MPKI negative or
 * not finite (or a socket's MPKI sum with it not finite), n = 0, holds
 * NULL, a socket out of range or given twice, cores < 1, more cores than
 * a socket has free (its cores not held, available or not: a socket
 * taken out of service still takes the jobs it runs), out of memory.
 */
int cosched_occupancy_add(cosched_occupancy_t *o, const cosched_gang_job_t *job,
			  const cosched_hold_t *holds, size_t n,
			  cosched_error_t *err);
/* The same for a foreign holder: used cores, no co-runner (no job, so no
 * MPKI to refuse). */
int cosched_occupancy_add_foreign(cosched_occupancy_t *o, uint32_t job_id,
				  const cosched_hold_t *holds, size_t n,
				  cosched_error_t *err);
/* Remove whatever job_id holds (occupant or foreign).  Returns 1 when it
 * was there, 0 when not (not an error: a job may end twice in Slurm's
 * eyes), -1 on error (occupancy unchanged). */
int cosched_occupancy_remove(cosched_occupancy_t *o, uint32_t job_id,
			     cosched_error_t *err);
/* Whether job_id is present, and as what. */
bool cosched_occupancy_has(const cosched_occupancy_t *o, uint32_t job_id,
			   bool *foreign);

/* Replace an occupant's MPKI (Miss-Rate Bound's smoothed value) and its
 * sockets' loads.  Refused (occupancy unchanged): unknown job, a foreign
 * holder, MPKI negative or not finite. */
int cosched_occupancy_set_mpki(cosched_occupancy_t *o, uint32_t job_id,
			       double mpki, cosched_error_t *err);

/*
 * Live readings (store/live.h): a reading is applied as begin, one
 * live_set for each occupant it holds (as set_mpki, same refusals), then
 * end, which returns every occupant that carried a live MPKI from an
 * earlier reading but has none in this one to the MPKI it entered with,
 * so that a load leaves with its file.  end returns how many went back.
 * A job entered again (a rebuild) starts from its entered MPKI.
 */
void cosched_occupancy_live_begin(cosched_occupancy_t *o);
int cosched_occupancy_live_set(cosched_occupancy_t *o, uint32_t job_id,
			       double mpki, cosched_error_t *err);
size_t cosched_occupancy_live_end(cosched_occupancy_t *o);

/* Make a socket unavailable (never answered) or available again; its
 * holders stay. */
int cosched_occupancy_set_available(cosched_occupancy_t *o, size_t socket,
				    bool available, cosched_error_t *err);
bool cosched_occupancy_available(const cosched_occupancy_t *o, size_t socket);

/*
 * Best available socket for job, as cosched_socket_index_best (same flags,
 * results and errors), skipping the sockets in exclude[0..nexclude) too
 * (a per-job restriction: a partition, named nodes; nexclude may be 0, a
 * socket may be listed twice).  Also refused (COSCHED_INDEX_INVALID):
 * exclude NULL with nexclude > 0, an excluded socket out of range.  The
 * occupancy is not changed (o is not const: the index takes the excluded
 * sockets out for the query and puts them back).
 */
long cosched_occupancy_best(cosched_occupancy_t *o,
			    const cosched_gang_job_t *job, unsigned flags,
			    const size_t *exclude, size_t nexclude,
			    cosched_candidate_t *best, cosched_error_t *err);

/* A socket as the ranking sees it (cosched_gang_rank): capacity, used
 * cores (occupants and foreign), and its occupants in arrival order
 * (copies, name NULL; the pointer is valid until the next add or remove,
 * the values until the next change).  Unavailable sockets report used =
 * capacity.  -1 when the socket is out of range. */
int cosched_occupancy_socket(const cosched_occupancy_t *o, size_t socket,
			     cosched_socket_t *out);
size_t cosched_occupancy_nsockets(const cosched_occupancy_t *o);
/* Available sockets with free cores and no occupant (as
 * cosched_socket_index_empty_units). */
long cosched_occupancy_empty_units(const cosched_occupancy_t *o);
/* Cores free on a socket (0 when unavailable or out of range). */
int cosched_occupancy_free_cores(const cosched_occupancy_t *o, size_t socket);
/* The holds of job_id as entered (pointer valid until the next add or
 * remove), NULL when absent; *n (n may be NULL) their count, 0 when
 * absent. */
const cosched_hold_t *cosched_occupancy_holds(const cosched_occupancy_t *o,
					      uint32_t job_id, size_t *n);

/*
 * Self-check (as hwloc_topology_check): every count the index keeps agrees
 * with the holders recorded here (cores used, foreign cores, occupants,
 * occupants per category, MPKI load within 1e-9 relative), each socket's
 * occupants are the ledger's, every index invariant holds
 * (cosched_socket_index_check: heap order, bucket membership, non-empty
 * bucket bitmaps).  Returns 0, or -1 with err naming the first
 * disagreement.  O(sockets + holders + jobs), allocates scratch (-1 when
 * out of memory); for a debug flag.
 */
int cosched_occupancy_check(const cosched_occupancy_t *o, cosched_error_t *err);

#endif
