/* SPDX-License-Identifier: GPL-2.0-or-later */
/* base/number.c - strict number parsing, EWMA. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/number.h"

/* The decimal forms strtod accepts, minus hex, inf and nan. */
static int is_decimal_number(const char *s)
{
	int digits = 0;

	if (*s == '+' || *s == '-')
		s++;
	while (isdigit((unsigned char) *s)) {
		s++;
		digits++;
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char) *s)) {
			s++;
			digits++;
		}
	}
	if (!digits)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char) *s))
			return 0;
		while (isdigit((unsigned char) *s))
			s++;
	}
	return *s == '\0';
}

int cosched_parse_number(const char *str, double *out)
{
	char *end;
	double x;

	if (!str || !is_decimal_number(str))
		return -1;
	errno = 0;
	x = strtod(str, &end);
	if (errno || *end || !isfinite(x))
		return -1;
	*out = x;
	return 0;
}

int cosched_parse_long(const char *str, long *out)
{
	const char *p = str;
	char *end;
	long v;

	if (!str)
		return -1;
	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char) *p))
		return -1;
	errno = 0;
	v = strtol(str, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

char *cosched_number_text(char *buf, size_t len, const char *text, double v)
{
	double parsed;

	if (text && strlen(text) < len && !cosched_parse_number(text, &parsed))
		snprintf(buf, len, "%s", text);
	else
		snprintf(buf, len, "%.15g", v);
	return buf;
}

int cosched_range_check(const char *field, const cosched_range_t *r,
			double v, const char *text, cosched_error_t *err)
{
	char shown[48];

	if (isfinite(v) && (r->lo_open ? v > r->lo : v >= r->lo) && v <= r->hi)
		return 0;
	return cosched_error_set(err, "%s: value %s out of range (%g %s value <= %g)",
				 field, cosched_number_text(shown, sizeof(shown),
							    text, v),
				 r->lo, r->lo_open ? "<" : "<=", r->hi);
}

double cosched_ewma(double prev, double sample, double weight)
{
	if (isnan(prev))
		return sample;
	if (isnan(sample))
		return prev;
	return weight * sample + (1.0 - weight) * prev;
}

int cosched_parse_u64(const char *str, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*str < '0' || *str > '9')
		return -1;
	errno = 0;
	v = strtoull(str, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

size_t cosched_decimal(char *buf, long long v)
{
	/* The magnitude as unsigned: -LLONG_MIN does not fit a long long. */
	unsigned long long m = v < 0 ? 0ull - (unsigned long long) v :
				       (unsigned long long) v;
	char digits[COSCHED_DECIMAL_MAX];
	size_t n = 0, len = 0;

	do
		digits[n++] = (char) ('0' + m % 10);
	while ((m /= 10));
	if (v < 0)
		buf[len++] = '-';
	while (n)
		buf[len++] = digits[--n];
	buf[len] = '\0';
	return len;
}

size_t cosched_fixed(char *buf, double v, int decimals)
{
	static const unsigned long long scale[] = { 1, 10, 100, 1000 };
	unsigned long long r, ip, fp;
	long double scaled, whole, frac;
	char digits[COSCHED_DECIMAL_MAX];
	size_t len = 0, n;

	/* 10^3 has 7 significant bits: v x 10^3 needs 60 of long double's
	 * mantissa to be exact, and so does the rounding below. */
	if (decimals < 0 || decimals > 3 || LDBL_MANT_DIG < 60 ||
	    !(fabs(v) < 1e15))
		return (size_t) snprintf(buf, COSCHED_FIXED_MAX, "%.*f",
					 decimals < 0 ? 0 : decimals, v);
	scaled = fabsl((long double) v * (long double) scale[decimals]);
	whole = floorl(scaled);
	frac = scaled - whole;
	r = (unsigned long long) whole;
	if (frac > 0.5L || (frac == 0.5L && (r & 1)))
		r++;
	ip = r / scale[decimals];
	fp = r % scale[decimals];
	if (signbit(v))
		buf[len++] = '-';
	n = cosched_decimal(digits, (long long) ip);
	memcpy(buf + len, digits, n);
	len += n;
	if (decimals) {
		buf[len++] = '.';
		for (int k = decimals - 1; k >= 0; k--) {
			buf[len + (size_t) k] = (char) ('0' + fp % 10);
			fp /= 10;
		}
		len += (size_t) decimals;
	}
	buf[len] = '\0';
	return len;
}
