/*
 * cosched_gang.c - seed 002's five gang policies (seed 002 "The five
 * schedulers"), batch and incremental, and the socket index that makes
 * the incremental form near-linear over many jobs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_gang.h"
#include "cosched_util.h"

/* Category bit for COSCHED_CAT_UNKNOWN in occupancy masks. */
#define CAT_SLOTS (COSCHED_CAT_COUNT + 1)
#define MASK_COUNT (1u << CAT_SLOTS)
#define NONE ((size_t)-1)

/* ------------------------------------------------------------------ */
/* Parameters and jobs                                                 */

void cosched_gang_params_init(cosched_gang_params_t *p, int capacity)
{
	memset(p, 0, sizeof(*p));
	p->capacity = capacity;
	p->max_apps = 0;
	/* Seed 002 "The five schedulers", Miss-Rate Bound: a = 1/2, T = 12.0. */
	p->mrb_weight = COSCHED_CONF_DEFAULT_MRB_WEIGHT;
	p->mrb_threshold = COSCHED_CONF_DEFAULT_MRB_THRESHOLD;
	p->seed = 1;
	p->pref = NULL;
}

int cosched_gang_params_check(const cosched_gang_params_t *p,
			      cosched_error_t *err)
{
	if (!p)
		return cosched_error_set(err, "params: NULL");
	if (p->capacity < 1)
		return cosched_error_set(err,
			"capacity: must be >= 1 core, got %d", p->capacity);
	if (p->capacity > COSCHED_GANG_MAX_CAPACITY)
		return cosched_error_set(err,
			"capacity: must be <= %d cores, got %d",
			COSCHED_GANG_MAX_CAPACITY, p->capacity);
	if (p->max_apps < 0)
		return cosched_error_set(err,
			"max_apps: must be >= 0 (0 = policy default), got %d",
			p->max_apps);
	/* Every application holds at least one core. */
	if (p->max_apps > p->capacity)
		return cosched_error_set(err,
			"max_apps: must be <= capacity = %d (every application holds a core), got %d",
			p->capacity, p->max_apps);
	/* The same range as cosched.conf's MissRateBoundWeight: a = 0 would
	 * never let a sample in. */
	if (!(p->mrb_weight > 0 && p->mrb_weight <= 1))
		return cosched_error_set(err,
			"mrb_weight (EWMA a): must be in (0, 1], got %g",
			p->mrb_weight);
	if (!isfinite(p->mrb_threshold) || p->mrb_threshold <= 0)
		return cosched_error_set(err,
			"mrb_threshold (T): must be > 0, got %g",
			p->mrb_threshold);
	return 0;
}

int cosched_gang_max_apps(cosched_policy_t policy,
			  const cosched_gang_params_t *p)
{
	switch (policy) {
	case COSCHED_POLICY_GANG:
		return 1;	/* one application per gang */
	case COSCHED_POLICY_MISS_RATE_BALANCE:
	case COSCHED_POLICY_APP_AWARE:
		/* Seed 002: "A gang holds at most 2 applications" (Miss-Rate
		 * Balance); "in practice a gang holds at most 2" (Application-
		 * Aware). */
		return p->max_apps ? p->max_apps : 2;
	default:
		return p->max_apps;	/* 0 = unlimited */
	}
}

static int policy_check(cosched_policy_t policy, cosched_error_t *err)
{
	if ((int)policy < 0 || policy >= COSCHED_POLICY_COUNT)
		return cosched_error_set(err, "policy: unknown policy %d",
					 (int)policy);
	return 0;
}

static int job_min(const cosched_gang_job_t *j)
{
	return j->min_threads > 0 ? j->min_threads : j->threads;
}

static int job_max(const cosched_gang_job_t *j)
{
	return j->max_threads > 0 ? j->max_threads : j->threads;
}

int cosched_gang_job_check(const char *field, const cosched_gang_job_t *job,
			   int capacity, cosched_error_t *err)
{
	if (!field)
		field = "job";
	if (!job)
		return cosched_error_set(err, "%s: NULL", field);
	if (job->threads < 1)
		return cosched_error_set(err,
			"%s.threads: must be >= 1, got %d", field, job->threads);
	if (job->threads > capacity)
		return cosched_error_set(err,
			"%s.threads: %d exceeds the capacity of %d cores",
			field, job->threads, capacity);
	if (job->min_threads < 0 || job->min_threads > job->threads)
		return cosched_error_set(err,
			"%s.min_threads: must be in [0, threads = %d], got %d",
			field, job->threads, job->min_threads);
	if (job->max_threads != 0 && job->max_threads < job->threads)
		return cosched_error_set(err,
			"%s.max_threads: must be 0 or >= threads = %d, got %d",
			field, job->threads, job->max_threads);
	if (!isfinite(job->mpki) || job->mpki < 0)
		return cosched_error_set(err,
			"%s.mpki: must be a finite number >= 0, got %g", field,
			job->mpki);
	if ((int)job->category < 0 || job->category > COSCHED_CAT_UNKNOWN)
		return cosched_error_set(err,
			"%s.category: invalid value %d", field,
			(int)job->category);
	if (job->freq_khz < 0)
		return cosched_error_set(err,
			"%s.freq_khz: must be >= 0, got %ld", field,
			job->freq_khz);
	return 0;
}

