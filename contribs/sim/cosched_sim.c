/*
 * cosched_sim.c - cosched-sim(1): what would each policy do to this
 * workload?  Replays it through the decision core (sim.h) and prints
 * seed 002's metrics as a table, CSV or JSON.
 *
 * Exit status: 0; 1 when the simulation fails; 2 on a bad argument or
 * workload file.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contribs/sim/sim.h"
#include "src/libcosched/cosched_number.h"
#include "src/libcosched/cosched_text.h"

#define PROG "cosched-sim"

typedef enum { OUT_TABLE, OUT_CSV, OUT_JSON } out_t;

typedef struct {
	bool space;
	bool seed002;
	double solo_s;
	bool solo_given;
	bool pol[COSCHED_POLICY_COUNT];
	int dvfs;		/* 0 off, 1 on, 2 both */
	bool optimum;
	out_t out;
	const char *timeline;
	const char *plot;	/* FILE.png or FILE.svg */
	const char *workload, *swf;
	size_t generate;
	double load;
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

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " [options] [WORKLOAD]\n"
"  WORKLOAD             workload file (cosched-sim(1), WORKLOAD FORMAT)\n"
"  --seed002            seed 002's artificial workload (no file needed)\n"
"  --solo S             its standalone time per application (default 50)\n"
"  --setting time|space time-shared gangs (default) or space-shared cluster\n"
"  --policy LIST        comma-separated policies (default: all five)\n"
"  --dvfs on|off|both   per-application frequencies (default off)\n"
"  --optimum            time-shared: the exact best gang partition (<= 12 apps)\n"
"  --window S --quantum S --capacity CORES --seed N\n"
"  --mrb-weight A --mrb-threshold T --mrb-start workload|zero\n"
"  --table seed002|seed001|FILE  --catastrophic X  --scaling FILE\n"
"  --miss-gain CAT=G[,...]  --freq-domain per-app|max\n"
"  --nodes N --sockets S --cores C --queue-depth N     (space)\n"
"  --swf FILE  --generate N  --load L                  (space arrivals)\n"
"  --bench-scale SMALL,LARGE  time every space-shared variant at two job\n"
"                       counts (--nodes, --load; the issue's: 100000,1000000)\n"

"  --seed000            seed 000's migration experiment in model form: every\n"
"                       victim order of the decision core, five sets\n"
"  --sets N --procs N --requests N --freeze N   (--seed000)\n"
"  --anchor             space-shared anchor (Breitbart et al. 2015): one\n"
"                       memory-bound + one compute-bound job per node against\n"
"                       the best exclusive schedule (--nodes, --cores, --solo)\n"
"  --calibrate [--target X]  catastrophic factor for seed 002's rand figure\n"
"  --timeline FILE      time-shared: one line per quantum\n"
"  --plot FILE.png|svg  also draw the results (bars per policy; time-shared:\n"
"                       the timeline of one run's gangs) with\n"
"                       contribs/sim/cosched-sim-plot (python3-matplotlib)\n"
"  --csv | --json       output format (default: aligned table)\n");
}

static int bad_arg(const char *opt, const char *val, const char *what)
{
	fprintf(stderr, PROG ": %s %s: %s\n", opt, COSCHED_QUOTE(val), what);
	return 2;
}

static int num(const char *opt, const char *v, double lo, double hi, double *out)
{
	if (cosched_parse_number(v, out) < 0 || *out < lo || *out > hi) {
		char what[96];
		snprintf(what, sizeof(what), "expected a number in %g..%g", lo, hi);
		return bad_arg(opt, v, what);
	}
	return 0;
}

static int inum(const char *opt, const char *v, long lo, long hi, long *out)
{
	if (cosched_parse_long(v, out) < 0 || *out < lo || *out > hi) {
		char what[96];
		snprintf(what, sizeof(what), "expected an integer in %ld..%ld",
			 lo, hi);
		return bad_arg(opt, v, what);
	}
	return 0;
}

/* JSON number or null (infinite, NaN). */
static void jnum(FILE *f, const char *key, double v, bool comma)
{
	if (isfinite(v))
		fprintf(f, "\"%s\": %.10g%s", key, v, comma ? ", " : "");
	else
		fprintf(f, "\"%s\": null%s", key, comma ? ", " : "");
}

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* ---- time-shared ------------------------------------------------- */

typedef struct {
	sim_ts_result_t r;
	bool dvfs;
	double norm, opt_ratio, rand_fair;
} ts_row_t;

static double rand_fairness(const sim_workload_t *w, const sim_ts_result_t *r)
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
 * null in JSON (jnum). */
static const char *fig(char *buf, size_t size, const char *fmt, double v,
		       const char *none)
{
	if (!isfinite(v))
		return none;
	snprintf(buf, size, fmt, v);
	return buf;
}

