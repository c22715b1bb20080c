/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpuinfo.h - which CPU a node has, as Linux's /proc/cpuinfo
 * names it, read under a root prefix ("/" is the machine; another
 * directory is a test tree, as SysfsRoot= gives), and the event list
 * cosched.conf gives that CPU (SampleEventsFor=, else SampleEvents=).
 *
 * x86 only: vendor_id, "cpu family" and model of the first processor
 * (one node's processors are one kind).  Elsewhere there is no vendor_id
 * and SampleEvents applies.
 */
#ifndef COSCHED_CPUINFO_H
#define COSCHED_CPUINFO_H

#include <stddef.h>

#include "src/libcosched/conf/conf.h"
#include "src/libcosched/base/error.h"

typedef struct {
	char vendor[COSCHED_CPU_VENDOR_MAX + 1];	/* vendor_id */
	long family, model;			/* -1: not given */
} cosched_cpuinfo_t;

/* Read ROOT/proc/cpuinfo.  -1 with err when it cannot be read or names
 * no vendor_id. */
int cosched_cpuinfo_read(const char *root, cosched_cpuinfo_t *ci,
			 cosched_error_t *err);

/*
 * The event list of this node's CPU (cosched_conf_sample_events).  which
 * (len bytes) says where it came from, and why SampleEvents when the CPU
 * could not be read: "SampleEvents (/proc/cpuinfo names no vendor_id)".
 * Nothing is read when cosched.conf has no SampleEventsFor.
 */
const char *cosched_cpuinfo_sample_events(const cosched_conf_t *conf,
					  const char *root, char *which,
					  size_t len);

#endif
