/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_ledger.c - libFuzzer target of the node's energy ledger text form
 * (src/node/energy_ledger_text.c): cosched_ledger_parse().
 *
 * Invariants (a violation aborts):
 *   - a failed parse's message is written, terminated, not empty and free
 *     of control characters;
 *   - a ledger that parsed formats again, and that text parses to a ledger
 *     that formats to the same text; when the input was of the writer's
 *     own version as it writes it ("cosched-energy-ledger/1.2 "), the text
 *     is exactly the input;
 *   - no step is listed twice, every step has a core, and a step names no
 *     more co-runners than it has seen.
 */
#include "fuzz_common.h"
#include "src/node/energy_ledger_text.h"

/* Too large for libFuzzer's stack. */
static ledger_t l, again;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strdup(data, size), *copy = fuzz_strdup(data, size);
	cosched_error_t err;
	char *out, *out2, *reread, own[64];

	fuzz_error_poison(&err);
	if (cosched_ledger_parse(text, &l, &err)) {
		fuzz_check_error(&err);
		goto done;
	}
	for (int i = 0; i < l.n; i++) {
		FUZZ_CHECK(l.step[i].cores >= 1, "a step with no core", NULL);
		FUZZ_CHECK(l.step[i].corunners_seen >= l.step[i].ncorunners,
			   "more co-runners named than seen", NULL);
		for (int k = 0; k < i; k++)
			FUZZ_CHECK(!cosched_step_ref_eq(&l.step[k].id,
							&l.step[i].id),
				   "a step listed twice", NULL);
	}
	out = cosched_ledger_format(&l);
	if (!out)
		abort();
	/* The writer's own version, as it writes it: followed from
	 * energy_ledger_text.h, so a new minor cannot leave this behind. */
	snprintf(own, sizeof(own), "%s%d.%d ", LEDGER_TAG, LEDGER_SCHEMA,
		 LEDGER_MINOR);
	if (!strncmp(copy, own, strlen(own)))
		FUZZ_CHECK(!strcmp(out, copy),
			   "format(parse(text)) differs from text", out);
	reread = strdup(out);
	if (!reread)
		abort();
	fuzz_error_poison(&err);
	FUZZ_CHECK(cosched_ledger_parse(reread, &again, &err) == 0,
		   "a formatted ledger does not parse", err.msg);
	out2 = cosched_ledger_format(&again);
	if (!out2)
		abort();
	FUZZ_CHECK(!strcmp(out, out2), "format(parse(format(l))) differs",
		   out2);
	free(out);
	free(out2);
	free(reread);
done:
	free(text);
	free(copy);
	return 0;
}
