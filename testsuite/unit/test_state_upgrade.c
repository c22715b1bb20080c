/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_state_upgrade.c - the node's state files and the live loads under
 * the rolling-upgrade rule (src/libcosched/base/kv.h): the cpufreq journal, the
 * energy ledger and a live load of a newer minor are read, what the minor
 * added skipped and said once through the hook; a newer major is refused
 * naming both versions; the writers keep writing "/1". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "src/libcosched/base/kv.h"
#include "src/libcosched/store/live.h"
#include "src/node/cpufreq_journal_internal.h"
#include "src/node/energy_ledger_text.h"

static cosched_error_t err;
static int notes;
static char last_note[COSCHED_ERROR_MSG_LEN];

static void note(const char *msg)
{
	notes++;
	snprintf(last_note, sizeof(last_note), "%s", msg);
}

#define JOURNAL_NEWER \
	"cosched-cpufreq-journal/1.4 boot=- epoch=7\n" \
	"domain id=0 cpus=0-7 governor=schedutil min=800000 max=3000000 setspeed=0 uncore=1\n" \
	"holder job=1 step=0 pid=1 start=1 governor=userspace freq=1500000 stopped=1 cap=2\n" \
	"pin cpus=0\n" \
	"end domains=1 holders=1\n"

START_TEST(test_journal)
{
	char text[1024];
	journal_t *j = cosched_journal_new(), *k;
	char *again;

	cosched_kv_set_note_hook(note);
	snprintf(text, sizeof(text), "%s", JOURNAL_NEWER);
	ck_assert_msg(cosched_journal_parse(text, j, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(j->n, 1);
	ck_assert_int_eq(j->d[0].n, 1);
	ck_assert(j->d[0].h[0].stopped);
	ck_assert_int_eq(notes, 1);
	ck_assert_str_eq(last_note,
		"cpufreq journal cosched-cpufreq-journal/1.4 is newer than this reader's (cosched-cpufreq-journal/1.1): skipped 4 keys or lines it does not know");
	/* Said once a process. */
	snprintf(text, sizeof(text), "%s", JOURNAL_NEWER);
	k = cosched_journal_new();
	ck_assert_int_eq(cosched_journal_parse(text, k, &err), 0);
	ck_assert_int_eq(notes, 1);
	/* Written back as this release writes: what the previous reads. */
	again = cosched_journal_format(j);
	ck_assert_str_eq(again,
		"cosched-cpufreq-journal/1.1 boot=-\n"
		"domain id=0 cpus=0-7 governor=schedutil min=800000 max=3000000 setspeed=0\n"
		"holder job=1 step=0 pid=1 start=1 governor=userspace freq=1500000 stopped=1\n"
		"end domains=1 holders=1\n");
	free(again);
	cosched_journal_free(j);
	cosched_journal_free(k);

	/* An older minor's journal (1.0, a node's steps of the release
	 * before): its holders run, and it is written back as 1.1. */
	snprintf(text, sizeof(text),
		 "cosched-cpufreq-journal/1 boot=-\n"
		 "domain id=0 cpus=0-7 governor=schedutil min=800000 max=3000000 setspeed=0\n"
		 "holder job=1 step=0 pid=1 start=1 governor=userspace freq=1500000\n"
		 "end domains=1 holders=1\n");
	j = cosched_journal_new();
	ck_assert_msg(cosched_journal_parse(text, j, &err) == 0, "%s", err.msg);
	ck_assert(!j->d[0].h[0].stopped);
	again = cosched_journal_format(j);
	ck_assert_msg(strstr(again, "freq=1500000 stopped=0\n"), "%s", again);
	free(again);
	cosched_journal_free(j);

	/* Its own version: nothing unknown. */
	snprintf(text, sizeof(text), "cosched-cpufreq-journal/1.1 boot=- epoch=7\nend domains=0 holders=0\n");
	j = cosched_journal_new();
	ck_assert_int_eq(cosched_journal_parse(text, j, &err), -1);
	ck_assert_msg(strstr(err.msg, "more fields than expected"), "%s", err.msg);
	cosched_journal_free(j);
	/* A newer major: refused, both versions named. */
	snprintf(text, sizeof(text), "cosched-cpufreq-journal/2 boot=-\nend domains=0 holders=0\n");
	j = cosched_journal_new();
	ck_assert_int_eq(cosched_journal_parse(text, j, &err), -1);
	ck_assert_msg(strstr(err.msg,
		"cpufreq journal schema cosched-cpufreq-journal/2.0 is newer than this node understands (cosched-cpufreq-journal/1.x)"),
		"%s", err.msg);
	cosched_journal_free(j);
}
END_TEST

#define LEDGER_NEWER \
	"cosched-energy-ledger/1.3 boot=abc gen=7\n" \
	"zone intel-rapl:0 123\n" \
	"totals attributed=1 unattributed=2 abandoned=3 gpu=4\n" \
	"step 5.0 pid=9 start=1 cores=2 rate=3 mem_rate=- uncore=1 core=2 dram=3 node=4 seen=1 corunners=6.0 carried=2 stepd=- stepd_start=0 stopped=1 psys=1\n"

START_TEST(test_ledger)
{
	static ledger_t l;
	char text[1024], *again;

	cosched_kv_set_note_hook(note);
	notes = 0;
	snprintf(text, sizeof(text), "%s", LEDGER_NEWER);
	ck_assert_msg(cosched_ledger_parse(text, &l, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(l.n, 1);
	ck_assert_int_eq(l.step[0].ncorunners, 1);
	ck_assert_int_eq(notes, 1);
	ck_assert_ptr_nonnull(strstr(last_note, "skipped 2 keys or lines"));
	again = cosched_ledger_format(&l);
	ck_assert_str_eq(again,
		"cosched-energy-ledger/1.2 boot=abc gen=7\n"
		"zone intel-rapl:0 123\n"
		"totals attributed=1 unattributed=2 abandoned=3\n"
		"step 5.0 pid=9 start=1 cores=2 rate=3 mem_rate=- uncore=1 core=2 dram=3 node=4 seen=1 corunners=6.0 carried=2 stepd=- stepd_start=0 stopped=1\n");
	/* A 1.1 writer's step (no "stopped") runs. */
	snprintf(text, sizeof(text), "cosched-energy-ledger/1.1 boot=abc gen=7\n"
		 "totals attributed=1 unattributed=2 abandoned=3\n"
		 "step 5.0 pid=9 start=1 cores=2 rate=3 mem_rate=- uncore=1 core=2 dram=3 node=4 seen=0 corunners=- carried=0 stepd=- stepd_start=0\n");
	ck_assert_msg(cosched_ledger_parse(text, &l, &err) == 0, "%s", err.msg);
	ck_assert(!l.step[0].stopped);
	/* A 1.0 writer's ledger (a node's samplers from before an upgrade):
	 * read, with generation 0 and nothing carried. */
	snprintf(text, sizeof(text), "cosched-energy-ledger/1 boot=abc\n"
		 "totals attributed=1 unattributed=2 abandoned=3\n"
		 "step 5.0 pid=9 start=1 cores=2 rate=3 mem_rate=- uncore=1 core=2 dram=3 node=4 seen=0 corunners=-\n");
	ck_assert_msg(cosched_ledger_parse(text, &l, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(l.gen, 0);
	ck_assert_uint_eq(l.step[0].carried_uj, 0);
	ck_assert_int_eq(l.step[0].stepd.pid, 0);
	free(again);
	snprintf(text, sizeof(text), "cosched-energy-ledger/3 boot=abc\ntotals attributed=1 unattributed=2 abandoned=3\n");
	ck_assert_int_eq(cosched_ledger_parse(text, &l, &err), -1);
	ck_assert_msg(strstr(err.msg, "energy ledger schema cosched-energy-ledger/3.0 is newer than this node understands (cosched-energy-ledger/1.x)"),
		      "%s", err.msg);
	/* A known line out of place stays an error in a newer minor. */
	snprintf(text, sizeof(text), "cosched-energy-ledger/1.3 boot=abc\nstep 5.0 pid=9\ntotals attributed=1 unattributed=2 abandoned=3\n");
	ck_assert_int_eq(cosched_ledger_parse(text, &l, &err), -1);
}
END_TEST

START_TEST(test_live)
{
	cosched_live_t l;

	cosched_kv_set_note_hook(note);
	notes = 0;
	ck_assert_msg(cosched_live_parse("cosched-live/1.1 job=4 step=0 node=n1 mpki=2.500000 time=5 ipc=1.5\n",
					 &l, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(l.job_id, 4);
	ck_assert_double_eq(l.mpki, 2.5);
	ck_assert_int_eq(notes, 1);
	ck_assert_int_eq(cosched_live_parse("cosched-live/1.1 job=4 step=0 node=n1 mpki=2.500000 time=5 ipc=1.5\n",
					    &l, &err), 0);
	ck_assert_int_eq(notes, 1);
	ck_assert_int_eq(cosched_live_parse("cosched-live/2 job=4 step=0 node=n1 mpki=2.500000 time=5\n",
					    &l, &err), -1);
	ck_assert_msg(strstr(err.msg, "cosched-live/2.0 is newer than this reader understands (cosched-live/1.x)"),
		      "%s", err.msg);
	/* Its own version: a field more is refused. */
	ck_assert_int_eq(cosched_live_parse("cosched-live/1 job=4 step=0 node=n1 mpki=2.500000 time=5 ipc=1.5\n",
					    &l, &err), -1);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("state_upgrade");
	TCase *tc = tcase_create("state_upgrade");

	tcase_add_test(tc, test_journal);
	tcase_add_test(tc, test_ledger);
	tcase_add_test(tc, test_live);
	suite_add_tcase(s, tc);
	return s;
}
