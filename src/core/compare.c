/* SPDX-License-Identifier: MIT */
/* Comparing two results (baseline A, candidate B) bench by bench and
 * point by point; the outcome is a JSON tree (docs/compare.md) that the
 * command prints as a table or as JSON, so both say the same thing.
 *
 * Matching: benches by name; a bench whose version differs is refused
 * (what it measures changed) and listed as such. Points by N; the
 * repetitions of a bench are pooled by adding their histograms, which is
 * exact. What only one side has is named, never silently dropped.
 *
 * The unit of replication is the repetition (a fresh worker process each,
 * `run -r K`), not the sample: what differs between two runs of an
 * unchanged system is the run itself (the CPU each process landed on, the
 * frequency, the neighbours of a virtual machine), many times the spread
 * within one run. So the bench's word, which decides the exit code, comes
 * from Welch's t-test over the repetitions' levels (rep_stats, rep_test),
 * and a bench with fewer than 3 repetitions a side is "insufficient"
 * unless --strict. The per-point Mann-Whitney test over samples stays as
 * detail.
 *
 * One compare makes one test per bench (66 in the quick suite) and its
 * exit code is "any of them": so the tests are judged as a family
 * (family(): moderated variances, the run-effect scale, Holm), and alpha
 * is the family-wise error rate (docs/compare.md, "The bench's word"
 * steps 4a-4c, and the A/A figures that motivate each).
 *
 * With a noise floor (compare --noise-floor: the run-to-run spread of the
 * bench's earlier runs on this host, src/core/noise.c), a bench's
 * threshold is the larger of --threshold and the floor (compare_threshold),
 * so a change within the usual spread between runs is "same". */
#include "core/compare.h"
#include "core/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cmpstat.h"

static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* What a bench is matched by: bench_label() (name or name[variant]), and
 * in a matrix result its file system: "fs.create@ext4". */
static const char *bench_key(const struct bench_result *b, char *buf, size_t len)
{
	char lb[160];
	bench_label(b, lb, sizeof(lb));
	if (b->target && *b->target)
		snprintf(buf, len, "%s@%s", lb, b->target);
	else
		snprintf(buf, len, "%s", lb);
	return buf;
}

const char *compare_bench_key(const struct bench_result *b, char *buf, size_t len)
{
	return bench_key(b, buf, len);
}

/* Earlier runs a history needs before its spread is the bench's test
 * variance (below): 5, so 4 degrees of freedom. */
#define CMP_HISTORY_TEST_RUNS 5

/* The noise floor (noise.c, docs/compare.md "Noise floor from history"):
 * it replaces the threshold when it is larger, so a change within k times
 * the usual run-to-run spread of this bench here is "same". */
double compare_threshold(const struct cmp_opts *o, const struct cmp_floor *f, int *used,
			 double *floor)
{
	int need = o->floor_min_runs > 0 ? o->floor_min_runs : 3;
	*used = 0;
	*floor = NAN;
	if (!(o->floor_k > 0) || !f || f->runs < need || !isfinite(f->spread))
		return o->threshold;
	*floor = expm1(o->floor_k * f->spread);
	*used = *floor > o->threshold;
	return *used ? *floor : o->threshold;
}

static const struct cmp_floor *floor_of(const struct cmp_opts *o, const char *key, int version)
{
	for (int i = 0; i < o->nfloors; i++)
		if (o->floors[i].version == version && !strcmp(o->floors[i].key, key))
			return &o->floors[i];
	return NULL;
}

/* The bench's noise_floor object: what the history gave and whether it
 * decided the threshold; "no floor: 2 runs" when it had too few. */
static json_t *floor_json(const struct cmp_opts *o, const struct cmp_floor *f, double thr,
			  int used, double floor)
{
	int need = o->floor_min_runs > 0 ? o->floor_min_runs : 3, runs = f ? f->runs : 0;
	char why[80] = "";
	if (runs < need)
		snprintf(why, sizeof(why), "no floor: %d run%s", runs, runs == 1 ? "" : "s");
	else if (!f || !isfinite(f->spread))
		snprintf(why, sizeof(why), "no floor: no N common to the runs");
	return json_pack("{s:i,s:i,s:o,s:f,s:o,s:b,s:f,s:o}", "runs", runs, "points",
			 f ? f->points : 0, "spread_pct",
			 num(f && isfinite(f->spread) ? 100 * f->spread : NAN), "k", o->floor_k,
			 "floor_pct", num(100 * floor), "used", used, "threshold_pct", 100 * thr,
			 "note", *why ? json_string(why) : json_null());
}

static const struct bench_result *find_bench(const struct run_result *r, const char *key)
{
	char k[200];
	for (int i = 0; i < r->nbenches; i++)
		if (r->benches[i].name && !strcmp(bench_key(&r->benches[i], k, sizeof(k)), key))
			return &r->benches[i];
	return NULL;
}

/* Pools the bins of every point at n into c (zeroed here); returns the
 * number of points found and, in st, the stats of the first one. */
static int pool(const struct bench_result *b, uint64_t n, uint64_t *c, const struct stats **st)
{
	int found = 0;
	memset(c, 0, HIST_NBUCKETS * sizeof(*c));
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++) {
			const struct point *p = &b->reps[r].pts[i];
			if (p->n != n)
				continue;
			if (!found++)
				*st = &p->st;
			for (int k = 0; k < p->nbins; k++)
				if (p->bins[k].idx >= 0 && p->bins[k].idx < HIST_NBUCKETS)
					c[p->bins[k].idx] += p->bins[k].count;
		}
	return found;
}

