/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_options.c - libFuzzer target of the job option parser
 * (src/libcosched/model/options.c): cosched_option_set() and
 * cosched_options_from_env().
 *
 * The input is read as lines (at most MAX_LINES; a NUL ends a line early).
 * Every line is given as the value of every option, then "NAME=value"
 * lines as an option of that NAME, each over the options the earlier
 * calls left; then the lines are a job's SPANK environment for
 * cosched_options_from_env(), starting from those options.
 *
 * Invariants (a violation aborts):
 *   - a failed call leaves the options byte for byte as they were, and its
 *     message is written, terminated inside the 512-byte buffer, not empty
 *     and free of control characters;
 *   - after a successful call the options are valid: a name that passes
 *     cosched_app_name_check() (or none), enums and slowdown in range, and
 *     cosched_options_format() gives a line without control characters
 *     that never overruns a short buffer;
 *   - cosched_options_from_env() is all or nothing: it succeeds exactly
 *     when applying its variables one by one does, and then gives the same
 *     options; a NULL-terminated array gives the same as a counted one.
 */
#include <math.h>
#include <stdbool.h>

#include "fuzz_common.h"
#include "src/libcosched/model/options.h"

#define MAX_LINES 16

/* The fields of two option sets are equal (padding aside). */
static bool options_equal(const cosched_job_options_t *a,
			  const cosched_job_options_t *b)
{
	return a->enabled == b->enabled && !strcmp(a->app, b->app) &&
	       a->declared_class == b->declared_class &&
	       a->power == b->power &&
	       a->max_slowdown_pct == b->max_slowdown_pct &&
	       a->numa == b->numa;
}

static void check_format(const cosched_job_options_t *opts)
{
	/* Exactly sized heap buffers: ASan sees any byte written past them. */
	static const int sizes[] = { 1, 2, 9, 40, 256 };
	char *buf;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int len = sizes[i];
		buf = malloc((size_t) len);
		if (!buf)
			abort();
		memset(buf, 'x', (size_t) len);
		FUZZ_CHECK(cosched_options_format(opts, buf, len) == buf,
			   "cosched_options_format returns its buffer", NULL);
		FUZZ_CHECK(memchr(buf, '\0', (size_t) len) != NULL,
			   "cosched_options_format output not terminated",
			   NULL);
		FUZZ_CHECK(!fuzz_has_control(buf),
			   "control character in cosched_options_format output",
			   buf);
		/* The longest line (a 64-byte name, energy:N%) fits 256. */
		if (len == 256)
			FUZZ_CHECK(strlen(buf) < 200,
				   "cosched_options_format line too long", buf);
		free(buf);
	}
}

/* The options after a successful parse. */
static void check_valid(const cosched_job_options_t *opts)
{
	cosched_error_t err;

	FUZZ_CHECK(memchr(opts->app, '\0', sizeof(opts->app)) != NULL,
		   "application name not terminated", NULL);
	if (opts->app[0]) {
		fuzz_error_poison(&err);
		FUZZ_CHECK(!cosched_app_name_check("app", opts->app, &err),
			   "accepted application name fails cosched_app_name_check",
			   opts->app);
	}
	FUZZ_CHECK((int) opts->declared_class >= 0 &&
		   opts->declared_class <= COSCHED_CAT_UNKNOWN,
		   "declared class out of range", NULL);
	FUZZ_CHECK((int) opts->power >= 0 && opts->power < COSCHED_POWER_COUNT,
		   "power policy out of range", NULL);
	FUZZ_CHECK((int) opts->numa >= 0 && opts->numa < COSCHED_NUMA_COUNT,
		   "NUMA priority out of range", NULL);
	FUZZ_CHECK(isfinite(opts->max_slowdown_pct) &&
		   opts->max_slowdown_pct >= COSCHED_MAX_SLOWDOWN_PCT_MIN &&
		   opts->max_slowdown_pct <= COSCHED_MAX_SLOWDOWN_PCT_MAX,
		   "maximum slowdown out of range", NULL);
	check_format(opts);
}

