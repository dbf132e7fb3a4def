/* SPDX-License-Identifier: MIT */
/* net.stream: TCP bulk throughput with N parallel streams from this
 * process to a sink server (one process each end, one event loop each,
 * like iperf3 3.12), with four sender paths: send, sendfile, splice and
 * MSG_ZEROCOPY. The core counts the bytes the sender handed to the kernel
 * (bytes/s) and times each send call; the bench adds what the receiver
 * got (Gbit/s), CPU seconds per GB at each end, and per-stream fairness
 * (Jain's index and the smallest and largest share). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "sys/ev.h"
#include "bench/netsrv.h"
#include "sys/netsys.h"
#include "core/registry.h"

#define CHUNK (128 * 1024)     /* bytes per send call, iperf3's default */
#define FILE_BYTES (1 << 20)   /* the file sendfile and splice read from */

static const char *const variants[] = {"sender=send", "sender=sendfile", "sender=splice",
				       "sender=zerocopy", NULL};
static const char *const kinds[] = {"send", "sendfile", "splice", "zerocopy"};

struct stream {
	int fd;
	struct sys_tx tx;
	uint64_t bytes;
	off_t off;
	long pending; /* bytes of the current 128 KiB block not yet sent */
};

struct st {
	struct bench_env *env;
	int kind, mech, file;
	struct netsrv srv;
	int srv_up;
	struct stream *s;
	uint64_t n;
	char *buf;
};

static void teardown(void *state);

static const struct bench_param_spec params[] = {
	BP_ENUM("sender", "send", "send|sendfile|splice|zerocopy", "how the sender moves data (one variant each)"),
	{0},
};

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	netsrv_clear(&s->srv);
	s->env = env;
	s->file = -1;
	*state = s;
	const char *k = bench_param(env, "sender");
	s->kind = -1;
	for (int i = 0; i < 4; i++)
		if (!strcmp(k, kinds[i]))
			s->kind = i;
	if (s->kind < 0) {
		snprintf(env->skip, sizeof(env->skip), "unknown sender '%.60s' (send|sendfile|splice|zerocopy)", k);
		return BENCH_SKIP;
	}
	if (s->kind != TX_SEND) { /* is this sender path in this build and kernel? */
		struct sys_tx tx;
		int probe = socket(env->net->family, SOCK_STREAM, 0);
		if (probe < 0)
			return bench_fail(env, "socket");
		int rc = sys_tx_open(&tx, s->kind, probe, -1, env->skip, sizeof(env->skip));
		if (rc == 0)
			sys_tx_close(&tx);
		close(probe);
		if (rc == -ENOSYS)
			return BENCH_SKIP;
		if (rc) {
			errno = -rc;
			return bench_fail(env, "sender probe");
		}
	}
	s->buf = malloc(CHUNK);
	if (!s->buf)
		return bench_fail(env, "malloc");
	memset(s->buf, 's', CHUNK);
	s->file = openat(env->dirfd, "stream.data", O_RDWR | O_CREAT | O_EXCL, BENCH_FILE_MODE);
	if (s->file < 0)
		return bench_fail(env, "open (stream.data)");
	for (int i = 0; i < FILE_BYTES / CHUNK; i++)
		if (write(s->file, s->buf, CHUNK) != CHUNK)
			return bench_fail(env, "write (stream.data)");
	s->mech = ev_default_mech();
	return 0;
}

static void close_streams(struct st *s)
{
	for (uint64_t i = 0; i < s->n; i++) {
		sys_tx_close(&s->s[i].tx);
		reg_close_fd(s->s[i].fd);
	}
	free(s->s);
	s->s = NULL;
	s->n = 0;
}

/* A fresh sink server and n streams for each point, so that the
 * receiver's CPU time of the point is its own. */
