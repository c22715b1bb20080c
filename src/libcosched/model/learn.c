/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * learn.c - the learned interference table: its rule, and its
 * text form (model/learn.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/appname.h"
#include "src/libcosched/base/kv.h"
#include "src/libcosched/base/kv_file.h"
#include "src/libcosched/model/learn.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"

static const struct {
	const char *key, *text;
} skip_names[COSCHED_SKIP_COUNT] = {
	[COSCHED_SKIP_UNREADABLE] = { "unreadable",
		"the record could not be read or trusted" },
	[COSCHED_SKIP_NO_RUNTIME] = { "no_runtime",
		"no measured run time (a sampler of an earlier release)" },
	[COSCHED_SKIP_NO_CLASS] = { "no_class",
		"no class in its decision record" },
	[COSCHED_SKIP_SIGNALLED] = { "signalled",
		"cut short: a task ended by a signal (time limit, scancel)" },
	[COSCHED_SKIP_FAILED] = { "failed",
		"a task exited with a nonzero status" },
	[COSCHED_SKIP_NO_CORUNNER_LIST] = { "no_corunner_list",
		"its co-runners are not known (the node's ledger was not kept)" },
	[COSCHED_SKIP_CORUNNER_MISSING] = { "corunner_missing",
		"a co-runner's record never came" },
	[COSCHED_SKIP_SEVERAL] = { "several",
		"not exactly one co-runner for most of its run" },
	[COSCHED_SKIP_CORUNNER_LATER] = { "corunner_later",
		"the co-runner came after it started" },
	[COSCHED_SKIP_CORUNNER_CLASS] = { "corunner_class",
		"the co-runner's class is unknown" },
	[COSCHED_SKIP_NO_SOLO] = { "no_solo",
		"no solo run of its application" },
	[COSCHED_SKIP_NO_EXIT] = { "no_exit",
		"how its tasks ended is not known (an earlier release)" },
	[COSCHED_SKIP_CORUNNER_UNUSABLE] = { "corunner_unusable",
		"a co-runner's record cannot be read, trusted or has no run time" },
	[COSCHED_SKIP_TOO_MANY_PENDING] = { "too_many_pending",
		"too many records waiting at once" },
	[COSCHED_SKIP_NO_APP] = { "no_app",
		"the job names no application (no solo time to compare with)" },
	[COSCHED_SKIP_NOT_PLACED] = { "not_placed",
		"cosched did not place it (--nodelist, --exclusive, passthrough, off)" },
	[COSCHED_SKIP_NOT_MERGED] = { "not_merged",
		"its application's profile did not take the run" },
	[COSCHED_SKIP_NO_USER] = { "no_user",
		"its user is not known (a sampler of an earlier release)" },
};

const char *cosched_learn_skip_key(cosched_learn_skip_t r)
{
	return r < COSCHED_SKIP_COUNT ? skip_names[r].key : "?";
}

const char *cosched_learn_skip_text(cosched_learn_skip_t r)
{
	return r < COSCHED_SKIP_COUNT ? skip_names[r].text : "?";
}

void cosched_learn_init(cosched_learn_table_t *t, long long now)
{
	memset(t, 0, sizeof(*t));
	t->created = t->updated = now;
	t->through = (double) now;
}

static void names_free(cosched_learn_names_t *s)
{
	free(s->v);
	free(s->index);
	memset(s, 0, sizeof(*s));
}

void cosched_learn_free(cosched_learn_table_t *t)
{
	if (!t)
		return;
	free(t->solo);
	t->solo = NULL;
	t->nsolo = t->solo_cap = 0;
	names_free(&t->seen);
	names_free(&t->pending);
}

/* 2^-(dt / h): the weight left after dt seconds; h 0 = no decay. */
static double decay(double dt, double half_life_s)
{
	if (half_life_s <= 0.0 || dt <= 0.0)
		return 1.0;
	return exp2(-dt / half_life_s);
}

/* One run into decayed sums (the rule in model/learn.h). */
static void accumulate(double *weight, double *sum_log, long long *last,
		       bool first, double s, long long t_obs,
		       double half_life_s)
{
	if (first || t_obs >= *last) {
		double f = first ? 1.0 : decay((double) (t_obs - *last),
					       half_life_s);

		*weight = *weight * f + 1.0;
		*sum_log = *sum_log * f + log(s);
		*last = t_obs;
	} else {
		double f = decay((double) (*last - t_obs), half_life_s);

		*weight += f;
		*sum_log += f * log(s);
	}
}

/* uid's share of c; a new one, when the cell is full, replaces the user
 * heard from longest ago. */
static cosched_learn_voter_t *voter_of(cosched_learn_cell_t *c, long uid)
{
	cosched_learn_voter_t *u;
	int old = 0;

	for (int i = 0; i < c->nusers; i++)
		if (c->user[i].uid == uid)
			return &c->user[i];
	if (c->nusers < COSCHED_LEARN_CELL_USERS) {
		u = &c->user[c->nusers++];
	} else {
		for (int i = 1; i < c->nusers; i++)
			if (c->user[i].last < c->user[old].last)
				old = i;
		u = &c->user[old];
	}
	memset(u, 0, sizeof(*u));
	u->uid = uid;
	return u;
}

int cosched_learn_add(cosched_learn_table_t *t, cosched_lca_t victim,
		      cosched_lca_t corunner, double s, long long t_obs,
		      long uid, double half_life_s, cosched_error_t *err)
{
	cosched_learn_cell_t *c;
	cosched_learn_voter_t *u;

	if (victim >= COSCHED_LCA_COUNT || corunner >= COSCHED_LCA_COUNT)
		return cosched_error_set(err, "learned table: no such class pair");
	if (!(s > 0.0) || !isfinite(s))
		return cosched_error_set(err,
			"learned table: slowdown %g out of range", s);
	/* A slowdown far beyond anything "Effects of co-scheduling applications
	 * on multicore architectures" (NTUA thesis, 2014) saw is a broken run,
	 * not a pair: it is capped like a configured one. */
	if (s > COSCHED_SLOWDOWN_MAX)
		s = COSCHED_SLOWDOWN_MAX;
	c = &t->cell[victim][corunner];
	accumulate(&c->weight, &c->sum_log, &c->last, !c->n, s, t_obs,
		   half_life_s);
	c->n++;
	u = voter_of(c, uid);
	accumulate(&u->weight, &u->sum_log, &u->last, !u->n, s, t_obs,
		   half_life_s);
	u->n++;
	return 0;
}

double cosched_learn_cell_value(const cosched_learn_cell_t *c)
{
	if (!c->n || !(c->weight > 0.0))
		return NAN;
	return exp(c->sum_log / c->weight);
}

typedef struct {
	double log_value, votes;
} vote_t;

static int by_log_value(const void *a, const void *b)
{
	double x = ((const vote_t *) a)->log_value;
	double y = ((const vote_t *) b)->log_value;

	return (x > y) - (x < y);
}

double cosched_learn_cell_robust(const cosched_learn_cell_t *c,
				 double configured, double lo, double hi,
				 long long now, double half_life_s,
				 int *voters)
{
	vote_t v[COSCHED_LEARN_CELL_USERS + 2];
	double total = COSCHED_LEARN_CONF_VOTES, below = 0.0, m;
	double conf_log = log(configured);
	int n = 0, users = 0;

	v[n++] = (vote_t) { conf_log, COSCHED_LEARN_CONF_VOTES };
	for (int i = 0; i < c->nusers; i++) {
		const cosched_learn_voter_t *u = &c->user[i];
		double votes = u->uid == 0 ? COSCHED_LEARN_SITE_VOTES : 1.0;

		/* A user whose runs have decayed below half a sample has
		 * no say left. */
		if (!(u->weight > 0.0) || u->weight * decay((double)
		    (now - u->last), half_life_s) < 0.5)
			continue;
		v[n++] = (vote_t) { u->sum_log / u->weight, votes };
		total += votes;
		users++;
	}
	if (!c->nusers && c->n && c->weight > 0.0) {
		/* An earlier release's cell: its runs' users are not known. */
		v[n++] = (vote_t) { c->sum_log / c->weight, 1.0 };
		total += 1.0;
		users++;
	}
	qsort(v, (size_t) n, sizeof(*v), by_log_value);
	m = v[n - 1].log_value;
	for (int i = 0; i < n; i++) {
		below += v[i].votes;
		if (below > total / 2.0) {
			m = v[i].log_value;
			break;
		}
		if (below == total / 2.0 && i + 1 < n) {
			m = (v[i].log_value + v[i + 1].log_value) / 2.0;
			break;
		}
	}
	if (voters)
		*voters = users;
	/* The configured value itself where the vote lands on it, to the
	 * bit: the caller then keeps the configured cell whole. */
	if (m == conf_log)
		return configured;
	return fmin(fmax(exp(m), lo), hi);
}

double cosched_learn_cell_samples(const cosched_learn_cell_t *c,
				  long long now, double half_life_s)
{
	if (!c->n)
		return 0.0;
	return c->weight * decay((double) (now - c->last), half_life_s);
}

/* ---- solo times and decided records -------------------------------------- */

static cosched_learn_solo_t *solo_find(const cosched_learn_table_t *t,
				       const char *app, long owner)
{
	for (int i = 0; i < t->nsolo; i++)
		if (t->solo[i].owner == owner && !strcmp(t->solo[i].app, app))
			return &t->solo[i];
	return NULL;
}

int cosched_learn_solo_add(cosched_learn_table_t *t, const char *app,
			   long owner, double runtime_s, long long when,
			   cosched_error_t *err)
{
	cosched_learn_solo_t *s = solo_find(t, app, owner);

	if (cosched_app_name_check("app", app, err))
		return -1;
	if (!(runtime_s > 0.0) || !(runtime_s < 1e9))
		return cosched_error_set(err,
			"learned table: solo run of %s: %g s not kept",
			app, runtime_s);
	if (runtime_s < 0.001)
		runtime_s = 0.001;	/* what the text form keeps */
	if (!s) {
		if (t->nsolo == COSCHED_LEARN_APPS_MAX) {
			/* The application seen alone longest ago goes. */
			int old = 0;

			for (int i = 1; i < t->nsolo; i++)
				if (t->solo[i].last < t->solo[old].last)
					old = i;
			t->solo[old] = t->solo[--t->nsolo];
		}
		if (t->nsolo == t->solo_cap) {
			int cap = t->solo_cap ? 2 * t->solo_cap : 16;
			void *p = realloc(t->solo, (size_t) cap * sizeof(*t->solo));

			if (!p)
				return cosched_error_set(err,
					"learned table: out of memory");
			t->solo = p;
			t->solo_cap = cap;
		}
		s = &t->solo[t->nsolo++];
		memset(s, 0, sizeof(*s));
		strcpy(s->app, app);
		s->owner = owner;
	}
	if (s->nruns == COSCHED_LEARN_SOLO_RUNS) {
		memmove(s->runs, s->runs + 1, (size_t) (s->nruns - 1) *
						  sizeof(double));
		s->nruns--;
	}
	s->runs[s->nruns++] = runtime_s;
	if (when > s->last)
		s->last = when;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

int cosched_learn_solo_time(const cosched_learn_table_t *t, const char *app,
			    long owner, double *out)
{
	const cosched_learn_solo_t *s = solo_find(t, app, owner);
	double v[COSCHED_LEARN_SOLO_RUNS];

	if (!s || !s->nruns)
		return 0;
	memcpy(v, s->runs, (size_t) s->nruns * sizeof(double));
	qsort(v, (size_t) s->nruns, sizeof(double), cmp_double);
	*out = s->nruns % 2 ? v[s->nruns / 2] :
	       (v[s->nruns / 2 - 1] + v[s->nruns / 2]) / 2.0;
	return 1;
}

/* ---- sets of record names --------------------------------------------------- */

/* A record's name as the learner makes it: JOB.STEP.NODE. */
static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > COSCHED_LEARN_NAME_MAX || s[0] == '.')
		return false;
	return strspn(s, COSCHED_FILE_NAME_CHARS) == n;
}

