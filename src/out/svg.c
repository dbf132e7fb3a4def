/* SPDX-License-Identifier: MIT */
/* SVG plots for the HTML report: a log-log line plot with an optional
 * shaded band per series, and latency-distribution step plots. Drawn by
 * hand (no library, nothing fetched): axes with 1-2-5 ticks, a legend
 * below the plot, every text escaped. Coordinates in px of a 760x330 view
 * box that the page scales to its width. */
#include "out/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 760.0
#define PL 78.0  /* plot area: left, right, top, bottom edges */
#define PR 740.0
#define PT 16.0
#define PB 274.0
#define HEIGHT 346.0
#define LEGEND_LINE 20.0

/* ten colours: a matrix of every file system the 2006 study makes has ten */
static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				      "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};

const char *svg_color(int i)
{
	return palette[(unsigned)i % (sizeof(palette) / sizeof(palette[0]))];
}

struct axis {
	double lo, hi; /* data range, log10 when log */
	int log;
	double p0, p1; /* pixel range */
};

static double to_px(const struct axis *a, double v)
{
	double t = a->log ? log10(v) : v;
	return a->p0 + (t - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

/* Log range over positive finite values, padded; 0 if there are none. */
static int log_range(struct axis *a, double mn, double mx, double pad)
{
	if (!(mn > 0) || !isfinite(mx) || mx < mn)
		return 0;
	a->lo = log10(mn / pad);
	a->hi = log10(mx * pad);
	if (!isfinite(a->lo) || !isfinite(a->hi)) /* 1e308 * pad: no axis */
		return 0;
	if (a->hi - a->lo < 0.3) { /* at least a factor of 2 */
		double mid = (a->hi + a->lo) / 2;
		a->lo = mid - 0.15;
		a->hi = mid + 0.15;
	}
	a->log = 1;
	return 1;
}

static void fmt_count(double v, char *buf, size_t len)
{
	if (v >= 1e6)
		snprintf(buf, len, "%gM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%gk", v / 1e3);
	else
		snprintf(buf, len, "%g", v);
}

static int count_ticks(const struct axis *a, const double *m, int nm)
{
	int count = 0;
	for (int k = (int)floor(a->lo) - 1; k <= (int)ceil(a->hi); k++)
		for (int i = 0; i < nm; i++) {
			double t = log10(m[i] * pow(10, k));
			count += t >= a->lo && t <= a->hi;
		}
	return count;
}

/* Ticks at m * 10^k: m in {1,2,5}; only powers of ten when that gives more
 * than 8 ticks; 1..9, or 1.0..9.8 by 0.2, when it gives fewer than 3. */
static void log_ticks(FILE *f, const struct axis *a, int vertical, int ns_units)
{
	static const double decade[] = {1}, coarse[] = {1, 2, 5}, mid[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	double fine[45];
	for (int i = 0; i < 45; i++)
		fine[i] = 1 + 0.2 * i;
	const double *m = coarse;
	int nm = 3, c = count_ticks(a, coarse, 3);
	if (c > 8) {
		m = decade;
		nm = 1;
	} else if (c < 3) {
		m = mid;
		nm = 9;
		if (count_ticks(a, mid, 9) < 2) {
			m = fine;
			nm = 45;
		}
	}
	for (int k = (int)floor(a->lo) - 1; k <= (int)ceil(a->hi); k++)
		for (int i = 0; i < nm; i++) {
			double v = m[i] * pow(10, k), t = log10(v);
			if (t < a->lo || t > a->hi)
				continue;
			char lab[32];
			if (ns_units)
				fmt_ns(v, lab, sizeof(lab));
			else
				fmt_count(v, lab, sizeof(lab));
			double p = to_px(a, v);
			if (vertical)
				fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
					   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
					PL, p, PR, p, PL - 6, p + 5, lab);
			else
				fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
					   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
					p, PT, p, PB, p, PB + 19, lab);
		}
}

static void frame(FILE *f, int nlegend, const char *xlabel, const char *ylabel)
{
	double h = HEIGHT + nlegend * LEGEND_LINE;
	fprintf(f, "<svg class=\"plot\" viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\" "
		   "role=\"img\">\n<rect class=\"bg\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		   "height=\"%.1f\"/>\n",
		W, h, PL, PT, PR - PL, PB - PT);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (PL + PR) / 2, PB + 42);
	html_escape(f, xlabel);
	fprintf(f, "</text>\n<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
		   "transform=\"rotate(-90 14 %.1f)\">",
		(PT + PB) / 2, (PT + PB) / 2);
	html_escape(f, ylabel);
	fputs("</text>\n", f);
}

