/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim.h - cosched-sim: replay a workload through cosched's own decision
 * code (src/libcosched) and account what it delivers, in the two settings
 * of "Power-aware gang scheduling on multicore" (diploma thesis, NTUA
 * CSLab, 2013):
 *
 *  - time-shared: gangs of applications run round-robin on one package
 *    with a quantum, every application restarted when it ends (the 2013
 *    gang-scheduling thesis, "Metrics"); the gangs come from
 *    cosched_gang_plan() (GANG, Greedy Thread, Miss-Rate Balance,
 *    Application-Aware) or from cosched_mrb_* (Miss-Rate Bound online:
 *    EWMA of sampled MPKI, end-of-round moves);
 *  - space-shared: jobs arrive, wait in a queue and are placed on sockets
 *    by cosched_occupancy_best() (the socket index the controller uses),
 *    beside two baselines placed by the same index: exclusive nodes and
 *    contention-blind cores in order.
 *
 * No policy is implemented here: this file's code only models what the
 * hardware would do with the decisions (slowdown, thread scaling,
 * frequency, power) and counts.  The models are in sim_model.c and
 * cosched-sim(1).
 */
#ifndef COSCHED_SIM_H
#define COSCHED_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "src/libcosched/model/category.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/policy/gang.h"
#include "src/libcosched/model/interference.h"
#include "src/libcosched/policy/place.h"
#include "src/libcosched/model/policy_name.h"
#include "src/libcosched/model/victim.h"

#define SIM_NAME_MAX 63
#define SIM_SCALE_MAX 64	/* thread counts a scaling curve may give */

/* ---- workload ---------------------------------------------------- */

typedef struct {
	char name[SIM_NAME_MAX + 1];
	int threads;		/* requested (lowest-EDP) threads */
	int min_threads;	/* Greedy Thread's minimum; = threads unless given */
	int max_threads;	/* keeps scaling up to; = threads unless given */
	double mpki;		/* standalone LLC MPKI */
	long mhz;		/* its lowest-EDP frequency (used with DVFS) */
	cosched_category_t cat;
	double solo_s;		/* standalone time at threads, full frequency */
	double submit_s;	/* arrival (space-shared) */
	int line;		/* line in the file (0: generated) */
} sim_app_t;

typedef struct {
	sim_app_t *apps;
	size_t n, cap;
} sim_workload_t;

/*
 * Parse the workload text format (cosched-sim(1), WORKLOAD FORMAT):
 *   # comment
 *   NAME THREADS MPKI MHZ CATEGORY SOLO_S [submit=S] [min=T] [max=T] [count=N]
 * Refused with "FILE:LINE: field NAME: ..." naming the first bad field.
 * capacity bounds threads (0 = no bound).  fname is for messages.
 */
int sim_workload_parse(FILE *f, const char *fname, int capacity,
		       sim_workload_t *w, cosched_error_t *err);
int sim_workload_load(const char *path, int capacity, sim_workload_t *w,
		      cosched_error_t *err);
int sim_workload_add(sim_workload_t *w, const sim_app_t *a,
		     cosched_error_t *err);
void sim_workload_free(sim_workload_t *w);
/* The "artificial" workload of the 2013 gang-scheduling thesis, solo_s
 * each. */
int sim_workload_seed002(sim_workload_t *w, double solo_s,
			 cosched_error_t *err);

/* ---- models ------------------------------------------------------ */

typedef enum {
	SIM_FREQ_PER_APP = 0,	/* each application at its own frequency */
	SIM_FREQ_DOMAIN_MAX,	/* package at the highest request (cosched
				 * power rule max_request) */
} sim_freq_rule_t;

