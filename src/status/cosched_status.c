/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_status.c - cosched-status(1): what cosched decided for the jobs
 * running and pending, per node and socket, read from each job's decision
 * record in its SystemComment through libslurm (as squeue reads jobs).
 *
 * This file is the libslurm side only: it loads the jobs, expands their
 * node lists and hands them to status.c, which knows no Slurm.  It uses
 * only what libslurm's public slurm.h declares in 22.05 and 24.11 alike
 * (hostlist_t is a pointer type in one and a struct in the other:
 * __typeof__ of slurm_hostlist_create() names whichever it is; 24.11 has no
 * slurm_get_errno(): libslurm sets errno; nor a job's CPUs on a node, so
 * where the record says nothing the socket is not known).
 */
#include "cosched_config.h"

#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "src/libcosched/model/decision.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/model/observe.h"
#include "src/libcosched/base/text.h"
#include "src/status/interference.h"
#include "src/status/status.h"

/* Slurm 26.05 renamed it; configure tells which name this Slurm has. */
#if !HAVE_DECL_SLURM_FREE_CONF
#define slurm_free_conf slurm_free_ctl_conf
#endif

#define PROG "cosched-status"

typedef __typeof__(slurm_hostlist_create(NULL)) hostlist_handle_t;

static void usage(FILE *out)
{
	fprintf(out,
"Usage: " PROG " [--json|--prometheus] [-j|--jobs JOBID] [-n|--nodes NODELIST]\n"
"       " PROG " --interference [--json] [--conf FILE]\n"
"       " PROG " --reset-interference [--conf FILE]\n"
"       " PROG " --observations [--profile-dir DIR] [--min-overlap X] [--conf FILE]\n"
"What cosched decided for the running and pending jobs, per node and socket:\n"
"each job's class and its source, predicted slowdown, frequency and governor,\n"
"and the reason, read from the decision record in the job's SystemComment.\n"
"\n"
"  -j, --jobs JOBID      explain one job: its record, and who is next to it\n"
"                        on each of its sockets\n"
"  -n, --nodes NODELIST  only these nodes (e.g. n[1-3],n7)\n"
"      --json            a JSON document (schema in cosched-status(1))\n"
"      --prometheus      metrics in Prometheus' text format: per socket the\n"
"                        jobs and the largest predicted slowdown, per job\n"
"                        its predicted slowdown and frequency\n"
"      --interference    the interference table slurmctld learned from the\n"
"                        step records, beside the configured one\n"
"      --reset-interference  start the learned table again (root, SlurmUser)\n"
"      --observations    every step record judged by the learner's rule (JSON)\n"
"      --profile-dir DIR the records' ProfileDir (default: cosched.conf's)\n"
"      --min-overlap X   share of a run one co-runner must cover (0..1]\n"
"      --conf FILE       cosched.conf (default: beside slurm.conf)\n"
"  -h, --help            this text\n"
"  -V, --version         the version, and the record schema it reads\n");
}

/* Slurm's name of a job state (the few this command lists, and the rest
 * for a job given with --jobs). */
static const char *state_name(uint32_t state)
{
	switch (state & JOB_STATE_BASE) {
	case JOB_PENDING: return "PENDING";
	case JOB_RUNNING: return "RUNNING";
	case JOB_SUSPENDED: return "SUSPENDED";
	case JOB_COMPLETE: return "COMPLETED";
	case JOB_CANCELLED: return "CANCELLED";
	case JOB_FAILED: return "FAILED";
	case JOB_TIMEOUT: return "TIMEOUT";
	case JOB_NODE_FAIL: return "NODE_FAIL";
	case JOB_PREEMPTED: return "PREEMPTED";
	case JOB_BOOT_FAIL: return "BOOT_FAIL";
	case JOB_DEADLINE: return "DEADLINE";
	case JOB_OOM: return "OUT_OF_MEMORY";
	default: return "UNKNOWN";
	}
}

/* The partitions with gang time slices (PreemptMode=GANG and
 * OverSubscribe=FORCE:N, N >= 2: cosched(8) TIME SHARING), as slurmctld
 * describes them; *parts is slurm_free_partition_info_msg's.  Nothing
 * when either cannot be loaded: the view is then left out, not guessed. */
static void load_timeshared(partition_info_msg_t **parts, bool *gang)
{
	slurm_conf_t *cc = NULL;

	*parts = NULL;
	*gang = false;
	if (slurm_load_ctl_conf((time_t) 0, &cc) || !cc)
		return;
	*gang = (cc->preempt_mode & PREEMPT_MODE_GANG) != 0;
	slurm_free_conf(cc);
	if (*gang && slurm_load_partitions((time_t) 0, parts, SHOW_ALL))
		*parts = NULL;
}

static bool timeshared(const partition_info_msg_t *parts, const char *name)
{
	for (uint32_t i = 0; parts && name && i < parts->record_count; i++) {
		const partition_info_t *p = &parts->partition_array[i];

		if (p->name && !strcmp(p->name, name) &&
		    (p->max_share & SHARED_FORCE) &&
		    (p->max_share & ~SHARED_FORCE) >= 2)
			return true;
	}
	return false;
}