static void legend(FILE *f, const struct series *s, int ns)
{
	for (int i = 0; i < ns; i++) {
		double y = HEIGHT + i * LEGEND_LINE - 6;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			   "stroke-width=\"3\"%s/><text x=\"%.1f\" y=\"%.1f\">",
			PL, y, PL + 28, y, svg_color(s[i].color),
			s[i].dashed ? " stroke-dasharray=\"6 4\"" : "", PL + 36, y + 4);
		html_escape(f, s[i].label);
		fprintf(f, "</text>\n");
	}
}

void svg_loglog(FILE *f, const char *xlabel, const struct series *s, int ns)
{
	double xmn = INFINITY, xmx = -INFINITY, ymn = INFINITY, ymx = -INFINITY;
	for (int i = 0; i < ns; i++)
		for (int k = 0; k < s[i].n; k++) {
			double x = s[i].x[k], y = s[i].y[k], b = s[i].band ? s[i].band[k] : y;
			if (!(x > 0) || !(y > 0) || !isfinite(x) || !isfinite(y))
				continue;
			xmn = fmin(xmn, x);
			xmx = fmax(xmx, x);
			ymn = fmin(ymn, y);
			ymx = fmax(ymx, isfinite(b) && b > y ? b : y);
		}
	struct axis ax = {.p0 = PL, .p1 = PR}, ay = {.p0 = PB, .p1 = PT};
	frame(f, ns, xlabel, "time per operation (median; band up to p99)");
	if (!log_range(&ax, xmn, xmx, 1.15) || !log_range(&ay, ymn, ymx, 1.25)) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no points to "
			   "plot</text>\n</svg>\n", (PL + PR) / 2, (PT + PB) / 2);
		return;
	}
	log_ticks(f, &ax, 0, 0);
	log_ticks(f, &ay, 1, 1);
	for (int i = 0; i < ns; i++) { /* noise floor bands first, under every line */
		if (!(s[i].floor > 0) || !s[i].floor_y)
			continue;
		fprintf(f, "<polygon class=\"floor\" fill=\"#888\" fill-opacity=\"0.22\" "
			   "stroke=\"#555\" stroke-dasharray=\"2 3\" points=\"");
		for (int k = 0; k < s[i].n; k++)
			if (s[i].x[k] > 0 && s[i].floor_y[k] > 0 && isfinite(s[i].floor_y[k]))
				fprintf(f, "%.1f,%.1f ", to_px(&ax, s[i].x[k]),
					to_px(&ay, s[i].floor_y[k] * (1 + s[i].floor)));
		for (int k = s[i].n - 1; k >= 0; k--)
			if (s[i].x[k] > 0 && s[i].floor_y[k] > 0 && isfinite(s[i].floor_y[k]))
				fprintf(f, "%.1f,%.1f ", to_px(&ax, s[i].x[k]),
					to_px(&ay, s[i].floor_y[k] / (1 + s[i].floor)));
		fprintf(f, "\"/>\n");
	}
	for (int i = 0; i < ns; i++) {
		const char *c = svg_color(s[i].color);
		if (s[i].band) { /* p50 forwards, p99 backwards */
			fprintf(f, "<polygon fill=\"%s\" fill-opacity=\"0.13\" stroke=\"none\" points=\"", c);
			for (int k = 0; k < s[i].n; k++)
				if (s[i].x[k] > 0 && s[i].y[k] > 0 && isfinite(s[i].y[k]))
					fprintf(f, "%.1f,%.1f ", to_px(&ax, s[i].x[k]), to_px(&ay, s[i].y[k]));
			for (int k = s[i].n - 1; k >= 0; k--)
				if (s[i].x[k] > 0 && s[i].band[k] > 0 && isfinite(s[i].band[k]))
					fprintf(f, "%.1f,%.1f ", to_px(&ax, s[i].x[k]), to_px(&ay, s[i].band[k]));
			fprintf(f, "\"/>\n");
		}
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.2\"%s points=\"", c,
			s[i].dashed ? " stroke-dasharray=\"6 4\"" : "");
		for (int k = 0; k < s[i].n; k++)
			if (s[i].x[k] > 0 && s[i].y[k] > 0 && isfinite(s[i].y[k]))
				fprintf(f, "%.1f,%.1f ", to_px(&ax, s[i].x[k]), to_px(&ay, s[i].y[k]));
		fprintf(f, "\"/>\n");
		for (int k = 0; k < s[i].n; k++)
			if (s[i].x[k] > 0 && s[i].y[k] > 0 && isfinite(s[i].y[k]))
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>",
					to_px(&ax, s[i].x[k]), to_px(&ay, s[i].y[k]), c);
		fprintf(f, "\n");
	}
	legend(f, s, ns);
	fprintf(f, "</svg>\n");
}

