/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decision_parse.c - the decision record's strict parser: the
 * fields through the one key=value codec (base/kv.h), each value in
 * the record's one written form (model/decision_internal.h), the
 * version by the rolling-upgrade rule (cosched(8) UPGRADE).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/model/decision_internal.h"
#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/text.h"

static int source_parse(const char *value, cosched_class_source_t *out,
			cosched_error_t *err)
{
	const char *names[COSCHED_CLASS_FROM_COUNT];
	int i;

	for (i = 0; i < COSCHED_CLASS_FROM_COUNT; i++)
		names[i] = cosched_class_source_name((cosched_class_source_t) i);
	i = cosched_name_parse("source", "value", names, 0,
			       COSCHED_CLASS_FROM_COUNT, value, false, err);
	if (i < 0)
		return -1;
	*out = (cosched_class_source_t) i;
	return 0;
}

/* performance, edp, energy ("default" is the unset policy: omitted). */
static int power_parse(const char *value, cosched_power_policy_t *out,
		       cosched_error_t *err)
{
	const char *names[COSCHED_POWER_COUNT];
	int i;

	for (i = 0; i < COSCHED_POWER_COUNT; i++)
		names[i] = cosched_power_policy_name((cosched_power_policy_t) i);
	i = cosched_name_parse("power", "value", names,
			       COSCHED_POWER_PERFORMANCE, COSCHED_POWER_COUNT,
			       value, false, err);
	if (i < 0)
		return -1;
	*out = (cosched_power_policy_t) i;
	return 0;
}

/* ---- parsing ------------------------------------------------------------ */

/* What a parse works on: the line, copied so values can be terminated in
 * place, and the record being built (too large for a daemon thread's
 * stack to be careless with). */
typedef struct {
	char line[COSCHED_DECISION_TEXT_MAX];
	cosched_decision_t d;
	bool nodes_set;		/* a node list was read: the others match */
	cosched_decision_compat_t compat;
} parse_t;

/* A name a newer release may give a policy: a letter, then [a-z0-9_],
 * at most COSCHED_DECISION_POLICY_NAME_MAX bytes. */
static bool newer_policy_name_ok(const char *value)
{
	return value[0] >= 'a' && value[0] <= 'z' &&
	       cosched_decision_word_ok(value, strlen(value),
					COSCHED_DECISION_POLICY_NAME_MAX);
}

/* A policy of this release, or, in a record of a newer minor, one added
 * since (COSCHED_DECISION_POLICY_NEWER): the node enforces the record's
 * cores, memory and frequency whatever policy chose them. */
static int policy_parse(parse_t *ps, const char *value, cosched_error_t *err)
{
	cosched_decision_t *d = &ps->d;

	if (!cosched_policy_parse("policy", value, COSCHED_POLICY_EXACT,
				  &d->policy, err)) {
		d->newer_policy[0] = '\0';
		return 0;
	}
	if (!cosched_kv_version_newer_minor(ps->compat.version,
					    cosched_decision_own_version()) ||
	    !newer_policy_name_ok(value))
		return -1;
	if (err)
		cosched_error_clear(err);
	d->policy = COSCHED_DECISION_POLICY_NEWER;
	memcpy(d->newer_policy, value, strlen(value) + 1);
	return 0;
}

