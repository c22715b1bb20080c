/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * numa_bind_check - bind memory the way task/cosched does, then say where
 * the pages went.  Run inside the qemu NUMA guest (testsuite/numavm).
 *
 *   numa_bind_check --cpus 2-3 [--mode bind|prefer] [--mib N]
 *   numa_bind_check --nodes 1  [--mode bind|prefer] [--mib N]
 *
 * With --cpus the nodes are the ones local to those CPUs
 * (cosched_topology_cpu_numa on Topology "system", hwloc reading the
 * guest's sysfs); with --nodes they are taken as given.  The policy is set
 * by cosched_mempolicy_apply() - the task plugin's code, not a copy - and
 * then N MiB (default 16) are mapped, touched page by page and located
 * through /proc/self/numa_maps.  One line on stdout:
 *
 *   numa_bind_check mode=bind cpus=2-3 nodes=1 applied=1 policy=bind:1
 *       mib=16 pages=4096 reads=1 N0=0 N1=4096
 *
 * (one line; policy is cosched_mempolicy_describe() with ':' for the
 * space; cpus= is "-" with --nodes; reads= is how many times numa_maps
 * was read to find every page; N<id>= lists every node of the machine).  A policy the library refuses is handled as the task plugin
 * handles it: the message on stderr, the memory allocated under the
 * unchanged policy, applied=0, exit status 0 - a job is never failed
 * for its binding.  Exit status 2: usage; 1: the program itself could
 * not run (topology, allocation, numa_maps).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include <numa.h>

#include "src/node/mempolicy.h"
#include "src/node/topology.h"

#define PROG "numa_bind_check"
/* Reads of numa_maps before the count is reported short (20 ms apart). */
#define MAX_READS 50

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " (--cpus LIST | --nodes LIST) [--mode bind|prefer] [--mib N]\n"
		"  LIST: ids and ranges, e.g. 0-1,3\n");
}

/* "0-1,3" into a set; -1 on a malformed list. */
static int parse_list(const char *text, cosched_idset_t *out,
		      cosched_error_t *err)
{
	const char *p = text;

	cosched_idset_clear(out);
	while (*p) {
		char *end;
		long lo, hi;

		errno = 0;
		lo = strtol(p, &end, 10);
		if (end == p || errno || lo < 0)
			return cosched_error_set(err, "bad list '%s'", text);
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || errno || hi < lo)
				return cosched_error_set(err, "bad list '%s'",
							 text);
			p = end;
		}
		for (long id = lo; id <= hi; id++)
			if (cosched_idset_add(out, (int) id, err))
				return -1;
		if (*p == ',')
			p++;
		else if (*p)
			return cosched_error_set(err, "bad list '%s'", text);
	}
	if (!cosched_idset_count(out))
		return cosched_error_set(err, "empty list");
	return 0;
}

/*
 * Count the pages of the mapping at addr per node from numa_maps: the
 * line whose first field is the mapping's start address.  numa_maps
 * counts transparent huge pages in base pages, so the counts add up to
 * the mapping's size in pages either way.  Returns the number of pages
 * found, -1 when the line is missing.
 */
