/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_status.c - cosched-status(1) without Slurm (src/status/status.c):
 * hand-made jobs and records in, the table and the JSON document out. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_check.h"
#include "src/libcosched/model/decision.h"
#include "src/status/status.h"

static const char *const N1[] = { "n1" };
static const char *const N2[] = { "n2" };
static const char *const N10[] = { "n10" };
static const char *const N1N2[] = { "n1", "n2" };

#define R40 "cosched/1 job=40 state=placed policy=app_aware scope=socket " \
	"class=cpu lca=N source=profile sockets=n1:1 cores=n1:0-1 " \
	"freq_khz=2200000 slowdown=1.05 reason=\"co-runner of mem job 42\""
#define R42 "cosched/1 job=42 state=placed policy=app_aware scope=socket " \
	"class=mem lca=L source=profile mpki=21.5 threads=4 sockets=n1:1 " \
	"cores=n1:4-7 numa=n1:1 membind=bind power=edp freq_req_khz=1500000 " \
	"freq_khz=1400000 governor=userspace slowdown=1.25 " \
	"reason=\"joins \\\"cpu\\\" job 40 on n1 socket 1\""
#define R43 "cosched/1 job=43 state=placed policy=gang scope=socket " \
	"class=lim lca=LC source=declared sockets=n1:0;n2:0-1"
/* A forged or broken record: a terminal escape and a long value. */
#define R58 "cosched/1 job=58 state=placed policy=gang scope=socket " \
	"governor=\x1b[2J" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define R61 "cosched/1 job=61 state=pending policy=app_aware scope=socket " \
	"class=mem lca=L source=profile reason=\"waits for a socket without mem jobs\""

static status_job_t jobs[] = {
	{ 42, "RUNNING", false, "bob", "stream", "bb line\n" R42 "\n", N1, 1, NULL, false },
	{ 40, "RUNNING", false, "alice", "cpu-bound", R40, N1, 1, NULL, false },
	{ 43, "RUNNING", false, "carol", NULL, R43, N1N2, 2, NULL, false },
	{ 57, "RUNNING", false, "dave", "plain", "11/23/26 10:00:00 burst_buffer/lua: x",
	  N1, 1, NULL, false },
	{ 58, "RUNNING", false, "eve", "x", R58, N2, 1, NULL, false },
	/* a record copied from another job (a job array split) */
	{ 59, "RUNNING", false, NULL, NULL, R40, N10, 1, NULL, false },
	{ 63, "PENDING", true, "frank", NULL, "cosched/2 job=63 future=1", NULL, 0, NULL, false },
	{ 61, "PENDING", true, "bob", NULL, R61, NULL, 0, NULL, false },
	{ 62, "PENDING", true, "bob", NULL, NULL, NULL, 0, NULL, false },
};
#define NJOBS (sizeof(jobs) / sizeof(jobs[0]))

enum { TEXT, JSON, PROMETHEUS };

/* The report of jobs under filter, as text, JSON or metrics; caller
 * frees. */
static char *report_as(const status_job_t *js, size_t n,
		       const status_filter_t *f, int format)
{
	cosched_error_t err;
	status_report_t *r = status_report_build(js, n, f, &err);
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	ck_assert_msg(r != NULL, "status_report_build: %s", err.msg);
	out = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(out);
	if (format == JSON)
		ck_assert_msg(status_report_json(r, out, &err) == 0, "%s", err.msg);
	else if (format == PROMETHEUS)
		ck_assert_msg(status_report_prometheus(r, out, &err) == 0, "%s",
			      err.msg);
	else
		ck_assert_int_eq(status_report_text(r, out), 0);
	fclose(out);
	status_report_free(r);
	for (const unsigned char *p = (const unsigned char *) text; *p; p++)
		ck_assert_msg(*p == '\n' || (*p >= 0x20 && *p < 0x7f),
			      "byte 0x%02x in the report:\n%s", *p, text);
	return text;
}