static int names_find(const cosched_learn_names_t *s, const char *name)
{
	if (!s->nindex)
		return -1;
	for (size_t i = cosched_name_hash(name) & (s->nindex - 1);;
	     i = (i + 1) & (s->nindex - 1)) {
		int k = s->index[i];

		if (k < 0)
			return -1;
		if (!strcmp(s->v[k].name, name))
			return k;
	}
}

static void names_index_put(cosched_learn_names_t *s, int k)
{
	size_t i = cosched_name_hash(s->v[k].name) & (s->nindex - 1);

	while (s->index[i] >= 0)
		i = (i + 1) & (s->nindex - 1);
	s->index[i] = k;
}

static void names_reindex(cosched_learn_names_t *s)
{
	for (size_t i = 0; i < s->nindex; i++)
		s->index[i] = -1;
	for (int k = 0; k < s->n; k++)
		names_index_put(s, k);
}

static int names_add(cosched_learn_names_t *s, const char *what,
		     const char *name, double time, cosched_error_t *err)
{
	if (!name_ok(name))
		return cosched_error_set(err, "learned table: %s: %s: expected JOB.STEP.NODE",
					 what, COSCHED_QUOTE(name));
	if (names_find(s, name) >= 0)
		return 0;
	if (s->n == COSCHED_LEARN_SEEN_MAX)
		return cosched_error_set(err, "learned table: already %d %s records",
					 COSCHED_LEARN_SEEN_MAX, what);
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 64;
		size_t nindex = 4 * (size_t) cap;
		void *v = realloc(s->v, (size_t) cap * sizeof(*s->v));
		int *index;

		if (!v)
			return cosched_error_set(err, "learned table: out of memory");
		s->v = v;
		index = malloc(nindex * sizeof(*index));
		if (!index)
			return cosched_error_set(err, "learned table: out of memory");
		free(s->index);
		s->index = index;
		s->nindex = nindex;
		s->cap = cap;
		names_reindex(s);
	}
	strcpy(s->v[s->n].name, name);
	s->v[s->n].time = time;
	names_index_put(s, s->n);
	s->n++;
	return 0;
}

