/* SPDX-License-Identifier: MIT */
/* net.bind: bind a new socket to a kernel-chosen loopback port with N
 * ports already bound. The socket is made untimed before, closed after. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "fdhold.h"

struct st {
	struct fdhold held;
	int probe;
};

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->held.env = env;
	s->probe = -1;
	fdhold_raise_limit(env, env->max_n);
	*state = s;
	return 0;
}

static int bind_loopback(int fd)
{
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = 0; /* the kernel picks a free port */
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return bind(fd, (struct sockaddr *)&a, sizeof(a));
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	(void)i;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return bench_fail(s->held.env, "socket (held)");
	if (bind_loopback(fd)) {
		int rc = bench_fail(s->held.env, "bind 127.0.0.1:0 (held)");
		close(fd);
		return rc;
	}
	return fdhold_add(&s->held, fd);
}

static int prep(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	s->probe = socket(AF_INET, SOCK_STREAM, 0);
	return s->probe < 0 ? bench_fail(s->held.env, "socket") : 0;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	return bind_loopback(s->probe) ? bench_fail(s->held.env, "bind 127.0.0.1:0") : 0;
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

const struct bench bench_net_bind = {
	.params = bench_no_params,
	.name = "net.bind", .version = 1, .axis = "loopback ports already bound", .axis_kind = AXIS_LOAD,
	.summary = "bind a new TCP socket to a free loopback port with N ports already bound",
	.op_desc = "bind(127.0.0.1, port 0); socket made untimed before, closed after",
	.quick_max_n = 1000, .default_max_n = 10000, .full_max_n = 100000,
	.tasks = BENCH_TASKS_OWN,
	.max_batch = 1, .setup = setup, .grow = grow, .prep = prep, .op = op, .undo = undo,
	.teardown = teardown,
};
