/* SPDX-License-Identifier: MIT */
/* The net.* benches' handle on their server: see netsrv.h. Everything a
 * child does ends in _exit(), so that no atexit cleanup of the parent's
 * registry runs in it. */
#include "bench/netsrv.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/netsys.h"
#include "core/registry.h"
#include "core/srvloop.h"
#include "sys/sys.h"

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
		int e = ctl_hello(fd, &s.lb, net->key, msg, sizeof(msg));
		close(fd);
		if (!e)
			_exit(0);
		if (e == EBUSY) /* the server's words say it all */
			snprintf(err, sizeof(err), "--peer %s: %s", net->peer, msg);
		else
			snprintf(err, sizeof(err), "--peer %s: %s: %s", net->peer, ctl_hello_call(e) + 9, msg);
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

/* How a failed start is told: a local server's, or a peer's. */
struct start_words {
	const char *read_call;    /* no reply line */
	const char *skip_prefix;  /* "ERR unavailable WHY": env->skip */
	const char *note_prefix;  /* anything else but READY: env->note ... */
	const char *refused_call; /* ... and the failed call, with errno */
	int refused_errno;
};
static const struct start_words local_words = {"server start", "", "server: ", "server start", EIO};
static const struct start_words peer_words = {"control: START", "at the peer: ", "peer: ",
					       "control: START refused by the peer", EPROTO};

/* The reply to a start on s->ctl (READY, ERR unavailable, or a refusal),
 * the server's address at host: 0, BENCH_SKIP or bench_fail. */
static int await_ready(struct netsrv *s, const char *host, const struct start_words *w)
{
	struct bench_env *env = s->env;
	char line[CTL_LINE];
	int r = line_read(s->ctl, &s->lb, line, sizeof(line), CTL_START_TIMEOUT_MS);
	if (r <= 0) {
		errno = r == 0 ? ETIMEDOUT : -r;
		return bench_fail(env, w->read_call);
	}
	int port = 0;
	const char *why = NULL;
	switch (ctl_ready_reply(line, &port, &why)) {
	case CTL_READY:
		return fill_addr(s, host, port) ? bench_fail(env, "getaddrinfo") : 0;
	case CTL_UNAVAILABLE:
		snprintf(env->skip, sizeof(env->skip), "%s%.200s", w->skip_prefix, why);
		return BENCH_SKIP;
	default:
		snprintf(env->note, sizeof(env->note), "%s%.200s", w->note_prefix, why);
		errno = w->refused_errno;
		return bench_fail(env, w->refused_call);
	}
}

static int start_peer(struct netsrv *s, const char *spec)
{
	struct bench_env *env = s->env;
	char host[256], msg[300];
	int port, fd;
	if (peer_connect(s, host, sizeof(host), &port, &fd))
		return bench_fail(env, "connect (control connection to --peer)");
	if (reg_add_fd(fd)) { /* it closed fd */
		errno = ENOMEM;
		return bench_fail(env, "registry");
	}
	s->ctl = fd;
	int e = ctl_hello(fd, &s->lb, s->net->key, msg, sizeof(msg));
	if (e) {
		snprintf(env->note, sizeof(env->note), "peer: %.200s", msg);
		errno = e;
		return bench_fail(env, ctl_hello_call(e));
	}
	int r = line_write(fd, "START %s", spec);
	if (r) {
		errno = -r;
		return bench_fail(env, "control: START");
	}
	return await_ready(s, host, &peer_words);
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
	int sock = srv_open(sp, srv_host(net), &port, err, sizeof(err));
	if (sock < 0) {
		line_write(ctl, "ERR %s", err);
		_exit(1);
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
	if (reg_add_pid(pid)) { /* it killed and reaped the server */
		close(sv[0]);
		errno = ENOMEM;
		return bench_fail(env, "registry");
	}
	s->pid = pid;
	bench_peer_add(env, "server", pid);
	if (reg_add_fd(sv[0])) { /* it closed sv[0]; netsrv_stop reaps the server */
		errno = ENOMEM;
		return bench_fail(env, "registry");
	}
	s->ctl = sv[0];
	return await_ready(s, srv_host(s->net), &local_words);
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
		int r = line_read(s->ctl, &s->lb, reply, len, CTL_REPLY_TIMEOUT_MS);
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
				if (line_read(s->ctl, &s->lb, line, sizeof(line), CTL_STOP_TIMEOUT_MS) <= 0)
					break;
				if (!strncmp(line, "DONE", 4)) {
					snprintf(s->done, sizeof(s->done), "%.250s", line);
					/* serve closes after DONE, freeing its session
					 * slot: wait for that, so that the next bench's
					 * session does not find the slot still held */
					if (s->pid < 0)
						while (line_read(s->ctl, &s->lb, line, sizeof(line), CTL_CLOSE_TIMEOUT_MS) > 0)
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
		uint64_t give_up = sys_now_ms() + SRV_REAP_TIMEOUT_MS;
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
		int f = netsrv_check(s, CTL_WHY_TIMEOUT_MS); /* the server may say why */
		if (f)
			return f;
		errno = -rc;
		return bench_fail(s->env, "connect");
	}
	int one = 1;
	setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}
