/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology.c - the node's topology through hwloc (see the header).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hwloc.h>

#include "src/libcosched/conf/conf.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/base/kv.h"
#include "src/libcosched/base/text.h"
#include "src/node/topology.h"

/* A NUMA node and the CPUs it is local to (its hwloc cpuset). */
typedef struct {
	int os_index;			/* as the kernel names it */
	cosched_idset_t cpus;
} numa_node_t;

struct cosched_topology {
	hwloc_topology_t topo;
	hwloc_obj_type_t core_type;	/* HWLOC_OBJ_CORE, or PU without cores */
	int ncores, npackages, nnuma, npus;
	/* Which CPUs each NUMA node is local to, read at load: the one
	 * table cosched_topology_cpu_numa() maps with, so that a forked
	 * task maps its CPUs without hwloc and without allocating. */
	numa_node_t *numa;		/* nnuma of them */
	char source[COSCHED_TOPOLOGY_SOURCE_MAX + 1];
	bool copy;			/* loaded from a saved copy */
};

#define SYNTHETIC_PREFIX "synthetic:"
#define XML_PREFIX "xml:"

/* Each NUMA node's CPUs, in hwloc's order (hwloc 2: a node is local to
 * the CPUs of its cpuset; a node with no CPUs, such as memory on its own,
 * is local to none). */
static int _load_numa(cosched_topology_t *t, cosched_error_t *err)
{
	int n = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_NUMANODE);

	t->nnuma = n > 0 ? n : 0;
	t->numa = calloc(t->nnuma ? (size_t) t->nnuma : 1, sizeof(*t->numa));
	if (!t->numa)
		return cosched_error_set(err, "Topology: out of memory");
	for (int i = 0; i < t->nnuma; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(t->topo,
						      HWLOC_OBJ_NUMANODE, i);
		int cpu;

		if (!o)
			return cosched_error_set(err,
				"Topology=%s: NUMA node %d of %d missing",
				COSCHED_QUOTE(t->source), i, t->nnuma);
		t->numa[i].os_index = (int) o->os_index;
		if (!o->cpuset)
			continue;
		/* A CPU past what an id set holds is one no caller can
		 * name: left out rather than failing the whole node. */
		hwloc_bitmap_foreach_begin(cpu, o->cpuset) {
			if (cpu < COSCHED_IDSET_MAX)
				cosched_idset_add(&t->numa[i].cpus, cpu, NULL);
		} hwloc_bitmap_foreach_end();
	}
	return 0;
}

/* A topology to load, t->source set; hwloc's is initialised but not
 * loaded.  label names it in messages. */
static cosched_topology_t *_begin(const char *source, const char *label,
				  cosched_error_t *err)
{
	cosched_topology_t *t = calloc(1, sizeof(*t));

	if (!t) {
		cosched_error_set(err, "%s: out of memory", label);
		return NULL;
	}
	cosched_text_copy(t->source, sizeof(t->source), source);
	if (hwloc_topology_init(&t->topo)) {
		cosched_error_set(err, "%s: hwloc_topology_init: %s", label,
				  strerror(errno));
		free(t);
		return NULL;
	}
	return t;
}

/* Load t from the source _begin's caller set (what: the hwloc call that
 * set it, rc its result), then read what the accessors give.  NULL with
 * err naming label when any of it fails (t is freed). */
static cosched_topology_t *_finish(cosched_topology_t *t, const char *label,
				   const char *what, int rc,
				   cosched_error_t *err)
{
	/* Every CPU of the machine, also those this process may not use:
	 * slurmstepd runs inside the step's cpuset once task/cgroup has
	 * moved it, and hwloc would otherwise drop and renumber the cores
	 * (Slurm's own xcpuinfo loads the whole system for the same
	 * reason). */
	if (!rc) {
		what = "hwloc_topology_set_flags";
		rc = hwloc_topology_set_flags(t->topo,
				HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	}
	if (!rc) {
		what = "hwloc_topology_load";
		rc = hwloc_topology_load(t->topo);
	}
	if (rc) {
		cosched_error_set(err, "%s: %s: %s", label, what,
				  errno ? strerror(errno) : "failed");
		hwloc_topology_destroy(t->topo);
		free(t);
		return NULL;
	}
	t->ncores = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_CORE);
	t->core_type = HWLOC_OBJ_CORE;
	if (t->ncores <= 0) {
		t->core_type = HWLOC_OBJ_PU;
		t->ncores = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_PU);
	}
	t->npackages = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_PACKAGE);
	if (t->npackages <= 0)
		t->npackages = 1;
	t->npus = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_PU);
	if (t->ncores <= 0 || t->npus <= 0) {
		cosched_error_set(err, "%s: no cores in the topology", label);
		cosched_topology_free(t);
		return NULL;
	}
	if (_load_numa(t, err)) {
		cosched_topology_free(t);
		return NULL;
	}
	return t;
}

