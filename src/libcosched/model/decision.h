/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decision.h - the per-job decision record: what the controller
 * decided for a job, in one line that the node enforces and the reports
 * and cosched-status read.
 *
 * One header, one formatter, one strict parser, one schema version.  Later
 * work extends it (a new key, a new schema version), never forks it.
 *
 * Where it travels: slurmctld (the select plugin, and nothing else) writes
 * it into the job's SystemComment, which only slurmctld can set (no
 * submission or update RPC carries it, in 22.05 and 24.11 alike), which
 * slurmctld keeps across restarts but never sends to slurmdbd; slurmctld
 * copies the line into AdminComment (administrators only, sent to slurmdbd
 * at the job's end) for accounting.  Readers take it from slurmctld through
 * libslurm (slurm_load_job), never from the job's environment or comment,
 * which the user controls.  The copy in slurmdbd (sacct -o AdminComment)
 * is slurmctld's, but accounting operators and administrators can change
 * it there: a report that reads sacct trusts them too.
 *
 * SystemComment may hold other lines (Slurm's burst buffer code appends its
 * own): the record is the line that starts with COSCHED_DECISION_TAG.
 * There is at most one: cosched_decision_find() refuses a comment with two
 * (a second one can only be a forgery or a bug), cosched_decision_splice_alloc()
 * replaces the first and drops the others, keeping every other line in
 * order.  Lines end with "\n" or "\r\n" (the '\r' is not part of the
 * record).  Slurm copies SystemComment to the job it splits off a job
 * array (job_array_split), so a record can name another job until the
 * controller writes the new job's own: readers compare job= with the id of
 * the job they read it from.
 *
 * Text form (keys in this order; a key whose value is unset is omitted
 * unless marked required; see cosched(8) "DECISION RECORD"):
 *
 *   cosched/1 job=42 state=placed policy=app_aware scope=socket
 *     app=stream class=mem lca=L source=profile mpki=21.5 threads=4
 *     sockets=n1:1 cores=n1:4-7 numa=n1:1 membind=bind
 *     power=edp freq_req_khz=1500000 freq_khz=1500000 governor=userspace
 *     slowdown=1.25 reason="joins cpu job 40 on n1 socket 1"
 *
 * (one line; wrapped here).  Required: the tag, job, state, policy, scope
 * (scope has no unset value: the formatter always writes it).
 *   state     placed | pending | off (the job opted out: --cosched=off) |
 *             passthrough (cosched does not place this kind of job; reason
 *             says which rule)
 *   sockets, cores, numa: per node "NODE:LIST" joined by ';', LIST a
 *             sorted range list "0-3,6" of socket / core / NUMA node ids on
 *             that node.  Node names: [A-Za-z0-9._-], 1..64 bytes.  A key
 *             whose lists are all empty is omitted; a key written lists
 *             every node of the record, in the record's order (an empty
 *             LIST when that node has none: "n1:;n2:0"), so all three name
 *             the same nodes; a node has at least one id in one of them.
 *             Ranges are written merged ("0-3", never "0-1,2-3" or "3-3").
 *   job       1 .. 4294967293 (below Slurm's NO_VAL)
 *   app       the application the job's profile is kept under
 *             (--cosched-app, else the job name; base/appname.h), or
 *             absent when it has none
 *   mpki      last-level cache misses per 1000 instructions, 0 .. 1e6
 *   threads   1 .. 65536
 *   membind   bind | prefer | none
 *   governor  a cpufreq governor name ([a-z0-9_], 1..31 bytes), or absent
 *             (the node keeps the governor it has)
 *   freq_*    kHz, 1 .. 1e8; freq_req_khz is the job's own choice,
 *             freq_khz the frequency domain's after conflict resolution
 *   slowdown  the predicted running time next to its co-runners / alone,
 *             0 < slowdown <= 1000
 *   reason    double-quoted; '"' and '\' escaped with '\'; only printable
 *             ASCII (any other byte, control characters and non-ASCII
 *             alike, is written as '?', so a cut never splits a UTF-8
 *             sequence and every reader can print it); at most
 *             COSCHED_DECISION_REASON_MAX bytes, not empty
 *   class, lca, source: written together or not at all
 *   numa_priority  high | low (1.1; after reason): --cosched-numa, for
 *             the node's NUMA manager (high: kept local, never a
 *             migration's victim)
 *   alternates, beside  (1.2; after numa_priority) job ids "12,14",
 *             ascending, no repeats, 1 .. COSCHED_DECISION_PEERS_MAX of
 *             them: time sharing's slice partners (cosched(8) TIME
 *             SHARING)
 *
 * Numbers are written in one form: integers in decimal without sign or
 * leading zero, mpki and slowdown in the shortest "%g" form that reads back
 * as the same double.
 *
 * The parser is strict: it accepts exactly what the formatter writes
 * (format(parse(text)) == text).  An unknown key, a key twice or out of
 * order, a value out of range or not in the formatter's form, a missing
 * required key or trailing bytes is an error naming the key and quoting
 * the value.  Versions (base/kv.h): a record of a newer minor of this
 * major is read, the keys this reader does not know skipped (and counted:
 * cosched_decision_compat_t, for the caller's one debug line; only then
 * may a key follow reason); a record of another major is refused naming
 * both versions.
 */
