/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_decisions.c - the decision records slurmctld keeps by job id
 * (src/libcosched/model/decisions.c): what is put is what is got, written
 * back as the same text. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cosched_check.h"
#include "src/libcosched/model/decisions.h"
#include "decision_example.h"

static cosched_error_t err;

/* Record id: the example's, with id and a node count of its own (0 to 3
 * nodes), so that records differ in size and content. */
static void record_of(uint32_t id, cosched_decision_t *d)
{
	decision_example(d);
	d->job_id = id;
	d->nnodes = (int) (id % 4);
	for (int i = 0; i < d->nnodes; i++) {
		snprintf(d->nodes[i].name, sizeof(d->nodes[i].name), "n%u",
			 id % 97 + (unsigned) i);
		cosched_idset_clear(&d->nodes[i].sockets);
		cosched_idset_clear(&d->nodes[i].cores);
		cosched_idset_clear(&d->nodes[i].numa);
		cosched_idset_add(&d->nodes[i].sockets, i, NULL);
		cosched_idset_add(&d->nodes[i].cores, (int) (id % 1000), NULL);
	}
	d->slowdown = 1.0 + (double) (id % 50) / 100.0;
}

static void assert_kept(const cosched_decisions_t *t, uint32_t id)
{
	cosched_decision_t want, got;

	record_of(id, &want);
	memset(&got, 0x5a, sizeof(got));
	ck_assert_msg(cosched_decisions_get(t, id, &got), "job %u", id);
	ck_assert_msg(cosched_decision_equal(&got, &want), "job %u", id);
}

/* The example kept and got back is the same record, formatted as the
 * same text: what slurmctld writes from memory is what it decided. */
START_TEST(test_put_get)
{
	cosched_decisions_t *t = cosched_decisions_create();
	cosched_decision_t d, got;
	char buf[COSCHED_DECISION_TEXT_MAX];

	ck_assert_ptr_nonnull(t);
	decision_example(&d);
	ck_assert_uint_eq(cosched_decision_size(&d),
			  offsetof(cosched_decision_t, nodes) +
			  2 * sizeof(d.nodes[0]));
	ck_assert_int_eq(cosched_decisions_put(t, &d), 0);
	ck_assert_uint_eq(cosched_decisions_count(t), 1);
	ck_assert(cosched_decisions_get(t, 42, NULL));
	ck_assert(!cosched_decisions_get(t, 43, &got));
	memset(&got, 0x5a, sizeof(got));
	ck_assert(cosched_decisions_get(t, 42, &got));
	ck_assert(cosched_decision_equal(&got, &d));
	ck_assert_int_eq(cosched_decision_format(&got, buf, sizeof(buf), &err),
			 0);
	ck_assert_str_eq(buf, DECISION_EXAMPLE_TEXT);

	/* Put again: replaced, still one. */
	d.state = COSCHED_DECISION_PENDING;
	d.nnodes = 0;
	d.freq_khz = 0;
	ck_assert_int_eq(cosched_decisions_put(t, &d), 0);
	ck_assert_uint_eq(cosched_decisions_count(t), 1);
	ck_assert(cosched_decisions_get(t, 42, &got));
	ck_assert(cosched_decision_equal(&got, &d));
	ck_assert_int_eq(got.nnodes, 0);

	/* A neighbour's change: only the slowdown. */
	ck_assert(cosched_decisions_set_slowdown(t, 42, 2.5));
	ck_assert(cosched_decisions_get(t, 42, &got));
	ck_assert(got.slowdown == 2.5);
	d.slowdown = 2.5;
	ck_assert(cosched_decision_equal(&got, &d));
	ck_assert(cosched_decisions_set_slowdown(t, 42, NAN));
	ck_assert(cosched_decisions_get(t, 42, &got) && isnan(got.slowdown));
	ck_assert(!cosched_decisions_set_slowdown(t, 7, 1.5));

	/* No job 0; nothing without a table. */
	d.job_id = 0;
	ck_assert_int_eq(cosched_decisions_put(t, &d), -1);
	ck_assert_int_eq(cosched_decisions_put(NULL, &d), -1);
	ck_assert(!cosched_decisions_get(t, 0, NULL));
	ck_assert(!cosched_decisions_get(NULL, 42, NULL));
	ck_assert_uint_eq(cosched_decisions_count(NULL), 0);

	ck_assert(cosched_decisions_drop(t, 42));
	ck_assert(!cosched_decisions_drop(t, 42));
	ck_assert_uint_eq(cosched_decisions_count(t), 0);
	cosched_decisions_free(t);
	cosched_decisions_free(NULL);
}
END_TEST

static bool keep_fourth(uint32_t job_id, void *arg)
{
	(*(int *) arg)++;
	return job_id / 64 % 4 == 0;
}

/* Many records, grown past the first slots, dropped one by one and by
 * retain: every one left is found with what it was. */
START_TEST(test_many)
{
	cosched_decisions_t *t = cosched_decisions_create();
	cosched_decision_t d;
	const uint32_t n = 3000;
	int asked = 0;

	for (uint32_t id = 1; id <= n; id++) {
		/* Ids a stride apart, as job ids of one array or user. */
		record_of(id * 64, &d);
		ck_assert_int_eq(cosched_decisions_put(t, &d), 0);
	}
	ck_assert_uint_eq(cosched_decisions_count(t), n);
	for (uint32_t id = 1; id <= n; id++)
		assert_kept(t, id * 64);
	for (uint32_t id = 1; id <= n; id += 2)
		ck_assert(cosched_decisions_drop(t, id * 64));
	ck_assert_uint_eq(cosched_decisions_count(t), n / 2);
	for (uint32_t id = 1; id <= n; id++) {
		if (id % 2)
			ck_assert(!cosched_decisions_get(t, id * 64, NULL));
		else
			assert_kept(t, id * 64);
	}
	ck_assert_uint_eq(cosched_decisions_retain(t, keep_fourth, &asked),
			  n / 4);
	ck_assert_int_ge(asked, (int) (n / 2));
	ck_assert_uint_eq(cosched_decisions_count(t), n / 4);
	for (uint32_t id = 1; id <= n; id++) {
		if (id % 4)
			ck_assert(!cosched_decisions_get(t, id * 64, NULL));
		else
			assert_kept(t, id * 64);
	}
	cosched_decisions_free(t);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("decisions");
	TCase *tc = tcase_create("decisions");

	tcase_add_test(tc, test_put_get);
	tcase_add_test(tc, test_many);
	suite_add_tcase(s, tc);
	return s;
}
