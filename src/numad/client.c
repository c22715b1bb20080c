/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * client.c - the connections to cosched-numad's socket, which every
 * local user may open: each one's request line read as its bytes come,
 * its reply kept in its own buffer and written as the client takes it.
 *
 * One thread serves everyone, so nothing a client does (say nothing,
 * send too much, never read its reply) may make it wait:
 *   - sockets are non-blocking both ways; a reply is written whole into
 *     the connection's buffer and sent as the client reads it;
 *   - a connection has REQUEST_WAIT_S to send its line and REPLY_WAIT_S
 *     to take its reply, then it is closed;
 *   - one user other than root and SlurmUser holds at most UID_CONNS_MAX
 *     connections at once, and all such users together USERS_CONNS_MAX;
 *     the rest of the table is the administrators' (slurmstepd asking
 *     for room runs as root), so no user can crowd them out;
 *   - of the lines that arrived together, the administrators' are served
 *     first (numad_clients_next).
 * A line too long is answered, and what follows it read and thrown
 * away until the client stops sending: closing with its bytes unread
 * would reset the connection before the client read the answer.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "src/numad/numad.h"

#define UID_CONNS_MAX 8
#define USERS_CONNS_MAX 64
#define REQUEST_WAIT_S 2.0
#define REPLY_WAIT_S 10.0
/* A reply longer than this is cut (a status of NUMAD_PROCS_MAX
 * processes is some 1.5 MB). */
#define REPLY_MAX (16u << 20)
/* Connections taken per turn of the loop: a burst of connections is
 * accepted (or refused) at once, not one a poll. */
#define ACCEPT_BURST 64

struct numad_client {
	int fd;			/* -1: a free slot */
	uid_t uid;
	bool admin;
	bool reading;		/* its line (or, discarding, the rest) comes */
	bool discard;		/* what it sends now is thrown away */
	bool ready;		/* a whole line waits to be served */
	bool ended;		/* the reply is whole (its rc= line in out) */
	unsigned long seq;	/* the order ready lines are served in */
	double deadline;	/* monotonic; 0: none (waiting for a request) */
	size_t len, sent;
	char line[NUMAD_REQUEST_MAX + 1];
	cosched_kv_out_t out;
};

static numad_client_t clients[NUMAD_CLIENTS_MAX];
static unsigned long next_seq;

void numad_clients_init(void)
{
	for (int i = 0; i < NUMAD_CLIENTS_MAX; i++)
		clients[i].fd = -1;
}

