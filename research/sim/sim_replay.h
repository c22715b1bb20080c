/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_replay.h - cosched-sim-replay's time-shared setting
 * (sim_replay_ts.c): a partition with OverSubscribe=FORCE:N under
 * PreemptMode=GANG, each arrival's cores chosen by the decision core's
 * time-sharing layer (policy/timeshare.h) as the select plugin asks it,
 * and, where it makes no choice, as cons_tres's rows take them.
 */
#ifndef COSCHED_SIM_REPLAY_H
#define COSCHED_SIM_REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include "src/libcosched/policy/place.h"

typedef struct sim_replay_ts sim_replay_ts_t;

/* Time sharing on place's units (rows jobs a core, >= 2); NULL with err. */
sim_replay_ts_t *sim_replay_ts_create(cosched_place_t *place, int rows,
				      cosched_error_t *err);
void sim_replay_ts_free(sim_replay_ts_t *r);

/* Place job (its gang view) and print its line to out; 0, or -1 with err
 * (a job id already holding cores). */
int sim_replay_ts_arrive(sim_replay_ts_t *r, const cosched_gang_job_t *job,
			 FILE *out, cosched_error_t *err);

/* The job ends: its cores are free again; -1 with err when it holds none. */
int sim_replay_ts_depart(sim_replay_ts_t *r, uint32_t job_id,
			 cosched_error_t *err);

#endif