#ifndef COSCHED_DECISION_H
#define COSCHED_DECISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/libcosched/base/appname.h"
#include "src/libcosched/model/category.h"
#include "src/libcosched/model/classify.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/base/idset.h"
#include "src/libcosched/base/kv.h"
#include "src/libcosched/model/options.h"
#include "src/libcosched/model/policy_name.h"
#include "src/libcosched/model/power_policy.h"

/* The schema version this release writes and reads: MAJOR[.MINOR]
 * (base/kv.h, cosched(8) UPGRADE).  The formatter writes "cosched/1"
 * while the minor is 0, as the releases before minors did, so that nodes
 * still running one keep enforcing records during a rolling upgrade.
 * A record is written at the lowest version that holds its keys: one
 * without a 1.1 key (numa_priority) is "cosched/1", byte for byte what a
 * 1.0 writer wrote; one with it is "cosched/1.1", which a 1.0 reader
 * reads, skipping the key; one with a 1.2 key (alternates, beside) is
 * "cosched/1.2". */
#define COSCHED_DECISION_SCHEMA 1
#define COSCHED_DECISION_SCHEMA_MINOR 2
/* "cosched/" followed by the schema version. */
#define COSCHED_DECISION_TAG "cosched/"

/* Bounds.  A record always fits COSCHED_DECISION_TEXT_MAX bytes, its
 * terminating NUL included: the formatter refuses a longer one (64 nodes
 * with scattered core lists can need more), the parser a longer line. */
#define COSCHED_DECISION_NODES_MAX 64	/* nodes listed; more: "+N" is not
					 * supported, the formatter refuses */
#define COSCHED_DECISION_NODE_NAME_MAX 64
#define COSCHED_DECISION_IDS_MAX COSCHED_IDSET_MAX	/* ids per node, < */
#define COSCHED_DECISION_REASON_MAX 200
#define COSCHED_DECISION_GOVERNOR_MAX 31
#define COSCHED_DECISION_TEXT_MAX 16384
/* Job ids listed in alternates and in beside, each (1.2). */
#define COSCHED_DECISION_PEERS_MAX 16

typedef enum {
	COSCHED_DECISION_PLACED = 0,
	COSCHED_DECISION_PENDING,
	COSCHED_DECISION_OFF,
	COSCHED_DECISION_PASSTHROUGH,
	COSCHED_DECISION_STATE_COUNT
} cosched_decision_state_t;

typedef enum {
	COSCHED_SCOPE_SOCKET = 0,	/* gangs are sockets (default) */
	COSCHED_SCOPE_NODE,		/* gangs are whole nodes */
	COSCHED_SCOPE_COUNT
} cosched_scope_t;

typedef enum {
	COSCHED_MEMBIND_UNSET = 0,	/* omitted */
	COSCHED_MEMBIND_NONE,
	COSCHED_MEMBIND_BIND,
	COSCHED_MEMBIND_PREFER,
	COSCHED_MEMBIND_COUNT
} cosched_membind_t;

