/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counters.c - event counters on a task tree (see the header).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/libcosched/io/file.h"
#include "src/libcosched/base/text.h"
#include "src/node/counters.h"
#include "src/node/counters_backend.h"

/* Null where counters_papi.c is not linked in (task/cosched,
 * cosched-sampler): counters_backend.h. */
extern const cosched_counters_ops_t cosched_counters_papi_ops
	__attribute__((weak, visibility("hidden")));

/* The PAPI backend a program loaded as a module (cosched-sampler:
 * cosched_counters_set_papi), or why there is none. */
static const cosched_counters_ops_t *papi_module;
static char papi_absent[COSCHED_ERROR_MSG_LEN] =
	"this program was built without PAPI";

void cosched_counters_set_papi(const cosched_counters_ops_t *ops,
			       const char *why_not)
{
	papi_module = ops;
	if (!ops && why_not)
		snprintf(papi_absent, sizeof(papi_absent), "%s", why_not);
}

/* Linked in first (the unit tests that count with PAPI), else the
 * module; NULL when neither. */
static const cosched_counters_ops_t *papi_ops(void)
{
	return &cosched_counters_papi_ops ? &cosched_counters_papi_ops :
					    papi_module;
}

#define REASON_MAX COSCHED_COUNTER_REASON_MAX
#define TEST_FILE_MAX (64 * 1024)
/* A number macro as a string, for a scanf width. */
#define STR_(x) #x
#define STR(x) STR_(x)

struct cosched_counters {
	cosched_counters_backend_t backend;
	int n;
	char name[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	int fd[COSCHED_COUNTERS_MAX];			/* perf; -1: none */
	char why[COSCHED_COUNTERS_MAX][REASON_MAX];	/* "" = counts */
	char test_file[COSCHED_PATH_MAX];
	void *papi;					/* papi's handle */
};

/* PAPI_ and capitals, digits, '_': the form of PAPI's presets. */
static bool preset_form(const char *name)
{
	if (strncmp(name, "PAPI_", 5) || !name[5])
		return false;
	for (const char *c = name + 5; *c; c++)
		if (!(isupper((unsigned char) *c) || isdigit((unsigned char) *c) ||
		      *c == '_'))
			return false;
	return true;
}

/* PMU::EVENT[:MASK...]: a native name as papi_native_avail prints it
 * (a PMU of letters, digits and '_'; masks may set "u=0" and the like). */
static bool native_form(const char *name)
{
	const char *sep = strstr(name, "::");

	if (!sep || sep == name || !sep[2])
		return false;
	for (const char *c = name; c < sep; c++)
		if (!(isalnum((unsigned char) *c) || *c == '_'))
			return false;
	for (const char *c = sep + 2; *c; c++)
		if (!(isalnum((unsigned char) *c) || strchr("_-.:=", *c)))
			return false;
	return true;
}

/* A name only PAPI can count (no perf name behind it). */
static bool papi_only(const char *name)
{
	return !cosched_counters_find_event(name) && (preset_form(name) || native_form(name));
}

int cosched_counters_parse(const char *field, const char *list,
			   char names[][COSCHED_COUNTER_NAME_MAX + 1], int *n,
			   cosched_error_t *err)
{
	char copy[1024], *save = NULL, *tok;
	int k = 0;

	if (strlen(list) >= sizeof(copy))
		return cosched_error_set(err, "%s: %s is too long", field,
					 COSCHED_QUOTE(list));
	snprintf(copy, sizeof(copy), "%s", list);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		tok = cosched_trim(tok);
		if (!cosched_counters_find_event(tok) && !papi_only(tok))
			return cosched_error_set(err,
				"%s: unknown event %s (known: task-clock, context-switches, cycles, instructions, cache-misses, LLC-load-misses, ..., PAPI presets PAPI_*, PAPI native names PMU::EVENT: counters.h)",
				field, COSCHED_QUOTE(tok));
		if (strlen(tok) > COSCHED_COUNTER_NAME_MAX)
			return cosched_error_set(err,
				"%s: event %s is longer than %d characters",
				field, COSCHED_QUOTE(tok),
				COSCHED_COUNTER_NAME_MAX);
		for (int i = 0; i < k; i++) {
			const char *role;

			if (!strcmp(names[i], tok))
				return cosched_error_set(err,
					"%s: event %s given twice", field,
					COSCHED_QUOTE(tok));
			/* Two counts of one thing: which one would MPKI
			 * take? */
			if ((role = cosched_counters_same_role(names[i], tok)))
				return cosched_error_set(err,
					"%s: %s and %s both count %s: give one",
					field, names[i], COSCHED_QUOTE(tok),
					role);
		}
		if (k == COSCHED_COUNTERS_MAX)
			return cosched_error_set(err,
				"%s: more than %d events", field,
				COSCHED_COUNTERS_MAX);
		snprintf(names[k++], COSCHED_COUNTER_NAME_MAX + 1, "%s", tok);
	}
	if (!k)
		return cosched_error_set(err, "%s: no event in %s", field,
					 COSCHED_QUOTE(list));
	*n = k;
	return 0;
}

