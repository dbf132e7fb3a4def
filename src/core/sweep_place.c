/* SPDX-License-Identifier: MIT */
/* Placement (bench.h): the bench pinned for its mode (same, spread,
 * free; bench_place for its threads and peers), and the record of where
 * each side ran during a point's window. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/param.h"
#include "core/probe.h"
#include "core/result.h"
#include "core/sweep_int.h"
#include "sys/sys.h"

/* ---- placement record: where each side ran during a point's window ----
 * For a bench with a placement (bench.h), the window (peers_open ..
 * peers_close) reads each task's CPU and the scheduler's migration count
 * at its start and end: the harness process's threads ("bench"), each
 * peer's ("server", "helpers"), and threads the bench starts in the
 * window, which call bench_place ("workers": read when placed and when
 * they exit, through a thread-specific destructor). A task that changed
 * CPU or was migrated during the window moved; the point then says so.
 * Linux-only figures (/proc); elsewhere the record holds no CPUs. */

#define PLACE_MAX_TASKS 512
struct ptask {
	const char *side;
	int pid, tid, at0, at1, cpu0, cpu1;
	long mig0, mig1;
};
static struct {
	pthread_mutex_t lock;
	int open;
	const struct bench_env *env;
	int harness; /* the harness's pid: threads placed in it are workers */
	struct ptask t[PLACE_MAX_TASKS];
	int n;
	json_t *out; /* the last window's record, for place_take */
} prec = {.lock = PTHREAD_MUTEX_INITIALIZER};
static pthread_key_t place_key;
static pthread_once_t place_once = PTHREAD_ONCE_INIT;

/* Read task (pid, tid) as the window's start (end 0) or end (1); lock held. */
static void place_read(const char *side, int pid, int tid, int end)
{
	struct ptask *t = NULL;
	for (int i = 0; i < prec.n && !t; i++)
		if (prec.t[i].tid == tid && prec.t[i].pid == pid)
			t = &prec.t[i];
	if (!t) {
		if (prec.n >= PLACE_MAX_TASKS)
			return;
		t = &prec.t[prec.n++];
		*t = (struct ptask){.side = side, .pid = pid, .tid = tid, .cpu0 = -1, .cpu1 = -1,
				    .mig0 = -1, .mig1 = -1};
	}
	int cpu;
	long mig;
	if (sys_task_where(pid, tid, &cpu, &mig))
		return; /* gone */
	if (end) {
		t->at1 = 1;
		t->cpu1 = cpu;
		t->mig1 = mig;
	} else if (!t->at0) {
		t->at0 = 1;
		t->cpu0 = cpu;
		t->mig0 = mig;
	}
}

static void place_read_pid(const char *side, int pid, int end)
{
	int tids[64];
	int n = sys_task_list(pid, tids, 64);
	for (int i = 0; i < n; i++)
		place_read(side, pid, tids[i], end);
}

static void place_thread_exit(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&prec.lock);
	if (prec.open)
		place_read("workers", prec.harness, sys_thread_id(), 1);
	pthread_mutex_unlock(&prec.lock);
}

static void place_key_make(void) { pthread_key_create(&place_key, place_thread_exit); }

/* bench_place's part: a thread of the harness placed during a window. */
static void place_worker(const struct bench_env *env)
{
	int tid = sys_thread_id();
	if (tid < 0 || (int)getpid() != prec.harness || tid == prec.harness)
		return;
	pthread_mutex_lock(&prec.lock);
	int rec = prec.open && prec.env == env;
	if (rec)
		place_read("workers", prec.harness, tid, 0);
	pthread_mutex_unlock(&prec.lock);
	if (rec && pthread_once(&place_once, place_key_make) == 0)
		pthread_setspecific(place_key, (void *)1);
}

