/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_experiments.c - what cosched-sim(1) runs: the time-shared and
 * space-shared settings, the scale benchmark, the victims of "Dynamic
 * memory placement of applications on a NUMA system" (NTUA thesis, 2020),
 * the Breitbart anchor and the catastrophic factor's calibration.  Each
 * runs the simulator library (sim.h), keeps the results, then hands them
 * to the report (sim_report.c); --plot's drawing tool reads the same
 * results as JSON.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "research/sim/sim_cli.h"
#include "src/libcosched/base/text.h"

#ifndef COSCHED_SIM_PLOT_TOOL
#define COSCHED_SIM_PLOT_TOOL "research/sim/cosched-sim-plot"
#endif

/* ---- output and --plot ------------------------------------------- */

/* python3 TOOL --json IN --out FILE (COSCHED_SIM_PLOT names another
 * tool). */
static int plot_tool(const char *json, const char *out)
{
	const char *tool = getenv("COSCHED_SIM_PLOT");
	pid_t pid;
	int st;

	if (!tool || !*tool)
		tool = COSCHED_SIM_PLOT_TOOL;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, PROG ": --plot: fork: %s\n", strerror(errno));
		return SIM_EXIT_FAILED;
	}
	if (pid == 0) {
		execlp("python3", "python3", tool, "--json", json, "--out", out,
		       (char *)NULL);
		fprintf(stderr, PROG ": --plot: python3: %s\n", strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, PROG ": --plot: %s failed; nothing drawn\n",
			COSCHED_QUOTE(tool));
		return SIM_EXIT_FAILED;
	}
	return SIM_EXIT_OK;
}

/* The run's document into a temporary file for the drawing tool. */
static int plot(const char *out, const json_t *doc)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	FILE *f;
	int fd, rc;

	snprintf(path, sizeof(path), "%s/cosched-sim-plot.XXXXXX",
		 dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, PROG ": --plot: %s: %s\n", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return SIM_EXIT_FAILED;
	}
	if (sim_json_write(doc, f) < 0 || fclose(f) == EOF) {
		fprintf(stderr, PROG ": --plot: %s: cannot write\n", path);
		unlink(path);
		return SIM_EXIT_FAILED;
	}
	rc = plot_tool(path, out);
	unlink(path);
	return rc;
}

/*
 * The end of every experiment that can be drawn: the table or CSV has
 * been printed unless --json asked for doc; then --plot draws doc.  doc is
 * NULL when neither wanted it, or when building it ran out of memory.
 */
static int output(const opts_t *o, json_t *doc)
{
	int rc = SIM_EXIT_OK;

	if ((o->out == OUT_JSON || o->plot) && !doc) {
		fprintf(stderr, PROG ": JSON: out of memory\n");
		return SIM_EXIT_FAILED;
	}
	if (o->out == OUT_JSON && sim_json_write(doc, stdout) < 0) {
		fprintf(stderr, PROG ": JSON: cannot write\n");
		rc = SIM_EXIT_FAILED;
	}
	if (rc == SIM_EXIT_OK && o->plot)
		rc = plot(o->plot, doc);
	json_decref(doc);
	return rc;
}

static bool wants_json(const opts_t *o)
{
	return o->out == OUT_JSON || o->plot;
}

/* ---- time-shared ------------------------------------------------- */

/* The run whose gangs --timeline and --plot show: Application-Aware
 * when it runs, else the last policy asked for. */
static int timeline_policy(const opts_t *o)
{
	if (o->pol[COSCHED_POLICY_APP_AWARE])
		return COSCHED_POLICY_APP_AWARE;
	for (int p = COSCHED_POLICY_PLACING_COUNT - 1; p > 0; p--)
		if (o->pol[p])
			return p;
	return COSCHED_POLICY_GANG;
}

typedef struct {
	ts_timeline_t tl;
	bool failed;		/* out of memory for the quanta */
} timeline_sink_t;

/* One quantum: a --timeline line, and the first PLOT_QUANTA as data for
 * --plot's JSON (time_s, gang, [name, threads, mhz, slowdown] each). */
