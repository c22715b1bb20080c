/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corun.h - running programs alone and side by side on chosen CPUs, and
 * timing them (cosched-characterise(8), cosched-calibrate(8)).
 *
 * A measurement runs the victim pinned to one CPU while the co-runner
 * runs without pause on another CPU of the same package: a representative
 * program with --loop, or any command restarted whenever it ends.  The
 * victim's time is its CPU time: the cpu_s= figure it prints when it
 * prints one (the representative programs do, setup excluded), else its
 * user + system time from wait4().  CPU time grows with every stall on a
 * shared cache or the memory link but not when another tenant takes the
 * CPU, which keeps the figures steady on a shared machine.
 */
#ifndef CORUN_RUN_H
#define CORUN_RUN_H

#include <stdbool.h>
#include <sys/types.h>

#include "src/libcosched/model/category.h"
#include "src/libcosched/base/error.h"

#define CORUN_ARGV_MAX 64

typedef struct {
	char name[64];			/* for messages */
	char *argv[CORUN_ARGV_MAX + 2];	/* NULL-terminated */
	int loop_arg;			/* index of a "--loop" to add when it
					 * runs as a co-runner; -1: restart */
} corun_prog_t;

/* A representative program of dir ("cpu", "lim", "mem", "rand") with
 * --scale and (when llc is not NULL) --llc. */
int corun_rep(corun_prog_t *p, const char *dir, const char *rep,
	      const char *scale, const char *llc, cosched_error_t *err);
/* The four of dir, rep[k] for category k (cosched_category_name(k)). */
int corun_reps(corun_prog_t rep[COSCHED_CAT_COUNT], const char *dir,
	       const char *scale, const char *llc, cosched_error_t *err);
/* Any command (argv NULL-terminated, at most CORUN_ARGV_MAX words). */
int corun_cmd(corun_prog_t *p, const char *name, char *const *argv,
	      cosched_error_t *err);
void corun_prog_free(corun_prog_t *p);

/* A run that had its CPU less than 0.9 of its wall time is repeated, up
 * to 4 runs, the best counting; corun_retried counts the repeats. */
extern int corun_retried;

/* Run p on cpu alone and return its time (seconds, see above).  A program
 * that fails (exit status not 0, killed, or not started) is an error
 * naming it; a run longer than timeout_s is killed and an error. */
int corun_run(const corun_prog_t *p, int cpu, double timeout_s, double *t,
	      cosched_error_t *err);

/* victim on cpu_v next to bg on cpu_b: the victim's time. */
int corun_pair(const corun_prog_t *victim, int cpu_v, const corun_prog_t *bg,
	       int cpu_b, double warmup_s, double timeout_s, double *t,
	       cosched_error_t *err);

/* Two CPUs of one package: from spec ("A,B") when not NULL (checked
 * against the machine and the process's affinity), else the first two
 * allowed CPUs of the first package that has two (topology: cosched.conf
 * Topology= form). */
int corun_pick_cpus(const char *spec, const char *topology, int cpus[2],
		    cosched_error_t *err);

/* Median and extremes of n values (n >= 1; v is reordered). */
void corun_stats(double *v, int n, double *median, double *lo, double *hi);

/* The default directory of the representative programs. */
const char *corun_apps_dir_default(void);

#endif
