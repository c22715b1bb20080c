/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * place_query.c - the placement engine's queries: which units a
 * job may take under each rule of policy/place.h, the reason when none,
 * the lenient least-bad unit, will-run on a copy, and the predicted
 * slowdown of a job among a unit's occupants.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/text.h"
#include "src/libcosched/policy/place.h"
#include "src/libcosched/policy/gang_internal.h"
#include "src/libcosched/policy/place_internal.h"

static bool node_allowed_at(const bool *allowed, size_t node)
{
	return !allowed || allowed[node];
}

/* The ranking's parameters for units of one capacity, whether the
 * policy, they and the job passed the ranking's checks, and the scoring's
 * context: a query ranks unit after unit for one job, mostly of one
 * capacity. */
typedef struct {
	int capacity;			/* 0: nothing kept yet */
	cosched_gang_params_t params;
	gang_score_ctx_t ctx;		/* the scoring's, from params */
	bool ok;
} rank_params_t;

/* Whether unit u, read into sock, accepts the job now (the policy's
 * rule), with the ranking's verdict in cand.  rp keeps the parameters
 * from one unit to the next. */
static bool sock_accepts(const cosched_place_t *p, size_t u,
			 const cosched_socket_t *sock,
			 const cosched_gang_job_t *gj, cosched_candidate_t *cand,
			 rank_params_t *rp)
{
	size_t nacc = 0;

	if (rp->capacity != sock->capacity || !rp->capacity) {
		cosched_place_gang_params(p, sock->capacity, &rp->params);
		rp->capacity = sock->capacity;
		rp->ok = !gang_rank_check(p->conf.policy, &rp->params, gj,
					  NULL);
		if (rp->ok)
			gang_score_ctx_init(&rp->ctx, p->conf.policy,
					    &rp->params);
	}
	if (gj->threads > sock->capacity || !rp->ok)
		return false;
	if (gang_rank_checked(&rp->ctx, sock, 1, gj, cand, &nacc, NULL))
		return false;
	cand->socket = u;
	return nacc == 1;
}

/* The same, for an available unit read here. */
static bool unit_accepts(const cosched_place_t *p, size_t u,
			 const cosched_gang_job_t *gj, cosched_candidate_t *cand,
			 rank_params_t *rp)
{
	cosched_socket_t sock;

	if (!cosched_occupancy_available(p->occ, u) ||
	    cosched_occupancy_socket(p->occ, u, &sock))
		return false;
	return sock_accepts(p, u, &sock, gj, cand, rp);
}

/* A wide job needs whole units of one node, free of every holder. */
static bool unit_empty(const cosched_place_t *p, size_t u)
{
	cosched_socket_t sock;

	return cosched_occupancy_available(p->occ, u) &&
	       !cosched_occupancy_socket(p->occ, u, &sock) && sock.used == 0;
}

/*
 * min_slowdown's choice between sharing and an empty unit (cosched-
 * policies(7)): an empty unit costs nothing, so the cheapest unit is an
 * empty one while any is free; but a job that takes it leaves the waiting
 * jobs fewer.  Pack (the cheapest occupied unit first) when the jobs
 * waiting reach pack_demand times the empty units: at 1, when the waiting
 * jobs could not all have an empty unit after this one took its own.
 * Without an empty unit there is no choice to make: the job shares at the
 * cheapest either way, and is not said to be packed.
 */
static bool should_pack(const cosched_place_t *p)
{
	long empty;

	if (p->conf.policy != COSCHED_POLICY_MIN_SLOWDOWN)
		return false;
	empty = cosched_place_empty_units(p);
	if (empty < 1)
		return false;
	if (p->conf.pack_demand == 0)
		return true;
	return p->queue_jobs > 0 &&
	       (double) p->queue_jobs >= p->conf.pack_demand * (double) empty;
}

/* The single rule: the best unit the index gives, then the next best when
 * the allocator refuses it, COSCHED_PLACE_MAX_TRIES in all; when packing,
 * occupied units first. */
