/* SPDX-License-Identifier: MIT */
/* Log-linear histogram: see hist.h for the layout and its error bound.
 *
 * Bucket of a value v >= 2^HIST_EMIN: write v = m * 2^e with m in [1,2);
 * the bucket is (e - HIST_EMIN) * HIST_SUB + floor((m - 1) * HIST_SUB).
 * Its bounds are 2^e * (1 + j/HIST_SUB) and 2^e * (1 + (j+1)/HIST_SUB).
 *
 * Median confidence interval: the number of samples below the true median
 * is Binomial(n, 1/2), so the ranks n/2 -/+ 1.96 * sqrt(n)/2 bound the
 * median with 95% confidence (normal approximation, fine for n >= 30). */
#include "core/hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A histogram is a mapping of its own: fresh zero pages, of which only
 * those holding buckets in use are ever written (calloc would hand back
 * heap memory and clear it, making all 47 KiB resident). Strict POSIX
 * before Issue 8 has no anonymous mappings: calloc there. */
struct hist *hist_new(void)
{
#ifdef MAP_ANONYMOUS
	struct hist *h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			      -1, 0);
	if (h == MAP_FAILED)
		return NULL;
#else
	struct hist *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
#endif
	h->lo = HIST_NBUCKETS; /* none in use: the reset clears no bin */
	h->hi = -1;
	hist_reset(h);
	return h;
}

void hist_free(struct hist *h)
{
#ifdef MAP_ANONYMOUS
	if (h)
		munmap(h, sizeof(*h));
#else
	free(h);
#endif
}

void hist_reset(struct hist *h)
{
	if (h->lo <= h->hi)
		memset(&h->bins[h->lo], 0, (size_t)(h->hi - h->lo + 1) * sizeof(h->bins[0]));
	h->count = 0;
	h->mean = h->m2 = 0;
	h->min = INFINITY;
	h->max = -INFINITY;
	h->lo = HIST_NBUCKETS;
	h->hi = -1;
}

int hist_bucket_of(double ns)
{
	if (!(ns >= ldexp(1.0, HIST_EMIN))) /* also NaN */
		return 0;
	int e;
	double m = frexp(ns, &e); /* ns = m * 2^e, m in [0.5,1) */
	e -= 1;                   /* ns = (2m) * 2^e, 2m in [1,2) */
	if (e >= HIST_EMAX)
		return HIST_NBUCKETS - 1;
	int j = (int)((2.0 * m - 1.0) * HIST_SUB);
	if (j >= HIST_SUB)
		j = HIST_SUB - 1;
	return (e - HIST_EMIN) * HIST_SUB + j;
}

double hist_bucket_lo(int i)
{
	int e = i / HIST_SUB + HIST_EMIN, j = i % HIST_SUB;
	return ldexp(1.0 + (double)j / HIST_SUB, e);
}

double hist_bucket_hi(int i)
{
	int e = i / HIST_SUB + HIST_EMIN, j = i % HIST_SUB;
	return ldexp(1.0 + (double)(j + 1) / HIST_SUB, e);
}

void hist_add(struct hist *h, double ns)
{
	int b = hist_bucket_of(ns);
	h->bins[b]++;
	if (b < h->lo)
		h->lo = b;
	if (b > h->hi)
		h->hi = b;
	h->count++;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	double d = ns - h->mean;
	h->mean += d / (double)h->count;
	h->m2 += d * (ns - h->mean);
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	for (int i = src->lo; i <= src->hi; i++)
		dst->bins[i] += src->bins[i];
	if (src->lo < dst->lo)
		dst->lo = src->lo;
	if (src->hi > dst->hi)
		dst->hi = src->hi;
	double na = (double)dst->count, nb = (double)src->count, n = na + nb;
	double d = src->mean - dst->mean;
	dst->mean += d * nb / n;
	dst->m2 += src->m2 + d * d * na * nb / n;
	dst->count += src->count;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* Value of the sample of 1-based rank r, read as its bucket's midpoint and
 * clamped to the exact min and max. */
static double rank_value(const struct hist *h, uint64_t r)
{
	if (r <= 1)
		return h->min;
	if (r >= h->count)
		return h->max;
	uint64_t seen = 0;
	for (int i = h->lo; i <= h->hi; i++) {
		seen += h->bins[i];
		if (seen >= r) {
			double v = 0.5 * (hist_bucket_lo(i) + hist_bucket_hi(i));
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

double hist_quantile(const struct hist *h, double q)
{
	if (!h->count)
		return NAN;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	uint64_t r = (uint64_t)ceil(q * (double)h->count);
	return rank_value(h, r);
}

/* The low (side 0) or high (side 1) edge of the bucket holding the sample
 * of rank r, clamped to the exact min and max. */
static double rank_edge(const struct hist *h, uint64_t r, int side)
{
	uint64_t seen = 0;
	for (int i = h->lo; i <= h->hi; i++) {
		seen += h->bins[i];
		if (seen >= r) {
			double v = side ? hist_bucket_hi(i) : hist_bucket_lo(i);
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

/* The bounds are the outer edges of the buckets holding the two ranks, so
 * that the interval is never narrower than what the histogram can tell:
 * two ranks in one bucket give that bucket (within min and max), not a
 * width of zero. */
static void median_ci(const struct hist *h, double *lo, double *hi)
{
	double n = (double)h->count, half = 1.959964 * sqrt(n) / 2.0;
	double rl = floor(n / 2.0 - half), rh = ceil(n / 2.0 + half + 1.0);
	*lo = rank_edge(h, rl < 1 ? 1 : (uint64_t)rl, 0);
	*hi = rank_edge(h, rh > n ? h->count : (uint64_t)rh, 1);
}

double hist_median_ci_rel(const struct hist *h)
{
	if (h->count < 2)
		return INFINITY;
	double lo, hi, med = hist_quantile(h, 0.5);
	median_ci(h, &lo, &hi);
	return med > 0 ? (hi - lo) / 2.0 / med : INFINITY;
}

void hist_summary(const struct hist *h, struct stats *s)
{
	memset(s, 0, sizeof(*s));
	s->count = h->count;
	if (!h->count)
		return;
	s->min = h->min;
	s->max = h->max;
	s->mean = h->mean;
	s->stddev = h->count > 1 ? sqrt(h->m2 / (double)(h->count - 1)) : 0.0;
	s->cv = h->mean > 0 ? s->stddev / h->mean : 0.0;
	s->p50 = hist_quantile(h, 0.50);
	s->p90 = hist_quantile(h, 0.90);
	s->p99 = hist_quantile(h, 0.99);
	s->p999 = hist_quantile(h, 0.999);
	s->p9999 = hist_quantile(h, 0.9999);
	median_ci(h, &s->med_lo, &s->med_hi);
}
