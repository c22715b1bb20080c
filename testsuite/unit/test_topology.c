/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_topology.c - the node's topology through hwloc (src/node), on
 * synthetic topologies: Slurm's core numbers to CPUs, packages and NUMA
 * nodes, and the errors a topology that does not match the node gives.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwloc.h>

#include "cosched_check.h"
#include "src/node/topology.h"

static cosched_error_t err;

static cosched_idset_t ids(const char *list)
{
	cosched_idset_t s;

	ck_assert_msg(cosched_idset_parse("ids", list, &s, &err) == 0, "%s",
		      err.msg);
	return s;
}

static void assert_ids(const cosched_idset_t *s, const char *want)
{
	char buf[COSCHED_IDSET_TEXT_MAX];

	ck_assert_str_eq(cosched_idset_format(s, buf, sizeof(buf)), want);
}

START_TEST(test_two_packages_two_numa)
{
	cosched_topology_t *t = cosched_topology_load(
		"synthetic:package:2 [numa] core:8 pu:1", &err);
	cosched_idset_t cores, cpus, out;
	char buf[256];

	ck_assert_msg(t != NULL, "%s", err.msg);
	ck_assert_int_eq(cosched_topology_ncores(t), 16);
	ck_assert_int_eq(cosched_topology_npackages(t), 2);
	ck_assert_int_eq(cosched_topology_nnuma(t), 2);
	cores = ids("8-11");
	ck_assert_int_eq(cosched_topology_core_cpus(t, &cores, &cpus, &err), 0);
	assert_ids(&cpus, "8-11");
	ck_assert_int_eq(cosched_topology_core_packages(t, &cores, &out, &err), 0);
	assert_ids(&out, "1");
	/* the NUMA node local to socket 1's CPUs is node 1, and a set across
	 * both packages names both */
	ck_assert_int_eq(cosched_topology_cpu_numa(t, &cpus, &out, &err), 0);
	assert_ids(&out, "1");
	cpus = ids("7-8");
	ck_assert_int_eq(cosched_topology_cpu_numa(t, &cpus, &out, &err), 0);
	assert_ids(&out, "0-1");
	ck_assert_ptr_nonnull(strstr(cosched_topology_describe(t, buf, sizeof(buf)),
				     "packages=2 cores=16 pus=16 numa=2"));
	cosched_topology_free(t);
}
END_TEST

/* NUMA nodes local to cpus, as hwloc itself answers it on top. */
static cosched_idset_t hwloc_numa_of(hwloc_topology_t top,
				     const cosched_idset_t *cpus)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
	cosched_idset_t out;
	int id;

	ck_assert(set && nodes);
	for (id = 0; id < COSCHED_DECISION_IDS_MAX; id++)
		if (cosched_idset_has(cpus, id))
			hwloc_bitmap_set(set, id);
	hwloc_cpuset_to_nodeset(top, set, nodes);
	cosched_idset_clear(&out);
	hwloc_bitmap_foreach_begin(id, nodes) {
		ck_assert_int_eq(cosched_idset_add(&out, id, &err), 0);
	} hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(set);
	hwloc_bitmap_free(nodes);
	return out;
}

/*
 * The table cosched_topology_cpu_numa() maps with, read once at load,
 * gives what hwloc gives for every CPU alone and every pair of CPUs: with
 * OS numbers out of hwloc's order (hyperthread siblings numbered apart,
 * nodes 3 and 1), two nodes local to each CPU (a package's DRAM and its
 * high-bandwidth memory), a node local to every CPU, nodes per group.
 */