static int set_n(void *state, uint64_t n)
{
	struct st *s = state;
	int rc = netsrv_start(&s->srv, s->env, SRV_SINK, s->mech);
	if (rc)
		return rc < 0 ? rc : bench_fail(s->env, "sink server");
	s->srv_up = 1;
	s->s = calloc(n, sizeof(*s->s));
	if (!s->s)
		return bench_fail(s->env, "calloc");
	for (; s->n < n; s->n++) {
		struct stream *t = &s->s[s->n];
		if ((rc = netsrv_connect(&s->srv, SOCK_STREAM, &t->fd)))
			return rc;
		if (reg_add_fd(t->fd)) { /* it closed the socket */
			t->fd = -1;
			errno = ENOMEM;
			return bench_fail(s->env, "registry");
		}
		net_nonblock(t->fd, 1);
		int off = 0; /* bulk data: Nagle on, as iperf3 (netsrv_connect sets TCP_NODELAY) */
		setsockopt(t->fd, IPPROTO_TCP, TCP_NODELAY, &off, sizeof(off));
		t->off = (off_t)((s->n * CHUNK) % FILE_BYTES);
		if (s->kind == TX_SEND) { /* plain send(): no Linux-only set-up */
			memset(&t->tx, 0, sizeof(t->tx));
			t->tx.pipe[0] = t->tx.pipe[1] = -1;
			continue;
		}
		char why[200];
		if ((rc = sys_tx_open(&t->tx, s->kind, t->fd, s->file, why, sizeof(why)))) {
			snprintf(s->env->note, sizeof(s->env->note), "%s", why);
			errno = -rc;
			return bench_fail(s->env, "sender setup");
		}
	}
	return 0;
}

