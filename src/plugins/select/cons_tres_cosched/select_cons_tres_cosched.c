/*****************************************************************************\
 *  select_cons_tres_cosched.c - contention-aware select plugin wrapping
 *  select/cons_tres.
 *
 *  Every select_p_* call is forwarded to cons_tres, so with no cosched
 *  policy in effect placements are exactly cons_tres's.  The name contains
 *  "cons_tres" on purpose: Slurm's core checks SelectType for that string
 *  (MaxNodeCount and dynamic nodes are refused otherwise).
 *
 *  Where cons_tres lives:
 *   - slurmctld and client commands load every select plugin in PluginDir,
 *     so cons_tres is already loaded and initialised there: find it with
 *     dlopen(RTLD_NOLOAD).
 *   - slurmd and slurmstepd load only the configured plugin: load cons_tres
 *     ourselves and call its init()/fini().
 *  Resolution is lazy (first forwarded call), because load order follows
 *  PluginDir and cons_tres may not be loaded yet when our init() runs.
\*****************************************************************************/

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

/* Map log functions to their slurm_ names, as Slurm's own plugins do. */
#include "src/common/slurm_xlator.h"

#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/select.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "src/libcosched/cosched_options.h"

const char plugin_name[] = "cosched contention-aware selection (wraps cons_tres)";
const char plugin_type[] = "select/cons_tres_cosched";
/* Unique, >= 100 (select_g_init() is fatal otherwise). */
const uint32_t plugin_id = 171;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define CONS_TRES_SO "select_cons_tres.so"

