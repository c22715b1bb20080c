/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * numa_ask.c - one request to the node's NUMA manager (see the
 * header).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "src/libcosched/base/text.h"
#include "src/node/numa_ask.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int cosched_numa_ask(const char *socket_path, const char *line,
		     int timeout_ms, cosched_numa_line_fn fn, void *arg,
		     cosched_error_t *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	long long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	char buf[4096];
	size_t kept = 0, len = strlen(line);
	int fd, rc = -1;
	bool ended = false;

	if (strlen(socket_path) >= sizeof(sa.sun_path))
		return cosched_error_set(err, "NumaSocket %s: path too long",
					 COSCHED_QUOTE(socket_path));
	strcpy(sa.sun_path, socket_path);
	/* Non-blocking: a Unix socket's connect() waits, without limit,
	 * while the daemon's backlog is full; here it fails at once
	 * (EAGAIN) and the caller goes on.  send() with MSG_NOSIGNAL: a
	 * daemon that closed the connection is an error, not a SIGPIPE. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return cosched_error_set(err, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *) &sa, sizeof(sa))) {
		cosched_error_set(err, "cannot reach cosched-numad at %s: %s",
				  socket_path, errno == EAGAIN ?
				  "too many requests waiting" : strerror(errno));
		close(fd);
		return -1;
	}
	/* One line, then the end of what we say (a request fits the
	 * socket's buffer: at most 1024 bytes). */
	if (send(fd, line, len, MSG_NOSIGNAL) != (ssize_t) len ||
	    send(fd, "\n", 1, MSG_NOSIGNAL) != 1) {
		cosched_error_set(err, "%s: %s", socket_path, strerror(errno));
		close(fd);
		return -1;
	}
	shutdown(fd, SHUT_WR);
	while (!ended) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int wait = -1;
		ssize_t n;
		char *nl, *start;

		if (deadline >= 0) {
			long long left = deadline - now_ms();

			if (left <= 0) {
				cosched_error_set(err,
					"cosched-numad at %s did not answer within %d ms",
					socket_path, timeout_ms);
				break;
			}
			wait = (int) left;
		}
		if (poll(&p, 1, wait) <= 0)
			continue;	/* EINTR, or the deadline: checked above */
		n = read(fd, buf + kept, sizeof(buf) - 1 - kept);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			cosched_error_set(err,
				"cosched-numad at %s: the reply ended without its status",
				socket_path);
			break;
		}
		kept += (size_t) n;
		buf[kept] = '\0';
		start = buf;
		while ((nl = strchr(start, '\n'))) {
			*nl = '\0';
			if (!strncmp(start, "rc=", 3)) {
				rc = atoi(start + 3);
				ended = true;
				break;
			}
			if (fn)
				fn(arg, start);
			start = nl + 1;
		}
		kept = strlen(start);
		memmove(buf, start, kept + 1);
		if (kept == sizeof(buf) - 1) {
			/* A line longer than the buffer: handed on in parts. */
			if (fn)
				fn(arg, buf);
			kept = 0;
		}
	}
	close(fd);
	return rc;
}
