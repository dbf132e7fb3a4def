/* SPDX-License-Identifier: MIT */
/* The pooled verdict of a bench with --decide's added repetitions
 * (verdict.c, confirm_growth): a growing class on weak evidence that the
 * shuffled repetitions, fitted alone over the same N, call O(1) is drift
 * of the sweep, and the verdict is unclear; a growth the repetitions show
 * too stays; a round that left the largest N out confirms nothing and
 * refutes nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/hist.h"
#include "core/result.h"
#include "core/verdict.h"
#include "t.h"

static const uint64_t ns[13] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000};

/* stats of samples around med (+/- 1%) */
static void stats_at(struct hist *h, double med, struct stats *s)
{
	hist_reset(h);
	for (int k = 0; k < 2000; k++)
		hist_add(h, med * (0.99 + 0.02 * (k % 101) / 100.0));
	hist_summary(h, s);
}

/* A repetition over the first npts of ns, cost(n) = base * (1 + g ln n),
 * times up at the last `slow` points (a slow stretch late in a rising
 * sweep), with a small deterministic wobble so the fit has scatter. */
static void rep(struct bench_result *b, struct hist *h, int npts, double g, int slow, double up,
		int added)
{
	struct repetition *rp = bench_add_rep(b);
	rp->added = added;
	for (int i = 0; i < npts; i++) {
		struct point *p = rep_add_point(rp);
		p->n = ns[i];
		double c = 3700 * (1 + g * log((double)ns[i])) * (1 + 0.01 * ((i * 7 + added) % 3 - 1));
		if (slow && i >= npts - slow) /* rising through the stretch to up */
			c *= 1 + (up - 1) * (i - (npts - slow) + 1) / slow;
		stats_at(h, c, &p->st);
		p->batch = 1;
		p->samples = p->ops = p->st.count;
		p->cpu_start = p->cpu_end = -1;
		point_set_bins(p, h);
	}
	rep_fit(rp);
}

static void bench(struct bench_result *b)
{
	memset(b, 0, sizeof(*b));
	b->name = strdup("mem.mmap");
}

int main(void)
{
	struct hist *h = hist_new();
	struct bench_result b;

	/* the sweep alone: a slow stretch rising over its last eight points looks like
	 * a weak growth */
	bench(&b);
	rep(&b, h, 13, 0.01, 8, 1.6, 0);
	bench_fit(&b);
	enum growth sweep = b.v.cls;
	CHECK(sweep >= GROWTH_LOGN && sweep <= GROWTH_WORSE && b.v.growth_share < 0.5,
	      "sweep alone: %s share %.2f (%s)", growth_name(sweep), b.v.growth_share, b.v.reason);

	/* a flat shuffled repetition over the same N: drift, unclear */
	rep(&b, h, 13, 0.01, 0, 1, 1);
	bench_fit(&b);
	CHECK(b.v.cls == GROWTH_UNCLEAR && strstr(b.v.reason, "drift") &&
		      strstr(b.v.reason, "shuffled repetitions alone O(1)"),
	      "flat round: %s (%s)", growth_name(b.v.cls), b.v.reason);
	CHECK(b.v.tie == GROWTH_UNCLEAR, "flat round: a tie");
	bench_result_clear(&b);

	/* the same sweep, a round that left the largest N out: not judged */
	bench(&b);
	rep(&b, h, 13, 0.01, 8, 1.6, 0);
	rep(&b, h, 9, 0.01, 0, 1, 1);
	bench_fit(&b);
	CHECK(!strstr(b.v.reason, "drift"), "partial round: %s (%s)", growth_name(b.v.cls),
	      b.v.reason);
	bench_result_clear(&b);

	/* a real growth, shown by the round too: stays */
	bench(&b);
	rep(&b, h, 13, 0.05, 0, 1, 0);
	rep(&b, h, 13, 0.05, 0, 1, 1);
	bench_fit(&b);
	CHECK(b.v.cls == GROWTH_LOGN, "real log n: %s (%s)", growth_name(b.v.cls), b.v.reason);
	bench_result_clear(&b);

	/* no added repetitions (-r 2): the rule does not apply */
	bench(&b);
	rep(&b, h, 13, 0.01, 8, 1.6, 0);
	rep(&b, h, 13, 0.01, 0, 1, 0);
	bench_fit(&b);
	CHECK(!strstr(b.v.reason, "drift"), "-r 2: %s (%s)", growth_name(b.v.cls), b.v.reason);
	bench_result_clear(&b);

	hist_free(h);
	return t_done("test_verdict");
}
