/* SPDX-License-Identifier: MIT */
/* The tasks axis (run --tasks): K processes or threads doing one per-op
 * bench at once, over one timed window; see tasks.c. */
#ifndef SB_TASKS_H
#define SB_TASKS_H

#include <stdint.h>
#include "core/bench.h"
#include "core/result.h"
#include "core/sweep.h"

#define TASKS_MAX 1024 /* largest K */

/* The parameters the tasks axis adds to a bench with .tasks ("as", and
 * "shared" for BENCH_TASKS_DIR), or NULL (param_find falls back to it). */
const struct bench_param_spec *tasks_param_find(const struct bench *b, const char *key);
/* The default largest K: twice the CPUs online, or the CPUs with --quick. */
uint64_t tasks_default_max(int quick);
/* K = 1, 2, 4, ... up to and including max_k; the count written (<= cap). */
int tasks_series(uint64_t max_k, uint64_t *out, int cap);
/* sweep_bench for o->tasks > 0: every repetition sweeps K over
 * tasks_series(o->tasks) at the bench's base load. Same contract as
 * sweep_bench. */
int tasks_sweep(const struct bench *b, const struct sweep_opts *o, struct bench_result *out);
/* A task process started afresh (`scalebench __task FD K BENCH`, started
 * by tasks_sweep): maps the shared memory FD, reads its job there, runs
 * task K of bench b (bench_find of BENCH; NULL: a bad job, said in its
 * slot) and returns 0, or 1 on a failure (in its slot where it could). */
int tasks_child(int fd, int k, const struct bench *b);

#endif