static int has_n(const struct bench_result *b, uint64_t n)
{
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++)
			if (b->reps[r].pts[i].n == n)
				return 1;
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* The distinct n of a bench, sorted (malloc'd; *count set). */
static uint64_t *distinct_n(const struct bench_result *b, int *count)
{
	int total = 0;
	for (int r = 0; r < b->nreps; r++)
		total += b->reps[r].npts;
	uint64_t *v = malloc(((size_t)total + 1) * sizeof(*v));
	*count = 0;
	if (!v)
		return NULL;
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++)
			v[(*count)++] = b->reps[r].pts[i].n;
	qsort(v, (size_t)*count, sizeof(*v), cmp_u64);
	int k = 0;
	for (int i = 0; i < *count; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	*count = k;
	return v;
}

static double change(double a, double b)
{
	return a > 0 && isfinite(a) && isfinite(b) ? b / a - 1 : NAN;
}

struct tally {
	int words[CMP_NWORDS];       /* points */
	int bench_words[CMP_NWORDS]; /* benches */
	int regression;
	int family;   /* the tests whose p Holm adjusted (rep_res) */
	double scale; /* the run effect's variance scale (run_scale) */
};

static json_t *compare_point(const struct bench_result *ba, const struct bench_result *bb,
			     uint64_t n, uint64_t *ca, uint64_t *cb, const struct cmp_opts *o,
			     struct tally *t)
{
	const struct stats *sa = NULL, *sb = NULL;
	pool(ba, n, ca, &sa);
	pool(bb, n, cb, &sb);
	struct hcmp h;
	int ok = hcmp_counts(ca, cb, HIST_NBUCKETS, &h) == 0;
	if (!ok) { /* no bins on a side: the recorded statistics, without a test */
		h.med_a = sa->p50;
		h.med_b = sb->p50;
		h.p99_a = sa->p99;
		h.p99_b = sb->p99;
	}
	double dm = change(h.med_a, h.med_b), d99 = change(h.p99_a, h.p99_b);
	enum cmp_word w = hcmp_word(dm, h.p, h.delta, o->threshold, o->alpha);
	t->words[w]++;
	return json_pack("{s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s}", "n",
			 (json_int_t)n, "samples_a", (json_int_t)h.na, "samples_b",
			 (json_int_t)h.nb, "median_a_ns", num(h.med_a), "median_b_ns",
			 num(h.med_b), "median_change_pct", num(dm * 100), "p99_a_ns",
			 num(h.p99_a), "p99_b_ns", num(h.p99_b), "p99_change_pct", num(d99 * 100),
			 "z", num(h.z), "p", num(h.p), "delta", num(h.delta), "word",
			 cmp_word_name(w));
}

static int growth_rank(enum growth g)
{
	switch (g) {
	case GROWTH_O1: return 1;
	case GROWTH_LOGN: return 2;
	case GROWTH_N: return 3;
	case GROWTH_NLOGN: return 4;
	case GROWTH_WORSE: return 5;
	default: return 0; /* unclear, none: not ordered */
	}
}

static json_t *side(const struct run_result *r, const char *label)
{
	const json_t *k = json_object_get(r->snapshot, "kernel");
	const json_t *fs = json_object_get(r->snapshot, "filesystem");
	const char *rel = json_string_value(json_object_get(k, "release"));
	const char *fst = json_string_value(json_object_get(fs, "type"));
	return json_pack("{s:s,s:s,s:s,s:s,s:s}", "label", label, "host", r->host ? r->host : "",
			 "started", r->started ? r->started : "", "kernel", rel ? rel : "",
			 "fs_type", fst ? fst : "");
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* The bench's word from its points (sorted by n). Points of one run are
 * not independent of each other: a run on a busier moment, another page
 * cache state or CPU is shifted as a whole, and the per-point test, which
 * sees only the spread within a run, calls such shifts significant. So a
 * bench is "slower" only when the change is broad or sits at the top of
 * the sweep:
 *  (a) the median over its points of the median's change is beyond the
 *      threshold and at least 2/3 of the points are "slower", or
 *  (b) the top third of its points (at least 2) are all "slower" (growth
 *      that only shows at large N).
 * "faster" likewise; "same" when the median change is within the
 * threshold and neither rule holds; "noisy" otherwise. */
static enum cmp_word bench_word(json_t *pts, const struct cmp_opts *o, double *med_change)
{
	size_t k = json_array_size(pts), i;
	json_t *p;
	int nw[4] = {0};
	double *ch = calloc(k + 1, sizeof(double));
	size_t nch = 0;
	*med_change = NAN;
	if (!ch)
		return CMP_NOISY;
	json_array_foreach(pts, i, p) {
		const char *w = json_string_value(json_object_get(p, "word"));
		for (int q = 0; q < 4 && w; q++)
			nw[q] += !strcmp(w, cmp_word_name((enum cmp_word)q));
		json_t *c = json_object_get(p, "median_change_pct");
		if (json_is_number(c))
			ch[nch++] = log1p(json_number_value(c) / 100);
	}
	if (nch) {
		qsort(ch, nch, sizeof(double), cmp_double);
		double m = nch % 2 ? ch[nch / 2] : (ch[nch / 2 - 1] + ch[nch / 2]) / 2;
		*med_change = expm1(m);
	}
	free(ch);
	if (!k)
		return CMP_SAME;
	size_t top = k / 3 < 2 ? 2 : k / 3;
	int top_all[4] = {1, 1, 1, 1};
	for (i = k >= top ? k - top : 0; i < k; i++) {
		const char *w = json_string_value(json_object_get(json_array_get(pts, i), "word"));
		for (int q = 0; q < 4; q++)
			top_all[q] &= w && !strcmp(w, cmp_word_name((enum cmp_word)q));
	}
	int broad = isfinite(*med_change) && fabs(*med_change) >= o->threshold;
	for (int q = CMP_FASTER; q <= CMP_SLOWER; q++) {
		int dir = q == CMP_SLOWER ? *med_change > 0 : *med_change < 0;
		if ((broad && dir && 3 * (size_t)nw[q] >= 2 * k) || (k >= 2 && top_all[q]))
			return (enum cmp_word)q;
	}
	return broad ? CMP_NOISY : CMP_SAME;
}

/* Repetitions of b that measured at least one point. */
static int reps_with_points(const struct bench_result *b)
{
	int k = 0;
	for (int r = 0; r < b->nreps; r++)
		k += b->reps[r].npts > 0;
	return k;
}

/* The median of repetition r at n, or NAN when it has no such point. */
static double rep_p50(const struct repetition *r, uint64_t n)
{
	for (int i = 0; i < r->npts; i++)
		if (r->pts[i].n == n)
			return r->pts[i].st.p50 > 0 ? r->pts[i].st.p50 : NAN;
	return NAN;
}

/* A sweep's repetitions define the N compared; a repetition that
 * --decide's rounds added (repetition.added) may have stopped at its
 * budget with some N unmeasured: it neither limits the N compared nor is
 * a level unless it measured all of them (rep_whole). */
static int every_rep_has(const struct bench_result *b, uint64_t n)
{
	for (int r = 0; r < b->nreps; r++)
		if (b->reps[r].npts && !b->reps[r].added && !isfinite(rep_p50(&b->reps[r], n)))
			return 0;
	return 1;
}

static int rep_whole(const struct repetition *r, const uint64_t *ns, int nn)
{
	if (!r->npts)
		return 0;
	for (int i = 0; r->added && i < nn; i++)
		if (!isfinite(rep_p50(r, ns[i])))
			return 0;
	return 1;
}

/* The N that every repetition (with points) of both sides measured,
 * sorted: each repetition's level is taken over the same N, so that a
 * repetition that stopped early does not look cheaper or dearer. */
static uint64_t *common_n(const struct bench_result *ba, const struct bench_result *bb, int *count)
{
	int k = 0, nd;
	uint64_t *v = distinct_n(ba, &nd);
	for (int i = 0; v && i < nd; i++)
		if (every_rep_has(ba, v[i]) && every_rep_has(bb, v[i]))
			v[k++] = v[i];
	*count = k;
	return v;
}

/* The machine-speed probe's page-fault time around repetition r's point
 * at n: the mean of ln ns read before and after it (after alone when the
 * point has no reading before), or NAN. Both readings bracket the point's
 * own time: on the stored quick runs of docs/compare.md ("Probe-adjusted
 * levels"), a one-bench x1.25 was found 6 of 90 times adjusted so, 1 of
 * 90 on the reading after alone. */
static double rep_probe(const struct repetition *r, uint64_t n, int part)
{
	for (int i = 0; i < r->npts; i++)
		if (r->pts[i].n == n)
			return point_probe_ln(&r->pts[i], part);
	return NAN;
}

/* The probe adjustment of one bench's levels (docs/compare.md,
 * "Probe-adjusted levels"): level - beta * (the repetition's mean ln
 * page-fault time over the same N - ref); beta 0: none. */
struct padj {
	int on; /* estimated (every point has the probe) */
	int hist; /* beta is the history's (noise.c), not the sides' own */
	int part; /* the probe part the levels are adjusted on (PROBE_FAULT, PROBE_UNMAP) */
	double beta, ref;
	/* beta's standard error (the history's, or from the sides'
	 * repetitions: each one's mean deviation over N from its side's
	 * medians, the points of one repetition sharing its machine);
	 * INFINITY when too few repetitions tell it */
	double se;
};

/* A repetition's level: the mean over ns[from..to) of ln(median), less
 * the probe adjustment (NULL: none). */
static double rep_level(const struct repetition *r, const uint64_t *ns, int from, int to,
			const struct padj *pa)
{
	double sum = 0, pf = 0;
	for (int i = from; i < to; i++) {
		sum += log(rep_p50(r, ns[i]));
		pf += pa && pa->beta > 0 ? rep_probe(r, ns[i], pa->part) : 0;
	}
	double lv = sum / (to - from);
	if (pa && pa->beta > 0 && isfinite(pf))
		lv -= pa->beta * (pf / (to - from) - pa->ref);
	return lv;
}

/* The level of each repetition that measured every one of ns[0..nn). */
static int rep_levels(const struct bench_result *b, const uint64_t *ns, int nn, int from, int to,
		      const struct padj *pa, double *out)
{
	int k = 0;
	for (int r = 0; r < b->nreps; r++)
		if (rep_whole(&b->reps[r], ns, nn))
			out[k++] = rep_level(&b->reps[r], ns, from, to, pa);
	return k;
}

#define PADJ_MAX_REPS 64
#define PADJ_MIN_DEV 6	/* deviations to estimate the slope from */
#define PADJ_MAX_BETA 2.0

/* The probe adjustment of a bench: beta, the slope of ln cost on ln
 * page-fault time within each side (per N, each repetition's deviation
 * from its side's median at that N, both ways; least squares through the
 * origin over every side, N and repetition, clamped to [0, PADJ_MAX_BETA]),
 * so that a change between the sides does not enter it; or hbeta when it
 * is finite: the history's slope across earlier runs of the same bench
 * here (noise.c), where the fault time varies far more than within the
 * sides of one compare. ref, the mean ln fault time over both sides. beta
 * 0 (no adjustment) when a point lacks the probe or there are too few
 * deviations. */
static struct padj probe_adjust(const struct bench_result *ba, const struct bench_result *bb,
				const uint64_t *ns, int nn, double hbeta, double hbeta_se, int part)
{
	struct padj pa = {0, 0, part, 0, 0, INFINITY};
	double sxy = 0, sxx = 0, all = 0, c[PADJ_MAX_REPS], q[PADJ_MAX_REPS], cs[PADJ_MAX_REPS],
	       qs[PADJ_MAX_REPS];
	double rl[2][PADJ_MAX_REPS] = {{0}}, rq[2][PADJ_MAX_REPS] = {{0}};
	int rk[2] = {0, 0};
	int m = 0, na = 0;
	const struct bench_result *sides[2] = {ba, bb};
	for (int sd = 0; sd < 2; sd++)
		for (int i = 0; i < nn; i++) {
			int k = 0;
			for (int r = 0; r < sides[sd]->nreps && k < PADJ_MAX_REPS; r++) {
				const struct repetition *rp = &sides[sd]->reps[r];
				if (!rep_whole(rp, ns, nn))
					continue;
				c[k] = log(rep_p50(rp, ns[i]));
				q[k] = rep_probe(rp, ns[i], part);
				if (!isfinite(q[k]) || !isfinite(c[k]))
					return pa;
				all += q[k];
				na++;
				k++;
			}
			if (k < 2)
				continue;
			memcpy(cs, c, (size_t)k * sizeof(double));
			memcpy(qs, q, (size_t)k * sizeof(double));
			double mc = cmp_median(cs, k), mq = cmp_median(qs, k);
			for (int j = 0; j < k; j++) {
				sxy += (q[j] - mq) * (c[j] - mc);
				sxx += (q[j] - mq) * (q[j] - mq);
				rl[sd][j] += (c[j] - mc) / nn;
				rq[sd][j] += (q[j] - mq) / nn;
				m++;
			}
			rk[sd] = k;
		}
	if (!na)
		return pa;
	pa.hist = isfinite(hbeta);
	if (!pa.hist && (m < PADJ_MIN_DEV || !(sxx > 0)))
		return pa;
	pa.on = 1;
	pa.beta = pa.hist ? hbeta : fmin(PADJ_MAX_BETA, fmax(0, sxy / sxx));
	pa.ref = all / na;
	if (pa.hist) {
		pa.se = isfinite(hbeta_se) ? hbeta_se : INFINITY;
	} else if (rk[0] + rk[1] >= 4) {
		/* the slope's error from the repetitions' mean deviations: the
		 * points of one repetition share its machine, so they are not
		 * independent evidence of the slope */
		double b0 = sxy / sxx, rss = 0, qq = 0;
		for (int sd = 0; sd < 2; sd++)
			for (int j = 0; j < rk[sd]; j++) {
				rss += (rl[sd][j] - b0 * rq[sd][j]) * (rl[sd][j] - b0 * rq[sd][j]);
				qq += rq[sd][j] * rq[sd][j];
			}
		if (qq > 0)
			pa.se = sqrt(rss / (rk[0] + rk[1] - 3) / qq);
	}
	return pa;
}

int compare_ab_paired(const struct run_result *a, const struct run_result *b)
{
	const char *ia = json_string_value(json_object_get(a->ab, "id"));
	const char *ib = json_string_value(json_object_get(b->ab, "id"));
	const char *sa = json_string_value(json_object_get(a->ab, "side"));
	const char *sb = json_string_value(json_object_get(b->ab, "side"));
	return ia && ib && sa && sb && *ia && !strcmp(ia, ib) && strcmp(sa, sb);
}

/* compare --ab: each pair's difference of levels over ns[from..to), B's
 * repetition minus A's repetition of the same pair (repetition.ab_pair),
 * of the pairs both sides measured whole; the count written to d (room
 * for ba->nreps). */
static int pair_diffs(const struct bench_result *ba, const struct bench_result *bb,
		      const uint64_t *ns, int nn, int from, int to, const struct padj *pa, double *d,
		      int *afirst)
{
	int k = 0;
	for (int i = 0; i < ba->nreps; i++) {
		const struct repetition *ra = &ba->reps[i];
		if (ra->ab_pair <= 0 || !rep_whole(ra, ns, nn))
			continue;
		for (int j = 0; j < bb->nreps; j++) {
			const struct repetition *rb = &bb->reps[j];
			if (rb->ab_pair == ra->ab_pair && rep_whole(rb, ns, nn)) {
				if (afirst)
					afirst[k] = ra->ab_order == 1;
				d[k++] = rep_level(rb, ns, from, to, pa) - rep_level(ra, ns, from, to, pa);
				break;
			}
		}
	}
	return k;
}

/* A verdict change counts as real when both verdicts are definite, the
 * pooled exponents' confidence intervals do not overlap and, with two or
 * more repetitions a side, the repetitions' own exponents differ by
 * Welch's test at alpha: as for the cost, the repetition is the unit of
 * replication, since the pooled intervals cannot see what differs between
 * runs (an A/A pair of the quick suite exited 3 on a verdict change alone). */
static json_t *verdict_change(const char *name, const struct bench_result *ba,
			      const struct bench_result *bb, const struct cmp_opts *o, int judged,
			      struct tally *t)
{
	const struct verdict *a = &ba->v, *b = &bb->v;
	int ra = growth_rank(a->cls), rb = growth_rank(b->cls);
	int sig = ra && rb && isfinite(a->exp_lo) && isfinite(b->exp_lo) &&
		  (a->exp_hi < b->exp_lo || b->exp_hi < a->exp_lo);
	double xa[64], xb[64], rep_p = NAN;
	int ka = 0, kb = 0;
	for (int r = 0; r < ba->nreps && ka < 64; r++)
		if (isfinite(ba->reps[r].v.exponent) && ba->reps[r].v.cls != GROWTH_NONE)
			xa[ka++] = ba->reps[r].v.exponent;
	for (int r = 0; r < bb->nreps && kb < 64; r++)
		if (isfinite(bb->reps[r].v.exponent) && bb->reps[r].v.cls != GROWTH_NONE)
			xb[kb++] = bb->reps[r].v.exponent;
	if (ka >= 2 && kb >= 2) {
		struct cmp_welch w;
		cmp_welch(xa, ka, xb, kb, &w);
		rep_p = w.p;
		sig = sig && w.p < o->alpha / (t->family > 1 ? t->family : 1);
	}
	int worse = ra && rb && rb > ra;
	if (sig && worse && judged)
		t->regression = 1;
	return json_pack("{s:s,s:s,s:s,s:o,s:o,s:b,s:b,s:b,s:o}", "bench", name, "from",
			 growth_name(a->cls), "to", growth_name(b->cls), "exponent_from",
			 num(a->exponent), "exponent_to", num(b->exponent), "significant", sig,
			 "worse", worse, "judged", judged, "repetitions_p", num(rep_p));
}

/* The probe adjustments a test with a history chooses from (rep_tests):
 * by the history's slope on the page-fault time or on the unmap time
 * (ADJ_HISTORY + CMP_SLOPE_*), by the sides' own, none. */
enum { ADJ_HISTORY, ADJ_SIDES = ADJ_HISTORY + CMP_SLOPES, ADJ_NONE, ADJ_KINDS };
static const char *const adj_name[ADJ_KINDS] = {"history_fault_slope", "history_unmap_slope",
						"sides_slope", "none"};

/* The repetition tests of one bench, made before any word is given: the
 * scale and the family correction need every bench's test first. */
struct rep_res {
	int lv;  /* levels made (a repetition or more a side, common N) */
	int ok;  /* tested on the repetitions (enough a side, common N) */
	/* the levels' range per side, sweep [0], top third [1] and the top two
	 * points [2] (the top of the sweep: decisive() looks there) */
	double amin[3], amax[3], bmin[3], bmax[3];
	/* the history's run-to-run spread of this bench, sweep and top third
	 * (NAN: none, or too few runs), over hruns earlier runs */
	double hs, ht;
	int hruns, hbeyond; /* hbeyond: hs, ht beyond the earlier runs' shifts */
	int hadj; /* hs, ht of levels adjusted with the history's probe slope */
	/* with a history: the change (log, mean of sweep and top) the test
	 * finds with each adjustment (slope_det; INFINITY: none), the
	 * smallest chosen; NAN: no choice made */
	double det[ADJ_KINDS];
	int chosen; /* the adjustment taken (ADJ_*) when det was made */
	double sv; /* the adjustment's variance: (B's probe time - A's)^2 x beta's se^2 */
	double es_s, es_t; /* the scale each test was made with (1 with a history) */
	struct cmp_welch s2; /* the top two points' levels, B against A */
	int two; /* a top third apart from the whole sweep */
	int ka, kb, nn;
	/* compare --ab: tested on pairs (sw, st: the paired tests of the
	 * pairs' differences), how many */
	int paired, pairs;
	/* the second run's effect in a pair: half of (mean d where A ran first
	 * - mean d where B did), log; NAN without both orders */
	double order_eff;
	/* the probe adjustment (beta 0: none) and the sides' mean ln
	 * page-fault time (NAN without probes) */
	struct padj pa;
	double fault_a, fault_b;
	struct cmp_welch sw, st;
	double ps, pt; /* the p of sweep and top with the run-effect scale */
	double p;      /* the bench's: 2 x the smaller of ps and pt when two */
	double padj;   /* Holm-adjusted over the benches of the compare */
	double scale_s, scale_t;
	struct cmp_test fs, ft; /* moderated sweep and top tests */
	double shift_s, shift_t; /* the run shift taken off each test (log; 0: none) */
};

struct fam { /* what family() found */
	double scale_s, scale_t, d0_s, d0_t;
	double shift_s, shift_t; /* the run shift (log; 0 with --keep-shift or few benches) */
	int used, used_t;
	int paired; /* tests made on pairs (compare --ab) */
};

/* The adjustments a test with a history chose from: the change each
 * would find (percent, null: not possible) and the one chosen; null when
 * no choice was made (--no-probe-adjust, a short history). */
static json_t *adj_choice(const struct rep_res *r)
{
	if (isnan(r->det[ADJ_NONE]))
		return json_null();
	json_t *j = json_object();
	for (int k = 0; k < ADJ_KINDS; k++)
		json_object_set_new(j, adj_name[k], num(100 * expm1(r->det[k])));
	json_object_set_new(j, "chosen", json_string(adj_name[r->chosen]));
	return j;
}

static void range(const double *x, int k, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (int i = 0; i < k; i++) {
		*lo = fmin(*lo, x[i]);
		*hi = fmax(*hi, x[i]);
	}
}

/* The levels over every common N (a change of the whole sweep) and over
 * its top third, at least 2 points (growth that only shows at large N). */
/* The mean ln time of a probe part over a side's whole repetitions and
 * ns, or NAN when a point lacks it. */
static double side_probe(const struct bench_result *b, const uint64_t *ns, int nn, int part)
{
	double sum = 0;
	int k = 0;
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; rep_whole(&b->reps[r], ns, nn) && i < nn; i++, k++)
			sum += rep_probe(&b->reps[r], ns[i], part);
	return k ? sum / k : NAN;
}

/* A bench's repetition tests into r, its levels adjusted (adjust) by a
 * history's slope hs on probe part `part` or, hs NULL, by the sides' own
 * slope on the page-fault time. */
static void rep_stats(const struct bench_result *ba, const struct bench_result *bb,
		      const uint64_t *ns, int nn, int paired, int adjust, const struct cmp_slope *hs,
		      int part, struct rep_res *r)
{
	double *la = calloc((size_t)ba->nreps + 1, sizeof(double));
	double *lb = calloc((size_t)bb->nreps + 1, sizeof(double));
	if (!la || !lb) {
		free(la);
		free(lb);
		return;
	}
	int top = nn / 3 < 2 ? 2 : nn / 3, from = nn > top ? nn - top : 0;
	r->two = from > 0;
	r->nn = nn;
	r->pa = adjust ? probe_adjust(ba, bb, ns, nn, hs ? hs->beta : NAN, hs ? hs->se : NAN, part)
		       : (struct padj){0, 0, part, 0, 0, INFINITY};
	const struct padj *pa = &r->pa;
	r->fault_a = side_probe(ba, ns, nn, PROBE_FAULT);
	r->fault_b = side_probe(bb, ns, nn, PROBE_FAULT);
	/* the slope times the sides' probe difference was taken off the
	 * change: its error adds to the change's variance, whatever the
	 * slope (0 too: the truth may be steeper), in an unpaired test; a
	 * slope the runs hardly determine then cannot make a change */
	double dfl = part == PROBE_FAULT ? r->fault_b - r->fault_a
					 : side_probe(bb, ns, nn, part) - side_probe(ba, ns, nn, part);
	r->sv = pa->on && !paired && isfinite(dfl) && dfl != 0 ? dfl * dfl * pa->se * pa->se : 0;
	r->ka = rep_levels(ba, ns, nn, 0, nn, pa, la);
	r->kb = rep_levels(bb, ns, nn, 0, nn, pa, lb);
	cmp_welch(la, r->ka, lb, r->kb, &r->sw);
	range(la, r->ka, &r->amin[0], &r->amax[0]);
	range(lb, r->kb, &r->bmin[0], &r->bmax[0]);
	if (r->two) {
		rep_levels(ba, ns, nn, from, nn, pa, la);
		rep_levels(bb, ns, nn, from, nn, pa, lb);
		cmp_welch(la, r->ka, lb, r->kb, &r->st);
		range(la, r->ka, &r->amin[1], &r->amax[1]);
		range(lb, r->kb, &r->bmin[1], &r->bmax[1]);
	}
	int t2 = nn >= 2 ? nn - 2 : 0;
	rep_levels(ba, ns, nn, t2, nn, pa, la);
	rep_levels(bb, ns, nn, t2, nn, pa, lb);
	cmp_welch(la, r->ka, lb, r->kb, &r->s2);
	range(la, r->ka, &r->amin[2], &r->amax[2]);
	range(lb, r->kb, &r->bmin[2], &r->bmax[2]);
	r->lv = r->ka > 0 && r->kb > 0;
	/* compare --ab: the same levels, tested pair by pair (la has room) */
	int *af = paired ? calloc((size_t)ba->nreps + 1, sizeof(int)) : NULL;
	int np = af ? pair_diffs(ba, bb, ns, nn, 0, nn, pa, la, af) : 0;
	r->order_eff = NAN;
	if (np >= 2) {
		r->paired = 1;
		r->pairs = np;
		cmp_paired(la, np, &r->sw);
		double s1 = 0, s2 = 0;
		int n1 = 0, n2 = 0;
		for (int k = 0; k < np; k++) {
			*(af[k] ? &s1 : &s2) += la[k];
			*(af[k] ? &n1 : &n2) += 1;
		}
		if (n1 && n2)
			r->order_eff = (s1 / n1 - s2 / n2) / 2;
		if (r->two) {
			pair_diffs(ba, bb, ns, nn, from, nn, pa, la, NULL);
			cmp_paired(la, np, &r->st);
		}
	}
	free(af);
	free(la);
	free(lb);
}

/* A bench's test with the history's spread h over hruns earlier runs
 * (hadj: of levels adjusted with the history's probe slope, estimated
 * from the same runs: a degree of freedom fewer) pooled with its
 * repetitions' own Welch variance w, each by its degrees of freedom, and
 * the adjustment's variance sv added (family_side says why). */
static struct cmp_test hist_test(double d, double h, int hruns, int hadj, const struct cmp_welch *w,
				 double sv)
{
	double dh = hruns - 1 - hadj, dw = isfinite(w->df) && w->se2 > 0 ? w->df : 0;
	return (struct cmp_test){d, (dh * 2 * h * h + dw * (dw > 0 ? w->se2 : 0)) / (dh + dw) + sv, dh + dw};
}

/* The moderated, scaled tests of every tested bench (sweep, or top: the
 * top-third tests) into r->fs / r->ft and r->ps / r->pt; returns the
 * scale, *d0 the prior's degrees of freedom, *used the tests. */
static double family_side(struct rep_res *rr, int nb, int top, int keep_shift, double *d0,
			  double *shift, int *used)
{
	struct cmp_test *f = malloc(((size_t)nb + 1) * sizeof(*f));
	int *at = malloc(((size_t)nb + 1) * sizeof(int)), k = 0;
	double scale = 1;
	*d0 = 0;
	*shift = 0;
	int ku = 0; /* the unpaired tests come first: f[0..ku) */
	if (f && at) {
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < nb; i++) {
				const struct cmp_welch *w = top ? &rr[i].st : &rr[i].sw;
				if (!rr[i].ok || rr[i].paired != pass || (top && !rr[i].two) ||
				    !isfinite(w->change))
					continue;
				f[k] = (struct cmp_test){log1p(w->change), w->se2, w->df};
				at[k++] = i;
				ku += !pass;
			}
		/* the run shift and the run effect are what two runs do apart:
		 * a test on pairs (compare --ab) has them cancelled in each
		 * pair, so neither is taken off it nor scales it; its variance
		 * is still moderated toward the other benches' */
		if (!keep_shift) /* each bench against the run's shift (cmpstat.h) */
			*shift = cmp_center(f, ku);
		for (int j = 0; j < ku; j++)
			*(top ? &rr[at[j]].shift_t : &rr[at[j]].shift_s) = *shift;
		cmp_moderate(f, k, d0);
		scale = cmp_run_scale(f, ku);
		for (int j = 0; j < k; j++) {
			struct rep_res *r = &rr[at[j]];
			double h = top ? r->ht : r->hs, p;
			if (r->paired) {
				p = cmp_test_p(&f[j], 1);
				*(top ? &r->es_t : &r->es_s) = 1;
			} else if (isfinite(h) && h > 0 && r->hruns >= CMP_HISTORY_TEST_RUNS) {
				/* the history knows how far this bench's level moves
				 * from run to run here (beyond the runs' shifts, as
				 * the change is tested): two runs differ by 2 h^2 in
				 * variance, known from hruns - 1 degrees of freedom
				 * (hruns - 2 when the levels were adjusted with the
				 * history's probe slope, estimated from the same runs).
				 * The repetitions' own Welch variance estimates the
				 * same (their levels interleave with the other
				 * benches', so they see the run-to-run noise: ratio
				 * 0.7-1.0, docs/compare.md), from df degrees of
				 * freedom of its own: the two are pooled, each by
				 * its degrees of freedom, as the variance prior of
				 * cmp_moderate pools the benches'. Until 2026-12-06
				 * the larger of the two was taken, with its own
				 * degrees of freedom: Welch's 3-4 at -r 3, where the
				 * Holm-adjusted t quantile is 15 or more. With fewer
				 * runs the t quantile at a Holm-adjusted alpha is so
				 * wide (df 2: ~14) that a 3x change beside a 6%
				 * spread went unfound: the floor rule and the run
				 * scale decide then, as without a history. */
				struct cmp_test ht = hist_test(f[j].d, h, r->hruns, r->hadj, top ? &r->st : &r->sw, r->sv);
				f[j] = ht;
				p = cmp_test_p(&ht, 1);
				*(top ? &r->es_t : &r->es_s) = 1;
			} else {
				f[j].se2 += r->sv;
				p = cmp_test_p(&f[j], scale);
				*(top ? &r->es_t : &r->es_s) = scale;
			}
			if (top) {
				r->ft = f[j];
				r->pt = p;
			} else {
				r->fs = f[j];
				r->ps = p;
			}
		}
	}
	*used = k;
	free(f);
	free(at);
	return scale;
}

