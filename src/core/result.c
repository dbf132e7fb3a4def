/* SPDX-License-Identifier: MIT */
/* Building, fitting and freeing results. */
#include "core/result.h"
#include "core/cmpstat.h"
#include "core/usage.h"

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

int bench_makes_files(const char *name)
{
	return name && (!strncmp(name, "fs.", 3) || !strncmp(name, "work.", 5));
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

static const char *const axis_kinds[] = {"load", "concurrency", "size", "category"};
#define NAXIS_KINDS (int)(sizeof(axis_kinds) / sizeof(axis_kinds[0]))

const char *axis_kind_name(int kind)
{
	return kind >= 0 && kind < NAXIS_KINDS ? axis_kinds[kind] : "load";
}

int axis_kind_from_name(const char *s)
{
	for (int i = 0; s && i < NAXIS_KINDS; i++)
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

double point_inode_shadow(const struct point *p)
{
	return p->inode_create_ns > 0 && p->inode_link_ns > 0 ? p->inode_create_ns / p->inode_link_ns
							      : NAN;
}

int point_shadowed(const struct point *p)
{
	return point_inode_shadow(p) >= INODE_SHADOW &&
	       p->inode_create_ns - p->inode_link_ns >= INODE_SHADOW_SHARE * p->st.p50;
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

void bench_unsteady(const struct bench_result *b, struct unsteady *u)
{
	memset(u, 0, sizeof(*u));
	u->max_slowness = u->max_lost = NAN;
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++) {
			const struct point *p = &b->reps[r].pts[i];
			if (!p->has_probe)
				continue;
			u->probed++;
			u->slow += p->slowness >= PROBE_SLOW;
			u->remeasured += p->remeasured > 0;
			double s = p->remeasured ? p->slowness_first : p->slowness;
			/* a load axis's only (point_again_why) */
			double l = b->axis_kind != 0 ? NAN
				   : p->remeasured && !isnan(p->cpu_lost_first) ? p->cpu_lost_first
									       : p->cpu_lost;
			int crowd_only = p->remeasured && l >= CPU_LOST_CROWDED && !p->lost_between &&
					 !(s >= PROBE_SLOW);
			u->slow_first += (p->remeasured > 0 && !crowd_only) || p->slowness >= PROBE_SLOW;
			if (!isnan(s) && (isnan(u->max_slowness) || s > u->max_slowness))
				u->max_slowness = s;
			if (b->axis_kind != 0)
				continue;
			u->crowded += point_crowded(p);
			u->crowded_first += l >= CPU_LOST_CROWDED;
			u->crowded_again += l >= CPU_LOST_CROWDED && p->remeasured > 0 && !p->lost_between;
			u->crowded_between += p->lost_between && p->cpu_lost >= CPU_LOST_CROWDED;
			u->crowded_only += crowd_only;
			if (!isnan(l) && (isnan(u->max_lost) || l > u->max_lost))
				u->max_lost = l;
		}
}

int bench_added_reps(const struct bench_result *b)
{
	int k = 0;
	for (int r = 0; r < b->nreps; r++)
		k += b->reps[r].added != 0;
	return k;
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

void bench_drop_notes(struct bench_result *b, const char *prefix)
{
	size_t k = strlen(prefix);
	for (int i = 0; i < b->nnotes; i++)
		if (!strncmp(b->notes[i], prefix, k)) {
			free(b->notes[i]);
			b->notes[i--] = b->notes[--b->nnotes];
		}
}

int point_crowded(const struct point *p)
{
	return p->has_probe && p->cpu_lost >= CPU_LOST_CROWDED && !p->lost_between;
}

int point_samples_unswitched(const struct point *p)
{
	if (p->usage_scope != USAGE_TIMED || p->usage_counter != USAGE_THREAD || !p->samples ||
	    !p->ops || isnan(p->vcsw) || isnan(p->ivcsw))
		return 0;
	double f = 1 - 0.5 / (0.5 + 0.98 / sqrt((double)p->samples));
	return (p->vcsw + p->ivcsw) * (double)p->ops <= f * (double)p->samples;
}

double point_probe_ln(const struct point *p, int part)
{
	if (!p->has_probe || !(p->probe[1].ns[part] > 0))
		return NAN;
	double after = log(p->probe[1].ns[part]), before = p->probe[0].ns[part];
	return before > 0 ? (log(before) + after) / 2 : after;
}

double point_fault_ln(const struct point *p) { return point_probe_ln(p, PROBE_FAULT); }

int point_again_why(const struct point *p, int load_axis, double ref_p50)
{
	if (p->has_probe && p->slowness >= PROBE_SLOW)
		return POINT_AGAIN_SLOW;
	if (load_axis && point_crowded(p))
		return POINT_AGAIN_CROWDED;
	if (ref_p50 > 0 && p->st.p50 > POINT_JUMP_RATIO * ref_p50)
		return POINT_AGAIN_JUMP;
	return 0;
}

int point_again_better(const struct point *p, const struct point *q, int load_axis)
{
	int pc = load_axis && point_crowded(p), qc = load_axis && point_crowded(q);
	return qc == pc ? q->st.p50 < p->st.p50 : pc;
}

void point_again_take(struct point *p, struct point *q, int keep)
{
	int first = !p->remeasured;
	double slow = first ? p->slowness : p->slowness_first;
	double p50 = first ? p->st.p50 : p->p50_first;
	double lost = first ? p->cpu_lost : p->cpu_lost_first;
	int k = p->remeasured + q->remeasured + 1;
	if (keep) {
		point_clear(p);
		*p = *q;
	} else {
		point_clear(q);
	}
	memset(q, 0, sizeof(*q));
	p->remeasured = k;
	p->slowness_first = slow;
	p->p50_first = p50;
	p->cpu_lost_first = lost;
}

void bench_add_note(struct bench_result *b, const char *fmt, ...)
{
	char buf[1024];
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

double reps_inode_worst(const struct repetition *reps, int nreps, int held, int *hit, int *all)
{
	double worst = NAN;
	*hit = *all = 0;
	for (int r = 0; r < nreps; r++)
		for (int i = 0; i < reps[r].npts; i++) {
			const struct point *p = &reps[r].pts[i];
			double s = point_inode_shadow(p);
			*all += !isnan(s);
			if (held ? point_shadowed(p) : s >= INODE_SHADOW) {
				++*hit;
				worst = s > worst || isnan(worst) ? s : worst;
			}
		}
	return worst;
}

int reps_shadow_reason(const struct repetition *reps, int nreps, char *reason, size_t len)
{
	int hit, all;
	double worst = reps_inode_worst(reps, nreps, 1, &hit, &all);
	if (hit)
		snprintf(reason, len,
			 "recent deletions shadowed the scratch file system: making a file cost up to "
			 "%.0fx a hard link before %d of %d points (1.3-1.7x without; docs/method.md)",
			 worst, hit, all);
	return hit > 0;
}

void bench_usl(struct bench_result *b)
{
	memset(&b->usl, 0, sizeof(b->usl));
	if (b->axis_kind != 1) /* AXIS_CONCURRENCY */
		return;
	usl_reps(b, 0, b->nreps, &b->usl);
	char why[sizeof(b->usl.reason)]; /* a word from shadowed points is unclear (verdict.c) */
	if (b->usl.cls != USL_NONE && reps_shadow_reason(b->reps, b->nreps, why, sizeof(why))) {
		b->usl.cls = USL_UNCLEAR;
		snprintf(b->usl.reason, sizeof(b->usl.reason), "%s", why);
	}
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

/* The median over the points at n (every repetition, at most 64) of
 * what val reads from each, those it reads NAN from left out. */
static double median_at(const struct bench_result *b, uint64_t n, double (*val)(const struct point *))
{
	double v[64];
	int k = 0;
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts && k < 64; i++) {
			const struct point *p = &b->reps[r].pts[i];
			double x = p->n == n ? val(p) : NAN;
			if (!isnan(x))
				v[k++] = x;
		}
	if (!k)
		return NAN;
	qsort(v, (size_t)k, sizeof(v[0]), cmp_dbl);
	return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* a point's ns per KiB */
static double per_kib(const struct point *p)
{
	return p->bytes > 0 && p->ops > 0 && p->st.p50 > 0
		       ? p->st.p50 * 1024.0 * (double)p->ops / (double)p->bytes
		       : NAN;
}

/* median of the ns per KiB of the points at n */
static double per_kib_at(const struct bench_result *b, uint64_t n)
{
	return median_at(b, n, per_kib);
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

const char *bench_ops_trend(const struct bench_result *b, double *ratio)
{
	double n0, x0, n1, x1;
	if (bench_ops_range(b, &n0, &x0, &n1, &x1) || !(x0 > 0) || !isfinite(x1))
		return NULL;
	*ratio = x1 / x0;
	return *ratio >= 1.1 ? "rises" : *ratio <= 1 / 1.1 ? "falls" : "flat";
}

/* a point's p99 */
static double p99_of(const struct point *p)
{
	return p->st.count > 0 && isfinite(p->st.p99) ? p->st.p99 : NAN;
}

/* median of the p99 of the points at n (repetitions) */
static double p99_at(const struct bench_result *b, uint64_t n)
{
	return median_at(b, n, p99_of);
}

int bench_category_tails(const struct bench_result *b, struct cat_tail *out, int cap, int *worst)
{
	int k = 0;
	*worst = -1;
	for (;;) { /* the next N above the last one taken, in order */
		uint64_t next = UINT64_MAX;
		for (int r = 0; r < b->nreps; r++)
			for (int i = 0; i < b->reps[r].npts; i++) {
				uint64_t n = b->reps[r].pts[i].n;
				if (n < next && (!k || n > out[k - 1].n))
					next = n;
			}
		if (next == UINT64_MAX || k >= cap)
			break;
		double t = p99_at(b, next);
		out[k] = (struct cat_tail){next, NULL, t};
		if (next >= 1 && next <= (uint64_t)b->ncategories)
			out[k].name = b->categories[next - 1];
		if (!isnan(t) && (*worst < 0 || t > out[*worst].p99_ns))
			*worst = k;
		k++;
	}
	return *worst < 0 ? 0 : k;
}

static void cat_name(const struct cat_tail *c, char *buf, size_t len)
{
	if (c->name)
		snprintf(buf, len, "%s", c->name);
	else
		snprintf(buf, len, "N=%llu", (unsigned long long)c->n);
}

int bench_category_worst(const struct bench_result *b, char *name, size_t len, double *p99_ns,
			 double *ratio)
{
	struct cat_tail c[64];
	int w, k = bench_category_tails(b, c, 64, &w);
	if (!k)
		return -1;
	cat_name(&c[w], name, len);
	*p99_ns = c[w].p99_ns;
	*ratio = k > 1 && w > 0 && c[0].p99_ns > 0 ? c[w].p99_ns / c[0].p99_ns : NAN;
	return 0;
}

char *bench_category_headline(const struct bench_result *b, char *buf, size_t len)
{
	struct cat_tail c[64];
	char nm[64], a[32];
	int w, k = bench_category_tails(b, c, 64, &w);
	size_t o = 0;
	buf[0] = 0;
	for (int i = 0; i < k; i++) {
		cat_name(&c[i], nm, sizeof(nm));
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s %s", i ? ", " : "p99 ", nm,
				      fmt_ns(c[i].p99_ns, a, sizeof(a)));
	}
	if (k > 1 && w > 0 && c[0].p99_ns > 0) {
		cat_name(&c[w], nm, sizeof(nm));
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "; worst %s (%.3gx ", nm,
				      c[w].p99_ns / c[0].p99_ns);
		cat_name(&c[0], nm, sizeof(nm));
		snprintf(buf + o, o < len ? len - o : 0, "%s)", nm);
	} else if (k > 1) { /* the first is the worst: no ratio to give */
		cat_name(&c[w], nm, sizeof(nm));
		snprintf(buf + o, o < len ? len - o : 0, "; worst %s", nm);
	}
	return buf;
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
	for (int i = 0; i < b->ncategories; i++)
		free(b->categories[i]);
	free(b->categories);
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
	json_decref(r->ab);
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

/* The cost the verdict fits at a point: the op's median, less its control's
 * (NAN when it fits none there). */
static double verdict_cost(const struct point *p)
{
	double c = p->has_ctl ? p->st.p50 - p->ctl.p50 : p->st.p50;
	return p->n >= 1 && c > 0 ? c : NAN;
}

/* Repetitions as blocks (docs/method.md, "Repetitions as blocks"): each
 * repetition runs at the machine's speed of its moment, in a worker of its
 * own, and the repetitions of one bench differ by a level (the whole sweep
 * 10% dearer) far more than their points' own CIs say. Pooled as they are,
 * those levels read as scatter (the reduced chi-square, and with it every
 * b/se, inflated) or, when a --decide round measured only some N (the
 * cheap ones, in the time left), as a change of shape. So the pooled fit
 * takes each repetition's level off first: its offset is the median, over
 * the N it shares with the reference repetition (the one with the most
 * points), of ln(its cost / the reference's cost) at the same N, which the
 * growth does not enter; a repetition sharing fewer than LEVEL_MIN_SHARED
 * N keeps its level. The offsets are centred on their median, so the
 * fitted costs stay on a middle repetition's level. Fills lvl[r] (the
 * factor applied to repetition r's costs; 1 when not levelled) and
 * returns the largest |factor - 1|. */
#define LEVEL_MIN_SHARED 2
double bench_rep_levels(const struct bench_result *b, double *lvl)
{
	int ref = -1, best = 0, maxn = 0;
	for (int r = 0; r < b->nreps; r++) {
		lvl[r] = 1;
		int c = 0;
		for (int i = 0; i < b->reps[r].npts; i++)
			c += isfinite(verdict_cost(&b->reps[r].pts[i]));
		if (c > best) {
			best = c;
			ref = r;
		}
		maxn = b->reps[r].npts > maxn ? b->reps[r].npts : maxn;
	}
	if (b->nreps < 2 || ref < 0)
		return 0;
	int nd = (maxn > b->nreps ? maxn : b->nreps) + 1;
	double *d = malloc((size_t)nd * sizeof *d), *off = malloc((size_t)b->nreps * sizeof *off);
	if (!d || !off) {
		free(d);
		free(off);
		return 0;
	}
	const struct repetition *rf = &b->reps[ref];
	for (int r = 0; r < b->nreps; r++) {
		off[r] = 0;
		if (r == ref)
			continue;
		int k = 0;
		for (int i = 0; i < b->reps[r].npts; i++) {
			const struct point *p = &b->reps[r].pts[i];
			double c = verdict_cost(p);
			if (!isfinite(c))
				continue;
			for (int j = 0; j < rf->npts; j++)
				if (rf->pts[j].n == p->n && isfinite(verdict_cost(&rf->pts[j]))) {
					d[k++] = log(c / verdict_cost(&rf->pts[j]));
					break;
				}
		}
		if (k >= LEVEL_MIN_SHARED)
			off[r] = cmp_median(d, k);
	}
	memcpy(d, off, (size_t)b->nreps * sizeof *d);
	double mid = cmp_median(d, b->nreps), worst = 0;
	for (int r = 0; r < b->nreps; r++) {
		lvl[r] = exp(mid - off[r]);
		worst = fmax(worst, fabs(lvl[r] - 1));
	}
	free(d);
	free(off);
	return worst;
}