static double tvs(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

/* After each wait, SENDS_PER_WAKE rounds of one send on each stream that
 * the wait found writable, in stream order: iperf3 3.12's loop
 * (iperf_send(): a nonblocking socket, select, then up to 10 rounds over
 * the ready streams, one block each, a full socket's EAGAIN taken as 0
 * bytes and the stream tried again in the next round), so that net.stream
 * and iperf3 do the same work and spread their writes over the streams
 * alike (bench/iperf3-crosscheck.sh; docs/net.md). With 1 stream it is 10
 * sends in a row. */
#define SENDS_PER_WAKE 10
/* The wait for a writable stream, in milliseconds (meter_stop is checked
 * at least this often). */
#define STREAM_TICK_MS 100

/* One block on one stream, as iperf3's iperf_tcp_send() and Nwrite(): the
 * rest of the last block if a full socket cut it short, else a new one,
 * written until it is all sent or the socket is full (EAGAIN: the rest
 * waits for the next call). */
static int send_one(struct st *s, struct stream *t, struct meter *m)
{
	if (t->pending <= 0)
		t->pending = CHUNK;
	while (t->pending > 0) {
		const char *b = s->buf + (CHUNK - t->pending);
		uint64_t t0 = meter_now();
		long r = s->kind == TX_SEND
			 ? (long)send(t->fd, b, (size_t)t->pending, MSG_NOSIGNAL)
			 : sys_tx_send(&t->tx, b, (size_t)t->pending, t->off);
		if (s->kind == TX_SEND && r < 0)
			r = -errno;
		if (r == -EAGAIN || r == -EWOULDBLOCK || r == -EINTR || r == 0)
			return 0;
		if (r < 0) {
			errno = (int)-r;
			return bench_fail(s->env, kinds[s->kind]);
		}
		meter_done(m, t0, (uint64_t)r);
		t->bytes += (uint64_t)r;
		t->pending -= r;
		t->off = (off_t)((t->off + r) % FILE_BYTES);
	}
	return 0;
}

static int run(void *state, struct meter *m)
{
	struct st *s = state;
	struct pollfd *p = calloc(s->n, sizeof(*p));
	if (!p)
		return bench_fail(s->env, "calloc");
	struct rusage r0, r1;
	getrusage(RUSAGE_SELF, &r0);
	uint64_t start = meter_now();
	int rc = 0;
	while (rc == 0 && !meter_stop(m)) {
		for (uint64_t i = 0; i < s->n; i++)
			p[i] = (struct pollfd){s->s[i].fd, POLLOUT, 0};
		int k = poll(p, (nfds_t)s->n, STREAM_TICK_MS);
		if (k < 0 && errno != EINTR)
			rc = bench_fail(s->env, "poll");
		for (int round = 0; k > 0 && round < SENDS_PER_WAKE && rc == 0; round++)
			for (uint64_t i = 0; i < s->n && rc == 0; i++)
				if (p[i].revents & (POLLOUT | POLLERR | POLLHUP))
					rc = send_one(s, &s->s[i], m);
	}
	double el = (double)(meter_now() - start) / 1e9;
	getrusage(RUSAGE_SELF, &r1);
	free(p);
	/* fairness over the streams' byte counts */
	double sum = 0, sq = 0, mn = INFINITY, mx = 0, ns = (double)s->n;
	for (uint64_t i = 0; i < s->n; i++) {
		double b = (double)s->s[i].bytes;
		sum += b;
		sq += b * b;
		mn = b < mn ? b : mn;
		mx = b > mx ? b : mx;
	}
	uint64_t zc_copied = 0, zc_done = 0;
	for (uint64_t i = 0; i < s->n; i++) {
		zc_copied += s->s[i].tx.zc_copied;
		zc_done += s->s[i].tx.zc_done;
	}
	close_streams(s);
	netsrv_stop(&s->srv);
	s->srv_up = 0;
	if (rc)
		return rc;
	double got = line_field(s->srv.done, "bytes");
	double ru = line_field(s->srv.done, "user_s") + line_field(s->srv.done, "sys_s");
	double cpu_tx = tvs(r1.ru_utime) - tvs(r0.ru_utime) + tvs(r1.ru_stime) - tvs(r0.ru_stime);
	json_t *x = json_object();
	json_object_set_new(x, "streams", json_integer((json_int_t)ns));
	json_object_set_new(x, "sender", json_string(kinds[s->kind]));
	json_object_set_new(x, "sent_gbit_per_s", json_real(el > 0 ? sum * 8 / el / 1e9 : 0));
	if (isfinite(got)) {
		json_object_set_new(x, "received_bytes", json_real(got));
		json_object_set_new(x, "received_gbit_per_s", json_real(el > 0 ? got * 8 / el / 1e9 : 0));
	}
	json_object_set_new(x, "sender_cpu_s_per_gb", json_real(sum > 0 ? cpu_tx / (sum / 1e9) : 0));
	if (isfinite(ru) && isfinite(got) && got > 0)
		json_object_set_new(x, "receiver_cpu_s_per_gb", json_real(ru / (got / 1e9)));
	json_object_set_new(x, "fairness_jain", json_real(sq > 0 ? sum * sum / (ns * sq) : 1));
	json_object_set_new(x, "min_share", json_real(sum > 0 ? mn * ns / sum : 0));
	json_object_set_new(x, "max_share", json_real(sum > 0 ? mx * ns / sum : 0));
	if (s->kind == TX_ZEROCOPY)
		json_object_set_new(x, "zerocopy_copied_fraction",
				    json_real(zc_done ? (double)zc_copied / (double)zc_done : 0));
	meter_extra(m, "stream", x);
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	close_streams(s);
	if (s->srv_up)
		netsrv_stop(&s->srv);
	if (s->file >= 0)
		close(s->file);
	free(s->buf);
	free(s);
}

const struct bench bench_net_stream = {
	.params = params,
	.name = "net.stream", .version = 3, .axis = "parallel TCP streams", .axis_kind = AXIS_CONCURRENCY,
	.placement = "spread",
	.summary = "TCP bulk throughput with N parallel streams (send, sendfile, splice, MSG_ZEROCOPY)",
	.op_desc = "one send call of up to 128 KiB on a ready stream (sender side)",
	.quick_max_n = 4, .default_max_n = 16, .full_max_n = 64, .series = SERIES_POW2,
	.flags = BENCH_FULL_BUDGET, .variants = variants, .unit = "send call",
	.setup = setup, .set_n = set_n, .run = run, .teardown = teardown,
};
