/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * observe.c - the observation rule (model/observe.h).
 */
#include <string.h>

#include "src/libcosched/model/observe.h"

/* Seconds v and o ran together, when their sockets meet; 0 otherwise. */
static double overlap(const cosched_step_record_t *v,
		      const cosched_step_record_t *o)
{
	double s, e;

	if (strcmp(v->node, o->node))
		return 0.0;
	if (v->has_sockets && o->has_sockets &&
	    !cosched_idset_overlap(&v->sockets, &o->sockets))
		return 0.0;		/* another socket of the node */
	s = v->start_s > o->start_s ? v->start_s : o->start_s;
	e = v->end_s < o->end_s ? v->end_s : o->end_s;
	return e > s ? e - s : 0.0;
}

static void skip(cosched_observation_t *out, cosched_learn_skip_t why)
{
	out->kind = COSCHED_OBS_SKIP;
	out->why = why;
}

void cosched_observe(const cosched_step_record_t *v,
		     const cosched_step_record_t *const *co, int nco,
		     int missing, int unusable, double min_overlap,
		     cosched_observation_t *out)
{
	const cosched_step_record_t *most = NULL;
	double length;
	int near = 0, nmost = 0;

	memset(out, 0, sizeof(*out));
	if (!v->has_run)
		return skip(out, COSCHED_SKIP_NO_RUNTIME);
	if (!v->has_exit)
		return skip(out, COSCHED_SKIP_NO_EXIT);
	if (v->signalled)
		return skip(out, COSCHED_SKIP_SIGNALLED);
	if (v->failed)
		return skip(out, COSCHED_SKIP_FAILED);
	if (!v->corunners_known || v->corunners_seen > v->ncorunners)
		return skip(out, COSCHED_SKIP_NO_CORUNNER_LIST);
	if (unusable > 0)
		return skip(out, COSCHED_SKIP_CORUNNER_UNUSABLE);
	for (int i = 0; i < nco; i++)
		if (!co[i]->has_run)
			return skip(out, COSCHED_SKIP_CORUNNER_UNUSABLE);
	if (missing > 0) {
		out->kind = COSCHED_OBS_PENDING;
		return;
	}
	length = v->end_s - v->start_s;
	if (length < 1e-3)
		length = 1e-3;
	for (int i = 0; i < nco; i++) {
		double ov = overlap(v, co[i]);

		if (ov <= COSCHED_OBSERVE_TOUCH_S)
			continue;
		near++;
		if (ov / length >= min_overlap) {
			most = co[i];
			nmost++;
		}
	}
	if (!near) {
		if (!v->app[0])
			return skip(out, COSCHED_SKIP_NO_CLASS);
		out->kind = COSCHED_OBS_SOLO;
		return;
	}
	if (!v->has_class)
		return skip(out, COSCHED_SKIP_NO_CLASS);
	if (nmost != 1)
		return skip(out, COSCHED_SKIP_SEVERAL);
	if (!most->has_class)
		return skip(out, COSCHED_SKIP_CORUNNER_CLASS);
	if (most->start_s > v->start_s + COSCHED_OBSERVE_START_SLACK_S)
		return skip(out, COSCHED_SKIP_CORUNNER_LATER);
	out->kind = COSCHED_OBS_PAIR;
	out->victim = v->lca;
	out->corunner = most->lca;
}

bool cosched_observe_teaches(const cosched_step_record_t *v,
			     cosched_learn_skip_t *why)
{
	if (!v->app[0])
		*why = COSCHED_SKIP_NO_APP;
	else if (!v->placed)
		*why = COSCHED_SKIP_NOT_PLACED;
	else if (!v->merged)
		*why = COSCHED_SKIP_NOT_MERGED;
	else if (v->uid < 0)
		*why = COSCHED_SKIP_NO_USER;
	else
		return true;
	return false;
}

long cosched_observe_owner(const cosched_step_record_t *v)
{
	return v->shared ? COSCHED_LEARN_OWNER_SITE : v->uid;
}
