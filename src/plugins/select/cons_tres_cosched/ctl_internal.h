/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ctl_internal.h - the controller's state, in one struct, and what its
 *  files give each other.  The controller is split by idea:
 *    controller.c    lifecycle (init, fini, reconfigure)
 *    ctl_instance.c  the one controller, which every file works on
 *    ctl_timing.c    DebugFlags=Timing's clocks and line
 *    ctl_refresh.c   the thread that reads profiles and live loads
 *    ctl_cores.c     a job's cores as Slurm's records hold them
 *    ctl_state.c     the placement engine's state from Slurm's node and
 *                    job records: rebuild, enter and leave, live loads
 *    ctl_view.c      a job as the decision core sees it
 *    ctl_record.c    what was decided for each job, kept in memory and
 *                    written into SystemComment, its copies
 *    ctl_attempt.c   one attempt forwarded to cons_tres, steered
 *    ctl_place.c     job_test: the engine's choice turned into steering
 *    ctl_timeshare.c partitions time-shared by Slurm's gang scheduler
 *    ctl_begin.c     job begin (the decision as it happened, power), end
 *    ctl_shared.c    jobs time-sharing cores outside cons_tres's rows
 *  Locking: every call from Slurm takes c->mutex (under slurmctld's job
 *  write lock); the refresh thread touches only its own struct, under its
 *  own mutexes (ctl_refresh.c).
\*****************************************************************************/
#ifndef COSCHED_CTL_INTERNAL_H
#define COSCHED_CTL_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "src/ctld/cosched_ctld.h"
#include "src/libcosched/conf/conf.h"
#include "src/libcosched/model/decision.h"
#include "src/libcosched/model/decisions.h"
#include "src/libcosched/model/options.h"
#include "src/libcosched/policy/place.h"

#include "controller.h"

/* The profile and live-load reader (ctl_refresh.c): cosched_ctld.so's
 * table and its refresher (src/libcosched/store/refresh.h), whose thread reads only its
 * own copy of the settings. */
typedef struct {
	const cosched_ctld_api_t *api;
	cosched_refresher_t *refresher;
} ctl_refresh_t;

/* A job as the decision core sees it (ctl_view.c). */
typedef enum {
	KIND_PLACE,	/* placed by the engine (job.kind says how) */
	KIND_OFF,	/* --cosched=off */
	KIND_PASS,	/* a rule leaves it to cons_tres (note says) */
} job_kind_t;

typedef struct {
	cosched_job_options_t opts;
	cosched_place_job_t job;	/* gang job, class, cores, kind */
	bool has_prof;
	job_kind_t kind;
	char note[160];		/* why, for the record */
	/* Last, and not cleared (5 KB of EDP points, every job begin):
	 * read only where has_prof says the lookup wrote it. */
	cosched_profile_summary_t prof;
} job_view_t;

