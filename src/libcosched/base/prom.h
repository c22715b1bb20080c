/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prom.h - Prometheus' text exposition format (0.0.4), the one
 * writer of every metric cosched exports: cosched-node metrics (a node's
 * energy ledger, for node_exporter's textfile collector) and
 * cosched-status --prometheus (the controller's placements).
 *
 * A family is its # HELP and # TYPE lines, then its samples, each
 * "name{label="value",...} number".  Label values are escaped as the
 * format requires (backslash, double quote, line feed) and any other
 * control or non-ASCII byte becomes '?': a job name or a node name cannot
 * break a line or forge a sample.  Values are written with %.15g (whole
 * microjoules exactly up to 10^9 J); NaN and infinities as Prometheus
 * spells them.
 */
#ifndef COSCHED_PROM_H
#define COSCHED_PROM_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
	const char *name;	/* [a-zA-Z_][a-zA-Z0-9_]*: the caller's */
	const char *value;	/* any text: escaped here */
} cosched_prom_label_t;

/* "# HELP name help" and "# TYPE name type" (gauge, counter, ...); help
 * is the caller's literal, a line without '\\' (the format escapes it
 * there). */
void cosched_prom_family(FILE *out, const char *name, const char *type,
			 const char *help);

/* One sample of the family name with labels[0..n). */
void cosched_prom_sample(FILE *out, const char *name,
			 const cosched_prom_label_t *labels, size_t n,
			 double value);

#endif
