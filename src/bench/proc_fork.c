/* SPDX-License-Identifier: MIT */
/* proc.fork: fork + child _exit + waitpid, with N sleeping processes alive.
 *
 * image=dynamic (the default): the forking process is the bench's own,
 * scalebench: a dynamically linked program (libc and the dynamic linker
 * mapped; jansson and the io engines linked in statically where they
 * link that way, tools/probe.sh). image=static: the forking process is
 * scalebench-forker (src/forker/forker.c), a program of a few hundred
 * lines on libc alone, linked with -static and installed beside
 * scalebench: no dynamic linker and no shared library in it, a handful
 * of mappings where scalebench has some forty, and a small resident
 * set. That is what "the program forked is statically linked" means in
 * von Leitner's 2003 set: fork copies the forking process's mappings
 * and page tables, so the static image forks faster. The N sleepers are
 * the forker's own children then (as they are the bench's with
 * image=dynamic), and it runs the timed loop itself (op_far), the same
 * loop between the same clock reads as the core's around op(). The note
 * gives both processes' mapping counts. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/bench.h"
#include "bench/prochold.h"
#include "core/registry.h"
#include "sys/sys.h"

#define FORKER "scalebench-forker"

struct st {
	struct bench_env *env;
	struct prochold held;
	int stat;          /* image=static */
	pid_t forker;      /* its pid, 0 if none */
	int req, rep;      /* pipes to and from it */
};

/* The forker beside scalebench (the build tree), or in
 * ../libexec/scalebench/ (make install); 0 and the path, or -1. */
static int find_forker(char *out, size_t len)
{
	char self[PATH_MAX];
	if (sys_self_exe(NULL, self, sizeof(self)))
		return -1;
	char *slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = 0;
	static const char *const where[] = {"%s/" FORKER, "%s/../libexec/scalebench/" FORKER};
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		int n = snprintf(out, len, where[i], self);
		if (n > 0 && (size_t)n < len && access(out, X_OK) == 0)
			return 0;
	}
	return -1;
}

