/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_mempolicy.c - the task's NUMA memory policy
 * (src/node/mempolicy.c) on the machine the tests run on, with the
 * real kernel: what is set is read back with get_mempolicy(), never taken
 * on trust from the function's return value.
 *
 * Check runs every test in a child of its own, so a policy set in one
 * test does not leak into the next.  The tests need one NUMA node with
 * memory (every Linux machine has node 0 in that sense; on a machine with
 * more, "the node" is the first the task may use and "the missing node"
 * the first above the machine's highest).  The multi-node behaviour is
 * tested for real in a qemu guest (testsuite/python/test_numavm.py). */
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "cosched_check.h"
#include "src/node/mempolicy.h"
#include "src/node/topology.h"

static cosched_error_t err;

/*
 * Every malloc, calloc and realloc of this program and of the libraries it
 * loads (hwloc, libnuma) comes here first: this program's definitions
 * interpose glibc's, which they call.  allocs counts them while counting
 * is on.  Not under AddressSanitizer, whose own allocator must see them.
 */
#if defined(__SANITIZE_ADDRESS__)
#define COUNT_ALLOCS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COUNT_ALLOCS 0
#endif
#endif
#ifndef COUNT_ALLOCS
#define COUNT_ALLOCS 1
#endif

static volatile bool counting;
static volatile unsigned long allocs;

#if COUNT_ALLOCS
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

void *malloc(size_t n)
{
	allocs += counting;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	allocs += counting;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	allocs += counting;
	return __libc_realloc(p, n);
}
#endif

/* A node this task may allocate on, and one the machine does not have. */
static int here, missing;

static void setup(void)
{
	struct bitmask *mems;

	ck_assert_msg(numa_available() >= 0, "libnuma: no NUMA support");
	mems = numa_get_mems_allowed();
	ck_assert_ptr_nonnull(mems);
	here = -1;
	for (unsigned int id = 0; id < mems->size && here < 0; id++)
		if (numa_bitmask_isbitset(mems, id))
			here = (int) id;
	numa_free_nodemask(mems);
	ck_assert_int_ge(here, 0);
	missing = numa_max_node() + 1;
	cosched_error_clear(&err);
}

static cosched_idset_t set_of(int a, int b)
{
	cosched_idset_t s;

	cosched_idset_clear(&s);
	if (a >= 0)
		ck_assert_int_eq(cosched_idset_add(&s, a, &err), 0);
	if (b >= 0)
		ck_assert_int_eq(cosched_idset_add(&s, b, &err), 0);
	return s;
}

/* The kernel's view: the mode (without its flags) and the node mask's
 * first word (every node these tests name is below 64). */
static void kernel_policy(int *mode, unsigned long *first_word)
{
	unsigned long mask[1024 / (8 * sizeof(unsigned long))];

	memset(mask, 0, sizeof(mask));
	ck_assert_int_eq(get_mempolicy(mode, mask, 1024 + 1, NULL, 0), 0);
	*mode &= 0xff;
	*first_word = mask[0];
}

static const char *describe(void)
{
	static char buf[128];

	return cosched_mempolicy_describe(buf, sizeof(buf));
}

/* Touch a fresh page and ask the kernel which node holds it. */
static int node_of_new_page(void)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int node = -1;

	ck_assert_ptr_ne(p, MAP_FAILED);
	p[0] = 1;
	ck_assert_int_eq(get_mempolicy(&node, NULL, 0, p,
				       MPOL_F_NODE | MPOL_F_ADDR), 0);
	munmap(p, 4096);
	return node;
}

START_TEST(test_bind)
{
	cosched_idset_t s = set_of(here, -1);
	char want[32];
	unsigned long word;
	int mode;

	ck_assert_str_eq(describe(), "default");
	ck_assert_msg(cosched_mempolicy_apply(COSCHED_MEMBIND_BIND, &s, &err)
		      == 0, "%s", err.msg);
	kernel_policy(&mode, &word);
	ck_assert_int_eq(mode, MPOL_BIND);
	ck_assert_uint_eq(word, 1UL << here);
	snprintf(want, sizeof(want), "bind %d", here);
	ck_assert_str_eq(describe(), want);
	ck_assert_int_eq(node_of_new_page(), here);
}
END_TEST

