/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ctl_view.c - a Slurm job as the decision core sees it: its options (from
 *  the SPANK environment slurmctld keeps, checked again here), its class
 *  (measured, declared, default: cosched(8) PLACEMENT RULES), its cores per
 *  node, and which rule places it.
\*****************************************************************************/

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/node_conf.h"
#include "src/slurmctld/slurmctld.h"

#include "src/libcosched/base/appname.h"
#include "src/libcosched/base/text.h"

#include "ctl_internal.h"
#include "select_cons_tres_cosched.h"

static int _threads_per_core(void)
{
	node_record_t *node_ptr;

	for (int i = 0; (node_ptr = next_node(&i)); i++)
		return node_ptr->threads ? node_ptr->threads : 1;
	return 1;
}

/* A declared or default class has no measured MPKI: take the lower MPKI
 * threshold of the class (cosched.conf ClassifyMemMPKI, ClassifyLimMPKI;
 * cpu and rand run with almost none: "Power-aware gang scheduling on
 * multicore", NTUA thesis, 2013, "Limitations"). */
static double _nominal_mpki(const cosched_ctl_t *c, cosched_category_t cat)
{
	switch (cat) {
	case COSCHED_CAT_MEM:
		return c->conf.classify.cat.mem_mpki;
	case COSCHED_CAT_LIM:
		return c->conf.classify.cat.lim_mpki;
	default:
		return 0.0;
	}
}

/* Class: measured (the user's own profile, the site's or a shared one),
 * declared, default. */
static void _classify(cosched_ctl_t *c, job_view_t *v, uid_t uid)
{
	cosched_class_t *cls = &v->job.cls;
	cosched_gang_job_t *gj = &v->job.gj;

	if (v->opts.app[0] &&
	    ctl_refresh_lookup(c, v->opts.app, uid, &v->prof) == 1)
		v->has_prof = true;
	if (v->has_prof && v->prof.cls.cat != COSCHED_CAT_UNKNOWN) {
		*cls = v->prof.cls;
		cls->source = COSCHED_CLASS_FROM_PROFILE;
		gj->mpki = isfinite(v->prof.mpki) ? v->prof.mpki :
						    _nominal_mpki(c, cls->cat);
		if (v->opts.declared_class != COSCHED_CAT_UNKNOWN &&
		    v->opts.declared_class != cls->cat)
			snprintf(v->note, sizeof(v->note),
				 "declared class %s ignored: the measured profile says %s",
				 cosched_category_name(v->opts.declared_class),
				 cosched_category_name(cls->cat));
	} else if (v->opts.declared_class != COSCHED_CAT_UNKNOWN) {
		cls->cat = v->opts.declared_class;
		cls->source = COSCHED_CLASS_FROM_DECLARED;
		gj->mpki = _nominal_mpki(c, cls->cat);
	} else {
		cls->cat = c->conf.default_class;
		cls->source = COSCHED_CLASS_FROM_DEFAULT;
		gj->mpki = _nominal_mpki(c, cls->cat);
	}
	cls->lca = cosched_category_to_lca(cls->cat);
	gj->category = cls->cat;
}

void ctl_view(cosched_ctl_t *c, job_record_t *job_ptr, job_view_t *v)
{
	/* struct job_details in 22.05, job_details_t in 24.11 */
	__typeof__(job_ptr->details) d = job_ptr->details;
	cosched_error_t err;
	uint32_t min_nodes, cpus, tpc = _threads_per_core();

	memset(v, 0, offsetof(job_view_t, prof));
	cosched_options_init(&v->opts);
	if (cosched_options_from_env(&v->opts, job_ptr->spank_job_env,
				     job_ptr->spank_job_env_size, &err)) {
		/* The SPANK plugin refuses bad values at submit; a job
		 * submitted around it is placed as if it gave none. */
		snprintf(v->note, sizeof(v->note), "options ignored: %.120s",
			 err.msg);
		cosched_options_init(&v->opts);
	}
	if (!v->opts.app[0] && job_ptr->name &&
	    !cosched_app_name_is_generic(job_ptr->name) &&
	    !cosched_app_name_check("job name", job_ptr->name, NULL))
		cosched_text_copy(v->opts.app, sizeof(v->opts.app),
				  job_ptr->name);

	_classify(c, v, job_ptr->user_id);
	v->job.gj.job_id = job_ptr->job_id;
	v->job.gj.name = v->opts.app[0] ? v->opts.app : NULL;

	/* Cores per node. */
	min_nodes = d && d->min_nodes ? d->min_nodes : 1;
	cpus = d ? d->min_cpus : 1;
	if (min_nodes > 1)
		cpus = (cpus + min_nodes - 1) / min_nodes;
	if (d && d->pn_min_cpus > cpus)
		cpus = d->pn_min_cpus;
	if (!cpus)
		cpus = 1;
	v->job.cores = (int) ((cpus + tpc - 1) / tpc);
	v->job.gj.threads = v->job.cores;

	/* The rules, in order. */
	if (!v->opts.enabled) {
		v->kind = KIND_OFF;
		return;
	}
	if (job_ptr->het_job_id) {
		v->kind = KIND_PASS;
		snprintf(v->note, sizeof(v->note),
			 "heterogeneous job: components are placed by cons_tres");
		return;
	}
	/* --exclusive sets whole_node; share_res alone is not it: backfill
	 * clears share_res for a moment to probe whole-node starts. */
	if (d && (d->whole_node & 1)) {
		v->kind = KIND_PASS;
		snprintf(v->note, sizeof(v->note),
			 "--exclusive: whole nodes, no co-runner");
		return;
	}
	if (d && (d->req_node_bitmap || d->core_spec != NO_VAL16)) {
		v->kind = KIND_PASS;
		snprintf(v->note, sizeof(v->note), "%s",
			 d->req_node_bitmap ?
			 "names its nodes (--nodelist): placed by cons_tres there" :
			 "names its cores (--core-spec): placed by cons_tres");
		return;
	}
	v->kind = KIND_PLACE;
	cosched_place_job_shape(c->place, &v->job, min_nodes);
}
