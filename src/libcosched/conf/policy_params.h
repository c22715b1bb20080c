/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy_params.h - the defaults and bounds of the parameters cosched.conf
 * gives the gang policies and the placement engine (GangMaxApps,
 * MissRateBoundWeight, MissRateBoundThreshold, MaxCorunSlowdown,
 * PackDemand), here with cosched.conf, below the policies, so that the
 * file's reader checks them without linking a policy.
 */
#ifndef COSCHED_POLICY_PARAMS_H
#define COSCHED_POLICY_PARAMS_H

#include "src/libcosched/base/number.h"

/* The largest capacity (cores per socket or node) the policies accept.
 * Far above today's sockets and nodes; it bounds the socket index's
 * buckets (one per free-core count) and keeps every core sum in an int. */
#define COSCHED_GANG_MAX_CAPACITY 1024

/* Miss-Rate Bound's EWMA weight a and threshold T ("Power-aware gang scheduling
 * on multicore" (NTUA thesis, 2013), "Miss-Rate Bound": a = 1/2, T = 12.0
 * MPKI), and the values they may take (MissRateBoundWeight=,
 * MissRateBoundThreshold= in cosched.conf). */
#define COSCHED_MRB_WEIGHT_DEFAULT 0.5
#define COSCHED_MRB_THRESHOLD_DEFAULT 12.0
extern const cosched_range_t cosched_mrb_weight_range;	/* (0, 1] */
extern const cosched_range_t cosched_mrb_threshold_range;	/* (0, 1000] */

/* MaxCorunSlowdown: the largest predicted slowdown min_slowdown may cause
 * by sharing, in percent: 25, the worst pair Application-Aware accepts
 * under its own table (lim with lim, the 2013 gang-scheduling thesis). */
#define COSCHED_CORUN_SLOWDOWN_PCT_DEFAULT 25.0

/* PackDemand: pack once as many jobs wait as there are empty units (they
 * could not all have one after this job took its own); its range (0:
 * always pack). */
#define COSCHED_PACK_DEMAND_DEFAULT 1.0
extern const cosched_range_t cosched_pack_demand_range;

#endif
