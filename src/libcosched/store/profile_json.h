/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile_json.h - a profile's JSON form, as the profile store
 * keeps it (one file per application, store/store.h).
 *
 * Schema version COSCHED_PROFILE_SCHEMA_VERSION: an object with
 * schema_version, app, runs_merged, derived (the EWMA metrics, null =
 * unknown), edp (points) and runs (raw runs, unmeasured values absent).
 * Reading is strict: unknown fields, duplicate keys and EDP points, values
 * out of range and counts above COSCHED_PROFILE_COUNT_MAX are refused with
 * a message naming the field, so a typo is never silently lost.
 */
#ifndef COSCHED_PROFILE_JSON_H
#define COSCHED_PROFILE_JSON_H

#include "src/libcosched/base/error.h"
#include "src/libcosched/model/profile.h"

/* Serialise to JSON text (malloc'd, caller frees); NULL on error. */
char *cosched_profile_to_json(const cosched_profile_t *p, cosched_error_t *err);

/*
 * Parse JSON text into *p (uninitialised on entry; on success the caller
 * frees it with cosched_profile_free).  On error *p is left untouched
 * (nothing half-loaded) and err names the field and the problem, e.g.
 * runs[2].instructions: expected a non-negative number, got "abc".
 */
int cosched_profile_from_json(cosched_profile_t *p, const char *text,
			      cosched_error_t *err);

#endif
