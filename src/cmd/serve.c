/* SPDX-License-Identifier: MIT */
/* scalebench serve: the server side of the net.* benches for a client on
 * another host (`run net.* --peer HOST:PORT --key K`). The control
 * protocol is in docs/protocol.md: lines of at most CTL_MAX bytes; HELLO
 * with the protocol version and the shared key, then START with a bounded
 * server specification, which forks a server process whose lines (READY,
 * FAIL, COUNT, DONE) are relayed to the client. One controlling client at
 * a time; a malformed or oversized message gets "ERR ..." and that
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

#include "cmd.h"
#include "netsrv.h"
#include "opt.h"
#include "registry.h"
#include "sys.h"

#define CTL_VERSION 1
#define CTL_MAX 512          /* bytes in one control line, newline included */
#define HELLO_TIMEOUT_MS 5000
#define DEFAULT_LISTEN "127.0.0.1:7411"

struct serve {
	const char *key;
	char host[64];
	int family, port;
	int lsock;
	int client;          /* controlling connection, -1 if none */
	struct linebuf clb;
	int authed;
	uint64_t hello_deadline;
	pid_t child;         /* session's server process, -1 if none */
	int cctl;            /* its control socketpair */
	struct linebuf slb;
	unsigned long sessions, refused;
};

static uint64_t ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

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

/* Constant-time comparison: the time does not tell how much matched. */
static int key_ok(const char *want, const char *got)
{
	size_t a = strlen(want), b = strlen(got);
	unsigned char d = (unsigned char)(a != b);
	for (size_t i = 0; i < a; i++)
		d |= (unsigned char)(want[i] ^ got[i < b ? i : 0]);
	return d == 0;
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
		for (int i = 0; i < 5; i++) {
			struct pollfd p = {sv->client, POLLIN, 0};
			if (poll(&p, 1, 100) <= 0 || recv(sv->client, junk, sizeof(junk), 0) <= 0)
				break;
		}
	}
	end_session(sv);
	reg_close_fd(sv->client);
	sv->client = -1;
	sv->authed = 0;
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
	sock = srv_bind(sp.family, sp.mode == SRV_UDP ? SOCK_DGRAM : SOCK_STREAM, sv->host, &port, err,
			sizeof(err));
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
		if (sp.mode == SRV_UDP) {
			int big = 8 << 20;
			setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
		}
		srv_loop(&sp, sock, p[1]);
		_exit(0);
	}
	close(sock);
	close(p[1]);
	reg_add_pid(pid);
	reg_add_fd(p[0]);
	sv->child = pid;
	sv->cctl = p[0];
	sv->sessions++;
	line_write(sv->client, "READY port=%d", port);
}

/* One line from the client. */
static void client_line(struct serve *sv, char *line)
{
	if (!sv->authed) {
		char word[8] = "", key[CTL_MAX] = "";
		int ver = -1;
		int n = sscanf(line, "%7s %d %511s", word, &ver, key);
		if (n < 2 || strcmp(word, "HELLO")) {
			drop_client(sv, "malformed: expected HELLO <version> <key>");
			return;
		}
		if (ver != CTL_VERSION) {
			char msg[80];
			snprintf(msg, sizeof(msg), "version: this server speaks protocol %d", CTL_VERSION);
			drop_client(sv, msg);
			return;
		}
		if (!key_ok(sv->key ? sv->key : "", key)) {
			sv->refused++;
			drop_client(sv, "key refused");
			return;
		}
		sv->authed = 1;
		line_write(sv->client, "OK %d scalebench %s", CTL_VERSION, SB_VERSION);
		return;
	}
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
		if (!strncmp(line, "DONE", 4) || !strncmp(line, "ERR", 3)) {
			end_session(sv);
			return;
		}
	}
}

static void on_accept(struct serve *sv)
{
	int fd = accept(sv->lsock, NULL, NULL);
	if (fd < 0)
		return;
	net_nonblock(fd, 1);
	if (sv->client >= 0) {
		line_write(fd, "ERR busy: one controlling client at a time");
		close(fd);
		return;
	}
	reg_add_fd(fd);
	sv->client = fd;
	sv->authed = 0;
	sv->clb.n = 0;
	sv->hello_deadline = ms_now() + HELLO_TIMEOUT_MS;
}

static void usage(FILE *f, const struct opt *opts)
{
	fprintf(f,
		"usage: scalebench serve [--listen ADDR:PORT] [--key KEY]\n\n"
		"The server side of the net.* benches, for `scalebench run net.* --peer\n"
		"HOST:PORT --key KEY` on another host. It listens on loopback unless told\n"
		"otherwise (a non-loopback address needs --key), serves one controlling\n"
		"client at a time, runs only the predefined network servers (echo, sink,\n"
		"udp) with bounded connections, bytes and duration, and keeps running after\n"
		"a client misbehaves or disappears. Protocol: docs/protocol.md.\n\n");
	opt_help(f, opts);
	fprintf(f, "\nexit: 0 stopped by SIGINT/SIGTERM, 1 cannot listen, 2 bad arguments.\n");
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
	if (opt_parse(opts, argc, argv, pos, 0, &npos, err, sizeof(err))) {
		fprintf(stderr, "scalebench serve: %s\n", err);
		return EXIT_USAGE;
	}
	if (help) {
		usage(stdout, opts);
		return EXIT_OK;
	}
	struct serve sv;
	memset(&sv, 0, sizeof(sv));
	sv.key = key;
	sv.client = sv.cctl = -1;
	sv.child = -1;
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
	if (reg_init()) {
		fprintf(stderr, "scalebench serve: cannot install signal handlers\n");
		return EXIT_RUNTIME;
	}
	sv.lsock = srv_bind(sv.family, SOCK_STREAM, sv.host, &sv.port, err, sizeof(err));
	if (sv.lsock < 0) {
		fprintf(stderr, "scalebench serve: %s\n", err);
		return EXIT_RUNTIME;
	}
	reg_add_fd(sv.lsock);
	printf("scalebench serve: listening on %s%s%s:%d (protocol %d)%s\n",
	       sv.family == AF_INET6 ? "[" : "", sv.host, sv.family == AF_INET6 ? "]" : "", sv.port,
	       CTL_VERSION, key ? ", key required" : "");
	fflush(stdout);
	while (!reg_stop_requested()) {
		struct pollfd p[3] = {{sv.lsock, POLLIN, 0}, {sv.client, POLLIN, 0}, {sv.cctl, POLLIN, 0}};
		int r = poll(p, 3, 250);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && p[2].revents)
			on_child(&sv);
		if (r > 0 && p[1].revents && sv.client >= 0)
			on_client(&sv);
		if (r > 0 && p[0].revents)
			on_accept(&sv);
		if (sv.client >= 0 && !sv.authed && ms_now() > sv.hello_deadline)
			drop_client(&sv, "timeout: no HELLO within 5 seconds");
		if (sv.child > 0 && waitpid(sv.child, NULL, WNOHANG) == sv.child) {
			reg_forget_pid(sv.child);
			sv.child = -1;
			if (sv.cctl >= 0)
				on_child(&sv); /* relay its last lines (DONE) first */
			end_session(&sv);
		}
	}
	drop_client(&sv, NULL);
	reg_cleanup();
	fprintf(stderr, "scalebench serve: stopped (%lu sessions, %lu refused keys)\n", sv.sessions,
		sv.refused);
	return EXIT_OK;
}
