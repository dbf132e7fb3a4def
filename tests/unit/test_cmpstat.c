/* SPDX-License-Identifier: MIT */
/* Unit tests of compare's pure statistics (src/core/cmpstat.c): Welch's
 * test against a case worked by hand, the special functions against their
 * known values, Holm's adjustment on a worked example, the moderation and
 * the run-effect scale on seeded synthetic families whose true variance
 * and scale are known, and the detectable change against simulated tests
 * (a change of exactly the detectable size is found at the stated power). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/cmpstat.h"
#include "t.h"

static uint64_t rng_next(uint64_t *s) /* splitmix64 */
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double unif(uint64_t *s) { return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0; }

static double gauss(uint64_t *s) /* Box-Muller */
{
	return sqrt(-2 * log(unif(s))) * cos(6.283185307179586 * unif(s));
}

static void test_welch(void)
{
	double a[] = {1, 2, 3}, b[] = {4, 5, 6}, m, v;
	cmp_mean_var(a, 3, &m, &v);
	CHECK(fabs(m - 2) < 1e-12 && fabs(v - 1) < 1e-12, "mean %g var %g", m, v);
	cmp_mean_var(a, 1, &m, &v);
	CHECK(m == 1 && v == 0, "one value: mean %g var %g", m, v);
	/* by hand: se2 = 1/3 + 1/3, t = 3 / sqrt(2/3) = 3.674, df = (2/3)^2 /
	 * (2 (1/3)^2 / 2) = 4, two-sided p(t 3.674, 4 df) = 0.02131 */
	struct cmp_welch w;
	cmp_welch(a, 3, b, 3, &w);
	CHECK(fabs(w.t - 3.674235) < 1e-5, "t %g", w.t);
	CHECK(fabs(w.df - 4) < 1e-9, "df %g", w.df);
	CHECK(fabs(w.p - 0.02131) < 2e-4, "p %g", w.p);
	CHECK(fabs(w.se2 - 2.0 / 3) < 1e-12, "se2 %g", w.se2);
	CHECK(fabs(w.change - expm1(3)) < 1e-9, "change %g", w.change);
	cmp_welch(a, 3, a, 3, &w);
	CHECK(w.t == 0 && fabs(w.p - 1) < 1e-12 && w.change == 0, "a against a: t %g p %g", w.t, w.p);
	double c[] = {2, 2}, d[] = {3, 3};
	cmp_welch(c, 2, d, 2, &w);
	CHECK(isinf(w.t) && w.t > 0 && w.p == 0, "identical repetitions apart: t %g p %g", w.t, w.p);
	cmp_welch(c, 2, c, 2, &w);
	CHECK(w.p == 1, "identical repetitions equal: p %g", w.p);
	/* the scale divides t by its square root: scale 4 gives t / 2 */
	struct cmp_test f = {3, 2.0 / 3, 4};
	double p1 = cmp_test_p(&f, 1), p4 = cmp_test_p(&f, 4);
	struct cmp_test h = {1.5, 2.0 / 3, 4};
	CHECK(fabs(p1 - 0.02131) < 2e-4 && fabs(p4 - cmp_test_p(&h, 1)) < 1e-12, "scaled p %g %g", p1, p4);
	struct cmp_test z = {0, 0, 4}, nz = {0.1, 0, 4};
	CHECK(cmp_test_p(&z, 1) == 1 && cmp_test_p(&nz, 1) == 0, "zero variance");
}

static void test_special(void)
{
	CHECK(fabs(cmp_digamma(1) + 0.5772156649015329) < 1e-10, "digamma(1) %.12f", cmp_digamma(1));
	CHECK(fabs(cmp_digamma(0.5) + 1.9635100260214235) < 1e-10, "digamma(1/2) %.12f", cmp_digamma(0.5));
	CHECK(fabs(cmp_trigamma(1) - 1.6449340668482264) < 1e-8, "trigamma(1) %.12f", cmp_trigamma(1));
	CHECK(fabs(cmp_trigamma(0.5) - 4.934802200544679) < 1e-9, "trigamma(1/2) %.12f", cmp_trigamma(0.5));
	for (double x = 0.05; x < 200; x *= 3.7)
		CHECK(fabs(cmp_trigamma_inv(cmp_trigamma(x)) / x - 1) < 1e-6, "trigamma_inv at %g: %g", x,
		      cmp_trigamma_inv(cmp_trigamma(x)));
}

