/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * idset.h - a set of small ids (the sockets, cores, CPUs or NUMA
 * nodes of one node), and its text form: a sorted, merged range list
 * "0-3,6", as Slurm's bit_fmt writes it.
 *
 * In the base layer: the decision record lists its nodes' ids with it,
 * and the node programs (topology, cpufreq, memory policy) hold CPU and
 * NUMA sets with it without depending on the record.
 */
#ifndef COSCHED_IDSET_H
#define COSCHED_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/base/error.h"

/* Ids are 0 .. COSCHED_IDSET_MAX - 1. */
#define COSCHED_IDSET_MAX 1024

/* A bitmap of COSCHED_IDSET_MAX bits. */
typedef struct {
	uint64_t bits[COSCHED_IDSET_MAX / 64];
} cosched_idset_t;

void cosched_idset_clear(cosched_idset_t *s);
int cosched_idset_add(cosched_idset_t *s, int id, cosched_error_t *err);
bool cosched_idset_has(const cosched_idset_t *s, int id);
bool cosched_idset_empty(const cosched_idset_t *s);
int cosched_idset_count(const cosched_idset_t *s);
/* The lowest id of s at or above from, or -1 when there is none. */
int cosched_idset_next(const cosched_idset_t *s, int from);
/* Whether the two sets share an id. */
bool cosched_idset_overlap(const cosched_idset_t *a, const cosched_idset_t *b);

/* Room for the text of any set: at most 4 digits and a separator per id. */
#define COSCHED_IDSET_TEXT_MAX (5 * COSCHED_IDSET_MAX + 1)
/* "0-3,6" (empty set: ""); cut, still terminated, when len is too small
 * (COSCHED_IDSET_TEXT_MAX always suffices); returns buf. */
char *cosched_idset_format(const cosched_idset_t *s, char *buf, size_t len);

/* Parse what cosched_idset_format writes (and Slurm's bit_fmt: sorted,
 * merged ranges, no leading zero) strictly; field names the value in
 * messages.  On error *set is untouched. */
int cosched_idset_parse(const char *field, const char *list,
			cosched_idset_t *set, cosched_error_t *err);

/* The same, quoting context (the whole "NODE:LIST" the list came from)
 * rather than the list in messages. */
int cosched_idset_parse_in(const char *field, const char *context,
			   const char *list, cosched_idset_t *set,
			   cosched_error_t *err);

#endif
