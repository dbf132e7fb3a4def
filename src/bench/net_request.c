/* SPDX-License-Identifier: MIT */
/* net.request: request/response round trip (64 bytes each way) on one
 * active connection while N idle keep-alive connections are open on the
 * same server, one sweep per event mechanism of the server; parameter
 * gap_us: the pause between requests (default 100), spent spinning
 * (gap_wait=spin, the default) or asleep (gap_wait=sleep). select,
 * poll (and a naive server's loop over them) cost O(n) per wake-up;
 * epoll and io_uring should not. select stops at FD_SETSIZE: the failure
 * and a note say so. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>
#include "sys/ev.h"
#include "bench/netload.h"
#include "core/registry.h"

#define REQ_BYTES 64

static const char *const variants[] = {"mech=select", "mech=poll", "mech=epoll", "mech=io_uring",
				       NULL};

struct st {
	struct bench_env *env;
	struct netsrv srv;
	struct netload load;
	int active;
	uint64_t gap_ns;  /* pause between requests (param gap_us) */
	int gap_sleep;    /* gap_wait=sleep: nanosleep the gap (else spin, yielding) */
	char buf[REQ_BYTES];
};

static void teardown(void *state);
static int round_trip(struct st *s);
static void gap(const struct st *s);

/* The server's first requests (and this process's) are slow: its pages,
 * the socket's buffers, the caches. The core warms an op up before each
 * point; a run() bench warms itself: round trips, as measured, for at
 * least WARM_NS and WARM_REQ requests before the first point. */
#define WARM_NS 20000000u
#define WARM_REQ 64

static const struct bench_param_spec params[] = {
	BP_ENUM("mech", "epoll", "select|poll|epoll|io_uring", "the server's event mechanism (one variant each)"),
	BP_U64("gap_us", "100", 0, 999999, "pause between two requests (us)"),
	BP_ENUM("gap_wait", "spin", "spin|sleep", "how the client spends the pause: spin (yielding to the server; the CPU never idles) or sleep (the CPU may halt, and each request then starts on a CPU just woken)"),
	{0},
};

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	netsrv_clear(&s->srv);
	s->env = env;
	s->active = -1;
	*state = s;
	const char *name = bench_param(env, "mech");
	int mech = ev_mech_parse(name);
	if (mech < 0) {
		snprintf(env->skip, sizeof(env->skip), "unknown mech '%.60s' (select|poll|epoll|io_uring|kqueue)", name);
		return BENCH_SKIP;
	}
	char why[200];
	struct ev *e;
	if (!env->net->peer && ev_open(mech, &e, why, sizeof(why))) {
		snprintf(env->skip, sizeof(env->skip), "%s", why);
		return BENCH_SKIP;
	}
	if (!env->net->peer)
		ev_close(e);
	if (mech == EV_SELECT && env->max_n + 8 > FD_SETSIZE)
		snprintf(env->note, sizeof(env->note),
			 "select watches descriptors below FD_SETSIZE = %d only: the sweep stops there",
			 FD_SETSIZE);
	int rc = netsrv_start(&s->srv, env, SRV_ECHO, mech);
	if (rc)
		return rc;
	s->load = (struct netload){.env = env, .srv = &s->srv, .addr = &s->srv.addr,
				   .alen = s->srv.alen, .want_ack = 1};
	if ((rc = netsrv_connect(&s->srv, SOCK_STREAM, &s->active)))
		return rc;
	if ((rc = reg_add_fd(s->active))) { /* it closed the socket */
		s->active = -1;
		errno = -rc;
		return bench_fail(env, "registry");
	}
	memset(s->buf, 'r', sizeof(s->buf));
	s->gap_ns = bench_param_u64(env, "gap_us") * 1000;
	if (s->gap_ns > 999999999)
		s->gap_ns = 999999999;
	s->gap_sleep = !strcmp(bench_param(env, "gap_wait"), "sleep");
	uint64_t t0 = meter_now();
	for (int k = 0; k < WARM_REQ || meter_now() - t0 < WARM_NS; k++) {
		gap(s);
		if ((rc = round_trip(s)))
			return rc;
	}
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	(void)i;
	return netload_add(&s->load);
}

