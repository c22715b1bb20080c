/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_journal.c - libFuzzer target of the node's cpufreq journal text
 * form (src/node/cpufreq_journal_text.c): cosched_journal_parse().
 *
 * Invariants (a violation aborts):
 *   - a failed parse's message is written, terminated, not empty and free
 *     of control characters;
 *   - a journal that parsed formats again, and that text parses to the
 *     same journal and formats to itself; when the input was of the
 *     writer's own version as it writes it ("cosched-cpufreq-journal/1.1 "),
 *     the text is exactly the input;
 *   - every domain's CPUs hold its id as their first CPU, domains ascend
 *     and share no CPU, and no holder is twice in a domain.
 */
#include <stdbool.h>

#include "fuzz_common.h"
#include "src/node/cpufreq_journal_internal.h"

static void check_shape(const journal_t *j)
{
	for (int i = 0; i < j->n; i++) {
		const jdom_t *d = &j->d[i];

		FUZZ_CHECK(cosched_idset_next(&d->cpus, 0) == d->id,
			   "a domain's id is not its first CPU", NULL);
		FUZZ_CHECK(!i || j->d[i - 1].id < d->id,
			   "domains not ascending", NULL);
		for (int k = 0; k < i; k++)
			FUZZ_CHECK(!cosched_idset_overlap(&j->d[k].cpus, &d->cpus),
				   "two domains share a CPU", NULL);
		for (int h = 0; h < d->n; h++)
			FUZZ_CHECK(cosched_journal_holder_find(d, d->h[h].job_id,
							       d->h[h].step_id) == h,
				   "a holder twice in a domain", NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strdup(data, size), *copy = fuzz_strdup(data, size);
	journal_t *j = cosched_journal_new(), *again = cosched_journal_new();
	cosched_error_t err;
	char *out, *out2, *reread, own[64];

	if (!j || !again)
		abort();
	fuzz_error_poison(&err);
	if (cosched_journal_parse(text, j, &err)) {
		fuzz_check_error(&err);
		goto done;
	}
	check_shape(j);
	out = cosched_journal_format(j);
	if (!out)
		abort();
	/* The writer's own version, as it writes it: followed from
	 * cpufreq_journal_internal.h, so a new minor cannot leave this
	 * behind. */
	snprintf(own, sizeof(own), "%s%d.%d ", JOURNAL_TAG, JOURNAL_SCHEMA,
		 JOURNAL_MINOR);
	FUZZ_CHECK(!strncmp(out, own, strlen(own)),
		   "the writer does not write its own version", out);
	if (!strncmp(copy, own, strlen(own)))
		FUZZ_CHECK(!strcmp(out, copy),
			   "format(parse(text)) differs from text", out);
	reread = strdup(out);
	if (!reread)
		abort();
	fuzz_error_poison(&err);
	FUZZ_CHECK(cosched_journal_parse(reread, again, &err) == 0,
		   "a formatted journal does not parse", err.msg);
	out2 = cosched_journal_format(again);
	if (!out2)
		abort();
	FUZZ_CHECK(!strcmp(out, out2), "format(parse(format(j))) differs",
		   out2);
	free(out);
	free(out2);
	free(reread);
done:
	cosched_journal_free(j);
	cosched_journal_free(again);
	free(text);
	free(copy);
	return 0;
}
