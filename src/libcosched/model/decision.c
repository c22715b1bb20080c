/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decision.c - the per-job decision record (model/decision.h):
 * its names, the record in memory, and the one written form of its
 * numbers, which the formatter (model/decision_format.c) and the parser
 * (model/decision_parse.c) share.
 *
 * Doubles are written and read in the C locale's form (slurmctld and the
 * commands never change LC_NUMERIC).
 */
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "src/libcosched/model/decision_internal.h"
#include "src/libcosched/base/nametable.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"

/* ---- names --------------------------------------------------------- */

const char *const cosched_decision_state_names[COSCHED_DECISION_STATE_COUNT] = {
	[COSCHED_DECISION_PLACED] = "placed",
	[COSCHED_DECISION_PENDING] = "pending",
	[COSCHED_DECISION_OFF] = "off",
	[COSCHED_DECISION_PASSTHROUGH] = "passthrough",
};

static const char *const scope_names[COSCHED_SCOPE_COUNT] = {
	[COSCHED_SCOPE_SOCKET] = "socket",
	[COSCHED_SCOPE_NODE] = "node",
};

/* "unset" is what an omitted membind is called, never a value to read. */
const char *const cosched_decision_membind_names[COSCHED_MEMBIND_COUNT] = {
	[COSCHED_MEMBIND_UNSET] = "unset",
	[COSCHED_MEMBIND_NONE] = "none",
	[COSCHED_MEMBIND_BIND] = "bind",
	[COSCHED_MEMBIND_PREFER] = "prefer",
};

const char *const cosched_decision_key_names[K_COUNT] = {
	[K_JOB] = "job", [K_STATE] = "state", [K_POLICY] = "policy",
	[K_SCOPE] = "scope", [K_APP] = "app", [K_CLASS] = "class",
	[K_LCA] = "lca",
	[K_SOURCE] = "source", [K_MPKI] = "mpki", [K_THREADS] = "threads",
	[K_SOCKETS] = "sockets", [K_CORES] = "cores", [K_NUMA] = "numa",
	[K_MEMBIND] = "membind", [K_POWER] = "power",
	[K_FREQ_REQ] = "freq_req_khz", [K_FREQ] = "freq_khz",
	[K_GOVERNOR] = "governor", [K_SLOWDOWN] = "slowdown",
	[K_REASON] = "reason", [K_NUMA_PRIORITY] = "numa_priority",
	[K_ALTERNATES] = "alternates", [K_BESIDE] = "beside",
};

const char *cosched_decision_state_name(cosched_decision_state_t s)
{
	return cosched_name_of(cosched_decision_state_names, COSCHED_DECISION_STATE_COUNT,
			       (int) s, "unknown");
}

const char *cosched_scope_name(cosched_scope_t s)
{
	return cosched_name_of(scope_names, COSCHED_SCOPE_COUNT, (int) s,
			       "unknown");
}

const char *cosched_membind_name(cosched_membind_t m)
{
	return cosched_name_of(cosched_decision_membind_names, COSCHED_MEMBIND_COUNT, (int) m,
			       "unknown");
}

int cosched_scope_parse(const char *field, const char *value,
			cosched_scope_t *out, cosched_error_t *err)
{
	int i = cosched_name_parse(field, "scope", scope_names, 0,
				   COSCHED_SCOPE_COUNT, value, false, err);

	if (i < 0)
		return -1;
	*out = (cosched_scope_t) i;
	return 0;
}

const char *cosched_decision_policy_of(const cosched_decision_t *d)
{
	return d->policy == COSCHED_DECISION_POLICY_NEWER ? d->newer_policy :
		cosched_policy_name(d->policy);
}

/* ---- nodes and reason ------------------------------------------------- */

int cosched_decision_key_index(const char *name)
{
	for (int k = 0; k < K_COUNT; k++)
		if (name[0] == cosched_decision_key_names[k][0] &&
		    !strcmp(name, cosched_decision_key_names[k]))
			return k;
	return -1;
}

size_t cosched_decision_line_length(const char *text)
{
	/* strchr, not strcspn: glibc's strcspn with a set costs several
	 * times as much, and slurmctld measures a record line a dozen
	 * times a job. */
	const char *nl = strchr(text, '\n');
	size_t n = nl ? (size_t) (nl - text) : strlen(text);

	if (n && text[n - 1] == '\r')
		n--;
	return n;
}

