/* SPDX-License-Identifier: MIT */
/* proc.fork: fork + child _exit + waitpid, with N sleeping processes alive. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench.h"
#include "registry.h"
#include "sys.h"

struct st {
	struct bench_env *env;
	pid_t *kids;
	uint64_t n, cap;
};

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->env = env;
	*state = s;
	/* fork's cost grows with the process it copies: say how big it is */
	long maps, anon;
	if (sys_footprint(&maps, &anon) == 0)
		snprintf(env->note, sizeof(env->note),
			 "the forking process: %ld mappings, %ld KiB anonymous resident", maps, anon);
	return 0;
}

/* A sleeper: dies with its parent (prctl on Linux; elsewhere it notices
 * that it was re-parented within a second). */
static void sleeper(pid_t parent)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (sys_child_dies_with_parent() && getppid() == parent)
		for (;;)
			pause();
	while (getppid() == parent)
		sleep(1);
	_exit(0);
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	(void)i;
	if (s->n == s->cap) {
		uint64_t nc = s->cap ? s->cap * 2 : 256;
		pid_t *p = realloc(s->kids, nc * sizeof(*p));
		if (!p)
			return bench_fail(s->env, "realloc");
		s->kids = p;
		s->cap = nc;
	}
	pid_t parent = getpid(), pid = fork();
	if (pid < 0)
		return bench_fail(s->env, "fork (sleeper)");
	if (pid == 0)
		sleeper(parent);
	if (reg_add_pid(pid)) { /* it killed and reaped the sleeper */
		errno = ENOMEM;
		return bench_fail(s->env, "registry");
	}
	s->kids[s->n++] = pid;
	return 0;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	pid_t pid = fork();
	if (pid < 0)
		return bench_fail(s->env, "fork");
	if (pid == 0)
		_exit(0);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return bench_fail(s->env, "waitpid");
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	for (uint64_t i = 0; i < s->n; i++)
		kill(s->kids[i], SIGKILL);
	for (uint64_t i = s->n; i-- > 0;) { /* newest first: the registry finds it at once */
		while (waitpid(s->kids[i], NULL, 0) < 0 && errno == EINTR)
			;
		reg_forget_pid(s->kids[i]);
	}
	free(s->kids);
	free(s);
}

const struct bench bench_proc_fork = {
	.params = bench_no_params,
	.name = "proc.fork", .version = 1, .axis = "live (sleeping) processes", .axis_kind = AXIS_LOAD,
	.placement = "same",
	.summary = "fork a child that exits at once, and reap it, with N sleeping processes alive",
	.op_desc = "fork + child _exit(0) + waitpid",
	.quick_max_n = 100, .default_max_n = 1000, .full_max_n = 10000,
	.tasks = BENCH_TASKS_OWN,
	.max_batch = 1, .setup = setup, .grow = grow, .op = op, .teardown = teardown,
};