static char *report(const status_job_t *js, size_t n, const status_filter_t *f,
		    bool json)
{
	return report_as(js, n, f, json ? JSON : TEXT);
}

/* The index of the line of text that starts with prefix, blanks squeezed
 * to one (-1: none); *found receives the squeezed line. */
static int line_index(const char *text, const char *prefix, char **found)
{
	static char line[1024];
	int index = 0;

	for (const char *p = text; *p; index++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t) (nl - p) : strlen(p), at = 0;
		for (size_t i = 0; i < n && at + 1 < sizeof(line); i++)
			if (p[i] != ' ' || (at && line[at - 1] != ' '))
				line[at++] = p[i];
		line[at] = '\0';
		if (!strncmp(line, prefix, strlen(prefix))) {
			if (found)
				*found = line;
			return index;
		}
		p = nl ? nl + 1 : p + n;
	}
	return -1;
}

static char *line_with(const char *text, const char *prefix)
{
	char *found = NULL;

	line_index(text, prefix, &found);
	return found;
}

static void assert_line(const char *text, const char *want)
{
	ck_assert_msg(line_with(text, want) != NULL, "no line \"%s\" in:\n%s",
		      want, text);
}

/* The line starting with first comes before the one starting with later. */
static void assert_order(const char *text, const char *first, const char *later)
{
	int a = line_index(text, first, NULL), b = line_index(text, later, NULL);

	ck_assert_msg(a >= 0 && b >= 0 && a < b, "\"%s\" not before \"%s\" in:\n%s",
		      first, later, text);
}

START_TEST(test_table)
{
	char *t = report(jobs, NJOBS, NULL, false);

	assert_line(t, "NODE SOCKET JOB USER STATE CLASS SOURCE SLOWDOWN FREQ_KHZ GOVERNOR REASON");
	/* per node and socket, sockets in order, an unknown socket last */
	assert_line(t, "n1 0 43 carol placed lim declared - - - -");
	assert_line(t, "n1 1 40 alice placed cpu profile 1.05 2200000 - co-runner of mem job 42");
	assert_line(t, "n1 1 42 bob placed mem profile 1.25 1400000 userspace joins \"cpu\" job 40 on n1 socket 1");
	assert_line(t, "n1 - 57 dave - - - - - - no cosched record");
	assert_line(t, "n2 0 43 carol placed lim declared");
	assert_line(t, "n2 1 43 carol placed lim declared");
	assert_order(t, "n1 0 ", "n1 1 ");
	assert_order(t, "n1 1 40 ", "n1 1 42 ");
	assert_order(t, "n1 - 57 ", "n2 ");
	/* n10 after n2 */
	assert_order(t, "n2 - 58 ", "n10 ");
	/* the broken record: reported for that job, escaped and cut */
	assert_line(t, "n2 - 58 eve - - - - - - invalid cosched record: governor: invalid governor \"\\x1b[2Jaaaa");
	ck_assert_ptr_nonnull(strstr(t, "...(66 bytes)"));
	/* a record naming another job is not used */
	assert_line(t, "n10 - 59 - - - - - - - invalid cosched record: the record names job 40, not this job 59");
	/* pending: held by cosched with its reason; the others as they are */
	assert_order(t, "n10 ", "Pending jobs:");
	assert_line(t, "JOB USER STATE CLASS SOURCE REASON");
	assert_line(t, "61 bob pending mem profile waits for a socket without mem jobs");
	assert_line(t, "62 bob - - - no cosched record");
	assert_line(t, "63 frank - - - invalid cosched record: decision record schema cosched/2.0 is newer than this node understands (cosched/1.x): upgrade cosched here (cosched(8) UPGRADE)");
	assert_order(t, "61 ", "62 ");
	assert_order(t, "62 ", "63 ");
	free(t);
}
END_TEST

