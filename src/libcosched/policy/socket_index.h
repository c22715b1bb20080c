/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * socket_index.h - the incremental form of the gang policies over
 * many sockets: which socket is best for an arriving job, in time that
 * does not grow with the number of sockets.
 *
 * Sockets are bucketed by free cores, empty or occupied, and (for
 * Application-Aware) the categories present; the answer is read from the
 * non-empty buckets' heap tops.  The order is cosched_gang_rank()'s
 * (policy/gang.h): the index's answer is the ranking's first entry.
 */
#ifndef COSCHED_SOCKET_INDEX_H
#define COSCHED_SOCKET_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "src/libcosched/base/error.h"
#include "src/libcosched/policy/gang.h"
#include "src/libcosched/model/policy_name.h"

typedef struct cosched_socket_index cosched_socket_index_t;

/* Query flags. */
#define COSCHED_INDEX_OCCUPIED_ONLY 0x1	/* never an empty socket */
/* The lowest acceptable socket index instead of the best score.  Only for
 * the policies whose index is ordered by socket (GANG, Greedy Thread,
 * Application-Aware); the Miss-Rate policies order each bucket by MPKI load
 * and min_slowdown by its cost, so a query with this flag is refused for
 * them. */
#define COSCHED_INDEX_FIRST_FIT     0x2

/* cosched_socket_index_best() results besides a socket index. */
#define COSCHED_INDEX_NONE	(-1L)	/* no acceptable socket */
#define COSCHED_INDEX_INVALID	(-2L)	/* query refused, err says why */

/* nsockets sockets, all empty; capacity[i] each (NULL = params->capacity). */
cosched_socket_index_t *cosched_socket_index_create(
	cosched_policy_t policy, const cosched_gang_params_t *params,
	size_t nsockets, const int *capacity, cosched_error_t *err);
void cosched_socket_index_free(cosched_socket_index_t *idx);

/*
 * Best socket for job (same order as cosched_gang_rank, up to rounding:
 * when two Miss-Rate Balance loads an ulp apart round to one score, the
 * answer may be either), or
 * COSCHED_INDEX_NONE with best->reject = COSCHED_REJECT_NO_SOCKET when no
 * socket is acceptable (not an error: err is untouched), or
 * COSCHED_INDEX_INVALID with best->reject = COSCHED_REJECT_INVALID_QUERY
 * and err set when the query is refused (unknown flags, FIRST_FIT for a
 * Miss-Rate policy, or a job cosched_gang_job_check refuses with the
 * largest socket's capacity).  best and err may be NULL.
 * Cost: one or two heap tops per non-empty bucket, at most
 * (capacity + 1) x 2 (x 32 category sets for Application-Aware).
 */
long cosched_socket_index_best(cosched_socket_index_t *idx,
			       const cosched_gang_job_t *job, unsigned flags,
			       cosched_candidate_t *best, cosched_error_t *err);
/*
 * The same, skipping the sockets exclude[0..nexclude) too (nexclude may be
 * 0; a socket may be listed twice).  Refused besides: exclude NULL with
 * nexclude > 0, an excluded socket out of range.  The index is the same
 * after the query (the excluded sockets leave their buckets and go back,
 * which cannot fail).  Cost: the query's plus O(nexclude x log sockets).
 */
long cosched_socket_index_best_except(cosched_socket_index_t *idx,
				      const cosched_gang_job_t *job,
				      unsigned flags, const size_t *exclude,
				      size_t nexclude,
				      cosched_candidate_t *best,
				      cosched_error_t *err);
/* Record that job runs / stopped running with threads cores on a socket
 * (a co-runner).  Refused besides: adding, for the Miss-Rate policies, a
 * job whose MPKI is negative or not finite.  On error the index is
 * unchanged. */
int cosched_socket_index_add(cosched_socket_index_t *idx, size_t socket,
			     const cosched_gang_job_t *job, int threads,
			     cosched_error_t *err);
int cosched_socket_index_remove(cosched_socket_index_t *idx, size_t socket,
				const cosched_gang_job_t *job, int threads,
				cosched_error_t *err);
/* Replace a socket's load (Miss-Rate Bound: MPKI sums change every
 * quantum).  Refused (index unchanged): a socket out of range, a load that
 * is negative or not finite.  For the policies that do not read loads it
 * is accepted and ignored. */
int cosched_socket_index_set_load(cosched_socket_index_t *idx, size_t socket,
				  double load, cosched_error_t *err);
/* Cores used by a job that is not a co-runner (a foreign holder): they
 * count as used, not in the scores; a socket with foreign cores only is
 * empty for the policies.  Refused (index unchanged): more cores than are
 * free, removing more foreign cores than the socket holds, cores < 0, a
 * socket out of range, out of memory. */
int cosched_socket_index_add_foreign(cosched_socket_index_t *idx,
				     size_t socket, int cores,
				     cosched_error_t *err);
int cosched_socket_index_remove_foreign(cosched_socket_index_t *idx,
					size_t socket, int cores,
					cosched_error_t *err);
/* An unavailable socket is never an answer; it keeps what it holds and
 * takes updates like any other.  Every socket starts available.  Refused
 * (index unchanged): a socket out of range, out of memory. */
int cosched_socket_index_set_available(cosched_socket_index_t *idx,
				       size_t socket, bool available,
				       cosched_error_t *err);
bool cosched_socket_index_available(const cosched_socket_index_t *idx,
				    size_t socket);
/* Cores still free on a socket (available or not); 0 out of range. */
int cosched_socket_index_free_cores(const cosched_socket_index_t *idx,
				    size_t socket);
size_t cosched_socket_index_nsockets(const cosched_socket_index_t *idx);
/* Available sockets with free cores and no co-runner (foreign cores may
 * hold some of theirs).  Cost O(free-core counts present). */
long cosched_socket_index_empty_units(const cosched_socket_index_t *idx);

/* A deep copy: changing either leaves the other as it was.  NULL (err
 * set) when out of memory.  Cost O(sockets + non-empty buckets). */
cosched_socket_index_t *cosched_socket_index_copy(
	const cosched_socket_index_t *idx, cosched_error_t *err);

/*
 * Self-check: every socket's counts are consistent (cores used, foreign
 * among them, applications = its category counts, a finite load), it is in
 * exactly the bucket its state implies (none when full, gang-full or
 * unavailable) at the heap position recorded for it, every heap is in
 * order, and the bitmaps of non-empty buckets (per free-core count, and of
 * the free-core counts) agree with the heaps.  0, or -1 with err naming
 * the first disagreement.  O(sockets + buckets); for a debug flag.
 */
int cosched_socket_index_check(const cosched_socket_index_t *idx,
			       cosched_error_t *err);

#endif
