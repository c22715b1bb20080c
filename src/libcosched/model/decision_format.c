/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decision_format.c - the decision record's formatter: every
 * field checked to be one the parser reads back, then written in the
 * record's one form (model/decision_internal.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/libcosched/model/decision_internal.h"
#include "src/libcosched/base/text.h"

/* The record's doubles as text, made once by decision_check (finding the
 * shortest text that reads back is the formatter's dearest step) and then
 * written; "" when unset. */
typedef struct {
	char mpki[NUMBER_TEXT_MAX];
	char slowdown[NUMBER_TEXT_MAX];
} double_texts_t;

/* A double the formatter may write (NAN: unset) is one the parser reads
 * back: checked by reading its text (a subnormal, say, is not).  Its text
 * goes to text. */
static int double_check(const char *key, double x, bool lo_open, double hi,
			char *text, cosched_error_t *err)
{
	text[0] = '\0';
	if (isnan(x))
		return 0;
	return cosched_decision_double_write(key, x, 0, lo_open, hi, text, err);
}

/* Every field the formatter writes is one the parser reads back. */
/* Job ids ascending, no repeats, 0 .. COSCHED_DECISION_PEERS_MAX. */
static int peers_check(const char *key, const uint32_t *ids, int n,
		       cosched_error_t *err)
{
	if (n < 0 || n > COSCHED_DECISION_PEERS_MAX)
		return cosched_error_set(err, "%s: %d job ids (0 to %d)", key,
					 n, COSCHED_DECISION_PEERS_MAX);
	for (int i = 0; i < n; i++)
		if (ids[i] < 1 || ids[i] > JOB_ID_MAX ||
		    (i && ids[i] <= ids[i - 1]))
			return cosched_error_set(err,
				"%s: job id %u at %d (ascending, no repeats, 1 <= id <= %llu)",
				key, ids[i], i, JOB_ID_MAX);
	return 0;
}

