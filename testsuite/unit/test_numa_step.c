/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_numa_step.c - the step files task/cosched writes for the node's
 * NUMA manager (src/node/numa_step.c), and the manager's reading
 * of a step's measured memory rate from the energy ledger.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cosched_check.h"
#include "src/node/energy_ledger.h"
#include "src/node/numa_step.h"

static cosched_error_t err;

static cosched_numa_step_t sample(void)
{
	cosched_numa_step_t s;

	memset(&s, 0, sizeof(s));
	s.job_id = 42;
	s.step_id = 4294967291u;	/* batch */
	s.uid = 1000;
	s.priority = COSCHED_NUMA_HIGH;
	snprintf(s.node, sizeof(s.node), "n1");
	snprintf(s.ledger, sizeof(s.ledger), "/var/spool/slurmd/cosched");
	s.ntasks = 2;
	s.tasks[0] = (cosched_proc_id_t){ 100, 5000 };
	s.tasks[1] = (cosched_proc_id_t){ 101, 5001 };
	return s;
}

static bool same(const cosched_numa_step_t *a, const cosched_numa_step_t *b)
{
	if (a->job_id != b->job_id || a->step_id != b->step_id ||
	    a->uid != b->uid || a->priority != b->priority ||
	    strcmp(a->node, b->node) || strcmp(a->ledger, b->ledger) ||
	    a->ntasks != b->ntasks)
		return false;
	for (int i = 0; i < a->ntasks; i++)
		if (a->tasks[i].pid != b->tasks[i].pid ||
		    a->tasks[i].start_time != b->tasks[i].start_time)
			return false;
	return true;
}

static void expect_error(const char *text, const char *needle)
{
	char *copy = strdup(text);
	cosched_numa_step_t s;

	ck_assert_msg(cosched_numa_step_parse(copy, &s, &err) == -1,
		      "accepted: %s", text);
	ck_assert_msg(strstr(err.msg, needle), "\"%s\" not in \"%s\"", needle,
		      err.msg);
	free(copy);
}

START_TEST(t_format_parse)
{
	cosched_numa_step_t s = sample(), back;
	char *text = cosched_numa_step_format(&s, &err);

	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text,
		"cosched-numa-step/1 job=42 step=4294967291 node=n1 uid=1000 priority=high ledger=\"/var/spool/slurmd/cosched\"\n"
		"task pid=100 start=5000\n"
		"task pid=101 start=5001\n");
	ck_assert_int_eq(cosched_numa_step_parse(text, &back, &err), 0);
	ck_assert(same(&s, &back));
	free(text);
	/* No ledger known, no task yet: still one form. */
	s.ledger[0] = '\0';
	s.ntasks = 0;
	s.priority = COSCHED_NUMA_UNSET;
	text = cosched_numa_step_format(&s, &err);
	ck_assert_str_eq(text,
		"cosched-numa-step/1 job=42 step=4294967291 node=n1 uid=1000 priority=default ledger=\"\"\n");
	ck_assert_int_eq(cosched_numa_step_parse(text, &back, &err), 0);
	ck_assert(same(&s, &back));
	free(text);
	/* A node name that is no Slurm node name is never written. */
	snprintf(s.node, sizeof(s.node), "../etc");
	ck_assert_ptr_null(cosched_numa_step_format(&s, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "node: invalid node name"));
}
END_TEST