/* e, named name in the reason (as the list wrote it: perf::INSTRUCTIONS
 * is e's alias). */
static int perf_open(const cosched_event_def_t *e, const char *name, pid_t pid,
		     char *why, size_t len)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = e->type;
	a.config = e->config;
	/* Every thread and process the task starts from now on. */
	a.inherit = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* User and kernel time of the job's own tasks; the hypervisor's is
	 * not the job's. */
	a.exclude_hv = 1;
	fd = (int) syscall(SYS_perf_event_open, &a, pid, -1, -1,
			   PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		return fd;
	if ((errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV) &&
	    e->type != PERF_TYPE_SOFTWARE)
		snprintf(why, len, "%s: no hardware counters here (%s)",
			 name, strerror(errno));
	else if (errno == EACCES || errno == EPERM)
		snprintf(why, len, "%s: not permitted (%s; kernel.perf_event_paranoid)",
			 name, strerror(errno));
	else
		snprintf(why, len, "%s: %s", name, strerror(errno));
	return -1;
}

cosched_counters_t *cosched_counters_attach(cosched_counters_backend_t b,
					    pid_t pid,
					    char names[][COSCHED_COUNTER_NAME_MAX + 1],
					    int n, const char *test_file,
					    cosched_error_t *err)
{
	cosched_counters_t *c;
	char all[COSCHED_ERROR_MSG_LEN] = "";
	int ok = 0;

	if (n < 1 || n > COSCHED_COUNTERS_MAX) {
		cosched_error_set(err, "counters: %d events (1..%d)", n,
				  COSCHED_COUNTERS_MAX);
		return NULL;
	}
	if (b == COSCHED_COUNTERS_TEST && (!test_file || !*test_file)) {
		cosched_error_set(err, "counters: the test backend needs a file");
		return NULL;
	}
	if (b == COSCHED_COUNTERS_PAPI && !papi_ops()) {
		cosched_error_set(err, "counters unavailable: %s", papi_absent);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		cosched_error_set(err, "counters: out of memory");
		return NULL;
	}
	c->backend = b;
	c->n = n;
	if (test_file)
		snprintf(c->test_file, sizeof(c->test_file), "%s", test_file);
	for (int i = 0; i < n; i++) {
		snprintf(c->name[i], sizeof(c->name[i]), "%s", names[i]);
		c->fd[i] = -1;
	}
	if (b == COSCHED_COUNTERS_PAPI) {
		/* One attach for all the events: PAPI keeps them in one
		 * event set on the task. */
		c->papi = papi_ops()->attach(pid, c->name, n, c->why, err);
		if (!c->papi) {
			cosched_error_prefix(err, "counters unavailable");
			free(c);
			return NULL;
		}
	}
	for (int i = 0; i < n; i++) {
		const cosched_event_def_t *e = cosched_counters_find_event(names[i]);

		if (b == COSCHED_COUNTERS_PERF) {
			if (e)
				c->fd[i] = perf_open(e, names[i], pid,
						     c->why[i], REASON_MAX);
			else if (papi_only(names[i]))
				snprintf(c->why[i], REASON_MAX,
					 "%s: a PAPI event: the perf backend does not count it (SampleBackend=papi)",
					 names[i]);
			else
				snprintf(c->why[i], REASON_MAX,
					 "%s: unknown event", names[i]);
		}
		if (c->why[i][0]) {
			size_t l = strlen(all);
			snprintf(all + l, sizeof(all) - l, "%s%s",
				 l ? "; " : "", c->why[i]);
		} else {
			ok++;
		}
	}
	if (!ok) {
		cosched_error_set(err, "counters unavailable: %s", all);
		cosched_counters_close(c);
		return NULL;
	}
	return c;
}

