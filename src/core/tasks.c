/* SPDX-License-Identifier: MIT */
/* The tasks axis: how throughput grows when K tasks do one operation at
 * once (run --tasks), will-it-scale's method inside the core.
 *
 * For each K of 1, 2, 4, ... up to the largest (default twice the CPUs
 * online, --quick the CPUs): K tasks are started, as processes (-p
 * as=proc, fork) or threads (-p as=thread, pthreads: they share the
 * descriptor table and the address space, which is where those locks
 * are). Each one does what one sweep does at the bench's base load (its
 * setup, grow to N = --min-n or the bench's first N, set_n), pinned to a
 * CPU of its own while K <= the CPUs allowed, and says it is ready. When
 * all are, the core opens one window for all: after a warm-up (a tenth of
 * the budget, at least 20 ms, at most 0.25 s, in which every task is
 * already looping) the window lasts the point's budget; each task loops
 * prep, op (timed singly), undo, and counts the ops it started inside the
 * window in a histogram of its own and in 20 intervals. A bench whose
 * objects are directory entries (BENCH_TASKS_DIR) works, with -p
 * shared=0, in a directory per task, with shared=1 all in one, each
 * task's names ending in its own tag (bench.h) so that none collide.
 *
 * The point: N = K; ops_per_s = all ops / window (the throughput a USL fit
 * reads, src/core/usl.c); the merged histogram gives the per-op latency
 * as in any sweep; extra.tasks holds the per-task ops/s, where each task
 * was pinned and ran, Jain's fairness index (sum x)^2 / (K sum x^2) (1:
 * equal shares, 1/K: one task got everything), the CPUs' idle share over
 * the window (/proc/stat: idle + iowait over all the time of all CPUs,
 * will-it-scale's "idle"), and whether K exceeds the CPUs allowed
 * (oversubscribed: the tasks then are not pinned). CPU time, context
 * switches and faults per op are each task's own counters over the
 * window, summed. Per-op timing costs two clock reads per op (~50 ns
 * here) and a histogram insert (~10 ns): the ops/s of a bare loop of the
 * same calls (bench/tasks-crosscheck.sh, which prints the clock's share
 * beside) is the check of what it costs these operations (>= 0.4 us);
 * bench/tasks-anatomy.c measures each part alone.
 *
 * A task process is scalebench's own binary started afresh (fork, then
 * exec of `scalebench __task FD K BENCH`), not a copy of the worker: a
 * copy carries every page and mapping the worker had touched, still
 * shared with it, and its forks and maps pay for them (proc.fork in
 * processes, against a bare loop: 0.85-0.95 as copies, 0.93-1.04
 * started afresh; docs/benches.md). It finds the memory it shares with the core
 * by descriptor (a memfd) and its job (struct job, job.h: bench, directory,
 * load, parameters, network settings) in it, after the slots. Where there is no
 * memfd (the POSIX build) or no scalebench binary to start (o->exe NULL:
 * a unit test's binary is not one), the task is a copy, and the result
 * says which.
 *
 * Processes hand their figures back through that shared mapping, made
 * before the fork; threads write into it directly. In threads the
 * untimed callbacks (setup, grow, set_n, teardown) run one task at a time,
 * since the registry they use is not thread-safe (bench.h). */
#include "core/tasks.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__) && !defined(SB_POSIX_ONLY)
#include <malloc.h>
#endif

#include "core/clock.h"
#include "core/hist.h"
#include "core/job.h"
#include "core/registry.h"
#include "sys/sys.h"
#include "core/usage.h"
#include "core/verdict.h"

#define TASK_INTERVALS 20
#define TASK_TIMED_GAP_NS 10000.0 /* a task times about one op per this much of its loop (task_loop) */
#define TASK_EVERY_MAX 16
#define MAX_K_POINTS 16
#define POLL_NS 200000 /* how often a waiting task or the core looks (ns) */

static const struct bench_param_spec params_dir[] = {
	BP_ENUM("as", "proc", "proc|thread", "run --tasks: the K tasks are processes (each scalebench started afresh) or threads (they share the descriptor table, the address space and one malloc arena)"),
	BP_BOOL("shared", "0", "run --tasks: one directory for all the tasks (1) or one each (0)"),
	{0},
};

const struct bench_param_spec *tasks_param_find(const struct bench *b, const char *key)
{
	if (!b || b->tasks == BENCH_TASKS_NONE)
		return NULL;
	for (const struct bench_param_spec *sp = params_dir; sp->name; sp++)
		if (!strcmp(sp->name, key) && (b->tasks == BENCH_TASKS_DIR || strcmp(key, "shared")))
			return sp;
	return NULL;
}

uint64_t tasks_default_max(int quick)
{
	unsigned char set[SYS_MAX_CPUS];
	int n = sys_cpus_online(set, SYS_MAX_CPUS);
	if (n < 1) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		n = c > 0 ? (int)c : 1;
	}
	uint64_t k = quick ? (uint64_t)n : 2 * (uint64_t)n;
	return k > TASKS_MAX ? TASKS_MAX : k;
}

