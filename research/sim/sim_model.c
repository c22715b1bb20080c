/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_model.c - what the hardware does with a gang: slowdown next to
 * co-runners, thread scaling, frequency, power.  Every figure's source is
 * given beside it; the figures that are cosched's own assumptions say so
 * (cosched-sim(1), MODELS).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "research/sim/sim.h"
#include "src/libcosched/model/classify.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/model/power.h"
#include "src/libcosched/base/random.h"
#include "src/libcosched/base/text.h"

/* The core's generator (src/libcosched/base/random.h), so that the simulator's
 * workloads and Miss-Rate Bound's first gangs draw alike. */
uint64_t sim_rng_next(uint64_t *s)
{
	return cosched_splitmix64(s);
}

double sim_rng_unit(uint64_t *s)
{
	return cosched_random_unit(s);
}

const char *const sim_queue_names[SIM_QUEUE_COUNT] = {
	[SIM_QUEUE_FIRST_FIT] = "first-fit",
	[SIM_QUEUE_EASY] = "easy",
};

const char *const sim_mix_names[SIM_MIX_COUNT] = {
	[SIM_MIX_BALANCED] = "balanced",
	[SIM_MIX_MEMORY] = "memory",
	[SIM_MIX_COMPUTE] = "compute",
};

/* A category and its MPKI for a job whose trace carries none: drawn by
 * the mix (balanced: the four alike, one draw modulo 4), MPKI in the
 * range of the artificial workload of "Power-aware gang scheduling on
 * multicore" (NTUA thesis, 2013) for that category; frequency as there
 * (mem 1500 MHz). */
void sim_assign_class(sim_app_t *a, uint64_t *rng, sim_mix_t mix)
{
	static const double lo[] = { 0.0, 1.5, 5.0, 0.0 };
	static const double hi[] = { 0.1, 2.0, 6.0, 0.1 };
	/* cpu, lim, mem, rand */
	static const double weight[SIM_MIX_COUNT][4] = {
		[SIM_MIX_MEMORY] = { 0.125, 0.25, 0.5, 0.125 },
		[SIM_MIX_COMPUTE] = { 0.5, 0.125, 0.125, 0.25 },
	};
	int c;

	if (mix == SIM_MIX_BALANCED || mix >= SIM_MIX_COUNT) {
		c = (int)(sim_rng_next(rng) % 4);
	} else {
		double u = sim_rng_unit(rng), acc = 0;
		for (c = 0; c < 3; c++) {
			acc += weight[mix][c];
			if (u < acc)
				break;
		}
	}

	a->cat = (cosched_category_t)c;
	a->mpki = lo[c] + (hi[c] - lo[c]) * sim_rng_unit(rng);
	a->mhz = c == COSCHED_CAT_MEM ? 1500 : 2200;
}

static void set_cat(sim_model_t *m, cosched_category_t v, cosched_category_t c,
		    double s)
{
	m->interf.slowdown[cosched_category_to_lca(v)][cosched_category_to_lca(c)] = s;
}

/*
 * The 2013 gang-scheduling thesis, "Application categories", co-run
 * behaviour: "cpu is barely slowed by anyone; lim slows 1.25x with mem or
 * another lim; mem with mem about 2x; rand with lim or mem is
 * catastrophic"; "a memory-bound with a CPU-bound in one package slow each
 * other by <1.1" ("Placement lessons").  The cells the thesis gives no
 * figure for are cosched's reading of its preference table (rank 1 ~
 * 1.00-1.05, rank 2 ~ 1.10).
 */
void sim_model_seed002_table(sim_model_t *m, double c)
{
	static const double t[4][4] = {
		/*          cpu   lim   mem   rand */
		/* cpu */ { 1.00, 1.02, 1.05, 1.02 },
		/* lim */ { 1.00, 1.25, 1.25, 1.10 },
		/* mem */ { 1.05, 1.10, 2.00, 1.05 },
		/* rand */ { 1.05, 0.0, 0.0, 1.05 },
	};
	for (int v = 0; v < 4; v++)
		for (int k = 0; k < 4; k++)
			set_cat(m, (cosched_category_t)v, (cosched_category_t)k,
				t[v][k] > 0 ? t[v][k] : c);
	m->catastrophic = c;
	snprintf(m->table, sizeof(m->table), "seed002");
}

