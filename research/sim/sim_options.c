/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_options.c - cosched-sim(1)'s command line: every option parsed and
 * range-checked, every combination that would leave an option ignored or a
 * figure meaningless refused, and the workload the options name loaded.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "research/sim/sim_cli.h"
#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " [options] [WORKLOAD]\n"
"  WORKLOAD             workload file (cosched-sim(1), WORKLOAD FORMAT)\n"
"  --seed002            seed 002's artificial workload (no file needed)\n"
"  --draw               a workload drawn like it from --seed (and --mix);\n"
"                       with --generate, an arrival stream at a drawn load\n"
"  --solo S             its standalone time per application (default 50)\n"
"  --setting time|space time-shared gangs (default) or space-shared cluster\n"
"  --policy LIST        comma-separated policies (default: all six)\n"
"  --dvfs on|off|both   per-application frequencies (default off)\n"
"  --optimum            time-shared: the exact best gang partition (<= 12 apps)\n"
"  --arrive             time-shared: the programs arrive one at a time in an\n"
"                       order drawn from --seed, each placed by the policy's\n"
"                       incremental form\n"
"  --window S --quantum S --capacity CORES --seed N\n"
"  --mrb-weight A --mrb-threshold T --mrb-start workload|zero\n"
"  --gang-max-apps N     applications per gang or socket (0: the policy's)\n"
"  --table seed002|seed001|FILE  --catastrophic X  --scaling FILE\n"
"  --miss-gain CAT=G[,...]  --freq-domain per-app|max\n"
"  --nodes N --sockets S --cores C --queue-depth N     (space)\n"
"  --queue first-fit|easy  how waiting jobs start (space; default first-fit)\n"
"  --swf FILE  --generate N  --load L                  (space arrivals)\n"
"  --mix balanced|memory|compute  their categories, and --draw's (default\n"
"                       balanced)\n"
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
"                       research/sim/cosched-sim-plot (python3-matplotlib)\n"
"  --csv | --json       output format (default: aligned table)\n");
}

/* An option's value is refused: the message, and the exit status. */
static int bad_arg(const char *opt, const char *val, const char *what)
{
	fprintf(stderr, PROG ": %s %s: %s\n", opt, COSCHED_QUOTE(val), what);
	return SIM_EXIT_USAGE;
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

enum {
	O_SEED002 = 256, O_SOLO, O_SETTING, O_POLICY, O_DVFS, O_OPTIMUM,
	O_WINDOW, O_QUANTUM, O_CAPACITY, O_SEED, O_TABLE, O_CATA, O_SCALING,
	O_MISS_GAIN, O_FREQ_DOMAIN, O_NODES, O_SOCKETS, O_CORES, O_QDEPTH,
	O_SWF, O_GENERATE, O_LOAD, O_MIX, O_CALIBRATE, O_TARGET, O_TIMELINE, O_CSV,
	O_JSON, O_MRB_W, O_MRB_T, O_MRB_START, O_MAX_APPS, O_QUEUE, O_BENCH, O_SEED000, O_SETS,
	O_PROCS, O_REQUESTS, O_FREEZE, O_PLOT, O_ANCHOR, O_DRAW, O_ARRIVE,
};

static const struct option longopts[] = {
	{ "seed002", no_argument, NULL, O_SEED002 },
	{ "draw", no_argument, NULL, O_DRAW },
	{ "solo", required_argument, NULL, O_SOLO },
	{ "setting", required_argument, NULL, O_SETTING },
	{ "policy", required_argument, NULL, O_POLICY },
	{ "dvfs", required_argument, NULL, O_DVFS },
	{ "optimum", no_argument, NULL, O_OPTIMUM },
	{ "arrive", no_argument, NULL, O_ARRIVE },
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
	{ "mix", required_argument, NULL, O_MIX },
	{ "calibrate", no_argument, NULL, O_CALIBRATE },
	{ "target", required_argument, NULL, O_TARGET },
	{ "timeline", required_argument, NULL, O_TIMELINE },
	{ "mrb-weight", required_argument, NULL, O_MRB_W },
	{ "mrb-threshold", required_argument, NULL, O_MRB_T },
	{ "mrb-start", required_argument, NULL, O_MRB_START },
	{ "gang-max-apps", required_argument, NULL, O_MAX_APPS },
	{ "queue", required_argument, NULL, O_QUEUE },
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
	memset(pol, 0, COSCHED_POLICY_PLACING_COUNT * sizeof(bool));
	for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		cosched_policy_t p;
		cosched_error_t err;
		if (cosched_policy_parse("--policy", t, COSCHED_POLICY_PLACING,
					 &p, &err) < 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			rc = 2;
			break;
		}
		pol[p] = true;
	}
	free(s);
	return rc;
}

