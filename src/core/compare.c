/* SPDX-License-Identifier: MIT */
/* Comparing two results (baseline A, candidate B) bench by bench and
 * point by point; the outcome is a JSON tree (docs/compare.md) that the
 * command prints as a table or as JSON, so both say the same thing.
 *
 * Matching: benches by name; a bench whose version differs is refused
 * (what it measures changed) and listed as such. Points by N; the
 * repetitions of a bench are pooled by adding their histograms, which is
 * exact. What only one side has is named, never silently dropped. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	int words[4];       /* points */
	int bench_words[4]; /* benches */
	int regression;
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

/* A verdict change counts as real when both verdicts are definite and the
 * exponents' confidence intervals do not overlap. */
static json_t *verdict_change(const char *name, const struct verdict *a,
			      const struct verdict *b, struct tally *t)
{
	int ra = growth_rank(a->cls), rb = growth_rank(b->cls);
	int sig = ra && rb && isfinite(a->exp_lo) && isfinite(b->exp_lo) &&
		  (a->exp_hi < b->exp_lo || b->exp_hi < a->exp_lo);
	int worse = ra && rb && rb > ra;
	if (sig && worse)
		t->regression = 1;
	return json_pack("{s:s,s:s,s:s,s:o,s:o,s:b,s:b}", "bench", name, "from",
			 growth_name(a->cls), "to", growth_name(b->cls), "exponent_from",
			 num(a->exponent), "exponent_to", num(b->exponent), "significant", sig,
			 "worse", worse);
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

static json_t *compare_bench(const struct bench_result *ba, const struct bench_result *bb,
			     const struct cmp_opts *o, struct tally *t, uint64_t *ca, uint64_t *cb)
{
	int na, nb;
	uint64_t *va = distinct_n(ba, &na), *vb = distinct_n(bb, &nb);
	json_t *pts = json_array(), *only_a = json_array(), *only_b = json_array();
	for (int i = 0; va && i < na; i++) {
		if (has_n(bb, va[i]))
			json_array_append_new(pts, compare_point(ba, bb, va[i], ca, cb, o, t));
		else
			json_array_append_new(only_a, json_integer((json_int_t)va[i]));
	}
	for (int i = 0; vb && i < nb; i++)
		if (!has_n(ba, vb[i]))
			json_array_append_new(only_b, json_integer((json_int_t)vb[i]));
	free(va);
	free(vb);
	char key[200];
	double mc;
	enum cmp_word w = bench_word(pts, o, &mc);
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
	return json_pack("{s:s,s:i,s:s,s:s,s:s,s:o,s:i,s:i,s:i,s:o,s:o,s:o}", "name", bench_key(ba, key, sizeof(key)),
			 "version", ba->version, "status_a", bench_status_name(ba->status),
			 "status_b", bench_status_name(bb->status), "word", cmp_word_name(w),
			 "median_change_pct", num(mc * 100), "points_compared",
			 (int)json_array_size(pts), "points_slower", nslow, "points_faster", nfast,
			 "points", pts, "n_only_in_a", only_a, "n_only_in_b", only_b);
}

/* Where the run swept its benches; results from before workers have no
 * options.isolation and swept inside scalebench. */
static const char *isolation(const struct run_result *r)
{
	const char *v = json_string_value(json_object_get(r->options, "isolation"));
	return v && !strcmp(v, "worker") ? "each in a worker process" : "inside scalebench";
}

json_t *compare_results(const struct run_result *a, const char *la, const struct run_result *b,
			const char *lb, const struct cmp_opts *o, int *regression)
{
	struct tally t = {{0}, {0}, 0};
	uint64_t *ca = malloc(HIST_NBUCKETS * sizeof(*ca)), *cb = malloc(HIST_NBUCKETS * sizeof(*cb));
	if (!ca || !cb) {
		free(ca);
		free(cb);
		return NULL;
	}
	json_t *vchg = json_array(), *benches = json_array(), *refused = json_array();
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
		if (ba->v.cls != bb->v.cls)
			json_array_append_new(vchg, verdict_change(ka, &ba->v, &bb->v, &t));
		json_array_append_new(benches, compare_bench(ba, bb, o, &t, ca, cb));
	}
	for (int i = 0; i < b->nbenches; i++) {
		char kb[200];
		if (b->benches[i].name && !find_bench(a, bench_key(&b->benches[i], kb, sizeof(kb))) &&
		    find_bench(b, kb) == &b->benches[i])
			json_array_append_new(only_b, json_string(kb));
	}
	free(ca);
	free(cb);
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
	return json_pack("{s:o,s:o,s:f,s:f,s:o,s:o,s:o,s:o,s:o,s:o,s:{s:{s:i,s:i,s:i,s:i},"
			 "s:{s:i,s:i,s:i,s:i},s:b}}",
			 "a", side(a, la), "b", side(b, lb), "threshold_pct", o->threshold * 100,
			 "alpha", o->alpha, "caveats", caveats, "verdict_changes", vchg, "refused", refused,
			 "benches_only_in_a", only_a, "benches_only_in_b", only_b, "benches",
			 benches, "summary", "benches", "same", t.bench_words[CMP_SAME], "faster",
			 t.bench_words[CMP_FASTER], "slower", t.bench_words[CMP_SLOWER], "noisy",
			 t.bench_words[CMP_NOISY], "points", "same", t.words[CMP_SAME], "faster",
			 t.words[CMP_FASTER], "slower", t.words[CMP_SLOWER], "noisy",
			 t.words[CMP_NOISY], "regression", t.regression);
}
