/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * numad.h - what the parts of cosched-numad, the node's NUMA memory
 * manager (cosched-numad(8)), share.
 *
 *   cosched_numad.c     options, cosched.conf, the socket and the loop
 *   common.c   the log, the clocks, a process of the last scan, who
 *                    is an administrator
 *   client.c   the connections: request lines read and replies
 *                    written as each client takes them, limits per user
 *   scan.c     the Slurm steps on the node, their processes, each
 *                    one's pages per NUMA node, CPU node and bandwidth
 *   pages.c    finding a process's pages on a node and moving them
 *                    (move_pages(2)); the freeze window
 *   local.c    high-priority jobs kept local
 *   request.c  the commands: migrate, drain, priority, status
 *   state.c    what survives a restart (NumaStateDir/numad.state):
 *                    the recent requests and their line among it
 *
 * cosched_numad.c calls the parts, the parts call common.c, and no
 * two files call each other round a loop.
 *
 * One thread: requests are served between the batches of a migration, so
 * a request never stalls the node and the daemon never holds a job's
 * memory (no mlock; a batch is NumaBatchPages pages).
 */
#ifndef NUMAD_H
#define NUMAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <syslog.h>

#include "src/libcosched/conf/conf.h"
#include "src/libcosched/base/error.h"
#include "src/libcosched/base/kv.h"
#include "src/libcosched/model/options.h"
#include "src/libcosched/model/victim.h"
#include "src/node/spool.h"

#define NUMAD_PROCS_MAX 4096
#define NUMAD_FROZEN_MAX 65536		/* runs of frozen pages kept */
#define NUMAD_RECENT_MAX 16		/* finished requests kept for status */
#define NUMAD_PRIORITIES_MAX 1024
#define NUMAD_STATE_FILE "numad.state"
#define NUMAD_REQUEST_MAX 1024		/* bytes of a request line */
#define NUMAD_CLIENTS_MAX 256		/* connections open at once */

/* A connection to the socket (client.c). */
typedef struct numad_client numad_client_t;


/* Where a process's bandwidth figure comes from: its step's LLC misses
 * per second, as the step's sampler last gave them in the node's energy
 * ledger (shared among the step's processes by their CPU time), or, where
 * the sampler counts none, an estimate from CPU time.  A plan ranks by
 * the measured figure only when every process it ranks has one: the two
 * are not in the same unit. */
#define NUMAD_BW_MEASURED "measured:llc"
#define NUMAD_BW_ESTIMATE "estimate:cpu"

/* A process of a Slurm step on this node, as the last scan saw it. */
typedef struct {
	cosched_proc_id_t id;
	uint32_t job_id, step_id, uid;
	cosched_numa_priority_t step_prio;	/* the record's, by the step file */
	int cpu_node;			/* -1: several nodes or unknown */
	uint64_t pages[COSCHED_VICTIM_MAX_NODES];	/* movable, per node */
	uint64_t other_pages;		/* file-backed and huge: not moved */
	double bandwidth;		/* NUMAD_BW_ESTIMATE: CPU s per s */
	bool measured;			/* mem_rate is its step's sampler's */
	double mem_rate;		/* its share of its step's LLC misses
					 * per second (NUMAD_BW_MEASURED) */
	unsigned long long cpu_ticks;	/* utime + stime at the scan */
	double scanned_at;		/* monotonic seconds */
	/* Kept local (high priority): pages pulled home, range pulls, and
	 * where the next look starts. */
	uint64_t pulled, pulls, local_cursor;
} numad_proc_t;

/* A 2 MiB range of a high-priority process's memory seen remote: how many
 * looks in a row, and its pulls in the current window. */
#define NUMAD_RANGE_BYTES (2u << 20)
#define NUMAD_RANGES_MAX 16384
typedef struct {
	cosched_proc_id_t id;
	uint64_t base;
	int streak, moves;
	double window_start;		/* wall clock */
} numad_range_t;

/* Pages that arrived on node by a migration, frozen there until until
 * (wall clock, so the window survives a restart). */
typedef struct {
	cosched_proc_id_t id;
	uint64_t addr;
	uint32_t pages;
	int node;
	double until;
} numad_frozen_t;

typedef enum {
	NUMAD_REQ_RUNNING = 0, NUMAD_REQ_DONE, NUMAD_REQ_PARTIAL,
	NUMAD_REQ_INTERRUPTED, NUMAD_REQ_PLANNED, NUMAD_REQ_CANCELLED
} numad_req_state_t;

