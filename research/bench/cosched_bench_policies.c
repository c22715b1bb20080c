/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_bench_policies.c - how fast the gang policies pack many jobs,
 * and whether what they produce holds.
 *
 * Usage: cosched-bench-policies [N [CORES [SEED]]]
 *   N      nodes and jobs (default 10000); every figure is taken at N and
 *          at 2N
 *   CORES  cores per socket, the gang capacity (default 8, as in
 *          "Power-aware gang scheduling on multicore", NTUA thesis, 2013)
 *   SEED   workload and Miss-Rate Bound seed (default 1)
 *
 * A deterministic workload (seeded PRNG: 1..CORES threads, the four
 * categories of the 2013 gang-scheduling thesis, MPKI in the ranges of its
 * "artificial" workload) is placed on N nodes x 2 sockets by every policy:
 *   batch        cosched_gang_plan on N jobs, then the gangs mapped onto the
 *                2N sockets, one gang per socket (round-robin when there
 *                are more gangs than sockets: "rr" is the most gangs that
 *                share one socket's quanta);
 *   incremental  N jobs one at a time through the socket index (how the
 *                controller places jobs across the whole cluster);
 *   saturated    4N jobs through the socket index: about 18N cores asked of
 *                16N (at CORES 8), so sockets fill and the "no acceptable
 *                socket" path runs; placed and rejected are reported;
 *   rank(64)     N jobs, each ranked by cosched_gang_rank over a candidate
 *                set of 64 sockets (a window of the 2N) and placed on the
 *                first: rank() is for explaining or ranking a small set,
 *                the index for choosing among all sockets;
 *   round        Miss-Rate Bound only: one MPKI sample for every job and one
 *                cosched_mrb_end_round.
 * Each figure is the best of 5 runs.  Every result is checked after it is
 * timed: every job placed exactly once (or rejected), no socket or gang
 * over its cores, at most max_apps applications per gang.
 * The target: under 100 ms per policy at 10,000 jobs and
 * near-linear growth (t(2N) / t(N) about 2).
 * Exit status: 0; 1 on a failure of the library; 2 on a bad argument; 3 when
 * a check fails.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/libcosched/policy/gang.h"
#include "src/libcosched/policy/mrb.h"
#include "src/libcosched/base/random.h"
#include "src/libcosched/policy/socket_index.h"

#define RUNS 5
#define RANK_SET 64		/* candidate sockets per rank() call */
#define SATURATE 4		/* jobs per node in the saturated case */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	return cosched_splitmix64(&rng_state);
}

