/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gang_score.c - the one scoring rule of the gang policies: how an
 * arriving job scores on a socket, or why the socket is rejected.
 */
#include <math.h>
#include <string.h>

#include "src/libcosched/policy/gang_internal.h"

void gang_score_ctx_init(gang_score_ctx_t *c, cosched_policy_t policy,
			 const cosched_gang_params_t *p)
{
	c->policy = policy;
	c->time_shared = p->time_shared;
	c->max_apps = cosched_gang_max_apps(policy, p);
	c->threshold = p->mrb_threshold;
	if (p->pref)
		c->pref = *p->pref;
	else
		cosched_pref_table_default(&c->pref);
	if (policy == COSCHED_POLICY_MIN_SLOWDOWN) {
		cosched_interference_model_t dflt;
		const cosched_interference_model_t *m = p->interference;

		if (!m) {
			cosched_interference_default(&dflt);
			m = &dflt;
		}
		for (unsigned v = 0; v < GANG_CAT_SLOTS; v++)
			for (unsigned o = 0; o < GANG_CAT_SLOTS; o++)
				c->sd[v][o] = cosched_interference_pair(m,
					cosched_category_to_lca((cosched_category_t) v),
					cosched_category_to_lca((cosched_category_t) o));
		for (unsigned a = 0; a < GANG_CAT_SLOTS; a++)
			for (unsigned o = 0; o < GANG_CAT_SLOTS; o++)
				c->join_cost[a][o] = (c->sd[a][o] - 1.0) +
						     (c->sd[o][a] - 1.0);
	}
}

double gang_slot_slowdown(const gang_score_ctx_t *c, unsigned v,
			  const unsigned *count)
{
	double sum = 1.0, smallest = INFINITY;
	int n = 0;

	for (unsigned o = 0; o < GANG_CAT_SLOTS; o++) {
		unsigned m = count[o] - (o == v);
		if (!m)
			continue;
		sum += (double) m * (c->sd[v][o] - 1.0);
		smallest = fmin(smallest, c->sd[v][o]);
		n += (int) m;
	}
	return cosched_interference_combine(sum, smallest, n);
}

double gang_count_speed(const gang_score_ctx_t *c, const unsigned *count,
			double bound)
{
	double s = 0;

	for (unsigned v = 0; v < GANG_CAT_SLOTS; v++) {
		double sd;

		if (!count[v])
			continue;
		sd = gang_slot_slowdown(c, v, count);
		if (sd > bound)
			return -1;
		s += (double) count[v] / sd;
	}
	return s;
}

/*
 * Time-shared min_slowdown: the change of the round's value, its summed
 * speeds S over its G gangs, when a job of slot `slot` joins the socket
 * (occupied: one of the G) or opens a gang on it (empty).  A round of
 * one more gang gives every program a smaller share of it, which is what
 * joining a gang with a predicted slowdown is weighed against.
 */
static double gang_round_gain(const gang_score_ctx_t *c, unsigned slot,
			      const gang_socket_agg_t *s)
{
	double g = (double) s->round_gangs, before;
	unsigned after[GANG_CAT_SLOTS];

	before = g > 0 ? s->round_speed / g : 0;
	if (s->napps == 0 || !s->catcount || g == 0)
		return (s->round_speed + 1.0) / (g + 1.0) - before;
	memcpy(after, s->catcount, sizeof(after));
	after[slot]++;
	return (gang_count_speed(c, after, INFINITY) -
		gang_count_speed(c, s->catcount, INFINITY)) / g;
}

/* The worst predicted slowdown on a socket holding count[] once a job of
 * slot `slot` joins it (the job's or any present job's), 1 alone. */
static double gang_worst_slowdown(const gang_score_ctx_t *c, unsigned slot,
				  const unsigned *count)
{
	unsigned after[GANG_CAT_SLOTS];
	double worst = 1.0;

	memcpy(after, count, sizeof(after));
	after[slot]++;
	for (unsigned v = 0; v < GANG_CAT_SLOTS; v++)
		if (after[v])
			worst = fmax(worst, gang_slot_slowdown(c, v, after));
	return worst;
}

/*
 * Fill c for job on a socket.  The scales (cosched-policies(7)):
 *   GANG: 0 (only empty sockets are accepted).
 *   Greedy Thread: threads given / threads requested, in (0, 1]
 *     (contention-blind bin packing: full requests first, then best fit).
 *   Miss-Rate Balance: empty 0; else 1 + |MPKI(job) - MPKI(gang)| (pair high
 *     with low, "Miss-Rate Balance" of "Power-aware gang scheduling on
 *     multicore", NTUA thesis, 2013, seen from either side).
 *   Miss-Rate Bound: empty 0; else 1 + (T - combined) / T, accepted only
 *     when combined <= T ("fits", the 2013 gang-scheduling thesis,
 *     "Miss-Rate Bound").
 *   Application-Aware: empty 0; else 1 + 1 / (1 + cost), cost = sum over
 *     the categories present of pref[job][c] + pref[c][job] (the 2013
 *     gang-scheduling thesis's preference table: lower is preferred); any
 *     "-" pair is refused.
 *   min_slowdown: minus the predicted growth of the summed slowdowns
 *     (gang_join_cost), so an empty socket scores 0 and a pairing the
 *     model calls a speed-up more; time-shared, the change of the
 *     round's value (gang_round_gain); refused when the job sets
 *     max_slowdown and its or a co-runner's predicted slowdown would
 *     exceed it.
 */
