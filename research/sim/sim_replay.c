/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_replay.c - cosched-sim-replay: a sequence of job arrivals and
 * departures replayed through the simulator's placement path (sim_ss_place,
 * which every space-shared simulation uses), printing the node and socket
 * each job gets.  The same sequence run through slurmctld gives the
 * controller's choices in the jobs' decision records; a test compares the
 * two (testsuite/python/test_place_replay.py), so the simulator is shown
 * to judge the placement the controller makes.  See cosched-sim-replay(1).
 *
 * Input (standard input), one event a line, '#' starts a comment:
 *   arrive JOBID CATEGORY THREADS MPKI
 *   depart JOBID
 * Output, one line per arrival:
 *   JOBID NODE SOCKET       (node index from 0, socket within the node)
 *   JOBID pending           (no socket accepts it now)
 * With --oversubscribe N (a time-shared partition, sim_replay_ts.c) each
 * arrival's line goes on with its cores and partners:
 *   JOBID NODE SOCKET cores=0,2 how=idle alternates=12 beside=13,14
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "research/sim/sim.h"
#include "research/sim/sim_replay.h"
#include "src/libcosched/conf/conf.h"
#include "src/libcosched/base/number.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: cosched-sim-replay [--conf FILE] [--nodes N] [--sockets S] [--cores C] [--oversubscribe N] < EVENTS\n");
}