static int place_single(cosched_place_t *p, const cosched_place_job_t *job,
			const bool *allowed, cosched_place_try_fn try,
			void *ctx, cosched_place_result_t *res)
{
	char *why = res->why;
	size_t wlen = sizeof(res->why);
	size_t nex = 0, *ex;
	cosched_candidate_t best;
	cosched_error_t err;
	int rc = -1;
	bool pack = should_pack(p);
	unsigned flags = p->conf.index_flags;
	/* Packing is sharing by choice: bounded by max_slowdown in either
	 * mode (job's own bound is the strict one, or none). */
	cosched_gang_job_t packed = job->gj;

	packed.max_slowdown = p->conf.max_slowdown;

	ex = p->scratch;
	if (allowed)
		for (size_t i = 0; i < p->nnodes; i++)
			if (!allowed[i])
				for (int k = 0; k < p->unit_count[i]; k++)
					ex[nex++] = p->unit_first[i] + (size_t) k;
	for (int t = 0; t < COSCHED_PLACE_MAX_TRIES; t++) {
		size_t unit;
		long u = cosched_occupancy_best(p->occ,
			pack ? &packed : &job->gj,
			flags | (pack ? COSCHED_INDEX_OCCUPIED_ONLY : 0),
			ex, nex, &best, &err);
		if (u == COSCHED_INDEX_INVALID) {
			snprintf(why, wlen, "%.200s", err.msg);
			break;
		}
		if (u < 0 && pack) {
			pack = false;	/* no occupied unit: any */
			t--;
			continue;
		}
		if (u < 0)
			break;
		unit = (size_t) u;
		rc = try(ctx, &unit, 1);
		if (rc == 0) {
			res->unit = u;
			res->threads = best.threads;
			res->packed = pack;
			break;
		}
		ex[nex++] = unit;
		if (pack && t == COSCHED_PLACE_MAX_TRIES - 1) {
			/* The allocator refused every occupied unit it was
			 * offered: one more try, anywhere. */
			pack = false;
			t--;
		}
	}
	return rc;
}

/* The best accepting unit of a node (multi-node jobs: the job's cores on
 * the node share one unit; an allocator given several would spread its
 * tasks over all of them), or -1. */
static long node_best_unit(const cosched_place_t *p, size_t node,
			   const cosched_gang_job_t *gj)
{
	long best = -1;
	double best_score = 0;
	rank_params_t rp;

	rp.capacity = 0;
	for (int k = 0; k < p->unit_count[node]; k++) {
		size_t u = p->unit_first[node] + (size_t) k;
		cosched_candidate_t c;
		if (unit_accepts(p, u, gj, &c, &rp) &&
		    (best < 0 || c.score > best_score)) {
			best = (long) u;
			best_score = c.score;
		}
	}
	return best;
}

/* Wide and multi-node jobs (and every job in a will-run search): every
 * unit that may take the job, offered at once; the allocator chooses
 * among them. */
static int place_set(const cosched_place_t *p, const cosched_place_job_t *job,
		     const bool *allowed, cosched_place_try_fn try, void *ctx)
{
	size_t *set, n = 0;
	int rc;

	set = p->scratch;
	for (size_t i = 0; i < p->nnodes; i++) {
		int need = 1, have = 0;
		long best;
		if (!node_allowed_at(allowed, i) || !p->unit_count[i])
			continue;
		if (job->kind == COSCHED_PLACE_WIDE) {
			int cap = p->unit_cores[p->unit_first[i]];
			need = (job->cores + cap - 1) / cap;
			for (int k = 0; k < p->unit_count[i]; k++)
				if (unit_empty(p, p->unit_first[i] + (size_t) k))
					have++;
			if (have < need)
				continue;
			for (int k = 0; k < p->unit_count[i]; k++)
				if (unit_empty(p, p->unit_first[i] + (size_t) k))
					set[n++] = p->unit_first[i] + (size_t) k;
			continue;
		}
		best = node_best_unit(p, i, &job->gj);
		if (best >= 0)
			set[n++] = (size_t) best;
	}
	rc = n ? try(ctx, set, n) : -1;
	return rc;
}

/* Test only (submit, sbatch --test-only): could the job ever run under
 * the rules?  Some node must have units that can hold it when empty. */