START_TEST(test_explain)
{
	status_filter_t f = { .job = 42 };
	char *t = report(jobs, NJOBS, &f, false);

	assert_line(t, "Job 42: user bob, name \"stream\", RUNNING on n1");
	assert_line(t, "record: " R42);
	assert_line(t, "decision: placed, policy app_aware, scope socket");
	assert_line(t, "class: mem (LCA L), from profile");
	assert_line(t, "placement: n1: sockets 1 cores 4-7 NUMA 1");
	assert_line(t, "frequency: 1400000 kHz (its policy asked for 1500000 kHz)");
	assert_line(t, "governor: userspace");
	assert_line(t, "slowdown: 1.25");
	assert_line(t, "reason: joins \"cpu\" job 40 on n1 socket 1");
	/* next to it: its socket's jobs, and the node's jobs whose socket
	 * is not known; not socket 0 nor other nodes */
	assert_line(t, "n1 1 40 alice placed cpu");
	assert_line(t, "n1 1 42 bob placed mem");
	assert_line(t, "n1 - 57 dave - - - - - - no cosched record");
	ck_assert_ptr_null(line_with(t, "n1 0 43"));
	ck_assert_ptr_null(strstr(t, "\nn2"));
	ck_assert_ptr_null(strstr(t, "Pending jobs"));
	free(t);

	/* a job without a record: everything on its node may be next to it */
	f.job = 57;
	t = report(jobs, NJOBS, &f, false);
	assert_line(t, "Job 57: user dave, name \"plain\", RUNNING on n1");
	assert_line(t, "record: none (no cosched record)");
	assert_line(t, "n1 0 43 carol");
	assert_line(t, "n1 1 40 alice");
	assert_line(t, "n1 1 42 bob");
	assert_line(t, "n1 - 57 dave");
	ck_assert_ptr_null(strstr(t, "\nn2"));
	free(t);

	f.job = 58;
	t = report(jobs, NJOBS, &f, false);
	assert_line(t, "record: invalid cosched record: governor: invalid governor \"\\x1b[2J");
	ck_assert_ptr_nonnull(strstr(t, "; line \"cosched/1 job=58"));
	free(t);

	f.job = 61;
	t = report(jobs, NJOBS, &f, false);
	assert_line(t, "Job 61: user bob, name \"\", PENDING");
	assert_line(t, "decision: pending, policy app_aware, scope socket");
	assert_line(t, "Pending: on no node yet, next to no job.");
	free(t);
}
END_TEST

START_TEST(test_unknown_job_and_empty)
{
	status_filter_t f = { .job = 99 };
	cosched_error_t err;
	char *t;

	ck_assert_ptr_null(status_report_build(jobs, NJOBS, &f, &err));
	ck_assert_str_eq(err.msg,
		"job 99: not known to slurmctld (or it ended too long ago)");
	t = report(NULL, 0, NULL, false);
	ck_assert_str_eq(t, "Running jobs by node and socket:\n(none)\n");
	free(t);
}
END_TEST

START_TEST(test_nodes)
{
	static const char *const only[] = { "n2" };
	status_filter_t f = { .nodes = only, .nnodes = 1 };
	char *t = report(jobs, NJOBS, &f, false);

	assert_line(t, "Running jobs by node and socket (the nodes asked for):");
	assert_line(t, "n2 0 43 carol");
	assert_line(t, "n2 1 43 carol");
	assert_line(t, "n2 - 58 eve");
	ck_assert_ptr_null(strstr(t, "\nn1 "));
	ck_assert_ptr_null(strstr(t, "\nn10 "));
	ck_assert_ptr_null(strstr(t, "Pending"));
	free(t);
}
END_TEST

/* A record that lists a node Slurm does not run the job on: that entry is
 * not used; Slurm's node is listed with its socket unknown. */
START_TEST(test_record_other_node)
{
	static const status_job_t j[] = {
		{ 7, "RUNNING", false, "u", NULL,
		  "cosched/1 job=7 state=placed policy=gang scope=socket sockets=n9:0",
		  N1, 1, NULL, false },
	};
	char *t = report(j, 1, NULL, false);

	assert_line(t, "n1 - 7 u placed");
	ck_assert_ptr_null(strstr(t, "n9"));
	free(t);
}
END_TEST