/* One cosched_option_set() call and its invariants; returns its result. */
static int set_checked(cosched_job_options_t *opts, const char *name,
		       const char *value)
{
	cosched_job_options_t before;
	cosched_error_t err;
	int rc;

	memcpy(&before, opts, sizeof(before));
	fuzz_error_poison(&err);
	rc = cosched_option_set(opts, name, value, &err);
	FUZZ_CHECK(rc == 0 || rc == -1, "cosched_option_set returns 0 or -1",
		   NULL);
	if (rc) {
		FUZZ_CHECK(!memcmp(&before, opts, sizeof(before)),
			   "cosched_option_set changed the options on failure",
			   value);
		fuzz_check_error(&err);
	} else {
		check_valid(opts);
	}
	return rc;
}

/* What cosched_options_from_env() must do, one variable at a time. */
static int env_one_by_one(cosched_job_options_t *opts, char **env, int n)
{
	const size_t plen = strlen(COSCHED_ENV_PREFIX);

	for (int i = 0; i < n; i++) {
		const char *var = env[i], *eq;
		if (!strncmp(var, COSCHED_ENV_PREFIX, plen))
			var += plen;
		eq = strchr(var, '=');
		if (!eq)
			continue;
		for (int k = 0; k < COSCHED_OPTION_COUNT; k++) {
			const char *e = cosched_option_names[k].env;
			if ((size_t) (eq - var) == strlen(e) &&
			    !strncmp(var, e, strlen(e))) {
				if (set_checked(opts,
						cosched_option_names[k].option,
						eq + 1))
					return -1;
				break;
			}
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strdup(data, size), *lines[MAX_LINES + 1];
	cosched_job_options_t opts, start, env_opts, seq, term;
	cosched_error_t err;
	int n = 0, rc, rc_term, seq_rc;

	for (char *p = text; p && n < MAX_LINES; n++) {
		lines[n] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = '\0';
	}
	lines[n] = NULL;

	/* Each line as the value of each option. */
	memset(&opts, 0, sizeof(opts));
	cosched_options_init(&opts);
	check_valid(&opts);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < COSCHED_OPTION_COUNT; k++)
			set_checked(&opts, cosched_option_names[k].option,
				    lines[i]);
	/* "NAME=value" lines: any name, known or not. */
	for (int i = 0; i < n; i++) {
		char *eq = strchr(lines[i], '='), *name;
		if (!eq)
			continue;
		name = strndup(lines[i], (size_t) (eq - lines[i]));
		if (!name)
			abort();
		set_checked(&opts, name, eq + 1);
		free(name);
	}
	set_checked(&opts, NULL, "x");
	set_checked(&opts, COSCHED_OPT_APP, NULL);

	/* The lines as a SPANK environment, over the options above. */
	memcpy(&start, &opts, sizeof(start));
	memcpy(&env_opts, &opts, sizeof(env_opts));
	fuzz_error_poison(&err);
	rc = cosched_options_from_env(&env_opts, lines, n, &err);
	FUZZ_CHECK(rc == 0 || rc == -1,
		   "cosched_options_from_env returns 0 or -1", NULL);
	memcpy(&seq, &start, sizeof(seq));
	seq_rc = env_one_by_one(&seq, lines, n);
	FUZZ_CHECK(rc == seq_rc,
		   "cosched_options_from_env disagrees with its variables one by one",
		   NULL);
	if (rc) {
		FUZZ_CHECK(!memcmp(&start, &env_opts, sizeof(start)),
			   "cosched_options_from_env changed the options on failure",
			   err.msg);
		fuzz_check_error(&err);
	} else {
		check_valid(&env_opts);
		FUZZ_CHECK(options_equal(&env_opts, &seq),
			   "cosched_options_from_env differs from its variables one by one",
			   NULL);
	}

	/* NULL-terminated rather than counted: the same outcome. */
	memcpy(&term, &start, sizeof(term));
	fuzz_error_poison(&err);
	rc_term = cosched_options_from_env(&term, lines, -1, &err);
	FUZZ_CHECK(rc_term == rc,
		   "cosched_options_from_env: NULL-terminated and counted differ",
		   NULL);
	if (rc_term)
		fuzz_check_error(&err);
	else
		FUZZ_CHECK(options_equal(&term, &env_opts),
			   "cosched_options_from_env: NULL-terminated and counted differ",
			   NULL);

	free(text);
	return 0;
}
