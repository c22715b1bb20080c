/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_numa.c - cosched-numa: ask the node's NUMA manager
 * (cosched-numad) to move memory, set a job's NUMA priority, or show what
 * it knows (cosched-numa(1)).
 *
 * The client checks what it can before it asks (numbers, names) so that
 * a typo is refused naming the argument; the daemon checks everything
 * again, since any local user may write to its socket.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/libcosched/conf/conf.h"
#include "src/libcosched/base/kv.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"
#include "src/libcosched/model/victim.h"
#include "src/node/numa_ask.h"

#define DEFAULT_CONF "/etc/slurm/cosched.conf"

/* A reply line: errors to stderr, the rest to stdout. */
static void print_line(void *arg, const char *line)
{
	(void) arg;
	if (!strncmp(line, "error: ", 7))
		fprintf(stderr, "cosched-numa: %s\n", line + 7);
	else
		printf("%s\n", line);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cosched-numa [-s SOCKET] [-f COSCHED_CONF] COMMAND ...\n"
		"  migrate SRC DST PAGES [--order O] [--job ID] [--dry-run] [--no-wait]\n"
		"  drain NODE [--to DST] [--order O] [--job ID] [--dry-run] [--no-wait]\n"
		"  priority JOB high|low|default\n"
		"  make-room NODE PAGES --job ID\n"
		"  cancel REQUEST\n"
		"  status\n"
		"Orders: best, best_plus, random, worst, worst_plus.  See cosched-numa(1).\n");
}

static int bad(const char *what, const char *value, const char *expect)
{
	fprintf(stderr, "cosched-numa: %s: invalid value %s (%s)\n", what,
		COSCHED_QUOTE(value), expect);
	return 2;
}