typedef struct {
	char name[COSCHED_DECISION_NODE_NAME_MAX + 1];
	cosched_idset_t sockets, cores, numa;
} cosched_decision_node_t;

/* A policy a newer minor of the schema names and this reader does not
 * know (one added after this release): the record is read, the name kept
 * in newer_policy, and the formatter refuses it (this release never
 * writes a policy it does not have).  Names are 1 to
 * COSCHED_DECISION_POLICY_NAME_MAX bytes of [a-z0-9_], a letter first. */
#define COSCHED_DECISION_POLICY_NEWER COSCHED_POLICY_COUNT
#define COSCHED_DECISION_POLICY_NAME_MAX 31

typedef struct {
	uint32_t job_id;			/* > 0 */
	cosched_decision_state_t state;
	cosched_policy_t policy;		/* or _NEWER */
	char newer_policy[COSCHED_DECISION_POLICY_NAME_MAX + 1]; /* _NEWER */
	cosched_scope_t scope;
	char app[COSCHED_APP_NAME_MAX + 1];	/* "" = unset */
	bool has_class;				/* class, lca, source */
	cosched_category_t category;
	cosched_lca_t lca;
	cosched_class_source_t source;		/* NONE = the site default */
	double mpki;				/* NAN = unset */
	int threads;				/* 0 = unset */
	cosched_membind_t membind;
	cosched_power_policy_t power;		/* UNSET = omitted */
	long freq_req_khz;			/* 0 = unset */
	long freq_khz;				/* 0 = unset */
	char governor[COSCHED_DECISION_GOVERNOR_MAX + 1];	/* "" = unset */
	double slowdown;			/* NAN = unset */
	char reason[COSCHED_DECISION_REASON_MAX + 1];	/* "" = unset */
	/* 1.1: --cosched-numa (what the node's NUMA manager keeps local or
	 * moves first); UNSET = omitted. */
	cosched_numa_priority_t numa_priority;
	/* 1.2: time sharing on Slurm's gang scheduler (cosched(8), TIME
	 * SHARING): the jobs holding its cores, which it alternates with
	 * (never in its slice), and the jobs on the other cores of its
	 * unit, which it runs beside in turn, as they are now; ascending
	 * job ids, 0 of them = omitted. */
	uint32_t alternates[COSCHED_DECISION_PEERS_MAX];
	int nalternates;
	uint32_t beside[COSCHED_DECISION_PEERS_MAX];
	int nbeside;
	int nnodes;				/* 0 .. COSCHED_DECISION_NODES_MAX */
	/* nodes[0 .. nnodes); the entries after them are unspecified (init
	 * and parse leave them: the table is 28 KB of the record's 29, and
	 * slurmctld makes a record at every job start).  Last, so that what
	 * a record holds is the first cosched_decision_size() bytes. */
	cosched_decision_node_t nodes[COSCHED_DECISION_NODES_MAX];
} cosched_decision_t;

/* The bytes of d that hold what it says: every field, and its nodes
 * (nodes[0 .. nnodes)). */
size_t cosched_decision_size(const cosched_decision_t *d);

/* A node name of n bytes (not necessarily terminated) is valid:
 * [A-Za-z0-9._-], 1 .. COSCHED_DECISION_NODE_NAME_MAX bytes (the node's
 * step files for the NUMA manager name nodes by the same rule). */
bool cosched_decision_node_name_ok(const char *name, size_t n);

/* Everything unset: state placed, policy none, scope socket, no node. */
void cosched_decision_init(cosched_decision_t *d);

/* The record's policy as its text names it: "none", a policy of this
 * release, or a newer minor's name this release does not know. */
const char *cosched_decision_policy_of(const cosched_decision_t *d);

/* The node entry named name, added when absent (NULL when full or name
 * invalid; err says which). */
cosched_decision_node_t *cosched_decision_node(cosched_decision_t *d,
					       const char *name,
					       cosched_error_t *err);

