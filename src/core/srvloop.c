/* SPDX-License-Identifier: MIT */
/* The server loop of the net servers: see srvloop.h. It runs in a child
 * process, which ends in _exit() (its caller's), so that no atexit
 * cleanup of the parent's registry runs in it. */
#include "core/srvloop.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "sys/ev.h"
#include "sys/sys.h"

#define SRV_BUF (256 * 1024)
/* A sink reads one block of this much per wake-up and stream, as iperf3
 * 3.12's receiver (its default block, 128 KiB; Nread(): read() until the
 * block is complete or the socket is empty): bigger reads would be less
 * work per byte than the tool net.stream is checked against
 * (bench/iperf3-crosscheck.sh). */
#define SINK_READ (128 * 1024)

struct srv {
	const struct srv_spec *sp;
	struct ev *ev;
	int sock, ctl;
	struct linebuf lb;
	uint64_t conns, bytes, packets, refused;
	uint64_t *got; /* per descriptor: bytes read (sink bound) */
	int ngot;
	int accepting;
	char *buf;
};

static void srv_drop(struct srv *s, int fd)
{
	ev_del(s->ev, fd);
	close(fd);
	if (fd < s->ngot)
		s->got[fd] = 0;
}

/* From the allowed host (or no host set)? */
static int srv_allowed(const struct srv *s, const struct sockaddr_storage *a)
{
	const struct sockaddr_storage *w = &s->sp->allow;
	if (!s->sp->allow_set)
		return 1;
	if (a->ss_family != w->ss_family)
		return 0;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)w)->sin6_addr, sizeof(struct in6_addr));
	return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
	       ((const struct sockaddr_in *)w)->sin_addr.s_addr;
}

static void srv_accept(struct srv *s)
{
	for (;;) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		int fd = accept(s->sock, (struct sockaddr *)&from, &flen);
		if (fd >= 0 && !srv_allowed(s, &from)) {
			close(fd); /* another host than the controlling client's */
			s->refused++;
			continue;
		}
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED)
				return;
			line_write(s->ctl, "FAIL accept %d %llu", errno, (unsigned long long)s->conns);
			ev_del(s->ev, s->sock); /* take no more; the sweep stops here */
			s->accepting = 0;
			return;
		}
		int rc = 0;
		if (s->conns >= s->sp->max_conn)
			rc = -ENFILE;
		else if (fd >= s->ngot) {
			int ng = s->ngot ? s->ngot : 1024;
			while (ng <= fd)
				ng *= 2;
			uint64_t *g = realloc(s->got, (size_t)ng * sizeof(*g));
			if (!g)
				rc = -ENOMEM;
			else {
				memset(g + s->ngot, 0, (size_t)(ng - s->ngot) * sizeof(*g));
				s->got = g;
				s->ngot = ng;
			}
		}
		if (rc == 0) {
			net_nonblock(fd, 1);
			int one = 1; /* a sink takes bulk data: Nagle on, as iperf3 */
			if (s->sp->mode != SRV_SINK)
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			rc = ev_add(s->ev, fd);
		}
		if (rc) {
			line_write(s->ctl, "FAIL %s %d %llu",
				   rc == -ENFILE ? "maxconn" : s->sp->mech == EV_SELECT && rc == -EMFILE
				   ? "select-FD_SETSIZE" : "ev_add", -rc, (unsigned long long)s->conns);
			close(fd);
			ev_del(s->ev, s->sock);
			s->accepting = 0;
			return;
		}
		s->conns++;
		char ack = 'A';
		send(fd, &ack, 1, MSG_NOSIGNAL);
	}
}

static void srv_data(struct srv *s, int fd)
{
	size_t block = 0; /* sink, level-triggered: bytes of this wake-up's block */
	for (;;) {
		ssize_t n = recv(fd, s->buf, s->sp->mode == SRV_SINK ? SINK_READ - block : SRV_BUF, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			srv_drop(s, fd);
			s->conns--;
			return;
		}
		s->bytes += (uint64_t)n;
		if (s->sp->mode == SRV_ECHO) {
			for (ssize_t off = 0; off < n;) {
				ssize_t w = send(fd, s->buf + off, (size_t)(n - off), MSG_NOSIGNAL);
				if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
					struct pollfd p = {fd, POLLOUT, 0};
					if (poll(&p, 1, SRV_ECHO_SEND_TIMEOUT_MS) > 0)
						continue;
				}
				if (w <= 0) {
					srv_drop(s, fd);
					s->conns--;
					return;
				}
				off += w;
			}
		} else if ((s->got[fd] += (uint64_t)n) > s->sp->max_bytes) {
			srv_drop(s, fd); /* bounded: no more from this connection */
			s->conns--;
			return;
		} else if (s->sp->mech != EV_IOURING && (block += (size_t)n) >= SINK_READ) {
			return; /* level-triggered: one block per wake-up, fair to every stream */
		}
	}
}

