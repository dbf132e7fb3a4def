/* SPDX-License-Identifier: MIT */
/* Histogram: quantiles against exact quantiles of random data (the error
 * bound holds), merge is exact, bucket layout is consistent. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/hist.h"
#include "t.h"

static uint64_t rng = 88172645463325252ull;
static double urand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}
static double nrand(void) { return sqrt(-2 * log(urand())) * cos(2 * M_PI * urand()); }

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void check_quantiles(const char *what, double *v, int n)
{
	struct hist *h = hist_new();
	for (int i = 0; i < n; i++)
		hist_add(h, v[i]);
	qsort(v, (size_t)n, sizeof(*v), cmp);
	static const double qs[] = {0.01, 0.1, 0.5, 0.9, 0.99, 0.999};
	double worst = 0;
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		double exact = v[(size_t)ceil(qs[k] * n) - 1];
		double est = hist_quantile(h, qs[k]);
		double rel = fabs(est - exact) / exact;
		if (rel > worst)
			worst = rel;
	}
	CHECK(worst <= 0.01, "%s: worst quantile error %.4f > 1%%", what, worst);
	CHECK(worst <= 0.5 / HIST_SUB + 1e-12, "%s: worst quantile error %.5f beyond half a bucket", what, worst);
	CHECK(h->min == v[0] && h->max == v[n - 1], "%s: min/max exact", what);
	double mean = 0;
	for (int i = 0; i < n; i++)
		mean += v[i];
	mean /= n;
	CHECK(fabs(h->mean - mean) / mean < 1e-9, "%s: mean %.6f vs %.6f", what, h->mean, mean);
	hist_free(h);
}

int main(void)
{
	enum { N = 200000 };
	double *v = malloc(N * sizeof(*v));
	for (int i = 0; i < N; i++)
		v[i] = 100 + 9900 * urand(); /* uniform 100 ns .. 10 us */
	check_quantiles("uniform", v, N);
	for (int i = 0; i < N; i++)
		v[i] = exp(7 + 1.5 * nrand()); /* lognormal around 1 us, heavy tail */
	check_quantiles("lognormal", v, N);
	for (int i = 0; i < N; i++)
		v[i] = (urand() < 0.7 ? 1000 : 50000) * (1 + 0.05 * nrand()); /* bimodal */
	check_quantiles("bimodal", v, N);
	for (int i = 0; i < N; i++)
		v[i] = 0.2 + 3 * urand(); /* sub-ns batch-timed values */
	check_quantiles("sub-ns", v, N);

	/* bucket layout: contiguous, increasing, width <= 1/HIST_SUB of lo */
	int ok = 1;
	for (int i = 0; i + 1 < HIST_NBUCKETS; i++) {
		double lo = hist_bucket_lo(i), hi = hist_bucket_hi(i);
		if (hi != hist_bucket_lo(i + 1) || !(hi > lo) || (hi - lo) / lo > 1.0 / HIST_SUB + 1e-12)
			ok = 0;
		double mid = 0.5 * (lo + hi);
		if (hist_bucket_of(mid) != i)
			ok = 0;
	}
	CHECK(ok, "bucket bounds contiguous and round-trip");
	CHECK(hist_bucket_of(1e-9) == 0 && hist_bucket_of(NAN) == 0, "underflow to bucket 0");
	CHECK(hist_bucket_of(1e30) == HIST_NBUCKETS - 1, "overflow to the last bucket");

	/* merge equals adding everything to one */
	struct hist *a = hist_new(), *b = hist_new(), *all = hist_new();
	for (int i = 0; i < 10000; i++) {
		double x = exp(6 + nrand());
		hist_add(i % 3 ? a : b, x);
		hist_add(all, x);
	}
	hist_merge(a, b);
	CHECK(a->count == all->count && !memcmp(a->bins, all->bins, sizeof(a->bins)), "merge: same bins");
	CHECK(fabs(a->mean - all->mean) / all->mean < 1e-9, "merge: mean");
	CHECK(fabs(a->m2 - all->m2) / all->m2 < 1e-6, "merge: variance");
	CHECK(a->min == all->min && a->max == all->max, "merge: min/max");

	/* summary and median CI */
	struct stats s;
	hist_summary(all, &s);
	CHECK(s.med_lo <= s.p50 && s.p50 <= s.med_hi, "median inside its CI");
	CHECK(s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.p999 && s.p999 <= s.max, "quantiles ordered");
	CHECK(s.cv > 0 && fabs(s.cv - s.stddev / s.mean) < 1e-12, "cv = stddev/mean");
	CHECK(s.p999 <= s.p9999 && s.p9999 <= s.max, "p99.99 between p99.9 and max");
	/* p99.99 of 1..20000 us: rank 19998, within the bucket error of 19998 us */
	hist_reset(all);
	for (int i = 1; i <= 20000; i++)
		hist_add(all, 1000.0 * i);
	hist_summary(all, &s);
	CHECK(fabs(s.p9999 / 19998e3 - 1) < 0.004, "p99.99 %.0f ns ~ 19998 us", s.p9999);
	CHECK(fabs(s.p999 / 19980e3 - 1) < 0.004, "p99.9 %.0f ns ~ 19980 us", s.p999);
	hist_reset(all);
	for (int i = 0; i < 100000; i++)
		hist_add(all, 1000 * (1 + 0.01 * nrand()));
	CHECK(hist_median_ci_rel(all) < 0.005, "tight data: CI %.4f", hist_median_ci_rel(all));
	/* two values 0.3% apart in one bucket ([1000, 1004) ns): the CI is what
	 * the bucket can tell (here min to max), never zero wide */
	hist_reset(all);
	for (int i = 0; i < 300; i++)
		hist_add(all, i % 2 ? 1003.0 : 1000.0);
	CHECK(hist_bucket_of(1000.0) == hist_bucket_of(1003.0), "1000 and 1003 ns share a bucket");
	hist_summary(all, &s);
	CHECK(s.med_lo == 1000.0 && s.med_hi == 1003.0, "one-bucket CI: [%g, %g]", s.med_lo, s.med_hi);
	CHECK(hist_median_ci_rel(all) > 0.001, "one-bucket CI not zero: %.5f", hist_median_ci_rel(all));
	/* all equal: the median is known exactly */
	hist_reset(all);
	for (int i = 0; i < 300; i++)
		hist_add(all, 1000.0);
	CHECK(hist_median_ci_rel(all) == 0, "identical samples: CI %.5f", hist_median_ci_rel(all));
	/* spread over many buckets: the CI holds the median and its half-width
	 * is at least half a bucket */
	hist_reset(all);
	for (int i = 0; i < 100000; i++)
		hist_add(all, 1000 * (1 + 0.01 * nrand()));
	hist_summary(all, &s);
	CHECK(s.med_lo <= s.p50 && s.p50 <= s.med_hi && (s.med_hi - s.med_lo) / 2 / s.p50 >= 0.5 / HIST_SUB / 2,
	      "bucket-edge CI holds the median: [%g, %g] around %g", s.med_lo, s.med_hi, s.p50);
	hist_reset(all);
	CHECK(isnan(hist_quantile(all, 0.5)) && isinf(hist_median_ci_rel(all)), "empty histogram");
	CHECK(sizeof(struct hist) < 64 * 1024, "constant memory: %zu bytes", sizeof(struct hist));

	/* a reset clears only the buckets in use, and leaves the histogram as
	 * good as new: reuse it on values far from the first ones */
	struct hist *fresh = hist_new();
	CHECK(fresh->lo > fresh->hi, "new histogram: no bucket in use");
	hist_reset(a);
	for (int i = 0; i < 1000; i++) {
		double x = 50 * (1 + 0.1 * nrand());
		hist_add(a, x);
		hist_add(fresh, x);
	}
	hist_add(a, 3e9);
	hist_add(fresh, 3e9);
	CHECK(a->lo == hist_bucket_of(a->min) && a->hi == hist_bucket_of(3e9), "range in use: [%d, %d]",
	      a->lo, a->hi);
	CHECK(!memcmp(a->bins, fresh->bins, sizeof(a->bins)), "reused after a reset: same bins as a new one");
	CHECK(hist_quantile(a, 0.5) == hist_quantile(fresh, 0.5) && hist_quantile(a, 0.999) == hist_quantile(fresh, 0.999),
	      "reused after a reset: same quantiles as a new one");
	hist_reset(b);
	hist_add(b, 1e6);
	hist_merge(b, fresh);
	CHECK(b->lo == fresh->lo && b->hi == fresh->hi && b->count == 1002, "merge widens the range in use");
	hist_reset(a);
	int clean = a->lo > a->hi;
	for (int i = 0; i < HIST_NBUCKETS; i++)
		clean &= a->bins[i] == 0;
	CHECK(clean, "reset: every bucket zero, none in use");
	hist_free(fresh);
	hist_free(a);
	hist_free(b);
	hist_free(all);
	free(v);
	return t_done("hist");
}
