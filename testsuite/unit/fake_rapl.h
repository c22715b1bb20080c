/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fake_rapl.h - fake powercap (RAPL) trees for the unit tests, made and
 * advanced by the generator the cluster tests use
 * (contribs/loopback/cosched_loopback/fake_powercap.py), and opened with the node's
 * own code (src/node/rapl.c).
 */
#ifndef COSCHED_FAKE_RAPL_H
#define COSCHED_FAKE_RAPL_H

#include "cosched_check.h"
#include "src/node/rapl.h"

typedef cosched_check_tree_t fake_rapl_tree_t;	/* its root: SysfsRoot */

/* fake_powercap.py create ROOT ARGS. */
void fake_rapl_make(fake_rapl_tree_t *t, const char *args);

/* fake_powercap.py CMD ROOT ARGS, its output discarded. */
void fake_rapl(const fake_rapl_tree_t *t, const char *cmd, const char *fmt,
	       ...) __attribute__((format(printf, 3, 4)));

/* cosched_rapl_open() of the tree, which must succeed. */
cosched_rapl_t *fake_rapl_open(const fake_rapl_tree_t *t);

#endif
