/*
 * cosched_gang_score.c - the one scoring rule of the gang policies: how an
 * arriving job scores on a socket, or why the socket is rejected.
 */
#include <math.h>
#include <string.h>

#include "cosched_gang_internal.h"

void gang_score_ctx_init(gang_score_ctx_t *c, cosched_policy_t policy,
			 const cosched_gang_params_t *p)
{
	c->policy = policy;
	c->max_apps = cosched_gang_max_apps(policy, p);
	c->threshold = p->mrb_threshold;
	if (p->pref)
		c->pref = *p->pref;
	else
		cosched_pref_table_default(&c->pref);
}

/*
 * Fill c for job on a socket.  The scales (cosched-policies(7)):
 *   GANG: 0 (only empty sockets are accepted).
 *   Greedy Thread: threads given / threads requested, in (0, 1]
 *     (contention-blind bin packing: full requests first, then best fit).
 *   Miss-Rate Balance: empty 0; else 1 + |MPKI(job) - MPKI(gang)| (pair high
 *     with low, seed 002 "Miss-Rate Balance" seen from either side).
 *   Miss-Rate Bound: empty 0; else 1 + (T - combined) / T, accepted only
 *     when combined <= T ("fits", seed 002 "Miss-Rate Bound").
 *   Application-Aware: empty 0; else 1 + 1 / (1 + cost), cost = sum over
 *     the categories present of pref[job][c] + pref[c][job] (seed 002
 *     preference table: lower is preferred); any "-" pair is refused.
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
		/* Seed 002 "Greedy Application-Aware": pairings obey the "-"
		 * cells; an unknown category cannot be checked, so it runs
		 * alone. */
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
	default:
		break;
	}
	c->leftover = free_cores - c->threads;
}