/* Refuse a combination that would leave an option without effect or a
 * figure without meaning; SIM_EXIT_OK when there is none. */
static int check_combination(const opts_t *o)
{
	if (o->solo_given && !o->seed002 && !o->anchor) {
		fprintf(stderr, PROG ": --solo sets the standalone time of "
			"--seed002's and --anchor's applications only; a "
			"workload file gives each its SOLO_S field, --swf and "
			"--generate their run times\n");
		return SIM_EXIT_USAGE;
	}
	if (o->optimum && (o->space || o->anchor || o->seed000 ||
			   o->bench_large)) {
		fprintf(stderr, PROG ": --optimum is the best gang partition of "
			"the time-shared setting; --setting space, --anchor, "
			"--seed000 and --bench-scale have none\n");
		return SIM_EXIT_USAGE;
	}
	if (o->ts.arrive && (o->space || o->anchor || o->seed000 ||
			     o->bench_large || o->calibrate)) {
		fprintf(stderr, PROG ": --arrive orders the time-shared "
			"setting's programs; --setting space has its submit "
			"times, and --anchor, --seed000, --bench-scale and "
			"--calibrate have no such order\n");
		return SIM_EXIT_USAGE;
	}
	if (o->ss.queue != SIM_QUEUE_FIRST_FIT &&
	    (o->seed000 || (!o->space && !o->anchor && !o->bench_large))) {
		fprintf(stderr, PROG ": --queue %s orders a space-shared "
			"queue; the time-shared setting and --seed000 have "
			"none\n", sim_queue_names[o->ss.queue]);
		return SIM_EXIT_USAGE;
	}
	if (o->bench_large) {
		if (o->plot) {
			fprintf(stderr, PROG ": --plot draws runs, not "
				"--bench-scale\n");
			return SIM_EXIT_USAGE;
		}
		return SIM_EXIT_OK;
	}
	if (o->anchor) {
		if (o->out == OUT_CSV || o->plot || o->dvfs == 2) {
			fprintf(stderr, PROG ": --anchor prints a table or "
				"--json, with --dvfs on or off\n");
			return SIM_EXIT_USAGE;
		}
		return SIM_EXIT_OK;
	}
	if (o->seed000) {
		if (o->out == OUT_CSV) {
			fprintf(stderr, PROG ": --seed000 prints a table or "
				"--json\n");
			return SIM_EXIT_USAGE;
		}
		return SIM_EXIT_OK;
	}
	/* --draw --generate is one source: a drawn arrival stream. */
	int sources = (o->workload != NULL) + o->seed002 +
		(o->draw && !o->generate) + (o->swf != NULL) +
		(o->generate > 0);
	if (sources != 1) {
		fprintf(stderr, PROG ": give exactly one of WORKLOAD, --seed002, "
			"--draw, --swf, --generate\n");
		return SIM_EXIT_USAGE;
	}
	if (o->draw && o->generate && o->load_given) {
		fprintf(stderr, PROG ": --draw --generate draws the stream's "
			"load from --seed; give --load without --draw\n");
		return SIM_EXIT_USAGE;
	}
	if ((o->swf || o->generate) && !o->space) {
		fprintf(stderr, PROG ": --swf and --generate need --setting "
			"space\n");
		return SIM_EXIT_USAGE;
	}
	if (o->calibrate && o->plot) {
		fprintf(stderr, PROG ": --plot draws runs, not --calibrate\n");
		return SIM_EXIT_USAGE;
	}
	if (o->space && o->dvfs == 2 && !o->calibrate) {
		fprintf(stderr, PROG ": --dvfs both is for the time-shared "
			"setting; run space twice\n");
		return SIM_EXIT_USAGE;
	}
	return SIM_EXIT_OK;
}