typedef struct {
	/* Slowdown of a victim next to co-runners: an LCA-indexed table (the
	 * categories map one to one: cpu N, rand C, lim LC, mem L) read by
	 * cosched_interference_predict(), the decision core's own rule for
	 * several co-runners. */
	cosched_interference_model_t interf;
	char table[80];		/* "seed002", "seed001" or the file */
	double catastrophic;	/* seed002 table: rand next to lim or mem */
	/* Thread scaling: time at t threads relative to any other count
	 * (scale[t], t = 1..nscale; ft.B's curve by default). */
	double scale[SIM_SCALE_MAX + 1];
	int nscale;
	/* The power model's range, 1.2..2.2 GHz (the 2013 gang-scheduling
	 * thesis). */
	long fmin_mhz, fmax_mhz;
	sim_freq_rule_t freq_rule;
	double mem_bound[COSCHED_CAT_COUNT];	/* time share not scaling with f */
	/* Bandwidth demand, fraction of the package's peak. */
	double bw[COSCHED_CAT_COUNT];
	/* Extra MPKI a victim shows per unit of excess slowdown (what
	 * Miss-Rate Bound samples online). */
	double miss_gain[COSCHED_CAT_COUNT];
	/* Power, watts (the 2013 gang-scheduling thesis, "Power model"). */
	double p_core_idle, p_core_active, p_core_bw;
	double p_core_per_core[COSCHED_CAT_COUNT];
	double freq_exp;	/* per-core power ~ (f / fmax)^freq_exp */
	double p_uncore, p_uncore_bw;
	double p_dram, p_dram_active, p_dram_bw;
} sim_model_t;

/* The category behaviour of the 2013 gang-scheduling thesis with the
 * catastrophic factor below (cosched-sim --seed002 --calibrate: rand
 * programs run 3.675 x their standalone time under Miss-Rate Balance, the
 * middle of the thesis's 3.35..4), ft.B's scaling, the thesis's power
 * model. */
#define SIM_CATASTROPHIC_DEFAULT 3.675
void sim_model_default(sim_model_t *m);
/* Every application's MHz inside the model's range: refused with
 * "FILE:LINE: field mhz: ..." naming the value and the range (the model
 * would extrapolate its time and power silently). */
int sim_workload_check_model(const sim_workload_t *w, const sim_model_t *m,
			     const char *fname, cosched_error_t *err);
/* Replace the slowdown table: "seed002", "seed001" or a file of lines
 * "VICTIM CORUNNER SLOWDOWN" (category or LCA names).  */
int sim_model_set_table(sim_model_t *m, const char *spec, cosched_error_t *err);
/* The categories of the 2013 gang-scheduling thesis, with factor c for
 * rand next to lim/mem. */
void sim_model_seed002_table(sim_model_t *m, double c);
/* A scaling curve file: lines "THREADS TIME". */
int sim_model_load_scaling(sim_model_t *m, const char *path,
			   cosched_error_t *err);
/* "cat=X[,cat=X]" for miss_gain. */
int sim_model_set_miss_gain(sim_model_t *m, const char *spec,
			    cosched_error_t *err);

/* One application in a gang, as run. */
typedef struct {
	size_t app;
	int threads;
} sim_member_t;

typedef struct {
	double rate;		/* runs completed per second while it runs */
	double slowdown;	/* contention slowdown (1 = none) */
	double fslow;		/* time factor of its frequency (1 = fmax) */
	double tslow;		/* time factor of its thread count */
	double mpki;		/* what a counter would sample */
	long mhz;		/* frequency it runs at */
} sim_perf_t;

typedef struct {
	double core, uncore, dram;	/* watts */
} sim_power_t;

/* Rates and power of one gang (n members, perf[n]) running on a package. */
int sim_gang_eval(const sim_model_t *m, const sim_app_t *apps,
		  const sim_member_t *mem, int n, bool dvfs, sim_perf_t *perf,
		  sim_power_t *pw, cosched_error_t *err);
/* The gang job the decision core sees for an application. */
void sim_gang_job(const sim_app_t *a, size_t i, cosched_gang_job_t *j);

/* ---- time-shared ------------------------------------------------- */

/* Told every quantum run (--timeline, --plot): when, which gang, and its
 * n members as run (perf[i] for mem[i]). */
typedef void (*sim_quantum_fn)(void *ctx, double time_s, int gang,
			       const sim_workload_t *w, const sim_member_t *mem,
			       const sim_perf_t *perf, int n);