cosched_topology_t *cosched_topology_load(const char *source,
					  cosched_error_t *err)
{
	char label[COSCHED_TOPOLOGY_SOURCE_MAX + 32];
	cosched_topology_t *t;
	const char *what = "";
	int rc = 0;

	if (cosched_topology_source_check("Topology", source, err))
		return NULL;
	snprintf(label, sizeof(label), "Topology=%s", COSCHED_QUOTE(source));
	if (!(t = _begin(source, label, err)))
		return NULL;
	if (!strncmp(source, SYNTHETIC_PREFIX, strlen(SYNTHETIC_PREFIX))) {
		what = "hwloc_topology_set_synthetic";
		rc = hwloc_topology_set_synthetic(t->topo,
				source + strlen(SYNTHETIC_PREFIX));
	} else if (!strncmp(source, XML_PREFIX, strlen(XML_PREFIX))) {
		what = "hwloc_topology_set_xml";
		rc = hwloc_topology_set_xml(t->topo,
				source + strlen(XML_PREFIX));
	}
	return _finish(t, label, what, rc, err);
}

/* The copy's version, in its root object's info (src/libcosched/base/kv.h's rule:
 * a newer minor is read, another major refused). */
#define COPY_INFO "CoschedTopology"
#define COPY_TAG "cosched-topology/"
static const cosched_kv_version_t copy_version = { 1, 0 };
/* Larger than any machine's export (a 512-core machine's is ~1 MB). */
#define COPY_MAX_BYTES (64u << 20)

int cosched_topology_save(cosched_topology_t *t, const char *path,
			  cosched_error_t *err)
{
	hwloc_obj_t root = hwloc_get_root_obj(t->topo);
	char version[64], *xml = NULL;
	int len = 0, rc;

	cosched_kv_version_text(COPY_TAG, copy_version, version,
				sizeof(version));
	if (!hwloc_obj_get_info_by_name(root, COPY_INFO) &&
	    hwloc_obj_add_info(root, COPY_INFO, version))
		return cosched_error_set(err, "topology copy %s: hwloc_obj_add_info: %s",
					 path, strerror(errno));
	if (hwloc_topology_export_xmlbuffer(t->topo, &xml, &len, 0) || len < 1)
		return cosched_error_set(err, "topology copy %s: hwloc_topology_export_xmlbuffer: %s",
					 path, strerror(errno));
	/* A cache: slurmd writes it again at every start, and a copy a
	 * crash cut short does not parse, so its reader loads the machine
	 * (no fsync). */
	rc = cosched_file_replace(path, xml, (size_t) len - 1, 0600, 0, err);
	hwloc_free_xmlbuffer(t->topo, xml);
	return rc;
}

cosched_topology_t *cosched_topology_load_saved(const char *path,
						int *missing,
						cosched_error_t *err)
{
	char label[COSCHED_PATH_MAX + 32];
	cosched_kv_version_t seen;
	cosched_topology_t *t;
	const char *version;
	struct stat st;
	char *xml;
	int rc;

	snprintf(label, sizeof(label), "topology copy %s", path);
	xml = cosched_read_file_stat(path, COPY_MAX_BYTES, missing, &st, err);
	if (!xml)
		return NULL;
	/* Only slurmd, as root, writes it: a copy anyone else could have
	 * written would tell root's step daemon which CPUs a job gets. */
	if (cosched_file_trusted(path, &st, "topology copies", err) ||
	    !(t = _begin(COSCHED_TOPOLOGY_SYSTEM, label, err))) {
		free(xml);
		return NULL;
	}
	rc = hwloc_topology_set_xmlbuffer(t->topo, xml, (int) strlen(xml) + 1);
	t = _finish(t, label, "hwloc_topology_set_xmlbuffer", rc, err);
	free(xml);
	if (!t)
		return NULL;
	t->copy = true;
	version = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t->topo),
					     COPY_INFO);
	if (!version || strncmp(version, COPY_TAG, strlen(COPY_TAG))) {
		cosched_error_set(err, "%s: no %s info: not cosched's copy",
				  label, COPY_INFO);
		cosched_topology_free(t);
		return NULL;
	}
	if (cosched_kv_version_read(label, "this node", COPY_TAG,
				    version + strlen(COPY_TAG),
				    copy_version, &seen, err)) {
		cosched_topology_free(t);
		return NULL;
	}
	return t;
}

void cosched_topology_free(cosched_topology_t *t)
{
	if (!t)
		return;
	hwloc_topology_destroy(t->topo);
	free(t->numa);
	free(t);
}

int cosched_topology_ncores(const cosched_topology_t *t)
{
	return t->ncores;
}

int cosched_topology_npackages(const cosched_topology_t *t)
{
	return t->npackages;
}

int cosched_topology_nnuma(const cosched_topology_t *t)
{
	return t->nnuma;
}

