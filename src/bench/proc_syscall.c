/* SPDX-License-Identifier: MIT */
/* proc.syscall: getppid with N seccomp-BPF filters stacked, alone, under a
 * PTRACE_SYSCALL tracer (the strace and User-mode Linux path), or with a
 * filter that hands just getppid to a tracer (SECCOMP_RET_TRACE).
 *
 * A filter cannot be removed from a process, so the filters are stacked in
 * a child (the caller), never in the sweeping process: the child grows its
 * stack by one filter per grow() and runs the timed loop (op_far in
 * bench.h: k getppid calls between two meter_now() reads, the loop the
 * core runs around op()); the worker asks over a pipe, untimed, for FETCH
 * samples at a time, taken back to back after one untimed call, and hands
 * them to the core one by one. With a tracer, the caller is the tracer's child:
 *   worker -> caller                      tracer=none
 *   worker -> tracer -> caller (traced)   tracer=ptrace, tracer=seccomp-trace
 * The caller and the tracer die with their parent (PR_SET_PDEATHSIG,
 * PTRACE_O_EXITKILL) and ignore SIGINT/SIGTERM/SIGHUP: the worker stops
 * them (end of file on the request pipe) in teardown, also after Ctrl-C.
 *
 * Filters (classic BPF, no architecture check):
 *   filter=allow  ret ALLOW (the kernel sees a constant action and, since
 *                 Linux 5.11, skips the filter for the call: a bitmap)
 *   filter=args   load args[0] (its lower half, then the upper one if that
 *                 matched), compare, ret ALLOW: 3 instructions run per call
 *                 (as container runtimes' filters inspect arguments)
 *   tracer=seccomp-trace adds one filter first: getppid -> RET_TRACE, the
 *   rest ALLOW, so the tracer stops that call only. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/bench.h"
#include "core/registry.h"
#include "sys/sys.h"
#include "sys/sys.h"

#if defined(__linux__) && !defined(SB_POSIX_ONLY)
#define SYSCALL_BENCH 1
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#endif

#ifdef SYSCALL_BENCH

enum { T_NONE, T_PTRACE, T_SECCOMP };
enum { F_ALLOW, F_ARGS };
enum { CMD_GROW = 1, CMD_RUN = 2 };

struct msg {
	uint32_t cmd, k, count; /* CMD_RUN: count samples of k calls */
};

/* Samples asked for at once: the round trip to the caller is paid once per
 * FETCH samples, not per sample, so that the samples are taken back to
 * back as in a loop that never leaves its process (a sample right after
 * the round trip found the caches cold: +8% at batch 12). */
#define FETCH 64

struct st {
	struct bench_env *env;
	pid_t kid;    /* the worker's child: the caller, or the tracer */
	pid_t caller; /* the process with the filters */
	int req, rep; /* request (to the caller) and reply pipes, the worker's ends */
	int filter, tracer;
	uint64_t n;   /* filters of kind `filter` stacked */
	uint64_t buf[FETCH]; /* samples fetched, buf[pos..nbuf) not handed out yet */
	unsigned nbuf, pos, bufk;
};

