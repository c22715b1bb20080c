/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * place.c - the placement engine's state: the layout, the units
 * wide jobs close, node availability, entering and leaving jobs, copies
 * and the self-check.  The queries (which units a job may take) are in
 * policy/place_query.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/text.h"
#include "src/libcosched/policy/place.h"
#include "src/libcosched/policy/place_internal.h"



static void unit_sync(cosched_place_t *p, size_t u)
{
	bool avail = p->node_ok[p->unit_node[u]] && !p->unit_closed[u];

	if (cosched_occupancy_available(p->occ, u) != avail)
		cosched_occupancy_set_available(p->occ, u, avail, NULL);
}

void cosched_place_gang_params(const cosched_place_t *p, int capacity,
			       cosched_gang_params_t *params)
{
	cosched_gang_params_init(params, capacity);
	if (p->conf.mrb_threshold > 0)
		params->mrb_threshold = p->conf.mrb_threshold;
	if (p->conf.mrb_weight > 0)
		params->mrb_weight = p->conf.mrb_weight;
	params->pref = p->conf.interference ? &p->conf.interference->pref :
					      NULL;
	params->interference = p->conf.interference;
	params->max_apps = p->conf.max_apps < capacity ? p->conf.max_apps :
							 capacity;
}

static int alloc_arrays(cosched_place_t *p)
{
	size_t nn = p->nnodes ? p->nnodes : 1, nu = p->nunits ? p->nunits : 1;

	p->unit_first = calloc(nn, sizeof(size_t));
	p->unit_count = calloc(nn, sizeof(int));
	p->node_ok = calloc(nn, sizeof(bool));
	p->unit_node = calloc(nu, sizeof(size_t));
	p->unit_cores = calloc(nu, sizeof(int));
	p->unit_closed = calloc(nu, sizeof(uint16_t));
	p->scratch = malloc((nu + COSCHED_PLACE_MAX_TRIES) * sizeof(size_t));
	return p->unit_first && p->unit_count && p->node_ok && p->unit_node &&
	       p->unit_cores && p->unit_closed && p->scratch ? 0 : -1;
}

const char *cosched_place_unit_word(const cosched_place_t *p)
{
	return p->conf.scope == COSCHED_SCOPE_NODE ? "node" : "socket";
}

/* Put p->why_head together from p->conf. */
static void why_head(cosched_place_t *p)
{
	size_t len = sizeof(p->why_head), at;

	at = cosched_text_put(p->why_head, len, 0,
			      p->conf.strict ? "strict" : "lenient");
	at = cosched_text_put(p->why_head, len, at, " ");
	at = cosched_text_put(p->why_head, len, at,
			      cosched_policy_name(p->conf.policy));
	at = cosched_text_put(p->why_head, len, at, ": no ");
	at = cosched_text_put(p->why_head, len, at, cosched_place_unit_word(p));
	cosched_text_put(p->why_head, len, at, " accepts this ");
}