static void srv_udp(struct srv *s)
{
	for (;;) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(s->sock, s->buf, SRV_BUF, 0, (struct sockaddr *)&from, &flen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		if (!srv_allowed(s, &from)) {
			s->refused++;
			continue;
		}
		s->packets++;
		s->bytes += (uint64_t)n;
	}
}

static double tvs(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

/* 1: stop */
static int srv_ctl(struct srv *s)
{
	char line[256];
	for (;;) {
		int r = line_read(s->ctl, &s->lb, line, sizeof(line), 0);
		if (r == 0)
			return 0;
		if (r < 0)
			return 1;
		if (!strcmp(line, "STOP"))
			return 1;
		if (!strcmp(line, "COUNT")) {
			struct rusage ru;
			getrusage(RUSAGE_SELF, &ru);
			line_write(s->ctl, "COUNT packets=%llu bytes=%llu conns=%llu user_s=%.6f sys_s=%.6f "
					   "refused=%llu",
				   (unsigned long long)s->packets, (unsigned long long)s->bytes,
				   (unsigned long long)s->conns, tvs(ru.ru_utime), tvs(ru.ru_stime),
				   (unsigned long long)s->refused);
		}
		else
			line_write(s->ctl, "ERR unknown command");
	}
}

int srv_open(const struct srv_spec *spec, const char *addr, int *port, char *err, size_t errlen)
{
	int udp = spec->mode == SRV_UDP;
	int sock = srv_bind(spec->family, udp ? SOCK_DGRAM : SOCK_STREAM, addr, port, err, errlen);
	if (sock >= 0 && udp) {
		int big = SRV_UDP_RCVBUF;
		setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	}
	return sock;
}

void srv_loop(const struct srv_spec *spec, int sock, int ctl)
{
	struct srv s;
	memset(&s, 0, sizeof(s));
	s.sp = spec;
	s.sock = sock;
	s.ctl = ctl;
	s.accepting = 1;
	char why[200] = "";
	int rc = ev_open(spec->mech, &s.ev, why, sizeof(why));
	s.buf = malloc(SRV_BUF);
	if (rc || !s.buf) {
		line_write(ctl, "ERR unavailable %s", rc ? why : "out of memory");
		free(s.buf);
		return;
	}
	net_nonblock(sock, 1);
	net_nonblock(ctl, 1);
	if (ev_add(s.ev, sock) || ev_add(s.ev, ctl)) {
		line_write(ctl, "ERR ev_add failed for the listening socket");
		ev_close(s.ev);
		free(s.buf);
		return;
	}
	uint64_t deadline = sys_now_ms() + (uint64_t)(spec->max_s * 1000);
	int ready[256], stop = 0;
	while (!stop && sys_now_ms() < deadline) {
		int n = ev_wait(s.ev, ready, 256, SRV_TICK_MS);
		if (n < 0 && n != -EINTR)
			break;
		for (int i = 0; i < n && !stop; i++) {
			int fd = ready[i];
			if (fd == ctl)
				stop = srv_ctl(&s);
			else if (fd == sock && spec->mode == SRV_UDP)
				srv_udp(&s);
			else if (fd == sock) {
				if (s.accepting)
					srv_accept(&s);
			} else
				srv_data(&s, fd);
		}
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	line_write(ctl, "DONE bytes=%llu packets=%llu user_s=%.6f sys_s=%.6f refused=%llu",
		   (unsigned long long)s.bytes, (unsigned long long)s.packets, tvs(ru.ru_utime),
		   tvs(ru.ru_stime), (unsigned long long)s.refused);
	ev_close(s.ev);
	free(s.buf);
	free(s.got);
}
