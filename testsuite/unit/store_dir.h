/* SPDX-License-Identifier: GPL-2.0-or-later */
/* store_dir.h - a profile store in a scratch directory for the store's
 * tests (a fixture: setup, teardown), and the runs and files they put in
 * it, which test_store.c and test_store_files.c share. */
#ifndef STORE_DIR_H
#define STORE_DIR_H

#include "src/libcosched/base/error.h"
#include "src/libcosched/store/store.h"

/* The store's directory, the store opened on it (at most 5 samples a
 * run, a node peak bandwidth of 15 GB/s), the last error. */
extern char dir[64];
extern cosched_store_t store;
extern cosched_error_t err;

void setup(void);
/* Removes the directory, and dir.outside, where a test's link points. */
void teardown(void);
/* A run of runtime seconds: IPC 2, 1e6 LLC misses, 2 threads, 2.2 GHz,
 * 10 W. */
cosched_run_t mkrun(double runtime);
/* How many entries of dir begin with prefix. */
int count_entries(const char *prefix);
/* Write dir/name (in place). */
void write_file(const char *name, const char *text);

#endif