#define NUMAD_VICTIMS_MAX 256
typedef struct {
	cosched_proc_id_t id;
	uint32_t job_id;
	uint64_t planned, moved;
	uint64_t cursor;		/* next address to look at */
	bool gone;			/* exited during the request */
} numad_victim_t;

typedef struct {
	uint64_t id;
	char kind[8];			/* "migrate" | "drain" */
	int src, dst;
	uint64_t asked;
	cosched_victim_order_t order;
	uint32_t job_id;		/* 0: every job */
	uint32_t uid;			/* who asked */
	numad_req_state_t state;
	uint64_t planned, moved, failed_busy, failed_shared, failed_other,
		 skipped;
	double started, ended;		/* wall clock */
	int nvictims, current;
	numad_victim_t victims[NUMAD_VICTIMS_MAX];
	char note[160];			/* why it stopped short, or "" */
	numad_client_t *client;		/* waiting for the outcome, or NULL */
} numad_request_t;

/* An administrator's `priority JOB LEVEL`: over the record's. */
typedef struct {
	uint32_t job_id;
	cosched_numa_priority_t prio;
} numad_priority_t;

typedef struct {
	cosched_conf_t conf;
	char conf_path[COSCHED_PATH_MAX];
	long slurm_uid;			/* SlurmUser: may migrate; -1 none */
	char slurm_user[64];
	int nnodes;			/* NUMA nodes (possible ids) */
	bool node_has_mem[COSCHED_VICTIM_MAX_NODES];
	unsigned distance[COSCHED_VICTIM_MAX_NODES * COSCHED_VICTIM_MAX_NODES];
	char boot[COSCHED_BOOT_ID_LEN + 1];
	int nprocs;
	numad_proc_t procs[NUMAD_PROCS_MAX];	/* in pid order */
	double scanned_at;		/* monotonic: the last scan */
	/* Processes of steps the last scan found beyond NUMAD_PROCS_MAX,
	 * not followed (said in the log when it starts, and in status). */
	int unfollowed;
	/* Step files that did not read at the last scan: each is warned
	 * about once, not at every scan (malloc'd names). */
	int nbad_steps;
	char **bad_steps;
	int nfrozen;
	numad_frozen_t frozen[NUMAD_FROZEN_MAX];
	int npriorities;
	numad_priority_t priorities[NUMAD_PRIORITIES_MAX];
	int nranges;
	numad_range_t ranges[NUMAD_RANGES_MAX];
	bool busy;			/* active is running */
	numad_request_t active;
	int nrecent;
	numad_request_t recent[NUMAD_RECENT_MAX];	/* oldest first */
	uint64_t next_id;
	double next_batch;		/* monotonic: the rate bound */
	bool stop;
} numad_t;

/* common.c: what every part uses */
double numad_now(void);		/* monotonic seconds */
double numad_wall(void);	/* wall clock seconds */
/* The log goes to f from now on (NULL: syslog, which main opens). */
void numad_log_to(FILE *f);
void numad_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* procs[] is in pid order (the scan builds it from /proc sorted by pid):
 * the index of id there, or -1; the entry itself, or NULL. */
int numad_proc_index(const numad_t *d, const cosched_proc_id_t *id);
numad_proc_t *numad_find_proc(numad_t *d, const cosched_proc_id_t *id);
/* Root or SlurmUser: may move pages and set priorities, and are served
 * first. */
bool numad_is_admin(const numad_t *d, uid_t uid);

/* client.c: the connections (the loop in cosched_numad.c drives them) */
struct pollfd;
void numad_clients_init(void);
/* Take the connections waiting on the listening socket lfd (those over
 * a limit are told so and closed). */
void numad_clients_accept(const numad_t *d, int lfd);
/* p[0..NUMAD_CLIENTS_MAX): what each connection waits for; then, after
 * poll(2), read and write what is ready. */
int numad_clients_pollfds(struct pollfd *p);
void numad_clients_events(const struct pollfd *p);
/* The next whole request line to serve (the administrators' first, then
 * in the order they arrived), or NULL. */
numad_client_t *numad_clients_next(uid_t *uid, char **line);
/* Close the connections past their time; the earliest deadline, if
 * before wake. */
void numad_clients_expire(void);
double numad_clients_wake(double wake);
/* At the end: what can still be sent is, and every connection closed. */
void numad_clients_close_all(void);
/* A reply line (c may be NULL: nothing); text: lines already ended by
 * newlines; the end: "rc=N", after which the connection closes once the
 * client has taken its reply. */
