/* SPDX-License-Identifier: MIT */
/* The HTML report's profile of a bench (run --profile, src/core/profile.h):
 * the growth attribution and the top functions as tables, and a
 * differential flame graph in inline SVG: the call chains of the largest
 * N, root at the bottom, each frame as wide as its cost per op there,
 * coloured by how much that frame's cost grew from the smallest N (red:
 * grew, blue: shrank, grey: about the same); a frame's title says both. */
#include "out/report.h"
#include "core/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FG_WIDTH 1100.0
#define FG_ROW 16.0
#define FG_MAX_DEPTH 48
#define FG_MIN_PX 2.0 /* narrower frames are left out */

struct fnode {
	char *name;
	double large, small;
	int first, next; /* first child, next sibling: indices, -1 none */
};

struct ftree {
	struct fnode *n;
	int len, cap;
};

static int fnode_new(struct ftree *t, const char *name, size_t nlen)
{
	if (t->len == t->cap) {
		int nc = t->cap ? t->cap * 2 : 256;
		struct fnode *x = realloc(t->n, (size_t)nc * sizeof(*x));
		if (!x)
			return -1;
		t->n = x;
		t->cap = nc;
	}
	char *s = malloc(nlen + 1);
	if (!s)
		return -1;
	memcpy(s, name, nlen);
	s[nlen] = 0;
	t->n[t->len] = (struct fnode){.name = s, .first = -1, .next = -1};
	return t->len++;
}

static int fchild(struct ftree *t, int parent, const char *name, size_t nlen)
{
	for (int c = t->n[parent].first; c >= 0; c = t->n[c].next)
		if (strlen(t->n[c].name) == nlen && !strncmp(t->n[c].name, name, nlen))
			return c;
	int c = fnode_new(t, name, nlen);
	if (c < 0)
		return -1;
	t->n[c].next = t->n[parent].first;
	t->n[parent].first = c;
	return c;
}

/* Add a point's folded stacks to the tree, as its large or small cost. */
static void ftree_add(struct ftree *t, const json_t *pt, int large)
{
	size_t i;
	const json_t *s;
	json_array_foreach(json_object_get(pt, "stacks"), i, s) {
		const char *st = json_string_value(json_object_get(s, "s"));
		double ns = json_number_value(json_object_get(s, "ns"));
		if (!st || !(ns > 0))
			continue;
		int at = 0;
		if (large)
			t->n[0].large += ns;
		else
			t->n[0].small += ns;
		for (int d = 0; *st && d < FG_MAX_DEPTH; d++) {
			const char *e = strchr(st, ';');
			size_t l = e ? (size_t)(e - st) : strlen(st);
			if ((at = fchild(t, at, st, l)) < 0)
				return;
			if (large)
				t->n[at].large += ns;
			else
				t->n[at].small += ns;
			if (!e)
				break;
			st = e + 1;
		}
	}
}

static int depth_of(const struct ftree *t, int at, double scale)
{
	int best = 0;
	for (int c = t->n[at].first; c >= 0; c = t->n[c].next)
		if (t->n[c].large * scale >= FG_MIN_PX) {
			int d = depth_of(t, c, scale);
			if (d > best)
				best = d;
		}
	return best + 1;
}

static void frame(FILE *f, const struct ftree *t, int at, double x, int depth, int maxd, double scale,
		  double dmax)
{
	const struct fnode *nd = &t->n[at];
	double w = nd->large * scale;
	if (w < FG_MIN_PX || depth >= maxd)
		return;
	double y = (double)(maxd - depth - 1) * FG_ROW, d = nd->large - nd->small;
	double r = dmax > 0 ? d / dmax : 0; /* -1 .. 1 */
	int red = 235, green = 235, blue = 235;
	if (r > 0.02) {
		red = 255;
		green = blue = (int)(235 - 175 * (r > 1 ? 1 : r));
	} else if (r < -0.02) {
		blue = 255;
		red = green = (int)(235 - 175 * (r < -1 ? 1 : -r));
	}
	char a[32], b[32], c[32];
	fputs("<g><title>", f);
	html_escape(f, nd->name);
	fprintf(f, ": %s/op at the large N, %s/op at the small (%s%s)</title>",
		fmt_ns(nd->large, a, sizeof(a)), fmt_ns(nd->small, b, sizeof(b)), d >= 0 ? "+" : "",
		fmt_ns(d, c, sizeof(c)));
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"rgb(%d,%d,%d)\" "
		   "stroke=\"#fff\" stroke-width=\"0.5\"/>",
		x, y, w, FG_ROW - 1, red, green, blue);
	if (w > 40) {
		size_t max = (size_t)((w - 4) / 6.5);
		char lab[200];
		snprintf(lab, sizeof(lab), "%s", nd->name);
		if (strlen(lab) > max && max > 2) {
			lab[max - 2] = '.';
			lab[max - 1] = '.';
			lab[max] = 0;
		}
		if (strlen(lab) <= max) {
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", x + 2, y + FG_ROW - 4);
			html_escape(f, lab);
			fputs("</text>", f);
		}
	}
	fputs("</g>\n", f);
	for (int ch = nd->first; ch >= 0; ch = t->n[ch].next) {
		frame(f, t, ch, x, depth + 1, maxd, scale, dmax);
		x += t->n[ch].large * scale;
	}
}

