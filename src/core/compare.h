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
	double alpha;     /* significance level of the test, per point */
};

/* A is the baseline, B the candidate; la and lb name them. *regression is
 * set when a bench got slower (broadly, or at the top of its sweep: see
 * bench_word in compare.c), or a verdict got significantly worse. NULL
 * when out of memory. */
json_t *compare_results(const struct run_result *a, const char *la, const struct run_result *b,
			const char *lb, const struct cmp_opts *o, int *regression);

/* src/out/compare_text.c: the tree as a table for people. */
void compare_print_text(const json_t *c, FILE *f);

#endif
