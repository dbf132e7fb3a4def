/* SPDX-License-Identifier: MIT */
/* net.connect: connect() to a server until its event loop has accepted
 * the connection (the client reads the one byte the server sends on
 * accept), with N connections already established to the same server.
 * The server is a child process (or a peer's), the N held connections
 * live in helper processes, so only the server's own descriptor limit
 * caps the sweep; where it stops, the failure says how far it got. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "sys/ev.h"
#include "bench/netload.h"
#include "core/registry.h"

struct st {
	struct bench_env *env;
	struct netsrv srv;
	struct netload load;
	int probe;
};

static void teardown(void *state);

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	netsrv_clear(&s->srv);
	s->env = env;
	s->probe = -1;
	*state = s;
	int rc = netsrv_start(&s->srv, env, SRV_ECHO, ev_default_mech());
	if (rc)
		return rc;
	s->load = (struct netload){.env = env, .srv = &s->srv, .addr = &s->srv.addr,
				   .alen = s->srv.alen, .want_ack = 1};
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	(void)i;
	return netload_add(&s->load);
}

static int prep(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	s->probe = socket(s->srv.addr.ss_family, SOCK_STREAM, 0);
	return s->probe < 0 ? bench_fail(s->env, "socket") : 0;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	int rc;
	while ((rc = connect(s->probe, (struct sockaddr *)&s->srv.addr, s->srv.alen)) < 0 &&
	       errno == EINTR)
		;
	if (rc)
		return bench_fail(s->env, "connect");
	/* wait for the byte, or for the server to say it cannot accept; never
	 * block past a timeout or an interruption (SIGINT) */
	for (;;) {
		struct pollfd p[2] = {{s->probe, POLLIN, 0}, {s->srv.ctl, POLLIN, 0}};
		int r = poll(p, 2, CONNECT_ACK_TIMEOUT_MS);
		if (r < 0 && errno == EINTR && !reg_stop_requested())
			continue;
		if (r <= 0) {
			errno = r == 0 ? ETIMEDOUT : errno;
			return bench_fail(s->env, "recv (accept acknowledgment)");
		}
		if (p[0].revents)
			break;
		int f = netsrv_check(&s->srv, 0);
		if (f)
			return f;
	}
	char c;
	ssize_t n;
	while ((n = recv(s->probe, &c, 1, 0)) < 0 && errno == EINTR)
		;
	if (n != 1) {
		if (n == 0)
			errno = ECONNRESET;
		int f = netsrv_check(&s->srv, CTL_WHY_TIMEOUT_MS);
		return f ? f : bench_fail(s->env, "recv (accept acknowledgment)");
	}
	return 0;
}

/* Abortive close (SO_LINGER 0): no TIME_WAIT is left holding one of the
 * client's ephemeral ports per sample, which across a veth (where Linux
 * does not reuse TIME_WAIT ports as it does on loopback) would exhaust the
 * port range long before the descriptor limit. */
static int undo(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	struct linger lg = {1, 0};
	setsockopt(s->probe, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	int rc = close(s->probe) ? bench_fail(s->env, "close") : 0;
	s->probe = -1;
	return rc;
}

static void teardown(void *state)
{
	struct st *s = state;
	if (s->probe >= 0)
		close(s->probe);
	netload_free(&s->load);
	netsrv_stop(&s->srv);
	free(s);
}

const struct bench bench_net_connect = {
	.params = bench_no_params,
	.name = "net.connect", .version = 1, .axis = "connections already established", .axis_kind = AXIS_LOAD,
	.placement = "same",
	.summary = "connect to a server until its event loop has accepted, with N connections established",
	.op_desc = "connect + recv of the byte the server sends on accept; socket made before, reset (SO_LINGER 0) after",
	.quick_max_n = 200, .default_max_n = 10000, .full_max_n = 100000,
	.max_batch = 1, .setup = setup, .grow = grow, .prep = prep, .op = op, .undo = undo,
	.teardown = teardown,
};
