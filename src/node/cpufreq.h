/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpufreq.h - CPU frequency domains through the Linux cpufreq
 * sysfs interface, under a root prefix (cosched.conf SysfsRoot=, "/" in
 * production, a fake tree in tests: the same code path runs in both).
 *
 * A domain is a cpufreq policy: the CPUs of one related_cpus list, which
 * the hardware clocks together.  Files read and written, per domain, in
 * ROOT/sys/devices/system/cpu/cpuN/cpufreq/ of the first of its CPUs that
 * has that directory (related_cpus also lists offline CPUs, which may have
 * none).  Where a kernel makes cpuN/cpufreq a link to ../cpufreq/policyN,
 * the link is followed, once, at open (a link leading out of
 * ROOT/sys/devices/system/cpu is refused); the files themselves are opened
 * without following links and must be regular files:
 *   related_cpus, cpuinfo_min_freq, cpuinfo_max_freq,
 *   scaling_available_governors, scaling_available_frequencies (optional),
 *   scaling_governor, scaling_min_freq, scaling_max_freq,
 *   scaling_setspeed (userspace governor only).
 *
 * Parsing is strict, in the kernel's forms: one value and an optional
 * final newline; frequencies in kHz as decimals without sign or leading
 * zero, 1 .. 100000000; lists of words separated by single spaces with
 * one optional trailing space ("a b c \n", as cpufreq's show functions
 * write them), no word twice; CPU numbers below COSCHED_DECISION_IDS_MAX;
 * governor names [a-z0-9_], 1..31 bytes.  Anything else is an error naming
 * the file and quoting its text.  sysfs attributes report 4096 bytes
 * whatever they hold, so they are read to end of file (at most a page),
 * not by their size.
 */
#ifndef COSCHED_CPUFREQ_H
#define COSCHED_CPUFREQ_H

#include <stdbool.h>

#include "src/libcosched/model/decision.h"	/* the governor's bound */
#include "src/libcosched/base/error.h"
#include "src/libcosched/base/idset.h"

#define COSCHED_CPUFREQ_GOVERNOR_MAX COSCHED_DECISION_GOVERNOR_MAX
#define COSCHED_CPUFREQ_DOMAINS_MAX 256
#define COSCHED_CPUFREQ_FREQS_MAX 64
#define COSCHED_CPUFREQ_GOVERNORS_MAX 16

/* What a domain is set to: the values cosched changes and restores. */
typedef struct {
	char governor[COSCHED_CPUFREQ_GOVERNOR_MAX + 1];
	long min_khz, max_khz;		/* scaling_min_freq, scaling_max_freq */
	long setspeed_khz;		/* scaling_setspeed; 0 = not read or
					 * not written (governor not userspace) */
} cosched_cpufreq_setting_t;

typedef struct {
	int id;				/* the first CPU of related_cpus */
	cosched_idset_t cpus;		/* related_cpus */
	long cpuinfo_min_khz, cpuinfo_max_khz;
	int ngovernors;
	char governors[COSCHED_CPUFREQ_GOVERNORS_MAX]
		      [COSCHED_CPUFREQ_GOVERNOR_MAX + 1];
	int nfreqs;			/* 0: the driver lists none */
	long freqs_khz[COSCHED_CPUFREQ_FREQS_MAX];	/* ascending */
} cosched_cpufreq_domain_t;

typedef struct cosched_cpufreq cosched_cpufreq_t;

/* Scan ROOT/sys/devices/system/cpu (root: an absolute path, checked like
 * cosched_dir_path_check() as SysfsRoot; "/" in production).  NULL with err
 * when the node has no cpufreq ("no cpufreq under
 * ROOT/sys/devices/system/cpu: cpu0/cpufreq missing", "...: no cpuN
 * directory", "...: No such file or directory"), a file is malformed
 * (naming it and quoting the value) or two CPUs' related_cpus overlap
 * without being equal.  A CPU without a cpufreq directory is skipped; the
 * domains come in ascending id. */
cosched_cpufreq_t *cosched_cpufreq_open(const char *root,
					cosched_error_t *err);
void cosched_cpufreq_close(cosched_cpufreq_t *c);