static int _add_cpuset(cosched_idset_t *out, hwloc_const_bitmap_t set,
		       cosched_error_t *err)
{
	int os;

	hwloc_bitmap_foreach_begin(os, set) {
		if (cosched_idset_add(out, os, err))
			return -1;
	} hwloc_bitmap_foreach_end();
	return 0;
}

static int _check_cores(const cosched_topology_t *t,
			const cosched_idset_t *cores, cosched_error_t *err)
{
	int bad = cosched_idset_next(cores, t->ncores);

	if (bad >= 0)
		return cosched_error_set(err,
			"core %d: the node's topology has %d cores (0-%d; Topology=%s%s)",
			bad, t->ncores, t->ncores - 1,
			COSCHED_QUOTE(t->source), t->copy ? ", saved" : "");
	return 0;
}

int cosched_topology_core_cpus(const cosched_topology_t *t,
			       const cosched_idset_t *cores,
			       cosched_idset_t *cpus, cosched_error_t *err)
{
	cosched_idset_t out;

	if (_check_cores(t, cores, err))
		return -1;
	cosched_idset_clear(&out);
	for (int i = 0; i < t->ncores; i++) {
		hwloc_obj_t core;

		if (!cosched_idset_has(cores, i))
			continue;
		core = hwloc_get_obj_by_type(t->topo, t->core_type, i);
		if (!core || _add_cpuset(&out, core->cpuset, err))
			return -1;
	}
	*cpus = out;
	return 0;
}

int cosched_topology_core_packages(const cosched_topology_t *t,
				   const cosched_idset_t *cores,
				   cosched_idset_t *packages,
				   cosched_error_t *err)
{
	cosched_idset_t out;

	if (_check_cores(t, cores, err))
		return -1;
	cosched_idset_clear(&out);
	for (int i = 0; i < t->ncores; i++) {
		hwloc_obj_t core, pkg;

		if (!cosched_idset_has(cores, i))
			continue;
		core = hwloc_get_obj_by_type(t->topo, t->core_type, i);
		pkg = core ? hwloc_get_ancestor_obj_by_type(t->topo,
				HWLOC_OBJ_PACKAGE, core) : NULL;
		if (cosched_idset_add(&out, pkg ? (int) pkg->logical_index : 0,
				      err))
			return -1;
	}
	*packages = out;
	return 0;
}

int cosched_topology_cpu_numa(const cosched_topology_t *t,
			      const cosched_idset_t *cpus,
			      cosched_idset_t *numa, cosched_error_t *err)
{
	cosched_idset_t out;

	/* The nodes whose CPUs meet these (as hwloc_cpuset_to_nodeset()
	 * finds them), through the table: nothing allocated, no hwloc. */
	cosched_idset_clear(&out);
	for (int i = 0; i < t->nnuma; i++)
		if (cosched_idset_overlap(&t->numa[i].cpus, cpus) &&
		    cosched_idset_add(&out, t->numa[i].os_index, err))
			return -1;
	if (!cosched_idset_count(&out) && cosched_idset_count(cpus)) {
		char buf[128];

		return cosched_error_set(err,
			"CPUs %s: no NUMA node of the topology is local to them",
			cosched_idset_format(cpus, buf, sizeof(buf)));
	}
	*numa = out;
	return 0;
}

void cosched_topology_caches(const cosched_topology_t *t,
			     cosched_cache_sizes_t *out)
{
	hwloc_obj_t core = hwloc_get_obj_by_type(t->topo, t->core_type, 0);

	memset(out, 0, sizeof(*out));
	for (hwloc_obj_t o = core; o; o = o->parent) {
		unsigned long long size;

		if (!hwloc_obj_type_is_dcache(o->type) || !o->attr)
			continue;
		size = o->attr->cache.size;
		switch (o->attr->cache.depth) {
		case 1:
			out->l1d = size;
			break;
		case 2:
			out->l2 = size;
			break;
		case 3:
			out->llc = size;
			out->llc_level = 3;
			out->llc_cores = hwloc_get_nbobjs_inside_cpuset_by_type(
				t->topo, o->cpuset, t->core_type);
			break;
		default:
			break;
		}
	}
	if (!out->llc && out->l2) {
		hwloc_obj_t o = core;

		out->llc = out->l2;
		out->llc_level = 2;
		while (o && !(hwloc_obj_type_is_dcache(o->type) &&
			      o->attr->cache.depth == 2))
			o = o->parent;
		if (o)
			out->llc_cores = hwloc_get_nbobjs_inside_cpuset_by_type(
				t->topo, o->cpuset, t->core_type);
	}
}

char *cosched_topology_describe(const cosched_topology_t *t, char *buf,
				size_t len)
{
	snprintf(buf, len, "packages=%d cores=%d pus=%d numa=%d source=%s",
		 t->npackages, t->ncores, t->npus, t->nnuma, t->source);
	return buf;
}
