/* net.socket: socket + close with N descriptors already open. */
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "fdhold.h"

struct st { struct fdhold held; };

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->held.env = env;
	fdhold_raise_limit(env, env->max_n);
	*state = s;
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	(void)i;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return bench_fail(s->held.env, "socket (held)");
	return fdhold_add(&s->held, fd);
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return bench_fail(s->held.env, "socket");
	if (close(fd))
		return bench_fail(s->held.env, "close");
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	fdhold_release(&s->held);
	free(s);
}

const struct bench bench_net_socket = {
	.name = "net.socket", .version = 1, .axis = "descriptors already open",
	.summary = "create and close a TCP socket with N sockets already open",
	.op_desc = "socket(AF_INET, SOCK_STREAM) + close",
	.quick_max_n = 10000, .default_max_n = 10000, .full_max_n = 100000,
	.max_batch = 1, .setup = setup, .grow = grow, .op = op, .teardown = teardown,
};
