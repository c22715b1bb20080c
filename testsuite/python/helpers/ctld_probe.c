/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctld-probe - use cosched_ctld.so as the select plugin does in slurmctld
 * (test helper, not installed; testsuite/python/test_plugin_deps.py).
 *
 *   ctld-probe SO PROFILEDIR APP...
 *
 * Links the decision core up to io only (cosched.conf's defaults, no
 * jansson), dlopen()s SO with RTLD_NOW | RTLD_LOCAL, checks its table
 * (cosched_ctld_api_compatible), creates a profile cache over PROFILEDIR,
 * refreshes it once, and prints one line for the refresh and one per APP:
 *
 *   refresh <count> nbad <n> <first error, or ->
 *   <app> <category> <lca> <source> <mpki> <n_edp>    (found)
 *   <app> absent                                      (not cached)
 *
 * Exit status 0, or 1 with a message on stderr when the object cannot be
 * loaded or used.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "src/ctld/cosched_ctld.h"
#include "src/libcosched/model/category.h"

int main(int argc, char **argv)
{
	const cosched_ctld_api_t *api;
	cosched_profile_cache_t *c;
	cosched_conf_t conf;
	cosched_error_t err;
	void *h;
	long n;
	int nbad;

	if (argc < 3) {
		fprintf(stderr, "usage: ctld-probe SO PROFILEDIR APP...\n");
		return 1;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "ctld-probe: %s\n", dlerror());
		return 1;
	}
	api = dlsym(h, COSCHED_CTLD_SYMBOL);
	if (!api) {
		fprintf(stderr, "ctld-probe: %s\n", dlerror());
		return 1;
	}
	if (!cosched_ctld_api_compatible(api)) {
		fprintf(stderr, "ctld-probe: %s: incompatible table (version %u)\n",
			argv[1], api->version);
		return 1;
	}
	cosched_conf_init(&conf);
	if (strlen(argv[2]) >= sizeof(conf.profile_dir)) {
		fprintf(stderr, "ctld-probe: directory name too long\n");
		return 1;
	}
	snprintf(conf.profile_dir, sizeof(conf.profile_dir), "%s", argv[2]);
	c = api->profile_cache_create(&conf, &err);
	if (!c) {
		fprintf(stderr, "ctld-probe: %s\n", err.msg);
		return 1;
	}
	n = api->profile_cache_refresh(c, &nbad, &err);
	printf("refresh %ld nbad %d %s\n", n, nbad, err.msg[0] ? err.msg : "-");
	for (int i = 3; i < argc; i++) {
		cosched_profile_summary_t s;
		if (api->profile_cache_lookup(c, argv[i], &s) != 1) {
			printf("%s absent\n", argv[i]);
			continue;
		}
		printf("%s %s %s %s %g %d\n", s.app,
		       cosched_category_name(s.cls.cat),
		       cosched_lca_name(s.cls.lca),
		       cosched_class_source_name(s.cls.source), s.mpki,
		       s.n_edp);
	}
	if (api->profile_cache_size(c) != (size_t) (n < 0 ? 0 : n)) {
		fprintf(stderr, "ctld-probe: size %zu after refresh %ld\n",
			api->profile_cache_size(c), n);
		return 1;
	}
	api->profile_cache_free(c);
	dlclose(h);
	return 0;
}