bool cosched_learn_seen(const cosched_learn_table_t *t, const char *name)
{
	return names_find(&t->seen, name) >= 0;
}

int cosched_learn_seen_add(cosched_learn_table_t *t, const char *name,
			   double time, cosched_error_t *err)
{
	return names_add(&t->seen, "decided", name, time, err);
}

bool cosched_learn_pending(const cosched_learn_table_t *t, const char *name)
{
	return names_find(&t->pending, name) >= 0;
}

int cosched_learn_pending_add(cosched_learn_table_t *t, const char *name,
			      double time, cosched_error_t *err)
{
	return names_add(&t->pending, "pending", name, time, err);
}

void cosched_learn_pending_remove(cosched_learn_table_t *t, const char *name)
{
	cosched_learn_names_t *s = &t->pending;
	int k = names_find(s, name);

	if (k < 0)
		return;
	s->v[k] = s->v[--s->n];
	names_reindex(s);
}

void cosched_learn_advance(cosched_learn_table_t *t, double through)
{
	cosched_learn_names_t *s = &t->seen;
	int k = 0;

	through = floor(through * 1000.0) / 1000.0;
	if (through <= t->through)
		return;
	t->through = through;
	for (int i = 0; i < s->n; i++)
		if (s->v[i].time >= through)
			s->v[k++] = s->v[i];
	if (k != s->n) {
		s->n = k;
		names_reindex(s);
	}
}

