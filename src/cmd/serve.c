/* SPDX-License-Identifier: MIT */
/* scalebench serve: the server side of the net.* benches for a client on
 * another host (`run net.* --peer HOST:PORT --key K`). The control
 * protocol is in docs/protocol.md: lines of at most CTL_LINE bytes; HELLO
 * and AUTH, a challenge-response over the shared key (which never crosses
 * the wire), then START with a bounded server specification, which forks a
 * server process whose lines (READY, FAIL, COUNT, DONE) are relayed to the
 * client. New connections are accepted at once into a bounded table of
 * pending ones, each with its own HELLO deadline (the oldest is dropped
 * when the table is full); only an authenticated client takes the one
 * session slot. A malformed or oversized message gets "ERR ..." and that
 * connection is closed; serve itself keeps running. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/auth.h"
#include "cmd/cmd.h"
#include "core/netctl.h"
#include "cmd/opt.h"
#include "core/registry.h"
#include "core/srvloop.h"
#include "sys/sys.h"

#define CTL_MAX CTL_LINE
#define HELLO_TIMEOUT_MS 2000 /* connect to authenticated, per connection */
#define PEND_MAX 128          /* connections not yet authenticated */
#define LINGER_MS 300         /* a dropped connection's ERR line drains this long */
#define DROP_LINGER_MS 500    /* the same for a dropped client's, at most */
#define TICK_MS 100           /* the loop's wake-up when nothing happens */
#define ACCEPT_BURST 64       /* accepts per turn of the loop */
#define DEFAULT_LISTEN "127.0.0.1:7411"

/* A connection that has not authenticated yet. */
enum { P_FREE = 0, P_HELLO, P_AUTH, P_CLOSING };
struct pend {
	int fd, state;
	uint64_t since, deadline;
	struct linebuf lb;
	struct sockaddr_storage addr;
	unsigned char sn[AUTH_NONCE], cn[AUTH_NONCE];
};

struct serve {
	const char *key;
	char host[64];
	int family, port;
	int lsock;
	int client;          /* the session slot: authenticated connection, -1 if none */
	struct linebuf clb;
	struct sockaddr_storage caddr; /* its address: the data ports accept only it */
	struct pend pend[PEND_MAX];
	pid_t child;         /* session's server process, -1 if none */
	int cctl;            /* its control socketpair */
	struct linebuf slb;
	unsigned long sessions, refused, busy, evicted, timeouts;
};

static int parse_listen(const char *s, char *host, size_t hl, int *port, int *family)
{
	const char *colon = strrchr(s, ':');
	if (!colon)
		return -1;
	size_t len = (size_t)(colon - s);
	const char *h = s;
	if (len >= 2 && h[0] == '[' && h[len - 1] == ']') {
		h++;
		len -= 2;
	}
	if (len == 0 || len >= hl)
		return -1;
	memcpy(host, h, len);
	host[len] = 0;
	char *end;
	long p = strtol(colon + 1, &end, 10);
	if (*end || p < 0 || p > 65535 || colon[1] == 0)
		return -1;
	*port = (int)p;
	unsigned char buf[16];
	if (inet_pton(AF_INET, host, buf) == 1)
		*family = AF_INET;
	else if (inet_pton(AF_INET6, host, buf) == 1)
		*family = AF_INET6;
	else
		return -1;
	return 0;
}

static int is_loopback(const char *host)
{
	return !strncmp(host, "127.", 4) || !strcmp(host, "::1");
}

static void end_session(struct serve *sv)
{
	if (sv->cctl >= 0) {
		reg_close_fd(sv->cctl);
		sv->cctl = -1;
	}
	if (sv->child > 0) {
		reg_kill_pid(sv->child);
		sv->child = -1;
	}
	sv->slb.n = 0;
}

static void drop_client(struct serve *sv, const char *why)
{
	if (sv->client < 0)
		return;
	if (why) {
		line_write(sv->client, "ERR %s", why);
		fprintf(stderr, "scalebench serve: client dropped: %s\n", why);
		/* lingering close: unread input would make close() send a reset
		 * that can destroy the ERR line before the client reads it */
		shutdown(sv->client, SHUT_WR);
		char junk[4096];
		for (int i = 0; i < DROP_LINGER_MS / TICK_MS; i++) {
			struct pollfd p = {sv->client, POLLIN, 0};
			if (poll(&p, 1, TICK_MS) <= 0 || recv(sv->client, junk, sizeof(junk), 0) <= 0)
				break;
		}
	}
	end_session(sv);
	reg_close_fd(sv->client);
	sv->client = -1;
	sv->clb.n = 0;
}

