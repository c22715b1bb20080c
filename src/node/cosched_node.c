/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_node.c - cosched-node(8): what task/cosched changed on a node,
 * and how to give the node back its originals by hand.
 *
 *   cosched-node [options] show      every cpufreq domain as it is now,
 *                                    and the journal's originals and
 *                                    holders
 *   cosched-node [options] sweep     what slurmd does at start: drop the
 *                                    holders whose slurmstepd is gone and
 *                                    restore their domains
 *   cosched-node [options] restore [--force]
 *                                    restore every domain the journal
 *                                    names; refused while a job's step
 *                                    still holds one, unless --force
 *   cosched-node [options] metrics   the energy ledger's steps and their
 *                                    shares so far, in Prometheus' text
 *                                    format (node_exporter's textfile
 *                                    collector)
 *
 * For a rollback (task/cosched removed from TaskPlugin) or a node that
 * must be handed back now; the same library calls as the plugin.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/libcosched/conf/conf.h"
#include "src/node/cpufreq.h"
#include "src/node/cpufreq_journal.h"
#include "src/node/energy_ledger.h"

#define DEFAULT_CONF "/etc/slurm/cosched.conf"
#define DEFAULT_SPOOL "/var/spool/slurmd"	/* Slurm's SlurmdSpoolDir */

static void usage(FILE *f)
{
	fprintf(f,
"usage: cosched-node [--conf FILE] [--node NAME] [--spool DIR] show|sweep|restore [--force]|metrics\n"
"  --conf FILE   cosched.conf (default: $COSCHED_CONF, else " DEFAULT_CONF ")\n"
"  --node NAME   the node's Slurm name, for %%n in SysfsRoot (default: host name)\n"
"  --spool DIR   the node's SlurmdSpoolDir, %%n expanded (default " DEFAULT_SPOOL ")\n"
"  --force       restore: also the domains of steps still running\n");
}

