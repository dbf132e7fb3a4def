/* SPDX-License-Identifier: MIT */
/* The noise floor of a bench, from earlier runs of it on the same host,
 * kernel and file system (the history database holds them; the command
 * picks the runs, this file only does the arithmetic).
 *
 * Two runs of an unchanged system differ as wholes: a run's processes land
 * on other CPUs, at another frequency, beside other neighbours of a virtual
 * machine. The repetitions inside one run share part of that, so a test of
 * repetitions can still call a run-to-run shift a change (on this
 * project's 2-vCPU VM the io.* benches of the quick suite did: see
 * docs/compare.md). The history shows how far this bench usually moves
 * from run to run here, and compare can demand that a change be larger
 * than k times that, as browser projects' performance dashboards do.
 *
 * The method, kept simple:
 * 1. Each earlier run gives, per N, the mean over its repetitions of
 *    ln(median); only N that every repetition of it measured.
 * 2. The N every run measured are the common N; a run's level is the mean
 *    of its values over them (the same N for every run, so a run that
 *    swept further does not look dearer).
 * 3. The spread is the sample standard deviation of the levels: a relative
 *    spread, since they are logs (0.05 is about 5%). The floor is
 *    expm1(k * spread); with k = 3 a run-to-run shift goes past it about
 *    0.3% of the time if the levels are normal.
 * With fewer than 2 runs or no common N the spread is NAN; compare wants
 * at least 3 runs (--floor-runs) before it uses one.
 * 4. Beside it, the spread beyond the run shift: a whole run moves every
 *    bench alike (the machine's speed in that stretch: up to 22% on this
 *    project's VM), and compare takes that shift off the change it tests
 *    (cmp_center); so each earlier run's shift, the median over the
 *    benches of its level less the bench's mean level, is taken off each
 *    level before the spread. That is the spread compare's history test
 *    wants (docs/compare.md, "Power"); the floor keeps the whole one.
 * 5. And the same spreads with each run's level adjusted for the
 *    machine-speed probe, as compare adjusts the levels it tests
 *    (docs/compare.md, "Probe-adjusted levels"): with NOISE_ADJ_MIN_RUNS
 *    runs or more, the slope beta of the runs' levels on their mean ln
 *    page-fault time (least squares over the runs, clamped to 0..2), and
 *    level - beta x (the run's fault time - the runs' mean). On this
 *    project's VM the fault time moves 30-40% between stretches of runs
 *    and the same-placed and two-sided benches with it: over 11 quick runs
 *    the run-to-run spread of net.udp went from 18% to 6%, of proc.fork
 *    from 13% to 4.3%. compare then adjusts both sides with the history's
 *    slope, estimated across runs, which is where the fault time varies.
 *    The same again on the probe's unmap time (one slope at a time, each
 *    its own spreads: cmp_slope): on this VM an unmap, a fork or an exit
 *    costs 2-3x while the other vCPU runs anything, which the fault time
 *    does not see (docs/compare.md, "Why proc.fork"). */
#include "core/noise.h"

#include "core/cmpstat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NOISE_ADJ_MIN_RUNS 5 /* earlier runs a probe slope is estimated from */
#define NOISE_ADJ_MAX_BETA 2.0 /* as compare's own slope (compare.c) */

struct noise_run {
	int id; /* which earlier run: the order noise_add_run got them in */
	int npts;
	uint64_t *n;
	double *lp; /* mean ln(median) over the repetitions at n[i] */
	/* the same of the probe's ln time of each part a slope is taken on
	 * (CMP_SLOPE_*: page fault, unmap); NAN when a repetition's point
	 * lacks it */
	double *lc[CMP_SLOPES];
};

struct noise_acc {
	char key[200];
	int version;
	struct noise_run *runs;
	int nruns;
};

double noise_spread(const double *x, int n)
{
	if (n < 2)
		return NAN;
	double m = 0, q = 0;
	for (int i = 0; i < n; i++)
		m += x[i];
	m /= n;
	for (int i = 0; i < n; i++)
		q += (x[i] - m) * (x[i] - m);
	return sqrt(q / (n - 1));
}