START_TEST(test_numa_table)
{
	static const struct {
		const char *desc;
		const char *cpus, *want;	/* one case named outright */
	} topos[] = {
		{ "package:2 [numa(indexes=3,1)] core:2 pu:2(indexes=0,4,1,5,2,6,3,7)",
		  "4", "3" },
		{ "package:2 [numa] [numa] core:4 pu:1", "5", "2-3" },
		{ "[numa] package:2 [numa] core:2 pu:1", "0,3", "0-2" },
		{ "package:2 group:2 [numa] core:2 pu:2", "6-9", "1-2" },
	};

	for (size_t i = 0; i < sizeof(topos) / sizeof(topos[0]); i++) {
		char src[256], a_text[COSCHED_IDSET_TEXT_MAX],
		     b_text[COSCHED_IDSET_TEXT_MAX];
		cosched_idset_t cpus, got, want;
		cosched_topology_t *t;
		hwloc_topology_t top;
		int npus;

		snprintf(src, sizeof(src), "synthetic:%s", topos[i].desc);
		t = cosched_topology_load(src, &err);
		ck_assert_msg(t != NULL, "%s", err.msg);
		ck_assert_int_eq(hwloc_topology_init(&top), 0);
		ck_assert_int_eq(hwloc_topology_set_synthetic(top, topos[i].desc), 0);
		ck_assert_int_eq(hwloc_topology_load(top), 0);
		ck_assert_int_eq(cosched_topology_nnuma(t),
				 hwloc_get_nbobjs_by_type(top, HWLOC_OBJ_NUMANODE));
		cpus = ids(topos[i].cpus);
		ck_assert_int_eq(cosched_topology_cpu_numa(t, &cpus, &got, &err), 0);
		assert_ids(&got, topos[i].want);

		npus = hwloc_get_nbobjs_by_type(top, HWLOC_OBJ_PU);
		for (int a = 0; a < npus; a++)
			for (int b = a; b < npus; b++) {
				cosched_idset_clear(&cpus);
				cosched_idset_add(&cpus, a, NULL);
				cosched_idset_add(&cpus, b, NULL);
				ck_assert_int_eq(cosched_topology_cpu_numa(t,
						&cpus, &got, &err), 0);
				want = hwloc_numa_of(top, &cpus);
				ck_assert_msg(!memcmp(&got, &want, sizeof(got)),
					"%s: CPUs %d,%d: nodes %s, hwloc says %s",
					topos[i].desc, a, b,
					cosched_idset_format(&got, a_text, sizeof(a_text)),
					cosched_idset_format(&want, b_text, sizeof(b_text)));
			}
		hwloc_topology_destroy(top);
		cosched_topology_free(t);
	}
}
END_TEST

START_TEST(test_threads_and_errors)
{
	/* 2 threads per core: core i is CPUs 2i and 2i+1 in hwloc's
	 * synthetic numbering; Slurm's core 5 is on package 1 */
	cosched_topology_t *t = cosched_topology_load(
		"synthetic:package:2 core:4 pu:2", &err);
	cosched_idset_t cores = ids("0,5"), cpus, before = ids("3");

	ck_assert_msg(t != NULL, "%s", err.msg);
	ck_assert_int_eq(cosched_topology_ncores(t), 8);
	ck_assert_int_eq(cosched_topology_core_cpus(t, &cores, &cpus, &err), 0);
	assert_ids(&cpus, "0-1,10-11");
	/* a core the node lacks: named, with the node's count; out untouched */
	cores = ids("2,8");
	cpus = before;
	ck_assert_int_eq(cosched_topology_core_cpus(t, &cores, &cpus, &err), -1);
	ck_assert_msg(strstr(err.msg, "core 8: the node's topology has 8 cores (0-7"),
		      "%s", err.msg);
	assert_ids(&cpus, "3");
	/* one machine-wide NUMA node when the description names none */
	cpus = ids("0-15");
	ck_assert_int_eq(cosched_topology_cpu_numa(t, &cpus, &cpus, &err), 0);
	assert_ids(&cpus, "0");
	cosched_topology_free(t);
}
END_TEST

START_TEST(test_sources)
{
	cosched_topology_t *t = cosched_topology_load("system", &err);

	/* this machine: at least one core, every core maps to a CPU */
	ck_assert_msg(t != NULL, "%s", err.msg);
	ck_assert_int_ge(cosched_topology_ncores(t), 1);
	cosched_topology_free(t);
	ck_assert_ptr_null(cosched_topology_load("synthetic:bogus:3", &err));
	ck_assert_msg(strstr(err.msg, "Topology=\"synthetic:bogus:3\": hwloc_topology_set_synthetic"),
		      "%s", err.msg);
	ck_assert_ptr_null(cosched_topology_load("xml:/nonexistent/topo.xml", &err));
	ck_assert_msg(strstr(err.msg, "/nonexistent/topo.xml"), "%s", err.msg);
	ck_assert_ptr_null(cosched_topology_load("numa:2", &err));
	ck_assert_msg(strstr(err.msg, "Topology: invalid value \"numa:2\""), "%s",
		      err.msg);
}
END_TEST

/* In a cpuset of CPU 1 only, as slurmstepd is once task/cgroup moved it,
 * the topology still has every core, numbered as Slurm numbers them. */
static int in_cpuset(void *arg)
{
	cosched_topology_t *t = cosched_topology_load("system", &err);
	cosched_idset_t cores, cpus;
	char buf[64];

	(void) arg;
	if (!t)
		return 10;
	if (cosched_topology_ncores(t) != (int) sysconf(_SC_NPROCESSORS_CONF))
		return 11;
	cosched_idset_clear(&cores);
	cosched_idset_add(&cores, 1, NULL);
	if (cosched_topology_core_cpus(t, &cores, &cpus, &err))
		return 12;
	cosched_idset_format(&cpus, buf, sizeof(buf));
	cosched_topology_free(t);
	return strcmp(buf, "1") ? 13 : 0;
}