static int full_io(int fd, void *buf, size_t len, int wr)
{
	char *p = buf;
	while (len) {
		ssize_t n = wr ? write(fd, p, len) : read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EPIPE;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One command to the forker (forker.c's protocol); -1 with errno when the
 * pipe broke, else 0 and its answer in *v. */
static int ask(struct st *s, char op, uint64_t arg, int64_t *v)
{
	unsigned char cmd[16] = {(unsigned char)op};
	memcpy(cmd + 8, &arg, sizeof(arg));
	return full_io(s->req, cmd, sizeof(cmd), 1) || full_io(s->rep, v, sizeof(*v), 0) ? -1 : 0;
}

static void forker_stop(struct st *s)
{
	if (s->req >= 0)
		close(s->req); /* end of input: it kills its sleepers and exits */
	if (s->rep >= 0)
		close(s->rep);
	s->req = s->rep = -1;
	if (s->forker > 0) {
		bench_peer_remove(s->env, s->forker);
		int st;
		while (waitpid(s->forker, &st, 0) < 0 && errno == EINTR)
			;
		reg_forget_pid(s->forker);
		s->forker = 0;
	}
}

static int forker_start(struct st *s)
{
	struct bench_env *env = s->env;
	char path[PATH_MAX];
	if (find_forker(path, sizeof(path))) {
		snprintf(env->skip, sizeof(env->skip),
			 "image=static: no " FORKER " beside scalebench nor in ../libexec/scalebench (make builds it)");
		return BENCH_SKIP;
	}
	int req[2], rep[2];
	if (pipe(req))
		return bench_fail(env, "pipe");
	if (pipe(rep)) {
		int e = errno;
		close(req[0]);
		close(req[1]);
		errno = e;
		return bench_fail(env, "pipe");
	}
	for (int i = 0; i < 2; i++) { /* the forker gets them as 0 and 1 only */
		fcntl(req[i], F_SETFD, FD_CLOEXEC);
		fcntl(rep[i], F_SETFD, FD_CLOEXEC);
	}
	pid_t me = getpid(), pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (!sys_child_dies_with_parent() || getppid() != me)
			_exit(127);
		if (dup2(req[0], 0) < 0 || dup2(rep[1], 1) < 0)
			_exit(127);
		execl(path, FORKER, (char *)NULL);
		_exit(127);
	}
	int e = errno;
	close(req[0]);
	close(rep[1]);
	s->req = req[1];
	s->rep = rep[0];
	if (pid < 0) {
		forker_stop(s);
		errno = e;
		return bench_fail(env, "fork (" FORKER ")");
	}
	if (reg_add_pid(pid)) { /* it killed and reaped the forker */
		forker_stop(s);
		errno = ENOMEM;
		return bench_fail(env, "registry");
	}
	s->forker = pid;
	bench_peer_add(env, "forker", pid);
	int64_t maps;
	if (ask(s, 'M', 0, &maps))
		return bench_fail(env, "start of " FORKER " (exec)");
	long own = -1, anon;
	if (sys_footprint(&own, &anon))
		own = -1;
	snprintf(env->note, sizeof(env->note),
		 "the forking process: " FORKER " (static), %lld mappings; scalebench's has %ld",
		 (long long)maps, own);
	return 0;
}

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->env = env;
	s->held.env = env;
	s->req = s->rep = -1;
	*state = s;
	s->stat = !strcmp(bench_param(env, "image"), "static");
	if (s->stat)
		return forker_start(s);
	/* fork's cost grows with the process it copies: say how big it is */
	long maps, anon;
	if (sys_footprint(&maps, &anon) == 0)
		snprintf(env->note, sizeof(env->note),
			 "the forking process: %ld mappings, %ld KiB anonymous resident", maps, anon);
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	(void)i;
	if (!s->stat)
		return prochold_add(&s->held);
	int64_t v;
	if (ask(s, 'S', 0, &v))
		return bench_fail(s->env, FORKER " (sleeper)");
	if (v < 0) {
		errno = (int)-v;
		return bench_fail(s->env, "fork (sleeper, in " FORKER ")");
	}
	return 0;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	if (s->stat) { /* only run --tasks calls op() on it: the loop is the forker's */
		errno = ENOTSUP;
		return bench_fail(s->env, "image=static: not under --tasks");
	}
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

static int op_far(void *state, unsigned k, uint64_t *ns)
{
	struct st *s = state;
	if (!s->stat) { /* the core's own loop around op(), here */
		uint64_t t0 = meter_now();
		for (unsigned i = 0; i < k; i++) {
			int rc = op(state, i);
			if (rc)
				return rc;
		}
		*ns = meter_now() - t0;
		return 0;
	}
	int64_t v;
	if (ask(s, 'R', k, &v))
		return bench_fail(s->env, FORKER " (fork loop)");
	if (v < 0) {
		errno = (int)-v;
		return bench_fail(s->env, "fork (in " FORKER ")");
	}
	*ns = (uint64_t)v;
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	forker_stop(s);
	prochold_release(&s->held);
	free(s);
}

static const struct bench_param_spec params[] = {
	BP_ENUM("image", "dynamic", "dynamic|static", "the forking process: scalebench (dynamically linked) or scalebench-forker (statically linked, a few mappings)"),
	{0},
};

const struct bench bench_proc_fork = {
	.params = params,
	.name = "proc.fork", .version = 1, .axis = "live (sleeping) processes", .axis_kind = AXIS_LOAD,
	.placement = "same",
	.summary = "fork a child that exits at once, and reap it, with N sleeping processes alive",
	.op_desc = "fork + child _exit(0) + waitpid (by scalebench-forker, static, with image=static)",
	.quick_max_n = 100, .default_max_n = 1000, .full_max_n = 10000,
	.tasks = BENCH_TASKS_OWN,
	.max_batch = 1, .setup = setup, .grow = grow, .op = op, .op_far = op_far, .teardown = teardown,
};