static void ts_print_table(const opts_t *o, const ts_row_t *rows, size_t n,
			   double opt_rate, bool have_opt)
{
	printf("%-18s %-4s %5s %10s %7s %6s %6s %6s %8s %9s %8s %7s %10s%s\n",
	       "policy", "dvfs", "gangs", "runs/h", "tput", "fair", "worst",
	       "rand", "wait_s", "energy_kJ", "J/run", "EDP", "all_once_s",
	       have_opt ? "   opt" : "");
	for (size_t i = 0; i < n; i++) {
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
	(void)o;
	if (have_opt)
		printf("optimum steady-state throughput: %.2f runs/h\n",
		       opt_rate * 3600);
}

static void ts_print_dvfs(const ts_row_t *rows, size_t n)
{
	printf("\nDVFS (on vs off, same policy):\n");
	printf("%-18s %12s %12s\n", "policy", "energy_save%", "tput_loss%");
	for (size_t i = 0; i < n; i++) {
		if (rows[i].dvfs)
			continue;
		for (size_t j = 0; j < n; j++)
			if (rows[j].dvfs && !strcmp(rows[j].r.label, rows[i].r.label))
				printf("%-18s %12.2f %12.2f\n", rows[i].r.label,
				       100 * (1 - rows[j].r.energy_j / rows[i].r.energy_j),
				       100 * (1 - rows[j].r.throughput_h /
					      rows[i].r.throughput_h));
	}
}

static void ts_print_csv(const ts_row_t *rows, size_t n)
{
	printf("policy,dvfs,gangs,rounds,moves,elapsed_s,runs,completions,"
	       "runs_per_h,throughput_norm,fair_avg,fair_worst,fair_rand,"
	       "wait_avg_s,energy_j,energy_core_j,energy_uncore_j,"
	       "energy_dram_j,energy_per_run_j,edp,edp_norm,opt_ratio,"
	       "all_once_s\n");
	for (size_t i = 0; i < n; i++) {
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

/* The run whose gangs --timeline and --plot show: Application-Aware
 * when it runs, else the last policy asked for. */
static int timeline_policy(const opts_t *o)
{
	if (o->pol[COSCHED_POLICY_APP_AWARE])
		return COSCHED_POLICY_APP_AWARE;
	for (int p = COSCHED_POLICY_COUNT - 1; p > 0; p--)
		if (o->pol[p])
			return p;
	return COSCHED_POLICY_GANG;
}

/* Quanta of the timeline kept in --plot's JSON. */
#define PLOT_QUANTA 48

/* "timeline": the first PLOT_QUANTA lines of a --timeline text, each as
 * [time_s, gang, [[name, threads, mhz, slowdown], ...]]. */
static void json_timeline(const opts_t *o, const char *text)
{
	int q = 0;

	printf("\"timeline\": {\"policy\": \"%s\", \"quanta\": [",
	       cosched_policy_name((cosched_policy_t)timeline_policy(o)));
	for (const char *l = text; l && *l && q < PLOT_QUANTA;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);
		char line[4096];
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, l, len);
		line[len] = '\0';
		l = end ? end + 1 : l + len;
		if (line[0] == '#' || !line[0])
			continue;
		char *save = NULL, *t = strtok_r(line, "\t", &save);
		char *g = strtok_r(NULL, "\t", &save);
		char *mem = strtok_r(NULL, "\t", &save);
		if (!t || !g || !mem)
			continue;
		printf("%s[%s, %s, [", q ? ", " : "", t, g);
		int k = 0;
		for (char *s2 = NULL, *x = strtok_r(mem, ",", &s2); x;
		     x = strtok_r(NULL, ",", &s2)) {
			char name[SIM_NAME_MAX + 1];
			int thr;
			long mhz;
			double sl;
			char *c1 = strchr(x, ':');
			if (!c1 || (size_t)(c1 - x) > SIM_NAME_MAX ||
			    sscanf(c1 + 1, "%d:%ld:%lf", &thr, &mhz, &sl) != 3)
				continue;
			memcpy(name, x, (size_t)(c1 - x));
			name[c1 - x] = '\0';
			printf("%s[", k++ ? ", " : "");
			jstr(stdout, name);
			printf(", %d, %ld, %.6g]", thr, mhz, sl);
		}
		printf("]]");
		q++;
	}
	printf("]}, ");
}

static void ts_print_json(const opts_t *o, const sim_model_t *m,
			  const sim_workload_t *w, const ts_row_t *rows,
			  size_t n, double opt_rate, bool have_opt,
			  const char *timeline)
{
	printf("{\"setting\": \"time\", \"model\": {\"table\": ");
	jstr(stdout, m->table);
	printf(", ");
	jnum(stdout, "catastrophic", m->catastrophic, true);
	printf("\"freq_domain\": \"%s\"}, ", m->freq_rule == SIM_FREQ_PER_APP ?
	       "per-app" : "max");
	jnum(stdout, "window_s", o->ts.window_s, true);
	jnum(stdout, "quantum_s", o->ts.quantum_s, true);
	printf("\"capacity\": %d, \"seed\": %llu, ", o->ts.capacity,
	       (unsigned long long)o->ts.seed);
	if (timeline)
		json_timeline(o, timeline);
	if (have_opt)
		jnum(stdout, "optimum_runs_per_h", opt_rate * 3600, true);
	printf("\"apps\": [");
	for (size_t i = 0; i < w->n; i++) {
		const sim_app_t *a = &w->apps[i];
		printf("%s{\"name\": ", i ? ", " : "");
		jstr(stdout, a->name);
		printf(", \"threads\": %d, \"mpki\": %g, \"mhz\": %ld, "
		       "\"category\": \"%s\", \"solo_s\": %g}", a->threads, a->mpki,
		       a->mhz, cosched_category_name(a->cat), a->solo_s);
	}
	printf("], \"rows\": [");
	for (size_t i = 0; i < n; i++) {
		const sim_ts_result_t *r = &rows[i].r;
		printf("%s{\"policy\": ", i ? ", " : "");
		jstr(stdout, r->label);
		printf(", \"dvfs\": %s, \"gangs\": %zu, \"rounds\": %ld, "
		       "\"moves\": %ld, \"completions\": %ld, ",
		       rows[i].dvfs ? "true" : "false", r->gangs, r->rounds,
		       r->moves, r->completions);
		jnum(stdout, "elapsed_s", r->elapsed_s, true);
		jnum(stdout, "runs", r->work, true);
		jnum(stdout, "runs_per_h", r->throughput_h, true);
		jnum(stdout, "throughput_norm", rows[i].norm, true);
		jnum(stdout, "fair_avg", r->fair_avg, true);
		jnum(stdout, "fair_worst", r->fair_worst, true);
		jnum(stdout, "fair_rand", rows[i].rand_fair, true);
		jnum(stdout, "wait_avg_s", r->wait_avg_s, true);
		jnum(stdout, "energy_j", r->energy_j, true);
		jnum(stdout, "energy_core_j", r->e_core, true);
		jnum(stdout, "energy_uncore_j", r->e_uncore, true);
		jnum(stdout, "energy_dram_j", r->e_dram, true);
		jnum(stdout, "edp", r->edp, true);
		jnum(stdout, "edp_norm", r->edp / rows[0].r.edp, true);
		jnum(stdout, "opt_ratio", rows[i].opt_ratio, true);
		jnum(stdout, "all_once_s", r->all_once_s, true);
		jnum(stdout, "longest_round_s", r->round_s, true);
		printf("\"apps\": {");
		for (size_t k = 0; k < w->n; k++) {
			printf("%s", k ? ", " : "");
			jstr(stdout, w->apps[k].name);
			printf(": {");
			jnum(stdout, "fair", r->fair[k], true);
			jnum(stdout, "runs", r->work_app[k], true);
			jnum(stdout, "first_done_s", r->first_done_s[k], true);
			printf("\"completions\": %ld}", r->compl_app[k]);
		}
		printf("}}");
	}
	printf("]}\n");
}

/* Bisect the catastrophic factor so that the random-access programs'
 * average running time under Miss-Rate Balance, relative to their
 * standalone time (GANG runs them alone), is the target. */
static int calibrate(const opts_t *o, sim_model_t *m, const sim_workload_t *w)
{
	double lo = 1.0, hi = COSCHED_SLOWDOWN_MAX, f = NAN;
	cosched_error_t err;
	sim_ts_conf_t c = o->ts;

	c.timeline = NULL;
	for (int it = 0; it < 60; it++) {
		double mid = 0.5 * (lo + hi);
		sim_ts_result_t r;
		sim_model_seed002_table(m, mid);
		if (sim_ts_run(m, w, COSCHED_POLICY_MISS_RATE_BALANCE, &c, &r,
			       &err) < 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			return 1;
		}
		f = rand_fairness(w, &r);
		sim_ts_result_free(&r);
		if (isnan(f)) {
			fprintf(stderr, PROG ": --calibrate: no rand application\n");
			return 2;
		}
		if (f < o->target)
			lo = mid;
		else
			hi = mid;
	}
	printf("catastrophic factor %.4f: rand running time %.4f x standalone "
	       "under miss_rate_balance (target %.4f)\n", 0.5 * (lo + hi), f,
	       o->target);
	return 0;
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
		"applications\n", c->window_s,
		r->label, r->gangs, c->quantum_s, r->round_s, 10 * r->round_s);
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
	ts_row_t rows[2 * (COSCHED_POLICY_COUNT + 1)];
	size_t n = 0;
	cosched_error_t err;
	double opt_rate[2] = { NAN, NAN };
	int rc = 1;
	FILE *tl = NULL;
	char *tlbuf = NULL;
	size_t tlsize = 0;
	int tlpol = timeline_policy(o);

	if (o->optimum && w->n > SIM_OPT_MAX_APPS) {
		fprintf(stderr, PROG ": --optimum: %zu applications, at most %d\n",
			w->n, SIM_OPT_MAX_APPS);
		return 2;
	}
	if (o->plot && o->out == OUT_JSON) {
		/* --plot's own run: keep the timeline for the JSON. */
		tl = open_memstream(&tlbuf, &tlsize);
		if (!tl) {
			fprintf(stderr, PROG ": --plot: out of memory\n");
			return 1;
		}
		fprintf(tl, "# time_s\tgang\tapp:threads:mhz:slowdown,...\n");
	} else if (o->timeline) {
		tl = fopen(o->timeline, "w");
		if (!tl) {
			fprintf(stderr, PROG ": --timeline %s: cannot write\n",
				COSCHED_QUOTE(o->timeline));
			return 2;
		}
		fprintf(tl, "# time_s\tgang\tapp:threads:mhz:slowdown,...\n");
	}
	for (int d = 0; d < 2; d++) {
		bool dvfs = d == 1;
		sim_ts_conf_t c = o->ts;
		if ((o->dvfs == 0 && dvfs) || (o->dvfs == 1 && !dvfs))
			continue;
		c.dvfs = dvfs;
		for (int p = 0; p < COSCHED_POLICY_COUNT; p++) {
			/* GANG always runs: everything is normalised to it. */
			if (!o->pol[p] && p != COSCHED_POLICY_GANG)
				continue;
			/* The first (DVFS off when it runs) run of the
			 * timeline's policy. */
			c.timeline = (tl && p == tlpol && !(o->dvfs == 2 && dvfs)) ?
				tl : NULL;
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
				rc = 2;
				goto out;
			}
		}
		if (o->optimum) {
			int gang_of[SIM_OPT_MAX_APPS], thr[SIM_OPT_MAX_APPS], ng;
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
	/* Normalise to GANG without DVFS when it ran, else GANG with. */
	for (size_t i = 0; i < n; i++) {
		rows[i].norm = rows[i].r.throughput_h / rows[0].r.throughput_h;
		rows[i].rand_fair = rand_fairness(w, &rows[i].r);
		warn_unfinished(w, &rows[i]);
		if (o->optimum) {
			double rate = opt_rate[rows[i].dvfs ? 1 : 0];
			rows[i].opt_ratio = rows[i].r.throughput_h / 3600 / rate;
		}
	}
	if (o->out == OUT_CSV) {
		ts_print_csv(rows, n);
	} else if (o->out == OUT_JSON) {
		if (tl && o->plot) {
			/* The memory stream: its buffer is valid once closed. */
			fclose(tl);
			tl = NULL;
		}
		if (tlbuf && o->timeline) {
			FILE *f = fopen(o->timeline, "w");
			if (!f || fputs(tlbuf, f) < 0) {
				fprintf(stderr, PROG ": --timeline %s: cannot "
					"write\n", COSCHED_QUOTE(o->timeline));
				if (f)
					fclose(f);
				goto out;
			}
			fclose(f);
		}
		ts_print_json(o, m, w, rows, n, opt_rate[o->dvfs == 1 ? 1 : 0],
			      o->optimum, tlbuf);
	} else {
		printf("time-shared: %zu applications, %d-core package, quantum "
		       "%g s, window %g s, table %s (catastrophic %.3g), seed "
		       "%llu\n", w->n, o->ts.capacity, o->ts.quantum_s,
		       o->ts.window_s, m->table, m->catastrophic,
		       (unsigned long long)o->ts.seed);
		ts_print_table(o, rows, n, opt_rate[o->dvfs == 1 ? 1 : 0],
			       o->optimum);
		if (o->dvfs == 2)
			ts_print_dvfs(rows, n);
	}
	rc = 0;
out:
	for (size_t i = 0; i < n; i++)
		sim_ts_result_free(&rows[i].r);
	if (tl)
		fclose(tl);
	free(tlbuf);
	return rc;
}

/* ---- space-shared ------------------------------------------------ */

static int run_space_shared(const opts_t *o, const sim_model_t *m,
			    const sim_workload_t *w)
{
	sim_ss_result_t rows[COSCHED_POLICY_COUNT + 2];
	size_t n = 0;
	cosched_error_t err;

	for (int v = 0; v < COSCHED_POLICY_COUNT + 2; v++) {
		sim_variant_kind_t kind = v == 0 ? SIM_VAR_EXCLUSIVE :
			v == 1 ? SIM_VAR_BLIND : SIM_VAR_POLICY;
		cosched_policy_t p = v >= 2 ? (cosched_policy_t)(v - 2) :
			COSCHED_POLICY_GANG;
		if (kind == SIM_VAR_POLICY && !o->pol[p] &&
		    p != COSCHED_POLICY_GANG)
			continue;
		if (sim_ss_run(m, w, kind, p, &o->ss, &rows[n], &err) < 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			return 1;
		}
		n++;
	}
	/* Throughput normalised to GANG (one job per socket). */
	double gang_tp = rows[2].throughput_h;
	if (o->out == OUT_CSV) {
		printf("variant,jobs,makespan_s,jobs_per_h,throughput_norm,util,"
		       "wait_avg_s,bsld_avg,fair_avg,fair_worst,energy_j,"
		       "energy_core_j,energy_uncore_j,energy_dram_j,edp,sim_s,"
		       "events\n");
		for (size_t i = 0; i < n; i++) {
			const sim_ss_result_t *r = &rows[i];
			printf("%s,%zu,%.3f,%.6f,%.6f,%.6f,%.3f,%.6f,%.6f,%.6f,%.3f,"
			       "%.3f,%.3f,%.3f,%.6g,%.4f,%zu\n", r->label, r->jobs,
			       r->makespan_s, r->throughput_h,
			       r->throughput_h / gang_tp, r->util, r->wait_avg_s,
			       r->bsld_avg, r->fair_avg, r->fair_worst, r->energy_j,
			       r->e_core, r->e_uncore, r->e_dram, r->edp, r->sim_s,
			       r->events);
		}
		return 0;
	}
	if (o->out == OUT_JSON) {
		printf("{\"setting\": \"space\", \"nodes\": %zu, \"sockets\": %d, "
		       "\"cores\": %d, \"dvfs\": %s, \"jobs\": %zu, \"rows\": [",
		       o->ss.nodes, o->ss.sockets, o->ss.cores,
		       o->ss.dvfs ? "true" : "false", w->n);
		for (size_t i = 0; i < n; i++) {
			const sim_ss_result_t *r = &rows[i];
			printf("%s{\"variant\": ", i ? ", " : "");
			jstr(stdout, r->label);
			printf(", ");
			jnum(stdout, "makespan_s", r->makespan_s, true);
			jnum(stdout, "jobs_per_h", r->throughput_h, true);
			jnum(stdout, "throughput_norm", r->throughput_h / gang_tp,
			     true);
			jnum(stdout, "util", r->util, true);
			jnum(stdout, "wait_avg_s", r->wait_avg_s, true);
			jnum(stdout, "bsld_avg", r->bsld_avg, true);
			jnum(stdout, "fair_avg", r->fair_avg, true);
			jnum(stdout, "fair_worst", r->fair_worst, true);
			jnum(stdout, "energy_j", r->energy_j, true);
			jnum(stdout, "energy_core_j", r->e_core, true);
			jnum(stdout, "energy_uncore_j", r->e_uncore, true);
			jnum(stdout, "energy_dram_j", r->e_dram, true);
			jnum(stdout, "edp", r->edp, true);
			printf("\"events\": %zu, \"heap_updates\": %zu, "
			       "\"heap_max\": %zu, ", r->events, r->pushes,
			       r->heap_max);
			jnum(stdout, "occ_avg", r->occ_avg, true);
			jnum(stdout, "sim_s", r->sim_s, false);
			printf("}");
		}
		printf("]}\n");
		return 0;
	}
	printf("space-shared: %zu jobs, %zu nodes x %d sockets x %d cores, "
	       "dvfs %s, table %s\n", w->n, o->ss.nodes, o->ss.sockets,
	       o->ss.cores, o->ss.dvfs ? "on" : "off", m->table);
	printf("%-18s %11s %10s %6s %6s %9s %7s %6s %6s %10s %9s %8s\n",
	       "variant", "makespan_s", "jobs/h", "tput", "util", "wait_s",
	       "bsld", "fair", "worst", "energy_kJ", "EDP", "sim_s");
	for (size_t i = 0; i < n; i++) {
		const sim_ss_result_t *r = &rows[i];
		printf("%-18s %11.1f %10.2f %6.3f %6.3f %9.1f %7.3f %6.3f %6.3f "
		       "%10.1f %9.3f %8.3f\n", r->label, r->makespan_s,
		       r->throughput_h, r->throughput_h / gang_tp, r->util,
		       r->wait_avg_s, r->bsld_avg, r->fair_avg, r->fair_worst,
		       r->energy_j / 1e3, r->edp / rows[0].edp, r->sim_s);
	}
	return 0;
}

/* ---- scale benchmark --------------------------------------------- */

/*
 * Every space-shared variant on the same cluster at two job counts
 * (generated, same seed and load): wall time, jobs simulated per second,
 * and the growth ratio t(large) / t(small), whose ideal is large / small
 * (linear).  Target: each variant under 60 s at the large count.
 */
static int run_scale_bench(const opts_t *o, const sim_model_t *m,
			   size_t small, size_t large)
{
	size_t counts[2] = { small, large };
	double t[2][COSCHED_POLICY_COUNT + 2];
	const char *label[COSCHED_POLICY_COUNT + 2];
	cosched_error_t err;
	int nv = COSCHED_POLICY_COUNT + 2;
	bool pass = true;

	for (int k = 0; k < 2; k++) {
		sim_workload_t w = { 0 };
		if (sim_lublin_generate(counts[k], o->ss.cores, o->seed, &w,
					&err) < 0 ||
		    sim_scale_load(&w, 0, (double)o->ss.nodes * o->ss.sockets *
				   o->ss.cores, o->load, &err) < 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			sim_workload_free(&w);
			return 1;
		}
		for (int v = 0; v < nv; v++) {
			sim_ss_result_t r;
			sim_variant_kind_t kind = v == 0 ? SIM_VAR_EXCLUSIVE :
				v == 1 ? SIM_VAR_BLIND : SIM_VAR_POLICY;
			cosched_policy_t p = v >= 2 ? (cosched_policy_t)(v - 2) :
				COSCHED_POLICY_GANG;
			if (sim_ss_run(m, &w, kind, p, &o->ss, &r, &err) < 0) {
				fprintf(stderr, PROG ": %s\n", err.msg);
				sim_workload_free(&w);
				return 1;
			}
			t[k][v] = r.sim_s;
			label[v] = kind == SIM_VAR_EXCLUSIVE ? "exclusive" :
				kind == SIM_VAR_BLIND ? "blind" :
				cosched_policy_name(p);
		}
		sim_workload_free(&w);
	}
	printf("scale: %zu nodes x %d sockets x %d cores, Lublin-Feitelson "
	       "arrivals at load %g, seed %llu\n", o->ss.nodes, o->ss.sockets,
	       o->ss.cores, o->load, (unsigned long long)o->seed);
	printf("%-18s %10s %12s %10s %12s %7s\n", "variant", "t(small)_s",
	       "jobs/s", "t(large)_s", "jobs/s", "growth");
	for (int v = 0; v < nv; v++) {
		printf("%-18s %10.3f %12.0f %10.3f %12.0f %7.2f\n", label[v],
		       t[0][v], (double)small / t[0][v], t[1][v],
		       (double)large / t[1][v], t[1][v] / t[0][v]);
		if (t[1][v] >= 60.0)
			pass = false;
	}
	printf("jobs: small %zu, large %zu (linear growth = %.1f)\n", small,
	       large, (double)large / (double)small);
	printf("target each variant < 60 s at %zu jobs: %s\n", large,
	       pass ? "PASS" : "FAIL");
	return 0;
}

/* ---- seed 000: migration victims --------------------------------- */

/* The five experiment sets (seed 000: "8 to 32 processes across nodes,
 * 25 to 100 migrate commands"), each its own instance seed. */
static const size_t set_procs[] = { 8, 16, 24, 32, 32 };
static const size_t set_requests[] = { 25, 50, 75, 100, 50 };
#define NSETS_DEFAULT 5

typedef struct {
	double g, worst, light, heavy;
	uint64_t asked, moved;
	size_t shorts;
} numa_cell_t;

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
	static const unsigned modes[2] = { 0, COSCHED_VICTIM_WHOLE };
	static const char *const mode_name[2] = { "exact", "whole" };
	size_t nsets = o->sets ? o->sets : NSETS_DEFAULT;
	numa_cell_t *cells;
	double sum[2][COSCHED_VICTIM_COUNT] = { { 0 } };
	double heavy_worst = 0, light_worst = 0, max_worst = 0;
	int no = COSCHED_VICTIM_COUNT;

	cells = calloc(nsets * 2 * (size_t)no, sizeof(*cells));
	if (!cells)
		return 1;
#define CELL(s, m, v) cells[((s) * 2 + (m)) * (size_t)no + (v)]
	if (o->out == OUT_TABLE) {
		printf("seed000: %d nodes, seed 000's distances, %g s between "
		       "requests, freeze %zu, random = mean of %zu draws\n",
		       o->numa.nodes, o->numa.interval_s, o->numa.freeze,
		       o->numa.random_draws);
		printf("geometric mean of normalised times:\n");
		printf("%3s %5s %5s %8s %-5s", "set", "seed", "procs",
		       "requests", "mode");
		for (int v = 0; v < no; v++)
			printf(" %10s", cosched_victim_order_name(
				       (cosched_victim_order_t)v));
		printf(" %8s %12s\n", "short(b)", "moved/ask(b)");
	}
	for (size_t s = 0; s < nsets; s++) {
		sim_numa_conf_t c = o->numa;
		c.procs = o->procs ? o->procs : set_procs[s % NSETS_DEFAULT];
		c.requests = o->requests ? o->requests :
			set_requests[s % NSETS_DEFAULT];
		c.seed = o->seed + s;
		for (int m = 0; m < 2; m++) {
			for (int v = 0; v < no; v++) {
				numa_cell_t *x = &CELL(s, m, v);
				if (numa_cell(&c, (cosched_victim_order_t)v,
					      modes[m], x) < 0) {
					free(cells);
					return 1;
				}
				sum[m][v] += x->g / CELL(s, m, 0).g - 1;
			}
			if (o->out == OUT_TABLE) {
				printf("%3zu %5llu %5zu %8zu %-5s", s + 1,
				       (unsigned long long)c.seed, c.procs,
				       c.requests, mode_name[m]);
				for (int v = 0; v < no; v++)
					printf(" %10.4f", CELL(s, m, v).g);
				printf(" %8zu %12.3f\n", CELL(s, m, 0).shorts,
				       (double)CELL(s, m, 0).moved /
				       (double)CELL(s, m, 0).asked);
			}
			const numa_cell_t *w = &CELL(s, m, COSCHED_VICTIM_WORST);
			if (m == 0) {
				heavy_worst = fmax(heavy_worst, w->heavy);
				light_worst = fmax(light_worst, w->light);
				max_worst = fmax(max_worst, w->worst);
			}
		}
	}
	if (o->out == OUT_JSON) {
		printf("{\"setting\": \"seed000\", \"nodes\": %d, \"distance\": [",
		       o->numa.nodes);
		for (int i = 0; i < o->numa.nodes * o->numa.nodes; i++)
			printf("%s%u", i ? ", " : "", o->numa.distance[i]);
		printf("], \"interval_s\": %g, \"freeze\": %zu, "
		       "\"random_draws\": %zu, \"sets\": [", o->numa.interval_s,
		       o->numa.freeze, o->numa.random_draws);
		for (size_t s = 0; s < nsets; s++) {
			printf("%s{\"set\": %zu, \"seed\": %llu, \"procs\": %zu, "
			       "\"requests\": %zu, \"rows\": [", s ? ", " : "",
			       s + 1, (unsigned long long)(o->seed + s),
			       o->procs ? o->procs : set_procs[s % NSETS_DEFAULT],
			       o->requests ? o->requests :
			       set_requests[s % NSETS_DEFAULT]);
			for (int m = 0; m < 2; m++)
				for (int v = 0; v < no; v++) {
					const numa_cell_t *x = &CELL(s, m, v);
					printf("%s{\"mode\": \"%s\", \"order\": \"%s\", ",
					       m || v ? ", " : "", mode_name[m],
					       cosched_victim_order_name(
						       (cosched_victim_order_t)v));
					jnum(stdout, "geomean", x->g, true);
					jnum(stdout, "worst", x->worst, true);
					jnum(stdout, "light", x->light, true);
					jnum(stdout, "heavy", x->heavy, true);
					printf("\"asked\": %llu, \"moved\": %llu, "
					       "\"short\": %zu}",
					       (unsigned long long)x->asked,
					       (unsigned long long)x->moved,
					       x->shorts);
				}
			printf("]}");
		}
		printf("], \"summary\": [");
		for (int m = 0; m < 2; m++)
			for (int v = 0; v < no; v++) {
				printf("%s{\"mode\": \"%s\", \"order\": \"%s\", ",
				       m || v ? ", " : "", mode_name[m],
				       cosched_victim_order_name(
					       (cosched_victim_order_t)v));
				jnum(stdout, "vs_best_pct",
				     100 * sum[m][v] / (double)nsets, false);
				printf("}");
			}
		printf("]}\n");
		free(cells);
		return 0;
	}
	printf("\nmean over sets of geomean(order) / geomean(best) - 1, %%:\n");
	printf("%-5s", "mode");
	for (int v = 1; v < no; v++)
		printf(" %10s", cosched_victim_order_name((cosched_victim_order_t)v));
	printf("\n");
	for (int m = 0; m < 2; m++) {
		printf("%-5s", mode_name[m]);
		for (int v = 1; v < no; v++)
			printf(" %10.2f", 100 * sum[m][v] / (double)nsets);
		printf("\n");
	}
	printf("seed 000: random +16, worst +37, best_plus about -3\n");
	printf("worst, exact: lowest-bandwidth quarter %.3f, highest quarter "
	       "%.3f, slowest process %.3f (highest over sets; seed 000: the "
	       "light barely change, the heavy up to 2.7)\n", light_worst,
	       heavy_worst, max_worst);
#undef CELL
	free(cells);
	return 0;
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
			a.mpki = c == 0 ? 5.38 : 0.01;	/* seed 002's mem2, cpu */
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
	int half = c.cores / 2 ? c.cores / 2 : 1;
	int opts_t_[2] = { half, c.cores };
	sim_ss_result_t ex[4], best_ex, sh[COSCHED_POLICY_COUNT + 1];
	int ex_thr[4][2], best = -1, nsh = 0;
	cosched_error_t err;
	sim_workload_t w;

	c.sockets = 1;
	c.dvfs = o->dvfs == 1;
	for (int i = 0; i < 4; i++) {
		ex_thr[i][0] = opts_t_[i / 2];
		ex_thr[i][1] = opts_t_[i % 2];
		if (anchor_workload(o, m, ex_thr[i][0], ex_thr[i][1], &w) < 0)
			return 1;
		int rc = sim_ss_run(m, &w, SIM_VAR_EXCLUSIVE, COSCHED_POLICY_GANG,
				    &c, &ex[i], &err);
		sim_workload_free(&w);
		if (rc < 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			return 1;
		}
		if (best < 0 || ex[i].makespan_s < ex[best].makespan_s)
			best = i;
	}
	best_ex = ex[best];
	if (anchor_workload(o, m, half, half, &w) < 0)
		return 1;
	for (int v = -1; v < COSCHED_POLICY_COUNT; v++) {
		if (v >= 0 && !o->pol[v])
			continue;
		if (sim_ss_run(m, &w, v < 0 ? SIM_VAR_BLIND : SIM_VAR_POLICY,
			       v < 0 ? COSCHED_POLICY_GANG : (cosched_policy_t)v,
			       &c, &sh[nsh], &err) < 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			sim_workload_free(&w);
			return 1;
		}
		nsh++;
	}
	sim_workload_free(&w);
	if (o->out == OUT_JSON) {
		printf("{\"setting\": \"anchor\", \"nodes\": %zu, \"cores\": %d, "
		       "\"solo_s\": %g, \"dvfs\": %s, \"best_exclusive\": "
		       "{\"mem_threads\": %d, \"cpu_threads\": %d, ", c.nodes,
		       c.cores, o->solo_s, c.dvfs ? "true" : "false",
		       ex_thr[best][0], ex_thr[best][1]);
		jnum(stdout, "makespan_s", best_ex.makespan_s, true);
		jnum(stdout, "energy_j", best_ex.energy_j, false);
		printf("}, \"exclusive\": [");
		for (int i = 0; i < 4; i++) {
			printf("%s{\"mem_threads\": %d, \"cpu_threads\": %d, ",
			       i ? ", " : "", ex_thr[i][0], ex_thr[i][1]);
			jnum(stdout, "makespan_s", ex[i].makespan_s, true);
			jnum(stdout, "energy_j", ex[i].energy_j, false);
			printf("}");
		}
		printf("], \"rows\": [");
		for (int i = 0; i < nsh; i++) {
			printf("%s{\"variant\": ", i ? ", " : "");
			jstr(stdout, sh[i].label);
			printf(", ");
			jnum(stdout, "makespan_s", sh[i].makespan_s, true);
			jnum(stdout, "energy_j", sh[i].energy_j, true);
			jnum(stdout, "fair_worst", sh[i].fair_worst, true);
			jnum(stdout, "time_saving_pct", 100 * (1 - sh[i].makespan_s /
						best_ex.makespan_s), true);
			jnum(stdout, "energy_saving_pct", 100 * (1 - sh[i].energy_j /
						best_ex.energy_j), false);
			printf("}");
		}
		printf("]}\n");
		return 0;
	}
	printf("anchor: %zu nodes x 1 package x %d cores, one mem and one cpu "
	       "job per node, %g s each alone at %d threads, dvfs %s\n",
	       c.nodes, c.cores, o->solo_s, half, c.dvfs ? "on" : "off");
	printf("%-24s %11s %10s %8s %8s %7s\n", "schedule", "makespan_s",
	       "energy_kJ", "time-%", "energy-%", "worst");
	for (int i = 0; i < 4; i++) {
		char lab[48];
		snprintf(lab, sizeof(lab), "exclusive mem%d/cpu%d%s",
			 ex_thr[i][0], ex_thr[i][1], i == best ? " *" : "");
		printf("%-24s %11.1f %10.1f %8.2f %8.2f %7.3f\n", lab,
		       ex[i].makespan_s, ex[i].energy_j / 1e3,
		       100 * (1 - ex[i].makespan_s / best_ex.makespan_s),
		       100 * (1 - ex[i].energy_j / best_ex.energy_j),
		       ex[i].fair_worst);
	}
	for (int i = 0; i < nsh; i++) {
		char lab[48];
		snprintf(lab, sizeof(lab), "shared %.30s", sh[i].label);
		printf("%-24s %11.1f %10.1f %8.2f %8.2f %7.3f\n", lab,
		       sh[i].makespan_s, sh[i].energy_j / 1e3,
		       100 * (1 - sh[i].makespan_s / best_ex.makespan_s),
		       100 * (1 - sh[i].energy_j / best_ex.energy_j),
		       sh[i].fair_worst);
	}
	printf("* best exclusive schedule; time-%% and energy-%% are savings "
	       "against it\n");
	printf("Breitbart et al. 2015: shared 28%% faster, 12%% less energy "
	       "than the best exclusive schedule\n");
	return 0;
}

