/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * numa_mem_prog - a guest program of known page layout and bandwidth for
 * the NUMA manager's tests (testsuite/python/test_numad.py).
 *
 *   numa_mem_prog --job J [--step S] --stepdir DIR --cpus LIST --mem NODE
 *                 --mib N --mode spin|sleep|write|shared
 *                 [--threads-on LIST]
 *                 [--ledger DIR --mem-rate R]
 *
 * Runs on the CPUs of LIST, allocates N MiB (one anonymous mapping) with
 * its pages placed on NUMA node NODE (mbind, then touched once), then
 * names itself as the one task of step J.S in DIR exactly as task/cosched
 * does (cosched_numa_step_write, the node library's code) and prints
 *
 *   ready pid=P addr=0xADDR pages=K
 *
 * With --ledger, it also stands in the node's energy ledger in DIR for
 * its step with R LLC misses per second, through the same update a
 * step's sampler makes (cosched_energy_ledger_update, no RAPL), and the
 * step file names DIR: the manager's measured bandwidth.
 *
 * Then, until killed: spin touches every page over and over (a stream:
 * a high-bandwidth process); sleep does nothing (bandwidth 0); write
 * spins like spin from two threads, the second pinned to the CPUs of
 * --threads-on (a writer whose pages are touched from two nodes); shared
 * sleeps after forking a child that keeps every page mapped too (copy on
 * write: pages two processes map, which move_pages(2) refuses to move)
 * and dies with it.
 */
#include <errno.h>
#include <getopt.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "src/libcosched/base/idset.h"
#include "src/node/energy_ledger.h"
#include "src/node/numa_step.h"

static volatile unsigned char *mem;
static size_t len;

static int pin(const char *list)
{
	cosched_idset_t set;
	cosched_error_t err;
	cpu_set_t cpus;

	if (cosched_idset_parse("--cpus", list, &set, &err)) {
		fprintf(stderr, "numa_mem_prog: %s\n", err.msg);
		return -1;
	}
	CPU_ZERO(&cpus);
	for (int c = cosched_idset_next(&set, 0); c >= 0;
	     c = cosched_idset_next(&set, c + 1))
		CPU_SET(c, &cpus);
	return sched_setaffinity(0, sizeof(cpus), &cpus);
}

static void *spin(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);

	if (arg && pin(arg))
		return NULL;
	for (;;)
		for (size_t i = 0; i < len; i += (size_t) page)
			mem[i]++;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *stepdir = NULL, *cpus = NULL, *mode = "sleep",
		   *other = NULL, *ledger = NULL;
	unsigned long long mem_rate = 0;
	long job = 0, step = 0, node = -1, mib = 0;
	long page = sysconf(_SC_PAGESIZE);
	cosched_numa_step_t s;
	cosched_error_t err;
	unsigned long mask;
	int opt;
	static const struct option longs[] = {
		{ "job", required_argument, NULL, 'j' },
		{ "step", required_argument, NULL, 's' },
		{ "stepdir", required_argument, NULL, 'd' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "mem", required_argument, NULL, 'm' },
		{ "mib", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'M' },
		{ "threads-on", required_argument, NULL, 't' },
		{ "ledger", required_argument, NULL, 'l' },
		{ "mem-rate", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};

	while ((opt = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		switch (opt) {
		case 'j': job = atol(optarg); break;
		case 's': step = atol(optarg); break;
		case 'd': stepdir = optarg; break;
		case 'c': cpus = optarg; break;
		case 'm': node = atol(optarg); break;
		case 'n': mib = atol(optarg); break;
		case 'M': mode = optarg; break;
		case 't': other = optarg; break;
		case 'l': ledger = optarg; break;
		case 'r': mem_rate = strtoull(optarg, NULL, 10); break;
		default: return 2;
		}
	}
	if (job <= 0 || !stepdir || !cpus || node < 0 || node > 63 ||
	    mib <= 0 || (strcmp(mode, "spin") && strcmp(mode, "sleep") &&
			  strcmp(mode, "write") && strcmp(mode, "shared"))) {
		fprintf(stderr, "numa_mem_prog: --job --stepdir --cpus --mem --mib required; --mode spin|sleep|write\n");
		return 2;
	}
	if (pin(cpus)) {
		perror("numa_mem_prog: sched_setaffinity");
		return 1;
	}
	len = (size_t) mib << 20;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("numa_mem_prog: mmap");
		return 1;
	}
	/* No transparent huge pages: the manager moves base pages. */
	madvise((void *) mem, len, MADV_NOHUGEPAGE);
	mask = 1ul << node;
	if (mbind((void *) mem, len, MPOL_BIND, &mask, 64, 0)) {
		perror("numa_mem_prog: mbind");
		return 1;
	}
	for (size_t i = 0; i < len; i += (size_t) page)
		mem[i] = 1;
	/* The policy placed the pages; from now on they may move. */
	if (mbind((void *) mem, len, MPOL_DEFAULT, NULL, 0, 0)) {
		perror("numa_mem_prog: mbind default");
		return 1;
	}
	if (!strcmp(mode, "shared")) {
		pid_t child = fork();

		if (child < 0) {
			perror("numa_mem_prog: fork");
			return 1;
		}
		if (!child) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				pause();
		}
	}
	memset(&s, 0, sizeof(s));
	s.job_id = (uint32_t) job;
	s.step_id = (uint32_t) step;
	s.uid = (uint32_t) getuid();
	snprintf(s.node, sizeof(s.node), "guest");
	s.ntasks = 1;
	if (ledger) {
		cosched_ledger_step_t me;
		cosched_ledger_outcome_t outcome;

		snprintf(s.ledger, sizeof(s.ledger), "%s", ledger);
		memset(&me, 0, sizeof(me));
		me.id.job_id = s.job_id;
		me.id.step_id = s.step_id;
		me.cores = 1;
		me.mem_rate = mem_rate;
		if (cosched_proc_self(&me.proc, &err) ||
		    cosched_energy_ledger_update(NULL, ledger, &me, false, 2000,
						 NULL, &outcome, &err)) {
			fprintf(stderr, "numa_mem_prog: %s\n", err.msg);
			return 1;
		}
	}
	if (cosched_proc_self(&s.tasks[0], &err) ||
	    cosched_numa_step_write(stepdir, &s, &err) < 0) {
		fprintf(stderr, "numa_mem_prog: %s\n", err.msg);
		return 1;
	}
	printf("ready pid=%d addr=%p pages=%zu\n", (int) getpid(),
	       (void *) mem, len / (size_t) page);
	fflush(stdout);
	if (!strcmp(mode, "write") && other) {
		pthread_t t;

		pthread_create(&t, NULL, spin, (void *) other);
	}
	/* shared sleeps: a write would copy the pages it shares. */
	if (!strcmp(mode, "spin") || !strcmp(mode, "write"))
		spin(NULL);
	for (;;)
		pause();
	return 0;
}