#define HBINS_PER_OCTAVE 12
#define HMAX 4096

struct xy { double x, y; };

/* A series' share of samples in each of nb coarse bins (HBINS_PER_OCTAVE
 * per factor of two, bin 0 at b0), added to share[0..nb); the clipped
 * tails go to the end bins. */
static void bin_shares(const struct series *s, double b0, int nb, double *share)
{
	double tot = 0;
	for (int k = 0; k < s->n; k++)
		tot += s->y[k] > 0 ? s->y[k] : 0;
	for (int k = 0; k < s->n && tot > 0; k++) {
		if (!(s->x[k] > 0) || !(s->y[k] > 0))
			continue;
		int b = (int)floor(log2(s->x[k]) * HBINS_PER_OCTAVE - b0);
		b = b < 0 ? 0 : b >= nb ? nb - 1 : b;
		share[b] += s->y[k] / tot;
	}
}

static int cmp_x(const void *a, const void *b)
{
	double x = ((const struct xy *)a)->x, y = ((const struct xy *)b)->x;
	return x < y ? -1 : x > y;
}

/* The smallest x below which a share q of series s's counts lie. */
static double series_quantile(const struct series *s, double q)
{
	struct xy *v = malloc(((size_t)s->n + 1) * sizeof(*v));
	double tot = 0, seen = 0, best = NAN;
	int m = 0;
	if (!v)
		return NAN;
	for (int k = 0; k < s->n; k++)
		if (s->y[k] > 0 && s->x[k] > 0) {
			v[m++] = (struct xy){s->x[k], s->y[k]};
			tot += s->y[k];
		}
	qsort(v, (size_t)m, sizeof(*v), cmp_x);
	for (int k = 0; k < m && isnan(best); k++) {
		seen += v[k].y;
		if (seen >= q * tot)
			best = v[k].x;
	}
	free(v);
	return best;
}

