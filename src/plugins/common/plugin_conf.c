/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  plugin_conf.c - how every cosched plugin finds and reads cosched.conf
 *  (see plugin_conf.h).
\*****************************************************************************/

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "src/common/slurm_xlator.h"

#include "src/common/read_config.h"
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

cosched_private_t cosched_plugin_privacy(void)
{
	cosched_private_t p = {
		.on = (slurm_conf.private_data & PRIVATE_DATA_JOBS) != 0,
		.owner = (long) slurm_conf.slurm_user_id,
	};

	return p;
}

bool cosched_plugin_selected(void)
{
	return xstrcasestr(slurm_conf.select_type, "cons_tres_cosched") != NULL;
}