void sim_model_default(sim_model_t *m)
{
	/* The 2013 gang-scheduling thesis, "Threads vs EDP": ft.B's time on
	 * 1..8 cores. */
	static const double ftb[] = { 80.8083, 44.2010, 32.8540, 28.4949,
				      23.9559, 21.1219, 20.0673, 21.0738 };
	memset(m, 0, sizeof(*m));
	/* The 2013 gang-scheduling thesis's preferences. */
	cosched_interference_default(&m->interf);
	sim_model_seed002_table(m, SIM_CATASTROPHIC_DEFAULT);
	m->nscale = 8;
	for (int t = 1; t <= 8; t++)
		m->scale[t] = ftb[t - 1];
	/* The 2013 gang-scheduling thesis, "DVFS model": 1.2 .. 2.2 GHz. */
	m->fmin_mhz = 1200;
	m->fmax_mhz = 2200;
	m->freq_rule = SIM_FREQ_PER_APP;
	/*
	 * Share of the time that does not shrink with frequency (cosched's
	 * assumption, from the categories of the 2013 gang-scheduling thesis:
	 * cpu in L1/L2; lim ~25% bandwidth; mem ~80% bandwidth and stalls on
	 * memory; rand lives on LLC hits, which run at core speed, and
	 * "prefers high frequency").  mem at 1500 of 2200 MHz then loses 2.3%,
	 * inside the thesis's 0.4..3.5% performance loss of DVFS.
	 */
	m->mem_bound[COSCHED_CAT_CPU] = 0.0;
	m->mem_bound[COSCHED_CAT_LIM] = 0.3;
	m->mem_bound[COSCHED_CAT_MEM] = 0.95;
	m->mem_bound[COSCHED_CAT_RAND] = 0.1;
	/* The 2013 gang-scheduling thesis: lim = STREAM at ~25% bandwidth,
	 * mem at ~80%; cpu and rand (MPKI 0.01) next to nothing. */
	m->bw[COSCHED_CAT_CPU] = 0.0;
	m->bw[COSCHED_CAT_LIM] = 0.25;
	m->bw[COSCHED_CAT_MEM] = 0.8;
	m->bw[COSCHED_CAT_RAND] = 0.05;
	/*
	 * Extra MPKI per unit of excess slowdown, what Miss-Rate Bound
	 * samples.  cosched's assumption: a program slowed by losing its LLC
	 * share (rand) stalls on new misses, so its excess time is misses x
	 * penalty: gain = 1000 x CPI / penalty = 1000 x 1 / 200 cycles = 5;
	 * mem is slowed by queueing on the memory link, with the same misses
	 * (gain 0); lim in between (1); cpu has no misses to gain.
	 */
	m->miss_gain[COSCHED_CAT_CPU] = 0.0;
	m->miss_gain[COSCHED_CAT_LIM] = 1.0;
	m->miss_gain[COSCHED_CAT_MEM] = 0.0;
	m->miss_gain[COSCHED_CAT_RAND] = 5.0;
	/*
	 * The 2013 gang-scheduling thesis, "Power model", fitted to its
	 * modified-STREAM table: core power 0.43 W idle; active 4.28 W +
	 * 3.70 W per CPU core (1c 7.98, 4c 18.95, 8c 33.89) and 7.44 W +
	 * 4.17 W per Mem core (11.61, 24.17, 40.79): 3.85 W when any core
	 * runs, + 3.16 W x bandwidth, + per core 3.70 (cpu) .. 4.17 (mem).
	 * Uncore 13.5 W + 2.55 W x bandwidth (13.45 .. 16.05); DRAM 3.2 W
	 * idle, + 1.6 W active, + 6.7 W x bandwidth (4.8 CPU, 11.5 Mem).  Idle
	 * package: 17.13 W, as the thesis's single-thread table.  Per-core
	 * power scales as (f/fmax)^2 (cosched's assumption: voltage falls less
	 * than frequency on the thesis's 1.2..2.2 GHz range).
	 */
	m->p_core_idle = 0.43;
	m->p_core_active = 3.85;
	m->p_core_bw = 3.16;
	m->p_core_per_core[COSCHED_CAT_CPU] = 3.70;
	m->p_core_per_core[COSCHED_CAT_LIM] = 3.85;
	m->p_core_per_core[COSCHED_CAT_MEM] = 4.17;
	m->p_core_per_core[COSCHED_CAT_RAND] = 3.85;
	m->freq_exp = 2.0;
	m->p_uncore = 13.5;
	m->p_uncore_bw = 2.55;
	m->p_dram = 3.2;
	m->p_dram_active = 1.6;
	m->p_dram_bw = 6.7;
}