static void test_holm(void)
{
	/* sorted 0.005 x4 = 0.02, 0.01 x3 = 0.03, 0.03 x2 = 0.06, 0.04 x1 =
	 * 0.04 -> 0.06 (monotone) */
	double p[] = {0.01, 0.04, 0.03, 0.005}, q[4], want[] = {0.03, 0.06, 0.06, 0.02};
	cmp_holm(p, 4, q);
	for (int i = 0; i < 4; i++)
		CHECK(fabs(q[i] - want[i]) < 1e-12, "holm %d: %g, want %g", i, q[i], want[i]);
	double big[] = {0.5, 0.9}, r[2];
	cmp_holm(big, 2, r);
	CHECK(r[0] == 1 && r[1] == 1, "capped at 1: %g %g", r[0], r[1]);
	cmp_holm(p, 4, p); /* in place */
	CHECK(fabs(p[3] - 0.02) < 1e-12, "in place %g", p[3]);
}

/* A family of k tests with true standard error se (each estimated from df
 * degrees of freedom) and changes of sd sqrt(scale) se: what the moderation
 * and the scale should see. */
static void family(struct cmp_test *f, int k, double se, double df, double scale, uint64_t *s)
{
	for (int i = 0; i < k; i++) {
		double chi = 0;
		for (int j = 0; j < (int)df; j++) {
			double g = gauss(s);
			chi += g * g;
		}
		f[i] = (struct cmp_test){sqrt(scale) * se * gauss(s), se * se * chi / df, df};
	}
}

static void test_moderate_scale(void)
{
	uint64_t s = 42;
	struct cmp_test f[400];
	double d0;
	/* equal true variances: a large prior, every variance close to se^2 */
	family(f, 400, 0.05, 4, 1, &s);
	int raw = 0, near = 0, below = 0;
	for (int i = 0; i < 400; i++)
		raw += fabs(sqrt(f[i].se2) / 0.05 - 1) < 0.25;
	cmp_moderate(f, 400, &d0);
	CHECK(d0 > 30, "equal variances: d0 %g", d0);
	for (int i = 0; i < 400; i++) {
		near += fabs(sqrt(f[i].se2) / 0.05 - 1) < 0.25;
		below += sqrt(f[i].se2) < 0.05 * 0.9;
	}
	/* 4 df alone: about 45% within 25% of the truth; moderated, every
	 * variance under the truth is raised to it (those above keep their own) */
	CHECK(near >= raw + 80 && below <= 8, "moderated se within 25%% of the truth: %d of 400 (raw %d), "
	      "%d more than 10%% under it", near, raw, below);
	CHECK(f[0].df > 30, "df gains the prior's: %g", f[0].df);
	/* never smaller than a test's own variance */
	struct cmp_test g[20];
	for (int i = 0; i < 20; i++)
		g[i] = (struct cmp_test){0, i == 0 ? 1.0 : 1e-4 * (1 + 0.1 * i), 4};
	cmp_moderate(g, 20, &d0);
	CHECK(g[0].se2 >= 1.0, "an outlier keeps its own variance: %g", g[0].se2);
	/* too few tests: nothing changes */
	struct cmp_test few[5] = {{0, 1, 4}, {0, 2, 4}, {0, 3, 4}, {0, 4, 4}, {0, 5, 4}};
	cmp_moderate(few, 5, &d0);
	CHECK(d0 == 0 && few[2].se2 == 3 && few[2].df == 4, "five tests: d0 %g", d0);
	CHECK(cmp_run_scale(few, 5) == 1, "five tests: scale 1");
	/* the run effect: changes 2x the standard error's sd (variance 4x) */
	family(f, 400, 0.05, 1000, 4, &s);
	double sc = cmp_run_scale(f, 400);
	CHECK(sc > 3 && sc < 5.3, "scale 4 measured %g", sc);
	family(f, 400, 0.05, 1000, 1, &s);
	sc = cmp_run_scale(f, 400);
	CHECK(sc >= 1 && sc < 1.4, "no run effect: scale %g", sc);
}