int sim_options_parse(int argc, char **argv, opts_t *o, sim_model_t *m)
{
	cosched_error_t err;
	const char *table = NULL, *scaling = NULL, *miss_gain = NULL;
	double cata = NAN;
	long l;
	int c;

	memset(o, 0, sizeof(*o));
	sim_ts_conf_default(&o->ts);
	sim_ss_conf_default(&o->ss);
	sim_numa_conf_default(&o->numa);
	for (int p = 0; p < COSCHED_POLICY_PLACING_COUNT; p++)
		o->pol[p] = true;
	o->solo_s = 50;
	o->seed = 1;
	o->load = 0.7;
	/* The middle of the 3.35..4 of "Power-aware gang scheduling on
	 * multicore" (NTUA thesis, 2013). */
	o->target = 3.675;
	sim_model_default(m);
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case O_SEED002: o->seed002 = true; break;
		case O_DRAW: o->draw = true; break;
		case O_SOLO:
			if (num("--solo", optarg, 1e-3, 1e9, &o->solo_s)) return SIM_EXIT_USAGE;
			o->solo_given = true;
			break;
		case O_SETTING:
			if (!strcmp(optarg, "time")) o->space = false;
			else if (!strcmp(optarg, "space")) o->space = true;
			else return bad_arg("--setting", optarg, "time or space");
			break;
		case O_POLICY:
			if (parse_policies(optarg, o->pol)) return SIM_EXIT_USAGE;
			break;
		case O_DVFS:
			if (!strcmp(optarg, "off")) o->dvfs = 0;
			else if (!strcmp(optarg, "on")) o->dvfs = 1;
			else if (!strcmp(optarg, "both")) o->dvfs = 2;
			else return bad_arg("--dvfs", optarg, "on, off or both");
			break;
		case O_OPTIMUM: o->optimum = true; break;
		case O_ARRIVE: o->ts.arrive = true; break;
		case O_WINDOW:
			if (num("--window", optarg, 1e-3, 1e9, &o->ts.window_s)) return SIM_EXIT_USAGE;
			break;
		case O_QUANTUM:
			if (num("--quantum", optarg, 1e-3, 1e6, &o->ts.quantum_s)) return SIM_EXIT_USAGE;
			break;
		case O_CAPACITY:
			if (inum("--capacity", optarg, 1, COSCHED_GANG_MAX_CAPACITY, &l))
				return SIM_EXIT_USAGE;
			o->ts.capacity = (int)l;
			break;
		case O_SEED:
			if (inum("--seed", optarg, 0, 0x7fffffffL, &l)) return SIM_EXIT_USAGE;
			o->seed = o->ts.seed = (uint64_t)l;
			break;
		case O_TABLE: table = optarg; break;
		case O_CATA:
			if (num("--catastrophic", optarg, 1, COSCHED_SLOWDOWN_MAX, &cata))
				return SIM_EXIT_USAGE;
			break;
		case O_SCALING: scaling = optarg; break;
		case O_MISS_GAIN: miss_gain = optarg; break;
		case O_FREQ_DOMAIN:
			if (!strcmp(optarg, "per-app")) m->freq_rule = SIM_FREQ_PER_APP;
			else if (!strcmp(optarg, "max")) m->freq_rule = SIM_FREQ_DOMAIN_MAX;
			else return bad_arg("--freq-domain", optarg, "per-app or max");
			break;
		case O_NODES:
			if (inum("--nodes", optarg, 1, 10000000, &l)) return SIM_EXIT_USAGE;
			o->ss.nodes = (size_t)l;
			break;
		case O_SOCKETS:
			if (inum("--sockets", optarg, 1, 64, &l)) return SIM_EXIT_USAGE;
			o->ss.sockets = (int)l;
			break;
		case O_CORES:
			if (inum("--cores", optarg, 1, COSCHED_GANG_MAX_CAPACITY, &l))
				return SIM_EXIT_USAGE;
			o->ss.cores = (int)l;
			break;
		case O_QDEPTH:
			if (inum("--queue-depth", optarg, 1, 1000000, &l)) return SIM_EXIT_USAGE;
			o->ss.queue_depth = (size_t)l;
			break;
		case O_SWF: o->swf = optarg; break;
		case O_GENERATE:
			if (inum("--generate", optarg, 1, 100000000, &l)) return SIM_EXIT_USAGE;
			o->generate = (size_t)l;
			break;
		case O_LOAD:
			if (num("--load", optarg, 1e-3, 100, &o->load)) return SIM_EXIT_USAGE;
			o->load_given = true;
			break;
		case O_MIX: {
			cosched_error_t err;
			int k = cosched_name_parse("--mix", "value", sim_mix_names,
						   0, SIM_MIX_COUNT, optarg, true,
						   &err);
			if (k < 0) {
				fprintf(stderr, PROG ": %s\n", err.msg);
				return SIM_EXIT_USAGE;
			}
			o->mix = (sim_mix_t)k;
			break;
		}
		case O_QUEUE: {
			cosched_error_t err;
			int k = cosched_name_parse("--queue", "value",
						   sim_queue_names, 0,
						   SIM_QUEUE_COUNT, optarg,
						   true, &err);
			if (k < 0) {
				fprintf(stderr, PROG ": %s\n", err.msg);
				return SIM_EXIT_USAGE;
			}
			o->ss.queue = (sim_queue_t)k;
			break;
		}
		case O_CALIBRATE: o->calibrate = true; break;
		case O_TARGET:
			if (num("--target", optarg, 1, COSCHED_SLOWDOWN_MAX, &o->target))
				return SIM_EXIT_USAGE;
			break;
		case O_TIMELINE: o->timeline = optarg; break;
		case O_MRB_W:
			if (num("--mrb-weight", optarg, 1e-6, 1, &o->ts.mrb_weight))
				return SIM_EXIT_USAGE;
			break;
		case O_MRB_T:
			if (num("--mrb-threshold", optarg, 1e-6, 1000,
				&o->ts.mrb_threshold))
				return SIM_EXIT_USAGE;
			break;
		case O_MAX_APPS:
			if (inum("--gang-max-apps", optarg, 0,
				 COSCHED_GANG_MAX_CAPACITY, &l))
				return SIM_EXIT_USAGE;
			o->ts.max_apps = o->ss.max_apps = (int)l;
			break;
		case O_MRB_START:
			if (!strcmp(optarg, "zero")) o->ts.mrb_start_zero = true;
			else if (!strcmp(optarg, "workload")) o->ts.mrb_start_zero = false;
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
				return SIM_EXIT_USAGE;
			o->bench_small = (size_t)a;
			o->bench_large = (size_t)b;
			break;
		}
		case O_PLOT: {
			size_t len = strlen(optarg);
			if (len < 5 || (strcasecmp(optarg + len - 4, ".png") &&
					strcasecmp(optarg + len - 4, ".svg")))
				return bad_arg("--plot", optarg, "expected a "
					       "file name ending in .png or .svg");
			o->plot = optarg;
			break;
		}
		case O_SEED000: o->seed000 = true; break;
		case O_ANCHOR: o->anchor = true; break;
		case O_SETS:
			if (inum("--sets", optarg, 1, 1000, &l)) return SIM_EXIT_USAGE;
			o->sets = (size_t)l;
			break;
		case O_PROCS:
			if (inum("--procs", optarg, 1, 100000, &l)) return SIM_EXIT_USAGE;
			o->procs = (size_t)l;
			break;
		case O_REQUESTS:
			if (inum("--requests", optarg, 1, 100000, &l)) return SIM_EXIT_USAGE;
			o->requests = (size_t)l;
			break;
		case O_FREEZE:
			if (inum("--freeze", optarg, 0, 100000, &l)) return SIM_EXIT_USAGE;
			o->numa.freeze = (size_t)l;
			break;
		case O_CSV: o->out = OUT_CSV; break;
		case O_JSON: o->out = OUT_JSON; break;
		case 'h': usage(stdout); return SIM_OPTIONS_DONE;
		default: usage(stderr); return SIM_EXIT_USAGE;
		}
	}
	if (optind < argc)
		o->workload = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, PROG ": one workload file at most\n");
		return SIM_EXIT_USAGE;
	}
	if (!isnan(cata))
		sim_model_seed002_table(m, cata);
	if ((table && sim_model_set_table(m, table, &err) < 0) ||
	    (scaling && sim_model_load_scaling(m, scaling, &err) < 0) ||
	    (miss_gain && sim_model_set_miss_gain(m, miss_gain, &err) < 0)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return SIM_EXIT_USAGE;
	}
	/* One place says which DVFS the space-shared runs use (--plot's
	 * run too). */
	o->ss.dvfs = o->dvfs == 1;
	if (o->draw && o->generate)
		o->load = sim_lublin_draw_load(o->seed);
	return check_combination(o);
}