/* Must follow the order of slurm_select_ops_t (src/common/select.h). */
static const char *const cons_tres_syms[] = {
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

static slurm_select_ops_t cons_tres;
static void *cons_tres_handle;
static bool cons_tres_loaded_here;	/* we called its init() */
static pthread_once_t cons_tres_once = PTHREAD_ONCE_INIT;
static int resolve_rc = SLURM_ERROR;
/* Why resolution failed, with every path tried (for fatal() in slurmctld). */
static char *resolve_error;

/* Try every directory of PluginDir (a colon-separated list); *tried
 * collects the paths looked at. */
static void *_open_cons_tres(int flags, char **path_out, char **tried)
{
	char *dirs = xstrdup(slurm_conf.plugindir);
	char *save = NULL, *dir;
	void *handle = NULL;

	for (dir = strtok_r(dirs, ":", &save); dir && !handle;
	     dir = strtok_r(NULL, ":", &save)) {
		char *path = xstrdup_printf("%s/%s", dir, CONS_TRES_SO);
		struct stat st;
		if (tried)
			xstrfmtcat(*tried, "%s%s", *tried ? ", " : "", path);
		if (!stat(path, &st))
			handle = dlopen(path, flags);
		if (handle && path_out)
			*path_out = path;
		else
			xfree(path);
	}
	xfree(dirs);
	return handle;
}

/* Find or load cons_tres and fill cons_tres with its entry points; on
 * failure resolve_error says why and where it looked. */
static void _resolve_cons_tres(void)
{
	char *path = NULL, *tried = NULL;
	void **ptrs = (void **) &cons_tres;
	const size_t nsyms = sizeof(cons_tres_syms) / sizeof(cons_tres_syms[0]);

	/* The struct is a list of pointers, one per symbol; the names are
	 * checked against Slurm's node_select_syms at build time
	 * (check-select-syms.sh). */
	_Static_assert(sizeof(slurm_select_ops_t) ==
		      sizeof(cons_tres_syms) / sizeof(cons_tres_syms[0]) *
		      sizeof(void *),
		      "cons_tres_syms out of sync with slurm_select_ops_t");

	cons_tres_handle = _open_cons_tres(RTLD_LAZY | RTLD_NOLOAD, &path,
					   NULL);
	if (!cons_tres_handle) {
		int (*init_fn)(void);

		/*
		 * RTLD_LAZY as Slurm's plugin loader: cons_tres references
		 * slurmctld-only functions (gres_ctld_*) that slurmd and
		 * slurmstepd never call and do not have.
		 */
		dlerror();
		cons_tres_handle = _open_cons_tres(RTLD_LAZY | RTLD_LOCAL,
						   &path, &tried);
		if (!cons_tres_handle) {
			const char *why = dlerror();
			resolve_error = xstrdup_printf(
				"cannot load %s (tried %s): %s", CONS_TRES_SO,
				tried ? tried : "PluginDir is empty",
				why ? why : "no such file");
			xfree(tried);
			return;
		}
		xfree(tried);
		init_fn = dlsym(cons_tres_handle, "init");
		if (!init_fn || init_fn() != SLURM_SUCCESS) {
			resolve_error = xstrdup_printf("init() of %s failed",
						       path);
			dlclose(cons_tres_handle);
			cons_tres_handle = NULL;
			xfree(path);
			return;
		}
		cons_tres_loaded_here = true;
	}
	for (size_t i = 0; i < nsyms; i++) {
		ptrs[i] = dlsym(cons_tres_handle, cons_tres_syms[i]);
		if (!ptrs[i]) {
			resolve_error = xstrdup_printf("%s lacks symbol %s",
						       path, cons_tres_syms[i]);
			xfree(path);
			return;
		}
	}
	debug("%s: forwarding to %s%s", plugin_type, path,
	      cons_tres_loaded_here ? " (loaded here)" : "");
	xfree(path);
	resolve_rc = SLURM_SUCCESS;
}

static void _report_unresolved(void)
{
	/* slurmctld cannot select anything without cons_tres: stop it, with
	 * the paths tried.  Everywhere else (sbatch, squeue, sinfo...) the
	 * command goes on: what needs cons_tres fails with an error, the
	 * rest works (see FORWARD). */
	if (running_in_slurmctld())
		fatal("%s: %s", plugin_type, resolve_error);
	error("%s: %s; commands that need node selection data will fail",
	      plugin_type, resolve_error);
}

static pthread_once_t report_once = PTHREAD_ONCE_INIT;

/*
 * cons_tres's entry points, or NULL where it cannot be resolved (reported
 * once).  Resolution waits for the first call in slurmctld and the client
 * commands (load order follows PluginDir, cons_tres may come later).
 */
static slurm_select_ops_t *_ct(void)
{
	pthread_once(&cons_tres_once, _resolve_cons_tres);
	if (resolve_rc == SLURM_SUCCESS)
		return &cons_tres;
	pthread_once(&report_once, _report_unresolved);
	return NULL;
}

/*
 * Forward a call to cons_tres; where it is unavailable (only a client can
 * get this far) return fail.  For the per-job calls fail is what cons_tres
 * itself does: it keeps no per-job select data (its jobinfo functions pack
 * and unpack nothing), so a client without it still submits, lists and
 * shows jobs and runs srun exactly as with it; node information, which
 * cons_tres does carry, fails with an error.
 */
#define FORWARD(fail, fn, ...)						\
	do {								\
		slurm_select_ops_t *ct = _ct();				\
		return ct ? ct->fn(__VA_ARGS__) : (fail);		\
	} while (0)

/*
 * The job's cosched options, from the SPANK environment slurmctld keeps with
 * the job (never from the task environment, which the user controls).
 * Invalid values cannot come from the SPANK plugin, which refuses them at
 * submit; if they appear anyway cosched leaves the job to cons_tres.
 */
static bool _job_options(job_record_t *job_ptr, cosched_job_options_t *opts)
{
	cosched_error_t err;

	cosched_options_init(opts);
	if (cosched_options_from_env(opts, job_ptr->spank_job_env,
				     job_ptr->spank_job_env_size, &err)) {
		error("%s: %pJ: %s; cosched leaves this job to cons_tres",
		      plugin_type, job_ptr, err.msg);
		return false;
	}
	if (!opts->app[0] && job_ptr->name &&
	    !cosched_app_name_is_generic(job_ptr->name) &&
	    !cosched_app_name_check("job name", job_ptr->name, NULL))
		strlcpy(opts->app, job_ptr->name, sizeof(opts->app));
	return true;
}

/*
 * init() runs in every client command too: keep it quiet (debug only).
 * slurmd and slurmstepd load only this plugin: load cons_tres now, so a
 * failure stops slurmd at start instead of failing a job's slurmstepd at
 * the first select call.
 */
extern int init(void)
{
	debug("%s loaded", plugin_name);
	if (running_in_slurmd_stepd()) {
		pthread_once(&cons_tres_once, _resolve_cons_tres);
		if (resolve_rc != SLURM_SUCCESS)
			error("%s: %s", plugin_type, resolve_error);
		return resolve_rc;
	}
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	if (cons_tres_loaded_here) {
		int (*fini_fn)(void) = dlsym(cons_tres_handle, "fini");
		if (fini_fn)
			fini_fn();
		dlclose(cons_tres_handle);
		cons_tres_loaded_here = false;
	}
	xfree(resolve_error);
	return SLURM_SUCCESS;
}

extern int select_p_state_save(char *dir_name)
{
	FORWARD(SLURM_ERROR, state_save, dir_name);
}

extern int select_p_state_restore(char *dir_name)
{
	FORWARD(SLURM_ERROR, state_restore, dir_name);
}

extern int select_p_job_init(List job_list)
{
	FORWARD(SLURM_ERROR, job_init, job_list);
}

extern int select_p_node_init(void)
{
	FORWARD(SLURM_ERROR, node_init, );
}

/*
 * mode: SELECT_MODE_RUN_NOW, SELECT_MODE_TEST_ONLY (at submit) or
 * SELECT_MODE_WILL_RUN (backfill, sbatch --test-only).
 */
extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     List preemptee_candidates,
			     List *preemptee_job_list,
			     bitstr_t *exc_core_bitmap)
{
	if (mode == SELECT_MODE_TEST_ONLY) {
		cosched_job_options_t opts;
		char buf[256];
		if (_job_options(job_ptr, &opts))
			debug("%s: %pJ submitted with cosched options %s",
				plugin_type, job_ptr,
				cosched_options_format(&opts, buf,
						       sizeof(buf)));
	}
	FORWARD(SLURM_ERROR, job_test, job_ptr, node_bitmap, min_nodes, max_nodes,
			       req_nodes, mode, preemptee_candidates,
			       preemptee_job_list, exc_core_bitmap);
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	cosched_job_options_t opts;
	slurm_select_ops_t *ct = _ct();
	char buf[256];
	int rc;

	if (!ct)
		return SLURM_ERROR;
	rc = ct->job_begin(job_ptr);
	/* job_ptr->nodes is set later; cons_tres's job_test chose these. */
	if (_job_options(job_ptr, &opts))
		debug("%s: %pJ starts on %s with cosched options %s",
		     plugin_type, job_ptr,
		     job_ptr->job_resrcs && job_ptr->job_resrcs->nodes ?
		     job_ptr->job_resrcs->nodes : "?",
		     cosched_options_format(&opts, buf, sizeof(buf)));
	return rc;
}