static int parse_class(const char *s, cosched_lca_t *out)
{
	cosched_category_t c;
	cosched_error_t e;

	if (cosched_category_parse_nocase("class", s, &c, &e) == 0 &&
	    c < COSCHED_CAT_COUNT) {
		*out = cosched_category_to_lca(c);
		return 0;
	}
	if (cosched_lca_parse_nocase("class", s, out, &e) == 0 &&
	    *out < COSCHED_LCA_COUNT)
		return 0;
	return -1;
}

int sim_model_set_table(sim_model_t *m, const char *spec, cosched_error_t *err)
{
	char buf[512];
	FILE *f;
	int line = 0;
	cosched_interference_model_t t;

	if (!strcmp(spec, "seed002")) {
		sim_model_seed002_table(m, m->catastrophic > 0 ?
					m->catastrophic : SIM_CATASTROPHIC_DEFAULT);
		return 0;
	}
	if (!strcmp(spec, "seed001")) {
		cosched_interference_default(&t);
		memcpy(m->interf.slowdown, t.slowdown, sizeof(t.slowdown));
		snprintf(m->table, sizeof(m->table), "seed001");
		return 0;
	}
	/* A file: the 2013 gang-scheduling thesis's table, the entries it
	 * gives replaced. */
	f = fopen(spec, "r");
	if (!f)
		return cosched_error_set(err, "--table %s: %s", COSCHED_QUOTE(spec),
					 strerror(errno));
	t = m->interf;
	sim_model_seed002_table(m, m->catastrophic);
	while (fgets(buf, sizeof(buf), f)) {
		char v[32], c[32], s[64], extra[2];
		cosched_lca_t lv, lc;
		double x;
		int n;
		line++;
		buf[strcspn(buf, "#\n")] = '\0';
		n = sscanf(buf, "%31s %31s %63s %1s", v, c, s, extra);
		if (n <= 0)
			continue;
		if (n != 3) {
			cosched_error_set(err, "%s:%d: expected VICTIM CORUNNER "
					  "SLOWDOWN", COSCHED_QUOTE(spec), line);
			goto fail;
		}
		if (parse_class(v, &lv) < 0 || parse_class(c, &lc) < 0) {
			cosched_error_set(err, "%s:%d: field class: %s or %s is "
					  "not a category (cpu lim mem rand) or LCA "
					  "class (N C LC L)", COSCHED_QUOTE(spec),
					  line, COSCHED_QUOTE(v), COSCHED_QUOTE(c));
			goto fail;
		}
		if (cosched_parse_number(s, &x) < 0 || x <= 0 ||
		    x > COSCHED_SLOWDOWN_MAX) {
			cosched_error_set(err, "%s:%d: field slowdown: %s is not "
					  "a number in (0, %g]", COSCHED_QUOTE(spec),
					  line, COSCHED_QUOTE(s),
					  COSCHED_SLOWDOWN_MAX);
			goto fail;
		}
		m->interf.slowdown[lv][lc] = x;
	}
	fclose(f);
	snprintf(m->table, sizeof(m->table), "%.79s", spec);
	return 0;
fail:
	fclose(f);
	m->interf = t;
	return -1;
}

