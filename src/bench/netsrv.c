/* SPDX-License-Identifier: MIT */
/* Server and control lines of the net.* benches (the connection helpers
 * are in netload.c): see netsrv.h. Everything a child does ends in _exit(), so that no atexit
 * cleanup of the parent's registry runs in it. */
#include "netsrv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "ev.h"
#include "netsys.h"
#include "registry.h"
#include "sys.h"

int net_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

/* ---- lines ---- */

int line_write(int fd, const char *fmt, ...)
{
	char buf[600];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(buf) - 1)
		return -EMSGSIZE;
	buf[n++] = '\n';
	for (int off = 0; off < n;) {
		ssize_t w = send(fd, buf + off, (size_t)(n - off), MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd p = {fd, POLLOUT, 0};
			if (poll(&p, 1, 2000) <= 0)
				return -ETIMEDOUT;
			continue;
		}
		if (w <= 0)
			return -errno;
		off += (int)w;
	}
	return 0;
}

int line_read(int fd, struct linebuf *lb, char *line, size_t max, int timeout_ms)
{
	uint64_t deadline = sys_now_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	for (;;) {
		char *nl = memchr(lb->b, '\n', lb->n);
		if (nl) {
			size_t len = (size_t)(nl - lb->b);
			if (len >= max)
				return -EMSGSIZE;
			memcpy(line, lb->b, len);
			line[len] = 0;
			if (len && line[len - 1] == '\r')
				line[len - 1] = 0;
			memmove(lb->b, nl + 1, lb->n - len - 1);
			lb->n -= len + 1;
			return 1;
		}
		if (lb->n >= max || lb->n >= sizeof(lb->b))
			return -EMSGSIZE;
		int left = timeout_ms < 0 ? -1 : (int)(deadline > sys_now_ms() ? deadline - sys_now_ms() : 0);
		struct pollfd p = {fd, POLLIN, 0};
		int r = poll(&p, 1, left);
		if (r < 0 && errno == EINTR) {
			if (reg_stop_requested())
				return -EINTR;
			continue;
		}
		if (r < 0)
			return -errno;
		if (r == 0)
			return 0;
		ssize_t n = recv(fd, lb->b + lb->n, sizeof(lb->b) - lb->n, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		lb->n += (size_t)n;
	}
}

double line_field(const char *line, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = line; (p = strstr(p, key)); p += kl) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			char *end;
			double v = strtod(p + kl + 1, &end);
			if (end != p + kl + 1)
				return v;
		}
	}
	return NAN;
}

/* ---- the server's specification ---- */

static const char *const mode_names[] = {"echo", "sink", "udp"};

int srv_spec_format(const struct srv_spec *s, char *buf, size_t len)
{
	int n = snprintf(buf, len, "mode=%s mech=%s family=%d maxconn=%llu bytes=%llu seconds=%.0f",
			 mode_names[s->mode], ev_mech_name(s->mech), s->family == AF_INET6 ? 6 : 4,
			 (unsigned long long)s->max_conn, (unsigned long long)s->max_bytes, s->max_s);
	return n < 0 || (size_t)n >= len ? -EMSGSIZE : 0;
}

int srv_spec_parse(const char *text, struct srv_spec *s, char *err, size_t errlen)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", text);
	memset(s, 0, sizeof(*s));
	s->mode = -1;
	s->mech = EV_POLL;
	s->family = AF_INET;
	s->max_conn = 1000;
	s->max_bytes = SRV_MAX_BYTES;
	s->max_s = 600;
	char *save = NULL;
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(t, '=');
		if (!eq) {
			snprintf(err, errlen, "malformed parameter '%.40s'", t);
			return -EINVAL;
		}
		*eq++ = 0;
		char *end;
		if (!strcmp(t, "mode")) {
			for (int i = 0; i < 3; i++)
				if (!strcmp(eq, mode_names[i]))
					s->mode = i;
		} else if (!strcmp(t, "mech")) {
			s->mech = ev_mech_parse(eq);
		} else if (!strcmp(t, "family")) {
			s->family = !strcmp(eq, "6") ? AF_INET6 : !strcmp(eq, "4") ? AF_INET : -1;
		} else if (!strcmp(t, "maxconn") || !strcmp(t, "bytes") || !strcmp(t, "seconds")) {
			errno = 0;
			double v = strtod(eq, &end);
			if (errno || *end || end == eq || !(v >= 0)) {
				snprintf(err, errlen, "%s: not a number", t);
				return -EINVAL;
			}
			if (!strcmp(t, "maxconn"))
				s->max_conn = v > SRV_MAX_CONN ? SRV_MAX_CONN : (uint64_t)v;
			else if (!strcmp(t, "bytes"))
				s->max_bytes = v > (double)SRV_MAX_BYTES ? SRV_MAX_BYTES : (uint64_t)v;
			else
				s->max_s = v > SRV_MAX_S ? SRV_MAX_S : v;
		} else {
			snprintf(err, errlen, "unknown parameter '%.40s'", t);
			return -EINVAL;
		}
	}
	if (s->mode < 0 || s->mech < 0 || s->family < 0) {
		snprintf(err, errlen, "mode (echo|sink|udp), mech and family (4|6) must be valid");
		return -EINVAL;
	}
	return 0;
}