/* sockets=, cores= or numa=: "NODE:LIST;NODE:LIST". */
static int parse_nodes(parse_t *ps, int key, char *value, cosched_error_t *err)
{
	cosched_decision_t *d = &ps->d;
	const char *k = cosched_decision_key_names[key];
	int count = 0;
	bool any = false;
	char *entry = value;

	for (;;) {
		char *semi = strchr(entry, ';'), *colon;
		cosched_decision_node_t *node;
		cosched_idset_t *set;
		size_t n;

		if (semi)
			*semi = '\0';
		colon = strchr(entry, ':');
		n = colon ? (size_t) (colon - entry) : strlen(entry);
		if (!colon || !cosched_decision_node_name_ok(entry, n))
			return cosched_error_set(err,
				"%s: invalid node name in %s (expected NODE:LIST, NODE of [A-Za-z0-9._-], 1 to %d bytes)",
				k, COSCHED_QUOTE(entry),
				COSCHED_DECISION_NODE_NAME_MAX);
		if (count >= COSCHED_DECISION_NODES_MAX)
			return cosched_error_set(err,
				"%s: more than %d nodes (at %s)", k,
				COSCHED_DECISION_NODES_MAX,
				COSCHED_QUOTE(entry));
		if (!ps->nodes_set) {
			if (cosched_decision_node_find(d, entry, n) >= 0)
				return cosched_error_set(err,
					"%s: node listed twice (at %s)", k,
					COSCHED_QUOTE(entry));
			node = &d->nodes[d->nnodes++];
			memset(node, 0, sizeof(*node));
			memcpy(node->name, entry, n);
			node->name[n] = '\0';
		} else {
			if (count >= d->nnodes || strlen(d->nodes[count].name) != n ||
			    memcmp(d->nodes[count].name, entry, n))
				return cosched_error_set(err,
					"%s: node %d is not %s, as in the key before (at %s)",
					k, count + 1,
					count < d->nnodes ? d->nodes[count].name :
							    "(none)",
					COSCHED_QUOTE(entry));
			node = &d->nodes[count];
		}
		set = key == K_SOCKETS ? &node->sockets :
		      key == K_CORES ? &node->cores : &node->numa;
		if (cosched_idset_parse_in(k, entry, colon + 1, set, err))
			return -1;
		any = any || !cosched_idset_empty(set);
		count++;
		if (!semi)
			break;
		*semi = ';';
		entry = semi + 1;
	}
	if (ps->nodes_set && count != d->nnodes)
		return cosched_error_set(err,
			"%s: %d nodes, the key before lists %d (in %s)", k,
			count, d->nnodes, COSCHED_QUOTE(value));
	if (!any)
		return cosched_error_set(err,
			"%s: every list is empty in %s (the key is omitted then)",
			k, COSCHED_QUOTE(value));
	ps->nodes_set = true;
	return 0;
}

/* reason="...": the codec checked the quoting and unescaped it; this
 * key's own rules are the rest. */
static int parse_reason(const cosched_kv_field_t *f, char *reason,
			cosched_error_t *err)
{
	size_t n = strlen(f->value);

	if (!f->quoted)
		return cosched_error_set(err,
			"reason: value %s is not double-quoted",
			COSCHED_QUOTE(f->value));
	if (n > COSCHED_DECISION_REASON_MAX) {
		/* Quoted as written: escaped again, which gives back the
		 * text the codec unescaped (its only escapes are \" and
		 * \\). */
		size_t len = 2 * n + 4;
		char *raw = malloc(len);
		cosched_kv_out_t o;

		if (!raw)
			return cosched_error_set(err,
				"reason: longer than %d bytes",
				COSCHED_DECISION_REASON_MAX);
		cosched_kv_out_fixed(&o, raw, len);
		cosched_kv_put_quoted(&o, "", f->value);
		cosched_error_set(err, "reason: longer than %d bytes in %s",
				  COSCHED_DECISION_REASON_MAX,
				  COSCHED_QUOTE(raw + 1));
		free(raw);
		return -1;
	}
	if (!n)
		return cosched_error_set(err,
			"reason: empty (the key is omitted then)");
	memcpy(reason, f->value, n + 1);
	return 0;
}

/* "12,14": job ids ascending, no repeats, as the formatter writes them. */
static int peers_parse(const char *key, char *value, uint32_t *ids, int *n,
		       cosched_error_t *err)
{
	char *save = NULL, *tok;
	unsigned long long v;

	*n = 0;
	if (!value[0] || value[strlen(value) - 1] == ',' || value[0] == ',' ||
	    strstr(value, ",,"))
		return cosched_error_set(err, "%s: value %s is not a list of job ids (\"12,14\")",
					 key, COSCHED_QUOTE(value));
	for (tok = strtok_r(value, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == COSCHED_DECISION_PEERS_MAX)
			return cosched_error_set(err, "%s: more than %d job ids",
						 key, COSCHED_DECISION_PEERS_MAX);
		if (cosched_decision_parse_uint(key, tok, 1, JOB_ID_MAX, &v, err))
			return -1;
		if (*n && v <= ids[*n - 1])
			return cosched_error_set(err,
				"%s: job id %llu after %u (ascending, no repeats)",
				key, v, ids[*n - 1]);
		ids[(*n)++] = (uint32_t) v;
	}
	return 0;
}