typedef struct {
	int capacity;		/* cores of the package (8) */
	double quantum_s;	/* 1 */
	double window_s;	/* 7200: run whole rounds until it is reached */
	bool dvfs;
	uint64_t seed;		/* Miss-Rate Bound's random start */
	double mrb_weight, mrb_threshold;
	int max_apps;		/* applications per gang (--gang-max-apps,
				 * cosched.conf GangMaxApps); 0 = the
				 * policy's own */
	bool mrb_start_zero;	/* thesis: every MPKI starts at 0 */
	bool arrive;		/* --arrive: the incremental form, programs
				 * arriving in an order shuffled from seed */
	sim_quantum_fn on_quantum;	/* NULL, or told every quantum */
	void *on_quantum_ctx;
} sim_ts_conf_t;

void sim_ts_conf_default(sim_ts_conf_t *c);

typedef struct {
	char label[32];
	double elapsed_s;
	double work;		/* runs completed, fractions included */
	long completions;	/* whole runs completed */
	double throughput_h;	/* work per hour */
	double fair_avg, fair_worst;
	double wait_avg_s;	/* waiting per run, averaged over apps */
	double e_core, e_uncore, e_dram;	/* joules */
	double energy_j;
	double edp;		/* (E / work) x (elapsed / work) */
	double all_once_s;	/* until every application had finished one
				 * run (the thesis's "the workload finishes");
				 * INFINITY: one never did in the window */
	double round_s;		/* the longest round */
	long rounds, moves;
	size_t gangs;		/* static plans; MRB: at the end */
	double plan_value;	/* static plans: cosched_gang_plan_value(),
				 * the plan's throughput under the decision
				 * core's model; NAN otherwise */
	size_t napps;
	double *first_done_s;	/* per app: its first run's end, or INFINITY */
	double *fair;		/* per app */
	double *work_app;	/* per app */
	long *compl_app;	/* per app */
} sim_ts_result_t;

/* Run one policy (static ones: one plan; Miss-Rate Bound: online). */
int sim_ts_run(const sim_model_t *m, const sim_workload_t *w,
	       cosched_policy_t policy, const sim_ts_conf_t *c,
	       sim_ts_result_t *r, cosched_error_t *err);
/* Run a fixed set of gangs (gang_of[i] = gang of app i, threads[i]). */
int sim_ts_run_static(const sim_model_t *m, const sim_workload_t *w,
		      const int *gang_of, const int *threads, int ngangs,
		      const sim_ts_conf_t *c, sim_ts_result_t *r,
		      cosched_error_t *err);
void sim_ts_result_free(sim_ts_result_t *r);

/* ---- optimum ----------------------------------------------------- */

#define SIM_OPT_MAX_APPS 12

/*
 * The gang partition (and thread counts in [min, max]) maximising the
 * steady-state throughput (1/G) x sum over gangs of sum of rates, under
 * the same model: exact, by dynamic programming over subsets.  At most
 * SIM_OPT_MAX_APPS applications.  gang_of and threads have w->n entries.
 */
int sim_optimum(const sim_model_t *m, const sim_workload_t *w,
		const sim_ts_conf_t *c, int *gang_of, int *threads,
		int *ngangs, double *rate, cosched_error_t *err);

/* ---- space-shared ------------------------------------------------ */

typedef enum {
	SIM_VAR_POLICY = 0,	/* one of the five policies */
	SIM_VAR_EXCLUSIVE,	/* one job per node */
	SIM_VAR_BLIND,		/* cores in order, contention-blind */
} sim_variant_kind_t;

/* How the waiting jobs start (--queue).  FIRST_FIT: at every event each
 * queued job, in order, starts if a unit accepts it now, as if backfill
 * knew nothing of run times.  EASY: the same, but the first job that
 * cannot start gets a reservation (the unit and time a will-run query of
 * the placement engine gives, from the running jobs' expected ends) and a
 * later job may not take that unit unless its estimated end (submit
 * estimate: its standalone run time) comes before the reservation, as
 * Slurm's backfill plans around the top job. */