extern int select_p_job_ready(job_record_t *job_ptr)
{
	FORWARD(SLURM_ERROR, job_ready, job_ptr);
}

extern int select_p_job_expand(job_record_t *from_job_ptr,
			       job_record_t *to_job_ptr)
{
	FORWARD(SLURM_ERROR, job_expand, from_job_ptr, to_job_ptr);
}

extern int select_p_job_resized(job_record_t *job_ptr, node_record_t *node_ptr)
{
	FORWARD(SLURM_ERROR, job_resized, job_ptr, node_ptr);
}

extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	FORWARD(SLURM_ERROR, job_signal, job_ptr, signal);
}

extern int select_p_job_fini(job_record_t *job_ptr)
{
	FORWARD(SLURM_ERROR, job_fini, job_ptr);
}

extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	FORWARD(SLURM_ERROR, job_suspend, job_ptr, indf_susp);
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	FORWARD(SLURM_ERROR, job_resume, job_ptr, indf_susp);
}

extern bitstr_t *select_p_step_pick_nodes(job_record_t *job_ptr,
					  select_jobinfo_t *jobinfo,
					  uint32_t node_count,
					  bitstr_t **avail_nodes)
{
	FORWARD(NULL, step_pick_nodes, job_ptr, jobinfo, node_count,
				      avail_nodes);
}