typedef struct {
	pthread_mutex_t mutex;
	bool on;
	cosched_conf_t conf;
	char *conf_path;

	/* cosched_ctld.so (the profile cache needs libjansson, which the
	 * select plugin, loaded by every client command, must not). */
	void *ctld_handle;
	ctl_refresh_t refresh;
	unsigned long live_applied_gen;

	/* The interference model the engine borrows: cosched.conf's, with
	 * the learned cells that have enough samples where
	 * InterferenceSource=learned (ctl_refresh.c). */
	cosched_interference_model_t interference;
	unsigned long learn_applied_gen;
	int learned_cells;

	/* The placement engine over Slurm's nodes (ctl_state.c). */
	cosched_place_t *place;
	int map_nodes;		/* node_record_count it was built for */
	/* job_test's working bitmaps, map_nodes wide, kept between calls
	 * (a scheduling pass asks for every queued job): the steering
	 * (cleared again after each attempt, node by node) and the copy of
	 * the node bitmap an attempt narrows. */
	cosched_steer_t steer;
	bitstr_t *attempt_nodes;
	bool rebuild_needed;
	time_t node_state_seen;
	/* What was decided for each running job (ctl_record.c): the
	 * records' fields, which their text in SystemComment is written
	 * from.  Kept across rebuilds; read from the records only at the
	 * first rebuild after slurmctld started (decided_loaded). */
	cosched_decisions_t *decided;
	bool decided_loaded;
	/* The jobs whose records say they time-share cores outside
	 * cons_tres's rows, without a slowdown (ctl_shared.c): a
	 * neighbour's arrival or departure sets none until a rebuild counts
	 * them again.  Few: usually none. */
	uint32_t *shared_ids;
	size_t nshared, shared_cap;

	/* Time sharing (ctl_timeshare.c): slurmctld's part_list, the
	 * partitions served (names, rows each), each node's rows
	 * (ts_nnodes entries) and what was last logged about them. */
	void **part_list;		/* List / list_t * */
	char **ts_names;
	int *ts_rows;
	int ts_nparts;
	int *ts_node_rows;
	int ts_nnodes;
	char *ts_logged;

	/* How job_test placed a job when the policy's first choice was not
	 * the rule (lenient mode's last resort, min_slowdown packing for the
	 * queue), for the record at job begin (job_begin follows job_test
	 * under the same lock). */
	uint32_t placed_note_job_id;
	char placed_note[COSCHED_DECISION_REASON_MAX + 1];
	/* The view job_test took of the job it placed last (run now), for
	 * that job's job_begin: slurmctld's select_nodes calls one after
	 * the other under the job write lock, and changes nothing the view
	 * reads in between (options, name, user, shape) but the id of a job
	 * array's task, which takes an id of its own when it is split from
	 * the array's record (job_array_post_sched).  view_job NULL: none. */
	job_view_t view;
	const void *view_job;		/* the job record it is of */
	uint32_t view_job_id;		/* its id then */
	/* min_slowdown: the jobs pending, counted at most once a second (a
	 * scan of the job list). */
	long queue_jobs;
	time_t queue_counted;

	/* DebugFlags=Timing (controller.c): wall time of every job_test,
	 * CPU time of one call in CTL_CPU_SAMPLE (c_calls and e_samples of
	 * them). */
	uint64_t t_calls, c_calls, e_calls, e_samples;
	double t_total, t_forward, c_total, c_forward, e_total;
	bool c_on;		/* this call takes CPU time */

	/* slurmctld's own variables, found with dlsym() (controller.c). */
	int *ctld_node_record_count;
	node_record_t ***ctld_node_record_table_ptr;
	time_t *ctld_last_node_update;
	void **job_list;		/* List / list_t * */
	time_t *last_job_update;
} cosched_ctl_t;

/* The one controller (controller.c). */
extern cosched_ctl_t cosched_ctl;

/* Slurm's variables through the pointers above: a data reference to
 * libslurmfull would keep the plugin from loading in client commands. */
#define node_record_count (*cosched_ctl.ctld_node_record_count)
#define node_record_table_ptr (*cosched_ctl.ctld_node_record_table_ptr)
#define last_node_update (*cosched_ctl.ctld_last_node_update)

/* ctl_timing.c */
double ctl_now(void);
double ctl_cpu_now(void);
void ctl_log_timing(cosched_ctl_t *c);

/* ctl_refresh.c */
int ctl_refresh_start(cosched_ctl_t *c);
void ctl_refresh_stop(cosched_ctl_t *c);
/* The profile summary of app that serves a job of uid, in the order of
 * cosched_profile_find_for: the user's own, then the site's or a shared
 * one (1 found; another user's profile is none). */
int ctl_refresh_lookup(cosched_ctl_t *c, const char *app, uid_t uid,
		       cosched_profile_summary_t *out);
/* Apply the live loads read since the last call to the engine. */
void ctl_refresh_apply_live(cosched_ctl_t *c, bool again);
/* Take a newly learned interference table: true when the model changed
 * (the engine must be rebuilt on it). */
bool ctl_refresh_apply_learned(cosched_ctl_t *c);

/* ctl_cores.c */
/* The bit of core 0 of socket s of the job's node j (of cores a socket)
 * in jr->core_bitmap when the socket's cores are the cores bits from it
 * (a bit_test each, not ctl_cores_has_core's 76 instructions), else
 * -1. */