static void on_quantum(void *ctx, double time_s, int gang,
		       const sim_workload_t *w, const sim_member_t *mem,
		       const sim_perf_t *perf, int n)
{
	timeline_sink_t *sink = ctx;

	if (sink->tl.text) {
		fprintf(sink->tl.text, "%.3f\t%d\t", time_s, gang);
		for (int i = 0; i < n; i++)
			fprintf(sink->tl.text, "%s%s:%d:%ld:%.3f", i ? "," : "",
				w->apps[mem[i].app].name, mem[i].threads,
				perf[i].mhz, perf[i].slowdown);
		fputc('\n', sink->tl.text);
	}
	if (sink->tl.quanta &&
	    json_array_size(sink->tl.quanta) < PLOT_QUANTA) {
		json_t *members = json_array();
		for (int i = 0; members && i < n; i++)
			if (json_array_append_new(members, json_pack("[siIf]",
					w->apps[mem[i].app].name, mem[i].threads,
					(json_int_t)perf[i].mhz, perf[i].slowdown)) < 0)
				sink->failed = true;
		json_t *q = json_pack("[fio]", time_s, gang, members);
		if (!members || !q || json_array_append_new(sink->tl.quanta, q) < 0)
			sink->failed = true;
	}
}

/*
 * A round longer than the window runs once: every application gets at
 * most its gangs' quanta and the runs/h, ratios and fairness compare
 * fractions of one round, not policies (10,000 one-thread applications
 * under GANG: 0 completions, "throughput 2.000").  Refused, with the
 * window that would do.
 */
static bool round_exceeds_window(const sim_ts_conf_t *c,
				 const sim_ts_result_t *r)
{
	if (r->round_s <= c->window_s + 1e-9)
		return false;
	fprintf(stderr, PROG ": --window %g: one round of %s (%zu gangs of "
		"%g s) takes %g s, longer than the window: no application "
		"could run twice and its throughput would mean nothing; give "
		"a window of many rounds (--window %g is ten), or fewer "
		"applications\n", c->window_s, r->label, r->gangs, c->quantum_s,
		r->round_s, 10 * r->round_s);
	return true;
}

/* An application that never finished a run: runs/h counts fractions of
 * runs, and the all_once_s figure is "-"; said once per policy. */
static void warn_unfinished(const sim_workload_t *w, const ts_row_t *x)
{
	size_t never = 0, first = 0;

	for (size_t i = 0; i < w->n; i++)
		if (x->r.compl_app[i] == 0 && never++ == 0)
			first = i;
	if (never)
		fprintf(stderr, PROG ": warning: %s%s: %zu of %zu applications "
			"(first %s) never finished a run in the %g s window; "
			"runs/h counts fractions of runs\n", x->r.label,
			x->dvfs ? " (dvfs on)" : "", never, w->n,
			COSCHED_QUOTE(w->apps[first].name), x->r.elapsed_s);
}