int tasks_series(uint64_t max_k, uint64_t *out, int cap)
{
	int k = 0;
	for (uint64_t v = 1; v < max_k && k < cap; v *= 2)
		out[k++] = v;
	if (k < cap && max_k >= 1)
		out[k++] = max_k;
	return k;
}

/* ---- what the tasks and the core share ---- */

enum { T_STARTING = 0, T_READY, T_DONE, T_SKIP };

struct tslot {
	int state;              /* T_*, written with atomics */
	int err;                /* errno of the task's failure, 0: none */
	char phase[16], call[64];
	char note[256];         /* the bench's env->note, or its skip reason */
	int cpu_pin, cpu_end;   /* -1: not pinned / unknown */
	uint64_t ops, timed;     /* ops done in the window; of them, timed (task_loop) */
	uint64_t series[TASK_INTERVALS];
	double cpu_s, user_s, sys_s, vcsw, ivcsw, minflt, majflt; /* over the window */
	struct hist h;
};

struct tshared {
	int go, abort;          /* atomics */
	uint64_t t_start, t_end, iv_ns, timeout_ns;
	uint64_t job_off;       /* a started-afresh task's job (JSON text) at (char *)sh + job_off */
	struct tslot slot[];
};

/* Room for a task's job after the slots (its JSON is some 1,200 bytes and
 * the bench's parameters). */
#define TASK_JOB_MAX 65536

#if defined(__linux__) && !defined(SB_POSIX_ONLY) && defined(MFD_CLOEXEC)
#define TASKS_EXEC 1 /* task processes started afresh: a memfd to pass */
#endif

struct task {
	const struct bench *b;
	const struct sweep_opts *o;
	struct tshared *sh;
	int k;
	const char *dir;        /* the task's directory */
	int shared;             /* one directory for all */
	uint64_t load;
	const json_t *params;
	pthread_mutex_t *mu;    /* threads: one untimed phase at a time; NULL for processes */
	pthread_t tid;
};

static void lock(struct task *t)
{
	if (t->mu)
		pthread_mutex_lock(t->mu);
}

static void unlock(struct task *t)
{
	if (t->mu)
		pthread_mutex_unlock(t->mu);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
	nanosleep(&ts, NULL);
}

static void slot_fail(struct tslot *s, struct bench_env *env, const char *phase, int rc)
{
	s->err = rc < 0 ? -rc : EIO;
	snprintf(s->phase, sizeof(s->phase), "%s", phase);
	snprintf(s->call, sizeof(s->call), "%s", env->failed_call ? env->failed_call : "?");
}

/* The loop of one task over the window; 0 or a negative errno (phase set).
 * Every op is counted; the clock is read around one op in `every`, the
 * others run between two timed ones untimed (but for their prep and undo,
 * as the timed one): timing an op costs two clock reads and a histogram
 * insert (~60 ns here), 3-4% of an op of 1.6 us (fs.stat) that a bare loop
 * does not pay. `every` is the timed ops' mean so far against
 * TASK_TIMED_GAP_NS (rounded down: 1 for ops over 5 us, at most TASK_EVERY_MAX),
 * set again every 32 timed ops; the latency histogram is then a sample
 * of the ops, the ops/s all of them (docs/benches.md, "Tasks"). An op
 * left untimed still meets the op timeout: the gap between two clock
 * reads is checked against it, and the ops after the window's end are at
 * most every - 1 (some microseconds of a window of seconds). */
static int task_loop(struct task *t, struct bench_env *env, void *st, struct tslot *s,
		     const char **phase)
{
	const struct bench *b = t->b;
	struct tshared *sh = t->sh;
	uint64_t t_start = sh->t_start, t_end = sh->t_end;
	struct usage_read u0, u1;
	int in = 0, rc = 0;
	uint64_t every = 1, left = 0, t_last = 0, ntimed = 0;
	double timed_ns = 0;
	for (;;) {
		if (b->prep && (rc = b->prep(st, 0)) < 0) {
			*phase = "prep";
			break;
		}
		int timed = left == 0; /* else between two timed ops, inside the window */
		uint64_t t0 = t_last, t1 = t_last;
		if (timed) {
			t0 = clock_ns();
			/* an untimed op since the last read ran too long */
			if (in && t0 - t_last > sh->timeout_ns)
				goto timeout;
			if (t0 >= t_end || reg_stop_requested())
				break;
			if (!in && t0 >= t_start) {
				in = 1;
				usage_begin(&u0);
				t0 = clock_ns();
			}
		}
		rc = b->op(st, 0);
		if (timed)
			t1 = clock_ns();
		if (rc < 0) {
			*phase = "op";
			break;
		}
		if (in) {
			s->ops++;
			uint64_t i = (t0 - t_start) / sh->iv_ns;
			if (i < TASK_INTERVALS)
				s->series[i]++;
		}
		if (!timed) {
			left--;
		} else if (in) {
			hist_add(&s->h, (double)(t1 - t0));
			s->timed++;
			if (t1 - t0 > sh->timeout_ns)
				goto timeout;
			timed_ns += (double)(t1 - t0);
			if (++ntimed % 32 == 0) {
				double e = TASK_TIMED_GAP_NS / (timed_ns / (double)ntimed);
				every = e < 1 ? 1 : e > TASK_EVERY_MAX ? TASK_EVERY_MAX : (uint64_t)e;
			}
			left = every - 1;
			t_last = t1;
		}
		if (b->undo && (rc = b->undo(st, 0)) < 0) {
			*phase = "undo";
			break;
		}
		continue;
	timeout:
		errno = ETIMEDOUT;
		rc = bench_fail(env, b->op_desc);
		*phase = "op";
		break;
	}
	if (in) {
		usage_end(&u1);
		s->cpu_s = u1.cpu_s - u0.cpu_s;
		s->user_s = (double)(u1.self.ru_utime.tv_sec - u0.self.ru_utime.tv_sec) +
			    (double)(u1.self.ru_utime.tv_usec - u0.self.ru_utime.tv_usec) / 1e6;
		s->sys_s = (double)(u1.self.ru_stime.tv_sec - u0.self.ru_stime.tv_sec) +
			   (double)(u1.self.ru_stime.tv_usec - u0.self.ru_stime.tv_usec) / 1e6;
		s->vcsw = (double)(u1.self.ru_nvcsw - u0.self.ru_nvcsw);
		s->ivcsw = (double)(u1.self.ru_nivcsw - u0.self.ru_nivcsw);
		s->minflt = (double)(u1.self.ru_minflt - u0.self.ru_minflt);
		s->majflt = (double)(u1.self.ru_majflt - u0.self.ru_majflt);
	}
	return rc;
}

