/* SPDX-License-Identifier: MIT */
/* The control protocol of the net servers: see netctl.h. The bottom of
 * the net helpers: srvloop.c, bench/netsrv.c, bench/netload.c and
 * cmd/serve.c use it; it uses none of them. */
#include "core/netctl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/auth.h"
#include "sys/ev.h"
#include "core/registry.h"
#include "sys/sys.h"

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
			if (poll(&p, 1, CTL_WRITE_TIMEOUT_MS) <= 0)
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
	s->max_conn = SRV_DEFAULT_CONN;
	s->max_bytes = SRV_MAX_BYTES;
	s->max_s = SRV_DEFAULT_S;
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
	void *ip;
	int v6 = family == AF_INET6;
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)*port);
		len = sizeof(*a);
		ip = &a->sin6_addr;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)*port);
		len = sizeof(*a);
		ip = &a->sin_addr;
	}
	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr, ip) != 1) {
		snprintf(err, errlen, "'%s' is not an IPv%d address", addr, v6 ? 6 : 4);
		return -EINVAL;
	}
	int fd = socket(family, type, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -errno;
	}
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) ||
	    (type == SOCK_STREAM && listen(fd, SRV_BACKLOG))) {
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

enum ctl_reply ctl_ready_reply(const char *line, int *port, const char **why)
{
	if (!strncmp(line, "ERR unavailable ", 16)) {
		*why = line + 16;
		return CTL_UNAVAILABLE;
	}
	double p = line_field(line, "port");
	if (strncmp(line, "READY", 5) || !(p > 0) || p > 65535) {
		*why = line;
		return CTL_REFUSED;
	}
	*port = (int)p;
	return CTL_READY;
}

/* The client's side of the challenge-response (docs/protocol.md). */
int ctl_hello(int fd, struct linebuf *lb, const char *key, char *msg, size_t len)
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
	    (r = line_read(fd, lb, line, sizeof(line), CTL_HELLO_TIMEOUT_MS)) <= 0)
		goto io;
	if (strncmp(line, "CHALLENGE ", 10) || auth_unhex(line + 10, sn, sizeof(sn)))
		goto said;
	if (auth_mac(key, sn, sizeof(sn), cn, sizeof(cn), mac)) {
		snprintf(msg, len, "libcrypto: HMAC failed");
		return ENOSYS;
	}
	auth_hex(mac, sizeof(mac), hex);
	if ((r = line_write(fd, "AUTH %s", hex)) ||
	    (r = line_read(fd, lb, line, sizeof(line), CTL_HELLO_TIMEOUT_MS)) <= 0)
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
	if (r == 0)
		snprintf(msg, len, "no answer within %d s", CTL_HELLO_TIMEOUT_MS / 1000);
	else
		snprintf(msg, len, "%s", strerror(-r));
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

const char *ctl_hello_call(int e)
{
	return e == EBUSY ? "control: peer busy"
	       : e == EACCES ? "control: HELLO refused by the peer"
	       : e == EPROTONOSUPPORT ? "control: protocol version"
	       : e == ENOSYS ? "control: challenge-response unavailable"
				     : "control: HELLO";
}

int net_connect_to(const struct sockaddr_storage *a, socklen_t alen, int want_ack, int *out)
{
	int fd = socket(a->ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		return -errno;
	int rc;
	while ((rc = connect(fd, (const struct sockaddr *)a, alen)) < 0 && errno == EINTR)
		;
	if (rc == 0 && want_ack) {
		struct pollfd p = {fd, POLLIN, 0};
		char c;
		int pr = poll(&p, 1, CONNECT_ACK_TIMEOUT_MS);
		if (pr == 0)
			errno = ETIMEDOUT;
		rc = pr > 0 && recv(fd, &c, 1, 0) == 1 ? 0 : -1;
		if (pr > 0 && rc)
			errno = ECONNRESET;
	}
	if (rc) {
		int e = errno;
		close(fd);
		return -e;
	}
	*out = fd;
	return 0;
}