/* ---- what the controller uses ---------------------------------------------- */

void cosched_learn_apply(const cosched_learn_table_t *t,
			 const cosched_interference_model_t *configured,
			 double min_samples, double half_life_s,
			 const cosched_pref_rule_t *rule, long long now,
			 cosched_interference_model_t *out, int *used)
{
	double lo, hi;
	int n = 0;

	*out = *configured;
	cosched_interference_range(configured, &lo, &hi);
	for (int v = 0; v < COSCHED_LCA_COUNT; v++)
		for (int c = 0; c < COSCHED_LCA_COUNT; c++) {
			const cosched_learn_cell_t *cell = &t->cell[v][c];
			double s;

			/* Samples to the nearest whole: a cell with exactly
			 * the minimum is not dropped a second later. */
			if (!cell->n || floor(cosched_learn_cell_samples(cell,
					now, half_life_s) + 0.5) < min_samples)
				continue;
			s = cosched_learn_cell_robust(cell,
					configured->slowdown[v][c], lo, hi,
					now, half_life_s, NULL);
			/* A vote that keeps the configured value keeps its
			 * preference entry too: a pair the site's
			 * PreferenceTable forbids stays forbidden. */
			if (!isfinite(s) || s == configured->slowdown[v][c])
				continue;
			out->slowdown[v][c] = s;
			out->pref.pref[cosched_lca_to_category(v)]
				      [cosched_lca_to_category(c)] =
				cosched_pref_rank(rule, s);
			n++;
		}
	if (used)
		*used = n;
}

