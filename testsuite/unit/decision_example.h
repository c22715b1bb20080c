/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decision_example.h - the decision record of src/libcosched/model/decision.h's
 * example, every key set, which the record's tests share
 * (decision_example.c).
 */
#ifndef DECISION_EXAMPLE_H
#define DECISION_EXAMPLE_H

#include "src/libcosched/model/decision.h"

/* Its text, with a quote and a backslash in the reason and a node without
 * NUMA ids. */
#define DECISION_EXAMPLE_TEXT \
	"cosched/1 job=42 state=placed policy=app_aware scope=socket " \
	"app=stream class=mem lca=L source=profile mpki=21.5 threads=4 " \
	"sockets=n1:1;n2:0-1 cores=n1:4-7;n2:0-3,8,10 numa=n1:1;n2: " \
	"membind=bind power=edp freq_req_khz=1500000 freq_khz=1400000 " \
	"governor=userspace slowdown=1.25 " \
	"reason=\"joins \\\"cpu\\\" job 40 on n1 socket 1 \\\\ ok\""

/* The same record built key by key into *d. */
void decision_example(cosched_decision_t *d);

#endif