START_TEST(test_prefer)
{
	cosched_idset_t s = set_of(here, -1);
	char want[32];
	unsigned long word;
	int mode;

	ck_assert_msg(cosched_mempolicy_apply(COSCHED_MEMBIND_PREFER, &s,
					      &err) == 0, "%s", err.msg);
	kernel_policy(&mode, &word);
	/* One node: plain MPOL_PREFERRED, on every kernel. */
	ck_assert_int_eq(mode, MPOL_PREFERRED);
	ck_assert_uint_eq(word, 1UL << here);
	snprintf(want, sizeof(want), "prefer %d", here);
	ck_assert_str_eq(describe(), want);
	ck_assert_int_eq(node_of_new_page(), here);
}
END_TEST

/* Bind first, so that "unchanged" is something else than the default. */
static void bind_here(char *want, size_t len)
{
	cosched_idset_t s = set_of(here, -1);

	ck_assert_msg(cosched_mempolicy_apply(COSCHED_MEMBIND_BIND, &s, &err)
		      == 0, "%s", err.msg);
	snprintf(want, len, "bind %d", here);
	ck_assert_str_eq(describe(), want);
}

START_TEST(test_missing_node_refused)
{
	cosched_idset_t one = set_of(missing, -1), two = set_of(here, missing);
	char want[32], name[64];

	bind_here(want, sizeof(want));
	snprintf(name, sizeof(name), "NUMA node %d does not exist", missing);

	ck_assert_int_eq(cosched_mempolicy_apply(COSCHED_MEMBIND_BIND, &one,
						 &err), -1);
	ck_assert_msg(strstr(err.msg, name), "%s", err.msg);
	/* ... and it names the nodes there are. */
	ck_assert_msg(strstr(err.msg, "(its nodes: "), "%s", err.msg);
	if (missing == 1)	/* this development machine: one node */
		ck_assert_msg(strstr(err.msg, "(its nodes: 0)"), "%s",
			      err.msg);
	ck_assert_str_eq(describe(), want);

	/* A set with a good node and a bad one: all or nothing. */
	cosched_error_clear(&err);
	ck_assert_int_eq(cosched_mempolicy_apply(COSCHED_MEMBIND_PREFER, &two,
						 &err), -1);
	ck_assert_msg(strstr(err.msg, name), "%s", err.msg);
	ck_assert_str_eq(describe(), want);
	ck_assert_int_eq(node_of_new_page(), here);
}
END_TEST

START_TEST(test_out_of_kernel_range_refused)
{
	/* Far above any kernel's node count: refused by name, not by the
	 * kernel's bare EINVAL. */
	cosched_idset_t s = set_of(1000, -1);
	char want[32];

	bind_here(want, sizeof(want));
	ck_assert_int_eq(cosched_mempolicy_apply(COSCHED_MEMBIND_BIND, &s,
						 &err), -1);
	ck_assert_msg(strstr(err.msg, "NUMA node 1000 does not exist"), "%s",
		      err.msg);
	ck_assert_str_eq(describe(), want);
}
END_TEST

START_TEST(test_empty_set_refused)
{
	cosched_idset_t s = set_of(-1, -1);
	char want[32];

	bind_here(want, sizeof(want));
	ck_assert_int_eq(cosched_mempolicy_apply(COSCHED_MEMBIND_BIND, &s,
						 &err), -1);
	ck_assert_msg(strstr(err.msg, "empty set of NUMA nodes"), "%s",
		      err.msg);
	cosched_error_clear(&err);
	ck_assert_int_eq(cosched_mempolicy_apply(COSCHED_MEMBIND_PREFER, &s,
						 &err), -1);
	ck_assert_msg(strstr(err.msg, "empty set of NUMA nodes"), "%s",
		      err.msg);
	ck_assert_str_eq(describe(), want);
}
END_TEST

