/* SPDX-License-Identifier: MIT */
/* The HTML report: one self-contained file (inline CSS and SVG, no script,
 * no font or image from anywhere) over one or more results. Sections:
 * the inputs, a verdict table (bench x input, differences marked), per
 * bench a log-log scaling curve (one line per input and repetition, p99
 * band, verdicts in the legend), the latency distributions at each
 * input's largest N and the failures, then the snapshots side by side
 * with the differing rows highlighted. */
#include "out/report.h"
#include "core/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SERIES 64

/* Length of the UTF-8 sequence at s if valid (1..4), else 0. */
static int utf8_len(const unsigned char *s)
{
	int n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
		: (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (n == 2 && s[0] < 0xc2)
		return 0; /* overlong */
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void html_escape(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	while (*s) {
		int n = utf8_len(s);
		if (n > 1) {
			fwrite(s, 1, (size_t)n, f);
			s += n;
			continue;
		}
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (n == 1 && (*s >= 0x20 || *s == '\t' || *s == '\n') && *s != 0x7f)
				fputc(*s, f);
			else
				fputs("\xef\xbf\xbd", f); /* U+FFFD */
		}
		s++;
	}
}

static const char css[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#222;padding:0 16px}"
	"h1{font-size:22px}h2{font-size:18px;margin-top:36px;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;"
	"text-align:left;vertical-align:top}th{background:#f3f3f3}"
	"tr.diff td{background:#fff3c4}td.diff{background:#ffe08a;font-weight:600}"
	".mono{font-family:ui-monospace,monospace;font-size:12px;word-break:break-all}"
	".plots{display:grid;grid-template-columns:1fr 1fr;gap:12px}"
	"svg.plot{width:100%;height:auto;font:15px sans-serif}svg .bg{fill:#fcfcfc;stroke:#999}"
	"svg .grid{stroke:#e4e4e4}svg text{fill:#333}"
	".fail{color:#a00}.skip{color:#777}.sw{display:inline-block;width:12px;height:12px;"
	"margin-right:6px;vertical-align:-1px}"
	".g-O1{color:#176b1a}.g-N,.g-NLOGN,.g-WORSE{color:#a00;font-weight:600}.g-LOGN{color:#8a5a00}"
	"svg.flame{width:100%;height:auto;font:11px sans-serif}svg.flame text{fill:#222}"
	".u-linear{color:#176b1a}.u-saturates{color:#8a5a00}.u-retrograde{color:#a00;font-weight:600}"
	".best{background:#d9f2d9;font-weight:600}.ref p{background:#f6f6f0;border-left:3px solid #bba;"
	"padding:6px 10px;margin:0}";

static const char *growth_class(enum growth g)
{
	switch (g) {
	case GROWTH_O1: return "g-O1";
	case GROWTH_LOGN: return "g-LOGN";
	case GROWTH_N: return "g-N";
	case GROWTH_NLOGN: return "g-NLOGN";
	case GROWTH_WORSE: return "g-WORSE";
	default: return "g-other";
	}
}

/* The headline by axis kind: throughput (concurrency), cost per KiB
 * (size), the tail per category and the worst (category); "" for load
 * axes (the growth verdict). Written into buf. */
static const char *headline(const struct bench_result *b, char *buf, size_t len)
{
	double n0, c0, n1, c1, r;
	*buf = 0;
	if (b->axis_kind == 3) {
		bench_category_headline(b, buf, len);
	} else if (b->axis_kind == 1) {
		const struct usl *u = &b->usl;
		const char *trend = u->cls == USL_NONE ? bench_ops_trend(b, &r) : NULL;
		if (trend)
			snprintf(buf, len, "%s x%.3g", trend, r);
		else if (u->cls == USL_RETROGRADE)
			snprintf(buf, len, "retrograde past N*=%.3g", u->peak_n);
		else
			snprintf(buf, len, "%s", usl_word(u->cls));
		if (u->lambda > 0) {
			size_t l = strlen(buf);
			snprintf(buf + l, len - l, ", sigma %.3f [%.3f, %.3f], kappa %.2g [%.2g, %.2g], "
				 "efficiency %.2f at N=%g", u->sigma, u->sigma_lo, u->sigma_hi, u->kappa,
				 u->kappa_lo, u->kappa_hi, u->efficiency, u->nmax);
		} else if (bench_ops_range(b, &n0, &c0, &n1, &c1) == 0) {
			/* no fit: what it measured, the throughput at both ends */
			size_t l = strlen(buf);
			snprintf(buf + l, len - l, "%s %.4g %s/s at N=%g, %.4g at N=%g%s",
				 trend ? ":" : " (no fit):", c0, b->unit ? b->unit : "op", n0, c1, n1,
				 trend ? " (no fit)" : "");
		}
	} else if (b->axis_kind == 2 && bench_per_kib(b, &n0, &c0, &n1, &c1) == 0) {
		char a[32], c[32];
		snprintf(buf, len, "per KiB %s at N=%g, %s at N=%g", fmt_ns(c0, a, sizeof(a)), n0,
			 fmt_ns(c1, c, sizeof(c)), n1);
	}
	return buf;
}

static void verdict_cell(FILE *f, const struct bench_result *b, int diff)
{
	char hl[1024];
	if (b->status != BS_SKIPPED && *headline(b, hl, sizeof(hl))) {
		fprintf(f, "<td class=\"u-%s%s\">",
			b->axis_kind == 1 ? usl_class_name(b->usl.cls)
					  : b->axis_kind == 3 ? "category" : "size",
			diff ? " diff" : "");
		html_escape(f, hl);
		if (b->status != BS_OK) {
			fputs(" <span class=\"fail\">(", f);
			html_escape(f, bench_status_name(b->status));
			fputs(")</span>", f);
		}
		fputs("</td>", f);
		return;
	}
	fprintf(f, "<td class=\"%s%s\">", growth_class(b->v.cls), diff ? " diff" : "");
	if (b->status == BS_SKIPPED) {
		fputs("<span class=\"skip\">skipped: ", f);
		html_escape(f, b->skip_reason);
		fputs("</span></td>", f);
		return;
	}
	html_escape(f, growth_name(b->v.cls));
	if (b->v.tie != GROWTH_UNCLEAR) { /* the near class that fits as well */
		fputs(" <span class=\"tie\" title=\"", f);
		html_escape(f, b->v.reason);
		fputs("\">(or ", f);
		html_escape(f, growth_name(b->v.tie));
		fputs(")</span>", f);
	}
	if (isfinite(b->v.exponent))
		fprintf(f, " n^%.2f", b->v.exponent);
	if (b->status != BS_OK) {
		fputs(" <span class=\"fail\">(", f);
		html_escape(f, bench_status_name(b->status));
		fputs(")</span>", f);
	}
	fputs("</td>", f);
}

#define LABEL_MAX 160
#define MAX_VIEWS 64

/* Benches are told apart by bench_label(): name, or name[variant]. */
static const struct bench_result *find_bench(const struct run_result *r, const char *key)
{
	char lb[LABEL_MAX];
	for (int i = 0; i < r->nbenches; i++)
		if (r->benches[i].name && !strcmp(bench_label(&r->benches[i], lb, sizeof(lb)), key))
			return &r->benches[i];
	return NULL;
}

/* The distinct bench labels over all inputs, in order of first appearance. */
static int bench_names(const struct run_result *const *rs, int n, char (*out)[LABEL_MAX], int max)
{
	int k = 0;
	char lb[LABEL_MAX];
	for (int i = 0; i < n; i++)
		for (int j = 0; j < rs[i]->nbenches; j++) {
			if (!rs[i]->benches[j].name)
				continue;
			bench_label(&rs[i]->benches[j], lb, sizeof(lb));
			int seen = 0;
			for (int q = 0; q < k && !seen; q++)
				seen = !strcmp(out[q], lb);
			if (!seen && k < max)
				snprintf(out[k++], LABEL_MAX, "%s", lb);
		}
	return k;
}

/* A matrix result holds one set of benches per file system (target): each
 * becomes an input of its own, labelled "input target" (the target alone
 * when the matrix is the only input), so that every plot has one line per
 * file system. The views share the result's memory. */
static int split_targets(const struct run_result *const *rs, const char *const *labels, int n,
			 struct run_result *views, char (*vlab)[LABEL_MAX], int max)
{
	int k = 0;
	for (int i = 0; i < n && k < max; i++) {
		const struct run_result *r = rs[i];
		int j = 0;
		if (!r->targets) {
			views[k] = *r;
			snprintf(vlab[k++], LABEL_MAX, "%s", labels[i]);
			continue;
		}
		while (j < r->nbenches && k < max) {
			const char *t = r->benches[j].target;
			int start = j;
			while (j < r->nbenches && ((!t && !r->benches[j].target) ||
						   (t && r->benches[j].target && !strcmp(t, r->benches[j].target))))
				j++;
			views[k] = *r;
			views[k].benches = r->benches + start;
			views[k].nbenches = j - start;
			views[k].targets = NULL;
			json_t *snap = t ? json_object_get(json_object_get(r->targets, t), "snapshot") : NULL;
			if (snap)
				views[k].snapshot = snap;
			if (n == 1 && t) /* one matrix: its file systems are the inputs */
				snprintf(vlab[k++], LABEL_MAX, "%s", t);
			else
				snprintf(vlab[k++], LABEL_MAX, "%s %s", labels[i], t ? t : "");
		}
	}
	return k;
}

static void inputs_table(FILE *f, const struct run_result *const *rs, const char *const *labels,
			 int n)
{
	fputs("<table><tr><th>input</th><th>host</th><th>started</th><th>kernel</th><th>file "
	      "system</th><th>scalebench</th><th>command line</th></tr>\n", f);
	for (int i = 0; i < n; i++) {
		const json_t *snap = rs[i]->snapshot;
		const char *rel = json_string_value(json_object_get(json_object_get(snap, "kernel"), "release"));
		const char *fs = json_string_value(json_object_get(json_object_get(snap, "filesystem"), "type"));
		fprintf(f, "<tr><td><span class=\"sw\" style=\"background:%s\"></span>", svg_color(i));
		html_escape(f, labels[i]);
		fputs("</td><td>", f);
		html_escape(f, rs[i]->host);
		fputs("</td><td>", f);
		html_escape(f, rs[i]->started);
		fputs("</td><td>", f);
		html_escape(f, rel ? rel : "-");
		fputs("</td><td>", f);
		html_escape(f, fs ? fs : "-");
		fputs("</td><td>", f);
		html_escape(f, rs[i]->tool_version);
		fputs("</td><td class=\"mono\">", f);
		for (int k = 0; k < rs[i]->argc; k++) {
			html_escape(f, rs[i]->argv[k]);
			fputc(' ', f);
		}
		fprintf(f, "%s</td></tr>\n", rs[i]->interrupted ? " <b class=\"fail\">(interrupted: partial)</b>" : "");
	}
	fputs("</table>\n", f);
}

static void verdict_table(FILE *f, const struct run_result *const *rs, const char *const *labels,
			  int n, char (*names)[LABEL_MAX], int nn)
{
	fputs("<table><tr><th>bench</th>", f);
	for (int i = 0; i < n; i++) {
		fputs("<th>", f);
		html_escape(f, labels[i]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (int k = 0; k < nn; k++) {
		fputs("<tr><td><a href=\"#b", f);
		fprintf(f, "%d\">", k);
		html_escape(f, names[k]);
		fputs("</a></td>", f);
		const struct bench_result *first = NULL;
		for (int i = 0; i < n; i++) {
			const struct bench_result *b = find_bench(rs[i], names[k]);
			if (!b) {
				fputs("<td class=\"skip\">not run</td>", f);
				continue;
			}
			int diff = first && (first->version != b->version ||
					     (b->axis_kind == 1 ? first->usl.cls != b->usl.cls
								: first->v.cls != b->v.cls));
			if (!first)
				first = b;
			verdict_cell(f, b, diff);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* Scaling curves: one series per input and repetition. */
/* The noise floor of the first input's bench b, or 0 (report_floors). */
static double floor_of(const struct report_floors *fl, const struct bench_result *b)
{
	char key[200];
	int need = fl && fl->min_runs > 0 ? fl->min_runs : 3;
	if (!fl || !b || !(fl->k > 0))
		return 0;
	compare_bench_key(b, key, sizeof(key));
	for (int i = 0; i < fl->n; i++)
		if (fl->f[i].version == b->version && !strcmp(fl->f[i].key, key))
			return fl->f[i].runs >= need && isfinite(fl->f[i].spread)
				       ? expm1(fl->k * fl->f[i].spread)
				       : 0;
	return 0;
}

/* The baseline's level per N of its first repetition: the geometric mean
 * of the repetitions' medians there (what compare's levels are made of). */
static void floor_centre(const struct bench_result *b, double *out)
{
	const struct repetition *r0 = &b->reps[0];
	for (int k = 0; k < r0->npts; k++) {
		double sum = 0;
		int m = 0;
		for (int r = 0; r < b->nreps; r++)
			for (int q = 0; q < b->reps[r].npts; q++)
				if (b->reps[r].pts[q].n == r0->pts[k].n && b->reps[r].pts[q].st.p50 > 0) {
					sum += log(b->reps[r].pts[q].st.p50);
					m++;
				}
		out[k] = m ? exp(sum / m) : NAN;
	}
}

static void bench_curves(FILE *f, const struct run_result *const *rs, const char *const *labels,
			 int n, const char *name, const char *axis, const struct report_floors *fl)
{
	struct series s[MAX_SERIES];
	double *buf[MAX_SERIES][3], *centre = NULL;
	char lab[MAX_SERIES][200];
	int ns = 0;
	for (int i = 0; i < n; i++) {
		const struct bench_result *b = find_bench(rs[i], name);
		for (int r = 0; b && r < b->nreps && ns < MAX_SERIES; r++) {
			const struct repetition *rep = &b->reps[r];
			int np = rep->npts;
			for (int q = 0; q < 3; q++)
				buf[ns][q] = calloc((size_t)np + 1, sizeof(double));
			if (!buf[ns][0] || !buf[ns][1] || !buf[ns][2]) {
				for (int q = 0; q < 3; q++)
					free(buf[ns][q]);
				continue;
			}
			for (int k = 0; k < np; k++) {
				buf[ns][0][k] = (double)rep->pts[k].n;
				buf[ns][1][k] = rep->pts[k].st.p50;
				buf[ns][2][k] = rep->pts[k].st.p99;
			}
			const struct verdict *v = b->nreps > 1 ? &rep->v : &b->v;
			char rp[24] = "";
			if (b->nreps > 1)
				snprintf(rp, sizeof(rp), " rep %d", r + 1);
			char wn[64];
			double wp, wr;
			if (b->axis_kind == 3 && bench_category_worst(b, wn, sizeof(wn), &wp, &wr) == 0)
				snprintf(lab[ns], sizeof(lab[ns]), "%.120s%s: categories, worst %.40s", labels[i],
					 rp, wn); /* no growth along a category axis */
			else if (isfinite(v->exponent))
				snprintf(lab[ns], sizeof(lab[ns]), "%.120s%s: %s, n^%.2f [%.2f, %.2f], x%.2f",
					 labels[i], rp, growth_name(v->cls), v->exponent, v->exp_lo,
					 v->exp_hi, v->ratio);
			else
				snprintf(lab[ns], sizeof(lab[ns]), "%.120s%s: %s", labels[i], rp,
					 growth_name(v->cls));
			s[ns] = (struct series){.label = lab[ns], .color = i, .dashed = r > 0, .n = np,
						.x = buf[ns][0], .y = buf[ns][1], .band = buf[ns][2]};
			double fv = i == 0 && r == 0 ? floor_of(fl, b) : 0;
			if (fv > 0 && (centre = calloc((size_t)np + 1, sizeof(double)))) {
				floor_centre(b, centre);
				s[ns].floor = fv;
				s[ns].floor_y = centre;
				size_t l = strlen(lab[ns]);
				snprintf(lab[ns] + l, sizeof(lab[ns]) - l, "; grey: noise floor +-%.1f%%",
					 100 * fv);
			}
			ns++;
		}
	}
	char xl[200];
	snprintf(xl, sizeof(xl), "N = %.180s (log)", axis && *axis ? axis : "load");
	svg_loglog(f, xl, s, ns);
	for (int i = 0; i < ns; i++)
		for (int q = 0; q < 3; q++)
			free(buf[i][q]);
	free(centre);
}

/* Concurrency axes: throughput against N per input, repetitions pooled,
 * with the fitted USL curve and the ideal line. */
static void bench_throughput(FILE *f, const struct run_result *const *rs, const char *const *labels,
			     int n, const char *name, const char *axis)
{
	struct tput_series s[MAX_SERIES];
	double *xs[MAX_SERIES], *ys[MAX_SERIES];
	int *ov[MAX_SERIES];
	char lab[MAX_SERIES][300];
	const char *unit = "op";
	int ns = 0;
	for (int i = 0; i < n && ns < MAX_SERIES; i++) {
		const struct bench_result *b = find_bench(rs[i], name);
		if (!b || b->axis_kind != 1)
			continue;
		int np = 0;
		for (int r = 0; r < b->nreps; r++)
			np += b->reps[r].npts;
		xs[ns] = calloc((size_t)np + 1, sizeof(double));
		ys[ns] = calloc((size_t)np + 1, sizeof(double));
		ov[ns] = calloc((size_t)np + 1, sizeof(int));
		if (!xs[ns] || !ys[ns] || !ov[ns]) {
			free(xs[ns]);
			free(ys[ns]);
			free(ov[ns]);
			continue;
		}
		int k = 0;
		for (int r = 0; r < b->nreps; r++)
			for (int q = 0; q < b->reps[r].npts; q++) {
				const struct point *p = &b->reps[r].pts[q];
				if (!(p->ops_per_s > 0))
					continue;
				xs[ns][k] = (double)p->n;
				ys[ns][k] = p->ops_per_s;
				ov[ns][k] = b->usl.cpus > 0 && (double)p->n > b->usl.cpus;
				k++;
			}
		unit = b->unit ? b->unit : "op";
		if (b->usl.lambda > 0) /* short: the verdict table has the intervals */
			snprintf(lab[ns], sizeof(lab[ns]), "%.60s: %s, sigma %.3f, kappa %.2g, eff %.2f",
				 labels[i], b->usl.cls == USL_RETROGRADE ? "retrograde" : usl_word(b->usl.cls),
				 b->usl.sigma, b->usl.kappa, b->usl.efficiency);
		else
			snprintf(lab[ns], sizeof(lab[ns]), "%.60s: %.200s", labels[i], b->usl.reason);
		s[ns] = (struct tput_series){.label = lab[ns], .color = i, .n = k, .x = xs[ns],
					     .y = ys[ns], .over = ov[ns], .fitted = b->usl.lambda > 0,
					     .lambda = b->usl.lambda, .sigma = b->usl.sigma,
					     .kappa = b->usl.kappa};
		ns++;
	}
	char xl[200], yl[64];
	snprintf(xl, sizeof(xl), "N = %.180s", axis && *axis ? axis : "concurrency");
	snprintf(yl, sizeof(yl), "throughput (%.30s/s)", unit);
	svg_throughput(f, xl, yl, s, ns);
	for (int i = 0; i < ns; i++) {
		free(xs[i]);
		free(ys[i]);
		free(ov[i]);
	}
}

/* Distributions at each input's largest N, repetitions pooled. */
static void bench_histograms(FILE *f, const struct run_result *const *rs,
			     const char *const *labels, int n, const char *name)
{
	struct series s[MAX_SERIES] = {{0}};
	double *bx[MAX_SERIES], *by[MAX_SERIES];
	char lab[MAX_SERIES][160];
	int ns = 0;
	for (int i = 0; i < n && ns < MAX_SERIES; i++) {
		const struct bench_result *b = find_bench(rs[i], name);
		uint64_t top = 0;
		int nb = 0;
		for (int r = 0; b && r < b->nreps; r++)
			for (int k = 0; k < b->reps[r].npts; k++)
				if (b->reps[r].pts[k].n >= top)
					top = b->reps[r].pts[k].n;
		for (int r = 0; b && r < b->nreps; r++)
			for (int k = 0; k < b->reps[r].npts; k++)
				if (b->reps[r].pts[k].n == top)
					nb += b->reps[r].pts[k].nbins;
		if (!nb)
			continue;
		bx[ns] = malloc((size_t)nb * sizeof(double));
		by[ns] = malloc((size_t)nb * sizeof(double));
		if (!bx[ns] || !by[ns]) {
			free(bx[ns]);
			free(by[ns]);
			continue;
		}
		int m = 0;
		for (int r = 0; r < b->nreps; r++)
			for (int k = 0; k < b->reps[r].npts; k++) {
				const struct point *p = &b->reps[r].pts[k];
				for (int q = 0; p->n == top && q < p->nbins; q++) {
					bx[ns][m] = hist_bucket_lo(p->bins[q].idx);
					by[ns][m++] = (double)p->bins[q].count;
				}
			}
		snprintf(lab[ns], sizeof(lab[ns]), "%.120s at N=%llu", labels[i], (unsigned long long)top);
		s[ns] = (struct series){.label = lab[ns], .color = i, .n = m, .x = bx[ns], .y = by[ns]};
		ns++;
	}
	svg_histogram(f, s, ns);
	for (int i = 0; i < ns; i++) {
		free(bx[i]);
		free(by[i]);
	}
}

/* Benches whose points carry extra.rt (rt.wakeup): per input, one
 * distribution per load level with the tail in view (both axes log), each
 * level's max marked (dashed, its colour) and the run's --max-latency
 * bound (black), so that what each load does to the tail shows. */
static void bench_levels(FILE *f, const struct run_result *const *rs, const char *const *labels,
			 int n, const char *name)
{
	for (int i = 0; i < n; i++) {
		const struct bench_result *b = find_bench(rs[i], name);
		if (!b || !b->nreps || !b->reps[0].npts || !json_object_get(b->reps[0].pts[0].extra, "rt"))
			continue;
		const struct repetition *rep = &b->reps[0];
		int np = rep->npts < MAX_SERIES ? rep->npts : MAX_SERIES;
		struct series s[MAX_SERIES] = {{0}};
		struct vmark mk[MAX_SERIES + 1];
		double *bx[MAX_SERIES], *by[MAX_SERIES];
		char lab[MAX_SERIES][200], bound_lab[64];
		int ns = 0, nm = 0;
		for (int k = 0; k < np; k++) {
			const struct point *p = &rep->pts[k];
			bx[ns] = malloc((size_t)(p->nbins + 1) * sizeof(double));
			by[ns] = malloc((size_t)(p->nbins + 1) * sizeof(double));
			if (!bx[ns] || !by[ns]) {
				free(bx[ns]);
				free(by[ns]);
				continue;
			}
			for (int q = 0; q < p->nbins; q++) {
				bx[ns][q] = hist_bucket_lo(p->bins[q].idx);
				by[ns][q] = (double)p->bins[q].count;
			}
			const char *load = json_string_value(
				json_object_get(json_object_get(p->extra, "rt"), "load"));
			char mx[32];
			fmt_ns(p->st.max, mx, sizeof(mx));
			snprintf(lab[ns], sizeof(lab[ns]), "%.60s: %.60s (max %s)", labels[i],
				 load ? load : "?", mx);
			s[ns] = (struct series){.label = lab[ns], .color = k, .n = p->nbins, .x = bx[ns],
						.y = by[ns]};
			mk[nm++] = (struct vmark){.x = p->st.max, .color = k, .dashed = 1};
			ns++;
		}
		json_t *bj = json_object_get(rs[i]->options, "max_latency_us");
		if (json_is_number(bj)) {
			snprintf(bound_lab, sizeof(bound_lab), "bound %g us", json_number_value(bj));
			mk[nm++] = (struct vmark){.x = json_number_value(bj) * 1e3, .color = -1,
						  .label = bound_lab};
		}
		fputs("<p>Wake-up latency per load level", f);
		if (n > 1) {
			fputs(" (", f);
			html_escape(f, labels[i]);
			fputs(")", f);
		}
		fputs(": share of wake-ups against latency, both on a log scale; each level's max "
		      "dashed, the --max-latency bound in black.</p>\n", f);
		svg_histogram_tail(f, s, ns, mk, nm);
		for (int k = 0; k < ns; k++) {
			free(bx[k]);
			free(by[k]);
		}
	}
}

/* Throughput over time at each input's largest N that has it (benches that
 * report their own completions), with the bench's findings (stalls, dips)
 * shaded. A finding's at_s counts from the start of its phase
 * (report_phase_start: the phases' own timelines, report_phase.c, draw
 * those benches whose phases have series). */
#define MAX_MARKS 32
static int bench_timeline(FILE *f, const struct run_result *const *rs, const char *const *labels,
			  int n, const char *name)
{
	struct series s[MAX_SERIES] = {{0}};
	double *bx[MAX_SERIES], *by[MAX_SERIES];
	char lab[MAX_SERIES][160], mlab[MAX_MARKS][96];
	struct mark marks[MAX_MARKS];
	int ns = 0, nm = 0, bytes = 0;
	for (int i = 0; i < n; i++) {
		const struct bench_result *b = find_bench(rs[i], name);
		const struct point *top = NULL;
		for (int k = 0; b && b->nreps && k < b->reps[0].npts; k++)
			if (b->reps[0].pts[k].nseries > 0)
				top = &b->reps[0].pts[k];
		if (top && top->bytes)
			bytes = 1;
	}
	for (int i = 0; i < n && ns < MAX_SERIES; i++) {
		const struct bench_result *b = find_bench(rs[i], name);
		const struct point *top = NULL;
		for (int k = 0; b && b->nreps && k < b->reps[0].npts; k++)
			if (b->reps[0].pts[k].nseries > 0)
				top = &b->reps[0].pts[k];
		if (!top || !(top->interval_s > 0))
			continue;
		int m = top->nseries;
		bx[ns] = malloc((size_t)m * sizeof(double));
		by[ns] = malloc((size_t)m * sizeof(double));
		if (!bx[ns] || !by[ns]) {
			free(bx[ns]);
			free(by[ns]);
			continue;
		}
		for (int k = 0; k < m; k++) {
			bx[ns][k] = (k + 1) * top->interval_s;
			by[ns][k] = bytes ? top->series_bytes[k] / top->interval_s / 1048576.0
					  : top->series_ops[k] / top->interval_s;
		}
		snprintf(lab[ns], sizeof(lab[ns]), "%.120s at N=%llu", labels[i], (unsigned long long)top->n);
		s[ns] = (struct series){.label = lab[ns], .color = i, .n = m, .x = bx[ns], .y = by[ns],
					.step = top->interval_s};
		ns++;
		json_t *phases = json_object_get(top->extra, "phases"), *fs = json_object_get(top->extra, "findings");
		size_t q;
		json_t *fd;
		json_array_foreach(fs, q, fd) {
			if (nm >= MAX_MARKS)
				break;
			json_t *at = json_object_get(fd, "at_s"), *len = json_object_get(fd, "length_s");
			const char *ph = json_string_value(json_object_get(fd, "phase"));
			const char *what = json_string_value(json_object_get(fd, "finding"));
			if (!json_is_number(at) || !json_is_number(len))
				continue;
			marks[nm].x0 = report_phase_start(phases, ph) + json_number_value(at);
			marks[nm].x1 = marks[nm].x0 + json_number_value(len);
			snprintf(mlab[nm], sizeof(mlab[nm]), "%.16s %.3g s%s%.24s%s", what ? what : "finding",
				 json_number_value(len), ph ? " (" : "", ph ? ph : "", ph ? ")" : "");
			marks[nm].label = mlab[nm];
			nm++;
		}
	}
	if (ns)
		svg_timeline(f, bytes ? "MiB/s per interval" : "operations/s per interval", s, ns, marks, nm);
	for (int i = 0; i < ns; i++) {
		free(bx[i]);
		free(by[i]);
	}
	return ns;
}

static void bench_failures(FILE *f, const struct run_result *const *rs,
			   const char *const *labels, int n, const char *name)
{
	int any = 0;
	for (int i = 0; i < n; i++) {
		const struct bench_result *b = find_bench(rs[i], name);
		for (int r = 0; b && r < b->nreps; r++) {
			const struct failure *fl = b->reps[r].fail;
			if (!fl)
				continue;
			fputs(any++ ? "" : "<ul class=\"fail\">", f);
			fputs("<li><b>", f);
			html_escape(f, labels[i]);
			fprintf(f, "</b> rep %d: ", r + 1);
			html_escape(f, fl->kind);
			fprintf(f, " at N=%llu during ", (unsigned long long)fl->n);
			html_escape(f, fl->phase);
			fputs(" (", f);
			html_escape(f, fl->call);
			fprintf(f, ", errno %d): ", fl->err);
			html_escape(f, fl->msg);
			fputs("</li>\n", f);
		}
		for (int k = 0; b && k < b->nnotes; k++) {
			fputs("<p class=\"skip\">note (", f);
			html_escape(f, labels[i]);
			fputs("): ", f);
			html_escape(f, b->notes[k]);
			fputs("</p>\n", f);
		}
	}
	if (any)
		fputs("</ul>\n", f);
}

int report_write_html(const struct run_result *const *inputs, const char *const *inlabels, int nin,
		      FILE *f)
{
	return report_write_html_floors(inputs, inlabels, nin, NULL, f);
}

int report_write_html_floors(const struct run_result *const *inputs, const char *const *inlabels,
			     int nin, const struct report_floors *fl, FILE *f)
{
	/* the views (shallow copies of the inputs, one per file system of a
	 * matrix result), their labels and the bench names: 60 KiB, on the heap */
	struct {
		struct run_result views[MAX_VIEWS];
		char vlab[MAX_VIEWS][LABEL_MAX], names[256][LABEL_MAX];
	} *w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	struct run_result *views = w->views;
	char (*vlab)[LABEL_MAX] = w->vlab, (*names)[LABEL_MAX] = w->names;
	const struct run_result *rs[MAX_VIEWS];
	const char *labels[MAX_VIEWS];
	int n = split_targets(inputs, inlabels, nin, views, vlab, MAX_VIEWS);
	for (int i = 0; i < n; i++) {
		rs[i] = &views[i];
		labels[i] = vlab[i];
	}
	int nn = bench_names(rs, n, names, 256);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width\">\n"
		   "<title>scalebench report</title>\n<style>%s</style></head><body>\n"
		   "<h1>scalebench report</h1>\n<p>%d result%s; generated by scalebench %s. "
		   "Times are per operation; curves show the median with a band up to p99.</p>\n",
		css, n, n == 1 ? "" : "s", SB_VERSION);
	inputs_table(f, rs, labels, n);
	report_study(f, rs, labels, n);
	fputs("<h2>Verdicts</h2>\n", f);
	verdict_table(f, rs, labels, n, names, nn);
	for (int k = 0; k < nn; k++) {
		const struct bench_result *b = NULL;
		for (int i = 0; i < n && !b; i++)
			b = find_bench(rs[i], names[k]);
		fprintf(f, "<h2 id=\"b%d\">", k);
		html_escape(f, names[k]);
		fprintf(f, " <small>v%d</small></h2>\n<p>", b->version);
		html_escape(f, b->summary);
		if (b->op_desc && *b->op_desc) {
			fputs(" &mdash; timed: <span class=\"mono\">", f);
			html_escape(f, b->op_desc);
			fputs("</span>", f);
		}
		fputs("</p>\n<div class=\"plots\"><div>", f);
		bench_curves(f, rs, labels, n, names[k], b->axis, fl);
		fputs("</div><div>", f);
		bench_histograms(f, rs, labels, n, names[k]);
		fputs("</div></div>\n", f);
		if (b->axis_kind == 1) {
			fputs("<p>A concurrency axis: the verdict is on throughput, with the Universal "
			      "Scalability Law X(N) = X(1) N / (1 + sigma (N-1) + kappa N (N-1)) fitted to "
			      "the points (solid) against the ideal line X(1) N (dashed); hollow points "
			      "had more tasks than CPUs and are left out of the fit. Latency there grows "
			      "by Little's law once something saturates.</p>\n<div class=\"plots\"><div>",
			      f);
			bench_throughput(f, rs, labels, n, names[k], b->axis);
			fputs("</div></div>\n", f);
		}
		bench_levels(f, rs, labels, n, names[k]);
		int has_series = 0;
		for (int i = 0; i < n && !has_series; i++) {
			const struct bench_result *bi = find_bench(rs[i], names[k]);
			for (int q = 0; bi && bi->nreps && q < bi->reps[0].npts; q++)
				has_series |= bi->reps[0].pts[q].nseries > 0;
		}
		const struct bench_result *bs[MAX_VIEWS];
		for (int i = 0; i < n && i < MAX_VIEWS; i++)
			bs[i] = find_bench(rs[i], names[k]);
		if (report_phase_timelines(f, bs, labels, n < MAX_VIEWS ? n : MAX_VIEWS) == 0 &&
		    has_series) {
			fputs("<p>Throughput over time at the largest N; stalls and dips found by the bench "
			      "are shaded.</p>\n<div class=\"plots\"><div>", f);
			bench_timeline(f, rs, labels, n, names[k]);
			fputs("</div></div>\n", f);
		}
		bench_failures(f, rs, labels, n, names[k]);
		for (int i = 0; i < n; i++) { /* run --profile */
			const struct bench_result *bi = find_bench(rs[i], names[k]);
			if (bi && bi->profile)
				report_profile(f, bi, n > 1 ? labels[i] : NULL);
		}
	}
	fputs("<h2>Snapshots</h2>\n", f);
	report_snapshots(f, rs, labels, n);
	fputs("</body></html>\n", f);
	free(w);
	return ferror(f) ? -1 : 0;
}

int report_write(const struct run_result *const *rs, const char *const *labels, int n,
		 const char *format, const char *path, char *err, size_t errlen)
{
	return report_write_floors(rs, labels, n, format, path, NULL, err, errlen);
}

int report_write_floors(const struct run_result *const *rs, const char *const *labels, int n,
			const char *format, const char *path, const struct report_floors *fl,
			char *err, size_t errlen)
{
	int csv = !strcmp(format, "csv");
	if (!path || !strcmp(path, "-")) {
		if (csv)
			report_write_csv(rs, labels, n, stdout);
		else
			report_write_html_floors(rs, labels, n, fl, stdout);
		if (fflush(stdout) || ferror(stdout)) {
			snprintf(err, errlen, "stdout: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	int fd = mkstemp(tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return -1;
	}
	if (csv)
		report_write_csv(rs, labels, n, f);
	else
		report_write_html_floors(rs, labels, n, fl, f);
	int bad = ferror(f) | fflush(f);
	int e = errno;
	if (fclose(f) || bad || chmod(tmp, 0644) || rename(tmp, path)) {
		e = errno ? errno : e;
		unlink(tmp);
		snprintf(err, errlen, "%s: %s", path, strerror(e ? e : EIO));
		return -1;
	}
	return 0;
}