cosched_place_t *cosched_place_create(const cosched_place_conf_t *conf,
				      size_t nnodes, const int *units,
				      const int *unit_cores,
				      cosched_error_t *err)
{
	cosched_gang_params_t params;
	cosched_place_t *p;
	size_t nunits = 0, u = 0;
	int maxcap = 1;

	if (!conf || (nnodes && (!units || !unit_cores))) {
		cosched_error_set(err, "placement: no configuration or layout");
		return NULL;
	}
	if (conf->max_apps < 0) {
		cosched_error_set(err, "placement: max_apps %d (0 or more)",
				  conf->max_apps);
		return NULL;
	}
	if (!(conf->max_slowdown == 0 ||
	      (conf->max_slowdown >= 1 &&
	       conf->max_slowdown <= COSCHED_SLOWDOWN_MAX)) ||
	    cosched_range_check("pack_demand", &cosched_pack_demand_range,
				conf->pack_demand, NULL, NULL)) {
		cosched_error_set(err,
			"placement: max_slowdown %g (0 or 1..%g), pack_demand %g (0..%g)",
			conf->max_slowdown, COSCHED_SLOWDOWN_MAX,
			conf->pack_demand, cosched_pack_demand_range.hi);
		return NULL;
	}
	for (size_t i = 0; i < nnodes; i++) {
		if (units[i] < 0 || units[i] > 64 ||
		    (units[i] && (unit_cores[i] < 1 ||
				  unit_cores[i] > COSCHED_GANG_MAX_CAPACITY))) {
			cosched_error_set(err,
				"placement: node %zu: %d units of %d cores (units 0..64, cores 1..%d)",
				i, units[i], unit_cores[i],
				COSCHED_GANG_MAX_CAPACITY);
			return NULL;
		}
		nunits += (size_t) units[i];
		if (units[i] && unit_cores[i] > maxcap)
			maxcap = unit_cores[i];
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		cosched_error_set(err, "placement: out of memory");
		return NULL;
	}
	p->conf = *conf;
	why_head(p);
	p->nnodes = nnodes;
	p->nunits = nunits;
	if (alloc_arrays(p)) {
		cosched_place_free(p);
		cosched_error_set(err, "placement: out of memory");
		return NULL;
	}
	for (size_t i = 0; i < nnodes; i++) {
		p->unit_first[i] = u;
		p->unit_count[i] = units[i];
		for (int k = 0; k < units[i]; k++, u++) {
			p->unit_node[u] = i;
			p->unit_cores[u] = unit_cores[i];
		}
	}
	cosched_place_gang_params(p, maxcap, &params);
	p->occ = cosched_occupancy_create(conf->policy, &params, nunits,
					  p->unit_cores, err);
	if (!p->occ) {
		cosched_place_free(p);
		return NULL;
	}
	for (size_t k = 0; k < nunits; k++)
		cosched_occupancy_set_available(p->occ, k, false, NULL);
	return p;
}

void cosched_place_conf_from(const cosched_conf_t *conf,
			     const cosched_interference_model_t *interference,
			     cosched_place_conf_t *pc)
{
	*pc = (cosched_place_conf_t) {
		/* Under none cons_tres places: the engine keeps the occupancy
		 * and predicts, and never asks its policy, which must still
		 * be one that places. */
		.policy = cosched_policy_places(conf->policy) ? conf->policy :
			  COSCHED_POLICY_DEFAULT,
		.scope = conf->scope,
		.strict = conf->strict,
		.mrb_threshold = conf->mrb_threshold,
		.mrb_weight = conf->mrb_weight,
		.interference = interference,
		.max_slowdown = 1.0 + conf->corun_slowdown_pct / 100.0,
		.pack_demand = conf->pack_demand,
		.max_apps = conf->max_apps,
	};
}

void cosched_place_free(cosched_place_t *p)
{
	if (!p)
		return;
	cosched_occupancy_free(p->occ);
	free(p->unit_first);
	free(p->unit_count);
	free(p->node_ok);
	free(p->unit_node);
	free(p->unit_cores);
	free(p->unit_closed);
	free(p->closing);
	free(p->scratch);
	free(p);
}