START_TEST(test_cpuset_does_not_renumber)
{
	char dir[128], path[192], pid[32];
	int go[2], status;
	pid_t child;

	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/cpuset/cosched-test-%d",
		 (int) getpid());
	if (sysconf(_SC_NPROCESSORS_CONF) < 2 || mkdir(dir, 0755)) {
		fprintf(stderr, "test_cpuset_does_not_renumber: skipped: no cgroup v1 cpuset to create here (%s)\n",
			strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/cpuset.cpus", dir);
	cosched_check_write_file(path, "1");
	snprintf(path, sizeof(path), "%s/cpuset.mems", dir);
	cosched_check_write_file(path, "0");
	ck_assert_int_eq(pipe(go), 0);
	child = fork();
	if (!child) {
		char c;
		if (read(go[0], &c, 1) != 1)
			_exit(9);
		_exit(in_cpuset(NULL));
	}
	snprintf(path, sizeof(path), "%s/tasks", dir);
	snprintf(pid, sizeof(pid), "%d", (int) child);
	cosched_check_write_file(path, pid);
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	waitpid(child, &status, 0);
	rmdir(dir);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "in a cpuset of CPU 1: status %d", status);
}
END_TEST

/* Cache sizes for the representative programs (contribs/apps): an L3
 * shared by a package's cores, private L2 and L1d; and a machine without
 * an L3, whose last level is the L2. */
START_TEST(test_caches)
{
	cosched_cache_sizes_t c;
	cosched_topology_t *t = cosched_topology_load(
		"synthetic:package:2 l3:1(size=32MiB) l2:4(size=1MiB) "
		"l1d:1(size=32KiB) core:1 pu:1", &err);

	ck_assert_msg(t != NULL, "%s", err.msg);
	cosched_topology_caches(t, &c);
	ck_assert_uint_eq(c.l1d, 32ULL << 10);
	ck_assert_uint_eq(c.l2, 1ULL << 20);
	ck_assert_uint_eq(c.llc, 32ULL << 20);
	ck_assert_int_eq(c.llc_level, 3);
	ck_assert_int_eq(c.llc_cores, 4);
	cosched_topology_free(t);

	t = cosched_topology_load("synthetic:package:1 l2:1(size=4MiB) "
				  "core:2 pu:1", &err);
	ck_assert_msg(t != NULL, "%s", err.msg);
	cosched_topology_caches(t, &c);
	ck_assert_uint_eq(c.l1d, 0);
	ck_assert_uint_eq(c.llc, 4ULL << 20);
	ck_assert_int_eq(c.llc_level, 2);
	ck_assert_int_eq(c.llc_cores, 2);
	cosched_topology_free(t);

	t = cosched_topology_load("synthetic:package:1 core:2 pu:1", &err);
	ck_assert_msg(t != NULL, "%s", err.msg);
	cosched_topology_caches(t, &c);
	ck_assert_uint_eq(c.llc, 0);
	ck_assert_int_eq(c.llc_level, 0);
	cosched_topology_free(t);
}
END_TEST

/* The copy slurmd keeps for the steps: the same cores, packages, NUMA
 * nodes and caches as the topology it was saved from; refused when it is
 * not whole, not cosched's, of another major or not root's alone. */