static const struct point *rep_point(const struct repetition *r, uint64_t n)
{
	for (int i = 0; i < r->npts; i++)
		if (r->pts[i].n == n)
			return &r->pts[i];
	return NULL;
}

/* One run of bench b: per N of its first repetition with points, the mean
 * ln(median) over the repetitions, when every repetition has it. */
static int run_values(const struct bench_result *b, struct noise_run *out)
{
	const struct repetition *first = NULL;
	memset(out, 0, sizeof(*out));
	for (int r = 0; r < b->nreps && !first; r++)
		if (b->reps[r].npts)
			first = &b->reps[r];
	if (!first)
		return 0;
	out->n = calloc((size_t)first->npts, sizeof(*out->n));
	out->lp = calloc((size_t)first->npts, sizeof(*out->lp));
	int nomem = !out->n || !out->lp;
	for (int c = 0; c < CMP_SLOPES; c++)
		nomem |= !(out->lc[c] = calloc((size_t)first->npts, sizeof(double)));
	if (nomem)
		return -1;
	for (int i = 0; i < first->npts; i++) {
		uint64_t n = first->pts[i].n;
		double sum = 0, csum[CMP_SLOPES] = {0};
		int k = 0, ok = 1;
		for (int r = 0; r < b->nreps && ok; r++) {
			if (!b->reps[r].npts)
				continue;
			const struct point *p = rep_point(&b->reps[r], n);
			ok = p && p->st.p50 > 0;
			sum += ok ? log(p->st.p50) : 0;
			for (int c = 0; c < CMP_SLOPES; c++)
				csum[c] += ok ? point_probe_ln(p, CMP_SLOPE_PART(c)) : 0;
			k++;
		}
		if (ok && k) {
			out->n[out->npts] = n;
			for (int c = 0; c < CMP_SLOPES; c++)
				out->lc[c][out->npts] = csum[c] / k;
			out->lp[out->npts++] = sum / k;
		}
	}
	return 0;
}

static void run_free(struct noise_run *r)
{
	free(r->n);
	free(r->lp);
	for (int c = 0; c < CMP_SLOPES; c++)
		free(r->lc[c]);
}

static struct noise_acc *acc_get(struct noise_set *s, const char *key, int version)
{
	for (int i = 0; i < s->n; i++)
		if (s->acc[i].version == version && !strcmp(s->acc[i].key, key))
			return &s->acc[i];
	struct noise_acc *a = realloc(s->acc, (size_t)(s->n + 1) * sizeof(*a));
	if (!a)
		return NULL;
	s->acc = a;
	a = &s->acc[s->n++];
	memset(a, 0, sizeof(*a));
	snprintf(a->key, sizeof(a->key), "%s", key);
	a->version = version;
	return a;
}

int noise_add_run(struct noise_set *s, const struct run_result *r)
{
	for (int i = 0; i < r->nbenches; i++) {
		const struct bench_result *b = &r->benches[i];
		char key[200];
		if (!b->name)
			continue;
		compare_bench_key(b, key, sizeof(key));
		struct noise_acc *a = acc_get(s, key, b->version);
		if (!a)
			return -1;
		struct noise_run v;
		int bad = run_values(b, &v);
		if (bad || !v.npts) {
			run_free(&v);
			if (bad)
				return -1;
			continue; /* the bench measured nothing in that run */
		}
		v.id = s->nadded;
		struct noise_run *rs = realloc(a->runs, (size_t)(a->nruns + 1) * sizeof(*rs));
		if (!rs) {
			run_free(&v);
			return -1;
		}
		a->runs = rs;
		a->runs[a->nruns++] = v;
	}
	s->nadded++;
	return 0;
}

/* Run r's value at n from v (its lp or an lc), or NAN when it has no n. */
static double run_value(const struct noise_run *r, uint64_t n, const double *v)
{
	for (int i = 0; i < r->npts; i++)
		if (r->n[i] == n)
			return v[i];
	return NAN;
}

static double run_at(const struct noise_run *r, uint64_t n) { return run_value(r, n, r->lp); }

/* The run shifts of window w (0 sweep, 1 top third): per earlier run, the
 * median over the benches that have it (at least CMP_SCALE_MIN_TESTS) of
 * the run's level less the bench's mean level; NAN otherwise. lv[i] holds
 * bench i's levels, one per run of it (NULL: none). */