/* One task, from setup to teardown; its figures and any failure go to its slot. */
static void task_run(struct task *t)
{
	const struct bench *b = t->b;
	struct tslot *s = &t->sh->slot[t->k];
	struct bench_env *env = calloc(1, sizeof(*env));
	void *st = NULL;
	int rc = 0;
	const char *phase = "setup";
	if (s->cpu_pin >= 0)
		sys_pin_thread(s->cpu_pin);
	if (!env) {
		s->err = ENOMEM;
		snprintf(s->phase, sizeof(s->phase), "setup");
		snprintf(s->call, sizeof(s->call), "calloc");
		__atomic_store_n(&s->state, T_DONE, __ATOMIC_RELEASE);
		return;
	}
	env->dir = t->dir;
	env->dirfd = open(t->dir, O_RDONLY | O_DIRECTORY);
	env->max_n = t->load;
	env->quick = t->o->quick;
	env->params = t->params;
	env->bench = b;
	env->max_latency_ns = t->o->max_latency_ns;
	env->net = sweep_net(t->o);
	if (t->shared)
		snprintf(env->task_tag, sizeof(env->task_tag), ".t%d", t->k);
	lock(t);
	if (env->dirfd < 0) {
		rc = bench_fail(env, "open (task directory)");
	} else if (b->setup && (rc = b->setup(env, &st)) == BENCH_SKIP) {
		snprintf(s->note, sizeof(s->note), "%s", env->skip[0] ? env->skip : "skipped by the bench");
		s->state = T_SKIP;
	} else if (rc == 0) {
		for (uint64_t i = 0; b->grow && i < t->load && rc == 0; i++)
			if ((rc = b->grow(st, i)) < 0)
				phase = "grow";
		if (rc == 0 && b->set_n && (rc = b->set_n(st, t->load)) < 0)
			phase = "set_n";
	}
	unlock(t);
	if (s->state == T_SKIP) {
		rc = 0;
	} else if (rc < 0) {
		slot_fail(s, env, phase, rc);
	} else {
		__atomic_store_n(&s->state, T_READY, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&t->sh->go, __ATOMIC_ACQUIRE) && !reg_stop_requested())
			sleep_ns(POLL_NS);
		if (!__atomic_load_n(&t->sh->abort, __ATOMIC_ACQUIRE) && !reg_stop_requested() &&
		    (rc = task_loop(t, env, st, s, &phase)) < 0)
			slot_fail(s, env, phase, rc);
	}
	s->cpu_end = sys_current_cpu();
	if (env->note[0] && !s->note[0])
		snprintf(s->note, sizeof(s->note), "%s", env->note);
	lock(t);
	if (st && b->teardown)
		b->teardown(st);
	unlock(t);
	if (env->dirfd >= 0)
		close(env->dirfd);
	free(env);
	if (s->state != T_SKIP)
		__atomic_store_n(&s->state, T_DONE, __ATOMIC_RELEASE);
}

static void *task_thread(void *arg)
{
	task_run(arg);
	return NULL;
}

/* ---- one point: K tasks ---- */

struct tsweep {
	const struct bench *b;
	const struct sweep_opts *o;
	struct bench_result *out;
	struct hist *h;           /* the merged histogram */
	struct tshared *sh;       /* room for the largest K */
	size_t sh_len;
	int thread, shared;
	uint64_t load;
	int ncpu;                 /* CPUs allowed */
	int cpu[SYS_MAX_CPUS];
	int online;
	const char *repdir;
	int shfd;                 /* the shared memory's memfd: processes started afresh; -1: copies */
	char exe[4096];           /* scalebench's binary, for them */
};

