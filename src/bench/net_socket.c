/* SPDX-License-Identifier: MIT */
/* net.socket: socket + close with N sockets already open, and one hole
 * kept in the middle of the held descriptors (version 2). Without it the
 * held descriptors are contiguous and the kernel's "lowest free
 * descriptor" search starts at its next-free hint at the top of the
 * table; with the hole, each new socket takes the hole's number, as in a
 * long-running server whose connections come and go. The hole moves to
 * the middle of the held range at each point (set_n). -4/-6 choose the
 * family. */
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "bench/fdhold.h"
#include "bench/netsrv.h"
#include "core/registry.h"

struct st {
	struct fdhold held;
	uint64_t hole; /* index in held.fd of the closed slot, or UINT64_MAX */
};

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->held.env = env;
	s->hole = UINT64_MAX;
	fdhold_raise_limit(env, env->max_n + 1);
	*state = s;
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	(void)i;
	int fd = socket(s->held.env->net->family, SOCK_STREAM, 0);
	if (fd < 0)
		return bench_fail(s->held.env, "socket (held)");
	return fdhold_add(&s->held, fd);
}

/* Fill the old hole, open a new one in the middle of the held range. */
static int set_n(void *state, uint64_t n)
{
	struct st *s = state;
	(void)n;
	if (s->hole != UINT64_MAX) {
		int fd = socket(s->held.env->net->family, SOCK_STREAM, 0);
		if (fd < 0)
			return bench_fail(s->held.env, "socket (hole)");
		if (reg_add_fd(fd)) { /* it closed fd */
			errno = ENOMEM;
			return bench_fail(s->held.env, "registry");
		}
		s->held.fd[s->hole] = fd;
		s->hole = UINT64_MAX;
	}
	if (s->held.n < 2)
		return 0;
	s->hole = s->held.n / 2;
	reg_close_fd(s->held.fd[s->hole]);
	/* the slot stays in the array; a placeholder that is never closed */
	s->held.fd[s->hole] = -1;
	return 0;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	int fd = socket(s->held.env->net->family, SOCK_STREAM, 0);
	if (fd < 0)
		return bench_fail(s->held.env, "socket");
	if (close(fd))
		return bench_fail(s->held.env, "close");
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	if (s->hole != UINT64_MAX) { /* drop the placeholder before releasing */
		s->held.fd[s->hole] = s->held.fd[--s->held.n];
	}
	fdhold_release(&s->held);
	free(s);
}

const struct bench bench_net_socket = {
	.params = bench_no_params,
	.name = "net.socket", .version = 2, .axis = "descriptors already open (one hole among them)", .axis_kind = AXIS_LOAD,
	.flags = BENCH_ONE_THREAD,
	.summary = "create and close a TCP socket with N sockets already open and a hole in the table",
	.op_desc = "socket(AF_INET or AF_INET6, SOCK_STREAM) + close; it takes the hole's number",
	.quick_max_n = 10000, .default_max_n = 10000, .full_max_n = 100000,
	.tasks = BENCH_TASKS_OWN,
	.max_batch = 1, .setup = setup, .grow = grow, .set_n = set_n, .op = op, .teardown = teardown,
};