static int test_only(const cosched_place_t *p, const cosched_place_job_t *job,
		     const bool *allowed, cosched_place_try_fn try, void *ctx)
{
	size_t *set, n = 0;
	int rc;

	set = p->scratch;
	for (size_t i = 0; i < p->nnodes; i++) {
		int cap = 0;
		if (!node_allowed_at(allowed, i) || !p->unit_count[i])
			continue;
		for (int k = 0; k < p->unit_count[i]; k++)
			cap += p->unit_cores[p->unit_first[i] + (size_t) k];
		if ((job->kind == COSCHED_PLACE_SINGLE &&
		     job->cores > p->unit_cores[p->unit_first[i]]) ||
		    job->cores > cap)
			continue;
		for (int k = 0; k < p->unit_count[i]; k++)
			set[n++] = p->unit_first[i] + (size_t) k;
	}
	rc = n ? try(ctx, set, n) : -1;
	return rc;
}

/* The predicted slowdown of job_id (class cls) among the occupants of
 * sock but itself and apart (job_id again: no other).  It reads their
 * categories only, in their order. */
static double sock_slowdown_apart(const cosched_place_t *p,
				  const cosched_socket_t *s, uint32_t job_id,
				  uint32_t apart, const cosched_class_t *cls)
{
	cosched_interference_model_t dflt;
	const cosched_interference_model_t *m = p->conf.interference;
	cosched_class_t co[64];
	cosched_prediction_t pr;
	const cosched_socket_t sock = *s;
	int n = 0;

	for (int j = 0; j < sock.noccupants && n < 64; j++) {
		if (sock.occupants[j].job_id == job_id ||
		    sock.occupants[j].job_id == apart)
			continue;
		co[n].cat = sock.occupants[j].category;
		co[n].lca = cosched_category_to_lca(co[n].cat);
		co[n].source = COSCHED_CLASS_FROM_PROFILE;
		n++;
	}
	if (!m) {
		cosched_interference_default(&dflt);
		m = &dflt;
	}
	if (cosched_interference_predict(m, cls, co, n, &pr, NULL))
		return INFINITY;
	return pr.slowdown;
}

double cosched_place_unit_slowdown(const cosched_place_t *p, size_t unit,
				   uint32_t job_id, const cosched_class_t *cls)
{
	cosched_socket_t sock;

	if (cosched_occupancy_socket(p->occ, unit, &sock))
		return INFINITY;
	return sock_slowdown_apart(p, &sock, job_id, job_id, cls);
}

void cosched_place_predict_pair(const cosched_place_t *p, uint32_t job_id,
				const cosched_class_t *cls, uint32_t apart,
				double *with, double *without)
{
	size_t n = 0;
	const cosched_hold_t *h = cosched_occupancy_holds(p->occ, job_id, &n);

	*with = *without = 1.0;
	/* One walk for both: each unit's occupants read once, and the model
	 * run again only where apart is one of them. */
	for (size_t k = 0; h && k < n; k++) {
		cosched_socket_t sock;
		bool there = false;
		double sd, sd_apart;

		if (cosched_occupancy_socket(p->occ, h[k].socket, &sock))
			continue;
		for (int j = 0; j < sock.noccupants && apart != job_id &&
				!there; j++)
			there = sock.occupants[j].job_id == apart;
		sd = sock_slowdown_apart(p, &sock, job_id, job_id, cls);
		sd_apart = there ? sock_slowdown_apart(p, &sock, job_id, apart,
						       cls) : sd;
		if (isfinite(sd) && sd > *with)
			*with = sd;
		if (isfinite(sd_apart) && sd_apart > *without)
			*without = sd_apart;
	}
}

double cosched_place_predict(const cosched_place_t *p, uint32_t job_id,
			     const cosched_class_t *cls)
{
	double with, without;

	cosched_place_predict_pair(p, job_id, cls, job_id, &with, &without);
	return with;
}

/*
 * least_bad predicts the job's slowdown on every unit with its cores, and
 * most units hold the same few sequences of co-runners' categories: the
 * prediction of each sequence (the job itself left out, as the prediction
 * leaves it) is kept for the search, so that the model runs once per
 * sequence.  The same sequence, not the same set: the model sums in the
 * occupants' order, and another order may round differently.
 */
