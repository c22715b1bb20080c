/* SPDX-License-Identifier: GPL-2.0-or-later */
/* store_dir.c - the profile store's test fixture (store_dir.h). */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cosched_check.h"
#include "store_dir.h"

char dir[64];
cosched_store_t store;
cosched_error_t err;

void setup(void)
{
	cosched_merge_params_t mp;

	cosched_check_tmpdir(dir, sizeof(dir), "store");
	cosched_merge_params_default(&mp);
	mp.max_samples = 5;
	mp.node_peak_bw = 15000e6;
	cosched_error_clear(&err);
	ck_assert_msg(cosched_store_open(&store, dir, &mp, &err) == 0, "%s", err.msg);
}

void teardown(void)
{
	char outside[128];

	(void) chmod(dir, 0755);	/* a failed test may have left it closed */
	cosched_check_rm_rf(dir);
	snprintf(outside, sizeof(outside), "%s.outside", dir);
	unlink(outside);		/* a link's target outside the store */
}

cosched_run_t mkrun(double runtime)
{
	cosched_run_t r;
	cosched_run_init(&r);
	r.instructions = 2e9;
	r.cycles = 1e9;
	r.llc_misses = 1e6;
	r.runtime_s = runtime;
	r.threads = 2;
	r.freq_khz = 2200000;
	r.energy_pkg_j = 10.0 * runtime;
	return r;
}

int count_entries(const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    !strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

void write_file(const char *name, const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cosched_check_write_file(path, text);
}