/* pattern with every "%n" replaced by node (malloc'd). */
static char *expand_node(const char *pattern, const char *node)
{
	size_t n = 0, len = strlen(pattern) + 1;
	char *out;

	for (const char *p = pattern; (p = strstr(p, "%n")); p += 2)
		len += strlen(node);
	out = malloc(len);
	if (!out)
		return NULL;
	for (const char *p = pattern; *p;) {
		if (p[0] == '%' && p[1] == 'n') {
			memcpy(out + n, node, strlen(node));
			n += strlen(node);
			p += 2;
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = '\0';
	return out;
}

static void print_outcome(const char *what,
			  const cosched_cpufreq_outcome_t *o)
{
	char set[160];

	printf("%s: %d domains restored, %d written, %d failed, %d dropped (previous boot)",
	       what, o->restored, o->applied, o->failed, o->dropped);
	if (o->restored || o->applied)
		printf("; last: %s", cosched_cpufreq_setting_format(&o->last,
								     set,
								     sizeof(set)));
	printf("\n");
}

static int show(const cosched_cpufreq_t *c, const char *dir)
{
	char path[COSCHED_PATH_MAX + 64], cpus[COSCHED_IDSET_TEXT_MAX];
	char set[160], line[COSCHED_IDSET_TEXT_MAX + 256];
	cosched_error_t err;
	FILE *f;

	for (int i = 0; i < cosched_cpufreq_ndomains(c); i++) {
		const cosched_cpufreq_domain_t *d = cosched_cpufreq_domain(c, i);
		cosched_cpufreq_setting_t s;

		cosched_idset_format(&d->cpus, cpus, sizeof(cpus));
		if (cosched_cpufreq_read(c, i, &s, &err))
			printf("domain %d cpus=%s: %s\n", d->id, cpus, err.msg);
		else
			printf("domain %d cpus=%s now %s\n", d->id, cpus,
			       cosched_cpufreq_setting_format(&s, set,
							      sizeof(set)));
	}
	snprintf(path, sizeof(path), "%s/%s", dir,
		 COSCHED_CPUFREQ_JOURNAL_FILE);
	f = fopen(path, "re");
	if (!f) {
		printf("journal %s: %s\n", path, errno == ENOENT ?
		       "none (cosched holds no domain)" : strerror(errno));
		return errno == ENOENT ? 0 : 1;
	}
	printf("journal %s:\n", path);
	while (fgets(line, sizeof(line), f)) {
		unsigned job, step;
		int pid;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "holder job=%u step=%u pid=%d", &job, &step,
			   &pid) == 3) {
			cosched_cpufreq_holder_t h = { .pid = pid };
			char *st = strstr(line, " start=");
			h.start_time = st ? strtoull(st + 7, NULL, 10) : 0;
			printf("  %s (%s)\n", line,
			       !cosched_cpufreq_holder_alive(&h) ?
			       "gone: the next sweep restores" :
			       strstr(line, " stopped=1") ?
			       "suspended: asks for nothing until it runs" :
			       "running");
		} else {
			printf("  %s\n", line);
		}
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf", required_argument, NULL, 'c' },
		{ "node", required_argument, NULL, 'n' },
		{ "spool", required_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *conf_path = getenv("COSCHED_CONF");
	const char *spool_arg = DEFAULT_SPOOL, *cmd;
	char node[256] = "", *root, *spool, dir[COSCHED_PATH_MAX];
	cosched_cpufreq_outcome_t out;
	cosched_cpufreq_t *c;
	cosched_conf_t conf;
	cosched_error_t err;
	bool force = false;
	struct stat st;
	int opt, rc = 0, alive = 0;

	if (!conf_path || !*conf_path)
		conf_path = DEFAULT_CONF;
	while ((opt = getopt_long(argc, argv, "c:n:s:fh", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': conf_path = optarg; break;
		case 'n': snprintf(node, sizeof(node), "%s", optarg); break;
		case 's': spool_arg = optarg; break;
		case 'f': force = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	if (strcmp(cmd, "show") && strcmp(cmd, "sweep") &&
	    strcmp(cmd, "restore") && strcmp(cmd, "metrics")) {
		fprintf(stderr, "cosched-node: unknown command \"%.64s\" (show, sweep, restore or metrics)\n",
			cmd);
		return 2;
	}
	if (force && strcmp(cmd, "restore")) {
		fprintf(stderr, "cosched-node: --force goes with restore only\n");
		return 2;
	}
	if (!node[0]) {
		gethostname(node, sizeof(node) - 1);
		node[strcspn(node, ".")] = '\0';
	}
	cosched_conf_init(&conf);
	if (stat(conf_path, &st) == 0 &&
	    cosched_conf_parse_file(&conf, conf_path, &err)) {
		fprintf(stderr, "cosched-node: %s\n", err.msg);
		return 1;
	}
	root = expand_node(conf.sysfs_root, node);
	spool = expand_node(spool_arg, node);
	if (!root || !spool) {
		fprintf(stderr, "cosched-node: out of memory\n");
		return 1;
	}
	if (stat(spool, &st) || !S_ISDIR(st.st_mode)) {
		/* Debian's SlurmdSpoolDir is /var/lib/slurm/slurmd, not
		 * Slurm's default: never guess and create a directory. */
		fprintf(stderr, "cosched-node: SlurmdSpoolDir %s: %s (give --spool: the node's SlurmdSpoolDir)\n",
			spool, errno ? strerror(errno) : "not a directory");
		free(root);
		free(spool);
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/cosched", spool);
	if (!strcmp(cmd, "metrics")) {
		/* No cpufreq needed: a node without it still has energy. */
		rc = cosched_energy_ledger_metrics(dir, node, stdout, &err);
		if (!rc && fflush(stdout))
			rc = cosched_error_set(&err, "standard output: %s",
					       strerror(errno));
		if (rc)
			fprintf(stderr, "cosched-node: %s\n", err.msg);
		free(root);
		free(spool);
		return rc ? 1 : 0;
	}
	c = cosched_cpufreq_open(root, &err);
	if (!c) {
		fprintf(stderr, "cosched-node: %s\n", err.msg);
		free(root);
		free(spool);
		return 1;
	}
	cosched_cpufreq_default_governor(c, conf.freq_default_governor);
	if (!strcmp(cmd, "show")) {
		rc = show(c, dir);
	} else if (!strcmp(cmd, "sweep")) {
		rc = cosched_cpufreq_sweep(c, dir, &out, &err) ? 1 : 0;
		print_outcome("sweep", &out);
	} else {
		rc = cosched_cpufreq_restore_all(c, dir, force, &alive, &out,
						 &err) ? 1 : 0;
		print_outcome(force ? "restore --force" : "restore", &out);
	}
	if (rc && strcmp(cmd, "show"))
		fprintf(stderr, "cosched-node: %s\n", err.msg);
	cosched_cpufreq_close(c);
	free(root);
	free(spool);
	return rc;
}