static double max_delta(const struct ftree *t)
{
	double m = 0;
	for (int i = 1; i < t->len; i++) {
		double d = fabs(t->n[i].large - t->n[i].small);
		if (d > m)
			m = d;
	}
	return m;
}

static void flame_graph(FILE *f, const json_t *small, const json_t *large)
{
	struct ftree t = {0};
	if (fnode_new(&t, "all", 3) < 0)
		return;
	ftree_add(&t, large, 1);
	ftree_add(&t, small, 0);
	if (t.n[0].large > 0) {
		double scale = FG_WIDTH / t.n[0].large;
		int maxd = depth_of(&t, 0, scale);
		if (maxd > FG_MAX_DEPTH)
			maxd = FG_MAX_DEPTH;
		fprintf(f, "<svg class=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
			   "font-family=\"sans-serif\">\n",
			FG_WIDTH, (double)maxd * FG_ROW);
		frame(f, &t, 0, 0, 0, maxd, scale, max_delta(&t));
		fputs("</svg>\n", f);
	}
	for (int i = 0; i < t.len; i++)
		free(t.n[i].name);
	free(t.n);
}

static void num_cell(FILE *f, double ns)
{
	char a[32];
	fprintf(f, "<td>%s</td>", fmt_ns(ns, a, sizeof(a)));
}