static void wait_state(struct tsweep *w, int K, pid_t *pids, int want)
{
	for (;;) {
		int n = 0;
		for (int k = 0; k < K; k++) {
			int s = __atomic_load_n(&w->sh->slot[k].state, __ATOMIC_ACQUIRE);
			if (s >= want || s == T_DONE || s == T_SKIP)
				n++;
			else if (pids && pids[k] > 0 && waitpid(pids[k], NULL, WNOHANG) == pids[k]) {
				reg_forget_pid(pids[k]); /* died before saying so: a crash */
				pids[k] = 0;
				struct tslot *sl = &w->sh->slot[k];
				sl->err = ECHILD;
				snprintf(sl->phase, sizeof(sl->phase), "%s", want == T_READY ? "setup" : "op");
				snprintf(sl->call, sizeof(sl->call), "task process died");
				__atomic_store_n(&sl->state, T_DONE, __ATOMIC_RELEASE);
				n++;
			}
		}
		if (n == K)
			return;
		sleep_ns(POLL_NS);
	}
}

static json_t *num_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* The job of this point's task processes, started afresh, into the shared
 * memory: what task_run takes from the core. 0 or -errno. */
static int put_job(struct tsweep *w, const char *pdir)
{
	struct job job;
	job_init(&job);
	json_t *j = NULL;
	if (job_from_sweep(&job, w->b->name, w->o) == 0 && job_set(&job.dir, pdir) == 0) {
		job.load = w->load;
		job.shared = w->shared;
		job.params = w->out->params ? json_incref(w->out->params) : NULL;
		j = job_to_json(&job);
	}
	job_clear(&job);
	char *txt = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!txt)
		return -ENOMEM;
	size_t l = strlen(txt);
	int rc = l < TASK_JOB_MAX ? 0 : -E2BIG;
	if (rc == 0)
		memcpy((char *)w->sh + w->sh->job_off, txt, l + 1);
	free(txt);
	return rc;
}

/* In the forked child: become task k, started afresh where it can be
 * (exec; a failure of it goes to the slot), else as this copy. */
static void task_proc(struct tsweep *w, struct task *t)
{
	sys_child_dies_with_parent();
	if (w->shfd >= 0) {
		struct tslot *s = &w->sh->slot[t->k];
		char fd[16], k[16];
		snprintf(fd, sizeof(fd), "%d", w->shfd);
		snprintf(k, sizeof(k), "%d", t->k);
		char *const argv[] = {"scalebench", "__task", fd, k, (char *)w->b->name, NULL};
		if (fcntl(w->shfd, F_SETFD, 0) == 0) /* the memfd is the one descriptor it needs */
			execv(w->exe, argv);
		s->err = errno;
		snprintf(s->phase, sizeof(s->phase), "setup");
		snprintf(s->call, sizeof(s->call), "exec (task process): %.40s", w->exe);
		__atomic_store_n(&s->state, T_DONE, __ATOMIC_RELEASE);
		_exit(127);
	}
	task_run(t);
	_exit(0); /* not exit: the registry is the parent's to clean */
}

/* Step 1 of tasks_point: the K slots cleared for the point, each task's
 * directory made (its own under pdir, or pdir itself with shared) and its
 * description filled in (mu: the threads' lock, or NULL). 0 or -errno. */
static int prepare_tasks(struct tsweep *w, uint64_t K, const char *pdir, struct task *t,
			 char (*dirs)[4096], pthread_mutex_t *mu)
{
	struct tshared *sh = w->sh;
	int oversub = (int)K > w->ncpu;
	for (uint64_t k = 0; k < K; k++) {
		struct tslot *s = &sh->slot[k];
		memset(s, 0, offsetof(struct tslot, h));
		/* clears the bins the last point used ([lo, hi]; on fresh, zeroed
		 * memory bin 0 alone) and marks none in use */
		hist_reset(&s->h);
		s->cpu_pin = oversub ? -1 : w->cpu[k];
		s->cpu_end = -1;
		if (w->shared)
			snprintf(dirs[k], sizeof(dirs[k]), "%s", pdir);
		else if (snprintf(dirs[k], sizeof(dirs[k]), "%s/t%llu", pdir, (unsigned long long)k) >=
				 (int)sizeof(dirs[k]) ||
			 mkdir(dirs[k], BENCH_DIR_MODE))
			return errno ? -errno : -ENAMETOOLONG;
		t[k] = (struct task){.b = w->b, .o = w->o, .sh = sh, .k = (int)k, .dir = dirs[k],
				     .shared = w->shared, .load = w->load, .params = w->out->params,
				     .mu = mu};
	}
	return 0;
}

/* Step 2: the tasks started (threads, or processes: pids); each builds its
 * load and says it is ready. *started: how many. On a failure the others
 * are marked skipped and those started told to abort (and tear down).
 * 0 or -errno. */
