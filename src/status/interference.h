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

#include "src/libcosched/io/private.h"

/* Who asks, and what the site's PrivateData lets them see of the files
 * about jobs, as squeue would: under PrivateData=jobs a user other than
 * root and SlurmUser sees their own jobs only (and cannot read the files
 * at all once cosched keeps them private, io/private.h).  Without a
 * slurm.conf on this host, public: the files' modes decide. */
typedef struct {
	cosched_private_t privacy;	/* the site's PrivateData, SlurmUser */
	long uid;			/* the caller */
	bool sees_all;			/* root or SlurmUser */
} status_viewer_t;

/* conf_path NULL: cosched.conf beside slurm.conf ($SLURM_CONF, else
 * /etc/slurm).  Returns the exit status (0, or 1 with a message on
 * errout). */
int status_interference(const char *conf_path, bool reset, bool json,
			const status_viewer_t *viewer, FILE *out,
			FILE *errout);

/* Every step record in profile_dir/jobs (NULL: cosched.conf's
 * ProfileDir) by the observation rule, as JSON (cosched-status(1)): of
 * the viewer's jobs only where PrivateData hides the others'. */
int status_observations(const char *conf_path, const char *profile_dir,
			double min_overlap, const status_viewer_t *viewer,
			FILE *out, FILE *errout);

/* slurm.conf as libslurm finds it: $SLURM_CONF, else /etc/slurm's. */
const char *status_slurm_conf(void);

#endif
