/* cosched_util.c - strict number parsing, trimming, EWMA. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_util.h"

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

char *cosched_trim(char *s)
{
	char *e;

	while (isspace((unsigned char) *s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char) e[-1]))
		e--;
	*e = '\0';
	return s;
}

double cosched_ewma(double prev, double sample, double weight)
{
	if (isnan(prev))
		return sample;
	if (isnan(sample))
		return prev;
	return weight * sample + (1.0 - weight) * prev;
}
