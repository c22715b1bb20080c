/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  task_cosched_common.c - what every part of task/cosched reads or uses:
 *  the configuration and topology init() loaded, the name the plugin's
 *  messages start with, where the node's spool and SysfsRoot are, and the
 *  tasks' environment.
 *
 *  Here rather than in task_cosched.c so that the parts depend on this
 *  file only, and task_cosched.c, which calls every part, is called by
 *  none of them (Slurm's own loader finds plugin_type in any file of the
 *  plugin).
\*****************************************************************************/

#include <stdarg.h>
#include <stdio.h>

#include "slurm/slurm.h"

#include "src/common/slurm_xlator.h"

#include "src/common/env.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"

#include "src/node/spool.h"

#include "task_cosched.h"

const char plugin_type[] = "task/cosched";

cosched_conf_t task_cosched_conf;
char *task_cosched_conf_path;
cosched_topology_t *task_cosched_topo;

char *task_cosched_node_path(const char *pattern, const char *node_name)
{
	char *path = xstrdup(pattern);

	xstrsubstituteall(path, "%n", node_name ? node_name : "");
	return path;
}

void task_cosched_setenv(task_cosched_step_t *st, const char *name,
			 const char *fmt, ...)
{
	char value[1024];
	va_list ap;

	if (!st->env)
		return;
	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	env_array_overwrite(&st->env, name, value);
}

char *task_cosched_spool_path(const char *name)
{
	if (!conf || !conf->spooldir)
		return NULL;
	if (!name)
		return xstrdup_printf("%s/cosched", conf->spooldir);
	return xstrdup_printf("%s/cosched/%s", conf->spooldir, name);
}

char *task_cosched_spool_dir(const char *sub, cosched_error_t *err)
{
	char *dir = task_cosched_spool_path(NULL), *path;

	if (!dir) {
		cosched_error_set(err, "SlurmdSpoolDir: not known");
		return NULL;
	}
	if (cosched_spool_dir_ready("SlurmdSpoolDir", dir, err)) {
		xfree(dir);
		return NULL;
	}
	if (!sub)
		return dir;
	path = xstrdup_printf("%s/%s", dir, sub);
	xfree(dir);
	if (cosched_spool_dir_ready("SlurmdSpoolDir", path, err))
		xfree(path);
	return path;
}