/* The scaled p of every tested bench and Holm's adjustment over them
 * (family-wise error at most alpha however many benches a compare has);
 * returns the number of tests in the family. */
static int family(struct rep_res *rr, int nb, int keep_shift, struct fam *fm)
{
	fm->paired = 0;
	fm->scale_s = family_side(rr, nb, 0, keep_shift, &fm->d0_s, &fm->shift_s, &fm->used);
	fm->scale_t = family_side(rr, nb, 1, keep_shift, &fm->d0_t, &fm->shift_t, &fm->used_t);
	double *p = malloc(((size_t)nb + 1) * sizeof(*p));
	int *at = malloc(((size_t)nb + 1) * sizeof(*at)), m = 0;
	for (int i = 0; i < nb; i++) {
		struct rep_res *r = &rr[i];
		if (!r->ok)
			continue;
		fm->paired += r->paired;
		r->scale_s = r->paired ? 1 : fm->scale_s;
		r->scale_t = r->paired ? 1 : fm->scale_t;
		if (!r->two)
			r->pt = NAN;
		double q = r->two ? fmin(1, 2 * fmin(isnan(r->ps) ? 1 : r->ps, isnan(r->pt) ? 1 : r->pt))
				  : (isnan(r->ps) ? 1 : r->ps);
		r->p = r->padj = q;
		if (p && at) {
			p[m] = q;
			at[m++] = i;
		}
	}
	if (p && at) {
		cmp_holm(p, m, p);
		for (int j = 0; j < m; j++)
			rr[at[j]].padj = p[j];
	}
	free(p);
	free(at);
	return m;
}

