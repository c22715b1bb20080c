/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mempolicy.h - a task's NUMA memory policy, through libnuma.
 *
 * The task plugin calls it in each task (after fork, before exec, as the
 * job's user): the policy set here is the calling thread's and is
 * inherited by everything the task starts.  The qemu NUMA tests
 * (testsuite/numavm) run the same function in a guest with 2 and 4 real
 * NUMA nodes and check where the pages land (/proc/self/numa_maps).
 */
#ifndef COSCHED_MEMPOLICY_H
#define COSCHED_MEMPOLICY_H

#include "src/libcosched/model/decision.h"	/* membind */
#include "src/libcosched/base/error.h"
#include "src/libcosched/base/idset.h"

/*
 * Set the calling thread's memory policy:
 *   COSCHED_MEMBIND_BIND    MPOL_BIND to the nodes (strict: allocation
 *                           fails over to no other node)
 *   COSCHED_MEMBIND_PREFER  preferred: the first node of the set
 *                           (MPOL_PREFERRED; MPOL_PREFERRED_MANY where the
 *                           kernel has it and the set has several nodes)
 *   COSCHED_MEMBIND_NONE    leave the policy as it is (returns 0)
 * A node the machine does not have or that has no memory the task may use
 * (numa_get_mems_allowed) is an error naming the node and the nodes there
 * are; so is an empty set.  On error the policy is unchanged.  Nothing
 * is allocated on the way (system calls into the caller's stack), so a
 * forked task may call it before exec.
 */
int cosched_mempolicy_apply(cosched_membind_t mode,
			    const cosched_idset_t *numa, cosched_error_t *err);

/* The check cosched_mempolicy_apply() makes first, alone: every node of
 * the set exists and holds memory the caller may use, and the set is not
 * empty.  slurmstepd runs it once per step, so that a node the machine
 * lacks gets one log line there rather than one per task. */
int cosched_mempolicy_check(const cosched_idset_t *numa, cosched_error_t *err);

/* The calling thread's policy, for logs and tests: "bind 1", "prefer 0",
 * "default" (cut to len).  Returns buf. */
char *cosched_mempolicy_describe(char *buf, size_t len);

#endif
