/*
 * cosched_bench_policies.c - how fast the gang policies pack many jobs.
 *
 * Usage: cosched-bench-policies [N [CORES [SEED]]]
 *   N      jobs (default 10000); every figure is taken at N and at 2N
 *   CORES  cores per socket, the gang capacity (default 8, seed 002)
 *   SEED   workload and Miss-Rate Bound seed (default 1)
 *
 * A deterministic workload of N jobs (seeded PRNG: 1..CORES threads,
 * seed 002's four categories with MPKI in the ranges of its "artificial"
 * workload) is packed onto N nodes x 2 sockets by every policy:
 *   batch        cosched_gang_plan: the jobs -> gangs of CORES cores;
 *   incremental  one job at a time into 2N sockets through the socket
 *                index (what a controller does as jobs arrive);
 *   round        Miss-Rate Bound only: one MPI sample for every job and
 *                one cosched_mrb_end_round.
 * Each figure is the best of 5 runs.  The target: under 100 ms per
 * policy at 10,000 jobs and near-linear growth (t(2N) / t(N) about 2).
 * Exit status: 0, or 2 on a bad argument, 1 on a failure of the library.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common/cosched_gang.h"

#define RUNS 5

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_unit(void)
{
	return (double)(rng_next() >> 11) / 9007199254740992.0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Seed 002 "Workload ... (artificial)": MPI per category. */
static cosched_gang_job_t *make_jobs(size_t n, int cores, uint64_t seed)
{
	static const double mpi_lo[] = { 0.0, 1.5, 5.0, 0.0 };
	static const double mpi_hi[] = { 0.1, 2.0, 6.0, 0.1 };
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
		j->mpki = mpi_lo[cat] + (mpi_hi[cat] - mpi_lo[cat]) * rng_unit();
		j->freq_khz = cat == COSCHED_CAT_MEM ? 1500000 : 2200000;
	}
	return jobs;
}

typedef struct {
	double ms;
	size_t result;	/* gangs, placed jobs or moves */
} figure_t;

static int run_batch(cosched_policy_t pol, const cosched_gang_params_t *p,
		     const cosched_gang_job_t *jobs, size_t n, figure_t *f)
{
	cosched_error_t err;
	f->ms = 1e30;
	for (int r = 0; r < RUNS; r++) {
		cosched_gang_plan_t plan;
		double t0 = now_ms(), dt;
		if (cosched_gang_plan(pol, p, jobs, n, &plan, &err) < 0) {
			fprintf(stderr, "batch %s: %s\n", cosched_policy_name(pol),
				err.msg);
			return -1;
		}
		dt = now_ms() - t0;
		if (dt < f->ms)
			f->ms = dt;
		f->result = plan.ngangs;
		cosched_gang_plan_free(&plan);
	}
	return 0;
}

static int run_incremental(cosched_policy_t pol, const cosched_gang_params_t *p,
			   const cosched_gang_job_t *jobs, size_t n, figure_t *f)
{
	cosched_error_t err;
	f->ms = 1e30;
	for (int r = 0; r < RUNS; r++) {
		size_t placed = 0;
		double t0 = now_ms(), dt;
		/* n nodes x 2 sockets */
		cosched_socket_index_t *x =
			cosched_socket_index_create(pol, p, 2 * n, NULL, &err);
		if (!x) {
			fprintf(stderr, "incremental %s: %s\n",
				cosched_policy_name(pol), err.msg);
			return -1;
		}
		for (size_t i = 0; i < n; i++) {
			cosched_candidate_t c;
			long s = cosched_socket_index_best(x, &jobs[i], 0, &c, &err);
			if (s < 0)
				continue;
			if (cosched_socket_index_add(x, (size_t)s, &jobs[i],
						     c.threads, &err) < 0) {
				fprintf(stderr, "incremental %s: %s\n",
					cosched_policy_name(pol), err.msg);
				cosched_socket_index_free(x);
				return -1;
			}
			placed++;
		}
		cosched_socket_index_free(x);
		dt = now_ms() - t0;
		if (dt < f->ms)
			f->ms = dt;
		f->result = placed;
	}
	return 0;
}

