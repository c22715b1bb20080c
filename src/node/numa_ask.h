/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * numa_ask.h - one request to the node's NUMA manager
 * (cosched-numad(8)) over its Unix socket: what cosched-numa(1) and
 * task/cosched (make room for a high-priority job, NumaMakeRoom=yes)
 * both send.
 *
 * A request is one line (cosched-numa/1 cmd=... key=value ...); the reply
 * is lines of text ending with "rc=N" (0 done, 1 refused or partial, 2 a
 * malformed request), error lines starting "error: ".
 */
#ifndef COSCHED_NUMA_ASK_H
#define COSCHED_NUMA_ASK_H

#include "src/libcosched/base/error.h"

typedef void (*cosched_numa_line_fn)(void *arg, const char *line);

/*
 * Send line (without its "\n") to the manager at socket and hand each
 * reply line but the last to fn (may be NULL).  timeout_ms bounds the
 * whole exchange (-1: none: a waited-for migration takes its time).
 * Returns the reply's rc, or -1 with err: the manager cannot be reached
 * (err says so, with the socket's path), it did not answer in time, or
 * the reply ended without its rc line.
 */
int cosched_numa_ask(const char *socket, const char *line, int timeout_ms,
		     cosched_numa_line_fn fn, void *arg, cosched_error_t *err);

#endif
