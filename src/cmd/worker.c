/* SPDX-License-Identifier: MIT */
/* Benches in worker processes (worker.h): the parent's side, which starts
 * `scalebench __worker JOBFD RESULTFD BENCH SCRATCH`, and the worker's,
 * cmd_worker.
 *
 * Signals: a Ctrl-C reaches both (one process group); a signal sent to the
 * parent alone is forwarded. The worker stops its sweep as an in-process
 * run would, hands back the partial bench and exits; the parent then
 * stops too. The worker dies with the parent (PR_SET_PDEATHSIG where the
 * system has it), and the processes a bench starts die with the worker,
 * so a killed parent leaves no sweeping orphan. */
#include "cmd/worker.h"
#include "out/result_io.h"
#include "bench/table.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "cmd/cmd.h"
#include "core/job.h"
#include "cmd/opt.h"
#include "core/registry.h"
#include "core/spawn.h"
#include "cmd/runner.h"
#include "sys/sys.h"
#include "core/tasks.h"
#include "core/verdict.h"

/* How often the runner looks at Ctrl-C while it waits for a worker's
 * output, in milliseconds. */
#define WORKER_TICK_MS 200

/* One JSON document on one line (steals j). */
static int send_line(int fd, json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!s)
		return -1;
	int rc = sys_write_all(fd, s, strlen(s)) || sys_write_all(fd, "\n", 1) ? -1 : 0;
	free(s);
	return rc;
}

/* The worker's job: b for so's repetitions, described like br. */
static json_t *job_json(const struct bench *b, const struct sweep_opts *so, int want_progress,
			const struct bench_result *br)
{
	struct job job;
	job_init(&job);
	json_t *j = NULL;
	if (job_from_sweep(&job, b->name, so) == 0 && job_set(&job.variant, br->variant) == 0 &&
	    job_set(&job.target, br->target) == 0) {
		job.params = br->params ? json_incref(br->params) : NULL;
		job.progress = !!want_progress;
		j = job_to_json(&job);
	}
	job_clear(&job);
	return j;
}

/* The worker died without handing its repetition back: got (described)
 * gets a failing repetition, of kind crash; 1 (said on stderr). Or, if
 * the signal stopping this run killed it, nothing but a note; 0. */
static int record_death(struct bench_result *got, int status, uint64_t n)
{
	char msg[160], how[64];
	spawn_status_text(status, 0, how, sizeof(how));
	if (WIFSIGNALED(status))
		snprintf(msg, sizeof(msg), "the worker process %s (%s)", how, strsignal(WTERMSIG(status)));
	else
		snprintf(msg, sizeof(msg), "the worker process %s without a result", how);
	if (reg_stop_requested() && WIFSIGNALED(status)) {
		bench_add_note(got, "%s", msg);
		return 0;
	}
	fprintf(stderr, "scalebench: %s: %s at N=%llu; going on with the next bench\n", got->name,
		msg, (unsigned long long)n);
	struct repetition *rep = bench_add_rep(got);
	struct failure *f = rep ? sweep_failure("worker", "worker process", "crash", n, 0, msg) : NULL;
	if (!f) {
		bench_add_note(got, "%s", msg);
		return 1;
	}
	rep->fail = f;
	rep_fit(rep, got->axis_kind);
	return 1;
}

struct reader {
	const struct bench *b;
	const struct sweep_opts *so;
	json_t *bench; /* the worker's bench, once handed back */
	int rc;
	uint64_t last_n;
};

static void handle_line(struct reader *rd, const char *line, size_t len)
{
	json_t *j = json_loadb(line, len, 0, NULL);
	json_t *p = json_object_get(j, "p"), *b = json_object_get(j, "bench");
	if (json_is_array(p) && json_array_size(p) == 6) {
		json_int_t v[6];
		for (size_t i = 0; i < 6; i++)
			v[i] = json_integer_value(json_array_get(p, i));
		struct sweep_progress sp = {.bench = rd->b->name, .rep = (int)v[0], .nreps = (int)v[1],
					    .n = (uint64_t)v[2], .point = (int)v[3], .npoints = (int)v[4],
					    .growing = (int)v[5]};
		rd->last_n = sp.n;
		if (rd->so->progress)
			rd->so->progress(rd->so->progress_ctx, &sp);
	} else if (json_is_object(b) && !rd->bench) {
		rd->bench = json_incref(b);
		rd->rc = (int)json_integer_value(json_object_get(j, "rc"));
	}
	json_decref(j);
}