/* ---- reading ------------------------------------------------------------ */

static int expect_ll(cosched_kv_reader_t *r, const char *key, long long *out,
		     cosched_error_t *err)
{
	uint64_t x;

	if (cosched_kv_expect_u64(r, key, LLONG_MAX, &x, err))
		return -1;
	*out = (long long) x;
	return 0;
}

static int expect_num(cosched_kv_reader_t *r, const char *key, double lo,
		      double hi, double *out, cosched_error_t *err)
{
	char *v;

	if (cosched_kv_expect(r, key, &v, err))
		return -1;
	if (cosched_parse_number(v, out) || !(*out >= lo && *out <= hi))
		return cosched_error_set(err, "%s: %s: expected a number from %g to %g",
					 key, COSCHED_QUOTE(v), lo, hi);
	return 0;
}

/* "cosched-interference/1 created=T updated=T through=SECONDS". */
static int read_head(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	cosched_learn_table_t *t = ctx;

	return expect_ll(&line->r, "created", &t->created, err) ||
	       expect_ll(&line->r, "updated", &t->updated, err) ||
	       expect_num(&line->r, "through", 0, 1e13, &t->through, err) ?
	       -1 : 0;
}

/* "cell victim=L corunner=C n=N weight=W sum_log=S last=T", once a pair. */
static int read_cell(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	cosched_learn_table_t *t = ctx;
	cosched_kv_reader_t *r = &line->r;
	cosched_learn_cell_t c;
	cosched_lca_t a, b;
	char *v;
	double n;

	memset(&c, 0, sizeof(c));	/* its voters follow (read_voter) */
	if (cosched_kv_expect(r, "victim", &v, err) ||
	    cosched_lca_parse("victim", v, &a, err) ||
	    cosched_kv_expect(r, "corunner", &v, err) ||
	    cosched_lca_parse("corunner", v, &b, err) ||
	    expect_num(r, "n", 1, 1e15, &n, err) ||
	    expect_num(r, "weight", 1e-300, 1e15, &c.weight, err) ||
	    expect_num(r, "sum_log", -1e15, 1e15, &c.sum_log, err) ||
	    expect_ll(r, "last", &c.last, err))
		return -1;
	if (a >= COSCHED_LCA_COUNT || b >= COSCHED_LCA_COUNT)
		return cosched_error_set(err, "unknown class pair");
	if (t->cell[a][b].n)
		return cosched_error_set(err, "cell %s:%s twice",
					 cosched_lca_name(a),
					 cosched_lca_name(b));
	c.n = (long long) n;
	t->cell[a][b] = c;
	return 0;
}

/* "skipped reason=R n=N"; a reason a newer minor added is counted
 * nowhere here. */
