/* SPDX-License-Identifier: MIT */
/* Building, fitting and freeing results. */
#include "result.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const stop_names[] = {"ci", "budget", "interrupted", "failure"};
static const char *const status_names[] = {"ok", "failed", "skipped", "interrupted"};

const char *point_stop_name(enum point_stop s)
{
	return (unsigned)s < 4 ? stop_names[s] : "?";
}

int point_stop_from_name(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, stop_names[i]))
			return i;
	return -1;
}

const char *bench_status_name(enum bench_status s)
{
	return (unsigned)s < 4 ? status_names[s] : "?";
}

int bench_status_from_name(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, status_names[i]))
			return i;
	return -1;
}

/* Append one zeroed element to a growing array (capacity doubles at powers
 * of two, so no separate capacity field is needed). */
static void *append(void *arr, int *n, size_t elem)
{
	int c = *n;
	if ((c & (c - 1)) == 0) { /* 0, 1, 2, 4, 8... : grow */
		size_t cap = c ? (size_t)c * 2 : 1;
		void *p = realloc(arr, cap * elem);
		if (!p)
			return NULL;
		arr = p;
	}
	memset((char *)arr + (size_t)c * elem, 0, elem);
	(*n)++;
	return arr;
}

static const char *const axis_kinds[] = {"load", "concurrency", "size"};

const char *axis_kind_name(int kind)
{
	return kind >= 0 && kind < 3 ? axis_kinds[kind] : "load";
}

int axis_kind_from_name(const char *s)
{
	for (int i = 0; s && i < 3; i++)
		if (!strcmp(s, axis_kinds[i]))
			return i;
	return -1;
}

struct bench_result *result_add_bench(struct run_result *r)
{
	void *p = append(r->benches, &r->nbenches, sizeof(*r->benches));
	if (!p)
		return NULL;
	r->benches = p;
	return &r->benches[r->nbenches - 1];
}

struct repetition *bench_add_rep(struct bench_result *b)
{
	void *p = append(b->reps, &b->nreps, sizeof(*b->reps));
	if (!p)
		return NULL;
	b->reps = p;
	b->reps[b->nreps - 1].started_s = -1;
	return &b->reps[b->nreps - 1];
}

struct point *rep_add_point(struct repetition *rep)
{
	void *p = append(rep->pts, &rep->npts, sizeof(*rep->pts));
	if (!p)
		return NULL;
	rep->pts = p;
	return &rep->pts[rep->npts - 1];
}

void point_clear(struct point *p)
{
	free(p->bins);
	free(p->series_ops);
	free(p->series_bytes);
	json_decref(p->extra);
	json_decref(p->peers);
	json_decref(p->placement);
	memset(p, 0, sizeof(*p));
}

int rep_keep_point(struct repetition *rep, struct point *pt)
{
	struct point *slot = rep_add_point(rep);
	if (!slot) {
		point_clear(pt);
		return -ENOMEM;
	}
	*slot = *pt;
	if (pt->stop == STOP_INTERRUPT)
		rep->interrupted = 1;
	return 0;
}

void bench_add_note(struct bench_result *b, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (int i = 0; i < b->nnotes; i++)
		if (!strcmp(b->notes[i], buf))
			return;
	char *s = strdup(buf);
	if (!s)
		return;
	void *p = append(b->notes, &b->nnotes, sizeof(*b->notes));
	if (!p) {
		free(s);
		return;
	}
	b->notes = p;
	b->notes[b->nnotes - 1] = s;
}

void point_set_bins(struct point *p, const struct hist *h)
{
	int nz = 0;
	for (int i = h->lo; i <= h->hi; i++)
		nz += h->bins[i] != 0;
	free(p->bins);
	p->bins = nz ? malloc((size_t)nz * sizeof(*p->bins)) : NULL;
	p->nbins = 0;
	if (!p->bins)
		return;
	for (int i = h->lo; i <= h->hi; i++)
		if (h->bins[i]) {
			p->bins[p->nbins].idx = i;
			p->bins[p->nbins].count = h->bins[i];
			p->nbins++;
		}
}