typedef enum {
	SIM_QUEUE_FIRST_FIT = 0,
	SIM_QUEUE_EASY,
	SIM_QUEUE_COUNT
} sim_queue_t;
extern const char *const sim_queue_names[SIM_QUEUE_COUNT];

typedef struct {
	size_t nodes;
	int sockets;		/* per node */
	int cores;		/* per socket */
	bool dvfs;
	size_t queue_depth;	/* queued jobs tried per pass (Slurm's
				 * default_queue_depth is 100) */
	double bsld_tau_s;	/* bounded slowdown threshold, 10 s */
	int max_apps;		/* jobs per socket (--gang-max-apps); 0 =
				 * the policy's own */
	sim_queue_t queue;	/* --queue: how waiting jobs start */
} sim_ss_conf_t;

void sim_ss_conf_default(sim_ss_conf_t *c);

typedef struct {
	char label[32];
	size_t jobs;
	double makespan_s;
	double throughput_h;	/* jobs per hour of makespan */
	double util;		/* busy core-seconds / (cores x makespan) */
	double wait_avg_s;
	double bsld_avg;
	double fair_avg, fair_worst;
	double e_core, e_uncore, e_dram, energy_j;
	double edp;		/* energy x makespan */
	double sim_s;		/* wall time of the simulation */
	size_t events;
	size_t pushes;		/* completion events entered or moved */
	size_t heap_max;	/* most events in the heap at once */
	double occ_avg;		/* co-runners re-rated per socket change */
	/* The queue: jobs that started while an earlier job waited, the
	 * reservations made (EASY) and the offers of a reserved unit refused
	 * to a job that would still run at the reservation's time. */
	size_t passed, reservations, reserve_refusals;
} sim_ss_result_t;

int sim_ss_run(const sim_model_t *m, const sim_workload_t *w,
	       sim_variant_kind_t kind, cosched_policy_t policy,
	       const sim_ss_conf_t *c, sim_ss_result_t *r,
	       cosched_error_t *err);

/*
 * One job placed the way the space-shared setting places every job: the
 * placement engine's best unit for it as a single job, taken at once (the
 * simulated allocator never refuses), and the job entered there.  *unit
 * is the unit, or -1 when no unit accepts it now (not an error); *threads
 * the threads the policy gives it.  try/ctx is the allocator the engine
 * offers units to (NULL: every unit offered is taken).  The replay (sim_replay.c) calls it
 * too, so that a sequence can be compared with the controller's choices.
 */
int sim_ss_place(cosched_place_t *place, const cosched_gang_job_t *gj,
		 cosched_place_try_fn try, void *ctx, long *unit,
		 int *threads, cosched_error_t *err);

/* The category mix of jobs whose trace carries none (--mix). */
typedef enum {
	SIM_MIX_BALANCED = 0,	/* the four categories alike */
	SIM_MIX_MEMORY,		/* mem 1/2, lim 1/4, cpu and rand 1/8 each */
	SIM_MIX_COMPUTE,	/* cpu 1/2, rand 1/4, lim and mem 1/8 each */
	SIM_MIX_COUNT
} sim_mix_t;
extern const char *const sim_mix_names[SIM_MIX_COUNT];

/*
 * A time-shared workload drawn, not chosen (cosched-sim(1), DRAWN
 * WORKLOADS): SIM_DRAW_MIN_APPS..SIM_DRAW_MAX_APPS programs, each with a
 * category by the mix and its MPKI and frequency by sim_assign_class()
 * (the ranges of the artificial workload of the 2013 gang-scheduling
 * thesis), threads uniform in SIM_DRAW_MIN_THREADS..SIM_DRAW_MAX_THREADS
 * (that workload's span; min = max = threads), standalone time
 * log-uniform in SIM_DRAW_MIN_SOLO_S..SIM_DRAW_MAX_SOLO_S.  All submitted
 * at 0.  The same seed and mix give the same workload.
 */
