/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fake_rapl.c - fake powercap trees for the unit tests (fake_rapl.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "fake_rapl.h"

void fake_rapl_make(fake_rapl_tree_t *t, const char *args)
{
	cosched_check_tree_make(t, "rapl", COSCHED_FAKE_POWERCAP, args);
}

void fake_rapl(const fake_rapl_tree_t *t, const char *cmd, const char *fmt,
	       ...)
{
	char args[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	cosched_check_sh("%s %s %s %s %s >/dev/null", COSCHED_PYTHON3,
			 COSCHED_FAKE_POWERCAP, cmd, t->root, args);
}

cosched_rapl_t *fake_rapl_open(const fake_rapl_tree_t *t)
{
	cosched_error_t err = { .msg = "" };
	cosched_rapl_t *r = cosched_rapl_open(t->root, &err);

	ck_assert_msg(r != NULL, "open %s: %s", t->root, err.msg);
	return r;
}
