/* SPDX-License-Identifier: MIT */
/* Growth fit and verdict.
 *
 * The method, in plain words
 * --------------------------
 * A sweep gives, for each load n, the median cost of one operation and a
 * 95% confidence interval (CI) of that median. We want to say how the
 * cost grows with n: O(1), O(log n), O(n), O(n log n) or worse; or say
 * honestly that the data cannot tell ("unclear").
 *
 * 1. How much to trust each point. A point's own CI gives a standard error
 *    (hi - lo) / 3.92. Medians from one sweep also move together by a few
 *    per cent (frequency, caches, placement), which no single point's CI
 *    shows, so we add a systematic 2% of the cost:
 *        sigma^2 = sigma_ci^2 + (0.02 * cost)^2,   weight = 1 / sigma^2.
 *
 * 2. Five candidate curves. Each is "a constant plus a growing term":
 *        cost = a + b * g(n),  g in { 1, log n, n, n log n, n^2 }.
 *    (g = 1 is the plain constant, fitted as cost = a.) Each is fitted by
 *    weighted least squares, which has a closed form for a straight line
 *    in g. A real cost is rarely a pure power of n: it is a fixed cost
 *    plus a term that only shows at large n, and these models say so.
 *
 * 3. Which curve fits best. Each fit leaves a chi-square (the weighted sum
 *    of squared misses). If even the best curve misses by more than the
 *    stated errors allow (reduced chi-square c > 1), the errors were
 *    understated, and every chi-square is divided by c (the usual
 *    "quasi-likelihood" correction) so that noise is not mistaken for
 *    signal. The score is Akaike's criterion with the small-sample
 *    correction (AICc): chi2/c + 2k + 2k(k+1)/(N-k-1), k = 1 for the
 *    constant, 2 for the others; lower is better. A growing curve with a
 *    negative b (cost falling with n) is not a candidate.
 *
 * 4. Is the growth real and does it matter? A growing curve is called only
 *    when (a) its growing term b*g(nmax) is at least 20% of that curve's
 *    cost at the largest n ("material"), and (b) b is at least 3 standard
 *    errors from zero. When the errors were scaled by c, the noise level is
 *    itself an estimate from N-2 degrees of freedom, so (b) uses the
 *    Student-t value with the same tail as 3 sigma (3.6 for 16 points).
 *    When the best curve's growth is under 20%, the verdict is O(1): a
 *    growth worth less than a fifth of the cost at the top of the range is,
 *    for a benchmark reader, a constant.
 *
 * 5. When to say "unclear" instead:
 *    (a) Another growing curve, of a different class and with a growth of
 *        20% or more, scores within 4 of the best: the data do not separate
 *        them. (Same when the best curve's growth is under 20% but a fully
 *        material curve scores within 4 of it.) Why 4 and not the textbook
 *        2: between two curves the score difference wanders by about
 *        2*sqrt(D) around its true value D, so a wrong curve wins by T or
 *        more with probability up to Phi(-sqrt(T)): 8% for T = 2, 2% for
 *        T = 4. In simulation, n-versus-n log n confusions fell 2-3x
 *        (at the price of more "unclear" on marginal data).
 *    (b) The best curve's growth is material in size but b is not clearly
 *        non-zero (test 4b fails): the noise swamps the growth.
 *    (c) A growth passes test 4 but the log-log slope's 95% CI (below)
 *        includes 0: the model-free view does not confirm it.
 *    (d) The best curve's reduced chi-square is above 25 (points scatter
 *        five times wider than their error bars) and the log-log slope's
 *        CI includes both 0 and a material growth (the slope that would
 *        raise the cost by 25% over the range).
 *
 * 6. "worse" is the n^2 curve; or any data whose log-log slope has a 95%
 *    CI lying wholly above 1.5 (steeper than n log n can be, whether or not
 *    n^2 is the best of the five curves); or, when n^2 fits best with a
 *    material growth but misses so badly that test 4b fails (e.g. a + b*n^3:
 *    the misfit inflates c), a top of the range whose log-log slope is
 *    above 1.5 by 3 standard errors (from the points' own errors, since
 *    the misfit is not noise there).
 *
 * 7. A step is not n log n. When n log n wins with a material growth,
 *    but the points below the largest n (or below the largest two) show
 *    none of its bend (a + b*n fits them as well as a + b*n log n, and
 *    by a margin that a true n log n reaches about 2% of the time: its
 *    bend there, measured as the score its own values at those points
 *    give it, is at least 9, and the points fall 2 of that score's
 *    standard deviations short of it; or, where the bend there is
 *    smaller, 2 to 9, 3 of them), the bend is one step
 *    of the cost per item at the top of the range (a working set leaving a
 *    cache level: poll over 200 to 1,000 sockets, bench/bare-poll.c), and
 *    the class is O(n), the step in the reason. More data makes the plain
 *    fit call such a step n log n more surely, not less
 *    (tests/unit/test_fit.c, test_cache_step).
 *
 * Also reported, model-free: the log-log slope over all points (ordinary
 * least squares of log cost on log n, with a Student-t 95% CI), the same
 * slope over the top of the range (last three distinct n, or two), and
 * the ratio of the mean cost at the largest n to that at the smallest.
 *
 * Input is unusable (-1) when an n is below 1, a cost is not positive, or
 * the costs span more than 60 orders of magnitude (the weights would
 * overflow). A CI that is missing or inverted (hi <= lo, NaN) counts as
 * zero width: the point then carries the systematic error alone.
 *
 * Fewer than 3 distinct n is GROWTH_NONE ("too few points (k)", k the
 * number of distinct n): only npoints, nmin, nmax, ratio, exponent and
 * local_slope are filled then (exp_lo = exp_hi = exponent when there is no
 * residual degree of freedom), and a is the weighted mean cost.
 *
 * "model", a, b, b_se, growth_share and redchi2 describe the best-scoring
 * candidate, even when its growth is judged immaterial (verdict O(1)).
 * aic[] holds every model's score, including growing models rejected for
 * b < 0 (their b is negative; they were never candidates).
 */