void numad_reply(numad_client_t *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void numad_reply_text(numad_client_t *c, const char *text, size_t len);
void numad_reply_end(numad_client_t *c, int rc);

/* scan.c */
/* The machine: nodes, which have memory, distances (libnuma). */
int numad_machine(numad_t *d, cosched_error_t *err);
/* Rescan the steps and their processes (and drop the frozen runs that
 * ended or lost their process). */
int numad_scan(numad_t *d, cosched_error_t *err);
/* A process's priority: its job's administrator's setting, else what its
 * step file says (the decision record's numa_priority). */
cosched_numa_priority_t numad_proc_prio(const numad_t *d,
					const numad_proc_t *p);
int numad_set_prio(numad_t *d, uint32_t job_id, cosched_numa_priority_t p,
		   cosched_error_t *err);
/* kernel.numa_balancing: 0 off, >0 on, -1 unknown.  When on, the kernel
 * itself moves a running process's pages back towards the CPUs that touch
 * them, undoing a migration that went the other way. */
int numad_numa_balancing(void);
/* The node's free memory in pages (-1: unknown). */
long long numad_node_free_pages(int node);

/* pages.c */
/* Pages of p frozen on node now. */
/* Each process's pages frozen now, per node: tot[i] for procs[i]
 * (malloc'd; NULL when out of memory).  One pass over the runs. */
uint64_t (*numad_frozen_totals(const numad_t *d))[COSCHED_VICTIM_MAX_NODES];
/* Drop the runs whose window ended or whose process is no step's any
 * more (scanned: by the last scan; else, at start, by /proc). */
void numad_frozen_expire(numad_t *d, bool scanned);
/*
 * Move up to max of v's eligible pages from src to dst, looking from
 * v->cursor on: *moved, and the refused counted into r.  Returns 0, 1
 * when v has no eligible page left on src, -1 when the process is gone.
 */
int numad_move_batch(numad_t *d, numad_request_t *r, numad_victim_t *v,
		     uint64_t max, uint64_t *moved);

/* What pages.c shares with local.c. */
typedef struct {
	uint64_t lo, hi;	/* [lo, hi) */
} numad_span_t;
/* p's frozen address spans now, sorted (malloc'd; *n may be 0). */
numad_span_t *numad_frozen_spans(const numad_t *d,
				 const cosched_proc_id_t *id, size_t *n,
				 long page);
bool numad_in_spans(const numad_span_t *s, size_t n, uint64_t addr);
/* Freeze, on node, the pages of addrs whose status says they are there. */
void numad_freeze(numad_t *d, const cosched_proc_id_t *id, void **addrs,
		  const int *status, size_t n, int node, long page);
/* Whether id is still the same process (pid and start time, not a
 * zombie): what every move_pages(2) on a pid is preceded by, so that a
 * pid recycled since the scan is never acted on. */
bool numad_proc_same(const cosched_proc_id_t *id);
/* id's anonymous mappings in address order (malloc'd; *n may be 0); -1
 * when the process is gone or its maps are not the kernel's form. */
int numad_anon_maps(const cosched_proc_id_t *id, numad_span_t **out,
		    size_t *n);
/* The part of the first of s[0..n) that ends after from: 0, or 1 when
 * none does. */
int numad_span_next(const numad_span_t *s, size_t n, uint64_t from,
		    uint64_t *lo, uint64_t *hi);

/* local.c */
/* High-priority processes: pull home the ranges seen remote in
 * NumaHighScans consecutive looks, at most NumaHighMovesMax times per
 * range per NumaFreezeWindow.  After every scan. */
void numad_keep_local(numad_t *d);

/* request.c */
/* Serve one request line from uid; the reply goes to c (kept in the
 * active request when it waits for a migration's end). */
void numad_serve(numad_t *d, numad_client_t *c, uid_t uid, char *line);
/* One batch of the active request, if its time has come. */
void numad_work(numad_t *d);

/* state.c: the requests kept, and the file that keeps them */
/* Keep r among the recent requests (the oldest goes past
 * NUMAD_RECENT_MAX), no client attached. */
void numad_keep_recent(numad_t *d, const numad_request_t *r);
/* The line a request prints in status, logs and replies, and the state
 * file keeps. */
void numad_request_line(const numad_request_t *r, cosched_kv_out_t *o);
int numad_state_save(numad_t *d, cosched_error_t *err);
/* At start: what the previous run left (a request it was in the middle
 * of is reported interrupted, never resumed). */
int numad_state_load(numad_t *d, cosched_error_t *err);

#endif
