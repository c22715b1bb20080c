/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * submit-spank-env - submit a batch job through libslurm with a SPANK job
 * environment of the caller's choosing, as any user can (sbatch and the
 * cosched SPANK plugin are bypassed).  For the tests of what cosched does
 * with hostile values: they reach slurmctld, slurmd and the plugins as
 * given, newlines and escape sequences included.
 *
 * usage: submit-spank-env WORKDIR NAME=VALUE...   (VALUE may contain \n,
 *        \t, \e and \\ escapes, and %Nx to repeat character x N times)
 * prints the job id.
 */
#include "cosched_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

/* Decode the escapes above into a malloc'd string. */
static char *decode(const char *in)
{
	size_t cap = strlen(in) + 1, at = 0;
	char *out = malloc(cap);

	while (out && *in) {
		char c = *in++;
		if (c == '%' && *in >= '0' && *in <= '9') {
			char *end;
			long n = strtol(in, &end, 10);
			if (*end && n > 0 && n <= 1 << 20) {
				char *grown = realloc(out, cap + (size_t) n);
				if (!grown) {
					free(out);
					return NULL;
				}
				out = grown;
				cap += (size_t) n;
				memset(out + at, *end, (size_t) n);
				at += (size_t) n;
				in = end + 1;
				continue;
			}
		}
		if (c == '\\' && *in) {
			c = *in++;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'e' ? 27 : c;
		}
		out[at++] = c;
	}
	if (out)
		out[at] = '\0';
	return out;
}

int main(int argc, char **argv)
{
	submit_response_msg_t *resp = NULL;
	job_desc_msg_t desc;
	char *env[] = { "PATH=/usr/bin:/bin", NULL };
	char out[4096];

	if (argc < 3) {
		fprintf(stderr, "usage: %s WORKDIR NAME=VALUE...\n", argv[0]);
		return 2;
	}
	slurm_init(NULL);
	slurm_init_job_desc_msg(&desc);
	desc.name = "hostile";
	desc.script = "#!/bin/sh\nsleep 1\n";
	desc.work_dir = argv[1];
	snprintf(out, sizeof(out), "%s/%%j.out", argv[1]);
	desc.std_out = out;
	desc.environment = env;
	desc.env_size = 1;
	desc.min_cpus = 1;
	desc.user_id = getuid();
	desc.group_id = getgid();
	desc.spank_job_env_size = (uint32_t) (argc - 2);
	desc.spank_job_env = calloc((size_t) argc, sizeof(char *));
	for (int i = 2; i < argc; i++)
		if (!desc.spank_job_env ||
		    !(desc.spank_job_env[i - 2] = decode(argv[i]))) {
			fprintf(stderr, "out of memory\n");
			return 1;
		}
	if (slurm_submit_batch_job(&desc, &resp) != SLURM_SUCCESS) {
		slurm_perror("slurm_submit_batch_job");
		return 1;
	}
#ifdef HAVE_SUBMIT_RESPONSE_MSG_T_JOB_ID
	printf("%u\n", resp->job_id);
#else
	printf("%u\n", resp->step_id.job_id);
#endif
	slurm_free_submit_response_response_msg(resp);
	slurm_fini();
	return 0;
}