void report_profile(FILE *f, const struct bench_result *b, const char *label)
{
	const json_t *pf = b->profile;
	if (!pf)
		return;
	fputs("<h3>Profile", f);
	if (label && *label) {
		fputs(" &mdash; ", f);
		html_escape(f, label);
	}
	fputs("</h3>\n", f);
	const char *un = json_string_value(json_object_get(pf, "unavailable"));
	if (un) {
		fputs("<p class=\"skip\">Profile unavailable: ", f);
		html_escape(f, un);
		fputs("</p>\n", f);
		return;
	}
	const json_t *pts = json_object_get(pf, "points");
	size_t np = json_array_size(pts);
	const char *unit = b->unit ? b->unit : "op";
	json_int_t period = json_integer_value(json_object_get(pf, "period_ns"));
	fprintf(f, "<p>Sampled with %s every %lld ns of CPU (a whole workload: its timed point "
		   "itself, less often, as given beside its samples), in the timed regions only, until %u samples or the "
		   "point's time; &plusmn;: the widest 95%% interval of a share, in points; cost per "
		   "%s = share of the samples &times; the timed point's CPU per %s (docs/method.md, "
		   "Profiles).</p>\n",
		json_string_value(json_object_get(pf, "event")), (long long)period,
		PROFILE_TARGET_SAMPLES, unit, unit);
	fputs("<table class=\"prof\"><tr><th>N</th><th>samples</th><th>CPU/op</th><th>wall/op</th>"
	      "<th>off-CPU/op</th><th>switches/op</th><th>unknown</th><th>sides: CPU/op</th></tr>\n",
	      f);
	for (size_t i = 0; i < np; i++) {
		const json_t *p = json_array_get(pts, i);
		fprintf(f, "<tr><td>%lld</td><td>%lld",
			(long long)json_integer_value(json_object_get(p, "n")),
			(long long)json_integer_value(json_object_get(p, "samples")));
		double ci = json_number_value(json_object_get(p, "share_ci95"));
		if (ci > 0)
			fprintf(f, " &plusmn;%.1f", 100 * ci);
		json_int_t pp = json_integer_value(json_object_get(p, "period_ns"));
		if (pp > 0 && pp != period) {
			char a[32];
			fprintf(f, ", every %s", fmt_ns((double)pp, a, sizeof(a)));
		}
		if (json_is_true(json_object_get(p, "in_timed_point")))
			fputs(", in the timed point", f);
		fputs("</td>", f);
		num_cell(f, json_number_value(json_object_get(p, "cpu_per_op_ns")));
		num_cell(f, json_number_value(json_object_get(p, "wall_per_op_ns")));
		num_cell(f, json_number_value(json_object_get(p, "off_cpu_per_op_ns")));
		fprintf(f, "<td>%.3g</td><td>%lld</td><td>",
			json_number_value(json_object_get(p, "csw_per_op")),
			(long long)json_integer_value(json_object_get(p, "unknown")));
		size_t k;
		const json_t *s;
		json_array_foreach(json_object_get(p, "sides"), k, s) {
			char a[32];
			if (k)
				fputs(", ", f);
			html_escape(f, json_string_value(json_object_get(s, "side")));
			fprintf(f, " %s", fmt_ns(json_number_value(json_object_get(s, "cpu_per_op_ns")), a,
						 sizeof(a)));
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	const json_t *g = profile_growth(pf);
	if (g) {
		char a[32];
		fprintf(f, "<p>Growth from N=%lld to N=%lld: CPU per %s %s%s; ",
			(long long)json_integer_value(json_object_get(g, "from_n")),
			(long long)json_integer_value(json_object_get(g, "to_n")), unit,
			json_number_value(json_object_get(g, "delta_ns")) >= 0 ? "+" : "",
			fmt_ns(json_number_value(json_object_get(g, "delta_ns")), a, sizeof(a)));
		double ex = json_number_value(json_object_get(g, "explained"));
		if (json_array_size(json_object_get(g, "attribution")))
			fprintf(f, "the functions named explain %.0f%% of it.</p>\n", 100 * ex);
		else
			fputs("no function explains it.</p>\n", f);
		fputs("<table class=\"prof\"><tr><th>function</th><th>growth/op</th><th>share at small N</th>"
		      "<th>share at large N</th><th>attribution</th></tr>\n",
		      f);
		size_t k;
		const json_t *e;
		const json_t *attr = json_object_get(g, "attribution");
		json_array_foreach(json_object_get(g, "functions"), k, e) {
			if (k >= 12)
				break;
			const char *nm = json_string_value(json_object_get(e, "name"));
			int named = 0;
			size_t q;
			const json_t *x;
			json_array_foreach(attr, q, x) named |= !strcmp(json_string_value(json_object_get(x, "name")), nm);
			fputs(named ? "<tr class=\"diff\"><td class=\"mono\">" : "<tr><td class=\"mono\">", f);
			html_escape(f, nm);
			fputs("</td>", f);
			num_cell(f, json_number_value(json_object_get(e, "delta_ns")));
			fprintf(f, "<td>%.1f%%</td><td>%.1f%%</td><td>%s</td></tr>\n",
				100 * json_number_value(json_object_get(e, "share_from")),
				100 * json_number_value(json_object_get(e, "share_to")), named ? "named" : "");
		}
		json_array_foreach(attr, k, e) { /* named ones beyond the top of the list */
			const char *nm = json_string_value(json_object_get(e, "name"));
			int shown = 0;
			size_t q;
			const json_t *x;
			json_array_foreach(json_object_get(g, "functions"), q, x) {
				if (q >= 12)
					break;
				shown |= !strcmp(json_string_value(json_object_get(x, "name")), nm);
			}
			if (shown)
				continue;
			fputs("<tr class=\"diff\"><td class=\"mono\">", f);
			html_escape(f, nm);
			fputs("</td>", f);
			num_cell(f, json_number_value(json_object_get(e, "delta_ns")));
			fprintf(f, "<td>%.1f%%</td><td>%.1f%%</td><td>named</td></tr>\n",
				100 * json_number_value(json_object_get(e, "share_from")),
				100 * json_number_value(json_object_get(e, "share_to")));
		}
		fputs("</table>\n", f);
	}
	if (np) { /* the top functions at the largest N */
		const json_t *p = json_array_get(pts, np - 1);
		fprintf(f, "<p>Top functions at N=%lld (inclusive share, self share, cost per %s):</p>\n"
			   "<table class=\"prof\"><tr><th>function</th><th>inclusive</th><th>self</th>"
			   "<th>inclusive/op</th><th>self/op</th></tr>\n",
			(long long)json_integer_value(json_object_get(p, "n")), unit);
		size_t k;
		const json_t *e;
		json_array_foreach(json_object_get(p, "functions"), k, e) {
			if (k >= 15)
				break;
			fputs("<tr><td class=\"mono\">", f);
			html_escape(f, json_string_value(json_object_get(e, "name")));
			fprintf(f, "</td><td>%.1f%%</td><td>%.1f%%</td>",
				100 * json_number_value(json_object_get(e, "share")),
				100 * json_number_value(json_object_get(e, "self_share")));
			num_cell(f, json_number_value(json_object_get(e, "ns_per_op")));
			num_cell(f, json_number_value(json_object_get(e, "self_ns_per_op")));
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	if (np >= 2) {
		fputs("<p>Differential flame graph: the call chains at the largest N (root at the bottom, "
		      "each frame as wide as its cost per op there), red where the frame's cost grew "
		      "from the smallest N, blue where it shrank; hover a frame for both.</p>\n",
		      f);
		flame_graph(f, json_array_get(pts, 0), json_array_get(pts, np - 1));
	}
}