/* A hostlist expression as names: *names (each malloc'd) and *n. */
static int expand_hosts(const char *expr, char ***names, size_t *n)
{
	hostlist_handle_t hl;
	char *host, **v = NULL;
	size_t cap = 0;

	*names = NULL;
	*n = 0;
	if (!expr || !*expr)
		return 0;
	hl = slurm_hostlist_create(expr);
	if (!hl)
		return -1;
	while ((host = slurm_hostlist_shift(hl))) {
		if (*n == cap) {
			char **w;
			cap = cap ? 2 * cap : 8;
			w = realloc(v, cap * sizeof(*v));
			if (!w) {
				free(host);
				goto fail;
			}
			v = w;
		}
		/* slurm_hostlist_shift's string is malloc'd (free() it). */
		v[(*n)++] = host;
		/* An expression Slurm could not expand ("n[", "n[1-") comes
		 * back as one name holding its brackets: no node is called
		 * that, and an empty answer would look like an idle node. */
		if (strpbrk(host, "[],") || !host[0])
			goto fail;
	}
	slurm_hostlist_destroy(hl);
	*names = v;
	return 0;
fail:
	slurm_hostlist_destroy(hl);
	for (size_t i = 0; i < *n; i++)
		free(v[i]);
	free(v);
	*n = 0;
	return -1;
}

static int parse_job_id(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v > 0xfffffffdUL)
		return -1;
	*out = (uint32_t) v;
	return 0;
}

