/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * values.c - the values of cosched.conf that are small
 * languages of their own: event lists and the CPUs they are for
 * (SampleEvents, SampleEventsFor), topology sources, DebugFlags and
 * ProfileShare.  conf/conf.c holds the keys and the file.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/libcosched/base/appname.h"
#include "src/libcosched/conf/conf.h"
#include "src/libcosched/conf/conf_internal.h"
#include "src/libcosched/conf/events.h"
#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"

static const char *const debug_flag_names[] = { "Placement", "Check",
						"Timing" };
/* SampleEventsFor='s vendors: /proc/cpuinfo's vendor_id of the x86 server
 * parts; refusing any other catches a misspelt one, which would
 * otherwise never match. */
static const char *const cpu_vendors[] = { "GenuineIntel", "AuthenticAMD",
					   "HygonGenuine", "CentaurHauls" };
#define N_CPU_VENDORS (int) (sizeof(cpu_vendors) / sizeof(cpu_vendors[0]))
/* CPU families and models (cpuid gives 8 and 8 bits with extensions). */
static const cosched_range_t cpu_number_range = { 0.0, 65535.0, false };
#define N_DEBUG_FLAGS (int) (sizeof(debug_flag_names) / sizeof(debug_flag_names[0]))

/* ProfileShare: "*", or application names separated by single commas. */
int conf_profile_share_check(const char *field, const char *value,
			       cosched_error_t *err)
{
	char name[COSCHED_APP_NAME_MAX + 1];

	if (!strcmp(value, "*"))
		return 0;
	if (strlen(value) >= COSCHED_PROFILE_SHARE_MAX)
		return cosched_error_set(err, "%s: %s is too long", field,
					 COSCHED_QUOTE(value));
	for (const char *a = value; ; a++) {
		size_t n = strcspn(a, ",");

		if (!n || n > COSCHED_APP_NAME_MAX)
			return cosched_error_set(err,
				"%s: invalid value %s (expected * or application names separated by single commas)",
				field, COSCHED_QUOTE(value));
		memcpy(name, a, n);
		name[n] = '\0';
		if (cosched_app_name_check(field, name, err))
			return -1;
		a += n;
		if (!*a)
			return 0;
	}
}

bool cosched_conf_profile_shared(const cosched_conf_t *conf, const char *app)
{
	const char *s = conf->profile_share;
	size_t n = app ? strlen(app) : 0;

	if (!strcmp(s, "*"))
		return true;
	if (!n)
		return false;
	for (const char *a = s; *a; ) {
		size_t an = strcspn(a, ",");

		if (an == n && !strncmp(a, app, n))
			return true;
		a += an;
		if (*a)
			a++;
	}
	return false;
}

#define SYNTHETIC_PREFIX "synthetic:"
#define XML_PREFIX "xml:"

/* One level of an hwloc synthetic description: TYPE:COUNT or a memory
 * child [TYPE], either with (ATTRIBUTES); TYPE letters and digits. */
static bool synthetic_level(const char *t, size_t n, bool *counted)
{
	size_t i = 0, name;
	bool bracket = t[0] == '[';

	if (bracket) {
		if (n < 3 || t[n - 1] != ']')
			return false;
		t++;
		n -= 2;
	}
	while (i < n && isalnum((unsigned char) t[i]))
		i++;
	if (!(name = i) || !isalpha((unsigned char) t[0]))
		return false;
	if (!bracket) {
		size_t digits;

		if (i >= n || t[i++] != ':')
			return false;
		for (digits = 0; i < n && isdigit((unsigned char) t[i]);
		     i++, digits++)
			;
		if (!digits || t[i - digits] == '0')
			return false;
		*counted = true;
	}
	if (i < n && t[i] == '(') {
		while (i < n && t[i] != ')')
			i++;
		if (i++ >= n)
			return false;
	}
	return i == n;
}

/* What hwloc_topology_set_synthetic takes, as far as its form goes:
 * blank-separated levels, at least one TYPE:COUNT.  Which types and
 * counts hwloc accepts the node says (cosched_topology_load). */
static bool synthetic_check(const char *desc)
{
	bool counted = false;

	while (*desc) {
		size_t n = strcspn(desc, " \t");

		if (n && !synthetic_level(desc, n, &counted))
			return false;
		desc += n;
		desc += strspn(desc, " \t");
	}
	return counted;
}

int cosched_topology_source_check(const char *field, const char *source,
				  cosched_error_t *err)
{
	size_t len = strlen(source);

	if (!len || len > COSCHED_TOPOLOGY_SOURCE_MAX)
		return cosched_error_set(err,
			"%s: %s is empty or longer than %d bytes", field,
			COSCHED_QUOTE(source), COSCHED_TOPOLOGY_SOURCE_MAX);
	for (size_t i = 0; i < len; i++)
		if (source[i] < 0x20 || source[i] > 0x7e)
			return cosched_error_set(err,
				"%s: %s: only printable ASCII", field,
				COSCHED_QUOTE(source));
	if (!strcmp(source, COSCHED_TOPOLOGY_SYSTEM))
		return 0;
	if (!strncmp(source, SYNTHETIC_PREFIX, strlen(SYNTHETIC_PREFIX)) &&
	    synthetic_check(source + strlen(SYNTHETIC_PREFIX)))
		return 0;
	if (!strncmp(source, XML_PREFIX, strlen(XML_PREFIX)) &&
	    !cosched_dir_path_check(field, source + strlen(XML_PREFIX),
				    COSCHED_TOPOLOGY_SOURCE_MAX, NULL))
		return 0;
	return cosched_error_set(err,
		"%s: invalid value %s (expected system, synthetic:DESCRIPTION or xml:/ABSOLUTE/PATH)",
		field, COSCHED_QUOTE(source));
}