/* A change with the run shift taken off (cmp_center): what the bench did
 * beyond what the whole run did. */
static double beyond(double change, double shift)
{
	return expm1(log1p(change) - shift);
}

static json_t *welch_json(const struct cmp_welch *w, const struct cmp_test *f, double ps,
			  double shift, enum cmp_word word)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s}", "change_pct", num(w->change * 100),
			 "beyond_shift_pct", num(100 * beyond(w->change, shift)), "t", num(w->t),
			 "df", num(w->df), "p", num(w->p), "se_moderated_pct",
			 num(100 * sqrt(f->se2)), "df_moderated", num(f->df), "p_scaled", num(ps),
			 "word", cmp_word_name(word));
}

/* The bench's word from its repetition tests (rep_stats, family): a test
 * whose change is within the threshold says same; beyond it, the test
 * with the smaller scaled p says slower or faster when the bench's Holm
 * p is under alpha, else noisy. Slower when either test is; faster
 * likewise; noisy when either is; else same. */
static enum cmp_word rep_test(const struct rep_res *r, const struct cmp_opts *o, int m,
			      json_t **out)
{
	int sig = r->padj < o->alpha;
	int lead_top = r->two && r->pt < r->ps;
	enum cmp_word w = CMP_SAME, wtop = CMP_SAME;
	/* the change judged: beyond the run shift (0 with --keep-shift) */
	double cs = beyond(r->sw.change, r->shift_s), ct = beyond(r->st.change, r->shift_t);
	if (isfinite(cs) && fabs(cs) >= o->threshold)
		w = sig && !lead_top ? (cs > 0 ? CMP_SLOWER : CMP_FASTER) : CMP_NOISY;
	if (r->two && isfinite(ct) && fabs(ct) >= o->threshold)
		wtop = sig && lead_top ? (ct > 0 ? CMP_SLOWER : CMP_FASTER) : CMP_NOISY;
	enum cmp_word word = w == CMP_SLOWER || wtop == CMP_SLOWER   ? CMP_SLOWER
			     : w == CMP_FASTER || wtop == CMP_FASTER ? CMP_FASTER
			     : w == CMP_NOISY || wtop == CMP_NOISY   ? CMP_NOISY
								     : CMP_SAME;
	*out = json_pack("{s:i,s:i,s:i,s:f,s:o,s:o,s:f,s:o,s:o,s:i}", "repetitions_a", r->ka,
			 "repetitions_b", r->kb, "points", r->nn, "alpha_each",
			 r->two ? o->alpha / 2 : o->alpha, "sweep", welch_json(&r->sw, &r->fs, r->ps, r->shift_s, w),
			 "top", r->two ? welch_json(&r->st, &r->ft, r->pt, r->shift_t, wtop) : json_null(), "variance_scale",
			 r->scale_s, "p_bench", num(r->p), "p_holm", num(r->padj), "family_tests", m);
	if (*out && r->two)
		json_object_set_new(*out, "variance_scale_top", json_real(r->scale_t));
	if (*out) { /* compare --ab: on the pairs' differences, df = pairs - 1 */
		json_object_set_new(*out, "design", json_string(r->paired ? "paired" : "unpaired"));
		json_object_set_new(*out, "pairs", r->paired ? json_integer(r->pairs) : json_null());
		if (r->paired) /* what running second in a pair did (the order alternates) */
			json_object_set_new(*out, "second_run_pct", num(100 * expm1(r->order_eff)));
		/* the levels adjusted for the page-fault probe: by how much per
		 * unit of ln fault time, and how far the sides' fault times
		 * were apart (a change the adjustment took off) */
		json_object_set_new(*out, "probe_adjust",
				    r->pa.on ? json_pack("{s:f,s:o,s:s,s:s,s:o}", "beta", r->pa.beta, "beta_se",
							       num(r->pa.se), "beta_from",
							       r->pa.hist ? "history" : "sides", "probe",
							       r->pa.part == PROBE_UNMAP ? "unmap" : "fault",
							       "fault_change_pct",
							       num(100 * expm1(r->fault_b - r->fault_a)))
						   : json_null());
	}
	/* the power: the change (one bench's, the others unchanged: Holm's
	 * first step, alpha / m, halved for two tests) this test finds 9 times
	 * in 10, from its standard error and degrees of freedom */
	double ae = o->alpha / (m > 1 ? m : 1) / (r->two ? 2 : 1);
	double ds = cmp_detectable(sqrt(r->es_s * r->fs.se2), r->fs.df, ae, CMP_POWER);
	double dt = r->two ? cmp_detectable(sqrt(r->es_t * r->ft.se2), r->ft.df, ae, CMP_POWER) : NAN;
	if (*out)
		json_object_set_new(*out, "detectable",
				    json_pack("{s:f,s:o,s:o}", "power", CMP_POWER, "sweep_pct",
					      num(100 * expm1(ds)), "top_pct", num(100 * expm1(dt))));
	if (*out && isfinite(r->hs) && r->hs > 0) /* the test's variance from the history */
		json_object_set_new(*out, "history",
				    json_pack("{s:i,s:o,s:o,s:b,s:b,s:o}", "runs", r->hruns, "spread_pct",
					      num(100 * r->hs), "spread_top_pct", num(100 * r->ht),
					      "beyond_shift", r->hbeyond, "probe_adjusted", r->hadj,
					      "adjustments", adj_choice(r)));
	return word;
}

/* A change far beyond any run-to-run noise is called whatever the
 * repetitions (one a side will do): every repetition of one side at least
 * `factor` times every one of the other at the top of the sweep (the mean
 * log median of the two largest N: growth shows there, and a change of
 * the whole sweep shows there too). The factor: --decisive when given;
 * else CMP_DECISIVE_DEFAULT, above the largest change between two
 * repetitions of an unchanged system measured here, raised by the history
 * (this bench's run-to-run spread at the top of the sweep on this host,
 * CMP_DECISIVE_SD standard deviations) when that is larger
 * (docs/compare.md, "A large change"). */