int ctl_cores_socket_first_bit(job_resources_t *jr, int j, int s,
			       int cores);
/* Whether the job holds core k of socket s of its node j: Slurm's
 * get_job_resources_bit(), which 26.05 no longer has, from the offset
 * every series has. */
bool ctl_cores_has_core(job_resources_t *jr, int j, int s, int k);
/* Whether cons_tres counts the job's cores as used: it runs, or a gang
 * time slice suspended it (one suspended by scontrol gave them back). */
bool ctl_cores_counted(const job_record_t *job_ptr);
/* The units a job holds, from its job_resources; *holds xmalloc'd. */
int ctl_cores_holds(cosched_ctl_t *c, job_record_t *job_ptr,
		    cosched_hold_t **holds);

/* ctl_state.c */
int ctl_state_ensure(cosched_ctl_t *c);
void ctl_state_free(cosched_ctl_t *c);
void ctl_state_check(cosched_ctl_t *c, const char *when);
void ctl_state_enter(cosched_ctl_t *c, job_record_t *job_ptr,
		     const cosched_decision_t *d);
/* The same with the units it holds (ctl_cores_holds), n of them. */
void ctl_state_enter_holds(cosched_ctl_t *c, job_record_t *job_ptr,
			   const cosched_decision_t *d,
			   const cosched_hold_t *holds, int n);
void ctl_state_leave(cosched_ctl_t *c, job_record_t *job_ptr);

/* SELECT_MODE_* without depending on where each series defines them. */
#define MODE_RUN_NOW	0
#define MODE_TEST_ONLY	1
#define MODE_WILL_RUN	2

/* ctl_attempt.c */
/* One forwarded attempt, the given bitmap narrowed to steer's nodes
 * (NULL: unsteered); on success the result (cons_tres's choice) is copied
 * back. */
int ctl_place_attempt(cosched_ctl_t *c, cosched_try_fn try, void *ctx,
		      bitstr_t *node_bitmap, const cosched_steer_t *steer);

/* ctl_timeshare.c */
/* Which partitions cosched time-shares (gang time slices it can serve)
 * and each node's rows, from the partition records: at every rebuild;
 * what is and is not served is logged when it changes. */
void ctl_ts_detect(cosched_ctl_t *c, int nnodes);
void ctl_ts_free(cosched_ctl_t *c);
/* The jobs a core holds in the job's partition when cosched time-shares
 * it (OverSubscribe=FORCE:N's N), else 0. */
int ctl_ts_rows(const cosched_ctl_t *c, const job_record_t *job_ptr);
/* The rows node i's cores hold for time-shared partitions, 0 (none) when
 * no time-shared partition has it. */
int ctl_ts_node_rows(const cosched_ctl_t *c, int i);
/* job_test in a time-shared partition: the cores the pair judgement
 * chooses (src/libcosched/policy/timeshare.h), else cons_tres's. */
int ctl_ts_place(cosched_ctl_t *c, job_record_t *job_ptr, job_view_t *v,
		 bitstr_t *node_bitmap, uint16_t mode, cosched_try_fn try,
		 void *ctx);
/* At job begin in a time-shared partition: the record's alternates (the
 * jobs holding its cores) and beside (the jobs on its units' other
 * cores), record 1.2. */
void ctl_ts_record(cosched_ctl_t *c, job_record_t *job_ptr,
		   cosched_decision_t *d);
/* mover started on (started) or left its time-shared units: the records
 * of the other jobs there say their partners and slowdown as they are
 * now. */
void ctl_ts_refresh_neighbours(cosched_ctl_t *c, job_record_t *mover,
			       bool started);

/* ctl_view.c */
void ctl_view(cosched_ctl_t *c, job_record_t *job_ptr, job_view_t *v);

/*
 * DebugFlags=Timing takes the thread's CPU time of one call in this many
 * (job_test, job begin and end alike).  The thread CPU clock is a system
 * call: under load, with a read at every call, the cosched part of
 * job_test measured 2.2 to 3.6 ms of wall time per call for 9 us of CPU,
 * and 71 us without the reads (doc/bench-controller.md).  The wall clock
 * (vDSO) is read at every call.
 */
