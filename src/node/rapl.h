/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rapl.h - RAPL energy through the Linux powercap sysfs interface,
 * under a root prefix (cosched.conf SysfsRoot=, "/" in production, a fake
 * tree in tests: the same code path runs in both).
 *
 * Zones, in ROOT/sys/class/powercap (links the kernel makes into
 * ROOT/sys/devices/virtual/powercap/intel-rapl/, followed once, at open; a
 * link leading out of ROOT/sys is refused):
 *   intel-rapl:N      name "package-P" (or "package-P-die-D" on multi-die
 *                     parts, each die its own zone): the whole package
 *   intel-rapl:N:M    its subzones: name "core" (PP0: the cores, with
 *                     their L1 and L2), "dram", "uncore" (PP1, a client
 *                     part's graphics: not used, it is inside the package)
 * Each zone: name, energy_uj (the counter, in microjoules),
 * max_energy_range_uj (where the counter wraps to 0).  AMD processors
 * (family 17h on) appear in the same form with a package and a core zone
 * and no DRAM zone.  Not used: "psys" (the platform, which includes the
 * packages), intel-rapl-mmio:N (the same package counter through MMIO:
 * reading both would count the package twice), and any other zone name,
 * which is listed in cosched_rapl_notes().
 *
 * Parsing is strict, in the kernel's forms: one decimal without sign or
 * leading zero and an optional final newline; max_energy_range_uj
 * 1 .. 2^48, energy_uj 0 .. max_energy_range_uj; names as above.
 * sysfs attributes report 4096 bytes whatever they hold, so they are read
 * to end of file (at most a page), not by their size; every file is
 * opened without following a link and must be a regular file.
 *
 * Permission: since CVE-2020-8694 (Platypus) energy_uj is readable by root
 * only (mode 0400): an unprivileged reader gets EACCES, and the error says
 * so.  slurmd and slurmstepd run as root.
 *
 * Wraparound: the counter wraps to 0 after max_energy_range_uj (2^32
 * energy units: 262 kJ with 61 uJ units, about 30 minutes at 150 W;
 * "Power-aware gang scheduling on multicore" (NTUA thesis, 2013) saw about 60 s
 * at high power on parts with coarser ranges).  The energy between two reads is
 * (cur - prev) mod (max_energy_range_uj + 1): one wrap is handled; two or more
 * wraps between reads cannot be told apart from one, and the energy of each
 * extra wrap is lost.  A counter reset (driver reload) looks like a wrap
 * too.  So read at least once per wrap period: the sampler reads every
 * SampleInterval (1 s by default), far shorter.  The kernel's counter steps in
 * energy units (about 15 to 61 uJ), so a wrap is counted to within one unit.
 */
#ifndef COSCHED_RAPL_H
#define COSCHED_RAPL_H

#include <stdbool.h>
#include <stdint.h>

#include "src/libcosched/model/energy.h"	/* cosched_energy_node_t */
#include "src/libcosched/base/error.h"

#define COSCHED_RAPL_ZONES_MAX 768
#define COSCHED_RAPL_NAME_MAX 31
#define COSCHED_RAPL_RANGE_MAX (UINT64_C(1) << 48)
/* Room for cosched_rapl_notes(). */
#define COSCHED_RAPL_NOTES_MAX 1024

typedef enum {
	COSCHED_RAPL_PACKAGE,
	COSCHED_RAPL_CORE,
	COSCHED_RAPL_DRAM,
} cosched_rapl_kind_t;

typedef struct {
	char dir[32];			/* "intel-rapl:0:1" */
	char name[COSCHED_RAPL_NAME_MAX + 1];	/* "package-0", "core" */
	cosched_rapl_kind_t kind;
	int package;			/* P of package-P (subzones: their
					 * package's) */
	int die;			/* D of package-P-die-D, else -1 */
	uint64_t max_range_uj;		/* max_energy_range_uj */
} cosched_rapl_zone_t;

/* One zone's energy since the previous sample. */
typedef struct {
	uint64_t uj;
	bool wrapped;			/* the counter passed its range (once:
					 * more wraps are invisible) */
} cosched_rapl_delta_t;

/* One handle keeps one baseline: one sampler per handle, not shared
 * between threads without a lock. */
typedef struct cosched_rapl cosched_rapl_t;

/*
 * Scan ROOT/sys/class/powercap (root: an absolute path, checked like
 * cosched_dir_path_check() as SysfsRoot; "/" in production) and read each
 * zone's counter once, the baseline of the first sample.  NULL with err
 * when energy cannot be measured, every message starting "energy
 * unavailable: ": "no powercap under ROOT/sys/class/powercap", "no RAPL
 * package zone under ...", a file malformed (naming it and quoting the
 * value), unreadable (EACCES: see cosched_rapl_errno_hint()), or two zones
 * of one package with the same name.  A missing core or DRAM zone is not
 * an error: cosched_rapl_notes() says which.  The zones come package by
 * package (ascending package, then die), each package zone followed by its
 * core zone, then its DRAM zone.
 */
cosched_rapl_t *cosched_rapl_open(const char *root, cosched_error_t *err);
void cosched_rapl_close(cosched_rapl_t *r);

int cosched_rapl_nzones(const cosched_rapl_t *r);
const cosched_rapl_zone_t *cosched_rapl_zone(const cosched_rapl_t *r,
					     int index);
/* The index of the zone whose directory is dir ("intel-rapl:0:1"), or -1. */
int cosched_rapl_find(const cosched_rapl_t *r, const char *dir);

/* What the scan found missing or left out, "" when nothing: "package-1:
 * no core zone; package-1: no dram zone; intel-rapl:4: zone \"foo\" not
 * used".  Also whether every package has a core (a DRAM) zone, which is
 * what cosched_rapl_sample() needs to give a node-wide figure. */
const char *cosched_rapl_notes(const cosched_rapl_t *r);
bool cosched_rapl_has_core(const cosched_rapl_t *r);
bool cosched_rapl_has_dram(const cosched_rapl_t *r);

/* The counters now (energy_uj of each zone, in zone order, into uj[],
 * room for cosched_rapl_nzones()), without changing the sampling state. */
int cosched_rapl_read(const cosched_rapl_t *r, uint64_t *uj,
		      cosched_error_t *err);

/*
 * The energy since the previous sample (or since open), per zone into
 * delta[] (room for cosched_rapl_nzones(); may be NULL) and summed over
 * the packages into *node (may be NULL): package_uj over every package
 * zone, core_uj (has_core) and dram_uj (has_dram) only when every package
 * has that zone.  Keeps the counters read as the next sample's baseline.
 * A zone that cannot be read fails the whole sample (-1, err starting
 * "energy unavailable: ") and changes nothing: the next sample covers
 * both intervals, as long as that stays within one wrap period.
 */
int cosched_rapl_sample(cosched_rapl_t *r, cosched_rapl_delta_t *delta,
			cosched_energy_node_t *node, cosched_error_t *err);

/*
 * The counters' last reading, one value per zone in zone order: what the
 * next cosched_rapl_sample() counts from.  Get it to keep it elsewhere and
 * set it back before sampling, so that several processes taking turns
 * (the samplers of a node's steps, through the energy ledger) count every
 * microjoule once.
 */
void cosched_rapl_get_last(const cosched_rapl_t *r, uint64_t *uj);
void cosched_rapl_set_last(cosched_rapl_t *r, const uint64_t *uj);

/* The energy from counter value prev to cur, with a counter that wraps
 * to 0 after max_range: cur - prev, or max_range - prev + 1 + cur with
 * *wrapped (may be NULL) set when cur < prev. */
uint64_t cosched_rapl_delta(uint64_t prev, uint64_t cur, uint64_t max_range,
			    bool *wrapped);

/* The explanation added to an open error: for EACCES and EPERM
 * " (energy_uj is readable by root only since CVE-2020-8694: read it as
 * root)", "" for any other errno. */
const char *cosched_rapl_errno_hint(int errnum);

#endif