static json_t *load_json(const char *text)
{
	json_error_t jerr;
	json_t *doc = json_loads(text, 0, &jerr);

	ck_assert_msg(doc != NULL, "invalid JSON (%s, line %d):\n%s", jerr.text,
		      jerr.line, text);
	return doc;
}

static json_t *job_of(json_t *doc, json_int_t id)
{
	size_t i;
	json_t *j;

	json_array_foreach(json_object_get(doc, "jobs"), i, j)
		if (json_integer_value(json_object_get(j, "job_id")) == id)
			return j;
	return NULL;
}

static const char *str_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	ck_assert_msg(v != NULL, "no key %s", key);
	return json_is_null(v) ? NULL : json_string_value(v);
}

START_TEST(test_json)
{
	char *t = report(jobs, NJOBS, NULL, true);
	json_t *doc = load_json(t), *j, *d, *s, *v;
	char *dump;
	size_t i;

	ck_assert_int_eq(json_integer_value(json_object_get(doc, "schema")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(doc, "record_schema")), 1);
	ck_assert(json_is_null(json_object_get(doc, "explain")));
	/* sockets: node, socket (null: not known), job ids */
	s = json_object_get(doc, "sockets");
	dump = json_dumps(s, JSON_COMPACT);
	ck_assert_str_eq(dump,
		"[{\"node\":\"n1\",\"socket\":0,\"jobs\":[43]},"
		"{\"node\":\"n1\",\"socket\":1,\"jobs\":[40,42]},"
		"{\"node\":\"n1\",\"socket\":null,\"jobs\":[57]},"
		"{\"node\":\"n2\",\"socket\":0,\"jobs\":[43]},"
		"{\"node\":\"n2\",\"socket\":1,\"jobs\":[43]},"
		"{\"node\":\"n2\",\"socket\":null,\"jobs\":[58]},"
		"{\"node\":\"n10\",\"socket\":null,\"jobs\":[59]}]");
	free(dump);
	dump = json_dumps(json_object_get(doc, "pending"), JSON_COMPACT);
	ck_assert_str_eq(dump, "[61,62,63]");
	free(dump);
	/* jobs by id, each with its record's status */
	json_array_foreach(json_object_get(doc, "jobs"), i, j) {
		static const json_int_t ids[] = { 40, 42, 43, 57, 58, 59, 61, 62, 63 };
		ck_assert_uint_lt(i, 9);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "job_id")), ids[i]);
	}
	ck_assert_uint_eq(i, 9);
	j = job_of(doc, 42);
	ck_assert_str_eq(str_of(j, "record"), "valid");
	ck_assert_str_eq(str_of(j, "slurm_state"), "RUNNING");
	ck_assert_str_eq(str_of(j, "user"), "bob");
	ck_assert_ptr_null(str_of(j, "error"));
	d = json_object_get(j, "decision");
	ck_assert_str_eq(str_of(d, "text"), R42);
	ck_assert_str_eq(str_of(d, "state"), "placed");
	ck_assert_str_eq(str_of(d, "class"), "mem");
	ck_assert_str_eq(str_of(d, "lca"), "L");
	ck_assert_str_eq(str_of(d, "source"), "profile");
	ck_assert_double_eq(json_real_value(json_object_get(d, "slowdown")), 1.25);
	ck_assert_double_eq(json_real_value(json_object_get(d, "mpki")), 21.5);
	ck_assert_int_eq(json_integer_value(json_object_get(d, "freq_khz")), 1400000);
	ck_assert_int_eq(json_integer_value(json_object_get(d, "freq_req_khz")), 1500000);
	ck_assert_str_eq(str_of(d, "governor"), "userspace");
	ck_assert_str_eq(str_of(d, "reason"), "joins \"cpu\" job 40 on n1 socket 1");
	dump = json_dumps(json_object_get(d, "placement"), JSON_COMPACT);
	ck_assert_str_eq(dump, "[{\"node\":\"n1\",\"sockets\":[1],\"cores\":[4,5,6,7],\"numa\":[1]}]");
	free(dump);
	/* unset values are null, every key there */
	d = json_object_get(job_of(doc, 43), "decision");
	for (const char *const *k = (const char *const[]){ "mpki", "threads",
		"membind", "power", "freq_req_khz", "freq_khz", "governor",
		"slowdown", "reason", NULL }; *k; k++) {
		v = json_object_get(d, *k);
		ck_assert_msg(v && json_is_null(v), "%s is not null", *k);
	}
	ck_assert_str_eq(str_of(job_of(doc, 57), "record"), "none");
	ck_assert(json_is_null(json_object_get(job_of(doc, 57), "decision")));
	j = job_of(doc, 58);
	ck_assert_str_eq(str_of(j, "record"), "invalid");
	ck_assert_ptr_nonnull(strstr(str_of(j, "error"),
		"governor: invalid governor \"\\x1b[2Jaaaa"));
	ck_assert(json_is_null(json_object_get(j, "decision")));
	ck_assert_ptr_nonnull(strstr(str_of(job_of(doc, 59), "error"),
				     "names job 40, not this job 59"));
	dump = json_dumps(json_object_get(job_of(doc, 43), "nodes"), JSON_COMPACT);
	ck_assert_str_eq(dump, "[\"n1\",\"n2\"]");
	free(dump);
	json_decref(doc);
	free(t);
}
END_TEST

