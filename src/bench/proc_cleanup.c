/* SPDX-License-Identifier: MIT */
/* proc.cleanup: kill one process and wait for it, with N sleeping
 * processes alive (von Leitner's 2003 "fork cleanup", the one graph of his
 * set where Linux 2.6 was not O(1)). The victim is forked untimed before
 * each op and has said that it runs (one byte on a pipe) before it is
 * killed, so that the op is always the same: SIGKILL to a process asleep
 * in pause(), and waitpid on that pid until it is reaped. The N sleepers
 * are children of the same process, as the victim is: a wait that looked
 * at every child would grow with N. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/bench.h"
#include "bench/prochold.h"
#include "core/registry.h"

struct st {
	struct bench_env *env;
	struct prochold held;
	pid_t victim;
	int ready[2]; /* the victims' "I run" pipe */
};

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->env = env;
	s->held.env = env;
	s->ready[0] = s->ready[1] = -1;
	*state = s;
	if (pipe(s->ready))
		return bench_fail(env, "pipe");
	for (int i = 0; i < 2; i++)
		fcntl(s->ready[i], F_SETFD, FD_CLOEXEC);
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	(void)i;
	return prochold_add(&s->held);
}

/* The victim: forked, running, asleep. Not registered (prep runs
 * concurrently in run --tasks' threads): it dies with this process. */
static int prep(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	pid_t parent = getpid(), pid = fork();
	if (pid < 0)
		return bench_fail(s->env, "fork (victim)");
	if (pid == 0)
		prochold_sleep(parent, s->ready[1]);
	s->victim = pid;
	char c;
	ssize_t n;
	while ((n = read(s->ready[0], &c, 1)) < 0 && errno == EINTR)
		;
	if (n != 1) {
		if (n == 0)
			errno = EPIPE;
		return bench_fail(s->env, "read (victim ready)");
	}
	return 0;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	if (kill(s->victim, SIGKILL))
		return bench_fail(s->env, "kill");
	int status;
	while (waitpid(s->victim, &status, 0) < 0)
		if (errno != EINTR)
			return bench_fail(s->env, "waitpid");
	s->victim = 0;
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	if (s->victim > 0) { /* a failure between prep and op */
		kill(s->victim, SIGKILL);
		while (waitpid(s->victim, NULL, 0) < 0 && errno == EINTR)
			;
	}
	prochold_release(&s->held);
	for (int i = 0; i < 2; i++)
		if (s->ready[i] >= 0)
			close(s->ready[i]);
	free(s);
}

const struct bench bench_proc_cleanup = {
	.params = bench_no_params,
	.name = "proc.cleanup", .version = 1, .axis = "live (sleeping) processes", .axis_kind = AXIS_LOAD,
	.placement = "same",
	.summary = "kill a sleeping child and wait for it, with N other sleeping processes alive",
	.op_desc = "kill(SIGKILL) + waitpid of a child asleep in pause(); the child is forked untimed before",
	.quick_max_n = 100, .default_max_n = 1000, .full_max_n = 10000,
	.tasks = BENCH_TASKS_OWN,
	.max_batch = 1, .setup = setup, .grow = grow, .prep = prep, .op = op, .teardown = teardown,
};
