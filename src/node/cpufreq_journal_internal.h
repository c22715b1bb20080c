/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpufreq_journal_internal.h - the cpufreq journal in memory and
 * its text form (cpufreq_journal_text.c), shared with the
 * journal's protocol (cpufreq_journal.c) and its fuzz target; not
 * for use elsewhere.
 */
#ifndef COSCHED_CPUFREQ_JOURNAL_INTERNAL_H
#define COSCHED_CPUFREQ_JOURNAL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "src/libcosched/base/error.h"
#include "src/libcosched/base/idset.h"
#include "src/node/cpufreq_journal.h"
#include "src/node/spool.h"

#define JOURNAL_TAG "cosched-cpufreq-journal/"
#define JOURNAL_SCHEMA 1
#define JOURNAL_MINOR 1		/* 1.1: a holder's stopped */

typedef struct {
	int id;
	cosched_idset_t cpus;
	cosched_cpufreq_setting_t orig;
	int n, cap;
	cosched_cpufreq_holder_t *h;
	bool touched;		/* holders changed: resolve and write */
	bool added;		/* the acquiring holder joined in this call */
	bool failed;		/* counted in outcome.failed in this call */
} jdom_t;

typedef struct {
	char boot[COSCHED_BOOT_ID_LEN + 1];	/* "-" when unknown */
	int n;
	jdom_t *d;		/* COSCHED_CPUFREQ_DOMAINS_MAX, ascending id */
} journal_t;

journal_t *cosched_journal_new(void);
void cosched_journal_free(journal_t *j);
void cosched_journal_domain_remove(journal_t *j, int i);
/* The entry of domain id, added (ascending) when absent and add. */
jdom_t *cosched_journal_domain_get(journal_t *j, int id, bool add);
int cosched_journal_holder_add(jdom_t *d, const cosched_cpufreq_holder_t *h);
void cosched_journal_holder_remove(jdom_t *d, int k);
int cosched_journal_holder_find(const jdom_t *d, uint32_t job_id,
				uint32_t step_id);
bool cosched_journal_governor_ok(const char *s);

/* The whole file, malloc'd (NULL: out of memory). */
char *cosched_journal_format(const journal_t *j);
/* Parse the whole file (text is modified) into j, which
 * cosched_journal_new() made; on error err says which line and why.  A
 * journal of a newer minor is read, what it added skipped and said once
 * (cosched_kv_note_skipped); another major is refused. */
int cosched_journal_parse(char *text, journal_t *j, cosched_error_t *err);

/* DIR's journal into j (none: empty): 0; 1 when it could not be read and
 * was set aside (err says so and where); -1 on any other error
 * (cpufreq_journal_file.c). */
int cosched_journal_load(const char *dir, journal_t *j, cosched_error_t *err);
/* j as DIR's journal, atomically and durably; none when j holds
 * nothing. */
int cosched_journal_store(const char *dir, const journal_t *j,
			  cosched_error_t *err);

#endif
