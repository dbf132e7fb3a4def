/* SPDX-License-Identifier: MIT */
/* work.round2: the HTTP server and its clients (round2.h). */
#if defined(HAVE_LIBARCHIVE) && !defined(SB_POSIX_ONLY)
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "sys/ev.h"
#include "core/hist.h"
#include "core/registry.h"
#include "bench/webload.h"
#include "bench/round2.h"

/* ---- the HTTP server ---- */
struct conn { char *buf; size_t have; uint64_t last; };

/* Open rel inside treefd, one component at a time, never following a
 * symbolic link; the descriptor of a regular file, or -errno. */
static int open_beneath(int treefd, const char *rel)
{
	char comp[HTTP_PATH_MAX];
	int d = treefd;
	const char *p = rel;
	for (;;) {
		const char *sl = strchr(p, '/');
		size_t l = sl ? (size_t)(sl - p) : strlen(p);
		memcpy(comp, p, l);
		comp[l] = 0;
		int fd = openat(d, comp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (sl ? O_DIRECTORY : 0));
		int e = errno;
		if (d != treefd)
			close(d);
		if (fd < 0)
			return -e;
		if (!sl) {
			struct stat sb;
			if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
				close(fd);
				return -EISDIR;
			}
			return fd;
		}
		d = fd;
		p = sl + 1;
	}
}

static int send_status(int fd, int code)
{
	char b[160];
	const char *t = code == 404 ? "Not Found" : code == 403 ? "Forbidden" : code == 405 ? "Method Not Allowed"
		: code == 414 ? "URI Too Long" : code == 431 ? "Request Header Fields Too Large"
		: code == 505 ? "HTTP Version Not Supported" : code == 503 ? "Service Unavailable" : "Bad Request";
	int n = snprintf(b, sizeof(b), "HTTP/1.1 %d %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", code, t);
	return send(fd, b, (size_t)n, MSG_NOSIGNAL) == n ? 0 : -1;
}

/* Serve one parsed request; 0 keep the connection, -1 close it. */
static int serve_one(struct st *s, int fd, const struct http_req *q)
{
	int f = open_beneath(s->treefd, q->path);
	if (f < 0) {
		atomic_fetch_add(&s->srv_refused, 1);
		send_status(fd, f == -ENOENT ? 404 : 403);
		return -1;
	}
	struct stat sb;
	fstat(f, &sb);
	char h[160];
	int n = snprintf(h, sizeof(h), "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
			 "Content-Length: %lld\r\n%s\r\n", (long long)sb.st_size,
			 q->keep_alive ? "" : "Connection: close\r\n");
	if (send(fd, h, (size_t)n, MSG_NOSIGNAL | MSG_MORE) != n) {
		close(f);
		return -1;
	}
	off_t off = 0;
	while (off < sb.st_size) {
		ssize_t w = sendfile(fd, f, &off, (size_t)(sb.st_size - off));
		if (w <= 0 && !(w < 0 && errno == EINTR)) { /* error, send timeout or the file shrank */
			close(f);
			return -1;
		}
	}
	close(f);
	atomic_fetch_add(&s->srv_requests, 1);
	return q->keep_alive ? 0 : -1;
}

static void conn_close(struct ev *ev, struct conn *c, int fd, int *count)
{
	ev_del(ev, fd);
	close(fd);
	free(c->buf);
	memset(c, 0, sizeof(*c));
	(*count)--;
}

static void *server(void *arg)
{
	struct st *s = arg;
	bench_place(s->env, 1); /* the peer: under placement=spread, the next CPU */
	struct ev *ev = NULL;
	int cap = ev_fd_limit(s->mech), count = 0, fds[256];
	if (cap > 65536)
		cap = 65536;
	struct conn *c = calloc((size_t)cap, sizeof(*c));
	if (!c || ev_open(s->mech, &ev, s->srv_why, sizeof(s->srv_why)) || ev_add(ev, s->lfd)) {
		snprintf(s->srv_why, sizeof(s->srv_why), "server: no event mechanism or memory");
		atomic_store(&s->srv_stop, 1);
	}
	uint64_t sweep = meter_now();
	while (!atomic_load(&s->srv_stop) && !reg_stop_requested()) {
		int n = ev_wait(ev, fds, 256, 50);
		uint64_t now = meter_now();
		for (int i = 0; i < n; i++) {
			int fd = fds[i];
			if (fd == s->lfd) {
				int a;
				while ((a = accept(s->lfd, NULL, NULL)) >= 0) {
					struct timeval tv = {(time_t)(s->idle_ns / 1000000000ull), 0};
					if ((uint64_t)count >= s->max_conns || a >= cap) {
						send_status(a, 503);
						close(a);
						atomic_fetch_add(&s->srv_refused, 1);
						continue;
					}
					int one = 1; /* else Nagle holds a reply's tail for the peer's delayed ACK (40 ms) */
					setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
					setsockopt(a, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
					c[a].buf = malloc(s->max_head + 1);
					if (!c[a].buf || ev_add(ev, a)) {
						free(c[a].buf);
						c[a].buf = NULL;
						close(a);
						continue;
					}
					c[a].have = 0;
					c[a].last = now;
					count++;
				}
				continue;
			}
			if (fd < 0 || fd >= cap || !c[fd].buf)
				continue;
			struct conn *k = &c[fd];
			int close_it = 0;
			for (;;) { /* drain */
				ssize_t r = recv(fd, k->buf + k->have, s->max_head - k->have, MSG_DONTWAIT);
				if (r > 0) {
					k->have += (size_t)r;
					k->last = now;
				} else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
					close_it = 1;
				}
				struct http_req q;
				int p;
				while (!close_it && (p = http_parse_request(k->buf, k->have, s->max_head, &q)) != 0) {
					if (p < 0) {
						atomic_fetch_add(&s->srv_refused, 1);
						send_status(fd, -p);
						close_it = 1;
						break;
					}
					if (serve_one(s, fd, &q))
						close_it = 1;
					memmove(k->buf, k->buf + p, k->have - (size_t)p);
					k->have -= (size_t)p;
				}
				if (close_it || r <= 0)
					break;
			}
			if (close_it)
				conn_close(ev, k, fd, &count);
		}
		if (now - sweep > 100000000ull) { /* idle connections */
			sweep = now;
			for (int fd = 0; fd < cap; fd++)
				if (c[fd].buf && now - c[fd].last > s->idle_ns)
					conn_close(ev, &c[fd], fd, &count);
		}
	}
	for (int fd = 0; c && fd < cap; fd++)
		if (c[fd].buf)
			conn_close(ev, &c[fd], fd, &count);
	free(c);
	ev_close(ev);
	return NULL;
}

