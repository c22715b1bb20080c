/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counters_papi.c - the PAPI backend of the counters
 * (counters.h), through PAPI's perf_event component.
 *
 * Not part of libcosched_node (counters_backend.h says why):
 * cosched-sampler loads it as a module, cosched_counters_papi.so, when
 * SampleBackend asks for PAPI (counters_module.c), and the unit
 * tests that count with PAPI compile it in; counters.c reaches it
 * through cosched_counters_papi_ops.
 *
 * Each task gets one event set on the perf_event component, set up as the
 * perf backend opens its counters: attached to the task's pid, counting
 * user and kernel time, inherited by every thread and process the task
 * starts from then on, and multiplexed by the kernel (each event a group
 * of its own, scaled by the time it was on a counter), so that an event
 * the PMU cannot fit beside the others does not stop them.  The events
 * are added one at a time: PAPI takes back an event it cannot add, so an
 * event this machine lacks becomes a reason and the others count.  perf's
 * own names are added as perf::NAME, the same kernel events.
 * Inheritance also keeps PAPI 7.0 off rdpmc for these event sets, which
 * reads wrong values for a task other than the caller (fixed in PAPI 7.1).
 *
 * PAPI 7.0's perf_event component checks that it may attach, inherit,
 * set the counting domain or multiplex by opening a hardware instructions
 * counter on the task (check_permissions() in its perf_event.c).  On a
 * machine without a PMU (most VMs) that open fails, so PAPI cannot attach
 * to a task at all, not even for software events: usable() and every
 * attach say so, and SampleBackend=auto counts with perf there.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <papi.h>

#include "src/node/counters_backend.h"

/* PAPI, once per process: 0 not tried yet, 1 ready, -1 not (lib_why). */
static int lib_state;
static int lib_cidx;			/* the perf_event component */
static char lib_why[COSCHED_ERROR_MSG_LEN];

typedef struct {
	int es;					/* the task's event set */
	int added;				/* events in it */
	int slot[COSCHED_COUNTERS_MAX];		/* event i's place in a
						 * read; -1: not added */
} papi_task_t;

static int lib_init(cosched_error_t *err)
{
	const PAPI_component_info_t *ci;
	int rc;

	if (!lib_state) {
		lib_state = -1;
		rc = PAPI_library_init(PAPI_VER_CURRENT);
		if (rc != PAPI_VER_CURRENT)
			snprintf(lib_why, sizeof(lib_why),
				 "PAPI_library_init: %s",
				 rc > 0 ? "libpapi is not the version papi.h was (rebuild cosched)" :
				 PAPI_strerror(rc));
		else if ((lib_cidx = PAPI_get_component_index("perf_event")) < 0 ||
			 !(ci = PAPI_get_component_info(lib_cidx)))
			snprintf(lib_why, sizeof(lib_why),
				 "PAPI has no perf_event component");
		else if (ci->disabled)
			snprintf(lib_why, sizeof(lib_why),
				 "PAPI's perf_event component is disabled: %.400s",
				 ci->disabled_reason);
		else if ((rc = PAPI_multiplex_init()) != PAPI_OK)
			snprintf(lib_why, sizeof(lib_why),
				 "PAPI_multiplex_init: %s", PAPI_strerror(rc));
		else
			lib_state = 1;
	}
	if (lib_state < 0)
		return cosched_error_set(err, "%s", lib_why);
	return 0;
}

static void destroy(int *es)
{
	long long v[COSCHED_COUNTERS_MAX];

	if (*es == PAPI_NULL)
		return;
	PAPI_stop(*es, v);	/* PAPI_ENOTRUN when it never started */
	PAPI_cleanup_eventset(*es);
	PAPI_destroy_eventset(es);
	*es = PAPI_NULL;
}

/*
 * An event set on pid, attached with inheritance, user and kernel,
 * multiplexed, with no event yet.  -1 with err naming what (the task) and
 * the call that failed; where PAPI's permission check is what failed (no
 * PMU), err says so.
 */
static int set_up(pid_t pid, const char *what, int *es, cosched_error_t *err)
{
	PAPI_option_t o;
	const char *call;
	int rc;

	*es = PAPI_NULL;
	call = "PAPI_create_eventset";
	if ((rc = PAPI_create_eventset(es)) != PAPI_OK) {
		*es = PAPI_NULL;
		goto fail;
	}
	call = "PAPI_assign_eventset_component";
	if ((rc = PAPI_assign_eventset_component(*es, lib_cidx)) != PAPI_OK)
		goto fail;
	/* The task's pid before anything is added: the events open on it. */
	call = "PAPI_attach";
	if ((rc = PAPI_attach(*es, (unsigned long) pid)) != PAPI_OK)
		goto fail;
	/* As the perf backend: the job's user and kernel time, not the
	 * hypervisor's. */
	memset(&o, 0, sizeof(o));
	o.domain.eventset = *es;
	o.domain.domain = PAPI_DOM_USER | PAPI_DOM_KERNEL;
	call = "PAPI_set_opt(PAPI_DOMAIN)";
	if ((rc = PAPI_set_opt(PAPI_DOMAIN, &o)) != PAPI_OK)
		goto fail;
	/* Every thread and process the task starts from now on. */
	memset(&o, 0, sizeof(o));
	o.inherit.eventset = *es;
	o.inherit.inherit = PAPI_INHERIT_ALL;
	call = "PAPI_set_opt(PAPI_INHERIT)";
	if ((rc = PAPI_set_opt(PAPI_INHERIT, &o)) != PAPI_OK)
		goto fail;
	call = "PAPI_set_multiplex";
	if ((rc = PAPI_set_multiplex(*es)) != PAPI_OK)
		goto fail;
	return 0;
fail:
	destroy(es);
	return cosched_error_set(err, "PAPI cannot attach to %s: %s: %s%s",
		what, call, PAPI_strerror(rc),
		rc == PAPI_ENOEVNT || rc == PAPI_ENOSUPP ?
		" (PAPI's perf_event component checks with a hardware instructions counter: none here)" :
		rc == PAPI_EPERM ? " (kernel.perf_event_paranoid)" : "");
}

