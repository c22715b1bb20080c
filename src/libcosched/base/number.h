/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * number.h - the one parser for every number a user or an
 * administrator types, and the moving average every profile uses.
 *
 * cosched.conf, the job options and the table overrides accept exactly the
 * same forms: optional sign, decimal digits, optional fraction and
 * exponent.  Refused: empty text, leading or trailing blanks, hexadecimal
 * ("0x2"), "inf", "nan" and anything after the number.  A message about a
 * refused or out-of-range number quotes the text as written (never the
 * parsed value, which can differ: 2147483648 clamped, 1.0000001 printed
 * as 1).
 */
#ifndef COSCHED_NUMBER_H
#define COSCHED_NUMBER_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#include "src/libcosched/base/error.h"

/* Parse a finite decimal number.  Returns 0, or -1 leaving *out alone. */
int cosched_parse_number(const char *str, double *out);

/* Parse a decimal integer that fits in a long.  Returns 0 or -1. */
int cosched_parse_long(const char *str, long *out);

/* Parse digits only (no sign, no blank) as an integer of at most max, for
 * the node's state files and the live loads.  Returns 0, or -1 leaving
 * *out alone. */
int cosched_parse_u64(const char *str, uint64_t max, uint64_t *out);

/* The values a setting accepts: [lo, hi], or (lo, hi] when lo_open. */
typedef struct {
	double lo, hi;
	bool lo_open;
} cosched_range_t;

/*
 * 0 when v is finite and inside r; else -1 with "FIELD: value TEXT out of
 * range (LO <= value <= HI)".  TEXT is the number as written (text, which
 * passed cosched_parse_number or cosched_parse_long) or, when text is
 * NULL, v with 15 significant digits.
 */
int cosched_range_check(const char *field, const cosched_range_t *r,
			double v, const char *text, cosched_error_t *err);

/* A number for a message: text as written when it is a number the parsers
 * accept (digits, sign, '.', 'e': nothing a log must escape) and fits,
 * else v with 15 significant digits.  Returns buf. */
char *cosched_number_text(char *buf, size_t len, const char *text, double v);

/*
 * Exponentially weighted moving average: weight x sample + (1 - weight) x
 * prev.  NAN means "not known": an unknown prev takes the sample, an
 * unknown sample keeps prev.
 */
double cosched_ewma(double prev, double sample, double weight);

/* The decimal text of v ('-' and digits), terminated, into buf of at
 * least COSCHED_DECIMAL_MAX bytes; returns its length.  By hand, not
 * snprintf: slurmctld writes a decision record's integers and id sets
 * for every job it starts (snprintf costs some 600 instructions a call). */
#define COSCHED_DECIMAL_MAX 21
size_t cosched_decimal(char *buf, long long v);

/* v with decimals (0 to 3) digits after the point, terminated, into buf
 * of at least COSCHED_FIXED_MAX bytes, as printf's "%.*f" writes it
 * (rounded to nearest, ties to even, on v's exact binary value); returns
 * its length.  By hand for |v| < 1e15 where long double holds v times
 * 10^decimals exactly, printf otherwise: the placement engine's reasons
 * carry MPKI and slowdowns for every job lenient mode places. */
#define COSCHED_FIXED_MAX 320	/* -DBL_MAX with 3 decimals */
size_t cosched_fixed(char *buf, double v, int decimals);

#endif
