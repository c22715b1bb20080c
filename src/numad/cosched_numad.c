/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cosched_numad.c - cosched-numad: the node's NUMA memory manager
 * (cosched-numad(8)).  Options, cosched.conf, where the log goes, the
 * root-owned Unix socket and the one loop that serves requests between
 * batches (the connections themselves: client.c).
 *
 *   cosched-numad [-D] [-f COSCHED_CONF] [-L LOGFILE] [-u SLURM_USER]
 *
 * It always stays in the foreground (systemd's Type=simple starts it; it
 * never forks itself away).  It logs to syslog (daemon facility); -L sends
 * the log to a file instead; -D sends it to stderr unless -L is given
 * (for running it by hand).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "src/libcosched/base/text.h"
#include "src/numad/numad.h"

#define DEFAULT_CONF "/etc/slurm/cosched.conf"

static volatile sig_atomic_t got_stop, got_hup;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		got_hup = 1;
	else
		got_stop = 1;
}

static int load_conf(numad_t *d, cosched_error_t *err)
{
	cosched_conf_t conf;
	struct stat st;

	cosched_conf_init(&conf);
	if (!stat(d->conf_path, &st) &&
	    cosched_conf_parse_file(&conf, d->conf_path, err))
		return -1;
	d->conf = conf;
	return 0;
}

/* The listening socket: its directory root's and 0755, the socket 0666
 * (every user may ask for the status; rights are checked per request
 * from the peer's credentials).  Non-blocking: the loop accepts until
 * none is left. */
static int listen_on(const char *path, cosched_error_t *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[COSCHED_PATH_MAX], *slash;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return cosched_error_set(err,
			"NumaSocket %s: longer than %zu bytes",
			COSCHED_QUOTE(path), sizeof(sa.sun_path) - 1);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return cosched_error_set(err, "%s: %s", dir,
						 strerror(errno));
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return cosched_error_set(err, "socket: %s", strerror(errno));
	unlink(path);	/* a socket left by a daemon killed -9 */
	if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) ||
	    chmod(path, 0666) || listen(fd, SOMAXCONN)) {
		cosched_error_set(err, "NumaSocket %s: %s",
				  COSCHED_QUOTE(path), strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cosched-numad [-D] [-f COSCHED_CONF] [-L LOGFILE] [-u SLURM_USER]\n"
		"The node's NUMA memory manager; see cosched-numad(8).\n");
}

static numad_t daemon_state;