static int read_skipped(void *ctx, cosched_kv_line_t *line,
			cosched_error_t *err)
{
	cosched_learn_table_t *t = ctx;
	long long n;
	char *v;
	int k;

	if (cosched_kv_expect(&line->r, "reason", &v, err))
		return -1;
	for (k = 0; k < COSCHED_SKIP_COUNT; k++)
		if (!strcmp(v, skip_names[k].key))
			break;
	if (expect_ll(&line->r, "n", &n, err))
		return -1;
	if (k < COSCHED_SKIP_COUNT)
		t->skipped[k] = n;
	return 0;
}

/* "voter victim=L corunner=C uid=U n=N weight=W sum_log=S last=T", after
 * its cell's line, once a user. */
static int read_voter(void *ctx, cosched_kv_line_t *line,
		      cosched_error_t *err)
{
	cosched_learn_table_t *t = ctx;
	cosched_kv_reader_t *r = &line->r;
	cosched_learn_voter_t u;
	cosched_learn_cell_t *c;
	cosched_lca_t a, b;
	long long uid;
	char *v;
	double n;

	if (cosched_kv_expect(r, "victim", &v, err) ||
	    cosched_lca_parse("victim", v, &a, err) ||
	    cosched_kv_expect(r, "corunner", &v, err) ||
	    cosched_lca_parse("corunner", v, &b, err) ||
	    expect_ll(r, "uid", &uid, err) ||
	    expect_num(r, "n", 1, 1e15, &n, err) ||
	    expect_num(r, "weight", 1e-300, 1e15, &u.weight, err) ||
	    expect_num(r, "sum_log", -1e15, 1e15, &u.sum_log, err) ||
	    expect_ll(r, "last", &u.last, err))
		return -1;
	if (a >= COSCHED_LCA_COUNT || b >= COSCHED_LCA_COUNT ||
	    uid > (long long) LONG_MAX)
		return cosched_error_set(err, "unknown class pair or user");
	c = &t->cell[a][b];
	if (!c->n)
		return cosched_error_set(err, "voter before its cell");
	for (int i = 0; i < c->nusers; i++)
		if (c->user[i].uid == (long) uid)
			return cosched_error_set(err, "voter %lld twice", uid);
	if (c->nusers == COSCHED_LEARN_CELL_USERS)
		return cosched_error_set(err, "more than %d voters",
					 COSCHED_LEARN_CELL_USERS);
	u.uid = (long) uid;
	u.n = (long long) n;
	c->user[c->nusers++] = u;
	return 0;
}

/* The runs of "runs=S,S,..." into runs[]: their count, or -1 with err. */
static int read_runs(cosched_kv_line_t *line,
		     double runs[COSCHED_LEARN_SOLO_RUNS], cosched_error_t *err)
{
	char *v, *p, *end;
	int nruns = 0;

	if (cosched_kv_expect(&line->r, "runs", &v, err))
		return -1;
	for (p = v; *p; p = *end ? end + 1 : end) {
		char num[32];
		size_t len;

		end = p + strcspn(p, ",");
		if (nruns == COSCHED_LEARN_SOLO_RUNS)
			return cosched_error_set(err, "runs: more than %d",
						 COSCHED_LEARN_SOLO_RUNS);
		len = (size_t) (end - p);
		if (len >= sizeof(num))
			len = sizeof(num) - 1;
		memcpy(num, p, len);
		num[len] = '\0';
		if (cosched_parse_number(num, &runs[nruns]) ||
		    !(runs[nruns] > 0.0 && runs[nruns] < 1e9))
			return cosched_error_set(err,
				"runs: %s: expected seconds",
				COSCHED_QUOTE(num));
		nruns++;
	}
	if (!nruns)
		return cosched_error_set(err, "runs: none");
	return nruns;
}

/* "solo app=APP last=T runs=S,S,...": an earlier release's, of no owner:
 * checked, and dropped (whose baseline it was is not known). */
static int read_solo(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	double runs[COSCHED_LEARN_SOLO_RUNS];
	long long last;
	char *app;

	(void) ctx;
	if (cosched_kv_expect(&line->r, "app", &app, err) ||
	    cosched_app_name_check("app", app, err) ||
	    expect_ll(&line->r, "last", &last, err) ||
	    read_runs(line, runs, err) < 0)
		return -1;
	return 0;
}