int cosched_cpufreq_ndomains(const cosched_cpufreq_t *c);
const cosched_cpufreq_domain_t *cosched_cpufreq_domain(
	const cosched_cpufreq_t *c, int index);
/* The index of the domain whose id is id, or -1. */
int cosched_cpufreq_find(const cosched_cpufreq_t *c, int id);

/* Indexes of the domains holding any CPU of cpus, ascending, into idx
 * (room for COSCHED_CPUFREQ_DOMAINS_MAX); returns how many (0 for an
 * empty set).  A CPU no domain holds is an error naming it (-1). */
int cosched_cpufreq_domains_of(const cosched_cpufreq_t *c,
			       const cosched_idset_t *cpus, int *idx,
			       cosched_error_t *err);

/* Read a domain's current setting (setspeed only under userspace). */
int cosched_cpufreq_read(const cosched_cpufreq_t *c, int index,
			 cosched_cpufreq_setting_t *s, cosched_error_t *err);

/*
 * The governors the site lets cosched set, in the kernel's names and list
 * form ("performance ondemand userspace"; "" for none), and what to call
 * that list in messages (a caller in Slurm: "slurm.conf CpuFreqGovernors").
 * NULL governors: any the domain lists (as after open).  From then on
 * cosched_cpufreq_check() and cosched_cpufreq_write() refuse any other
 * governor; cosched_cpufreq_restore() never does (an original comes back
 * whatever the site allows cosched to choose).  -1 with err for a list that
 * does not parse; the handle keeps its earlier list.
 */
int cosched_cpufreq_allow(cosched_cpufreq_t *c, const char *what,
			  const char *governors, cosched_error_t *err);

/*
 * The governor the site states for a domain whose original setting is
 * lost (cosched.conf FreqDefaultGovernor): what the kernel gave it at
 * boot, as far as the site knows.  NULL or "": none stated.
 */
void cosched_cpufreq_default_governor(cosched_cpufreq_t *c,
				      const char *governor);

/*
 * The setting a domain is given back when its original is lost (a
 * cpufreq journal that could not be read): its whole cpuinfo range, with
 * governor (the original, when known; may be NULL) where the domain lists
 * it, else the site's stated default where it lists that, else the first
 * governor it lists other than userspace (userspace at cpuinfo_max_freq
 * when that is all it has).
 */
void cosched_cpufreq_hardware_default(const cosched_cpufreq_t *c, int index,
				      const char *governor,
				      cosched_cpufreq_setting_t *s);

/* Whether the domain can take s: the governor is one the site allows
 * (cosched_cpufreq_allow) and one the domain lists, min and
 * max are within cpuinfo_min..max and min <= max; a setspeed (> 0) only
 * with the userspace governor, within min..max and one the domain lists
 * when it lists any.  0, or -1 with err naming the domain, the field and
 * the value. */
int cosched_cpufreq_check(const cosched_cpufreq_t *c, int index,
			  const cosched_cpufreq_setting_t *s,
			  cosched_error_t *err);

/* Write s: governor, then the two limits in the order the kernel accepts
 * (the one that widens the range first: the maximum first when the new
 * minimum is above the current scaling_max_freq, else the minimum first),
 * then setspeed when the governor is userspace and setspeed_khz > 0.
 * Checks first (nothing written when the check fails).  Each value is
 * written as "VALUE\n" in one write() (opened O_WRONLY | O_TRUNC, never
 * created).  A failed write is an error naming the file, the value and
 * errno; what was written before it stays (the caller restores). */
int cosched_cpufreq_write(const cosched_cpufreq_t *c, int index,
			  const cosched_cpufreq_setting_t *s,
			  cosched_error_t *err);

/* Write a domain's original setting back: as cosched_cpufreq_write(),
 * without the check (what the domain showed must come back even where
 * the driver does not list it; only the kernel may refuse). */
int cosched_cpufreq_restore(const cosched_cpufreq_t *c, int index,
			    const cosched_cpufreq_setting_t *s,
			    cosched_error_t *err);

/* "governor=userspace min=800000 max=1500000 setspeed=1500000"
 * (" setspeed=..." only when setspeed_khz > 0); returns buf. */
char *cosched_cpufreq_setting_format(const cosched_cpufreq_setting_t *s,
				     char *buf, size_t len);

#endif