/* DebugFlags=Placement,Check,Timing (any case; "" is refused earlier). */
int conf_debug_flags_parse(const char *field, const char *value,
			     unsigned *out, cosched_error_t *err)
{
	char *copy = strdup(value), *save = NULL, *tok;
	unsigned flags = 0;

	if (!copy)
		return cosched_error_set(err, "%s: out of memory", field);
	/* strtok_r would skip an empty item: "Placement,,Check" and ","
	 * are mistakes, said as such. */
	if (value[0] == ',' || strstr(value, ",,") ||
	    value[strlen(value) - 1] == ',') {
		free(copy);
		return cosched_error_set(err,
			"%s: invalid value %s (an empty flag: expected flags separated by single commas)",
			field, COSCHED_QUOTE(value));
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int i = cosched_name_parse(field, "flag", debug_flag_names, 0,
					   N_DEBUG_FLAGS, cosched_trim(tok),
					   true, err);
		if (i < 0) {
			free(copy);
			return -1;
		}
		flags |= 1u << i;
	}
	free(copy);
	*out = flags;
	return 0;
}

/*
 * An event list's form (SampleEvents, SampleEventsFor): names of letters,
 * digits and "-_:.=" (perf's, PAPI's presets and native names with their
 * masks) separated by single commas.  Names only: the node knows which
 * exist (cosched-sampler refuses an unknown one, naming it, at each step).
 */
/* The two names a (an bytes) and b (bn bytes) of value's list refused
 * when they count one thing (cosched_counters_same_role). */
static int conf_events_same_role(const char *field, const char *value,
				 const char *a, size_t an, const char *b,
				 size_t bn, cosched_error_t *err)
{
	/* The list is shorter than COSCHED_SAMPLE_EVENTS_MAX: so is each. */
	char na[COSCHED_SAMPLE_EVENTS_MAX], nb[COSCHED_SAMPLE_EVENTS_MAX];
	const char *role;

	snprintf(na, sizeof(na), "%.*s", (int) an, a);
	snprintf(nb, sizeof(nb), "%.*s", (int) bn, b);
	if (!(role = cosched_counters_same_role(na, nb)))
		return 0;
	return cosched_error_set(err,
		"%s: %s and %s both count %s in %s: give one", field,
		COSCHED_QUOTE(na), COSCHED_QUOTE(nb), role,
		COSCHED_QUOTE(value));
}

int conf_events_check(const char *field, const char *value,
			const char *list, cosched_error_t *err)
{
	for (const char *c = list; *c; c++)
		if (!(isalnum((unsigned char) *c) || strchr("-_:.=,", *c)) ||
		    (*c == ',' && (c == list || c[1] == ',' || !c[1])))
			return cosched_error_set(err,
				"%s: invalid value %s (expected event names separated by commas)",
				field, COSCHED_QUOTE(value));
	if (!*list)
		return cosched_error_set(err,
			"%s: invalid value %s (no event)", field,
			COSCHED_QUOTE(value));
	if (strlen(list) >= COSCHED_SAMPLE_EVENTS_MAX)
		return cosched_error_set(err, "%s: %s is too long", field,
					 COSCHED_QUOTE(value));
	/* Said here, once, rather than by every step's sampler. */
	for (const char *a = list; *a; ) {
		size_t an = strcspn(a, ","), count = 1;

		for (const char *b = a + an; *b; ) {
			size_t bn;

			b++;
			bn = strcspn(b, ",");
			if (bn == an && !strncmp(a, b, an))
				return cosched_error_set(err,
					"%s: event \"%.*s\" given twice in %s",
					field, (int) (an > 64 ? 64 : an), a,
					COSCHED_QUOTE(value));
			if (conf_events_same_role(field, value, a, an, b, bn,
						  err))
				return -1;
			count++;
			b += bn;
		}
		if (a == list && count > COSCHED_SAMPLE_EVENTS_COUNT_MAX)
			return cosched_error_set(err,
				"%s: %zu events in %s: at most %d",
				field, count, COSCHED_QUOTE(value),
				COSCHED_SAMPLE_EVENTS_COUNT_MAX);
		a += an;
		if (*a)
			a++;
	}
	return 0;
}

/* A CPU family or model of SampleEventsFor: a decimal number, as
 * /proc/cpuinfo writes it. */
