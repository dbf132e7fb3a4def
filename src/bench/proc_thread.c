/* SPDX-License-Identifier: MIT */
/* proc.thread: create a thread that returns at once and join it, with N
 * threads alive (von Leitner's 2003 pthread creation). The N threads
 * sleep in read() on a pipe that is written only at teardown; they are
 * made with small stacks (HELD_STACK) so that a large N costs little
 * memory. The op's thread gets the default attributes, as a program's
 * pthread_create(&t, NULL, ...) would (glibc then reuses its cached
 * stack from one op to the next). The held threads die with the
 * process whatever happens; the pipe is registered. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/bench.h"
#include "core/registry.h"

#define HELD_STACK (64 * 1024) /* bytes of stack per held thread */

struct st {
	struct bench_env *env;
	pthread_t *th;
	uint64_t n, cap;
	int wake[2]; /* the held threads read [0]; teardown closes [1] */
	pthread_attr_t attr;
	int attr_ok;
};

static void *held(void *arg)
{
	int fd = *(int *)arg;
	char c;
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void *nothing(void *arg)
{
	return arg;
}

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->env = env;
	s->wake[0] = s->wake[1] = -1;
	*state = s;
	if (pipe(s->wake))
		return bench_fail(env, "pipe");
	for (int i = 0; i < 2; i++) {
		fcntl(s->wake[i], F_SETFD, FD_CLOEXEC);
		if (reg_add_fd(s->wake[i])) { /* it closed the descriptor */
			s->wake[i] = -1;
			errno = ENOMEM;
			return bench_fail(env, "registry");
		}
	}
	int e = pthread_attr_init(&s->attr);
	if (!e) {
		s->attr_ok = 1;
		size_t sz = (size_t)HELD_STACK < (size_t)PTHREAD_STACK_MIN ? (size_t)PTHREAD_STACK_MIN : (size_t)HELD_STACK;
		e = pthread_attr_setstacksize(&s->attr, sz);
	}
	if (e) {
		errno = e;
		return bench_fail(env, "pthread_attr");
	}
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	(void)i;
	if (s->n == s->cap) {
		uint64_t nc = s->cap ? s->cap * 2 : 256;
		pthread_t *p = realloc(s->th, nc * sizeof(*p));
		if (!p)
			return bench_fail(s->env, "realloc");
		s->th = p;
		s->cap = nc;
	}
	int e = pthread_create(&s->th[s->n], &s->attr, held, &s->wake[0]);
	if (e) {
		errno = e;
		return bench_fail(s->env, "pthread_create (held)");
	}
	s->n++;
	return 0;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	pthread_t t;
	void *ret;
	int e = pthread_create(&t, NULL, nothing, NULL);
	if (e) {
		errno = e;
		return bench_fail(s->env, "pthread_create");
	}
	if ((e = pthread_join(t, &ret))) {
		errno = e;
		return bench_fail(s->env, "pthread_join");
	}
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	if (s->wake[1] >= 0) { /* every held read() returns 0 */
		reg_close_fd(s->wake[1]);
		s->wake[1] = -1;
	}
	for (uint64_t i = 0; i < s->n; i++)
		pthread_join(s->th[i], NULL);
	if (s->wake[0] >= 0)
		reg_close_fd(s->wake[0]);
	if (s->attr_ok)
		pthread_attr_destroy(&s->attr);
	free(s->th);
	free(s);
}

const struct bench bench_proc_thread = {
	.params = bench_no_params,
	.name = "proc.thread", .version = 1, .axis = "live (sleeping) threads", .axis_kind = AXIS_LOAD,
	.summary = "create a thread that returns at once, and join it, with N sleeping threads alive",
	.op_desc = "pthread_create (default attributes) + pthread_join",
	.quick_max_n = 100, .default_max_n = 1000, .full_max_n = 10000,
	.max_batch = 1, .setup = setup, .grow = grow, .op = op, .teardown = teardown,
};