#define SEQ_MEMO 8
#define SEQ_MAX 16		/* longer sequences are predicted each time */

typedef struct {
	uint64_t key[SEQ_MEMO];	/* length << 48 | categories, 3 bits each */
	double sd[SEQ_MEMO];
	int n, next;
} seq_memo_t;

static double memo_slowdown(const cosched_place_t *p, seq_memo_t *memo,
			    const cosched_socket_t *sock, uint32_t job_id,
			    const cosched_class_t *cls)
{
	uint64_t key = 0, len = 0;
	double sd;
	int slot;

	for (int j = 0; j < sock->noccupants; j++) {
		if (sock->occupants[j].job_id == job_id)
			continue;
		if (len == SEQ_MAX)
			return sock_slowdown_apart(p, sock, job_id, job_id,
						   cls);
		key |= (uint64_t) (sock->occupants[j].category & 7) <<
		       (3 * len);
		len++;
	}
	key |= len << 48;
	for (int i = 0; i < memo->n; i++)
		if (memo->key[i] == key)
			return memo->sd[i];
	sd = sock_slowdown_apart(p, sock, job_id, job_id, cls);
	slot = memo->n < SEQ_MEMO ? memo->n++ : memo->next++ % SEQ_MEMO;
	memo->key[slot] = key;
	memo->sd[slot] = sd;
	return sd;
}

/*
 * Why no unit accepts the job: the most common rejection, the policy's
 * own rules before "full" ("strict miss_rate_bound: no socket accepts
 * this mem job (mpki_bound on 4; first: ...)").  The controller asks
 * this on every failed selection of a job that waits or goes lenient, so
 * it ranks a few units, not all (one ranking each): among the first
 * WHY_LOOK_MAX available units, those with the cores the job needs until
 * WHY_RANK_MAX of them refused it (where the policy's rules show), then
 * the full ones while fewer did; the text says how many it ranked when
 * that was not every unit.  A unit that accepts (the allocator refused
 * it, or its node was not offered) is ranked but says nothing.
 */
#define WHY_LOOK_MAX 256
#define WHY_RANK_MAX 8

/* What the walk of a failed query found for the reason: the refusals
 * counted by reason (the first of each kept), the units ranked and the
 * available ones. */
typedef struct {
	int count[COSCHED_REJECT_COUNT];
	cosched_candidate_t first[COSCHED_REJECT_COUNT];
	int ranked, refused;
	size_t available;
	rank_params_t rp;
} why_found_t;

/* Rank unit u (read into sock) for the job; a refusal is counted, the
 * first of each reason kept.  A unit that accepts says nothing. */
static void why_rank(const cosched_place_t *p, size_t u,
		     const cosched_socket_t *sock,
		     const cosched_place_job_t *job, why_found_t *w)
{
	cosched_candidate_t c;

	memset(&c, 0, sizeof(c));
	w->ranked++;
	if (sock_accepts(p, u, sock, &job->gj, &c, &w->rp) ||
	    c.reject <= 0 || c.reject >= COSCHED_REJECT_COUNT)
		return;
	if (!w->count[c.reject]++)
		w->first[c.reject] = c;
	w->refused++;
}

/*
 * One walk over the units when no unit took the job, for what follows
 * from it: with explain, the ranking the reason reads (why_text); with
 * least, the lenient least-bad unit that has the cores, by the job's
 * predicted slowdown there (the table of "Effects of co-scheduling
 * applications on multicore architectures", NTUA thesis, 2014), then the
 * lower MPKI sum, then the lower index (returned; -1 when none has them).
 * Each available unit is read once for both: a job lenient mode places
 * asked for both, and reading the units twice was a fifth of the two.
 */
