/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_conf.c - libFuzzer target of the cosched.conf parser
 * (src/libcosched/conf/conf.c): cosched_conf_parse_string().
 *
 * The input is the text of a cosched.conf (a NUL ends it), parsed over
 * the defaults.
 *
 * Invariants (a violation aborts):
 *   - all or nothing: on error the configuration is byte for byte as it
 *     was, and the message is written, terminated inside its buffer, not
 *     empty and free of control characters;
 *   - on success cosched_conf_check() accepts the result, and parsing the
 *     same text again over the result succeeds and changes nothing
 *     (idempotent: every key, list keys included, sets rather than adds
 *     up).
 */
#include "fuzz_common.h"
#include "src/libcosched/conf/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strdup(data, size);
	/* Heap copies, exactly sized: ASan sees a write past the struct. */
	cosched_conf_t *conf = malloc(sizeof(*conf));
	cosched_conf_t *before = malloc(sizeof(*before));
	cosched_conf_t *again = malloc(sizeof(*again));
	cosched_error_t err;
	int rc;

	if (!conf || !before || !again)
		abort();
	cosched_conf_init(conf);
	memcpy(before, conf, sizeof(*conf));

	fuzz_error_poison(&err);
	rc = cosched_conf_parse_string(conf, "fuzz.conf", text, &err);
	FUZZ_CHECK(rc == 0 || rc == -1,
		   "cosched_conf_parse_string returns 0 or -1", NULL);
	if (rc) {
		FUZZ_CHECK(!memcmp(before, conf, sizeof(*conf)),
			   "cosched_conf_parse_string changed the configuration on failure",
			   err.msg);
		fuzz_check_error(&err);
		goto out;
	}

	fuzz_error_poison(&err);
	FUZZ_CHECK(!cosched_conf_check(conf, &err),
		   "cosched_conf_check refuses what the parser accepted",
		   memchr(err.msg, '\0', sizeof(err.msg)) ? err.msg : NULL);

	memcpy(again, conf, sizeof(*conf));
	fuzz_error_poison(&err);
	rc = cosched_conf_parse_string(again, "fuzz.conf", text, &err);
	FUZZ_CHECK(rc == 0, "parsing accepted text again over its result fails",
		   memchr(err.msg, '\0', sizeof(err.msg)) ? err.msg : NULL);
	FUZZ_CHECK(!memcmp(again, conf, sizeof(*conf)),
		   "parsing the same text again changes the configuration",
		   NULL);
out:
	free(again);
	free(before);
	free(conf);
	free(text);
	return 0;
}
