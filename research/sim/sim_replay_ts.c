/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_replay_ts.c - cosched-sim-replay --oversubscribe N: the cores each
 * arriving job takes in a partition time-shared by Slurm's gang scheduler
 * (OverSubscribe=FORCE:N, PreemptMode=GANG, core granularity).
 *
 * Per unit it keeps which cores each job holds, in arrival order (the
 * order of slurmctld's job list, which the select plugin reads), and asks
 * the decision core's time-sharing layer (cosched_ts_choose) for each
 * unit, trying occupied units first (cosched_ts_unit_preferred), as
 * ctl_timeshare.c does.  Of the cores offered, and where the core makes
 * no choice, it takes what cons_tres's job_test takes: cores in no row
 * first, else row by row, the rows sorted fullest first, the lowest core
 * ids of the first row with room (part_data.c's rows: a job goes into the
 * first row it fits; a departure repacks them, jobs ordered by first core
 * then size).  Where the core makes no choice only the first unit with
 * room is modelled, not cons_tres's choice among nodes and sockets.
 */
#include <stdlib.h>
#include <string.h>

#include "research/sim/sim_replay.h"
#include "src/libcosched/policy/occupancy.h"
#include "src/libcosched/policy/timeshare.h"

typedef struct {
	cosched_gang_job_t gj;
	size_t unit;
	uint64_t cores;		/* bit c: core c of its unit */
} ts_job_t;

/* One of cons_tres's rows of a partition: jobs (their ids, in the order
 * they were added) whose cores do not overlap. */
typedef struct {
	uint32_t *ids;
	size_t n;
	uint64_t *mask;		/* per unit */
	int count;		/* cores set: row_set_count */
} ts_row_t;

struct sim_replay_ts {
	cosched_place_t *place;
	size_t nunits;
	int *ncores;		/* per unit */
	int nrows;
	ts_job_t *jobs;
	size_t njobs, cap;
	ts_row_t *rows;
};

sim_replay_ts_t *sim_replay_ts_create(cosched_place_t *place, int rows,
				      cosched_error_t *err)
{
	const cosched_occupancy_t *occ = cosched_place_occupancy(place);
	sim_replay_ts_t *r = calloc(1, sizeof(*r));
	bool ok = r != NULL;

	if (rows < 2) {
		free(r);
		cosched_error_set(err, "--oversubscribe: invalid value %d (2..)",
				  rows);
		return NULL;
	}
	if (ok) {
		r->place = place;
		r->nunits = cosched_place_nunits(place);
		r->nrows = rows;
		r->ncores = calloc(r->nunits, sizeof(int));
		r->rows = calloc((size_t) rows, sizeof(ts_row_t));
		ok = r->ncores && r->rows;
	}
	for (int i = 0; ok && i < rows; i++) {
		r->rows[i].mask = calloc(r->nunits, sizeof(uint64_t));
		r->rows[i].ids = calloc(1, sizeof(uint32_t));
		ok = r->rows[i].mask && r->rows[i].ids;
	}
	for (size_t u = 0; ok && u < r->nunits; u++) {
		cosched_socket_t sock;

		if (cosched_occupancy_socket(occ, u, &sock) ||
		    sock.capacity > COSCHED_TS_MAX_CORES) {
			sim_replay_ts_free(r);
			cosched_error_set(err, "--oversubscribe: units of more than %d cores",
					  COSCHED_TS_MAX_CORES);
			return NULL;
		}
		r->ncores[u] = sock.capacity;
	}
	if (!ok) {
		sim_replay_ts_free(r);
		cosched_error_set(err, "out of memory");
		return NULL;
	}
	return r;
}

void sim_replay_ts_free(sim_replay_ts_t *r)
{
	if (!r)
		return;
	for (int i = 0; r->rows && i < r->nrows; i++) {
		free(r->rows[i].ids);
		free(r->rows[i].mask);
	}
	free(r->rows);
	free(r->ncores);
	free(r->jobs);
	free(r);
}

static ts_job_t *find_job(sim_replay_ts_t *r, uint32_t id)
{
	for (size_t k = 0; k < r->njobs; k++)
		if (r->jobs[k].gj.job_id == id)
			return &r->jobs[k];
	return NULL;
}

/* --- cons_tres's rows ----------------------------------------------------- */

static bool row_fits(const ts_row_t *row, const ts_job_t *j)
{
	return !(row->mask[j->unit] & j->cores);
}

static int row_add(ts_row_t *row, const ts_job_t *j)
{
	uint32_t *ids = realloc(row->ids, (row->n + 1) * sizeof(uint32_t));

	if (!ids)
		return -1;
	row->ids = ids;
	row->ids[row->n++] = j->gj.job_id;
	row->mask[j->unit] |= j->cores;
	row->count += __builtin_popcountll(j->cores);
	return 0;
}

/* part_data_sort_res: fullest first, by its pairwise swaps. */
static void rows_sort(sim_replay_ts_t *r)
{
	for (int i = 0; i < r->nrows; i++)
		for (int j = i + 1; j < r->nrows; j++)
			if (r->rows[j].count > r->rows[i].count) {
				ts_row_t t = r->rows[i];

				r->rows[i] = r->rows[j];
				r->rows[j] = t;
			}
}

static void row_clear(sim_replay_ts_t *r, ts_row_t *row)
{
	row->n = 0;
	row->count = 0;
	memset(row->mask, 0, r->nunits * sizeof(uint64_t));
}

/* A job's first core over the whole partition, then its size: the order
 * part_data_build_row_bitmaps repacks the rows in. */
static bool repack_before(const ts_job_t *a, const ts_job_t *b)
{
	size_t fa = a->unit * 64 + (size_t) __builtin_ctzll(a->cores),
	       fb = b->unit * 64 + (size_t) __builtin_ctzll(b->cores);

	return fa < fb || (fa == fb && __builtin_popcountll(a->cores) <
						__builtin_popcountll(b->cores));
}

/* part_data_build_row_bitmaps after a job left the rows: every job again,
 * by first core (a stable sort), each into the first row it fits, the
 * rows sorted after each; the old rows kept when one does not fit. */
static int rows_repack(sim_replay_ts_t *r)
{
	size_t n = 0, k = 0;
	ts_job_t **order;
	uint32_t **old_ids;
	size_t *old_n;
	bool dangling = false;

	for (int i = 0; i < r->nrows; i++)
		n += r->rows[i].n;
	if (!n) {
		for (int i = 0; i < r->nrows; i++)
			row_clear(r, &r->rows[i]);
		return 0;
	}
	order = calloc(n, sizeof(*order));
	old_ids = calloc((size_t) r->nrows, sizeof(*old_ids));
	old_n = calloc((size_t) r->nrows, sizeof(*old_n));
	if (!order || !old_ids || !old_n)
		goto oom;
	for (int i = 0; i < r->nrows; i++) {
		old_n[i] = r->rows[i].n;
		old_ids[i] = malloc((r->rows[i].n + 1) * sizeof(uint32_t));
		if (!old_ids[i])
			goto oom;
		memcpy(old_ids[i], r->rows[i].ids,
		       r->rows[i].n * sizeof(uint32_t));
		for (size_t j = 0; j < r->rows[i].n; j++) {
			ts_job_t *job = find_job(r, r->rows[i].ids[j]);
			size_t at = k++;

			/* Insertion keeps equal keys in row order. */
			while (at > 0 && repack_before(job, order[at - 1])) {
				order[at] = order[at - 1];
				at--;
			}
			order[at] = job;
		}
		row_clear(r, &r->rows[i]);
	}
	for (k = 0; k < n; k++) {
		int i = 0;

		while (i < r->nrows && !row_fits(&r->rows[i], order[k]))
			i++;
		if (i == r->nrows)
			dangling = true;
		else if (row_add(&r->rows[i], order[k]))
			goto oom;
		rows_sort(r);
	}
	if (dangling) {
		for (int i = 0; i < r->nrows; i++) {
			row_clear(r, &r->rows[i]);
			for (size_t j = 0; j < old_n[i]; j++)
				if (row_add(&r->rows[i],
					    find_job(r, old_ids[i][j])))
					goto oom;
		}
	}
	for (int i = 0; i < r->nrows; i++)
		free(old_ids[i]);
	free(old_ids);
	free(old_n);
	free(order);
	return 0;
oom:
	for (int i = 0; old_ids && i < r->nrows; i++)
		free(old_ids[i]);
	free(old_ids);
	free(old_n);
	free(order);
	return -1;
}

static uint64_t lowest(uint64_t mask, int n)
{
	uint64_t out = 0;

	while (n-- > 0 && mask) {
		out |= mask & -mask;
		mask &= mask - 1;
	}
	return out;
}

/* The cores cons_tres's job_test takes for a job of threads cores on unit
 * u, allowed the cores allow there: those in no row, else row by row,
 * fullest first (the sort is kept, as job_test keeps it); 0 if none. */
static uint64_t cons_tres_cores(sim_replay_ts_t *r, size_t u, uint64_t allow,
				int threads)
{
	uint64_t free_cores = allow;

	for (int i = 0; i < r->nrows; i++)
		free_cores &= ~r->rows[i].mask[u];
	if (__builtin_popcountll(free_cores) >= threads)
		return lowest(free_cores, threads);
	rows_sort(r);
	for (int i = 0; i < r->nrows; i++) {
		free_cores = allow & ~r->rows[i].mask[u];
		if (__builtin_popcountll(free_cores) >= threads)
			return lowest(free_cores, threads);
	}
	return 0;
}

/* --- arrivals and departures ---------------------------------------------- */

/* The unit's holders, in arrival order (*n of them; free the result). */
static cosched_ts_holder_t *holders_of(const sim_replay_ts_t *r, size_t u,
				       size_t *n)
{
	cosched_ts_holder_t *h = calloc(r->njobs + 1, sizeof(*h));

	*n = 0;
	for (size_t k = 0; h && k < r->njobs; k++)
		if (r->jobs[k].unit == u) {
			h[*n].gj = r->jobs[k].gj;
			h[*n].gj.name = NULL;
			h[*n].gj.threads = __builtin_popcountll(
				r->jobs[k].cores);
			h[(*n)++].cores = r->jobs[k].cores;
		}
	return h;
}

/* " alternates=12,14" as the decision record writes it (nothing when
 * none). */
static void print_peers(FILE *out, const char *key,
			const cosched_ts_holder_t *h, size_t n, uint64_t mask)
{
	uint32_t ids[16];
	int nids = 0;

	for (size_t k = 0; k < n && k < 64; k++)
		if (mask & ((uint64_t) 1 << k))
			cosched_ts_add_peer(ids, &nids, 16, h[k].gj.job_id);
	if (!nids)
		return;
	fprintf(out, " %s=", key);
	for (int i = 0; i < nids; i++)
		fprintf(out, "%s%u", i ? "," : "", ids[i]);
}

static const char *how_name(const cosched_ts_choice_t *c)
{
	if (c->how == COSCHED_TS_IDLE)
		return "idle";
	if (c->how == COSCHED_TS_ALTERNATE)
		return c->with_bad ? "bad" : "other";
	return "none";
}

int sim_replay_ts_arrive(sim_replay_ts_t *r, const cosched_gang_job_t *job,
			 FILE *out, cosched_error_t *err)
{
	cosched_ts_choice_t *choice;
	cosched_ts_holder_t *h = NULL;
	size_t n = 0, unit = 0, node;
	uint64_t cores = 0, alternates, beside;
	const cosched_ts_choice_t *how = NULL;
	ts_job_t *j;
	int i;

	if (find_job(r, job->job_id))
		return cosched_error_set(err, "job id: %u already holds cores",
					 job->job_id);
	choice = calloc(r->nunits + 1, sizeof(*choice));
	if (!choice)
		return cosched_error_set(err, "out of memory");
	for (size_t u = 0; u < r->nunits; u++) {
		if (job->threads > r->ncores[u])
			continue;	/* wider than the unit: cons_tres's */
		free(h);
		if (!(h = holders_of(r, u, &n)))
			goto oom;
		if (cosched_ts_choose(r->place, r->ncores[u], r->nrows, h, n,
				      job, &choice[u], err)) {
			free(h);
			free(choice);
			return -1;
		}
	}
	for (int pass = 0; pass < 2 && !cores; pass++)
		for (size_t u = 0; u < r->nunits && !cores; u++) {
			free(h);
			if (!(h = holders_of(r, u, &n)))
				goto oom;
			if (!cosched_ts_unit_preferred(&choice[u], n, pass))
				continue;
			cores = cons_tres_cores(r, u, choice[u].cores,
						job->threads);
			unit = u;
			how = &choice[u];
		}
	/* No choice pairs well: cons_tres's own, on the first unit with
	 * room. */
	for (size_t u = 0; u < r->nunits && !cores; u++) {
		if (job->threads > r->ncores[u])
			continue;
		cores = cons_tres_cores(r, u, ~(uint64_t) 0 >>
					(64 - r->ncores[u]), job->threads);
		unit = u;
		how = NULL;
	}
	if (!cores) {
		free(h);
		free(choice);
		fprintf(out, "%u pending\n", job->job_id);
		return 0;
	}
	free(h);
	if (!(h = holders_of(r, unit, &n)))
		goto oom;
	cosched_ts_partners(h, n, job->job_id, cores, &alternates, &beside);
	node = cosched_place_unit_node(r->place, unit);
	fprintf(out, "%u %zu %zu cores=", job->job_id, node,
		unit - cosched_place_unit_first(r->place, node));
	for (int c = 0, sep = 0; c < r->ncores[unit]; c++)
		if (cores & ((uint64_t) 1 << c))
			fprintf(out, "%s%zu", sep++ ? "," : "",
				(unit - cosched_place_unit_first(r->place,
								 node)) *
				(size_t) r->ncores[unit] + (size_t) c);
	fprintf(out, " how=%s", how ? how_name(how) : "none");
	print_peers(out, "alternates", h, n, alternates);
	print_peers(out, "beside", h, n, beside);
	fputc('\n', out);
	free(h);
	free(choice);
	if (r->njobs == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 8;
		ts_job_t *jobs = realloc(r->jobs, cap * sizeof(*jobs));

		if (!jobs)
			return cosched_error_set(err, "out of memory");
		r->jobs = jobs;
		r->cap = cap;
	}
	j = &r->jobs[r->njobs++];
	*j = (ts_job_t) { .gj = *job, .unit = unit, .cores = cores };
	j->gj.name = NULL;
	/* job_res_add_to_part: the first row it fits, unsorted. */
	for (i = 0; i < r->nrows && !row_fits(&r->rows[i], j); i++)
		;
	if (i < r->nrows && row_add(&r->rows[i], j))
		return cosched_error_set(err, "out of memory");
	return 0;
oom:
	free(choice);
	return cosched_error_set(err, "out of memory");
}

int sim_replay_ts_depart(sim_replay_ts_t *r, uint32_t job_id,
			 cosched_error_t *err)
{
	ts_job_t *j = find_job(r, job_id);
	bool in_row = false;

	if (!j)
		return cosched_error_set(err, "job id: %u holds no cores",
					 job_id);
	for (int i = 0; i < r->nrows && !in_row; i++)
		for (size_t k = 0; k < r->rows[i].n; k++)
			if (r->rows[i].ids[k] == job_id) {
				memmove(&r->rows[i].ids[k],
					&r->rows[i].ids[k + 1],
					(r->rows[i].n - k - 1) *
					sizeof(uint32_t));
				r->rows[i].n--;
				in_row = true;
				break;
			}
	memmove(j, j + 1, (size_t) (r->jobs + r->njobs - j - 1) * sizeof(*j));
	r->njobs--;
	if (in_row && rows_repack(r))
		return cosched_error_set(err, "out of memory");
	return 0;
}
