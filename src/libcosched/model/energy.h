/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * energy.h - a node's measured energy split among the jobs that
 * ran on it (no hardware: the node side measures, src/node/rapl.h,
 * and hands the figures here).
 *
 * Why: RAPL measures packages and DRAM, not jobs.  When jobs share a node
 * (what cosched does on purpose), each job's energy is a share of the
 * node's, and the shares must add up exactly to what was measured
 * (slurm.conf(5): Slurm's own ConsumedEnergy is exact only for exclusive
 * nodes).
 *
 * The rule (doc/cosched.8, ENERGY), for one interval:
 *   node energy    = package + dram (core is a part of package)
 *   idle + uncore  = package - core     split by core share
 *   core           = core               split by activity share
 *   dram           = dram               split by memory-activity share
 * where a job's core share is its cores / the cores of all jobs listed
 * (the idle power of cores nobody holds goes to the jobs present: the
 * node is on for them), its activity share its activity / the sum (any
 * measure of work in the interval, the same for every job of one call:
 * CPU time in ns, instructions retired, cycles), its memory-activity share
 * the same with mem_activity (LLC misses, bytes read and written).
 * Fallbacks, each reported in the result's flags:
 *   - no core measurement (has_core false: many Intel server parts have
 *     no PP0 zone): the whole package is split by core share;
 *   - core above package (the two counters are read a few microseconds
 *     apart): core is taken as equal to package;
 *   - every activity zero: core energy by core share;
 *   - mem_activity unknown for any job, or zero for all: DRAM by activity
 *     share, and by core share when every activity is zero too;
 *   - no DRAM measurement: node energy = package.
 * A job with zero activity still gets its idle + uncore share.  No job:
 * nothing is attributed; the result says how much was left unattributed.
 *
 * Exactness: energies are integer microjoules.  Each part P is shared by
 * weights w_i (sum W) as floor(P * w_i / W) each (computed exactly, 128-bit),
 * and the microjoules left over (fewer than the number of jobs) go one
 * each to the jobs with the largest remainders P * w_i mod W, ties to the
 * earlier job in the list (largest remainder, Hamilton's method).  So each
 * part's shares add up to the part exactly, and the totals to the node's
 * energy, and a job's share never exceeds its exact share by 1 uJ or more.
 */
#ifndef COSCHED_ENERGY_H
#define COSCHED_ENERGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/base/error.h"

/* mem_activity of a job whose memory traffic the sampler does not have. */
#define COSCHED_ENERGY_UNKNOWN UINT64_MAX

/* The most jobs one call splits among. */
#define COSCHED_ENERGY_JOBS_MAX 4096

/* A node's energy over one interval, in microjoules, summed over its
 * packages (cosched_rapl_sample() fills it). */
typedef struct {
	uint64_t package_uj;
	uint64_t core_uj;	/* meaningful only with has_core */
	uint64_t dram_uj;	/* meaningful only with has_dram */
	bool has_core, has_dram;
} cosched_energy_node_t;

/* One job on the node in the interval. */
typedef struct {
	uint32_t cores;		/* cores it held on the node, >= 1 */
	uint64_t activity;	/* its work in the interval (see above) */
	uint64_t mem_activity;	/* its memory traffic, or
				 * COSCHED_ENERGY_UNKNOWN */
} cosched_energy_job_t;

/* A job's share, in microjoules; total = uncore + core + dram. */
typedef struct {
	uint64_t uncore_uj;	/* of package - core (idle and uncore) */
	uint64_t core_uj;
	uint64_t dram_uj;
	uint64_t total_uj;
} cosched_energy_share_t;

/* Which rules applied (result flags). */
#define COSCHED_ENERGY_PACKAGE_BY_CORES 0x01u	/* no core measurement */
#define COSCHED_ENERGY_CORE_CLAMPED	0x02u	/* core > package: = package */
#define COSCHED_ENERGY_CORE_BY_CORES	0x04u	/* every activity zero */
#define COSCHED_ENERGY_DRAM_BY_ACTIVITY 0x08u	/* no usable mem_activity */
#define COSCHED_ENERGY_DRAM_BY_CORES	0x10u	/* ... and no activity */
#define COSCHED_ENERGY_NO_DRAM		0x20u	/* no DRAM measurement */
#define COSCHED_ENERGY_UNATTRIBUTED	0x40u	/* no job: nothing split */

typedef struct {
	uint64_t node_uj;		/* package + dram: what was split */
	uint64_t unattributed_uj;	/* node_uj with no job, else 0 */
	unsigned flags;			/* COSCHED_ENERGY_* */
} cosched_energy_split_t;

/*
 * Split node's energy among jobs[0 .. njobs-1] into shares[] (room for
 * njobs) by the rule above; *out (may be NULL) says what was split and
 * which rules applied.  njobs 0 is not an error: no share is written and
 * out->unattributed_uj holds the node's energy.  Fails (-1, err naming
 * the job and field) on a job with 0 cores, more than
 * COSCHED_ENERGY_JOBS_MAX jobs, or a node energy that does not fit in
 * 64 bits (package + dram); nothing is written then.
 */
int cosched_energy_split(const cosched_energy_node_t *node,
			 const cosched_energy_job_t *jobs, size_t njobs,
			 cosched_energy_share_t *shares,
			 cosched_energy_split_t *out, cosched_error_t *err);

/*
 * One line for a log or a profile: "node 12.000345 J to 2 jobs" or
 * "node 12.000345 J unattributed: no job on the node", followed by the
 * fallbacks that applied ("; no core zone: package by cores; ...").
 * Returns buf.
 */
char *cosched_energy_split_describe(const cosched_energy_split_t *s,
				    size_t njobs, char *buf, size_t len);

/* The apportionment itself, for any part: part split by w[0 .. n-1]
 * (1 <= n <= COSCHED_ENERGY_JOBS_MAX, sum > 0) into out[] exactly as
 * described above.  Returns -1 (err) on a zero sum, on n out of range or
 * out of memory; out[] is untouched then. */
int cosched_energy_apportion(uint64_t part, const uint64_t *w, size_t n,
			     uint64_t *out, cosched_error_t *err);

#endif
