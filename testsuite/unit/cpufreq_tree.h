/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpufreq_tree.h - fake cpufreq trees (contribs/loopback/cosched_loopback/fake_cpufreq.py)
 * and the assertions on them that test_cpufreq.c, test_cpufreq_journal.c
 * and test_cpufreq_recovery.c share. */
#ifndef CPUFREQ_TREE_H
#define CPUFREQ_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "cosched_check.h"
#include "src/node/cpufreq.h"
#include "src/node/cpufreq_journal.h"

typedef struct {
	cosched_check_tree_t fake;	/* the test's directory, SysfsRoot */
	char spool[300];	/* the journal directory */
	char journal[340];
} tree_t;

/* A domain as fake_cpufreq.py makes it: "governor min max setspeed". */
#define ORIGINAL "schedutil 800000 3000000 <unsupported>"
/* Its journal lines, for the domains of CPUs 0-7 and 8-15. */
#define DOMAIN0 "domain id=0 cpus=0-7 governor=schedutil min=800000 max=3000000 setspeed=0\n"
#define DOMAIN8 "domain id=8 cpus=8-15 governor=schedutil min=800000 max=3000000 setspeed=0\n"

/* A fake tree made with fake_cpufreq.py create ROOT ARGS. */
void tree_make(tree_t *t, const char *args);
/* fake_cpufreq.py ARGS. */
void tree_fake(const char *args);
void tree_free(tree_t *t);
cosched_cpufreq_t *tree_open(const tree_t *t);

/* A bounded copy (always terminated). */
void cp(char *dst, size_t len, const char *src);
/* A policy file of cpu's domain: its text without the newline. */
const char *attr(const tree_t *t, int cpu, const char *name);
void set_attr(const tree_t *t, int cpu, const char *name, const char *value);
/* "schedutil 800000 3000000 <unsupported>": the four values of a domain. */
const char *state(const tree_t *t, int cpu);

/* This boot's id as the journal writes it ("-" when unknown). */
const char *boot(void);
/* The journal as the format says: its lines between the tag and end. */
const char *journal_text(const char *body, int nd, int nh);
/* The journal holds exactly body (none at all when it holds nothing). */
void journal_is(const tree_t *t, const char *body, int nd, int nh);
/* A holder's journal line (four in turn, so a test may use a few). */
const char *holder_line(const cosched_cpufreq_holder_t *h);

/* This process as the holder of job's step 0 asking for gov at khz. */
cosched_cpufreq_holder_t holder(uint32_t job, const char *gov, long khz);
/* Domain index taken by h, applied without a failure. */
void acquire_ok(const cosched_cpufreq_t *c, const tree_t *t,
		const cosched_cpufreq_holder_t *h, int index);
/* Job's holds released: applied and restored domains as given. */
void release_ok(const cosched_cpufreq_t *c, const tree_t *t, uint32_t job,
		int applied, int restored);
/* An acquire refused on every domain, err saying want; nothing taken. */
void acquire_refused(const cosched_cpufreq_t *c, const tree_t *t,
		     const cosched_cpufreq_holder_t *h, int *idx, int n,
		     const char *want);

#endif