void svg_histogram(FILE *f, const struct series *s, int ns)
{
	/* the range holds 99.8% of every series: one stray sample 1000 times
	 * the median would otherwise squeeze the distribution into a line */
	double xmn = INFINITY, xmx = -INFINITY;
	for (int i = 0; i < ns; i++) {
		double lo = series_quantile(&s[i], 0.001), hi = series_quantile(&s[i], 0.999);
		if (lo > 0 && isfinite(hi)) {
			xmn = fmin(xmn, lo);
			xmx = fmax(xmx, hi * 1.1);
		}
	}
	struct axis ax = {.p0 = PL, .p1 = PR}, ay = {.lo = 0, .p0 = PB, .p1 = PT};
	frame(f, ns, "time per operation", "share of samples");
	if (!log_range(&ax, xmn, xmx, 1.1)) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no samples</text>\n"
			   "</svg>\n", (PL + PR) / 2, (PT + PB) / 2);
		return;
	}
	/* coarse bins: HBINS_PER_OCTAVE per factor of two from the axis' low end */
	double b0 = ax.lo * log2(10) * HBINS_PER_OCTAVE;
	int nb = (int)ceil((ax.hi - ax.lo) * log2(10) * HBINS_PER_OCTAVE) + 1;
	if (nb > HMAX)
		nb = HMAX;
	double *share = calloc((size_t)ns * (size_t)nb, sizeof(double));
	if (!share) {
		fprintf(f, "</svg>\n");
		return;
	}
	double top = 0;
	for (int i = 0; i < ns; i++) {
		bin_shares(&s[i], b0, nb, share + (size_t)i * (size_t)nb);
		for (int b = 0; b < nb; b++)
			top = fmax(top, share[i * nb + b]);
	}
	/* y ticks at a 1-2-5 step giving about 4 lines */
	double step = top > 0 ? pow(10, floor(log10(top / 4))) : 0.25;
	if (top / step > 20)
		step *= 5;
	else if (top / step > 8)
		step *= 2;
	ay.hi = top > 0 ? ceil(top * 1.05 / step) * step : 1;
	for (int t = 0; t * step <= ay.hi + 1e-12; t++) {
		double v = t * step, p = to_px(&ay, v);
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.3g%%</text>\n",
			PL, p, PR, p, PL - 6, p + 4, v * 100);
	}
	log_ticks(f, &ax, 0, 1);
	for (int i = 0; i < ns; i++) {
		fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.10\" stroke=\"%s\" stroke-width=\"1.8\"%s d=\"M%.1f,%.1f",
			svg_color(s[i].color), svg_color(s[i].color),
			s[i].dashed ? " stroke-dasharray=\"6 4\"" : "", PL, PB);
		for (int b = 0; b < nb; b++) {
			double x0 = pow(2, (b + b0) / HBINS_PER_OCTAVE), x1 = pow(2, (b + 1 + b0) / HBINS_PER_OCTAVE);
			double y = to_px(&ay, share[i * nb + b]);
			fprintf(f, " L%.1f,%.1f L%.1f,%.1f", fmin(to_px(&ax, x0), PR), y,
				fmin(to_px(&ax, x1), PR), y);
		}
		fprintf(f, " L%.1f,%.1f Z\"/>\n", PR, PB);
	}
	free(share);
	legend(f, s, ns);
	fprintf(f, "</svg>\n");
}

void svg_histogram_tail(FILE *f, const struct series *s, int ns, const struct vmark *m, int nm)
{
	double xmn = INFINITY, xmx = -INFINITY, most = 0;
	for (int i = 0; i < ns; i++) {
		double tot = 0;
		for (int k = 0; k < s[i].n; k++)
			if (s[i].x[k] > 0 && s[i].y[k] > 0) {
				xmn = fmin(xmn, s[i].x[k]);
				xmx = fmax(xmx, s[i].x[k]);
				tot += s[i].y[k];
			}
		most = fmax(most, tot);
	}
	for (int i = 0; i < nm; i++)
		if (m[i].x > 0 && isfinite(m[i].x)) {
			xmn = fmin(xmn, m[i].x);
			xmx = fmax(xmx, m[i].x);
		}
	struct axis ax = {.p0 = PL, .p1 = PR}, ay = {.p0 = PB, .p1 = PT};
	frame(f, ns, "latency (log)", "share of samples (log)");
	if (!(most > 0) || !log_range(&ax, xmn, xmx, 1.3) || !log_range(&ay, 0.5 / most, 1, 1.0)) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no samples</text>\n"
			   "</svg>\n", (PL + PR) / 2, (PT + PB) / 2);
		return;
	}
	ay.hi = 0; /* 100% at the top */
	double b0 = ax.lo * log2(10) * HBINS_PER_OCTAVE;
	int nb = (int)ceil((ax.hi - ax.lo) * log2(10) * HBINS_PER_OCTAVE) + 1;
	if (nb > HMAX)
		nb = HMAX;
	double *share = calloc((size_t)nb, sizeof(double));
	if (!share) {
		fprintf(f, "</svg>\n");
		return;
	}
	log_ticks(f, &ay, 1, 0);
	log_ticks(f, &ax, 0, 1);
	for (int i = 0; i < ns; i++) {
		memset(share, 0, (size_t)nb * sizeof(double));
		bin_shares(&s[i], b0, nb, share);
		fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s d=\"",
			svg_color(s[i].color), s[i].dashed ? " stroke-dasharray=\"6 4\"" : "");
		char cmd = 'M';
		for (int b = 0; b < nb; b++) {
			double x0 = fmin(to_px(&ax, pow(2, (b + b0) / HBINS_PER_OCTAVE)), PR);
			double x1 = fmin(to_px(&ax, pow(2, (b + 1 + b0) / HBINS_PER_OCTAVE)), PR);
			double y = share[b] > 0 ? fmax(fmin(to_px(&ay, share[b]), PB), PT) : PB;
			fprintf(f, "%c%.1f,%.1f L%.1f,%.1f ", cmd, x0, y, x1, y);
			cmd = 'L';
		}
		fputs("\"/>\n", f);
	}
	free(share);
	for (int i = 0; i < nm; i++) {
		if (!(m[i].x > 0) || !isfinite(m[i].x))
			continue;
		double x = to_px(&ax, m[i].x);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			   "stroke-width=\"%s\"%s/>\n", x, PT, x, PB,
			m[i].color < 0 ? "#000" : svg_color(m[i].color), m[i].color < 0 ? "2" : "1.2",
			m[i].dashed ? " stroke-dasharray=\"4 3\"" : "");
		if (m[i].label) {
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x - 3, PT + 14);
			html_escape(f, m[i].label);
			fputs("</text>\n", f);
		}
	}
	legend(f, s, ns);
	fprintf(f, "</svg>\n");
}

