/* SPDX-License-Identifier: MIT */
/* The sweep's parts (src/core/sweep.c drives them; its top comment says
 * how a point is measured), one file per idea:
 *   sweep.c          the repetition and the point: warm-up, batch, samples,
 *                    the probe and measuring again, run --profile's points;
 *   sweep_series.c   the series of N, a bench's largest N, the parameters
 *                    of a variant, the network settings a bench gets;
 *   sweep_failure.c  first-failure data;
 *   sweep_meter.c    the meter of run() benches (bench.h: meter_*);
 *   sweep_peers.c    the bench's peer processes and their CPU over a
 *                    point's window (bench_peer_add, _remove), point_usage;
 *   sweep_place.c    placement: pinning the bench (bench_place) and the
 *                    record of where each side ran in the window.
 * Nothing outside these files uses what is declared here. */
#ifndef SB_SWEEP_INT_H
#define SB_SWEEP_INT_H

#include <stdint.h>
#include <jansson.h>
#include "core/bench.h"
#include "core/hist.h"
#include "core/result.h"
#include "core/sweep.h"

struct profile;

#define SWEEP_MAX_POINTS 64 /* points in one repetition's series, at most */

/* ---- the meter (sweep_meter.c), filled in by sweep.c's measure_run ---- */
struct meter {
	struct hist *h;
	const struct sweep_opts *o;
	uint64_t start, deadline, next_check, last_poll;
	uint64_t hard_deadline; /* the budget runs on to this while no request completed */
	int no_ci;
	enum point_stop stop;
	int stopped;
	uint64_t ops, bytes;
	uint64_t interval_ns;
	double *s_ops, *s_bytes;
	int nseries, capseries;
	json_t *extra;
	struct profile *prof; /* run --profile's point: it ends once its samples suffice */
};

/* ---- peers (sweep_peers.c) ----
 * A point's window: peers_open at its start, peers_close at its end
 * ({"side": {"cpu_s": per op, "processes": k}} over ops, or NULL); both
 * open and close the placement record's window too. peers_abandon: the
 * window closed on a failure, its figures dropped. */
void peers_open(struct bench_env *env);
json_t *peers_close(struct bench_env *env, double ops);
void peers_abandon(struct bench_env *env);

/* ---- the run-queue wait of a point's window (sweep_peers.c) ----
 * The tasks that do the operation (the harness's threads, env's peers'),
 * as the scheduler counts them (sys_task_sched), marked at the window's
 * start (wait_mark) and read at its end (wait_since): how long they ran
 * and how long they waited runnable for a CPU, each per second of the
 * window and summed over the tasks (a task that came during the window
 * counts from its start; one gone before its end is not counted), and
 * the CPU time other processes took from them: of the CPUs the tasks may
 * use (the placement's, else those the harness may run on), as much as
 * they wanted (ran + waited), less what they ran. NAN each where the
 * system keeps no such account; the CPU lost is NAN too when the account
 * missed tasks of the harness that came and went in the window (threads
 * or children that ran WAIT_UNSEEN of it or more: proc.thread's, made and
 * joined by the operation, can keep the harness waiting with a CPU idle,
 * and their waiting is theirs, not other processes'). */
#define WAIT_MAX_TASKS 128
#define WAIT_UNSEEN 0.05
struct waitmark {
	int n;
	uint64_t t_ns;
	double proc_s, kids_s; /* the harness's CPU, all its threads; its reaped children's */
	struct { int pid, tid; double run_s, wait_s; } t[WAIT_MAX_TASKS];
};
void wait_mark(const struct bench_env *env, struct waitmark *m);
void wait_since(const struct bench_env *env, const struct waitmark *m0, double *run, double *wait,
		double *lost);

/* ---- placement (sweep_place.c) ---- */
/* The record's window for env: opened (the harness's threads and env's
 * peers read), closed (read again, the record made). */
void place_open(const struct bench_env *env);
void place_close(const struct bench_env *env);
/* The last window's record (the caller owns it), or NULL. */
json_t *place_take(void);
/* A peer's tasks read as the window's start (end 0: added in it) or end
 * (1: removed in it, before it is reaped), if env's window is open. */
void place_peer(const struct bench_env *env, const char *side, int pid, int end);
/* A machine-speed probe reading (probe.h) on each of cpus[0..n), the
 * calling thread pinned to each in turn, `passes` times over them (each
 * CPU's reading the part-wise fastest of its passes), into r. 0; -1 when
 * a CPU could not be pinned (the thread is then where the last pinning
 * left it). The point's CPU (sweep.c, probe_before) and the same-placed
 * repetition's CPU (same_pick) are picked so (docs/method.md, "Slowed
 * CPUs"). */
int probe_on_cpus(const int *cpus, int n, int passes, struct probe *r);
/* Pins the bench's own process for its placement (its children inherit
 * it) and records the choice; the CPUs allowed before go to saved, to be
 * restored after teardown (an in-process sweep goes on with other
 * benches). */
void place_bench(const struct bench *b, struct bench_env *env, struct bench_result *out,
		 unsigned char *saved, int *nsaved);

#endif
