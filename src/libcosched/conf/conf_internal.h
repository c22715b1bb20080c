/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf_internal.h - what conf/conf.c (the keys and the file)
 * and conf/values.c (the values that are small languages) share.
 * Not for use outside the two.  Each returns 0, or -1 with err naming
 * field and quoting value.
 */
#ifndef COSCHED_CONF_INTERNAL_H
#define COSCHED_CONF_INTERNAL_H

#include "src/libcosched/conf/conf.h"
#include "src/libcosched/base/error.h"

/* ProfileShare: "*" or application names separated by single commas. */
int conf_profile_share_check(const char *field, const char *value,
			     cosched_error_t *err);
/* DebugFlags=Placement,Check,Timing, any case, no empty item. */
int conf_debug_flags_parse(const char *field, const char *value,
			   unsigned *out, cosched_error_t *err);
/* An event list's form (list is value's, or its part after "CPU:"). */
int conf_events_check(const char *field, const char *value,
		      const char *list, cosched_error_t *err);
/* One SampleEventsFor value into e; its entry in conf (-1: none); and
 * the whole key applied to conf. */
int conf_sample_events_for_parse(const char *field, const char *value,
				 cosched_sample_events_for_t *e,
				 cosched_error_t *err);
int conf_sample_events_for_find(const cosched_conf_t *conf,
				const cosched_sample_events_for_t *e);
int conf_sample_events_for_set(cosched_conf_t *conf, const char *field,
			       const char *value, cosched_error_t *err);

#endif