cosched_place_t *cosched_place_copy(const cosched_place_t *p,
				    cosched_error_t *err)
{
	cosched_place_t *c = calloc(1, sizeof(*c));

	if (!c) {
		cosched_error_set(err, "placement: out of memory");
		return NULL;
	}
	c->conf = p->conf;
	memcpy(c->why_head, p->why_head, sizeof(c->why_head));
	c->nnodes = p->nnodes;
	c->nunits = p->nunits;
	if (alloc_arrays(c) ||
	    (p->nclosing && !(c->closing = malloc(p->nclosing *
						  sizeof(uint32_t))))) {
		cosched_place_free(c);
		cosched_error_set(err, "placement: out of memory");
		return NULL;
	}
	memcpy(c->unit_first, p->unit_first, p->nnodes * sizeof(size_t));
	memcpy(c->unit_count, p->unit_count, p->nnodes * sizeof(int));
	memcpy(c->node_ok, p->node_ok, p->nnodes * sizeof(bool));
	memcpy(c->unit_node, p->unit_node, p->nunits * sizeof(size_t));
	memcpy(c->unit_cores, p->unit_cores, p->nunits * sizeof(int));
	memcpy(c->unit_closed, p->unit_closed, p->nunits * sizeof(uint16_t));
	if (p->nclosing)
		memcpy(c->closing, p->closing, p->nclosing * sizeof(uint32_t));
	c->nclosing = c->closing_cap = p->nclosing;
	c->queue_jobs = p->queue_jobs;
	c->occ = cosched_occupancy_copy(p->occ, err);
	if (!c->occ) {
		cosched_place_free(c);
		return NULL;
	}
	return c;
}

size_t cosched_place_nunits(const cosched_place_t *p)
{
	return p->nunits;
}

size_t cosched_place_unit_first(const cosched_place_t *p, size_t node)
{
	return node < p->nnodes ? p->unit_first[node] : p->nunits;
}

size_t cosched_place_unit_node(const cosched_place_t *p, size_t unit)
{
	return unit < p->nunits ? p->unit_node[unit] : p->nnodes;
}

const cosched_occupancy_t *cosched_place_occupancy(const cosched_place_t *p)
{
	return p->occ;
}

void cosched_place_set_node_ok(cosched_place_t *p, size_t node, bool ok)
{
	if (node >= p->nnodes)
		return;
	p->node_ok[node] = ok;
	for (int k = 0; k < p->unit_count[node]; k++)
		unit_sync(p, p->unit_first[node] + (size_t) k);
}

void cosched_place_set_queue_jobs(cosched_place_t *p, long jobs)
{
	p->queue_jobs = jobs > 0 ? jobs : 0;
}

long cosched_place_queue_jobs(const cosched_place_t *p)
{
	return p->queue_jobs;
}

long cosched_place_empty_units(const cosched_place_t *p)
{
	return cosched_occupancy_empty_units(p->occ);
}

void cosched_place_job_shape(const cosched_place_t *p,
			     cosched_place_job_t *job, uint32_t min_nodes)
{
	int min_cap = 0;

	for (size_t u = 0; u < p->nunits; u++)
		if (!min_cap || p->unit_cores[u] < min_cap)
			min_cap = p->unit_cores[u];
	if (min_nodes > 1)
		job->kind = COSCHED_PLACE_MULTI;
	else if (min_cap && job->cores > min_cap)
		job->kind = COSCHED_PLACE_WIDE;
	else
		job->kind = COSCHED_PLACE_SINGLE;
	if (min_cap && job->gj.threads > min_cap)
		job->gj.threads = min_cap;	/* wide, multi: per unit */
}

/* ---- the jobs that hold their units whole ----------------------------- */