int sim_model_load_scaling(sim_model_t *m, const char *path,
			   cosched_error_t *err)
{
	char buf[256];
	double sc[SIM_SCALE_MAX + 1] = { 0 };
	int line = 0, top = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return cosched_error_set(err, "--scaling %s: %s",
					 COSCHED_QUOTE(path), strerror(errno));
	while (fgets(buf, sizeof(buf), f)) {
		char a[32], b[64], extra[2];
		long t;
		double x;
		int n;
		line++;
		buf[strcspn(buf, "#\n")] = '\0';
		n = sscanf(buf, "%31s %63s %1s", a, b, extra);
		if (n <= 0)
			continue;
		if (n != 2 || cosched_parse_long(a, &t) < 0 || t < 1 ||
		    t > SIM_SCALE_MAX || cosched_parse_number(b, &x) < 0 ||
		    x <= 0) {
			fclose(f);
			return cosched_error_set(err, "%s:%d: expected THREADS "
				"(1..%d) TIME (> 0)", COSCHED_QUOTE(path), line,
				SIM_SCALE_MAX);
		}
		sc[t] = x;
		if (t > top)
			top = (int)t;
	}
	fclose(f);
	for (int t = 1; t <= top; t++)
		if (sc[t] <= 0)
			return cosched_error_set(err, "%s: no time for %d threads "
				"(give every count 1..%d)", COSCHED_QUOTE(path), t,
				top);
	if (top == 0)
		return cosched_error_set(err, "%s: no point", COSCHED_QUOTE(path));
	memcpy(m->scale, sc, sizeof(sc));
	m->nscale = top;
	return 0;
}

