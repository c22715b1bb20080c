/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile_fields.h - the fields of a run, of the derived metrics
 * and of an EDP point, each listed once (private to the profile model and
 * its JSON form).
 *
 * The tables drive initialisation, checks, the EWMA merge
 * (model/profile.c) and both directions of the JSON form
 * (store/profile_json.c): a field added to a table is checked, merged,
 * written and read without another line elsewhere.
 */
#ifndef COSCHED_PROFILE_FIELDS_H
#define COSCHED_PROFILE_FIELDS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "src/libcosched/model/profile.h"

enum num_kind {
	NUM_NONNEG,		/* double >= 0 */
	NUM_POSITIVE,		/* double > 0 */
	NUM_FRACTION,		/* double in [0, 1] */
	NUM_INT,		/* int in [lo, hi] */
	NUM_LONG,		/* long in [lo, hi] */
	NUM_ULONG,		/* unsigned long in [lo, hi] */
};

typedef struct {
	const char *name;
	size_t offset;
	enum num_kind kind;
	bool optional;	/* doubles: NAN (absent / null) allowed; integers:
			 * absent reads as 0 */
	long long lo, hi;	/* integer kinds */
} field_t;

/*
 * Derived metrics (all doubles, NAN = unknown).  cause names the run value
 * (or merge parameter) whose size decides whether the metric stays finite,
 * and how the metric is computed, for the message when it does not.
 */
typedef struct {
	field_t f;
	const char *cause;		/* run field; NULL: NodePeakBandwidth */
	const char *formula;
} derived_field_t;

extern const field_t cosched_run_fields[];
extern const size_t cosched_n_run_fields;
extern const field_t cosched_edp_fields[];
extern const size_t cosched_n_edp_fields;
extern const derived_field_t cosched_derived_fields[];
extern const size_t cosched_n_derived_fields;

static inline double *dbl_at(void *base, const field_t *f)
{
	return (double *) ((char *) base + f->offset);
}

static inline double dbl_get(const void *base, const field_t *f)
{
	return *(const double *) ((const char *) base + f->offset);
}

static inline long long int_get(const void *base, const field_t *f)
{
	const char *p = (const char *) base + f->offset;

	switch (f->kind) {
	case NUM_INT:
		return *(const int *) p;
	case NUM_LONG:
		return *(const long *) p;
	default:
		return (long long) *(const unsigned long *) p;
	}
}

/* v is within the field's range (checked by the caller). */
static inline void int_set(void *base, const field_t *f, long long v)
{
	char *p = (char *) base + f->offset;

	switch (f->kind) {
	case NUM_INT:
		*(int *) p = (int) v;
		break;
	case NUM_LONG:
		*(long *) p = (long) v;
		break;
	default:
		*(unsigned long *) p = (unsigned long) v;
	}
}

static inline bool is_int_kind(enum num_kind k)
{
	return k == NUM_INT || k == NUM_LONG || k == NUM_ULONG;
}

static inline const char *num_expected(enum num_kind k)
{
	switch (k) {
	case NUM_POSITIVE:
		return "a positive number";
	case NUM_FRACTION:
		return "a number from 0 to 1";
	default:
		return "a non-negative number";
	}
}

/* Whether v is a valid value of a double field of kind k (NAN excluded). */
static inline bool num_ok(enum num_kind k, double v)
{
	return isfinite(v) && v >= 0.0 && (k != NUM_POSITIVE || v > 0.0) &&
	       (k != NUM_FRACTION || v <= 1.0);
}

/* EDP points are kept sorted by threads, then frequency. */
int cosched_edp_cmp(const cosched_edp_point_t *a, int threads, long freq);
int cosched_edp_qsort_cmp(const void *a, const void *b);

#endif
