/* The sweep driver: runs one bench over its geometric series of N. */
#ifndef SB_SWEEP_H
#define SB_SWEEP_H

#include <stdint.h>
#include "bench.h"
#include "result.h"

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
	double budget_s;         /* sampling budget per point */
	int quick, full;
	int repeat;              /* repetitions of the sweep, >= 1 */
	double ci_target;        /* relative half-width of the median's CI, 0.02 */
	uint64_t min_samples;    /* before the CI may stop a point */
	double op_timeout_s;     /* one op longer than this is a failure */
	const struct clock_info *clk;
	void (*progress)(void *ctx, const struct sweep_progress *p);
	void *progress_ctx;
};

/* Geometric 1-2-5 series up to and including max_n; returns the count
 * written to out (at most cap). */
int sweep_series(uint64_t max_n, uint64_t *out, int cap);
uint64_t sweep_max_n(const struct bench *b, const struct sweep_opts *o);

/* Fills out (name, reps, points, verdicts, failure). Returns 0; a
 * recorded failure is data, not an error. -errno only for the harness's
 * own failures (scratch directory, memory). */
int sweep_bench(const struct bench *b, const struct sweep_opts *o, struct bench_result *out);

#endif