static int run_time_shared(const opts_t *o, const sim_model_t *m,
			   const sim_workload_t *w)
{
	ts_row_t rows[2 * (COSCHED_POLICY_PLACING_COUNT + 1)];
	timeline_sink_t sink;
	ts_report_t rep = { .rows = rows, .opt_rate = NAN };
	cosched_error_t err;
	double opt_rate[2] = { NAN, NAN };
	size_t n = 0;
	int rc = SIM_EXIT_FAILED;

	memset(&sink, 0, sizeof(sink));
	sink.tl.policy = timeline_policy(o);
	if (o->optimum && w->n > SIM_OPT_MAX_APPS) {
		fprintf(stderr, PROG ": --optimum: %zu applications, at most %d\n",
			w->n, SIM_OPT_MAX_APPS);
		return SIM_EXIT_USAGE;
	}
	if (o->timeline) {
		sink.tl.text = fopen(o->timeline, "w");
		if (!sink.tl.text) {
			fprintf(stderr, PROG ": --timeline %s: cannot write\n",
				COSCHED_QUOTE(o->timeline));
			return SIM_EXIT_USAGE;
		}
		fprintf(sink.tl.text,
			"# time_s\tgang\tapp:threads:mhz:slowdown,...\n");
	}
	if (o->plot && !(sink.tl.quanta = json_array())) {
		fprintf(stderr, PROG ": --plot: out of memory\n");
		goto out;
	}
	for (int d = 0; d < 2; d++) {
		bool dvfs = d == 1;
		sim_ts_conf_t c = o->ts;
		if ((o->dvfs == 0 && dvfs) || (o->dvfs == 1 && !dvfs))
			continue;
		c.dvfs = dvfs;
		for (int p = 0; p < COSCHED_POLICY_PLACING_COUNT; p++) {
			/* GANG always runs: everything is normalised to it. */
			if (!o->pol[p] && p != COSCHED_POLICY_GANG)
				continue;
			/* The first (DVFS off when it runs) run of the
			 * timeline's policy. */
			bool shown = (sink.tl.text || sink.tl.quanta) &&
				p == sink.tl.policy && !(o->dvfs == 2 && dvfs);
			c.on_quantum = shown ? on_quantum : NULL;
			c.on_quantum_ctx = shown ? &sink : NULL;
			memset(&rows[n], 0, sizeof(rows[n]));
			if (sim_ts_run(m, w, (cosched_policy_t)p, &c, &rows[n].r,
				       &err) < 0) {
				fprintf(stderr, PROG ": %s: %s\n",
					cosched_policy_name((cosched_policy_t)p),
					err.msg);
				goto out;
			}
			rows[n].dvfs = dvfs;
			rows[n].opt_ratio = NAN;
			n++;
			if (round_exceeds_window(&c, &rows[n - 1].r)) {
				rc = SIM_EXIT_USAGE;
				goto out;
			}
		}
		if (o->optimum) {
			int gang_of[SIM_OPT_MAX_APPS], thr[SIM_OPT_MAX_APPS], ng;
			c.on_quantum = NULL;
			if (sim_optimum(m, w, &c, gang_of, thr, &ng, &opt_rate[d],
					&err) < 0 ||
			    sim_ts_run_static(m, w, gang_of, thr, ng, &c,
					      &rows[n].r, &err) < 0) {
				fprintf(stderr, PROG ": optimum: %s\n", err.msg);
				goto out;
			}
			snprintf(rows[n].r.label, sizeof(rows[n].r.label),
				 "optimum");
			rows[n].dvfs = dvfs;
			n++;
		}
	}
	if (sink.failed) {
		fprintf(stderr, PROG ": --plot: out of memory\n");
		goto out;
	}
	if (sink.tl.text) {
		int bad = ferror(sink.tl.text) | fclose(sink.tl.text);
		sink.tl.text = NULL;
		if (bad) {
			fprintf(stderr, PROG ": --timeline %s: cannot write\n",
				COSCHED_QUOTE(o->timeline));
			goto out;
		}
	}
	/* Normalise to GANG without DVFS when it ran, else GANG with. */
	for (size_t i = 0; i < n; i++) {
		rows[i].norm = rows[i].r.throughput_h / rows[0].r.throughput_h;
		rows[i].rand_fair = sim_rand_fairness(w, &rows[i].r);
		warn_unfinished(w, &rows[i]);
		if (o->optimum) {
			double rate = opt_rate[rows[i].dvfs ? 1 : 0];
			rows[i].opt_ratio = rows[i].r.throughput_h / 3600 / rate;
		}
	}
	rep.n = n;
	if (o->optimum)
		rep.opt_rate = opt_rate[o->dvfs == 1 ? 1 : 0];
	rep.timeline = &sink.tl;
	if (o->out != OUT_JSON)
		sim_report_ts(o, m, w, &rep);
	rc = output(o, wants_json(o) ? sim_json_ts(o, m, w, &rep) : NULL);
out:
	for (size_t i = 0; i < n; i++)
		sim_ts_result_free(&rows[i].r);
	if (sink.tl.text)
		fclose(sink.tl.text);
	json_decref(sink.tl.quanta);
	return rc;
}

/* Bisect the catastrophic factor so that the random-access programs'
 * average running time under Miss-Rate Balance, relative to their
 * standalone time (GANG runs them alone), is the target. */
