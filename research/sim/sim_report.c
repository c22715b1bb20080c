/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_report.c - cosched-sim(1)'s output: the results an experiment kept
 * (sim_cli.h), printed as an aligned table or CSV, or built as a JSON
 * document with jansson (--json, and the input of --plot's drawing tool).
 * Nothing here runs the simulator.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "research/sim/sim_cli.h"

double sim_rand_fairness(const sim_workload_t *w, const sim_ts_result_t *r)
{
	double s = 0;
	int n = 0;
	for (size_t i = 0; i < w->n; i++)
		if (w->apps[i].cat == COSCHED_CAT_RAND) {
			s += r->fair[i];
			n++;
		}
	return n ? s / n : NAN;
}

/* A figure that may not exist (no rand application, no optimum, an
 * application that never finished): "-" in the table, an empty CSV field,
 * null in JSON (sim_json_real). */
static const char *fig(char *buf, size_t size, const char *fmt, double v,
		       const char *none)
{
	if (!isfinite(v))
		return none;
	snprintf(buf, size, fmt, v);
	return buf;
}

/* A number or, when it does not exist (NaN, infinite), null. */
static json_t *sim_json_real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

int sim_json_write(const json_t *doc, FILE *f)
{
	/* %.10g, as the figures were printed before jansson wrote them. */
	if (json_dumpf(doc, f, JSON_REAL_PRECISION(10)) < 0 ||
	    fputc('\n', f) == EOF)
		return -1;
	return 0;
}

/* Building a document: the first allocation that fails makes it NULL. */
typedef struct {
	bool failed;
} jb_t;

static json_t *jb_obj(jb_t *b)
{
	json_t *o = json_object();
	if (!o)
		b->failed = true;
	return o;
}

static json_t *jb_arr(jb_t *b)
{
	json_t *a = json_array();
	if (!a)
		b->failed = true;
	return a;
}

/* Both take v's reference, as jansson's *_new calls do, even when they
 * fail. */
static void jb_set(jb_t *b, json_t *obj, const char *key, json_t *v)
{
	if (!obj || !v) {
		json_decref(v);
		b->failed = true;
	} else if (json_object_set_new(obj, key, v) < 0) {
		b->failed = true;
	}
}

static void jb_push(jb_t *b, json_t *arr, json_t *v)
{
	if (!arr || !v) {
		json_decref(v);
		b->failed = true;
	} else if (json_array_append_new(arr, v) < 0) {
		b->failed = true;
	}
}

static json_t *jb_done(jb_t *b, json_t *doc)
{
	if (b->failed) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

#define JREAL(b, o, k, v) jb_set(b, o, k, sim_json_real(v))
#define JINT(b, o, k, v) jb_set(b, o, k, json_integer((json_int_t)(v)))
#define JSTR(b, o, k, v) jb_set(b, o, k, json_string(v))
#define JBOOL(b, o, k, v) jb_set(b, o, k, json_boolean(v))

/* ---- time-shared ------------------------------------------------- */

static void ts_table(const ts_report_t *rep)
{
	const ts_row_t *rows = rep->rows;
	bool have_opt = !isnan(rep->opt_rate);

	printf("%-18s %-4s %5s %10s %7s %6s %6s %6s %8s %9s %8s %7s %10s%s\n",
	       "policy", "dvfs", "gangs", "runs/h", "tput", "fair", "worst",
	       "rand", "wait_s", "energy_kJ", "J/run", "EDP", "all_once_s",
	       have_opt ? "   opt" : "");
	for (size_t i = 0; i < rep->n; i++) {
		const ts_row_t *x = &rows[i];
		char rb[32], ob[32], ab[32];
		printf("%-18s %-4s %5zu %10.2f %7.3f %6.3f %6.3f %6s %8.1f "
		       "%9.1f %8.1f %7.3f %10s%s%s\n", x->r.label,
		       x->dvfs ? "on" : "off", x->r.gangs, x->r.throughput_h,
		       x->norm, x->r.fair_avg, x->r.fair_worst,
		       fig(rb, sizeof(rb), "%.3f", x->rand_fair, "-"),
		       x->r.wait_avg_s, x->r.energy_j / 1e3,
		       x->r.energy_j / x->r.work, x->r.edp / rows[0].r.edp,
		       fig(ab, sizeof(ab), "%.1f", x->r.all_once_s, "-"),
		       have_opt ? " " : "", have_opt ?
		       fig(ob, sizeof(ob), "%5.3f", x->opt_ratio, "    -") : "");
	}
	if (have_opt)
		printf("optimum steady-state throughput: %.2f runs/h\n",
		       rep->opt_rate * 3600);
}

static void ts_dvfs(const ts_report_t *rep)
{
	const ts_row_t *rows = rep->rows;

	printf("\nDVFS (on vs off, same policy):\n");
	printf("%-18s %12s %12s\n", "policy", "energy_save%", "tput_loss%");
	for (size_t i = 0; i < rep->n; i++) {
		if (rows[i].dvfs)
			continue;
		for (size_t j = 0; j < rep->n; j++)
			if (rows[j].dvfs && !strcmp(rows[j].r.label, rows[i].r.label))
				printf("%-18s %12.2f %12.2f\n", rows[i].r.label,
				       100 * (1 - rows[j].r.energy_j / rows[i].r.energy_j),
				       100 * (1 - rows[j].r.throughput_h /
					      rows[i].r.throughput_h));
	}
}

static void ts_csv(const ts_report_t *rep)
{
	const ts_row_t *rows = rep->rows;

	printf("policy,dvfs,gangs,rounds,moves,elapsed_s,runs,completions,"
	       "runs_per_h,throughput_norm,fair_avg,fair_worst,fair_rand,"
	       "wait_avg_s,energy_j,energy_core_j,energy_uncore_j,"
	       "energy_dram_j,energy_per_run_j,edp,edp_norm,opt_ratio,"
	       "all_once_s\n");
	for (size_t i = 0; i < rep->n; i++) {
		const sim_ts_result_t *r = &rows[i].r;
		char rb[32], ob[32], ab[32];
		printf("%s,%s,%zu,%ld,%ld,%.3f,%.6f,%ld,%.6f,%.6f,%.6f,%.6f,%s,"
		       "%.6f,%.3f,%.3f,%.3f,%.3f,%.6f,%.6g,%.6f,%s,%s\n", r->label,
		       rows[i].dvfs ? "on" : "off", r->gangs, r->rounds, r->moves,
		       r->elapsed_s, r->work, r->completions, r->throughput_h,
		       rows[i].norm, r->fair_avg, r->fair_worst,
		       fig(rb, sizeof(rb), "%.6f", rows[i].rand_fair, ""),
		       r->wait_avg_s, r->energy_j, r->e_core, r->e_uncore,
		       r->e_dram, r->energy_j / r->work, r->edp,
		       r->edp / rows[0].r.edp,
		       fig(ob, sizeof(ob), "%.6f", rows[i].opt_ratio, ""),
		       fig(ab, sizeof(ab), "%.3f", r->all_once_s, ""));
	}
}

void sim_report_ts(const opts_t *o, const sim_model_t *m,
		   const sim_workload_t *w, const ts_report_t *rep)
{
	if (o->out == OUT_CSV) {
		ts_csv(rep);
		return;
	}
	printf("time-shared: %zu applications, %d-core package, quantum "
	       "%g s, window %g s, table %s (catastrophic %.3g), seed "
	       "%llu%s\n", w->n, o->ts.capacity, o->ts.quantum_s,
	       o->ts.window_s, m->table, m->catastrophic,
	       (unsigned long long)o->ts.seed, o->ts.arrive ?
	       ", arriving one at a time (incremental form)" : "");
	ts_table(rep);
	if (o->dvfs == 2)
		ts_dvfs(rep);
}

/* The workload's programs ("apps"); space-shared, with their submit
 * times. */
static void json_apps(jb_t *b, json_t *doc, const sim_workload_t *w,
		      bool submit)
{
	json_t *apps = jb_arr(b);

	for (size_t i = 0; i < w->n; i++) {
		const sim_app_t *a = &w->apps[i];
		json_t *x = jb_obj(b);
		JSTR(b, x, "name", a->name);
		JINT(b, x, "threads", a->threads);
		JREAL(b, x, "mpki", a->mpki);
		JINT(b, x, "mhz", a->mhz);
		JSTR(b, x, "category", cosched_category_name(a->cat));
		JREAL(b, x, "solo_s", a->solo_s);
		if (submit)
			JREAL(b, x, "submit_s", a->submit_s);
		jb_push(b, apps, x);
	}
	jb_set(b, doc, "apps", apps);
}

json_t *sim_json_ts(const opts_t *o, const sim_model_t *m,
		    const sim_workload_t *w, const ts_report_t *rep)
{
	jb_t b = { false };
	json_t *doc = jb_obj(&b), *model = jb_obj(&b);
	json_t *rows = jb_arr(&b);

	JSTR(&b, doc, "setting", "time");
	JSTR(&b, model, "table", m->table);
	JREAL(&b, model, "catastrophic", m->catastrophic);
	JSTR(&b, model, "freq_domain", m->freq_rule == SIM_FREQ_PER_APP ?
	     "per-app" : "max");
	jb_set(&b, doc, "model", model);
	JREAL(&b, doc, "window_s", o->ts.window_s);
	JREAL(&b, doc, "quantum_s", o->ts.quantum_s);
	JINT(&b, doc, "capacity", o->ts.capacity);
	JINT(&b, doc, "seed", o->ts.seed);
	JBOOL(&b, doc, "arrive", o->ts.arrive);
	if (rep->timeline && rep->timeline->quanta) {
		json_t *tl = jb_obj(&b);
		JSTR(&b, tl, "policy", cosched_policy_name(
			     (cosched_policy_t)rep->timeline->policy));
		jb_set(&b, tl, "quanta", json_incref(rep->timeline->quanta));
		jb_set(&b, doc, "timeline", tl);
	}
	if (!isnan(rep->opt_rate))
		JREAL(&b, doc, "optimum_runs_per_h", rep->opt_rate * 3600);
	json_apps(&b, doc, w, false);
	for (size_t i = 0; i < rep->n; i++) {
		const ts_row_t *x = &rep->rows[i];
		const sim_ts_result_t *r = &x->r;
		json_t *row = jb_obj(&b), *per = jb_obj(&b);
		JSTR(&b, row, "policy", r->label);
		JBOOL(&b, row, "dvfs", x->dvfs);
		JINT(&b, row, "gangs", r->gangs);
		JINT(&b, row, "rounds", r->rounds);
		JINT(&b, row, "moves", r->moves);
		JINT(&b, row, "completions", r->completions);
		JREAL(&b, row, "elapsed_s", r->elapsed_s);
		JREAL(&b, row, "runs", r->work);
		JREAL(&b, row, "runs_per_h", r->throughput_h);
		JREAL(&b, row, "throughput_norm", x->norm);
		JREAL(&b, row, "fair_avg", r->fair_avg);
		JREAL(&b, row, "fair_worst", r->fair_worst);
		JREAL(&b, row, "fair_rand", x->rand_fair);
		JREAL(&b, row, "wait_avg_s", r->wait_avg_s);
		JREAL(&b, row, "energy_j", r->energy_j);
		JREAL(&b, row, "energy_core_j", r->e_core);
		JREAL(&b, row, "energy_uncore_j", r->e_uncore);
		JREAL(&b, row, "energy_dram_j", r->e_dram);
		JREAL(&b, row, "edp", r->edp);
		JREAL(&b, row, "edp_norm", r->edp / rep->rows[0].r.edp);
		JREAL(&b, row, "opt_ratio", x->opt_ratio);
		JREAL(&b, row, "plan_value", r->plan_value);
		JREAL(&b, row, "all_once_s", r->all_once_s);
		JREAL(&b, row, "longest_round_s", r->round_s);
		for (size_t k = 0; k < w->n; k++) {
			json_t *pa = jb_obj(&b);
			JREAL(&b, pa, "fair", r->fair[k]);
			JREAL(&b, pa, "runs", r->work_app[k]);
			JREAL(&b, pa, "first_done_s", r->first_done_s[k]);
			JINT(&b, pa, "completions", r->compl_app[k]);
			jb_set(&b, per, w->apps[k].name, pa);
		}
		jb_set(&b, row, "apps", per);
		jb_push(&b, rows, row);
	}
	jb_set(&b, doc, "rows", rows);
	return jb_done(&b, doc);
}

/* ---- space-shared ------------------------------------------------ */

/* Throughput normalised to GANG (one job per socket): the third row. */
#define SS_GANG_ROW 2

void sim_report_ss(const opts_t *o, const sim_model_t *m,
		   const sim_workload_t *w, const ss_report_t *rep)
{
	const sim_ss_result_t *rows = rep->rows;
	double gang_tp = rows[SS_GANG_ROW].throughput_h;

	if (o->out == OUT_CSV) {
		printf("variant,jobs,makespan_s,jobs_per_h,throughput_norm,util,"
		       "wait_avg_s,bsld_avg,fair_avg,fair_worst,energy_j,"
		       "energy_core_j,energy_uncore_j,energy_dram_j,edp,sim_s,"
		       "events\n");
		for (size_t i = 0; i < rep->n; i++) {
			const sim_ss_result_t *r = &rows[i];
			printf("%s,%zu,%.3f,%.6f,%.6f,%.6f,%.3f,%.6f,%.6f,%.6f,%.3f,"
			       "%.3f,%.3f,%.3f,%.6g,%.4f,%zu\n", r->label, r->jobs,
			       r->makespan_s, r->throughput_h,
			       r->throughput_h / gang_tp, r->util, r->wait_avg_s,
			       r->bsld_avg, r->fair_avg, r->fair_worst, r->energy_j,
			       r->e_core, r->e_uncore, r->e_dram, r->edp, r->sim_s,
			       r->events);
		}
		return;
	}
	printf("space-shared: %zu jobs, %zu nodes x %d sockets x %d cores, "
	       "dvfs %s, table %s, queue %s", w->n, o->ss.nodes,
	       o->ss.sockets, o->ss.cores, o->ss.dvfs ? "on" : "off", m->table,
	       sim_queue_names[o->ss.queue]);
	if (o->generate)
		printf(", load %.3f%s", o->load, o->draw ? " (drawn)" : "");
	printf("\n");
	printf("%-18s %11s %10s %6s %6s %9s %7s %6s %6s %10s %9s %8s\n",
	       "variant", "makespan_s", "jobs/h", "tput", "util", "wait_s",
	       "bsld", "fair", "worst", "energy_kJ", "EDP", "sim_s");
	for (size_t i = 0; i < rep->n; i++) {
		const sim_ss_result_t *r = &rows[i];
		printf("%-18s %11.1f %10.2f %6.3f %6.3f %9.1f %7.3f %6.3f %6.3f "
		       "%10.1f %9.3f %8.3f\n", r->label, r->makespan_s,
		       r->throughput_h, r->throughput_h / gang_tp, r->util,
		       r->wait_avg_s, r->bsld_avg, r->fair_avg, r->fair_worst,
		       r->energy_j / 1e3, r->edp / rows[0].edp, r->sim_s);
	}
}

json_t *sim_json_ss(const opts_t *o, const sim_workload_t *w,
		    const ss_report_t *rep)
{
	jb_t b = { false };
	json_t *doc = jb_obj(&b), *rows = jb_arr(&b);
	double gang_tp = rep->rows[SS_GANG_ROW].throughput_h;

	JSTR(&b, doc, "setting", "space");
	JINT(&b, doc, "nodes", o->ss.nodes);
	JINT(&b, doc, "sockets", o->ss.sockets);
	JINT(&b, doc, "cores", o->ss.cores);
	JBOOL(&b, doc, "dvfs", o->ss.dvfs);
	JSTR(&b, doc, "queue", sim_queue_names[o->ss.queue]);
	JINT(&b, doc, "jobs", w->n);
	if (o->generate)
		JREAL(&b, doc, "load", o->load);
	json_apps(&b, doc, w, true);
	for (size_t i = 0; i < rep->n; i++) {
		const sim_ss_result_t *r = &rep->rows[i];
		json_t *row = jb_obj(&b);
		JSTR(&b, row, "variant", r->label);
		JREAL(&b, row, "makespan_s", r->makespan_s);
		JREAL(&b, row, "jobs_per_h", r->throughput_h);
		JREAL(&b, row, "throughput_norm", r->throughput_h / gang_tp);
		JREAL(&b, row, "util", r->util);
		JREAL(&b, row, "wait_avg_s", r->wait_avg_s);
		JREAL(&b, row, "bsld_avg", r->bsld_avg);
		JREAL(&b, row, "fair_avg", r->fair_avg);
		JREAL(&b, row, "fair_worst", r->fair_worst);
		JREAL(&b, row, "energy_j", r->energy_j);
		JREAL(&b, row, "energy_core_j", r->e_core);
		JREAL(&b, row, "energy_uncore_j", r->e_uncore);
		JREAL(&b, row, "energy_dram_j", r->e_dram);
		JREAL(&b, row, "edp", r->edp);
		JINT(&b, row, "events", r->events);
		JINT(&b, row, "heap_updates", r->pushes);
		JINT(&b, row, "heap_max", r->heap_max);
		JREAL(&b, row, "occ_avg", r->occ_avg);
		JINT(&b, row, "passed", r->passed);
		JINT(&b, row, "reservations", r->reservations);
		JINT(&b, row, "reserve_refusals", r->reserve_refusals);
		JREAL(&b, row, "sim_s", r->sim_s);
		jb_push(&b, rows, row);
	}
	jb_set(&b, doc, "rows", rows);
	return jb_done(&b, doc);
}

/* ---- scale benchmark --------------------------------------------- */

void sim_report_bench(const opts_t *o, const bench_report_t *rep)
{
	size_t small = rep->counts[0], large = rep->counts[1];
	bool pass = true;

	printf("scale: %zu nodes x %d sockets x %d cores, Lublin-Feitelson "
	       "arrivals at load %g, seed %llu\n", o->ss.nodes, o->ss.sockets,
	       o->ss.cores, o->load, (unsigned long long)o->seed);
	printf("%-18s %10s %12s %10s %12s %7s\n", "variant", "t(small)_s",
	       "jobs/s", "t(large)_s", "jobs/s", "growth");
	for (int v = 0; v < rep->nv; v++) {
		printf("%-18s %10.3f %12.0f %10.3f %12.0f %7.2f\n", rep->label[v],
		       rep->t[0][v], (double)small / rep->t[0][v], rep->t[1][v],
		       (double)large / rep->t[1][v], rep->t[1][v] / rep->t[0][v]);
		if (rep->t[1][v] >= 60.0)
			pass = false;
	}
	printf("jobs: small %zu, large %zu (linear growth = %.1f)\n", small,
	       large, (double)large / (double)small);
	printf("target each variant < 60 s at %zu jobs: %s\n", large,
	       pass ? "PASS" : "FAIL");
}

/* ---- migration victims ------------------------------------------- */
/* The victim orders of "Dynamic memory placement of applications on a
 * NUMA system" (NTUA thesis, 2020), in model form. */

static const char *const numa_mode_name[NUMA_MODES] = { "exact", "whole" };

void sim_report_numa(const opts_t *o, const numa_report_t *rep)
{
	int no = COSCHED_VICTIM_COUNT;

	printf("seed000: %d nodes, seed 000's distances, %g s between "
	       "requests, freeze %zu, random = mean of %zu draws\n",
	       o->numa.nodes, o->numa.interval_s, o->numa.freeze,
	       o->numa.random_draws);
	printf("geometric mean of normalised times:\n");
	printf("%3s %5s %5s %8s %-5s", "set", "seed", "procs", "requests",
	       "mode");
	for (int v = 0; v < no; v++)
		printf(" %10s", cosched_victim_order_name((cosched_victim_order_t)v));
	printf(" %8s %12s\n", "short(b)", "moved/ask(b)");
	for (size_t s = 0; s < rep->nsets; s++)
		for (int m = 0; m < NUMA_MODES; m++) {
			const numa_cell_t *best = &NUMA_CELL(rep, s, m, 0);
			printf("%3zu %5llu %5zu %8zu %-5s", s + 1,
			       (unsigned long long)(o->seed + s), rep->procs[s],
			       rep->requests[s], numa_mode_name[m]);
			for (int v = 0; v < no; v++)
				printf(" %10.4f", NUMA_CELL(rep, s, m, v).g);
			printf(" %8zu %12.3f\n", best->shorts,
			       (double)best->moved / (double)best->asked);
		}
	printf("\nmean over sets of geomean(order) / geomean(best) - 1, %%:\n");
	printf("%-5s", "mode");
	for (int v = 1; v < no; v++)
		printf(" %10s", cosched_victim_order_name((cosched_victim_order_t)v));
	printf("\n");
	for (int m = 0; m < NUMA_MODES; m++) {
		printf("%-5s", numa_mode_name[m]);
		for (int v = 1; v < no; v++)
			printf(" %10.2f", 100 * rep->sum[m][v] / (double)rep->nsets);
		printf("\n");
	}
	printf("seed 000: random +16, worst +37, best_plus about -3\n");
	printf("worst, exact: lowest-bandwidth quarter %.3f, highest quarter "
	       "%.3f, slowest process %.3f (highest over sets; seed 000: the "
	       "light barely change, the heavy up to 2.7)\n", rep->light_worst,
	       rep->heavy_worst, rep->max_worst);
}

json_t *sim_json_numa(const opts_t *o, const numa_report_t *rep)
{
	jb_t b = { false };
	json_t *doc = jb_obj(&b), *dist = jb_arr(&b), *sets = jb_arr(&b);
	json_t *summ = jb_arr(&b);
	int no = COSCHED_VICTIM_COUNT;

	JSTR(&b, doc, "setting", "seed000");
	JINT(&b, doc, "nodes", o->numa.nodes);
	for (int i = 0; i < o->numa.nodes * o->numa.nodes; i++)
		jb_push(&b, dist, json_integer(o->numa.distance[i]));
	jb_set(&b, doc, "distance", dist);
	JREAL(&b, doc, "interval_s", o->numa.interval_s);
	JINT(&b, doc, "freeze", o->numa.freeze);
	JINT(&b, doc, "random_draws", o->numa.random_draws);
	for (size_t s = 0; s < rep->nsets; s++) {
		json_t *set = jb_obj(&b), *rows = jb_arr(&b);
		JINT(&b, set, "set", s + 1);
		JINT(&b, set, "seed", o->seed + s);
		JINT(&b, set, "procs", rep->procs[s]);
		JINT(&b, set, "requests", rep->requests[s]);
		for (int m = 0; m < NUMA_MODES; m++)
			for (int v = 0; v < no; v++) {
				const numa_cell_t *x = &NUMA_CELL(rep, s, m, v);
				json_t *row = jb_obj(&b);
				JSTR(&b, row, "mode", numa_mode_name[m]);
				JSTR(&b, row, "order", cosched_victim_order_name(
					     (cosched_victim_order_t)v));
				JREAL(&b, row, "geomean", x->g);
				JREAL(&b, row, "worst", x->worst);
				JREAL(&b, row, "light", x->light);
				JREAL(&b, row, "heavy", x->heavy);
				JINT(&b, row, "asked", x->asked);
				JINT(&b, row, "moved", x->moved);
				JINT(&b, row, "short", x->shorts);
				jb_push(&b, rows, row);
			}
		jb_set(&b, set, "rows", rows);
		jb_push(&b, sets, set);
	}
	jb_set(&b, doc, "sets", sets);
	for (int m = 0; m < NUMA_MODES; m++)
		for (int v = 0; v < no; v++) {
			json_t *x = jb_obj(&b);
			JSTR(&b, x, "mode", numa_mode_name[m]);
			JSTR(&b, x, "order", cosched_victim_order_name(
				     (cosched_victim_order_t)v));
			JREAL(&b, x, "vs_best_pct",
			      100 * rep->sum[m][v] / (double)rep->nsets);
			jb_push(&b, summ, x);
		}
	jb_set(&b, doc, "summary", summ);
	return jb_done(&b, doc);
}

/* ---- the space-shared anchor (Breitbart et al., 2015) ------------- */

void sim_report_anchor(const opts_t *o, const anchor_report_t *rep)
{
	const sim_ss_result_t *best = &rep->ex[rep->best];

	printf("anchor: %zu nodes x 1 package x %d cores, one mem and one cpu "
	       "job per node, %g s each alone at %d threads, dvfs %s\n",
	       rep->c->nodes, rep->c->cores, o->solo_s, rep->half,
	       rep->c->dvfs ? "on" : "off");
	printf("%-24s %11s %10s %8s %8s %7s\n", "schedule", "makespan_s",
	       "energy_kJ", "time-%", "energy-%", "worst");
	for (int i = 0; i < 4; i++) {
		char lab[48];
		snprintf(lab, sizeof(lab), "exclusive mem%d/cpu%d%s",
			 rep->ex_thr[i][0], rep->ex_thr[i][1],
			 i == rep->best ? " *" : "");
		printf("%-24s %11.1f %10.1f %8.2f %8.2f %7.3f\n", lab,
		       rep->ex[i].makespan_s, rep->ex[i].energy_j / 1e3,
		       100 * (1 - rep->ex[i].makespan_s / best->makespan_s),
		       100 * (1 - rep->ex[i].energy_j / best->energy_j),
		       rep->ex[i].fair_worst);
	}
	for (int i = 0; i < rep->nsh; i++) {
		const sim_ss_result_t *sh = &rep->sh[i];
		char lab[48];
		snprintf(lab, sizeof(lab), "shared %.30s", sh->label);
		printf("%-24s %11.1f %10.1f %8.2f %8.2f %7.3f\n", lab,
		       sh->makespan_s, sh->energy_j / 1e3,
		       100 * (1 - sh->makespan_s / best->makespan_s),
		       100 * (1 - sh->energy_j / best->energy_j),
		       sh->fair_worst);
	}
	printf("* best exclusive schedule; time-%% and energy-%% are savings "
	       "against it\n");
	printf("Breitbart et al. 2015: shared 28%% faster, 12%% less energy "
	       "than the best exclusive schedule\n");
}

json_t *sim_json_anchor(const opts_t *o, const anchor_report_t *rep)
{
	jb_t b = { false };
	json_t *doc = jb_obj(&b), *bex = jb_obj(&b), *ex = jb_arr(&b);
	json_t *rows = jb_arr(&b);
	const sim_ss_result_t *best = &rep->ex[rep->best];

	JSTR(&b, doc, "setting", "anchor");
	JINT(&b, doc, "nodes", rep->c->nodes);
	JINT(&b, doc, "cores", rep->c->cores);
	JREAL(&b, doc, "solo_s", o->solo_s);
	JBOOL(&b, doc, "dvfs", rep->c->dvfs);
	JINT(&b, bex, "mem_threads", rep->ex_thr[rep->best][0]);
	JINT(&b, bex, "cpu_threads", rep->ex_thr[rep->best][1]);
	JREAL(&b, bex, "makespan_s", best->makespan_s);
	JREAL(&b, bex, "energy_j", best->energy_j);
	jb_set(&b, doc, "best_exclusive", bex);
	for (int i = 0; i < 4; i++) {
		json_t *x = jb_obj(&b);
		JINT(&b, x, "mem_threads", rep->ex_thr[i][0]);
		JINT(&b, x, "cpu_threads", rep->ex_thr[i][1]);
		JREAL(&b, x, "makespan_s", rep->ex[i].makespan_s);
		JREAL(&b, x, "energy_j", rep->ex[i].energy_j);
		jb_push(&b, ex, x);
	}
	jb_set(&b, doc, "exclusive", ex);
	for (int i = 0; i < rep->nsh; i++) {
		const sim_ss_result_t *sh = &rep->sh[i];
		json_t *x = jb_obj(&b);
		JSTR(&b, x, "variant", sh->label);
		JREAL(&b, x, "makespan_s", sh->makespan_s);
		JREAL(&b, x, "energy_j", sh->energy_j);
		JREAL(&b, x, "fair_worst", sh->fair_worst);
		JREAL(&b, x, "time_saving_pct",
		      100 * (1 - sh->makespan_s / best->makespan_s));
		JREAL(&b, x, "energy_saving_pct",
		      100 * (1 - sh->energy_j / best->energy_j));
		jb_push(&b, rows, x);
	}
	jb_set(&b, doc, "rows", rows);
	return jb_done(&b, doc);
}
