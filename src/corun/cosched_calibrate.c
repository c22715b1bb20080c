/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched-calibrate - this machine's interference table, measured
 * (doc/cosched-calibrate.8).
 *
 * Runs the four representative programs of "Power-aware gang scheduling on
 * multicore" (NTUA thesis, 2013) alone and in every ordered pair on two CPUs
 * of one package, repeats the whole sweep (--repeats, at least 3), and prints
 * the median slowdown of each pair with its range over the repeats, in the
 * layout of "Effects of co-scheduling applications on multicore architectures"
 * (NTUA thesis, 2014) (row = victim, column = co-runner, LCA classes
 * N C LC L), then the cosched.conf lines that encode it.  --apply FILE writes
 * those lines into FILE atomically (conf_apply.h).
 *
 * Noise: each repeat measures a victim alone and then next to each
 * co-runner, back to back, and the slowdown is the ratio within the
 * repeat; the figure is the median of the repeats.  Repeats alternate the
 * two CPUs.  Times are CPU times (corun.h).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/libcosched/model/classify.h"
#include "src/libcosched/conf/conf.h"
#include "src/libcosched/model/corun.h"
#include "conf_apply.h"
#include "corun.h"
#include "opts.h"

#define PROG "cosched-calibrate"

static const char usage[] =
"usage: " PROG " [--repeats N] [--scale X] [--cpus A,B] [--apps DIR]\n"
"       [--llc SIZE] [--topology SRC] [--warmup S] [--timeout S]\n"
"       [--forbid-above S] [--rank-step S] [--json] [--quiet] [--apply FILE]\n"
"       " PROG " --show FILE\n"
"Measure this machine's interference table with the representative\n"
"programs and print it with the cosched.conf lines that encode it.\n";

static void print_fig(const cosched_figure_t *f, int json)
{
	if (json)
		printf("{\"median\": %.4f, \"min\": %.4f, \"max\": %.4f}",
		       f->median, f->lo, f->hi);
	else
		printf("%5.2f [%4.2f-%4.2f]", f->median, f->lo, f->hi);
}

/* --show FILE: the table and preferences FILE configures, read by
 * cosched.conf's own parser (what slurmctld will use). */
