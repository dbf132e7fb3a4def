/* SPDX-License-Identifier: MIT */
/* The pure statistics of compare: see cmpstat.h; how compare uses them and
 * the A/A figures behind each step are in docs/compare.md. */
#include "core/cmpstat.h"

#include <math.h>
#include <stdlib.h>

#include "core/fit.h"

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

double cmp_median(double *v, int k)
{
	qsort(v, (size_t)k, sizeof(double), cmp_double);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

void cmp_mean_var(const double *x, int k, double *m, double *v)
{
	double s = 0, q = 0;
	for (int i = 0; i < k; i++)
		s += x[i];
	*m = s / k;
	for (int i = 0; i < k; i++)
		q += (x[i] - *m) * (x[i] - *m);
	*v = k > 1 ? q / (k - 1) : 0;
}

/* Welch's t-test of the levels of B against those of A (k >= 2 a side). */
void cmp_welch(const double *a, int ka, const double *b, int kb, struct cmp_welch *w)
{
	double ma, va, mb, vb;
	cmp_mean_var(a, ka, &ma, &va);
	cmp_mean_var(b, kb, &mb, &vb);
	double d = mb - ma, sa = va / ka, sb = vb / kb, se2 = sa + sb;
	w->change = expm1(d);
	w->se2 = se2;
	if (!(se2 > 0)) { /* identical repetitions on both sides */
		w->t = d == 0 ? 0 : d > 0 ? INFINITY : -INFINITY;
		w->df = ka + kb - 2;
		w->p = d == 0 ? 1 : 0;
		return;
	}
	w->t = d / sqrt(se2);
	double den = (ka > 1 ? sa * sa / (ka - 1) : 0) + (kb > 1 ? sb * sb / (kb - 1) : 0);
	w->df = den > 0 ? se2 * se2 / den : ka + kb - 2;
	w->p = fit_t_pvalue(w->t, w->df);
}

/* Both sides measured back to back in each pair, so what drifts over
 * tens of seconds (the machine's speed, its neighbours) moves both levels
 * of a pair alike and cancels in d: the differences' spread is what is
 * left, the pairs the unit of replication. */
void cmp_paired(const double *d, int k, struct cmp_welch *w)
{
	double m, v;
	cmp_mean_var(d, k, &m, &v);
	w->change = expm1(m);
	w->se2 = k > 1 ? v / k : 0;
	w->df = k > 1 ? k - 1 : 0;
	if (!(w->se2 > 0)) {
		w->t = m == 0 ? 0 : m > 0 ? INFINITY : -INFINITY;
		w->p = m == 0 ? 1 : 0;
		return;
	}
	w->t = m / sqrt(w->se2);
	w->p = fit_t_pvalue(w->t, w->df);
}

double cmp_test_p(const struct cmp_test *f, double scale)
{
	if (!(f->se2 > 0))
		return f->d == 0 ? 1 : 0;
	return fit_t_pvalue(f->d / sqrt(scale * f->se2), f->df);
}

double cmp_digamma(double x)
{
	double r = 0;
	for (; x < 6; x++)
		r -= 1 / x;
	double f = 1 / (x * x);
	return r + log(x) - 0.5 / x -
	       f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double cmp_trigamma(double x)
{
	double r = 0;
	for (; x < 6; x++)
		r += 1 / (x * x);
	double f = 1 / (x * x);
	return r + 1 / x + f / 2 + f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)));
}

/* The x with cmp_trigamma(x) = y (y > 0), by bisection on log x. */
double cmp_trigamma_inv(double y)
{
	double lo = 1e-8, hi = 1e8;
	for (int i = 0; i < 200; i++) {
		double m = sqrt(lo * hi);
		if (cmp_trigamma(m) > y)
			lo = m;
		else
			hi = m;
	}
	return sqrt(lo * hi);
}

/* The variances of 3 repetitions a side have 2-4 degrees of freedom, so
 * one bench's test is weak and erratic (a lucky tight triple looks like a
 * change). The benches of one compare share a distribution of variances:
 * each bench's is moderated toward it, empirical Bayes as in Smyth 2004
 * (limma): the prior's d0 and s0^2 from the mean and variance of the log
 * variances, then se2 = (d0 s0^2 + df se2) / (d0 + df) with df + d0
 * degrees of freedom. Similar variances give a large d0 (the test gains
 * degrees of freedom), scattered ones a small d0 (little changes).
 * *d0 is 0 with fewer than CMP_SCALE_MIN_TESTS tests. */
