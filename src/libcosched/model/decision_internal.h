/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decision_internal.h - what the decision record's files share
 * (not for use outside src/libcosched/model/decision*.c):
 *
 *   model/decision.c          names, the record in memory, numbers
 *   model/decision_format.c   the formatter and its checks
 *   model/decision_parse.c    the strict parser, versions
 *   model/decision_comment.c  the record line in a SystemComment
 *
 * Every value has one written form (integers without sign or leading
 * zero, the shortest %g of a double, merged ranges): the formatter writes
 * it and the parser accepts nothing else, so format(parse(text)) == text
 * for a record of this reader's version.
 */
#ifndef COSCHED_DECISION_INTERNAL_H
#define COSCHED_DECISION_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "src/libcosched/model/decision.h"

/* The keys, in the order the record writes them. */
enum {
	K_JOB, K_STATE, K_POLICY, K_SCOPE, K_APP, K_CLASS, K_LCA, K_SOURCE,
	K_MPKI,
	K_THREADS, K_SOCKETS, K_CORES, K_NUMA, K_MEMBIND, K_POWER,
	K_FREQ_REQ, K_FREQ, K_GOVERNOR, K_SLOWDOWN, K_REASON,
	/* 1.1 */
	K_NUMA_PRIORITY,
	/* 1.2 */
	K_ALTERNATES, K_BESIDE, K_COUNT
};

extern const char *const cosched_decision_key_names[K_COUNT];
/* The K_ index of a key name, -1 for a key this release does not know. */
int cosched_decision_key_index(const char *name);
/* The length of the record line at text: up to '\n' or the end, without
 * a '\r' just before it. */
size_t cosched_decision_line_length(const char *text);
extern const char *const cosched_decision_state_names[];
extern const char *const cosched_decision_membind_names[];

/* Ranges (model/decision.h). */
#define JOB_ID_MAX 4294967293ULL	/* below Slurm's NO_VAL, 0xfffffffe */
#define THREADS_MAX 65536
#define FREQ_KHZ_MAX 100000000L		/* 100 GHz */
#define MPKI_MAX 1e6
#define SLOWDOWN_MAX 1000.0

#define NUMBER_TEXT_MAX 40

/* The version this reader writes. */
static inline cosched_kv_version_t cosched_decision_own_version(void)
{
	return (cosched_kv_version_t){ COSCHED_DECISION_SCHEMA,
				       COSCHED_DECISION_SCHEMA_MINOR };
}

/* The index of the node named by n bytes of name, or -1. */
int cosched_decision_node_find(const cosched_decision_t *d, const char *name,
			       size_t n);
/* Printable ASCII: inline, as it is asked for every byte of a reason
 * each time a record is set or written. */
static inline bool cosched_decision_reason_char(unsigned char c)
{
	return c >= 0x20 && c < 0x7f;
}
/* *dst = *src as far as it is specified (nodes[0 .. nnodes)). */
void cosched_decision_copy_out(cosched_decision_t *dst,
			       const cosched_decision_t *src);
/* 1 to max bytes of [a-z0-9_]: a governor, a policy name. */
bool cosched_decision_word_ok(const char *w, size_t n, size_t max);

/* The shortest "%.Ng" that reads back as x (0 without its sign). */
void cosched_decision_double_text(char *buf, size_t len, double x);
/* An integer as the record writes it, in [lo, hi]: 0, or -1 with err
 * naming key and quoting the value. */
int cosched_decision_parse_uint(const char *key, const char *value,
				unsigned long long lo, unsigned long long hi,
				unsigned long long *out, cosched_error_t *err);
/* A double as the record writes it, in [lo, hi], or (lo, hi] when
 * lo_open. */
int cosched_decision_parse_double(const char *key, const char *value,
				  double lo, bool lo_open, double hi,
				  double *out, cosched_error_t *err);
/* x's text (NUMBER_TEXT_MAX bytes) for the record, checked to be one
 * cosched_decision_parse_double reads back as x, with its errors, making
 * the text once: 0 or -1. */
int cosched_decision_double_write(const char *key, double x, double lo,
				  bool lo_open, double hi, char *text,
				  cosched_error_t *err);

#endif
