/* SPDX-License-Identifier: MIT */
/* Throughput verdict of a concurrency axis (Universal Scalability Law).
 *
 * The method, in plain words
 * --------------------------
 * On a concurrency axis (requests in flight, streams, workers, tasks) the
 * question is not how one operation's cost grows but how throughput grows
 * as N things run at once. Latency there rises by Little's law as soon as
 * something saturates, which is not a defect; so the headline is judged on
 * throughput X(N) (ops/s), with Gunther's Universal Scalability Law:
 *
 *     X(N) = lambda * N / (1 + sigma * (N - 1) + kappa * N * (N - 1))
 *
 * lambda is the throughput of one, sigma the contention (the serialised
 * share: throughput levels off at lambda / sigma), kappa the coherency
 * cost (crosstalk between every pair: throughput peaks at
 * N* = sqrt((1 - sigma) / kappa) and then falls).
 *
 * 1. How much to trust each point. The caller gives each point's standard
 *    error (from its throughput-over-time series); as in fit.c a
 *    systematic 2% of the throughput is added, since points of one sweep
 *    move together by a few per cent:  s^2 = se^2 + (0.02 x)^2, w = 1/s^2.
 *
 * 2. The fit: weighted non-linear least squares (Levenberg-Marquardt) of
 *    (lambda, sigma, kappa), started from the linearised form
 *    N / C(N) - 1 = sigma (N - 1) + kappa N (N - 1), C = X / X(1), and from
 *    sigma = kappa = 0, keeping the better. Parameters are not bounded at
 *    zero (a superlinear series gives sigma < 0, and an interval must be
 *    able to include 0); a step that makes the denominator non-positive at
 *    a measured N is refused.
 *
 * 3. Intervals. The covariance is the inverse of the weighted normal
 *    matrix, scaled by the reduced chi-square when that is above 1 (the
 *    points scatter more than their errors say: the same quasi-likelihood
 *    correction as fit.c), and 95% intervals use Student's t with
 *    N - 3 degrees of freedom. The efficiency of the fitted curve at the
 *    largest N, E = 1 / (1 + sigma (N-1) + kappa N (N-1)), gets its interval
 *    from the same covariance (delta method), so that the correlation of
 *    sigma and kappa (one trades for the other) is accounted for.
 *
 * 4. The word, decided by intervals:
 *    - "linear": E's 95% interval lies at or above 80% (a loss under a
 *      fifth of the ideal line at the largest N is, as in fit.c's 20%
 *      materiality rule, not worth a verdict);
 *    - "saturates": E's interval lies wholly below 80%;
 *    - "retrograde past N*", a saturation where moreover kappa's interval
 *      lies above 0, N* is inside the measured range, and the fitted
 *      throughput at the largest N is at least 10% below the fitted peak
 *      (a peak the data show, not one extrapolated);
 *    - when E's interval straddles 80%, the measured efficiency decides
 *      if it can: E_m = X(Nmax) / (Nmax X(1)), each X the mean of its
 *      repetitions, its 95% interval from each mean's error (the larger
 *      of the points' own and the repetitions' spread) and 10% a point
 *      for the machine's drift between two points of a sweep (the probe
 *      lets through up to 25% before a point is measured again): wholly
 *      below 80%, "saturates"; wholly at or above it, "linear". The USL
 *      curve cannot take every real shape: io_uring on tmpfs rose
 *      superlinearly to N = 4 (requests punted to io-wq workers, whose
 *      wake-ups cost more than the work at N = 1) and was flat from 8 to
 *      16, so the curve's interval at N = 16 spanned 0.14..0.84 with 2
 *      degrees of freedom while the measured X(16) / (16 X(1)) read
 *      0.32-0.57 (12 sweeps of the quick suite on /dev/shm, all
 *      "unclear" before this rule, 2026-12-06);
 *    - "unclear" otherwise (both intervals straddle 80%), with the reason;
 *      or when the fit does not converge.
 *    Fewer than 3 distinct N, or no residual degree of freedom (3 points
 *    for 3 parameters), is no verdict ("none"), except for exactly two
 *    distinct N with repetitions (a 2-CPU machine's tasks axis, K = 1, 2):
 *    there kappa is held at 0 (Amdahl's law, 2 parameters, N - 2 degrees
 *    of freedom), sigma and the efficiency get their intervals as above,
 *    the result says kappa_fixed, and "retrograde" cannot be reached.
 *
 * 5. Oversubscription. Where N counts CPU-bound tasks (threads, processes)
 *    a point with more tasks than online CPUs measures the scheduler's
 *    time slicing, not the code's scalability; such points are counted
 *    and left out of the fit unless asked (opts.fit_oversub).
 *
 * Reported as well: the measured efficiency X(Nmax) / (Nmax X(1)), X(1)
 * the measured mean at N = 1 (the fitted lambda when N = 1 was not
 * measured), and the mean measured throughput at the largest N.
 */
