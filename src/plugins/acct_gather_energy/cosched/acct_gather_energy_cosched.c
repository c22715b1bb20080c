/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  acct_gather_energy_cosched.c - each step's own share of its node's
 *  energy in Slurm's accounting, on nodes that jobs share.
 *
 *  Slurm charges a step the whole node's energy while it ran
 *  (acct_gather_energy/rapl: the counters' difference over the step's
 *  life), which slurm.conf(5) calls accurate only with exclusive nodes.
 *  cosched's energy ledger (src/node/energy_ledger.h) already
 *  hands each microjoule of the node's RAPL energy to exactly one step
 *  present; this plugin gives Slurm that share instead:
 *
 *    slurmd        the node's energy (package + DRAM over every package,
 *                  as RAPL counts it, since slurmd started): what
 *                  scontrol show node and the controller see, as rapl's.
 *    slurmstepd    the step's share up to the poll: each poll of
 *                  jobacct_gather settles the ledger for the step
 *                  (cosched_energy_ledger_settle()), so what the step's
 *                  last poll reports is its share until its last task
 *                  ended; that is the step's ConsumedEnergy in sacct, and
 *                  the job's is the sum of its steps' (Slurm's own rule
 *                  without PrologFlags=Contain).
 *
 *  Unknown is Slurm's NO_VAL64, never 0: a node without RAPL, a step the
 *  ledger never held (its sampler did not start: ProfileJobs=no, no
 *  cosched-sampler), a cosched.conf that does not parse.  A step that had
 *  a share keeps its last one when a later settle fails (the ledger busy
 *  past the wait, or gone as the sampler left).
 *
 *  Call order (every call under Slurm's g_context_lock): init and
 *  conf_set (both daemons; RAPL is opened at the first call after them,
 *  when the daemon knows its node); slurmd: update_node_energy then
 *  get_data(NODE_ENERGY) when slurmctld pings (AcctGatherNodeFreq) and at
 *  registration; slurmstepd: set_data(STEP_PTR) before the tasks start,
 *  then get_data(NODE_ENERGY_UP, or NODE_ENERGY with energy profiling) at
 *  each poll of jobacct_gather, at each task's end and for sstat, and
 *  set_data(PROFILE) on the energy profiling timer.
 *
 *  Nothing here fails a step or drains a node (rapl sends a drain request
 *  when its MSR cannot be read; a shared node must not be lost to a
 *  profiler's fault).  Messages go to the daemon's log with info() or
 *  debug(): in slurmstepd error() would reach the user's stderr too.
\*****************************************************************************/

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/parse_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"
#include "src/slurmd/slurmstepd/slurmstepd_job.h"

#include "src/node/energy_ledger.h"
#include "src/node/rapl.h"
#include "src/plugins/common/plugin_conf.h"

const char plugin_name[] = "AcctGatherEnergy cosched plugin";
const char plugin_type[] = "acct_gather_energy/cosched";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* How long a poll waits for the ledger's lock (a sampler holds it for a
 * read and a rewrite of a small file). */
#define LEDGER_WAIT_MS 500

static bool loaded;		/* conf read and RAPL tried, once */
static cosched_rapl_t *rapl;	/* NULL: energy unknown on this node */
static char *ledger_dir;	/* SlurmdSpoolDir/cosched */

/* Watts are figured over at least this long: two polls a few
 * microseconds apart (a ping's update then its read, the polls at each
 * task's end) would give one RAPL tick's worth, 0 or thousands of W. */
#define WATTS_MIN_INTERVAL_S 1.0

/* slurmd: the node's energy since slurmd started. */
static acct_gather_energy_t node_energy;
static uint64_t node_uj;
static struct timespec node_start, node_last;

/* slurmstepd: the step, and its share at the last settle.  When the
 * ledger starts again under the step (removed, set aside as unreadable,
 * another major during an upgrade) its generation changes, and its entry
 * goes on from what its sampler carried into it (which may be less than
 * this step last settled: settles since the sampler's last update):
 * share_base is what this step had beyond that, so that it keeps what it
 * had and adds what follows. */
static cosched_step_ref_t step_ref;
static bool have_step, have_share, lock_told;
static uint64_t share_uj, share_base, share_last_uj, share_gen;
static uint32_t step_watts;
static struct timespec share_first, share_last;

static double _seconds(const struct timespec *a, const struct timespec *b)
{
	return (double) (b->tv_sec - a->tv_sec) +
	       (double) (b->tv_nsec - a->tv_nsec) / 1e9;
}

static uint32_t _watts(uint64_t uj, double seconds)
{
	double w = (double) uj / 1e6 / seconds + 0.5;

	return w < (double) UINT32_MAX - 1 ? (uint32_t) w : UINT32_MAX - 2;
}

/* slurmd's configuration (node name, spool directory), in slurmd and
 * slurmstepd: looked up, not linked, because slurmctld loads this plugin
 * too (to check slurm.conf) and has none. */
static slurmd_conf_t *_slurmd_conf(void)
{
	slurmd_conf_t **p = dlsym(RTLD_DEFAULT, "conf");

	return p ? *p : NULL;
}

/* cosched.conf's SysfsRoot for this node, and RAPL under it; once per
 * process (slurmd, or one step's slurmstepd).  A change of cosched.conf
 * or of the node's RAPL is seen at slurmd's next start (and by each new
 * step). */
static void _load(void)
{
	slurmd_conf_t *sc;
	cosched_conf_t c;
	cosched_error_t err;
	char *path, *root;

	if (loaded || !running_in_slurmd_stepd())
		return;
	loaded = true;
	sc = _slurmd_conf();
	node_energy.current_watts = NO_VAL;
	node_energy.consumed_energy = NO_VAL64;
	path = cosched_plugin_conf_path();
	if (cosched_plugin_conf_read(path, &c, &err)) {
		info("%s: %s: energy unknown on this node", plugin_type,
		     err.msg);
		xfree(path);
		return;
	}
	xfree(path);
	root = xstrdup(c.sysfs_root);
	xstrsubstituteall(root, "%n", sc && sc->node_name ? sc->node_name : "");
	rapl = cosched_rapl_open(root, &err);
	if (!rapl)
		debug("%s: %s: %s", plugin_type, root, err.msg);
	xfree(root);
	if (sc && sc->spooldir)
		ledger_dir = xstrdup_printf("%s/cosched", sc->spooldir);
	if (rapl) {
		node_energy.current_watts = 0;
		node_energy.consumed_energy = 0;
		clock_gettime(CLOCK_MONOTONIC, &node_start);
		node_last = node_start;
	}
}

/* slurmd: add what RAPL counted since the last sample, at most once a
 * WATTS_MIN_INTERVAL_S (a sample in between would only shorten the
 * interval the power is figured over). */
static void _node_update(void)
{
	cosched_energy_node_t n;
	cosched_error_t err;
	struct timespec now;
	uint64_t uj;
	double dt;

	if (!rapl)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	dt = _seconds(&node_last, &now);
	if (dt < WATTS_MIN_INTERVAL_S)
		return;
	if (cosched_rapl_sample(rapl, NULL, &n, &err)) {
		/* The next sample covers this interval too. */
		debug("%s: %s", plugin_type, err.msg);
		return;
	}
	uj = n.package_uj + (n.has_dram ? n.dram_uj : 0);
	node_uj += uj;
	node_last = now;
	node_energy.consumed_energy = (node_uj + 500000) / 1000000;
	node_energy.previous_consumed_energy = node_energy.consumed_energy;
	node_energy.current_watts = _watts(uj, dt);
	node_energy.ave_watts = _watts(node_uj, _seconds(&node_start, &now));
	node_energy.poll_time = time(NULL);
}

/* slurmstepd: settle the ledger for the step, and keep its share. */
static void _step_settle(void)
{
	cosched_ledger_outcome_t oc;
	cosched_ledger_step_t out;
	cosched_error_t err;
	struct timespec now;
	uint64_t total;
	double dt;
	int rc;

	if (!rapl || !have_step || !ledger_dir)
		return;
	rc = cosched_energy_ledger_settle(rapl, ledger_dir, &step_ref,
					  LEDGER_WAIT_MS, &out, &oc, &err);
	if (rc < 0 && oc.lock_refused) {
		/* An administrator's to mend: said once a step, in slurmd's
		 * log (error() would reach the user's stderr). */
		if (!lock_told)
			info("%s: step %u.%u keeps %" PRIu64 " J: %s",
			     plugin_type, step_ref.job_id, step_ref.step_id,
			     (share_uj + 500000) / 1000000, err.msg);
		lock_told = true;
	} else if (rc < 0) {
		debug("%s: settling the energy ledger: %s", plugin_type,
		      err.msg);
	}
	if (rc)
		return;		/* the last share stands */
	if (oc.tell)
		info("%s: energy ledger in %s: %s; each step keeps what it had",
		     plugin_type, ledger_dir, oc.note);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!have_share) {
		share_first = share_last = now;
		share_gen = oc.gen;
		have_share = true;
	}
	/* Generation 0 is a 1.0 sampler's write during an upgrade (it
	 * drops the generation, and what was carried, without starting
	 * again): not a restart; a 1.1 update never goes back to 0. */
	if (oc.gen != share_gen && oc.gen)
		share_base = share_uj > out.carried_uj ?
			     share_uj - out.carried_uj : 0;
	share_gen = oc.gen;
	total = share_base + out.energy.total_uj;
	/* Never back (a 1.0 sampler, which carries nothing, may restart
	 * the ledger during an upgrade). */
	if (total < share_uj) {
		share_base += share_uj - total;
		total = share_uj;
	}
	share_uj = total;
	dt = _seconds(&share_last, &now);
	if (dt >= WATTS_MIN_INTERVAL_S) {
		step_watts = _watts(total - share_last_uj, dt);
		share_last_uj = total;
		share_last = now;
	}
}