static long failed_walk(const cosched_place_t *p,
			const cosched_place_job_t *job, const bool *allowed,
			bool explain, bool least, why_found_t *w)
{
	long best = -1;
	double best_sd = INFINITY, best_load = INFINITY;
	seq_memo_t memo = { .n = 0, .next = 0 };
	size_t full[WHY_RANK_MAX], nfull = 0;
	int threads = job->gj.threads;

	memset(w->count, 0, sizeof(w->count));
	w->ranked = w->refused = 0;
	w->available = 0;
	w->rp.capacity = 0;	/* the rest when a unit is ranked */
	for (size_t u = 0; u < p->nunits; u++) {
		cosched_socket_t sock;
		bool rank, take;
		int free_cores;

		if (!cosched_occupancy_available(p->occ, u))
			continue;
		w->available++;
		/* Past the budget, counted, not ranked. */
		rank = explain && w->available <= WHY_LOOK_MAX &&
		       w->refused < WHY_RANK_MAX;
		take = least && node_allowed_at(allowed, p->unit_node[u]);
		if ((!rank && !take) ||
		    cosched_occupancy_socket(p->occ, u, &sock))
			continue;
		/* An available unit's free cores are its capacity less the
		 * cores used (cosched_occupancy_free_cores). */
		free_cores = sock.capacity - sock.used;
		if (take && free_cores >= threads) {
			double sd, load = 0;

			for (int j = 0; j < sock.noccupants; j++)
				load += sock.occupants[j].mpki;
			sd = memo_slowdown(p, &memo, &sock, job->gj.job_id,
					   &job->cls);
			if (best < 0 || sd < best_sd ||
			    (sd == best_sd && load < best_load)) {
				best = (long) u;
				best_sd = sd;
				best_load = load;
			}
		}
		if (!rank)
			continue;
		if (free_cores < threads) {
			if (nfull < WHY_RANK_MAX)
				full[nfull++] = u;
			continue;
		}
		why_rank(p, u, &sock, job, w);
	}
	/* Fewer units with the cores refused it than the budget: the full
	 * ones say why too. */
	for (size_t k = 0; k < nfull && w->refused < WHY_RANK_MAX; k++) {
		cosched_socket_t sock;

		if (cosched_occupancy_socket(p->occ, full[k], &sock))
			w->ranked++;	/* ranked, said nothing */
		else
			why_rank(p, full[k], &sock, job, w);
	}
	return best;
}

/* The reason no unit accepts the job, from the walk's ranking. */
static void why_text(const cosched_place_t *p, const cosched_place_job_t *job,
		     const why_found_t *w, char *buf, size_t len)
{
	int best = COSCHED_REJECT_NO_FREE_CORES;
	const char *mode = p->conf.strict ? "strict" : "lenient";
	char cbuf[160];
	size_t at;

	for (int r = COSCHED_REJECT_FORBIDDEN_PAIR; r < COSCHED_REJECT_NO_SOCKET;
	     r++)
		if (w->count[r]) {
			best = r;
			break;
		}
	if (!w->count[best])
		for (int r = 1; r < COSCHED_REJECT_COUNT; r++)
			if (w->count[r]) {
				best = r;
				break;
			}
	if (!w->count[best]) {
		snprintf(buf, len, "%s %s: no available %s", mode,
			 cosched_policy_name(p->conf.policy), cosched_place_unit_word(p));
		return;
	}
	/* "%s %s: no %s accepts this %s job (%s on %d%s; first: %s)", put
	 * together piece by piece: printf's cost, for every job lenient mode
	 * places, was a third of the query's. */
	cosched_candidate_format(&w->first[best], cbuf, sizeof(cbuf));
	at = cosched_text_put(buf, len, 0, p->why_head);
	at = cosched_text_put(buf, len, at, cosched_category_name(job->gj.category));
	at = cosched_text_put(buf, len, at, " job (");
	at = cosched_text_put(buf, len, at, cosched_reject_name(best));
	at = cosched_text_put(buf, len, at, " on ");
	at = cosched_text_put_int(buf, len, at, w->count[best]);
	if ((size_t) w->ranked < w->available) {
		at = cosched_text_put(buf, len, at, " of ");
		at = cosched_text_put_int(buf, len, at, w->ranked);
		at = cosched_text_put(buf, len, at, " ranked");
	}
	at = cosched_text_put(buf, len, at, "; first: ");
	at = cosched_text_put(buf, len, at, cbuf);
	cosched_text_put(buf, len, at, ")");
}


