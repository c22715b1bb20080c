/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_cli.h - the cosched-sim(1) command around the simulator library
 * (sim.h): its options (sim_options.c), its experiments, which run the
 * library and keep the results (sim_experiments.c), and its reports,
 * which print them as a table, CSV or JSON (sim_report.c, JSON by
 * jansson).  An experiment computes everything first and reports after, so
 * --plot's JSON and the table asked for come from one run.
 */
#ifndef COSCHED_SIM_CLI_H
#define COSCHED_SIM_CLI_H

#include <jansson.h>

#include "research/sim/sim.h"

#define PROG "cosched-sim"

/* Exit statuses (cosched-sim(1)). */
#define SIM_EXIT_OK 0
#define SIM_EXIT_FAILED 1	/* the simulation or the plot failed */
#define SIM_EXIT_USAGE 2	/* a bad argument or workload file */

typedef enum { OUT_TABLE, OUT_CSV, OUT_JSON } out_t;

typedef struct {
	bool space;
	bool seed002;
	bool draw;		/* --draw: sim_workload_draw() from seed; with
				 * --generate, the load drawn */
	double solo_s;
	bool solo_given;
	bool pol[COSCHED_POLICY_PLACING_COUNT];
	int dvfs;		/* 0 off, 1 on, 2 both */
	bool optimum;
	out_t out;
	const char *timeline;
	const char *plot;	/* FILE.png or FILE.svg */
	const char *workload, *swf;
	size_t generate;
	sim_mix_t mix;		/* --mix, for --swf and --generate */
	double load;
	bool load_given;
	uint64_t seed;
	bool calibrate;
	double target;
	size_t bench_small, bench_large;
	bool seed000, anchor;
	size_t sets, procs, requests;
	sim_numa_conf_t numa;
	sim_ts_conf_t ts;
	sim_ss_conf_t ss;
} opts_t;

/* ---- options (sim_options.c) -------------------------------------- */

/*
 * The command line into o and m (the model options), every combination
 * checked: SIM_EXIT_OK to go on, else the exit status (the message
 * printed; --help printed and 0 is -1 here: nothing more to do).
 */
#define SIM_OPTIONS_DONE (-1)
int sim_options_parse(int argc, char **argv, opts_t *o, sim_model_t *m);
/* The applications the options name (a file, --seed002, --swf,
 * --generate), checked against the model; SIM_EXIT_OK or the status. */
int sim_options_workload(const opts_t *o, const sim_model_t *m,
			 sim_workload_t *w);

/* ---- experiments (sim_experiments.c) ------------------------------ */

/* Run what the options ask for and report it; the exit status. */
int sim_run(const opts_t *o, const sim_model_t *m, const sim_workload_t *w);

/* ---- results and reports (sim_report.c) --------------------------- */

typedef struct {
	sim_ts_result_t r;
	bool dvfs;
	double norm, opt_ratio, rand_fair;
} ts_row_t;

/* The quanta of one run kept for --plot ("timeline" in the JSON). */
#define PLOT_QUANTA 48

typedef struct {
	int policy;		/* whose run */
	json_t *quanta;		/* [[time_s, gang, [[name, threads, mhz,
				 * slowdown], ...]], ...], or NULL */
	FILE *text;		/* --timeline FILE, or NULL */
} ts_timeline_t;

typedef struct {
	ts_row_t *rows;
	size_t n;
	double opt_rate;	/* runs per second; NAN without --optimum */
	const ts_timeline_t *timeline;
} ts_report_t;

typedef struct {
	sim_ss_result_t *rows;	/* exclusive, blind, then the policies */
	size_t n;
} ss_report_t;

typedef struct {
	double g, worst, light, heavy;
	uint64_t asked, moved;
	size_t shorts;
} numa_cell_t;

#define NUMA_MODES 2
typedef struct {
	size_t nsets;
	numa_cell_t *cells;	/* [set][mode][order] */
	size_t *procs, *requests;	/* per set */
	double sum[NUMA_MODES][COSCHED_VICTIM_COUNT];
	double heavy_worst, light_worst, max_worst;
} numa_report_t;

#define NUMA_CELL(rep, s, m, v) \
	((rep)->cells[((s) * NUMA_MODES + (m)) * COSCHED_VICTIM_COUNT + (v)])

typedef struct {
	sim_ss_result_t ex[4];	/* exclusive at half/all cores each */
	int ex_thr[4][2];	/* mem, cpu threads */
	int best;		/* the best exclusive schedule */
	/* shared: blind, then the policies */
	sim_ss_result_t sh[COSCHED_POLICY_PLACING_COUNT + 1];
	int nsh;
	const sim_ss_conf_t *c;
	int half;
} anchor_report_t;

typedef struct {
	size_t counts[2];
	double t[2][COSCHED_POLICY_PLACING_COUNT + 2];
	const char *label[COSCHED_POLICY_PLACING_COUNT + 2];
	int nv;
} bench_report_t;

double sim_rand_fairness(const sim_workload_t *w, const sim_ts_result_t *r);

void sim_report_ts(const opts_t *o, const sim_model_t *m,
		   const sim_workload_t *w, const ts_report_t *rep);
void sim_report_ss(const opts_t *o, const sim_model_t *m,
		   const sim_workload_t *w, const ss_report_t *rep);
void sim_report_numa(const opts_t *o, const numa_report_t *rep);
void sim_report_anchor(const opts_t *o, const anchor_report_t *rep);
void sim_report_bench(const opts_t *o, const bench_report_t *rep);

/* The JSON documents (--json, and --plot's input); NULL when out of
 * memory. */
json_t *sim_json_ts(const opts_t *o, const sim_model_t *m,
		    const sim_workload_t *w, const ts_report_t *rep);
json_t *sim_json_ss(const opts_t *o, const sim_workload_t *w,
		    const ss_report_t *rep);
json_t *sim_json_numa(const opts_t *o, const numa_report_t *rep);
json_t *sim_json_anchor(const opts_t *o, const anchor_report_t *rep);
/* doc on one line to f; 0 or -1. */
int sim_json_write(const json_t *doc, FILE *f);

#endif
