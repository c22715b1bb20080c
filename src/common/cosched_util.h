/*
 * cosched_util.h - small helpers shared by the decision core: strict number
 * parsing for configuration and options, whitespace trimming, EWMA.
 *
 * One parser for every number a user or administrator types, so that
 * cosched.conf, the job options and the table overrides accept exactly the
 * same forms: optional sign, decimal digits, optional fraction and
 * exponent.  Refused: empty text, leading or trailing blanks, hexadecimal
 * ("0x2"), "inf", "nan" and anything after the number.
 */
#ifndef COSCHED_UTIL_H
#define COSCHED_UTIL_H

/* Parse a finite decimal number.  Returns 0, or -1 leaving *out alone. */
int cosched_parse_number(const char *str, double *out);

/* Parse a decimal integer that fits in a long.  Returns 0 or -1. */
int cosched_parse_long(const char *str, long *out);

/* Strip leading and trailing whitespace in place; returns the start. */
char *cosched_trim(char *s);

/*
 * Exponentially weighted moving average: weight x sample + (1 - weight) x
 * prev.  NAN means "not known": an unknown prev takes the sample, an
 * unknown sample keeps prev.
 */
double cosched_ewma(double prev, double sample, double weight);

#endif