static void drop(numad_client_t *c)
{
	close(c->fd);
	free(c->out.buf);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Send what the client will take now; close it once its reply is out
 * and it sends nothing more. */
static void flush(numad_client_t *c)
{
	while (c->sent < c->out.at) {
		ssize_t w = send(c->fd, c->out.buf + c->sent,
				 c->out.at - c->sent, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (w <= 0) {
			drop(c);	/* the client left */
			return;
		}
		c->sent += (size_t) w;
	}
	if (c->ended && !c->reading)
		drop(c);
}

void numad_reply(numad_client_t *c, const char *fmt, ...)
{
	va_list ap;
	char line[2048];

	if (!c || c->fd < 0 || c->ended)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	numad_reply_text(c, line, strlen(line));
	cosched_kv_put_str(&c->out, "\n");
}

void numad_reply_text(numad_client_t *c, const char *text, size_t len)
{
	if (!c || c->fd < 0 || c->ended)
		return;
	if (!c->out.buf)
		cosched_kv_out_grow(&c->out);
	if (c->out.at + len > REPLY_MAX) {
		numad_log(LOG_WARNING,
			  "a reply to uid %u is longer than %u bytes: cut",
			  (unsigned) c->uid, REPLY_MAX);
		return;
	}
	/* Texts are lines of printable ASCII: no NUL within len. */
	cosched_kv_put_fmt(&c->out, "%.*s", (int) len, text);
}

void numad_reply_end(numad_client_t *c, int rc)
{
	char end[16];

	if (!c || c->fd < 0 || c->ended)
		return;
	snprintf(end, sizeof(end), "rc=%d", rc);
	numad_reply(c, "%s", end);
	c->ended = true;
	c->ready = false;
	if (!c->discard)
		c->deadline = numad_now() + REPLY_WAIT_S;
	flush(c);
}

static void refuse_now(int fd, const char *msg)
{
	/* A fresh connection: its socket buffer takes a line this short. */
	if (send(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* the client left */
	}
	close(fd);
}

static void accept_one(const numad_t *d, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int free_slot = -1, uid_n = 0, users_n = 0;
	bool admin;
	char msg[160];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		close(fd);
		return;
	}
	admin = numad_is_admin(d, cred.uid);
	for (int i = 0; i < NUMAD_CLIENTS_MAX; i++) {
		if (clients[i].fd < 0) {
			if (free_slot < 0)
				free_slot = i;
			continue;
		}
		if (!clients[i].admin)
			users_n++;
		if (clients[i].uid == cred.uid)
			uid_n++;
	}
	if (!admin && uid_n >= UID_CONNS_MAX) {
		snprintf(msg, sizeof(msg),
			 "error: too many connections from uid %u (at most %d at once); try again\nrc=1\n",
			 (unsigned) cred.uid, UID_CONNS_MAX);
		refuse_now(fd, msg);
		return;
	}
	if (free_slot < 0 || (!admin && users_n >= USERS_CONNS_MAX)) {
		refuse_now(fd, "error: too many requests waiting; try again\nrc=1\n");
		return;
	}
	clients[free_slot] = (numad_client_t){ .fd = fd, .uid = cred.uid,
		.admin = admin, .reading = true,
		.deadline = numad_now() + REQUEST_WAIT_S };
}

void numad_clients_accept(const numad_t *d, int lfd)
{
	for (int k = 0; k < ACCEPT_BURST; k++) {
		int fd = accept4(lfd, NULL, NULL,
				 SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0)
			return;
		accept_one(d, fd);
	}
}

/* The request line as it arrives; a line too long is answered and the
 * rest thrown away. */
static void take(numad_client_t *c)
{
	char scratch[4096], *nl;
	ssize_t n;

	if (c->discard) {
		while ((n = read(c->fd, scratch, sizeof(scratch))) > 0)
			;
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			c->reading = false;
			flush(c);
		}
		return;
	}
	n = read(c->fd, c->line + c->len, NUMAD_REQUEST_MAX - c->len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0)
		c->len += (size_t) n;
	c->line[c->len] = '\0';
	nl = memchr(c->line, '\n', c->len);
	if (nl) {
		*nl = '\0';
		c->reading = false;
		c->ready = true;
		c->seq = next_seq++;
		return;
	}
	if (n > 0 && c->len < NUMAD_REQUEST_MAX)
		return;
	if (n > 0) {
		/* Too long: the client may still be sending. */
		c->discard = true;
		c->deadline = numad_now() + REQUEST_WAIT_S;
	} else {
		c->reading = false;
	}
	numad_reply(c, "error: request: no complete line (at most %d bytes, ended by a newline)",
		    NUMAD_REQUEST_MAX);
	numad_reply_end(c, 2);
}

int numad_clients_pollfds(struct pollfd *p)
{
	for (int i = 0; i < NUMAD_CLIENTS_MAX; i++) {
		numad_client_t *c = &clients[i];
		short ev = 0;

		if (c->fd >= 0 && c->reading)
			ev |= POLLIN;
		if (c->fd >= 0 && c->sent < c->out.at)
			ev |= POLLOUT;
		/* A client waiting for its request's end is not polled: its
		 * hang-up would wake the loop at every turn. */
		p[i] = (struct pollfd){ .fd = ev ? c->fd : -1, .events = ev };
	}
	return NUMAD_CLIENTS_MAX;
}

void numad_clients_events(const struct pollfd *p)
{
	for (int i = 0; i < NUMAD_CLIENTS_MAX; i++) {
		numad_client_t *c = &clients[i];

		if (c->fd < 0 || p[i].fd < 0 || !p[i].revents)
			continue;
		if (c->sent < c->out.at && (p[i].revents & (POLLOUT | POLLERR)))
			flush(c);
		if (c->fd >= 0 && c->reading &&
		    (p[i].revents & (POLLIN | POLLHUP | POLLERR)))
			take(c);
	}
}

numad_client_t *numad_clients_next(uid_t *uid, char **line)
{
	numad_client_t *best = NULL;

	for (int i = 0; i < NUMAD_CLIENTS_MAX; i++) {
		numad_client_t *c = &clients[i];

		if (c->fd < 0 || !c->ready)
			continue;
		if (!best || (c->admin && !best->admin) ||
		    (c->admin == best->admin && c->seq < best->seq))
			best = c;
	}
	if (!best)
		return NULL;
	best->ready = false;
	best->deadline = 0;	/* served: its reply, or a request's end */
	*uid = best->uid;
	*line = best->line;
	return best;
}

void numad_clients_expire(void)
{
	double now = numad_now();

	for (int i = 0; i < NUMAD_CLIENTS_MAX; i++) {
		numad_client_t *c = &clients[i];

		if (c->fd < 0 || !c->deadline || c->deadline > now)
			continue;
		if (c->reading && !c->discard) {
			c->reading = false;
			numad_reply(c, "error: request: no complete line within %g s",
				    REQUEST_WAIT_S);
			numad_reply_end(c, 2);
		} else {
			drop(c);	/* did not take its reply in time */
		}
	}
}

double numad_clients_wake(double wake)
{
	for (int i = 0; i < NUMAD_CLIENTS_MAX; i++)
		if (clients[i].fd >= 0 && clients[i].deadline &&
		    clients[i].deadline < wake)
			wake = clients[i].deadline;
	return wake;
}

void numad_clients_close_all(void)
{
	for (int i = 0; i < NUMAD_CLIENTS_MAX; i++)
		if (clients[i].fd >= 0) {
			clients[i].reading = false;
			flush(&clients[i]);
			if (clients[i].fd >= 0)
				drop(&clients[i]);
		}
}
