/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  plugin_conf.c - how every cosched plugin finds and reads cosched.conf
 *  (see plugin_conf.h).
\*****************************************************************************/

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xstring.h"

#include "plugin_conf.h"

char *cosched_plugin_conf_path(void)
{
	const char *env = getenv("COSCHED_CONF");

	if (env && *env)
		return xstrdup(env);
	return get_extra_conf_path("cosched.conf");
}

int cosched_plugin_conf_read(const char *path, cosched_conf_t *out,
			     cosched_error_t *err)
{
	struct stat st;
	int rc = 0;

	cosched_conf_init(out);
	if (!stat(path, &st) || errno != ENOENT)
		rc = cosched_conf_parse_file(out, path, err);
	out->privacy = cosched_plugin_privacy();
	return rc;
}

/* slurmstepd gets only part of slurm.conf from slurmd
 * (pack_slurm_conf_lite), without PrivateData from Slurm 24.11 on (22.05
 * sends it): there slurmd, which those series start again for a
 * reconfigure, puts what cosched needs of it in its environment, which
 * every slurmstepd it starts inherits. */
#define STEPD_LACKS_PRIVATE_DATA \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0))
#define PRIVACY_ENV "COSCHED_SLURM_PRIVATE_DATA"

cosched_private_t cosched_plugin_privacy(void)
{
	cosched_private_t p = {
		.on = (slurm_conf.private_data & PRIVATE_DATA_JOBS) != 0,
		.owner = (long) slurm_conf.slurm_user_id,
	};
	const char *env = getenv(PRIVACY_ENV);
	unsigned on, owner;
	char end;

	if (STEPD_LACKS_PRIVATE_DATA && running_in_slurmstepd() && env &&
	    sscanf(env, "jobs=%u slurm_user=%u%c", &on, &owner, &end) == 2) {
		p.on = on != 0;
		p.owner = (long) owner;
	}
	return p;
}

void cosched_plugin_privacy_export(void)
{
	char value[64];

	if (!STEPD_LACKS_PRIVATE_DATA)
		return;
	snprintf(value, sizeof(value), "jobs=%d slurm_user=%u",
		 (slurm_conf.private_data & PRIVATE_DATA_JOBS) != 0,
		 slurm_conf.slurm_user_id);
	if (setenv(PRIVACY_ENV, value, 1))
		error("cosched: cannot set %s: %m: steps on this node may keep their files public under PrivateData=jobs",
		      PRIVACY_ENV);
}

bool cosched_plugin_selected(void)
{
	return xstrcasestr(slurm_conf.select_type, "cons_tres_cosched") != NULL;
}