static int show(const char *path)
{
	cosched_conf_t conf;
	cosched_error_t err;
	const cosched_interference_model_t *m = &conf.interference;

	cosched_conf_init(&conf);
	if (cosched_conf_parse_file(&conf, path, &err)) {
		fprintf(stderr, "%s: --show %s: %s\n", PROG, path, err.msg);
		return 1;
	}
	printf("# %s: slowdown, row = victim, column = co-runner\n%-4s", path, "");
	for (int k = 0; k < COSCHED_LCA_COUNT; k++)
		printf(" %6s", cosched_lca_name(k));
	printf("\n");
	for (int v = 0; v < COSCHED_LCA_COUNT; v++) {
		printf("%-4s", cosched_lca_name(v));
		for (int k = 0; k < COSCHED_LCA_COUNT; k++)
			printf(" %6.2f", m->slowdown[v][k]);
		printf("\n");
	}
	printf("# preference, row = application, column = partner, - = never\n%-5s",
	       "");
	for (int k = 0; k < COSCHED_CAT_COUNT; k++)
		printf(" %5s", cosched_category_name(k));
	printf("\n");
	for (int a = 0; a < COSCHED_CAT_COUNT; a++) {
		printf("%-5s", cosched_category_name(a));
		for (int k = 0; k < COSCHED_CAT_COUNT; k++) {
			int r = m->pref.pref[a][k];
			if (r == COSCHED_PREF_FORBIDDEN)
				printf(" %5s", "-");
			else
				printf(" %5d", r);
		}
		printf("\n");
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		CORUN_OPTIONS,
		{ "forbid-above", required_argument, NULL, 'f' },
		{ "rank-step", required_argument, NULL, 'k' },
		{ "apply", required_argument, NULL, 'A' },
		{ "show", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *apply = NULL;
	int c, cpus[2];
	corun_opts_t o;
	cosched_pref_rule_t rule;
	cosched_corun_table_t table;
	cosched_error_t err;
	corun_prog_t rep[COSCHED_CAT_COUNT];
	char hostname[256] = "";

	corun_opts_init(&o);
	cosched_pref_rule_default(&rule);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (corun_opts_take(&o, PROG, c, optarg))
			continue;
		switch (c) {
		case 'f':
			rule.forbid_above = opt_num(PROG, "forbid-above", optarg,
				1.000001, COSCHED_SLOWDOWN_MAX,
				"a slowdown above 1 and at most 100");
			break;
		case 'k':
			rule.rank_step = opt_num(PROG, "rank-step", optarg, 0.01, 10,
						 "a number from 0.01 to 10");
			break;
		case 'A':
			apply = optarg;
			break;
		case 'S':
			return show(optarg);
		case 'h':
			printf("%s", usage);
			return 0;
		default:
			return corun_opts_unknown(PROG, argv[optind - 1], usage);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n%s", PROG,
			argv[optind], usage);
		return 2;
	}
	if (apply) {
		/* refuse a file we cannot parse before measuring anything */
		cosched_conf_t conf;
		cosched_conf_init(&conf);
		if (cosched_conf_parse_file(&conf, apply, &err)) {
			fprintf(stderr, "%s: --apply %s: refusing to change a file "
				"cosched cannot parse: %s\n", PROG, apply, err.msg);
			return 1;
		}
	}
	if (corun_pick_cpus(o.cpus, o.topology, cpus, &err)) {
		fprintf(stderr, "%s: %s\n", PROG, err.msg);
		return o.cpus ? 2 : 1;
	}
	if (corun_reps(rep, o.apps, o.scale, o.llc, &err)) {
		fprintf(stderr, "%s: %s\n", PROG, err.msg);
		return 1;
	}
	gethostname(hostname, sizeof(hostname) - 1);

	double (*ratio)[COSCHED_CAT_COUNT][CORUN_REPEATS_MAX] =
		calloc(COSCHED_CAT_COUNT, sizeof(*ratio));
	double (*alone)[CORUN_REPEATS_MAX] = calloc(COSCHED_CAT_COUNT, sizeof(*alone));
	if (!ratio || !alone)
		return 1;
	for (int r = 0; r < o.repeats; r++) {
		int cv = cpus[r % 2], cb = cpus[1 - r % 2];

		for (int v = 0; v < COSCHED_CAT_COUNT; v++) {
			double t0, t;
			if (corun_run(&rep[v], cv, o.timeout, &t0, &err))
				goto fail;
			alone[v][r] = t0;
			for (int k = 0; k < COSCHED_CAT_COUNT; k++) {
				if (corun_pair(&rep[v], cv, &rep[k], cb, o.warmup,
					       o.timeout, &t, &err))
					goto fail;
				ratio[v][k][r] = t / t0;
			}
		}
		if (!o.quiet)
			fprintf(stderr, "%s: repeat %d of %d done\n", PROG, r + 1,
				o.repeats);
	}
	table.repeats = o.repeats;
	for (int v = 0; v < COSCHED_CAT_COUNT; v++) {
		cosched_figure_t *f = &table.alone[v];
		corun_stats(alone[v], o.repeats, &f->median, &f->lo, &f->hi);
		for (int k = 0; k < COSCHED_CAT_COUNT; k++) {
			f = &table.s[v][k];
			corun_stats(ratio[v][k], o.repeats, &f->median, &f->lo, &f->hi);
		}
	}

	char iline[COSCHED_CORUN_LINE_MAX], pline[COSCHED_CORUN_LINE_MAX];
	if (cosched_corun_conf_lines(&table, &rule, iline, sizeof(iline), pline,
				     sizeof(pline), &err))
		goto fail;
	if (o.json) {
		printf("{\"host\": \"%s\", \"cpus\": [%d, %d], \"repeats\": %d, "
		       "\"scale\": %s,\n \"alone_s\": {", hostname, cpus[0], cpus[1],
		       o.repeats, o.scale);
		for (int v = 0; v < COSCHED_CAT_COUNT; v++) {
			printf("%s\"%s\": ", v ? ", " : "", cosched_category_name(v));
			print_fig(&table.alone[v], 1);
		}
		printf("},\n \"slowdown\": {");
		for (int v = 0; v < COSCHED_CAT_COUNT; v++) {
			printf("%s\n  \"%s\": {", v ? "," : "", cosched_category_name(v));
			for (int k = 0; k < COSCHED_CAT_COUNT; k++) {
				printf("%s\"%s\": ", k ? ", " : "",
				       cosched_category_name(k));
				print_fig(&table.s[v][k], 1);
			}
			printf("}");
		}
		printf("},\n \"interference\": \"%s\",\n \"preference\": \"%s\"}\n",
		       iline, pline);
	} else {
		printf("# cosched-calibrate on %s, CPUs %d and %d, %d repeats, scale %s\n",
		       hostname, cpus[0], cpus[1], o.repeats, o.scale);
		printf("# slowdown of the row (victim) next to the column (co-runner):\n"
		       "# median [min-max] over the repeats; 1 = none\n");
		printf("%-10s", "");
		for (int k = 0; k < COSCHED_LCA_COUNT; k++) {
			char h[32];
			snprintf(h, sizeof(h), "%s (%s)", cosched_lca_name(k),
				 cosched_category_name(cosched_lca_to_category(k)));
			printf("  %-17s", h);
		}
		printf("\n");
		for (int v = 0; v < COSCHED_LCA_COUNT; v++) {
			char h[32];
			snprintf(h, sizeof(h), "%s (%s)", cosched_lca_name(v),
				 cosched_category_name(cosched_lca_to_category(v)));
			printf("%-10s", h);
			for (int k = 0; k < COSCHED_LCA_COUNT; k++) {
				printf("  ");
				print_fig(&table.s[cosched_lca_to_category(v)]
						  [cosched_lca_to_category(k)], 0);
			}
			printf("\n");
		}
		printf("# alone, CPU seconds, median [min-max]:");
		for (int v = 0; v < COSCHED_CAT_COUNT; v++)
			printf(" %s %.3f [%.3f-%.3f]", cosched_category_name(v),
			       table.alone[v].median, table.alone[v].lo,
			       table.alone[v].hi);
		printf("\n%s\n%s\n", iline, pline);
	}
	if (apply) {
		const char *lines[] = { iline, pline };
		char comment[512];
		time_t now = time(NULL);
		struct tm tm;
		char when[64];

		gmtime_r(&now, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		snprintf(comment, sizeof(comment),
			 "Measured by cosched-calibrate on %s (CPUs %d and %d), %s,\n"
			 "%d repeats, scale %s; see cosched-calibrate(8).",
			 hostname, cpus[0], cpus[1], when, o.repeats, o.scale);
		if (conf_apply(apply, lines, 2, comment, 0, &err)) {
			fprintf(stderr, "%s: --apply %s: %s\n", PROG, apply, err.msg);
			return 1;
		}
		if (!o.quiet)
			fprintf(stderr, "%s: wrote the table into %s\n", PROG, apply);
	}
	for (int k = 0; k < COSCHED_CAT_COUNT; k++)
		corun_prog_free(&rep[k]);
	free(ratio);
	free(alone);
	return 0;
fail:
	fprintf(stderr, "%s: %s\n", PROG, err.msg);
	return 1;
}