static int jobs_check(const cosched_gang_job_t *jobs, size_t n, int capacity,
		      cosched_error_t *err)
{
	char field[48];

	if (n > 0 && !jobs)
		return cosched_error_set(err, "jobs: NULL with %zu jobs", n);
	for (size_t i = 0; i < n; i++) {
		snprintf(field, sizeof(field), "jobs[%zu]", i);
		if (cosched_gang_job_check(field, &jobs[i], capacity, err) < 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Scoring one socket for one job: shared by the ranking and the index */

typedef struct {
	cosched_policy_t policy;
	int max_apps;		/* 0 = unlimited */
	double threshold;
	cosched_pref_table_t pref;
} score_ctx_t;

/* What a socket looks like to the policies. */
typedef struct {
	int capacity;
	int used;
	int napps;
	unsigned mask;		/* categories present, bit CAT_UNKNOWN too */
	double load;		/* MPI sum (MPI policies only) */
} socket_agg_t;

/*
 * A category's slot in the occupancy masks.  Occupants given to the ranking
 * and jobs given to the index are not validated like arriving jobs, so a
 * value out of range (negative, or past UNKNOWN) counts as unknown, which
 * Application-Aware never pairs with anything.
 */
static unsigned cat_slot(cosched_category_t c)
{
	int v = (int)c;
	return v < 0 || v > COSCHED_CAT_UNKNOWN ? COSCHED_CAT_UNKNOWN :
						   (unsigned)v;
}

static bool policy_uses_load(cosched_policy_t p)
{
	return p == COSCHED_POLICY_MISS_RATE_BALANCE ||
	       p == COSCHED_POLICY_MISS_RATE_BOUND;
}

static void score_ctx_init(score_ctx_t *c, cosched_policy_t policy,
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

static int cores_needed(cosched_policy_t policy, const cosched_gang_job_t *j)
{
	/* Greedy Thread admits a program at its minimum core count (seed 002,
	 * Greedy Thread step 2); the others need the requested threads. */
	return policy == COSCHED_POLICY_GREEDY_THREAD ? job_min(j) : j->threads;
}

/*
 * Fill c for job on a socket.  The scales (cosched-policies(7)):
 *   GANG: 0 (only empty sockets are accepted).
 *   Greedy Thread: threads given / threads requested, in (0, 1]
 *     (contention-blind bin packing: full requests first, then best fit).
 *   Miss-Rate Balance: empty 0; else 1 + |MPKI(job) - MPI(gang)| (pair high
 *     with low, seed 002 "Miss-Rate Balance" seen from either side).
 *   Miss-Rate Bound: empty 0; else 1 + (T - combined) / T, accepted only
 *     when combined <= T ("fits", seed 002 "Miss-Rate Bound").
 *   Application-Aware: empty 0; else 1 + 1 / (1 + cost), cost = sum over
 *     the categories present of pref[job][c] + pref[c][job] (seed 002
 *     preference table: lower is preferred); any "-" pair is refused.
 */
static void score_socket(const score_ctx_t *ctx, const cosched_gang_job_t *job,
			 const socket_agg_t *s, size_t socket,
			 cosched_candidate_t *c)
{
	int free_cores = s->capacity - s->used;
	int need = cores_needed(ctx->policy, job);
	unsigned jc = cat_slot(job->category);

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
	c->mpi_combined = s->load + job->mpki;
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
		for (unsigned cat = 0; cat < CAT_SLOTS; cat++) {
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
		} else if (c->mpi_combined > ctx->threshold) {
			c->reject = COSCHED_REJECT_MPI_BOUND;
			return;
		} else {
			c->score = 1.0 + (ctx->threshold - c->mpi_combined) /
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

/* Rank order: score desc, leftover asc, load asc, socket asc. */
static int cand_better(const cosched_candidate_t *a,
		       const cosched_candidate_t *b)
{
	if (a->score != b->score)
		return a->score > b->score;
	if (a->leftover != b->leftover)
		return a->leftover < b->leftover;
	if (a->load != b->load)
		return a->load < b->load;
	return a->socket < b->socket;
}

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
	return cand_better(a, b) ? -1 : 1;
}

int cosched_gang_rank(cosched_policy_t policy,
		      const cosched_gang_params_t *params,
		      const cosched_socket_t *sockets, size_t nsockets,
		      const cosched_gang_job_t *job, cosched_candidate_t *out,
		      size_t *naccepted, cosched_error_t *err)
{
	score_ctx_t ctx;
	size_t acc = 0;

	if (policy_check(policy, err) < 0 ||
	    cosched_gang_params_check(params, err) < 0 ||
	    cosched_gang_job_check("job", job, params->capacity, err) < 0)
		return -1;
	if (nsockets > 0 && (!sockets || !out))
		return cosched_error_set(err, "sockets: NULL with %zu sockets",
					 nsockets);
	score_ctx_init(&ctx, policy, params);
	for (size_t i = 0; i < nsockets; i++) {
		const cosched_socket_t *s = &sockets[i];
		socket_agg_t agg = { 0 };

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
		for (int k = 0; k < s->noccupants; k++) {
			const cosched_gang_job_t *o = &s->occupants[k];
			unsigned cat = cat_slot(o->category);
			agg.mask |= 1u << cat;
			if (policy_uses_load(policy))
				agg.load += o->mpki;
		}
		score_socket(&ctx, job, &agg, i, &out[i]);
		if (out[i].reject == COSCHED_REJECT_NONE)
			acc++;
	}
	qsort(out, nsockets, sizeof(*out), cand_cmp);
	if (naccepted)
		*naccepted = acc;
	return 0;
}

const char *cosched_reject_name(cosched_reject_t r)
{
	switch (r) {
	case COSCHED_REJECT_NONE:
		return "accepted";
	case COSCHED_REJECT_NO_FREE_CORES:
		return "no free cores";
	case COSCHED_REJECT_GANG_FULL:
		return "gang full";
	case COSCHED_REJECT_TOO_FEW_CORES:
		return "too few free cores";
	case COSCHED_REJECT_FORBIDDEN_PAIR:
		return "forbidden pair";
	case COSCHED_REJECT_MPI_BOUND:
		return "MPI bound";
	case COSCHED_REJECT_NO_SOCKET:
		return "no acceptable socket";
	case COSCHED_REJECT_INVALID_QUERY:
		return "invalid query";
	}
	return "unknown";
}

char *cosched_candidate_format(const cosched_candidate_t *c, char *buf,
			       size_t len)
{
	if (!buf || len == 0)
		return buf;
	switch (c->reject) {
	case COSCHED_REJECT_NONE:
		snprintf(buf, len, "socket %zu: accepted, score %.3f, %d threads, %d cores left",
			 c->socket, c->score, c->threads, c->leftover);
		break;
	case COSCHED_REJECT_NO_FREE_CORES:
		snprintf(buf, len, "socket %zu: no free cores", c->socket);
		break;
	case COSCHED_REJECT_GANG_FULL:
		snprintf(buf, len, "socket %zu: gang full (%d of %d applications)",
			 c->socket, c->napps, c->max_apps);
		break;
	case COSCHED_REJECT_TOO_FEW_CORES:
		snprintf(buf, len, "socket %zu: needs %d cores, %d free",
			 c->socket, c->need, c->free_cores);
		break;
	case COSCHED_REJECT_FORBIDDEN_PAIR:
		snprintf(buf, len, "socket %zu: forbidden pair %s+%s", c->socket,
			 cosched_category_name(c->cat_job),
			 cosched_category_name(c->cat_other));
		break;
	case COSCHED_REJECT_MPI_BOUND:
		snprintf(buf, len, "socket %zu: combined MPI %.2f > T %.2f",
			 c->socket, c->mpi_combined, c->threshold);
		break;
	case COSCHED_REJECT_NO_SOCKET:
		snprintf(buf, len, "no acceptable socket for %d cores",
			 c->need);
		break;
	case COSCHED_REJECT_INVALID_QUERY:
		snprintf(buf, len, "invalid query (see the error message)");
		break;
	}
	return buf;
}

/* ------------------------------------------------------------------ */
/* Socket index.
 *
 * A socket's score for a job depends only on its free cores, whether it is
 * empty, its categories present (Application-Aware only) and its MPI load
 * (Miss-Rate policies only); how many applications it holds matters only
 * for "gang full", and full sockets are kept out of the index.  So sockets
 * are kept in buckets by (free cores, empty or occupied, category mask),
 * where every socket of a bucket scores alike except by load: each bucket is
 * an indexed binary heap by (load, socket), plus a max-heap by load for
 * Miss-Rate Balance (its score is extreme at either end).  A query reads
 * one or two heap tops per non-empty bucket, found through bitmaps: one
 * 64-bit word of non-empty buckets per free-core count and a bitmap of the
 * free-core counts that have any.                                       */

typedef struct {
	size_t *v;
	size_t n, cap;
} heap_t;

#define LEVELS 2		/* 0 = empty socket, 1 = occupied, not full */

struct cosched_socket_index {
	score_ctx_t ctx;
	size_t nsockets;
	int maxcap;
	unsigned nmasks;	/* MASK_COUNT (Application-Aware) or 1 */
	bool with_max;
	int *cap, *used, *napps;
	unsigned *catcount;	/* CAT_SLOTS per socket */
	double *load;
	long *bucket;		/* -1 = in no bucket (never acceptable) */
	size_t *pos_min, *pos_max;
	size_t nbuckets;
	heap_t *minh, *maxh;
	/* Non-empty buckets: bit (level x nmasks + mask) of fbits[free
	 * cores] (LEVELS x MASK_COUNT = 64 bits), and bit f of fany when
	 * fbits[f] != 0. */
	uint64_t *fbits;
	uint64_t *fany;
	size_t nfwords;
};

static bool key_less(const cosched_socket_index_t *x, size_t a, size_t b,
		     bool maxheap)
{
	if (x->load[a] != x->load[b])
		return maxheap ? x->load[a] > x->load[b] : x->load[a] < x->load[b];
	return a < b;
}

static void heap_set(heap_t *h, size_t *pos, size_t i, size_t s)
{
	h->v[i] = s;
	pos[s] = i;
}

static void heap_up(cosched_socket_index_t *x, heap_t *h, size_t *pos,
		    size_t i, bool maxheap)
{
	size_t s = h->v[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!key_less(x, s, h->v[p], maxheap))
			break;
		heap_set(h, pos, i, h->v[p]);
		i = p;
	}
	heap_set(h, pos, i, s);
}

static void heap_down(cosched_socket_index_t *x, heap_t *h, size_t *pos,
		      size_t i, bool maxheap)
{
	size_t s = h->v[i];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = l;
		if (l >= h->n)
			break;
		if (r < h->n && key_less(x, h->v[r], h->v[l], maxheap))
			m = r;
		if (!key_less(x, h->v[m], s, maxheap))
			break;
		heap_set(h, pos, i, h->v[m]);
		i = m;
	}
	heap_set(h, pos, i, s);
}

static int heap_reserve(heap_t *h, size_t first)
{
	if (h->n == h->cap) {
		size_t nc = h->cap ? 2 * h->cap : first;
		size_t *nv = realloc(h->v, nc * sizeof(*nv));
		if (!nv)
			return -1;
		h->v = nv;
		h->cap = nc;
	}
	return 0;
}

static int heap_push(cosched_socket_index_t *x, heap_t *h, size_t *pos,
		     size_t s, bool maxheap)
{
	if (heap_reserve(h, 8) < 0)
		return -1;
	h->v[h->n++] = s;
	heap_up(x, h, pos, h->n - 1, maxheap);
	return 0;
}

static void heap_del(cosched_socket_index_t *x, heap_t *h, size_t *pos,
		     size_t s, bool maxheap)
{
	size_t i = pos[s], last = h->v[--h->n];
	if (i == h->n)
		return;
	heap_set(h, pos, i, last);
	heap_up(x, h, pos, i, maxheap);
	heap_down(x, h, pos, pos[last], maxheap);
}

static unsigned sock_mask(const cosched_socket_index_t *x, size_t s)
{
	unsigned m = 0;
	for (unsigned c = 0; c < CAT_SLOTS; c++)
		if (x->catcount[s * CAT_SLOTS + c])
			m |= 1u << c;
	return m;
}

/* The bucket a socket belongs in, or -1 when no job can be accepted. */
static long sock_bucket(const cosched_socket_index_t *x, size_t s)
{
	int free_cores = x->cap[s] - x->used[s];
	int level = x->napps[s] > 0;

	if (free_cores <= 0)
		return -1;
	if (x->ctx.max_apps > 0 && x->napps[s] >= x->ctx.max_apps)
		return -1;
	return ((long)free_cores * LEVELS + level) * (long)x->nmasks +
	       (x->nmasks > 1 ? (long)sock_mask(x, s) : 0);
}

/* Bucket b became empty (on = false) or non-empty (on = true). */
static void bucket_mark(cosched_socket_index_t *x, long b, bool on)
{
	size_t per_f = (size_t)LEVELS * x->nmasks;
	size_t f = (size_t)b / per_f;
	uint64_t bit = 1ull << ((size_t)b % per_f);

	if (on) {
		x->fbits[f] |= bit;
		x->fany[f / 64] |= 1ull << (f % 64);
	} else {
		x->fbits[f] &= ~bit;
		if (!x->fbits[f])
			x->fany[f / 64] &= ~(1ull << (f % 64));
	}
}

static void sock_detach(cosched_socket_index_t *x, size_t s)
{
	long b = x->bucket[s];
	if (b < 0)
		return;
	heap_del(x, &x->minh[b], x->pos_min, s, false);
	if (x->with_max)
		heap_del(x, &x->maxh[b], x->pos_max, s, true);
	if (x->minh[b].n == 0)
		bucket_mark(x, b, false);
	x->bucket[s] = -1;
}

static int sock_attach(cosched_socket_index_t *x, size_t s)
{
	long b = sock_bucket(x, s);
	x->bucket[s] = b;
	if (b < 0)
		return 0;
	if (heap_push(x, &x->minh[b], x->pos_min, s, false) < 0)
		goto fail;
	if (x->with_max && heap_push(x, &x->maxh[b], x->pos_max, s, true) < 0) {
		heap_del(x, &x->minh[b], x->pos_min, s, false);
		goto fail;
	}
	if (x->minh[b].n == 1)
		bucket_mark(x, b, true);
	return 0;
fail:
	x->bucket[s] = -1;
	return -1;
}

cosched_socket_index_t *cosched_socket_index_create(
	cosched_policy_t policy, const cosched_gang_params_t *params,
	size_t nsockets, const int *capacity, cosched_error_t *err)
{
	cosched_socket_index_t *x;

	if (policy_check(policy, err) < 0 ||
	    cosched_gang_params_check(params, err) < 0)
		return NULL;
	x = calloc(1, sizeof(*x));
	if (!x) {
		cosched_error_set(err, "socket index: out of memory");
		return NULL;
	}
	score_ctx_init(&x->ctx, policy, params);
	x->nsockets = nsockets;
	x->maxcap = params->capacity;
	/* Only Application-Aware's score reads the categories present. */
	x->nmasks = policy == COSCHED_POLICY_APP_AWARE ? MASK_COUNT : 1;
	x->with_max = policy == COSCHED_POLICY_MISS_RATE_BALANCE;
	if (capacity)
		for (size_t i = 0; i < nsockets; i++) {
			if (capacity[i] < 1 ||
			    capacity[i] > COSCHED_GANG_MAX_CAPACITY) {
				cosched_error_set(err,
					"capacity[%zu]: must be in [1, %d], got %d", i,
					COSCHED_GANG_MAX_CAPACITY, capacity[i]);
				free(x);
				return NULL;
			}
			if (capacity[i] > x->maxcap)
				x->maxcap = capacity[i];
		}
	/* At most (1024 + 1) x 2 x 32 buckets: capacity is bounded. */
	x->nbuckets = (size_t)(x->maxcap + 1) * LEVELS * x->nmasks;
	x->nfwords = (size_t)x->maxcap / 64 + 1;
	x->cap = malloc(nsockets * sizeof(int) + 1);
	x->used = calloc(nsockets + 1, sizeof(int));
	x->napps = calloc(nsockets + 1, sizeof(int));
	x->catcount = calloc(nsockets * CAT_SLOTS + 1, sizeof(unsigned));
	x->load = calloc(nsockets + 1, sizeof(double));
	x->bucket = malloc(nsockets * sizeof(long) + 1);
	x->pos_min = malloc(nsockets * sizeof(size_t) + 1);
	x->pos_max = malloc(nsockets * sizeof(size_t) + 1);
	x->minh = calloc(x->nbuckets, sizeof(heap_t));
	x->maxh = x->with_max ? calloc(x->nbuckets, sizeof(heap_t)) : NULL;
	x->fbits = calloc((size_t)x->maxcap + 1, sizeof(uint64_t));
	x->fany = calloc(x->nfwords, sizeof(uint64_t));
	if (!x->cap || !x->used || !x->napps || !x->catcount || !x->load ||
	    !x->bucket || !x->pos_min || !x->pos_max || !x->minh ||
	    (x->with_max && !x->maxh) || !x->fbits || !x->fany)
		goto oom;
	for (size_t i = 0; i < nsockets; i++) {
		x->cap[i] = capacity ? capacity[i] : params->capacity;
		x->bucket[i] = -1;
	}
	/* Empty sockets of one capacity share a bucket: fill its heap in
	 * socket order (already a valid heap, all loads 0), no sifting. */
	for (size_t i = 0; i < nsockets; i++) {
		long b = sock_bucket(x, i);
		heap_t *h = &x->minh[b];
		if (heap_reserve(h, 64) < 0)
			goto oom;
		x->bucket[i] = b;
		x->pos_min[i] = h->n;
		h->v[h->n++] = i;
		if (h->n == 1)
			bucket_mark(x, b, true);
		if (x->with_max &&
		    heap_push(x, &x->maxh[b], x->pos_max, i, true) < 0)
			goto oom;
	}
	return x;
oom:
	cosched_socket_index_free(x);
	cosched_error_set(err, "socket index: out of memory for %zu sockets",
			  nsockets);
	return NULL;
}

void cosched_socket_index_free(cosched_socket_index_t *x)
{
	if (!x)
		return;
	if (x->minh)
		for (size_t b = 0; b < x->nbuckets; b++)
			free(x->minh[b].v);
	if (x->maxh)
		for (size_t b = 0; b < x->nbuckets; b++)
			free(x->maxh[b].v);
	free(x->minh);
	free(x->maxh);
	free(x->fbits);
	free(x->fany);
	free(x->cap);
	free(x->used);
	free(x->napps);
	free(x->catcount);
	free(x->load);
	free(x->bucket);
	free(x->pos_min);
	free(x->pos_max);
	free(x);
}

static void sock_agg(const cosched_socket_index_t *x, size_t s,
		     socket_agg_t *a)
{
	a->capacity = x->cap[s];
	a->used = x->used[s];
	a->napps = x->napps[s];
	a->mask = sock_mask(x, s);
	a->load = x->load[s];
}

/* The lowest set bit at or above `from` in a bitmap of nwords words, or
 * -1. */
static long next_bit(const uint64_t *w, size_t nwords, size_t from)
{
	size_t i = from / 64;
	uint64_t cur;

	if (i >= nwords)
		return -1;
	cur = w[i] & (~0ull << (from % 64));
	for (;;) {
		if (cur)
			return (long)(i * 64 + (size_t)__builtin_ctzll(cur));
		if (++i >= nwords)
			return -1;
		cur = w[i];
	}
}

int cosched_socket_index_check_query(const cosched_socket_index_t *x,
				     const cosched_gang_job_t *job,
				     unsigned flags, cosched_error_t *err)
{
	if (!x)
		return cosched_error_set(err, "index: NULL");
	if (flags & ~(unsigned)(COSCHED_INDEX_OCCUPIED_ONLY |
				COSCHED_INDEX_FIRST_FIT))
		return cosched_error_set(err, "flags: unknown flags 0x%x",
			flags & ~(unsigned)(COSCHED_INDEX_OCCUPIED_ONLY |
					    COSCHED_INDEX_FIRST_FIT));
	/* The heaps are ordered by (load, socket): for the Miss-Rate
	 * policies a bucket's top is its lowest load, not its lowest
	 * socket, so "lowest acceptable socket" cannot be read from it. */
	if ((flags & COSCHED_INDEX_FIRST_FIT) && policy_uses_load(x->ctx.policy))
		return cosched_error_set(err,
			"flags: COSCHED_INDEX_FIRST_FIT is not available for %s (its index is ordered by MPI load, not by socket)",
			cosched_policy_name(x->ctx.policy));
	return cosched_gang_job_check("job", job, x->maxcap, err);
}

long cosched_socket_index_best(cosched_socket_index_t *x,
			       const cosched_gang_job_t *job, unsigned flags,
			       cosched_candidate_t *best, cosched_error_t *err)
{
	cosched_candidate_t c, b;
	bool found = false;
	bool first_fit = flags & COSCHED_INDEX_FIRST_FIT;
	/* Greedy Thread scores 1 wherever the requested threads fit, and
	 * leftover cores grow with the free cores: once a score-1 socket is
	 * found, sockets with more free cores are worse. */
	bool stop_early = !first_fit &&
		x && x->ctx.policy == COSCHED_POLICY_GREEDY_THREAD;
	uint64_t skip = 0;
	int need;

	if (cosched_socket_index_check_query(x, job, flags, err) < 0) {
		if (best) {
			memset(best, 0, sizeof(*best));
			best->reject = COSCHED_REJECT_INVALID_QUERY;
		}
		return COSCHED_INDEX_INVALID;
	}
	need = cores_needed(x->ctx.policy, job);
	if (flags & COSCHED_INDEX_OCCUPIED_ONLY)
		skip = (1ull << x->nmasks) - 1;	/* level 0: empty sockets */
	for (long f = next_bit(x->fany, x->nfwords, (size_t)need); f >= 0;
	     f = next_bit(x->fany, x->nfwords, (size_t)f + 1)) {
		uint64_t bits = x->fbits[f] & ~skip;
		size_t base = (size_t)f * LEVELS * x->nmasks;

		if (stop_early && found && b.score >= 1.0 &&
		    f - job->threads > b.leftover)
			break;
		while (bits) {
			size_t bk = base + (size_t)__builtin_ctzll(bits);
			const heap_t *hs[2] = { &x->minh[bk],
				x->with_max ? &x->maxh[bk] : NULL };
			bits &= bits - 1;
			for (int k = 0; k < 2; k++) {
				socket_agg_t a;
				size_t s;
				if (!hs[k] || hs[k]->n == 0)
					continue;
				s = hs[k]->v[0];
				sock_agg(x, s, &a);
				score_socket(&x->ctx, job, &a, s, &c);
				if (c.reject != COSCHED_REJECT_NONE)
					continue;
				if (!found || (first_fit ? c.socket < b.socket :
							   cand_better(&c, &b))) {
					b = c;
					found = true;
				}
			}
		}
	}
	if (!found) {
		memset(&b, 0, sizeof(b));
		b.reject = COSCHED_REJECT_NO_SOCKET;
		b.need = need;
		b.cat_job = (cosched_category_t)cat_slot(job->category);
		if (best)
			*best = b;
		return COSCHED_INDEX_NONE;
	}
	if (best)
		*best = b;
	return (long)b.socket;
}

static int index_update(cosched_socket_index_t *x, size_t s,
			const cosched_gang_job_t *job, int threads, int sign,
			cosched_error_t *err)
{
	unsigned cat;

	if (s >= x->nsockets)
		return cosched_error_set(err,
			"socket: %zu out of range (%zu sockets)", s, x->nsockets);
	if (!job)
		return cosched_error_set(err, "job: NULL");
	if (threads < 0)
		return cosched_error_set(err, "threads: must be >= 0, got %d",
					 threads);
	cat = cat_slot(job->category);
	if (sign > 0 && x->used[s] + threads > x->cap[s])
		return cosched_error_set(err,
			"socket %zu: %d threads exceed its %d free cores", s,
			threads, x->cap[s] - x->used[s]);
	if (sign < 0 && (x->napps[s] == 0 || x->used[s] < threads ||
			 x->catcount[s * CAT_SLOTS + cat] == 0))
		return cosched_error_set(err,
			"socket %zu: job %u (%d threads, %s) is not there", s,
			job->job_id, threads, cosched_category_name(job->category));
	sock_detach(x, s);
	x->used[s] += sign * threads;
	x->napps[s] += sign;
	x->catcount[s * CAT_SLOTS + cat] += sign;
	if (policy_uses_load(x->ctx.policy)) {
		x->load[s] += sign * job->mpki;
		if (x->napps[s] == 0 || x->load[s] < 0)
			x->load[s] = 0;	/* no drift below an empty socket */
	}
	if (sock_attach(x, s) < 0)
		return cosched_error_set(err, "socket index: out of memory");
	return 0;
}

int cosched_socket_index_add(cosched_socket_index_t *x, size_t socket,
			     const cosched_gang_job_t *job, int threads,
			     cosched_error_t *err)
{
	return index_update(x, socket, job, threads, +1, err);
}

int cosched_socket_index_remove(cosched_socket_index_t *x, size_t socket,
				const cosched_gang_job_t *job, int threads,
				cosched_error_t *err)
{
	return index_update(x, socket, job, threads, -1, err);
}

void cosched_socket_index_set_load(cosched_socket_index_t *x, size_t s,
				   double load)
{
	if (s >= x->nsockets || !policy_uses_load(x->ctx.policy))
		return;
	sock_detach(x, s);
	x->load[s] = load;
	(void)sock_attach(x, s);	/* same bucket: its heaps have room */
}

int cosched_socket_index_free_cores(const cosched_socket_index_t *x,
				    size_t s)
{
	return s < x->nsockets ? x->cap[s] - x->used[s] : 0;
}

/* ------------------------------------------------------------------ */
/* Batch plans                                                         */

/* Records every join in order; the plan groups them by gang. */
typedef struct {
	size_t ngangs;
	size_t *gang;		/* per job */
	int *threads;		/* per job */
	size_t *order;		/* jobs in join order */
	size_t norder;
} builder_t;

static int builder_init(builder_t *b, size_t n)
{
	memset(b, 0, sizeof(*b));
	b->gang = malloc((n + 1) * sizeof(size_t));
	b->threads = malloc((n + 1) * sizeof(int));
	b->order = malloc((n + 1) * sizeof(size_t));
	return b->gang && b->threads && b->order ? 0 : -1;
}

static void builder_free(builder_t *b)
{
	free(b->gang);
	free(b->threads);
	free(b->order);
}

static void builder_join(builder_t *b, size_t job, size_t gang, int threads)
{
	b->gang[job] = gang;
	b->threads[job] = threads;
	b->order[b->norder++] = job;
	if (gang >= b->ngangs)
		b->ngangs = gang + 1;
}

static int builder_finish(builder_t *b, const cosched_gang_job_t *jobs,
			  cosched_gang_plan_t *plan)
{
	size_t *fill;

	plan->gangs = calloc(b->ngangs + 1, sizeof(*plan->gangs));
	plan->members = malloc((b->norder + 1) * sizeof(*plan->members));
	fill = calloc(b->ngangs + 1, sizeof(size_t));
	if (!plan->gangs || !plan->members || !fill) {
		free(fill);
		cosched_gang_plan_free(plan);
		return -1;
	}
	plan->ngangs = b->ngangs;
	plan->nmembers = b->norder;
	for (size_t k = 0; k < b->norder; k++) {
		cosched_gang_t *g = &plan->gangs[b->gang[b->order[k]]];
		g->count++;
		g->cores += b->threads[b->order[k]];
	}
	for (size_t g = 0, at = 0; g < b->ngangs; g++) {
		plan->gangs[g].first = at;
		at += plan->gangs[g].count;
	}
	for (size_t k = 0; k < b->norder; k++) {
		size_t j = b->order[k], g = b->gang[j];
		cosched_gang_member_t *m =
			&plan->members[plan->gangs[g].first + fill[g]++];
		m->job = j;
		m->threads = b->threads[j];
		m->freq_khz = jobs[j].freq_khz;
	}
	free(fill);
	return 0;
}

void cosched_gang_plan_free(cosched_gang_plan_t *plan)
{
	if (!plan)
		return;
	free(plan->gangs);
	free(plan->members);
	memset(plan, 0, sizeof(*plan));
}

/* Sort helpers: qsort on indices, the comparators reading the job array
 * through a thread-local pointer set just around the qsort call (qsort has
 * no context argument in C11; thread-local keeps the core reentrant). */
static _Thread_local const cosched_gang_job_t *sort_jobs;

/* Greedy Thread order: best-scaling first, which seed 002 ("Greedy Thread"
 * step 1) defines as "the one requesting the most threads": requested
 * threads, then the count it keeps scaling up to (a tie-break the seed does
 * not give), then job id. */
static int cmp_scaling(const void *pa, const void *pb)
{
	const cosched_gang_job_t *a = &sort_jobs[*(const size_t *)pa];
	const cosched_gang_job_t *b = &sort_jobs[*(const size_t *)pb];
	if (a->threads != b->threads)
		return a->threads > b->threads ? -1 : 1;
	if (job_max(a) != job_max(b))
		return job_max(a) > job_max(b) ? -1 : 1;
	if (a->job_id != b->job_id)
		return a->job_id < b->job_id ? -1 : 1;
	return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

/* Miss-Rate Balance order: MPKI descending, then job id. */
static int cmp_mpki_desc(const void *pa, const void *pb)
{
	const cosched_gang_job_t *a = &sort_jobs[*(const size_t *)pa];
	const cosched_gang_job_t *b = &sort_jobs[*(const size_t *)pb];
	if (a->mpki != b->mpki)
		return a->mpki > b->mpki ? -1 : 1;
	if (a->job_id != b->job_id)
		return a->job_id < b->job_id ? -1 : 1;
	return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

/* Job indices sorted with cmp. */
static size_t *sorted_indices(const cosched_gang_job_t *jobs, size_t n,
			      int (*cmp)(const void *, const void *))
{
	size_t *idx = malloc((n + 1) * sizeof(size_t));
	if (!idx)
		return NULL;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	sort_jobs = jobs;
	qsort(idx, n, sizeof(size_t), cmp);
	sort_jobs = NULL;
	return idx;
}

/*
 * Per core count t, the positions (into a sorted order) of the jobs that
 * need t cores, each list walked by a cursor that skips removed jobs.
 * This turns "the next job in order whose cores fit the idle cores" into
 * O(capacity) instead of a scan of all remaining jobs.
 */
typedef struct {
	size_t *pos;		/* all lists back to back */
	size_t *start, *end, *cur;	/* per t in 0..capacity */
} core_lists_t;

static void core_lists_free(core_lists_t *cl)
{
	free(cl->pos);
	free(cl->start);
	free(cl->end);
	free(cl->cur);
}

/* cores_of(order[p]) gives t; reverse = lists run from the last position. */
static int core_lists_build(core_lists_t *cl, const size_t *order, size_t n,
			    const int *cores, int capacity, bool reverse)
{
	memset(cl, 0, sizeof(*cl));
	cl->pos = malloc((n + 1) * sizeof(size_t));
	cl->start = calloc(capacity + 2, sizeof(size_t));
	cl->end = calloc(capacity + 2, sizeof(size_t));
	cl->cur = calloc(capacity + 2, sizeof(size_t));
	if (!cl->pos || !cl->start || !cl->end || !cl->cur) {
		core_lists_free(cl);
		return -1;
	}
	for (size_t p = 0; p < n; p++)
		cl->end[cores[order[p]]]++;
	for (int t = 0, at = 0; t <= capacity; t++) {
		size_t cnt = cl->end[t];
		cl->start[t] = cl->cur[t] = at;
		cl->end[t] = at;
		at += cnt;
	}
	for (size_t k = 0; k < n; k++) {
		size_t p = reverse ? n - 1 - k : k;
		cl->pos[cl->end[cores[order[p]]]++] = p;
	}
	return 0;
}

/* The first position of list t whose job is not removed, or NONE. */
static size_t core_lists_peek(core_lists_t *cl, int t, const size_t *order,
			      const bool *removed)
{
	while (cl->cur[t] < cl->end[t] && removed[order[cl->pos[cl->cur[t]]]])
		cl->cur[t]++;
	return cl->cur[t] < cl->end[t] ? cl->pos[cl->cur[t]] : NONE;
}

/* GANG: one application per gang, in input order (seed 002 "GANG"). */
static int plan_gang(const cosched_gang_job_t *jobs, size_t n, builder_t *b)
{
	for (size_t i = 0; i < n; i++)
		builder_join(b, i, i, jobs[i].threads);
	return 0;
}

/*
 * Greedy Thread and Miss-Rate Balance share one skeleton: jobs in a sorted
 * order; the first remaining job (the head) opens a gang; then the job
 * "nearest" in the order whose cores fit the idle cores joins, until none
 * fits or the gang holds max_apps.  They differ in the order, the cores a
 * job joins with, which end of the order is "nearest", and what happens to
 * idle cores when the gang closes.
 */
typedef struct {
	int (*order)(const void *, const void *);	/* head first */
	int (*cores)(const cosched_gang_job_t *);	/* cores it joins with */
	bool from_tail;		/* partner nearest the tail, else the head */
	/* Called when a gang closes with idle cores; may raise threads. */
	void (*close)(builder_t *b, const cosched_gang_job_t *jobs,
		      size_t head, int idle);
} pack_rule_t;

static int pack(const pack_rule_t *rule, int capacity, int max_apps,
		const cosched_gang_job_t *jobs, size_t n, builder_t *b)
{
	size_t *order = sorted_indices(jobs, n, rule->order);
	int *cores = malloc((n + 1) * sizeof(int));
	bool *removed = calloc(n + 1, sizeof(bool));
	core_lists_t cl;
	size_t head_pos = 0, gang = 0;
	int rc = -1;

	if (!order || !cores || !removed)
		goto out;
	for (size_t i = 0; i < n; i++)
		cores[i] = rule->cores(&jobs[i]);
	/* Per core count t, the remaining jobs needing t cores, nearest
	 * first: the first live entry of each list is its candidate. */
	if (core_lists_build(&cl, order, n, cores, capacity, rule->from_tail) < 0)
		goto out;
	for (;;) {
		size_t head;
		int idle, napps = 1;

		while (head_pos < n && removed[order[head_pos]])
			head_pos++;
		if (head_pos == n)
			break;
		head = order[head_pos];
		removed[head] = true;
		builder_join(b, head, gang, cores[head]);
		idle = capacity - cores[head];
		while (idle > 0 && (max_apps == 0 || napps < max_apps)) {
			/* The nearest fitting job over the lists t <= idle:
			 * lowest position from the head, highest from the
			 * tail. */
			size_t pick = NONE;
			for (int t = 1; t <= idle; t++) {
				size_t q = core_lists_peek(&cl, t, order, removed);
				if (q != NONE && (pick == NONE ||
						  (rule->from_tail ? q > pick : q < pick)))
					pick = q;
			}
			if (pick == NONE)
				break;
			removed[order[pick]] = true;
			builder_join(b, order[pick], gang, cores[order[pick]]);
			idle -= cores[order[pick]];
			napps++;
		}
		if (idle > 0 && rule->close)
			rule->close(b, jobs, head, idle);
		gang++;
	}
	rc = 0;
	core_lists_free(&cl);
out:
	free(order);
	free(cores);
	free(removed);
	return rc;
}

static int job_threads(const cosched_gang_job_t *j)
{
	return j->threads;
}

/* Greedy Thread step 3: idle cores go to the best-scaling program (the
 * head), up to the count where its performance stops improving. */
static void greedy_close(builder_t *b, const cosched_gang_job_t *jobs,
			 size_t head, int idle)
{
	int top = job_max(&jobs[head]);
	int t = b->threads[head] + idle;
	b->threads[head] = t < top ? t : top;
}

/* Greedy Thread (seed 002 "The five schedulers", Greedy Thread, after
 * Bhadauria & McKee): static, contention-blind bin packing.  Step 1: the
 * best-scaling remaining program opens a gang at its minimum core count;
 * step 2: add the next best-scaling program whose minimum core count fits
 * the idle cores, repeat; step 3: greedy_close. */
static const pack_rule_t greedy_rule = {
	.order = cmp_scaling,
	.cores = job_min,
	.from_tail = false,
	.close = greedy_close,
};

/* Miss-Rate Balance (seed 002 "The five schedulers", Miss-Rate Balance):
 * sort by MPKI descending; the head opens a gang; "for p from the tail
 * upward: if p.cores + g.cores <= 8: add p" -- the fitting program nearest
 * the tail; at most 2 per gang (max_apps). */
static const pack_rule_t mr_balance_rule = {
	.order = cmp_mpki_desc,
	.cores = job_threads,
	.from_tail = true,
	.close = NULL,
};

static int cmp_job_id(const void *pa, const void *pb)
{
	const cosched_gang_job_t *a = &sort_jobs[*(const size_t *)pa];
	const cosched_gang_job_t *b = &sort_jobs[*(const size_t *)pb];
	if (a->job_id != b->job_id)
		return a->job_id < b->job_id ? -1 : 1;
	return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

/* Greedy Application-Aware (seed 002 "The five schedulers", steps 1-5):
 * rand first (joining gangs that hold only rand), each mem alone, then cpu
 * and lim fill existing gangs first-fit (in gang creation order) or open
 * new ones; the "-" cells are never co-located.  Programs of unknown
 * category run alone, last. */
static int plan_app_aware(const cosched_gang_params_t *p,
			  const cosched_gang_job_t *jobs, size_t n,
			  builder_t *b, cosched_error_t *err)
{
	static const int steps[] = { COSCHED_CAT_RAND, COSCHED_CAT_MEM,
				     COSCHED_CAT_CPU, COSCHED_CAT_LIM,
				     COSCHED_CAT_UNKNOWN };
	size_t *order = sorted_indices(jobs, n, cmp_job_id);
	cosched_socket_index_t *x;
	size_t next_gang = 0;
	int rc = -1;

	if (!order)
		return cosched_error_set(err, "app_aware: out of memory");
	x = cosched_socket_index_create(COSCHED_POLICY_APP_AWARE, p, n, NULL,
					err);
	if (!x) {
		free(order);
		return -1;
	}
	/* Step 1: the category lists are the passes below, each in job-id
	 * order. */
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		for (size_t k = 0; k < n; k++) {
			const cosched_gang_job_t *j = &jobs[order[k]];
			unsigned cat = cat_slot(j->category);
			long g = -1;

			if ((int)cat != steps[s])
				continue;
			/* Step 3: each mem program gets a gang of its own;
			 * steps 2, 4, 5: join the first gang it fits. */
			if (cat != COSCHED_CAT_MEM && cat != COSCHED_CAT_UNKNOWN)
				g = cosched_socket_index_best(x, j,
					COSCHED_INDEX_OCCUPIED_ONLY |
					COSCHED_INDEX_FIRST_FIT, NULL, err);
			if (g == COSCHED_INDEX_INVALID)
				goto out;
			if (g < 0)
				g = (long)next_gang++;
			if (cosched_socket_index_add(x, (size_t)g, j, j->threads,
						     err) < 0)
				goto out;
			builder_join(b, order[k], (size_t)g, j->threads);
		}
	}
	rc = 0;
out:
	cosched_socket_index_free(x);
	free(order);
	return rc;
}

int cosched_gang_plan(cosched_policy_t policy,
		      const cosched_gang_params_t *params,
		      const cosched_gang_job_t *jobs, size_t njobs,
		      cosched_gang_plan_t *plan, cosched_error_t *err)
{
	builder_t b;
	int rc;

	if (!plan)
		return cosched_error_set(err, "plan: NULL");
	memset(plan, 0, sizeof(*plan));
	if (policy_check(policy, err) < 0 ||
	    cosched_gang_params_check(params, err) < 0 ||
	    jobs_check(jobs, njobs, params->capacity, err) < 0)
		return -1;
	if (policy == COSCHED_POLICY_MISS_RATE_BOUND) {
		const cosched_mrb_move_t *mv;
		size_t nmv;
		cosched_mrb_t *s = cosched_mrb_create(params, jobs, njobs, err);
		if (!s)
			return -1;
		rc = cosched_mrb_end_round(s, &mv, &nmv, err);
		if (rc == 0)
			rc = cosched_mrb_snapshot(s, plan, err);
		cosched_mrb_free(s);
		return rc;
	}
	if (builder_init(&b, njobs) < 0) {
		builder_free(&b);
		return cosched_error_set(err, "plan: out of memory for %zu jobs",
					 njobs);
	}
	switch (policy) {
	case COSCHED_POLICY_GANG:
		rc = plan_gang(jobs, njobs, &b);
		break;
	case COSCHED_POLICY_GREEDY_THREAD:
		rc = pack(&greedy_rule, params->capacity,
			  cosched_gang_max_apps(policy, params), jobs, njobs, &b);
		break;
	case COSCHED_POLICY_MISS_RATE_BALANCE:
		rc = pack(&mr_balance_rule, params->capacity,
			  cosched_gang_max_apps(policy, params), jobs, njobs, &b);
		break;
	default:
		rc = plan_app_aware(params, jobs, njobs, &b, err);
		if (rc < 0) {
			builder_free(&b);
			return -1;
		}
		break;
	}
	if (rc < 0 || builder_finish(&b, jobs, plan) < 0) {
		builder_free(&b);
		return cosched_error_set(err, "plan: out of memory for %zu jobs",
					 njobs);
	}
	builder_free(&b);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Miss-Rate Bound (seed 002 "The five schedulers", Miss-Rate Bound)    */

struct cosched_mrb {
	cosched_gang_params_t params;
	int max_apps;
	size_t njobs;
	cosched_gang_job_t *jobs;	/* copy; mpki = current smoothed MPI */
	int *gang_of;
	size_t *next, *prev;		/* member lists, NONE-terminated */
	size_t nslots;			/* = njobs: never more gangs than jobs */
	size_t *head, *tail;
	int *cores, *napps;
	double *mpi;			/* per gang: sum of members' MPI */
	unsigned *born;			/* round a gang was opened in */
	size_t *free_slots;
	size_t nfree;
	unsigned round;
	cosched_socket_index_t *idx;	/* gangs by free cores and MPI */
	cosched_mrb_move_t *moves;
	size_t nmoves, moves_cap;
	size_t *tmp;			/* one gang's members, sorted */
};

/* splitmix64: a small, well-mixed, seedable PRNG (deterministic start). */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void cosched_mrb_free(cosched_mrb_t *s)
{
	if (!s)
		return;
	cosched_socket_index_free(s->idx);
	free(s->jobs);
	free(s->gang_of);
	free(s->next);
	free(s->prev);
	free(s->head);
	free(s->tail);
	free(s->cores);
	free(s->napps);
	free(s->mpi);
	free(s->born);
	free(s->free_slots);
	free(s->moves);
	free(s->tmp);
	free(s);
}

static int mrb_join(cosched_mrb_t *s, size_t j, size_t g, cosched_error_t *err)
{
	if (cosched_socket_index_add(s->idx, g, &s->jobs[j], s->jobs[j].threads,
				     err) < 0)
		return -1;
	s->gang_of[j] = (int)g;
	s->next[j] = NONE;
	s->prev[j] = s->tail[g];
	if (s->tail[g] != NONE)
		s->next[s->tail[g]] = j;
	else
		s->head[g] = j;
	s->tail[g] = j;
	s->cores[g] += s->jobs[j].threads;
	s->napps[g]++;
	s->mpi[g] += s->jobs[j].mpki;
	return 0;
}

static int mrb_leave(cosched_mrb_t *s, size_t j, cosched_error_t *err)
{
	size_t g = (size_t)s->gang_of[j];

	if (cosched_socket_index_remove(s->idx, g, &s->jobs[j],
					s->jobs[j].threads, err) < 0)
		return -1;
	if (s->prev[j] != NONE)
		s->next[s->prev[j]] = s->next[j];
	else
		s->head[g] = s->next[j];
	if (s->next[j] != NONE)
		s->prev[s->next[j]] = s->prev[j];
	else
		s->tail[g] = s->prev[j];
	s->cores[g] -= s->jobs[j].threads;
	s->napps[g]--;
	s->mpi[g] -= s->jobs[j].mpki;
	if (s->napps[g] == 0) {
		s->mpi[g] = 0;
		s->free_slots[s->nfree++] = g;	/* gang removed */
	}
	s->gang_of[j] = -1;
	return 0;
}

static size_t mrb_new_slot(cosched_mrb_t *s)
{
	size_t g = s->free_slots[--s->nfree];
	s->born[g] = s->round;
	return g;
}

/* Shared by both starts: initial_gang NULL = seeded random gangs. */
static cosched_mrb_t *mrb_create(const cosched_gang_params_t *params,
				 const cosched_gang_job_t *jobs, size_t njobs,
				 const int *initial_gang, cosched_error_t *err)
{
	cosched_mrb_t *s;
	size_t *perm = NULL, g = 0;
	uint64_t rng;
	size_t n1 = njobs + 1;

	if (cosched_gang_params_check(params, err) < 0 ||
	    jobs_check(jobs, njobs, params->capacity, err) < 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		cosched_error_set(err, "miss_rate_bound: out of memory");
		return NULL;
	}
	s->params = *params;
	s->max_apps = cosched_gang_max_apps(COSCHED_POLICY_MISS_RATE_BOUND,
					    params);
	s->njobs = s->nslots = njobs;
	s->moves_cap = n1;
	s->jobs = malloc(n1 * sizeof(*s->jobs));
	s->gang_of = malloc(n1 * sizeof(int));
	s->next = malloc(n1 * sizeof(size_t));
	s->prev = malloc(n1 * sizeof(size_t));
	s->head = malloc(n1 * sizeof(size_t));
	s->tail = malloc(n1 * sizeof(size_t));
	s->cores = calloc(n1, sizeof(int));
	s->napps = calloc(n1, sizeof(int));
	s->mpi = calloc(n1, sizeof(double));
	s->born = calloc(n1, sizeof(unsigned));
	s->free_slots = malloc(n1 * sizeof(size_t));
	s->moves = malloc(n1 * sizeof(*s->moves));
	s->tmp = malloc(n1 * sizeof(size_t));
	perm = malloc(n1 * sizeof(size_t));
	if (!s->jobs || !s->gang_of || !s->next || !s->prev || !s->head ||
	    !s->tail || !s->cores || !s->napps || !s->mpi || !s->born ||
	    !s->free_slots || !s->moves || !s->tmp || !perm)
		goto oom;
	s->idx = cosched_socket_index_create(COSCHED_POLICY_MISS_RATE_BOUND,
					     params, njobs, NULL, err);
	if (!s->idx)
		goto fail;
	if (njobs)
		memcpy(s->jobs, jobs, njobs * sizeof(*jobs));
	for (size_t i = 0; i < njobs; i++) {
		s->head[i] = s->tail[i] = NONE;
		s->gang_of[i] = -1;
		perm[i] = i;
	}
	if (initial_gang) {
		for (size_t j = 0; j < njobs; j++) {
			int ig = initial_gang[j];
			if (ig < 0 || (size_t)ig >= njobs) {
				cosched_error_set(err,
					"initial_gang[%zu]: must be in [0, %zu), got %d",
					j, njobs, ig);
				goto fail;
			}
			if (s->cores[ig] + jobs[j].threads > params->capacity) {
				cosched_error_set(err,
					"initial_gang[%zu]: gang %d would hold %d cores, capacity %d",
					j, ig, s->cores[ig] + jobs[j].threads,
					params->capacity);
				goto fail;
			}
			if (s->max_apps > 0 && s->napps[ig] >= s->max_apps) {
				cosched_error_set(err,
					"initial_gang[%zu]: gang %d would hold %d applications, max_apps %d",
					j, ig, s->napps[ig] + 1, s->max_apps);
				goto fail;
			}
			if (mrb_join(s, j, (size_t)ig, err) < 0)
				goto fail;
		}
	} else {
		/* Start: random gangs (seed 002 "Miss-Rate Bound"), made
		 * deterministic by the seed: Fisher-Yates shuffle with
		 * splitmix64, then next fit into gangs of the capacity. */
		rng = params->seed;
		for (size_t i = njobs; i > 1; i--) {
			size_t k = (size_t)(splitmix64(&rng) % i);
			size_t t = perm[i - 1];
			perm[i - 1] = perm[k];
			perm[k] = t;
		}
		for (size_t k = 0; k < njobs; k++) {
			size_t j = perm[k];
			if (s->napps[g] > 0 &&
			    (s->cores[g] + jobs[j].threads > params->capacity ||
			     (s->max_apps > 0 && s->napps[g] >= s->max_apps)))
				g++;
			if (mrb_join(s, j, g, err) < 0)
				goto fail;
		}
	}
	/* Unused slots, lowest on top of the stack. */
	for (size_t k = njobs; k > 0; k--)
		if (s->napps[k - 1] == 0)
			s->free_slots[s->nfree++] = k - 1;
	free(perm);
	return s;
oom:
	cosched_error_set(err, "miss_rate_bound: out of memory for %zu jobs",
			  njobs);
fail:
	free(perm);
	cosched_mrb_free(s);
	return NULL;
}

cosched_mrb_t *cosched_mrb_create(const cosched_gang_params_t *params,
				  const cosched_gang_job_t *jobs, size_t njobs,
				  cosched_error_t *err)
{
	return mrb_create(params, jobs, njobs, NULL, err);
}

cosched_mrb_t *cosched_mrb_create_from(const cosched_gang_params_t *params,
				       const cosched_gang_job_t *jobs,
				       size_t njobs, const int *initial_gang,
				       cosched_error_t *err)
{
	if (!initial_gang) {
		cosched_error_set(err, "initial_gang: NULL");
		return NULL;
	}
	return mrb_create(params, jobs, njobs, initial_gang, err);
}

int cosched_mrb_feed(cosched_mrb_t *s, size_t job, double mpi_sample,
		     cosched_error_t *err)
{
	if (job >= s->njobs)
		return cosched_error_set(err,
			"job: index %zu out of range (%zu jobs)", job, s->njobs);
	if (!isfinite(mpi_sample) || mpi_sample < 0)
		return cosched_error_set(err,
			"mpi_sample: must be a finite number >= 0, got %g",
			mpi_sample);
	/* Smoothed MPI = a x current + (1 - a) x previous, kept per
	 * application: the gang's MPI is their sum, which equals the thesis's
	 * gang-level EWMA while membership is unchanged and stays defined
	 * when applications move. */
	s->jobs[job].mpki = cosched_ewma(s->jobs[job].mpki, mpi_sample,
					 s->params.mrb_weight);
	return 0;
}

static int mrb_move(cosched_mrb_t *s, size_t j, size_t to,
		    cosched_mrb_move_kind_t kind, cosched_error_t *err)
{
	cosched_mrb_move_t *m;
	int from = s->gang_of[j];

	/* Usually at most one move per job and round; an application can
	 * move twice when a gang sits exactly at T, so the list grows. */
	if (s->nmoves == s->moves_cap) {
		size_t nc = 2 * s->moves_cap;
		cosched_mrb_move_t *nm = realloc(s->moves, nc * sizeof(*nm));
		if (!nm)
			return cosched_error_set(err,
				"miss_rate_bound: out of memory for moves");
		s->moves = nm;
		s->moves_cap = nc;
	}
	m = &s->moves[s->nmoves];
	if (mrb_leave(s, j, err) < 0 || mrb_join(s, j, to, err) < 0)
		return -1;
	m->job = j;
	m->job_id = s->jobs[j].job_id;
	m->from_gang = from;
	m->to_gang = (int)to;
	m->kind = kind;
	m->mpi = s->jobs[j].mpki;
	s->nmoves++;
	return 0;
}

static int cmp_mpi_asc(const void *pa, const void *pb)
{
	const cosched_gang_job_t *a = &sort_jobs[*(const size_t *)pa];
	const cosched_gang_job_t *b = &sort_jobs[*(const size_t *)pb];
	if (a->mpki != b->mpki)
		return a->mpki < b->mpki ? -1 : 1;
	if (a->job_id != b->job_id)
		return a->job_id < b->job_id ? -1 : 1;
	return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

/*
 * The occupied gang where job j fits best, never its own gang g (which is
 * out of the index meanwhile).  *to is a slot or COSCHED_INDEX_NONE.
 */
static int mrb_best_other(cosched_mrb_t *s, size_t g, size_t j, long *to,
			  cosched_error_t *err)
{
	sock_detach(s->idx, g);
	*to = cosched_socket_index_best(s->idx, &s->jobs[j],
					COSCHED_INDEX_OCCUPIED_ONLY, NULL, err);
	if (sock_attach(s->idx, g) < 0)
		return cosched_error_set(err, "miss_rate_bound: out of memory");
	return *to == COSCHED_INDEX_INVALID ? -1 : 0;
}

/* Split gang g while it holds more than one application and its MPI is at
 * or above T: more than one move per round when one is not enough. */
static int mrb_split(cosched_mrb_t *s, size_t g, cosched_error_t *err)
{
	const double T = s->params.mrb_threshold;

	while (s->napps[g] > 1 && s->mpi[g] >= T) {
		size_t n = 0, cand = NONE;
		long to = -1;

		for (size_t j = s->head[g]; j != NONE; j = s->next[j])
			s->tmp[n++] = j;
		sort_jobs = s->jobs;
		qsort(s->tmp, n, sizeof(size_t), cmp_mpi_asc);
		sort_jobs = NULL;
		/* The lowest-MPI application whose removal brings g below T. */
		for (size_t k = 0; k < n; k++)
			if (s->mpi[g] - s->jobs[s->tmp[k]].mpki < T) {
				cand = s->tmp[k];
				break;
			}
		/* Into a gang where it fits (cores and combined MPI). */
		if (cand != NONE && mrb_best_other(s, g, cand, &to, err) < 0)
			return -1;
		if (to >= 0) {
			if (mrb_move(s, cand, (size_t)to, COSCHED_MRB_MOVE_SPLIT,
				     err) < 0)
				return -1;
			continue;
		}
		/* No gang can take it: g's highest-MPI application to a new
		 * gang. */
		if (mrb_move(s, s->tmp[n - 1], mrb_new_slot(s),
			     COSCHED_MRB_MOVE_NEW_GANG, err) < 0)
			return -1;
	}
	return 0;
}

int cosched_mrb_end_round(cosched_mrb_t *s, const cosched_mrb_move_t **moves,
			  size_t *nmoves, cosched_error_t *err)
{
	s->round++;
	s->nmoves = 0;
	/* Gang MPI = sum of its applications' smoothed MPI. */
	for (size_t g = 0; g < s->nslots; g++) {
		double sum = 0;
		if (s->napps[g] == 0)
			continue;
		for (size_t j = s->head[g]; j != NONE; j = s->next[j])
			sum += s->jobs[j].mpki;
		s->mpi[g] = sum;
		cosched_socket_index_set_load(s->idx, g, sum);
	}
	/* Every gang that existed when the round began, in slot order. */
	for (size_t g = 0; g < s->nslots; g++) {
		if (s->napps[g] == 0 || s->born[g] >= s->round)
			continue;
		if (s->napps[g] == 1) {
			/* A singleton moves into another gang where it fits,
			 * and its gang is removed. */
			size_t j = s->head[g];
			long to;
			if (mrb_best_other(s, g, j, &to, err) < 0)
				return -1;
			if (to >= 0 &&
			    mrb_move(s, j, (size_t)to, COSCHED_MRB_MOVE_MERGE,
				     err) < 0)
				return -1;
			continue;
		}
		if (s->mpi[g] < s->params.mrb_threshold)
			continue;
		if (mrb_split(s, g, err) < 0)
			return -1;
	}
	if (moves)
		*moves = s->moves;
	if (nmoves)
		*nmoves = s->nmoves;
	return 0;
}

size_t cosched_mrb_gang_slots(const cosched_mrb_t *s)
{
	return s->nslots;
}

size_t cosched_mrb_gang_count(const cosched_mrb_t *s)
{
	return s->nslots - s->nfree;
}

static bool slot_ok(const cosched_mrb_t *s, int g)
{
	return g >= 0 && (size_t)g < s->nslots;
}

int cosched_mrb_gang_cores(const cosched_mrb_t *s, int g)
{
	return slot_ok(s, g) ? s->cores[g] : 0;
}

int cosched_mrb_gang_napps(const cosched_mrb_t *s, int g)
{
	return slot_ok(s, g) ? s->napps[g] : 0;
}

double cosched_mrb_gang_mpi(const cosched_mrb_t *s, int g)
{
	double sum = 0;
	if (!slot_ok(s, g))
		return 0;
	for (size_t j = s->head[g]; j != NONE; j = s->next[j])
		sum += s->jobs[j].mpki;
	return sum;
}

int cosched_mrb_job_gang(const cosched_mrb_t *s, size_t job)
{
	return job < s->njobs ? s->gang_of[job] : -1;
}

double cosched_mrb_job_mpi(const cosched_mrb_t *s, size_t job)
{
	return job < s->njobs ? s->jobs[job].mpki : NAN;
}

int cosched_mrb_snapshot(const cosched_mrb_t *s, cosched_gang_plan_t *plan,
			 cosched_error_t *err)
{
	size_t ng = 0, nm = 0;

	memset(plan, 0, sizeof(*plan));
	plan->gangs = calloc(s->nslots + 1, sizeof(*plan->gangs));
	plan->members = malloc((s->njobs + 1) * sizeof(*plan->members));
	if (!plan->gangs || !plan->members) {
		cosched_gang_plan_free(plan);
		return cosched_error_set(err, "snapshot: out of memory");
	}
	for (size_t g = 0; g < s->nslots; g++) {
		cosched_gang_t *pg;
		if (s->napps[g] == 0)
			continue;
		pg = &plan->gangs[ng++];
		pg->first = nm;
		for (size_t j = s->head[g]; j != NONE; j = s->next[j]) {
			cosched_gang_member_t *m = &plan->members[nm++];
			m->job = j;
			m->threads = s->jobs[j].threads;
			m->freq_khz = s->jobs[j].freq_khz;
			pg->count++;
			pg->cores += m->threads;
		}
	}
	plan->ngangs = ng;
	plan->nmembers = nm;
	return 0;
}