/* Linear ticks: about 5 at 1, 2 or 5 x 10^k. */
static void lin_ticks(FILE *f, const struct axis *a, int vertical)
{
	double span = a->hi - a->lo, raw = span / 5, mag = pow(10, floor(log10(raw)));
	double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
	for (double v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9; v += step) {
		char lab[32];
		fmt_count(fabs(v) < step * 1e-9 ? 0 : v, lab, sizeof(lab));
		double p = to_px(a, v);
		if (vertical)
			fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
				   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
				PL, p, PR, p, PL - 6, p + 5, lab);
		else
			fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
				   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
				p, PT, p, PB, p, PB + 19, lab);
	}
}

void svg_timeline(FILE *f, const char *ylabel, const struct series *s, int ns,
		  const struct mark *marks, int nm)
{
	double xmx = 0, ymx = 0;
	for (int i = 0; i < ns; i++)
		for (int k = 0; k < s[i].n; k++) {
			if (isfinite(s[i].x[k]) && s[i].x[k] > xmx)
				xmx = s[i].x[k];
			if (isfinite(s[i].y[k]) && s[i].y[k] > ymx)
				ymx = s[i].y[k];
		}
	for (int i = 0; i < nm; i++)
		if (isfinite(marks[i].x1) && marks[i].x1 > xmx)
			xmx = marks[i].x1;
	frame(f, ns, "time into the point (s)", ylabel);
	if (!(xmx > 0) || !(ymx > 0) || !isfinite(ymx)) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">nothing to plot</text>\n"
			   "</svg>\n", (PL + PR) / 2, (PT + PB) / 2);
		return;
	}
	struct axis ax = {.lo = 0, .hi = xmx * 1.02, .p0 = PL, .p1 = PR};
	struct axis ay = {.lo = 0, .hi = ymx * 1.1, .p0 = PB, .p1 = PT};
	for (int i = 0; i < nm; i++) { /* marked spans first, under the lines */
		double a = to_px(&ax, fmax(0, marks[i].x0)), b = to_px(&ax, fmin(ax.hi, marks[i].x1));
		if (!(b > a))
			b = a + 2;
		fprintf(f, "<rect class=\"stall\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			   "fill=\"#ffb3b3\" fill-opacity=\"0.6\"><title>", a, PT, b - a, PB - PT);
		html_escape(f, marks[i].label);
		fprintf(f, "</title></rect>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#b00\">",
			a + 2, PT + 12 + 12 * (i % 3));
		html_escape(f, marks[i].label);
		fputs("</text>\n", f);
	}
	lin_ticks(f, &ax, 0);
	lin_ticks(f, &ay, 1);
	for (int i = 0; i < ns; i++) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s points=\"",
			svg_color(s[i].color), s[i].dashed ? " stroke-dasharray=\"5 3\"" : "");
		for (int k = 0; k < s[i].n; k++) /* steps: each interval's value across it */
			if (isfinite(s[i].y[k]))
				fprintf(f, "%.1f,%.1f %.1f,%.1f ", to_px(&ax, s[i].x[k] - s[i].step),
					to_px(&ay, s[i].y[k]), to_px(&ax, s[i].x[k]), to_px(&ay, s[i].y[k]));
		fputs("\"/>\n", f);
	}
	legend(f, s, ns);
	fputs("</svg>\n", f);
}

