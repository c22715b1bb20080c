/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  compat_22_05.c - select/cons_tres_cosched's forwarding to cons_tres for
 *  Slurm 22.05: its ops table, entry point names and one forwarder per
 *  entry point (see select_cons_tres_cosched.h).
\*****************************************************************************/

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

/* Map log functions to their slurm_ names, as Slurm's own plugins do. */
#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/select.h"
#include "src/slurmctld/slurmctld.h"
/* cons_tres's partition rows, for DebugFlags=Check (cons_tres_rows.inc). */
#include "src/plugins/select/cons_common/part_data.h"

#include "select_cons_tres_cosched.h"

/* Unique, >= 100: 22.05 loads every select plugin in PluginDir beside
 * cons_tres (select_g_init() is fatal otherwise). */
const uint32_t plugin_id = 171;
/* Slurm loads cons_tres itself wherever it loads every select plugin. */
const bool cosched_select_loads_cons_tres = false;

/* Slurm 22.05's select entry points, in the order of slurm_select_ops_t
 * (src/common/select.h); check-select-syms.sh compares them with its
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
	"select_p_job_signal",
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
	"select_p_select_jobinfo_sprint",
	"select_p_select_jobinfo_xstrdup",
	"select_p_get_info_from_plugin",
	"select_p_update_node_config",
	"select_p_reconfigure",
	"select_p_resv_test",
};

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
#include "forwarders_select_data.inc"

/* The entry points of this series. */

extern int select_p_job_init(List job_list)
{
	FORWARD_THEN(SLURM_ERROR, cosched_ctl_invalidate(), job_init,
		     job_list);
}

/* The arguments of one job_test call, for the controller's attempts. */
typedef struct {
	slurm_select_ops_t *ct;
	job_record_t *job_ptr;
	uint32_t min_nodes, max_nodes, req_nodes;
	uint16_t mode;
	List preemptee_candidates;
	List *preemptee_job_list;
	bitstr_t *exc_core_bitmap;
} try_ctx_t;

/*
 * One attempt: 22.05's cons_tres takes the cores to avoid as one bitmap
 * over the whole cluster (offset of node i: cr_get_coremap_offset(i)),
 * the reservations' exclusions plus the cores steer leaves out.
 */
static int _try(void *arg, bitstr_t *node_bitmap, const cosched_steer_t *steer)
{
	try_ctx_t *c = arg;
	bitstr_t *exc;
	node_record_t *node_ptr;
	cosched_nodes_t it;
	int rc;

	if (!steer)
		return c->ct->job_test(c->job_ptr, node_bitmap, c->min_nodes,
				       c->max_nodes, c->req_nodes, c->mode,
				       c->preemptee_candidates,
				       c->preemptee_job_list,
				       c->exc_core_bitmap);
	exc = c->exc_core_bitmap ? bit_copy(c->exc_core_bitmap) :
		bit_alloc(cr_get_coremap_offset(cosched_ctl_node_count()));
	cosched_nodes_begin(&it, node_bitmap);
	while ((node_ptr = cosched_nodes_next(&it))) {
		uint32_t off = cr_get_coremap_offset(it.i);

		for (int core = 0; core < node_ptr->tot_cores; core++)
			if (cosched_steer_excludes(steer, it.i, core,
						   node_ptr->cores))
				bit_set(exc, off + core);
	}
	rc = c->ct->job_test(c->job_ptr, node_bitmap, c->min_nodes,
			     c->max_nodes, c->req_nodes, c->mode,
			     c->preemptee_candidates, c->preemptee_job_list,
			     exc);
	FREE_NULL_BITMAP(exc);
	return rc;
}

/*
 * mode: SELECT_MODE_RUN_NOW, SELECT_MODE_TEST_ONLY (at submit) or
 * SELECT_MODE_WILL_RUN (backfill, sbatch --test-only).  The controller
 * decides which sockets the job may use; cons_tres chooses inside them.
 */
extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     List preemptee_candidates,
			     List *preemptee_job_list,
			     bitstr_t *exc_core_bitmap)
{
	try_ctx_t c = {
		.ct = cosched_select_cons_tres(), .job_ptr = job_ptr,
		.min_nodes = min_nodes, .max_nodes = max_nodes,
		.req_nodes = req_nodes, .mode = mode,
		.preemptee_candidates = preemptee_candidates,
		.preemptee_job_list = preemptee_job_list,
		.exc_core_bitmap = exc_core_bitmap,
	};

	if (!c.ct)
		return SLURM_ERROR;
	if (mode == SELECT_MODE_TEST_ONLY)
		cosched_select_log_submit(job_ptr);
	return cosched_ctl_job_test(job_ptr, node_bitmap, mode, _try, &c);
}

extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	FORWARD(SLURM_ERROR, job_signal, job_ptr, signal);
}

extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo,
					    char *buf, size_t size, int mode)
{
	slurm_select_ops_t *ct = cosched_select_cons_tres();

	if (ct)
		return ct->jobinfo_sprint(jobinfo, buf, size, mode);
	/* As cons_tres, which keeps no per-job data: an empty string;
	 * callers print buf. */
	if (buf && size)
		buf[0] = '\0';
	return buf && size ? buf : NULL;
}

extern char *select_p_select_jobinfo_xstrdup(select_jobinfo_t *jobinfo,
					     int mode)
{
	FORWARD(NULL, jobinfo_xstrdup, jobinfo, mode);
}

extern int select_p_update_node_config(int index)
{
	FORWARD_THEN(SLURM_ERROR, cosched_ctl_invalidate(), update_node_config,
		     index);
}

extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
				    uint32_t node_cnt,
				    bitstr_t *avail_node_bitmap,
				    bitstr_t **core_bitmap)
{
	FORWARD(NULL, resv_test, resv_desc_ptr, node_cnt, avail_node_bitmap,
		core_bitmap);
}