/* ---- --plot ------------------------------------------------------ */

#ifndef COSCHED_SIM_PLOT_TOOL
#define COSCHED_SIM_PLOT_TOOL "contribs/sim/cosched-sim-plot"
#endif

static int run_space_shared(const opts_t *o, const sim_model_t *m,
			    const sim_workload_t *w);

static int dispatch(const opts_t *o, const sim_model_t *m,
		    const sim_workload_t *w)
{
	if (o->seed000)
		return run_seed000(o);
	if (o->space)
		return run_space_shared(o, m, w);
	return run_time_shared(o, m, w);
}

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
		return 1;
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
		return 1;
	}
	return 0;
}

/* The run in JSON into a temporary file, then the output asked for (the
 * same JSON, or a second run as a table), then the plot from the file. */
static int run_with_plot(opts_t *o, const sim_model_t *m,
			 const sim_workload_t *w)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	out_t user = o->out;
	int fd, saved, rc;

	snprintf(path, sizeof(path), "%s/cosched-sim-plot.XXXXXX",
		 dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		fprintf(stderr, PROG ": --plot: %s: %s\n", path, strerror(errno));
		return 1;
	}
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		fprintf(stderr, PROG ": --plot: %s\n", strerror(errno));
		close(fd);
		unlink(path);
		return 1;
	}
	o->out = OUT_JSON;
	rc = dispatch(o, m, w);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	o->out = user;
	if (rc == 0 && user == OUT_JSON) {
		char buf[65536];
		ssize_t k;
		lseek(fd, 0, SEEK_SET);
		while ((k = read(fd, buf, sizeof(buf))) > 0)
			fwrite(buf, 1, (size_t)k, stdout);
		fflush(stdout);
	} else if (rc == 0) {
		const char *tl = o->timeline;
		o->timeline = NULL;	/* the JSON run wrote it */
		rc = dispatch(o, m, w);
		o->timeline = tl;
	}
	close(fd);
	if (rc == 0)
		rc = plot_tool(path, o->plot);
	unlink(path);
	return rc;
}