static int papi_usable(cosched_error_t *err)
{
	int es;

	if (lib_init(err))
		return -1;
	/* What every attach does, on this process. */
	if (set_up(getpid(), "a task here", &es, err))
		return -1;
	destroy(&es);
	return 0;
}

/* name as PAPI knows it: perf's own names are PAPI's perf::NAME. */
static void papi_name(const char *name, char *out, size_t len)
{
	const char *role = cosched_counters_role(name);

	if (!role || strcmp(role, name)) {
		snprintf(out, len, "%s", name);
		return;
	}
	snprintf(out, len, "perf::%s", name);
	for (char *c = out + strlen("perf::"); *c; c++)
		*c = (char) toupper((unsigned char) *c);
}

/* Add one event; "" into why when it counts, else the reason. */
static void add_event(papi_task_t *t, int i, const char *name, char *why,
		      size_t len)
{
	char pname[COSCHED_COUNTER_NAME_MAX + 8];
	int code, rc;

	papi_name(name, pname, sizeof(pname));
	t->slot[i] = -1;
	rc = PAPI_event_name_to_code(pname, &code);
	if (rc != PAPI_OK) {
		snprintf(why, len, "%s: PAPI has no such event (%s: %s)", name,
			 pname, PAPI_strerror(rc));
		return;
	}
	/* A preset PAPI knows but has no native events for on this CPU. */
	if (IS_PRESET(code) && (rc = PAPI_query_event(code)) != PAPI_OK) {
		snprintf(why, len, "%s: no such counter on this CPU (PAPI_query_event: %s)",
			 name, PAPI_strerror(rc));
		return;
	}
	rc = PAPI_add_event(t->es, code);
	if (rc == PAPI_OK) {
		why[0] = '\0';
		t->slot[i] = t->added++;
	} else if (rc == PAPI_ENOEVNT) {
		/* The kernel refused it: ENOENT, as perf_event_open gives
		 * for a hardware event without a PMU. */
		snprintf(why, len, "%s: no hardware counters here (PAPI_add_event %s: %s)",
			 name, pname, PAPI_strerror(rc));
	} else if (rc == PAPI_EPERM) {
		snprintf(why, len, "%s: not permitted (PAPI_add_event %s: %s; kernel.perf_event_paranoid)",
			 name, pname, PAPI_strerror(rc));
	} else {
		snprintf(why, len, "%s: PAPI_add_event %s: %s", name, pname,
			 PAPI_strerror(rc));
	}
}

static void *papi_attach(pid_t pid, char names[][COSCHED_COUNTER_NAME_MAX + 1],
			 int n, char why[][COSCHED_COUNTER_REASON_MAX],
			 cosched_error_t *err)
{
	papi_task_t *t;
	char what[32];
	int rc;

	if (lib_init(err))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		cosched_error_set(err, "out of memory");
		return NULL;
	}
	for (int i = 0; i < COSCHED_COUNTERS_MAX; i++)
		t->slot[i] = -1;
	snprintf(what, sizeof(what), "task %d", (int) pid);
	if (set_up(pid, what, &t->es, err)) {
		free(t);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		add_event(t, i, names[i], why[i], COSCHED_COUNTER_REASON_MAX);
	/* None added: each event says why, and the caller, which gathers
	 * the reasons, closes the handle. */
	if (!t->added)
		return t;
	rc = PAPI_start(t->es);
	if (rc != PAPI_OK) {
		cosched_error_set(err, "PAPI_start on task %d: %s", (int) pid,
				  PAPI_strerror(rc));
		destroy(&t->es);
		free(t);
		return NULL;
	}
	return t;
}

static int papi_read(void *h, uint64_t *values, bool *valid)
{
	papi_task_t *t = h;
	long long v[COSCHED_COUNTERS_MAX];
	int got = 0;

	if (PAPI_read(t->es, v) != PAPI_OK)
		return -1;
	for (int i = 0; i < COSCHED_COUNTERS_MAX; i++) {
		if (t->slot[i] < 0)
			continue;
		/* Scaled by the time each event was on a counter (the
		 * kernel's multiplexing), as the perf backend does. */
		values[i] = v[t->slot[i]] > 0 ? (uint64_t) v[t->slot[i]] : 0;
		valid[i] = true;
		got++;
	}
	return got;
}

static void papi_close(void *h)
{
	papi_task_t *t = h;

	destroy(&t->es);
	free(t);
}

const cosched_counters_ops_t cosched_counters_papi_ops = {
	.usable = papi_usable,
	.attach = papi_attach,
	.read = papi_read,
	.close = papi_close,
};

/* The module's one export (counters_module.c).  Not the table
 * itself: the module's copy of counters.c declares the table
 * hidden, and the linker keeps the strictest visibility it sees. */
const cosched_counters_ops_t *cosched_counters_papi_module(void)
{
	return &cosched_counters_papi_ops;
}
