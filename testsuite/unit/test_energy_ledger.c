/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_energy_ledger.c - the node's energy ledger
 * (src/node/energy_ledger.c) against fake powercap trees: every
 * joule spent while a step was present goes to exactly one step, whoever
 * brings the ledger up to date (a step's sampler, or Slurm's accounting
 * settling for a step), and a broken ledger is set aside.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_rapl.h"
#include "src/node/energy_ledger.h"
#include "src/node/spool.h"

typedef fake_rapl_tree_t tree_t;

static cosched_error_t err;

static cosched_ledger_step_t ledger_step(uint32_t job, uint32_t cores,
					 uint64_t rate, uint64_t mem_rate)
{
	cosched_ledger_step_t s;

	memset(&s, 0, sizeof(s));
	s.id.job_id = job;
	s.id.step_id = 0;
	ck_assert(cosched_proc_self(&s.proc, &err) == 0);
	s.cores = cores;
	s.rate = rate;
	s.mem_rate = mem_rate;
	return s;
}

static cosched_ledger_step_t ledger_update(cosched_rapl_t *r, const char *dir,
					   const cosched_ledger_step_t *me,
					   bool leave,
					   cosched_ledger_outcome_t *oc)
{
	cosched_ledger_step_t out;

	err.msg[0] = '\0';
	ck_assert_msg(cosched_energy_ledger_update(r, dir, me, leave, 1000,
						   &out, oc, &err) == 0,
		      "%s", err.msg);
	return out;
}

/* Advance package, core and dram of package 0 by whole joules. */
static void spend(const tree_t *t, int pkg_j, int core_j, int dram_j)
{
	fake_rapl(t, "advance", "intel-rapl:0 %d", pkg_j * 1000000);
	fake_rapl(t, "advance", "intel-rapl:0:0 %d", core_j * 1000000);
	fake_rapl(t, "advance", "intel-rapl:0:1 %d", dram_j * 1000000);
}

static void ledger_dir(const tree_t *t, char *dir, size_t len)
{
	snprintf(dir, len, "%s/spool", t->top);
}

/* A fake RAPL tree made with opts, opened, and where its ledger is. */
static cosched_rapl_t *ledger_tree(tree_t *t, const char *opts, char *dir,
				   size_t dlen, char *path, size_t plen)
{
	fake_rapl_make(t, opts);
	ledger_dir(t, dir, dlen);
	snprintf(path, plen, "%s/" COSCHED_ENERGY_LEDGER_FILE, dir);
	return fake_rapl_open(t);
}