/* ---- options ----------------------------------------------------- */

enum {
	O_SEED002 = 256, O_SOLO, O_SETTING, O_POLICY, O_DVFS, O_OPTIMUM,
	O_WINDOW, O_QUANTUM, O_CAPACITY, O_SEED, O_TABLE, O_CATA, O_SCALING,
	O_MISS_GAIN, O_FREQ_DOMAIN, O_NODES, O_SOCKETS, O_CORES, O_QDEPTH,
	O_SWF, O_GENERATE, O_LOAD, O_CALIBRATE, O_TARGET, O_TIMELINE, O_CSV,
	O_JSON, O_MRB_W, O_MRB_T, O_MRB_START, O_BENCH, O_SEED000, O_SETS,
	O_PROCS, O_REQUESTS, O_FREEZE, O_PLOT, O_ANCHOR,
};

static const struct option longopts[] = {
	{ "seed002", no_argument, NULL, O_SEED002 },
	{ "solo", required_argument, NULL, O_SOLO },
	{ "setting", required_argument, NULL, O_SETTING },
	{ "policy", required_argument, NULL, O_POLICY },
	{ "dvfs", required_argument, NULL, O_DVFS },
	{ "optimum", no_argument, NULL, O_OPTIMUM },
	{ "window", required_argument, NULL, O_WINDOW },
	{ "quantum", required_argument, NULL, O_QUANTUM },
	{ "capacity", required_argument, NULL, O_CAPACITY },
	{ "seed", required_argument, NULL, O_SEED },
	{ "table", required_argument, NULL, O_TABLE },
	{ "catastrophic", required_argument, NULL, O_CATA },
	{ "scaling", required_argument, NULL, O_SCALING },
	{ "miss-gain", required_argument, NULL, O_MISS_GAIN },
	{ "freq-domain", required_argument, NULL, O_FREQ_DOMAIN },
	{ "nodes", required_argument, NULL, O_NODES },
	{ "sockets", required_argument, NULL, O_SOCKETS },
	{ "cores", required_argument, NULL, O_CORES },
	{ "queue-depth", required_argument, NULL, O_QDEPTH },
	{ "swf", required_argument, NULL, O_SWF },
	{ "generate", required_argument, NULL, O_GENERATE },
	{ "load", required_argument, NULL, O_LOAD },
	{ "calibrate", no_argument, NULL, O_CALIBRATE },
	{ "target", required_argument, NULL, O_TARGET },
	{ "timeline", required_argument, NULL, O_TIMELINE },
	{ "mrb-weight", required_argument, NULL, O_MRB_W },
	{ "mrb-threshold", required_argument, NULL, O_MRB_T },
	{ "mrb-start", required_argument, NULL, O_MRB_START },
	{ "bench-scale", required_argument, NULL, O_BENCH },
	{ "plot", required_argument, NULL, O_PLOT },
	{ "anchor", no_argument, NULL, O_ANCHOR },
	{ "seed000", no_argument, NULL, O_SEED000 },
	{ "sets", required_argument, NULL, O_SETS },
	{ "procs", required_argument, NULL, O_PROCS },
	{ "requests", required_argument, NULL, O_REQUESTS },
	{ "freeze", required_argument, NULL, O_FREEZE },
	{ "csv", no_argument, NULL, O_CSV },
	{ "json", no_argument, NULL, O_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_policies(const char *v, bool *pol)
{
	char *s = strdup(v), *save = NULL;
	int rc = 0;

	if (!s)
		return 1;
	memset(pol, 0, COSCHED_POLICY_COUNT * sizeof(bool));
	for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		cosched_policy_t p;
		cosched_error_t err;
		if (cosched_policy_parse("--policy", t, &p, &err) < 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			rc = 2;
			break;
		}
		pol[p] = true;
	}
	free(s);
	return rc;
}

int main(int argc, char **argv)
{
	opts_t o;
	sim_model_t m;
	sim_workload_t w = { 0 };
	cosched_error_t err;
	const char *table = NULL, *scaling = NULL, *miss_gain = NULL;
	double cata = NAN, x;
	long l;
	int c, rc;

	memset(&o, 0, sizeof(o));
	sim_ts_conf_default(&o.ts);
	sim_ss_conf_default(&o.ss);
	sim_numa_conf_default(&o.numa);
	for (int p = 0; p < COSCHED_POLICY_COUNT; p++)
		o.pol[p] = true;
	o.solo_s = 50;
	o.seed = 1;
	o.load = 0.7;
	o.target = 3.675;	/* the middle of seed 002's 3.35..4 */
	sim_model_default(&m);
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case O_SEED002: o.seed002 = true; break;
		case O_SOLO:
			if (num("--solo", optarg, 1e-3, 1e9, &o.solo_s)) return 2;
			o.solo_given = true;
			break;
		case O_SETTING:
			if (!strcmp(optarg, "time")) o.space = false;
			else if (!strcmp(optarg, "space")) o.space = true;
			else return bad_arg("--setting", optarg, "time or space");
			break;
		case O_POLICY:
			if (parse_policies(optarg, o.pol)) return 2;
			break;
		case O_DVFS:
			if (!strcmp(optarg, "off")) o.dvfs = 0;
			else if (!strcmp(optarg, "on")) o.dvfs = 1;
			else if (!strcmp(optarg, "both")) o.dvfs = 2;
			else return bad_arg("--dvfs", optarg, "on, off or both");
			break;
		case O_OPTIMUM: o.optimum = true; break;
		case O_WINDOW:
			if (num("--window", optarg, 1e-3, 1e9, &o.ts.window_s)) return 2;
			break;
		case O_QUANTUM:
			if (num("--quantum", optarg, 1e-3, 1e6, &o.ts.quantum_s)) return 2;
			break;
		case O_CAPACITY:
			if (inum("--capacity", optarg, 1, COSCHED_GANG_MAX_CAPACITY, &l))
				return 2;
			o.ts.capacity = (int)l;
			break;
		case O_SEED:
			if (inum("--seed", optarg, 0, 0x7fffffffL, &l)) return 2;
			o.seed = o.ts.seed = (uint64_t)l;
			break;
		case O_TABLE: table = optarg; break;
		case O_CATA:
			if (num("--catastrophic", optarg, 1, COSCHED_SLOWDOWN_MAX, &cata))
				return 2;
			break;
		case O_SCALING: scaling = optarg; break;
		case O_MISS_GAIN: miss_gain = optarg; break;
		case O_FREQ_DOMAIN:
			if (!strcmp(optarg, "per-app")) m.freq_rule = SIM_FREQ_PER_APP;
			else if (!strcmp(optarg, "max")) m.freq_rule = SIM_FREQ_DOMAIN_MAX;
			else return bad_arg("--freq-domain", optarg, "per-app or max");
			break;
		case O_NODES:
			if (inum("--nodes", optarg, 1, 10000000, &l)) return 2;
			o.ss.nodes = (size_t)l;
			break;
		case O_SOCKETS:
			if (inum("--sockets", optarg, 1, 64, &l)) return 2;
			o.ss.sockets = (int)l;
			break;
		case O_CORES:
			if (inum("--cores", optarg, 1, COSCHED_GANG_MAX_CAPACITY, &l))
				return 2;
			o.ss.cores = (int)l;
			break;
		case O_QDEPTH:
			if (inum("--queue-depth", optarg, 1, 1000000, &l)) return 2;
			o.ss.queue_depth = (size_t)l;
			break;
		case O_SWF: o.swf = optarg; break;
		case O_GENERATE:
			if (inum("--generate", optarg, 1, 100000000, &l)) return 2;
			o.generate = (size_t)l;
			break;
		case O_LOAD:
			if (num("--load", optarg, 1e-3, 100, &o.load)) return 2;
			break;
		case O_CALIBRATE: o.calibrate = true; break;
		case O_TARGET:
			if (num("--target", optarg, 1, COSCHED_SLOWDOWN_MAX, &o.target))
				return 2;
			break;
		case O_TIMELINE: o.timeline = optarg; break;
		case O_MRB_W:
			if (num("--mrb-weight", optarg, 1e-6, 1, &o.ts.mrb_weight))
				return 2;
			break;
		case O_MRB_T:
			if (num("--mrb-threshold", optarg, 1e-6, 1000,
				&o.ts.mrb_threshold))
				return 2;
			break;
		case O_MRB_START:
			if (!strcmp(optarg, "zero")) o.ts.mrb_start_zero = true;
			else if (!strcmp(optarg, "workload")) o.ts.mrb_start_zero = false;
			else return bad_arg("--mrb-start", optarg, "zero or workload");
			break;
		case O_BENCH: {
			char *comma = strchr(optarg, ',');
			long a, b;
			if (!comma)
				return bad_arg("--bench-scale", optarg,
					       "expected SMALL,LARGE job counts");
			*comma = '\0';
			if (inum("--bench-scale", optarg, 1, 100000000, &a) ||
			    inum("--bench-scale", comma + 1, 1, 100000000, &b))
				return 2;
			o.bench_small = (size_t)a;
			o.bench_large = (size_t)b;
			break;
		}
		case O_PLOT: {
			size_t len = strlen(optarg);
			if (len < 5 || (strcasecmp(optarg + len - 4, ".png") &&
					strcasecmp(optarg + len - 4, ".svg")))
				return bad_arg("--plot", optarg, "expected a "
					       "file name ending in .png or .svg");
			o.plot = optarg;
			break;
		}
		case O_SEED000: o.seed000 = true; break;
		case O_ANCHOR: o.anchor = true; break;
		case O_SETS:
			if (inum("--sets", optarg, 1, 1000, &l)) return 2;
			o.sets = (size_t)l;
			break;
		case O_PROCS:
			if (inum("--procs", optarg, 1, 100000, &l)) return 2;
			o.procs = (size_t)l;
			break;
		case O_REQUESTS:
			if (inum("--requests", optarg, 1, 100000, &l)) return 2;
			o.requests = (size_t)l;
			break;
		case O_FREEZE:
			if (inum("--freeze", optarg, 0, 100000, &l)) return 2;
			o.numa.freeze = (size_t)l;
			break;
		case O_CSV: o.out = OUT_CSV; break;
		case O_JSON: o.out = OUT_JSON; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	(void)x;
	if (optind < argc)
		o.workload = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, PROG ": one workload file at most\n");
		return 2;
	}
	if (!isnan(cata))
		sim_model_seed002_table(&m, cata);
	if (table && sim_model_set_table(&m, table, &err) < 0) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return 2;
	}
	if (scaling && sim_model_load_scaling(&m, scaling, &err) < 0) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return 2;
	}
	if (miss_gain && sim_model_set_miss_gain(&m, miss_gain, &err) < 0) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return 2;
	}
	/* Options that would otherwise be ignored without a word. */
	if (o.solo_given && !o.seed002 && !o.anchor) {
		fprintf(stderr, PROG ": --solo sets the standalone time of "
			"--seed002's and --anchor's applications only; a "
			"workload file gives each its SOLO_S field, --swf and "
			"--generate their run times\n");
		return 2;
	}
	if (o.optimum && (o.space || o.anchor || o.seed000 || o.bench_large)) {
		fprintf(stderr, PROG ": --optimum is the best gang partition of "
			"the time-shared setting; --setting space, --anchor, "
			"--seed000 and --bench-scale have none\n");
		return 2;
	}
	if (o.bench_large && o.plot) {
		fprintf(stderr, PROG ": --plot draws runs, not --bench-scale\n");
		return 2;
	}
	if (o.bench_large)
		return run_scale_bench(&o, &m, o.bench_small, o.bench_large);
	if (o.anchor) {
		if (o.out == OUT_CSV || o.plot || o.dvfs == 2) {
			fprintf(stderr, PROG ": --anchor prints a table or "
				"--json, with --dvfs on or off\n");
			return 2;
		}
		return run_anchor(&o, &m);
	}
	if (o.seed000) {
		if (o.out == OUT_CSV) {
			fprintf(stderr, PROG ": --seed000 prints a table or "
				"--json\n");
			return 2;
		}
		return o.plot ? run_with_plot(&o, &m, &w) : run_seed000(&o);
	}
	int sources = (o.workload != NULL) + o.seed002 + (o.swf != NULL) +
		(o.generate > 0);
	if (sources != 1) {
		fprintf(stderr, PROG ": give exactly one of WORKLOAD, --seed002, "
			"--swf, --generate\n");
		return 2;
	}
	if ((o.swf || o.generate) && !o.space) {
		fprintf(stderr, PROG ": --swf and --generate need --setting space\n");
		return 2;
	}
	int cap = o.space ? o.ss.cores : o.ts.capacity;
	if (o.seed002)
		rc = sim_workload_seed002(&w, o.solo_s, &err);
	else if (o.workload)
		rc = sim_workload_load(o.workload, cap, &w, &err);
	else if (o.swf) {
		size_t skipped, clipped;
		rc = sim_swf_load(o.swf, cap, o.seed, &w, &skipped, &clipped, &err);
		if (rc == 0 && (skipped || clipped) && o.out == OUT_TABLE)
			printf("swf: %zu jobs, %zu skipped (no run time or size), "
			       "%zu clipped to %d cores\n", w.n, skipped, clipped,
			       cap);
	} else {
		rc = sim_lublin_generate(o.generate, cap, o.seed, &w, &err);
		if (rc == 0)
			rc = sim_scale_load(&w, 0, (double)o.ss.nodes *
					    o.ss.sockets * o.ss.cores, o.load,
					    &err);
	}
	if (rc == 0 && o.workload)
		rc = sim_workload_check_model(&w, &m, o.workload, &err);
	if (rc < 0) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		sim_workload_free(&w);
		return 2;
	}
	if (o.calibrate && o.plot) {
		fprintf(stderr, PROG ": --plot draws runs, not --calibrate\n");
		rc = 2;
	} else if (o.calibrate)
		rc = calibrate(&o, &m, &w);
	else if (o.plot && !(o.space && o.dvfs == 2))
		rc = run_with_plot(&o, &m, &w);
	else if (o.space) {
		o.ss.dvfs = o.dvfs == 1;
		if (o.dvfs == 2) {
			fprintf(stderr, PROG ": --dvfs both is for the time-shared "
				"setting; run space twice\n");
			rc = 2;
		} else {
			rc = run_space_shared(&o, &m, &w);
		}
	} else {
		rc = run_time_shared(&o, &m, &w);
	}
	sim_workload_free(&w);
	return rc;
}