static void test_detectable(void)
{
	double d = cmp_detectable(0.1, 1000, 0.05, 0.5);
	CHECK(fabs(d - 0.196) < 0.002, "power 1/2 at alpha 5%%: %g (1.96 se)", d);
	d = cmp_detectable(0.1, 1000, 0.05, 0.8);
	CHECK(fabs(d - 0.2803) < 0.003, "power 0.8: %g (2.80 se)", d);
	CHECK(cmp_detectable(0.1, 4, 0.05, 0.8) > cmp_detectable(0.1, 40, 0.05, 0.8), "fewer df, larger");
	CHECK(isnan(cmp_detectable(0, 4, 0.05, 0.8)) && isnan(cmp_detectable(0.1, 0.5, 0.05, 0.8)),
	      "no se or df: NAN");
	/* simulated: a true change of the detectable size, se known, tested at
	 * alpha with the t of 6 df: found in about `power` of the trials */
	uint64_t s = 7;
	double se = 0.04, df = 6, alpha = 0.01, power = 0.9;
	d = cmp_detectable(se, df, alpha, power);
	int found = 0, n = 4000;
	for (int i = 0; i < n; i++) {
		double chi = 0;
		for (int j = 0; j < (int)df; j++) {
			double g = gauss(&s);
			chi += g * g;
		}
		struct cmp_test f = {d + se * gauss(&s), se * se * chi / df, df};
		found += cmp_test_p(&f, 1) < alpha;
	}
	/* the detectable size is the usual approximation (t quantiles added);
	 * with 6 df it is close to exact */
	CHECK(found > 0.86 * n && found < 0.95 * n, "found %d of %d at the detectable change %g", found, n, d);
}

/* The run shift: the median d of 8 or more tests, taken off each. */
static void test_center(void)
{
	struct cmp_test f[9];
	for (int i = 0; i < 9; i++)
		f[i] = (struct cmp_test){0.1 * i, 0.01, 4};
	double g = cmp_center(f, 9);
	CHECK(fabs(g - 0.4) < 1e-12 && fabs(f[0].d + 0.4) < 1e-12 && fabs(f[8].d - 0.4) < 1e-12,
	      "median of 0..0.8 taken off: %g (f0 %g, f8 %g)", g, f[0].d, f[8].d);
	CHECK(f[3].se2 == 0.01 && f[3].df == 4, "variances and df kept");
	g = cmp_center(f, 8); /* even: the mean of the middle two */
	CHECK(fabs(g - (-0.05)) < 1e-12, "8 tests: mean of the middle two: %g", g);
	struct cmp_test few[7] = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
	CHECK(cmp_center(few, 7) == 0 && few[0].d == 1, "under CMP_SCALE_MIN_TESTS: no shift");
}

/* The paired test: a one-sample t of the pairs' differences, df = k - 1;
 * a drift shared by both sides of every pair is not in them. */
static void test_paired(void)
{
	double d[4] = {0.1, 0.2, 0.3, 0.4};
	struct cmp_welch w;
	cmp_paired(d, 4, &w);
	CHECK(fabs(w.t - 3.872983) < 1e-5 && w.df == 3 && fabs(w.p - 0.030466) < 2e-4,
	      "paired t %g df %g p %g (3.873, 3, 0.0305)", w.t, w.df, w.p);
	CHECK(fabs(w.se2 - 0.05 / 12) < 1e-12 && fabs(w.change - expm1(0.25)) < 1e-12,
	      "se2 %g change %g", w.se2, w.change);
	/* levels drifting 30% between pairs, B 2% above A in each: the
	 * differences are all 0.02, Welch's test of the same levels sees the
	 * drift and nothing else */
	double la[4] = {0, 0.3, -0.2, 0.1}, lb[4], dd[4];
	for (int i = 0; i < 4; i++) {
		lb[i] = la[i] + 0.02 + 0.001 * (i % 2);
		dd[i] = lb[i] - la[i];
	}
	struct cmp_welch u;
	cmp_paired(dd, 4, &w);
	cmp_welch(la, 4, lb, 4, &u);
	CHECK(w.p < 1e-4 && u.p > 0.5, "drift shared by the pairs: paired p %g, Welch %g", w.p, u.p);
	double one[1] = {0.1};
	cmp_paired(one, 1, &w);
	CHECK(w.se2 == 0 && w.p == 0 && w.df == 0, "one pair: no variance (p %g)", w.p);
}

int main(void)
{
	test_paired();
	test_center();
	test_welch();
	test_special();
	test_holm();
	test_moderate_scale();
	test_detectable();
	return t_done("test_cmpstat");
}