static void run_shifts(const struct noise_set *s, double *const *lv, double *shift)
{
	double *dev = calloc((size_t)s->n + 1, sizeof(*dev));
	double *mean = calloc((size_t)s->n + 1, sizeof(*mean));
	for (int i = 0; dev && mean && i < s->n; i++)
		for (int r = 0; lv[i] && r < s->acc[i].nruns; r++)
			mean[i] += lv[i][r] / s->acc[i].nruns;
	for (int id = 0; id < s->nadded; id++) {
		int k = 0;
		for (int i = 0; dev && mean && i < s->n; i++) {
			const struct noise_acc *a = &s->acc[i];
			for (int r = 0; lv[i] && a->nruns >= 2 && r < a->nruns; r++)
				if (a->runs[r].id == id)
					dev[k++] = lv[i][r] - mean[i];
		}
		shift[id] = k >= CMP_SCALE_MIN_TESTS ? cmp_median(dev, k) : NAN;
	}
	free(dev);
	free(mean);
}

/* Bench a's runs over points at[from..k) of the common N (indices into
 * its first run): lv[r] the mean ln median, fv[c][r] the mean ln time of
 * probe part c (CMP_SLOPE_*; NAN when a point lacks it). */
static void window_levels(const struct noise_acc *a, const int *at, int from, int k, double *lv,
			  double *const *fv)
{
	const struct noise_run *r0 = &a->runs[0];
	for (int r = 0; r < a->nruns; r++) {
		lv[r] = 0;
		for (int c = 0; c < CMP_SLOPES; c++)
			fv[c][r] = 0;
		for (int j = from; j < k; j++) {
			lv[r] += run_at(&a->runs[r], r0->n[at[j]]);
			for (int c = 0; c < CMP_SLOPES; c++)
				fv[c][r] += run_value(&a->runs[r], r0->n[at[j]], a->runs[r].lc[c]);
		}
		lv[r] /= k - from;
		for (int c = 0; c < CMP_SLOPES; c++)
			fv[c][r] /= k - from;
	}
}

/* The least-squares slope of y on x over n runs, clamped to
 * [0, NOISE_ADJ_MAX_BETA]; NAN when an x is not finite or the x do not
 * vary. *sxx: the x's sum of squared deviations (the slope's standard
 * error is the residual spread over its root). */
static double part_slope(const double *y, const double *x, int n, double *sxx_out)
{
	double my = 0, mx = 0, sxy = 0, sxx = 0;
	for (int i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return NAN;
		my += y[i] / n;
		mx += x[i] / n;
	}
	for (int i = 0; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		sxx += (x[i] - mx) * (x[i] - mx);
	}
	*sxx_out = sxx;
	return sxx > 0 ? fmin(NOISE_ADJ_MAX_BETA, fmax(0, sxy / sxx)) : NAN;
}

/* The slopes of y on the two probe parts' times x[0], x[1] fitted
 * together (least squares with an intercept, n - 3 degrees of freedom)
 * into sl[c].pbeta and pse; left NAN when an x is not finite or the two
 * cannot be told apart. */
static void joint_slopes(const double *y, double *const *x, int n, struct cmp_slope *sl)
{
	double m[3] = {0, 0, 0}, s00 = 0, s11 = 0, s01 = 0, s0y = 0, s1y = 0;
	for (int i = 0; i < n; i++) {
		if (!isfinite(x[0][i]) || !isfinite(x[1][i]))
			return;
		m[0] += x[0][i] / n;
		m[1] += x[1][i] / n;
		m[2] += y[i] / n;
	}
	for (int i = 0; i < n; i++) {
		double a = x[0][i] - m[0], b = x[1][i] - m[1], c = y[i] - m[2];
		s00 += a * a;
		s11 += b * b;
		s01 += a * b;
		s0y += a * c;
		s1y += b * c;
	}
	double det = s00 * s11 - s01 * s01;
	if (!(det > 1e-12 * s00 * s11) || n < 4)
		return;
	double b0 = (s11 * s0y - s01 * s1y) / det, b1 = (s00 * s1y - s01 * s0y) / det, rss = 0;
	for (int i = 0; i < n; i++) {
		double e = y[i] - m[2] - b0 * (x[0][i] - m[0]) - b1 * (x[1][i] - m[1]);
		rss += e * e;
	}
	double s2 = rss / (n - 3);
	sl[0].pbeta = b0;
	sl[0].pse = sqrt(s2 * s11 / det);
	sl[1].pbeta = b1;
	sl[1].pse = sqrt(s2 * s00 / det);
}

