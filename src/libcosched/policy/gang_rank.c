/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gang_rank.c - every socket ranked for one arriving job, with the
 * reason for each rejected one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/policy/gang_internal.h"
#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/text.h"

static int cand_cmp(const void *pa, const void *pb)
{
	const cosched_candidate_t *a = pa, *b = pb;
	bool aa = a->reject == COSCHED_REJECT_NONE;
	bool ba = b->reject == COSCHED_REJECT_NONE;

	if (aa != ba)
		return aa ? -1 : 1;
	if (!aa)
		return a->socket < b->socket ? -1 : a->socket > b->socket;
	if (a->socket == b->socket)
		return 0;
	return gang_cand_better(a, b) ? -1 : 1;
}

int gang_rank_check(cosched_policy_t policy,
		    const cosched_gang_params_t *params,
		    const cosched_gang_job_t *job, cosched_error_t *err)
{
	if (cosched_policy_check("policy", policy, COSCHED_POLICY_PLACING, err) < 0 ||
	    cosched_gang_params_check(params, err) < 0 ||
	    cosched_gang_job_check("job", job, params->capacity, err) < 0)
		return -1;
	return 0;
}

int cosched_gang_rank(cosched_policy_t policy,
		      const cosched_gang_params_t *params,
		      const cosched_socket_t *sockets, size_t nsockets,
		      const cosched_gang_job_t *job, cosched_candidate_t *out,
		      size_t *naccepted, cosched_error_t *err)
{
	gang_score_ctx_t ctx;

	if (gang_rank_check(policy, params, job, err))
		return -1;
	gang_score_ctx_init(&ctx, policy, params);
	return gang_rank_checked(&ctx, sockets, nsockets, job, out, naccepted,
				 err);
}

/* Category counts of a socket's occupants (count[] zeroed by the
 * caller). */
static void count_categories(const cosched_socket_t *s, unsigned *count)
{
	for (int k = 0; k < s->noccupants; k++)
		count[gang_cat_slot(s->occupants[k].category)]++;
}

/* Time-shared min_slowdown: the round the sockets are the gangs of, its
 * occupied gangs and their summed speeds. */
static void round_of(const gang_score_ctx_t *ctx,
		     const cosched_socket_t *sockets, size_t nsockets,
		     gang_socket_agg_t *round)
{
	for (size_t i = 0; i < nsockets; i++) {
		unsigned count[GANG_CAT_SLOTS] = { 0 };

		if (sockets[i].noccupants <= 0 || !sockets[i].occupants)
			continue;
		count_categories(&sockets[i], count);
		round->round_gangs++;
		round->round_speed += gang_count_speed(ctx, count, INFINITY);
	}
}

int gang_rank_checked(const gang_score_ctx_t *ctx,
		      const cosched_socket_t *sockets, size_t nsockets,
		      const cosched_gang_job_t *job, cosched_candidate_t *out,
		      size_t *naccepted, cosched_error_t *err)
{
	cosched_policy_t policy = ctx->policy;
	gang_socket_agg_t round = { 0 };
	size_t acc = 0;

	if (nsockets > 0 && (!sockets || !out))
		return cosched_error_set(err, "sockets: NULL with %zu sockets",
					 nsockets);
	if (ctx->time_shared && policy == COSCHED_POLICY_MIN_SLOWDOWN)
		round_of(ctx, sockets, nsockets, &round);
	for (size_t i = 0; i < nsockets; i++) {
		const cosched_socket_t *s = &sockets[i];
		gang_socket_agg_t agg = { 0 };
		unsigned count[GANG_CAT_SLOTS] = { 0 };

		if (s->capacity < 1 || s->capacity > COSCHED_GANG_MAX_CAPACITY)
			return cosched_error_set(err,
				"sockets[%zu].capacity: must be in [1, %d], got %d",
				i, COSCHED_GANG_MAX_CAPACITY, s->capacity);
		if (s->used < 0 || s->used > s->capacity)
			return cosched_error_set(err,
				"sockets[%zu].used: must be in [0, %d], got %d", i,
				s->capacity, s->used);
		if (s->noccupants < 0 || (s->noccupants > 0 && !s->occupants))
			return cosched_error_set(err,
				"sockets[%zu].occupants: %d occupants, array %s", i,
				s->noccupants, s->occupants ? "given" : "NULL");
		agg.capacity = s->capacity;
		agg.used = s->used;
		agg.napps = s->noccupants;
		agg.round_gangs = round.round_gangs;
		agg.round_speed = round.round_speed;
		count_categories(s, count);
		for (int k = 0; k < s->noccupants; k++) {
			const cosched_gang_job_t *o = &s->occupants[k];
			agg.mask |= 1u << gang_cat_slot(o->category);
			if (gang_policy_uses_load(policy))
				agg.load += o->mpki;
		}
		if (policy == COSCHED_POLICY_MIN_SLOWDOWN)
			agg.catcount = count;
		gang_score_socket(ctx, job, &agg, i, &out[i]);
		if (out[i].reject == COSCHED_REJECT_NONE)
			acc++;
	}
	/* One socket (the placement engine's question of one unit) is in
	 * order already. */
	if (nsockets > 1)
		qsort(out, nsockets, sizeof(*out), cand_cmp);
	if (naccepted)
		*naccepted = acc;
	return 0;
}