enum fit_what { FIT_VERDICT = 0, FIT_OP, FIT_CONTROL };

/* FIT_VERDICT: the op's median, or, for a point with a control, the op's
 * median less the control's (its CI from the two CIs' outer bounds; a
 * point where the op adds nothing over its control, difference <= 0, is
 * not fitted); FIT_OP: the op alone; FIT_CONTROL: the control alone. */
static void fit_points_what(struct point **pts, int n, struct verdict *v, enum fit_what what)
{
	memset(v, 0, sizeof(*v));
	struct fit_point *fp = n ? calloc((size_t)n, sizeof(*fp)) : NULL;
	if (n && !fp) {
		v->cls = GROWTH_NONE;
		snprintf(v->reason, sizeof(v->reason), "out of memory");
		return;
	}
	int k = 0;
	for (int i = 0; i < n; i++) {
		const struct point *p = pts[i];
		if (p->n < 1 || (what == FIT_CONTROL && !p->has_ctl))
			continue;
		const struct stats *s = what == FIT_CONTROL ? &p->ctl : &p->st;
		double cost = s->p50, lo = s->med_lo, hi = s->med_hi;
		if (what == FIT_VERDICT && p->has_ctl) {
			cost = p->st.p50 - p->ctl.p50;
			lo = p->st.med_lo - p->ctl.med_hi;
			hi = p->st.med_hi - p->ctl.med_lo;
		}
		if (!(cost > 0))
			continue;
		fp[k].n = (double)p->n;
		fp[k].cost = cost;
		fp[k].lo = lo;
		fp[k].hi = hi;
		k++;
	}
	if (fit_verdict(fp, k, v) < 0) {
		v->cls = GROWTH_NONE;
		snprintf(v->reason, sizeof(v->reason), "no usable points");
	}
	free(fp);
}

static void fit_points(struct point **pts, int n, struct verdict *v)
{
	fit_points_what(pts, n, v, FIT_VERDICT);
}

void rep_fit(struct repetition *rep)
{
	struct point **pp = rep->npts ? malloc((size_t)rep->npts * sizeof(*pp)) : NULL;
	for (int i = 0; pp && i < rep->npts; i++)
		pp[i] = &rep->pts[i];
	fit_points(pp, pp ? rep->npts : 0, &rep->v);
	free(pp);
}

/* ---- bimodal points: two levels, and whether placement explains them ----
 * An unclear verdict whose points sit on two levels (the largest gap in
 * their log medians is >= 20% and wider than either level's own spread,
 * each level has >= 2 points (or one, when the placement record sets it
 * apart), and the levels share N: not a step of growth) says so in its
 * reason instead of "noise": "bimodal: placement"
 * when a side moved during a point (point.placement.moved) or the two
 * levels ran on different CPUs (the sides' CPUs, or the harness's), else
 * "bimodal" with the placement found the same. */

struct lvl { double l; const struct point *p; };

static int cmp_lvl(const void *a, const void *b)
{
	double x = ((const struct lvl *)a)->l, y = ((const struct lvl *)b)->l;
	return (x > y) - (x < y);
}

/* The CPUs a point's sides ran on, as text ("bench:0;server:1;"), or the
 * harness's start and end CPU where nothing more was recorded. */
static void place_sig(const struct point *p, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	json_t *sides = json_object_get(p->placement, "sides");
	const char *k;
	json_t *v;
	if (json_is_object(sides)) {
		json_object_foreach(sides, k, v) {
			size_t i;
			json_t *c;
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s:", k);
			json_array_foreach(json_object_get(v, "cpus"), i, c)
				o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%lld,",
						      (long long)json_integer_value(c));
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, ";");
		}
	} else if (p->cpu_start >= 0) {
		snprintf(buf, len, "harness:%d,%d", p->cpu_start, p->cpu_end);
	}
}