START_TEST(t_parse_strict_and_versions)
{
	cosched_numa_step_t s;
	char text[512];

	expect_error("cosched-numa-step/2 job=1 step=0 node=n uid=0 priority=default ledger=\"\"\n",
		     "newer");
	expect_error("cosched-energy-ledger/1 job=1\n", "expected cosched-numa-step/1");
	expect_error("cosched-numa-step/1 job=0 step=0 node=n uid=0 priority=default ledger=\"\"\n",
		     "job: 0 is below 1");
	expect_error("cosched-numa-step/1 job=1 step=0 node=a/b uid=0 priority=default ledger=\"\"\n",
		     "node: invalid node name");
	expect_error("cosched-numa-step/1 job=1 step=0 node=n uid=0 priority=urgent ledger=\"\"\n",
		     "priority");
	expect_error("cosched-numa-step/1 job=1 step=0 node=n uid=0 priority=high\n",
		     "expected ledger=");
	expect_error("cosched-numa-step/1 job=1 step=0 node=n uid=0 priority=high ledger=\"../x\"\n",
		     "ledger");
	expect_error("cosched-numa-step/1 job=1 step=0 node=n uid=0 priority=high ledger=\"\"\ntask pid=0 start=1\n",
		     "pid");
	expect_error("cosched-numa-step/1 job=1 step=0 node=n uid=0 priority=high ledger=\"\"\ngpu id=1\n",
		     "unknown line");
	expect_error("cosched-numa-step/1 job=1 step=0 node=n uid=0 priority=high ledger=\"\"\ntask pid=5 start=1",
		     "no newline at the end");
	/* A newer minor's appended key and line are skipped. */
	snprintf(text, sizeof(text), "%s",
		 "cosched-numa-step/1.3 job=1 step=0 node=n uid=0 priority=low ledger=\"\" cgroup=x\n"
		 "task pid=5 start=9 tid=5\n"
		 "gpu id=1\n");
	ck_assert_msg(cosched_numa_step_parse(text, &s, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(s.priority, COSCHED_NUMA_LOW);
	ck_assert_int_eq(s.ntasks, 1);
	ck_assert_int_eq(s.tasks[0].pid, 5);
}
END_TEST

START_TEST(t_write_read_remove)
{
	char dir[] = "/tmp/cosched-numa-step-XXXXXX", name[128], path[256];
	cosched_numa_step_t s = sample(), back;
	struct stat st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* No directory, no manager: nothing written, no error. */
	snprintf(path, sizeof(path), "%s/absent", dir);
	ck_assert_int_eq(cosched_numa_step_write(path, &s, &err), 1);
	ck_assert_int_eq(stat(path, &st), -1);
	ck_assert_int_eq(cosched_numa_step_write(dir, &s, &err), 0);
	ck_assert_int_eq(cosched_numa_step_name(&s, name, sizeof(name), &err), 0);
	ck_assert_str_eq(name, "42.4294967291.n1");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);	/* root's, unreadable */
	ck_assert_int_eq(cosched_numa_step_read(dir, name, &back, &err), 0);
	ck_assert(same(&s, &back));
	/* One that others could have written is not slurmstepd's. */
	ck_assert_int_eq(chmod(path, 0622), 0);
	ck_assert_int_eq(cosched_numa_step_read(dir, name, &back, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a step file of slurmstepd's"));
	ck_assert_int_eq(chmod(path, 0600), 0);
	/* A symbolic link in its place is not followed. */
	ck_assert_int_eq(cosched_numa_step_remove(dir, &s, &err), 0);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	ck_assert_int_eq(cosched_numa_step_read(dir, name, &back, &err), -1);
	ck_assert_int_eq(cosched_numa_step_write(dir, &s, &err), -1);
	unlink(path);
	ck_assert_int_eq(cosched_numa_step_remove(dir, &s, &err), 0); /* absent */
	rmdir(dir);
}
END_TEST

START_TEST(t_ledger_mem_rate)
{
	char dir[] = "/tmp/cosched-numa-ledger-XXXXXX";
	cosched_ledger_step_t me;
	cosched_ledger_outcome_t outcome;
	cosched_step_ref_t id = { 7, 0 }, other = { 8, 0 };
	uint64_t rate = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* No ledger yet. */
	ck_assert_int_eq(cosched_energy_ledger_mem_rate(dir, &id, &rate, &err), 1);
	memset(&me, 0, sizeof(me));
	me.id = id;
	me.cores = 2;
	me.mem_rate = 123456;
	ck_assert_int_eq(cosched_proc_self(&me.proc, &err), 0);
	ck_assert_msg(cosched_energy_ledger_update(NULL, dir, &me, false, 1000,
						   NULL, &outcome, &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(cosched_energy_ledger_mem_rate(dir, &id, &rate, &err), 0);
	ck_assert_uint_eq(rate, 123456);
	ck_assert_int_eq(cosched_energy_ledger_mem_rate(dir, &other, &rate, &err), 1);
	/* A sampler that counts no LLC misses. */
	me.mem_rate = COSCHED_ENERGY_UNKNOWN;
	ck_assert_int_eq(cosched_energy_ledger_update(NULL, dir, &me, false, 1000,
						      NULL, &outcome, &err), 0);
	ck_assert_int_eq(cosched_energy_ledger_mem_rate(dir, &id, &rate, &err), 0);
	ck_assert_uint_eq(rate, COSCHED_ENERGY_UNKNOWN);
	ck_assert_int_eq(cosched_energy_ledger_update(NULL, dir, &me, true, 1000,
						      NULL, &outcome, &err), 0);
	ck_assert_int_eq(cosched_energy_ledger_mem_rate(dir, &id, &rate, &err), 1);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		ck_assert_int_eq(system(cmd), 0);
	}
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("numa_step");
	TCase *tc = tcase_create("numa_step");

	tcase_add_test(tc, t_format_parse);
	tcase_add_test(tc, t_parse_strict_and_versions);
	tcase_add_test(tc, t_write_read_remove);
	tcase_add_test(tc, t_ledger_mem_rate);
	suite_add_tcase(s, tc);
	return s;
}