static int start_tasks(struct tsweep *w, uint64_t K, struct task *t, pid_t *pids, int *started)
{
	struct tshared *sh = w->sh;
	int rc = 0;
	*started = 0;
	for (uint64_t k = 0; k < K; k++) {
		if (w->thread) {
			if ((rc = -pthread_create(&t[k].tid, NULL, task_thread, &t[k])) < 0)
				break;
		} else {
			pid_t pid = fork();
			if (pid < 0) {
				rc = -errno;
				break;
			}
			if (pid == 0)
				task_proc(w, &t[k]);
			if ((rc = reg_add_pid(pid)) < 0) /* it killed and reaped the task */
				break;
			pids[k] = pid;
		}
		(*started)++;
	}
	if (rc < 0) { /* those started see abort and tear down */
		for (int k = *started; k < (int)K; k++)
			sh->slot[k].state = T_SKIP;
		__atomic_store_n(&sh->abort, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	}
	return rc;
}

/* Step 3: once every task is ready, the window: after a warm-up (a tenth
 * of the budget, 20..250 ms) TASK_INTERVALS intervals over the budget, the
 * go given to all at once (abort instead if one is not ready or on a
 * signal); the CPUs' idle share read at the window's start and end
 * (*idle, NaN when unknown). */
static void run_window(struct tsweep *w, uint64_t K, pid_t *pids, double *idle)
{
	struct tshared *sh = w->sh;
	const struct sweep_opts *o = w->o;
	wait_state(w, (int)K, pids, T_READY);
	int bad = 0;
	for (uint64_t k = 0; k < K; k++)
		bad |= sh->slot[k].state != T_READY;
	double budget = o->budget_s, warm = budget * 0.1;
	warm = warm < 0.02 ? 0.02 : warm > 0.25 ? 0.25 : warm;
	sh->iv_ns = (uint64_t)(budget * 1e9 / TASK_INTERVALS);
	if (sh->iv_ns < 1)
		sh->iv_ns = 1;
	sh->timeout_ns = (uint64_t)(o->op_timeout_s * 1e9);
	sh->t_start = clock_ns() + (uint64_t)(warm * 1e9);
	sh->t_end = sh->t_start + sh->iv_ns * TASK_INTERVALS;
	__atomic_store_n(&sh->abort, bad || reg_stop_requested(), __ATOMIC_RELEASE);
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	double i0 = NAN, c0 = NAN, i1 = NAN, c1 = NAN;
	if (!bad) {
		uint64_t now = clock_ns();
		if (now < sh->t_start)
			sleep_ns(sh->t_start - now);
		if (sys_cpu_idle(&i0, &c0))
			i0 = NAN;
		now = clock_ns();
		if (now < sh->t_end)
			sleep_ns(sh->t_end - now);
		if (sys_cpu_idle(&i1, &c1))
			i1 = NAN;
	}
	*idle = c1 > c0 ? (i1 - i0) / (c1 - c0) : NAN;
}

/* Step 4: the started tasks joined (threads) or reaped (processes: one
 * that ended without saying so died, its slot says it). */
static void join_tasks(struct tsweep *w, struct task *t, pid_t *pids, int started)
{
	for (int k = 0; k < started; k++) {
		if (w->thread) {
			pthread_join(t[k].tid, NULL);
		} else if (pids[k] > 0) {
			int status = 0;
			while (waitpid(pids[k], &status, 0) < 0 && errno == EINTR)
				;
			reg_forget_pid(pids[k]);
			struct tslot *sl = &w->sh->slot[k];
			if (sl->state != T_DONE && sl->state != T_SKIP && !sl->err) {
				sl->err = ECHILD;
				snprintf(sl->phase, sizeof(sl->phase), "op");
				snprintf(sl->call, sizeof(sl->call), "task process died (status %d)", status);
			}
		}
	}
}

/* Step 5: a skip or a failure of a task, the first task's saying why: 1
 * (the bench skipped), -errno (*fail set), or 0; the first task's note
 * into the result. */
static int tasks_outcome(struct tsweep *w, uint64_t K, struct failure **fail)
{
	struct tshared *sh = w->sh;
	for (uint64_t k = 0; k < K; k++) {
		struct tslot *s = &sh->slot[k];
		if (s->state == T_SKIP) {
			w->out->status = BS_SKIPPED;
			free(w->out->skip_reason);
			w->out->skip_reason = strdup(s->note);
			return 1;
		}
		if (s->err) {
			char call[96];
			snprintf(call, sizeof(call), "%.40s (task %d of %d)", s->call, (int)k + 1, (int)K);
			*fail = sweep_failure_errno(s->phase, call, K, s->err);
			return -s->err;
		}
	}
	if (sh->slot[0].note[0])
		bench_add_note(w->out, "%s", sh->slot[0].note); /* identical notes are kept once */
	return 0;
}

/* Step 6: the K tasks' figures merged into the point: the histogram, ops
 * per second, the series per interval, CPU and faults per op, and the
 * tasks' own record (extra "tasks": fairness, min/max, idle share, each
 * task's figures). */
static void merge_tasks(struct tsweep *w, uint64_t K, struct point *p, double idle)
{
	struct tshared *sh = w->sh;
	int oversub = (int)K > w->ncpu;
	double window = (double)(sh->t_end - sh->t_start) / 1e9;
	hist_reset(w->h);
	double sum = 0, sum2 = 0, lo = INFINITY, hi = 0;
	struct usage_acc acc;
	memset(&acc, 0, sizeof(acc));
	double *series = calloc(TASK_INTERVALS, sizeof(double));
	double *bytes = calloc(TASK_INTERVALS, sizeof(double));
	json_t *per = json_array();
	uint64_t ops = 0, timed = 0;
	for (uint64_t k = 0; k < K; k++) {
		struct tslot *s = &sh->slot[k];
		hist_merge(w->h, &s->h);
		ops += s->ops;
		timed += s->timed;
		double x = (double)s->ops / window;
		sum += x;
		sum2 += x * x;
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
		for (int i = 0; series && i < TASK_INTERVALS; i++)
			series[i] += (double)s->series[i];
		acc.cpu_s += s->cpu_s;
		acc.ru_user_s += s->user_s;
		acc.ru_sys_s += s->sys_s;
		acc.vcsw += s->vcsw;
		acc.ivcsw += s->ivcsw;
		acc.minflt += s->minflt;
		acc.majflt += s->majflt;
		json_array_append_new(per, json_pack("{s:f,s:I,s:o,s:o,s:o}", "ops_per_s", x, "ops",
						     (json_int_t)s->ops, "cpu",
						     s->cpu_pin >= 0 ? json_integer(s->cpu_pin) : json_null(),
						     "ran_on",
						     s->cpu_end >= 0 ? json_integer(s->cpu_end) : json_null(),
						     "p50_ns", num_or_null(hist_quantile(&s->h, 0.5))));
	}
	p->n = K;
	p->batch = 1;
	p->ops = ops;
	p->samples = timed; /* the latency histogram's: one op in every few (task_loop) */
	p->stop = reg_stop_requested() ? STOP_INTERRUPT : STOP_BUDGET;
	p->elapsed_s = window;
	hist_summary(w->h, &p->st);
	point_set_bins(p, w->h);
	p->ops_per_s = (double)ops / window;
	p->interval_s = (double)sh->iv_ns / 1e9;
	if (series && bytes) {
		p->series_ops = series;
		p->series_bytes = bytes;
		p->nseries = TASK_INTERVALS;
	} else {
		free(series);
		free(bytes);
	}
	point_usage(p, &acc, (double)ops, usage_counter(), USAGE_WINDOW);
	p->setup_cpu_s = p->setup_wall_s = NAN;
	p->cpu_start = p->cpu_end = -1;
	json_t *tj = json_pack(
		"{s:I,s:s,s:b,s:I,s:i,s:i,s:b,s:b,s:f,s:f,s:o,s:o,s:o,s:o,s:o}", "k", (json_int_t)K, "as",
		w->thread ? "thread" : "proc", "shared", w->shared, "load", (json_int_t)w->load,
		"cpus_online", w->online, "cpus_allowed", w->ncpu, "oversubscribed", oversub, "pinned",
		!oversub, "window_s", window, "ops_per_s", p->ops_per_s, "fairness",
		num_or_null(sum2 > 0 ? sum * sum / ((double)K * sum2) : NAN), "min_over_max",
		num_or_null(hi > 0 ? lo / hi : NAN), "idle_share", num_or_null(idle), "timed_share",
		num_or_null(ops ? (double)timed / (double)ops : NAN), "per_task", per);
	p->extra = json_object();
	if (p->extra && tj)
		json_object_set_new(p->extra, "tasks", tj);
	else
		json_decref(tj);
}

/* One point: K tasks at the base load, in the steps above (its directory
 * pdir removed after). 0, 1 when the bench skipped, or -errno (a task's
 * failure in *fail). */
static int tasks_point(struct tsweep *w, uint64_t K, struct point *p, struct failure **fail)
{
	const struct sweep_opts *o = w->o;
	struct tshared *sh = w->sh;
	char pdir[4096];
	snprintf(pdir, sizeof(pdir), "%s/k%llu", w->repdir, (unsigned long long)K);
	if (mkdir(pdir, BENCH_DIR_MODE))
		return -errno;
	memset(sh, 0, sizeof(*sh));
	sh->job_off = sizeof(struct tshared) + (size_t)o->tasks * sizeof(struct tslot);
	if (!w->thread && w->shfd >= 0) {
		int jr = put_job(w, pdir);
		if (jr < 0)
			return jr;
	}
	struct task *t = calloc(K, sizeof(*t));
	char (*dirs)[4096] = calloc(K, sizeof(*dirs));
	pid_t *pids = w->thread ? NULL : calloc(K, sizeof(*pids));
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	int rc, started = 0;
	if (!t || !dirs || (!w->thread && !pids)) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = prepare_tasks(w, K, pdir, t, dirs, w->thread ? &mu : NULL)) < 0)
		goto out;
	double idle = NAN;
	if ((rc = start_tasks(w, K, t, pids, &started)) >= 0)
		run_window(w, K, pids, &idle);
	join_tasks(w, t, pids, started);
	if (rc < 0) {
		*fail = sweep_failure_errno("setup", w->thread ? "pthread_create" : "fork", K, -rc);
		goto out;
	}
	if ((rc = tasks_outcome(w, K, fail)) != 0)
		goto out;
	merge_tasks(w, K, p, idle);
