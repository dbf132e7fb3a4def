/* SPDX-License-Identifier: MIT */
/* Each bench sweeps in a worker: a fresh process of this same program,
 * started by exec for one bench (one variant, every repetition), so that
 * no bench measures what an earlier one left in the process (a heap grown
 * by a million file names, thread stacks, a descriptor table of 20,000
 * slots, raised limits) and the process that forks, maps or opens is as
 * small as the program allows. The parent keeps the scratch directory,
 * the snapshot, the progress line and the result; the worker gets its job
 * as JSON on one pipe and hands back progress and its bench as JSON lines
 * on another. */
#ifndef SB_WORKER_H
#define SB_WORKER_H

#include <stddef.h>
#include "core/bench.h"
#include "core/result.h"
#include "core/sweep.h"

/* Parent side, one repetition: repetition r of b in a worker started from
 * exe. br comes described (name, variant, target, params); repetition 0
 * fills it as sweep_bench would, later ones add their repetition (and
 * notes) to it; a worker that dies without handing its bench back leaves a
 * failure of kind "crash" (or, when this run is being stopped by a signal,
 * an interrupted bench). The start of every point goes to so->progress,
 * and the load being built too when want_progress. *stop is set when no
 * further repetition of b should run (skipped, crashed, no worker).
 * 0; 1 if the worker failed as a harness (its message is on stderr);
 * -1 with a message in err if no worker could be started for r = 0.
 * The runner interleaves: repetition r of every bench before r + 1 of any
 * (runner.c), so that a bench's repetitions are spread over the run. */
int worker_rep(const char *exe, const struct bench *b, const struct sweep_opts *so, int r,
	       int want_progress, struct bench_result *br, int *stop, char *err, size_t errlen);

/* One point at N = n in a worker of its own, the load built from zero for
 * it: verdict.h's measure_point (ctx: a struct worker_here) for --decide's
 * rounds and a point measured again. */
struct worker_here {
	const char *exe;
	const struct bench *b;
	const struct sweep_opts *so;
	int want_progress;
	const struct bench_result *br; /* described: name, variant, target, params */
};
int worker_measure_point(void *ctx, uint64_t n, struct point *pt);

/* --mem-limit: every worker started from now on is moved into the cgroup
 * at path (made by sys_memcg_make) before it is given its job; NULL or ""
 * for none. */
void worker_set_cgroup(const char *path);

#endif