#include "core/fit.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYS_FRAC 0.02        /* systematic error, fraction of the cost */
#define CI_FLOOR_FRAC 1e-6   /* floor of a point's own standard error */
#define MATERIAL_SHARE 0.20  /* growth share at nmax to call a growth */
#define MIN_B_SIGMAS 3.0     /* b / se(b) needed to call a growth */
#define TIE_DAIC 4.0         /* closer than this: models not separated */
#define NOISE_REDCHI2 25.0   /* reduced chi2 above this: noisy beyond CIs */
#define WORSE_EXP_LO 1.5     /* log-log slope CI above this: worse */
#define STEP_Z 2.0           /* how far below n log n's bend the lower points lie (step 7) */
#define STEP_DEXP_MIN 9.0    /* the least bend n log n must show below the step (step 7) */
#define STEP_DEXP_LOW 2.0    /* below STEP_DEXP_MIN down to this, step 7 asks STEP_Z_LOW */
#define STEP_Z_LOW 3.0
#define STEP_MAX_DROP 2      /* a step spans at most the last two n (step 7) */
#define SAME_N_REL 1e-9      /* n values closer than this are the same n */
#define MAX_COST_RANGE 1e60  /* largest/smallest cost beyond this: unusable */
#define FIT_PI 3.14159265358979323846

struct fpt {
	double n, cost, w, g[FIT_NMODELS];
};

struct mfit {
	int ok;        /* fitted (non-degenerate) */
	double a, b;
	double se_raw; /* se of b from the stated errors alone */
	double chi2;
	int k;         /* parameters */
};

static double gfun(int m, double n)
{
	double l = log(n);
	switch (m) {
	case 0: return 1.0;
	case 1: return l;
	case 2: return n;
	case 3: return n * l;
	default: return n * n;
	}
}

static int cmp_n(const void *x, const void *y)
{
	const struct fpt *p = x, *q = y;
	return (p->n > q->n) - (p->n < q->n);
}

static int same_n(double x, double y)
{
	return fabs(x - y) <= SAME_N_REL * fmax(fabs(x), fabs(y));
}

/* P(|T| < t) for Student's t with df degrees of freedom (Abramowitz and
 * Stegun 26.7.3 and 26.7.4: finite sums for integer df). */
static double t_central(double t, int df)
{
	double th = atan(t / sqrt(df)), s = sin(th), c2 = cos(th) * cos(th);
	double term = 1, sum = 1;
	if (df % 2 == 0) {
		for (int k = 2; k <= df - 2; k += 2) {
			term *= c2 * (k - 1) / k;
			sum += term;
		}
		return s * sum;
	}
	if (df == 1)
		return 2 * th / FIT_PI;
	for (int k = 3; k <= df - 2; k += 2) {
		term *= c2 * (k - 1) / k;
		sum += term;
	}
	return 2 / FIT_PI * (th + s * cos(th) * sum);
}

