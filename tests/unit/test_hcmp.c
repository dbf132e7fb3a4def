/* SPDX-License-Identifier: MIT */
/* The comparison statistics on synthetic histograms with known shifts:
 * Mann-Whitney U from bucket counts, Cliff's delta, and the word. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/hcmp.h"
#include "core/hist.h"
#include "t.h"

static uint64_t rng = 88172645463325252ull;

static double uniform(void) /* xorshift64, in (0,1) */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

/* Log-normal latencies around median ns with spread sigma (log units). */
static void fill(struct hist *h, int n, double median, double sigma)
{
	hist_reset(h);
	for (int i = 0; i < n; i++) {
		double z = sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
		hist_add(h, median * exp(sigma * z));
	}
}

static void compare(const struct hist *a, const struct hist *b, struct hcmp *c)
{
	CHECK(hcmp_counts(a->bins, b->bins, HIST_NBUCKETS, c) == 0, "counts");
}

int main(void)
{
	struct hist *a = hist_new(), *b = hist_new();
	struct hcmp c;

	/* identical histograms: U at its mean, p = 1, delta 0, "same" */
	fill(a, 2000, 10000, 0.1);
	memcpy(b, a, sizeof(*a));
	compare(a, b, &c);
	CHECK(c.p > 0.99, "p %g", c.p);
	CHECK(fabs(c.delta) < 1e-12, "delta %g", c.delta);
	CHECK(c.med_a == c.med_b, "medians");
	CHECK(hcmp_word(c.med_b / c.med_a - 1, c.p, c.delta, 0.05, 0.01) == CMP_SAME, "same");

	/* two samples of one distribution: not significant, "same" */
	fill(b, 2000, 10000, 0.1);
	compare(a, b, &c);
	CHECK(c.p > 0.001, "same distribution: p %g", c.p);
	CHECK(fabs(c.delta) < 0.1, "delta %g", c.delta);
	CHECK(hcmp_word(c.med_b / c.med_a - 1, c.p, c.delta, 0.05, 0.01) == CMP_SAME, "same");

	/* B 20% slower: p tiny, delta large and positive, "slower" */
	fill(b, 2000, 12000, 0.1);
	compare(a, b, &c);
	double ch = c.med_b / c.med_a - 1;
	CHECK(fabs(ch - 0.2) < 0.03, "median change %g", ch);
	CHECK(c.p < 1e-10, "p %g", c.p);
	CHECK(c.z > 5, "z %g", c.z);
	CHECK(c.delta > 0.6, "delta %g", c.delta);
	CHECK(hcmp_word(ch, c.p, c.delta, 0.05, 0.01) == CMP_SLOWER, "slower");
	/* and the other way round: "faster", with the signs flipped */
	compare(b, a, &c);
	ch = c.med_b / c.med_a - 1;
	CHECK(c.delta < -0.6 && c.z < -5, "delta %g z %g", c.delta, c.z);
	CHECK(hcmp_word(ch, c.p, c.delta, 0.05, 0.01) == CMP_FASTER, "faster");

	/* 2% slower with 5% threshold: significant with many samples, still "same" */
	fill(a, 20000, 10000, 0.05);
	fill(b, 20000, 10200, 0.05);
	compare(a, b, &c);
	ch = c.med_b / c.med_a - 1;
	CHECK(c.p < 0.01, "small shift significant: p %g", c.p);
	CHECK(hcmp_word(ch, c.p, c.delta, 0.05, 0.01) == CMP_SAME, "under threshold");

	/* two clusters an octave apart, one sample moved across: the median
	 * jumps by half, but the test sees no evidence: "noisy" */
	{
		uint64_t *na = calloc(HIST_NBUCKETS, sizeof(uint64_t)), *nb2 = calloc(HIST_NBUCKETS, sizeof(uint64_t));
		na[1000] = 10, na[1128] = 11;
		nb2[1000] = 11, nb2[1128] = 10;
		CHECK(hcmp_counts(na, nb2, HIST_NBUCKETS, &c) == 0, "clusters");
		ch = c.med_b / c.med_a - 1;
		CHECK(ch < -0.4 && c.p > 0.5, "clusters: change %g p %g", ch, c.p);
		CHECK(hcmp_word(ch, c.p, c.delta, 0.05, 0.01) == CMP_NOISY, "noisy");
		free(na);
		free(nb2);
	}
	CHECK(hcmp_word(0.15, 0.3, 0.1, 0.05, 0.01) == CMP_NOISY, "beyond threshold, p 0.3");
	CHECK(hcmp_word(0.15, 0.001, -0.2, 0.05, 0.01) == CMP_NOISY, "median and delta disagree");
	CHECK(hcmp_word(NAN, 0.001, 0.2, 0.05, 0.01) == CMP_NOISY, "no medians");

	/* exact U on a tiny hand-made case: A = {1,1,3}, B = {2,3} in buckets
	 * 0,0,2 / 1,2. Pairs a > b: 3>2 = 1, ties 3=3 count half: U = 1.5 */
	uint64_t ca[8] = {2, 0, 1}, cb[8] = {0, 1, 1};
	CHECK(hcmp_counts(ca, cb, 8, &c) == 0, "tiny");
	CHECK(fabs(c.u - 1.5) < 1e-12, "U %g", c.u);
	CHECK(fabs(c.delta - (1 - 2 * 1.5 / 6)) < 1e-12, "delta %g", c.delta);

	/* all samples in one bucket on both sides: no evidence, p = 1 */
	uint64_t one_a[4] = {0, 50}, one_b[4] = {0, 70};
	CHECK(hcmp_counts(one_a, one_b, 4, &c) == 0 && c.p == 1 && c.delta == 0, "one bucket");
	/* an empty side is refused */
	uint64_t none[4] = {0};
	CHECK(hcmp_counts(none, one_b, 4, &c) < 0, "empty side");
	CHECK(isnan(hcounts_quantile(none, 4, 0, 0.5)), "quantile of nothing");

	/* quantiles from counts agree with the histogram's own */
	fill(a, 5000, 3000, 0.3);
	double q = hcounts_quantile(a->bins, HIST_NBUCKETS, a->count, 0.99);
	CHECK(q == hist_quantile(a, 0.99), "p99 %g vs %g", q, hist_quantile(a, 0.99));

	/* a million samples per side: the tie term must not overflow */
	memset(ca, 0, sizeof(ca));
	uint64_t big_a[4] = {1000000, 1000000}, big_b[4] = {900000, 1100000};
	CHECK(hcmp_counts(big_a, big_b, 4, &c) == 0 && isfinite(c.p) && c.p < 1e-6 && c.delta > 0,
	      "big: p %g delta %g", c.p, c.delta);
	CHECK(!strcmp(cmp_word_name(CMP_SLOWER), "slower"), "names");

	hist_free(a);
	hist_free(b);
	return t_done("test_hcmp");
}