static int full_read(int fd, void *buf, size_t len)
{
	char *p = buf;
	while (len) {
		ssize_t r = read(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EPIPE;
			return -1;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static int full_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t r = write(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* args[0], the lower and the upper 32 bits */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ARG0_LO (offsetof(struct seccomp_data, args[0]) + 4)
#define ARG0_HI offsetof(struct seccomp_data, args[0])
#else
#define ARG0_LO offsetof(struct seccomp_data, args[0])
#define ARG0_HI (offsetof(struct seccomp_data, args[0]) + 4)
#endif
#define ARG_PROBE 0x5ca1ab1eu /* compared against; both outcomes allow */

static int install(struct sock_filter *f, unsigned short len)
{
	struct sock_fprog prog = {.len = len, .filter = f};
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) ? -errno : 0;
}

static int add_filter(int kind)
{
	if (kind == F_ALLOW) {
		struct sock_filter f[] = {
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		return install(f, 1);
	}
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LO),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARG_PROBE, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_HI), /* low half matched: the upper one */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	return install(f, (unsigned short)(sizeof(f) / sizeof(f[0])));
}

static int add_trace_filter(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	return install(f, 4);
}

static void quiet_signals(void)
{
	signal(SIGINT, SIG_IGN); /* Ctrl-C reaches the whole process group: the worker stops us */
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
}

/* The caller: says it is ready (its pid, or -errno), then serves requests
 * until the request pipe closes. */
static void caller_main(int req, int rep, pid_t parent, int filter, int tracer)
{
	int64_t v = getpid();
	if (!sys_child_dies_with_parent() || getppid() != parent)
		_exit(1);
	if (tracer != T_NONE) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
			v = -errno;
			full_write(rep, &v, sizeof(v));
			_exit(1);
		}
		raise(SIGSTOP); /* the tracer sets its options, then lets us go on */
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		v = -errno;
	else if (tracer == T_SECCOMP) {
		int rc = add_trace_filter();
		if (rc)
			v = rc;
	}
	if (full_write(rep, &v, sizeof(v)) || v < 0)
		_exit(1);
	struct msg m;
	while (full_read(req, &m, sizeof(m)) == 0) {
		if (m.cmd == CMD_GROW) {
			v = add_filter(filter);
		} else if (m.cmd == CMD_RUN && m.count >= 1 && m.count <= FETCH) {
			int64_t out[FETCH + 1];
			out[0] = m.count;
			pid_t r = getppid(); /* after the round trip: untimed */
			for (uint32_t j = 1; j <= m.count && r > 0; j++) {
				/* the timed loop: what sweep.c's sample() runs around op() */
				uint64_t t0 = meter_now();
				for (uint32_t i = 0; i < m.k; i++)
					r = getppid();
				uint64_t t1 = meter_now();
				out[j] = (int64_t)(t1 - t0);
			}
			if (r <= 0)
				out[0] = -EPROTO;
			if (full_write(rep, out, (out[0] > 0 ? m.count + 1 : 1) * sizeof(out[0])))
				break;
			continue;
		} else {
			v = -EINVAL;
		}
		if (full_write(rep, &v, sizeof(v)))
			break;
	}
	_exit(0);
}

/* The tracer: the caller's parent; resumes it at every stop until it ends. */
static void tracer_main(int req, int rep, const struct bench_env *env, int filter, int tracer)
{
	pid_t me = getpid();
	bench_place(env, 1);
	pid_t c = fork();
	if (c < 0) {
		int64_t v = -errno;
		full_write(rep, &v, sizeof(v));
		_exit(1);
	}
	if (c == 0)
		caller_main(req, rep, me, filter, tracer);
	close(req);
	close(rep);
	int status;
	if (waitpid(c, &status, __WALL) != c || !WIFSTOPPED(status))
		_exit(1);
	long opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL | PTRACE_O_TRACESECCOMP;
	if (ptrace(PTRACE_SETOPTIONS, c, NULL, (void *)opts)) {
		kill(c, SIGKILL);
		_exit(1);
	}
	int how = tracer == T_PTRACE ? PTRACE_SYSCALL : PTRACE_CONT;
	int sig = 0;
	for (;;) {
		if (ptrace(how, c, NULL, (void *)(long)sig) && errno != ESRCH)
			break;
		if (waitpid(c, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			_exit(0);
		sig = WSTOPSIG(status);
		/* syscall stops (SIGTRAP|0x80), seccomp events and our own SIGSTOP
		 * carry no signal to deliver; other signals go on */
		if (sig == (SIGTRAP | 0x80) || sig == SIGTRAP || sig == SIGSTOP ||
		    (status >> 16) == PTRACE_EVENT_SECCOMP)
			sig = 0;
	}
	kill(c, SIGKILL);
	_exit(1);
}

static void stop_kids(struct st *s)
{
	if (s->req >= 0)
		close(s->req); /* the caller ends at end of file, and the tracer with it */
	s->req = -1;
	if (s->kid <= 0)
		return;
	bench_peer_remove(s->env, s->kid);
	if (s->caller > 0 && s->caller != s->kid)
		bench_peer_remove(s->env, s->caller);
	int done = 0;
	for (int i = 0; i < 1000 && !done; i++) { /* 1 s, then SIGKILL */
		pid_t r = waitpid(s->kid, NULL, WNOHANG);
		if (r == s->kid || (r < 0 && errno != EINTR))
			done = 1;
		else
			usleep(1000);
	}
	if (!done) {
		kill(s->kid, SIGKILL); /* the tracer's death kills the caller (EXITKILL) */
		while (waitpid(s->kid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	reg_forget_pid(s->kid);
	s->kid = 0;
}

static int ask(struct st *s, uint32_t cmd, uint32_t k, uint32_t count, int64_t *v)
{
	struct msg m = {cmd, k, count};
	if (full_write(s->req, &m, sizeof(m)) || full_read(s->rep, v, sizeof(*v)))
		return -1;
	return 0;
}

/* Seccomp filters in the kernel at all? A throw-away child tries one. */
static int probe_seccomp(void)
{
	pid_t p = fork();
	if (p < 0)
		return -errno;
	if (p == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			_exit(errno & 0xff);
		_exit(-add_filter(F_ALLOW) & 0xff);
	}
	int status;
	while (waitpid(p, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -EIO;
}

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->env = env;
	s->req = s->rep = -1;
	*state = s;
	const char *f = bench_param(env, "filter");
	const char *t = bench_param(env, "tracer");
	s->filter = !strcmp(f, "args") ? F_ARGS : F_ALLOW;
	s->tracer = !strcmp(t, "ptrace") ? T_PTRACE : !strcmp(t, "seccomp-trace") ? T_SECCOMP : T_NONE;
	int rc = probe_seccomp();
	if (rc) {
		snprintf(env->skip, sizeof(env->skip), "seccomp filters refused here: %s",
			 strerror(-rc));
		return BENCH_SKIP;
	}
	int req[2], rep[2];
	if (pipe2(req, O_CLOEXEC))
		return bench_fail(env, "pipe2");
	if (pipe2(rep, O_CLOEXEC)) {
		int e = errno;
		close(req[0]);
		close(req[1]);
		errno = e;
		return bench_fail(env, "pipe2");
	}
	pid_t me = getpid(), pid = fork();
	if (pid < 0) {
		int e = errno;
		close(req[0]);
		close(req[1]);
		close(rep[0]);
		close(rep[1]);
		errno = e;
		return bench_fail(env, "fork");
	}
	if (pid == 0) {
		quiet_signals();
		close(req[1]);
		close(rep[0]);
		if (s->tracer == T_NONE)
			caller_main(req[0], rep[1], me, s->filter, s->tracer);
		if (!sys_child_dies_with_parent() || getppid() != me)
			_exit(1);
		tracer_main(req[0], rep[1], env, s->filter, s->tracer);
	}
	close(req[0]);
	close(rep[1]);
	s->req = req[1];
	s->rep = rep[0];
	s->kid = pid;
	if (reg_add_pid(pid)) {
		stop_kids(s);
		errno = ENOMEM;
		return bench_fail(env, "registry");
	}
	int64_t v = 0;
	if (full_read(s->rep, &v, sizeof(v)) || v <= 0) {
		int e = v < 0 ? (int)-v : errno;
		stop_kids(s);
		if (s->tracer != T_NONE && v < 0) {
			snprintf(env->skip, sizeof(env->skip), "%s refused here: %s",
				 s->tracer == T_PTRACE ? "ptrace(PTRACE_TRACEME)"
						       : "the tracer's seccomp filter",
				 strerror(e));
			return BENCH_SKIP;
		}
		errno = e ? e : EPIPE;
		return bench_fail(env, "start of the caller process");
	}
	s->caller = (pid_t)v;
	bench_peer_add(env, s->tracer == T_NONE ? "caller" : "tracer", s->kid);
	if (s->caller != s->kid)
		bench_peer_add(env, "caller", s->caller);
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	int64_t v;
	(void)i;
	s->nbuf = s->pos = 0; /* samples fetched before are of the last point */
	if (ask(s, CMD_GROW, 0, 0, &v))
		return bench_fail(s->env, "caller process (grow)");
	if (v < 0) {
		errno = (int)-v;
		return bench_fail(s->env, "prctl(PR_SET_SECCOMP) in the caller");
	}
	s->n++;
	return 0;
}

static int op_far(void *state, unsigned k, uint64_t *ns)
{
	struct st *s = state;
	if (s->pos < s->nbuf && s->bufk == k) {
		*ns = s->buf[s->pos++];
		return 0;
	}
	int64_t v;
	if (ask(s, CMD_RUN, k, FETCH, &v))
		return bench_fail(s->env, "caller process (getppid loop)");
	if (v < 0) {
		errno = (int)-v;
		return bench_fail(s->env, "getppid");
	}
	if (v != FETCH)
		errno = EPROTO;
	if (v != FETCH || full_read(s->rep, s->buf, FETCH * sizeof(s->buf[0])))
		return bench_fail(s->env, "caller process (getppid loop)");
	s->nbuf = FETCH;
	s->bufk = k;
	s->pos = 1;
	*ns = s->buf[0];
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	if (s->caller > 0) {
		long k = sys_seccomp_filters(s->caller);
		int n = snprintf(s->env->note, sizeof(s->env->note),
				 "filters stacked point by point in a child process (they cannot be "
				 "removed), which runs the timed loop; %llu filter=%s at the end",
				 (unsigned long long)s->n, s->filter == F_ARGS ? "args" : "allow");
		if (n > 0 && (size_t)n < sizeof(s->env->note) && s->tracer == T_SECCOMP)
			n += snprintf(s->env->note + n, sizeof(s->env->note) - (size_t)n,
				      " + 1 RET_TRACE for getppid");
		if (n > 0 && (size_t)n < sizeof(s->env->note) && k >= 0)
			snprintf(s->env->note + n, sizeof(s->env->note) - (size_t)n,
				 " (the kernel's Seccomp_filters: %ld)", k);
	}
	stop_kids(s);
	if (s->rep >= 0)
		close(s->rep);
	free(s);
}

static const char *const variants[] = {
	"filter=allow,tracer=none",	     "filter=args,tracer=none",
	"filter=allow,tracer=ptrace",	     "filter=args,tracer=ptrace",
	"filter=allow,tracer=seccomp-trace", "filter=args,tracer=seccomp-trace",
	NULL,
};
#endif /* SYSCALL_BENCH */

static const struct bench_param_spec params[] = {
	BP_ENUM("filter", "allow", "allow|args", "what each stacked seccomp filter does: allow outright, or load and compare the first argument, then allow"),
	BP_ENUM("tracer", "none", "none|ptrace|seccomp-trace", "no tracer; a PTRACE_SYSCALL tracer stopping every call; or one filter handing getppid alone to the tracer (SECCOMP_RET_TRACE)"),
	{0},
};

const struct bench bench_proc_syscall = {
	.params = params,
	.name = "proc.syscall", .version = 1, .axis = "seccomp filters stacked",
	.placement = "same",
	.summary = "getppid with N seccomp-BPF filters stacked, with or without a ptrace or seccomp tracer",
	.op_desc = "getppid() in a child holding the filters",
	.needs = NEED_LINUX,
	.quick_max_n = 64, .default_max_n = 256, .full_max_n = 1024,
	.series = SERIES_POW2, .flags = BENCH_FROM_ZERO, .max_batch = 1024,
#ifdef SYSCALL_BENCH
	.variants = variants, .setup = setup, .grow = grow, .op_far = op_far, .teardown = teardown,
#else
	.unavailable = "Linux-only (seccomp filters, ptrace)",
#endif
};
