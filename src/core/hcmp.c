/* SPDX-License-Identifier: MIT */
/* Mann-Whitney U and Cliff's delta from bucket counts: see hcmp.h.
 *
 * Walking the buckets upwards with `below` = samples (of A and B) in lower
 * buckets, bucket k with a_k and b_k samples has t_k = a_k + b_k tied
 * samples holding ranks below+1 .. below+t_k, mean rank below + (t_k+1)/2.
 * R_A = sum a_k * meanrank_k and U_A = R_A - na(na+1)/2 counts the pairs
 * (a, b) with a > b plus half the tied ones. Under H0, E[U] = na nb / 2 and
 * Var[U] = na nb / 12 * ((N+1) - sum(t^3 - t) / (N(N-1))), N = na + nb.
 * Cliff's delta of B against A is 1 - 2 U_A / (na nb). */
#include "core/hcmp.h"

#include <math.h>
#include "core/hist.h"

double hcounts_quantile(const uint64_t *c, int nb, uint64_t total, double q)
{
	if (!total)
		return NAN;
	double r = ceil(q * (double)total);
	/* (double)total may round up to 2^64, which does not convert back */
	uint64_t rank = r < 1 ? 1 : r >= 18446744073709551615.0 ? total : (uint64_t)r, seen = 0;
	for (int i = 0; i < nb; i++) {
		seen += c[i];
		if (seen >= rank)
			return (hist_bucket_lo(i) + hist_bucket_hi(i)) / 2;
	}
	return NAN;
}

int hcmp_counts(const uint64_t *a, const uint64_t *b, int nb, struct hcmp *out)
{
	uint64_t na = 0, nbs = 0;
	for (int i = 0; i < nb; i++) {
		na += a[i];
		nbs += b[i];
	}
	out->na = na;
	out->nb = nbs;
	out->med_a = hcounts_quantile(a, nb, na, 0.5);
	out->med_b = hcounts_quantile(b, nb, nbs, 0.5);
	out->p99_a = hcounts_quantile(a, nb, na, 0.99);
	out->p99_b = hcounts_quantile(b, nb, nbs, 0.99);
	out->u = out->z = out->delta = NAN;
	out->p = NAN;
	if (!na || !nbs)
		return -1;
	/* long double: the tie term grows as t^3 (1e18 at a million samples) */
	long double below = 0, ra = 0, ties = 0;
	for (int i = 0; i < nb; i++) {
		long double t = (long double)a[i] + (long double)b[i];
		if (t == 0)
			continue;
		ra += (long double)a[i] * (below + (t + 1) / 2);
		ties += t * t * t - t;
		below += t;
	}
	long double fa = (long double)na, fb = (long double)nbs, n = fa + fb;
	long double u = ra - fa * (fa + 1) / 2, mean = fa * fb / 2;
	long double var = fa * fb / 12 * ((n + 1) - (n > 1 ? ties / (n * (n - 1)) : 0));
	out->u = (double)u;
	out->delta = (double)(1 - 2 * u / (fa * fb));
	if (var <= 0) { /* every sample in one bucket: no evidence of a difference */
		out->z = 0;
		out->p = 1;
		return 0;
	}
	long double d = fabsl(u - mean) - 0.5L;
	if (d < 0)
		d = 0;
	double z = (double)(d / sqrtl(var));
	out->z = u > mean ? -z : z; /* > 0: B tends to be larger */
	out->p = erfc(z / sqrt(2.0));
	return 0;
}

enum cmp_word hcmp_word(double change, double p, double delta, double threshold, double alpha)
{
	if (!isfinite(change))
		return CMP_NOISY;
	if (fabs(change) < threshold)
		return CMP_SAME;
	if (isfinite(p) && p < alpha && isfinite(delta) && (delta > 0) == (change > 0))
		return change > 0 ? CMP_SLOWER : CMP_FASTER;
	return CMP_NOISY;
}

const char *cmp_word_name(enum cmp_word w)
{
	static const char *const names[] = {"same", "faster", "slower", "noisy", "insufficient"};
	return (unsigned)w < CMP_NWORDS ? names[w] : "?";
}