int r2_server_start(struct st *s, pthread_t *th)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0)
		return bench_fail(s->env, "socket");
	if (bind(s->lfd, (struct sockaddr *)&a, sizeof(a)) || listen(s->lfd, 4096) ||
	    getsockname(s->lfd, (struct sockaddr *)&a, &al)) {
		int rc = bench_fail(s->env, "bind/listen 127.0.0.1:0");
		close(s->lfd);
		s->lfd = -1;
		return rc;
	}
	s->port = ntohs(a.sin_port);
	s->treefd = open(s->tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	atomic_store(&s->srv_stop, 0);
	if (s->treefd < 0 || pthread_create(th, NULL, server, s)) {
		int rc = bench_fail(s->env, s->treefd < 0 ? "open(tree)" : "pthread_create");
		if (s->treefd >= 0)
			close(s->treefd);
		close(s->lfd);
		s->lfd = -1;
		return rc;
	}
	return 0;
}

void r2_server_stop(struct st *s, pthread_t th)
{
	atomic_store(&s->srv_stop, 1);
	pthread_join(th, NULL);
	close(s->lfd);
	close(s->treefd);
	s->lfd = -1;
}

/* ---- the clients: K keep-alive connections, closed or open loop ---- */
struct cconn { int fd; int busy; uint64_t issued; size_t have; long long need; char hb[1024]; };

static int cconnect(struct st *s)
{
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)s->port);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static int csend(struct st *s, struct cconn *c, uint64_t issued)
{
	char req[160], name[64];
	uint64_t k = atomic_fetch_add(&s->next_req, 1);
	r2_name_of(s, s->log[k % LOGLEN], name, sizeof(name));
	int n = snprintf(req, sizeof(req), "GET /%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", name);
	if (send(c->fd, req, (size_t)n, MSG_NOSIGNAL) != n)
		return -1;
	c->busy = 1;
	c->issued = issued;
	c->have = 0;
	c->need = -1;
	return 0;
}

