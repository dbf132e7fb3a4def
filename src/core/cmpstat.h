/* SPDX-License-Identifier: MIT */
/* The pure statistics of compare (src/core/compare.c): Welch's test of two
 * sets of levels, the moderation of a family's variances, the run-effect
 * scale, Holm's adjustment. Numbers in, numbers out: no result, no JSON;
 * tests/unit/test_cmpstat.c checks each on synthetic data. The method and
 * why each step is there: docs/compare.md, "The bench's word". */
#ifndef SB_CMPSTAT_H
#define SB_CMPSTAT_H

/* Tests a family needs before its run effect and variance prior are
 * estimated (below: neither, each test alone). */
#define CMP_SCALE_MIN_TESTS 8

struct cmp_welch {
	double change; /* exp(mean B - mean A) - 1 */
	double t, df, p;
	double se2; /* the squared standard error of the difference of means */
};

/* A test as the family sees it: a log change, its squared standard error
 * and degrees of freedom (after moderation: Welch's plus the prior's). */
struct cmp_test {
	double d;   /* log(1 + change) */
	double se2;
	double df;
};

/* The median of v[0..k) (reordered), k > 0. */
double cmp_median(double *v, int k);
/* Mean and sample variance (0 for one value) of x[0..k), k >= 1. */
void cmp_mean_var(const double *x, int k, double *m, double *v);
/* Welch's t-test of b against a (levels, k >= 2 a side; with one a side
 * the variance is 0 and p is 0 or 1). */
void cmp_welch(const double *a, int ka, const double *b, int kb, struct cmp_welch *w);
/* The paired test (compare --ab): a one-sample t-test of the k
 * differences d[i] = B's level minus A's in pair i (k >= 2; df = k - 1),
 * into w as Welch's (change = exp(mean d) - 1, se2 = var d / k). With one
 * pair, or identical differences, se2 is 0 and p is 0 or 1. */
void cmp_paired(const double *d, int k, struct cmp_welch *w);
/* Two-sided p of a test with its variance multiplied by scale. */
double cmp_test_p(const struct cmp_test *f, double scale);
/* Empirical-Bayes moderation of the variances of k tests (Smyth 2004):
 * with CMP_SCALE_MIN_TESTS or more, each se2 becomes (d0 s0^2 + df se2) /
 * (d0 + df), never smaller than its own, and df gains d0; *d0 (0: none). */
void cmp_moderate(struct cmp_test *f, int k, double *d0);
/* The run shift of k tests: the median of their d (what the whole run
 * moved: the machine's speed in that stretch, its load), at least
 * CMP_SCALE_MIN_TESTS of them (else 0), taken off each d so that a bench
 * is tested on what it did beyond the others; returns it. */
double cmp_center(struct cmp_test *f, int k);
/* The run-effect scale of k tests: the factor (>= 1) on every variance
 * that makes the median p 1/2 (an empirical null, centre kept at 0);
 * 1 with fewer than CMP_SCALE_MIN_TESTS tests. */
double cmp_run_scale(const struct cmp_test *f, int k);
/* Holm's step-down adjustment of m p-values into padj (may be p). */
void cmp_holm(const double *p, int m, double *padj);
/* The smallest |log change| a two-sided test at level alpha finds with
 * probability power, given its standard error se and df: (t(1 - alpha/2)
 * + t(power)) se. NAN when se or df cannot give one. */
double cmp_detectable(double se, double df, double alpha, double power);
/* compare --ab --detect: the pairs a bench with `have` pairs should have
 * when its test finds det (a change, any unit; INFINITY: too few pairs to
 * test) and target is wanted: have when det <= target (or det is NAN),
 * else have x (det / target)^2 (the change found falls as 1/sqrt(pairs)),
 * at most 2 x have and at most max. */
int cmp_pairs_wanted(int have, double det, double target, int max);

double cmp_digamma(double x);
double cmp_trigamma(double x);
double cmp_trigamma_inv(double y); /* the x > 0 with trigamma(x) = y > 0 */

#endif