int main(int argc, char **argv)
{
	numad_t *d = &daemon_state;
	const char *log_path = NULL, *user = "slurm";
	bool foreground = false;
	cosched_error_t err;
	double next_scan = 0;
	int opt, lfd;
	struct sigaction sa = { .sa_handler = on_signal };

	snprintf(d->conf_path, sizeof(d->conf_path), "%s",
		 getenv("COSCHED_CONF") && *getenv("COSCHED_CONF") ?
		 getenv("COSCHED_CONF") : DEFAULT_CONF);
	while ((opt = getopt(argc, argv, "Df:hL:u:")) != -1) {
		switch (opt) {
		case 'D': foreground = true; break;
		case 'f': snprintf(d->conf_path, sizeof(d->conf_path), "%s",
				   optarg); break;
		case 'L': log_path = optarg; break;
		case 'u': user = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (log_path) {
		FILE *log_file = fopen(log_path, "ae");

		if (!log_file) {
			fprintf(stderr, "cosched-numad: -L %s: %s\n", log_path,
				strerror(errno));
			return 1;
		}
		numad_log_to(log_file);
	} else if (foreground) {
		numad_log_to(stderr);
	} else {
		openlog("cosched-numad", LOG_PID, LOG_DAEMON);
	}
	if (load_conf(d, &err)) {
		numad_log(LOG_ERR, "%s", err.msg);
		return 1;
	}
	d->slurm_uid = -1;
	if (*user) {
		struct passwd *pw = getpwnam(user);

		if (pw) {
			d->slurm_uid = (long) pw->pw_uid;
			snprintf(d->slurm_user, sizeof(d->slurm_user), "%s",
				 user);
		} else {
			numad_log(LOG_WARNING,
				  "SlurmUser %s does not exist here: only root may migrate",
				  user);
		}
	}
	if (numad_machine(d, &err)) {
		numad_log(LOG_ERR, "%s", err.msg);
		return 1;
	}
	cosched_boot_id(d->boot);
	d->next_id = 1;
	if (numad_state_load(d, &err))
		numad_log(LOG_ERR, "state: %s", err.msg);
	/* The step directory, which tells task/cosched that a manager runs
	 * (root's, 0700: only slurmstepd writes there). */
	if (mkdir(d->conf.numa.step_dir, 0700) && errno != EEXIST) {
		char parent[COSCHED_PATH_MAX], *slash;

		if (snprintf(parent, sizeof(parent), "%s",
			     d->conf.numa.step_dir) >= (int) sizeof(parent))
			parent[0] = '\0';
		slash = strrchr(parent, '/');
		if (slash && slash != parent) {
			*slash = '\0';
			mkdir(parent, 0755);
		}
		if (mkdir(d->conf.numa.step_dir, 0700) && errno != EEXIST) {
			numad_log(LOG_ERR, "NumaStepDir %s: %s",
				  d->conf.numa.step_dir, strerror(errno));
			return 1;
		}
	}
	/* What task/cosched writes there is trusted: the directory must be
	 * root's, a directory and not a link, and writable by no one else. */
	{
		struct stat st;

		if (lstat(d->conf.numa.step_dir, &st) || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid() || (st.st_mode & 022)) {
			numad_log(LOG_ERR,
				  "NumaStepDir %s: must be a directory of this daemon's user (root), writable by no one else",
				  d->conf.numa.step_dir);
			return 1;
		}
	}
	numad_clients_init();
	lfd = listen_on(d->conf.numa.socket, &err);
	if (lfd < 0) {
		numad_log(LOG_ERR, "%s", err.msg);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	numad_log(LOG_INFO,
		  "started: %d NUMA nodes, socket %s, steps in %s, batches of %d pages, at most %d pages/s, freeze window %g s",
		  d->nnodes, d->conf.numa.socket, d->conf.numa.step_dir,
		  d->conf.numa.batch_pages, d->conf.numa.pages_per_second,
		  d->conf.numa.freeze_window_s);
	if (numad_numa_balancing() > 0)
		numad_log(LOG_WARNING,
			  "kernel.numa_balancing is on: the kernel moves a running process's pages back towards the CPUs that touch them, which can undo a migration (set it to 0 where cosched-numad places memory)");
	while (!got_stop) {
		double now = numad_now(), wake = next_scan;
		int timeout;

		if (got_hup) {
			numad_t *fresh = malloc(sizeof(*fresh));

			got_hup = 0;
			if (fresh) {
				memcpy(fresh->conf_path, d->conf_path,
				       sizeof(d->conf_path));
				if (load_conf(fresh, &err))
					numad_log(LOG_ERR,
						  "reconfigure: %s (kept the old settings)",
						  err.msg);
				else {
					/* Paths stay until a restart. */
					d->conf.numa.batch_pages = fresh->conf.numa.batch_pages;
					d->conf.numa.pages_per_second = fresh->conf.numa.pages_per_second;
					d->conf.numa.freeze_window_s = fresh->conf.numa.freeze_window_s;
					d->conf.numa.scan_interval_s = fresh->conf.numa.scan_interval_s;
					numad_log(LOG_INFO, "reconfigured");
				}
				free(fresh);
			}
		}
		if (now >= next_scan) {
			if (numad_scan(d, &err))
				numad_log(LOG_WARNING, "scan: %s", err.msg);
			numad_keep_local(d);
			next_scan = now + d->conf.numa.scan_interval_s;
			wake = next_scan;
		}
		if (d->busy && d->next_batch < wake)
			wake = d->next_batch;
		wake = numad_clients_wake(wake);
		timeout = (int)((wake - now) * 1000);
		if (timeout < 0)
			timeout = 0;
		{
			struct pollfd p[NUMAD_CLIENTS_MAX + 1];
			numad_client_t *c;
			uid_t uid;
			char *line;

			p[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
			if (poll(p, (nfds_t) numad_clients_pollfds(p + 1) + 1,
				 timeout) > 0) {
				numad_clients_events(p + 1);
				if (p[0].revents & POLLIN)
					numad_clients_accept(d, lfd);
			}
			/* The administrators' lines first: a make-room
			 * never waits behind users' statuses. */
			while ((c = numad_clients_next(&uid, &line)))
				numad_serve(d, c, uid, line);
		}
		numad_clients_expire();
		numad_work(d);
	}
	if (d->busy) {
		/* Stopped mid-request: what was done is saved; the next
		 * start reports it interrupted. */
		numad_log(LOG_WARNING,
			  "stopping during request %llu: %llu of %llu pages moved",
			  (unsigned long long) d->active.id,
			  (unsigned long long) d->active.moved,
			  (unsigned long long) d->active.asked);
		numad_reply(d->active.client,
			    "error: the daemon stopped during the request");
		numad_reply_end(d->active.client, 1);
	}
	numad_clients_close_all();
	if (numad_state_save(d, &err))
		numad_log(LOG_ERR, "state: %s", err.msg);
	unlink(d->conf.numa.socket);
	numad_log(LOG_INFO, "stopped");
	return 0;
}