/* Read what is there; 1 when the response is complete, 0 more, -1 error. */
static int crecv(struct cconn *c, char *sink, size_t sinklen, uint64_t *bytes)
{
	for (;;) {
		if (c->need < 0) {
			ssize_t r = recv(c->fd, c->hb + c->have, sizeof(c->hb) - 1 - c->have, 0);
			if (r == 0)
				return -1;
			if (r < 0)
				return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
			c->have += (size_t)r;
			c->hb[c->have] = 0;
			char *e = strstr(c->hb, "\r\n\r\n"), *cl;
			if (!e)
				if (c->have >= sizeof(c->hb) - 1)
					return -1;
			if (!e)
				continue;
			if (strncmp(c->hb, "HTTP/1.1 200", 12) || !(cl = strcasestr(c->hb, "content-length:")))
				return -1;
			long long len = atoll(cl + 15);
			size_t body = c->have - (size_t)(e + 4 - c->hb);
			*bytes = (uint64_t)len;
			c->need = len - (long long)body;
			if (c->need <= 0)
				return c->need == 0 ? 1 : -1;
		}
		ssize_t r = recv(c->fd, sink, sinklen < (size_t)c->need ? sinklen : (size_t)c->need, 0);
		if (r == 0)
			return -1;
		if (r < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
		c->need -= r;
		if (c->need == 0)
			return 1;
	}
}


static void *client(void *arg)
{
	struct cthread *ct = arg;
	struct st *s = ct->s;
	bench_place(s->env, 0); /* the bench's own side, as the thread that started it */
	struct cconn *c = calloc((size_t)ct->k, sizeof(*c));
	struct pollfd *pf = calloc((size_t)ct->k, sizeof(*pf));
	char *sink = malloc(1 << 16);
	uint64_t t0 = meter_now(), nsent = 0;
	double per = s->cl_rate ? 1e9 * s->cl_threads / (double)s->cl_rate : 0; /* ns between requests */
	for (int i = 0; c && i < ct->k; i++)
		c[i].fd = -1;
	while (c && pf && sink && !reg_stop_requested()) {
		uint64_t now = meter_now();
		int busy = 0;
		for (int i = 0; i < ct->k; i++)
			busy += c[i].busy;
		if (now >= atomic_load(&s->cl_end) || (!busy && atomic_load(&s->next_req) >= s->cl_reqs))
			break;
		for (int i = 0; i < ct->k; i++) { /* (re)connect and issue */
			if (c[i].fd < 0 && (c[i].fd = cconnect(s)) < 0) {
				pthread_mutex_lock(&s->lock);
				s->crec->errors++;
				pthread_mutex_unlock(&s->lock);
				continue;
			}
			if (c[i].busy)
				continue;
			if (atomic_load(&s->next_req) >= s->cl_reqs)
				break;
			uint64_t intended = per > 0 ? t0 + (uint64_t)(nsent * per) : now;
			if (intended > now)
				break;
			if (csend(s, &c[i], intended)) {
				close(c[i].fd);
				c[i].fd = -1;
				continue;
			}
			nsent++;
		}
		int np = 0;
		for (int i = 0; i < ct->k; i++) {
			pf[i].fd = c[i].busy ? c[i].fd : -1;
			pf[i].events = POLLIN;
			np += c[i].busy;
		}
		/* Sleep until a response or the next intended start, never spin:
		 * a spinning client takes a CPU from the server (two here). With
		 * every connection busy, only a response can let a request go. */
		uint64_t wait_ns = 10000000;
		if (per > 0 && np < ct->k) {
			uint64_t nx = t0 + (uint64_t)(nsent * per);
			wait_ns = nx > now ? nx - now : 0;
			wait_ns = wait_ns > 10000000 ? 10000000 : wait_ns;
		}
		struct timespec to = {0, (long)wait_ns};
		if (ppoll(pf, (nfds_t)ct->k, &to, NULL) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < ct->k; i++) {
			if (!c[i].busy || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			uint64_t bytes = 0;
			int r = crecv(&c[i], sink, 1 << 16, &bytes);
			if (r == 0)
				continue;
			pthread_mutex_lock(&s->lock);
			if (r > 0)
				r2_record(s, s->crec, c[i].issued, meter_now(), bytes);
			else
				s->crec->errors++;
			pthread_mutex_unlock(&s->lock);
			c[i].busy = 0;
			if (r < 0) {
				close(c[i].fd);
				c[i].fd = -1;
			}
		}
	}
	for (int i = 0; c && i < ct->k; i++)
		if (c[i].fd >= 0)
			close(c[i].fd);
	free(c);
	free(pf);
	free(sink);
	return NULL;
}

/* Start the client threads (K connections over two) at rate (0: closed
 * loop) until cl_end or cl_reqs; the number started. */
int r2_clients_start(struct st *s, struct cthread *ct, uint64_t k, uint64_t rate, uint64_t end,
			 uint64_t reqs)
{
	int nt = k >= 2 ? 2 : 1, started = 0;
	s->cl_rate = rate;
	s->cl_threads = nt;
	s->cl_reqs = reqs;
	atomic_store(&s->cl_end, end);
	atomic_store(&s->next_req, 0);
	for (int t = 0; t < nt; t++) {
		ct[t].s = s;
		ct[t].idx = t;
		ct[t].k = (int)(k / (uint64_t)nt + ((uint64_t)t < k % (uint64_t)nt));
		if (pthread_create(&ct[t].th, NULL, client, &ct[t]))
			break;
		started++;
	}
	return started;
}

json_t *r2_http_fields(json_t *o, uint64_t k, uint64_t rate)
{
	json_object_set_new(o, "conns", json_integer((json_int_t)k));
	json_object_set_new(o, "mode", json_string(rate ? "open" : "closed"));
	if (rate)
		json_object_set_new(o, "rate", json_integer((json_int_t)rate));
	return o;
}

json_t *r2_serve_phase(struct st *s, const char *name, uint64_t k, uint64_t rate)
{
	struct cthread ct[2];
	r2_phase_begin(&s->r, name, 1);
	s->crec = &s->r;
	json_t *jbd0 = r2_jbd2_read(s);
	int started = r2_clients_start(s, ct, k, rate, meter_now() + s->serve_ns, s->n * s->reqs_per_file);
	for (int t = 0; t < started; t++)
		pthread_join(ct[t].th, NULL);
	return r2_http_fields(r2_phase_end(s, &s->r, jbd0), k, rate);
}
#endif