/* The spread of levels that had a slope taken off: n - 2 degrees of
 * freedom, not noise_spread's n - 1. */
static double adj_spread(const double *x, int n)
{
	return n > 2 ? noise_spread(x, n) * sqrt((double)(n - 1) / (n - 2)) : NAN;
}

/* Where the spread of window w (0 sweep, 1 top third) beyond each run's
 * shift goes: as measured (j 0) or adjusted by slope j - 1. */
static double *beyond_field(struct cmp_floor *f, int w, int j)
{
	if (!j)
		return w ? &f->spread_top_beyond : &f->spread_beyond;
	return w ? &f->slope[j - 1].spread_top_beyond : &f->slope[j - 1].spread_beyond;
}

/* Each bench's spread of window w beyond each earlier run's shift, from
 * lv[i] (bench i's levels, one per run, as measured or adjusted by slope
 * j - 1; NULL: none). */
static void spreads_beyond(struct noise_set *s, double *const *lv, int w, int j, double *shift,
			   double *x)
{
	run_shifts(s, lv, shift);
	for (int i = 0; i < s->n; i++) {
		const struct noise_acc *a = &s->acc[i];
		int k = 0;
		for (int r = 0; lv[i] && r < a->nruns && k >= 0; r++)
			if (isfinite(shift[a->runs[r].id]))
				x[k++] = lv[i][r] - shift[a->runs[r].id];
			else
				k = -1; /* a run without a shift: none for this bench */
		if (k == a->nruns && (!j || isfinite(s->floors[i].slope[j - 1].beta)))
			*beyond_field(&s->floors[i], w, j) = j ? adj_spread(x, k) : noise_spread(x, k);
	}
}

/* The levels lv of a bench's runs adjusted by slope sl on fv (its probe
 * part's times) into la, and their spread into *spread (la = lv when sl
 * has no slope). */
static void adjust_levels(const double *lv, const double *fv, int n, const struct cmp_slope *sl,
			  double *la, double *spread)
{
	memcpy(la, lv, (size_t)n * sizeof(*la));
	if (!isfinite(sl->beta))
		return;
	double mf = 0;
	for (int r = 0; r < n; r++)
		mf += fv[r] / n;
	for (int r = 0; r < n; r++)
		la[r] -= sl->beta * (fv[r] - mf);
	*spread = adj_spread(la, n);
}