static int calibrate(const opts_t *o, const sim_model_t *m0,
		     const sim_workload_t *w)
{
	double lo = 1.0, hi = COSCHED_SLOWDOWN_MAX, f = NAN;
	cosched_error_t err;
	sim_ts_conf_t c = o->ts;
	sim_model_t m = *m0;

	c.on_quantum = NULL;
	for (int it = 0; it < 60; it++) {
		double mid = 0.5 * (lo + hi);
		sim_ts_result_t r;
		sim_model_seed002_table(&m, mid);
		if (sim_ts_run(&m, w, COSCHED_POLICY_MISS_RATE_BALANCE, &c, &r,
			       &err) < 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			return SIM_EXIT_FAILED;
		}
		f = sim_rand_fairness(w, &r);
		sim_ts_result_free(&r);
		if (isnan(f)) {
			fprintf(stderr, PROG ": --calibrate: no rand application\n");
			return SIM_EXIT_USAGE;
		}
		if (f < o->target)
			lo = mid;
		else
			hi = mid;
	}
	printf("catastrophic factor %.4f: rand running time %.4f x standalone "
	       "under miss_rate_balance (target %.4f)\n", 0.5 * (lo + hi), f,
	       o->target);
	return SIM_EXIT_OK;
}

/* ---- space-shared ------------------------------------------------ */

/* Variant v of a space-shared run: exclusive, blind, then the policies. */
#define SS_VARIANTS (COSCHED_POLICY_PLACING_COUNT + 2)

static sim_variant_kind_t ss_kind(int v)
{
	return v == 0 ? SIM_VAR_EXCLUSIVE : v == 1 ? SIM_VAR_BLIND :
		SIM_VAR_POLICY;
}

static cosched_policy_t ss_policy(int v)
{
	return v >= 2 ? (cosched_policy_t)(v - 2) : COSCHED_POLICY_GANG;
}

static int run_space_shared(const opts_t *o, const sim_model_t *m,
			    const sim_workload_t *w)
{
	sim_ss_result_t rows[SS_VARIANTS];
	ss_report_t rep = { .rows = rows };
	cosched_error_t err;

	for (int v = 0; v < SS_VARIANTS; v++) {
		cosched_policy_t p = ss_policy(v);
		if (ss_kind(v) == SIM_VAR_POLICY && !o->pol[p] &&
		    p != COSCHED_POLICY_GANG)
			continue;
		if (sim_ss_run(m, w, ss_kind(v), p, &o->ss, &rows[rep.n],
			       &err) < 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			return SIM_EXIT_FAILED;
		}
		rep.n++;
	}
	if (o->out != OUT_JSON)
		sim_report_ss(o, m, w, &rep);
	return output(o, wants_json(o) ? sim_json_ss(o, w, &rep) : NULL);
}

/* ---- scale benchmark --------------------------------------------- */

/*
 * Every space-shared variant on the same cluster at two job counts
 * (generated, same seed and load): wall time, jobs simulated per second,
 * and the growth ratio t(large) / t(small), whose ideal is large / small
 * (linear).  Target: each variant under 60 s at the large count.
 */
static int run_scale_bench(const opts_t *o, const sim_model_t *m)
{
	bench_report_t rep = { .counts = { o->bench_small, o->bench_large },
			       .nv = SS_VARIANTS };
	cosched_error_t err;

	for (int k = 0; k < 2; k++) {
		sim_workload_t w = { 0 };
		if (sim_lublin_generate(rep.counts[k], o->ss.cores, o->seed,
					o->mix, &w,
					&err) < 0 ||
		    sim_scale_load(&w, 0, (double)o->ss.nodes * o->ss.sockets *
				   o->ss.cores, o->load, &err) < 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			sim_workload_free(&w);
			return SIM_EXIT_FAILED;
		}
		for (int v = 0; v < rep.nv; v++) {
			sim_ss_result_t r;
			if (sim_ss_run(m, &w, ss_kind(v), ss_policy(v), &o->ss,
				       &r, &err) < 0) {
				fprintf(stderr, PROG ": %s\n", err.msg);
				sim_workload_free(&w);
				return SIM_EXIT_FAILED;
			}
			rep.t[k][v] = r.sim_s;
			rep.label[v] = ss_kind(v) == SIM_VAR_EXCLUSIVE ?
				"exclusive" : ss_kind(v) == SIM_VAR_BLIND ?
				"blind" : cosched_policy_name(ss_policy(v));
		}
		sim_workload_free(&w);
	}
	sim_report_bench(o, &rep);
	return SIM_EXIT_OK;
}