static int by_end(const void *a, const void *b)
{
	const cosched_place_ending_t *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

/*
 * Will run (backfill): no unit accepts the job now.  The running jobs
 * leave a copy of the state in the order they end, until some unit
 * accepts the job; the allocator is then asked when the cores there are
 * free.  The job cannot start before the last job removed ends.
 */
static int will_run_future(const cosched_place_t *p,
			   const cosched_place_job_t *job, const bool *allowed,
			   cosched_place_ending_t *ends, size_t nends,
			   cosched_place_try_fn try, void *ctx,
			   cosched_place_result_t *res)
{
	cosched_place_t *copy;
	int rc = -1;

	if (!nends)
		return -1;
	copy = cosched_place_copy(p, NULL);
	if (!copy)
		return -1;
	qsort(ends, nends, sizeof(*ends), by_end);
	for (size_t k = 0; k < nends && k < COSCHED_PLACE_MAX_FUTURE; k++) {
		cosched_place_leave(copy, ends[k].job_id, NULL);
		if (k + 1 < nends && ends[k + 1].end == ends[k].end)
			continue;	/* they end together */
		rc = place_set(copy, job, allowed, try, ctx);
		if (rc == 0) {
			res->start_after = ends[k].end;
			res->ended = (int) k + 1;
			res->waited_for = ends[k].job_id;
			break;
		}
	}
	cosched_place_free(copy);
	return rc;
}

int cosched_place_job(cosched_place_t *p, const cosched_place_job_t *asked,
		      const bool *node_allowed, cosched_place_mode_t mode,
		      cosched_place_ending_t *ends, size_t nends,
		      cosched_place_try_fn try, void *ctx,
		      cosched_place_result_t *res)
{
	/* min_slowdown's bound holds jobs back in strict mode only: lenient
	 * placement takes the cheapest unit whatever it predicts. */
	cosched_place_job_t bounded = *asked;
	const cosched_place_job_t *job = &bounded;
	why_found_t found;
	long least_bad = -1;
	bool explain, least;

	bounded.gj.max_slowdown =
		p->conf.policy == COSCHED_POLICY_MIN_SLOWDOWN && p->conf.strict ?
		p->conf.max_slowdown : 0;
	/* Field by field, not memset: why[] is most of the struct, and a
	 * query runs for every queued job of every scheduling pass. */
	res->rc = 0;
	res->unit = -1;
	res->threads = 0;
	res->lenient = false;
	res->packed = false;
	res->least_bad = -1;
	res->start_after = 0;
	res->ended = 0;
	res->waited_for = 0;
	res->why[0] = '\0';
	if (mode == COSCHED_PLACE_TEST_ONLY) {
		res->rc = test_only(p, job, node_allowed, try, ctx);
		return res->rc;
	}
	if (job->kind == COSCHED_PLACE_SINGLE)
		res->rc = place_single(p, job, node_allowed, try, ctx, res);
	else
		res->rc = place_set(p, job, node_allowed, try, ctx);
	if (res->rc && mode == COSCHED_PLACE_WILL_RUN)
		res->rc = will_run_future(p, job, node_allowed, ends, nends,
					  try, ctx, res);
	if (!res->rc)
		return 0;
	/* Lenient: a single job takes the least-bad unit with the cores;
	 * anything else (or when the allocator refuses that unit) goes where
	 * the allocator chooses. */
	explain = !res->why[0] && p->conf.explain;
	least = !p->conf.strict && job->kind == COSCHED_PLACE_SINGLE;
	if (explain || least)
		least_bad = failed_walk(p, job, node_allowed, explain, least,
					&found);
	if (explain)
		why_text(p, job, &found, res->why, sizeof(res->why));
	if (p->conf.strict)
		return res->rc;
	res->lenient = true;
	if (least)
		res->least_bad = least_bad;
	res->rc = -1;
	if (res->least_bad >= 0) {
		size_t u = (size_t) res->least_bad;
		res->rc = try(ctx, &u, 1);
		if (res->rc)
			res->least_bad = -1;
	}
	if (res->rc)
		res->rc = try(ctx, NULL, 0);
	return res->rc;
}
