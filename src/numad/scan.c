/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scan.c - what the NUMA manager knows of its node: the NUMA nodes
 * and their distances (libnuma), the Slurm steps running (the step files
 * task/cosched writes, src/node/numa_step.h) and, for each of their
 * processes, its movable pages per node (/proc/PID/numa_maps), the node
 * its CPUs run on (its affinity) and its bandwidth figure.
 *
 * Bandwidth.  "Dynamic memory placement of applications on a NUMA system" (NTUA
 * thesis, 2020) ranks processes by LLC misses per interval.  Where the step's
 * sampler has no counters (these development machines, most VMs) the figure is
 * an estimate, CPU seconds per second since the last scan (since the process
 * started, at its first), and is labelled NUMAD_BW_ESTIMATE wherever it is
 * shown: a process that does not run does not use memory bandwidth, and among
 * running ones it does not tell a streaming loop from a compute loop.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/libcosched/base/text.h"
#include "src/node/energy_ledger.h"
#include "src/node/numa_step.h"
#include "src/numad/numad.h"

/* A step file with no task yet, older than this, is stale. */
#define STEP_NO_TASK_STALE_S 300

int numad_machine(numad_t *d, cosched_error_t *err)
{
	bool have_distance = true;
	int n;

	if (numa_available() < 0)
		return cosched_error_set(err,
			"libnuma: this kernel has no NUMA support");
	n = numa_max_node() + 1;
	if (n < 1 || n > COSCHED_VICTIM_MAX_NODES)
		return cosched_error_set(err,
			"%d NUMA nodes: cosched-numad handles 1 to %d", n,
			COSCHED_VICTIM_MAX_NODES);
	d->nnodes = n;
	for (int i = 0; i < n; i++) {
		long long freep;

		d->node_has_mem[i] = numa_bitmask_isbitset(numa_all_nodes_ptr,
							   (unsigned) i) &&
				     numa_node_size64(i, &freep) > 0;
		for (int j = 0; j < n; j++) {
			int dist = numa_distance(i, j);

			d->distance[i * n + j] = dist > 0 ? (unsigned) dist : 0;
			if (dist <= 0)
				have_distance = false;
		}
	}
	if (!have_distance || cosched_victim_check_machine(n, d->distance,
							   NULL)) {
		numad_log(LOG_WARNING,
			  "node distances unknown or irregular: every remote node counts alike");
		memset(d->distance, 0, sizeof(d->distance));
	}
	return 0;
}