struct decisive {
	int dir;       /* +1 B slower, -1 B faster, 0 neither */
	double change; /* there: exp(mean B - mean A) - 1 */
	double factor;
	const char *basis; /* "history", "default", "--decisive" */
};

static void decisive(const struct rep_res *r, const struct cmp_opts *o, const struct cmp_floor *f,
		     struct decisive *d)
{
	int need = o->floor_min_runs > 0 ? o->floor_min_runs : 3;
	*d = (struct decisive){0, NAN, CMP_DECISIVE_DEFAULT, "default"};
	if (o->decisive > 1) {
		d->factor = o->decisive;
		d->basis = "--decisive";
	} else if (f && f->runs >= need && isfinite(f->spread_top2)) {
		/* the history only raises it: its spread is that of runs' means
		 * of repetitions, a single repetition moves more (an A/A pair's
		 * first repetitions of fs.stat 1.97x apart, runs' means within
		 * 5%: docs/compare.md) */
		d->factor = fmax(exp(CMP_DECISIVE_SD * f->spread_top2), CMP_DECISIVE_DEFAULT);
		d->basis = "history";
	}
	/* never under the threshold the bench is judged with (a noise floor
	 * the user asked for is a smallest change worth calling) */
	d->factor = fmax(d->factor, 1 + o->threshold);
	if (!r || !r->lv)
		return;
	double lf = log(d->factor), up = r->bmin[2] - r->amax[2], down = r->amin[2] - r->bmax[2];
	d->dir = up >= lf ? 1 : down >= lf ? -1 : 0;
	d->change = r->s2.change;
}

static json_t *decisive_json(const struct decisive *d)
{
	return json_pack("{s:f,s:s,s:s,s:o}", "factor", d->factor, "basis", d->basis, "word",
			 d->dir > 0 ? "slower" : d->dir < 0 ? "faster" : "none", "top_change_pct",
			 num(100 * d->change));
}

static json_t *compare_bench(const struct bench_result *ba, const struct bench_result *bb,
			     const struct cmp_opts *o, struct tally *t, uint64_t *ca, uint64_t *cb,
			     const struct rep_res *rr, const struct cmp_floor *fl, int *judged)
{
	int na, nb;
	uint64_t *va = distinct_n(ba, &na), *vb = distinct_n(bb, &nb);
	json_t *pts = json_array(), *only_a = json_array(), *only_b = json_array();
	for (int i = 0; va && i < na; i++) {
		if (!has_n(bb, va[i])) {
			json_array_append_new(only_a, json_integer((json_int_t)va[i]));
			continue;
		}
		json_t *pj = compare_point(ba, bb, va[i], ca, cb, o, t);
		/* a category axis: the point's category by name (rt.wakeup's load kind) */
		if (pj && ba->axis_kind == 3 && va[i] >= 1 && va[i] <= (uint64_t)ba->ncategories)
			json_object_set_new(pj, "category", json_string(ba->categories[va[i] - 1]));
		json_array_append_new(pts, pj);
	}
	for (int i = 0; vb && i < nb; i++)
		if (!has_n(ba, vb[i]))
			json_array_append_new(only_b, json_integer((json_int_t)vb[i]));
	free(va);
	free(vb);
	char key[200];
	double mc;
	enum cmp_word w = bench_word(pts, o, &mc);
	/* the bench's word: from the repetitions when each side has enough */
	int ka = reps_with_points(ba), kb = reps_with_points(bb);
	const char *test = "samples";
	json_t *rt = NULL;
	if (rr && rr->ok) {
		test = "repetitions";
		w = rep_test(rr, o, t->family, &rt);
	} else if (!o->strict) {
		test = "none";
		w = CMP_INSUFFICIENT;
	}
	struct decisive dz;
	decisive(rr, o, fl, &dz);
	if (dz.dir && w != CMP_SLOWER && (dz.dir > 0 || w != CMP_FASTER)) {
		if (w == CMP_INSUFFICIENT || !strcmp(test, "samples"))
			test = "decisive";
		w = dz.dir > 0 ? CMP_SLOWER : CMP_FASTER;
	}
	*judged = w != CMP_INSUFFICIENT;
	t->bench_words[w]++;
	if (w == CMP_SLOWER)
		t->regression = 1;
	int nslow = 0, nfast = 0;
	size_t i;
	json_t *p;
	json_array_foreach(pts, i, p) {
		const char *pw = json_string_value(json_object_get(p, "word"));
		nslow += pw && !strcmp(pw, "slower");
		nfast += pw && !strcmp(pw, "faster");
	}
	json_t *jd = rr && rr->lv ? decisive_json(&dz) : json_null();
	double sw = rr && rr->lv ? 100 * rr->sw.change : NAN;
	double st = rr && rr->lv && rr->two ? 100 * rr->st.change : NAN;
	json_t *out = json_pack("{s:s,s:i,s:s,s:s,s:s,s:s,s:i,s:i,s:o,s:o,s:o,s:o,s:o,s:i,s:i,s:i,s:o,s:o,s:o}", "name",
			 bench_key(ba, key, sizeof(key)), "version", ba->version, "status_a",
			 bench_status_name(ba->status), "status_b", bench_status_name(bb->status),
			 "word", cmp_word_name(w), "test", test, "repetitions_a", ka,
			 "repetitions_b", kb, "repetition_test", rt ? rt : json_null(),
			 "decisive", jd, "sweep_change_pct", num(sw), "top_change_pct", num(st),
			 "median_change_pct", num(mc * 100), "points_compared",
			 (int)json_array_size(pts), "points_slower", nslow, "points_faster", nfast,
			 "points", pts, "n_only_in_a", only_a, "n_only_in_b", only_b);
	json_t *pc = out && ba->profile && bb->profile ? profile_compare(ba->profile, bb->profile)
						      : NULL;
	if (pc) /* both ran with --profile: where the time moved (profile.h) */
		json_object_set_new(out, "profile", pc);
	return out;
}

/* The median over every point's probe readings of a run, before and
 * after, of the log of the geometric mean of parts[0..np); NAN without
 * them (results older than the probe, or than the part). */
static double probe_level(const struct run_result *r, const int *parts, int np)
{
	size_t cap = 0, k = 0;
	for (int i = 0; i < r->nbenches; i++)
		for (int j = 0; j < r->benches[i].nreps; j++)
			cap += 2 * (size_t)r->benches[i].reps[j].npts;
	double *v = malloc((cap + 1) * sizeof(double));
	if (!v)
		return NAN;
	for (int i = 0; i < r->nbenches; i++)
		for (int j = 0; j < r->benches[i].nreps; j++)
			for (int q = 0; q < r->benches[i].reps[j].npts; q++) {
				const struct point *pt = &r->benches[i].reps[j].pts[q];
				for (int s = 0; pt->has_probe && s < 2; s++) {
					double sum = 0;
					int m = 0;
					for (int x = 0; x < np; x++)
						if (pt->probe[s].ns[parts[x]] > 0) {
							sum += log(pt->probe[s].ns[parts[x]]);
							m++;
						}
					if (m == np)
						v[k++] = sum / m;
				}
			}
	double med = NAN;
	if (k) {
		qsort(v, k, sizeof(double), cmp_double);
		med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	}
	free(v);
	return med;
}

/* The machine's speed over a run as its probe read it (probe.h): the
 * loop, system call and page fault times (the clock read and the unmap
 * aside, as probe_slowness does). */
static double machine_level(const struct run_result *r)
{
	const int parts[] = {PROBE_LOOP, PROBE_SYSCALL, PROBE_FAULT};
	return probe_level(r, parts, 3);
}

/* The probe's unmap time over a run (probe.h): how busy the other CPUs
 * were around its points. */
static double unmap_level(const struct run_result *r)
{
	const int parts[] = {PROBE_UNMAP};
	return probe_level(r, parts, 1);
}

/* Where the run swept its benches; results from before workers have no
 * options.isolation and swept inside scalebench. */
static const char *isolation(const struct run_result *r)
{
	const char *v = json_string_value(json_object_get(r->options, "isolation"));
	return v && !strcmp(v, "worker") ? "each in a worker process" : "inside scalebench";
}

/* The text of a recorded condition at a dotted path of a JSON tree (a
 * string, a number, or an "unavailable" object as the snapshot writes it),
 * in buf; "" when absent. */
static const char *cond_text(const json_t *root, const char *path, char *buf, size_t len)
{
	char part[64];
	const json_t *v = root;
	for (const char *p = path; v && *p;) {
		size_t k = strcspn(p, ".");
		snprintf(part, sizeof(part), "%.*s", (int)k, p);
		v = json_object_get(v, part);
		p += k + (p[k] == '.');
	}
	buf[0] = 0;
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_number(v))
		snprintf(buf, len, "%g", json_number_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	else if (json_is_object(v) && json_object_get(v, "unavailable"))
		snprintf(buf, len, "unknown");
	else if (v && !json_is_null(v)) {
		char *d = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
		snprintf(buf, len, "%s", d ? d : "");
		free(d);
	}
	return buf;
}

/* A run's crowded points (result.h, struct unsteady): the probed points
 * in *probed, those crowded at their first measurement in *crowded; the
 * most CPU any lost (NAN: not known). */
#define CROWD_CAVEAT 0.05
static double crowding(const struct run_result *r, int *probed, int *crowded)
{
	double most = NAN;
	*probed = *crowded = 0;
	for (int i = 0; i < r->nbenches; i++) {
		struct unsteady u;
		bench_unsteady(&r->benches[i], &u);
		if (isnan(u.max_lost))
			continue;
		*probed += u.probed;
		*crowded += u.crowded_first;
		most = isnan(most) || u.max_lost > most ? u.max_lost : most;
	}
	return most;
}

/* Conditions a run records but does not control, which move costs
 * without the system under test having changed: named when they differ. */
