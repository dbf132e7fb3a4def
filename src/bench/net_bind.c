/* SPDX-License-Identifier: MIT */
/* net.bind: bind a new socket to a kernel-chosen loopback port with N
 * ports already bound. The socket is made untimed before, closed after.
 * -p family=ipv6 binds to [::1] instead of 127.0.0.1 (von Leitner's 2003
 * set measured both); run -4/-6 do not change it: nothing here leaves the
 * machine. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "bench/fdhold.h"

struct st {
	struct fdhold held;
	int probe;
	int family; /* AF_INET or AF_INET6 */
};

static int bind_loopback(int family, int fd)
{
	if (family == AF_INET6) {
		struct sockaddr_in6 a;
		memset(&a, 0, sizeof(a));
		a.sin6_family = AF_INET6;
		a.sin6_port = 0; /* the kernel picks a free port */
		a.sin6_addr = in6addr_loopback;
		return bind(fd, (struct sockaddr *)&a, sizeof(a));
	}
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = 0;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return bind(fd, (struct sockaddr *)&a, sizeof(a));
}

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->held.env = env;
	s->probe = -1;
	s->family = strcmp(bench_param(env, "family"), "ipv6") ? AF_INET : AF_INET6;
	*state = s;
	/* a kernel without IPv6 (or with ::1 gone) is no failure of the bench */
	int fd = socket(s->family, SOCK_STREAM, 0);
	if (fd >= 0 && bind_loopback(s->family, fd) == 0) {
		close(fd);
		fdhold_raise_limit(env, env->max_n);
		return 0;
	}
	snprintf(env->skip, sizeof(env->skip), "cannot bind a %s socket to %s: %s",
		 s->family == AF_INET6 ? "IPv6" : "IPv4", s->family == AF_INET6 ? "[::1]" : "127.0.0.1",
		 strerror(errno));
	if (fd >= 0)
		close(fd);
	return BENCH_SKIP;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	(void)i;
	int fd = socket(s->family, SOCK_STREAM, 0);
	if (fd < 0)
		return bench_fail(s->held.env, "socket (held)");
	if (bind_loopback(s->family, fd)) {
		int rc = bench_fail(s->held.env, "bind loopback port 0 (held)");
		close(fd);
		return rc;
	}
	return fdhold_add(&s->held, fd);
}

static int prep(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	s->probe = socket(s->family, SOCK_STREAM, 0);
	return s->probe < 0 ? bench_fail(s->held.env, "socket") : 0;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	return bind_loopback(s->family, s->probe) ? bench_fail(s->held.env, "bind loopback port 0") : 0;
}

static int undo(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	int rc = close(s->probe) ? bench_fail(s->held.env, "close") : 0;
	s->probe = -1;
	return rc;
}

static void teardown(void *state)
{
	struct st *s = state;
	if (s->probe >= 0)
		close(s->probe);
	fdhold_release(&s->held);
	free(s);
}

static const struct bench_param_spec params[] = {
	BP_ENUM("family", "ipv4", "ipv4|ipv6", "address family: bind to 127.0.0.1 or to [::1] (run -4/-6 do not change it)"),
	{0},
};

const struct bench bench_net_bind = {
	.params = params,
	.name = "net.bind", .version = 1, .axis = "loopback ports already bound", .axis_kind = AXIS_LOAD,
	.flags = BENCH_ONE_THREAD,
	.summary = "bind a new TCP socket to a free loopback port with N ports already bound",
	.op_desc = "bind(127.0.0.1 or [::1] with -p family=ipv6, port 0); socket made untimed before, closed after",
	.quick_max_n = 1000, .default_max_n = 10000, .full_max_n = 100000,
	.tasks = BENCH_TASKS_OWN,
	.max_batch = 1, .setup = setup, .grow = grow, .prep = prep, .op = op, .undo = undo,
	.teardown = teardown,
};
