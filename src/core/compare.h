/* SPDX-License-Identifier: MIT */
/* Result against result: see compare.c; the output tree is documented in
 * docs/compare.md. */
#ifndef SB_COMPARE_H
#define SB_COMPARE_H

#include <stdio.h>
#include "core/hcmp.h"
#include "core/result.h"

/* The noise floor of one bench from earlier runs of the same host and
 * configuration (src/core/noise.c computes it; compare only reads it):
 * spread is the standard deviation, over `runs` earlier runs, of each
 * run's level (the mean of ln(median) over the `points` N they all
 * measured), so expm1(k * spread) is a relative change. */
/* The probe parts a history's slope is taken on (noise.c): the page
 * fault (the machine's speed) and the unmap (other CPUs busy: probe.h). */
enum { CMP_SLOPE_FAULT, CMP_SLOPE_UNMAP, CMP_SLOPES };
#define CMP_SLOPE_PART(k) ((k) == CMP_SLOPE_UNMAP ? PROBE_UNMAP : PROBE_FAULT)

/* The slope of a bench's run levels (ln) on one probe part's mean ln time
 * across the runs of a history (noise.c, 5); all NAN when too few runs or
 * a point lacks that part. */
struct cmp_slope {
	double beta;
	/* its standard error: a compare whose sides' probe times differ by d
	 * adds d^2 se^2 to its test's variance, so that a slope the runs
	 * hardly determine (their probe times alike) cannot make a change */
	double se;
	/* the variance of the runs' mean ln probe time: two runs' probe times
	 * differ by 2 xvar in square on average, which the spread as
	 * measured already holds */
	double xvar;
	/* the slope and its error fitted jointly with the other part's (what
	 * this part's time carries with the other's held): the slope a test
	 * that adjusts for the other part leaves in (compare.c, adj_left) */
	double pbeta, pse;
	/* the floor's spread, spread_top and the two beyond the shift with
	 * each run's level adjusted by the slope */
	double spread, spread_top, spread_beyond, spread_top_beyond;
};

struct cmp_floor {
	char key[200]; /* as compare names the bench: name[variant]@target */
	int version;   /* of the bench in those runs */
	int runs, points;
	double spread; /* NAN when fewer than 2 runs or no common N */
	/* the same over the top third of the common N (at least 2) and over
	 * the top two (the top of the sweep, where a decisive change is looked
	 * for); NAN likewise */
	double spread_top, spread_top2;
	/* spread and spread_top with each earlier run's shift taken off (the
	 * median over the benches of how far that run's level sat from their
	 * mean: what the whole run did, as compare's run shift takes it off
	 * the change under test); NAN when fewer than CMP_SCALE_MIN_TESTS
	 * benches had the runs */
	double spread_beyond, spread_top_beyond;
	/* the slopes of the runs' levels on their probe page-fault time and
	 * on their probe unmap time (CMP_SLOPE_*) */
	struct cmp_slope slope[CMP_SLOPES];
};

struct cmp_opts {
	double threshold; /* fraction: 0.05 = a median change under 5% is "same" */
	double alpha;     /* significance level of the tests */
	int min_reps;     /* repetitions a side needed to call a bench's change (0: 3) */
	int strict;       /* fewer than min_reps: judge on the samples of one run */
	/* --noise-floor: floor_k > 0 uses floors[] (nfloors of them, may be 0):
	 * a bench with at least floor_min_runs (0: 3) earlier runs has its
	 * threshold raised to expm1(floor_k * spread) when that is larger. */
	double floor_k;
	int floor_min_runs;
	const struct cmp_floor *floors;
	int nfloors;
	/* --decisive: a change of this factor or more, every repetition of one
	 * side beyond every one of the other, is called with any number of
	 * repetitions (0: from the history's spread, else the default below) */
	double decisive;
	/* --keep-shift: test each bench's whole change, not its change beyond
	 * the run shift (the median change of the compare's benches) */
	int keep_shift;
	/* --unpaired: two sides of one compare --ab run tested as two
	 * independent runs (Welch's test and the run-shift logic), not on
	 * their pairs */
	int unpaired;
	/* --no-probe-adjust: take each repetition's level as measured; by
	 * default it is adjusted for the machine-speed probe's page-fault
	 * time around its points (docs/compare.md, "Probe-adjusted levels") */
	int no_probe_adjust;
};

/* The decisive factor (docs/compare.md, "A large change"): the default,
 * raised by a history to exp(CMP_DECISIVE_SD x the bench's run-to-run
 * spread at the top of the sweep) when that is larger. */
/* The sides' page-fault probe times this far apart (fraction) are named
 * as a caveat when levels were adjusted for them. */
#define CMP_PROBE_FAULT_APART 0.10
/* The sides' probe unmap times (median over the points) this many times
 * apart are named as a caveat: the other CPUs were busier on one side
 * (probe.h, PROBE_UNMAP; ~4x between idle and busy on this project's VM,
 * 100-157 us idle reading to reading). */
#define CMP_PROBE_UNMAP_APART 1.5
#define CMP_DECISIVE_DEFAULT 6.0
#define CMP_DECISIVE_SD 6.0
/* The run shift (the median change of a compare's benches) is the
 * machine's, and taken off each bench's test, when the probe's change
 * between the runs is within this of it; beyond, it is the system's. */
#define CMP_SHIFT_TOLERANCE 0.15
/* The power a bench's detectable change is stated at (docs/compare.md,
 * "Power"): found in 9 of 10 compares. */
#define CMP_POWER 0.9

/* The threshold a bench is judged with: o->threshold, or the noise floor
 * when o->floor_k > 0, f has enough runs and its floor is larger; *used
 * says whether the floor decided it, *floor receives it (NAN: none). */
double compare_threshold(const struct cmp_opts *o, const struct cmp_floor *f, int *used,
			 double *floor);
/* The key compare matches a bench by: "name[variant]" or with "@target". */
const char *compare_bench_key(const struct bench_result *b, char *buf, size_t len);

/* Whether a and b are the two sides of one compare --ab run (their "ab"
 * objects: the same id, different sides): compare then tests each bench
 * on its repetition pairs. */
int compare_ab_paired(const struct run_result *a, const struct run_result *b);

/* A is the baseline, B the candidate; la and lb name them. *regression is
 * set when a bench got slower (a significant change between repetitions,
 * over its sweep or at the top of it: see rep_word in compare.c), or a
 * verdict got significantly worse. A bench with fewer than min_reps
 * repetitions on a side gets the word "insufficient" and cannot be a
 * regression, unless strict. NULL when out of memory. */
json_t *compare_results(const struct run_result *a, const char *la, const struct run_result *b,
			const char *lb, const struct cmp_opts *o, int *regression);

#endif
