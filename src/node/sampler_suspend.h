/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sampler_suspend.h - a sampled step across Slurm's suspend and resume
 * (gang time slices, scontrol suspend), seen from its tasks' state at each
 * sample (cosched-sampler; slurmstepd gives plugins no hook there):
 *   - the time it spent stopped, which the record's run time leaves out,
 *     as the profile, the learned table and the model check take the run
 *     time for the time the program ran;
 *   - its cpufreq holds set stopped while it is (cpufreq_journal.h), so
 *     that each time slice runs at the frequency of the steps in it, one
 *     SampleInterval after the slice changes at the latest.
 */
#ifndef COSCHED_SAMPLER_SUSPEND_H
#define COSCHED_SAMPLER_SUSPEND_H

#include <stdbool.h>

#include <jansson.h>

#include "src/libcosched/base/error.h"

typedef struct {
	/* Where the step's holds are: the node's SysfsRoot and the journal
	 * directory (NULL: the frequency is not followed). */
	const char *sysfs_root, *journal_dir;
	const char *default_governor;	/* FreqDefaultGovernor */
	unsigned job, step;
	bool stopped;			/* at the last sample */
	double stopped_s;		/* time spent stopped */
	int times;			/* times it was stopped */
	int held;			/* holds a domain: 1, 0, -1 unknown */
	int freq_changes;		/* its holds set stopped or running */
	char freq_error[COSCHED_ERROR_MSG_LEN];	/* the first failure */
} sampler_suspend_t;

/* As the step starts; the paths and ids set before. */
void sampler_suspend_start(sampler_suspend_t *s);

/* One sample, dt seconds after the last one (or the start): whether
 * every task of the step is stopped. */
void sampler_suspend_sample(sampler_suspend_t *s, bool stopped, double dt);

/* The record's "suspended" object, or NULL when it never was. */
json_t *sampler_suspend_json(const sampler_suspend_t *s);

#endif