static void conditions(const struct run_result *a, const struct run_result *b, json_t *caveats)
{
	static const struct {
		int opts; /* 1: options, 0: snapshot */
		const char *path, *what;
	} c[] = {
		{1, "cpus", "CPU placement (--cpus)"},
		{0, "kernel.release", "kernel"},
		{0, "kernel.version", "kernel build"},
		{0, "kernel.preempt.model", "preemption model"},
		{0, "clocksource.current", "clock source"},
		{0, "cpu.governor", "frequency governor"},
		{0, "cpu.model", "CPU model"},
		{0, "cpu.count_online", "CPUs online"},
		{0, "memory.thp.enabled", "transparent huge pages"},
		{0, "virtualization.hypervisor.name", "hypervisor"},
		{0, "virtualization.hypervisor.cpuid_vendor", "hypervisor's CPUID signature"},
		{0, "virtualization.hypervisor.type", "hypervisor type (/sys/hypervisor)"},
		{0, "filesystem.journal", "scratch file system's journal (ext2/3/4)"},
		{1, "scale", "scale (--quick/--full)"},
		{1, "ci_target", "CI target (--ci)"},
	};
	char va[256], vb[256];
	/* other load: the 1-minute load average at the snapshot, against the
	 * CPUs online; a busy side is named, whether or not the other is */
	const json_t *lda = json_object_get(a->snapshot, "loadavg"), *ldb = json_object_get(b->snapshot, "loadavg");
	double la = json_number_value(json_array_get(lda, 0)), lb = json_number_value(json_array_get(ldb, 0));
	double cpus = json_number_value(json_object_get(json_object_get(a->snapshot, "cpu"), "count_online"));
	if (cpus < 1)
		cpus = 1;
	if (json_is_array(lda) && json_is_array(ldb) && (la > cpus / 2 || lb > cpus / 2))
		json_array_append_new(caveats,
				      json_sprintf("other load: 1-minute load average A %.2f, B %.2f on %g "
						   "CPUs: a change may be the machine's, not the system's",
						   la, lb, cpus));
	/* other load inside the run: points other processes crowded
	 * (probe.h, CPU_LOST_CROWDED), named when a side has CROWD_CAVEAT of
	 * its probed points so at their first measurement */
	int pa, ca, pb, cb;
	double ma = crowding(a, &pa, &ca), mb = crowding(b, &pb, &cb);
	if ((pa && ca >= CROWD_CAVEAT * pa) || (pb && cb >= CROWD_CAVEAT * pb))
		json_array_append_new(caveats,
				      json_sprintf("crowded: other processes took %.1f of a CPU or more "
						   "from the benches' tasks at %d of A's %d points (up to "
						   "%.2f), %d of B's %d (up to %.2f): a change may be the "
						   "machine's, not the system's",
						   CPU_LOST_CROWDED, ca, pa, isnan(ma) ? 0.0 : ma, cb, pb,
						   isnan(mb) ? 0.0 : mb));
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const json_t *ra = c[i].opts ? a->options : a->snapshot;
		const json_t *rb = c[i].opts ? b->options : b->snapshot;
		if (!ra || !rb)
			continue;
		cond_text(ra, c[i].path, va, sizeof(va));
		cond_text(rb, c[i].path, vb, sizeof(vb));
		/* the hypervisor's name and signature and the journal are recorded
		 * since 2026-12-05: an older result says nothing, which is not a
		 * difference (nor is a journal on one side's ext4 and no key on
		 * the other's tmpfs: the type differs, said with the targets) */
		if (((!strncmp(c[i].path, "virtualization.hypervisor.", 26) && strcmp(c[i].path + 26, "type")) ||
		     !strcmp(c[i].path, "filesystem.journal")) &&
		    (!*va || !*vb))
			continue;
		if (strcmp(va, vb))
			json_array_append_new(caveats,
					      json_sprintf("%s differs: A %s, B %s", c[i].what,
							   *va ? va : "(not recorded)",
							   *vb ? vb : "(not recorded)"));
	}
}

/* Mean ops/s of a concurrency bench's points at n (repetitions pooled)
 * and its standard error: from the spread of the repetitions when there
 * are two or more, else from the point's throughput-over-time series;
 * plus the 2% systematic error the fit assumes (usl.c). Count returned. */
static int ops_at(const struct bench_result *b, uint64_t n, double *mean, double *se)
{
	double s = 0, ss = 0, se1 = 0;
	int k = 0;
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++) {
			const struct point *p = &b->reps[r].pts[i];
			if (p->n != n || !(p->ops_per_s > 0))
				continue;
			s += p->ops_per_s;
			ss += p->ops_per_s * p->ops_per_s;
			se1 = point_ops_se(p);
			k++;
		}
	if (!k)
		return 0;
	*mean = s / k;
	double v = k > 1 ? fmax(ss - s * s / k, 0) / (k - 1) / k : se1 * se1;
	*se = sqrt(v + 0.02 * *mean * 0.02 * *mean);
	return k;
}

/* Largest n with throughput on both sides (0: none). */
static uint64_t common_nmax(const struct bench_result *a, const struct bench_result *b)
{
	uint64_t best = 0;
	double m, e;
	for (int r = 0; r < a->nreps; r++)
		for (int i = 0; i < a->reps[r].npts; i++) {
			uint64_t n = a->reps[r].pts[i].n;
			if (n > best && a->reps[r].pts[i].ops_per_s > 0 && ops_at(b, n, &m, &e))
				best = n;
		}
	return best;
}

static int ci_apart(double alo, double ahi, double blo, double bhi)
{
	return isfinite(alo) && isfinite(ahi) && isfinite(blo) && isfinite(bhi) &&
	       (ahi < blo || bhi < alo);
}

/* Per repetition of a concurrency bench: sigma and kappa (repetitions
 * with a fit, *nf of them) and the mean log ops/s at n (repetitions that
 * measured it, *nx). Arrays of b->nreps. */
static void rep_figures(const struct bench_result *b, uint64_t n, double *sg, double *kp, int *nf,
			double *lx, int *nx)
{
	*nf = *nx = 0;
	for (int r = 0; r < b->nreps; r++) {
		struct usl u;
		rep_usl(b, r, &u);
		if (u.lambda > 0) {
			sg[*nf] = u.sigma;
			kp[(*nf)++] = u.kappa;
		}
		double s = 0;
		int c = 0;
		for (int i = 0; i < b->reps[r].npts; i++) {
			const struct point *p = &b->reps[r].pts[i];
			if (p->n == n && p->ops_per_s > 0) {
				s += log(p->ops_per_s);
				c++;
			}
		}
		if (c)
			lx[(*nx)++] = s / c;
	}
}

/* A concurrency bench's throughput verdict, A against B. As for the bench
 * word, the repetitions are the evidence when both sides have two or more
 * (points of one run move together, so a run's own intervals understate
 * run-to-run change): Welch's t-test of the repetitions' sigma, kappa and
 * log ops/s at the largest N both sides measured, each at alpha/3. With
 * fewer, the pooled fits' 95% intervals (apart or not) and a z test of
 * the means at that N (errors from the throughput-over-time spread, plus
 * 2%). A throughput change counts beyond the threshold; a sigma or kappa
 * change when the fitted efficiency at that N moved beyond the threshold
 * too. "worse" when any of them got worse and none better, "better" the
 * other way, "mixed", "same", or "not fitted" when a side has no fit.
 * Worse (or mixed) counts as a regression when judged. */
static json_t *throughput_change(const char *name, const struct bench_result *ba,
				 const struct bench_result *bb, const struct cmp_opts *o, int judged,
				 int busy, struct tally *t)
{
	const struct usl *ua = &ba->usl, *ub = &bb->usl;
	int fitted = ua->lambda > 0 && ub->lambda > 0;
	uint64_t n = common_nmax(ba, bb);
	double alpha = o->alpha / (3 * (t->family > 1 ? t->family : 1));
	/* material: the fitted efficiency at n moved beyond the threshold */
	double dn = (double)n;
	double ea = 1 / (1 + ua->sigma * (dn - 1) + ua->kappa * dn * (dn - 1));
	double eb = 1 / (1 + ub->sigma * (dn - 1) + ub->kappa * dn * (dn - 1));
	int material = fitted && n && fabs(eb / ea - 1) > o->threshold;
	int ka = ba->nreps, kb = bb->nreps;
	double *buf = calloc((size_t)(3 * (ka + kb) + 6), sizeof(double));
	int sig_s = 0, sig_k = 0, sig_x = 0, by_reps = 0;
	double chg = NAN, px = NAN;
	if (buf) {
		double *sa = buf, *kpa = sa + ka + 1, *xa = kpa + ka + 1;
		double *sb = xa + ka + 1, *kpb = sb + kb + 1, *xb = kpb + kb + 1;
		int nfa, nxa, nfb, nxb;
		rep_figures(ba, n, sa, kpa, &nfa, xa, &nxa);
		rep_figures(bb, n, sb, kpb, &nfb, xb, &nxb);
		struct cmp_welch w;
		if (nfa >= 2 && nfb >= 2) {
			by_reps = 1;
			cmp_welch(sa, nfa, sb, nfb, &w);
			sig_s = material && w.p < alpha;
			cmp_welch(kpa, nfa, kpb, nfb, &w);
			sig_k = material && w.p < alpha;
		} else if (o->strict || !judged) { /* not from repetitions: only with --strict */
			sig_s = material && ci_apart(ua->sigma_lo, ua->sigma_hi, ub->sigma_lo, ub->sigma_hi);
			sig_k = material && ci_apart(ua->kappa_lo, ua->kappa_hi, ub->kappa_lo, ub->kappa_hi);
		}
		double ma, mb, sea, seb;
		if (nxa >= 2 && nxb >= 2) {
			cmp_welch(xa, nxa, xb, nxb, &w);
			chg = w.change;
			struct cmp_test fx = {log1p(w.change), w.se2, w.df};
			px = cmp_test_p(&fx, t->scale); /* a level, as the latency's: the run effect */
			sig_x = w.p < alpha && fabs(chg) > o->threshold;
		} else if ((o->strict || !judged) && n && ops_at(ba, n, &ma, &sea) &&
			   ops_at(bb, n, &mb, &seb)) {
			chg = mb / ma - 1;
			px = erfc(fabs((mb - ma) / sqrt(sea * sea + seb * seb)) / sqrt(2.0));
			sig_x = px < alpha && fabs(chg) > o->threshold;
		}
		free(buf);
	}
	double xa_m = NAN, xb_m = NAN, e1, e2;
	if (n && ops_at(ba, n, &xa_m, &e1) && ops_at(bb, n, &xb_m, &e2) && !isfinite(chg))
		chg = xb_m / xa_m - 1;
	int worse = (sig_s && ub->sigma > ua->sigma) + (sig_k && ub->kappa > ua->kappa) +
		    (sig_x && chg < 0);
	int better = (sig_s && ub->sigma < ua->sigma) + (sig_k && ub->kappa < ua->kappa) +
		     (sig_x && chg > 0);
	const char *word = worse && better ? "mixed" : worse ? "worse" : better ? "better"
						      : !fitted && !sig_x ? "not fitted" : "same";
	if (worse && judged && !busy)
		t->regression = 1;
	json_t *j = json_pack("{s:s,s:s,s:s,s:s,s:b,s:b,s:b,s:b,s:s,s:s}", "bench", name,
			      "verdict_from", usl_word(ua->cls), "verdict_to", usl_word(ub->cls), "word",
			      word, "sigma_significant", sig_s, "kappa_significant", sig_k,
			      "ops_significant", sig_x, "judged", judged && !busy, "unit",
			      bb->unit ? bb->unit : "op", "test", by_reps ? "repetitions" : "within runs");
	json_object_set_new(j, "not_judged_why",
			    !judged ? json_string("too few repetitions")
			    : busy  ? json_string("other CPUs busy on one side")
				    : json_null());
	/* null on a side without a fit */
	json_object_set_new(j, "sigma_from", num(ua->lambda > 0 ? ua->sigma : NAN));
	json_object_set_new(j, "sigma_to", num(ub->lambda > 0 ? ub->sigma : NAN));
	json_object_set_new(j, "kappa_from", num(ua->lambda > 0 ? ua->kappa : NAN));
	json_object_set_new(j, "kappa_to", num(ub->lambda > 0 ? ub->kappa : NAN));
	json_object_set_new(j, "n", json_integer((json_int_t)n));
	json_object_set_new(j, "ops_per_s_a", num(xa_m));
	json_object_set_new(j, "ops_per_s_b", num(xb_m));
	json_object_set_new(j, "ops_change_pct", num(100 * chg));
	json_object_set_new(j, "ops_p", num(px));
	return j;
}

