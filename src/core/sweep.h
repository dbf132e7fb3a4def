/* SPDX-License-Identifier: MIT */
/* The sweep driver: runs one bench over its geometric series of N. */
#ifndef SB_SWEEP_H
#define SB_SWEEP_H

#include <stdint.h>
#include "core/bench.h"
#include "core/result.h"
#include "core/usage.h"
#include "core/probe.h"

struct sweep_progress {
	const char *bench;
	int rep, nreps;
	uint64_t n;        /* current point (or load being built) */
	int point, npoints;
	int growing;       /* 1 while the load is being built */
};

struct sweep_opts {
	const char *scratch;     /* the run's scratch directory */
	uint64_t max_n;          /* 0: the bench's default for quick/full */
	uint64_t min_n;          /* points below it are skipped (0: none) */
	double budget_s;         /* sampling budget per point */
	double run_budget_s;     /* the same for benches that spend it all (BENCH_FULL_BUDGET); 0: budget_s */
	int quick, full;
	int repeat;              /* repetitions of the sweep, >= 1 */
	int rep_first;           /* sweep_bench runs repetitions rep_first .. */
	int rep_count;           /* .. rep_first + rep_count - 1 (0: to the last) */
	double ci_target;        /* relative half-width of the median's CI, 0.02 */
	uint64_t min_samples;    /* before the CI may stop a point */
	double op_timeout_s;     /* one op longer than this is a failure */
	int decide;              /* an undecided verdict: more repetitions, N shuffled (verdict.c) */
	int no_decide;           /* not even for a bench with BENCH_DECIDE */
	int fresh_rounds;        /* --decide's rounds run on a file system made for them (matrix --fresh) */
	double max_latency_ns;   /* --max-latency (0: none), handed to the bench */
	uint64_t tasks;          /* run --tasks: largest K (0: the load sweep); tasks.c */
	int profile;             /* run --profile: profiled points in the last repetition (profile.h) */
	const char *profile_at;  /* run --profile-at: the N also profiled ("100,3000"), or NULL */
	int profile_apart;       /* run --profile-apart: a whole workload (BENCH_WHOLE_RUN) is
				  * profiled in points apart too, not in its timed points */
	const char *exe;         /* scalebench's binary, which runs `__task` (tasks.c): task
				  * processes start afresh from it; NULL: they are copies */
	const struct bench_net *net; /* handed to the bench as env->net; NULL: IPv4 loopback */
	const struct clock_info *clk;
	/* the machine-speed probe's reference reading (probe.h), the run's;
	 * has_probe_ref 0: the sweep takes its own at its start. A point whose
	 * probe reads PROBE_SLOW times slower is measured again (no_remeasure:
	 * never) while the time spent so is within remeasure_frac of the
	 * repetition's */
	struct probe probe_ref;
	int has_probe_ref;
	int no_remeasure;
	double remeasure_frac;   /* 0: the default (0.25 with quick, else 0.5) */
	void (*progress)(void *ctx, const struct sweep_progress *p);
	void *progress_ctx;
};

/* Geometric 1-2-5 series up to and including max_n; returns the count
 * written to out (at most cap). */
int sweep_series(uint64_t max_n, uint64_t *out, int cap);
uint64_t sweep_max_n(const struct bench *b, const struct sweep_opts *o);
/* The bench's own series (its min_n, kind, BENCH_FROM_ZERO) up to max_n. */
int sweep_series_for(const struct bench *b, uint64_t max_n, uint64_t *out, int cap);
/* Parameters of one variant ("k=v,k=v" or NULL) with the run's -p
 * overrides applied. 0 and *out set; 1 if the variant disagrees with an
 * override (skip it); -EINVAL if the variant string is malformed. */
int sweep_params(const char *variant, const json_t *overrides, json_t **out);

/* Fills out (reps, points, verdicts, failure; out->params, if set, are
 * the variant's parameters given to the bench). Returns 0; a
 * recorded failure is data, not an error. -errno only for the harness's
 * own failures (scratch directory, memory). */
/* The network settings a bench gets as env->net: o->net, or IPv4 on
 * loopback when the caller gave none (never NULL). */
/* A point's CPU, context switches and faults per op from the counters
 * accumulated over its window (the load sweep's and the tasks sweep's). */
void point_usage(struct point *p, const struct usage_acc *acc, double ops,
		 enum usage_counter c, enum usage_scope sc);
const struct bench_net *sweep_net(const struct sweep_opts *o);
int sweep_bench(const struct bench *b, const struct sweep_opts *o, struct bench_result *out);
/* First-failure data: the fields as given (call NULL: "?"), and the state
 * of the system right now. NULL if out of memory. */
struct failure *sweep_failure(const char *phase, const char *call, const char *kind, uint64_t n,
			      int err, const char *msg);
/* The same, its kind and message from errno (the sweep's own wording). */
struct failure *sweep_failure_errno(const char *phase, const char *call, uint64_t n, int err);
/* One point at N = n measured in this process, the load built from zero
 * for it: verdict.h's measure_point for a run without workers (ctx: a
 * struct sweep_here; the point gets br's parameters). */
struct sweep_here {
	const struct bench *b;
	const struct sweep_opts *so;
	const struct bench_result *br;
};
int sweep_measure_point(void *ctx, uint64_t n, struct point *pt);


#endif