size_t cosched_decision_size(const cosched_decision_t *d)
{
	int n = d->nnodes < 0 ? 0 : d->nnodes > COSCHED_DECISION_NODES_MAX ?
		COSCHED_DECISION_NODES_MAX : d->nnodes;

	return offsetof(cosched_decision_t, nodes) +
	       (size_t) n * sizeof(d->nodes[0]);
}

void cosched_decision_copy_out(cosched_decision_t *dst,
			       const cosched_decision_t *src)
{
	memcpy(dst, src, cosched_decision_size(src));
}

void cosched_decision_init(cosched_decision_t *d)
{
	/* Every field but the node table, which is most of its 29 KB. */
	memset(d, 0, offsetof(cosched_decision_t, nodes));
	d->state = COSCHED_DECISION_PLACED;
	d->policy = COSCHED_POLICY_NONE;
	d->newer_policy[0] = '\0';
	d->scope = COSCHED_SCOPE_SOCKET;
	d->has_class = false;
	d->category = COSCHED_CAT_UNKNOWN;
	d->lca = COSCHED_LCA_UNKNOWN;
	d->source = COSCHED_CLASS_FROM_NONE;
	d->mpki = NAN;
	d->membind = COSCHED_MEMBIND_UNSET;
	d->power = COSCHED_POWER_UNSET;
	d->slowdown = NAN;
}

static bool node_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* A node name of n bytes (not necessarily terminated) is valid. */
bool cosched_decision_node_name_ok(const char *name, size_t n)
{
	if (n < 1 || n > COSCHED_DECISION_NODE_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!node_char(name[i]))
			return false;
	return true;
}

static int node_name_check(const char *field, const char *name,
			   cosched_error_t *err)
{
	if (name && cosched_decision_node_name_ok(name, strlen(name)))
		return 0;
	return cosched_error_set(err,
		"%s: invalid node name %s ([A-Za-z0-9._-], 1 to %d bytes)",
		field, COSCHED_QUOTE(name), COSCHED_DECISION_NODE_NAME_MAX);
}

int cosched_decision_node_find(const cosched_decision_t *d, const char *name, size_t n)
{
	for (int i = 0; i < d->nnodes; i++)
		if (strlen(d->nodes[i].name) == n &&
		    !memcmp(d->nodes[i].name, name, n))
			return i;
	return -1;
}

cosched_decision_node_t *cosched_decision_node(cosched_decision_t *d,
					       const char *name,
					       cosched_error_t *err)
{
	cosched_decision_node_t *node;
	int i;

	if (node_name_check("nodes", name, err))
		return NULL;
	i = cosched_decision_node_find(d, name, strlen(name));
	if (i >= 0)
		return &d->nodes[i];
	if (d->nnodes < 0 || d->nnodes >= COSCHED_DECISION_NODES_MAX) {
		cosched_error_set(err, "nodes: more than %d nodes (adding %s)",
				  COSCHED_DECISION_NODES_MAX,
				  COSCHED_QUOTE(name));
		return NULL;
	}
	node = &d->nodes[d->nnodes++];
	memset(node, 0, sizeof(*node));
	memcpy(node->name, name, strlen(name) + 1);
	return node;
}

/* A reason's bytes outside printable ASCII become '?'. */
static void reason_clean(cosched_decision_t *d)
{
	for (char *p = d->reason; *p; p++)
		if (!cosched_decision_reason_char((unsigned char) *p))
			*p = '?';
}

void cosched_decision_set_reason(cosched_decision_t *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
	reason_clean(d);
}

void cosched_decision_set_reason_parts(cosched_decision_t *d,
				       const char *const *parts, size_t n)
{
	size_t at = 0, room = sizeof(d->reason) - 1;

	for (size_t i = 0; i < n && at < room; i++) {
		size_t len;

		if (!parts[i])
			continue;
		len = strnlen(parts[i], room - at);
		memcpy(d->reason + at, parts[i], len);
		at += len;
	}
	d->reason[at] = '\0';
	reason_clean(d);
}

/* ---- numbers ------------------------------------------------------------ */