/* The history's spread that tests a bench, sweep [0] or top [1]: beyond
 * each earlier run's shift (not with --keep-shift) when known, of levels
 * adjusted with the history's probe slope sl (CMP_SLOPE_*) or not (-1). */
static double hist_spread(const struct cmp_floor *f, int sl, int keep_shift, int top, int *beyond)
{
	const struct cmp_slope *a = sl >= 0 ? &f->slope[sl] : NULL;
	double bw = a ? a->spread_beyond : f->spread_beyond;
	double bt = a ? a->spread_top_beyond : f->spread_top_beyond;
	double sw = a ? a->spread : f->spread, st = a ? a->spread_top : f->spread_top;
	*beyond = !keep_shift && isfinite(bw);
	if (!top)
		return *beyond ? bw : sw;
	return *beyond && isfinite(bt) ? bt : st;
}

/* The change (log; the mean of sweep's and top third's) the history's
 * test of a bench (hist_test) would find 9 times in 10 at Holm's first
 * step, its levels r adjusted with the history's probe slope sl (the
 * spread of the runs so adjusted, a degree of freedom fewer, the slope's
 * error in sv) or not (-1: the runs' spread as measured; r's levels
 * adjusted with the sides' own slope or not at all): made from the
 * variances alone, before the change is looked at, so that choosing the
 * smaller keeps the test's level. INFINITY: untestable. */
static double slope_det(const struct cmp_floor *f, int sl, int keep_shift, const struct rep_res *r,
			double alpha)
{
	double det = 0;
	for (int top = 0; top <= r->two; top++) {
		int beyond;
		double h = hist_spread(f, sl, keep_shift, top, &beyond);
		if (!(isfinite(h) && h > 0) || f->runs < CMP_HISTORY_TEST_RUNS)
			return INFINITY;
		struct cmp_test t = hist_test(0, h, f->runs, sl >= 0, top ? &r->st : &r->sw, r->sv);
		double d = cmp_detectable(sqrt(t.se2), t.df, alpha, CMP_POWER);
		if (!isfinite(d))
			return INFINITY;
		det += d;
	}
	return det / (r->two + 1);
}

/* A test that leaves the sides' difference d in probe part j (CMP_SLOPE_*)
 * unadjusted has it carry whatever the bench's slope on it is: the
 * history's slope fitted jointly with the other part's (pbeta: the
 * one-part slope would carry the other part's effect and error too; else,
 * for the fault time, the sides' own sp) squared
 * plus its squared error, times d^2 beyond what two of the history's runs
 * differ by on average (2 xvar: their spread as measured holds that
 * much). The variance to add; 0 without a slope. Found on real runs: a
 * bench tested on its unmap slope with B's fault time 20% above A's was
 * called 46% slower in an A/A pair of two idle runs (io.seqwrite). */
static double adj_left(const struct cmp_floor *f, int j, const struct bench_result *ba,
		       const struct bench_result *bb, const uint64_t *ns, int nn,
		       const struct padj *sp)
{
	const struct cmp_slope *sl = &f->slope[j];
	double beta = sl->pbeta, se = sl->pse, xv = sl->xvar;
	if (!isfinite(beta)) {
		if (j != CMP_SLOPE_FAULT || !sp->on)
			return 0;
		beta = sp->beta;
		se = sp->se;
		xv = 0;
	}
	int part = CMP_SLOPE_PART(j);
	double d = side_probe(bb, ns, nn, part) - side_probe(ba, ns, nn, part);
	double ex = isfinite(d) ? d * d - 2 * (isfinite(xv) ? xv : 0) : 0;
	return ex > 0 ? ex * (beta * beta + se * se) : 0;
}

/* Whether adjustment k (ADJ_*) takes the probe's part j (CMP_SLOPE_*) off
 * the levels: the history's slope on that part does, and the sides' own
 * slope, which is on the fault time. */
static int adj_covers(int k, int j)
{
	return k == ADJ_HISTORY + j || (k == ADJ_SIDES && j == CMP_SLOPE_FAULT);
}

/* Every bench's repetition tests (rep_stats), before any word: the run
 * shift, the scale and the family correction need them all first. */
static void rep_tests(const struct run_result *a, const struct run_result *b,
		      const struct cmp_opts *o, struct rep_res *rr)
{
	int need = o->min_reps > 0 ? o->min_reps : 3;
	int paired = !o->unpaired && compare_ab_paired(a, b);
	for (int i = 0; i < a->nbenches; i++) {
		const struct bench_result *ba = &a->benches[i], *bb;
		char ka[200];
		int nn = 0;
		if (!ba->name || find_bench(a, bench_key(ba, ka, sizeof(ka))) != ba ||
		    !(bb = find_bench(b, ka)) || ba->version != bb->version ||
		    !reps_with_points(ba) || !reps_with_points(bb))
			continue;
		const struct cmp_floor *f = floor_of(o, ka, bb->version);
		int fneed = o->floor_min_runs > 0 ? o->floor_min_runs : 3;
		int hist = f && f->runs >= fneed;
		uint64_t *ns = common_n(ba, bb, &nn);
		for (int k = 0; k < ADJ_KINDS; k++)
			rr[i].det[k] = NAN;
		if (ns && nn > 0)
			rep_stats(ba, bb, ns, nn, paired, !o->no_probe_adjust, NULL, PROBE_FAULT, &rr[i]);
		if (ns && nn > 0 && hist && !paired && !o->no_probe_adjust &&
		    f->runs >= CMP_HISTORY_TEST_RUNS) {
			/* which adjustment (docs/compare.md "Which adjustment"):
			 * the history's slope on the fault time or on the unmap
			 * time (then its spread is that of levels so adjusted),
			 * the sides' own slope or none, each a valid test; with a
			 * short history a slope's degree of freedom and error, or
			 * the sides' slope's error, can cost more than the
			 * adjustment gains (qb): the one whose test finds the
			 * smallest change, from the variances */
			struct rep_res c[ADJ_KINDS];
			double det[ADJ_KINDS];
			double ae = o->alpha / (a->nbenches > 1 ? a->nbenches : 1) / (rr[i].two ? 2 : 1);
			for (int k = 0; k < ADJ_KINDS; k++) {
				const struct cmp_slope *sl = k < ADJ_SIDES ? &f->slope[k] : NULL;
				c[k] = rr[i]; /* ADJ_SIDES: as made above */
				det[k] = INFINITY;
				if (sl && !isfinite(sl->beta))
					continue;
				if (k != ADJ_SIDES)
					rep_stats(ba, bb, ns, nn, 0, k != ADJ_NONE, sl, CMP_SLOPE_PART(k), &c[k]);
				/* what the probe times it does not adjust for
				 * could carry (adj_left) */
				for (int j = 0; j < CMP_SLOPES; j++)
					if (!adj_covers(k, j))
						c[k].sv += adj_left(f, j, ba, bb, ns, nn, &rr[i].pa);
				if (c[k].lv && (k != ADJ_SIDES || c[k].pa.on))
					det[k] = slope_det(f, sl && c[k].pa.on ? k : -1, o->keep_shift, &c[k], ae);
			}
			int best = ADJ_SIDES;
			for (int k = 0; k < ADJ_KINDS; k++)
				if (det[k] < det[best])
					best = k;
			rr[i] = c[best];
			memcpy(rr[i].det, det, sizeof(det));
			rr[i].chosen = best;
		}
		rr[i].ok = rr[i].lv && (rr[i].paired ? rr[i].pairs >= need
						     : rr[i].ka >= need && rr[i].kb >= need);
		rr[i].hs = rr[i].ht = NAN;
		if (hist && !rr[i].paired) {
			/* beyond each earlier run's shift, as the change is tested
			 * beyond this compare's (not with --keep-shift); adjusted
			 * for the probe as the levels under test were */
			int adj = rr[i].pa.hist && rr[i].pa.on, beyond;
			int sl = !adj ? -1 : rr[i].pa.part == PROBE_UNMAP ? CMP_SLOPE_UNMAP : CMP_SLOPE_FAULT;
			rr[i].hs = hist_spread(f, sl, o->keep_shift, 0, &beyond);
			rr[i].ht = hist_spread(f, sl, o->keep_shift, 1, &beyond);
			rr[i].hbeyond = beyond;
			rr[i].hruns = f->runs;
			rr[i].hadj = adj;
		}
		free(ns);
	}
}

/* What the whole run did (run shift, 4d) and what the family of tests
 * became with it: the run shift (the median change of the benches) is
 * taken off each bench's test when it is the machine's, when the probe
 * moved with it (within CMP_SHIFT_TOLERANCE). A shift the probe does not
 * explain is a change of the system: every bench is then judged on its
 * whole change (as with --keep-shift), and B slower is a regression. */
struct shift {
	double shift, mach; /* log: the benches' median change, the probe's (NAN: none) */
	int system;	    /* +1 / -1: the system's, B slower / faster; 0 the machine's */
};

static void run_shift(const struct run_result *a, const struct run_result *b,
		      const struct cmp_opts *o, struct rep_res *rr, struct tally *t,
		      struct fam *fm, struct shift *sh)
{
	t->family = family(rr, a->nbenches, o->keep_shift, fm);
	sh->mach = machine_level(b) - machine_level(a);
	sh->shift = fm->shift_s;
	sh->system = 0;
	if (!o->keep_shift && sh->shift != 0 &&
	    fabs(sh->shift - (isfinite(sh->mach) ? sh->mach : 0)) >= log1p(CMP_SHIFT_TOLERANCE) &&
	    fabs(expm1(sh->shift)) >= o->threshold) {
		sh->system = sh->shift > 0 ? 1 : -1;
		t->family = family(rr, a->nbenches, 1, fm);
		if (sh->shift > 0) /* the whole system slower: a regression of its own */
			t->regression = 1;
	}
	t->scale = fm->scale_s;
}