void noise_finish(struct noise_set *s)
{
	free(s->floors);
	s->floors = s->n ? calloc((size_t)s->n, sizeof(*s->floors)) : NULL;
	if (!s->floors)
		return; /* out of memory: no floors, noise_find finds none */
	/* each bench's levels per window (sweep, top third), as measured [0]
	 * and adjusted by each slope [1 + c] (as measured when it has none),
	 * kept for the run shifts */
	enum { LV = 1 + CMP_SLOPES };
	double **lvs[2][LV];
	int nomem = 0;
	for (int w = 0; w < 2; w++)
		for (int j = 0; j < LV; j++)
			nomem |= !(lvs[w][j] = calloc((size_t)s->n, sizeof(double *)));
	if (nomem) { /* no floors, as above */
		for (int w = 0; w < 2; w++)
			for (int j = 0; j < LV; j++)
				free(lvs[w][j]);
		free(s->floors);
		s->floors = NULL;
		return;
	}
	for (int i = 0; i < s->n; i++) {
		struct noise_acc *a = &s->acc[i];
		struct cmp_floor *f = &s->floors[i];
		snprintf(f->key, sizeof(f->key), "%s", a->key);
		f->version = a->version;
		f->runs = a->nruns;
		f->spread = f->spread_top = f->spread_top2 = NAN;
		f->spread_beyond = f->spread_top_beyond = NAN;
		double sxx[CMP_SLOPES] = {0};
		for (int c = 0; c < CMP_SLOPES; c++)
			f->slope[c] = (struct cmp_slope){NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
		if (a->nruns < 1)
			continue;
		size_t sz = (size_t)a->nruns * sizeof(double);
		double *lv = malloc(sz), *fv[CMP_SLOPES];
		int *at = calloc((size_t)a->runs[0].npts + 1, sizeof(*at));
		nomem = !lv || !at;
		for (int c = 0; c < CMP_SLOPES; c++)
			nomem |= !(fv[c] = malloc(sz));
		if (nomem) {
			free(lv);
			free(at);
			for (int c = 0; c < CMP_SLOPES; c++)
				free(fv[c]);
			continue;
		}
		const struct noise_run *r0 = &a->runs[0];
		for (int j = 0; j < r0->npts; j++) { /* the common N */
			int all = 1;
			for (int r = 1; r < a->nruns && all; r++)
				all = isfinite(run_at(&a->runs[r], r0->n[j]));
			if (all)
				at[f->points++] = j;
		}
		/* the whole sweep, its top third (at least 2 points, as compare
		 * takes it) and its top two points */
		int k = f->points, top = k / 3 < 2 ? 2 : k / 3;
		int from[3] = {0, k > top ? k - top : 0, k >= 2 ? k - 2 : 0};
		double *out[3] = {&f->spread, &f->spread_top, &f->spread_top2};
		for (int w = 0; w < 3 && k; w++) {
			if (w == 1 && !from[1])
				continue; /* no top third apart from the sweep */
			window_levels(a, at, from[w], k, lv, fv);
			*out[w] = noise_spread(lv, a->nruns);
			if (w == 2)
				continue;
			if ((lvs[w][0][i] = malloc(sz)))
				memcpy(lvs[w][0][i], lv, sz);
			if (w == 0 && a->nruns >= NOISE_ADJ_MIN_RUNS + 1)
				joint_slopes(lv, fv, a->nruns, f->slope);
			for (int c = 0; c < CMP_SLOPES; c++) {
				struct cmp_slope *sl = &f->slope[c];
				if (w == 0 && a->nruns >= NOISE_ADJ_MIN_RUNS) /* the slope of the sweep */
					sl->beta = part_slope(lv, fv[c], a->nruns, &sxx[c]);
				double *la = lvs[w][1 + c][i] = malloc(sz);
				if (!la)
					continue;
				adjust_levels(lv, fv[c], a->nruns, sl, la, w ? &sl->spread_top : &sl->spread);
				if (w == 0 && isfinite(sl->beta)) {
					sl->se = sl->spread / sqrt(sxx[c]);
					sl->xvar = sxx[c] / (a->nruns - 1);
				}
			}
		}
		free(lv);
		free(at);
		for (int c = 0; c < CMP_SLOPES; c++)
			free(fv[c]);
	}
	/* the spreads beyond each run's shift, as measured and adjusted (the
	 * shifts of adjusted levels: what the whole run did beyond what the
	 * probe read) */
	double *shift = calloc((size_t)s->nadded + 1, sizeof(*shift));
	double *x = calloc((size_t)s->nadded + 1, sizeof(*x));
	for (int w = 0; shift && x && w < 2; w++)
		for (int j = 0; j < LV; j++)
			spreads_beyond(s, lvs[w][j], w, j, shift, x);
	for (int w = 0; w < 2; w++)
		for (int j = 0; j < LV; j++) {
			for (int i = 0; lvs[w][j] && i < s->n; i++)
				free(lvs[w][j][i]);
			free(lvs[w][j]);
		}
	free(shift);
	free(x);
}

const struct cmp_floor *noise_find(const struct noise_set *s, const char *key, int version)
{
	for (int i = 0; s->floors && i < s->n; i++)
		if (s->floors[i].version == version && !strcmp(s->floors[i].key, key))
			return &s->floors[i];
	return NULL;
}

void noise_free(struct noise_set *s)
{
	for (int i = 0; i < s->n; i++) {
		for (int r = 0; r < s->acc[i].nruns; r++)
			run_free(&s->acc[i].runs[r]);
		free(s->acc[i].runs);
	}
	free(s->acc);
	free(s->floors);
	memset(s, 0, sizeof(*s));
}