void cmp_moderate(struct cmp_test *f, int k, double *d0)
{
	double se = 0, sv = 0, st = 0;
	int m = 0;
	*d0 = 0;
	for (int i = 0; i < k; i++)
		if (f[i].se2 > 0 && f[i].df >= 1) {
			double e = log(f[i].se2) - cmp_digamma(f[i].df / 2) + log(f[i].df / 2);
			se += e;
			sv += e * e;
			st += cmp_trigamma(f[i].df / 2);
			m++;
		}
	if (m < CMP_SCALE_MIN_TESTS)
		return;
	double mean = se / m, var = (sv - se * se / m) / (m - 1), rhs = var - st / m;
	double g = rhs > 0 ? 2 * cmp_trigamma_inv(rhs) : 1e6;
	if (g > 1e6)
		g = 1e6;
	double s0 = exp(mean + cmp_digamma(g / 2) - log(g / 2));
	*d0 = g;
	for (int i = 0; i < k; i++)
		if (f[i].se2 > 0 && f[i].df >= 1) {
			f[i].se2 = fmax(f[i].se2, (g * s0 + f[i].df * f[i].se2) / (g + f[i].df));
			f[i].df += g;
		}
}

double cmp_center(struct cmp_test *f, int k)
{
	double *d = malloc(((size_t)k + 1) * sizeof(double));
	if (!d || k < CMP_SCALE_MIN_TESTS) {
		free(d);
		return 0;
	}
	for (int i = 0; i < k; i++)
		d[i] = f[i].d;
	qsort(d, (size_t)k, sizeof(double), cmp_double);
	double g = k % 2 ? d[k / 2] : (d[k / 2 - 1] + d[k / 2]) / 2;
	free(d);
	for (int i = 0; i < k; i++)
		f[i].d -= g;
	return g;
}

/* The run effect of a compare: repetitions of one run share what differs
 * between runs (placement, frequency, load, cache state), so the
 * difference of two runs' levels varies more than the repetitions' spread
 * says. Across the benches of one compare, most of which did not change,
 * the p-values would have a median of 1/2 if the repetitions saw all the
 * variance; the scale is the factor the variance needs for that (an
 * empirical null, Efron 2004, its centre kept at 0 so that a change of
 * every bench still shows in the changes), at least 1. */
double cmp_run_scale(const struct cmp_test *f, int k)
{
	double *p = malloc(((size_t)k + 1) * sizeof(double));
	if (!p || k < CMP_SCALE_MIN_TESTS) {
		free(p);
		return 1;
	}
	double lo = 1, hi = 1;
	for (int it = 0; it < 200; it++) {
		double s = it == 0 ? 1 : sqrt(lo * hi);
		for (int i = 0; i < k; i++)
			p[i] = cmp_test_p(&f[i], s);
		qsort(p, (size_t)k, sizeof(double), cmp_double);
		double med = k % 2 ? p[k / 2] : (p[k / 2 - 1] + p[k / 2]) / 2;
		if (it == 0) {
			if (med >= 0.5)
				break; /* the repetitions see it all */
			for (hi = 2; hi < 1e12; hi *= 2) { /* bracket */
				for (int i = 0; i < k; i++)
					p[i] = cmp_test_p(&f[i], hi);
				qsort(p, (size_t)k, sizeof(double), cmp_double);
				if ((k % 2 ? p[k / 2] : (p[k / 2 - 1] + p[k / 2]) / 2) >= 0.5)
					break;
				lo = hi;
			}
			continue;
		}
		if (med < 0.5)
			lo = s;
		else
			hi = s;
		if (hi / lo < 1 + 1e-9)
			break;
	}
	free(p);
	return hi;
}

struct pidx {
	double p;
	int i;
};

static int cmp_pidx(const void *x, const void *y)
{
	double a = ((const struct pidx *)x)->p, b = ((const struct pidx *)y)->p;
	return a < b ? -1 : a > b;
}

void cmp_holm(const double *p, int m, double *padj)
{
	struct pidx *v = malloc(((size_t)m + 1) * sizeof(*v));
	if (!v) { /* Bonferroni: never below Holm's */
		for (int j = 0; j < m; j++)
			padj[j] = fmin(1, m * p[j]);
		return;
	}
	for (int j = 0; j < m; j++)
		v[j] = (struct pidx){isnan(p[j]) ? 1 : p[j], j};
	qsort(v, (size_t)m, sizeof(*v), cmp_pidx);
	double run = 0;
	for (int j = 0; j < m; j++) {
		run = fmax(run, fmin(1, (m - j) * v[j].p));
		padj[v[j].i] = run;
	}
	free(v);
}

double cmp_detectable(double se, double df, double alpha, double power)
{
	if (!(se > 0) || !isfinite(se) || !(df >= 1) || !(alpha > 0 && alpha < 1) ||
	    !(power >= 0.5 && power < 1))
		return NAN;
	int d = df > 1000 ? 1000 : (int)floor(df);
	return (fit_t_quantile(1 - alpha, d) + fit_t_quantile(2 * power - 1, d)) * se;
}

int cmp_pairs_wanted(int have, double det, double target, int max)
{
	if (!(det > target) || !(target > 0) || have >= max)
		return have;
	double r = det / target, want = isinf(r) ? 2.0 * have : ceil(have * r * r);
	if (want > 2.0 * have)
		want = 2.0 * have;
	if (want > max)
		want = max;
	return want > have ? (int)want : have;
}
