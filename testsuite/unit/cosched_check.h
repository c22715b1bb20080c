/* cosched_check.h - the one runner every Check test program uses. */
#ifndef COSCHED_CHECK_H
#define COSCHED_CHECK_H

#include <check.h>
#include <stdlib.h>

/* Run every test of s; EXIT_SUCCESS when none failed. */
static inline int cosched_check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