/* "solo_of app=APP owner=U|site last=T runs=S,S,...", once an
 * application and owner. */
static int read_solo_of(void *ctx, cosched_kv_line_t *line,
			cosched_error_t *err)
{
	cosched_learn_table_t *t = ctx;
	double runs[COSCHED_LEARN_SOLO_RUNS];
	char *app, *v;
	long long last, uid;
	long owner;
	int nruns;

	if (cosched_kv_expect(&line->r, "app", &app, err) ||
	    cosched_app_name_check("app", app, err) ||
	    cosched_kv_expect(&line->r, "owner", &v, err))
		return -1;
	if (!strcmp(v, "site")) {
		owner = COSCHED_LEARN_OWNER_SITE;
	} else {
		char *end;

		errno = 0;
		uid = strtoll(v, &end, 10);
		if (end == v || *end || errno || uid < 0 ||
		    uid > (long long) LONG_MAX)
			return cosched_error_set(err,
				"owner: %s: expected a uid or site",
				COSCHED_QUOTE(v));
		owner = (long) uid;
	}
	if (expect_ll(&line->r, "last", &last, err) ||
	    (nruns = read_runs(line, runs, err)) < 0)
		return -1;
	if (solo_find(t, app, owner))
		return cosched_error_set(err, "solo_of %s: twice",
					 COSCHED_QUOTE(app));
	for (int k = 0; k < nruns; k++)
		if (cosched_learn_solo_add(t, app, owner, runs[k], last, err))
			return -1;
	return 0;
}

/* "seen record=JOB.STEP.NODE time=T" and "pending ...". */
static int read_record(cosched_learn_table_t *t, cosched_kv_line_t *line,
		       bool seen, cosched_error_t *err)
{
	double when;
	char *name;

	if (cosched_kv_expect(&line->r, "record", &name, err))
		return -1;
	if (!name_ok(name))
		return cosched_error_set(err, "record: %s: expected JOB.STEP.NODE",
					 COSCHED_QUOTE(name));
	if (expect_num(&line->r, "time", 0, 1e13, &when, err))
		return -1;
	return seen ? cosched_learn_seen_add(t, name, when, err) :
		      cosched_learn_pending_add(t, name, when, err);
}

static int read_seen(void *ctx, cosched_kv_line_t *line, cosched_error_t *err)
{
	return read_record(ctx, line, true, err);
}

static int read_pending(void *ctx, cosched_kv_line_t *line,
			cosched_error_t *err)
{
	return read_record(ctx, line, false, err);
}

static const cosched_kv_kind_t learn_kinds[] = {
	{ "cell", read_cell },
	{ "skipped", read_skipped },
	{ "voter", read_voter },
	{ "solo", read_solo },
	{ "solo_of", read_solo_of },
	{ "seen", read_seen },
	{ "pending", read_pending },
	{ NULL, NULL },
};

/* The version this release writes is own (base/kv.h). */
static const cosched_kv_form_t learn_form = {
	.what = "learned interference table", .reader = "this reader",
	.tag = COSCHED_LEARN_TAG, .own = { COSCHED_LEARN_SCHEMA, COSCHED_LEARN_SCHEMA_MINOR },
	.head = read_head, .kinds = learn_kinds,
};

int cosched_learn_parse(const char *text, cosched_learn_table_t *out,
			cosched_error_t *err)
{
	cosched_learn_table_t t;
	char *copy = strdup(text);
	int rc = -1;

	if (!copy)
		return cosched_error_set(err, "learned table: out of memory");
	cosched_learn_init(&t, 0);
	if (!cosched_kv_file_read(&learn_form, copy, &t, err)) {
		cosched_learn_free(out);
		*out = t;
		memset(&t, 0, sizeof(t));
		rc = 0;
	}
	cosched_learn_free(&t);
	free(copy);
	return rc;
}

/* ---- writing ------------------------------------------------------------ */