static int run_mrb_round(const cosched_gang_params_t *p,
			 const cosched_gang_job_t *jobs, size_t n, figure_t *f)
{
	cosched_error_t err;
	f->ms = 1e30;
	for (int r = 0; r < RUNS; r++) {
		const cosched_mrb_move_t *mv;
		size_t nmv;
		double t0, dt;
		cosched_mrb_t *s = cosched_mrb_create(p, jobs, n, &err);
		if (!s) {
			fprintf(stderr, "miss_rate_bound round: %s\n", err.msg);
			return -1;
		}
		rng_state = p->seed + 17;
		t0 = now_ms();
		/* One quantum sample per job: its MPKI, with +-50% noise. */
		for (size_t i = 0; i < n; i++)
			cosched_mrb_feed(s, i, jobs[i].mpki * (0.5 + rng_unit()) * 2,
					 &err);
		if (cosched_mrb_end_round(s, &mv, &nmv, &err) < 0) {
			fprintf(stderr, "miss_rate_bound round: %s\n", err.msg);
			cosched_mrb_free(s);
			return -1;
		}
		dt = now_ms() - t0;
		cosched_mrb_free(s);
		if (dt < f->ms)
			f->ms = dt;
		f->result = nmv;
	}
	return 0;
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

int main(int argc, char **argv)
{
	long n = 10000, cores = 8, seed = 1;
	cosched_gang_params_t p;
	cosched_gang_job_t *jobs;
	int rc = 0;

	if (argc > 4 ||
	    (argc > 1 && parse_arg("N", argv[1], 1, 50000000, &n) < 0) ||
	    (argc > 2 && parse_arg("CORES", argv[2], 1, 1024, &cores) < 0) ||
	    (argc > 3 && parse_arg("SEED", argv[3], 0, 0x7fffffffL, &seed) < 0)) {
		if (argc > 4)
			fprintf(stderr, "usage: cosched-bench-policies [N [CORES [SEED]]]\n");
		return 2;
	}
	jobs = make_jobs(2 * (size_t)n, (int)cores, (uint64_t)seed);
	if (!jobs) {
		fprintf(stderr, "cosched-bench-policies: out of memory\n");
		return 1;
	}
	cosched_gang_params_init(&p, (int)cores);
	p.seed = (uint64_t)seed;

	printf("jobs N = %ld and 2N = %ld on N (2N) nodes x 2 sockets of %ld cores; best of %d runs\n",
	       n, 2 * n, cores, RUNS);
	printf("%-18s %-12s %12s %12s %8s %12s %12s\n", "policy", "form",
	       "t(N) ms", "t(2N) ms", "ratio", "result(N)", "result(2N)");
	for (int pol = 0; pol < COSCHED_POLICY_COUNT && rc == 0; pol++) {
		for (int form = 0; form < 3 && rc == 0; form++) {
			figure_t a, b;
			const char *fname, *what;
			if (form == 2 && pol != COSCHED_POLICY_MISS_RATE_BOUND)
				continue;
			if (form == 0) {
				fname = "batch";
				what = "gangs";
				rc = run_batch(pol, &p, jobs, n, &a) ||
				     run_batch(pol, &p, jobs, 2 * n, &b);
			} else if (form == 1) {
				fname = "incremental";
				what = "placed";
				rc = run_incremental(pol, &p, jobs, n, &a) ||
				     run_incremental(pol, &p, jobs, 2 * n, &b);
			} else {
				fname = "round";
				what = "moves";
				rc = run_mrb_round(&p, jobs, n, &a) ||
				     run_mrb_round(&p, jobs, 2 * n, &b);
			}
			if (rc)
				break;
			printf("%-18s %-12s %12.2f %12.2f %8.2f %6zu %-5s %6zu %-5s\n",
			       cosched_policy_name(pol), fname, a.ms, b.ms,
			       a.ms > 0 ? b.ms / a.ms : 0.0, a.result, what,
			       b.result, what);
		}
	}
	free(jobs);
	return rc ? 1 : 0;
}