static int parse_int(const char *opt, const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "cosched-sim-replay: %s: invalid value \"%.40s\" (%d..%d)\n",
			opt, s, lo, hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* One event line; returns 0, or -1 after printing why (line named). */
static int replay_line(cosched_place_t *place, sim_replay_ts_t *ts,
		       char *line, long lineno)
{
	char *save = NULL, *verb, *id_s, *cat_s, *thr_s, *mpki_s, *extra;
	cosched_gang_job_t gj = { 0 };
	static const cosched_range_t mpki_range = { 0, 1e6, false };
	cosched_error_t err = { { 0 } };
	uint64_t id;
	long unit;
	int threads;

	line[strcspn(line, "#\r\n")] = '\0';
	verb = strtok_r(line, " \t", &save);
	if (!verb)
		return 0;
	id_s = strtok_r(NULL, " \t", &save);
	if (!id_s || cosched_parse_u64(id_s, UINT32_MAX - 2, &id) || !id) {
		fprintf(stderr, "cosched-sim-replay: line %ld: job id: invalid value \"%.40s\"\n",
			lineno, id_s ? id_s : "");
		return -1;
	}
	if (!strcmp(verb, "depart")) {
		if (strtok_r(NULL, " \t", &save)) {
			fprintf(stderr, "cosched-sim-replay: line %ld: depart takes one job id\n",
				lineno);
			return -1;
		}
		if (ts && sim_replay_ts_depart(ts, (uint32_t)id, &err) < 0) {
			fprintf(stderr, "cosched-sim-replay: line %ld: %s\n",
				lineno, err.msg);
			return -1;
		}
		if (ts)
			return 0;
		return cosched_place_leave(place, (uint32_t)id, &err) < 0 ?
		       fprintf(stderr, "cosched-sim-replay: line %ld: %s\n",
			       lineno, err.msg), -1 : 0;
	}
	if (strcmp(verb, "arrive")) {
		fprintf(stderr, "cosched-sim-replay: line %ld: unknown event \"%.20s\" (arrive, depart)\n",
			lineno, verb);
		return -1;
	}
	cat_s = strtok_r(NULL, " \t", &save);
	thr_s = strtok_r(NULL, " \t", &save);
	mpki_s = strtok_r(NULL, " \t", &save);
	extra = strtok_r(NULL, " \t", &save);
	if (!cat_s || !thr_s || !mpki_s || extra) {
		fprintf(stderr, "cosched-sim-replay: line %ld: arrive takes JOBID CATEGORY THREADS MPKI\n",
			lineno);
		return -1;
	}
	gj.job_id = (uint32_t)id;
	if (cosched_category_parse("category", cat_s, &gj.category, &err)) {
		fprintf(stderr, "cosched-sim-replay: line %ld: %s\n", lineno,
			err.msg);
		return -1;
	}
	if (parse_int("threads", thr_s, 1, COSCHED_GANG_MAX_CAPACITY,
		      &gj.threads))
		return -1;
	if (cosched_parse_number(mpki_s, &gj.mpki) ||
	    cosched_range_check("mpki", &mpki_range, gj.mpki, mpki_s, &err)) {
		fprintf(stderr, "cosched-sim-replay: line %ld: %s\n", lineno,
			err.msg[0] ? err.msg : "mpki: not a number");
		return -1;
	}
	if (ts) {
		if (sim_replay_ts_arrive(ts, &gj, stdout, &err) < 0) {
			fprintf(stderr, "cosched-sim-replay: line %ld: %s\n",
				lineno, err.msg);
			return -1;
		}
		return 0;
	}
	if (sim_ss_place(place, &gj, NULL, NULL, &unit, &threads, &err) < 0) {
		fprintf(stderr, "cosched-sim-replay: line %ld: %s\n", lineno,
			err.msg);
		return -1;
	}
	if (unit < 0) {
		printf("%u pending\n", gj.job_id);
	} else {
		size_t node = cosched_place_unit_node(place, (size_t)unit);
		printf("%u %zu %zu\n", gj.job_id, node,
		       (size_t)unit - cosched_place_unit_first(place, node));
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "conf", required_argument, NULL, 'f' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "sockets", required_argument, NULL, 's' },
		{ "cores", required_argument, NULL, 'c' },
		{ "oversubscribe", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	cosched_conf_t conf;
	cosched_place_conf_t pc;
	cosched_place_t *place;
	cosched_error_t err;
	int nodes = 4, sockets = 2, cores = 4, opt, rc = 0, *units, *ucores;
	int oversubscribe = 0;
	sim_replay_ts_t *ts = NULL;
	const char *conf_path = NULL;
	char line[512];
	long lineno = 0;

	while ((opt = getopt_long(argc, argv, "f:n:s:c:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			conf_path = optarg;
			break;
		case 'n':
			if (parse_int("--nodes", optarg, 1, 100000, &nodes))
				return 2;
			break;
		case 's':
			if (parse_int("--sockets", optarg, 1, 64, &sockets))
				return 2;
			break;
		case 'c':
			if (parse_int("--cores", optarg, 1,
				      COSCHED_GANG_MAX_CAPACITY, &cores))
				return 2;
			break;
		case 'o':
			if (parse_int("--oversubscribe", optarg, 2, 32767,
				      &oversubscribe))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	/* The controller's settings, read by the controller's parser. */
	cosched_conf_init(&conf);
	if (conf_path && cosched_conf_parse_file(&conf, conf_path, &err)) {
		fprintf(stderr, "cosched-sim-replay: %s\n", err.msg);
		return 2;
	}
	/* PlacementMode=, MaxSlowdown=, PackDemand=, as slurmctld. */
	cosched_place_conf_from(&conf, &conf.interference, &pc);
	units = malloc((size_t)nodes * sizeof(int));
	ucores = malloc((size_t)nodes * sizeof(int));
	if (!units || !ucores) {
		fprintf(stderr, "cosched-sim-replay: out of memory\n");
		return 1;
	}
	for (int i = 0; i < nodes; i++) {
		units[i] = conf.scope == COSCHED_SCOPE_NODE ? 1 : sockets;
		ucores[i] = conf.scope == COSCHED_SCOPE_NODE ? sockets * cores :
							      cores;
	}
	place = cosched_place_create(&pc, (size_t)nodes, units, ucores, &err);
	free(units);
	free(ucores);
	if (!place) {
		fprintf(stderr, "cosched-sim-replay: %s\n", err.msg);
		return 2;
	}
	for (int i = 0; i < nodes; i++)
		cosched_place_set_node_ok(place, (size_t)i, true);
	if (oversubscribe &&
	    !(ts = sim_replay_ts_create(place, oversubscribe, &err))) {
		fprintf(stderr, "cosched-sim-replay: %s\n", err.msg);
		cosched_place_free(place);
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		lineno++;
		if (replay_line(place, ts, line, lineno)) {
			rc = 1;
			break;
		}
	}
	sim_replay_ts_free(ts);
	cosched_place_free(place);
	return rc;
}