double fit_t_pvalue(double t, double df)
{
	if (!(df >= 1) || isnan(t))
		return NAN;
	if (isinf(t))
		return 0;
	int d = df > 1000 ? 1000 : (int)floor(df); /* t_central sums df terms */
	double p = 1 - t_central(fabs(t), d);
	return p < 0 ? 0 : p > 1 ? 1 : p;
}

/* The t with P(|T| < t) = central, df degrees of freedom (bisection). */
static double t_quantile(double central, int df)
{
	if (df < 1)
		return NAN;
	double lo = 0, hi = 1;
	while (t_central(hi, df) < central && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = 0.5 * (lo + hi);
		if (t_central(mid, df) < central)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

double fit_t_quantile(double central, int df)
{
	return t_quantile(central, df);
}

/* Ordinary least squares slope of y on x; se and residual df out. */
static double ols_slope(const double *x, const double *y, int m, double *se, int *df)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, rss = 0;
	*se = 0;
	*df = m - 2;
	if (m < 2)
		return 0;
	for (int i = 0; i < m; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= m;
	my /= m;
	for (int i = 0; i < m; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	if (!(sxx > 0))
		return 0;
	double b = sxy / sxx, a = my - b * mx;
	for (int i = 0; i < m; i++) {
		double r = y[i] - a - b * x[i];
		rss += r * r;
	}
	if (m > 2)
		*se = sqrt(rss / (m - 2) / sxx);
	return b;
}

/* Weighted least squares of cost on g_m (m = 0: the constant alone). */
static void wls(const struct fpt *p, int np, int m, struct mfit *f)
{
	double sw = 0, sy = 0;
	memset(f, 0, sizeof *f);
	f->k = m == 0 ? 1 : 2;
	for (int i = 0; i < np; i++) {
		sw += p[i].w;
		sy += p[i].w * p[i].cost;
	}
	double ybar = sy / sw;
	if (m == 0) {
		f->a = ybar;
		for (int i = 0; i < np; i++)
			f->chi2 += p[i].w * (p[i].cost - ybar) * (p[i].cost - ybar);
		f->ok = 1;
		return;
	}
	double sg = 0, sxx = 0, sxy = 0;
	for (int i = 0; i < np; i++)
		sg += p[i].w * p[i].g[m];
	double gbar = sg / sw;
	for (int i = 0; i < np; i++) {
		double dg = p[i].g[m] - gbar;
		sxx += p[i].w * dg * dg;
		sxy += p[i].w * dg * (p[i].cost - ybar);
	}
	if (!(sxx > 0) || !isfinite(sxx))
		return;
	f->b = sxy / sxx;
	f->a = ybar - f->b * gbar;
	f->se_raw = sqrt(1.0 / sxx);
	for (int i = 0; i < np; i++) {
		double r = p[i].cost - f->a - f->b * p[i].g[m];
		f->chi2 += p[i].w * r * r;
	}
	f->ok = isfinite(f->chi2) && isfinite(f->a) && isfinite(f->b);
}

static const char *const growth_names[] = {
	[GROWTH_UNCLEAR] = "unclear", [GROWTH_O1] = "O(1)",
	[GROWTH_LOGN] = "O(log n)",   [GROWTH_N] = "O(n)",
	[GROWTH_NLOGN] = "O(n log n)", [GROWTH_WORSE] = "worse",
	[GROWTH_NONE] = "none",
};
#define NGROWTH ((int)(sizeof growth_names / sizeof growth_names[0]))

static const char *const model_names[FIT_NMODELS] = {"1", "log n", "n", "n log n", "n^2"};

static const enum growth model_class[FIT_NMODELS] = {
	GROWTH_O1, GROWTH_LOGN, GROWTH_N, GROWTH_NLOGN, GROWTH_WORSE,
};

const char *growth_name(enum growth g)
{
	if ((int)g < 0 || (int)g >= NGROWTH)
		return "?";
	return growth_names[g];
}

int growth_from_name(const char *s)
{
	if (!s)
		return -1;
	for (int i = 0; i < NGROWTH; i++)
		if (strcmp(s, growth_names[i]) == 0)
			return i;
	return -1;
}

const char *fit_model_name(int model)
{
	if (model < 0 || model >= FIT_NMODELS)
		return "?";
	return model_names[model];
}

/* Fill the model-free descriptions; returns the number of distinct n and,
 * in *local_se, the standard error of local_slope implied by the points'
 * own errors (CI and systematic floor). lx, ly, lv: scratch, np each. */
static int describe(const struct fpt *p, int np, struct verdict *v, double *lx, double *ly,
		    double *lv, double *local_se)
{
	v->nmin = p[0].n;
	v->nmax = p[np - 1].n;

	/* mean cost at the smallest and at the largest n */
	double s0 = 0, s1 = 0;
	int c0 = 0, c1 = 0;
	for (int i = 0; i < np; i++) {
		if (same_n(p[i].n, v->nmin)) {
			s0 += p[i].cost;
			c0++;
		}
		if (same_n(p[i].n, v->nmax)) {
			s1 += p[i].cost;
			c1++;
		}
	}
	v->ratio = (s1 / c1) / (s0 / c0);

	/* log-log slope over all points, with its CI */
	for (int i = 0; i < np; i++) {
		lx[i] = log(p[i].n);
		ly[i] = log(p[i].cost);
	}
	double se;
	int df;
	v->exponent = ols_slope(lx, ly, np, &se, &df);
	if (df >= 1) {
		double h = t_quantile(0.95, df) * se;
		v->exp_lo = v->exponent - h;
		v->exp_hi = v->exponent + h;
	} else {
		v->exp_lo = v->exp_hi = v->exponent;
	}

	/* distinct n, each with its mean log cost and that mean's variance
	 * (reusing lx/ly in place: entry d is written only after entries >= d
	 * have been read). The relative error of a point is sigma / cost. */
	int nd = 0;
	for (int i = 0; i < np;) {
		int j = i;
		double sumy = 0, sumv = 0;
		for (; j < np && same_n(p[j].n, p[i].n); j++) {
			sumy += ly[j];
			sumv += 1.0 / (p[j].w * p[j].cost * p[j].cost);
		}
		lx[nd] = log(p[i].n);
		ly[nd] = sumy / (j - i);
		lv[nd] = sumv / ((double)(j - i) * (j - i));
		nd++;
		i = j;
	}
	int top = nd >= 3 ? 3 : nd;
	int dfl;
	double *tx = lx + nd - top, *ty = ly + nd - top, *tv = lv + nd - top;
	v->local_slope = ols_slope(tx, ty, top, &se, &dfl);
	double mx = 0, sxx = 0, var = 0;
	for (int i = 0; i < top; i++)
		mx += tx[i] / top;
	for (int i = 0; i < top; i++)
		sxx += (tx[i] - mx) * (tx[i] - mx);
	for (int i = 0; i < top && sxx > 0; i++)
		var += (tx[i] - mx) * (tx[i] - mx) / (sxx * sxx) * tv[i];
	*local_se = sqrt(var);
	return nd;
}

/* What the steps of fit_verdict share: the five fits and how each scored. */
struct scores {
	struct mfit f[FIT_NMODELS];
	double chat;                 /* reduced chi-square scale of the errors (>= 1) */
	double zmin;                 /* b / se(b) needed to call a growth */
	int cand[FIT_NMODELS];       /* a candidate (constant, or b >= 0) */
	int material[FIT_NMODELS];   /* growth material in size and clearly non-zero */
	double share[FIT_NMODELS];   /* growth share at nmax */
	double z[FIT_NMODELS];       /* b / se(b) */
	int best, rival;             /* rival: -1 if none */
	double drival;               /* its score minus the best's */
};

/* Step 0: usable input? (method: "Input is unusable") */
static int check_input(const struct fit_point *pts, int npts)
{
	double cmin = INFINITY, cmax = 0;
	for (int i = 0; i < npts; i++) {
		if (!(pts[i].n >= 1) || !isfinite(pts[i].n) || !(pts[i].cost > 0) ||
		    !isfinite(pts[i].cost))
			return -1;
		cmin = fmin(cmin, pts[i].cost);
		cmax = fmax(cmax, pts[i].cost);
	}
	if (cmax / cmin > MAX_COST_RANGE)
		return -1; /* no measurement spans that; the weights would overflow */
	return 0;
}

/* Step 1: each point's weight, in units of the costs' geometric mean (so
 * that no weight overflows whatever the unit; the caller scales a, b and
 * b_se back), sorted by n. */
static double weigh_points(const struct fit_point *pts, int npts, struct fpt *p)
{
	double scale = 0;
	for (int i = 0; i < npts; i++)
		scale += log(pts[i].cost) / npts;
	scale = exp(scale);
	for (int i = 0; i < npts; i++) {
		double c = pts[i].cost / scale, sci = 0;
		if (isfinite(pts[i].lo) && isfinite(pts[i].hi) && pts[i].hi > pts[i].lo)
			sci = (pts[i].hi / scale - pts[i].lo / scale) / 3.92;
		sci = fmax(sci, CI_FLOOR_FRAC * c);
		p[i].n = pts[i].n;
		p[i].cost = c;
		p[i].w = 1.0 / (sci * sci + SYS_FRAC * c * SYS_FRAC * c);
		for (int m = 0; m < FIT_NMODELS; m++)
			p[i].g[m] = gfun(m, pts[i].n);
	}
	qsort(p, (size_t)npts, sizeof *p, cmp_n);
	return scale;
}

/* Steps 2-3: fit the five models; chat, the scale of the errors (the
 * smallest reduced chi-square, at least 1), and zmin: b must be
 * MIN_B_SIGMAS standard errors from zero; when the errors were scaled by
 * the scatter (chat > 1) the noise level is itself an estimate, so use
 * the Student-t value of the same tail probability. */
static void fit_models(const struct fpt *p, int npts, struct scores *sc)
{
	sc->chat = INFINITY;
	for (int m = 0; m < FIT_NMODELS; m++) {
		wls(p, npts, m, &sc->f[m]);
		if (sc->f[m].ok)
			sc->chat = fmin(sc->chat, sc->f[m].chi2 / (npts - sc->f[m].k));
	}
	if (!(sc->chat > 1) || !isfinite(sc->chat))
		sc->chat = 1;
	sc->zmin = MIN_B_SIGMAS;
	if (sc->chat > 1)
		sc->zmin = t_quantile(erf(MIN_B_SIGMAS / sqrt(2.0)), npts - 2);
}

/* Steps 3-4: each model's score (AICc), growth share and b / se(b);
 * which are candidates and material; the best candidate. */
static void score_models(int npts, struct scores *sc, struct verdict *v)
{
	sc->best = 0;
	for (int m = 0; m < FIT_NMODELS; m++) {
		const struct mfit *f = &sc->f[m];
		int k = f->k;
		sc->share[m] = sc->z[m] = 0;
		if (!f->ok) {
			/* degenerate (g overflows for absurd n): never chosen */
			v->aic[m] = DBL_MAX;
			sc->cand[m] = sc->material[m] = 0;
			continue;
		}
		v->aic[m] = f->chi2 / sc->chat + 2 * k;
		if (npts - k - 1 > 0)
			v->aic[m] += 2.0 * k * (k + 1) / (npts - k - 1);
		sc->cand[m] = m == 0 || f->b >= 0;
		if (m > 0) {
			double gt = f->b * gfun(m, v->nmax);
			double tot = f->a + gt;
			sc->share[m] = tot > 0 ? gt / tot : 0;
			double se = f->se_raw * sqrt(sc->chat);
			sc->z[m] = se > 0 ? f->b / se : (f->b > 0 ? INFINITY : 0);
		}
		sc->material[m] = m > 0 && sc->cand[m] && sc->share[m] >= MATERIAL_SHARE &&
				  sc->z[m] >= sc->zmin;
		if (sc->cand[m] && v->aic[m] < v->aic[sc->best])
			sc->best = m;
	}
}

/* Step 5a: the closest rival of a different class. For a material best,
 * any other growing candidate whose growth is material in size counts;
 * for an immaterial best, only a fully material growing model. */
static void find_rival(struct scores *sc, const struct verdict *v)
{
	int best = sc->best;
	sc->rival = -1;
	for (int m = 1; m < FIT_NMODELS; m++) {
		int ok = sc->material[best] ? sc->cand[m] && sc->share[m] >= MATERIAL_SHARE
					    : sc->material[m];
		if (m != best && ok && (sc->rival < 0 || v->aic[m] < v->aic[sc->rival]))
			sc->rival = m;
	}
	sc->drival = sc->rival >= 0 ? v->aic[sc->rival] - v->aic[best] : INFINITY;
}

/* Step 7: is the n log n curvature more than one step at the top of the
 * range? n log n says the cost per item keeps rising, by the same amount
 * for every factor of n, so the points below the largest n (and below the
 * largest two: a step may take more than one factor of n) must bend too.
 * Fit a + b*n and a + b*n log n again to those points alone (same k, so
 * the AICc terms cancel; errors scaled by their own best reduced
 * chi-square, as in step 3): dsub, n's score minus n log n's there. Had the
 * best n log n curve been the truth, the lower points would have shown its
 * bend by about dexp (the same fit of a + b*n to that curve's own values
 * at those points, with the same weights). A true n log n gives dsub
 * about dexp with a standard deviation of 2 sqrt(dexp) (two curves' score
 * difference, step 5a). When the lower points show none of that bend
 * (dsub <= 0) and fall STEP_Z (2) of those deviations short of it
 * (dsub <= dexp - 4 sqrt(dexp): a chance of Phi(-2), 2%, for a true
 * n log n; for dexp >= 16 the first condition is the stricter), and the
 * bend was there to see (dexp >= STEP_DEXP_MIN, 9: below it the normal
 * approximation is rough and the test weak; 4 and 12 were tried on the
 * synthetic curves of test_cache_step; from STEP_DEXP_LOW, 2, up to 9 the
 * points must fall STEP_Z_LOW, 3, deviations short: net.request beside two
 * CPU hogs, cost per socket flat to 200 and 55% up at 1,000, showed
 * dsub -8.8 where dexp was 3.1), the whole bend
 * is in the last one or two steps of n: a cost per item that stepped up
 * there (a working set leaving a cache level), and the class is O(n), with
 * the step in the reason. Needs 4 distinct n below the step. */
struct top_step {
	int found;     /* the n log n curvature is a step at the top */
	double step;   /* cost per item at nmax over the lower points' b, minus 1 */
	double dsub;   /* n's score minus n log n's below the step */
	double dexp;   /* what dsub would be if the best n log n curve were exact */
	double nfrom;  /* the largest n below the step */
};

/* The test of step 7 with the top `drop` distinct n left out. */
static void step_below(const struct fpt *p, int npts, int nd, int drop, const struct mfit *fnl,
		       const struct verdict *v, struct top_step *ts)
{
	int m = npts;
	memset(ts, 0, sizeof *ts);
	for (int k = 0; k < drop; k++) {
		double top = p[m - 1].n;
		while (m > 0 && same_n(p[m - 1].n, top))
			m--;
	}
	if (nd - drop < 4 || m < 4)
		return;
	struct mfit fn, fl;
	wls(p, m, 2, &fn);
	wls(p, m, 3, &fl);
	if (!fn.ok || !fl.ok || !(fn.b > 0))
		return;
	double c = fmin(fn.chi2, fl.chi2) / (m - 2);
	if (!(c > 1) || !isfinite(c))
		c = 1;
	ts->dsub = (fn.chi2 - fl.chi2) / c; /* same k: the AICc terms cancel */
	double top = 0;
	int ct = 0;
	for (int i = m; i < npts; i++)
		if (same_n(p[i].n, v->nmax)) {
			top += (p[i].cost - fn.a) / p[i].n;
			ct++;
		}
	ts->step = top / ct / fn.b - 1;
	ts->nfrom = p[m - 1].n;
	struct fpt *q = fnl->ok ? malloc((size_t)m * sizeof *q) : NULL;
	if (!q)
		return;
	memcpy(q, p, (size_t)m * sizeof *q);
	for (int i = 0; i < m; i++)
		q[i].cost = fnl->a + fnl->b * q[i].g[3];
	struct mfit fe;
	wls(q, m, 2, &fe);
	free(q);
	ts->dexp = fe.ok ? fe.chi2 / c : 0;
	/* a true n log n gives dsub about dexp +- 2 sqrt(dexp): found when
	 * dsub lies STEP_Z of those below it (and at or below 0) */
	double z = ts->dexp >= STEP_DEXP_MIN ? STEP_Z : STEP_Z_LOW;
	ts->found = ts->dexp >= STEP_DEXP_LOW && ts->dsub <= fmin(0, ts->dexp - z * 2 * sqrt(ts->dexp));
}

/* Step 7 over the last one and the last two distinct n. */
static void top_step(const struct fpt *p, int npts, int nd, const struct mfit *fnl,
		     const struct verdict *v, struct top_step *ts)
{
	for (int drop = 1; drop <= STEP_MAX_DROP; drop++) {
		step_below(p, npts, nd, drop, fnl, v, ts);
		if (ts->found)
			return;
	}
}

/* Step 5a's one exception: the best curve is a + b*n or a + b*n log n,
 * the other scores within TIE_DAIC of it, and no other growing curve with
 * a material share does (nor n^2). Over n = 1..10^4 a small linear growth
 * and n log n differ by a factor log n that a few per cent of noise hides;
 * both say "grows linearly or worse". The verdict is then O(n), with the
 * tie recorded (verdict.tie), when a + b*n stands on its own: material
 * (share >= 20%, b clearly non-zero), the log-log slope's CI above 0 and
 * the points not noisy (5d), and its growth term at least FIT_FIRM_Z
 * standard errors from zero (fit.h). Under it the "growth" may be drift: fs.fsync less
 * its control on tmpfs (a difference of 1-2 us) beside a load of
 * 12 tied n and n log n at b/se 4.7-4.9 and was called O(n), twice in
 * three runs; the ties of stored quick runs that name a real growth have
 * b/se 8-31 (47 of 53). Ties of far classes (O(log n) against O(n), O(1)
 * against a growth) stay unclear. */
static int near_tie(const struct scores *sc, const struct verdict *v, int noisy)
{
	int best = sc->best;
	if (noisy || !sc->material[best] || (best != 2 && best != 3) || !sc->material[2] ||
	    !sc->cand[3] || !(v->exp_lo > 0) || !(sc->z[2] >= FIT_FIRM_Z))
		return 0;
	if (!(fabs(v->aic[3] - v->aic[2]) < TIE_DAIC))
		return 0;
	for (int m = 1; m < FIT_NMODELS; m++)
		if (m != 2 && m != 3 && sc->cand[m] && sc->share[m] >= MATERIAL_SHARE &&
		    v->aic[m] - v->aic[best] < TIE_DAIC)
			return 0;
	return 1;
}

/* Steps 4-6: the class and its reason, from the scores and the
 * model-free slopes already in v (local_se: the local slope's standard
 * error from the points' own errors). */
static void classify(const struct scores *sc, double local_se, const struct top_step *ts,
		     struct verdict *v)
{
	int best = sc->best, rival = sc->rival;
	const int *material = sc->material;
	const double *share = sc->share, *z = sc->z;
	double drival = sc->drival;

	/* log-log slope straddles "no growth" and "material growth"? */
	double range = log(v->nmax / v->nmin);
	double e_mat = log(1.0 / (1.0 - MATERIAL_SHARE)) / range;
	int straddle = v->exp_lo <= 0 && v->exp_hi >= e_mat;
	int noisy = v->redchi2 > NOISE_REDCHI2 && straddle;
	/* a growth the model-free slope cannot confirm is noise too */
	int unconfirmed = material[best] && v->exp_lo <= 0;

	char *r = v->reason;
	size_t rn = sizeof v->reason;
	/* n^2 fits best, but even n^2 bends too slowly: the top of the range
	 * is steeper than n^1.5 by MIN_B_SIGMAS standard errors of the local
	 * slope (from the points' own errors: the misfit must not count as
	 * noise here), and the whole range does grow */
	double local_lo = v->local_slope - MIN_B_SIGMAS * local_se;
	int steep_top = best == 4 && share[best] >= MATERIAL_SHARE && v->exp_lo > 0 &&
			local_lo > WORSE_EXP_LO;
	if (v->exp_lo > WORSE_EXP_LO) {
		v->cls = GROWTH_WORSE;
		snprintf(r, rn, "log-log slope %.2f (95%% CI %.2f..%.2f) is steeper than n^1.5",
			 v->exponent, v->exp_lo, v->exp_hi);
	} else if (near_tie(sc, v, noisy)) {
		/* O(n) and O(n log n) alone tie: the lower class, the tie said */
		v->cls = GROWTH_N;
		v->tie = GROWTH_NLOGN;
		snprintf(r, rn,
			 "a + b*n fits as well as a + b*n log n (dAIC %.1f): O(n), the lower of two "
			 "classes these n cannot tell apart; growth term %.0f%% of cost at n=%g, "
			 "b/se %.1f",
			 fabs(v->aic[3] - v->aic[2]), 100 * share[2], v->nmax, z[2]);
	} else if (rival >= 0 && drival < TIE_DAIC) {
		v->cls = GROWTH_UNCLEAR;
		int m1 = material[best] ? best : 0;
		snprintf(r, rn, "%s and %s fit equally well (dAIC %.1f)",
			 growth_name(model_class[m1]), growth_name(model_class[rival]), drival);
	} else if (unconfirmed) {
		v->cls = GROWTH_UNCLEAR;
		snprintf(r, rn,
			 "noise swamps growth: a + b*%s fits best (growth %.0f%% of cost at n=%g) "
			 "but the log-log slope's CI %.3f..%.3f includes 0",
			 model_names[best], 100 * share[best], v->nmax, v->exp_lo, v->exp_hi);
	} else if (noisy) {
		v->cls = GROWTH_UNCLEAR;
		snprintf(r, rn,
			 "noise swamps growth: points scatter %.3gx wider than their CIs "
			 "(reduced chi2 %.3g), log-log slope %.3f..%.3f",
			 sqrt(v->redchi2), v->redchi2, v->exp_lo, v->exp_hi);
	} else if (material[best] && best == 3 && ts->found && material[2]) {
		v->cls = GROWTH_N;
		snprintf(r, rn,
			 "a + b*n fits n <= %g as well as n log n (its dAIC %+.1f, where n log n's "
			 "bend would give %+.1f); from there to n=%g the cost per item steps up "
			 "%.0f%% (a cache size?): O(n)",
			 ts->nfrom, -ts->dsub, -ts->dexp, v->nmax, 100 * ts->step);
	} else if (material[best]) {
		v->cls = model_class[best];
		if (rival >= 0)
			snprintf(r, rn,
				 "a + b*%s fits best: growth term %.0f%% of cost at n=%g, "
				 "b/se %.1f; next %s dAIC %.1f",
				 model_names[best], 100 * share[best], v->nmax, z[best],
				 model_names[rival], drival);
		else
			snprintf(r, rn,
				 "a + b*%s fits best: growth term %.0f%% of cost at n=%g, b/se %.1f",
				 model_names[best], 100 * share[best], v->nmax, z[best]);
	} else if (steep_top) {
		v->cls = GROWTH_WORSE;
		snprintf(r, rn,
			 "a + b*n^2 fits best but misses (reduced chi2 %.3g) and the top of the "
			 "range is steeper than n^1.5: log-log slope over the last three n "
			 "%.2f +- %.2f",
			 v->redchi2, v->local_slope, local_se);
	} else if (best > 0 && share[best] < MATERIAL_SHARE) {
		v->cls = GROWTH_O1;
		snprintf(r, rn, "growth term (%s) is %.0f%% of cost at n=%g: constant",
			 model_names[best], 100 * share[best], v->nmax);
	} else if (best > 0) {
		v->cls = GROWTH_UNCLEAR;
		snprintf(r, rn,
			 "noise swamps growth: a + b*%s fits best with growth %.0f%% of cost at "
			 "n=%g, but b/se %.1f < %.1f",
			 model_names[best], 100 * share[best], v->nmax, z[best], sc->zmin);
	} else {
		v->cls = GROWTH_O1;
		snprintf(r, rn, "constant fits best (cost ratio %.2f from n=%g to %g)",
			 v->ratio, v->nmin, v->nmax);
	}
}

int fit_verdict(const struct fit_point *pts, int npts, struct verdict *v)
{
	if (!v)
		return -1;
	memset(v, 0, sizeof *v);
	if (!pts || npts < 1 || check_input(pts, npts) < 0)
		return -1;

	struct fpt *p = malloc((size_t)npts * sizeof *p);
	double *lx = malloc((size_t)npts * sizeof *lx);
	double *ly = malloc((size_t)npts * sizeof *ly);
	double *lv = malloc((size_t)npts * sizeof *lv);
	if (!p || !lx || !ly || !lv) {
		free(p);
		free(lx);
		free(ly);
		free(lv);
		return -1;
	}
	double scale = weigh_points(pts, npts, p);
	v->npoints = npts;
	double local_se;
	int nd = describe(p, npts, v, lx, ly, lv, &local_se);
	free(lx);
	free(ly);
	free(lv);

	if (nd < 3) {
		v->cls = GROWTH_NONE;
		snprintf(v->reason, sizeof v->reason, "too few points (%d)", nd);
		struct mfit f0;
		wls(p, npts, 0, &f0);
		v->a = f0.a * scale;
		free(p);
		return 0;
	}

	struct scores sc;
	fit_models(p, npts, &sc);
	score_models(npts, &sc, v);
	struct top_step ts;
	top_step(p, npts, nd, &sc.f[3], v, &ts);
	free(p);
	const struct mfit *fb = &sc.f[sc.best];
	v->model = sc.best;
	v->a = fb->a * scale;
	v->b = fb->b * scale;
	v->b_se = fb->se_raw * sqrt(sc.chat) * scale;
	v->growth_share = sc.share[sc.best];
	v->redchi2 = fb->chi2 / (npts - fb->k);
	find_rival(&sc, v);
	classify(&sc, local_se, &ts, v);
	return 0;
}