/* Set the reason (printf); cut at COSCHED_DECISION_REASON_MAX, every byte
 * outside printable ASCII replaced by '?'. */
void cosched_decision_set_reason(cosched_decision_t *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same from the n strings of parts joined as they are (a NULL part is
 * skipped): what slurmctld writes at every job start, where a vsnprintf
 * of six strings cost more than all of the record's numbers. */
void cosched_decision_set_reason_parts(cosched_decision_t *d,
				       const char *const *parts, size_t n);

/* One line, no newline.  Returns 0, or -1 when d is invalid (err names the
 * field) or len is too small; buf then holds "" when it was invalid. */
int cosched_decision_format(const cosched_decision_t *d, char *buf, size_t len,
			    cosched_error_t *err);

/* Parse one record line (text up to a '\n' or the end; a '\r' just
 * before that end is not part of it).  All or nothing: on error *d is
 * untouched. */
int cosched_decision_parse(const char *text, cosched_decision_t *d,
			   cosched_error_t *err);

/* What a record of a newer minor carried that this reader skipped. */
typedef struct {
	cosched_kv_version_t version;	/* the record's */
	int skipped;			/* keys this reader does not know */
	char first_skipped[32];		/* the first one's name, cut */
} cosched_decision_compat_t;

/* cosched_decision_parse(), and what it skipped into *compat (may be
 * NULL). */
int cosched_decision_parse_compat(const char *text, cosched_decision_t *d,
				  cosched_decision_compat_t *compat,
				  cosched_error_t *err);

/* The first time in this process a record carried keys this reader
 * skipped: true, and the one line a reader logs about it at debug level
 * (later calls: false, so that it is said once):
 * "decision record schema cosched/1.9 is newer than this node's
 * (cosched/1): skipped 2 keys it does not know (first: gpu)". */
bool cosched_decision_compat_note(const cosched_decision_compat_t *c,
				  char *buf, size_t len);

/* Whether two records say the same: every field the text form carries
 * (unset mpki and slowdown, NAN, are equal; class, lca and source count
 * only with has_class; nodes beyond nnodes do not count). */
bool cosched_decision_equal(const cosched_decision_t *a,
			    const cosched_decision_t *b);

/*
 * Find the record line in a SystemComment (may be NULL) and parse it.
 * Returns 1 when found and valid, 0 when there is none, -1 when the line is
 * there but invalid or there are two (err says why; *d untouched unless 1).
 */
int cosched_decision_find(const char *comment, cosched_decision_t *d,
			  cosched_error_t *err);
/* The same, with what was skipped into *compat (may be NULL). */
int cosched_decision_find_compat(const char *comment, cosched_decision_t *d,
				 cosched_decision_compat_t *compat,
				 cosched_error_t *err);

/* The record line of comment, or NULL when it has none or more than one,
 * with its length as the parser reads it into *len (may be NULL): what is
 * copied elsewhere as slurmctld wrote it (AdminComment, the node's copy,
 * the step record), so that keys of a newer minor travel with it. */
const char *cosched_decision_record_line(const char *comment, size_t *len);

/* Whether n bytes at g are a governor's name as records hold one ([a-z0-9_],
 * 1 .. COSCHED_DECISION_GOVERNOR_MAX bytes): the node checks a name it reads
 * from sysfs by the same rule before it writes one there. */
bool cosched_decision_governor_ok(const char *g, size_t n);

/*
 * The launch copy: at a batch job's start slurmctld puts its record line
 * into the job's SPANK environment as COSCHED_DECISION_LAUNCH_NAME=LINE
 * (RecordInLaunch, cosched.conf(5)), so that the node running the batch
 * script has the record without asking slurmctld for it.  slurmctld first
 * removes every entry of that name (a user can put anything in a job's
 * SPANK environment at submission), and a node trusts the copy only in the
 * batch launch request, which slurmd accepts from root and SlurmUser alone
 * (slurmctld); srun's launch requests carry what srun sends.
 */
#define COSCHED_DECISION_LAUNCH_NAME "COSCHED_DECISION"

/* Whether an environment entry ("NAME=VALUE") is a launch copy. */
bool cosched_decision_launch_is(const char *entry);

/* The launch copy's value among env's count entries (count < 0: up to a
 * NULL entry), with its line length as the parser reads it into *len (may
 * be NULL); NULL when there is none, or more than one (refused: a second
 * can only be a forgery or a bug). */
const char *cosched_decision_launch_find(char *const *env, int count,
					 size_t *len);


/* Where the _alloc forms put the comment they return: slurmctld passes
 * one of xmalloc's, so that the comment becomes the job's as it is, not
 * copied again (two copies an edit, and an edit for every job on a
 * socket a job joins or leaves).  It returns NULL only when out of
 * memory; the comment is freed with its allocator's free. */
typedef void *(*cosched_alloc_fn)(size_t size);

/*
 * A new SystemComment: comment (may be NULL) with its record line replaced
 * by record (or appended; record NULL removes it), every other line kept in
 * order with its own line end.  record is taken as the parser reads a line
 * (cosched_decision_line_length: up to its first '\n', a '\r' just before
 * that end left out; one inside, in a key a newer minor added, is kept).
 * A replaced line keeps its line end; an appended one takes the
 * comment's ("\r\n" when it has any or ends with '\r'), after the last line
 * or before the record when the comment does not end with one; removing
 * the last line
 * removes the line end before it, so removing what was appended gives the
 * comment back.  Line ends are "\n" and "\r\n"; every other byte, a lone
 * '\r' too, is a line's and kept.  Further record lines are dropped.  Allocated with alloc
 * ("" for an empty result); NULL when out of memory.
 */
char *cosched_decision_splice_alloc(const char *comment, const char *record,
				    cosched_alloc_fn alloc);

/*
 * The comment with its record's slowdown set (NAN: removed), as parsing
 * the record, setting d.slowdown and formatting and splicing it back would
 * give, without the parse: slurmctld sets the predicted slowdown of every
 * job sharing a socket each time a job arrives there or leaves.  The key
 * is replaced, or inserted where the formatter writes it; every other
 * byte of the comment is kept (so a newer minor's record keeps its
 * version and the keys this release does not know, which a rewrite would
 * drop).  Returns 1 with *out (malloc'd), 0 with *out NULL when there
 * is nothing to change (the comment has no record, its record is another
 * job's: see SystemComment and job arrays above, or its slowdown= is
 * already this value written as the record writes it; a value written
 * otherwise, 2.50 for 2.5, is rewritten), -1 with err when the slowdown is out of range
 * (0 < slowdown <= 1000) and would be written, the edited record would
 * not fit COSCHED_DECISION_TEXT_MAX, or the record line is not one (two
 * of them, another major version; and, when the quick path below does
 * not apply, fields out of form, a quoted slowdown, no job=).  Quick
 * path: in a record of a version this release knows every key of, with
 * job= and slowdown= before its reason and no quote there, those two are
 * found by a walk from blank to blank and nothing else is read; the rest
 * is left for its readers to judge (a record out of form elsewhere is
 * edited and stays as unreadable as it was).
 */
int cosched_decision_set_slowdown(const char *comment, uint32_t job_id,
				  double slowdown, char **out,
				  cosched_error_t *err);
/*
 * cosched_decision_set_slowdown() in the comment itself when the new
 * field is as long as the one it replaces (1.2 for 1.5, not 1.25): then 1
 * with *out NULL, no allocation and no copy of the comment.  Otherwise as
 * cosched_decision_set_slowdown() with *out allocated with alloc: 1 with
 * *out, 0, -1 with err (the comment unchanged).
 */
int cosched_decision_set_slowdown_in_place(char *comment, uint32_t job_id,
					   double slowdown, char **out,
					   cosched_alloc_fn alloc,
					   cosched_error_t *err);

const char *cosched_decision_state_name(cosched_decision_state_t s);
const char *cosched_scope_name(cosched_scope_t s);
const char *cosched_membind_name(cosched_membind_t m);
int cosched_scope_parse(const char *field, const char *value,
			cosched_scope_t *out, cosched_error_t *err);

#endif
