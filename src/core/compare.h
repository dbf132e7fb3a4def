/* SPDX-License-Identifier: MIT */
/* Result against result: see compare.c; the output tree is documented in
 * docs/compare.md. */
#ifndef SB_COMPARE_H
#define SB_COMPARE_H

#include <stdio.h>
#include "hcmp.h"
#include "result.h"

struct cmp_opts {
	double threshold; /* fraction: 0.05 = a median change under 5% is "same" */
	double alpha;     /* significance level of the tests */
	int min_reps;     /* repetitions a side needed to call a bench's change (0: 3) */
	int strict;       /* fewer than min_reps: judge on the samples of one run */
};

/* A is the baseline, B the candidate; la and lb name them. *regression is
 * set when a bench got slower (a significant change between repetitions,
 * over its sweep or at the top of it: see rep_word in compare.c), or a
 * verdict got significantly worse. A bench with fewer than min_reps
 * repetitions on a side gets the word "insufficient" and cannot be a
 * regression, unless strict. NULL when out of memory. */
json_t *compare_results(const struct run_result *a, const char *la, const struct run_result *b,
			const char *lb, const struct cmp_opts *o, int *regression);

#endif