#include "core/usl.h"
#include "core/fit.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYS_FRAC 0.02       /* systematic error, fraction of the throughput */
#define DRIFT_FRAC 0.10     /* a point's drift against another, for the measured efficiency */
#define EFF_LINEAR 0.80     /* efficiency at nmax at or above this: linear */
#define RETRO_DROP 0.10     /* fitted drop from the peak to nmax to call retrograde */
#define SAME_N_REL 1e-9
#define LM_ITERS 300
#define NPAR 3

struct upt {
	double n, y, w; /* y: throughput in units of the geometric mean */
};

static const char *const class_names[] = {
	[USL_NONE] = "none", [USL_LINEAR] = "linear", [USL_SATURATES] = "saturates",
	[USL_RETROGRADE] = "retrograde", [USL_UNCLEAR] = "unclear",
};
#define NCLASS ((int)(sizeof class_names / sizeof class_names[0]))

const char *usl_class_name(enum usl_class c)
{
	return (int)c >= 0 && (int)c < NCLASS ? class_names[c] : "?";
}

int usl_class_from_name(const char *s)
{
	for (int i = 0; s && i < NCLASS; i++)
		if (!strcmp(s, class_names[i]))
			return i;
	return -1;
}

const char *usl_word(enum usl_class c)
{
	return c == USL_RETROGRADE ? "retrograde past N*" : usl_class_name(c);
}

static double denom(const double *t, double n)
{
	return 1 + t[1] * (n - 1) + t[2] * n * (n - 1);
}

double usl_model(const struct usl *u, double n)
{
	if (!u || !(u->lambda > 0)) /* no fit: USL_NONE leaves lambda 0 */
		return NAN;
	double t[NPAR] = {u->lambda, u->sigma, u->kappa};
	double d = denom(t, n);
	return d > 0 ? u->lambda * n / d : NAN;
}

/* chi-square of parameters t; INFINITY where the curve is not defined */
static double chi2_of(const struct upt *p, int np, const double *t)
{
	if (!(t[0] > 0))
		return INFINITY;
	double c = 0;
	for (int i = 0; i < np; i++) {
		double d = denom(t, p[i].n);
		if (!(d > 0))
			return INFINITY;
		double r = p[i].y - t[0] * p[i].n / d;
		c += p[i].w * r * r;
	}
	return isfinite(c) ? c : INFINITY;
}

/* Normal matrix A = J'WJ and gradient g = J'W r at t. With fixk, kappa
 * is held where it is (its row and column made the identity, its gradient
 * 0), so that the same solver fits lambda and sigma alone. */
static void normal_eq(const struct upt *p, int np, const double *t, double A[NPAR][NPAR],
		      double *g, int fixk)
{
	memset(A, 0, sizeof(double) * NPAR * NPAR);
	memset(g, 0, sizeof(double) * NPAR);
	for (int i = 0; i < np; i++) {
		double n = p[i].n, d = denom(t, n);
		double f = t[0] * n / d;
		double j[NPAR] = {n / d, -t[0] * n * (n - 1) / (d * d),
				  -t[0] * n * n * (n - 1) / (d * d)};
		double r = p[i].y - f;
		for (int a = 0; a < NPAR; a++) {
			g[a] += p[i].w * j[a] * r;
			for (int b = 0; b < NPAR; b++)
				A[a][b] += p[i].w * j[a] * j[b];
		}
	}
	if (fixk) {
		for (int a = 0; a < NPAR; a++)
			A[a][2] = A[2][a] = 0;
		A[2][2] = 1;
		g[2] = 0;
	}
}