static int decision_check(const cosched_decision_t *d, double_texts_t *texts,
			  cosched_error_t *err)
{
	const char *end;

	if (d->job_id < 1 || d->job_id > JOB_ID_MAX)
		return cosched_error_set(err, "job: job id %u out of range (1 <= job <= %llu)",
					 d->job_id, JOB_ID_MAX);
	if (memchr(d->app, '\0', sizeof(d->app)) == NULL)
		return cosched_error_set(err, "app: not terminated");
	if (d->app[0] && cosched_app_name_check("app", d->app, err))
		return -1;
	if ((int) d->state < 0 || d->state >= COSCHED_DECISION_STATE_COUNT)
		return cosched_error_set(err, "state: unknown state %d",
					 (int) d->state);
	if (d->policy == COSCHED_DECISION_POLICY_NEWER)
		return cosched_error_set(err,
			"policy: %s is a newer release's policy, which this one does not write",
			COSCHED_QUOTE(d->newer_policy));
	if (cosched_policy_check("policy", d->policy, 0, err))
		return -1;
	if ((int) d->scope < 0 || d->scope >= COSCHED_SCOPE_COUNT)
		return cosched_error_set(err, "scope: unknown scope %d",
					 (int) d->scope);
	if (d->has_class) {
		/* unknown: no profile, no declaration, DefaultClass=unknown */
		if ((int) d->category < 0 || d->category > COSCHED_CAT_UNKNOWN)
			return cosched_error_set(err,
				"class: category %d is not one of cpu, lim, mem, rand, unknown",
				(int) d->category);
		if ((int) d->lca < 0 || d->lca > COSCHED_LCA_UNKNOWN)
			return cosched_error_set(err,
				"lca: LCA class %d is not one of N, C, LC, L, unknown",
				(int) d->lca);
		if ((int) d->source < 0 || d->source >= COSCHED_CLASS_FROM_COUNT)
			return cosched_error_set(err, "source: unknown source %d",
						 (int) d->source);
	}
	if (double_check("mpki", d->mpki, false, MPKI_MAX, texts->mpki, err))
		return -1;
	if (d->threads < 0 || d->threads > THREADS_MAX)
		return cosched_error_set(err, "threads: value %d out of range (1 <= threads <= %d)",
					 d->threads, THREADS_MAX);
	if (d->nnodes < 0 || d->nnodes > COSCHED_DECISION_NODES_MAX)
		return cosched_error_set(err, "nodes: %d nodes (0 to %d)",
					 d->nnodes, COSCHED_DECISION_NODES_MAX);
	for (int i = 0; i < d->nnodes; i++) {
		const cosched_decision_node_t *n = &d->nodes[i];
		end = memchr(n->name, '\0', sizeof(n->name));
		if (!end || !cosched_decision_node_name_ok(n->name, (size_t) (end - n->name)))
			return cosched_error_set(err,
				"nodes: invalid node name %s ([A-Za-z0-9._-], 1 to %d bytes)",
				end ? COSCHED_QUOTE(n->name) : "(not terminated)",
				COSCHED_DECISION_NODE_NAME_MAX);
		if (cosched_decision_node_find(d, n->name, strlen(n->name)) != i)
			return cosched_error_set(err, "nodes: node %s listed twice",
						 n->name);
		if (cosched_idset_empty(&n->sockets) && cosched_idset_empty(&n->cores) &&
		    cosched_idset_empty(&n->numa))
			return cosched_error_set(err,
				"nodes: node %s has no socket, core or NUMA id",
				n->name);
	}
	if ((int) d->numa_priority < 0 ||
	    d->numa_priority >= COSCHED_NUMA_COUNT)
		return cosched_error_set(err, "numa_priority: unknown value %d",
					 (int) d->numa_priority);
	if (peers_check("alternates", d->alternates, d->nalternates, err) ||
	    peers_check("beside", d->beside, d->nbeside, err))
		return -1;
	if ((int) d->membind < 0 || d->membind >= COSCHED_MEMBIND_COUNT)
		return cosched_error_set(err, "membind: unknown value %d",
					 (int) d->membind);
	if ((int) d->power < 0 || d->power >= COSCHED_POWER_COUNT)
		return cosched_error_set(err, "power: unknown power policy %d",
					 (int) d->power);
	if (d->freq_req_khz < 0 || d->freq_req_khz > FREQ_KHZ_MAX)
		return cosched_error_set(err, "freq_req_khz: value %ld out of range (1 <= freq_req_khz <= %ld)",
					 d->freq_req_khz, FREQ_KHZ_MAX);
	if (d->freq_khz < 0 || d->freq_khz > FREQ_KHZ_MAX)
		return cosched_error_set(err, "freq_khz: value %ld out of range (1 <= freq_khz <= %ld)",
					 d->freq_khz, FREQ_KHZ_MAX);
	end = memchr(d->governor, '\0', sizeof(d->governor));
	if (!end)
		return cosched_error_set(err, "governor: not terminated");
	if (d->governor[0] &&
	    !cosched_decision_governor_ok(d->governor, (size_t) (end - d->governor)))
		return cosched_error_set(err,
			"governor: invalid governor %s ([a-z0-9_], 1 to %d bytes)",
			COSCHED_QUOTE(d->governor), COSCHED_DECISION_GOVERNOR_MAX);
	if (double_check("slowdown", d->slowdown, true, SLOWDOWN_MAX,
			 texts->slowdown, err))
		return -1;
	end = memchr(d->reason, '\0', sizeof(d->reason));
	if (!end)
		return cosched_error_set(err, "reason: not terminated");
	for (const char *p = d->reason; *p; p++)
		if (!cosched_decision_reason_char((unsigned char) *p))
			return cosched_error_set(err,
				"reason: byte 0x%02x at %zu is not printable ASCII (cosched_decision_set_reason replaces it)",
				(unsigned char) *p, (size_t) (p - d->reason));
	return 0;
}

/* Which id set of a node a key lists. */
static const cosched_idset_t *node_set(const cosched_decision_node_t *n,
				       int key)
{
	return key == K_SOCKETS ? &n->sockets :
	       key == K_CORES ? &n->cores : &n->numa;
}

static void write_nodes(cosched_kv_out_t *o, const cosched_decision_t *d,
			int key)
{
	/* One node's "NAME:LIST" (";" before all but the first) in one
	 * piece. */
	char piece[1 + COSCHED_DECISION_NODE_NAME_MAX + 1 +
		   COSCHED_IDSET_TEXT_MAX];
	bool any = false;

	for (int i = 0; i < d->nnodes; i++)
		any = any || !cosched_idset_empty(node_set(&d->nodes[i], key));
	if (!any)
		return;
	cosched_kv_put_key(o, cosched_decision_key_names[key]);
	for (int i = 0; i < d->nnodes; i++) {
		size_t at = 0, name = strlen(d->nodes[i].name);

		if (i)
			piece[at++] = ';';
		memcpy(piece + at, d->nodes[i].name, name);
		at += name;
		piece[at++] = ':';
		cosched_idset_format(node_set(&d->nodes[i], key), piece + at,
				     sizeof(piece) - at);
		cosched_kv_put_str(o, piece);
	}
}