char *cosched_learn_format(const cosched_learn_table_t *t)
{
	cosched_kv_out_t o;
	char tag[48];

	cosched_kv_out_grow(&o);
	cosched_kv_put_str(&o, cosched_kv_version_text(COSCHED_LEARN_TAG,
						       learn_form.own, tag,
						       sizeof(tag)));
	cosched_kv_put_int(&o, "created", t->created);
	cosched_kv_put_int(&o, "updated", t->updated);
	/* Floored to the millisecond by cosched_learn_advance: written
	 * exactly, so no pending record falls below it on reading. */
	cosched_kv_put(&o, "through", "%.3f", t->through);
	cosched_kv_put_str(&o, "\n");
	for (int v = 0; v < COSCHED_LCA_COUNT; v++)
		for (int c = 0; c < COSCHED_LCA_COUNT; c++) {
			const cosched_learn_cell_t *cell = &t->cell[v][c];

			if (!cell->n)
				continue;
			cosched_kv_put_str(&o, "cell");
			cosched_kv_put(&o, "victim", "%s", cosched_lca_name(v));
			cosched_kv_put(&o, "corunner", "%s",
				       cosched_lca_name(c));
			cosched_kv_put_int(&o, "n", cell->n);
			cosched_kv_put(&o, "weight", "%.6f", cell->weight);
			cosched_kv_put(&o, "sum_log", "%.6f", cell->sum_log);
			cosched_kv_put_int(&o, "last", cell->last);
			cosched_kv_put_str(&o, "\n");
			for (int k = 0; k < cell->nusers; k++) {
				const cosched_learn_voter_t *u = &cell->user[k];

				cosched_kv_put_str(&o, "voter");
				cosched_kv_put(&o, "victim", "%s",
					       cosched_lca_name(v));
				cosched_kv_put(&o, "corunner", "%s",
					       cosched_lca_name(c));
				cosched_kv_put(&o, "uid", "%ld", u->uid);
				cosched_kv_put_int(&o, "n", u->n);
				cosched_kv_put(&o, "weight", "%.6f", u->weight);
				cosched_kv_put(&o, "sum_log", "%.6f",
					       u->sum_log);
				cosched_kv_put_int(&o, "last", u->last);
				cosched_kv_put_str(&o, "\n");
			}
		}
	for (int r = 0; r < COSCHED_SKIP_COUNT; r++) {
		if (!t->skipped[r])
			continue;
		cosched_kv_put_str(&o, "skipped");
		cosched_kv_put(&o, "reason", "%s", skip_names[r].key);
		cosched_kv_put_int(&o, "n", t->skipped[r]);
		cosched_kv_put_str(&o, "\n");
	}
	for (int i = 0; i < t->nsolo; i++) {
		const cosched_learn_solo_t *s = &t->solo[i];

		cosched_kv_put_str(&o, "solo_of");
		cosched_kv_put(&o, "app", "%s", s->app);
		if (s->owner == COSCHED_LEARN_OWNER_SITE)
			cosched_kv_put(&o, "owner", "site");
		else
			cosched_kv_put(&o, "owner", "%ld", s->owner);
		cosched_kv_put_int(&o, "last", s->last);
		cosched_kv_put_str(&o, " runs=");
		for (int k = 0; k < s->nruns; k++)
			cosched_kv_put_fmt(&o, "%s%.3f", k ? "," : "",
					   s->runs[k]);
		cosched_kv_put_str(&o, "\n");
	}
	for (int i = 0; i < t->seen.n; i++) {
		cosched_kv_put_str(&o, "seen");
		cosched_kv_put(&o, "record", "%s", t->seen.v[i].name);
		cosched_kv_put(&o, "time", "%.3f", t->seen.v[i].time);
		cosched_kv_put_str(&o, "\n");
	}
	for (int i = 0; i < t->pending.n; i++) {
		cosched_kv_put_str(&o, "pending");
		cosched_kv_put(&o, "record", "%s", t->pending.v[i].name);
		cosched_kv_put(&o, "time", "%.3f", t->pending.v[i].time);
		cosched_kv_put_str(&o, "\n");
	}
	return cosched_kv_out_take(&o);
}