static int parse_value(parse_t *ps, int key, char *value, cosched_error_t *err)
{
	cosched_decision_t *d = &ps->d;
	unsigned long long v;
	int i;

	switch (key) {
	case K_JOB:
		if (cosched_decision_parse_uint("job", value, 1, JOB_ID_MAX, &v, err))
			return -1;
		d->job_id = (uint32_t) v;
		return 0;
	case K_APP:
		if (cosched_app_name_check("app", value, err))
			return -1;
		snprintf(d->app, sizeof(d->app), "%s", value);
		return 0;
	case K_STATE:
		i = cosched_name_parse("state", "value", cosched_decision_state_names, 0,
				       COSCHED_DECISION_STATE_COUNT, value,
				       false, err);
		if (i < 0)
			return -1;
		d->state = (cosched_decision_state_t) i;
		return 0;
	case K_POLICY:
		return policy_parse(ps, value, err);
	case K_SCOPE:
		return cosched_scope_parse("scope", value, &d->scope, err);
	case K_CLASS:
		d->has_class = true;
		if (!strcmp(value, "unknown")) {
			d->category = COSCHED_CAT_UNKNOWN;
			return 0;
		}
		return cosched_category_parse("class", value, &d->category, err);
	case K_LCA:
		if (!strcmp(value, "unknown")) {
			d->lca = COSCHED_LCA_UNKNOWN;
			return 0;
		}
		return cosched_lca_parse("lca", value, &d->lca, err);
	case K_SOURCE:
		return source_parse(value, &d->source, err);
	case K_MPKI:
		return cosched_decision_parse_double("mpki", value, 0, false, MPKI_MAX,
				    &d->mpki, err);
	case K_THREADS:
		if (cosched_decision_parse_uint("threads", value, 1, THREADS_MAX, &v, err))
			return -1;
		d->threads = (int) v;
		return 0;
	case K_SOCKETS:
	case K_CORES:
	case K_NUMA:
		return parse_nodes(ps, key, value, err);
	case K_MEMBIND:
		i = cosched_name_parse("membind", "value", cosched_decision_membind_names,
				       COSCHED_MEMBIND_NONE,
				       COSCHED_MEMBIND_COUNT, value, false,
				       err);
		if (i < 0)
			return -1;
		d->membind = (cosched_membind_t) i;
		return 0;
	case K_POWER:
		return power_parse(value, &d->power, err);
	case K_NUMA_PRIORITY:
		/* "default" is never written: the key is omitted then. */
		i = cosched_name_parse("numa_priority", "value",
				       cosched_numa_priority_names,
				       COSCHED_NUMA_HIGH, COSCHED_NUMA_COUNT,
				       value, false, err);
		if (i < 0)
			return -1;
		d->numa_priority = (cosched_numa_priority_t) i;
		return 0;
	case K_ALTERNATES:
		return peers_parse("alternates", value, d->alternates,
				   &d->nalternates, err);
	case K_BESIDE:
		return peers_parse("beside", value, d->beside, &d->nbeside,
				   err);
	case K_FREQ_REQ:
	case K_FREQ:
		if (cosched_decision_parse_uint(cosched_decision_key_names[key], value, 1, FREQ_KHZ_MAX, &v, err))
			return -1;
		*(key == K_FREQ ? &d->freq_khz : &d->freq_req_khz) = (long) v;
		return 0;
	case K_GOVERNOR:
		if (!cosched_decision_governor_ok(value, strlen(value)))
			return cosched_error_set(err,
				"governor: invalid governor %s ([a-z0-9_], 1 to %d bytes)",
				COSCHED_QUOTE(value),
				COSCHED_DECISION_GOVERNOR_MAX);
		memcpy(d->governor, value, strlen(value) + 1);
		return 0;
	case K_SLOWDOWN:
		return cosched_decision_parse_double("slowdown", value, 0, true, SLOWDOWN_MAX,
				    &d->slowdown, err);
	default:
		return cosched_error_set(err, "record: internal error: key %d",
					 key);
	}
}

