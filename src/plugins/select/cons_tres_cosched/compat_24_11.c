/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  compat_24_11.c - select/cons_tres_cosched's forwarding to cons_tres for
 *  Slurm 24.11: its ops table (private to src/interfaces/select.c there,
 *  so declared here), entry point names and one forwarder per entry point
 *  (see select_cons_tres_cosched.h).
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

/* Unique, >= 100: 24.11 loads every select plugin in PluginDir beside
 * cons_tres (select_g_init() is fatal otherwise). */
const uint32_t plugin_id = 171;
/* Slurm loads cons_tres itself wherever it loads every select plugin. */
const bool cosched_select_loads_cons_tres = false;

/* Slurm 24.11's select entry points, in the order of its ops table
 * (src/interfaces/select.c); check-select-syms.sh compares them with its
 * node_select_syms[] at every build. */
const char *const cosched_select_syms[] = {
	"plugin_id",
	"select_p_state_save",
	"select_p_state_restore",
	"select_p_job_init",
	"select_p_node_init",
	"select_p_job_test",
	"select_p_job_begin",
	"select_p_job_ready",
	"select_p_job_expand",
	"select_p_job_resized",
	"select_p_job_fini",
	"select_p_job_suspend",
	"select_p_job_resume",
	"select_p_step_pick_nodes",
	"select_p_step_start",
	"select_p_step_finish",
	"select_p_select_nodeinfo_pack",
	"select_p_select_nodeinfo_unpack",
	"select_p_select_nodeinfo_alloc",
	"select_p_select_nodeinfo_free",
	"select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set",
	"select_p_select_nodeinfo_get",
	"select_p_select_jobinfo_alloc",
	"select_p_select_jobinfo_free",
	"select_p_select_jobinfo_set",
	"select_p_select_jobinfo_get",
	"select_p_select_jobinfo_copy",
	"select_p_select_jobinfo_pack",
	"select_p_select_jobinfo_unpack",
	"select_p_get_info_from_plugin",
	"select_p_reconfigure",
};

/* Slurm 24.11's slurm_select_ops_t (src/interfaces/select.c), which no
 * header exports: one pointer per name above, in that order. */
typedef struct {
	uint32_t *plugin_id;
	int (*state_save)(char *dir_name);
	int (*state_restore)(char *dir_name);
	int (*job_init)(list_t *job_list);
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
	bitstr_t *(*step_pick_nodes)(job_record_t *job_ptr,
				     select_jobinfo_t *step_jobinfo,
				     uint32_t node_count,
				     bitstr_t **avail_nodes);
	int (*step_start)(step_record_t *step_ptr);
	int (*step_finish)(step_record_t *step_ptr, bool killing_step);
	int (*nodeinfo_pack)(select_nodeinfo_t *nodeinfo, buf_t *buffer,
			     uint16_t protocol_version);
	int (*nodeinfo_unpack)(select_nodeinfo_t **nodeinfo, buf_t *buffer,
			       uint16_t protocol_version);
	select_nodeinfo_t *(*nodeinfo_alloc)(void);
	int (*nodeinfo_free)(select_nodeinfo_t *nodeinfo);
	int (*nodeinfo_set_all)(void);
	int (*nodeinfo_set)(job_record_t *job_ptr);
	int (*nodeinfo_get)(select_nodeinfo_t *nodeinfo,
			    enum select_nodedata_type dinfo,
			    enum node_states state, void *data);
	select_jobinfo_t *(*jobinfo_alloc)(void);
	int (*jobinfo_free)(select_jobinfo_t *jobinfo);
	int (*jobinfo_set)(select_jobinfo_t *jobinfo,
			   enum select_jobdata_type data_type, void *data);
	int (*jobinfo_get)(select_jobinfo_t *jobinfo,
			   enum select_jobdata_type data_type, void *data);
	select_jobinfo_t *(*jobinfo_copy)(select_jobinfo_t *jobinfo);
	int (*jobinfo_pack)(select_jobinfo_t *jobinfo, buf_t *buffer,
			    uint16_t protocol_version);
	int (*jobinfo_unpack)(select_jobinfo_t **jobinfo_pptr, buf_t *buffer,
			      uint16_t protocol_version);
	int (*get_info_from_plugin)(enum select_plugindata_info dinfo,
				    job_record_t *job_ptr, void *data);
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

/* The entry points every supported series shares, and those of the
 * select data Slurm dropped in 25.05. */
#include "forwarders_common.inc"
#include "cons_tres_rows.inc"
#include "forwarders_select_data.inc"

/* The entry points of this series. */

extern int select_p_job_init(list_t *job_list)
{
	FORWARD_THEN(SLURM_ERROR, cosched_ctl_invalidate(), job_init,
		     job_list);
}

/* job_test with a resv_exc_t, as 24.11 and later have it. */
#include "job_test_resv_exc.inc"