/*
 * The shortest precision that reads back, as trying 1, 2, ... 17 would
 * find, in fewer tries: a prediction such as 1 + 0.76 = 1.7600000000000002
 * needs 17 digits, and slurmctld writes one at every job start and end.
 * When 15 digits do not read back, no fewer do (the 15-digit decimal
 * nearest x is at least as near as any shorter one, and any decimal that
 * near a double with a short exact form is that form), so only 16 and 17
 * are left; when 15 do, the shorter ones are tried from 1 up.  A unit test
 * holds this to the plain search over a quarter of a million values.
 */
static void double_text_search(char *buf, size_t len, double x)
{
	char fifteen[NUMBER_TEXT_MAX];

	snprintf(fifteen, sizeof(fifteen), "%.15g", x);
	if (strtod(fifteen, NULL) != x) {
		for (int prec = 16; prec <= 17; prec++) {
			snprintf(buf, len, "%.*g", prec, x);
			if (strtod(buf, NULL) == x)
				return;
		}
		return;
	}
	for (int prec = 1; prec < 15; prec++) {
		snprintf(buf, len, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
	snprintf(buf, len, "%s", fifteen);
}

/*
 * The numbers written lately, by their bits (one slot each, the newer
 * taking an older's slot): every job of an application carries its
 * profile's MPKI and every pair of classes one predicted slowdown, so
 * slurmctld writes the same few dozen numbers again and again.  Each text
 * is parsed once, when it is made: whether the record's parser reads it
 * back as the same number (then only the range is left to check).
 *
 * One memo for the process, not one per thread: slurmctld runs a job's
 * start and end in whichever thread serves the RPC, most of them new.
 * Each slot is a sequence lock of atomics (C11, without a mutex a forked
 * child could inherit locked): a reader that sees the slot being written,
 * or written meanwhile, makes the text itself; a writer that finds the
 * slot taken leaves it.
 */
#define TEXT_MEMO 64
#define TEXT_WORDS (NUMBER_TEXT_MAX / 8)
_Static_assert(NUMBER_TEXT_MAX % 8 == 0, "the memo keeps the text in words");

enum { MEMO_USED = 1, MEMO_READS_BACK = 2 };

typedef struct {
	_Atomic uint64_t seq;		/* odd while written */
	_Atomic uint64_t bits, flags;
	_Atomic uint64_t text[TEXT_WORDS];
} memo_slot_t;

static memo_slot_t memo[TEXT_MEMO];

typedef struct {
	bool reads_back;	/* cosched_parse_number gives x again */
	char text[NUMBER_TEXT_MAX];
} number_text_t;

static bool memo_get(memo_slot_t *m, uint64_t bits, number_text_t *out)
{
	uint64_t s = atomic_load_explicit(&m->seq, memory_order_acquire);
	uint64_t words[TEXT_WORDS], flags;

	if ((s & 1) ||
	    atomic_load_explicit(&m->bits, memory_order_relaxed) != bits)
		return false;
	flags = atomic_load_explicit(&m->flags, memory_order_relaxed);
	for (int i = 0; i < TEXT_WORDS; i++)
		words[i] = atomic_load_explicit(&m->text[i],
						memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	if (!(flags & MEMO_USED) ||
	    atomic_load_explicit(&m->seq, memory_order_relaxed) != s)
		return false;
	memcpy(out->text, words, sizeof(out->text));
	out->reads_back = flags & MEMO_READS_BACK;
	return true;
}

static void memo_put(memo_slot_t *m, uint64_t bits, const number_text_t *nt)
{
	uint64_t s = atomic_load_explicit(&m->seq, memory_order_relaxed);
	uint64_t words[TEXT_WORDS];

	if ((s & 1) ||
	    !atomic_compare_exchange_strong_explicit(&m->seq, &s, s + 1,
						     memory_order_relaxed,
						     memory_order_relaxed))
		return;
	atomic_thread_fence(memory_order_release);
	memcpy(words, nt->text, sizeof(words));
	atomic_store_explicit(&m->bits, bits, memory_order_relaxed);
	atomic_store_explicit(&m->flags,
			      MEMO_USED | (nt->reads_back ? MEMO_READS_BACK : 0),
			      memory_order_relaxed);
	for (int i = 0; i < TEXT_WORDS; i++)
		atomic_store_explicit(&m->text[i], words[i],
				      memory_order_relaxed);
	atomic_store_explicit(&m->seq, s + 2, memory_order_release);
}

static void number_text(double x, number_text_t *out)
{
	memo_slot_t *m;
	uint64_t bits;
	double back;

	if (x == 0)
		x = 0;
	memcpy(&bits, &x, sizeof(bits));
	/* Fibonacci hashing: the high bits of the product mix them all. */
	m = &memo[(bits * UINT64_C(0x9E3779B97F4A7C15)) >> 58];
	if (memo_get(m, bits, out))
		return;
	memset(out->text, 0, sizeof(out->text));
	double_text_search(out->text, sizeof(out->text), x);
	out->reads_back = out->text[0] >= '0' && out->text[0] <= '9' &&
			  !cosched_parse_number(out->text, &back) && back == x;
	memo_put(m, bits, out);
}

void cosched_decision_double_text(char *buf, size_t len, double x)
{
	number_text_t e;
	size_t n;

	if (!len)
		return;
	number_text(x, &e);
	/* What fits, terminated. */
	n = strnlen(e.text, len - 1);
	memcpy(buf, e.text, n);
	buf[n] = '\0';
}

/* An integer as the record writes it: decimal digits, no sign, no leading
 * zero.  Returns 0, or -1 with err naming key and quoting the value. */
int cosched_decision_parse_uint(const char *key, const char *value,
		      unsigned long long lo, unsigned long long hi,
		      unsigned long long *out, cosched_error_t *err)
{
	unsigned long long v = 0;
	size_t n = strlen(value);

	if (!n || n > 20 || (value[0] == '0' && n > 1))
		goto bad;
	for (size_t i = 0; i < n; i++) {
		if (value[i] < '0' || value[i] > '9')
			goto bad;
		if (v > (~0ULL - 9) / 10)
			goto range;
		v = v * 10 + (unsigned) (value[i] - '0');
	}
	if (v < lo || v > hi)
		goto range;
	*out = v;
	return 0;
bad:
	return cosched_error_set(err,
		"%s: invalid number %s (decimal digits, no sign or leading zero)",
		key, COSCHED_QUOTE(value));
range:
	return cosched_error_set(err, "%s: value %s out of range (%llu <= %s <= %llu)",
				 key, COSCHED_QUOTE(value), lo, key, hi);
}

/* parse_double; canon: value's text as double_text writes it when the
 * caller made value so (then it is not made again), else NULL. */
static int parse_double_as(const char *key, const char *value, double lo,
			   bool lo_open, double hi, const char *canon,
			   double *out, cosched_error_t *err)
{
	char made[NUMBER_TEXT_MAX];
	double x;

	if (value[0] < '0' || value[0] > '9' ||
	    cosched_parse_number(value, &x))
		return cosched_error_set(err,
			"%s: invalid number %s (a decimal number without sign)",
			key, COSCHED_QUOTE(value));
	if ((lo_open ? !(x > lo) : !(x >= lo)) || !(x <= hi))
		return cosched_error_set(err,
			"%s: value %s out of range (%g %s %s <= %g)", key,
			COSCHED_QUOTE(value), lo, lo_open ? "<" : "<=", key, hi);
	if (!canon) {
		cosched_decision_double_text(made, sizeof(made), x);
		canon = made;
	}
	if (strcmp(canon, value))
		return cosched_error_set(err,
			"%s: value %s is not written as the record writes it (%s)",
			key, COSCHED_QUOTE(value), canon);
	*out = x;
	return 0;
}

/* A double as the record writes it (double_text), in [lo, hi], or
 * (lo, hi] when lo_open. */
int cosched_decision_parse_double(const char *key, const char *value, double lo,
			bool lo_open, double hi, double *out,
			cosched_error_t *err)
{
	return parse_double_as(key, value, lo, lo_open, hi, NULL, out, err);
}

int cosched_decision_double_write(const char *key, double x, double lo,
				  bool lo_open, double hi, char *text,
				  cosched_error_t *err)
{
	char back_text[NUMBER_TEXT_MAX];
	number_text_t e;
	double back;

	number_text(x, &e);
	memcpy(text, e.text, NUMBER_TEXT_MAX);
	/* What parse_double_as would find, without parsing it again. */
	if (e.reads_back && (lo_open ? x > lo : x >= lo) && x <= hi)
		return 0;
	if (parse_double_as(key, text, lo, lo_open, hi, text, &back, err))
		return -1;
	if (back != x) {
		/* What the parser would say of this text: it reads another
		 * number, written otherwise. */
		cosched_decision_double_text(back_text, sizeof(back_text), back);
		return cosched_error_set(err,
			"%s: value %s is not written as the record writes it (%s)",
			key, COSCHED_QUOTE(text), back_text);
	}
	return 0;
}

bool cosched_decision_word_ok(const char *w, size_t n, size_t max)
{
	if (n < 1 || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((w[i] >= 'a' && w[i] <= 'z') ||
		      (w[i] >= '0' && w[i] <= '9') || w[i] == '_'))
			return false;
	return true;
}

bool cosched_decision_governor_ok(const char *g, size_t n)
{
	return cosched_decision_word_ok(g, n, COSCHED_DECISION_GOVERNOR_MAX);
}

static bool double_same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

bool cosched_decision_equal(const cosched_decision_t *a,
			    const cosched_decision_t *b)
{
	if (a->job_id != b->job_id || a->state != b->state ||
	    strcmp(a->app, b->app) ||
	    a->policy != b->policy || a->scope != b->scope ||
	    (a->policy == COSCHED_DECISION_POLICY_NEWER &&
	     strcmp(a->newer_policy, b->newer_policy)) ||
	    a->has_class != b->has_class || !double_same(a->mpki, b->mpki) ||
	    a->threads != b->threads || a->nnodes != b->nnodes ||
	    a->membind != b->membind || a->power != b->power ||
	    a->freq_req_khz != b->freq_req_khz || a->freq_khz != b->freq_khz ||
	    strncmp(a->governor, b->governor, sizeof(a->governor)) ||
	    !double_same(a->slowdown, b->slowdown) ||
	    strncmp(a->reason, b->reason, sizeof(a->reason)) ||
	    a->numa_priority != b->numa_priority ||
	    a->nalternates != b->nalternates || a->nbeside != b->nbeside)
		return false;
	if (a->nalternates < 0 || a->nalternates > COSCHED_DECISION_PEERS_MAX ||
	    a->nbeside < 0 || a->nbeside > COSCHED_DECISION_PEERS_MAX ||
	    memcmp(a->alternates, b->alternates,
		   (size_t) a->nalternates * sizeof(a->alternates[0])) ||
	    memcmp(a->beside, b->beside,
		   (size_t) a->nbeside * sizeof(a->beside[0])))
		return false;
	if (a->has_class && (a->category != b->category || a->lca != b->lca ||
			     a->source != b->source))
		return false;
	if (a->nnodes < 0 || a->nnodes > COSCHED_DECISION_NODES_MAX)
		return false;
	for (int i = 0; i < a->nnodes; i++) {
		const cosched_decision_node_t *x = &a->nodes[i], *y = &b->nodes[i];
		if (strncmp(x->name, y->name, sizeof(x->name)) ||
		    memcmp(&x->sockets, &y->sockets, sizeof(x->sockets)) ||
		    memcmp(&x->cores, &y->cores, sizeof(x->cores)) ||
		    memcmp(&x->numa, &y->numa, sizeof(x->numa)))
			return false;
	}
	return true;
}


bool cosched_decision_compat_note(const cosched_decision_compat_t *c,
				  char *buf, size_t len)
{
	char seen[32], own[32];

	/* Once a process: a slurmd or slurmctld reads many such records
	 * during an upgrade, and one line says what they all say. */
	static bool said;

	if (!c || !c->skipped || __atomic_exchange_n(&said, true,
						     __ATOMIC_RELAXED))
		return false;
	snprintf(buf, len,
		 "decision record schema %s is newer than this node's (%s): skipped %d key%s it does not know (first: %s)",
		 cosched_kv_version_text(COSCHED_DECISION_TAG, c->version, seen,
					 sizeof(seen)),
		 cosched_kv_version_text(COSCHED_DECISION_TAG,
					 cosched_decision_own_version(), own,
					 sizeof(own)),
		 c->skipped, c->skipped == 1 ? "" : "s", c->first_skipped);
	return true;
}
