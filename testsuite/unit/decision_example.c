/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decision_example.c - the decision record of src/libcosched/model/decision.h's
 * example (decision_example.h). */
#include <stdio.h>
#include <string.h>

#include "cosched_check.h"
#include "decision_example.h"

void decision_example(cosched_decision_t *d)
{
	cosched_decision_node_t *n;
	cosched_error_t err;

	cosched_decision_init(d);
	d->job_id = 42;
	d->state = COSCHED_DECISION_PLACED;
	d->policy = COSCHED_POLICY_APP_AWARE;
	snprintf(d->app, sizeof(d->app), "stream");
	d->has_class = true;
	d->category = COSCHED_CAT_MEM;
	d->lca = COSCHED_LCA_L;
	d->source = COSCHED_CLASS_FROM_PROFILE;
	d->mpki = 21.5;
	d->threads = 4;
	n = cosched_decision_node(d, "n1", &err);
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(cosched_idset_add(&n->sockets, 1, &err), 0);
	for (int c = 4; c <= 7; c++)
		ck_assert_int_eq(cosched_idset_add(&n->cores, c, &err), 0);
	ck_assert_int_eq(cosched_idset_add(&n->numa, 1, &err), 0);
	n = cosched_decision_node(d, "n2", &err);
	ck_assert_ptr_nonnull(n);
	cosched_idset_add(&n->sockets, 0, &err);
	cosched_idset_add(&n->sockets, 1, &err);
	for (int c = 0; c <= 3; c++)
		cosched_idset_add(&n->cores, c, &err);
	cosched_idset_add(&n->cores, 8, &err);
	cosched_idset_add(&n->cores, 10, &err);
	d->membind = COSCHED_MEMBIND_BIND;
	d->power = COSCHED_POWER_EDP;
	d->freq_req_khz = 1500000;
	d->freq_khz = 1400000;
	strcpy(d->governor, "userspace");
	d->slowdown = 1.25;
	cosched_decision_set_reason(d, "joins \"cpu\" job %d on %s socket %d \\ ok",
				    40, "n1", 1);
}
