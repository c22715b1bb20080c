/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * task_stopped.c - whether a step's task is stopped (task_stopped.h).
 */
#include <stdio.h>
#include <string.h>

#include "src/libcosched/io/file.h"
#include "src/node/sysfs.h"
#include "src/node/spool.h"
#include "src/node/task_stopped.h"

/* The cgroup file (v2 cgroup.events or v1 freezer.state) of pid's cgroup
 * says it is frozen. */
static bool cgroup_frozen(pid_t pid, const char *root)
{
	char dir[64], text[4096], *line, *save = NULL;
	cosched_error_t err;
	bool frozen = false;

	snprintf(dir, sizeof(dir), "/proc/%d", (int) pid);
	if (cosched_sysfs_read(dir, "cgroup", text, sizeof(text), NULL, NULL,
			       &err))
		return false;
	for (line = strtok_r(text, "\n", &save); line && !frozen;
	     line = strtok_r(NULL, "\n", &save)) {
		/* "ID:CONTROLLERS:PATH"; v2 is "0::PATH". */
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char cg[COSCHED_PATH_MAX], st[256];
		const char *name;

		if (!c2 || strstr(c2 + 1, ".."))
			continue;
		*c2 = '\0';
		if (!c1[1]) {
			snprintf(cg, sizeof(cg), "%s%s", root, c2 + 1);
			name = "cgroup.events";
		} else if (!strcmp(c1 + 1, "freezer")) {
			snprintf(cg, sizeof(cg), "%s/freezer%s", root, c2 + 1);
			name = "freezer.state";
		} else {
			continue;
		}
		if (!cosched_sysfs_read(cg, name, st, sizeof(st), NULL, NULL,
					&err))
			frozen = strstr(st, "frozen 1") ||
				 !strcmp(st, "FROZEN");
	}
	return frozen;
}

bool cosched_task_stopped(pid_t pid, const char *cgroup_root)
{
	cosched_proc_stat_t ps;

	if (pid <= 0 || cosched_proc_stat(pid, &ps))
		return false;
	/* 'T' is a stop by signal; 't' (a debugger's) is not Slurm's. */
	if (ps.state == 'T')
		return true;
	return cgroup_frozen(pid, cgroup_root);
}