#define SIM_DRAW_MIN_APPS 6
#define SIM_DRAW_MAX_APPS 12
#define SIM_DRAW_MIN_THREADS 2
#define SIM_DRAW_MAX_THREADS 6
#define SIM_DRAW_MIN_SOLO_S 25.0
#define SIM_DRAW_MAX_SOLO_S 100.0
int sim_workload_draw(sim_workload_t *w, uint64_t seed, sim_mix_t mix,
		      cosched_error_t *err);

/* ---- arrivals ---------------------------------------------------- */

/* Standard Workload Format: one job per line, 18 fields; job i's submit
 * time (field 2), run time (4), processors (5, else 8); a job with run
 * time or processors missing is skipped (counted in *skipped).  Category
 * and MPKI are assigned from a seeded draw over the four categories of
 * the 2013 gang-scheduling thesis (SWF carries none).  Processors above
 * cores are clipped to cores (counted in *clipped). */
int sim_swf_load(const char *path, int cores, uint64_t seed, sim_mix_t mix,
		 sim_workload_t *w, size_t *skipped, size_t *clipped,
		 cosched_error_t *err);
/* Lublin and Feitelson's model (sim_lublin.c): n jobs, sizes up to
 * cores; submit times in the model's gap units until sim_scale_load(). */
int sim_lublin_generate(size_t n, int cores, uint64_t seed, sim_mix_t mix,
			sim_workload_t *w, cosched_error_t *err);
/* Scale the submit times of apps [first, n) to an offered load on
 * total_cores cores. */
int sim_scale_load(sim_workload_t *w, size_t first, double total_cores,
		   double load, cosched_error_t *err);
/* A drawn arrival stream (--draw --generate, cosched-sim(1), DRAWN
 * WORKLOADS) is sim_lublin_generate() from the seed at this offered load,
 * uniform in SIM_DRAW_MIN_LOAD..SIM_DRAW_MAX_LOAD and drawn from a stream
 * of its own, so the jobs are --generate's with that seed. */
#define SIM_DRAW_MIN_LOAD 0.5
#define SIM_DRAW_MAX_LOAD 0.9
double sim_lublin_draw_load(uint64_t seed);

/* ---- migration victims (sim_numa.c) ------------------------------ */
/* The migration experiment of "Dynamic memory placement of applications
 * on a NUMA system" (NTUA thesis, 2020) in model form. */

#define SIM_NUMA_MAX_NODES 8

typedef struct {
	int nodes;
	unsigned distance[SIM_NUMA_MAX_NODES * SIM_NUMA_MAX_NODES];
	size_t procs;		/* spread over the nodes in turn */
	size_t requests;	/* one per interval */
	double interval_s;	/* 30 */
	uint64_t seed;		/* the instance: processes and requests */
	size_t freeze;		/* frozen pages thaw every N requests; 0: after
				 * each (no freeze across requests) */
	size_t random_draws;	/* Random is the mean of this many draws */
} sim_numa_conf_t;

typedef struct {
	double geomean;		/* of normalised times */
	double worst;		/* highest normalised time */
	double light, heavy;	/* mean normalised time of the lowest and
				 * highest bandwidth quarter */
	uint64_t asked, moved;
	size_t short_requests;	/* "cannot migrate any more pages" */
	size_t n;
	double *norm;		/* per process */
} sim_numa_result_t;

void sim_numa_conf_default(sim_numa_conf_t *c);
/* Time with every page at distance 21, relative to all local. */
double sim_numa_remote(double bw_gbs);
/* Time relative to all local with p's pages where they are. */
double sim_numa_slowdown(const sim_numa_conf_t *c,
			 const cosched_victim_proc_t *p);
/* One run: every request planned by order (draw seeds Random) and
 * applied. */
int sim_numa_run(const sim_numa_conf_t *c, cosched_victim_order_t order,
		 unsigned flags, uint64_t draw, sim_numa_result_t *r,
		 cosched_error_t *err);
void sim_numa_result_free(sim_numa_result_t *r);

/* ---- shared helpers ---------------------------------------------- */
uint64_t sim_rng_next(uint64_t *state);
double sim_rng_unit(uint64_t *state);
void sim_assign_class(sim_app_t *a, uint64_t *rng, sim_mix_t mix);

#endif