const char *cosched_counters_name(const cosched_counters_t *c, int i)
{
	return i >= 0 && i < c->n ? c->name[i] : NULL;
}

const char *cosched_counters_unavailable(const cosched_counters_t *c, int i)
{
	if (i < 0 || i >= c->n)
		return "no such event";
	return c->why[i][0] ? c->why[i] : NULL;
}

/* The test backend: "NAME VALUE" lines; a name absent reads as invalid. */
static int test_read(cosched_counters_t *c, uint64_t *values, bool *valid,
		     cosched_error_t *err)
{
	char *text = cosched_read_file(c->test_file, TEST_FILE_MAX, NULL, err);
	int got = 0;

	if (!text)
		return -1;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char name[COSCHED_COUNTER_NAME_MAX + 1];
		uint64_t v;

		if (sscanf(line, "%" STR(COSCHED_COUNTER_NAME_MAX) "s %"
			   SCNu64, name, &v) != 2)
			continue;
		for (int i = 0; i < c->n; i++)
			if (!c->why[i][0] && !strcmp(name, c->name[i]) &&
			    !valid[i]) {
				values[i] = v;
				valid[i] = true;
				got++;
			}
	}
	free(text);
	return got;
}

int cosched_counters_read(cosched_counters_t *c, uint64_t *values,
			  bool *valid, cosched_error_t *err)
{
	int got = 0;

	for (int i = 0; i < c->n; i++) {
		values[i] = 0;
		valid[i] = false;
	}
	if (c->backend == COSCHED_COUNTERS_TEST)
		got = test_read(c, values, valid, err);
	else if (c->backend == COSCHED_COUNTERS_PAPI)
		got = papi_ops()->read(c->papi, values, valid);
	else
		for (int i = 0; i < c->n; i++) {
			uint64_t v[3];	/* value, enabled, running */

			if (c->fd[i] < 0 ||
			    read(c->fd[i], v, sizeof(v)) != (ssize_t) sizeof(v))
				continue;
			/* Multiplexed: scale to the time it was enabled. */
			if (v[2] && v[2] < v[1])
				v[0] = (uint64_t) ((double) v[0] *
						   ((double) v[1] / (double) v[2]));
			values[i] = v[0];
			valid[i] = true;
			got++;
		}
	if (got <= 0) {
		if (got == 0)
			cosched_error_set(err, "counters: no event could be read");
		return -1;
	}
	return got;
}

void cosched_counters_close(cosched_counters_t *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	if (c->papi)
		papi_ops()->close(c->papi);
	free(c);
}

int cosched_counters_backend_parse(const char *spec,
				   cosched_counters_backend_t *b,
				   const char **test_file, char *what,
				   size_t len, cosched_error_t *err)
{
	cosched_error_t why;
	const cosched_counters_ops_t *papi = papi_ops();

	*test_file = NULL;
	if (!strcmp(spec, "perf")) {
		*b = COSCHED_COUNTERS_PERF;
		snprintf(what, len, "perf");
	} else if (!strcmp(spec, "papi")) {
		/* Without PAPI each attach says so: a state in every record,
		 * as a missing PMU is. */
		*b = COSCHED_COUNTERS_PAPI;
		if (papi)
			snprintf(what, len, "papi");
		else
			snprintf(what, len, "papi (%s)", papi_absent);
	} else if (!strcmp(spec, "auto")) {
		/* PAPI only where it can do what perf does: attach to a task
		 * with inheritance. */
		if (papi && !papi->usable(&why)) {
			*b = COSCHED_COUNTERS_PAPI;
			snprintf(what, len, "papi");
		} else {
			*b = COSCHED_COUNTERS_PERF;
			snprintf(what, len, "perf (auto: %s)",
				 papi ? why.msg : papi_absent);
		}
	} else if (!strncmp(spec, "test:", 5) && spec[5]) {
		*b = COSCHED_COUNTERS_TEST;
		*test_file = spec + 5;
		snprintf(what, len, "test");
	} else {
		return cosched_error_set(err,
			"%s: expected perf, papi, auto or test:FILE",
			COSCHED_QUOTE(spec));
	}
	return 0;
}