static char *user_of(const slurm_job_info_t *job)
{
	struct passwd pw, *res = NULL;
	char buf[4096], num[16];

	if (job->user_name && *job->user_name)
		return strdup(job->user_name);
	if (!getpwuid_r(job->user_id, &pw, buf, sizeof(buf), &res) && res)
		return strdup(pw.pw_name);
	snprintf(num, sizeof(num), "%u", job->user_id);
	return strdup(num);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "interference", no_argument, NULL, 'I' },
		{ "reset-interference", no_argument, NULL, 'R' },
		{ "conf", required_argument, NULL, 'C' },
		{ "observations", no_argument, NULL, 'O' },
		{ "profile-dir", required_argument, NULL, 'P' },
		{ "min-overlap", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_path = NULL, *profile_dir = NULL;
	bool interference = false, reset = false, observations = false;
	double min_overlap = COSCHED_OBSERVE_MIN_OVERLAP_DEFAULT;
	status_filter_t filter = { 0 };
	const char *nodes_expr = NULL;
	char **filter_nodes = NULL, **users = NULL;
	size_t nfilter = 0, njobs = 0;
	job_info_msg_t *msg = NULL;
	partition_info_msg_t *parts = NULL;
	bool gang = false;
	status_job_t *jobs = NULL;
	char ***job_nodes = NULL;
	status_report_t *report;
	cosched_error_t err;
	bool json = false, prometheus = false;
	int opt, rc = 1;

	while ((opt = getopt_long(argc, argv, "j:n:hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'J':
			json = true;
			break;
		case 'p':
			prometheus = true;
			break;
		case 'I':
			interference = true;
			break;
		case 'R':
			reset = true;
			break;
		case 'C':
			conf_path = optarg;
			break;
		case 'O':
			observations = true;
			break;
		case 'P':
			profile_dir = optarg;
			break;
		case 'M':
			if (cosched_parse_number(optarg, &min_overlap) ||
			    !(min_overlap > 0.0 && min_overlap <= 1.0)) {
				fprintf(stderr, PROG ": --min-overlap: invalid value %s (expected a number in (0, 1])\n",
					COSCHED_QUOTE(optarg));
				return 2;
			}
			break;
		case 'j':
			if (parse_job_id(optarg, &filter.job)) {
				fprintf(stderr, PROG ": --jobs: invalid job id %s (one job id, e.g. 42)\n",
					COSCHED_QUOTE(optarg));
				return 2;
			}
			break;
		case 'n':
			nodes_expr = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf(PROG " %s (reads decision records of schema %d)\n",
			       PACKAGE_VERSION, COSCHED_DECISION_SCHEMA);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument %s\n",
			COSCHED_QUOTE(argv[optind]));
		usage(stderr);
		return 2;
	}

	if (prometheus && (json || filter.job || interference || reset ||
			   observations)) {
		fprintf(stderr, PROG ": --prometheus: not with --json, --jobs, --interference, --reset-interference or --observations\n");
		return 2;
	}
	if ((interference || reset || observations) &&
	    (filter.job || nodes_expr)) {
		fprintf(stderr, PROG ": %s: not with --interference, --reset-interference or --observations\n",
			filter.job ? "--jobs" : "--nodes");
		return 2;
	}
	if ((reset || observations) && json) {
		fprintf(stderr, PROG ": --json: only with --interference (--observations always prints JSON)\n");
		return 2;
	}
	if (interference + reset + observations > 1) {
		fprintf(stderr, PROG ": --interference, --reset-interference and --observations: give one\n");
		return 2;
	}
	if (conf_path && !interference && !reset && !observations) {
		fprintf(stderr, PROG ": --conf: only with --interference, --reset-interference or --observations\n");
		return 2;
	}
	if ((profile_dir || min_overlap != COSCHED_OBSERVE_MIN_OVERLAP_DEFAULT) &&
	    !observations) {
		fprintf(stderr, PROG ": --profile-dir and --min-overlap: only with --observations\n");
		return 2;
	}
	if (interference || reset || observations) {
		/* Files slurmctld wrote are SlurmUser's: trusted here too,
		 * when slurmctld says who that is (else root's and the
		 * caller's only).  Only where this host has a slurm.conf:
		 * libslurm without one ends the process, and these modes
		 * read files only (a report host may have none). */
		bool slurm = !access(status_slurm_conf(), R_OK);
		status_viewer_t viewer = {
			.privacy = { .on = false, .owner = -1 },
			.uid = (long) getuid(), .sees_all = getuid() == 0,
		};

		if (slurm) {
			slurm_conf_t *cc = NULL;

			slurm_init(NULL);
			if (!slurm_load_ctl_conf((time_t) 0, &cc) && cc) {
				cosched_file_trust_uid(
					(long) cc->slurm_user_id);
				/* squeue's rule for the jobs in the files
				 * (and how a reset table is kept). */
				viewer.privacy.on = (cc->private_data &
						     PRIVATE_DATA_JOBS) != 0;
				viewer.privacy.owner =
					(long) cc->slurm_user_id;
				viewer.sees_all |= getuid() ==
						   cc->slurm_user_id;
				slurm_free_conf(cc);
			}
		}
		rc = observations ?
		     status_observations(conf_path, profile_dir, min_overlap,
					 &viewer, stdout, stderr) :
		     status_interference(conf_path, reset, json, &viewer,
					 stdout, stderr);
		if (slurm)
			slurm_fini();
		return rc;
	}

	slurm_init(NULL);
	if (nodes_expr) {
		if (expand_hosts(nodes_expr, &filter_nodes, &nfilter) ||
		    !nfilter) {
			fprintf(stderr, PROG ": --nodes: invalid node list %s\n",
				COSCHED_QUOTE(nodes_expr));
			rc = 2;
			goto out;
		}
		filter.nodes = (const char *const *) filter_nodes;
		filter.nnodes = nfilter;
	}
	if (slurm_load_jobs((time_t) 0, &msg, SHOW_ALL)) {
		fprintf(stderr, PROG ": cannot load the jobs from slurmctld: %s\n",
			slurm_strerror(errno));
		goto out;
	}

	load_timeshared(&parts, &gang);
	jobs = calloc(msg->record_count + 1, sizeof(*jobs));
	job_nodes = calloc(msg->record_count + 1, sizeof(*job_nodes));
	users = calloc(msg->record_count + 1, sizeof(*users));
	if (!jobs || !job_nodes || !users)
		goto oom;
	for (uint32_t i = 0; i < msg->record_count; i++) {
		slurm_job_info_t *job = &msg->job_array[i];
		uint32_t base = job->job_state & JOB_STATE_BASE;
		status_job_t *j = &jobs[njobs];
		size_t nn = 0;

		/* The running and pending jobs, and a job asked for by id
		 * whatever its state. */
		if (base != JOB_PENDING && base != JOB_RUNNING &&
		    base != JOB_SUSPENDED && job->job_id != filter.job)
			continue;
		j->job_id = job->job_id;
		j->state = state_name(job->job_state);
		j->pending = base == JOB_PENDING;
		users[njobs] = user_of(job);
		j->user = users[njobs];
		j->name = job->name;
		j->comment = job->system_comment;
		j->partition = job->partition;
		j->timeshared = gang && timeshared(parts, job->partition);
		njobs++;	/* from here on, freed at the end */
		if (!j->pending && expand_hosts(job->nodes, &job_nodes[njobs - 1], &nn))
			goto oom;
		j->nodes = (const char *const *) job_nodes[njobs - 1];
		j->nnodes = nn;
	}

	report = status_report_build(jobs, njobs, &filter, &err);
	if (!report) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		goto out;
	}
	if (prometheus ? status_report_prometheus(report, stdout, &err) :
	    json ? status_report_json(report, stdout, &err) :
		   status_report_text(report, stdout))
		fprintf(stderr, PROG ": %s\n", json || prometheus ? err.msg :
			"cannot write the report");
	else if (fflush(stdout) == 0)
		rc = 0;
	status_report_free(report);
	goto out;
oom:
	fprintf(stderr, PROG ": out of memory\n");
out:
	for (size_t i = 0; i < njobs; i++) {
		for (size_t k = 0; k < jobs[i].nnodes; k++)
			free(job_nodes[i][k]);
		free(job_nodes[i]);
		free(users[i]);
	}
	for (size_t k = 0; k < nfilter; k++)
		free(filter_nodes[k]);
	free(filter_nodes);
	free(job_nodes);
	free(users);
	free(jobs);
	if (msg)
		slurm_free_job_info_msg(msg);
	if (parts)
		slurm_free_partition_info_msg(parts);
	slurm_fini();
	return rc;
}