START_TEST(test_json_explain_and_hostile)
{
	static const status_job_t hostile[] = {
		/* a job name and user with control and non-UTF-8 bytes */
		{ 5, "RUNNING", false, "us\xff" "er", "a\"b\n\x1b[31m\xc3", NULL, N1, 1, NULL, false },
	};
	status_filter_t f = { .job = 42 };
	char *t = report(jobs, NJOBS, &f, true), *dump;
	json_t *doc = load_json(t);

	ck_assert_int_eq(json_integer_value(json_object_get(doc, "explain")), 42);
	dump = json_dumps(json_object_get(doc, "sockets"), JSON_COMPACT);
	ck_assert_str_eq(dump,
		"[{\"node\":\"n1\",\"socket\":1,\"jobs\":[40,42]},"
		"{\"node\":\"n1\",\"socket\":null,\"jobs\":[57]}]");
	free(dump);
	ck_assert_int_eq(json_array_size(json_object_get(doc, "jobs")), 3);
	ck_assert_int_eq(json_array_size(json_object_get(doc, "pending")), 0);
	json_decref(doc);
	free(t);

	t = report(hostile, 1, NULL, true);
	doc = load_json(t);
	ck_assert_str_eq(str_of(job_of(doc, 5), "name"), "a\"b??[31m?");
	ck_assert_str_eq(str_of(job_of(doc, 5), "user"), "us?er");
	json_decref(doc);
	free(t);
	t = report(hostile, 1, NULL, false);
	assert_line(t, "n1 - 5 us?er - - - - - - no cosched record");
	free(t);
	f.job = 5;
	t = report(hostile, 1, &f, false);
	assert_line(t, "Job 5: user us?er, name \"a\\\"b\\n\\x1b[31m\\xc3\", RUNNING on n1");
	free(t);

	t = report(NULL, 0, NULL, true);
	doc = load_json(t);
	ck_assert_int_eq(json_array_size(json_object_get(doc, "jobs")), 0);
	ck_assert_int_eq(json_array_size(json_object_get(doc, "sockets")), 0);
	json_decref(doc);
	free(t);
}
END_TEST

/* The metrics of jobs (cosched-status --prometheus); caller frees. */
static char *metrics(const status_job_t *js, size_t n, const status_filter_t *f)
{
	return report_as(js, n, f, PROMETHEUS);
}

static void assert_sample(const char *text, const char *line)
{
	char want[600];

	snprintf(want, sizeof(want), "\n%s\n", line);
	ck_assert_msg(strstr(text, want), "no line \"%s\" in:\n%s", line, text);
}