int sim_options_workload(const opts_t *o, const sim_model_t *m,
			 sim_workload_t *w)
{
	cosched_error_t err;
	int cap = o->space ? o->ss.cores : o->ts.capacity, rc;

	memset(w, 0, sizeof(*w));
	if (o->seed002) {
		rc = sim_workload_seed002(w, o->solo_s, &err);
	} else if (o->draw && !o->generate) {
		rc = sim_workload_draw(w, o->seed, o->mix, &err);
	} else if (o->workload) {
		rc = sim_workload_load(o->workload, cap, w, &err);
		if (rc == 0)
			rc = sim_workload_check_model(w, m, o->workload, &err);
	} else if (o->swf) {
		size_t skipped, clipped;
		rc = sim_swf_load(o->swf, cap, o->seed, o->mix, w, &skipped,
				  &clipped, &err);
		if (rc == 0 && (skipped || clipped) && o->out == OUT_TABLE)
			printf("swf: %zu jobs, %zu skipped (no run time or size), "
			       "%zu clipped to %d cores\n", w->n, skipped,
			       clipped, cap);
	} else {
		rc = sim_lublin_generate(o->generate, cap, o->seed, o->mix, w,
					 &err);
		if (rc == 0)
			rc = sim_scale_load(w, 0, (double)o->ss.nodes *
					    o->ss.sockets * o->ss.cores, o->load,
					    &err);
	}
	if (rc < 0) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		sim_workload_free(w);
		return SIM_EXIT_USAGE;
	}
	return SIM_EXIT_OK;
}
