/* SPDX-License-Identifier: MIT */
/* Growth fit and verdict: which of O(1), O(log n), O(n), O(n log n) or
 * worse describes how a cost grows along a sweep, or "unclear".
 * See fit.c for the method. */
#ifndef SB_FIT_H
#define SB_FIT_H

enum growth {
	GROWTH_UNCLEAR = 0,
	GROWTH_O1,
	GROWTH_LOGN,
	GROWTH_N,
	GROWTH_NLOGN,
	GROWTH_WORSE, /* n^2 or steeper */
	GROWTH_NONE,  /* too few points to say anything (not a verdict) */
};
#define FIT_NMODELS 5 /* 1, log n, n, n log n, n^2 */
/* The bar a growth on one sweep must clear to be named on its own: its
 * term at least this many standard errors from zero. Under it a growth
 * may be drift; fit.c's tie rule and verdict.c's --decide confirmation
 * (weak_growth) both hold to it. */
#define FIT_FIRM_Z 8.0

struct fit_point {
	double n;      /* axis value, >= 1 */
	double cost;   /* median cost, ns */
	double lo, hi; /* 95% CI of the median, ns */
};

struct verdict {
	enum growth cls;
	char reason[200];     /* why this class (or why unclear) */
	int npoints;
	int model;            /* index of chosen model 0..4 (g = 1, log n, n, n log n, n^2) */
	double a, b;          /* chosen model: cost = a + b * g(n), ns */
	double b_se;          /* standard error of b */
	double growth_share;  /* b*g(nmax) / model cost at nmax */
	double exponent;      /* log-log slope over all points */
	double exp_lo, exp_hi;/* its 95% confidence interval */
	double local_slope;   /* log-log slope over the top of the range */
	double ratio;         /* cost at largest n / cost at smallest n */
	double nmin, nmax;
	double aic[FIT_NMODELS];
	double redchi2;       /* reduced chi-square of the chosen model */
	/* a near class that fits as well as cls (O(n log n) beside O(n)):
	 * the tie the verdict names the lower of; GROWTH_UNCLEAR: none */
	enum growth tie;
};

/* Points may repeat an n (pooled repetitions); order does not matter.
 * Returns 0, or -1 when pts is unusable (n < 1 or cost <= 0). Fewer than
 * 3 distinct n gives cls = GROWTH_NONE with a reason. */
int fit_verdict(const struct fit_point *pts, int npts, struct verdict *v);
const char *growth_name(enum growth g); /* "O(1)", "O(log n)", ... */
int growth_from_name(const char *s);    /* inverse, -1 if unknown */
const char *fit_model_name(int model);  /* "1", "log n", "n", "n log n", "n^2" */
/* Two-sided p-value of Student's t with df degrees of freedom (df is
 * rounded down: conservative for Welch's fractional df); NAN if df < 1. */
double fit_t_pvalue(double t, double df);
/* The t with P(|T| < t) = central for df degrees of freedom; NAN if df < 1. */
double fit_t_quantile(double central, int df);

#endif