out:
	free(t);
	free(dirs);
	free(pids);
	int rr = reg_remove_tree(pdir);
	if (rr)
		bench_add_note(w->out, "could not remove %s: %s", pdir, strerror(-rr));
	return rc;
}

/* ---- the sweep ---- */

static int tasks_rep(struct tsweep *w, int repi)
{
	const struct bench *b = w->b;
	const struct sweep_opts *o = w->o;
	struct repetition *rep = bench_add_rep(w->out);
	if (!rep)
		return -ENOMEM;
	char dir[4096];
	int n = snprintf(dir, sizeof(dir), "%s/%s.%d", o->scratch, b->name, repi + 1);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return -ENAMETOOLONG;
	if (mkdir(dir, BENCH_DIR_MODE))
		return -errno;
	w->repdir = dir;
	uint64_t ks[MAX_K_POINTS];
	int nk = tasks_series(o->tasks, ks, MAX_K_POINTS);
	struct sweep_progress pr = {.bench = b->name, .rep = repi + 1, .nreps = o->repeat,
				    .npoints = nk};
	int harness_rc = 0;
	for (int i = 0; i < nk && !reg_stop_requested(); i++) {
		pr.point = i + 1;
		pr.n = ks[i];
		if (o->progress)
			o->progress(o->progress_ctx, &pr);
		struct point pt;
		memset(&pt, 0, sizeof(pt));
		int rc = tasks_point(w, ks[i], &pt, &rep->fail);
		if (rc == 1) /* skipped */
			break;
		if (rc < 0) {
			if (!rep->fail) /* the harness's own (memory, directory) */
				harness_rc = rc;
			break;
		}
		if ((harness_rc = rep_keep_point(rep, &pt)) < 0 || rep->interrupted)
			break;
	}
	if (reg_stop_requested())
		rep->interrupted = 1;
	int rr = reg_remove_tree(dir);
	if (rr)
		bench_add_note(w->out, "could not remove %s: %s", dir, strerror(-rr));
	rep_fit(rep, AXIS_CONCURRENCY);
	return harness_rc;
}

