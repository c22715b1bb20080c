/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  select_cons_tres_cosched.h - what the wrapper's version-independent part
 *  (select_cons_tres_cosched.c) and the compatibility file of the target
 *  Slurm series (compat_<series>.c) give each other.
 *
 *  Slurm's select interface changes between series (37 entry points in
 *  22.05, 31 in 24.11, 12 in 25.11, 13 in 26.05, other argument lists), and
 *  since 24.11 Slurm keeps its ops table private to src/interfaces/select.c:
 *  each compatibility file declares the table of its series (checked name
 *  by name against Slurm's own list at build time, check-select-syms.sh),
 *  every select_p_* forwarder and the plugin's id.  The rest (finding
 *  cons_tres, reading a job's cosched options) is here, once.
\*****************************************************************************/
#ifndef SELECT_CONS_TRES_COSCHED_H
#define SELECT_CONS_TRES_COSCHED_H

#include <stddef.h>

#include "src/slurmctld/slurmctld.h"

#include "controller.h"

/* --- from the compatibility file ------------------------------------- */

/* Slurm's select entry point names, in the order of its ops table. */
extern const char *const cosched_select_syms[];
extern const size_t cosched_select_nsyms;
/* Storage for cons_tres's entry points, cosched_select_nsyms pointers in
 * that order (the compatibility file's ops table). */
void **cosched_select_table(void);
/* Whether Slurm never loads cons_tres itself in any daemon (25.05 and
 * later: slurmctld loads the configured select plugin only), so the
 * wrapper loads and initialises it in init() wherever it is loaded. */
extern const bool cosched_select_loads_cons_tres;

/* --- from select_cons_tres_cosched.c ---------------------------------- */

extern const char plugin_type[];

/*
 * cons_tres's entry points (the table above, filled), or NULL where
 * cons_tres cannot be resolved: reported once; fatal() in slurmctld, which
 * cannot place anything without it.
 */
void *cosched_select_cons_tres(void);

/* A variable or function of cons_tres by name (NULL where cons_tres or
 * the name cannot be resolved). */
void *cosched_select_cons_tres_symbol(const char *name);

/* Log the job's cosched options (debug level) when it is submitted (a
 * test-only job_test) and when it starts (job_begin). */
void cosched_select_log_submit(job_record_t *job_ptr);
void cosched_select_log_start(job_record_t *job_ptr);

/*
 * Forward a call to cons_tres (ops_type: the compatibility file's table);
 * where it is unavailable (only a client can get this far) return fail.
 * For the per-job calls fail is what cons_tres itself does: it keeps no
 * per-job select data (its jobinfo functions pack and unpack nothing), so
 * a client without it still submits, lists and shows jobs and runs srun
 * exactly as with it; node information, which cons_tres does carry, fails
 * with an error.
 */
#define COSCHED_FORWARD(ops_type, fail, fn, ...)			\
	do {								\
		ops_type *ct = cosched_select_cons_tres();		\
		return ct ? ct->fn(__VA_ARGS__) : (fail);		\
	} while (0)

/* The same, then `then` (an expression) whatever cons_tres returned. */
#define COSCHED_FORWARD_THEN(ops_type, fail, then, fn, ...)		\
	do {								\
		ops_type *ct = cosched_select_cons_tres();		\
		int rc_;						\
		if (!ct)						\
			return (fail);					\
		rc_ = ct->fn(__VA_ARGS__);				\
		(void) (then);						\
		return rc_;						\
	} while (0)

#endif
