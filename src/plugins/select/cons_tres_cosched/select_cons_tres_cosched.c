/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  select_cons_tres_cosched.c - contention-aware select plugin wrapping
 *  select/cons_tres: the part that does not depend on the Slurm series.
 *
 *  Every select_p_* call is forwarded to cons_tres (compat_<series>.c), so
 *  with no cosched policy in effect placements are exactly cons_tres's.
 *  The name contains "cons_tres" on purpose: Slurm's core checks
 *  SelectType for that string (MaxNodeCount and dynamic nodes are refused
 *  otherwise).
 *
 *  Where cons_tres lives:
 *   - up to 24.11, slurmctld, the client commands and (since 24.11)
 *     slurmstepd load every select plugin in PluginDir, so cons_tres is
 *     loaded and initialised there: find it with dlopen(RTLD_NOLOAD), at
 *     the first forwarded call (load order follows PluginDir, it may come
 *     after us).
 *   - slurmd (and 22.05's slurmstepd) load only the configured plugin:
 *     load cons_tres ourselves and call its init()/fini(); slurmd does it
 *     in init(), so a failure stops slurmd at start.
 *   - from 25.05 only slurmctld loads a select plugin, the configured one
 *     only: load cons_tres ourselves there, in init(), as in slurmd.
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
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "src/libcosched/model/options.h"

#include "select_cons_tres_cosched.h"

const char plugin_name[] = "cosched contention-aware selection (wraps cons_tres)";
const char plugin_type[] = "select/cons_tres_cosched";
/* plugin_id is the compatibility file's: the series decides it. */
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define CONS_TRES_SO "select_cons_tres.so"

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
	void **ptrs = cosched_select_table();

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
	for (size_t i = 0; i < cosched_select_nsyms; i++) {
		ptrs[i] = dlsym(cons_tres_handle, cosched_select_syms[i]);
		if (!ptrs[i]) {
			resolve_error = xstrdup_printf("%s lacks symbol %s",
						       path,
						       cosched_select_syms[i]);
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
	 * rest works (see COSCHED_FORWARD). */
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
void *cosched_select_cons_tres(void)
{
	pthread_once(&cons_tres_once, _resolve_cons_tres);
	if (resolve_rc == SLURM_SUCCESS)
		return cosched_select_table();
	pthread_once(&report_once, _report_unresolved);
	return NULL;
}

void *cosched_select_cons_tres_symbol(const char *name)
{
	return cosched_select_cons_tres() ? dlsym(cons_tres_handle, name) :
					    NULL;
}

/*
 * The job's cosched options, from the SPANK environment slurmctld keeps with
 * the job (never from the task environment, which the user controls).
 * Invalid values cannot come from the SPANK plugin, which refuses them at
 * submit; if they appear anyway the controller places the job as if it
 * gave none (ctl_view, whose record says "options ignored"), and this log
 * says the same.
 */
static bool _job_options(job_record_t *job_ptr, cosched_job_options_t *opts)
{
	cosched_error_t err;

	cosched_options_init(opts);
	if (cosched_options_from_env(opts, job_ptr->spank_job_env,
				     job_ptr->spank_job_env_size, &err)) {
		error("%s: %pJ: %s; its cosched options are ignored (placed as if it gave none)",
		      plugin_type, job_ptr, err.msg);
		return false;
	}
	if (!opts->app[0] && job_ptr->name &&
	    !cosched_app_name_is_generic(job_ptr->name) &&
	    !cosched_app_name_check("job name", job_ptr->name, NULL))
		snprintf(opts->app, sizeof(opts->app), "%s", job_ptr->name);
	return true;
}

void cosched_select_log_submit(job_record_t *job_ptr)
{
	cosched_job_options_t opts;
	char buf[256];

	if (_job_options(job_ptr, &opts))
		debug("%s: %pJ submitted with cosched options %s", plugin_type,
		      job_ptr, cosched_options_format(&opts, buf, sizeof(buf)));
}

void cosched_select_log_start(job_record_t *job_ptr)
{
	cosched_job_options_t opts;
	char buf[256];

	/* job_ptr->nodes is set later; cons_tres's job_test chose these. */
	if (_job_options(job_ptr, &opts))
		debug("%s: %pJ starts on %s with cosched options %s",
		      plugin_type, job_ptr,
		      job_ptr->job_resrcs && job_ptr->job_resrcs->nodes ?
		      job_ptr->job_resrcs->nodes : "?",
		      cosched_options_format(&opts, buf, sizeof(buf)));
}

/*
 * init() runs in every client command too: keep it quiet (debug only).
 * slurmd loads only this plugin: load cons_tres now, so a failure stops
 * slurmd at start.  Everywhere else resolution waits for the first call:
 * where Slurm loads every select plugin (slurmctld, clients, 24.11's
 * slurmstepd) cons_tres is then already loaded and initialised by Slurm,
 * and must not be initialised twice.
 */
extern int init(void)
{
	debug("%s loaded", plugin_name);
	if (cosched_select_loads_cons_tres) {
		/* Only slurmctld loads a select plugin: without cons_tres it
		 * stops here, naming the paths tried (_report_unresolved). */
		if (!cosched_select_cons_tres())
			return SLURM_ERROR;
	} else if (running_in_slurmd()) {
		pthread_once(&cons_tres_once, _resolve_cons_tres);
		if (resolve_rc != SLURM_SUCCESS)
			error("%s: %s", plugin_type, resolve_error);
		return resolve_rc;
	}
	/* slurmctld: the placement controller (cosched.conf, profiles). */
	return cosched_ctl_init();
}

extern int fini(void)
{
	cosched_ctl_fini();
	if (cons_tres_loaded_here) {
		/* int up to 24.11, void from 25.11: the result is unused. */
		void (*fini_fn)(void) = dlsym(cons_tres_handle, "fini");
		if (fini_fn)
			fini_fn();
		dlclose(cons_tres_handle);
		cons_tres_loaded_here = false;
	}
	xfree(resolve_error);
	return SLURM_SUCCESS;
}
