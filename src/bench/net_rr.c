/* SPDX-License-Identifier: MIT */
/* net.rr: small request/response transactions per second (netperf's
 * TCP_RR idea) with N connections each keeping one 1-byte transaction in
 * flight against an echo server. The core's ops/s is transactions/s; each
 * transaction's latency goes into the histogram from when it was sent. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "sys/ev.h"
#include "bench/netsrv.h"
#include "core/registry.h"

/* How long the round trips in flight may take to answer, in milliseconds. */
#define RESPONSE_TIMEOUT_MS 1000

struct st {
	struct bench_env *env;
	struct netsrv srv;
	int *fd;
	uint64_t n, cap;
	uint64_t *issued;
	struct pollfd *p;
};

static void teardown(void *state);

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	netsrv_clear(&s->srv);
	s->env = env;
	*state = s;
	return netsrv_start(&s->srv, env, SRV_ECHO, ev_default_mech());
}

static int set_n(void *state, uint64_t n)
{
	struct st *s = state;
	if (n > s->cap) {
		int *f = realloc(s->fd, n * sizeof(*f));
		if (f)
			s->fd = f;
		uint64_t *is = realloc(s->issued, n * sizeof(*is));
		if (is)
			s->issued = is;
		struct pollfd *p = realloc(s->p, n * sizeof(*p));
		if (p)
			s->p = p;
		if (!f || !is || !p)
			return bench_fail(s->env, "realloc");
		s->cap = n;
	}
	for (; s->n < n; s->n++) {
		int rc = netsrv_connect(&s->srv, SOCK_STREAM, &s->fd[s->n]);
		if (rc)
			return rc;
		if (reg_add_fd(s->fd[s->n])) { /* it closed the socket */
			errno = ENOMEM;
			return bench_fail(s->env, "registry");
		}
	}
	return 0;
}

static int transact(struct st *s, uint64_t i)
{
	char c = 't';
	s->issued[i] = meter_now();
	return send(s->fd[i], &c, 1, MSG_NOSIGNAL) == 1 ? 0 : bench_fail(s->env, "send");
}

static int run(void *state, struct meter *m)
{
	struct st *s = state;
	int rc = 0;
	uint64_t pending = 0;
	for (uint64_t i = 0; i < s->n && rc == 0; i++, pending++)
		rc = transact(s, i);
	while (rc == 0 && pending > 0) {
		for (uint64_t i = 0; i < s->n; i++)
			s->p[i] = (struct pollfd){s->fd[i], POLLIN, 0};
		int k = poll(s->p, (nfds_t)s->n, RESPONSE_TIMEOUT_MS);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = ETIMEDOUT;
			rc = bench_fail(s->env, "poll (responses)");
			break;
		}
		int stop = meter_stop(m);
		for (uint64_t i = 0; i < s->n && rc == 0; i++) {
			if (!s->p[i].revents)
				continue;
			char c;
			if (recv(s->fd[i], &c, 1, 0) != 1) {
				errno = errno ? errno : ECONNRESET;
				rc = bench_fail(s->env, "recv");
				break;
			}
			meter_done(m, s->issued[i], 1);
			if (stop)
				pending--; /* drained: nothing left in flight for the next point */
			else
				rc = transact(s, i);
		}
	}
	return rc;
}

static void teardown(void *state)
{
	struct st *s = state;
	for (uint64_t i = 0; i < s->n; i++)
		reg_close_fd(s->fd[i]);
	netsrv_stop(&s->srv);
	free(s->fd);
	free(s->issued);
	free(s->p);
	free(s);
}

const struct bench bench_net_rr = {
	.params = bench_no_params,
	.name = "net.rr", .version = 1, .axis = "concurrent connections, one transaction in flight each", .axis_kind = AXIS_CONCURRENCY,
	.placement = "same",
	.summary = "1-byte TCP request/response transactions per second with N concurrent connections",
	.op_desc = "one transaction: send 1 byte, receive its echo (latency from the send)",
	.quick_max_n = 16, .default_max_n = 64, .full_max_n = 1024, .series = SERIES_POW2,
	.unit = "transaction", .setup = setup, .set_n = set_n, .run = run, .teardown = teardown,
};