/*
 * slurmstepd: the step's share into *e, for every kind of read
 * (NODE_ENERGY_UP, and STRUCT or NODE_ENERGY when energy profiling is on:
 * jobacct_gather then asks for those).  Unknown: consumed_energy NO_VAL64
 * with 0 W, as acct_gather_energy/rapl (a NO_VAL in current_watts would
 * reach the step's TRES usage as 4294967294 W).
 */
static void _step_energy(acct_gather_energy_t *e)
{
	struct timespec now;
	double dt;

	_step_settle();
	e->base_consumed_energy = 0;
	e->current_watts = step_watts;
	if (!have_share) {
		e->consumed_energy = NO_VAL64;
		e->previous_consumed_energy = 0;
		e->ave_watts = 0;
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	e->consumed_energy = (share_uj + 500000) / 1000000;
	e->previous_consumed_energy = e->consumed_energy;
	dt = _seconds(&share_first, &now);
	e->ave_watts = dt >= WATTS_MIN_INTERVAL_S ? _watts(share_uj, dt) : 0;
	e->poll_time = time(NULL);
}

extern int init(void)
{
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	cosched_rapl_close(rapl);
	rapl = NULL;
	xfree(ledger_dir);
	loaded = false;
	return SLURM_SUCCESS;
}

extern int acct_gather_energy_p_update_node_energy(void)
{
	_load();
	if (running_in_slurmd())
		_node_update();
	return SLURM_SUCCESS;
}

extern int acct_gather_energy_p_get_data(enum acct_energy_type data_type,
					 void *data)
{
	acct_gather_energy_t *energy = data;

	_load();
	switch (data_type) {
	case ENERGY_DATA_JOULES_TASK:
	case ENERGY_DATA_NODE_ENERGY_UP:
	case ENERGY_DATA_STRUCT:
	case ENERGY_DATA_NODE_ENERGY:
		/* In a step every read is the step's: with energy profiling
		 * jobacct_gather reads NODE_ENERGY, not NODE_ENERGY_UP. */
		if (running_in_slurmstepd()) {
			_step_energy(energy);
			break;
		}
		_node_update();
		memcpy(energy, &node_energy, sizeof(node_energy));
		break;
	case ENERGY_DATA_LAST_POLL:
		*(time_t *) data = running_in_slurmstepd() ? time(NULL) :
				   node_energy.poll_time;
		break;
	case ENERGY_DATA_SENSOR_CNT:
		*(uint16_t *) data = 1;
		break;
	default:
		debug("%s: get_data: type %d not kept", plugin_type,
		      (int) data_type);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

extern int acct_gather_energy_p_set_data(enum acct_energy_type data_type,
					 void *data)
{
	switch (data_type) {
	case ENERGY_DATA_STEP_PTR: {
		stepd_step_rec_t *s = data;

		step_ref.job_id = s->step_id.job_id;
		step_ref.step_id = s->step_id.step_id;
		have_step = true;
		break;
	}
	case ENERGY_DATA_PROFILE:
		/* The energy profiling timer (slurmstepd only): settle, so
		 * the step's share keeps up.  No energy series of its own
		 * (acct_gather_profile): the share is in its record and in
		 * accounting. */
		_load();
		if (running_in_slurmstepd())
			_step_settle();
		break;
	case ENERGY_DATA_RECONFIG:
		break;
	default:
		debug("%s: set_data: type %d not kept", plugin_type,
		      (int) data_type);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

/* No acct_gather.conf options: cosched.conf says where RAPL is. */
extern void acct_gather_energy_p_conf_options(s_p_options_t **full_options,
					      int *full_options_cnt)
{
}

/* RAPL is opened at first use, once the daemon knows its node's name. */
extern void acct_gather_energy_p_conf_set(int context_id_in,
					  s_p_hashtbl_t *tbl)
{
}

/* What scontrol show config lists for the plugin: nothing of its own.
 * (The list type's name differs between Slurm series.) */
extern void acct_gather_energy_p_conf_values(void *data)
{
}
