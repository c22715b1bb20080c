/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  plugin_conf.h - how every cosched plugin finds and reads cosched.conf.
 *
 *  cosched.conf sits beside slurm.conf, as Slurm finds cgroup.conf; the
 *  environment variable COSCHED_CONF overrides (as SLURM_CONF does).  A
 *  missing file gives the defaults: a site that only changes SelectType or
 *  TaskPlugin gets the default behaviour.
\*****************************************************************************/
#ifndef COSCHED_PLUGIN_CONF_H
#define COSCHED_PLUGIN_CONF_H

#include <stdbool.h>

#include "src/libcosched/conf/conf.h"

/* The path (xmalloc'ed; xfree() it). */
char *cosched_plugin_conf_path(void);

/* Read path into *out, all or nothing (defaults when the file does not
 * exist). */
int cosched_plugin_conf_read(const char *path, cosched_conf_t *out,
			     cosched_error_t *err);
/* A node reads it with task_cosched_conf_load(), which keeps the last
 * good copy. */

/* slurm.conf's PrivateData as cosched keeps its files (io/private.h):
 * private when it hides jobs (=jobs, =all), owned by SlurmUser.  *out
 * carries it (privacy) from cosched_plugin_conf_read().  In slurmstepd,
 * what slurmd exported: */
cosched_private_t cosched_plugin_privacy(void);
/* slurmd: hand it to the slurmstepd processes it starts, which are not
 * told it by every Slurm series. */
void cosched_plugin_privacy_export(void);

/* Whether slurm.conf's SelectType is cosched's (select/cons_tres_cosched):
 * only then does slurmctld place jobs and write decision records.  Slurm
 * starts every select plugin it finds, whatever SelectType says, so a
 * site that rolls back by setting SelectType=select/cons_tres with the
 * package still installed loads this one too. */
bool cosched_plugin_selected(void);

#endif
