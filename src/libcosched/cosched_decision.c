/*
 * cosched_decision.c - the per-job decision record (cosched_decision.h):
 * one formatter, one strict parser, and the SystemComment line around it.
 *
 * The parser accepts exactly the formatter's text: every value has one
 * written form (integers without sign or leading zero, the shortest %g of
 * a double, merged ranges), so format(parse(text)) == text, and a reader
 * never has to wonder which of two spellings the controller meant.
 *
 * Doubles are written and read in the C locale's form (slurmctld and the
 * commands never change LC_NUMERIC).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_decision.h"
#include "cosched_nametable.h"
#include "cosched_number.h"
#include "cosched_text.h"

/* ---- names --------------------------------------------------------- */

static const char *const state_names[COSCHED_DECISION_STATE_COUNT] = {
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
static const char *const membind_names[COSCHED_MEMBIND_COUNT] = {
	[COSCHED_MEMBIND_UNSET] = "unset",
	[COSCHED_MEMBIND_NONE] = "none",
	[COSCHED_MEMBIND_BIND] = "bind",
	[COSCHED_MEMBIND_PREFER] = "prefer",
};

/* The keys, in the order the record writes them. */
enum {
	K_JOB, K_STATE, K_POLICY, K_SCOPE, K_APP, K_CLASS, K_LCA, K_SOURCE,
	K_MPKI,
	K_THREADS, K_SOCKETS, K_CORES, K_NUMA, K_MEMBIND, K_POWER,
	K_FREQ_REQ, K_FREQ, K_GOVERNOR, K_SLOWDOWN, K_REASON, K_COUNT
};

static const char *const key_names[K_COUNT] = {
	[K_JOB] = "job", [K_STATE] = "state", [K_POLICY] = "policy",
	[K_SCOPE] = "scope", [K_APP] = "app", [K_CLASS] = "class",
	[K_LCA] = "lca",
	[K_SOURCE] = "source", [K_MPKI] = "mpki", [K_THREADS] = "threads",
	[K_SOCKETS] = "sockets", [K_CORES] = "cores", [K_NUMA] = "numa",
	[K_MEMBIND] = "membind", [K_POWER] = "power",
	[K_FREQ_REQ] = "freq_req_khz", [K_FREQ] = "freq_khz",
	[K_GOVERNOR] = "governor", [K_SLOWDOWN] = "slowdown",
	[K_REASON] = "reason",
};

/* Ranges (cosched_decision.h). */
#define JOB_ID_MAX 4294967293ULL	/* below Slurm's NO_VAL, 0xfffffffe */
#define THREADS_MAX 65536
#define FREQ_KHZ_MAX 100000000L		/* 100 GHz */
#define MPKI_MAX 1e6
#define SLOWDOWN_MAX 1000.0

const char *cosched_decision_state_name(cosched_decision_state_t s)
{
	return cosched_name_of(state_names, COSCHED_DECISION_STATE_COUNT,
			       (int) s, "unknown");
}

const char *cosched_scope_name(cosched_scope_t s)
{
	return cosched_name_of(scope_names, COSCHED_SCOPE_COUNT, (int) s,
			       "unknown");
}

const char *cosched_membind_name(cosched_membind_t m)
{
	return cosched_name_of(membind_names, COSCHED_MEMBIND_COUNT, (int) m,
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

/* The policy names and "none" (COSCHED_DECISION_POLICY_NONE), from the one
 * table of cosched_policy.c. */
static const char *policy_text(cosched_policy_t p)
{
	return p == COSCHED_DECISION_POLICY_NONE ? "none" :
						    cosched_policy_name(p);
}

static int policy_parse(const char *value, cosched_policy_t *out,
			cosched_error_t *err)
{
	const char *names[COSCHED_POLICY_COUNT + 1];
	int i;

	for (i = 0; i <= COSCHED_POLICY_COUNT; i++)
		names[i] = policy_text((cosched_policy_t) i);
	i = cosched_name_parse("policy", "value", names, 0,
			       COSCHED_POLICY_COUNT + 1, value, false, err);
	if (i < 0)
		return -1;
	*out = (cosched_policy_t) i;
	return 0;
}

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

/* ---- id sets -------------------------------------------------------- */

void cosched_idset_clear(cosched_idset_t *s)
{
	memset(s, 0, sizeof(*s));
}

int cosched_idset_add(cosched_idset_t *s, int id, cosched_error_t *err)
{
	if (id < 0 || id >= COSCHED_DECISION_IDS_MAX)
		return cosched_error_set(err, "id %d out of range (0 <= id < %d)",
					 id, COSCHED_DECISION_IDS_MAX);
	s->bits[id / 64] |= UINT64_C(1) << (id % 64);
	return 0;
}

bool cosched_idset_has(const cosched_idset_t *s, int id)
{
	if (id < 0 || id >= COSCHED_DECISION_IDS_MAX)
		return false;
	return (s->bits[id / 64] >> (id % 64)) & 1;
}

int cosched_idset_count(const cosched_idset_t *s)
{
	int n = 0;

	for (size_t i = 0; i < sizeof(s->bits) / sizeof(s->bits[0]); i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

int cosched_idset_next(const cosched_idset_t *s, int from)
{
	for (int id = from < 0 ? 0 : from; id < COSCHED_DECISION_IDS_MAX; id++)
		if (cosched_idset_has(s, id))
			return id;
	return -1;
}

bool cosched_idset_overlap(const cosched_idset_t *a, const cosched_idset_t *b)
{
	for (size_t i = 0; i < sizeof(a->bits) / sizeof(a->bits[0]); i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

static bool idset_empty(const cosched_idset_t *s)
{
	for (size_t i = 0; i < sizeof(s->bits) / sizeof(s->bits[0]); i++)
		if (s->bits[i])
			return false;
	return true;
}

/* Text written into a fixed buffer: everything that fits, always
 * terminated; over is set when something did not fit. */
typedef struct {
	char *buf;
	size_t len, at;
	bool over;
} out_t;

static void out_init(out_t *o, char *buf, size_t len)
{
	o->buf = buf;
	o->len = len;
	o->at = 0;
	o->over = len == 0;
	if (len)
		buf[0] = '\0';
}

static void out_mem(out_t *o, const char *s, size_t n)
{
	if (o->over)
		return;
	if (n >= o->len - o->at) {
		n = o->len - o->at - 1;
		o->over = true;
	}
	memcpy(o->buf + o->at, s, n);
	o->at += n;
	o->buf[o->at] = '\0';
}

static void out_str(out_t *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

__attribute__((format(printf, 2, 3)))
static void out_fmt(out_t *o, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t) n >= sizeof(tmp)) {
		o->over = true;
		return;
	}
	out_mem(o, tmp, (size_t) n);
}

static void idset_write(out_t *o, const cosched_idset_t *s)
{
	bool first = true;

	for (int id = 0; id < COSCHED_DECISION_IDS_MAX; id++) {
		int end = id;

		if (!cosched_idset_has(s, id))
			continue;
		while (end + 1 < COSCHED_DECISION_IDS_MAX &&
		       cosched_idset_has(s, end + 1))
			end++;
		if (end > id)
			out_fmt(o, "%s%d-%d", first ? "" : ",", id, end);
		else
			out_fmt(o, "%s%d", first ? "" : ",", id);
		first = false;
		id = end;
	}
}

char *cosched_idset_format(const cosched_idset_t *s, char *buf, size_t len)
{
	out_t o;

	out_init(&o, buf, len);
	idset_write(&o, s);
	return buf;
}

/* ---- nodes and reason ------------------------------------------------- */

void cosched_decision_init(cosched_decision_t *d)
{
	memset(d, 0, sizeof(*d));
	d->state = COSCHED_DECISION_PLACED;
	d->policy = COSCHED_DECISION_POLICY_NONE;
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
static bool node_name_ok(const char *name, size_t n)
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
	if (name && node_name_ok(name, strlen(name)))
		return 0;
	return cosched_error_set(err,
		"%s: invalid node name %s ([A-Za-z0-9._-], 1 to %d bytes)",
		field, COSCHED_QUOTE(name), COSCHED_DECISION_NODE_NAME_MAX);
}

static int node_find(const cosched_decision_t *d, const char *name, size_t n)
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
	i = node_find(d, name, strlen(name));
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

static bool reason_char(unsigned char c)
{
	return c >= 0x20 && c < 0x7f;
}

void cosched_decision_set_reason(cosched_decision_t *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
	for (char *p = d->reason; *p; p++)
		if (!reason_char((unsigned char) *p))
			*p = '?';
}

/* ---- numbers ------------------------------------------------------------ */

/* The shortest "%.Ng" that reads back as x (0 without its sign). */
static void double_text(char *buf, size_t len, double x)
{
	if (x == 0)
		x = 0;
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
}

#define NUMBER_TEXT_MAX 40

/* An integer as the record writes it: decimal digits, no sign, no leading
 * zero.  Returns 0, or -1 with err naming key and quoting the value. */
static int parse_uint(const char *key, const char *value,
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

/* A double as the record writes it (double_text), in [lo, hi], or
 * (lo, hi] when lo_open. */
static int parse_double(const char *key, const char *value, double lo,
			bool lo_open, double hi, double *out,
			cosched_error_t *err)
{
	char canon[NUMBER_TEXT_MAX];
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
	double_text(canon, sizeof(canon), x);
	if (strcmp(canon, value))
		return cosched_error_set(err,
			"%s: value %s is not written as the record writes it (%s)",
			key, COSCHED_QUOTE(value), canon);
	*out = x;
	return 0;
}

/* ---- formatting ------------------------------------------------------ */

/* A double the formatter may write (NAN: unset) is one the parser reads
 * back: checked by reading its text (a subnormal, say, is not). */
static int double_check(const char *key, double x, bool lo_open, double hi,
			cosched_error_t *err)
{
	char text[NUMBER_TEXT_MAX];
	double back;

	if (isnan(x))
		return 0;
	double_text(text, sizeof(text), x);
	return parse_double(key, text, 0, lo_open, hi, &back, err);
}

static bool governor_ok(const char *g, size_t n)
{
	if (n < 1 || n > COSCHED_DECISION_GOVERNOR_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((g[i] >= 'a' && g[i] <= 'z') ||
		      (g[i] >= '0' && g[i] <= '9') || g[i] == '_'))
			return false;
	return true;
}

/* Every field the formatter writes is one the parser reads back. */
static int decision_check(const cosched_decision_t *d, cosched_error_t *err)
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
	if ((int) d->policy < 0 || d->policy > COSCHED_DECISION_POLICY_NONE)
		return cosched_error_set(err, "policy: unknown policy %d",
					 (int) d->policy);
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
	if (double_check("mpki", d->mpki, false, MPKI_MAX, err))
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
		if (!end || !node_name_ok(n->name, (size_t) (end - n->name)))
			return cosched_error_set(err,
				"nodes: invalid node name %s ([A-Za-z0-9._-], 1 to %d bytes)",
				end ? COSCHED_QUOTE(n->name) : "(not terminated)",
				COSCHED_DECISION_NODE_NAME_MAX);
		if (node_find(d, n->name, strlen(n->name)) != i)
			return cosched_error_set(err, "nodes: node %s listed twice",
						 n->name);
		if (idset_empty(&n->sockets) && idset_empty(&n->cores) &&
		    idset_empty(&n->numa))
			return cosched_error_set(err,
				"nodes: node %s has no socket, core or NUMA id",
				n->name);
	}
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
	    !governor_ok(d->governor, (size_t) (end - d->governor)))
		return cosched_error_set(err,
			"governor: invalid governor %s ([a-z0-9_], 1 to %d bytes)",
			COSCHED_QUOTE(d->governor), COSCHED_DECISION_GOVERNOR_MAX);
	if (double_check("slowdown", d->slowdown, true, SLOWDOWN_MAX, err))
		return -1;
	end = memchr(d->reason, '\0', sizeof(d->reason));
	if (!end)
		return cosched_error_set(err, "reason: not terminated");
	for (const char *p = d->reason; *p; p++)
		if (!reason_char((unsigned char) *p))
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

static void write_nodes(out_t *o, const cosched_decision_t *d, int key)
{
	bool any = false;

	for (int i = 0; i < d->nnodes; i++)
		any = any || !idset_empty(node_set(&d->nodes[i], key));
	if (!any)
		return;
	out_fmt(o, " %s=", key_names[key]);
	for (int i = 0; i < d->nnodes; i++) {
		if (i)
			out_str(o, ";");
		out_str(o, d->nodes[i].name);
		out_str(o, ":");
		idset_write(o, node_set(&d->nodes[i], key));
	}
}

static void write_double(out_t *o, int key, double x)
{
	char text[NUMBER_TEXT_MAX];

	if (isnan(x))
		return;
	double_text(text, sizeof(text), x);
	out_fmt(o, " %s=%s", key_names[key], text);
}

int cosched_decision_format(const cosched_decision_t *d, char *buf, size_t len,
			    cosched_error_t *err)
{
	out_t o;

	if (decision_check(d, err))
		return -1;
	out_init(&o, buf, len);
	out_fmt(&o, "%s%d job=%u state=%s policy=%s scope=%s",
		COSCHED_DECISION_TAG, COSCHED_DECISION_SCHEMA, d->job_id,
		cosched_decision_state_name(d->state), policy_text(d->policy),
		cosched_scope_name(d->scope));
	if (d->app[0])
		out_fmt(&o, " app=%s", d->app);
	if (d->has_class)
		out_fmt(&o, " class=%s lca=%s source=%s",
			cosched_category_name(d->category),
			cosched_lca_name(d->lca),
			cosched_class_source_name(d->source));
	write_double(&o, K_MPKI, d->mpki);
	if (d->threads)
		out_fmt(&o, " threads=%d", d->threads);
	write_nodes(&o, d, K_SOCKETS);
	write_nodes(&o, d, K_CORES);
	write_nodes(&o, d, K_NUMA);
	if (d->membind != COSCHED_MEMBIND_UNSET)
		out_fmt(&o, " membind=%s", cosched_membind_name(d->membind));
	if (d->power != COSCHED_POWER_UNSET)
		out_fmt(&o, " power=%s", cosched_power_policy_name(d->power));
	if (d->freq_req_khz)
		out_fmt(&o, " freq_req_khz=%ld", d->freq_req_khz);
	if (d->freq_khz)
		out_fmt(&o, " freq_khz=%ld", d->freq_khz);
	if (d->governor[0])
		out_fmt(&o, " governor=%s", d->governor);
	write_double(&o, K_SLOWDOWN, d->slowdown);
	if (d->reason[0]) {
		out_str(&o, " reason=\"");
		for (const char *p = d->reason; *p; p++) {
			if (*p == '"' || *p == '\\')
				out_str(&o, "\\");
			out_mem(&o, p, 1);
		}
		out_str(&o, "\"");
	}
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

/* ---- parsing ------------------------------------------------------------ */

/* What a parse works on: the line, copied so values can be terminated in
 * place, and the record being built (too large for a daemon thread's
 * stack to be careless with). */
typedef struct {
	char line[COSCHED_DECISION_TEXT_MAX];
	cosched_decision_t d;
	bool nodes_set;		/* a node list was read: the others match */
} parse_t;

/* One id of a range list at *s (digits, no leading zero, < IDS_MAX);
 * advances *s.  Returns the id, -1 when there is no number, -2 when it is
 * out of range (*num receives its text). */
static int scan_id(const char **s, char num[8])
{
	size_t n = strspn(*s, "0123456789");
	unsigned long long v;

	if (!n || n >= 8)
		return n ? -2 : -1;
	memcpy(num, *s, n);
	num[n] = '\0';
	if (parse_uint("id", num, 0, ~0ULL, &v, NULL))
		return -1;
	*s += n;
	return v < COSCHED_DECISION_IDS_MAX ? (int) v : -2;
}

/* A range list of one node: "0-3,6", or "" for none; entry is the node's
 * whole "NODE:LIST", for messages. */
static int parse_idset(const char *key, const char *entry, const char *list,
		       cosched_idset_t *set, cosched_error_t *err)
{
	const char *s = list;
	int prev_lo = -1, prev_end = -1;
	char num[8];

	cosched_idset_clear(set);
	while (*s) {
		bool dash = false;
		int lo, hi;

		if (prev_end >= 0 && *s++ != ',')
			goto bad;
		lo = hi = scan_id(&s, num);
		if (lo >= 0 && *s == '-') {
			s++;
			hi = scan_id(&s, num);
			dash = true;
		}
		if (lo == -2 || hi == -2)
			return cosched_error_set(err,
				"%s: id out of range (0 <= id < %d) in %s", key,
				COSCHED_DECISION_IDS_MAX, COSCHED_QUOTE(entry));
		if (lo < 0 || hi < 0)
			goto bad;
		if (hi < lo || lo < prev_lo)
			return cosched_error_set(err,
				"%s: range list not sorted in %s", key,
				COSCHED_QUOTE(entry));
		if (lo <= prev_end)
			return cosched_error_set(err,
				"%s: ranges overlap in %s", key,
				COSCHED_QUOTE(entry));
		if (dash && hi == lo)
			return cosched_error_set(err,
				"%s: range %d-%d not written as %d in %s", key,
				lo, hi, lo, COSCHED_QUOTE(entry));
		if (lo == prev_end + 1 && prev_end >= 0)
			return cosched_error_set(err,
				"%s: ranges not merged (%d follows %d) in %s",
				key, lo, prev_end, COSCHED_QUOTE(entry));
		for (int id = lo; id <= hi; id++)
			cosched_idset_add(set, id, NULL);
		prev_lo = lo;
		prev_end = hi;
	}
	return 0;
bad:
	return cosched_error_set(err,
		"%s: invalid range list in %s (expected NODE:ID[-ID],...)", key,
		COSCHED_QUOTE(entry));
}

int cosched_idset_parse(const char *field, const char *list,
			cosched_idset_t *set, cosched_error_t *err)
{
	cosched_idset_t tmp;

	if (parse_idset(field, list, list, &tmp, err))
		return -1;
	*set = tmp;
	return 0;
}

/* sockets=, cores= or numa=: "NODE:LIST;NODE:LIST". */
static int parse_nodes(parse_t *ps, int key, char *value, cosched_error_t *err)
{
	cosched_decision_t *d = &ps->d;
	const char *k = key_names[key];
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
		if (!colon || !node_name_ok(entry, n))
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
			if (node_find(d, entry, n) >= 0)
				return cosched_error_set(err,
					"%s: node listed twice (at %s)", k,
					COSCHED_QUOTE(entry));
			node = &d->nodes[d->nnodes++];
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
		if (parse_idset(k, entry, colon + 1, set, err))
			return -1;
		any = any || !idset_empty(set);
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

/* reason="...": the value from its opening quote; *end receives the byte
 * after the closing quote. */
static int parse_reason(char *value, char *reason, const char **end,
			cosched_error_t *err)
{
	size_t n = 0;
	char *p = value;

	if (*p != '"')
		return cosched_error_set(err,
			"reason: value %s is not double-quoted",
			COSCHED_QUOTE(value));
	for (p++; *p != '"'; p++) {
		char c = *p;
		if (!c)
			return cosched_error_set(err,
				"reason: unterminated quote in %s",
				COSCHED_QUOTE(value));
		if (c == '\\') {
			c = *++p;
			if (c != '"' && c != '\\') {
				char esc[3] = { '\\', c, '\0' };
				return cosched_error_set(err,
					"reason: invalid escape %s in %s (only \\\" and \\\\)",
					COSCHED_QUOTE(esc),
					COSCHED_QUOTE(value));
			}
		} else if (!reason_char((unsigned char) c)) {
			return cosched_error_set(err,
				"reason: byte 0x%02x not allowed (printable ASCII only) in %s",
				(unsigned char) c, COSCHED_QUOTE(value));
		}
		if (n >= COSCHED_DECISION_REASON_MAX)
			return cosched_error_set(err,
				"reason: longer than %d bytes in %s",
				COSCHED_DECISION_REASON_MAX,
				COSCHED_QUOTE(value));
		reason[n++] = c;
	}
	if (!n)
		return cosched_error_set(err,
			"reason: empty (the key is omitted then)");
	reason[n] = '\0';
	*end = p + 1;
	return 0;
}

static int parse_value(parse_t *ps, int key, char *value, cosched_error_t *err)
{
	cosched_decision_t *d = &ps->d;
	unsigned long long v;
	int i;

	switch (key) {
	case K_JOB:
		if (parse_uint("job", value, 1, JOB_ID_MAX, &v, err))
			return -1;
		d->job_id = (uint32_t) v;
		return 0;
	case K_APP:
		if (cosched_app_name_check("app", value, err))
			return -1;
		snprintf(d->app, sizeof(d->app), "%s", value);
		return 0;
	case K_STATE:
		i = cosched_name_parse("state", "value", state_names, 0,
				       COSCHED_DECISION_STATE_COUNT, value,
				       false, err);
		if (i < 0)
			return -1;
		d->state = (cosched_decision_state_t) i;
		return 0;
	case K_POLICY:
		return policy_parse(value, &d->policy, err);
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
		return parse_double("mpki", value, 0, false, MPKI_MAX,
				    &d->mpki, err);
	case K_THREADS:
		if (parse_uint("threads", value, 1, THREADS_MAX, &v, err))
			return -1;
		d->threads = (int) v;
		return 0;
	case K_SOCKETS:
	case K_CORES:
	case K_NUMA:
		return parse_nodes(ps, key, value, err);
	case K_MEMBIND:
		i = cosched_name_parse("membind", "value", membind_names,
				       COSCHED_MEMBIND_NONE,
				       COSCHED_MEMBIND_COUNT, value, false,
				       err);
		if (i < 0)
			return -1;
		d->membind = (cosched_membind_t) i;
		return 0;
	case K_POWER:
		return power_parse(value, &d->power, err);
	case K_FREQ_REQ:
	case K_FREQ:
		if (parse_uint(key_names[key], value, 1, FREQ_KHZ_MAX, &v, err))
			return -1;
		*(key == K_FREQ ? &d->freq_khz : &d->freq_req_khz) = (long) v;
		return 0;
	case K_GOVERNOR:
		if (!governor_ok(value, strlen(value)))
			return cosched_error_set(err,
				"governor: invalid governor %s ([a-z0-9_], 1 to %d bytes)",
				COSCHED_QUOTE(value),
				COSCHED_DECISION_GOVERNOR_MAX);
		memcpy(d->governor, value, strlen(value) + 1);
		return 0;
	case K_SLOWDOWN:
		return parse_double("slowdown", value, 0, true, SLOWDOWN_MAX,
				    &d->slowdown, err);
	default:
		return cosched_error_set(err, "record: internal error: key %d",
					 key);
	}
}

/* The schema version after the tag: "1" and nothing else. */
static int parse_version(const char *version, cosched_error_t *err)
{
	unsigned long long v;
	char want[16];

	snprintf(want, sizeof(want), "%d", COSCHED_DECISION_SCHEMA);
	if (!strcmp(version, want))
		return 0;
	if (!parse_uint("schema", version, 0, ~0ULL, &v, NULL))
		return cosched_error_set(err,
			"schema: record version %s refused: this reader knows version %d only (%s%s is from another cosched release)",
			COSCHED_QUOTE(version), COSCHED_DECISION_SCHEMA,
			COSCHED_DECISION_TAG, version);
	return cosched_error_set(err,
		"schema: invalid record version %s (this reader knows version %d)",
		COSCHED_QUOTE(version), COSCHED_DECISION_SCHEMA);
}

static int parse_line(parse_t *ps, cosched_error_t *err)
{
	const size_t taglen = strlen(COSCHED_DECISION_TAG);
	cosched_decision_t *d = &ps->d;
	bool seen[K_COUNT] = { false };
	int last = -1;
	char *p = ps->line, *tok;

	if (strncmp(p, COSCHED_DECISION_TAG, taglen))
		return cosched_error_set(err,
			"record: %s does not start with %s",
			COSCHED_QUOTE(p), COSCHED_DECISION_TAG);
	p += taglen;
	tok = p;
	p += strcspn(p, " ");
	if (*p)
		*p++ = '\0';
	else
		p = NULL;
	if (parse_version(tok, err))
		return -1;

	while (p) {
		char *eq, *value, *next;
		int key;

		if (!*p)
			return cosched_error_set(err,
				"record: trailing bytes: a blank at the end of the line");
		if (*p == ' ')
			return cosched_error_set(err,
				"record: two blanks before %s (one between keys)",
				COSCHED_QUOTE(p + strspn(p, " ")));
		tok = p;
		eq = tok + strcspn(tok, "= ");
		if (*eq != '=') {
			*eq = '\0';
			return cosched_error_set(err,
				"record: field %s has no value (expected KEY=VALUE)",
				COSCHED_QUOTE(tok));
		}
		*eq = '\0';
		value = eq + 1;
		key = cosched_name_parse("record", "key", key_names, 0, K_COUNT,
					 tok, false, err);
		if (key < 0) {
			char msg[COSCHED_ERROR_MSG_LEN];
			value[strcspn(value, " ")] = '\0';
			snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
			return cosched_error_set(err, "%s, value %s", msg,
						 COSCHED_QUOTE(value));
		}
		if (key == K_REASON) {
			const char *end = "";
			if (parse_reason(value, d->reason, &end, err))
				return -1;
			if (*end)
				return cosched_error_set(err,
					"reason: trailing bytes %s after the value (reason is the last key)",
					COSCHED_QUOTE(end));
			seen[key] = true;
			break;
		}
		next = value + strcspn(value, " ");
		if (*next)
			*next++ = '\0';
		else
			next = NULL;
		if (seen[key])
			return cosched_error_set(err,
				"%s: key given twice, value %s", key_names[key],
				COSCHED_QUOTE(value));
		if (key < last)
			return cosched_error_set(err,
				"%s: key out of order (after %s; the order is that of cosched(8)), value %s",
				key_names[key], key_names[last],
				COSCHED_QUOTE(value));
		if (parse_value(ps, key, value, err))
			return -1;
		seen[key] = true;
		last = key;
		p = next;
	}

	for (int k = K_JOB; k <= K_SCOPE; k++)
		if (!seen[k])
			return cosched_error_set(err, "%s: required key missing",
						 key_names[k]);
	if (seen[K_CLASS] || seen[K_LCA] || seen[K_SOURCE])
		for (int k = K_CLASS; k <= K_SOURCE; k++)
			if (!seen[k])
				return cosched_error_set(err,
					"%s: key missing (class, lca and source go together)",
					key_names[k]);
	for (int i = 0; i < d->nnodes; i++)
		if (idset_empty(&d->nodes[i].sockets) &&
		    idset_empty(&d->nodes[i].cores) &&
		    idset_empty(&d->nodes[i].numa))
			return cosched_error_set(err,
				"%s: node %s has no socket, core or NUMA id",
				seen[K_SOCKETS] ? "sockets" :
				seen[K_CORES] ? "cores" : "numa",
				d->nodes[i].name);
	return 0;
}

/* The length of the record line at text: up to '\n' or the end, without
 * a '\r' just before it. */
static size_t line_length(const char *text)
{
	size_t n = strcspn(text, "\n");

	if (n && text[n - 1] == '\r')
		n--;
	return n;
}

int cosched_decision_parse(const char *text, cosched_decision_t *d,
			   cosched_error_t *err)
{
	parse_t *ps;
	size_t n;

	if (!text)
		return cosched_error_set(err, "record: none (NULL)");
	n = line_length(text);
	if (n >= COSCHED_DECISION_TEXT_MAX)
		return cosched_error_set(err,
			"record: %zu bytes, longer than %d (%s)", n,
			COSCHED_DECISION_TEXT_MAX - 1, COSCHED_QUOTE(text));
	ps = malloc(sizeof(*ps));
	if (!ps)
		return cosched_error_set(err, "record: out of memory");
	memcpy(ps->line, text, n);
	ps->line[n] = '\0';
	cosched_decision_init(&ps->d);
	ps->nodes_set = false;
	if (parse_line(ps, err)) {
		free(ps);
		return -1;
	}
	memcpy(d, &ps->d, sizeof(*d));
	free(ps);
	return 0;
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
	    a->has_class != b->has_class || !double_same(a->mpki, b->mpki) ||
	    a->threads != b->threads || a->nnodes != b->nnodes ||
	    a->membind != b->membind || a->power != b->power ||
	    a->freq_req_khz != b->freq_req_khz || a->freq_khz != b->freq_khz ||
	    strncmp(a->governor, b->governor, sizeof(a->governor)) ||
	    !double_same(a->slowdown, b->slowdown) ||
	    strncmp(a->reason, b->reason, sizeof(a->reason)))
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

/* ---- SystemComment -------------------------------------------------- */

static bool is_record_line(const char *line)
{
	return !strncmp(line, COSCHED_DECISION_TAG,
			strlen(COSCHED_DECISION_TAG));
}

int cosched_decision_find(const char *comment, cosched_decision_t *d,
			  cosched_error_t *err)
{
	const char *record = NULL;
	int count = 0;

	for (const char *p = comment; p && *p;) {
		const char *nl = strchr(p, '\n');
		if (is_record_line(p) && !count++)
			record = p;
		p = nl ? nl + 1 : NULL;
	}
	if (!count)
		return 0;
	if (count > 1)
		return cosched_error_set(err,
			"SystemComment: %d lines start with %s, one record expected: refusing them all",
			count, COSCHED_DECISION_TAG);
	return cosched_decision_parse(record, d, err) ? -1 : 1;
}

char *cosched_decision_splice(const char *comment, const char *record)
{
	size_t clen = comment ? strlen(comment) : 0;
	size_t rlen = record ? strcspn(record, "\r\n") : 0;
	/* The line end of an appended line: the comment's.  After a final
	 * '\r' it must be "\r\n", or that '\r' would become one. */
	const char *eol = comment && (strstr(comment, "\r\n") ||
				      (clen && comment[clen - 1] == '\r')) ?
			  "\r\n" : "\n";
	bool done = false;
	size_t at = 0;
	char *out;

	/* At most the comment, the record and one line end. */
	out = malloc(clen + rlen + 3);
	if (!out)
		return NULL;
	for (const char *p = comment; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t body = nl ? (size_t) (nl - p) : strlen(p);
		size_t end = nl ? 1 : 0;	/* the line end's length */

		if (nl && body && p[body - 1] == '\r') {
			body--;
			end = 2;
		}
		if (!is_record_line(p)) {
			memcpy(out + at, p, body + end);
			at += body + end;
		} else if (record && !done) {
			memcpy(out + at, record, rlen);
			memcpy(out + at + rlen, p + body, end);
			at += rlen + end;
			done = true;
		} else if (!nl) {
			/* The last line goes: so does the line end before
			 * it, which only separated it. */
			if (at >= 2 && out[at - 2] == '\r' && out[at - 1] == '\n')
				at -= 2;
			else if (at >= 1 && out[at - 1] == '\n')
				at--;
		}
		p = nl ? nl + 1 : NULL;
	}
	if (record && !done) {
		size_t elen = strlen(eol);
		if (at && out[at - 1] != '\n') {
			memcpy(out + at, eol, elen);
			at += elen;
			memcpy(out + at, record, rlen);
			at += rlen;
		} else {
			memcpy(out + at, record, rlen);
			at += rlen;
			if (at > rlen) {
				memcpy(out + at, eol, elen);
				at += elen;
			}
		}
	}
	out[at] = '\0';
	return out;
}