int bench_bimodal(struct bench_result *b)
{
	if (b->v.cls != GROWTH_UNCLEAR)
		return 0;
	int n = 0;
	for (int r = 0; r < b->nreps; r++)
		n += b->reps[r].npts;
	struct lvl *v = n >= 4 ? calloc((size_t)n, sizeof(*v)) : NULL;
	if (!v)
		return 0;
	int k = 0;
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++) {
			const struct point *p = &b->reps[r].pts[i];
			if (p->st.p50 > 0 && !p->has_ctl)
				v[k++] = (struct lvl){log(p->st.p50), p};
		}
	qsort(v, (size_t)k, sizeof(*v), cmp_lvl);
	int g = -1;
	double gap = 0;
	for (int i = 0; i + 1 < k; i++) /* a gap after v[i] */
		if (v[i + 1].l - v[i].l > gap) {
			gap = v[i + 1].l - v[i].l;
			g = i;
		}
	int found = 0;
	if (g >= 0 && gap >= log(1.2) && gap > v[g].l - v[0].l && gap > v[k - 1].l - v[g + 1].l) {
		uint64_t lo_min = UINT64_MAX, lo_max = 0, hi_min = UINT64_MAX, hi_max = 0;
		int moved = 0, differ = 1;
		for (int i = 0; i < k; i++) {
			uint64_t pn = v[i].p->n;
			if (i <= g) {
				lo_min = pn < lo_min ? pn : lo_min;
				lo_max = pn > lo_max ? pn : lo_max;
			} else {
				hi_min = pn < hi_min ? pn : hi_min;
				hi_max = pn > hi_max ? pn : hi_max;
			}
			moved += json_is_true(json_object_get(v[i].p->placement, "moved"));
		}
		/* the levels ran on different CPUs: no placement of one level is
		 * found in the other */
		char a[256], c[256];
		for (int i = 0; i <= g && differ; i++) {
			place_sig(v[i].p, a, sizeof(a));
			for (int j = g + 1; j < k && differ; j++) {
				place_sig(v[j].p, c, sizeof(c));
				if (!strcmp(a, c))
					differ = 0;
			}
		}
		/* a level of one point is an outlier unless the placement record
		 * sets it apart */
		int sizes_ok = (g >= 1 && k - g - 1 >= 2) || moved || differ;
		if (sizes_ok && hi_min < lo_max && lo_min < hi_max) {
			found = 1;
			char l1[16], l2[16];
			fmt_ns(exp(v[g / 2].l), l1, sizeof(l1));
			fmt_ns(exp(v[(g + 1 + k) / 2].l), l2, sizeof(l2));
			if (moved || differ)
				snprintf(b->v.reason, sizeof(b->v.reason),
					 "bimodal: placement: two levels, ~%s (%d points) and ~%s (%d); %s", l1,
					 g + 1, l2, k - g - 1,
					 moved ? "a side moved during some points" : "the levels ran on other CPUs");
			else
				snprintf(b->v.reason, sizeof(b->v.reason),
					 "bimodal: two levels, ~%s (%d points) and ~%s (%d), with the same "
					 "placement and no side moved", l1, g + 1, l2, k - g - 1);
		}
	}
	free(v);
	return found;
}

void bench_fit(struct bench_result *b)
{
	int n = 0;
	for (int r = 0; r < b->nreps; r++)
		n += b->reps[r].npts;
	struct point **pp = n ? malloc((size_t)n * sizeof(*pp)) : NULL;
	int k = 0;
	for (int r = 0; pp && r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++)
			pp[k++] = &b->reps[r].pts[i];
	fit_points(pp, k, &b->v);
	free(pp);
	bench_bimodal(b);
	bench_usl(b);
}

/* Standard error of a point's throughput from its throughput-over-time
 * series (the last interval, usually partial, left out); 0 when there are
 * fewer than 3 full intervals. */
