/* SPDX-License-Identifier: MIT */
/* net.udp: UDP datagrams per second with a payload of N bytes, from one
 * connected socket to a sink server. The core counts what was sent
 * (packets/s, bytes/s, the time of each send); the bench adds what the
 * server received and the loss. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "sys/ev.h"
#include "bench/netsrv.h"
#include "core/registry.h"

#define MAX_PAYLOAD 65507 /* IPv4's largest UDP payload */

struct st {
	struct bench_env *env;
	struct netsrv srv;
	int fd;
	size_t size;
	char *buf;
};

static void teardown(void *state);

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	netsrv_clear(&s->srv);
	s->env = env;
	s->fd = -1;
	*state = s;
	if (!(s->buf = calloc(1, MAX_PAYLOAD)))
		return bench_fail(env, "calloc");
	int rc = netsrv_start(&s->srv, env, SRV_UDP, ev_default_mech());
	if (rc)
		return rc;
	if ((rc = netsrv_connect(&s->srv, SOCK_DGRAM, &s->fd)))
		return rc;
	if (reg_add_fd(s->fd)) { /* it closed the socket */
		s->fd = -1;
		errno = ENOMEM;
		return bench_fail(env, "registry");
	}
	int big = 4 << 20;
	setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	return 0;
}

static int set_n(void *state, uint64_t n)
{
	struct st *s = state;
	s->size = n > MAX_PAYLOAD ? MAX_PAYLOAD : (size_t)n;
	return 0;
}

static int count(struct st *s, double *packets)
{
	char line[256];
	int rc = netsrv_ask(&s->srv, "COUNT", "COUNT", line, sizeof(line));
	*packets = line_field(line, "packets");
	return rc;
}

static int run(void *state, struct meter *m)
{
	struct st *s = state;
	double before, after;
	int rc = count(s, &before);
	uint64_t start = meter_now(), sent = 0;
	while (rc == 0 && !meter_stop(m)) {
		uint64_t t0 = meter_now();
		ssize_t w = send(s->fd, s->buf, s->size, 0);
		if (w < 0 && (errno == EINTR || errno == ENOBUFS || errno == EAGAIN ||
			      errno == ECONNREFUSED))
			continue; /* the receiver's queue is full or it said so: a loss */
		if (w < 0) {
			rc = bench_fail(s->env, "send (udp)");
			break;
		}
		meter_done(m, t0, (uint64_t)w);
		sent++;
	}
	double el = (double)(meter_now() - start) / 1e9;
	struct timespec ts = {0, 20 * 1000000}; /* let the receiver drain its queue */
	nanosleep(&ts, NULL);
	if (rc || (rc = count(s, &after)))
		return rc;
	double got = after - before;
	json_t *x = json_object();
	json_object_set_new(x, "payload_bytes", json_integer((json_int_t)s->size));
	json_object_set_new(x, "sent_packets", json_integer((json_int_t)sent));
	if (isfinite(got)) {
		json_object_set_new(x, "received_packets", json_real(got));
		json_object_set_new(x, "received_packets_per_s", json_real(el > 0 ? got / el : 0));
		json_object_set_new(x, "loss", json_real(sent ? 1.0 - got / (double)sent : 0));
	}
	meter_extra(m, "udp", x);
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	if (s->fd >= 0)
		reg_close_fd(s->fd);
	netsrv_stop(&s->srv);
	free(s->buf);
	free(s);
}

const struct bench bench_net_udp = {
	.params = bench_no_params,
	.name = "net.udp", .version = 1, .axis = "UDP payload bytes", .axis_kind = AXIS_SIZE,
	.placement = "spread",
	.summary = "UDP datagrams per second from one socket to a sink server, by payload size",
	.op_desc = "one send of an N-byte datagram on a connected UDP socket",
	.quick_max_n = 1024, .default_max_n = 32768, .full_max_n = MAX_PAYLOAD, .min_n = 16,
	.series = SERIES_POW2, .flags = BENCH_FULL_BUDGET, .unit = "packet",
	.setup = setup, .set_n = set_n, .run = run, .teardown = teardown,
};