START_TEST(t_ledger_shares_add_up)
{
	cosched_ledger_step_t a = ledger_step(10, 2, 0, COSCHED_ENERGY_UNKNOWN);
	cosched_ledger_step_t b = ledger_step(11, 6, 0, COSCHED_ENERGY_UNKNOWN);
	cosched_ledger_step_t ga, gb;
	cosched_ledger_outcome_t oc;
	char dir[400], path[500];
	cosched_rapl_t *r;
	tree_t t;

	r = ledger_tree(&t, "--packages 1", dir, sizeof(dir), path, sizeof(path));

	ga = ledger_update(r, dir, &a, false, &oc);	/* a joins */
	ck_assert(oc.restarted);
	ck_assert_str_eq(oc.note, "new ledger");
	ck_assert_uint_eq(ga.energy.total_uj, 0);

	/* a alone: all of it. */
	spend(&t, 10, 4, 2);
	gb = ledger_update(r, dir, &b, false, &oc);	/* b joins */
	ck_assert(!oc.restarted);
	ck_assert_uint_eq(oc.split_uj, 12000000);
	ck_assert_int_eq(oc.present, 1);
	ck_assert_uint_eq(gb.energy.total_uj, 0);

	/* b has no rate yet: a's activity takes the core energy; idle and
	 * uncore by cores 2:6; no memory rate: dram by activity. */
	spend(&t, 8, 4, 2);
	a.rate = 1000;
	a.mem_rate = 100;
	ga = ledger_update(r, dir, &a, false, &oc);
	ck_assert_int_eq(oc.present, 2);
	ck_assert_uint_eq(ga.energy.total_uj, 12000000 + 1000000 + 4000000 +
					     2000000);
	b.rate = 3000;
	b.mem_rate = 300;
	gb = ledger_update(r, dir, &b, false, &oc);
	ck_assert_uint_eq(oc.split_uj, 0);
	ck_assert_uint_eq(gb.energy.total_uj, 3000000);

	/* Rates 1:3 for core and dram, cores 2:6 for the rest. */
	spend(&t, 8, 4, 2);
	ga = ledger_update(r, dir, &a, true, &oc);	/* a leaves */
	/* alone 6 + 4 + 2, then 1 + 4 + 2, then 1 + 1 + 0.5 J */
	ck_assert_uint_eq(ga.energy.uncore_uj, 8000000);
	ck_assert_uint_eq(ga.energy.core_uj, 9000000);
	ck_assert_uint_eq(ga.energy.dram_uj, 4500000);
	ck_assert_uint_eq(ga.energy.total_uj, 21500000);
	ck_assert_uint_eq(ga.node_uj, 32000000);
	ck_assert_int_eq(ga.ncorunners, 1);
	ck_assert_uint_eq(ga.corunners[0].job_id, 11);
	ck_assert_int_eq(access(path, F_OK), 0);

	gb = ledger_update(r, dir, &b, true, &oc);	/* b leaves, last */
	ck_assert_uint_eq(gb.energy.total_uj, 10500000);
	ck_assert_uint_eq(gb.node_uj, 20000000);
	ck_assert_int_eq(gb.ncorunners, 1);
	ck_assert_uint_eq(gb.corunners[0].job_id, 10);
	/* Every joule spent while a step was present, handed out once. */
	ck_assert_uint_eq(ga.energy.total_uj + gb.energy.total_uj, 32000000);
	ck_assert_msg(access(path, F_OK) && errno == ENOENT,
		      "%s left behind", path);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* A step whose tasks are stopped (Slurm suspended its job) takes no
 * share while its sampler says so, not even of the idle power: the steps
 * that run get it all, and with none running it is no step's. */
START_TEST(t_ledger_stopped_takes_nothing)
{
	cosched_ledger_step_t a = ledger_step(10, 2, 1000, 100);
	cosched_ledger_step_t b = ledger_step(11, 2, 1000, 100);
	cosched_ledger_step_t ga, gb;
	cosched_ledger_outcome_t oc;
	char dir[400], path[500];
	cosched_rapl_t *r;
	tree_t t;

	r = ledger_tree(&t, "--packages 1", dir, sizeof(dir), path, sizeof(path));
	ledger_update(r, dir, &a, false, &oc);
	ledger_update(r, dir, &b, false, &oc);
	/* Both run, alike: half each. */
	spend(&t, 8, 4, 2);
	ledger_update(r, dir, &a, false, &oc);
	/* a is suspended: its sampler says so, and what is spent from
	 * then on is b's, whoever updates. */
	a.stopped = true;
	a.rate = 0;
	ledger_update(r, dir, &a, false, &oc);
	spend(&t, 8, 4, 2);
	gb = ledger_update(r, dir, &b, false, &oc);
	ck_assert_int_eq(oc.present, 1);
	ck_assert_uint_eq(oc.split_uj, 10000000);
	ck_assert_uint_eq(gb.energy.total_uj, 5000000 + 10000000);
	/* Both stopped: nothing is attributed. */
	b.stopped = true;
	ledger_update(r, dir, &b, false, &oc);
	spend(&t, 4, 2, 1);
	ga = ledger_update(r, dir, &a, false, &oc);
	ck_assert_int_eq(oc.present, 0);
	ck_assert_uint_eq(ga.energy.total_uj, 5000000);
	ck_assert_ptr_nonnull(strstr(cosched_check_read_file(path),
				     "unattributed=5000000"));
	/* a runs again: it shares again. */
	a.stopped = false;
	a.rate = 1000;
	ledger_update(r, dir, &a, false, &oc);
	spend(&t, 8, 4, 2);
	ga = ledger_update(r, dir, &a, true, &oc);
	ck_assert_int_eq(oc.present, 1);
	ck_assert_uint_eq(ga.energy.total_uj, 5000000 + 10000000);
	/* Still co-runners, and the node's energy while present counts. */
	ck_assert_int_eq(ga.ncorunners, 1);
	ck_assert_uint_eq(ga.node_uj, 10000000 * 3 + 5000000);
	gb = ledger_update(r, dir, &b, true, &oc);
	ck_assert_uint_eq(ga.energy.total_uj + gb.energy.total_uj +
			  5000000, 35000000);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* Without RAPL the ledger keeps presence only (who shared the node);
 * a step without RAPL on a node whose ledger counts zones (a sampler
 * that could not open them) neither restarts the ledger nor takes or
 * loses energy, and a step with RAPL finding a presence-only ledger
 * starts counting from its own reading, keeping the steps present. */
START_TEST(t_ledger_presence)
{
	cosched_ledger_step_t a = ledger_step(30, 2, 0, COSCHED_ENERGY_UNKNOWN);
	cosched_ledger_step_t b = ledger_step(31, 2, 0, COSCHED_ENERGY_UNKNOWN);
	cosched_ledger_step_t c = ledger_step(32, 2, 0, COSCHED_ENERGY_UNKNOWN);
	cosched_ledger_step_t ga, gb, gc;
	cosched_ledger_outcome_t oc;
	char dir[400];
	cosched_rapl_t *r;
	tree_t t;

	fake_rapl_make(&t, "--packages 1");
	r = fake_rapl_open(&t);
	ledger_dir(&t, dir, sizeof(dir));

	/* Presence only: a and b name each other, no energy. */
	ledger_update(NULL, dir, &a, false, &oc);
	ledger_update(NULL, dir, &b, false, &oc);
	ck_assert(!oc.restarted);
	/* c, with RAPL, joins: it starts from its reading, a and b stay. */
	spend(&t, 10, 4, 2);
	gc = ledger_update(r, dir, &c, false, &oc);
	ck_assert(!oc.restarted);
	ck_assert_uint_eq(oc.split_uj, 0);
	ck_assert_int_eq(gc.ncorunners, 2);
	/* a updates without RAPL: no restart, nothing split. */
	spend(&t, 6, 2, 1);
	ga = ledger_update(NULL, dir, &a, false, &oc);
	ck_assert(!oc.restarted);
	ck_assert_uint_eq(ga.energy.total_uj, 0);
	ck_assert_int_eq(ga.ncorunners, 2);
	/* c updates with RAPL: the 7 J since its reading are split among
	 * the three present (a and b keep shares their records never
	 * show: they have no RAPL), every joule to one step. */
	gc = ledger_update(r, dir, &c, false, &oc);
	ck_assert(!oc.restarted);
	ck_assert_uint_eq(oc.split_uj, 7000000);
	ck_assert_int_eq(oc.present, 3);
	gb = ledger_update(NULL, dir, &b, true, &oc);
	ck_assert(!oc.restarted);
	ck_assert_int_eq(gb.ncorunners, 2);
	ga = ledger_update(NULL, dir, &a, true, &oc);
	gc = ledger_update(r, dir, &c, true, &oc);
	ck_assert_int_eq(gc.ncorunners, 2);
	ck_assert_uint_eq(ga.energy.total_uj + gb.energy.total_uj +
			  gc.energy.total_uj, 7000000);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

START_TEST(t_ledger_dead_sampler)
{
	cosched_ledger_step_t a = ledger_step(20, 4, 100, 1);
	cosched_ledger_step_t d = ledger_step(21, 4, 100, 1);
	cosched_ledger_outcome_t oc;
	char dir[400], path[500];
	cosched_rapl_t *r;
	int status;
	pid_t pid;
	tree_t t;

	r = ledger_tree(&t, "--packages 1", dir, sizeof(dir), path, sizeof(path));
	/* d's sampler: a child that joins, is given energy, and dies. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		d.proc.pid = getpid();
		if (cosched_proc_self(&d.proc, &err) ||
		    cosched_energy_ledger_update(r, dir, &d, false, 1000, NULL,
						 NULL, &err))
			_exit(1);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(status, 0);
	ck_assert_ptr_nonnull(strstr(cosched_check_read_file(path), "step 21.0 "));
	/* The dead step (no slurmstepd settled for it) takes its share of
	 * the interval up to now, which is not a's, and is dropped on a's
	 * joining; what it was given is abandoned. */
	spend(&t, 4, 2, 0);
	ledger_update(r, dir, &a, false, &oc);
	ck_assert_int_eq(oc.present, 1);
	ck_assert_uint_eq(oc.split_uj, 4000000);
	ck_assert_ptr_null(strstr(cosched_check_read_file(path), "step 21.0 "));
	ck_assert_ptr_nonnull(strstr(cosched_check_read_file(path), "abandoned=4000000\n"));
	spend(&t, 4, 2, 0);
	ck_assert_uint_eq(ledger_update(r, dir, &a, true, &oc).energy.total_uj,
			  4000000);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

START_TEST(t_ledger_unreadable_and_wrap)
{
	cosched_ledger_step_t a = ledger_step(30, 1, 0, COSCHED_ENERGY_UNKNOWN);
	cosched_ledger_outcome_t oc;
	char dir[400], path[500];
	cosched_rapl_t *r;
	tree_t t;

	r = ledger_tree(&t, "--packages 1 --no-dram --max-range 99999999", dir, sizeof(dir), path, sizeof(path));
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	cosched_check_write_file(path,
		"cosched-energy-ledger/1 boot=x\nstep 1.0 pid=1\n");
	fake_rapl(&t, "set", "intel-rapl:0 %d", 99000000);
	ledger_update(r, dir, &a, false, &oc);
	ck_assert(oc.restarted);
	ck_assert_msg(strstr(oc.note, "unreadable (line 2: step before the totals line)") &&
		      strstr(oc.note, ": set aside as "), "%s", oc.note);
	ck_assert_ptr_nonnull(strstr(cosched_check_read_file(path), "cosched-energy-ledger/1.2 boot="));
	/* 99 J, then 3 J on: past the 99.999999 J range. */
	fake_rapl(&t, "advance", "intel-rapl:0 %d", 3000000);
	ledger_update(r, dir, &a, false, &oc);
	ck_assert_uint_eq(oc.split_uj, 3000000);
	ck_assert_uint_eq(ledger_update(r, dir, &a, true, &oc).energy.total_uj,
			  3000000);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* A ledger of NUL bytes, or a directory where the ledger was: set aside
 * once (its step says so), and every later step measures again; before,
 * every step found it and said "energy unavailable". */
START_TEST(t_ledger_corrupt_set_aside)
{
	cosched_ledger_step_t a = ledger_step(30, 1, 0, COSCHED_ENERGY_UNKNOWN);
	cosched_ledger_outcome_t oc;
	char dir[400], path[500], aside[600];
	cosched_rapl_t *r;
	FILE *f;
	tree_t t;

	r = ledger_tree(&t, "--packages 1 --no-dram", dir, sizeof(dir), path, sizeof(path));
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	for (int i = 0; i < 64; i++)
		fputc('\0', f);
	fclose(f);
	ledger_update(r, dir, &a, false, &oc);
	ck_assert(oc.restarted);
	ck_assert_msg(strstr(oc.note, ": set aside as "), "%s", oc.note);
	ck_assert(cosched_spool_aside(dir, COSCHED_ENERGY_LEDGER_FILE, aside,
				      sizeof(aside)));
	fake_rapl(&t, "advance", "intel-rapl:0 %d", 2000000);
	ledger_update(r, dir, &a, false, &oc);
	ck_assert(!oc.restarted);
	ck_assert_uint_eq(oc.split_uj, 2000000);
	ledger_update(r, dir, &a, true, &oc);
	/* A directory where the file was. */
	unlink(path);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ledger_update(r, dir, &a, false, &oc);
	ck_assert(oc.restarted);
	ck_assert_msg(strstr(oc.note, ": set aside as "), "%s", oc.note);
	{
		struct stat st;
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert(S_ISREG(st.st_mode));	/* a ledger again */
	}
	ledger_update(r, dir, &a, true, &oc);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

static cosched_ledger_step_t settle(cosched_rapl_t *r, const char *dir,
				    uint32_t job, int want)
{
	cosched_step_ref_t id = { .job_id = job, .step_id = 0 };
	cosched_ledger_step_t out;

	memset(&out, 0, sizeof(out));
	err.msg[0] = '\0';
	ck_assert_msg(cosched_energy_ledger_settle(r, dir, &id, 1000, &out,
						   NULL, &err) == want,
		      "settle %u: %s", job, err.msg);
	return out;
}

/* Accounting settles for a step between its sampler's updates: the step
 * gets its share up to now by the rates its sampler last gave, which stay
 * as they were, and the energy settled is not handed out again at the next
 * update.  A step the ledger does not hold is answered 1, with nothing
 * written. */
START_TEST(t_ledger_settle)
{
	cosched_ledger_step_t a = ledger_step(40, 2, 1000, 100);
	cosched_ledger_step_t b = ledger_step(41, 6, 3000, 300);
	cosched_ledger_step_t ga, gb;
	cosched_ledger_outcome_t oc;
	char dir[400], path[500], *before, *after;
	cosched_rapl_t *r;
	tree_t t;

	r = ledger_tree(&t, "--packages 1", dir, sizeof(dir), path, sizeof(path));

	/* Nothing to settle in a ledger that does not exist. */
	settle(r, dir, 40, 1);
	ck_assert_msg(access(path, F_OK) && errno == ENOENT, "%s made", path);
	ledger_update(r, dir, &a, false, &oc);
	ledger_update(r, dir, &b, false, &oc);

	/* 8 J: uncore 4 by cores 2:6, core 4 and dram 2 by rates 1:3. */
	spend(&t, 8, 4, 2);
	ga = settle(r, dir, 40, 0);
	ck_assert_uint_eq(ga.energy.uncore_uj, 1000000);
	ck_assert_uint_eq(ga.energy.core_uj, 1000000);
	ck_assert_uint_eq(ga.energy.dram_uj, 500000);
	ck_assert_uint_eq(ga.energy.total_uj, 2500000);
	ck_assert_uint_eq(ga.rate, 1000);
	ck_assert_uint_eq(ga.mem_rate, 100);
	/* Settled once: a second settle with nothing spent gives nothing. */
	ga = settle(r, dir, 40, 0);
	ck_assert_uint_eq(ga.energy.total_uj, 2500000);
	/* b's sampler updates: b already has its share of those 10 J. */
	gb = ledger_update(r, dir, &b, false, &oc);
	ck_assert_uint_eq(oc.split_uj, 0);
	ck_assert_uint_eq(gb.energy.total_uj, 7500000);
	ck_assert_uint_eq(ga.energy.total_uj + gb.energy.total_uj, 10000000);

	/* A step not in the ledger: 1, and the file is as it was. */
	before = strdup(cosched_check_read_file(path));
	spend(&t, 4, 2, 1);
	settle(r, dir, 99, 1);
	after = cosched_check_read_file(path);
	ck_assert_str_eq(before, after);
	free(before);
	/* Settling needs RAPL: without it there is no energy to give. */
	{
		cosched_step_ref_t id = { .job_id = 40, .step_id = 0 };

		ck_assert_int_eq(cosched_energy_ledger_settle(NULL, dir, &id,
							      1000, NULL,
							      NULL, &err),
				 -1);
		ck_assert_msg(strstr(err.msg, "RAPL"), "%s", err.msg);
	}

	ga = ledger_update(r, dir, &a, true, &oc);
	gb = ledger_update(r, dir, &b, true, &oc);
	ck_assert_uint_eq(ga.energy.total_uj + gb.energy.total_uj, 15000000);
	/* A step that left is not settled for. */
	settle(r, dir, 40, 1);

	/* A ledger of presence only (its samplers have no RAPL) is not
	 * turned into one that counts, and an unreadable one is left for
	 * the samplers to set aside (their records say why). */
	ledger_update(NULL, dir, &a, false, &oc);
	before = strdup(cosched_check_read_file(path));
	settle(r, dir, 40, 1);
	ck_assert_str_eq(before, cosched_check_read_file(path));
	free(before);
	cosched_check_write_file(path, "not a ledger\n");
	settle(r, dir, 40, 1);
	ck_assert_str_eq(cosched_check_read_file(path), "not a ledger\n");
	ck_assert(!cosched_spool_aside(dir, COSCHED_ENERGY_LEDGER_FILE, path,
				       sizeof(path)));
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* An update as a sampler makes it: it keeps the totals it was given,
 * which it carries into a ledger that started over. */
static cosched_ledger_step_t sampler_update(cosched_rapl_t *r,
					    const char *dir,
					    cosched_ledger_step_t *me,
					    cosched_ledger_outcome_t *oc)
{
	cosched_ledger_step_t out = ledger_update(r, dir, me, false, oc);

	me->energy = out.energy;
	me->node_uj = out.node_uj;
	return out;
}

/* The ledger removed, then made unreadable, under two steps: each keeps
 * what it had and adds what follows; each start is a new generation, and
 * its reason is handed to one settle only (logged once).  Only what was
 * spent since the last reading is lost. */
START_TEST(t_ledger_restart_keeps_shares)
{
	cosched_ledger_step_t a = ledger_step(60, 2, 1000, 100);
	cosched_ledger_step_t b = ledger_step(61, 2, 1000, 100);
	cosched_ledger_step_t ga, gb;
	cosched_ledger_outcome_t oc;
	char dir[400], path[500];
	uint64_t gen0, gen1;
	cosched_rapl_t *r;
	tree_t t;

	r = ledger_tree(&t, "--packages 1", dir, sizeof(dir), path, sizeof(path));
	ledger_update(r, dir, &a, false, &oc);
	gen0 = oc.gen;
	ck_assert_uint_ne(gen0, 0);
	ledger_update(r, dir, &b, false, &oc);
	/* 6 J (4 package, 2 DRAM): 3 J each. */
	spend(&t, 4, 2, 2);
	ga = sampler_update(r, dir, &a, &oc);
	gb = sampler_update(r, dir, &b, &oc);
	ck_assert_uint_eq(ga.energy.total_uj, 3000000);
	ck_assert_uint_eq(gb.energy.total_uj, 3000000);

	/* Removed: the first update starts a new generation and says why;
	 * the other step joins it with what it had. */
	ck_assert_int_eq(unlink(path), 0);
	ga = sampler_update(r, dir, &a, &oc);
	ck_assert(oc.restarted);
	ck_assert_msg(strstr(oc.note, "gone while steps had energy"), "%s",
		      oc.note);
	gen1 = oc.gen;
	ck_assert_uint_ne(gen1, gen0);
	gb = sampler_update(r, dir, &b, &oc);
	ck_assert(!oc.restarted);
	ck_assert_uint_eq(oc.gen, gen1);
	ck_assert_uint_eq(gb.carried_uj, 3000000);
	spend(&t, 4, 2, 2);
	/* The first settle is told why the ledger started again (to log
	 * it); no later one, whichever step it is for. */
	for (int i = 0; i < 3; i++) {
		cosched_step_ref_t id = { .job_id = 60 + i % 2, .step_id = 0 };
		cosched_ledger_outcome_t o;

		ck_assert_int_eq(cosched_energy_ledger_settle(r, dir, &id,
				 1000, &ga, &o, &err), 0);
		ck_assert_int_eq(o.tell, i == 0);
		if (i == 0)
			ck_assert_msg(strstr(o.note, "gone while steps had energy"),
				      "%s", o.note);
	}
	ck_assert_uint_eq(ga.energy.total_uj, 6000000);
	ga = sampler_update(r, dir, &a, &oc);
	gb = sampler_update(r, dir, &b, &oc);
	ck_assert_uint_eq(ga.energy.total_uj, 6000000);
	ck_assert_uint_eq(gb.energy.total_uj, 6000000);

	/* Unreadable: set aside, a new generation, the same rule. */
	cosched_check_write_file(path, "garbage\n");
	ga = sampler_update(r, dir, &a, &oc);
	ck_assert(oc.restarted);
	ck_assert_msg(strstr(oc.note, "set aside"), "%s", oc.note);
	ck_assert_uint_ne(oc.gen, gen1);
	gb = sampler_update(r, dir, &b, &oc);
	spend(&t, 4, 2, 2);
	ga = ledger_update(r, dir, &a, true, &oc);
	gb = ledger_update(r, dir, &b, true, &oc);
	ck_assert_uint_eq(ga.energy.total_uj, 9000000);
	ck_assert_uint_eq(gb.energy.total_uj, 9000000);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* The lock replaced by a directory or a symbolic link: every update is
 * refused at once, saying so (no retry mends it), and nothing is
 * written; the lock is left as it is. */
START_TEST(t_ledger_lock_not_regular)
{
	cosched_ledger_step_t a = ledger_step(70, 1, 0, COSCHED_ENERGY_UNKNOWN);
	cosched_ledger_outcome_t oc;
	char dir[400], path[500], lock[520], *before;
	cosched_rapl_t *r;
	struct stat st;
	tree_t t;

	r = ledger_tree(&t, "--packages 1", dir, sizeof(dir), path, sizeof(path));
	snprintf(lock, sizeof(lock), "%s.lock", path);
	ledger_update(r, dir, &a, false, &oc);
	before = strdup(cosched_check_read_file(path));
	for (int kind = 0; kind < 2; kind++) {
		ck_assert_int_eq(unlink(lock), 0);
		if (kind == 0)
			ck_assert_int_eq(mkdir(lock, 0700), 0);
		else
			ck_assert_int_eq(symlink(path, lock), 0);
		spend(&t, 2, 1, 0);
		memset(&oc, 0, sizeof(oc));
		ck_assert_int_eq(cosched_energy_ledger_update(r, dir, &a,
				 false, 100, NULL, &oc, &err), -1);
		ck_assert(oc.lock_refused);
		ck_assert_msg(strstr(err.msg, "energy ledger lock refused") &&
			      strstr(err.msg, "until it is removed"), "%s",
			      err.msg);
		ck_assert_str_eq(before, cosched_check_read_file(path));
		ck_assert_int_eq(lstat(lock, &st), 0);
		ck_assert(kind == 0 ? S_ISDIR(st.st_mode) : S_ISLNK(st.st_mode));
		if (kind == 0)
			ck_assert_int_eq(rmdir(lock), 0);
		else
			ck_assert_int_eq(unlink(lock), 0);
		/* Removed: the ledger works again. */
		ledger_update(r, dir, &a, false, &oc);
		free(before);
		before = strdup(cosched_check_read_file(path));
	}
	free(before);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* A step whose sampler is killed while its slurmstepd lives still runs:
 * it keeps its share (the other step is not charged for it), and is
 * dropped once its slurmstepd is gone too. */
START_TEST(t_ledger_killed_sampler_keeps_share)
{
	cosched_ledger_step_t a = ledger_step(80, 2, 1000, 100);
	cosched_ledger_step_t d = ledger_step(81, 2, 1000, 100);
	cosched_ledger_step_t ga;
	cosched_ledger_outcome_t oc;
	char dir[400], path[500];
	int status, go[2];
	cosched_rapl_t *r;
	pid_t sampler, stepd;
	tree_t t;

	r = ledger_tree(&t, "--packages 1", dir, sizeof(dir), path, sizeof(path));
	ledger_update(r, dir, &a, false, &oc);
	/* d's sampler joins and is killed. */
	sampler = fork();
	ck_assert_int_ge(sampler, 0);
	if (sampler == 0) {
		if (cosched_proc_self(&d.proc, &err) ||
		    cosched_energy_ledger_update(r, dir, &d, false, 1000, NULL,
						 NULL, &err))
			_exit(1);
		pause();
		_exit(0);
	}
	while (!strstr(cosched_check_read_file(path), "step 81.0 "))
		usleep(10000);
	/* d's slurmstepd settles for it, and lives on. */
	ck_assert_int_eq(pipe(go), 0);
	stepd = fork();
	ck_assert_int_ge(stepd, 0);
	if (stepd == 0) {
		cosched_step_ref_t id = { .job_id = 81, .step_id = 0 };

		close(go[0]);
		if (cosched_energy_ledger_settle(r, dir, &id, 1000, NULL,
						 NULL, &err))
			_exit(1);
		if (write(go[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(go[1]);
	{
		char c;

		ck_assert_int_eq(read(go[0], &c, 1), 1);
	}
	close(go[0]);
	ck_assert_int_eq(kill(sampler, SIGKILL), 0);
	ck_assert_int_eq(waitpid(sampler, &status, 0), sampler);
	/* 6 J: half of it is d's, which runs on. */
	spend(&t, 4, 2, 2);
	ga = ledger_update(r, dir, &a, false, &oc);
	ck_assert_uint_eq(ga.energy.total_uj, 3000000);
	ck_assert_ptr_nonnull(strstr(cosched_check_read_file(path), "step 81.0 "));
	/* Its slurmstepd gone too: the step ended; d's share of the interval
	 * up to then is still not a's. */
	ck_assert_int_eq(kill(stepd, SIGKILL), 0);
	ck_assert_int_eq(waitpid(stepd, &status, 0), stepd);
	spend(&t, 4, 2, 2);
	ga = ledger_update(r, dir, &a, false, &oc);
	ck_assert_uint_eq(ga.energy.total_uj, 6000000);
	ck_assert_ptr_null(strstr(cosched_check_read_file(path), "step 81.0 "));
	spend(&t, 4, 2, 2);
	ga = ledger_update(r, dir, &a, true, &oc);
	ck_assert_uint_eq(ga.energy.total_uj, 12000000);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

/* The metrics of a ledger: the steps present with their shares so far,
 * read without the lock; a label value cannot break the format. */
START_TEST(t_ledger_metrics)
{
	cosched_ledger_step_t a = ledger_step(50, 2, 1000, 100);
	cosched_ledger_step_t b = ledger_step(51, 6, 3000, 300);
	cosched_ledger_outcome_t oc;
	char dir[400], *text = NULL;
	size_t len = 0;
	cosched_rapl_t *r;
	FILE *f;
	tree_t t;

	fake_rapl_make(&t, "--packages 1");
	r = fake_rapl_open(&t);
	ledger_dir(&t, dir, sizeof(dir));
	/* No ledger: no step, no energy. */
	f = open_memstream(&text, &len);
	ck_assert_int_eq(cosched_energy_ledger_metrics(dir, "n1", f, &err), 0);
	fclose(f);
	ck_assert_msg(strstr(text, "\ncosched_ledger_steps{node=\"n1\"} 0\n"),
		      "%s", text);
	ck_assert_msg(!strstr(text, "cosched_step_energy_joules_total{"), "%s",
		      text);
	free(text);

	ledger_update(r, dir, &a, false, &oc);
	ledger_update(r, dir, &b, false, &oc);
	spend(&t, 8, 4, 2);
	settle(r, dir, 40 + 10, 0);
	f = open_memstream(&text, &len);
	ck_assert_int_eq(cosched_energy_ledger_metrics(dir, "n\"1\n", f, &err),
			 0);
	fclose(f);
	ck_assert_msg(strstr(text, "# TYPE cosched_step_energy_joules_total counter\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "cosched_ledger_steps{node=\"n\\\"1\\n\"} 2\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "cosched_step_energy_joules_total{node=\"n\\\"1\\n\",job=\"50\",step=\"0\"} 2.5\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "cosched_step_energy_joules_total{node=\"n\\\"1\\n\",job=\"51\",step=\"0\"} 7.5\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "cosched_step_node_energy_joules_total{node=\"n\\\"1\\n\",job=\"51\",step=\"0\"} 10\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "cosched_step_cores{node=\"n\\\"1\\n\",job=\"51\",step=\"0\"} 6\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "cosched_ledger_energy_joules{node=\"n\\\"1\\n\",kind=\"unattributed\"} 0\n"),
		      "%s", text);
	free(text);
	cosched_rapl_close(r);
	cosched_check_tree_free(&t);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("energy_ledger");
	TCase *tc = tcase_create("ledger");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_ledger_shares_add_up);
	tcase_add_test(tc, t_ledger_presence);
	tcase_add_test(tc, t_ledger_stopped_takes_nothing);
	tcase_add_test(tc, t_ledger_dead_sampler);
	tcase_add_test(tc, t_ledger_unreadable_and_wrap);
	tcase_add_test(tc, t_ledger_corrupt_set_aside);
	tcase_add_test(tc, t_ledger_settle);
	tcase_add_test(tc, t_ledger_metrics);
	tcase_add_test(tc, t_ledger_restart_keeps_shares);
	tcase_add_test(tc, t_ledger_lock_not_regular);
	tcase_add_test(tc, t_ledger_killed_sampler_keeps_share);
	suite_add_tcase(s, tc);
	return s;
}