/* ---- The 2020 memory-placement thesis: migration victims -------- */

/* The five experiment sets (the 2020 memory-placement thesis: "8 to 32
 * processes across nodes, 25 to 100 migrate commands"), each its own
 * instance seed. */
static const size_t set_procs[] = { 8, 16, 24, 32, 32 };
static const size_t set_requests[] = { 25, 50, 75, 100, 50 };
#define NSETS_DEFAULT 5

static int numa_cell(const sim_numa_conf_t *c, cosched_victim_order_t o,
		     unsigned flags, numa_cell_t *cell)
{
	size_t draws = o == COSCHED_VICTIM_RANDOM ? c->random_draws : 1;
	cosched_error_t err;

	memset(cell, 0, sizeof(*cell));
	for (size_t d = 0; d < draws; d++) {
		sim_numa_result_t r;
		if (sim_numa_run(c, o, flags, d + 1, &r, &err) < 0) {
			fprintf(stderr, PROG ": %s: %s\n",
				cosched_victim_order_name(o), err.msg);
			return -1;
		}
		cell->g += r.geomean / (double)draws;
		cell->worst += r.worst / (double)draws;
		cell->light += r.light / (double)draws;
		cell->heavy += r.heavy / (double)draws;
		cell->asked = r.asked;
		cell->moved += r.moved / draws;
		cell->shorts += r.short_requests;
		sim_numa_result_free(&r);
	}
	cell->shorts /= draws;
	return 0;
}

static int run_seed000(const opts_t *o)
{
	static const unsigned modes[NUMA_MODES] = { 0, COSCHED_VICTIM_WHOLE };
	numa_report_t rep = { .nsets = o->sets ? o->sets : NSETS_DEFAULT };
	int no = COSCHED_VICTIM_COUNT, rc = SIM_EXIT_FAILED;

	rep.cells = calloc(rep.nsets * NUMA_MODES * (size_t)no,
			   sizeof(*rep.cells));
	rep.procs = calloc(rep.nsets, sizeof(size_t));
	rep.requests = calloc(rep.nsets, sizeof(size_t));
	if (!rep.cells || !rep.procs || !rep.requests) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	for (size_t s = 0; s < rep.nsets; s++) {
		sim_numa_conf_t c = o->numa;
		c.procs = rep.procs[s] = o->procs ? o->procs :
			set_procs[s % NSETS_DEFAULT];
		c.requests = rep.requests[s] = o->requests ? o->requests :
			set_requests[s % NSETS_DEFAULT];
		c.seed = o->seed + s;
		for (int m = 0; m < NUMA_MODES; m++) {
			for (int v = 0; v < no; v++) {
				numa_cell_t *x = &NUMA_CELL(&rep, s, m, v);
				if (numa_cell(&c, (cosched_victim_order_t)v,
					      modes[m], x) < 0)
					goto out;
				rep.sum[m][v] += x->g / NUMA_CELL(&rep, s, m, 0).g - 1;
			}
			const numa_cell_t *w =
				&NUMA_CELL(&rep, s, m, COSCHED_VICTIM_WORST);
			if (m == 0) {
				rep.heavy_worst = fmax(rep.heavy_worst, w->heavy);
				rep.light_worst = fmax(rep.light_worst, w->light);
				rep.max_worst = fmax(rep.max_worst, w->worst);
			}
		}
	}
	if (o->out != OUT_JSON)
		sim_report_numa(o, &rep);
	rc = output(o, wants_json(o) ? sim_json_numa(o, &rep) : NULL);
out:
	free(rep.cells);
	free(rep.procs);
	free(rep.requests);
	return rc;
}

/* ---- the space-shared anchor (Breitbart et al., 2015) ------------- */

/*
 * One memory-bound and one compute-bound job per node, all submitted at
 * once, nodes of one package.  Shared: each job at half the cores, placed
 * by every policy (and blind).  Exclusive: one job per node at a time, each
 * at half or all the cores (its standalone time following the thread
 * scaling model); the best exclusive schedule is the combination with the
 * shortest makespan.  Published: sharing ran 28% faster and used 12% less
 * energy than the best exclusive schedule.
 */