int numad_numa_balancing(void)
{
	FILE *f = fopen("/proc/sys/kernel/numa_balancing", "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

long long numad_node_free_pages(int node)
{
	long long freeb;

	if (numa_node_size64(node, &freeb) <= 0)
		return -1;
	return freeb / sysconf(_SC_PAGESIZE);
}

cosched_numa_priority_t numad_proc_prio(const numad_t *d,
					const numad_proc_t *p)
{
	for (int i = 0; i < d->npriorities; i++)
		if (d->priorities[i].job_id == p->job_id)
			return d->priorities[i].prio;
	return p->step_prio;
}

int numad_set_prio(numad_t *d, uint32_t job_id, cosched_numa_priority_t p,
		   cosched_error_t *err)
{
	for (int i = 0; i < d->npriorities; i++)
		if (d->priorities[i].job_id == job_id) {
			d->priorities[i].prio = p;
			return 0;
		}
	if (d->npriorities == NUMAD_PRIORITIES_MAX)
		return cosched_error_set(err,
			"priority: %d jobs already have one", NUMAD_PRIORITIES_MAX);
	d->priorities[d->npriorities++] = (numad_priority_t){ job_id, p };
	return 0;
}

/* ---- one process ---------------------------------------------------- */

/* Pages per node from numa_maps: anonymous mappings of base pages are
 * movable; file-backed and huge pages are counted apart (page cache is
 * shared with other processes; huge pages move as a whole, which this
 * release does not do).  Lines are read whole: a mapped file's name is
 * the user's and may be long, and the end of a cut line must not count
 * as a mapping of its own. */
static int read_numa_maps(numad_proc_t *p, int nnodes)
{
	char path[64], base[40], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/numa_maps", (int) p->id.pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	snprintf(base, sizeof(base), " kernelpagesize_kB=%ld",
		 sysconf(_SC_PAGESIZE) / 1024);
	memset(p->pages, 0, sizeof(p->pages));
	p->other_pages = 0;
	while (getline(&line, &cap, f) > 0) {
		char *ps = strstr(line, " kernelpagesize_kB=");
		bool movable = !strstr(line, " file=") &&
			       !strstr(line, " huge") &&
			       (!ps || (!strncmp(ps, base, strlen(base)) &&
					(ps[strlen(base)] == '\n' ||
					 ps[strlen(base)] == ' ' ||
					 !ps[strlen(base)])));

		for (char *t = strstr(line, " N"); t; t = strstr(t + 1, " N")) {
			char *end;
			long node = strtol(t + 2, &end, 10);
			unsigned long long n;

			if (end == t + 2 || *end != '=' || node < 0)
				continue;
			n = strtoull(end + 1, NULL, 10);
			if (movable && node < nnodes)
				p->pages[node] += n;
			else
				p->other_pages += n;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/* The node all of the process's allowed CPUs are on, or -1. */
static int cpu_node_of(pid_t pid)
{
	cpu_set_t set;
	int node = -1;

	CPU_ZERO(&set);
	if (sched_getaffinity(pid, sizeof(set), &set))
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int n;

		if (!CPU_ISSET(c, &set))
			continue;
		n = numa_node_of_cpu(c);
		if (n < 0 || (node >= 0 && n != node))
			return -1;
		node = n;
	}
	return node;
}

static double uptime_s(void)
{
	FILE *f = fopen("/proc/uptime", "re");
	double up = 0;

	if (f) {
		if (fscanf(f, "%lf", &up) != 1)
			up = 0;
		fclose(f);
	}
	return up;
}

static void measure(numad_t *d, numad_proc_t *p, const numad_proc_t *old,
		    const cosched_proc_stat_t *ps, double now)
{
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long long ticks = ps->utime + ps->stime;

	p->cpu_ticks = ticks;
	p->scanned_at = now;
	if (old && now > old->scanned_at && ticks >= old->cpu_ticks) {
		p->bandwidth = (double)(ticks - old->cpu_ticks) / hz /
			       (now - old->scanned_at);
	} else {
		double age = uptime_s() - (double) ps->start_time / hz;

		p->bandwidth = age > 0 ? (double) ticks / hz / age : 0;
	}
	if (p->bandwidth < 0)
		p->bandwidth = 0;
	p->cpu_node = cpu_node_of(p->id.pid);
	if (p->cpu_node >= d->nnodes)
		p->cpu_node = -1;
	if (read_numa_maps(p, d->nnodes))
		memset(p->pages, 0, sizeof(p->pages));
}

/* ---- the steps -------------------------------------------------------- */

typedef struct {
	pid_t pid, ppid;
	unsigned long long start;	/* /proc/PID/stat's start time */
	int step;		/* index into steps, or -1 */
} pentry_t;

/* The owner of /proc/PID (the process's real user), or -1. */
static long proc_uid(pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int) pid);
	return stat(path, &st) ? -1 : (long) st.st_uid;
}

static int by_pid(const void *a, const void *b)
{
	const pentry_t *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static pentry_t *find_pid(pentry_t *t, size_t n, pid_t pid)
{
	pentry_t key = { .pid = pid };

	return bsearch(&key, t, n, sizeof(*t), by_pid);
}

/* Whether name was among the step files that did not read at the last
 * scan; kept for the next one in *now. */
static bool bad_before(numad_t *d, const char *name, char ***now, int *nnow)
{
	bool seen = false;
	char **g;

	for (int i = 0; i < d->nbad_steps && !seen; i++)
		seen = !strcmp(d->bad_steps[i], name);
	g = realloc(*now, (size_t)(*nnow + 1) * sizeof(*g));
	if (g) {
		*now = g;
		if ((g[*nnow] = strdup(name)))
			(*nnow)++;
	}
	return seen;
}

/* The step files, stale ones removed.  One that does not read is
 * warned about once, while it stays so: a scan every few seconds would
 * otherwise repeat the same warning all day. */
static int read_steps(numad_t *d, cosched_numa_step_t **out, int *nout)
{
	const char *dir = d->conf.numa.step_dir;
	cosched_numa_step_t *steps = NULL;
	int n = 0, cap = 0;
	struct dirent *de;
	DIR *dh = opendir(dir);
	char **bad = NULL;
	int nbad = 0;

	*out = NULL;
	*nout = 0;
	if (!dh)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(dh))) {
		cosched_error_t err;
		cosched_numa_step_t s;
		bool alive = false;

		if (de->d_name[0] == '.')
			continue;
		if (cosched_numa_step_read(dir, de->d_name, &s, &err)) {
			if (!bad_before(d, de->d_name, &bad, &nbad))
				numad_log(LOG_WARNING,
					  "step file skipped (said once while it stays so): %s",
					  err.msg);
			continue;
		}
		for (int i = 0; i < s.ntasks && !alive; i++)
			alive = cosched_proc_alive(&s.tasks[i]) == 1;
		if (!alive) {
			struct stat st;
			char path[COSCHED_PATH_MAX];

			if (cosched_spool_path(path, sizeof(path), dir,
					       de->d_name, "", NULL))
				continue;
			if (s.ntasks || (!stat(path, &st) &&
					 st.st_mtime + STEP_NO_TASK_STALE_S <
						 time(NULL))) {
				numad_log(LOG_INFO,
					  "step %u.%u: no task left, step file removed",
					  s.job_id, s.step_id);
				unlink(path);
			}
			continue;
		}
		if (n == cap) {
			cosched_numa_step_t *g;

			cap = cap ? 2 * cap : 16;
			g = realloc(steps, (size_t) cap * sizeof(*g));
			if (!g)
				break;
			steps = g;
		}
		steps[n++] = s;
	}
	closedir(dh);
	for (int i = 0; i < d->nbad_steps; i++)
		free(d->bad_steps[i]);
	free(d->bad_steps);
	d->bad_steps = bad;
	d->nbad_steps = nbad;
	*out = steps;
	*nout = n;
	return 0;
}