static void start_session(struct serve *sv, const char *spec_text)
{
	struct srv_spec sp;
	char err[200];
	if (srv_spec_parse(spec_text, &sp, err, sizeof(err))) {
		char msg[260];
		snprintf(msg, sizeof(msg), "malformed START: %s", err);
		drop_client(sv, msg);
		return;
	}
	if (sv->child > 0) {
		line_write(sv->client, "ERR busy: a server is already running for this client");
		return;
	}
	if (sp.family != sv->family) {
		line_write(sv->client, "ERR unavailable IPv%d: serve listens on an IPv%d address",
			   sp.family == AF_INET6 ? 6 : 4, sv->family == AF_INET6 ? 6 : 4);
		return;
	}
	int sock, port = 0;
	sock = srv_open(&sp, sv->host, &port, err, sizeof(err));
	if (sock < 0) {
		line_write(sv->client, "ERR %s", err);
		return;
	}
	int p[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, p)) {
		close(sock);
		line_write(sv->client, "ERR socketpair: %s", strerror(errno));
		return;
	}
	sp.allow = sv->caddr;
	sp.allow_set = 1;
	pid_t pid = fork();
	if (pid < 0) {
		close(sock);
		close(p[0]);
		close(p[1]);
		line_write(sv->client, "ERR fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_DFL);
		sys_child_dies_with_parent();
		close(p[0]);
		close(sv->lsock);
		close(sv->client);
		for (int i = 0; i < PEND_MAX; i++)
			if (sv->pend[i].state != P_FREE)
				close(sv->pend[i].fd);
		srv_loop(&sp, sock, p[1]);
		_exit(0);
	}
	close(sock);
	close(p[1]);
	if (reg_add_pid(pid)) { /* it killed and reaped the server */
		close(p[0]);
		line_write(sv->client, "ERR registry: %s", strerror(ENOMEM));
		return;
	}
	if (reg_add_fd(p[0])) { /* it closed p[0] */
		reg_kill_pid(pid);
		line_write(sv->client, "ERR registry: %s", strerror(ENOMEM));
		return;
	}
	sv->child = pid;
	sv->cctl = p[0];
	sv->sessions++;
	line_write(sv->client, "READY port=%d", port);
}

/* One line from the client. */
static void client_line(struct serve *sv, char *line)
{
	if (!strncmp(line, "START ", 6)) {
		start_session(sv, line + 6);
	} else if (!strcmp(line, "COUNT") || !strcmp(line, "STOP")) {
		if (sv->cctl < 0)
			line_write(sv->client, "ERR no server running");
		else
			line_write(sv->cctl, "%s", line);
	} else if (!strcmp(line, "PING")) {
		line_write(sv->client, "PONG");
	} else {
		drop_client(sv, "malformed: unknown command");
	}
}

static void on_client(struct serve *sv)
{
	char line[CTL_MAX];
	for (;;) {
		int r = line_read(sv->client, &sv->clb, line, sizeof(line), 0);
		if (r == 0)
			return;
		if (r == -EMSGSIZE) {
			drop_client(sv, "oversized control message (at most 512 bytes a line)");
			return;
		}
		if (r < 0) {
			drop_client(sv, NULL); /* gone */
			return;
		}
		for (char *c = line; *c; c++)
			if ((unsigned char)*c < 0x20 && *c != '\t') {
				drop_client(sv, "malformed: control characters in a line");
				return;
			}
		client_line(sv, line);
		if (sv->client < 0)
			return;
	}
}

static void on_child(struct serve *sv)
{
	char line[CTL_MAX];
	for (;;) {
		int r = line_read(sv->cctl, &sv->slb, line, sizeof(line), 0);
		if (r == 0)
			return;
		if (r < 0) { /* the server process ended */
			end_session(sv);
			return;
		}
		if (sv->client >= 0)
			line_write(sv->client, "%s", line);
		if (!strncmp(line, "DONE", 4)) { /* the session is over: free the slot */
			drop_client(sv, NULL);
			return;
		}
		if (!strncmp(line, "ERR", 3)) {
			end_session(sv);
			return;
		}
	}
}

/* ---- connections that have not authenticated ---- */