int tasks_sweep(const struct bench *b, const struct sweep_opts *o, struct bench_result *out)
{
	out->status = BS_OK;
	if (b->tasks == BENCH_TASKS_NONE) { /* run refuses this before any work */
		out->status = BS_SKIPPED;
		free(out->skip_reason);
		out->skip_reason = strdup("not a per-op bench that tasks can share (run --tasks)");
		return 0;
	}
	struct tsweep w;
	memset(&w, 0, sizeof(w));
	w.shfd = -1;
	w.b = b;
	w.o = o;
	w.out = out;
	struct bench_env penv = {.params = out->params, .bench = b, .net = sweep_net(o)};
	w.thread = !strcmp(bench_param(&penv, "as"), "thread");
	w.shared = b->tasks == BENCH_TASKS_DIR && !strcmp(bench_param(&penv, "shared"), "1");
	w.load = o->min_n ? o->min_n : b->min_n ? b->min_n : 1;
	unsigned char set[SYS_MAX_CPUS];
	w.online = sys_cpus_online(set, SYS_MAX_CPUS);
	if (w.online < 1)
		w.online = (int)tasks_default_max(1);
	int na = sys_get_pinned(set, SYS_MAX_CPUS);
	for (int c = 0; na > 0 && c < SYS_MAX_CPUS; c++)
		if (set[c])
			w.cpu[w.ncpu++] = c;
	if (w.ncpu == 0) { /* no affinity control: none pinned, oversubscribed past the CPUs online */
		w.ncpu = w.online;
		for (int c = 0; c < w.ncpu; c++)
			w.cpu[c] = -1;
	}
	out->max_n = o->tasks;
	out->axis_kind = AXIS_CONCURRENCY;
	out->axis_tasks = 1;
	out->cpus_online = w.online;
	if (out->params) {
		json_object_set_new(out->params, "as", json_string(w.thread ? "thread" : "proc"));
		if (b->tasks == BENCH_TASKS_DIR)
			json_object_set_new(out->params, "shared", json_string(w.shared ? "1" : "0"));
	}
#if defined(__GLIBC__) && defined(M_ARENA_MAX) && !defined(SB_POSIX_ONLY)
	/* Task threads share the main malloc arena. A thread that allocates
	 * (its env and the bench's state, in setup) otherwise gets an arena of
	 * its own, and glibc's fork locks and unlocks every arena inside the
	 * section it serialises all forks of a process with: each arena adds
	 * a write fault to every fork, held against the other threads' forks
	 * (proc.fork at K=2 threads: docs/benches.md). Threads allocate only
	 * in their untimed phases, which run one at a time. */
	if (w.thread && mallopt(M_ARENA_MAX, 1) == 1)
		bench_add_note(out, "tasks: threads share one malloc arena (M_ARENA_MAX=1): an arena "
				    "of each thread's own would add a fault to every fork");
#endif
	char axis[512];
	snprintf(axis, sizeof(axis), "tasks (%s) doing the op at once, each at N=%llu (%.200s)",
		 w.thread ? "threads" : "processes", (unsigned long long)w.load, b->axis);
	free(out->axis);
	out->axis = strdup(axis);
	bench_add_note(out, "tasks: K = 1..%llu %s, %s; each pinned to a CPU of its own while K <= "
			    "%d (the CPUs allowed), unpinned and marked oversubscribed above; each "
			    "task's load N=%llu%s",
		       (unsigned long long)o->tasks, w.thread ? "threads" : "processes",
		       b->tasks != BENCH_TASKS_DIR ? "each with objects of its own"
		       : w.shared		   ? "all in one shared directory"
						   : "each in a directory of its own",
		       w.ncpu, (unsigned long long)w.load,
		       w.shared ? " (the directory holds K times that)" : "");
#ifndef MAP_ANONYMOUS
	if (!w.thread) {
		out->status = BS_SKIPPED;
		free(out->skip_reason);
		out->skip_reason = strdup("as=proc needs anonymous shared memory (MAP_ANONYMOUS), "
					  "absent in this build: use -p as=thread");
		return 0;
	}
#endif
	w.sh_len = sizeof(struct tshared) + (size_t)o->tasks * sizeof(struct tslot) + TASK_JOB_MAX;
#ifdef TASKS_EXEC
	if (!w.thread && o->exe && strlen(o->exe) < sizeof(w.exe)) {
		snprintf(w.exe, sizeof(w.exe), "%s", o->exe);
		w.shfd = memfd_create("scalebench-tasks", MFD_CLOEXEC);
		if (w.shfd >= 0 && ftruncate(w.shfd, (off_t)w.sh_len)) {
			int e = errno;
			close(w.shfd);
			return -e;
		}
	}
#endif
	if (!w.thread)
		bench_add_note(out, w.shfd >= 0 ? "tasks: each task process is scalebench started afresh (exec), "
						  "not a copy of the process running the sweep: it holds none of "
						  "that one's memory"
						: "tasks: each task process is a copy of the process running the "
						  "sweep (fork: no memfd or no scalebench binary here), with all "
						  "its memory");
#ifdef MAP_ANONYMOUS
	w.sh = mmap(NULL, w.sh_len, PROT_READ | PROT_WRITE,
		    w.shfd >= 0 ? MAP_SHARED : MAP_SHARED | MAP_ANONYMOUS, w.shfd, 0);
	if (w.sh == MAP_FAILED) {
		int e = errno;
		if (w.shfd >= 0)
			close(w.shfd);
		return -e;
	}
#else
	w.sh = calloc(1, w.sh_len);
	if (!w.sh)
		return -ENOMEM;
#endif
	w.h = hist_new();
	int rc = w.h ? 0 : -ENOMEM;
	mode_t um = umask(022); /* the modes of bench.h, whatever the user's umask */
	int first = o->rep_first, count = o->rep_count ? o->rep_count : o->repeat - o->rep_first;
	for (int r = first; rc == 0 && r < first + count && !reg_stop_requested(); r++)
		if ((rc = tasks_rep(&w, r)) < 0 || out->status == BS_SKIPPED)
			break;
	umask(um);
	hist_free(w.h);
#ifdef MAP_ANONYMOUS
	munmap(w.sh, w.sh_len);
	if (w.shfd >= 0)
		close(w.shfd);
#else
	free(w.sh);
#endif
	verdict_settle(out, count);
	return rc;
}