static int cpu_number(const char *field, const char *value, const char *what,
		      const char *text, long *out, cosched_error_t *err)
{
	if (cosched_parse_long(text, out) || *out < cpu_number_range.lo ||
	    *out > cpu_number_range.hi)
		return cosched_error_set(err,
			"%s: invalid value %s (CPU %s %s: expected a decimal number from 0 to 65535, as /proc/cpuinfo gives it)",
			field, COSCHED_QUOTE(value), what, COSCHED_QUOTE(text));
	return 0;
}

/* A SampleEventsFor value, VENDOR[-FAMILY[-MODEL]]:LIST, into e. */
int conf_sample_events_for_parse(const char *field, const char *value,
				   cosched_sample_events_for_t *e,
				   cosched_error_t *err)
{
	const char *colon = strchr(value, ':');
	char cpu[64], *family, *model;
	int v;

	if (!colon || colon == value ||
	    (size_t) (colon - value) >= sizeof(cpu))
		return cosched_error_set(err,
			"%s: invalid value %s (expected VENDOR[-FAMILY[-MODEL]]:EVENT[,EVENT...])",
			field, COSCHED_QUOTE(value));
	memset(e, 0, sizeof(*e));
	snprintf(cpu, sizeof(cpu), "%.*s", (int) (colon - value), value);
	family = strchr(cpu, '-');
	model = family ? strchr(family + 1, '-') : NULL;
	if (family)
		*family++ = '\0';
	if (model)
		*model++ = '\0';
	for (v = 0; v < N_CPU_VENDORS; v++)
		if (!strcasecmp(cpu, cpu_vendors[v]))
			break;
	if (v == N_CPU_VENDORS)
		return cosched_error_set(err,
			"%s: invalid value %s (CPU vendor %s: expected GenuineIntel, AuthenticAMD, HygonGenuine or CentaurHauls)",
			field, COSCHED_QUOTE(value), COSCHED_QUOTE(cpu));
	snprintf(e->vendor, sizeof(e->vendor), "%s", cpu_vendors[v]);
	e->family = e->model = -1;
	if (family && cpu_number(field, value, "family", family, &e->family,
				 err))
		return -1;
	if (model && cpu_number(field, value, "model", model, &e->model, err))
		return -1;
	if (conf_events_check(field, value, colon + 1, err))
		return -1;
	snprintf(e->events, sizeof(e->events), "%s", colon + 1);
	return 0;
}

/* The entry of conf for e's CPU, or -1. */
int conf_sample_events_for_find(const cosched_conf_t *conf,
				  const cosched_sample_events_for_t *e)
{
	for (int i = 0; i < conf->n_sample_events_for; i++) {
		const cosched_sample_events_for_t *o = &conf->sample_events_for[i];
		if (!strcmp(o->vendor, e->vendor) && o->family == e->family &&
		    o->model == e->model)
			return i;
	}
	return -1;
}

/*
 * SampleEventsFor: the list of one CPU, set over conf's current values
 * as every key is (a CPU that has a list gets this one, so a file parsed
 * again changes nothing); two lines for one CPU in one file are refused
 * by cosched_conf_parse_string().
 */
int conf_sample_events_for_set(cosched_conf_t *conf, const char *field,
			     const char *value, cosched_error_t *err)
{
	cosched_sample_events_for_t e;
	int i;

	if (conf_sample_events_for_parse(field, value, &e, err))
		return -1;
	i = conf_sample_events_for_find(conf, &e);
	if (i < 0) {
		if (conf->n_sample_events_for == COSCHED_SAMPLE_EVENTS_FOR_MAX)
			return cosched_error_set(err, "%s: more than %d CPUs",
						 field,
						 COSCHED_SAMPLE_EVENTS_FOR_MAX);
		i = conf->n_sample_events_for++;
	}
	conf->sample_events_for[i] = e;
	return 0;
}

const char *cosched_conf_sample_events(const cosched_conf_t *conf,
				       const char *vendor, long family,
				       long model, char *which, size_t len)
{
	const cosched_sample_events_for_t *best = NULL;
	int best_score = 0;

	for (int i = 0; vendor && i < conf->n_sample_events_for; i++) {
		const cosched_sample_events_for_t *e = &conf->sample_events_for[i];
		int score;

		if (strcmp(e->vendor, vendor) ||
		    (e->family >= 0 && e->family != family) ||
		    (e->model >= 0 && e->model != model))
			continue;
		/* A model names more than a family, which names more than
		 * a vendor (an entry per CPU: no ties). */
		score = 1 + (e->family >= 0) + (e->model >= 0);
		if (score > best_score) {
			best = e;
			best_score = score;
		}
	}
	if (!best) {
		if (which)
			snprintf(which, len, "SampleEvents");
		return conf->sample_events;
	}
	if (which) {
		int k = snprintf(which, len, "SampleEventsFor=%s", best->vendor);
		if (best->family >= 0 && k > 0 && (size_t) k < len)
			k += snprintf(which + k, len - (size_t) k, "-%ld",
				      best->family);
		if (best->model >= 0 && k > 0 && (size_t) k < len)
			snprintf(which + k, len - (size_t) k, "-%ld",
				 best->model);
	}
	return best->events;
}
