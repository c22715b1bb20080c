/*
 * cosched_socket_index.h - the incremental form of the gang policies over
 * many sockets: which socket is best for an arriving job, in time that
 * does not grow with the number of sockets.
 *
 * Sockets are bucketed by free cores, empty or occupied, and (for
 * Application-Aware) the categories present; the answer is read from the
 * non-empty buckets' heap tops.  The order is cosched_gang_rank()'s
 * (cosched_gang.h): the index's answer is the ranking's first entry.
 */
#ifndef COSCHED_SOCKET_INDEX_H
#define COSCHED_SOCKET_INDEX_H

#include <stddef.h>

#include "cosched_error.h"
#include "cosched_gang.h"
#include "cosched_policy.h"

typedef struct cosched_socket_index cosched_socket_index_t;

/* Query flags. */
#define COSCHED_INDEX_OCCUPIED_ONLY 0x1	/* never an empty socket */
/* The lowest acceptable socket index instead of the best score.  Only for
 * the policies whose index is ordered by socket (GANG, Greedy Thread,
 * Application-Aware); the Miss-Rate policies order each bucket by MPI load,
 * so a query with this flag is refused for them. */
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
 * Best socket for job (same order as cosched_gang_rank), or
 * COSCHED_INDEX_NONE with best->reject = COSCHED_REJECT_NO_SOCKET when no
 * socket is acceptable (not an error: err is untouched), or
 * COSCHED_INDEX_INVALID with best->reject = COSCHED_REJECT_INVALID_QUERY
 * and err set when the query is refused (see
 * cosched_socket_index_check_query).  best and err may be NULL.
 * Cost: one or two heap tops per non-empty bucket, at most
 * (capacity + 1) x 2 (x 32 category sets for Application-Aware).
 */
long cosched_socket_index_best(cosched_socket_index_t *idx,
			       const cosched_gang_job_t *job, unsigned flags,
			       cosched_candidate_t *best, cosched_error_t *err);
/* Refuse a query the index cannot answer: unknown flags, FIRST_FIT for a
 * Miss-Rate policy, or a job cosched_gang_job_check refuses (capacity =
 * the largest socket's). */
int cosched_socket_index_check_query(const cosched_socket_index_t *idx,
				     const cosched_gang_job_t *job,
				     unsigned flags, cosched_error_t *err);
/* Record that job runs / stopped running with threads cores on a socket.
 * On error the index is unchanged. */
int cosched_socket_index_add(cosched_socket_index_t *idx, size_t socket,
			     const cosched_gang_job_t *job, int threads,
			     cosched_error_t *err);
int cosched_socket_index_remove(cosched_socket_index_t *idx, size_t socket,
				const cosched_gang_job_t *job, int threads,
				cosched_error_t *err);
/* Replace a socket's load (Miss-Rate Bound: MPI sums change every
 * quantum).  Refused (index unchanged): a socket out of range, a load that
 * is negative or not finite.  For the policies that do not read loads it
 * is accepted and ignored. */
int cosched_socket_index_set_load(cosched_socket_index_t *idx, size_t socket,
				  double load, cosched_error_t *err);
/* Cores still free on a socket. */
int cosched_socket_index_free_cores(const cosched_socket_index_t *idx,
				    size_t socket);

#endif
