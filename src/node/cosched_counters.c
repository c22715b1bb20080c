/*
 * cosched_counters.c - event counters on a task tree (see the header).
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/libcosched/cosched_file.h"
#include "src/libcosched/cosched_text.h"
#include "cosched_counters.h"

#define REASON_MAX 160
#define TEST_FILE_MAX (64 * 1024)

typedef struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} event_def_t;

#define HW_CACHE(cache, op, result) \
	((uint64_t) (cache) | ((uint64_t) (op) << 8) | \
	 ((uint64_t) (result) << 16))

static const event_def_t events[] = {
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "context-switches", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "LLC-loads", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
		   PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "LLC-load-misses", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
		   PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "LLC-stores", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_WRITE,
		   PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "LLC-store-misses", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_WRITE,
		   PERF_COUNT_HW_CACHE_RESULT_MISS) },
};
#define N_EVENTS (sizeof(events) / sizeof(events[0]))

struct cosched_counters {
	cosched_counters_backend_t backend;
	int n;
	char name[COSCHED_COUNTERS_MAX][COSCHED_COUNTER_NAME_MAX + 1];
	int fd[COSCHED_COUNTERS_MAX];			/* perf; -1: none */
	char why[COSCHED_COUNTERS_MAX][REASON_MAX];	/* "" = counts */
	char test_file[COSCHED_PATH_MAX];
};

static const event_def_t *find_event(const char *name)
{
	for (size_t i = 0; i < N_EVENTS; i++)
		if (!strcmp(events[i].name, name))
			return &events[i];
	return NULL;
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
		if (!find_event(tok))
			return cosched_error_set(err,
				"%s: unknown event %s (known: task-clock, context-switches, cycles, instructions, cache-misses, LLC-load-misses, ...: cosched_counters.h)",
				field, COSCHED_QUOTE(tok));
		for (int i = 0; i < k; i++)
			if (!strcmp(names[i], tok))
				return cosched_error_set(err,
					"%s: event %s given twice", field,
					COSCHED_QUOTE(tok));
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

static int perf_open(const event_def_t *e, pid_t pid, char *why, size_t len)
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
			 e->name, strerror(errno));
	else if (errno == EACCES || errno == EPERM)
		snprintf(why, len, "%s: not permitted (%s; kernel.perf_event_paranoid)",
			 e->name, strerror(errno));
	else
		snprintf(why, len, "%s: %s", e->name, strerror(errno));
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
		const event_def_t *e = find_event(names[i]);

		snprintf(c->name[i], sizeof(c->name[i]), "%s", names[i]);
		c->fd[i] = -1;
		if (!e) {
			snprintf(c->why[i], REASON_MAX, "%s: unknown event",
				 names[i]);
		} else if (b == COSCHED_COUNTERS_PERF) {
			c->fd[i] = perf_open(e, pid, c->why[i], REASON_MAX);
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

int cosched_counters_count(const cosched_counters_t *c)
{
	return c->n;
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

		if (sscanf(line, "%31s %" SCNu64, name, &v) != 2)
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
	free(c);
}