/* The caveats of the run shift and the run effect. */
static void shift_caveats(const struct shift *sh, const struct fam *fm, json_t *caveats)
{
	double shift = sh->shift;
	char mtxt[64] = "was not read (no probe in these results)";
	if (isfinite(sh->mach))
		snprintf(mtxt, sizeof(mtxt), "moved %+.1f%%", 100 * expm1(sh->mach));
	if (sh->system)
		json_array_append_new(caveats,
				      json_sprintf("run shift: B's benches were %.1f%% %s than A's as a whole "
						   "(the median change over %d benches) and the machine's "
						   "probe %s: %.0f%% or more apart, a change of the "
						   "system%s; each bench is judged on its whole change",
						   100 * fabs(expm1(shift)), shift > 0 ? "slower" : "faster",
						   fm->used, mtxt, 100 * CMP_SHIFT_TOLERANCE,
						   shift > 0 ? " (a regression: exit 3)" : ""));
	else if (shift != 0 && fabs(expm1(shift)) >= 0.005)
		json_array_append_new(caveats,
				      json_sprintf("run shift: B's benches were %.1f%% %s than A's as a whole "
						   "(the median change over %d benches; %.1f%% at the top of "
						   "the sweeps), the machine's probe %s: the machine's, so "
						   "each bench is judged on its change beyond it "
						   "(--keep-shift: not)",
						   100 * fabs(expm1(shift)), shift > 0 ? "slower" : "faster",
						   fm->used, 100 * expm1(fm->shift_t), mtxt));
	if (fm->scale_s > 1)
		json_array_append_new(caveats,
				      json_sprintf("run effect: the benches' changes vary %.1fx as much as "
						   "their repetitions say (over %d benches); each test is "
						   "scaled by it, so a shift shared by most benches is taken "
						   "for the runs'",
						   sqrt(fm->scale_s), fm->used));
}

/* The compare's "family": the tests, the run shift, the scale, the prior. */
static json_t *family_json(const struct cmp_opts *o, const struct tally *t, const struct fam *fm,
			   const struct shift *sh)
{
	return json_pack("{s:s,s:i,s:f,s:o,s:s,s:b,s:f,s:f,s:f,s:f,s:i,s:i,s:i}", "method", "holm",
			 "tests", t->family, "run_shift_pct", 100 * expm1(sh->shift),
			 "machine_change_pct", num(100 * expm1(sh->mach)), "run_shift",
			 o->keep_shift	       ? "kept"
			 : sh->system > 0      ? "slower"
			 : sh->system < 0      ? "faster"
			 : sh->shift != 0      ? "machine"
					       : "none",
			 "shift_removed", !o->keep_shift && !sh->system && sh->shift != 0,
			 "variance_scale", fm->scale_s, "variance_scale_top", fm->scale_t, "prior_df",
			 fm->d0_s, "prior_df_top", fm->d0_t, "scale_benches", fm->used - fm->paired,
			 "scale_min_benches", CMP_SCALE_MIN_TESTS, "paired_tests", fm->paired);
}

json_t *compare_results(const struct run_result *a, const char *la, const struct run_result *b,
			const char *lb, const struct cmp_opts *o, int *regression)
{
	struct tally t = {{0}, {0}, 0, 0, 1};
	uint64_t *ca = malloc(HIST_NBUCKETS * sizeof(*ca)), *cb = malloc(HIST_NBUCKETS * sizeof(*cb));
	if (!ca || !cb) {
		free(ca);
		free(cb);
		return NULL;
	}
	/* the other CPUs busy on one side and not the other (caveat below) */
	double ud = unmap_level(b) - unmap_level(a);
	int busy_apart = isfinite(ud) && fabs(ud) >= log(CMP_PROBE_UNMAP_APART);
	/* first every bench's repetition tests, then the run-effect scale and
	 * Holm's adjustment over them (family), then the words */
	struct rep_res *rr = calloc((size_t)a->nbenches + 1, sizeof(*rr));
	if (!rr) {
		free(ca);
		free(cb);
		return NULL;
	}
	rep_tests(a, b, o, rr);
	struct fam fm;
	struct shift sh;
	run_shift(a, b, o, rr, &t, &fm, &sh);
	json_t *vchg = json_array(), *benches = json_array(), *refused = json_array();
	json_t *tchg = json_array();
	json_t *only_a = json_array(), *only_b = json_array();
	for (int i = 0; i < a->nbenches; i++) {
		const struct bench_result *ba = &a->benches[i];
		char ka[200];
		if (!ba->name || find_bench(a, bench_key(ba, ka, sizeof(ka))) != ba)
			continue; /* a repeated key: the first one counts */
		const struct bench_result *bb = find_bench(b, ka);
		if (!bb) {
			json_array_append_new(only_a, json_string(ka));
			continue;
		}
		if (ba->version != bb->version) {
			json_array_append_new(refused,
					      json_pack("{s:s,s:i,s:i}", "bench", ka,
							"version_a", ba->version, "version_b",
							bb->version));
			continue;
		}
		int judged = 0, fused = 0;
		double fl;
		struct cmp_opts ob = *o; /* this bench's threshold: the floor's when larger */
		const struct cmp_floor *f = floor_of(o, ka, bb->version);
		ob.threshold = compare_threshold(o, f, &fused, &fl);
		json_t *jb = compare_bench(ba, bb, &ob, &t, ca, cb, &rr[i], f, &judged);
		if (jb && o->floor_k > 0)
			json_object_set_new(jb, "noise_floor", floor_json(o, f, ob.threshold, fused, fl));
		json_array_append_new(benches, jb);
		int conc = ba->axis_kind == 1 && bb->axis_kind == 1; /* AXIS_CONCURRENCY */
		/* throughput is the verdict there, not latency growth; not judged
		 * when the other CPUs were busy on one side and not the other
		 * (the probe's unmap time 1.5x apart): the CPUs the load could
		 * use differed, not the system (an A/A pair, B beside one CPU
		 * hog, read io.randwrite's throughput WORSE) */
		if (conc)
			json_array_append_new(tchg, throughput_change(ka, ba, bb, o, judged, busy_apart, &t));
		else if (ba->v.cls != bb->v.cls && ba->axis_kind != 3 && bb->axis_kind != 3)
			/* a category axis (3) has no growth verdict: its points are compared */
			json_array_append_new(vchg, verdict_change(ka, ba, bb, o, judged, &t));
	}
	for (int i = 0; i < b->nbenches; i++) {
		char kb[200];
		if (b->benches[i].name && !find_bench(a, bench_key(&b->benches[i], kb, sizeof(kb))) &&
		    find_bench(b, kb) == &b->benches[i])
			json_array_append_new(only_b, json_string(kb));
	}
	free(ca);
	free(cb);
	/* the probe adjustment took off the sides' page-fault difference
	 * times each bench's slope: named when the sides' fault times were
	 * apart (docs/compare.md, "Probe-adjusted levels") */
	double fsum = 0, bsum = 0;
	int fk = 0, hk = 0, uk = 0;
	for (int i = 0; i < a->nbenches; i++) {
		uk += rr[i].pa.on && rr[i].pa.beta > 0 && rr[i].pa.part == PROBE_UNMAP;
		if (rr[i].pa.on && rr[i].pa.beta > 0 && rr[i].pa.part == PROBE_FAULT &&
		    isfinite(rr[i].fault_b - rr[i].fault_a)) {
			fsum += rr[i].fault_b - rr[i].fault_a;
			bsum += rr[i].pa.beta;
			fk++;
			hk += rr[i].pa.hist;
		}
	}
	free(rr);
	*regression = t.regression;
	/* what the two runs did differently that moves costs without the system
	 * having changed */
	json_t *caveats = json_array();
	const char *ia = isolation(a), *ib = isolation(b);
	if (strcmp(ia, ib))
		json_array_append_new(caveats, json_sprintf("A swept its benches %s, B %s: what an "
							    "operation costs can depend on the process "
							    "that makes it (fork: up to x2)",
							    ia, ib));
	conditions(a, b, caveats);
	shift_caveats(&sh, &fm, caveats);
	if (fk && fabs(fsum / fk) >= log(1 + CMP_PROBE_FAULT_APART)) {
		char hist[64] = "";
		if (hk)
			snprintf(hist, sizeof(hist), ", %d of the slopes from the history", hk);
		json_array_append_new(caveats,
				      json_sprintf("the machine-speed probe's page-fault time was %+.0f%% on B's "
						   "side against A's: %d bench%s had their levels adjusted for it "
						   "(mean slope %.2f%s); if the systems differ in their page-fault "
						   "path, compare with --no-probe-adjust",
						   100 * expm1(fsum / fk), fk, fk == 1 ? "" : "es", bsum / fk, hist));
	}
	if (busy_apart) {
		char adj[96] = "";
		if (uk)
			snprintf(adj, sizeof(adj), "; %d bench%s had their levels adjusted for it (the history's slope)",
				 uk, uk == 1 ? "" : "es");
		json_array_append_new(caveats,
				      json_sprintf("the machine-speed probe's unmap time was %+.0f%% on B's side "
						   "against A's (median over the points): other CPUs were %s busy "
						   "during B's run; on a virtual machine fork, exit and munmap can "
						   "cost 2x or more while another vCPU runs anything (docs/method.md, "
						   "\"Machine drift\")%s; throughput over concurrency not judged",
						   100 * expm1(ud), ud > 0 ? "more" : "less", adj));
	}
	json_t *out = json_pack("{s:o,s:o,s:f,s:f,s:i,s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:{s:{s:i,s:i,s:i,s:i,s:i},"
			 "s:{s:i,s:i,s:i,s:i},s:b}}",
			 "a", side(a, la), "b", side(b, lb), "threshold_pct", o->threshold * 100,
			 "alpha", o->alpha, "min_repetitions", o->min_reps > 0 ? o->min_reps : 3,
			 "strict", o->strict, "caveats", caveats, "verdict_changes", vchg, "refused",
			 refused, "benches_only_in_a", only_a, "benches_only_in_b", only_b, "benches",
			 benches, "summary", "benches", "same", t.bench_words[CMP_SAME], "faster",
			 t.bench_words[CMP_FASTER], "slower", t.bench_words[CMP_SLOWER], "noisy",
			 t.bench_words[CMP_NOISY], "insufficient", t.bench_words[CMP_INSUFFICIENT],
			 "points", "same", t.words[CMP_SAME], "faster", t.words[CMP_FASTER], "slower",
			 t.words[CMP_SLOWER], "noisy", t.words[CMP_NOISY], "regression", t.regression);
	if (out)
		json_object_set_new(out, "family", family_json(o, &t, &fm, &sh));
	if (out) { /* the two sides of one compare --ab run: tested on pairs unless --unpaired */
		json_t *jab = compare_ab_paired(a, b)
			? json_pack("{s:O,s:b,s:i}", "id", json_object_get(a->ab, "id"), "paired",
				    !o->unpaired, "paired_tests", fm.paired)
			: NULL;
		/* --detect: its target and the pairs it added, bench by bench */
		json_t *pa = json_object_get(b->ab, "pairs_added");
		if (jab && json_is_object(pa)) {
			json_object_set(jab, "detect_pct", json_object_get(b->ab, "detect_pct"));
			json_object_set(jab, "max_pairs", json_object_get(b->ab, "max_pairs"));
			json_object_set(jab, "pairs", json_object_get(b->ab, "pairs"));
			json_object_set(jab, "pairs_added", pa);
		}
		json_object_set_new(out, "ab", jab ? jab : json_null());
	}
	/* concurrency benches only (older outputs have none: the key is absent) */
	if (out && json_array_size(tchg))
		json_object_set_new(out, "throughput_changes", tchg);
	else
		json_decref(tchg);
	return out;
}