START_TEST(test_prometheus)
{
	static const status_job_t hostile[] = {
		{ 5, "RUNNING", false, "us\"er\n\xff", NULL,
		  "cosched/1 job=5 state=placed policy=gang scope=socket "
		  "sockets=n1:0 slowdown=1.5", N1, 1, NULL, false },
	};
	static const char *const documented[] = {
		"cosched_socket_jobs", "cosched_socket_predicted_slowdown_max",
		"cosched_job_predicted_slowdown", "cosched_job_frequency_khz",
		"cosched_jobs",
	};
	char *man = cosched_check_read_doc("doc/cosched-status.1");
	status_filter_t f = { .nodes = N2, .nnodes = 1 };
	char *t = metrics(jobs, NJOBS, NULL);

	assert_sample(t, "# TYPE cosched_socket_jobs gauge");
	/* each family's samples together, as the format wants */
	ck_assert_msg(!strstr(strstr(t, "# TYPE cosched_socket_predicted_slowdown_max"),
			      "\ncosched_socket_jobs{"), "%s", t);
	assert_sample(t, "cosched_socket_jobs{node=\"n1\",socket=\"0\"} 1");
	assert_sample(t, "cosched_socket_jobs{node=\"n1\",socket=\"1\"} 2");
	assert_sample(t, "cosched_socket_jobs{node=\"n1\",socket=\"unknown\"} 1");
	assert_sample(t, "cosched_socket_predicted_slowdown_max{node=\"n1\",socket=\"1\"} 1.25");
	/* no record predicts a slowdown on n1 socket 0: no sample */
	ck_assert_msg(!strstr(t, "cosched_socket_predicted_slowdown_max{node=\"n1\",socket=\"0\"}"),
		      "%s", t);
	assert_sample(t, "cosched_job_predicted_slowdown{job=\"42\",user=\"bob\",node=\"n1\",socket=\"1\",class=\"mem\",policy=\"app_aware\"} 1.25");
	assert_sample(t, "cosched_job_predicted_slowdown{job=\"40\",user=\"alice\",node=\"n1\",socket=\"1\",class=\"cpu\",policy=\"app_aware\"} 1.05");
	assert_sample(t, "cosched_job_frequency_khz{job=\"42\",user=\"bob\"} 1400000");
	/* placed 40, 42, 43; pending 61; none 57, 62; invalid 58, 59, 63 */
	assert_sample(t, "cosched_jobs{state=\"placed\"} 3");
	assert_sample(t, "cosched_jobs{state=\"pending\"} 1");
	assert_sample(t, "cosched_jobs{state=\"off\"} 0");
	assert_sample(t, "cosched_jobs{state=\"none\"} 2");
	assert_sample(t, "cosched_jobs{state=\"invalid\"} 3");
	for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++)
		ck_assert_msg(strstr(man, documented[i]),
			      "cosched-status(1) lacks %s", documented[i]);
	free(t);

	/* --nodes n2: n1's sockets are not listed */
	t = metrics(jobs, NJOBS, &f);
	assert_sample(t, "cosched_socket_jobs{node=\"n2\",socket=\"0\"} 1");
	ck_assert_msg(!strstr(t, "node=\"n1\""), "%s", t);
	free(t);

	/* a user name cannot break a line or a label */
	t = metrics(hostile, 1, NULL);
	ck_assert_msg(strstr(t, "user=\"us\\\"er\\n?\""), "%s", t);
	free(t);
	free(man);
}
END_TEST

/* cosched-status(1) documents every key of the JSON document. */
/* Time-shared partitions: per partition the running and suspended jobs
 * (Slurm's states) with their records' partners, and the running set's
 * worst predicted slowdown; jobs elsewhere are not in it. */
#define TS(id, cls, sd, alt, bes) "cosched/1.2 job=" #id " state=placed " \
	"policy=app_aware scope=socket class=" cls " lca=L source=declared " \
	"sockets=n1:0 slowdown=" sd " reason=\"r\" alternates=" alt \
	" beside=" bes

