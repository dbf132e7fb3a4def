/* SPDX-License-Identifier: MIT */
/* Event backends (src/sys/ev.h): every mechanism this build has reports
 * exactly the readable descriptors, forgets deleted ones, times out; the
 * others say why they are missing; control lines and the server
 * specification parse and refuse what they must. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>
#include "core/netctl.h"
#include "sys/ev.h"
#include "t.h"

#define NP 40

static int has(const int *fds, int n, int fd)
{
	for (int i = 0; i < n; i++)
		if (fds[i] == fd)
			return 1;
	return 0;
}

static void one_mech(int mech)
{
	const char *nm = ev_mech_name(mech);
	struct ev *e;
	char why[200] = "";
	int rc = ev_open(mech, &e, why, sizeof(why));
	if (rc) {
		CHECK(rc == -ENOSYS && why[0], "%s: unavailable needs -ENOSYS and a reason (%d, '%s')", nm, rc, why);
		return;
	}
	int sp[NP][2];
	for (int i = 0; i < NP; i++) {
		CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sp[i]) == 0, "socketpair");
		CHECK(ev_add(e, sp[i][0]) == 0, "%s: add", nm);
	}
	int ready[NP];
	CHECK(ev_wait(e, ready, NP, 10) == 0, "%s: nothing ready: timeout", nm);
	CHECK(write(sp[3][1], "x", 1) == 1 && write(sp[17][1], "y", 1) == 1, "write");
	int n = ev_wait(e, ready, NP, 1000);
	if (n == 1) { /* io_uring may hand the second completion a moment later */
		int m = ev_wait(e, ready + 1, NP - 1, 1000);
		n += m > 0 ? m : 0;
	}
	CHECK(n == 2 && has(ready, n, sp[3][0]) && has(ready, n, sp[17][0]), "%s: two ready (%d)", nm, n);
	char c;
	CHECK(read(sp[3][0], &c, 1) == 1 && read(sp[17][0], &c, 1) == 1, "read");
	CHECK(ev_del(e, sp[17][0]) == 0, "%s: del", nm);
	CHECK(write(sp[17][1], "z", 1) == 1 && write(sp[5][1], "w", 1) == 1, "write");
	n = ev_wait(e, ready, NP, 1000);
	int extra = 0;
	for (int i = 0; i < n; i++)
		extra |= ready[i] == sp[17][0];
	CHECK(n >= 1 && has(ready, n, sp[5][0]) && !extra, "%s: deleted one not reported (%d)", nm, n);
	ev_close(e);
	for (int i = 0; i < NP; i++) {
		close(sp[i][0]);
		close(sp[i][1]);
	}
}

int main(void)
{
	for (int m = 0; m < EV_NMECH; m++)
		one_mech(m);
	CHECK(ev_mech_parse("epoll") == EV_EPOLL && ev_mech_parse("kqueue") == EV_KQUEUE &&
	      ev_mech_parse("nope") == -1, "names");
	CHECK(ev_fd_limit(EV_SELECT) == FD_SETSIZE && ev_fd_limit(EV_POLL) > FD_SETSIZE, "select's limit");
	struct ev *e;
	char why[200];
	if (ev_open(EV_SELECT, &e, why, sizeof(why)) == 0) {
		CHECK(ev_add(e, FD_SETSIZE) == -EMFILE, "select refuses a descriptor >= FD_SETSIZE");
		ev_close(e);
	}

	/* control lines */
	int sp[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0, "socketpair");
	struct linebuf lb = {.n = 0};
	char line[64];
	CHECK(line_write(sp[1], "READY port=%d", 4242) == 0, "line_write");
	CHECK(line_read(sp[0], &lb, line, sizeof(line), 1000) == 1 && !strcmp(line, "READY port=4242"), "line");
	CHECK(line_field(line, "port") == 4242, "field");
	CHECK(line_read(sp[0], &lb, line, sizeof(line), 10) == 0, "timeout");
	char big[200];
	memset(big, 'x', sizeof(big));
	CHECK(write(sp[1], big, sizeof(big)) == (ssize_t)sizeof(big), "write");
	CHECK(line_read(sp[0], &lb, line, sizeof(line), 100) == -EMSGSIZE, "oversized line refused");
	close(sp[1]);
	close(sp[0]);

	/* the reply to a start: READY with a port, ERR unavailable, anything else refused */
	int port = 0;
	const char *said = NULL;
	CHECK(ctl_ready_reply("READY port=4242", &port, &said) == CTL_READY && port == 4242, "READY");
	CHECK(ctl_ready_reply("ERR unavailable io_uring: ENOSYS", &port, &said) == CTL_UNAVAILABLE &&
	      !strcmp(said, "io_uring: ENOSYS"), "ERR unavailable: %s", said ? said : "");
	CHECK(ctl_ready_reply("ERR bind/listen: EADDRINUSE", &port, &said) == CTL_REFUSED &&
	      !strcmp(said, "ERR bind/listen: EADDRINUSE"), "ERR: refused with the line");
	CHECK(ctl_ready_reply("READY", &port, &said) == CTL_REFUSED, "READY without a port");
	CHECK(ctl_ready_reply("READY port=0", &port, &said) == CTL_REFUSED, "READY port=0");
	CHECK(ctl_ready_reply("READY port=70000", &port, &said) == CTL_REFUSED, "READY port out of range");
	CHECK(ctl_ready_reply("PONG port=80", &port, &said) == CTL_REFUSED, "not READY");

	/* server specification: bounded, refused when malformed */
	struct srv_spec s;
	char err[200];
	CHECK(srv_spec_parse("mode=sink mech=poll family=6 maxconn=1e9 seconds=99999", &s, err, sizeof(err)) == 0 &&
	      s.mode == SRV_SINK && s.family == AF_INET6 && s.max_conn == SRV_MAX_CONN && s.max_s == SRV_MAX_S,
	      "bounds applied: %s", err);
	CHECK(srv_spec_parse("mode=shell", &s, err, sizeof(err)) == -EINVAL, "unknown mode");
	CHECK(srv_spec_parse("mode=echo garbage", &s, err, sizeof(err)) == -EINVAL, "no '='");
	CHECK(srv_spec_parse("mode=echo rm=-rf", &s, err, sizeof(err)) == -EINVAL, "unknown key");
	CHECK(srv_spec_parse("mode=echo maxconn=-1", &s, err, sizeof(err)) == -EINVAL, "negative");
	char txt[256];
	struct srv_spec t = {.mode = SRV_ECHO, .mech = EV_EPOLL, .family = AF_INET, .max_conn = 10,
			     .max_bytes = 100, .max_s = 5};
	CHECK(srv_spec_format(&t, txt, sizeof(txt)) == 0 && srv_spec_parse(txt, &s, err, sizeof(err)) == 0 &&
	      s.mech == EV_EPOLL && s.max_conn == 10 && s.max_bytes == 100, "round trip '%s'", txt);
	return t_done("test_ev");
}