#define CTL_CPU_SAMPLE 15
/* Which call of each CTL_CPU_SAMPLE: never the first (whose job_test
 * builds the state from the job records), and with an odd period a stream
 * of alternating job ends and begins has both kinds timed. */
#define CTL_CPU_SAMPLED(count) ((count) % CTL_CPU_SAMPLE == CTL_CPU_SAMPLE - 1)

/* ctl_record.c */
/* The decision kept for the job (c->decided) into *d: whether it has
 * one. */
bool ctl_record_kept(cosched_ctl_t *c, uint32_t job_id, cosched_decision_t *d);
/* Keep d as the job's decision (in place of what was kept), whether or
 * not its text can be written. */
void ctl_record_keep(cosched_ctl_t *c, job_record_t *job_ptr,
		     const cosched_decision_t *d);
/* The job ended or went back to the queue: its decision is forgotten. */
void ctl_record_forget(cosched_ctl_t *c, uint32_t job_id);
/* Keep the decision of a running job that has none kept from the text of
 * its record (after a restart; 1 found, as cosched_decision_find). */
int ctl_record_load(cosched_ctl_t *c, job_record_t *job_ptr,
		    cosched_decision_t *d);
/* DebugFlags=Check: every running job's record says what was kept for it
 * (logged; when is what was just done). */
void ctl_record_check(cosched_ctl_t *c, const char *when);
void ctl_record_init(cosched_ctl_t *c, cosched_decision_t *d,
		     job_record_t *job_ptr, const job_view_t *v,
		     cosched_decision_state_t state);
/* Write d's text into the job's SystemComment (only when it changed): 0,
 * or -1 when it could not be written (logged), the comment left as it
 * was. */
int ctl_record_write(cosched_ctl_t *c, job_record_t *job_ptr,
		     const cosched_decision_t *d);
/* The same, the record line written left in line (COSCHED_DECISION_TEXT_MAX
 * bytes) for the launch copy. */
int ctl_record_write_line(cosched_ctl_t *c, job_record_t *job_ptr,
			  const cosched_decision_t *d, char *line);
/* Set only the predicted slowdown in the job's decision and the text of
 * its record (when it changed). */
void ctl_record_set_slowdown(cosched_ctl_t *c, job_record_t *job_ptr,
			     double slowdown);
/* At job begin: any launch copy in the job's SPANK environment removed,
 * and with line (the record line just written, ctl_record_write_line;
 * NULL: none) the record's put there for a batch job (RecordInLaunch). */
void ctl_record_launch_copy(cosched_ctl_t *c, job_record_t *job_ptr,
			    const char *line);

/* ctl_shared.c */
/* The job (decision d, NULL: none) was resumed onto cores other jobs
 * hold and left out: its record and those of the counted jobs holding those cores say
 * they time-share them, without a slowdown. */
void ctl_shared_resumed(cosched_ctl_t *c, job_record_t *job_ptr,
			cosched_decision_t *d);
/* Whether a decision's reason carries a note of ctl_shared.c. */
bool ctl_shared_marked(const cosched_decision_t *d);
/* Whether the job's record says it time-shares cores (no slowdown). */
bool ctl_shared_is(const cosched_ctl_t *c, uint32_t job_id);
/* The job ended: no longer one of them. */
void ctl_shared_forget(cosched_ctl_t *c, uint32_t job_id);
/* The job (decision d) was entered and is counted: a note its record
 * still has goes, with a predicted slowdown. */
void ctl_shared_counted(cosched_ctl_t *c, job_record_t *job_ptr,
			cosched_decision_t *d);
/* After a rebuild: the jobs whose records had a note and are counted now
 * get their reason and a predicted slowdown back; the jobs holding cores
 * that were left out, and the counted jobs holding those cores, say they
 * time-share them. */
void ctl_shared_rebuilt(cosched_ctl_t *c, const uint32_t *marked,
			size_t nmarked, const uint32_t *left, size_t nleft);

#endif