extern int select_p_step_start(step_record_t *step_ptr)
{
	FORWARD(SLURM_ERROR, step_start, step_ptr);
}

extern int select_p_step_finish(step_record_t *step_ptr, bool killing_step)
{
	FORWARD(SLURM_ERROR, step_finish, step_ptr, killing_step);
}

extern int select_p_select_nodeinfo_pack(select_nodeinfo_t *nodeinfo,
					 buf_t *buffer,
					 uint16_t protocol_version)
{
	FORWARD(SLURM_ERROR, nodeinfo_pack, nodeinfo, buffer, protocol_version);
}

extern int select_p_select_nodeinfo_unpack(select_nodeinfo_t **nodeinfo,
					   buf_t *buffer,
					   uint16_t protocol_version)
{
	FORWARD(SLURM_ERROR, nodeinfo_unpack, nodeinfo, buffer, protocol_version);
}

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc(void)
{
	FORWARD(NULL, nodeinfo_alloc, );
}

extern int select_p_select_nodeinfo_free(select_nodeinfo_t *nodeinfo)
{
	FORWARD(SLURM_ERROR, nodeinfo_free, nodeinfo);
}

extern int select_p_select_nodeinfo_set_all(void)
{
	FORWARD(SLURM_ERROR, nodeinfo_set_all, );
}

extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	FORWARD(SLURM_ERROR, nodeinfo_set, job_ptr);
}

extern int select_p_select_nodeinfo_get(select_nodeinfo_t *nodeinfo,
					enum select_nodedata_type dinfo,
					enum node_states state, void *data)
{
	FORWARD(SLURM_ERROR, nodeinfo_get, nodeinfo, dinfo, state, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_alloc(void)
{
	FORWARD(NULL, jobinfo_alloc, );
}

extern int select_p_select_jobinfo_free(select_jobinfo_t *jobinfo)
{
	FORWARD(SLURM_SUCCESS, jobinfo_free, jobinfo);
}

extern int select_p_select_jobinfo_set(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	FORWARD(SLURM_SUCCESS, jobinfo_set, jobinfo, data_type, data);
}

extern int select_p_select_jobinfo_get(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	FORWARD(SLURM_ERROR, jobinfo_get, jobinfo, data_type, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_copy(select_jobinfo_t *jobinfo)
{
	FORWARD(NULL, jobinfo_copy, jobinfo);
}

extern int select_p_select_jobinfo_pack(select_jobinfo_t *jobinfo,
					buf_t *buffer,
					uint16_t protocol_version)
{
	FORWARD(SLURM_SUCCESS, jobinfo_pack, jobinfo, buffer, protocol_version);
}

extern int select_p_select_jobinfo_unpack(select_jobinfo_t **jobinfo,
					  buf_t *buffer,
					  uint16_t protocol_version)
{
	slurm_select_ops_t *ct = _ct();

	if (ct)
		return ct->jobinfo_unpack(jobinfo, buffer, protocol_version);
	*jobinfo = NULL;	/* as cons_tres: nothing on the wire */
	return SLURM_SUCCESS;
}

extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo,
					    char *buf, size_t size, int mode)
{
	slurm_select_ops_t *ct = _ct();

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

extern int select_p_get_info_from_plugin(enum select_plugindata_info info,
					 job_record_t *job_ptr, void *data)
{
	FORWARD(SLURM_ERROR, get_info_from_plugin, info, job_ptr, data);
}

extern int select_p_update_node_config(int index)
{
	FORWARD(SLURM_ERROR, update_node_config, index);
}

extern int select_p_reconfigure(void)
{
	FORWARD(SLURM_ERROR, reconfigure, );
}

extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
				    uint32_t node_cnt,
				    bitstr_t *avail_node_bitmap,
				    bitstr_t **core_bitmap)
{
	FORWARD(NULL, resv_test, resv_desc_ptr, node_cnt, avail_node_bitmap,
				core_bitmap);
}