static void pend_close(struct pend *p)
{
	if (p->state == P_FREE)
		return;
	reg_close_fd(p->fd);
	p->state = P_FREE;
	p->fd = -1;
	p->lb.n = 0;
}

/* Say why (one line, without blocking: the socket's buffer is empty at
 * this point), then close after the client had LINGER_MS to read it; what
 * it sends meanwhile is drained so that the close sends no reset. */
static void pend_fail(struct pend *p, const char *why)
{
	char buf[CTL_MAX];
	int n = snprintf(buf, sizeof(buf), "ERR %s\n", why);
	if (send(p->fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 ||
	    shutdown(p->fd, SHUT_WR)) {
		pend_close(p);
		return;
	}
	p->state = P_CLOSING;
	p->deadline = sys_now_ms() + LINGER_MS;
	p->lb.n = 0;
}

/* The session slot is free, or becomes free because its holder left. */
static int slot_free(struct serve *sv)
{
	if (sv->client < 0)
		return 1;
	char c;
	ssize_t n = recv(sv->client, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
		drop_client(sv, NULL);
	return sv->client < 0;
}

static void pend_line(struct serve *sv, struct pend *p, char *line)
{
	char word[8] = "", arg[CTL_MAX] = "";
	int ver = -1;
	if (p->state == P_HELLO) {
		int n = sscanf(line, "%7s %d %511s", word, &ver, arg);
		if (n < 2 || strcmp(word, "HELLO")) {
			pend_fail(p, "malformed: expected HELLO <version> <nonce>");
			return;
		}
		if (ver != CTL_VERSION) {
			char msg[160];
			snprintf(msg, sizeof(msg), "version: this server speaks protocol %d (a challenge-"
				 "response; the key is never sent): use a scalebench that speaks it",
				 CTL_VERSION);
			pend_fail(p, msg);
			return;
		}
		if (n < 3 || auth_unhex(arg, p->cn, sizeof(p->cn))) {
			pend_fail(p, "malformed: HELLO 2 wants a nonce of 64 hex digits");
			return;
		}
		char hex[AUTH_HEX];
		if (auth_random(p->sn, sizeof(p->sn))) {
			pend_fail(p, "unavailable: no random bytes");
			return;
		}
		auth_hex(p->sn, sizeof(p->sn), hex);
		if (line_write(p->fd, "CHALLENGE %s", hex)) {
			pend_close(p);
			return;
		}
		p->state = P_AUTH;
		return;
	}
	/* P_AUTH: the client's HMAC over our nonce and its own */
	unsigned char want[AUTH_MAC], got[AUTH_MAC];
	if (sscanf(line, "%7s %511s", word, arg) != 2 || strcmp(word, "AUTH") ||
	    auth_unhex(arg, got, sizeof(got))) {
		pend_fail(p, "malformed: expected AUTH <HMAC of 64 hex digits>");
		return;
	}
	if (auth_mac(sv->key, p->sn, sizeof(p->sn), p->cn, sizeof(p->cn), want) ||
	    !auth_equal(want, got, sizeof(want))) {
		sv->refused++;
		fprintf(stderr, "scalebench serve: client dropped: key refused\n");
		pend_fail(p, "key refused");
		return;
	}
	if (!slot_free(sv)) {
		sv->busy++;
		pend_fail(p, "busy: another client's session is running; try again when it ends");
		return;
	}
	char hex[AUTH_HEX];
	auth_mac(sv->key, p->cn, sizeof(p->cn), p->sn, sizeof(p->sn), want);
	auth_hex(want, sizeof(want), hex);
	sv->client = p->fd;
	sv->clb = p->lb;
	sv->caddr = p->addr;
	p->state = P_FREE; /* the descriptor is the session's now */
	p->fd = -1;
	p->lb.n = 0;
	line_write(sv->client, "OK %d %s scalebench %s", CTL_VERSION, hex, SB_VERSION);
	if (sv->clb.n) /* lines the client sent on without waiting for OK */
		on_client(sv);
}

static void on_pend(struct serve *sv, struct pend *p)
{
	char line[CTL_MAX];
	if (p->state == P_CLOSING) { /* drain until the client closes or the linger ends */
		char junk[4096];
		ssize_t n;
		while ((n = recv(p->fd, junk, sizeof(junk), MSG_DONTWAIT)) > 0)
			;
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			pend_close(p);
		return;
	}
	while (p->state == P_HELLO || p->state == P_AUTH) {
		int r = line_read(p->fd, &p->lb, line, sizeof(line), 0);
		if (r == 0)
			return;
		if (r == -EMSGSIZE) {
			pend_fail(p, "oversized control message (at most 512 bytes a line)");
			return;
		}
		if (r < 0) {
			pend_close(p); /* gone */
			return;
		}
		for (char *c = line; *c; c++)
			if ((unsigned char)*c < 0x20 && *c != '\t') {
				pend_fail(p, "malformed: control characters in a line");
				return;
			}
		pend_line(sv, p, line);
	}
}

/* New connections, each into the pending table; when it is full, the
 * oldest pending one makes room (ERR busy), so that a flood of idle
 * connections cannot keep a new one out. */
static void on_accept(struct serve *sv)
{
	for (int k = 0; k < ACCEPT_BURST; k++) {
		struct sockaddr_storage a;
		socklen_t alen = sizeof(a);
		int fd = accept(sv->lsock, (struct sockaddr *)&a, &alen);
		if (fd < 0)
			return;
		net_nonblock(fd, 1);
		/* a free entry; else the oldest that is closing anyway; else the oldest */
		struct pend *slot = NULL, *old = NULL;
		for (int i = 0; i < PEND_MAX && !slot; i++) {
			struct pend *p = &sv->pend[i];
			if (p->state == P_FREE)
				slot = p;
			else if (!old || (p->state == P_CLOSING) > (old->state == P_CLOSING) ||
				 ((p->state == P_CLOSING) == (old->state == P_CLOSING) && p->since < old->since))
				old = p;
		}
		if (!slot) {
			static const char m[] = "ERR busy: too many pending connections (this one was the oldest)\n";
			sv->evicted++;
			if (old->state != P_CLOSING)
				(void)!send(old->fd, m, sizeof(m) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
			pend_close(old);
			slot = old;
		}
		if (reg_add_fd(fd)) /* it closed fd: the connection is refused */
			continue;
		memset(slot, 0, sizeof(*slot));
		slot->fd = fd;
		slot->state = P_HELLO;
		slot->addr = a;
		slot->since = sys_now_ms();
		slot->deadline = slot->since + HELLO_TIMEOUT_MS;
	}
}

static void pend_timers(struct serve *sv)
{
	uint64_t now = sys_now_ms();
	for (int i = 0; i < PEND_MAX; i++) {
		struct pend *p = &sv->pend[i];
		if (p->state == P_FREE || now < p->deadline)
			continue;
		if (p->state == P_CLOSING) {
			pend_close(p);
		} else {
			sv->timeouts++;
			pend_fail(p, "timeout: not authenticated within 2 seconds of connecting");
		}
	}
}

static void usage(FILE *f, const struct opt *opts)
{
	fprintf(f,
		"usage: scalebench serve [--listen ADDR:PORT] [--key KEY]\n\n"
		"The server side of the net.* benches, for `scalebench run net.* --peer\n"
		"HOST:PORT --key KEY` on another host. It listens on loopback unless told\n"
		"otherwise (a non-loopback address needs --key), runs only the predefined\n"
		"network servers (echo, sink, udp) with bounded connections, bytes and\n"
		"duration, and keeps running after a client misbehaves or disappears.\n"
		"Clients prove the key with a challenge-response (HMAC-SHA256, protocol 2;\n"
		"libcrypto is loaded when needed): the key never crosses the wire. At most\n"
		"128 connections wait to authenticate, 2 s each (when full, the oldest is\n"
		"dropped); one authenticated client holds the session, others get \"busy\";\n"
		"data ports accept only the controlling client's host. Protocol:\n"
		"docs/protocol.md.\n\n");
	opt_help(f, opts);
	fprintf(f, "\nexit: 0 stopped by SIGINT/SIGTERM, 1 cannot listen or no libcrypto, 2 bad\n"
		   "arguments.\n");
}

int cmd_serve(int argc, char **argv)
{
	const char *listen_at = DEFAULT_LISTEN, *key = NULL;
	int help = 0;
	const struct opt opts[] = {
		{"listen", 'l', OPT_STR, "ADDR:PORT", "numeric address and port to listen on (default " DEFAULT_LISTEN "; [::1]:PORT for IPv6)", 0, 0, NULL, &listen_at, NULL},
		{"key", 'k', OPT_STR, "KEY", "shared key clients must present (required off loopback)", 0, 0, NULL, &key, NULL},
		{"help", 'h', OPT_FLAG, NULL, "this help", 0, 0, NULL, &help, NULL},
		{0},
	};
	char err[256], *pos[1];
	int npos;
	int orc = opt_command("serve", opts, argc, argv, pos, 0, &npos, &help, usage);
	if (orc != OPT_GO)
		return orc;
	struct serve sv;
	memset(&sv, 0, sizeof(sv));
	sv.key = key;
	sv.client = sv.cctl = -1;
	sv.child = -1;
	for (int i = 0; i < PEND_MAX; i++)
		sv.pend[i].fd = -1;
	if (parse_listen(listen_at, sv.host, sizeof(sv.host), &sv.port, &sv.family)) {
		fprintf(stderr, "scalebench serve: --listen '%s': not a numeric ADDR:PORT\n", listen_at);
		return EXIT_USAGE;
	}
	if (!key && !is_loopback(sv.host)) {
		fprintf(stderr, "scalebench serve: --listen %s is not loopback: give --key\n", listen_at);
		return EXIT_USAGE;
	}
	if (key && (strlen(key) > 256 || strpbrk(key, " \t\r\n"))) {
		fprintf(stderr, "scalebench serve: --key: at most 256 characters, no blanks\n");
		return EXIT_USAGE;
	}
	if (auth_load(err, sizeof(err))) {
		fprintf(stderr, "scalebench serve: %s\n", err);
		return EXIT_RUNTIME;
	}
	if (reg_init()) {
		fprintf(stderr, "scalebench serve: cannot install signal handlers\n");
		return EXIT_RUNTIME;
	}
	sv.lsock = srv_bind(sv.family, SOCK_STREAM, sv.host, &sv.port, err, sizeof(err));
	if (sv.lsock < 0) {
		fprintf(stderr, "scalebench serve: %s\n", err);
		return EXIT_RUNTIME;
	}
	if (reg_add_fd(sv.lsock)) { /* it closed the socket */
		fprintf(stderr, "scalebench serve: cannot register the listening socket: %s\n",
			strerror(ENOMEM));
		return EXIT_RUNTIME;
	}
	net_nonblock(sv.lsock, 1); /* on_accept takes what is there, in bursts */
	printf("scalebench serve: listening on %s%s%s:%d (protocol %d)%s\n",
	       sv.family == AF_INET6 ? "[" : "", sv.host, sv.family == AF_INET6 ? "]" : "", sv.port,
	       CTL_VERSION, key ? ", key required" : "");
	fflush(stdout);
	struct pollfd p[3 + PEND_MAX];
	while (!reg_stop_requested()) {
		p[0] = (struct pollfd){sv.lsock, POLLIN, 0};
		p[1] = (struct pollfd){sv.client, POLLIN, 0};
		p[2] = (struct pollfd){sv.cctl, POLLIN, 0};
		for (int i = 0; i < PEND_MAX; i++)
			p[3 + i] = (struct pollfd){sv.pend[i].state == P_FREE ? -1 : sv.pend[i].fd, POLLIN, 0};
		int r = poll(p, 3 + PEND_MAX, TICK_MS);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && p[2].revents)
			on_child(&sv);
		if (r > 0 && p[1].revents && sv.client >= 0)
			on_client(&sv);
		for (int i = 0; r > 0 && i < PEND_MAX; i++)
			if (p[3 + i].revents && sv.pend[i].state != P_FREE && sv.pend[i].fd == p[3 + i].fd)
				on_pend(&sv, &sv.pend[i]);
		if (r > 0 && p[0].revents)
			on_accept(&sv);
		pend_timers(&sv);
		if (sv.child > 0 && waitpid(sv.child, NULL, WNOHANG) == sv.child) {
			reg_forget_pid(sv.child);
			sv.child = -1;
			if (sv.cctl >= 0)
				on_child(&sv); /* relay its last lines (DONE) first */
			end_session(&sv);
		}
	}
	for (int i = 0; i < PEND_MAX; i++)
		pend_close(&sv.pend[i]);
	drop_client(&sv, NULL);
	reg_cleanup();
	fprintf(stderr,
		"scalebench serve: stopped (%lu sessions, %lu refused keys, %lu busy, %lu HELLO "
		"timeouts, %lu pending dropped)\n",
		sv.sessions, sv.refused, sv.busy, sv.timeouts, sv.evicted);
	return EXIT_OK;
}