int sim_model_set_miss_gain(sim_model_t *m, const char *spec,
			    cosched_error_t *err)
{
	char *s = strdup(spec), *save = NULL;
	double g[COSCHED_CAT_COUNT];

	if (!s)
		return cosched_error_set(err, "out of memory");
	memcpy(g, m->miss_gain, sizeof(g));
	for (char *e = strtok_r(s, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(e, '=');
		cosched_category_t c;
		cosched_error_t e2;
		double x;
		if (!eq) {
			cosched_error_set(err, "--miss-gain: %s is not CATEGORY=GAIN",
					  COSCHED_QUOTE(e));
			free(s);
			return -1;
		}
		*eq = '\0';
		if (cosched_category_parse("--miss-gain", e, &c, &e2) < 0 ||
		    c >= COSCHED_CAT_COUNT || cosched_parse_number(eq + 1, &x) < 0 ||
		    x < 0 || x > 1000) {
			cosched_error_set(err, "--miss-gain: %s=%s: category cpu, "
					  "lim, mem or rand, gain 0..1000",
					  COSCHED_QUOTE(e), COSCHED_QUOTE(eq + 1));
			free(s);
			return -1;
		}
		g[c] = x;
	}
	free(s);
	memcpy(m->miss_gain, g, sizeof(g));
	return 0;
}

void sim_gang_job(const sim_app_t *a, size_t i, cosched_gang_job_t *j)
{
	memset(j, 0, sizeof(*j));
	j->job_id = (uint32_t)(i + 1);
	j->name = a->name;
	j->threads = a->threads;
	j->min_threads = a->min_threads;
	j->max_threads = a->max_threads;
	j->mpki = a->mpki;
	j->category = a->cat;
	j->freq_khz = a->mhz * 1000;
}

static double scale_at(const sim_model_t *m, int t)
{
	if (t > m->nscale)
		t = m->nscale;
	return m->scale[t < 1 ? 1 : t];
}

int sim_workload_check_model(const sim_workload_t *w, const sim_model_t *m,
			     const char *fname, cosched_error_t *err)
{
	for (size_t i = 0; i < w->n; i++) {
		const sim_app_t *a = &w->apps[i];
		if (a->mhz < m->fmin_mhz || a->mhz > m->fmax_mhz)
			return cosched_error_set(err, "%s:%d: field mhz: \"%ld\" "
				"outside the power model's range (%ld..%ld MHz)",
				fname, a->line, a->mhz, m->fmin_mhz,
				m->fmax_mhz);
	}
	return 0;
}

#define SIM_GANG_MAX_MEMBERS COSCHED_GANG_MAX_CAPACITY

int sim_gang_eval(const sim_model_t *m, const sim_app_t *apps,
		  const sim_member_t *mem, int n, bool dvfs, sim_perf_t *perf,
		  sim_power_t *pw, cosched_error_t *err)
{
	cosched_class_t cls[SIM_GANG_MAX_MEMBERS], co[SIM_GANG_MAX_MEMBERS];
	cosched_freq_request_t req[SIM_GANG_MAX_MEMBERS];
	long domain = m->fmax_mhz;
	double bw = 0, pcores = 0;
	int cores = 0;

	if (n < 0 || n > SIM_GANG_MAX_MEMBERS)
		return cosched_error_set(err, "gang of %d applications", n);
	for (int i = 0; i < n; i++) {
		const sim_app_t *a = &apps[mem[i].app];
		cls[i].cat = a->cat;
		cls[i].lca = cosched_category_to_lca(a->cat);
		cls[i].source = COSCHED_CLASS_FROM_DECLARED;
		memset(&req[i], 0, sizeof(req[i]));
		req[i].job_id = (uint32_t)(mem[i].app + 1);
		req[i].requested_khz = (a->mhz < m->fmax_mhz ? a->mhz :
					m->fmax_mhz) * 1000;
		req[i].threads = mem[i].threads;
	}
	if (dvfs && m->freq_rule == SIM_FREQ_DOMAIN_MAX && n > 0) {
		/* The package's one frequency, by the controller's rule. */
		cosched_freq_loss_t loss[SIM_GANG_MAX_MEMBERS];
		long khz;
		if (cosched_power_resolve_domain(req, (size_t)n,
						 COSCHED_FREQ_RULE_MAX_REQUEST,
						 &khz, loss, err) < 0)
			return -1;
		domain = khz / 1000;
	}
	for (int i = 0; i < n; i++) {
		const sim_app_t *a = &apps[mem[i].app];
		cosched_prediction_t pred;
		sim_perf_t *p = &perf[i];
		int k = 0;
		for (int j = 0; j < n; j++)
			if (j != i)
				co[k++] = cls[j];
		if (cosched_interference_predict(&m->interf, &cls[i], co, k, &pred,
						 err) < 0)
			return -1;
		p->mhz = !dvfs ? m->fmax_mhz :
			m->freq_rule == SIM_FREQ_DOMAIN_MAX ? domain :
			req[i].requested_khz / 1000;
		p->slowdown = pred.slowdown;
		p->fslow = (1.0 - m->mem_bound[a->cat]) * (double)m->fmax_mhz /
			(double)p->mhz + m->mem_bound[a->cat];
		p->tslow = scale_at(m, mem[i].threads) / scale_at(m, a->threads);
		p->rate = 1.0 / (a->solo_s * p->tslow * p->slowdown * p->fslow);
		p->mpki = a->mpki + m->miss_gain[a->cat] * (p->slowdown - 1.0);
		if (p->mpki < 0)
			p->mpki = 0;
		bw += m->bw[a->cat];
		cores += mem[i].threads;
		pcores += mem[i].threads * m->p_core_per_core[a->cat] *
			pow((double)p->mhz / (double)m->fmax_mhz, m->freq_exp);
	}
	if (bw > 1.0)
		bw = 1.0;
	pw->core = m->p_core_idle;
	pw->uncore = m->p_uncore + m->p_uncore_bw * bw;
	pw->dram = m->p_dram + m->p_dram_bw * bw;
	if (cores > 0) {
		pw->core += m->p_core_active + m->p_core_bw * bw + pcores;
		pw->dram += m->p_dram_active;
	}
	return 0;
}