/* The schema version after the tag: this reader's major, any minor. */
static int parse_version(parse_t *ps, const char *version,
			 cosched_error_t *err)
{
	char msg[COSCHED_ERROR_MSG_LEN];

	if (!cosched_kv_version_read("decision record", "this node",
				     COSCHED_DECISION_TAG, version,
				     cosched_decision_own_version(),
				     &ps->compat.version, err))
		return 0;
	if (!err || strstr(err->msg, "invalid"))
		return -1;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	return cosched_error_set(err,
		"%s: upgrade cosched here (cosched(8) UPGRADE)",
		msg);
}

/* A key this reader does not know: skipped in a record of a newer minor
 * (counted, for the caller's one debug line), refused otherwise (the
 * writer of this version or an older one knew every key it wrote: one
 * more is a forgery or a bug). */
static int unknown_key(parse_t *ps, const cosched_kv_field_t *f,
		       cosched_error_t *err)
{
	char msg[COSCHED_ERROR_MSG_LEN];

	if (cosched_kv_version_newer_minor(ps->compat.version,
					   cosched_decision_own_version())) {
		if (!ps->compat.skipped++)
			snprintf(ps->compat.first_skipped,
				 sizeof(ps->compat.first_skipped), "%s",
				 COSCHED_QUOTE(f->key));
		return 0;
	}
	cosched_name_parse("record", "key", cosched_decision_key_names, 0,
			   K_COUNT, f->key, false, err);
	snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
	return cosched_error_set(err, "%s, value %s", msg,
				 COSCHED_QUOTE(f->value));
}

/* Whether rest (the text after reason's value) goes on with a key this
 * release places after reason. */
static bool after_reason(const char *rest)
{
	size_t n;

	if (*rest != ' ')
		return false;
	rest++;
	n = strcspn(rest, "= ");
	if (rest[n] != '=')
		return false;
	for (int k = K_REASON + 1; k < K_COUNT; k++)
		if (strlen(cosched_decision_key_names[k]) == n &&
		    !strncmp(rest, cosched_decision_key_names[k], n))
			return true;
	return false;
}