START_TEST(test_timeshare)
{
	static status_job_t ts[] = {
		{ 13, "SUSPENDED", false, "u", NULL,
		  TS(13, "mem", "1.2", "12", "14"), N1, 1, "gang", true },
		{ 12, "RUNNING", false, "u", NULL,
		  TS(12, "mem", "1.1", "13", "14"), N1, 1, "gang", true },
		{ 14, "RUNNING", false, "u", NULL,
		  TS(14, "cpu", "1.05", "15", "12,13"), N1, 1, "gang", true },
		{ 15, "RUNNING", false, "u", NULL, NULL, N1, 1, "gang", true },
		{ 40, "RUNNING", false, "alice", NULL, R40, N1, 1, "batch",
		  false },
	};
	char *t = report(ts, 5, NULL, false), *line;
	json_t *doc, *parts, *g;

	assert_line(t, "gang: running set's predicted slowdown 1.1");
	assert_line(t, "running 12 mem 13 14 1.1");
	assert_line(t, "running 14 cpu 15 12,13 1.05");
	assert_line(t, "running 15 - - - -");
	assert_line(t, "suspended 13 mem 12 14 1.2");
	assert_order(t, "running 15", "suspended 13");
	line = strstr(t, "Time-shared partitions");
	ck_assert_ptr_nonnull(line);
	ck_assert_ptr_null(strstr(line, " 40 "));
	free(t);

	t = report(ts, 5, NULL, true);
	doc = load_json(t);
	parts = json_object_get(doc, "timeshare");
	ck_assert_int_eq(json_array_size(parts), 1);
	g = json_array_get(parts, 0);
	ck_assert_str_eq(str_of(g, "partition"), "gang");
	ck_assert_int_eq(json_array_size(json_object_get(g, "running")), 3);
	ck_assert_int_eq(json_integer_value(json_array_get(
		json_object_get(g, "suspended"), 0)), 13);
	ck_assert_double_eq(json_real_value(json_object_get(g,
		"running_slowdown")), 1.1);
	g = json_array_get(json_object_get(g, "jobs"), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(g, "job_id")), 14);
	ck_assert_str_eq(str_of(g, "slice"), "running");
	ck_assert_int_eq(json_array_size(json_object_get(g, "beside")), 2);
	json_decref(doc);
	free(t);

	/* No time-shared job: no block, an empty list. */
	t = report(jobs, NJOBS, NULL, false);
	ck_assert_ptr_null(strstr(t, "Time-shared"));
	free(t);
	t = report(jobs, NJOBS, NULL, true);
	doc = load_json(t);
	ck_assert_int_eq(json_array_size(json_object_get(doc, "timeshare")), 0);
	json_decref(doc);
	free(t);
}
END_TEST

START_TEST(test_json_documented)
{
	char *man = cosched_check_read_doc("doc/cosched-status.1");
	char *t = report(jobs, NJOBS, NULL, true);
	json_t *doc = load_json(t), *j, *d;
	const char *key;
	json_t *v;

	json_object_foreach(doc, key, v)
		ck_assert_msg(strstr(man, key), "cosched-status(1) lacks %s", key);
	j = job_of(doc, 42);
	json_object_foreach(j, key, v)
		ck_assert_msg(strstr(man, key), "cosched-status(1) lacks %s", key);
	d = json_object_get(j, "decision");
	json_object_foreach(d, key, v)
		ck_assert_msg(strstr(man, key), "cosched-status(1) lacks %s", key);
	json_decref(doc);
	free(t);
	free(man);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("status");
	TCase *tc = tcase_create("status");

	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_explain);
	tcase_add_test(tc, test_unknown_job_and_empty);
	tcase_add_test(tc, test_nodes);
	tcase_add_test(tc, test_record_other_node);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_json_explain_and_hostile);
	tcase_add_test(tc, test_json_documented);
	tcase_add_test(tc, test_timeshare);
	tcase_add_test(tc, test_prometheus);
	suite_add_tcase(s, tc);
	return s;
}