static size_t closing_pos(const cosched_place_t *p, uint32_t job_id)
{
	size_t lo = 0, hi = p->nclosing;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->closing[mid] < job_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int closing_add(cosched_place_t *p, uint32_t job_id)
{
	size_t at = closing_pos(p, job_id);

	if (at < p->nclosing && p->closing[at] == job_id)
		return 0;
	if (p->nclosing == p->closing_cap) {
		size_t cap = p->closing_cap ? 2 * p->closing_cap : 8;
		uint32_t *n = realloc(p->closing, cap * sizeof(uint32_t));
		if (!n)
			return -1;
		p->closing = n;
		p->closing_cap = cap;
	}
	memmove(p->closing + at + 1, p->closing + at,
		(p->nclosing - at) * sizeof(uint32_t));
	p->closing[at] = job_id;
	p->nclosing++;
	return 0;
}

/* Whether job_id closes its units; removes it from the set when so. */
static bool closing_take(cosched_place_t *p, uint32_t job_id)
{
	size_t at = closing_pos(p, job_id);

	if (at >= p->nclosing || p->closing[at] != job_id)
		return false;
	memmove(p->closing + at, p->closing + at + 1,
		(p->nclosing - at - 1) * sizeof(uint32_t));
	p->nclosing--;
	return true;
}

/* ---- jobs entering and leaving --------------------------------------- */

int cosched_place_enter(cosched_place_t *p, const cosched_gang_job_t *gj,
			int cores, const cosched_hold_t *holds, size_t n,
			cosched_error_t *err)
{
	if (cosched_occupancy_add(p->occ, gj, holds, n, err))
		return -1;
	/* Wide jobs hold their units whole: nobody joins them. */
	if (cores > 0 && cores > p->unit_cores[holds[0].socket]) {
		if (closing_add(p, gj->job_id)) {
			cosched_occupancy_remove(p->occ, gj->job_id, NULL);
			return cosched_error_set(err, "placement: out of memory");
		}
		for (size_t k = 0; k < n; k++) {
			p->unit_closed[holds[k].socket]++;
			unit_sync(p, holds[k].socket);
		}
	}
	return 0;
}

int cosched_place_enter_foreign(cosched_place_t *p, uint32_t job_id,
				const cosched_hold_t *holds, size_t n,
				cosched_error_t *err)
{
	return cosched_occupancy_add_foreign(p->occ, job_id, holds, n, err);
}

int cosched_place_leave(cosched_place_t *p, uint32_t job_id,
			cosched_error_t *err)
{
	size_t n = 0;
	const cosched_hold_t *h = cosched_occupancy_holds(p->occ, job_id, &n);

	if (h && closing_take(p, job_id))
		for (size_t k = 0; k < n; k++) {
			if (p->unit_closed[h[k].socket])
				p->unit_closed[h[k].socket]--;
			unit_sync(p, h[k].socket);
		}
	return cosched_occupancy_remove(p->occ, job_id, err);
}

void cosched_place_live_begin(cosched_place_t *p)
{
	cosched_occupancy_live_begin(p->occ);
}

int cosched_place_live_set(cosched_place_t *p, uint32_t job_id, double mpki,
			   cosched_error_t *err)
{
	return cosched_occupancy_live_set(p->occ, job_id, mpki, err);
}

size_t cosched_place_live_end(cosched_place_t *p)
{
	return cosched_occupancy_live_end(p->occ);
}

int cosched_place_check(const cosched_place_t *p, cosched_error_t *err)
{
	uint16_t *want;
	int rc = 0;

	if (cosched_occupancy_check(p->occ, err))
		return -1;
	want = calloc(p->nunits ? p->nunits : 1, sizeof(uint16_t));
	if (!want)
		return cosched_error_set(err, "placement: out of memory");
	for (size_t i = 0; i < p->nclosing; i++) {
		size_t n = 0;
		const cosched_hold_t *h = cosched_occupancy_holds(p->occ,
							p->closing[i], &n);
		if (!h) {
			rc = cosched_error_set(err,
				"placement: JobId=%u closes units but holds none",
				p->closing[i]);
			goto out;
		}
		for (size_t k = 0; k < n; k++)
			want[h[k].socket]++;
	}
	for (size_t u = 0; u < p->nunits; u++) {
		bool avail = p->node_ok[p->unit_node[u]] && !p->unit_closed[u];
		if (want[u] != p->unit_closed[u]) {
			rc = cosched_error_set(err,
				"placement: unit %zu closed %u times, by %u wide jobs",
				u, (unsigned) p->unit_closed[u],
				(unsigned) want[u]);
			goto out;
		}
		if (cosched_occupancy_available(p->occ, u) != avail) {
			rc = cosched_error_set(err,
				"placement: unit %zu %savailable, its node and wide jobs say %s",
				u, avail ? "un" : "", avail ? "available" :
				"unavailable");
			goto out;
		}
	}
out:
	free(want);
	return rc;
}