static int anchor_workload(const opts_t *o, const sim_model_t *m, int t_mem,
			   int t_cpu, sim_workload_t *w)
{
	int half = o->ss.cores / 2 ? o->ss.cores / 2 : 1;
	cosched_error_t err;

	memset(w, 0, sizeof(*w));
	/* Every mem job, then every cpu job: in this order the exclusive
	 * schedule (first come, first served) is also the best one (each node
	 * runs one of each), and first-fit packing pairs mem with mem. */
	for (int c = 0; c < 2; c++) {
		for (size_t k = 0; k < o->ss.nodes; k++) {
			sim_app_t a;
			int t = c == 0 ? t_mem : t_cpu;
			memset(&a, 0, sizeof(a));
			snprintf(a.name, sizeof(a.name), "%s%zu",
				 c == 0 ? "mem" : "cpu", k + 1);
			a.threads = a.min_threads = a.max_threads = t;
			a.cat = c == 0 ? COSCHED_CAT_MEM : COSCHED_CAT_CPU;
			/* The MPKI of mem2 and of a cpu program in "Power-aware
			 * gang scheduling on multicore" (NTUA thesis, 2013). */
			a.mpki = c == 0 ? 5.38 : 0.01;
			a.mhz = c == 0 ? 1500 : 2200;
			/* solo at half the cores; at t by the scaling model */
			a.solo_s = o->solo_s * m->scale[t > m->nscale ? m->nscale : t] /
				m->scale[half > m->nscale ? m->nscale : half];
			if (sim_workload_add(w, &a, &err) < 0) {
				fprintf(stderr, PROG ": %s\n", err.msg);
				return -1;
			}
		}
	}
	return 0;
}

static int run_anchor(const opts_t *o, const sim_model_t *m)
{
	sim_ss_conf_t c = o->ss;
	anchor_report_t rep = { .best = -1, .c = &c };
	int threads[2];
	cosched_error_t err;
	sim_workload_t w;

	c.sockets = 1;
	rep.half = c.cores / 2 ? c.cores / 2 : 1;
	threads[0] = rep.half;
	threads[1] = c.cores;
	for (int i = 0; i < 4; i++) {
		rep.ex_thr[i][0] = threads[i / 2];
		rep.ex_thr[i][1] = threads[i % 2];
		if (anchor_workload(o, m, rep.ex_thr[i][0], rep.ex_thr[i][1],
				    &w) < 0)
			return SIM_EXIT_FAILED;
		int rc = sim_ss_run(m, &w, SIM_VAR_EXCLUSIVE, COSCHED_POLICY_GANG,
				    &c, &rep.ex[i], &err);
		sim_workload_free(&w);
		if (rc < 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			return SIM_EXIT_FAILED;
		}
		if (rep.best < 0 ||
		    rep.ex[i].makespan_s < rep.ex[rep.best].makespan_s)
			rep.best = i;
	}
	if (anchor_workload(o, m, rep.half, rep.half, &w) < 0)
		return SIM_EXIT_FAILED;
	for (int v = -1; v < COSCHED_POLICY_PLACING_COUNT; v++) {
		if (v >= 0 && !o->pol[v])
			continue;
		if (sim_ss_run(m, &w, v < 0 ? SIM_VAR_BLIND : SIM_VAR_POLICY,
			       v < 0 ? COSCHED_POLICY_GANG : (cosched_policy_t)v,
			       &c, &rep.sh[rep.nsh], &err) < 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			sim_workload_free(&w);
			return SIM_EXIT_FAILED;
		}
		rep.nsh++;
	}
	sim_workload_free(&w);
	if (o->out != OUT_JSON)
		sim_report_anchor(o, &rep);
	return output(o, wants_json(o) ? sim_json_anchor(o, &rep) : NULL);
}

/* ---- dispatch ---------------------------------------------------- */

int sim_run(const opts_t *o, const sim_model_t *m, const sim_workload_t *w)
{
	if (o->bench_large)
		return run_scale_bench(o, m);
	if (o->anchor)
		return run_anchor(o, m);
	if (o->seed000)
		return run_seed000(o);
	if (o->calibrate)
		return calibrate(o, m, w);
	if (o->space)
		return run_space_shared(o, m, w);
	return run_time_shared(o, m, w);
}