/* How many processes of each step are followed, cap[s], when the steps
 * have more than NUMAD_PROCS_MAX between them: an equal share each,
 * what a small step leaves going to the larger ones, so that one user's
 * step of thousands of processes does not push other jobs out of view
 * (a high-priority job unseen is not kept local). */
static void share_out(const pentry_t *pt, size_t npt, int nsteps, int *cap)
{
	int left = NUMAD_PROCS_MAX, steps_left = nsteps;
	bool *done = calloc((size_t) nsteps + 1, sizeof(*done));

	for (int s = 0; s < nsteps; s++)
		cap[s] = 0;
	for (size_t i = 0; i < npt; i++)
		if (pt[i].step >= 0)
			cap[pt[i].step]++;
	/* Smallest first: each takes what it has, up to its share of what
	 * is left. */
	while (done && steps_left > 0) {
		int small = -1;

		for (int s = 0; s < nsteps; s++)
			if (!done[s] && (small < 0 || cap[s] < cap[small]))
				small = s;
		if (cap[small] > left / steps_left)
			cap[small] = left / steps_left;
		left -= cap[small];
		done[small] = true;
		steps_left--;
	}
	free(done);
}

int numad_scan(numad_t *d, cosched_error_t *err)
{
	cosched_numa_step_t *steps;
	int nsteps;
	pentry_t *pt = NULL;
	size_t npt = 0, cap = 0;
	numad_proc_t *old;
	int nold = d->nprocs;
	double now = numad_now();
	int unfollowed, *share, *taken;
	uint32_t first_unfollowed;
	struct dirent *de;
	DIR *dh;

	if (read_steps(d, &steps, &nsteps))
		return cosched_error_set(err, "NumaStepDir %s: %s",
					 COSCHED_QUOTE(d->conf.numa.step_dir),
					 strerror(errno));
	dh = opendir("/proc");
	if (!dh) {
		free(steps);
		return cosched_error_set(err, "/proc: %s", strerror(errno));
	}
	while ((de = readdir(dh))) {
		cosched_proc_stat_t ps;
		pid_t pid;

		if (!isdigit((unsigned char) de->d_name[0]))
			continue;
		pid = (pid_t) atol(de->d_name);
		if (cosched_proc_stat(pid, &ps) || ps.state == 'Z')
			continue;
		if (npt == cap) {
			pentry_t *g;

			cap = cap ? 2 * cap : 1024;
			g = realloc(pt, cap * sizeof(*g));
			if (!g)
				break;
			pt = g;
		}
		pt[npt++] = (pentry_t){ pid, ps.ppid, ps.start_time, -1 };
	}
	closedir(dh);
	qsort(pt, npt, sizeof(*pt), by_pid);
	/* The tasks themselves (same start time: not a recycled pid). */
	for (int s = 0; s < nsteps; s++)
		for (int t = 0; t < steps[s].ntasks; t++) {
			pentry_t *e = find_pid(pt, npt, steps[s].tasks[t].pid);

			if (e && e->start == steps[s].tasks[t].start_time)
				e->step = s;
		}
	/* Their descendants: the nearest task among the ancestors.  /proc
	 * is read over time, not at one instant: a parent must have started
	 * no later than its child, or the pid is another process's now. */
	for (size_t i = 0; i < npt; i++) {
		pentry_t *e = &pt[i];

		for (int depth = 0; e && e->step < 0 && depth < 64; depth++) {
			pentry_t *up = e->ppid > 1 ?
				       find_pid(pt, npt, e->ppid) : NULL;

			e = up && up->start <= e->start ? up : NULL;
		}
		if (e && e->step >= 0)
			pt[i].step = e->step;
	}
	old = malloc((size_t)(nold ? nold : 1) * sizeof(*old));
	if (!old) {
		free(pt);
		free(steps);
		return cosched_error_set(err, "scan: out of memory");
	}
	memcpy(old, d->procs, (size_t) nold * sizeof(*old));
	share = calloc((size_t) nsteps + 1, sizeof(*share));
	taken = calloc((size_t) nsteps + 1, sizeof(*taken));
	if (!share || !taken) {
		free(share); free(taken); free(old); free(pt); free(steps);
		return cosched_error_set(err, "scan: out of memory");
	}
	share_out(pt, npt, nsteps, share);
	d->nprocs = 0;
	unfollowed = 0;
	first_unfollowed = 0;
	for (size_t i = 0; i < npt; i++) {
		cosched_proc_stat_t ps;
		numad_proc_t *p, *was = NULL;
		const cosched_numa_step_t *s;

		if (pt[i].step < 0 || cosched_proc_stat(pt[i].pid, &ps) ||
		    ps.start_time != pt[i].start)
			continue;	/* gone, or its pid is another's now */
		s = &steps[pt[i].step];
		/* The step's user's processes only: a setuid program a task
		 * started (su, a root helper) is not the job's memory. */
		if (proc_uid(pt[i].pid) != (long) s->uid)
			continue;
		if (d->nprocs == NUMAD_PROCS_MAX ||
		    taken[pt[i].step] >= share[pt[i].step]) {
			if (!unfollowed++)
				first_unfollowed = s->job_id;
			continue;
		}
		taken[pt[i].step]++;
		p = &d->procs[d->nprocs];
		memset(p, 0, sizeof(*p));
		p->id.pid = pt[i].pid;
		p->id.start_time = ps.start_time;
		p->job_id = s->job_id;
		p->step_id = s->step_id;
		p->uid = s->uid;
		p->step_prio = s->priority;
		for (int k = 0; k < nold; k++)
			if (old[k].id.pid == p->id.pid &&
			    old[k].id.start_time == p->id.start_time)
				was = &old[k];
		measure(d, p, was, &ps, now);
		if (was) {
			p->pulled = was->pulled;
			p->pulls = was->pulls;
			p->local_cursor = was->local_cursor;
		}
		d->nprocs++;
	}
	/* Measured bandwidth: each step's LLC misses per second from the
	 * ledger its step file names, shared among its processes by CPU
	 * time (equally when none ran). */
	for (int s = 0; s < nsteps; s++) {
		cosched_step_ref_t ref = { steps[s].job_id, steps[s].step_id };
		double cpu = 0;
		uint64_t rate;
		int nin = 0;

		if (!steps[s].ledger[0] ||
		    cosched_energy_ledger_mem_rate(steps[s].ledger, &ref,
						   &rate, NULL) ||
		    rate == COSCHED_ENERGY_UNKNOWN)
			continue;
		for (int i = 0; i < d->nprocs; i++)
			if (d->procs[i].job_id == ref.job_id &&
			    d->procs[i].step_id == ref.step_id) {
				cpu += d->procs[i].bandwidth;
				nin++;
			}
		for (int i = 0; i < d->nprocs; i++) {
			numad_proc_t *p = &d->procs[i];

			if (p->job_id != ref.job_id || p->step_id != ref.step_id)
				continue;
			p->measured = true;
			p->mem_rate = cpu > 0 ? (double) rate * p->bandwidth / cpu :
				      (double) rate / nin;
		}
	}
	/* An administrator's setting lasts as long as its job has a step
	 * here. */
	for (int i = 0; i < d->npriorities;) {
		bool present = false;

		for (int s = 0; s < nsteps && !present; s++)
			present = steps[s].job_id == d->priorities[i].job_id;
		if (present)
			i++;
		else
			d->priorities[i] = d->priorities[--d->npriorities];
	}
	/* Beyond the limit a process is not followed: none of its pages is
	 * planned, moved or kept local.  Said when it starts and when it
	 * ends, and shown in the status while it lasts. */
	if (unfollowed && !d->unfollowed)
		numad_log(LOG_WARNING,
			  "%d processes of Slurm steps (job %u the first) beyond the %d followed: not followed, their pages neither planned, moved nor kept local",
			  unfollowed, first_unfollowed, NUMAD_PROCS_MAX);
	else if (!unfollowed && d->unfollowed)
		numad_log(LOG_INFO,
			  "every process of Slurm steps followed again");
	d->unfollowed = unfollowed;
	d->scanned_at = now;
	/* Frozen runs of processes no step has any more go with them. */
	numad_frozen_expire(d, true);
	free(share);
	free(taken);
	free(old);
	free(pt);
	free(steps);
	return 0;
}
