/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_records.c - step records for the learner's tests (step_records.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "cosched_check.h"
#include "src/libcosched/io/file.h"
#include "step_records.h"

char dir[64];
cosched_error_t err;

const step_record_owner_t step_record_root = { 0, true, false, "placed" };

void setup(void)
{
	char jobs[128];

	cosched_check_tmpdir(dir, sizeof(dir), "learn");
	chmod(dir, 0755);
	snprintf(jobs, sizeof(jobs), "%s/jobs", dir);
	ck_assert_int_eq(mkdir(jobs, 0755), 0);
}

void teardown(void)
{
	cosched_check_rm_rf(dir);
}

void step_record_put(uint32_t job, const char *app,
		     const char *lca, double start, double runtime,
		     const char *co, const char *exit_json,
		     const step_record_owner_t *who)
{
	char path[256], text[1536], app_json[160] = "", uid_json[48] = "";

	snprintf(path, sizeof(path), "%s/jobs/%u.0.n1.json", dir, job);
	if (app)
		snprintf(app_json, sizeof(app_json), " \"app\": \"%s\",", app);
	if (who->uid >= 0)
		snprintf(uid_json, sizeof(uid_json), " \"uid\": %ld,", who->uid);
	snprintf(text, sizeof(text),
		 "{\"schema\": 1, \"job\": %u, \"step\": 0, \"node\": \"n1\","
		 "%s%s \"profile\": \"%s\",%s"
		 " \"runtime_s\": %.3f, \"start_s\": %.3f,"
		 " \"end_s\": %.3f, \"co_runners\": [%s],"
		 " \"co_runners_seen\": %d, \"exit\": %s,"
		 " \"decision\": {\"state\": \"%s\", \"lca\": \"%s\","
		 " \"sockets\": \"0\", \"predicted_slowdown\": 1.1}}\n",
		 job, app_json, uid_json,
		 who->merged ? "merged into /x/app.json" :
			       "not merged: shorter than ProfileMinRuntime",
		 who->shared ? " \"profile_shared\": true," : "",
		 runtime, start, start + runtime, co, co[0] ? 1 : 0,
		 exit_json, who->state, lca);
	/* Replaced, as the sampler writes it (cosched_file_replace):
	 * the learner tells a changed record by its new inode. */
	ck_assert_msg(cosched_file_replace(path, text, strlen(text), 0644, 0,
					   &err) == 0, "%s", err.msg);
}

void step_record_set_time(uint32_t job, double when)
{
	char path[256];
	struct timeval tv[2];

	tv[0].tv_sec = (time_t) floor(when);
	tv[0].tv_usec = (suseconds_t) ((when - floor(when)) * 1e6);
	tv[1] = tv[0];
	snprintf(path, sizeof(path), "%s/jobs/%u.0.n1.json", dir, job);
	ck_assert_int_eq(utimes(path, tv), 0);
}