double point_ops_se(const struct point *p)
{
	int k = p->nseries - 1;
	if (!p->series_ops || k < 3 || !(p->interval_s > 0))
		return 0;
	double m = 0, v = 0;
	for (int i = 0; i < k; i++)
		m += p->series_ops[i] / p->interval_s / k;
	for (int i = 0; i < k; i++) {
		double d = p->series_ops[i] / p->interval_s - m;
		v += d * d / (k - 1);
	}
	return sqrt(v / k);
}

/* The USL fit of repetitions r0..r1-1 of b, pooled. */
static void usl_reps(const struct bench_result *b, int r0, int r1, struct usl *u)
{
	int n = 0;
	for (int r = r0; r < r1; r++)
		n += b->reps[r].npts;
	struct usl_point *up = n ? calloc((size_t)n, sizeof(*up)) : NULL;
	int k = 0;
	for (int r = r0; up && r < r1; r++)
		for (int i = 0; i < b->reps[r].npts; i++) {
			const struct point *p = &b->reps[r].pts[i];
			if (p->n < 1 || !(p->ops_per_s > 0) || !isfinite(p->ops_per_s))
				continue; /* a failed point: no throughput */
			up[k].n = (double)p->n;
			up[k].x = p->ops_per_s;
			up[k].se = point_ops_se(p);
			k++;
		}
	struct usl_opts o = {.cpus = b->axis_tasks ? b->cpus_online : 0,
			     .fit_oversub = b->fit_oversub};
	if (usl_fit(up, k, &o, u) < 0) {
		u->cls = USL_NONE;
		snprintf(u->reason, sizeof(u->reason), "no usable points");
	}
	free(up);
}

void bench_usl(struct bench_result *b)
{
	memset(&b->usl, 0, sizeof(b->usl));
	if (b->axis_kind != 1) /* AXIS_CONCURRENCY */
		return;
	usl_reps(b, 0, b->nreps, &b->usl);
}

void rep_usl(const struct bench_result *b, int r, struct usl *u)
{
	memset(u, 0, sizeof(*u));
	if (b->axis_kind == 1 && r >= 0 && r < b->nreps)
		usl_reps(b, r, r + 1, u);
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* median of the ns per KiB of the points at n */
static double per_kib_at(const struct bench_result *b, uint64_t n)
{
	double v[64];
	int k = 0;
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts && k < 64; i++) {
			const struct point *p = &b->reps[r].pts[i];
			if (p->n == n && p->bytes > 0 && p->ops > 0 && p->st.p50 > 0)
				v[k++] = p->st.p50 * 1024.0 * (double)p->ops / (double)p->bytes;
		}
	if (!k)
		return NAN;
	qsort(v, (size_t)k, sizeof(v[0]), cmp_dbl);
	return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

int bench_per_kib(const struct bench_result *b, double *nmin, double *at_min, double *nmax,
		  double *at_max)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++) {
			const struct point *p = &b->reps[r].pts[i];
			if (p->bytes > 0 && p->ops > 0 && p->st.p50 > 0) {
				lo = p->n < lo ? p->n : lo;
				hi = p->n > hi ? p->n : hi;
			}
		}
	if (!hi)
		return -1;
	*nmin = (double)lo;
	*nmax = (double)hi;
	*at_min = per_kib_at(b, lo);
	*at_max = per_kib_at(b, hi);
	return 0;
}

static double ops_at_n(const struct bench_result *b, uint64_t n)
{
	double s = 0;
	int k = 0;
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++)
			if (b->reps[r].pts[i].n == n && b->reps[r].pts[i].ops_per_s > 0) {
				s += b->reps[r].pts[i].ops_per_s;
				k++;
			}
	return k ? s / k : NAN;
}

