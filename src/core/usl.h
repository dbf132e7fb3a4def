/* SPDX-License-Identifier: MIT */
/* Throughput verdict of a concurrency axis: Gunther's Universal
 * Scalability Law fitted to ops/s against N. See usl.c for the method. */
#ifndef SB_USL_H
#define SB_USL_H

enum usl_class {
	USL_NONE = 0,   /* too few points to say anything (not a verdict) */
	USL_LINEAR,     /* throughput grows with N: efficiency at the largest N >= 80% */
	USL_SATURATES,  /* efficiency at the largest N clearly below 80% */
	USL_RETROGRADE, /* past the peak N*: throughput falls as N grows */
	USL_UNCLEAR,    /* the intervals straddle linear and saturating */
};

struct usl_point {
	double n;  /* axis value, >= 1 */
	double x;  /* throughput (ops/s), > 0 */
	double se; /* its standard error (0: unknown, the systematic error alone) */
};

/* How the points were chosen (the caller's; usl_fit applies it). */
struct usl_opts {
	int cpus;         /* > 0: points with n above it are oversubscribed */
	int fit_oversub;  /* fit oversubscribed points anyway */
};

struct usl {
	enum usl_class cls;
	char reason[200];
	int npoints;            /* points fitted (repetitions pooled) */
	int noversub;           /* points with n > cpus (fitted only with fit_oversub) */
	int cpus, oversub_fitted;
	double nmin, nmax;      /* of the fitted points */
	double lambda;          /* X(1) of the fitted curve, ops/s */
	double sigma, sigma_lo, sigma_hi; /* contention and its 95% CI */
	double kappa, kappa_lo, kappa_hi; /* coherency and its 95% CI */
	int kappa_fixed;        /* two distinct N: kappa held at 0, not fitted */
	double peak_n;          /* N* = sqrt((1 - sigma) / kappa) if kappa > 0, else 0 */
	double efficiency;      /* measured X(nmax) / (nmax * X(1)); X(1) the fitted lambda
				 * when N = 1 was not measured */
	double eff_lo, eff_hi;  /* 95% CI of the fitted curve's efficiency at nmax */
	double effm_lo, effm_hi; /* 95% CI of the measured efficiency (N = 1 measured; else 0) */
	double x_nmax;          /* mean measured throughput at nmax, ops/s */
	double redchi2;         /* reduced chi-square of the fit */
};

/* Points may repeat an n (pooled repetitions); order does not matter.
 * Returns 0, or -1 when pts is unusable (n < 1, x <= 0, not finite).
 * Fewer than 3 distinct n (or no residual degree of freedom) gives
 * USL_NONE with the reason. */
int usl_fit(const struct usl_point *pts, int npts, const struct usl_opts *o, struct usl *u);
/* The fitted throughput at n (ops/s); NAN without a fit. */
double usl_model(const struct usl *u, double n);
const char *usl_class_name(enum usl_class c); /* "linear", "saturates", "retrograde"... */
int usl_class_from_name(const char *s);       /* inverse, -1 if unknown */
/* The headline word: "linear", "saturates", "retrograde past N*", "unclear", "none". */
const char *usl_word(enum usl_class c);

#endif