START_TEST(test_saved_copy)
{
	char dir[256], path[320], other[320], buf[256];
	cosched_topology_t *t = cosched_topology_load(
		"synthetic:package:2 [numa] l3:1(size=16MiB) core:4 pu:2", &err);
	cosched_topology_t *c;
	cosched_cache_sizes_t want_caches, got_caches;
	cosched_idset_t cores = ids("5-6"), cpus, numa;
	struct stat st;
	char *text, *v;
	int missing = -1;

	ck_assert_msg(t != NULL, "%s", err.msg);
	cosched_check_tmpdir(dir, sizeof(dir), "topology-copy");
	snprintf(path, sizeof(path), "%s/topology.xml", dir);
	ck_assert_msg(cosched_topology_save(t, path, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);

	c = cosched_topology_load_saved(path, &missing, &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	ck_assert_int_eq(missing, 0);
	ck_assert_int_eq(cosched_topology_ncores(c), 8);
	ck_assert_int_eq(cosched_topology_npackages(c), 2);
	ck_assert_int_eq(cosched_topology_nnuma(c), 2);
	ck_assert_int_eq(cosched_topology_core_cpus(c, &cores, &cpus, &err), 0);
	assert_ids(&cpus, "10-13");
	ck_assert_int_eq(cosched_topology_cpu_numa(c, &cpus, &numa, &err), 0);
	assert_ids(&numa, "1");
	cosched_topology_caches(t, &want_caches);
	cosched_topology_caches(c, &got_caches);
	ck_assert_uint_eq(got_caches.llc, 16ULL << 20);
	ck_assert_mem_eq(&got_caches, &want_caches, sizeof(want_caches));
	ck_assert_ptr_nonnull(strstr(cosched_topology_describe(c, buf,
		sizeof(buf)), "packages=2 cores=8 pus=16 numa=2 source=system"));
	cores = ids("8");
	ck_assert_int_eq(cosched_topology_core_cpus(c, &cores, &cpus, &err), -1);
	ck_assert_str_eq(err.msg, "core 8: the node's topology has 8 cores (0-7; Topology=\"system\", saved)");
	text = strdup(cosched_check_read_file(path));
	cosched_topology_free(c);

	/* No copy; a copy cut short; a newer minor (read); another major. */
	snprintf(other, sizeof(other), "%s/none.xml", dir);
	ck_assert_ptr_null(cosched_topology_load_saved(other, &missing, &err));
	ck_assert_int_eq(missing, 1);
	v = strdup(text);
	v[strlen(v) / 2] = '\0';
	cosched_check_write_file(path, v);
	free(v);
	chmod(path, 0600);
	ck_assert_ptr_null(cosched_topology_load_saved(path, &missing, &err));
	ck_assert_int_eq(missing, 0);
	ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, "hwloc_topology"),
		      "%s", err.msg);
	v = strdup(text);
	ck_assert_ptr_nonnull(strstr(v, "cosched-topology/1\""));
	memcpy(strstr(v, "cosched-topology/1\""), "cosched-topology/3\"", 19);
	cosched_check_write_file(path, v);
	chmod(path, 0600);
	ck_assert_ptr_null(cosched_topology_load_saved(path, &missing, &err));
	ck_assert_msg(strstr(err.msg, "cosched-topology/3"), "%s", err.msg);
	free(v);
	{
		/* "cosched-topology/1" becomes "cosched-topology/1.4", one
		 * byte longer than the field it replaces */
		char *at = strstr(text, "cosched-topology/1\"");
		size_t head = (size_t) (at - text) + strlen("cosched-topology/1");

		v = malloc(strlen(text) + 3);
		memcpy(v, text, head);
		strcpy(v + head, ".4");
		strcpy(v + head + 2, text + head);
		cosched_check_write_file(path, v);
		chmod(path, 0600);
		free(v);
		c = cosched_topology_load_saved(path, &missing, &err);
		ck_assert_msg(c != NULL, "a newer minor: %s", err.msg);
		ck_assert_int_eq(cosched_topology_ncores(c), 8);
		cosched_topology_free(c);
	}

	/* hwloc's own export, without cosched's version. */
	{
		hwloc_topology_t h;

		ck_assert_int_eq(hwloc_topology_init(&h), 0);
		ck_assert_int_eq(hwloc_topology_set_synthetic(h, "package:1 core:2 pu:1"), 0);
		ck_assert_int_eq(hwloc_topology_load(h), 0);
		ck_assert_int_eq(hwloc_topology_export_xml(h, path, 0), 0);
		hwloc_topology_destroy(h);
		chmod(path, 0600);
		ck_assert_ptr_null(cosched_topology_load_saved(path, &missing, &err));
		ck_assert_msg(strstr(err.msg, "not cosched's copy"), "%s", err.msg);
	}

	/* Writable by others: anyone could have told root's step daemon
	 * which CPUs are whose. */
	cosched_check_write_file(path, text);
	chmod(path, 0666);
	ck_assert_ptr_null(cosched_topology_load_saved(path, &missing, &err));
	ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, "writable by group or others"), "%s", err.msg);
	/* A symbolic link is not followed. */
	unlink(path);
	ck_assert_int_eq(symlink(other, path), 0);
	ck_assert_ptr_null(cosched_topology_load_saved(path, &missing, &err));
	ck_assert_int_eq(missing, 0);
	/* Saving into a directory that is not there fails, saying where. */
	snprintf(other, sizeof(other), "%s/no/such/topology.xml", dir);
	ck_assert_int_eq(cosched_topology_save(t, other, &err), -1);
	ck_assert_msg(strstr(err.msg, other), "%s", err.msg);

	free(text);
	cosched_topology_free(t);
	cosched_check_rm_rf(dir);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("topology");
	TCase *tc = tcase_create("topology");

	tcase_add_test(tc, test_two_packages_two_numa);
	tcase_add_test(tc, test_numa_table);
	tcase_add_test(tc, test_threads_and_errors);
	tcase_add_test(tc, test_sources);
	tcase_add_test(tc, test_cpuset_does_not_renumber);
	tcase_add_test(tc, test_caches);
	tcase_add_test(tc, test_saved_copy);
	suite_add_tcase(s, tc);
	return s;
}