static long count_pages(void *addr, long *per_node, int nnodes)
{
	char want[32], line[4096];
	FILE *f = fopen("/proc/self/numa_maps", "r");
	long total = -1;

	if (!f) {
		perror(PROG ": /proc/self/numa_maps");
		return -1;
	}
	snprintf(want, sizeof(want), "%lx ", (unsigned long) addr);
	while (fgets(line, sizeof(line), f)) {
		char *tok, *save;

		if (strncmp(line, want, strlen(want)))
			continue;
		total = 0;
		for (tok = strtok_r(line, " \n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save)) {
			int node;
			long n;

			if (sscanf(tok, "N%d=%ld", &node, &n) == 2 &&
			    node >= 0 && node < nnodes) {
				per_node[node] += n;
				total += n;
			}
		}
		break;
	}
	fclose(f);
	return total;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'm' },
		{ "mib", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cpus_text = NULL, *nodes_text = NULL;
	cosched_membind_t mode = COSCHED_MEMBIND_BIND;
	cosched_idset_t cpus, nodes;
	cosched_error_t err;
	char nodes_buf[COSCHED_IDSET_TEXT_MAX], policy[128];
	long mib = 16, size, page, *per_node, total;
	int reads;
	int c, nnodes, applied;
	char *base, *mem;

	while ((c = getopt_long(argc, argv, "c:n:m:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cpus_text = optarg;
			break;
		case 'n':
			nodes_text = optarg;
			break;
		case 'm':
			if (!strcmp(optarg, "bind"))
				mode = COSCHED_MEMBIND_BIND;
			else if (!strcmp(optarg, "prefer"))
				mode = COSCHED_MEMBIND_PREFER;
			else {
				fprintf(stderr, PROG ": --mode %s: bind or prefer\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			mib = strtol(optarg, NULL, 10);
			if (mib <= 0 || mib > 4096) {
				fprintf(stderr, PROG ": --mib %s: 1 to 4096\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !cpus_text == !nodes_text) {
		usage(stderr);
		return 2;
	}

	if (cpus_text) {
		cosched_topology_t *topo;

		if (parse_list(cpus_text, &cpus, &err)) {
			fprintf(stderr, PROG ": --cpus: %s\n", err.msg);
			return 2;
		}
		/* The task plugin's path: the machine's topology, the
		 * NUMA nodes local to the task's CPUs. */
		topo = cosched_topology_load("system", &err);
		if (!topo) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			return 1;
		}
		if (cosched_topology_cpu_numa(topo, &cpus, &nodes, &err)) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			cosched_topology_free(topo);
			return 1;
		}
		cosched_topology_free(topo);
	} else if (parse_list(nodes_text, &nodes, &err)) {
		fprintf(stderr, PROG ": --nodes: %s\n", err.msg);
		return 2;
	}
	cosched_idset_format(&nodes, nodes_buf, sizeof(nodes_buf));

	applied = !cosched_mempolicy_apply(mode, &nodes, &err);
	if (!applied)
		fprintf(stderr, PROG ": membind %s nodes %s not applied, "
			"running with the policy unchanged: %s\n",
			cosched_membind_name(mode), nodes_buf, err.msg);
	cosched_mempolicy_describe(policy, sizeof(policy));
	for (char *p = policy; *p; p++)
		if (*p == ' ')
			*p = ':';

	/* A mapping of its own, so that its numa_maps line holds this
	 * allocation and nothing else: the kernel merges adjacent anonymous
	 * mappings of the same protection into one line (seen: 3 pages of
	 * the loader's, touched before the policy was set, counted with
	 * ours), so the writable part sits between two inaccessible guard
	 * pages, which cannot merge with it.  Every page is written, since
	 * a page gets its node when first touched. */
	size = mib << 20;
	page = sysconf(_SC_PAGESIZE);
	base = mmap(NULL, (size_t) (size + 2 * page), PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		fprintf(stderr, PROG ": mmap %ld MiB: %s\n", mib,
			strerror(errno));
		return 1;
	}
	mem = base + page;
	if (mprotect(mem, (size_t) size, PROT_READ | PROT_WRITE)) {
		fprintf(stderr, PROG ": mprotect: %s\n", strerror(errno));
		return 1;
	}
	for (long off = 0; off < size; off += page)
		mem[off] = (char) off;

	/* Every node of the machine gets its count, zeros included, so a
	 * reader sees which nodes there were (libnuma here only reports). */
	nnodes = numa_max_node() + 1;
	per_node = calloc((size_t) nnodes, sizeof(*per_node));
	if (!per_node) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	/* numa_maps skips a page whose entry is being migrated at that
	 * moment (seen: one page short while kcompactd moved 101 pages in
	 * the guest), so the mapping is read again, a little later, until
	 * every touched page is found; where they are is the last read's. */
	for (reads = 1;; reads++) {
		memset(per_node, 0, (size_t) nnodes * sizeof(*per_node));
		total = count_pages(mem, per_node, nnodes);
		if (total < 0 || total == size / page || reads == MAX_READS)
			break;
		nanosleep(&(struct timespec) { .tv_nsec = 20 * 1000 * 1000 },
			  NULL);
	}
	if (total < 0) {
		fprintf(stderr, PROG ": no numa_maps line for the mapping at %p\n",
			(void *) mem);
		return 1;
	}
	printf(PROG " mode=%s cpus=%s nodes=%s applied=%d policy=%s mib=%ld pages=%ld reads=%d",
	       cosched_membind_name(mode), cpus_text ? cpus_text : "-",
	       nodes_buf, applied, policy, mib, total, reads);
	for (int n = 0; n < nnodes; n++)
		printf(" N%d=%ld", n, per_node[n]);
	printf("\n");
	free(per_node);
	munmap(base, (size_t) (size + 2 * page));
	return 0;
}
