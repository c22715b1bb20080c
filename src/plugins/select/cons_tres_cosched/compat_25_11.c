/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  compat_25_11.c - select/cons_tres_cosched's forwarding to cons_tres for
 *  Slurm 25.11: its ops table (private to src/interfaces/select.c), entry
 *  point names, one forwarder per entry point and the plugin's id (see
 *  select_cons_tres_cosched.h).
 *
 *  From 25.05 only slurmctld loads a select plugin, and only the configured
 *  one: the per-node and per-job select data, state save and step node
 *  selection are gone from the interface (26.05 adds select_p_job_mem_reduce).
\*****************************************************************************/

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

/* Map log functions to their slurm_ names, as Slurm's own plugins do. */
#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/interfaces/select.h"
#include "src/slurmctld/slurmctld.h"
/* cons_tres's partition rows, for DebugFlags=Check (cons_tres_rows.inc). */
#include "src/plugins/select/cons_tres/part_data.h"

#include "select_cons_tres_cosched.h"

/*
 * cons_tres's own id.  slurmctld treats the cluster as cons_tres (core
 * reservations, shared GRES, per-task TRES, CR_Core and friends in
 * SelectTypeParameters, which select_g_init() is fatal about otherwise)
 * only when the loaded select plugin's id is SELECT_PLUGIN_CONS_TRES
 * (running_cons_tres()).  Only one select plugin is ever loaded now, so
 * the id needs to be unique no more: the wrapper is cons_tres to Slurm.
 */
const uint32_t plugin_id = SELECT_PLUGIN_CONS_TRES;
/* Slurm never loads cons_tres beside the configured plugin: the wrapper
 * loads it, in slurmctld, the only daemon that loads a select plugin. */
const bool cosched_select_loads_cons_tres = true;

/* Slurm 25.11's select entry points, in the order of its ops table
 * (src/interfaces/select.c); check-select-syms.sh compares them with its
 * node_select_syms[] at every build. */
const char *const cosched_select_syms[] = {
	"plugin_id",
	"select_p_node_init",
	"select_p_job_test",
	"select_p_job_begin",
	"select_p_job_ready",
	"select_p_job_expand",
	"select_p_job_resized",
	"select_p_job_fini",
	"select_p_job_suspend",
	"select_p_job_resume",
	"select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set",
	"select_p_reconfigure",
};

/* Slurm 25.11's slurm_select_ops_t (src/interfaces/select.c), which no
 * header exports: one pointer per name above, in that order. */
typedef struct {
	uint32_t *plugin_id;
	int (*node_init)(void);
	int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap,
			uint32_t min_nodes, uint32_t max_nodes,
			uint32_t req_nodes, uint16_t mode,
			list_t *preeemptee_candidates,
			list_t **preemptee_job_list, resv_exc_t *resv_exc_ptr,
			will_run_data_t *will_run_ptr);
	int (*job_begin)(job_record_t *job_ptr);
	int (*job_ready)(job_record_t *job_ptr);
	int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
	int (*job_resized)(job_record_t *job_ptr, node_record_t *node_ptr);
	int (*job_fini)(job_record_t *job_ptr);
	int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
	int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
	int (*nodeinfo_set_all)(void);
	int (*nodeinfo_set)(job_record_t *job_ptr);
	int (*reconfigure)(void);
} slurm_select_ops_t;

const size_t cosched_select_nsyms =
	sizeof(cosched_select_syms) / sizeof(cosched_select_syms[0]);

/* cons_tres's entry points; the struct is one pointer per name. */
static slurm_select_ops_t cons_tres;
_Static_assert(sizeof(slurm_select_ops_t) ==
	       sizeof(cosched_select_syms) / sizeof(cosched_select_syms[0]) *
	       sizeof(void *),
	       "cosched_select_syms out of sync with slurm_select_ops_t");

void **cosched_select_table(void)
{
	return (void **) &cons_tres;
}

#define FORWARD(fail, fn, ...) \
	COSCHED_FORWARD(slurm_select_ops_t, fail, fn, __VA_ARGS__)
#define FORWARD_THEN(fail, then, fn, ...) \
	COSCHED_FORWARD_THEN(slurm_select_ops_t, fail, then, fn, __VA_ARGS__)

/* The entry points every supported series shares. */
#include "forwarders_common.inc"
#include "cons_tres_rows.inc"

/* job_test with a resv_exc_t, as 24.11 and later have it. */
#include "job_test_resv_exc.inc"