int bench_ops_range(const struct bench_result *b, double *nmin, double *at_min, double *nmax,
		    double *at_max)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++) {
			const struct point *p = &b->reps[r].pts[i];
			if (p->ops_per_s > 0) {
				lo = p->n < lo ? p->n : lo;
				hi = p->n > hi ? p->n : hi;
			}
		}
	if (!hi || lo == hi)
		return -1;
	*nmin = (double)lo;
	*nmax = (double)hi;
	*at_min = ops_at_n(b, lo);
	*at_max = ops_at_n(b, hi);
	return 0;
}

void bench_result_clear(struct bench_result *b)
{
	free(b->name);
	free(b->axis);
	free(b->summary);
	free(b->op_desc);
	free(b->variant);
	free(b->target);
	free(b->job);
	free(b->unit);
	json_decref(b->params);
	json_decref(b->profile);
	free(b->skip_reason);
	for (int i = 0; i < b->nnotes; i++)
		free(b->notes[i]);
	free(b->notes);
	for (int r = 0; r < b->nreps; r++) {
		struct repetition *rep = &b->reps[r];
		for (int i = 0; i < rep->npts; i++)
			point_clear(&rep->pts[i]);
		free(rep->pts);
		if (rep->fail) {
			json_decref(rep->fail->state);
			free(rep->fail);
		}
	}
	free(b->reps);
	memset(b, 0, sizeof(*b));
}

void result_free(struct run_result *r)
{
	for (int i = 0; i < r->nbenches; i++)
		bench_result_clear(&r->benches[i]);
	free(r->benches);
	free(r->tool_version);
	free(r->started);
	free(r->finished);
	free(r->host);
	for (int i = 0; i < r->argc; i++)
		free(r->argv[i]);
	free(r->argv);
	json_decref(r->options);
	json_decref(r->snapshot);
	json_decref(r->targets);
	json_decref(r->job);
	memset(r, 0, sizeof(*r));
}

const char *bench_label(const struct bench_result *b, char *buf, size_t len)
{
	if (b->variant && *b->variant)
		snprintf(buf, len, "%s[%s]", b->name ? b->name : "?", b->variant);
	else
		snprintf(buf, len, "%s", b->name ? b->name : "?");
	return buf;
}

#define CONTROL_NOTE "control: "

void bench_control_note(struct bench_result *b)
{
	int n = 0, nctl = 0;
	for (int r = 0; r < b->nreps; r++)
		n += b->reps[r].npts;
	struct point **pp = n ? malloc((size_t)n * sizeof(*pp)) : NULL;
	int k = 0;
	for (int r = 0; pp && r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++) {
			pp[k++] = &b->reps[r].pts[i];
			nctl += b->reps[r].pts[i].has_ctl;
		}
	/* one such note, from the last settle (repetitions pooled) */
	for (int i = 0; i < b->nnotes; i++)
		if (!strncmp(b->notes[i], CONTROL_NOTE, sizeof(CONTROL_NOTE) - 1)) {
			free(b->notes[i]);
			b->notes[i--] = b->notes[--b->nnotes];
		}
	if (!nctl) {
		free(pp);
		return;
	}
	struct verdict vo, vc;
	fit_points_what(pp, k, &vo, FIT_OP);
	fit_points_what(pp, k, &vc, FIT_CONTROL);
	free(pp);
	int explains = vo.cls != GROWTH_O1 && vo.cls != GROWTH_NONE && vc.cls == vo.cls &&
		       b->v.cls == GROWTH_O1;
	bench_add_note(b,
		       CONTROL_NOTE "the verdict (%s) is on the op less its control; the op alone: %s "
		       "(n^%.2f), the control alone: %s (n^%.2f)%s",
		       growth_name(b->v.cls), growth_name(vo.cls), vo.exponent, growth_name(vc.cls),
		       vc.exponent,
		       explains ? ": the control's growth explains the op's (the preparation's doing, "
				  "not the operation's)"
				: "");
}

char *fmt_ns(double ns, char *buf, size_t len)
{
	if (!isfinite(ns))
		snprintf(buf, len, "-");
	else if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3g s", ns / 1e9);
	return buf;
}
