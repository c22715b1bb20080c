/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sampler_suspend.c - a sampled step across Slurm's suspend and resume
 * (sampler_suspend.h).
 */
#include <stdio.h>
#include <sys/stat.h>

#include "src/libcosched/io/file.h"

#include "src/node/cpufreq.h"
#include "src/node/cpufreq_journal.h"
#include "src/node/sampler_suspend.h"

void sampler_suspend_start(sampler_suspend_t *s)
{
	s->held = s->sysfs_root && s->journal_dir ? -1 : 0;
}

/* The step's holds told it stopped or runs again.  Nothing is asked of
 * the journal when there is none (no domain held on the node) or the step
 * was found to hold none. */
static void follow_frequency(sampler_suspend_t *s, bool stopped)
{
	cosched_cpufreq_outcome_t out;
	cosched_cpufreq_t *c;
	cosched_error_t err;
	char path[COSCHED_PATH_MAX + 32];
	struct stat sb;
	int rc;

	if (!s->held || (s->held < 0 && !stopped))
		return;
	snprintf(path, sizeof(path), "%s/%s", s->journal_dir,
		 COSCHED_CPUFREQ_JOURNAL_FILE);
	if (stat(path, &sb)) {
		s->held = 0;
		return;
	}
	c = cosched_cpufreq_open(s->sysfs_root, &err);
	if (c)
		cosched_cpufreq_default_governor(c, s->default_governor);
	rc = c ? cosched_cpufreq_set_stopped(c, s->journal_dir, s->job,
					     s->step, stopped, &out, &err) :
		 -1;
	if (c)
		cosched_cpufreq_close(c);
	if (rc == 0) {
		s->held = 1;
		s->freq_changes++;
	} else if (rc == 1 && s->held < 0) {
		s->held = 0;
	}
	if (rc < 0 && !s->freq_error[0])
		snprintf(s->freq_error, sizeof(s->freq_error), "%s", err.msg);
}

void sampler_suspend_sample(sampler_suspend_t *s, bool stopped, double dt)
{
	/* The change happened somewhere in the interval: half of it, on
	 * average right, and never more than half an interval off. */
	if (dt > 0.0)
		s->stopped_s += dt * ((s->stopped ? 0.5 : 0.0) +
				      (stopped ? 0.5 : 0.0));
	if (stopped == s->stopped)
		return;
	s->stopped = stopped;
	s->times += stopped;
	follow_frequency(s, stopped);
}

json_t *sampler_suspend_json(const sampler_suspend_t *s)
{
	char freq[COSCHED_ERROR_MSG_LEN + 64];
	json_t *o;

	if (!s->times)
		return NULL;
	if (s->freq_error[0])
		snprintf(freq, sizeof(freq), "not followed: %s",
			 s->freq_error);
	else if (s->held > 0)
		snprintf(freq, sizeof(freq), "followed: %d changes",
			 s->freq_changes);
	else
		snprintf(freq, sizeof(freq), "no domain held");
	o = json_object();
	json_object_set_new(o, "times", json_integer(s->times));
	json_object_set_new(o, "seconds", json_real(s->stopped_s));
	json_object_set_new(o, "cpufreq", json_string(freq));
	return o;
}