/* Solve M x = v (3x3, Gaussian elimination with partial pivoting); -1 if singular. */
static int solve3(double M[NPAR][NPAR], const double *v, double *x)
{
	double a[NPAR][NPAR + 1];
	for (int i = 0; i < NPAR; i++) {
		for (int k = 0; k < NPAR; k++)
			a[i][k] = M[i][k];
		a[i][NPAR] = v[i];
	}
	for (int c = 0; c < NPAR; c++) {
		int piv = c;
		for (int r = c + 1; r < NPAR; r++)
			if (fabs(a[r][c]) > fabs(a[piv][c]))
				piv = r;
		if (!(fabs(a[piv][c]) > 1e-300))
			return -1;
		if (piv != c)
			for (int k = 0; k <= NPAR; k++) {
				double tmp = a[c][k];
				a[c][k] = a[piv][k];
				a[piv][k] = tmp;
			}
		for (int r = c + 1; r < NPAR; r++) {
			double f = a[r][c] / a[c][c];
			for (int k = c; k <= NPAR; k++)
				a[r][k] -= f * a[c][k];
		}
	}
	for (int r = NPAR - 1; r >= 0; r--) {
		double s = a[r][NPAR];
		for (int k = r + 1; k < NPAR; k++)
			s -= a[r][k] * x[k];
		x[r] = s / a[r][r];
	}
	for (int r = 0; r < NPAR; r++)
		if (!isfinite(x[r]))
			return -1;
	return 0;
}

/* Levenberg-Marquardt from t (in place); returns the chi-square reached. */
static double lm(const struct upt *p, int np, double *t, int fixk)
{
	double chi = chi2_of(p, np, t), mu = 1e-3;
	if (!isfinite(chi))
		return INFINITY;
	for (int it = 0; it < LM_ITERS && mu < 1e12; it++) {
		double A[NPAR][NPAR], g[NPAR], d[NPAR], tn[NPAR];
		normal_eq(p, np, t, A, g, fixk);
		for (int a = 0; a < NPAR; a++)
			A[a][a] *= 1 + mu;
		if (solve3(A, g, d) < 0) {
			mu *= 10;
			continue;
		}
		for (int a = 0; a < NPAR; a++)
			tn[a] = t[a] + d[a];
		double cn = chi2_of(p, np, tn);
		if (cn < chi) {
			int done = chi - cn <= 1e-12 * chi + 1e-300;
			memcpy(t, tn, sizeof tn);
			chi = cn;
			mu = fmax(mu / 10, 1e-12);
			if (done)
				break;
		} else {
			mu *= 10;
		}
	}
	return chi;
}

/* Invert the 3x3 symmetric A into C (column by column); -1 if singular. */
static int invert3(double A[NPAR][NPAR], double C[NPAR][NPAR])
{
	for (int c = 0; c < NPAR; c++) {
		double e[NPAR] = {0}, x[NPAR];
		e[c] = 1;
		if (solve3(A, e, x) < 0)
			return -1;
		for (int r = 0; r < NPAR; r++)
			C[r][c] = x[r];
	}
	return 0;
}

static int cmp_n(const void *x, const void *y)
{
	const struct upt *a = x, *b = y;
	return (a->n > b->n) - (a->n < b->n);
}

static int same_n(double x, double y)
{
	return fabs(x - y) <= SAME_N_REL * fmax(fabs(x), fabs(y));
}

/* Mean of y over the points at n (sorted p). */
static double mean_at(const struct upt *p, int np, double n)
{
	double s = 0;
	int c = 0;
	for (int i = 0; i < np; i++)
		if (same_n(p[i].n, n)) {
			s += p[i].y;
			c++;
		}
	return c ? s / c : NAN;
}

/* Linearised start: with lambda from the smallest n, N / C - 1 =
 * sigma (N - 1) + kappa N (N - 1), weighted least squares through 0. */