static void write_peers(cosched_kv_out_t *o, const char *key,
			const uint32_t *ids, int n)
{
	if (!n)
		return;
	cosched_kv_put(o, key, "%u", ids[0]);
	for (int i = 1; i < n; i++) {
		char id[16];

		snprintf(id, sizeof(id), ",%u", ids[i]);
		cosched_kv_put_str(o, id);
	}
}

static void write_double(cosched_kv_out_t *o, int key, const char *text)
{
	if (text[0])
		cosched_kv_put_word(o, cosched_decision_key_names[key], text);
}

int cosched_decision_format(const cosched_decision_t *d, char *buf, size_t len,
			    cosched_error_t *err)
{
	char version[32];
	double_texts_t texts;
	cosched_kv_out_t o;

	/* A refused record leaves an empty line, never the bytes before. */
	if (buf && len)
		buf[0] = '\0';
	if (decision_check(d, &texts, err))
		return -1;
	cosched_kv_out_fixed(&o, buf, len);
	/* The lowest version that holds the record's keys: "cosched/1"
	 * without a 1.1 key, what every 1.x reader reads as it is. */
	cosched_kv_put_str(&o, cosched_kv_version_text(COSCHED_DECISION_TAG,
		(cosched_kv_version_t){ COSCHED_DECISION_SCHEMA,
					d->nalternates || d->nbeside ? 2 :
					d->numa_priority ? 1 : 0 },
		version, sizeof(version)));
	cosched_kv_put_int(&o, "job", d->job_id);
	cosched_kv_put_word(&o, "state", cosched_decision_state_name(d->state));
	cosched_kv_put_word(&o, "policy", cosched_policy_name(d->policy));
	cosched_kv_put_word(&o, "scope", cosched_scope_name(d->scope));
	if (d->app[0])
		cosched_kv_put_word(&o, "app", d->app);
	if (d->has_class) {
		cosched_kv_put_word(&o, "class",
				    cosched_category_name(d->category));
		cosched_kv_put_word(&o, "lca", cosched_lca_name(d->lca));
		cosched_kv_put_word(&o, "source",
				    cosched_class_source_name(d->source));
	}
	write_double(&o, K_MPKI, texts.mpki);
	if (d->threads)
		cosched_kv_put_int(&o, "threads", d->threads);
	write_nodes(&o, d, K_SOCKETS);
	write_nodes(&o, d, K_CORES);
	write_nodes(&o, d, K_NUMA);
	if (d->membind != COSCHED_MEMBIND_UNSET)
		cosched_kv_put_word(&o, "membind",
				    cosched_membind_name(d->membind));
	if (d->power != COSCHED_POWER_UNSET)
		cosched_kv_put_word(&o, "power",
				    cosched_power_policy_name(d->power));
	if (d->freq_req_khz)
		cosched_kv_put_int(&o, "freq_req_khz", d->freq_req_khz);
	if (d->freq_khz)
		cosched_kv_put_int(&o, "freq_khz", d->freq_khz);
	if (d->governor[0])
		cosched_kv_put_word(&o, "governor", d->governor);
	write_double(&o, K_SLOWDOWN, texts.slowdown);
	if (d->reason[0])
		cosched_kv_put_quoted(&o, "reason", d->reason);
	if (d->numa_priority != COSCHED_NUMA_UNSET)
		cosched_kv_put_word(&o, "numa_priority",
				    cosched_numa_priority_name(d->numa_priority));
	write_peers(&o, "alternates", d->alternates, d->nalternates);
	write_peers(&o, "beside", d->beside, d->nbeside);
	if (o.over)
		return cosched_error_set(err,
			"record: does not fit %zu bytes (job %u, %d nodes)",
			len, d->job_id, d->nnodes);
	if (o.at >= COSCHED_DECISION_TEXT_MAX)
		return cosched_error_set(err,
			"record: %zu bytes, longer than %d (job %u, %d nodes)",
			o.at, COSCHED_DECISION_TEXT_MAX - 1, d->job_id,
			d->nnodes);
	return 0;
}