static const char *const reject_names[COSCHED_REJECT_COUNT] = {
	[COSCHED_REJECT_NONE] = "accepted",
	[COSCHED_REJECT_NO_FREE_CORES] = "no free cores",
	[COSCHED_REJECT_GANG_FULL] = "gang full",
	[COSCHED_REJECT_TOO_FEW_CORES] = "too few free cores",
	[COSCHED_REJECT_FORBIDDEN_PAIR] = "forbidden pair",
	[COSCHED_REJECT_MPKI_BOUND] = "MPKI bound",
	[COSCHED_REJECT_SLOWDOWN_BOUND] = "slowdown bound",
	[COSCHED_REJECT_NO_SOCKET] = "no acceptable socket",
	[COSCHED_REJECT_INVALID_QUERY] = "invalid query",
};

const char *cosched_reject_name(cosched_reject_t r)
{
	return cosched_name_of(reject_names, COSCHED_REJECT_COUNT, (int) r,
			       "unknown");
}

/* "socket %zu: " */
static size_t put_socket(char *buf, size_t len, const cosched_candidate_t *c)
{
	size_t at = cosched_text_put(buf, len, 0, "socket ");

	at = cosched_text_put_int(buf, len, at, (long long) c->socket);
	return cosched_text_put(buf, len, at, ": ");
}

/*
 * The reasons the placement engine keeps for every job lenient mode
 * places by its last resort are put together piece by piece, as the
 * printf formats in the comments write them; the others, rare, by printf.
 */
char *cosched_candidate_format(const cosched_candidate_t *c, char *buf,
			       size_t len)
{
	size_t at;

	if (!buf || len == 0)
		return buf;
	switch (c->reject) {
	case COSCHED_REJECT_NONE:
		/* "socket %zu: accepted, score %.3f, %d threads, %d cores left" */
		at = put_socket(buf, len, c);
		at = cosched_text_put(buf, len, at, "accepted, score ");
		at = cosched_text_put_fixed(buf, len, at, c->score, 3);
		at = cosched_text_put(buf, len, at, ", ");
		at = cosched_text_put_int(buf, len, at, c->threads);
		at = cosched_text_put(buf, len, at, " threads, ");
		at = cosched_text_put_int(buf, len, at, c->leftover);
		cosched_text_put(buf, len, at, " cores left");
		break;
	case COSCHED_REJECT_NO_FREE_CORES:
		/* "socket %zu: no free cores" */
		at = put_socket(buf, len, c);
		cosched_text_put(buf, len, at, "no free cores");
		break;
	case COSCHED_REJECT_GANG_FULL:
		/* "socket %zu: gang full (%d of %d applications)" */
		at = put_socket(buf, len, c);
		at = cosched_text_put(buf, len, at, "gang full (");
		at = cosched_text_put_int(buf, len, at, c->napps);
		at = cosched_text_put(buf, len, at, " of ");
		at = cosched_text_put_int(buf, len, at, c->max_apps);
		cosched_text_put(buf, len, at, " applications)");
		break;
	case COSCHED_REJECT_TOO_FEW_CORES:
		/* "socket %zu: needs %d cores, %d free" */
		at = put_socket(buf, len, c);
		at = cosched_text_put(buf, len, at, "needs ");
		at = cosched_text_put_int(buf, len, at, c->need);
		at = cosched_text_put(buf, len, at, " cores, ");
		at = cosched_text_put_int(buf, len, at, c->free_cores);
		cosched_text_put(buf, len, at, " free");
		break;
	case COSCHED_REJECT_FORBIDDEN_PAIR:
		/* "socket %zu: forbidden pair %s+%s" */
		at = put_socket(buf, len, c);
		at = cosched_text_put(buf, len, at, "forbidden pair ");
		at = cosched_text_put(buf, len, at,
				      cosched_category_name(c->cat_job));
		at = cosched_text_put(buf, len, at, "+");
		cosched_text_put(buf, len, at,
				 cosched_category_name(c->cat_other));
		break;
	case COSCHED_REJECT_MPKI_BOUND:
		/* "socket %zu: combined MPKI %.2f > T %.2f" */
		at = put_socket(buf, len, c);
		at = cosched_text_put(buf, len, at, "combined MPKI ");
		at = cosched_text_put_fixed(buf, len, at, c->mpki_combined, 2);
		at = cosched_text_put(buf, len, at, " > T ");
		cosched_text_put_fixed(buf, len, at, c->threshold, 2);
		break;
	case COSCHED_REJECT_SLOWDOWN_BOUND:
		snprintf(buf, len, "socket %zu: predicted slowdown %.2f > %.2f (MaxCorunSlowdown=%g)",
			 c->socket, c->slowdown, c->threshold,
			 (c->threshold - 1.0) * 100.0);
		break;
	case COSCHED_REJECT_NO_SOCKET:
		snprintf(buf, len, "no acceptable socket for %d cores",
			 c->need);
		break;
	case COSCHED_REJECT_INVALID_QUERY:
		snprintf(buf, len, "invalid query (see the error message)");
		break;
	default:
		snprintf(buf, len, "socket %zu: %s", c->socket,
			 cosched_reject_name(c->reject));
		break;
	}
	return buf;
}