static void start_linear(const struct upt *p, int np, double *t)
{
	double l = mean_at(p, np, p[0].n) / p[0].n; /* per task at the smallest n */
	double s11 = 0, s12 = 0, s22 = 0, v1 = 0, v2 = 0;
	for (int i = 0; i < np; i++) {
		double n = p[i].n, c = p[i].y / l, q = n / c - 1;
		double a = n - 1, b = n * (n - 1);
		s11 += a * a;
		s12 += a * b;
		s22 += b * b;
		v1 += a * q;
		v2 += b * q;
	}
	double det = s11 * s22 - s12 * s12;
	t[0] = l;
	t[1] = t[2] = 0;
	if (fabs(det) > 1e-300 * (s11 * s22 + 1)) {
		t[1] = (v1 * s22 - v2 * s12) / det;
		t[2] = (s11 * v2 - s12 * v1) / det;
	}
}

static void set_reason(struct usl *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_reason(struct usl *u, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(u->reason, sizeof u->reason, fmt, ap);
	va_end(ap);
}

/* More CPU-bound tasks than online CPUs (method step 5). */
static int oversubscribed(const struct usl_point *pt, const struct usl_opts *o)
{
	return o && o->cpus > 0 && pt->n > o->cpus;
}

/* Points usable and kept (oversubscription), scaled to the geometric
 * mean; returns the count kept, -1 for unusable input. */
static int prepare(const struct usl_point *pts, int npts, const struct usl_opts *o,
		   struct usl *u, struct upt *p, double *scale)
{
	int k = 0;
	double ls = 0;
	for (int i = 0; i < npts; i++) {
		if (!(pts[i].n >= 1) || !isfinite(pts[i].n) || !(pts[i].x > 0) ||
		    !isfinite(pts[i].x))
			return -1;
		int over = oversubscribed(&pts[i], o);
		u->noversub += over;
		if (over && !o->fit_oversub)
			continue;
		p[k].n = pts[i].n;
		p[k].y = pts[i].x;
		double se = isfinite(pts[i].se) && pts[i].se > 0 ? pts[i].se : 0;
		p[k].w = se; /* weights once scaled */
		ls += log(pts[i].x);
		k++;
	}
	*scale = k ? exp(ls / k) : 1;
	for (int i = 0; i < k; i++) {
		double y = p[i].y / *scale, se = p[i].w / *scale;
		p[i].y = y;
		p[i].w = 1 / (se * se + SYS_FRAC * y * SYS_FRAC * y);
	}
	qsort(p, (size_t)k, sizeof *p, cmp_n);
	return k;
}

/* Mean throughput at n over the kept input points, and the variance of
 * that mean: the larger of the points' own (their se) and their spread
 * (two or more repetitions). Returns the points counted. */
static int mean_var_at(const struct usl_point *pts, int npts, const struct usl_opts *o, double n,
		       double *m, double *v)
{
	int k = 0;
	double sx = 0, sxx = 0, sse = 0;
	for (int i = 0; i < npts; i++) {
		if (!same_n(pts[i].n, n) || (oversubscribed(&pts[i], o) && !o->fit_oversub))
			continue;
		double se = isfinite(pts[i].se) && pts[i].se > 0 ? pts[i].se : 0;
		sx += pts[i].x;
		sxx += pts[i].x * pts[i].x;
		sse += se * se;
		k++;
	}
	if (!k)
		return 0;
	*m = sx / k;
	double vin = sse / ((double)k * k);
	double vrep = k > 1 ? fmax(sxx - k * *m * *m, 0) / (k - 1) / k : 0;
	*v = fmax(vin, vrep);
	return k;
}

/* The measured efficiency's 95% interval (method step 4), when N = 1 was
 * measured; left 0 otherwise. */
static void measured_interval(const struct usl_point *pts, int npts, const struct usl_opts *o,
			      struct usl *u)
{
	double m1, v1, mn, vn;
	if (!(u->nmax > 1) || !same_n(u->nmin, 1) || !mean_var_at(pts, npts, o, 1, &m1, &v1) ||
	    !mean_var_at(pts, npts, o, u->nmax, &mn, &vn) || !(m1 > 0) || !(mn > 0))
		return;
	double e = mn / (u->nmax * m1);
	double sd = sqrt(v1 / (m1 * m1) + vn / (mn * mn) + 2 * DRIFT_FRAC * DRIFT_FRAC);
	u->effm_lo = e * exp(-1.96 * sd);
	u->effm_hi = e * exp(1.96 * sd);
}

/* The word, from the intervals (method step 4). */
static void decide(struct usl *u, const double *t)
{
	double nmax = u->nmax;
	if (u->eff_lo >= EFF_LINEAR) {
		u->cls = USL_LINEAR;
		set_reason(u, "efficiency at N=%g is %.2f (95%% CI %.2f..%.2f)%s: sigma %.3g, kappa %.3g",
			   nmax, 1 / denom(t, nmax), u->eff_lo, u->eff_hi,
			   u->eff_lo > 1 ? ", superlinear" : ", at least 80% of the ideal line",
			   u->sigma, u->kappa);
		return;
	}
	if (u->eff_hi < EFF_LINEAR) {
		if (u->kappa_lo > 0 && u->peak_n > 0 && u->peak_n < nmax) {
			double drop = 1 - usl_model(u, nmax) / usl_model(u, u->peak_n);
			if (drop >= RETRO_DROP) {
				u->cls = USL_RETROGRADE;
				set_reason(u,
					   "throughput peaks at N*=%.3g and falls %.0f%% by N=%g: kappa %.3g "
					   "(95%% CI %.3g..%.3g) above 0",
					   u->peak_n, 100 * drop, nmax, u->kappa, u->kappa_lo, u->kappa_hi);
				return;
			}
		}
		u->cls = USL_SATURATES;
		set_reason(u,
			   "efficiency at N=%g is %.2f (95%% CI %.2f..%.2f), below 80%%: sigma %.3g "
			   "(%.3g..%.3g), kappa %.3g (%.3g..%.3g)",
			   nmax, 1 / denom(t, nmax), u->eff_lo, u->eff_hi, u->sigma, u->sigma_lo,
			   u->sigma_hi, u->kappa, u->kappa_lo, u->kappa_hi);
		return;
	}
	if (u->effm_hi > 0 && (u->effm_hi < EFF_LINEAR || u->effm_lo >= EFF_LINEAR)) {
		u->cls = u->effm_hi < EFF_LINEAR ? USL_SATURATES : USL_LINEAR;
		set_reason(u,
			   "the curve's efficiency at N=%g (%.2f, 95%% CI %.2f..%.2f) straddles 80%%; the "
			   "measured X(%g)/(%g X(1)), %.2f (%.2f..%.2f), is %s",
			   nmax, 1 / denom(t, nmax), u->eff_lo, u->eff_hi, nmax, nmax, u->efficiency,
			   u->effm_lo, u->effm_hi, u->cls == USL_LINEAR ? "at or above it" : "below it");
		return;
	}
	u->cls = USL_UNCLEAR;
	set_reason(u, "efficiency at N=%g is %.2f but its 95%% CI %.2f..%.2f straddles 80%%",
		   nmax, 1 / denom(t, nmax), u->eff_lo, u->eff_hi);
	if (u->effm_hi > 0) {
		size_t l = strlen(u->reason);
		snprintf(u->reason + l, sizeof u->reason - l, ", as does the measured %.2f (%.2f..%.2f)",
			 u->efficiency, u->effm_lo, u->effm_hi);
	}
}

int usl_fit(const struct usl_point *pts, int npts, const struct usl_opts *o, struct usl *u)
{
	if (!u)
		return -1;
	memset(u, 0, sizeof *u);
	if (o) {
		u->cpus = o->cpus;
		u->oversub_fitted = o->fit_oversub;
	}
	if (!pts || npts < 1)
		return -1;
	struct upt *p = malloc((size_t)npts * sizeof *p);
	if (!p)
		return -1;
	double scale;
	int np = prepare(pts, npts, o, u, p, &scale);
	if (np < 0) {
		free(p);
		return -1;
	}
	u->npoints = np;
	int nd = 0;
	for (int i = 0; i < np; i++)
		nd += i == 0 || !same_n(p[i].n, p[i - 1].n);
	if (np) {
		u->nmin = p[0].n;
		u->nmax = p[np - 1].n;
		u->x_nmax = mean_at(p, np, u->nmax) * scale;
	}
	/* Two distinct N (a 2-CPU machine's tasks axis: K = 1, 2) cannot
	 * separate sigma from kappa; with repetitions they still measure
	 * contention: kappa is held at 0 (Amdahl's law) and said so. */
	int fixk = nd == 2 && np > 2;
	int npar = fixk ? 2 : NPAR;
	if ((nd < 3 && !fixk) || np <= npar) {
		u->cls = USL_NONE;
		set_reason(u, "too few points (%d distinct N%s%s)", nd,
			   u->noversub && !u->oversub_fitted ? ", oversubscribed ones left out" : "",
			   nd >= 2 ? ", no degree of freedom left" : "");
		free(p);
		return 0;
	}
	u->kappa_fixed = fixk;

	/* two starts, keep the better */
	double t[NPAR], t2[NPAR] = {mean_at(p, np, p[0].n) / p[0].n, 0, 0};
	start_linear(p, np, t);
	if (fixk) { /* sigma from the linearised form with kappa 0 */
		double l = t[0], sa = 0, sq = 0;
		for (int i = 0; i < np; i++) {
			double n = p[i].n, q = n / (p[i].y / l) - 1;
			sa += (n - 1) * (n - 1);
			sq += (n - 1) * q;
		}
		t[1] = sa > 0 ? sq / sa : 0;
		t[2] = 0;
	}
	double c1 = lm(p, np, t, fixk), c2 = lm(p, np, t2, fixk);
	if (!(c1 <= c2))
		memcpy(t, t2, sizeof t);
	double chi = fmin(c1, c2);
	double A[NPAR][NPAR], g[NPAR], C[NPAR][NPAR];
	int df = np - npar;
	if (isfinite(chi))
		normal_eq(p, np, t, A, g, fixk);
	if (!isfinite(chi) || invert3(A, C) < 0) {
		u->cls = USL_UNCLEAR;
		set_reason(u, "the fit did not converge");
		free(p);
		return 0;
	}
	if (fixk) /* kappa was held, not estimated: it adds no variance */
		for (int a = 0; a < NPAR; a++)
			C[a][2] = C[2][a] = 0;
	u->redchi2 = chi / df;
	double chat = u->redchi2 > 1 ? u->redchi2 : 1;
	double tq = fit_t_quantile(0.95, df);
	double se_s = sqrt(fmax(C[1][1], 0) * chat), se_k = sqrt(fmax(C[2][2], 0) * chat);
	u->lambda = t[0] * scale;
	u->sigma = t[1];
	u->kappa = t[2];
	u->sigma_lo = t[1] - tq * se_s;
	u->sigma_hi = t[1] + tq * se_s;
	u->kappa_lo = fixk ? 0 : t[2] - tq * se_k;
	u->kappa_hi = fixk ? 0 : t[2] + tq * se_k;
	u->peak_n = t[2] > 0 && t[1] < 1 ? sqrt((1 - t[1]) / t[2]) : 0;

	/* efficiency of the curve at nmax and its interval (delta method) */
	double n = u->nmax, d = denom(t, n), e = 1 / d;
	double ge[2] = {-(n - 1) / (d * d), -n * (n - 1) / (d * d)};
	double ve = 0;
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++)
			ve += ge[a] * ge[b] * C[a + 1][b + 1];
	double he = tq * sqrt(fmax(ve, 0) * chat);
	u->eff_lo = e - he;
	u->eff_hi = e + he;
	double x1 = same_n(p[0].n, 1) ? mean_at(p, np, 1) * scale : u->lambda;
	u->efficiency = u->x_nmax / (u->nmax * x1);
	free(p);
	measured_interval(pts, npts, o, u);
	decide(u, t);
	if (fixk) {
		size_t l = strlen(u->reason);
		snprintf(u->reason + l, sizeof u->reason - l,
			 "; two distinct N: kappa held at 0 (contention only)");
	}
	return 0;
}
