/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched-characterise - an application's category from co-runs, where
 * there are no hardware counters (doc/cosched-characterise.8).
 *
 * Runs the application (the command after "--") alone and next to each of
 * the representative programs of "Power-aware gang scheduling on multicore"
 * (NTUA thesis, 2013) on two CPUs of one package, both ways (the
 * application's slowdown next to each program, and each program's slowdown
 * next to the application, restarted whenever it ends), plus the mem program
 * next to itself (the machine's scale), each figure the median of --repeats
 * (at least 3) ratios taken within one repeat.  The decision rule
 * (cosched_corun_classify) gives the category and the LCA class; the result
 * goes into the application's profile in the store (ProfileDir) marked
 * "characterised by co-run", through the store API.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/libcosched/base/appname.h"
#include "src/libcosched/model/classify.h"
#include "src/libcosched/conf/conf.h"
#include "src/libcosched/model/corun.h"
#include "src/libcosched/store/store.h"
#include "corun.h"
#include "opts.h"

#define PROG "cosched-characterise"
#define CONF_DEFAULT "/etc/slurm/cosched.conf"

static const char usage[] =
"usage: " PROG " --app NAME [--repeats N] [--scale X] [--cpus A,B]\n"
"       [--apps DIR] [--llc SIZE] [--topology SRC] [--warmup S] [--timeout S]\n"
"       [--mem-share G] [--lim-share G] [--rand-share V] [--noise E]\n"
"       [--conf FILE | --store DIR | --no-store] [--json] [--quiet]\n"
"       -- COMMAND [ARG...]\n"
"Characterise an application by co-running it with the representative\n"
"programs; write the result into its profile (ProfileDir).\n"
"COMMAND may be rep:cpu, rep:lim, rep:mem or rep:rand (a representative\n"
"program itself, at --scale).\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		CORUN_OPTIONS,
		{ "app", required_argument, NULL, 'n' },
		{ "mem-share", required_argument, NULL, 'M' },
		{ "lim-share", required_argument, NULL, 'L' },
		{ "rand-share", required_argument, NULL, 'R' },
		{ "noise", required_argument, NULL, 'N' },
		{ "conf", required_argument, NULL, 'C' },
		{ "store", required_argument, NULL, 'S' },
		{ "no-store", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *app = NULL, *conf_path = NULL, *store_dir = NULL;
	int no_store = 0, c, cpus[2];
	corun_opts_t o;
	cosched_corun_rule_t rule;
	cosched_corun_t res;
	cosched_error_t err;
	cosched_store_t store;
	corun_prog_t rep[COSCHED_CAT_COUNT], target;
	char reason[512];

	corun_opts_init(&o);
	cosched_corun_rule_default(&rule);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (corun_opts_take(&o, PROG, c, optarg))
			continue;
		switch (c) {
		case 'n':
			if (cosched_app_name_check("--app", optarg, &err))
				opt_bad(PROG, "app", optarg,
					"an application name (no '/', no leading '.')");
			app = optarg;
			break;
		case 'M':
			rule.mem_share = opt_num(PROG, "mem-share", optarg, 1e-6, 10,
						 "a number above 0 and at most 10");
			break;
		case 'L':
			rule.lim_share = opt_num(PROG, "lim-share", optarg, 1e-6, 10,
						 "a number above 0 and at most 10");
			break;
		case 'R':
			rule.rand_share = opt_num(PROG, "rand-share", optarg, 1e-6, 10,
						  "a number above 0 and at most 10");
			break;
		case 'N':
			rule.noise = opt_num(PROG, "noise", optarg, 0, 1,
					     "a number from 0 to 1");
			break;
		case 'C': conf_path = optarg; break;
		case 'S': store_dir = optarg; break;
		case 'x': no_store = 1; break;
		case 'h':
			printf("%s", usage);
			return 0;
		default:
			return corun_opts_unknown(PROG, argv[optind - 1], usage);
		}
	}
	if (cosched_corun_rule_check(&rule, &err)) {
		fprintf(stderr, "%s: %s\n", PROG, err.msg);
		return 2;
	}
	if (!app) {
		fprintf(stderr, "%s: --app NAME is required (the profile's name)\n%s",
			PROG, usage);
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no command: give it after --\n%s", PROG, usage);
		return 2;
	}
	if ((!!conf_path + !!store_dir + no_store) > 1) {
		fprintf(stderr, "%s: give at most one of --conf, --store, --no-store\n",
			PROG);
		return 2;
	}
	if (corun_pick_cpus(o.cpus, o.topology, cpus, &err)) {
		fprintf(stderr, "%s: %s\n", PROG, err.msg);
		return o.cpus ? 2 : 1;
	}
	if (!no_store) {
		cosched_conf_t conf;
		const char *dir = store_dir;

		if (!dir) {
			cosched_conf_init(&conf);
			if (cosched_conf_parse_file(&conf, conf_path ? conf_path :
						    CONF_DEFAULT, &err)) {
				fprintf(stderr, "%s: %s (give --store DIR or --no-store)\n",
					PROG, err.msg);
				return 1;
			}
			dir = conf.profile_dir;
		}
		if (cosched_store_open(&store, dir, NULL, &err)) {
			fprintf(stderr, "%s: %s\n", PROG, err.msg);
			return 1;
		}
		if (access(dir, W_OK)) {
			fprintf(stderr, "%s: the profile store %s is not writable by "
				"this user (only root or SlurmUser may write it)\n",
				PROG, dir);
			return 1;
		}
	}
	if (corun_reps(rep, o.apps, o.scale, o.llc, &err)) {
		fprintf(stderr, "%s: %s\n", PROG, err.msg);
		return 1;
	}
	if (!strncmp(argv[optind], "rep:", 4) && optind + 1 == argc) {
		cosched_category_t k;
		if (cosched_category_parse("COMMAND", argv[optind] + 4, &k, &err) ||
		    corun_rep(&target, o.apps, argv[optind] + 4, o.scale, o.llc, &err)) {
			fprintf(stderr, "%s: %s\n", PROG, err.msg);
			return 2;
		}
		snprintf(target.name, sizeof(target.name), "%s", app);
	} else if (corun_cmd(&target, app, argv + optind, &err)) {
		fprintf(stderr, "%s: %s\n", PROG, err.msg);
		return 2;
	}

	/* per repeat: A alone, each X alone, A|X, X|A, mem|mem */
	double *alone_a = calloc(o.repeats, sizeof(double));
	double (*vic)[CORUN_REPEATS_MAX] = calloc(COSCHED_CAT_COUNT, sizeof(*vic));
	double (*agg)[CORUN_REPEATS_MAX] = calloc(COSCHED_CAT_COUNT, sizeof(*agg));
	double *mm = calloc(o.repeats, sizeof(double));
	if (!alone_a || !vic || !agg || !mm)
		return 1;
	for (int r = 0; r < o.repeats; r++) {
		int cv = cpus[r % 2], cb = cpus[1 - r % 2];
		double ta, tx, t;

		if (corun_run(&target, cv, o.timeout, &ta, &err))
			goto fail;
		alone_a[r] = ta;
		for (int k = 0; k < COSCHED_CAT_COUNT; k++) {
			if (corun_pair(&target, cv, &rep[k], cb, o.warmup, o.timeout, &t,
				       &err))
				goto fail;
			vic[k][r] = t / ta;
			if (corun_run(&rep[k], cv, o.timeout, &tx, &err) ||
			    corun_pair(&rep[k], cv, &target, cb, o.warmup, o.timeout,
				       &t, &err))
				goto fail;
			agg[k][r] = t / tx;
			if (k == COSCHED_CAT_MEM) {
				if (corun_pair(&rep[k], cv, &rep[k], cb, o.warmup,
					       o.timeout, &t, &err))
					goto fail;
				mm[r] = t / tx;
			}
		}
		if (!o.quiet)
			fprintf(stderr, "%s: repeat %d of %d done\n", PROG, r + 1,
				o.repeats);
	}

	cosched_figure_t fv[COSCHED_CAT_COUNT], fa[COSCHED_CAT_COUNT], falone, fmm;
	cosched_corun_init(&res);
	corun_stats(alone_a, o.repeats, &falone.median, &falone.lo, &falone.hi);
	corun_stats(mm, o.repeats, &fmm.median, &fmm.lo, &fmm.hi);
	for (int k = 0; k < COSCHED_CAT_COUNT; k++) {
		corun_stats(vic[k], o.repeats, &fv[k].median, &fv[k].lo, &fv[k].hi);
		corun_stats(agg[k], o.repeats, &fa[k].median, &fa[k].lo, &fa[k].hi);
		res.victim[k] = fmin(fmax(fv[k].median, 1e-3), 100.0);
		res.aggressor[k] = fmin(fmax(fa[k].median, 1e-3), 100.0);
	}
	res.present = true;
	res.alone_s = falone.median;
	res.mem_mem = fmin(fmax(fmm.median, 1e-3), 100.0);
	res.repeats = o.repeats;
	res.time = (long long) time(NULL);
	gethostname(res.host, sizeof(res.host) - 1);
	res.cat = cosched_corun_classify(&rule, &res, reason, sizeof(reason));
	res.lca = cosched_category_to_lca(res.cat);
	/* The figures the rule reads are uncertain when one of them ranged
	 * over the repeats by more than the machine's own scale E (the noise
	 * of a shared machine is as large as the signal), or when values
	 * within their ranges give another category (spreads each below E
	 * can still carry g or v across a threshold: mem measured as lim in
	 * CI that way). */
	double e = res.mem_mem - 1.0, spread = fmax(fmm.hi - fmm.lo,
		fmax(fv[COSCHED_CAT_MEM].hi - fv[COSCHED_CAT_MEM].lo,
		     fa[COSCHED_CAT_MEM].hi - fa[COSCHED_CAT_MEM].lo));
	cosched_category_t also = cosched_corun_classify_other(&rule, &res,
		&fmm, &fv[COSCHED_CAT_MEM], &fa[COSCHED_CAT_MEM]);
	int uncertain = !(spread <= e) || also != res.cat;
	char also_json[32] = "null";

	if (also != res.cat)
		snprintf(also_json, sizeof(also_json), "\"%s\"",
			 cosched_category_name(also));

	if (o.json) {
		printf("{\"app\": \"%s\", \"category\": \"%s\", \"lca\": \"%s\", "
		       "\"reason\": \"%s\", \"cpus\": [%d, %d], \"repeats\": %d,\n"
		       " \"uncertain\": %s, \"spread\": %.4f, \"also\": %s, "
		       "\"runs_repeated\": %d,\n"
		       " \"alone_s\": {\"median\": %.4f, \"min\": %.4f, \"max\": %.4f},\n"
		       " \"mem_with_mem\": {\"median\": %.4f, \"min\": %.4f, \"max\": %.4f},\n",
		       app, cosched_category_name(res.cat), cosched_lca_name(res.lca),
		       reason, cpus[0], cpus[1], o.repeats, uncertain ? "true" : "false",
		       spread, also_json, corun_retried, falone.median, falone.lo,
		       falone.hi, fmm.median, fmm.lo, fmm.hi);
		for (int side = 0; side < 2; side++) {
			cosched_figure_t *f = side ? fa : fv;
			printf(" \"%s\": {", side ? "caused" : "next_to");
			for (int k = 0; k < COSCHED_CAT_COUNT; k++)
				printf("%s\"%s\": {\"median\": %.4f, \"min\": %.4f, "
				       "\"max\": %.4f}", k ? ", " : "",
				       cosched_category_name(k), f[k].median, f[k].lo,
				       f[k].hi);
			printf("}%s\n", side ? "," : ",");
		}
		printf(" \"stored\": %s}\n", no_store ? "false" : "true");
	} else {
		printf("# %s characterised by co-run on %s, CPUs %d and %d, "
		       "%d repeats: median [min-max]\n", app, res.host, cpus[0],
		       cpus[1], o.repeats);
		printf("alone: %.3f s [%.3f-%.3f]\n", falone.median, falone.lo,
		       falone.hi);
		printf("%-8s %-22s %-22s\n", "partner", "its slowdown (next_to)",
		       "partner's (caused)");
		for (int k = 0; k < COSCHED_CAT_COUNT; k++)
			printf("%-8s %5.2f [%4.2f-%4.2f]      %5.2f [%4.2f-%4.2f]\n",
			       cosched_category_name(k), fv[k].median, fv[k].lo,
			       fv[k].hi, fa[k].median, fa[k].lo, fa[k].hi);
		printf("mem next to mem: %.2f [%.2f-%.2f]\n", fmm.median, fmm.lo,
		       fmm.hi);
		printf("category: %s  lca: %s  (%s)\n", cosched_category_name(res.cat),
		       cosched_lca_name(res.lca), reason);
		if (!(spread <= e))
			printf("uncertain: a figure the rule reads ranged by %.2f over "
			       "the repeats, more than mem next to mem's excess "
			       "%.2f: run again with more --repeats or a larger "
			       "--scale when the machine is quieter\n", spread, e);
		else if (uncertain)
			printf("uncertain: within the repeats' ranges the rule also "
			       "gives %s: run again with more --repeats or a "
			       "larger --scale when the machine is quieter\n",
			       cosched_category_name(also));
	}
	if (!no_store) {
		if (cosched_store_set_characterisation(&store, app, &res, NULL, &err)) {
			fprintf(stderr, "%s: %s\n", PROG, err.msg);
			return 1;
		}
		if (!o.quiet)
			fprintf(stderr, "%s: profile %s/%s.json updated\n", PROG,
				store.dir, app);
	}
	return 0;
fail:
	fprintf(stderr, "%s: %s\n", PROG, err.msg);
	return 1;
}
