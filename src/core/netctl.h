/* SPDX-License-Identifier: MIT */
/* The control protocol of the net servers (docs/protocol.md), shared by
 * the net.* benches (bench/netsrv.c, the client handle; bench/netload.c)
 * and `scalebench serve` (cmd/serve.c); the server loop itself is
 * srvloop.h. Nothing here knows a bench: lines on a control channel, the
 * server's specification in text, the READY/ERR reply to a start, the
 * client's side of the challenge-response, binding and the plain TCP
 * connect (with the server's accept byte), and every timeout of the
 * protocol, named.
 *
 * The server speaks on a control channel in lines: it says "READY port=P"
 * (or "ERR ..."), reports "FAIL <call> <errno> <count>" when it cannot
 * take more connections, answers "COUNT" with "COUNT packets=P bytes=B"
 * and "STOP" with "DONE ..." before it exits. Locally that channel is a
 * socketpair to a forked child; with --peer it is the control connection
 * to `serve`, which relays its own child's lines. */
#ifndef SB_NETCTL_H
#define SB_NETCTL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* The addresses of the --netns pair. */
#define NETNS_SRV4 "10.77.0.1"
#define NETNS_CLI4 "10.77.0.2"
#define NETNS_SRV6 "fd77::1"
#define NETNS_CLI6 "fd77::2"

/* The control protocol of serve: its version and the longest line,
 * newline included. */
#define CTL_VERSION 2
#define CTL_LINE 512

/* The protocol's timeouts, in milliseconds. */
#define CTL_WRITE_TIMEOUT_MS 2000   /* a control line that cannot be sent */
#define CTL_HELLO_TIMEOUT_MS 5000   /* each answer of the challenge-response */
#define CTL_START_TIMEOUT_MS 10000  /* READY (or ERR) after a start */
#define CTL_REPLY_TIMEOUT_MS 10000  /* the reply to a command (COUNT) */
#define CTL_STOP_TIMEOUT_MS 5000    /* each line after STOP, until DONE */
#define CTL_CLOSE_TIMEOUT_MS 1000   /* serve closing after DONE */
#define CTL_WHY_TIMEOUT_MS 100      /* a FAIL line explaining a failed connect */
#define CONNECT_ACK_TIMEOUT_MS 10000 /* the server's accept byte after connect */

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
/* What a text form that leaves them out gets. */
#define SRV_DEFAULT_CONN 1000
#define SRV_DEFAULT_S 600.0

int srv_spec_format(const struct srv_spec *s, char *buf, size_t len);
int srv_spec_parse(const char *text, struct srv_spec *s, char *err, size_t errlen);

/* Bind (and listen) on addr:port of the family (port 0: any); the port in
 * *port. The socket, or -errno with a message in err. */
#define SRV_BACKLOG 4096
int srv_bind(int family, int type, const char *addr, int *port, char *err, size_t errlen);

/* A line-buffered reader of a control channel. */
struct linebuf { char b[1024]; size_t n; };
/* One line (without "\n") into line: 1, 0 on timeout, -errno, -EPIPE at
 * end of file, -EMSGSIZE for a line longer than max. */
int line_read(int fd, struct linebuf *lb, char *line, size_t max, int timeout_ms);
int line_write(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Figure "key=value" of a line, as a double; NAN if absent. */
double line_field(const char *line, const char *key);

/* The reply to a start (a local server's first line, serve's answer to
 * START): CTL_READY with the port in *port; CTL_UNAVAILABLE when the
 * server lacks the mechanism ("ERR unavailable WHY": WHY in *why);
 * CTL_REFUSED for anything else. */
enum ctl_reply { CTL_READY = 0, CTL_UNAVAILABLE, CTL_REFUSED };
enum ctl_reply ctl_ready_reply(const char *line, int *port, const char **why);

/* The client's challenge-response of protocol 2 on a connected control
 * socket, with key: 0, or an errno with what the peer said in msg: EBUSY
 * (another client's session runs, or too many pending connections),
 * EACCES (key refused, or the peer could not prove it knows the key),
 * EPROTONOSUPPORT (another protocol version), ENOSYS (no libcrypto here),
 * ETIMEDOUT, EPROTO or the socket's error. */
int ctl_hello(int fd, struct linebuf *lb, const char *key, char *msg, size_t len);
/* The failed call that ctl_hello's errno names ("control: ..."). */
const char *ctl_hello_call(int e);

/* fcntl O_NONBLOCK on or off. */
int net_nonblock(int fd, int on);
/* TCP connect to a (and wait for the server's byte if want_ack): 0 or -errno. */
int net_connect_to(const struct sockaddr_storage *a, socklen_t alen, int want_ack, int *out);

#endif
