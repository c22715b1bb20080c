/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf_verdict.c - the cosched.conf parser's verdict on a text, as test
 * assertions (conf_verdict.h). */
#include <check.h>
#include <string.h>

#include "conf_verdict.h"

void conf_refused(cosched_conf_t *conf, cosched_error_t *err,
		  const char *text, const char *msg)
{
	cosched_conf_t before;

	cosched_conf_init(conf);
	before = *conf;
	cosched_error_clear(err);
	ck_assert_msg(cosched_conf_parse_string(conf, "t.conf", text, err) == -1,
		      "accepted: %s", text);
	ck_assert_str_eq(err->msg, msg);
	ck_assert_msg(!memcmp(&before, conf, sizeof(*conf)), "half-applied: %s",
		      text);
}

void conf_accepted(cosched_conf_t *conf, cosched_error_t *err,
		   const char *text)
{
	cosched_conf_init(conf);
	ck_assert_msg(cosched_conf_parse_string(conf, "t.conf", text, err) == 0,
		      "%s: %s", text, err->msg);
}