/* Throughput against N, linear axes from 0 (the shape the USL is read
 * in): each series' measured points as dots; a fitted series (fitted set)
 * adds its USL curve, solid, and the ideal line X(1)*N, dashed, clipped at
 * the top of the plot. Legend: one line per series. */
void svg_throughput(FILE *f, const char *xlabel, const char *ylabel, const struct tput_series *s,
		    int ns)
{
	double xmx = 0, ymx = 0;
	for (int i = 0; i < ns; i++)
		for (int k = 0; k < s[i].n; k++) {
			if (isfinite(s[i].x[k]) && s[i].x[k] > xmx)
				xmx = s[i].x[k];
			if (isfinite(s[i].y[k]) && s[i].y[k] > ymx)
				ymx = s[i].y[k];
		}
	struct series lg[2 * 16];
	int nl = 0;
	for (int i = 0; i < ns && nl < 2 * 16 - 1; i++) {
		lg[nl++] = (struct series){.label = s[i].label, .color = s[i].color};
		if (s[i].fitted)
			lg[nl++] = (struct series){.label = "ideal: X(1) * N", .color = s[i].color,
						   .dashed = 1};
	}
	frame(f, nl, xlabel, ylabel);
	if (!(xmx > 0) || !(ymx > 0) || !isfinite(ymx)) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">nothing to plot</text>\n"
			   "</svg>\n", (PL + PR) / 2, (PT + PB) / 2);
		return;
	}
	struct axis ax = {.lo = 0, .hi = xmx * 1.05, .p0 = PL, .p1 = PR};
	struct axis ay = {.lo = 0, .hi = ymx * 1.15, .p0 = PB, .p1 = PT};
	lin_ticks(f, &ax, 0);
	lin_ticks(f, &ay, 1);
	for (int i = 0; i < ns; i++) {
		const char *c = svg_color(s[i].color);
		if (s[i].fitted && s[i].lambda > 0) {
			double top = fmin(xmx, ay.hi / s[i].lambda); /* ideal line, clipped */
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				   "stroke-width=\"1.4\" stroke-dasharray=\"6 4\"/>\n",
				to_px(&ax, 0), to_px(&ay, 0), to_px(&ax, top), to_px(&ay, top * s[i].lambda),
				c);
			fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
			for (int k = 0; k <= 200; k++) {
				double n = 1 + (xmx - 1) * k / 200.0;
				double d = 1 + s[i].sigma * (n - 1) + s[i].kappa * n * (n - 1);
				double y = d > 0 ? s[i].lambda * n / d : NAN;
				if (isfinite(y) && y >= 0 && y <= ay.hi)
					fprintf(f, "%.1f,%.1f ", to_px(&ax, n), to_px(&ay, y));
			}
			fputs("\"/>\n", f);
		}
		for (int k = 0; k < s[i].n; k++)
			if (isfinite(s[i].x[k]) && isfinite(s[i].y[k]))
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.2\" fill=\"%s\"%s/>",
					to_px(&ax, s[i].x[k]), to_px(&ay, s[i].y[k]),
					s[i].over && s[i].over[k] ? "none" : c,
					s[i].over && s[i].over[k] ? " stroke=\"#555\"" : "");
		fputs("\n", f);
	}
	legend(f, lg, nl);
	fputs("</svg>\n", f);
}