static int number(const char *what, const char *v, long min, long max,
		  long *out)
{
	char why[64];

	if (cosched_parse_long(v, out) || *out < min || *out > max) {
		snprintf(why, sizeof(why), "a whole number, %ld to %ld", min,
			 max);
		return bad(what, v, why);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *sock = NULL, *conf_path = getenv("COSCHED_CONF");
	const char *order = "best", *to = NULL, *job = NULL;
	bool dry = false, wait = true;
	char line[1024], *cmd, **args;
	cosched_victim_order_t o;
	cosched_kv_out_t out;
	cosched_error_t err;
	cosched_conf_t conf;
	int opt, rc, idx = 0, nargs;
	long x, jobid = 0;
	static const struct option longs[] = {
		{ "order", required_argument, NULL, 'o' },
		{ "to", required_argument, NULL, 't' },
		{ "job", required_argument, NULL, 'j' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "no-wait", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};

	if (!conf_path || !*conf_path)
		conf_path = DEFAULT_CONF;
	/* GNU getopt permutes: options may come before or after the
	 * command and its arguments. */
	while ((opt = getopt_long(argc, argv, "s:f:h", longs, &idx)) != -1) {
		switch (opt) {
		case 's': sock = optarg; break;
		case 'f': conf_path = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'o': order = optarg; break;
		case 't': to = optarg; break;
		case 'j': job = optarg; break;
		case 'n': dry = true; break;
		case 'W': wait = false; break;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	args = argv + optind + 1;
	nargs = argc - optind - 1;
	if (cosched_victim_order_parse("--order", order, &o, &err)) {
		fprintf(stderr, "cosched-numa: %s\n", err.msg);
		return 2;
	}
	if (job && number("--job", job, 1, 4294967293L, &jobid))
		return 2;
	cosched_kv_out_fixed(&out, line, sizeof(line));
	cosched_kv_put_str(&out, "cosched-numa/1");
	if (!strcmp(cmd, "migrate")) {
		if (nargs != 3) {
			fprintf(stderr, "cosched-numa: migrate takes SRC DST PAGES\n");
			return 2;
		}
		cosched_kv_put(&out, "cmd", "migrate");
		if (number("SRC", args[0], 0, COSCHED_VICTIM_MAX_NODES - 1, &x))
			return 2;
		cosched_kv_put_int(&out, "src", x);
		if (number("DST", args[1], 0, COSCHED_VICTIM_MAX_NODES - 1, &x))
			return 2;
		cosched_kv_put_int(&out, "dst", x);
		if (number("PAGES", args[2], 1, 1L << 40, &x))
			return 2;
		cosched_kv_put_int(&out, "pages", x);
	} else if (!strcmp(cmd, "drain")) {
		if (nargs != 1) {
			fprintf(stderr, "cosched-numa: drain takes NODE\n");
			return 2;
		}
		cosched_kv_put(&out, "cmd", "drain");
		if (number("NODE", args[0], 0, COSCHED_VICTIM_MAX_NODES - 1, &x))
			return 2;
		cosched_kv_put_int(&out, "src", x);
		if (to) {
			if (number("--to", to, 0, COSCHED_VICTIM_MAX_NODES - 1, &x))
				return 2;
			cosched_kv_put_int(&out, "dst", x);
		}
	} else if (!strcmp(cmd, "priority")) {
		if (nargs != 2) {
			fprintf(stderr, "cosched-numa: priority takes JOB and high, low or default\n");
			return 2;
		}
		if (number("JOB", args[0], 1, 4294967293L, &jobid))
			return 2;
		if (strcmp(args[1], "high") &&
		    strcmp(args[1], "low") &&
		    strcmp(args[1], "default"))
			return bad("level", args[1], "high, low or default");
		cosched_kv_put(&out, "cmd", "priority");
		cosched_kv_put(&out, "level", "%s", args[1]);
	} else if (!strcmp(cmd, "make-room")) {
		/* What task/cosched asks when a high-priority job starts
		 * (NumaMakeRoom=yes): for an administrator to try by hand. */
		if (nargs != 2 || !job) {
			fprintf(stderr, "cosched-numa: make-room takes NODE PAGES and --job ID\n");
			return 2;
		}
		cosched_kv_put(&out, "cmd", "make_room");
		if (number("NODE", args[0], 0, COSCHED_VICTIM_MAX_NODES - 1, &x))
			return 2;
		cosched_kv_put_int(&out, "src", x);
		if (number("PAGES", args[1], 1, 1L << 40, &x))
			return 2;
		cosched_kv_put_int(&out, "pages", x);
	} else if (!strcmp(cmd, "cancel")) {
		if (nargs != 1) {
			fprintf(stderr, "cosched-numa: cancel takes REQUEST (its id=)\n");
			return 2;
		}
		if (number("REQUEST", args[0], 1, 1L << 62, &x))
			return 2;
		cosched_kv_put(&out, "cmd", "cancel");
		cosched_kv_put_int(&out, "id", x);
	} else if (!strcmp(cmd, "status")) {
		if (nargs) {
			fprintf(stderr, "cosched-numa: status takes no argument\n");
			return 2;
		}
		cosched_kv_put(&out, "cmd", "status");
	} else {
		fprintf(stderr, "cosched-numa: unknown command %s (migrate, drain, priority, make-room, cancel, status)\n",
			COSCHED_QUOTE(cmd));
		return 2;
	}
	if (!strcmp(cmd, "migrate") || !strcmp(cmd, "drain")) {
		cosched_kv_put(&out, "order", "%s", cosched_victim_order_name(o));
		cosched_kv_put(&out, "dry_run", "%s", dry ? "yes" : "no");
		cosched_kv_put(&out, "wait", "%s", wait ? "yes" : "no");
	}
	if (jobid)
		cosched_kv_put_int(&out, "job", jobid);
	if (!sock) {
		struct stat st;

		cosched_conf_init(&conf);
		if (!stat(conf_path, &st) &&
		    cosched_conf_parse_file(&conf, conf_path, &err))
			fprintf(stderr, "cosched-numa: %s (using the default socket)\n",
				err.msg);
		sock = conf.numa.socket[0] ? conf.numa.socket :
		       COSCHED_NUMA_SOCKET_DEFAULT;
	}
	rc = cosched_numa_ask(sock, line, -1, print_line, NULL, &err);
	if (rc < 0) {
		fprintf(stderr, "cosched-numa: %s\n", err.msg);
		return 1;
	}
	return rc;
}
