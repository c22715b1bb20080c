/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * private.h - how cosched keeps the files that tell of users' jobs (step
 * records, live loads, profiles, the learned table) under the site's
 * PrivateData.
 *
 * With PrivateData=jobs (or =all) in slurm.conf, squeue and sacct show a
 * user only their own jobs; these files name jobs, applications,
 * co-runners, run times and energy, so they must not tell more.  The rule,
 * in one place: private, each such file is mode 0600 and each of its
 * directories (ProfileDir, ProfileDir/jobs, ProfileDir/live) mode 0700,
 * both owned by SlurmUser, who must still read them (slurmctld runs as
 * SlurmUser; root, which writes them on the nodes, reads anything).
 * Otherwise files are 0644 and directories 0755, readable by all.
 *
 * A site that turns PrivateData on has older files: each directory is
 * made private when a writer next uses it (cosched_private_dir), which
 * puts every file in it out of other users' reach, and each file is
 * rewritten 0600 when it is next written.
 */
#ifndef COSCHED_PRIVATE_H
#define COSCHED_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "src/libcosched/base/error.h"

typedef struct {
	bool on;	/* the site's PrivateData hides jobs */
	long owner;	/* SlurmUser's uid: who owns the private files and
			 * directories; -1: not known (they stay the
			 * writer's) */
} cosched_private_t;

/* The mode of a file, and of a directory, kept under p (NULL: public). */
mode_t cosched_private_file_mode(const cosched_private_t *p);
mode_t cosched_private_dir_mode(const cosched_private_t *p);

/*
 * The directory dir, kept under p: created with its mode when create and
 * absent; when private, given to p->owner (where this process may: root)
 * and stripped of group and other access.  A directory cosched creates
 * (create) is never used through a symbolic link; ProfileDir, the
 * administrator's (create false), may be one.  -1 with err naming dir and
 * what failed.
 */
int cosched_private_dir(const cosched_private_t *p, const char *dir,
			bool create, cosched_error_t *err);

/* cosched_file_replace() with the mode and owner p gives. */
int cosched_private_replace(const cosched_private_t *p, const char *path,
			    const void *data, size_t len, unsigned flags,
			    cosched_error_t *err);

#endif
