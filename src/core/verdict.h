/* SPDX-License-Identifier: MIT */
/* The verdict of a bench, settled in one place.
 *
 * A repetition's verdict is fitted from its points when its sweep ends
 * (rep_fit: sweep.c, tasks.c, and a worker's crash in cmd/worker.c). When
 * the bench's last repetition is in, verdict_bench settles it:
 *   1. the status from the repetitions (failed, interrupted, ok; skipped
 *      stays) and the verdict over all their points pooled (bench_fit:
 *      fit.c for load axes, usl.c for concurrency, the bimodal check, the
 *      control note);
 *   2. --decide (verdict_decides; the default for a run of one repetition
 *      a sweep), sequential testing: an undecided verdict of a load-axis
 *      bench (unclear, or a growing class resting on one sweep with weak
 *      evidence) gets more repetitions, each visiting the bench's N in a
 *      fresh shuffled order, every point measured afresh by the caller's
 *      measure_point (the load built from zero for it), until the verdict
 *      is settled or the budget is spent: once (--quick), twice or three
 *      times (--full) the sweeps' time; a point that would not fit in what
 *      is left is not begun. A note says what was added; the repetitions
 *      are marked added (result.h);
 *   3. settled again.
 * The command supplies how one point is measured: in a worker process of
 * its own (cmd/worker.c, worker_measure_point) or in this process
 * (sweep_measure_point, sweep.h: run --in-process). A point that a
 * machine-speed probe found slow is measured again inside the sweep
 * (sweep.c, measure_probed), not here. */
#ifndef SB_VERDICT_H
#define SB_VERDICT_H

#include <stdint.h>
#include "core/bench.h"
#include "core/result.h"
#include "core/sweep.h"

/* How the caller measures. */
struct verdict_ops {
	void *ctx;
	/* One point at N = n, the load built from zero for it, with the
	 * sweep's options and the bench's parameters: 0 with *pt filled (the
	 * caller hands over what it holds); 1 when there is no point (the
	 * bench failed, was skipped or interrupted: a failure is data of the
	 * sweeps, not of the extra rounds, which stop); -1 on a failure of the
	 * harness (said on stderr), which stops them too. */
	int (*measure_point)(void *ctx, uint64_t n, struct point *pt);
	/* For the note: how each point was measured ("in a fresh worker"). */
	const char *how;
	/* Optional: the time the run has left for rounds over all its benches
	 * (verdict_run_pool), lessened by what each bench's rounds spend;
	 * NULL: no cap beyond each bench's own. */
	uint64_t *pool_ns;
};

/* A repetition's verdict from its own points. */
void rep_fit(struct repetition *rep, int axis_kind);
/* The pooled verdict over all repetitions' points (and the throughput fit
 * of a concurrency axis, bench_usl, result.h). */
void bench_fit(struct bench_result *b);
/* After bench_fit: an unclear verdict whose points sit on two levels gets
 * a reason starting "bimodal: placement" (a side moved, or the levels ran
 * on other CPUs) or "bimodal" (same placement). 1 when it was bimodal. */
int bench_bimodal(struct bench_result *b);
/* For a bench with a control (points with has_ctl): a note "control: ..."
 * with the op's and the control's own verdicts, saying when the control's
 * growth explains the op's; replaces an earlier one; none without. */
void bench_control_note(struct bench_result *b);

/* The bench's status from its repetitions (failed, interrupted, or ok;
 * skipped stays), its pooled verdict and control note; wanted: the
 * repetitions that were to run (fewer after a stop signal: interrupted). */
void verdict_settle(struct bench_result *br, int wanted);
/* Whether verdict_bench may add --decide rounds for b: so->decide (the
 * command's choice: --decide, --full, or no -r), or the bench's
 * BENCH_DECIDE without --no-decide. */
int verdict_decides(const struct bench *b, const struct sweep_opts *so);
/* After verdict_settle: whether verdict_bench will add rounds to br (it
 * decides, the bench's axis can be extended, and the verdict is
 * undecided), so that a caller readies what they need (matrix --fresh: a
 * new file system) only then. */
int verdict_undecided(const struct bench *b, const struct sweep_opts *so,
		      const struct bench_result *br);
/* The run's time for rounds over all its benches, from the time all their
 * sweeps took and the longest bench's: with --quick a fifth of the sweeps'
 * time (the quick suite stays within a fifth above it), or the longest
 * bench's if more (a run of a few benches keeps each bench's own budget),
 * else UINT64_MAX (each bench's own budget alone). A caller with a cap
 * settles the cheapest benches first. */
uint64_t verdict_run_pool(const struct sweep_opts *so, uint64_t sweeps_ns, uint64_t longest_ns);
/* After b's last repetition: settle, then (verdict_decides) the rounds of
 * --decide within once, twice or three times spent_ns (the time its
 * repetitions took), each point by ops->measure_point, and settle again.
 * 0, or 1 when a measurement failed as a harness (said on stderr). */
int verdict_bench(const struct bench *b, const struct sweep_opts *so, struct bench_result *br,
		  uint64_t spent_ns, const struct verdict_ops *ops);
/* For measure_point callbacks: the options of a sweep of the one point n
 * (min_n = max_n = n, one repetition); and its point taken out of the
 * bench result such a sweep filled (0, *pt filled; 1 if it has none: a
 * failure, skip or stop). */
void verdict_point_opts(const struct sweep_opts *so, uint64_t n, struct sweep_opts *one);
int verdict_take_point(struct bench_result *got, struct point *pt);

#endif