START_TEST(test_none_leaves_policy)
{
	cosched_idset_t empty = set_of(-1, -1), bad = set_of(missing, -1);
	char want[32];

	/* NONE does not look at the set at all: not even a bad one. */
	ck_assert_int_eq(cosched_mempolicy_apply(COSCHED_MEMBIND_NONE, &empty,
						 &err), 0);
	ck_assert_str_eq(describe(), "default");
	bind_here(want, sizeof(want));
	ck_assert_int_eq(cosched_mempolicy_apply(COSCHED_MEMBIND_NONE, &bad,
						 &err), 0);
	ck_assert_str_eq(describe(), want);
}
END_TEST

START_TEST(test_unset_mode_refused)
{
	cosched_idset_t s = set_of(here, -1);

	ck_assert_int_eq(cosched_mempolicy_apply(COSCHED_MEMBIND_UNSET, &s,
						 &err), -1);
	ck_assert_msg(strstr(err.msg, "none of bind, prefer, none"), "%s",
		      err.msg);
	ck_assert_str_eq(describe(), "default");
}
END_TEST

/*
 * What task/cosched does in each task, between fork and exec, allocates
 * nothing: the NUMA nodes of the task's CPUs through the table the
 * topology read at step start, then the policy.  slurmstepd loads the
 * topology once; here the test does, before counting.
 */
START_TEST(test_task_path_allocates_nothing)
{
	cosched_topology_t *t = cosched_topology_load("system", &err);
	cosched_membind_t modes[] = { COSCHED_MEMBIND_PREFER,
				      COSCHED_MEMBIND_BIND };
	cosched_idset_t cpus, numa;
	cpu_set_t mask;
	char want[32];

	if (!COUNT_ALLOCS) {
		fprintf(stderr, "test_task_path_allocates_nothing: skipped: allocations are not counted under AddressSanitizer\n");
		cosched_topology_free(t);
		return;
	}
	ck_assert_msg(t != NULL, "%s", err.msg);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(mask), &mask), 0);
	cosched_idset_clear(&cpus);
	for (int cpu = 0; cpu < CPU_SETSIZE && cpu < COSCHED_DECISION_IDS_MAX;
	     cpu++)
		if (CPU_ISSET(cpu, &mask))
			cosched_idset_add(&cpus, cpu, NULL);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		int mapped, applied;

		/* No Check assertion while counting: each one reports its
		 * place to the test's parent, which allocates. */
		counting = true;
		mapped = cosched_topology_cpu_numa(t, &cpus, &numa, &err);
		applied = mapped ? -1 : cosched_mempolicy_apply(modes[i], &numa,
								&err);
		counting = false;
		ck_assert_msg(!mapped && !applied, "%s", err.msg);
		ck_assert_msg(allocs == 0, "%s: %lu allocations",
			      cosched_membind_name(modes[i]), allocs);
		ck_assert(cosched_idset_has(&numa, here));
	}
	snprintf(want, sizeof(want), "bind %d", here);
	if (cosched_idset_count(&numa) == 1)
		ck_assert_str_eq(describe(), want);
	cosched_topology_free(t);
}
END_TEST

START_TEST(test_describe_cut)
{
	char buf[4];

	/* "default" cut to the buffer, still terminated. */
	ck_assert_str_eq(cosched_mempolicy_describe(buf, sizeof(buf)), "def");
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("mempolicy");
	TCase *tc = tcase_create("mempolicy");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_bind);
	tcase_add_test(tc, test_prefer);
	tcase_add_test(tc, test_missing_node_refused);
	tcase_add_test(tc, test_out_of_kernel_range_refused);
	tcase_add_test(tc, test_empty_set_refused);
	tcase_add_test(tc, test_none_leaves_policy);
	tcase_add_test(tc, test_unset_mode_refused);
	tcase_add_test(tc, test_describe_cut);
	tcase_add_test(tc, test_task_path_allocates_nothing);
	suite_add_tcase(s, tc);
	return s;
}