static int round_trip(struct st *s)
{
	if (send(s->active, s->buf, REQ_BYTES, MSG_NOSIGNAL) != REQ_BYTES)
		return bench_fail(s->env, "send (request)");
	size_t got = 0;
	while (got < REQ_BYTES) {
		ssize_t n = recv(s->active, s->buf + got, REQ_BYTES - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ECONNRESET;
			return bench_fail(s->env, "recv (response)");
		}
		got += (size_t)n;
	}
	return 0;
}

/* The server's CPU seconds so far (its COUNT line). */
static int server_cpu(struct st *s, double *cpu)
{
	char line[256];
	int rc = netsrv_ask(&s->srv, "COUNT", "COUNT", line, sizeof(line));
	*cpu = line_field(line, "user_s") + line_field(line, "sys_s");
	return rc;
}

/* Round trips spaced by gap_us (default 100 us), each timed by the core
 * from its send. The gap lets the server fall asleep in its mechanism
 * before each request, as a keep-alive server between requests does;
 * back to back (-p gap_us=0) the server's O(n) scan overlaps the client's
 * turnaround and the latency hides it. The server's CPU time per request
 * comes along either way.
 *
 * The client spends the gap spinning on sched_yield (gap_wait=spin), not
 * asleep: asleep, the CPU of the default placement (everything on one CPU)
 * idles for the gap, and a virtual CPU that idles halts; the request then
 * runs on a CPU the host has just resumed, and what it costs depends on
 * what the host did meanwhile: on this project's 2-vCPU guest (haltpoll,
 * no guest polling) epoll's round trip sat at ~17, ~23 or ~33 us for
 * hundreds of milliseconds at a time, the same N apart by 1.4x from one
 * sweep to the next, so select and poll came out "O(n log n)" or
 * "unclear". Spinning, the CPU never idles (the same N within 3%).
 * Yielding on every turn lets the server (on the same CPU) finish its
 * reply and go to sleep in its mechanism before the next request, as
 * asleep. The client's CPU per request then includes the gap (a spin);
 * the server's is unchanged. Having spun, the client is not preferred
 * when the reply wakes it: it runs again once the server is back in its
 * wait, so on one CPU a request's latency is the server's whole turn (the
 * wake-up scan and the re-arming one), about its CPU per request; asleep,
 * the client preempted the server at the reply (select at N=1,000: 263
 * against 146 us). */
static void gap(const struct st *s)
{
	if (!s->gap_ns)
		return;
	if (s->gap_sleep) {
		struct timespec ts = {0, (long)s->gap_ns};
		nanosleep(&ts, NULL);
		return;
	}
	uint64_t until = meter_now() + s->gap_ns;
	do
		sched_yield();
	while (meter_now() < until);
}

static int run(void *state, struct meter *m)
{
	struct st *s = state;
	double c0, c1;
	uint64_t k = 0;
	int rc = server_cpu(s, &c0);
	while (rc == 0 && !meter_stop(m)) {
		gap(s); /* let the server fall asleep in its wait first */
		uint64_t t0 = meter_now();
		if ((rc = round_trip(s)))
			break;
		meter_done(m, t0, REQ_BYTES);
		k++;
	}
	if (rc || (rc = server_cpu(s, &c1)))
		return rc;
	if (k && c1 >= c0)
		meter_extra(m, "server_cpu_us_per_request", json_real((c1 - c0) / (double)k * 1e6));
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	if (s->active >= 0)
		reg_close_fd(s->active);
	netload_free(&s->load);
	netsrv_stop(&s->srv);
	free(s);
}

const struct bench bench_net_request = {
	.params = params,
	.name = "net.request", .version = 2, .axis = "idle keep-alive connections on the server", .axis_kind = AXIS_LOAD,
	.placement = "same",
	.summary = "64-byte request/response on one connection with N idle connections open, per event mechanism",
	.op_desc = "send 64 bytes + recv the 64-byte echo, the server waiting in select/poll/epoll/io_uring",
	/* the COUNT exchanges stay outside the timed requests */
	.quick_max_n = 100, .default_max_n = 1000, .full_max_n = 100000,
	.max_batch = 1, .variants = variants, .unit = "request",
	/* the machine's slow stretches leave a sweep unclear often; more
	 * repetitions in shuffled order decide it (docs/net.md) */
	.flags = BENCH_DECIDE,
	.setup = setup, .grow = grow, .run = run, .teardown = teardown,
};
