/* SPDX-License-Identifier: GPL-2.0-or-later */
/* occupancy_snap.h - occupancies made, changed and compared whole for the
 * tests of src/libcosched/policy/occupancy.c (test_occupancy.c and
 * test_occupancy_faults.c). */
#ifndef OCCUPANCY_SNAP_H
#define OCCUPANCY_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/policy/gang.h"
#include "src/libcosched/policy/gang_internal.h"
#include "src/libcosched/policy/occupancy.h"
#include "src/libcosched/policy/socket_index.h"

/* A job of the given threads, MPKI and category, named "job". */
cosched_gang_job_t occ_job(uint32_t id, int threads, double mpki,
			   cosched_category_t cat);
/* An occupancy of n sockets of caps cores under pol (8 cores a gang). */
cosched_occupancy_t *mkocc(cosched_policy_t pol, size_t n, const int *caps);
/* The occupancy's self-check passes (what names the step). */
void check_ok(const cosched_occupancy_t *o, const char *what);
/* j added holding cores on socket; foreign holder id likewise. */
void add1(cosched_occupancy_t *o, const cosched_gang_job_t *j, size_t socket,
	  int cores);
void foreign1(cosched_occupancy_t *o, uint32_t id, size_t socket, int cores);

/* Everything observable of an occupancy: per socket the index's counts
 * (the load bit for bit), availability, free cores and the occupants; per
 * job id 1..SNAP_IDS presence and holds. */
#define SNAP_SOCKETS 16
#define SNAP_OCC 32
#define SNAP_IDS 64

typedef struct {
	size_t nsockets;
	struct {
		gang_index_socket_t st;
		int free_cores, noccupants;
		cosched_gang_job_t occ[SNAP_OCC];
	} s[SNAP_SOCKETS];
	struct {
		bool has, foreign;
		size_t nholds;
		cosched_hold_t holds[SNAP_SOCKETS];
	} j[SNAP_IDS + 1];
} snap_t;

/* The occupancy as it is now (freed by the caller). */
snap_t *snap_take(cosched_occupancy_t *o);
/* a and b alike, field by field (padding is not state). */
void snap_same(const snap_t *a, const snap_t *b, const char *what);
/* The state is as z recorded and consistent; frees z. */
void same_as(cosched_occupancy_t *o, snap_t *z, const char *what);

#endif