int srv_bind(int family, int type, const char *addr, int *port, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	socklen_t len;
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)*port);
		len = sizeof(*a);
		if (inet_pton(AF_INET6, addr, &a->sin6_addr) != 1) {
			snprintf(err, errlen, "'%s' is not an IPv6 address", addr);
			return -EINVAL;
		}
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)*port);
		len = sizeof(*a);
		if (inet_pton(AF_INET, addr, &a->sin_addr) != 1) {
			snprintf(err, errlen, "'%s' is not an IPv4 address", addr);
			return -EINVAL;
		}
	}
	int fd = socket(family, type, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -errno;
	}
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) ||
	    (type == SOCK_STREAM && listen(fd, 4096))) {
		int e = errno;
		snprintf(err, errlen, "bind/listen %s port %d: %s", addr, *port, strerror(e));
		close(fd);
		return -e;
	}
	len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len);
	*port = ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					 : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

/* ---- the server loop (in a child) ---- */

#define SRV_BUF (256 * 1024)
/* A sink reads at most this much per call, as iperf3's receiver (its
 * default block, 128 KiB): bigger reads would be less work per byte than
 * the tool net.stream is checked against (bench/iperf3-crosscheck.sh). */
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
	for (;;) {
		ssize_t n = recv(fd, s->buf, s->sp->mode == SRV_SINK ? SINK_READ : SRV_BUF, 0);
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
					if (poll(&p, 1, 1000) > 0)
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
		} else if (s->sp->mech != EV_IOURING) {
			return; /* level-triggered: one read per wake-up, fair to every stream */
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
		int n = ev_wait(s.ev, ready, 256, 500);
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

/* ---- the runner's side ---- */

static int fill_addr(struct netsrv *s, const char *host, int port)
{
	struct addrinfo hints, *ai = NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = s->net->family;
	hints.ai_socktype = SOCK_STREAM;
	char ps[16];
	snprintf(ps, sizeof(ps), "%d", port);
	int rc = getaddrinfo(host, ps, &hints, &ai);
	if (rc || !ai) {
		errno = EHOSTUNREACH;
		return -1;
	}
	memcpy(&s->addr, ai->ai_addr, ai->ai_addrlen);
	s->alen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static const char *srv_host(const struct bench_net *net)
{
	int v6 = net->family == AF_INET6;
	if (net->netns)
		return v6 ? NETNS_SRV6 : NETNS_SRV4;
	return v6 ? "::1" : "127.0.0.1";
}

/* HOST:PORT or [HOST]:PORT of --peer into host and port. */
static int split_peer(const char *peer, char *host, size_t hl, int *port)
{
	const char *colon = strrchr(peer, ':');
	if (!colon || colon == peer)
		return -1;
	const char *h = peer;
	size_t len = (size_t)(colon - peer);
	if (*h == '[' && len >= 2 && h[len - 1] == ']') {
		h++;
		len -= 2;
	}
	if (len >= hl)
		return -1;
	memcpy(host, h, len);
	host[len] = 0;
	char *end;
	long p = strtol(colon + 1, &end, 10);
	if (*end || p <= 0 || p > 65535)
		return -1;
	*port = (int)p;
	return 0;
}

/* The challenge-response of protocol 2 on a connected control socket
 * (docs/protocol.md): 0, or an errno with what the peer said in msg:
 * EBUSY (another client's session runs, or too many pending connections),
 * EACCES (key refused, or the peer could not prove it knows the key),
 * EPROTONOSUPPORT (another protocol version), ENOSYS (no libcrypto here),
 * ETIMEDOUT, EPROTO or the socket's error. */
static int peer_hello(int fd, struct linebuf *lb, const char *key, char *msg, size_t len)
{
	unsigned char cn[AUTH_NONCE], sn[AUTH_NONCE], mac[AUTH_MAC], proof[AUTH_MAC];
	char hex[AUTH_HEX], line[CTL_LINE];
	if (auth_load(msg, len))
		return ENOSYS;
	if (auth_random(cn, sizeof(cn))) {
		snprintf(msg, len, "libcrypto: no random bytes");
		return ENOSYS;
	}
	auth_hex(cn, sizeof(cn), hex);
	int r;
	if ((r = line_write(fd, "HELLO %d %s", CTL_VERSION, hex)) ||
	    (r = line_read(fd, lb, line, sizeof(line), 5000)) <= 0)
		goto io;
	if (strncmp(line, "CHALLENGE ", 10) || auth_unhex(line + 10, sn, sizeof(sn)))
		goto said;
	if (auth_mac(key, sn, sizeof(sn), cn, sizeof(cn), mac)) {
		snprintf(msg, len, "libcrypto: HMAC failed");
		return ENOSYS;
	}
	auth_hex(mac, sizeof(mac), hex);
	if ((r = line_write(fd, "AUTH %s", hex)) ||
	    (r = line_read(fd, lb, line, sizeof(line), 5000)) <= 0)
		goto io;
	char ok[8] = "", got[AUTH_HEX + 1] = "";
	int ver = 0;
	if (sscanf(line, "%7s %d %65s", ok, &ver, got) != 3 || strcmp(ok, "OK") || ver != CTL_VERSION)
		goto said;
	if (auth_mac(key, cn, sizeof(cn), sn, sizeof(sn), mac) || auth_unhex(got, proof, sizeof(proof)) ||
	    !auth_equal(mac, proof, sizeof(mac))) {
		snprintf(msg, len, "the peer did not prove that it knows the key (not the scalebench "
				   "serve expected, or a different key)");
		return EACCES;
	}
	return 0;
io:
	snprintf(msg, len, "%s", r == 0 ? "no answer within 5 s" : strerror(-r));
	return r == 0 ? ETIMEDOUT : -r;
said:
	snprintf(msg, len, "%.200s", strncmp(line, "ERR ", 4) ? line : line + 4);
	if (!strncmp(line, "ERR busy", 8))
		return EBUSY;
	if (!strncmp(line, "ERR key refused", 15))
		return EACCES;
	if (!strncmp(line, "ERR version", 11))
		return EPROTONOSUPPORT;
	return EPROTO;
}

static const char *hello_call(int e)
{
	return e == EBUSY ? "control: peer busy"
	       : e == EACCES ? "control: HELLO refused by the peer"
	       : e == EPROTONOSUPPORT ? "control: protocol version"
	       : e == ENOSYS ? "control: challenge-response unavailable"
				     : "control: HELLO";
}

static int peer_connect(struct netsrv *s, char *host, size_t hl, int *port, int *fdp)
{
	if (split_peer(s->net->peer, host, hl, port)) {
		errno = EINVAL;
		return -1;
	}
	if (fill_addr(s, host, *port))
		return -1;
	int fd = socket(s->addr.ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&s->addr, s->alen)) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	*fdp = fd;
	return 0;
}

/* In a child process, so that libcrypto is never mapped into the run's own
 * process (with --in-process, proc.fork forks that process). */
static void peer_probe_child(const struct bench_net *net, int out)
{
	struct netsrv s;
	netsrv_clear(&s);
	s.net = net;
	char host[256], msg[300], err[512];
	int port, fd;
	if (peer_connect(&s, host, sizeof(host), &port, &fd)) {
		snprintf(err, sizeof(err), "--peer %s: cannot connect: %s", net->peer, strerror(errno));
	} else {
		int e = peer_hello(fd, &s.lb, net->key, msg, sizeof(msg));
		close(fd);
		if (!e)
			_exit(0);
		if (e == EBUSY) /* the server's words say it all */
			snprintf(err, sizeof(err), "--peer %s: %s", net->peer, msg);
		else
			snprintf(err, sizeof(err), "--peer %s: %s: %s", net->peer, hello_call(e) + 9, msg);
	}
	(void)!write(out, err, strlen(err));
	_exit(1);
}

int netsrv_peer_probe(const struct bench_net *net, char *err, size_t errlen)
{
	int p[2];
	if (pipe(p)) {
		snprintf(err, errlen, "--peer: pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "--peer: fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		peer_probe_child(net, p[1]);
	}
	close(p[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < errlen && ((r = read(p[0], err + n, errlen - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
		if (r > 0)
			n += (size_t)r;
	err[n] = 0;
	close(p[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (!n)
		snprintf(err, errlen, "--peer %s: the check of the peer failed", net->peer);
	return -1;
}

static int start_peer(struct netsrv *s, const char *spec)
{
	struct bench_env *env = s->env;
	char host[256], line[CTL_LINE], msg[300];
	int port, fd;
	if (peer_connect(s, host, sizeof(host), &port, &fd))
		return bench_fail(env, "connect (control connection to --peer)");
	s->ctl = fd;
	reg_add_fd(fd);
	int e = peer_hello(fd, &s->lb, s->net->key, msg, sizeof(msg));
	if (e) {
		snprintf(env->note, sizeof(env->note), "peer: %.200s", msg);
		errno = e;
		return bench_fail(env, hello_call(e));
	}
	int r;
	if ((r = line_write(fd, "START %s", spec)) ||
	    (r = line_read(fd, &s->lb, line, sizeof(line), 10000)) <= 0) {
		errno = r == 0 ? ETIMEDOUT : -r;
		return bench_fail(env, "control: START");
	}
	if (!strncmp(line, "ERR unavailable ", 16)) {
		snprintf(env->skip, sizeof(env->skip), "at the peer: %.200s", line + 16);
		return BENCH_SKIP;
	}
	double p = line_field(line, "port");
	if (strncmp(line, "READY", 5) || !(p > 0)) {
		snprintf(env->note, sizeof(env->note), "peer: %.200s", line);
		errno = EPROTO;
		return bench_fail(env, "control: START refused by the peer");
	}
	return fill_addr(s, host, (int)p) ? bench_fail(env, "getaddrinfo") : 0;
}

static void child_main(const struct srv_spec *sp, const struct bench_net *net, int ctl)
{
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	sys_child_dies_with_parent();
	sys_nofile_raise(UINT64_MAX, NULL);
	if (net->srv_nsfd >= 0 && sys_netns_enter(net->srv_nsfd)) {
		line_write(ctl, "ERR setns: %s", strerror(errno));
		_exit(1);
	}
	sys_close_inherited(ctl);
	char err[256];
	int port = 0;
	int sock = srv_bind(sp->family, sp->mode == SRV_UDP ? SOCK_DGRAM : SOCK_STREAM, srv_host(net),
			    &port, err, sizeof(err));
	if (sock < 0) {
		line_write(ctl, "ERR %s", err);
		_exit(1);
	}
	if (sp->mode == SRV_UDP) {
		int big = 8 << 20;
		setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	}
	line_write(ctl, "READY port=%d", port);
	srv_loop(sp, sock, ctl);
	_exit(0);
}

void netsrv_clear(struct netsrv *s)
{
	memset(s, 0, sizeof(*s));
	s->pid = -1;
	s->ctl = -1;
}

int netsrv_start(struct netsrv *s, struct bench_env *env, int mode, int mech)
{
	netsrv_clear(s);
	s->env = env;
	s->net = env->net;
	struct srv_spec sp = {.mode = mode, .mech = mech, .family = s->net->family,
			      .max_conn = SRV_MAX_CONN, .max_bytes = SRV_MAX_BYTES, .max_s = SRV_MAX_S};
	if (s->net->peer) {
		char spec[256];
		srv_spec_format(&sp, spec, sizeof(spec));
		return start_peer(s, spec);
	}
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return bench_fail(env, "socketpair");
	pid_t pid = fork();
	if (pid < 0) {
		int rc = bench_fail(env, "fork (server)");
		close(sv[0]);
		close(sv[1]);
		return rc;
	}
	if (pid == 0) {
		close(sv[0]);
		bench_place(env, 1);
		child_main(&sp, s->net, sv[1]);
	}
	close(sv[1]);
	s->pid = pid;
	s->ctl = sv[0];
	reg_add_pid(pid);
	bench_peer_add(env, "server", pid);
	reg_add_fd(sv[0]);
	char line[512];
	int r = line_read(s->ctl, &s->lb, line, sizeof(line), 10000);
	if (r <= 0) {
		errno = r == 0 ? ETIMEDOUT : -r;
		return bench_fail(env, "server start");
	}
	if (!strncmp(line, "ERR unavailable ", 16)) {
		snprintf(env->skip, sizeof(env->skip), "%.250s", line + 16);
		return BENCH_SKIP;
	}
	double port = line_field(line, "port");
	if (strncmp(line, "READY", 5) || !(port > 0)) {
		snprintf(env->note, sizeof(env->note), "server: %.200s", line);
		errno = EIO;
		return bench_fail(env, "server start");
	}
	return fill_addr(s, srv_host(s->net), (int)port) ? bench_fail(env, "getaddrinfo") : 0;
}

int netsrv_check(struct netsrv *s, int timeout_ms)
{
	char line[512];
	int r = line_read(s->ctl, &s->lb, line, sizeof(line), timeout_ms);
	if (r <= 0) {
		if (r == 0 || r == -EINTR)
			return 0;
		errno = -r;
		return bench_fail(s->env, "server control channel");
	}
	if (!strncmp(line, "FAIL ", 5)) {
		static char call[96];
		char what[40] = "?";
		int e = EIO;
		unsigned long long n = 0;
		sscanf(line + 5, "%39s %d %llu", what, &e, &n);
		snprintf(call, sizeof(call), "%s (server, at %llu connections)",
			 !strcmp(what, "select-FD_SETSIZE") ? "select: descriptor >= FD_SETSIZE" : what, n);
		errno = e;
		return bench_fail(s->env, call);
	}
	return 0;
}

int netsrv_ask(struct netsrv *s, const char *cmd, const char *want, char *reply, size_t len)
{
	if (line_write(s->ctl, "%s", cmd)) {
		errno = EPIPE;
		return bench_fail(s->env, "server control channel");
	}
	for (;;) {
		int r = line_read(s->ctl, &s->lb, reply, len, 10000);
		if (r <= 0) {
			errno = r == 0 ? ETIMEDOUT : -r;
			return bench_fail(s->env, "server control reply");
		}
		if (!strncmp(reply, want, strlen(want)))
			return 0;
	}
}

void netsrv_stop(struct netsrv *s)
{
	if (s->ctl >= 0) {
		char line[512];
		if (line_write(s->ctl, "STOP") == 0)
			for (int i = 0; i < 8; i++) {
				if (line_read(s->ctl, &s->lb, line, sizeof(line), 5000) <= 0)
					break;
				if (!strncmp(line, "DONE", 4)) {
					snprintf(s->done, sizeof(s->done), "%.250s", line);
					/* serve closes after DONE, freeing its session
					 * slot: wait for that, so that the next bench's
					 * session does not find the slot still held */
					if (s->pid < 0)
						while (line_read(s->ctl, &s->lb, line, sizeof(line), 1000) > 0)
							;
					break;
				}
			}
		reg_close_fd(s->ctl);
		s->ctl = -1;
	}
	if (s->pid > 0) {
		int st;
		if (s->env) /* before it is reaped: its CPU time is still readable */
			bench_peer_remove(s->env, s->pid);
		uint64_t give_up = sys_now_ms() + 5000;
		while (waitpid(s->pid, &st, WNOHANG) == 0 && sys_now_ms() < give_up) {
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
		}
		reg_kill_pid(s->pid); /* already gone: only reaps and unregisters */
		s->pid = -1;
	}
}

int netsrv_connect(struct netsrv *s, int type, int *fd)
{
	if (type == SOCK_DGRAM) {
		int u = socket(s->addr.ss_family, SOCK_DGRAM, 0);
		if (u < 0)
			return bench_fail(s->env, "socket (udp)");
		if (connect(u, (struct sockaddr *)&s->addr, s->alen)) {
			int rc = bench_fail(s->env, "connect (udp)");
			close(u);
			return rc;
		}
		*fd = u;
		return 0;
	}
	int rc = net_connect_to(&s->addr, s->alen, 1, fd);
	if (rc) {
		int f = netsrv_check(s, 100); /* the server may say why */
		if (f)
			return f;
		errno = -rc;
		return bench_fail(s->env, "connect");
	}
	int one = 1;
	setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