static double rng_unit(void)
{
	return cosched_random_unit(&rng_state);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The 2013 gang-scheduling thesis, "Workload ... (artificial)": MPKI per
 * category. */
static cosched_gang_job_t *make_jobs(size_t n, int cores, uint64_t seed)
{
	static const double mpki_lo[] = { 0.0, 1.5, 5.0, 0.0 };
	static const double mpki_hi[] = { 0.1, 2.0, 6.0, 0.1 };
	cosched_gang_job_t *jobs = calloc(n, sizeof(*jobs));

	if (!jobs)
		return NULL;
	rng_state = seed;
	for (size_t i = 0; i < n; i++) {
		cosched_gang_job_t *j = &jobs[i];
		int cat = (int)(rng_next() % 4);
		j->job_id = (uint32_t)(i + 1);
		j->threads = 1 + (int)(rng_next() % (uint64_t)cores);
		j->min_threads = 1 + (int)(rng_next() % (uint64_t)j->threads);
		j->max_threads = j->threads + (int)(rng_next() % 3);
		j->category = (cosched_category_t)cat;
		j->mpki = mpki_lo[cat] + (mpki_hi[cat] - mpki_lo[cat]) * rng_unit();
		j->freq_khz = cat == COSCHED_CAT_MEM ? 1500000 : 2200000;
	}
	return jobs;
}

typedef struct {
	double ms;
	char result[40];	/* what was produced, for the table */
} figure_t;

/* One timed placement case: njobs jobs on nsockets sockets. */
typedef struct {
	cosched_policy_t pol;
	const cosched_gang_params_t *p;
	const cosched_gang_job_t *jobs;
	size_t njobs, nsockets;
} bench_case_t;

enum { OK = 0, LIB_FAILED = 1, CHECK_FAILED = 3 };

static int check_failed(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int check_failed(const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cosched-bench-policies: check failed: %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CHECK_FAILED;
}

static void keep_best(figure_t *f, double dt)
{
	if (dt < f->ms)
		f->ms = dt;
}

/* Gangs: every job exactly once, each gang within its cores and max_apps. */
static int check_plan(const bench_case_t *bc, const cosched_gang_plan_t *plan,
		      const char *what)
{
	int max_apps = cosched_gang_max_apps(bc->pol, bc->p);
	char *seen = calloc(bc->njobs + 1, 1);
	int rc = OK;

	if (!seen)
		return LIB_FAILED;
	if (plan->nmembers != bc->njobs)
		rc = check_failed(what, "%zu jobs in gangs, %zu given",
				  plan->nmembers, bc->njobs);
	for (size_t g = 0; g < plan->ngangs && rc == OK; g++) {
		const cosched_gang_t *gg = &plan->gangs[g];
		int cores = 0;
		if (gg->count < 1 || (max_apps > 0 && gg->count > max_apps))
			rc = check_failed(what, "gang %zu holds %zu applications",
					  g, (size_t)gg->count);
		for (int k = 0; k < gg->count && rc == OK; k++) {
			const cosched_gang_member_t *m = &plan->members[gg->first + k];
			if (m->job >= bc->njobs || seen[m->job])
				rc = check_failed(what, "gang %zu: job %zu twice or unknown",
						  g, m->job);
			else if (m->threads < 1)
				rc = check_failed(what, "job %zu runs %zu threads",
						  m->job, (size_t)m->threads);
			else
				seen[m->job] = 1;
			cores += m->threads;
		}
		if (rc == OK && (cores != gg->cores || cores > bc->p->capacity))
			rc = check_failed(what, "gang %zu holds %zu cores",
					  g, (size_t)cores);
	}
	free(seen);
	return rc;
}

static int run_batch(const bench_case_t *bc, figure_t *f)
{
	size_t *socket_of = malloc((bc->njobs + 1) * sizeof(size_t));
	size_t *depth = calloc(bc->nsockets, sizeof(size_t));
	size_t rr = 0;
	cosched_gang_plan_t plan = { 0 };
	cosched_error_t err;
	int rc = OK;

	if (!socket_of || !depth) {
		rc = LIB_FAILED;
		goto out;
	}
	f->ms = 1e30;
	for (int r = 0; r < RUNS; r++) {
		double t0 = now_ms();
		cosched_gang_plan_free(&plan);
		if (cosched_gang_plan(bc->pol, bc->p, bc->jobs, bc->njobs, &plan,
				      &err) < 0) {
			fprintf(stderr, "batch %s: %s\n",
				cosched_policy_name(bc->pol), err.msg);
			rc = LIB_FAILED;
			goto out;
		}
		/* One gang per socket; round-robin when there are more gangs
		 * than sockets (they share its quanta). */
		for (size_t g = 0; g < plan.ngangs; g++)
			socket_of[g] = g % bc->nsockets;
		keep_best(f, now_ms() - t0);
	}
	rc = check_plan(bc, &plan, "batch");
	for (size_t g = 0; g < plan.ngangs && rc == OK; g++)
		if (++depth[socket_of[g]] > rr)
			rr = depth[socket_of[g]];
	snprintf(f->result, sizeof(f->result), "%zu gangs, rr %zu", plan.ngangs,
		 rr);
out:
	cosched_gang_plan_free(&plan);
	free(socket_of);
	free(depth);
	return rc;
}

/* Placements (socket or -1, threads per job): every job placed at most
 * once, threads within what it asked, every socket within its cores and
 * max_apps; used[] must agree with the index when one is given. */
static int check_placements(const bench_case_t *bc, const long *where,
			    const int *threads,
			    const cosched_socket_index_t *x, const char *what,
			    size_t *placed)
{
	int max_apps = cosched_gang_max_apps(bc->pol, bc->p);
	int *used = calloc(bc->nsockets + 1, sizeof(int));
	int *napps = calloc(bc->nsockets + 1, sizeof(int));
	int rc = OK;

	if (!used || !napps) {
		free(used);
		free(napps);
		return LIB_FAILED;
	}
	*placed = 0;
	for (size_t i = 0; i < bc->njobs && rc == OK; i++) {
		const cosched_gang_job_t *j = &bc->jobs[i];
		if (where[i] < 0)
			continue;
		if ((size_t)where[i] >= bc->nsockets)
			rc = check_failed(what, "job %zu on socket %zu", i,
					  (size_t)where[i]);
		else if (threads[i] < 1 || threads[i] > j->threads)
			rc = check_failed(what, "job %zu given %zu threads", i,
					  (size_t)threads[i]);
		else {
			used[where[i]] += threads[i];
			napps[where[i]]++;
			(*placed)++;
		}
	}
	for (size_t s = 0; s < bc->nsockets && rc == OK; s++) {
		if (used[s] > bc->p->capacity)
			rc = check_failed(what, "socket %zu holds %zu cores", s,
					  (size_t)used[s]);
		else if (max_apps > 0 && napps[s] > max_apps)
			rc = check_failed(what, "socket %zu holds %zu applications",
					  s, (size_t)napps[s]);
		else if (x && cosched_socket_index_free_cores(x, s) !=
				      bc->p->capacity - used[s])
			rc = check_failed(what, "socket %zu: index says %zu cores used",
					  s, (size_t)(bc->p->capacity -
					      cosched_socket_index_free_cores(x, s)));
	}
	free(used);
	free(napps);
	return rc;
}

/* Jobs one at a time through the index, as the controller places them. */
static int run_index(const bench_case_t *bc, bool all_must_fit, figure_t *f)
{
	long *where = malloc((bc->njobs + 1) * sizeof(long));
	int *threads = malloc((bc->njobs + 1) * sizeof(int));
	cosched_socket_index_t *x = NULL;
	cosched_error_t err;
	size_t placed = 0;
	int rc = OK;

	if (!where || !threads) {
		rc = LIB_FAILED;
		goto out;
	}
	f->ms = 1e30;
	for (int r = 0; r < RUNS; r++) {
		double t0 = now_ms();
		cosched_socket_index_free(x);
		x = cosched_socket_index_create(bc->pol, bc->p, bc->nsockets, NULL,
						&err);
		if (!x)
			goto lib_failed;
		for (size_t i = 0; i < bc->njobs; i++) {
			cosched_candidate_t c;
			long s = cosched_socket_index_best(x, &bc->jobs[i], 0, &c,
							   &err);
			where[i] = s;
			if (s == COSCHED_INDEX_NONE)
				continue;
			if (s < 0)
				goto lib_failed;
			threads[i] = c.threads;
			if (cosched_socket_index_add(x, (size_t)s, &bc->jobs[i],
						     c.threads, &err) < 0)
				goto lib_failed;
		}
		keep_best(f, now_ms() - t0);
	}
	rc = check_placements(bc, where, threads, x, "index", &placed);
	if (rc == OK && all_must_fit && placed != bc->njobs)
		rc = check_failed("index", "%zu of %zu jobs placed", placed,
				  bc->njobs);
	if (all_must_fit)
		snprintf(f->result, sizeof(f->result), "%zu placed", placed);
	else
		snprintf(f->result, sizeof(f->result), "%zu placed %zu rej", placed,
			 bc->njobs - placed);
	goto out;
lib_failed:
	fprintf(stderr, "index %s: %s\n", cosched_policy_name(bc->pol), err.msg);
	rc = LIB_FAILED;
out:
	cosched_socket_index_free(x);
	free(where);
	free(threads);
	return rc;
}

/* Per socket: its occupants, for cosched_gang_rank. */
typedef struct {
	cosched_socket_t *sock;
	cosched_gang_job_t **occ;
	int *occ_cap;
	size_t n;
} cluster_t;

static void cluster_free(cluster_t *c)
{
	if (c->occ)
		for (size_t s = 0; s < c->n; s++)
			free(c->occ[s]);
	free(c->occ);
	free(c->occ_cap);
	free(c->sock);
	memset(c, 0, sizeof(*c));
}

static int cluster_init(cluster_t *c, size_t n, int capacity)
{
	memset(c, 0, sizeof(*c));
	c->n = n;
	c->sock = calloc(n, sizeof(*c->sock));
	c->occ = calloc(n, sizeof(*c->occ));
	c->occ_cap = calloc(n, sizeof(int));
	if (!c->sock || !c->occ || !c->occ_cap)
		return -1;
	for (size_t s = 0; s < n; s++)
		c->sock[s].capacity = capacity;
	return 0;
}

static int cluster_add(cluster_t *c, size_t s, const cosched_gang_job_t *j,
		       int threads)
{
	cosched_socket_t *so = &c->sock[s];
	if (so->noccupants == c->occ_cap[s]) {
		int nc = c->occ_cap[s] ? 2 * c->occ_cap[s] : 4;
		cosched_gang_job_t *no = realloc(c->occ[s], nc * sizeof(*no));
		if (!no)
			return -1;
		c->occ[s] = no;
		c->occ_cap[s] = nc;
	}
	c->occ[s][so->noccupants++] = *j;
	so->occupants = c->occ[s];
	so->used += threads;
	return 0;
}

/* Each job ranked over a window of RANK_SET sockets and placed on the
 * first accepted one. */
static int run_rank(const bench_case_t *bc, figure_t *f)
{
	size_t set = bc->nsockets < RANK_SET ? bc->nsockets : RANK_SET;
	size_t windows = bc->nsockets / set;
	long *where = malloc((bc->njobs + 1) * sizeof(long));
	int *threads = malloc((bc->njobs + 1) * sizeof(int));
	cosched_candidate_t out[RANK_SET];
	cluster_t cl = { 0 };
	cosched_error_t err;
	size_t placed = 0;
	int rc = OK;

	if (!where || !threads) {
		rc = LIB_FAILED;
		goto out;
	}
	f->ms = 1e30;
	for (int r = 0; r < RUNS; r++) {
		double t0 = now_ms();
		cluster_free(&cl);
		if (cluster_init(&cl, bc->nsockets, bc->p->capacity) < 0) {
			rc = LIB_FAILED;
			goto out;
		}
		for (size_t i = 0; i < bc->njobs; i++) {
			size_t first = (i % windows) * set, acc;
			if (cosched_gang_rank(bc->pol, bc->p, &cl.sock[first], set,
					      &bc->jobs[i], out, &acc, &err) < 0) {
				fprintf(stderr, "rank %s: %s\n",
					cosched_policy_name(bc->pol), err.msg);
				rc = LIB_FAILED;
				goto out;
			}
			where[i] = -1;
			if (acc == 0)
				continue;
			where[i] = (long)(first + out[0].socket);
			threads[i] = out[0].threads;
			if (cluster_add(&cl, (size_t)where[i], &bc->jobs[i],
					threads[i]) < 0) {
				rc = LIB_FAILED;
				goto out;
			}
		}
		keep_best(f, now_ms() - t0);
	}
	rc = check_placements(bc, where, threads, NULL, "rank", &placed);
	for (size_t s = 0; s < cl.n && rc == OK; s++)
		if (cl.sock[s].used > cl.sock[s].capacity)
			rc = check_failed("rank", "socket %zu holds %zu cores", s,
					  (size_t)cl.sock[s].used);
	snprintf(f->result, sizeof(f->result), "%zu placed %zu rej", placed,
		 bc->njobs - placed);
out:
	cluster_free(&cl);
	free(where);
	free(threads);
	return rc;
}

static int run_mrb_round(const bench_case_t *bc, figure_t *f)
{
	cosched_gang_plan_t plan = { 0 };
	cosched_error_t err;
	size_t nmoves = 0;
	int rc = OK;

	f->ms = 1e30;
	for (int r = 0; r < RUNS; r++) {
		const cosched_mrb_move_t *mv;
		double t0;
		cosched_mrb_t *s = cosched_mrb_create(bc->p, bc->jobs, bc->njobs,
						      &err);
		if (!s)
			goto lib_failed;
		rng_state = bc->p->seed + 17;
		t0 = now_ms();
		/* One quantum sample per job: its MPKI, with +-50% noise. */
		for (size_t i = 0; i < bc->njobs; i++)
			if (cosched_mrb_feed(s, i,
					     bc->jobs[i].mpki * (0.5 + rng_unit()) * 2,
					     &err) < 0) {
				cosched_mrb_free(s);
				goto lib_failed;
			}
		if (cosched_mrb_end_round(s, &mv, &nmoves, &err) < 0) {
			cosched_mrb_free(s);
			goto lib_failed;
		}
		keep_best(f, now_ms() - t0);
		cosched_gang_plan_free(&plan);
		rc = cosched_mrb_snapshot(s, &plan, &err);
		cosched_mrb_free(s);
		if (rc < 0)
			goto lib_failed;
	}
	rc = check_plan(bc, &plan, "round");
	snprintf(f->result, sizeof(f->result), "%zu moves", nmoves);
	cosched_gang_plan_free(&plan);
	return rc;
lib_failed:
	fprintf(stderr, "miss_rate_bound round: %s\n", err.msg);
	cosched_gang_plan_free(&plan);
	return LIB_FAILED;
}

static int parse_arg(const char *name, const char *s, long lo, long hi,
		     long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr,
			"cosched-bench-policies: %s: \"%s\" is not an integer in [%ld, %ld]\n"
			"usage: cosched-bench-policies [N [CORES [SEED]]]\n",
			name, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

enum { F_BATCH, F_INCREMENTAL, F_SATURATED, F_RANK, F_ROUND, F_COUNT };

static const char *const form_name[F_COUNT] = {
	"batch", "incremental", "saturated", "rank(64)", "round",
};

/* One form at n nodes. */
static int run_form(int form, cosched_policy_t pol,
		    const cosched_gang_params_t *p,
		    const cosched_gang_job_t *jobs, size_t n, figure_t *f)
{
	bench_case_t bc = { pol, p, jobs, n, 2 * n };

	switch (form) {
	case F_BATCH:
		return run_batch(&bc, f);
	case F_INCREMENTAL:
		return run_index(&bc, true, f);
	case F_SATURATED:
		bc.njobs = SATURATE * n;
		return run_index(&bc, false, f);
	case F_RANK:
		return run_rank(&bc, f);
	default:
		return run_mrb_round(&bc, f);
	}
}

int main(int argc, char **argv)
{
	long n = 10000, cores = 8, seed = 1;
	cosched_gang_params_t p;
	cosched_gang_job_t *jobs;
	int rc = OK;

	if (argc > 4 ||
	    (argc > 1 && parse_arg("N", argv[1], 1, 1000000, &n) < 0) ||
	    (argc > 2 && parse_arg("CORES", argv[2], 1, COSCHED_GANG_MAX_CAPACITY,
				   &cores) < 0) ||
	    (argc > 3 && parse_arg("SEED", argv[3], 0, 0x7fffffffL, &seed) < 0)) {
		if (argc > 4)
			fprintf(stderr, "usage: cosched-bench-policies [N [CORES [SEED]]]\n");
		return 2;
	}
	/* The saturated case at 2N needs SATURATE x 2N jobs. */
	jobs = make_jobs(SATURATE * 2 * (size_t)n, (int)cores, (uint64_t)seed);
	if (!jobs) {
		fprintf(stderr, "cosched-bench-policies: out of memory\n");
		return 1;
	}
	cosched_gang_params_init(&p, (int)cores);
	p.seed = (uint64_t)seed;

	printf("N = %ld nodes x 2 sockets of %ld cores, and 2N = %ld; best of %d runs\n",
	       n, cores, 2 * n, RUNS);
	printf("jobs: N (2N); saturated: %dN (%dN); rank(64): each job ranked over %d sockets\n",
	       SATURATE, 2 * SATURATE, RANK_SET);
	printf("%-18s %-12s %10s %10s %6s  %-24s %s\n", "policy", "form",
	       "t(N) ms", "t(2N) ms", "ratio", "result(N)", "result(2N)");
	for (int pol = 0; pol < COSCHED_POLICY_PLACING_COUNT && rc == OK;
	     pol++) {
		for (int form = 0; form < F_COUNT && rc == OK; form++) {
			figure_t a = { 0 }, b = { 0 };
			if (form == F_ROUND && pol != COSCHED_POLICY_MISS_RATE_BOUND)
				continue;
			rc = run_form(form, pol, &p, jobs, (size_t)n, &a);
			if (rc == OK)
				rc = run_form(form, pol, &p, jobs, 2 * (size_t)n, &b);
			if (rc != OK)
				break;
			printf("%-18s %-12s %10.2f %10.2f %6.2f  %-24s %s\n",
			       cosched_policy_name(pol), form_name[form], a.ms, b.ms,
			       a.ms > 0 ? b.ms / a.ms : 0.0, a.result, b.result);
		}
	}
	if (rc == OK)
		printf("all results checked: every job placed once or rejected, no socket or gang over %ld cores\n",
		       cores);
	free(jobs);
	return rc;
}