/* Read the worker's lines until it closes its end; forward a stop signal
 * the parent got (once). */
static void read_worker(int fd, struct spawn *c, struct reader *rd)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	if (!buf)
		kill(c->pid, SIGKILL);
	while (buf) {
		spawn_pass_stop(c);
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int pr = poll(&pfd, 1, WORKER_TICK_MS);
		if (pr <= 0) {
			if (pr < 0 && errno != EINTR)
				break;
			continue;
		}
		if (len == cap) {
			char *nb = cap < ((size_t)1 << 30) ? realloc(buf, cap * 2) : NULL;
			if (!nb) { /* a worker we cannot listen to must not block on its pipe */
				kill(c->pid, SIGKILL);
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t k = read(fd, buf + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		len += (size_t)k;
		char *s = buf, *nl;
		while ((nl = memchr(s, '\n', len - (size_t)(s - buf)))) {
			handle_line(rd, s, (size_t)(nl - s));
			s = nl + 1;
		}
		len -= (size_t)(s - buf);
		memmove(buf, s, len);
	}
	free(buf);
}

static const char *worker_cg;

void worker_set_cgroup(const char *path) { worker_cg = path && *path ? path : NULL; }

/* One worker, for the repetitions so->rep_first (and rep_count) of b:
 * what it hands back, or a crash, in got (described like br). 0, 1 (a
 * harness failure, said on stderr), or -1 with err if none could start. */
static int run_worker(const char *exe, const struct bench *b, const struct sweep_opts *so,
		      int want_progress, const struct bench_result *br, struct bench_result *got,
		      char *err, size_t errlen)
{
	int jp[2] = {-1, -1}, rp[2] = {-1, -1};
	json_t *job = job_json(b, so, want_progress, br);
	char *jtext = job ? json_dumps(job, JSON_COMPACT) : NULL;
	json_decref(job);
	if (!jtext) {
		snprintf(err, errlen, "%s: cannot describe the job: out of memory", b->name);
		return -1;
	}
	if (pipe(jp) || pipe(rp)) {
		snprintf(err, errlen, "%s: pipe: %s", b->name, strerror(errno));
		goto fail;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(jp[i], F_SETFD, FD_CLOEXEC);
		fcntl(rp[i], F_SETFD, FD_CLOEXEC);
	}
	char a1[16], a2[16];
	snprintf(a1, sizeof(a1), "%d", jp[0]);
	snprintf(a2, sizeof(a2), "%d", rp[1]);
	/* what the worker inherits: its two pipe ends, the --netns server
	 * namespace; its stdout is our stderr (ours carries the result) */
	const int keep[] = {jp[0], rp[1], so->net->srv_nsfd};
	char say[4200], msg[256];
	snprintf(say, sizeof(say), "scalebench: cannot start a worker (%s)", exe);
	const struct spawn_opts sp = {.flags = SPAWN_DIES_WITH_PARENT | SPAWN_STDOUT_TO_STDERR,
				      .keep = keep, .nkeep = 3, .exec_fail = say, .what = "worker"};
	/* bench and scratch directory are for ps(1) only */
	char *const argv[] = {"scalebench", "__worker", a1, a2, (char *)b->name, (char *)so->scratch, NULL};
	struct spawn c;
	if (spawn_start(&c, exe, argv, &sp, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s: %s", b->name, msg);
		goto fail;
	}
	close(jp[0]);
	close(rp[1]);
	jp[0] = rp[1] = -1;
	/* --mem-limit: into the cgroup before it reads its job, so that all
	 * the bench allocates and dirties is charged there */
	int cgrc = worker_cg ? sys_memcg_enter(worker_cg, c.pid) : 0;
	if (cgrc) {
		spawn_kill(&c);
		snprintf(err, errlen, "%s: cannot move the worker into %s: %s", b->name, worker_cg,
			 strerror(-cgrc));
		goto fail;
	}
	/* the job is small (a pipe holds it): write it all, then listen */
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	sys_write_all(jp[1], jtext, strlen(jtext));
	signal(SIGPIPE, old);
	close(jp[1]);
	jp[1] = -1;
	free(jtext);
	jtext = NULL;

	struct reader rd = {.b = b, .so = so};
	read_worker(rp[0], &c, &rd);
	close(rp[0]);
	spawn_wait(&c, SPAWN_PASS); /* (a waitpid failure: killed, status 0) */
	int status = c.status;

	int ret;
	if (rd.bench && bench_from_json(rd.bench, got, msg, sizeof(msg)) == 0) {
		ret = rd.rc < 0;
		/* a result, then a bad exit (a sanitizer's or valgrind's report) */
		if (!ret && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			char how[64];
			fprintf(stderr, "scalebench: %s: the worker process %s after handing back its result\n",
				b->name, spawn_status_text(status, 0, how, sizeof(how)));
			ret = 1;
		}
	} else {
		if (rd.bench)
			fprintf(stderr, "scalebench: %s: the worker's result does not read back: %s\n",
				b->name, msg);
		memset(got, 0, sizeof(*got));
		if (runner_describe(got, b, br->variant, br->target)) {
			bench_result_clear(got);
			snprintf(err, errlen, "%s: out of memory", b->name);
			json_decref(rd.bench);
			return -1;
		}
		got->params = br->params ? json_incref(br->params) : NULL;
		ret = record_death(got, status, rd.last_n);
	}
	json_decref(rd.bench);
	return ret;
fail:
	for (int i = 0; i < 2; i++) {
		if (jp[i] >= 0)
			close(jp[i]);
		if (rp[i] >= 0)
			close(rp[i]);
	}
	free(jtext);
	return -1;
}

/* got's repetitions, notes and skip go to br (the first worker's result
 * becomes br); got is left empty. */
static void merge(struct bench_result *br, struct bench_result *got, int first)
{
	if (first) {
		int fit_oversub = br->fit_oversub; /* the run's option, not the worker's */
		bench_result_clear(br);
		*br = *got;
		br->fit_oversub = fit_oversub;
		memset(got, 0, sizeof(*got));
		return;
	}
	for (int i = 0; i < got->nreps; i++) {
		struct repetition *d = bench_add_rep(br);
		if (!d)
			break;
		*d = got->reps[i];
		memset(&got->reps[i], 0, sizeof(got->reps[i]));
	}
	for (int i = 0; i < got->nnotes; i++)
		bench_add_note(br, "%s", got->notes[i]);
	if (got->profile) { /* run --profile: the last repetition's */
		json_decref(br->profile);
		br->profile = got->profile;
		got->profile = NULL;
	}
	if (got->status == BS_SKIPPED && br->status != BS_SKIPPED) {
		br->status = BS_SKIPPED;
		br->skip_reason = got->skip_reason;
		got->skip_reason = NULL;
	}
	bench_result_clear(got);
}

int worker_measure_point(void *ctx, uint64_t n, struct point *pt)
{
	const struct worker_here *w = ctx;
	struct sweep_opts one;
	verdict_point_opts(w->so, n, &one);
	struct bench_result got;
	char err[512];
	int rc = run_worker(w->exe, w->b, &one, w->want_progress, w->br, &got, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "scalebench: %s\n", err);
		return -1;
	}
	/* 1: a harness failure, said on stderr: no point from it */
	rc = rc ? -1 : verdict_take_point(&got, pt);
	bench_result_clear(&got);
	return rc;
}

int worker_rep(const char *exe, const struct bench *b, const struct sweep_opts *so, int r,
	       int want_progress, struct bench_result *br, int *stop, char *err, size_t errlen)
{
	struct sweep_opts one = *so;
	one.rep_first = r;
	one.rep_count = 1;
	struct bench_result got;
	int rc = run_worker(exe, b, &one, want_progress, br, &got, err, errlen);
	if (rc < 0) {
		*stop = 1;
		if (r == 0)
			return -1;
		fprintf(stderr, "scalebench: %s\n", err);
		return 1;
	}
	int crashed = got.nreps && got.reps[got.nreps - 1].fail &&
		      !strcmp(got.reps[got.nreps - 1].fail->kind, "crash");
	merge(br, &got, r == 0);
	if (br->status == BS_SKIPPED || crashed)
		*stop = 1; /* a crash would come again: the bench stops there */
	return rc;
}

/* ---- the worker ---- */

/* Every point's start goes back (the parent's count of points done, and the
 * load reached if the worker dies); the load being built only for a
 * progress line on a terminal. */
struct wprog {
	int fd, growth;
	pid_t parent;
};

static void progress_line(void *ctx, const struct sweep_progress *p)
{
	const struct wprog *w = ctx;
	/* re-parented: scalebench is gone (killed where the system cannot kill
	 * its worker with it): stop as on SIGHUP, removing what the bench made */
	if (getppid() != w->parent)
		raise(SIGHUP);
	if (p->growing && !w->growth)
		return;
	send_line(w->fd, json_pack("{s:[i,i,I,i,i,i]}", "p", p->rep, p->nreps, (json_int_t)p->n,
					 p->point, p->npoints, p->growing));
}

static int fd_arg(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > 1 << 20 || fcntl((int)v, F_GETFD) < 0)
		return -1;
	return (int)v;
}

/* scalebench __task FD K BENCH: a task process of run --tasks, started
 * afresh by the worker (src/core/tasks.c); BENCH also names it in ps(1). */
int cmd_task(int argc, char **argv)
{
	int fd = argc == 3 ? fd_arg(argv[0]) : -1;
	char *end;
	long k = argc == 3 ? strtol(argv[1], &end, 10) : -1;
	if (fd < 0 || k < 0 || k >= TASKS_MAX || *end) {
		fprintf(stderr, "scalebench __task: internal; started by run --tasks\n");
		return EXIT_USAGE;
	}
	return tasks_child(fd, (int)k, bench_find(argv[2])) ? EXIT_RUNTIME : EXIT_OK;
}

int cmd_worker(int argc, char **argv)
{
	/* JOBFD RESULTFD [BENCH SCRATCH]: the last two name it in ps(1) */
	int jfd = argc >= 2 ? fd_arg(argv[0]) : -1, rfd = argc >= 2 ? fd_arg(argv[1]) : -1;
	if (jfd < 0 || rfd < 0) {
		fprintf(stderr, "scalebench __worker: internal; started by `scalebench run` and `matrix`\n");
		return EXIT_USAGE;
	}
	json_error_t je;
	json_t *jj = json_loadfd(jfd, 0, &je);
	close(jfd);
	struct job job;
	char why[256];
	snprintf(why, sizeof(why), "%s", je.text);
	int bad = !jj || job_from_json(jj, &job, why, sizeof(why));
	json_decref(jj);
	const struct bench *b = bad ? NULL : bench_find(job.bench);
	if (!bad && (!b || !job.scratch)) {
		snprintf(why, sizeof(why), b ? "no scratch directory" : "no bench %s", job.bench);
		job_clear(&job);
		bad = 1;
	}
	if (bad) {
		fprintf(stderr, "scalebench __worker: bad job: %s\n", why);
		return EXIT_RUNTIME;
	}
	if (reg_init()) {
		fprintf(stderr, "scalebench __worker: cannot install signal handlers\n");
		job_clear(&job);
		return EXIT_RUNTIME;
	}
	struct clock_info ci;
	struct bench_net netset;
	struct sweep_opts so;
	job_sweep_opts(&job, &so, &netset, &ci);
	char self[4096]; /* task processes start afresh from this binary (tasks.c) */
	if (sys_self_exe(NULL, self, sizeof(self)) == 0)
		so.exe = self;
	struct wprog wp = {.fd = rfd, .growth = job.progress,
			   .parent = getppid()};
	so.progress = progress_line;
	so.progress_ctx = &wp;
	struct run_result tmp;
	memset(&tmp, 0, sizeof(tmp));
	struct bench_result *br = result_add_bench(&tmp);
	int rc = -ENOMEM;
	if (br && runner_describe(br, b, job.variant, job.target) == 0) {
		br->params = job.params ? json_incref(job.params) : NULL;
		rc = sweep_bench(b, &so, br);
		if (send_line(rfd, json_pack("{s:o,s:i}", "bench", bench_to_json(br), "rc", rc)))
			fprintf(stderr, "scalebench __worker: %s: cannot hand the result back: %s\n",
				b->name, strerror(errno));
	}
	if (rc < 0)
		fprintf(stderr, "scalebench: %s: harness failure: %s\n", b->name, strerror(-rc));
	reg_cleanup();
	result_free(&tmp);
	job_clear(&job);
	close(rfd);
	return rc < 0 ? EXIT_RUNTIME : EXIT_OK;
}
