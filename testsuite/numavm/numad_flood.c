/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * numad_flood - an unprivileged user's load on cosched-numad's socket,
 * for the NUMA manager's tests (testsuite/python/test_numad.py):
 *
 *   numad_flood SOCKET SILENT READERS SECONDS
 *
 * Becomes uid and gid 65534 (nobody; the guest has no passwd file), then
 * for SECONDS holds SILENT connections that say nothing and READERS that
 * ask for the status and never read it, each replaced as soon as the
 * daemon closes (or refuses) it.  Prints "ready" once the first are open.
 */
#include <grp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CONNS_MAX 512

static int open_one(const char *path, bool status)
{
	static const char line[] = "cosched-numa/1 cmd=status\n";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) ||
	    (status && send(fd, line, sizeof(line) - 1, MSG_NOSIGNAL) < 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	int fds[CONNS_MAX], silent, readers, n;
	time_t end;

	if (argc != 5) {
		fprintf(stderr, "usage: numad_flood SOCKET SILENT READERS SECONDS\n");
		return 2;
	}
	silent = atoi(argv[2]);
	readers = atoi(argv[3]);
	n = silent + readers;
	if (silent < 0 || readers < 0 || n > CONNS_MAX) {
		fprintf(stderr, "numad_flood: at most %d connections\n", CONNS_MAX);
		return 2;
	}
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534)) {
		perror("numad_flood: becoming 65534");
		return 1;
	}
	end = time(NULL) + atoi(argv[4]);
	for (int i = 0; i < n; i++)
		fds[i] = -1;
	for (bool first = true; time(NULL) < end; first = false) {
		for (int i = 0; i < n; i++) {
			struct pollfd p = { .fd = fds[i], .events = POLLRDHUP };

			/* Closed by the daemon: its unread reply does not
			 * count. */
			if (fds[i] >= 0 && poll(&p, 1, 0) > 0) {
				close(fds[i]);
				fds[i] = -1;
			}
			if (fds[i] < 0)
				fds[i] = open_one(argv[1], i >= silent);
		}
		if (first) {
			printf("ready\n");
			fflush(stdout);
		}
		usleep(100000);
	}
	return 0;
}
