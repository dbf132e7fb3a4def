/* SPDX-License-Identifier: MIT */
/* Comparing two latency distributions given as histograms (dense bucket
 * counts in the layout of hist.h), for `scalebench compare`.
 *
 * Test: Mann-Whitney U (Wilcoxon rank-sum). It asks whether a sample of B
 * tends to be larger than a sample of A, makes no assumption about the
 * shape (latencies are skewed and multi-modal), and can be computed from
 * the buckets alone: the samples of one bucket are ties and share the
 * mean of their ranks. The p-value is the two-sided normal approximation
 * with the tie correction of the variance and a continuity correction,
 * good for the sample counts a point holds (>= 30 per side).
 *
 * Effect size: Cliff's delta = P(B > A) - P(B < A) from the same counts,
 * in [-1, 1]; 0 means neither tends to be larger, > 0 that B is slower.
 * |delta| < 0.15 is usually read as negligible, > 0.47 as large.
 *
 * Word: "same" when the medians differ by less than the threshold;
 * "slower"/"faster" when they differ by more, the test is significant at
 * alpha and delta points the same way; "noisy" otherwise (a difference
 * beyond the threshold that the data cannot confirm). */
#ifndef SB_HCMP_H
#define SB_HCMP_H

#include <stdint.h>

struct hcmp {
	uint64_t na, nb;       /* sample counts */
	double med_a, med_b;   /* medians from the buckets (midpoints), ns */
	double p99_a, p99_b;   /* 99th percentiles from the buckets, ns */
	double u;              /* U of A: pairs with a > b, plus half the ties */
	double z, p;           /* standardized U and two-sided p-value */
	double delta;          /* Cliff's delta, B relative to A */
};

/* CMP_INSUFFICIENT: a bench with fewer repetitions a side than compare
 * needs to call a change (compare.c), never a point's word. */
enum cmp_word { CMP_SAME = 0, CMP_FASTER, CMP_SLOWER, CMP_NOISY, CMP_INSUFFICIENT };
#define CMP_NWORDS 5

/* a and b hold nb bucket counts each. Returns -1 when either is empty. */
int hcmp_counts(const uint64_t *a, const uint64_t *b, int nb, struct hcmp *out);
/* Quantile q in [0,1] of dense counts: midpoint of the bucket holding rank
 * ceil(q * total); NAN if total is 0. */
double hcounts_quantile(const uint64_t *c, int nb, uint64_t total, double q);
/* change = med_b / med_a - 1; threshold a fraction (0.05 = 5%). */
enum cmp_word hcmp_word(double change, double p, double delta, double threshold, double alpha);
const char *cmp_word_name(enum cmp_word w);

#endif
