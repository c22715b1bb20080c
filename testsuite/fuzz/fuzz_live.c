/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_live.c - libFuzzer target of the live loads' file form
 * (src/libcosched/store/live.c): cosched_live_parse(), what slurmctld
 * reads from files the nodes write into ProfileDir/live.
 *
 * Invariants (a violation aborts):
 *   - a failed parse's message is written, terminated, not empty and free
 *     of control characters;
 *   - a load that parsed has a valid node name and an MPKI in [0, 1e6];
 *     it formats, and that line parses to the same load (mpki as the
 *     writer rounds it, to 6 decimals) and formats to itself.
 */
#include <math.h>

#include "fuzz_common.h"
#include "src/libcosched/store/live.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strdup(data, size);
	char line[COSCHED_LIVE_LINE_MAX + 1], line2[COSCHED_LIVE_LINE_MAX + 1];
	cosched_live_t l, again;
	cosched_error_t err;

	fuzz_error_poison(&err);
	if (cosched_live_parse(text, &l, &err)) {
		fuzz_check_error(&err);
		free(text);
		return 0;
	}
	FUZZ_CHECK(cosched_live_node_check(l.node, NULL) == 0,
		   "a parsed load has an invalid node name", l.node);
	FUZZ_CHECK(isfinite(l.mpki) && l.mpki >= 0 && l.mpki <= 1e6,
		   "a parsed load's mpki is out of range", NULL);
	fuzz_error_poison(&err);
	FUZZ_CHECK(cosched_live_format(&l, line, sizeof(line), &err) == 0,
		   "a parsed load does not format", err.msg);
	fuzz_error_poison(&err);
	FUZZ_CHECK(cosched_live_parse(line, &again, &err) == 0,
		   "a formatted load does not parse", err.msg);
	FUZZ_CHECK(again.job_id == l.job_id && again.step_id == l.step_id &&
		   !strcmp(again.node, l.node) && again.time == l.time &&
		   fabs(again.mpki - l.mpki) <= 6e-7,
		   "parse(format(l)) differs from l", line);
	FUZZ_CHECK(cosched_live_format(&again, line2, sizeof(line2), &err) == 0 &&
		   !strcmp(line, line2), "format(parse(format(l))) differs",
		   line2);
	free(text);
	return 0;
}
