/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sampler.h - cosched-sampler's state, shared by its loop
 * (cosched_sampler.c) and what it writes when the step ends
 * (sampler_record.c); not for use elsewhere.
 */
#ifndef COSCHED_SAMPLER_H
#define COSCHED_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "src/libcosched/conf/conf.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/store/store.h"
#include "src/node/counters.h"
#include "src/node/counters_backend.h"
#include "src/node/sampler_energy.h"
#include "src/node/sampler_suspend.h"

#define TASKS_MAX 1024

typedef struct {
	cosched_counters_t *c;
	pid_t pid;
} task_t;

typedef struct {
	unsigned job, step;
	const char *node, *out, *test_file;
	double interval;
	cosched_counters_backend_t backend;
	char names[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	int nevents;
	task_t task[TASKS_MAX];
	int ntasks;
	char first_unavailable[COSCHED_COUNTERS_MAX][160];
	uint64_t total[COSCHED_COUNTERS_MAX], prev[COSCHED_COUNTERS_MAX];
	bool counted[COSCHED_COUNTERS_MAX];
	int samples;
	double mpki_ewma, mpki_max;
	bool have_mpki;
	char attach_error[COSCHED_ERROR_MSG_LEN];
	time_t start;
	/* The step's start and the last sample, monotonic: the energy
	 * rates and the time stopped are over the interval between two
	 * samples. */
	struct timespec t0, last_sample;
	const char *app, *conf_path;
	int threads;
	long freq_khz;			/* decided by the controller; 0 none */
	long uid;			/* the job's user (--uid); -1: not given */
	cosched_private_t privacy;	/* --private-data: PrivateData hides
					 * jobs, SlurmUser's uid */
	/* What the controller decided for the job (--decision-*, from the
	 * record task/cosched parsed): what the model predicted, kept with
	 * what the step did.  state NULL: no record. */
	struct {
		const char *state, *policy, *cls, *lca, *source, *sockets;
		double slowdown;		/* NAN: none */
	} decision;
	char merged[COSCHED_PATH_MAX + COSCHED_PROFILE_KEY_MAX + 64];
	/* Energy: RAPL through the node's ledger. */
	sampler_energy_t energy;
	/* Slurm's suspend and resume: time stopped, frequency per slice. */
	sampler_suspend_t suspend;
	double start_s;			/* the wall clock at the start */
	/* cosched.conf, read once at the start. */
	cosched_conf_t conf;
	char conf_error[COSCHED_ERROR_MSG_LEN];
	/* The live load this step publishes (src/libcosched/store/live.h). */
	bool live_published;
	double live_last;
	struct timespec live_at;
	char live_state[COSCHED_ERROR_MSG_LEN + 32];
	char backend_what[COSCHED_ERROR_MSG_LEN + 16];	/* for the record */
	/* How the tasks ended ("exit PID STATUS" from task/cosched). */
	pid_t exited[TASKS_MAX];
	int nexited, signalled, first_signal, failed, first_status;
} sampler_t;

/* The event that counts name (a perf name): itself, or one of its role
 * (PAPI_TOT_INS for instructions: cosched_counters_role); -1 none. */
int sampler_event_index(const sampler_t *s, const char *name);

/* The wall clock, in seconds with their fraction. */
double sampler_wall_now(void);

/* Seconds from from to to (monotonic clock readings). */
double sampler_elapsed_s(const struct timespec *from,
			 const struct timespec *to);

/* Seconds the step ran since the sampler started (the step's start),
 * monotonic, without the time Slurm kept it suspended. */
double sampler_runtime_s(const sampler_t *s);

/* The step's run merged into its application's profile (ProfileDir),
 * when it may be; what happened into s->merged for the record. */
void sampler_merge_profile(sampler_t *s);

/* The step record, OUT (and its central copy): 0, or 1 with the reason
 * on stderr. */
int sampler_write_record(sampler_t *s);

#endif
