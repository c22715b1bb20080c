/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mempolicy.c - a task's NUMA memory policy (see the header).
 *
 * The policy goes through the raw system calls of numaif.h rather than
 * libnuma's numa_set_membind()/numa_set_preferred(): those report failure
 * only through numa_error(), which prints on the job's stderr and returns
 * nothing, while the task plugin needs a message to log and a guarantee
 * that a refused policy left the old one in place.  libnuma serves for
 * what it knows better than a syscall: which nodes exist (numa_nodes_ptr,
 * read from sysfs when the library loads).  Which nodes the task may use
 * (the cpuset's mems) comes from get_mempolicy(MPOL_F_MEMS_ALLOWED), as
 * numa_get_mems_allowed() reads it but into the caller's stack: the
 * task plugin calls this in each forked task, where nothing here
 * allocates.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <numa.h>
#include <numaif.h>

#include "src/node/mempolicy.h"

/* The nodemask handed to the kernel: one bit per id a cosched_idset_t can
 * hold.  The kernel takes a larger mask than its MAX_NUMNODES as long as
 * the extra bits are zero, and get_mempolicy() needs one at least that
 * large (Debian's kernels: 1024 nodes), so this size fits both calls. */
#define MASK_BITS COSCHED_DECISION_IDS_MAX
#define ULONG_BITS (sizeof(unsigned long) * CHAR_BIT)
#define MASK_LONGS ((MASK_BITS + ULONG_BITS - 1) / ULONG_BITS)

/* The mode flags get_mempolicy() may report above the mode itself
 * (MPOL_F_STATIC_NODES, MPOL_F_RELATIVE_NODES, MPOL_F_NUMA_BALANCING). */
#define MODE_FLAGS ((1 << 15) | (1 << 14) | (1 << 13))

/* A libnuma bitmask as an idset (ids beyond the idset's range dropped:
 * they can only make an error message shorter). */
static void _from_bitmask(struct bitmask *b, cosched_idset_t *out)
{
	cosched_idset_clear(out);
	if (!b)
		return;
	for (unsigned long id = 0;
	     id < b->size && id < COSCHED_DECISION_IDS_MAX; id++)
		if (numa_bitmask_isbitset(b, (unsigned int) id))
			cosched_idset_add(out, (int) id, NULL);
}

/* A kernel nodemask as an idset. */
static void _from_mask(const unsigned long *mask, cosched_idset_t *out)
{
	cosched_idset_clear(out);
	for (int id = 0; id < MASK_BITS; id++)
		if (mask[id / ULONG_BITS] & (1UL << (id % ULONG_BITS)))
			cosched_idset_add(out, id, NULL);
}

/* Every node of the set must exist and hold memory the task may use: the
 * kernel would refuse some of these itself (EINVAL), but only this check
 * can name the node and the nodes there are. */
static int _check_nodes(const cosched_idset_t *numa, cosched_error_t *err)
{
	char have[COSCHED_IDSET_TEXT_MAX], allowed_text[COSCHED_IDSET_TEXT_MAX];
	unsigned long mems[MASK_LONGS];
	cosched_idset_t exist, allowed;
	int bad = -1, rc = 0;

	if (!cosched_idset_count(numa))
		return cosched_error_set(err,
			"memory policy: empty set of NUMA nodes");
	if (numa_available() < 0)
		return cosched_error_set(err,
			"memory policy: this kernel has no NUMA memory policy (libnuma: numa_available)");
	_from_bitmask(numa_nodes_ptr, &exist);
	memset(mems, 0, sizeof(mems));
	if (get_mempolicy(NULL, mems, MASK_BITS + 1, NULL,
			  MPOL_F_MEMS_ALLOWED))
		return cosched_error_set(err,
			"memory policy: cannot read the nodes this task may use (get_mempolicy MPOL_F_MEMS_ALLOWED: %s)",
			strerror(errno));
	_from_mask(mems, &allowed);
	cosched_idset_format(&exist, have, sizeof(have));
	cosched_idset_format(&allowed, allowed_text, sizeof(allowed_text));

	for (int id = 0; id < COSCHED_DECISION_IDS_MAX && !rc; id++) {
		if (!cosched_idset_has(numa, id))
			continue;
		if (!cosched_idset_has(&exist, id)) {
			bad = id;
			rc = cosched_error_set(err,
				"NUMA node %d does not exist on this machine (its nodes: %s)",
				bad, have);
		} else if (!cosched_idset_has(&allowed, id)) {
			bad = id;
			rc = cosched_error_set(err,
				"NUMA node %d has no memory this task may use (the machine's nodes: %s; allowed here: %s)",
				bad, have, allowed_text);
		}
	}
	return rc;
}

int cosched_mempolicy_check(const cosched_idset_t *numa, cosched_error_t *err)
{
	return _check_nodes(numa, err);
}

static void _to_mask(const cosched_idset_t *numa, unsigned long *mask)
{
	memset(mask, 0, MASK_LONGS * sizeof(*mask));
	for (int id = 0; id < MASK_BITS; id++)
		if (cosched_idset_has(numa, id))
			mask[id / ULONG_BITS] |= 1UL << (id % ULONG_BITS);
}

int cosched_mempolicy_apply(cosched_membind_t mode,
			    const cosched_idset_t *numa, cosched_error_t *err)
{
	unsigned long mask[MASK_LONGS];
	char text[COSCHED_IDSET_TEXT_MAX];
	cosched_idset_t one;

	switch (mode) {
	case COSCHED_MEMBIND_NONE:
		return 0;
	case COSCHED_MEMBIND_BIND:
	case COSCHED_MEMBIND_PREFER:
		break;
	default:
		return cosched_error_set(err,
			"memory policy: mode %d is none of bind, prefer, none",
			(int) mode);
	}
	if (_check_nodes(numa, err))
		return -1;
	cosched_idset_format(numa, text, sizeof(text));

	if (mode == COSCHED_MEMBIND_BIND) {
		_to_mask(numa, mask);
		if (set_mempolicy(MPOL_BIND, mask, MASK_BITS + 1))
			return cosched_error_set(err,
				"memory policy: set_mempolicy(MPOL_BIND, nodes %s): %s",
				text, strerror(errno));
		return 0;
	}

	if (cosched_idset_count(numa) > 1) {
		/* Linux 5.15 and later; older kernels say EINVAL for the mode
		 * itself (the nodes were checked above), and then the first
		 * node is what "prefer" promises. */
		_to_mask(numa, mask);
		if (!set_mempolicy(MPOL_PREFERRED_MANY, mask, MASK_BITS + 1))
			return 0;
		if (errno != EINVAL)
			return cosched_error_set(err,
				"memory policy: set_mempolicy(MPOL_PREFERRED_MANY, nodes %s): %s",
				text, strerror(errno));
	}
	cosched_idset_clear(&one);
	cosched_idset_add(&one, cosched_idset_next(numa, 0), NULL);
	_to_mask(&one, mask);
	if (set_mempolicy(MPOL_PREFERRED, mask, MASK_BITS + 1))
		return cosched_error_set(err,
			"memory policy: set_mempolicy(MPOL_PREFERRED, node %d): %s",
			cosched_idset_next(numa, 0), strerror(errno));
	return 0;
}

char *cosched_mempolicy_describe(char *buf, size_t len)
{
	unsigned long mask[MASK_LONGS];
	char text[COSCHED_IDSET_TEXT_MAX];
	cosched_idset_t nodes;
	int mode = 0;

	if (!len)
		return buf;
	memset(mask, 0, sizeof(mask));
	if (get_mempolicy(&mode, mask, MASK_BITS + 1, NULL, 0)) {
		snprintf(buf, len, "unknown (get_mempolicy: %s)",
			 strerror(errno));
		return buf;
	}
	_from_mask(mask, &nodes);
	cosched_idset_format(&nodes, text, sizeof(text));

	switch (mode & ~MODE_FLAGS) {
	case MPOL_DEFAULT:
		snprintf(buf, len, "default");
		break;
	case MPOL_BIND:
		snprintf(buf, len, "bind %s", text);
		break;
	case MPOL_PREFERRED:
		/* MPOL_PREFERRED without a node is local allocation. */
		if (cosched_idset_count(&nodes))
			snprintf(buf, len, "prefer %s", text);
		else
			snprintf(buf, len, "local");
		break;
	case MPOL_PREFERRED_MANY:
		snprintf(buf, len, "prefer %s", text);
		break;
	case MPOL_INTERLEAVE:
		snprintf(buf, len, "interleave %s", text);
		break;
	case MPOL_LOCAL:
		snprintf(buf, len, "local");
		break;
	default:
		snprintf(buf, len, "mode %d %s", mode, text);
		break;
	}
	return buf;
}
