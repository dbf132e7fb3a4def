/* SPDX-License-Identifier: MIT */
/* Shared by the net.* benches and `scalebench serve`: where the traffic
 * goes (loopback, a namespace pair, a peer), the server process with its
 * event loop, and helper processes that hold the idle client connections
 * (so that only the server's own descriptor limit caps a sweep).
 *
 * The server speaks on a control channel in lines (docs/protocol.md): it
 * says "READY port=P", reports "FAIL <call> <errno> <count>" when it
 * cannot take more connections, answers "COUNT" with "COUNT packets=P
 * bytes=B" and "STOP" with "DONE ..." before it exits. Locally that
 * channel is a socketpair to a forked child; with --peer it is the
 * control connection to `serve`, which relays its own child's lines. */
#ifndef SB_NETSRV_H
#define SB_NETSRV_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include "bench.h"

/* The addresses of the --netns pair. */
#define NETNS_SRV4 "10.77.0.1"
#define NETNS_CLI4 "10.77.0.2"
#define NETNS_SRV6 "fd77::1"
#define NETNS_CLI6 "fd77::2"

enum srv_mode { SRV_ECHO = 0, SRV_SINK, SRV_UDP };

/* What a server runs; every field bounded (serve enforces the limits). */
struct srv_spec {
	int mode, mech, family;
	uint64_t max_conn;   /* connections it accepts at most */
	uint64_t max_bytes;  /* bytes it reads at most per connection (sink) */
	double max_s;        /* it exits after this long */
	/* serve: accept (and count datagrams) only from this host; the
	 * controlling client's address. Not part of the text form. */
	struct sockaddr_storage allow;
	int allow_set;
};
#define SRV_MAX_CONN 100000
#define SRV_MAX_S 3600.0
#define SRV_MAX_BYTES (1ull << 40)

/* The control protocol of serve (docs/protocol.md): its version and the
 * longest line, newline included. */
#define CTL_VERSION 2
#define CTL_LINE 512

int srv_spec_format(const struct srv_spec *s, char *buf, size_t len);
int srv_spec_parse(const char *text, struct srv_spec *s, char *err, size_t errlen);

/* The server's loop on an already bound socket (listening for TCP); runs
 * in a child, writes its lines to ctl, returns when told to stop, when ctl
 * closes or when max_s has passed. */
void srv_loop(const struct srv_spec *spec, int sock, int ctl);
/* Bind (and listen) on addr:0 of the family; the port in *port. */
int srv_bind(int family, int type, const char *addr, int *port, char *err, size_t errlen);

/* A line-buffered reader of a control channel. */
struct linebuf { char b[1024]; size_t n; };
/* One line (without "\n") into line: 1, 0 on timeout, -errno, -EPIPE at
 * end of file, -EMSGSIZE for a line longer than max. */
int line_read(int fd, struct linebuf *lb, char *line, size_t max, int timeout_ms);
int line_write(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The runner's handle on a server. */
struct netsrv {
	pid_t pid;           /* local child, or -1 with a peer */
	int ctl;
	struct linebuf lb;
	struct sockaddr_storage addr;
	socklen_t alen;
	char done[256];      /* the DONE line, after netsrv_stop */
	struct bench_env *env;
	const struct bench_net *net; /* env->net */
};
/* A handle that owns nothing (safe to netsrv_stop). */
void netsrv_clear(struct netsrv *s);
/* Start a server for this bench (local child or at the peer). 0,
 * BENCH_SKIP with env->skip set (mechanism unavailable), or bench_fail. */
int netsrv_start(struct netsrv *s, struct bench_env *env, int mode, int mech);
/* A FAIL line waiting on ctl (within timeout_ms): bench_fail with its
 * errno and call; 0 if none. */
int netsrv_check(struct netsrv *s, int timeout_ms);
/* Send a command and wait for the reply line starting with want. */
int netsrv_ask(struct netsrv *s, const char *cmd, const char *want, char *reply, size_t len);
/* run --peer: can this client start a session at the peer now (connect,
 * challenge-response, close; in a child process)? 0, or -1 with a
 * message in err. */
int netsrv_peer_probe(const struct bench_net *net, char *err, size_t errlen);
/* Stop it: STOP, the DONE line into s->done, reap the child. */
void netsrv_stop(struct netsrv *s);
/* A new socket of type connected to the server (TCP: after its accept
 * acknowledgment). 0 or bench_fail. */
int netsrv_connect(struct netsrv *s, int type, int *fd);
/* Figure "key=value" of a line, as a double; NAN if absent. */
double line_field(const char *line, const char *key);

/* Helper processes holding established connections to addr. */
#define LOAD_MAX_HELPERS 64
struct netload {
	struct bench_env *env;
	struct netsrv *srv;  /* its FAIL lines explain a stall; NULL if none */
	const struct sockaddr_storage *addr;
	socklen_t alen;
	int want_ack;        /* wait for the server's byte after connect */
	int in_srv_ns;       /* --netns: helpers run in the server's namespace */
	pid_t pid[LOAD_MAX_HELPERS];
	int fd[LOAD_MAX_HELPERS];
	uint64_t cnt[LOAD_MAX_HELPERS];
	int n;
	uint64_t per;        /* connections per helper */
	uint64_t total;
};
int netload_add(struct netload *l);       /* one more connection, or bench_fail */
int netload_drop_last(struct netload *l); /* close the newest one */
void netload_free(struct netload *l);

/* fcntl O_NONBLOCK on or off. */
int net_nonblock(int fd, int on);
/* TCP connect to a (and wait for the server's byte if want_ack): 0 or -errno. */
int net_connect_to(const struct sockaddr_storage *a, socklen_t alen, int want_ack, int *out);

#endif