static int parse_line(parse_t *ps, cosched_error_t *err)
{
	const size_t taglen = strlen(COSCHED_DECISION_TAG);
	cosched_decision_t *d = &ps->d;
	bool seen[K_COUNT] = { false };
	cosched_kv_reader_t r;
	cosched_kv_field_t f;
	int last = -1, rc;
	char *word;

	if (strncmp(ps->line, COSCHED_DECISION_TAG, taglen))
		return cosched_error_set(err,
			"record: %s does not start with %s",
			COSCHED_QUOTE(ps->line), COSCHED_DECISION_TAG);
	cosched_kv_begin(&r, ps->line, "record");
	if (cosched_kv_word(&r, &word, err) ||
	    parse_version(ps, word + taglen, err))
		return -1;

	while ((rc = cosched_kv_next(&r, &f, err)) > 0) {
		int key = cosched_decision_key_index(f.key);

		if (key < 0) {
			if (unknown_key(ps, &f, err))
				return -1;
			continue;
		}
		if (seen[key])
			return cosched_error_set(err,
				"%s: key given twice, value %s",
				cosched_decision_key_names[key],
				COSCHED_QUOTE(f.value));
		if (key < last)
			return cosched_error_set(err,
				"%s: key out of order (after %s; the order is that of cosched(8)), value %s",
				cosched_decision_key_names[key],
				cosched_decision_key_names[last],
				COSCHED_QUOTE(f.value));
		if (key == K_REASON) {
			if (parse_reason(&f, d->reason, err))
				return -1;
			/* The last key of 1.0: only a later minor's keys
			 * may follow it (this reader's, read in order, or a
			 * newer minor's, skipped). */
			if (*cosched_kv_rest(&r) &&
			    !cosched_kv_version_newer_minor(ps->compat.version,
					cosched_decision_own_version()) &&
			    !after_reason(cosched_kv_rest(&r)))
				return cosched_error_set(err,
					"reason: trailing bytes %s after the value (reason is the last key)",
					COSCHED_QUOTE(cosched_kv_rest(&r)));
		} else if (f.quoted) {
			return cosched_error_set(err,
				"%s: value %s is quoted (only reason is)",
				cosched_decision_key_names[key],
				COSCHED_QUOTE(f.value));
		} else if (parse_value(ps, key, f.value, err)) {
			return -1;
		}
		seen[key] = true;
		last = key;
	}
	if (rc < 0)
		return -1;

	/* Written at the lowest version that holds its keys (so that
	 * format(parse(text)) == text holds for 1.0 and 1.1 records). */
	if (ps->compat.version.major == COSCHED_DECISION_SCHEMA) {
		if (seen[K_NUMA_PRIORITY] && ps->compat.version.minor < 1)
			return cosched_error_set(err,
				"numa_priority: a key of cosched/1.1 in a cosched/1 record, value %s",
				cosched_numa_priority_name(d->numa_priority));
		if (!seen[K_NUMA_PRIORITY] && ps->compat.version.minor == 1)
			return cosched_error_set(err,
				"record: cosched/1.1 without a key of 1.1 (such a record is written as cosched/1)");
		if ((seen[K_ALTERNATES] || seen[K_BESIDE]) &&
		    ps->compat.version.minor < 2)
			return cosched_error_set(err,
				"%s: a key of cosched/1.2 in a cosched/1%s record",
				seen[K_ALTERNATES] ? "alternates" : "beside",
				ps->compat.version.minor ? ".1" : "");
		if (!seen[K_ALTERNATES] && !seen[K_BESIDE] &&
		    ps->compat.version.minor == 2)
			return cosched_error_set(err,
				"record: cosched/1.2 without a key of 1.2 (such a record is written as cosched/1 or cosched/1.1)");
	}
	for (int k = K_JOB; k <= K_SCOPE; k++)
		if (!seen[k])
			return cosched_error_set(err, "%s: required key missing",
						 cosched_decision_key_names[k]);
	if (seen[K_CLASS] || seen[K_LCA] || seen[K_SOURCE])
		for (int k = K_CLASS; k <= K_SOURCE; k++)
			if (!seen[k])
				return cosched_error_set(err,
					"%s: key missing (class, lca and source go together)",
					cosched_decision_key_names[k]);
	for (int i = 0; i < d->nnodes; i++)
		if (cosched_idset_empty(&d->nodes[i].sockets) &&
		    cosched_idset_empty(&d->nodes[i].cores) &&
		    cosched_idset_empty(&d->nodes[i].numa))
			return cosched_error_set(err,
				"%s: node %s has no socket, core or NUMA id",
				seen[K_SOCKETS] ? "sockets" :
				seen[K_CORES] ? "cores" : "numa",
				d->nodes[i].name);
	return 0;
}

int cosched_decision_parse_compat(const char *text, cosched_decision_t *d,
				  cosched_decision_compat_t *compat,
				  cosched_error_t *err)
{
	parse_t *ps;
	size_t n;

	if (!text)
		return cosched_error_set(err, "record: none (NULL)");
	n = cosched_decision_line_length(text);
	if (n >= COSCHED_DECISION_TEXT_MAX)
		return cosched_error_set(err,
			"record: %zu bytes, longer than %d (%s)", n,
			COSCHED_DECISION_TEXT_MAX - 1, COSCHED_QUOTE(text));
	ps = malloc(sizeof(*ps));
	if (!ps)
		return cosched_error_set(err, "record: out of memory");
	memcpy(ps->line, text, n);
	ps->line[n] = '\0';
	/* The node table is zeroed entry by entry as the parse takes them,
	 * and copied out only as far as it is used. */
	cosched_decision_init(&ps->d);
	ps->nodes_set = false;
	memset(&ps->compat, 0, sizeof(ps->compat));
	if (parse_line(ps, err)) {
		free(ps);
		return -1;
	}
	cosched_decision_copy_out(d, &ps->d);
	if (compat)
		*compat = ps->compat;
	free(ps);
	return 0;
}

int cosched_decision_parse(const char *text, cosched_decision_t *d,
			   cosched_error_t *err)
{
	return cosched_decision_parse_compat(text, d, NULL, err);
}