void place_open(const struct bench_env *env)
{
	pthread_mutex_lock(&prec.lock);
	json_decref(prec.out);
	prec.out = NULL;
	prec.n = 0;
	prec.open = env->place != BENCH_PLACE_NONE;
	prec.env = env;
	prec.harness = (int)getpid();
	if (prec.open) {
		place_read_pid("bench", prec.harness, 0);
		for (int i = 0; i < env->npeers; i++)
			place_read_pid(env->peers[i].side, (int)env->peers[i].pid, 0);
	}
	pthread_mutex_unlock(&prec.lock);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* The record of the window: {"mode", "moved", "sides": {side: {"cpus",
 * "tasks", "migrations", "moved"}}}; NULL for a bench without placement. */
void place_close(const struct bench_env *env)
{
	pthread_mutex_lock(&prec.lock);
	if (!prec.open) {
		pthread_mutex_unlock(&prec.lock);
		return;
	}
	for (int i = 0; i < prec.n; i++) /* tasks still there; the gone keep their last read */
		if (!prec.t[i].at1)
			place_read(prec.t[i].side, prec.t[i].pid, prec.t[i].tid, 1);
	place_read_pid("bench", prec.harness, 1); /* threads that came during the window */
	for (int i = 0; i < env->npeers; i++)
		place_read_pid(env->peers[i].side, (int)env->peers[i].pid, 1);
	json_t *sides = json_object();
	int any_moved = 0;
	for (int i = 0; i < prec.n; i++) {
		const char *side = prec.t[i].side;
		if (json_object_get(sides, side))
			continue;
		int cpus[2 * PLACE_MAX_TASKS], nc = 0, tasks = 0, moved = 0, known = 0;
		long mig = 0;
		for (int j = i; j < prec.n; j++) {
			struct ptask *t = &prec.t[j];
			if (strcmp(t->side, side))
				continue;
			tasks++;
			if (t->at0 && t->cpu0 >= 0)
				cpus[nc++] = t->cpu0;
			if (t->at1 && t->cpu1 >= 0)
				cpus[nc++] = t->cpu1;
			if (t->at0 && t->at1 && t->mig0 >= 0 && t->mig1 >= 0) {
				known = 1;
				mig += t->mig1 - t->mig0;
				moved |= t->mig1 > t->mig0;
			}
			if (t->at0 && t->at1 && t->cpu0 >= 0 && t->cpu1 >= 0 && t->cpu0 != t->cpu1)
				moved = 1;
		}
		qsort(cpus, (size_t)nc, sizeof(int), cmp_int);
		json_t *cl = json_array();
		for (int k = 0; k < nc; k++)
			if (k == 0 || cpus[k] != cpus[k - 1])
				json_array_append_new(cl, json_integer(cpus[k]));
		json_object_set_new(sides, side,
				    json_pack("{s:o,s:i,s:o,s:b}", "cpus", cl, "tasks", tasks, "migrations",
					      known ? json_integer(mig) : json_null(), "moved", moved));
		any_moved |= moved;
	}
	const char *mode = env->place == BENCH_PLACE_SAME ? "same"
			   : env->place == BENCH_PLACE_SPREAD ? "spread" : "free";
	prec.out = json_pack("{s:s,s:b,s:o}", "mode", mode, "moved", any_moved, "sides", sides);
	prec.open = 0;
	prec.env = NULL;
	pthread_mutex_unlock(&prec.lock);
}

json_t *place_take(void)
{
	pthread_mutex_lock(&prec.lock);
	json_t *o = prec.out;
	prec.out = NULL;
	pthread_mutex_unlock(&prec.lock);
	return o;
}

void place_peer(const struct bench_env *env, const char *side, int pid, int end)
{
	pthread_mutex_lock(&prec.lock);
	if (prec.open && prec.env == env)
		place_read_pid(side, pid, end);
	pthread_mutex_unlock(&prec.lock);
}

void bench_place(const struct bench_env *env, int k)
{
	if (env->place_ncpu <= 0 || k < 0)
		return;
	if (env->place == BENCH_PLACE_SAME)
		sys_pin_thread(env->place_cpu[0]);
	else if (env->place == BENCH_PLACE_SPREAD)
		sys_pin_thread(env->place_cpu[k % env->place_ncpu]);
	place_worker(env); /* a thread the bench started in the window: recorded */
}

/* sweep_int.h */
int probe_on_cpus(const int *cpus, int n, int passes, struct probe *r)
{
	for (int pass = 0; pass < passes; pass++)
		for (int j = 0; j < n; j++) {
			struct probe q;
			if (sys_pin_thread(cpus[j]))
				return -1;
			probe_take(&q);
			if (pass == 0)
				r[j] = q;
			else
				probe_min(&r[j], &r[j], &q);
		}
	return 0;
}

/* Placement same on 2 to POINT_PICK_MAX CPUs: the repetition's CPU is
 * the faster by the machine-speed probe, read twice on each (the thread
 * pinned there; each CPU's lower reading, against the part-wise fastest
 * of all): the first of env's CPUs becomes that one, and the thread is
 * pinned to it. A virtual machine's host may slow one vCPU at a time,
 * for a whole run at times (docs/method.md, "Slowed CPUs": one run of the
 * quick suite had every same-placed bench on CPU 0 12-35% dearer in all
 * three repetitions while the picked one-thread benches were not); a
 * point cannot move its peers, so the pick is made once a repetition,
 * before its setup starts them. */
static void same_pick(struct bench_env *env)
{
	struct probe r[POINT_PICK_MAX], ref;
	int n = env->place_ncpu;
	if (!probe_on_cpus(env->place_cpu, n, 2, r)) {
		ref = r[0];
		for (int i = 1; i < n; i++)
			probe_min(&ref, &ref, &r[i]);
		int best = probe_fastest(r, n, &ref, NULL), c = env->place_cpu[best];
		env->place_cpu[best] = env->place_cpu[0];
		env->place_cpu[0] = c;
	} /* else: a CPU that cannot be pinned, as without the pick */
	sys_pin_thread(env->place_cpu[0]);
}

void place_bench(const struct bench *b, struct bench_env *env, struct bench_result *out,
		 unsigned char *saved, int *nsaved)
{
	*nsaved = 0;
	if (!b->placement)
		return;
	const char *mode = bench_param(env, "placement"); /* its default: b->placement */
	env->place = !strcmp(mode, "same")	? BENCH_PLACE_SAME
		     : !strcmp(mode, "spread") ? BENCH_PLACE_SPREAD
					       : BENCH_PLACE_FREE;
	if (out->params && !json_object_get(out->params, "placement"))
		json_object_set_new(out->params, "placement", json_string(mode));
	int n = 0, max = (int)(sizeof(env->place_cpu) / sizeof(int));
	if (sys_get_pinned(saved, SYS_MAX_CPUS) > 0)
		for (int c = 0; c < SYS_MAX_CPUS && n < max; c++)
			if (saved[c])
				env->place_cpu[n++] = c;
	if (n <= 0) {
		env->place = BENCH_PLACE_FREE;
		bench_add_note(out, "placement %s: this system has no CPU affinity control; the "
				    "scheduler placed every process", mode);
		return;
	}
	env->place_ncpu = n;
	if (env->place == BENCH_PLACE_FREE) {
		bench_add_note(out, "placement free: the scheduler placed the bench and its peers on "
				    "CPUs %d..%d (points may land on two levels)",
			       env->place_cpu[0], env->place_cpu[n - 1]);
		return;
	}
	*nsaved = n;
	if (env->place == BENCH_PLACE_SAME && n >= 2 && n <= POINT_PICK_MAX) {
		int lo = env->place_cpu[0], hi = env->place_cpu[n - 1]; /* ascending here */
		same_pick(env);
		bench_add_note(out, "placement same: the bench and its peers on one CPU, in each "
				    "repetition the faster of CPUs %d..%d by the probe read before it "
				    "(each point's cpu says which; -p placement=same|spread|free)",
			       lo, hi);
		return;
	}
	sys_pin_thread(env->place_cpu[0]);
	if (env->place == BENCH_PLACE_SAME || n == 1)
		bench_add_note(out, "placement %s: the bench and its peers on CPU %d "
				    "(-p placement=same|spread|free)", mode, env->place_cpu[0]);
	else
		bench_add_note(out, "placement spread: the bench on CPU %d, its peer on CPU %d "
				    "(-p placement=same|spread|free)",
			       env->place_cpu[0], env->place_cpu[1 % n]);
}
