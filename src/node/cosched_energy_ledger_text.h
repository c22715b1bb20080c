/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_energy_ledger_internal.h - the energy ledger in memory and its
 * text form (cosched_energy_ledger_text.c), shared with the update
 * (cosched_energy_ledger.c), the metrics (cosched_energy_metrics.c) and
 * the fuzz target; not for use elsewhere.
 */
#ifndef COSCHED_ENERGY_LEDGER_INTERNAL_H
#define COSCHED_ENERGY_LEDGER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cosched_energy_ledger.h"

#define LEDGER_TAG "cosched-energy-ledger/"
#define LEDGER_SCHEMA 1

typedef struct {
	char dir[32];
	uint64_t uj;
} lzone_t;

typedef struct {
	char boot[COSCHED_BOOT_ID_LEN + 1];
	int nzones;
	lzone_t zone[COSCHED_RAPL_ZONES_MAX];
	uint64_t attributed, unattributed, abandoned;
	int n;
	cosched_ledger_step_t step[COSCHED_LEDGER_STEPS_MAX];
} ledger_t;

/* An empty ledger: everything before the steps zeroed.  The steps past
 * n are never read (a step is zeroed as it is parsed or joins), and
 * zeroing all COSCHED_LEDGER_STEPS_MAX of them (280 KB) at each load cost
 * a step more than the rest of its ledger update. */
static inline void cosched_ledger_clear(ledger_t *l)
{
	memset(l, 0, offsetof(ledger_t, step));
}

bool cosched_step_ref_eq(const cosched_step_ref_t *a,
			 const cosched_step_ref_t *b);
/* The whole file, malloc'd (NULL: out of memory). */
char *cosched_ledger_format(const ledger_t *l);
/* Parse the whole file (text is modified) into l; on error err names the
 * line and why.  A ledger of a newer minor is read, what it added skipped
 * and said once (cosched_kv_note_skipped); another major is refused. */
int cosched_ledger_parse(char *text, ledger_t *l, cosched_error_t *err);

#endif
