/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * interference.h - cosched-status --interference and --reset-interference
 * (interference.c): the learned interference table beside the configured
 * one, and its reset; --observations: the rule over every step record.
 */
#ifndef COSCHED_STATUS_INTERFERENCE_H
#define COSCHED_STATUS_INTERFERENCE_H

#include <stdbool.h>
#include <stdio.h>

/* conf_path NULL: cosched.conf beside slurm.conf ($SLURM_CONF, else
 * /etc/slurm).  Returns the exit status (0, or 1 with a message on
 * errout). */
int status_interference(const char *conf_path, bool reset, bool json,
			FILE *out, FILE *errout);

/* Every step record in profile_dir/jobs (NULL: cosched.conf's
 * ProfileDir) by the observation rule, as JSON (cosched-status(1)). */
int status_observations(const char *conf_path, const char *profile_dir,
			double min_overlap, FILE *out, FILE *errout);

/* slurm.conf as libslurm finds it: $SLURM_CONF, else /etc/slurm's. */
const char *status_slurm_conf(void);

#endif
