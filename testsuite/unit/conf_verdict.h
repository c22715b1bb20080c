/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf_verdict.h - the cosched.conf parser's verdict on a text, as test
 * assertions (test_conf.c and test_conf_keys.c). */
#ifndef CONF_VERDICT_H
#define CONF_VERDICT_H

#include "src/libcosched/conf/conf.h"

/* text is refused with exactly msg, and nothing of it applied to a conf
 * initialised first. */
void conf_refused(cosched_conf_t *conf, cosched_error_t *err,
		  const char *text, const char *msg);

/* text is accepted into a conf initialised first. */
void conf_accepted(cosched_conf_t *conf, cosched_error_t *err,
		   const char *text);

#endif