/* ---- a task process started afresh (scalebench __task FD K BENCH) ---- */

int tasks_child(int fd, int k, const struct bench *b)
{
	struct stat st;
	if (fstat(fd, &st) || st.st_size < (off_t)(sizeof(struct tshared) + TASK_JOB_MAX))
		return 1;
	size_t len = (size_t)st.st_size;
	size_t nslots = (len - sizeof(struct tshared) - TASK_JOB_MAX) / sizeof(struct tslot);
	if (k < 0 || (size_t)k >= nslots)
		return 1;
	struct tshared *sh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (sh == MAP_FAILED)
		return 1;
	struct tslot *s = &sh->slot[k];
	json_error_t je;
	json_t *jj = sh->job_off + TASK_JOB_MAX <= len
			     ? json_loads((char *)sh + sh->job_off, 0, &je) : NULL;
	struct job job;
	char why[64] = "no job";
	job_init(&job);
	if (jj && job_from_json(jj, &job, why, sizeof(why)) == 0)
		why[0] = 0;
	json_decref(jj);
	char tdir[4096];
	int rc = 0;
	if (why[0] || !b || strcmp(job.bench, b->name) || !job.dir ||
	    snprintf(tdir, sizeof(tdir), job.shared ? "%s" : "%s/t%d", job.dir, k) >= (int)sizeof(tdir)) {
		rc = EINVAL;
		snprintf(s->call, sizeof(s->call), "the task's job (%.40s)", why[0] ? why : "bench or directory");
	} else if (reg_init()) {
		rc = errno ? errno : EINVAL;
		snprintf(s->call, sizeof(s->call), "signal handlers (task process)");
	}
	if (rc) {
		s->err = rc;
		snprintf(s->phase, sizeof(s->phase), "setup");
		__atomic_store_n(&s->state, T_DONE, __ATOMIC_RELEASE);
	} else {
		struct bench_net netset;
		struct clock_info clk;
		struct sweep_opts o;
		job_sweep_opts(&job, &o, &netset, &clk);
		struct task t = {.b = b, .o = &o, .sh = sh, .k = k, .dir = tdir, .shared = job.shared,
				 .load = job.load, .params = job.params};
		task_run(&t);
		reg_cleanup();
	}
	job_clear(&job);
	munmap(sh, len);
	return rc ? 1 : 0;
}
