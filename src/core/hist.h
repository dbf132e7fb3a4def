/* SPDX-License-Identifier: MIT */
/* Log-linear latency histogram with bounded relative error.
 *
 * Values are nanoseconds (double, so that batch-timed operations below
 * 1 ns resolution keep their fraction). Every power of two [2^e, 2^(e+1))
 * between 2^HIST_EMIN and 2^HIST_EMAX ns is split into HIST_SUB equal
 * buckets, so a bucket is at most 1/HIST_SUB = 0.78% of its lower bound
 * wide; a value read back as its bucket's midpoint is within 0.39% of the
 * true value. Values below the range fall into bucket 0, above it into the
 * last bucket (min and max are kept exactly beside the buckets).
 *
 * Memory is constant (HIST_NBUCKETS counters) whatever the sample count;
 * two histograms merge by adding counters, which is exact. The range of
 * buckets in use [lo, hi] is kept, so that a reset clears only that and
 * scans stop there: the counters a sweep never reaches stay untouched
 * memory (it matters to proc.fork, which copies the process's pages). Mean and
 * variance are kept exactly with Welford's online method and merge with
 * Chan's parallel formula.
 */
#ifndef SB_HIST_H
#define SB_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS 7
#define HIST_SUB (1 << HIST_SUB_BITS)
#define HIST_EMIN (-4) /* 1/16 ns */
#define HIST_EMAX 42   /* ~73 minutes */
#define HIST_NBUCKETS ((HIST_EMAX - HIST_EMIN) * HIST_SUB)

struct hist {
	uint64_t count;
	double min, max;  /* ns, exact */
	double mean, m2;  /* Welford accumulators */
	int lo, hi;       /* buckets in use: bins outside [lo, hi] are 0 (lo > hi: none) */
	uint64_t bins[HIST_NBUCKETS];
};

/* Summary of a histogram; all times in ns. */
struct stats {
	uint64_t count;
	double min, mean, stddev, cv;
	double p50, p90, p99, p999, p9999, max;
	double med_lo, med_hi; /* 95% confidence interval of the median */
};

struct hist *hist_new(void);
void hist_free(struct hist *h);
void hist_reset(struct hist *h);
void hist_add(struct hist *h, double ns);
void hist_merge(struct hist *dst, const struct hist *src);
/* q in [0,1]; the midpoint of the bucket holding rank ceil(q*count). */
double hist_quantile(const struct hist *h, double q);
void hist_summary(const struct hist *h, struct stats *s);
/* Half-width of the median's 95% CI relative to the median (inf if empty). */
double hist_median_ci_rel(const struct hist *h);

int hist_bucket_of(double ns);
double hist_bucket_lo(int i);
double hist_bucket_hi(int i);

#endif
