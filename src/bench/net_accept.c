/* SPDX-License-Identifier: MIT */
/* net.accept: accept() a pending connection with N connections already
 * accepted and held by this process (the server's side of net.connect).
 * The clients are helper processes; a helper connects untimed before each
 * sample, its connection waits in the backlog, and accept is timed. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "bench/fdhold.h"
#include "bench/netload.h"
#include "core/registry.h"

struct st {
	struct fdhold held;
	struct netload load;
	struct sockaddr_storage addr;
	int lsock, probe;
};

static void teardown(void *state);

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->held.env = env;
	s->lsock = s->probe = -1;
	*state = s;
	if (env->net->peer) {
		snprintf(env->skip, sizeof(env->skip),
			 "measures this host's accept: needs no peer (run it without --peer)");
		return BENCH_SKIP;
	}
	fdhold_raise_limit(env, env->max_n);
	int v6 = env->net->family == AF_INET6;
	const char *host = env->net->netns ? (v6 ? NETNS_CLI6 : NETNS_CLI4) : (v6 ? "::1" : "127.0.0.1");
	char err[200];
	int port = 0;
	s->lsock = srv_bind(env->net->family, SOCK_STREAM, host, &port, err, sizeof(err));
	if (s->lsock < 0) {
		errno = -s->lsock;
		s->lsock = -1;
		snprintf(env->note, sizeof(env->note), "%s", err);
		return bench_fail(env, "bind/listen");
	}
	if (reg_add_fd(s->lsock)) { /* it closed the socket */
		s->lsock = -1;
		errno = ENOMEM;
		return bench_fail(env, "registry");
	}
	socklen_t len = sizeof(s->addr);
	getsockname(s->lsock, (struct sockaddr *)&s->addr, &len);
	s->load = (struct netload){.env = env, .addr = &s->addr, .alen = len, .in_srv_ns = 1};
	return 0;
}

static int take(struct st *s, int *fd)
{
	while ((*fd = accept(s->lsock, NULL, NULL)) < 0)
		if (errno != EINTR)
			return bench_fail(s->held.env, "accept");
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	(void)i;
	int fd, rc = netload_add(&s->load);
	if (rc || (rc = take(s, &fd)))
		return rc;
	return fdhold_add(&s->held, fd);
}

static int prep(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	int rc = netload_add(&s->load);
	if (rc)
		return rc;
	struct pollfd p = {s->lsock, POLLIN, 0}; /* in the backlog, ready to accept */
	if (poll(&p, 1, CONNECT_ACK_TIMEOUT_MS) != 1) {
		errno = ETIMEDOUT;
		return bench_fail(s->held.env, "poll (pending connection)");
	}
	return 0;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	return take(s, &s->probe);
}

static int undo(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	int rc = close(s->probe) ? bench_fail(s->held.env, "close") : 0;
	s->probe = -1;
	return rc ? rc : netload_drop_last(&s->load);
}

static void teardown(void *state)
{
	struct st *s = state;
	if (s->probe >= 0)
		close(s->probe);
	netload_free(&s->load);
	fdhold_release(&s->held);
	if (s->lsock >= 0)
		reg_close_fd(s->lsock);
	free(s);
}

const struct bench bench_net_accept = {
	.params = bench_no_params,
	.name = "net.accept", .version = 1, .axis = "connections already accepted and held", .axis_kind = AXIS_LOAD,
	.placement = "same",
	.summary = "accept a pending TCP connection with N accepted connections held open",
	.op_desc = "accept on a blocking listening socket; the client connects before, both close after",
	.quick_max_n = 200, .default_max_n = 10000, .full_max_n = 100000,
	.max_batch = 1, .setup = setup, .grow = grow, .prep = prep, .op = op, .undo = undo,
	.teardown = teardown,
};