void gang_score_socket(const gang_score_ctx_t *ctx,
		       const cosched_gang_job_t *job,
		       const gang_socket_agg_t *s, size_t socket,
		       cosched_candidate_t *c)
{
	int free_cores = s->capacity - s->used;
	int need = gang_cores_needed(ctx->policy, job);
	unsigned jc = gang_cat_slot(job->category);

	memset(c, 0, sizeof(*c));
	c->socket = socket;
	c->free_cores = free_cores;
	c->need = need;
	c->napps = s->napps;
	c->max_apps = ctx->max_apps;
	c->cat_job = (cosched_category_t)jc;
	c->cat_other = COSCHED_CAT_UNKNOWN;
	c->load = s->load;
	c->threshold = ctx->threshold;
	c->mpki_combined = s->load + job->mpki;
	c->slowdown = 1.0;
	if (free_cores <= 0) {
		c->reject = COSCHED_REJECT_NO_FREE_CORES;
		return;
	}
	if (ctx->max_apps > 0 && s->napps >= ctx->max_apps) {
		c->reject = COSCHED_REJECT_GANG_FULL;
		return;
	}
	if (ctx->policy == COSCHED_POLICY_APP_AWARE && s->napps > 0) {
		int cost = 0;
		/* The 2013 gang-scheduling thesis, "Greedy
		 * Application-Aware": pairings obey the "-" cells; an unknown
		 * category cannot be checked, so it runs alone. */
		for (unsigned cat = 0; cat < GANG_CAT_SLOTS; cat++) {
			if (!(s->mask & (1u << cat)))
				continue;
			if (jc == COSCHED_CAT_UNKNOWN ||
			    cat == COSCHED_CAT_UNKNOWN ||
			    !cosched_pref_allowed(&ctx->pref, jc, cat)) {
				c->reject = COSCHED_REJECT_FORBIDDEN_PAIR;
				c->cat_other = cat;
				return;
			}
			cost += ctx->pref.pref[jc][cat] + ctx->pref.pref[cat][jc];
		}
		c->score = 1.0 + 1.0 / (1.0 + cost);
	}
	if (free_cores < need) {
		c->reject = COSCHED_REJECT_TOO_FEW_CORES;
		return;
	}
	c->threads = job->threads;
	switch (ctx->policy) {
	case COSCHED_POLICY_GANG:
		c->score = 0;
		break;
	case COSCHED_POLICY_GREEDY_THREAD:
		c->threads = free_cores < job->threads ? free_cores : job->threads;
		c->score = (double)c->threads / job->threads;
		break;
	case COSCHED_POLICY_MISS_RATE_BALANCE:
		c->score = s->napps ? 1.0 + fabs(job->mpki - s->load) : 0;
		break;
	case COSCHED_POLICY_MISS_RATE_BOUND:
		if (s->napps == 0) {
			c->score = 0;	/* a gang of its own always fits */
		} else if (c->mpki_combined > ctx->threshold) {
			c->reject = COSCHED_REJECT_MPKI_BOUND;
			return;
		} else {
			c->score = 1.0 + (ctx->threshold - c->mpki_combined) /
					 ctx->threshold;
		}
		break;
	case COSCHED_POLICY_APP_AWARE:
		if (s->napps == 0)
			c->score = 0;
		break;
	case COSCHED_POLICY_MIN_SLOWDOWN:
		if (s->napps == 0 || !s->catcount) {
			/* Nobody to slow, nobody slows it; time-shared, one
			 * more slice of the round. */
			c->score = ctx->time_shared ?
				   gang_round_gain(ctx, jc, s) : 0;
			break;
		}
		c->score = ctx->time_shared ? gang_round_gain(ctx, jc, s) :
			   -gang_join_cost(ctx, jc, s->catcount);
		if (job->max_slowdown > 0) {
			c->slowdown = gang_worst_slowdown(ctx, jc, s->catcount);
			if (c->slowdown > job->max_slowdown) {
				c->reject = COSCHED_REJECT_SLOWDOWN_BOUND;
				c->threshold = job->max_slowdown;
				return;
			}
		}
		break;
	default:
		break;
	}
	c->leftover = free_cores - c->threads;
}


