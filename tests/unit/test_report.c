/* SPDX-License-Identifier: MIT */
/* Escaping on the way out: HTML/SVG text and CSV fields, with hostile
 * strings; and a report over a result with hostile names stays inert and
 * self-contained. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "out/report.h"
#include "t.h"
#include "core/verdict.h"

typedef void (*esc_fn)(FILE *, const char *);

static char *run_esc(esc_fn fn, const char *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fn(f, in);
	fclose(f);
	return buf;
}

static void expect(esc_fn fn, const char *in, const char *want)
{
	char *got = run_esc(fn, in);
	CHECK(!strcmp(got, want), "'%s' -> '%s', want '%s'", in, got, want);
	free(got);
}

static char *html_of(const struct run_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const struct run_result *rs[] = {r, r};
	const char *labels[] = {"<b>one</b>", "two&\"three\""};
	CHECK(report_write_html(rs, labels, 2, f) == 0, "html written");
	fclose(f);
	return buf;
}

int main(void)
{
	/* HTML */
	expect(html_escape, "plain", "plain");
	expect(html_escape, "<script>alert('x')</script>",
	       "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
	expect(html_escape, "a & b \"c\"", "a &amp; b &quot;c&quot;");
	expect(html_escape, "tab\there\nnl", "tab\there\nnl");
	expect(html_escape, "bell\a esc\x1b del\x7f", "bell\xef\xbf\xbd esc\xef\xbf\xbd del\xef\xbf\xbd");
	expect(html_escape, "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac"); /* valid UTF-8 kept */
	expect(html_escape, "bad \xc3( \xff \xc0\xaf", "bad \xef\xbf\xbd( \xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
	expect(html_escape, "", "");
	expect(html_escape, NULL, "");

	/* CSV */
	expect(csv_field, "fs.create", "fs.create");
	expect(csv_field, "a,b", "\"a,b\"");
	expect(csv_field, "say \"hi\"", "\"say \"\"hi\"\"\"");
	expect(csv_field, "two\nlines", "\"two\nlines\"");
	expect(csv_field, "=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\"");
	expect(csv_field, "+1", "\"'+1\"");
	expect(csv_field, "-cmd", "\"'-cmd\"");
	expect(csv_field, "@SUM(A1)", "\"'@SUM(A1)\"");
	expect(csv_field, "", "");
	expect(csv_field, NULL, "");

	/* a result whose strings are hostile */
	struct run_result r;
	memset(&r, 0, sizeof(r));
	r.schema_version = SB_SCHEMA_VERSION;
	r.tool_version = strdup("1<2");
	r.host = strdup("<img src=x onerror=alert(1)>");
	r.started = strdup("2026-12-03T08:00:00Z");
	r.snapshot = json_pack("{s:{s:s},s:s}", "kernel", "release", "</td><script>x</script>",
			       "weird\"key<", "v");
	struct bench_result *b = result_add_bench(&r);
	b->name = strdup("fs.<svg onload=alert(1)>");
	b->summary = strdup("a & b");
	b->axis = strdup("</text><script>");
	b->version = 1;
	struct repetition *rep = bench_add_rep(b);
	struct hist *h = hist_new();
	for (int i = 0; i < 4; i++) {
		struct point *p = rep_add_point(rep);
		hist_reset(h);
		for (int k = 0; k < 50; k++)
			hist_add(h, 1000.0 * (i + 1) + k);
		p->n = (uint64_t)1 << (2 * i);
		p->batch = 1;
		p->samples = p->ops = h->count;
		hist_summary(h, &p->st);
		point_set_bins(p, h);
	}
	hist_free(h);
	rep_fit(rep, 0);
	bench_fit(b);
	char *html = html_of(&r);
	CHECK(html && !strstr(html, "<script"), "no script element");
	CHECK(html && !strstr(html, "<img"), "no injected element");
	CHECK(html && !strstr(html, "<svg onload"), "no injected svg");
	CHECK(html && !strstr(html, "src=\"") && !strstr(html, "href=\"http"), "nothing loaded");
	CHECK(html && !strstr(html, "url("), "no url()");
	CHECK(html && strstr(html, "&lt;img src=x onerror=alert(1)&gt;"), "host shown escaped");
	CHECK(html && strstr(html, "<polyline"), "a curve is drawn");
	free(html);

	char *csv = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&csv, &len);
	const struct run_result *rs[] = {&r};
	const char *labels[] = {"x,y"};
	report_write_csv(rs, labels, 1, f);
	fclose(f);
	int lines = 0;
	for (char *p = csv; *p; p++)
		lines += *p == '\n';
	CHECK(lines == 5, "header + 4 points: %d lines", lines);
	CHECK(strstr(csv, "\"x,y\",\"'<img src=x onerror=alert(1)>\"") == NULL &&
	      strstr(csv, "\"x,y\",<img src=x onerror=alert(1)>,"), "label quoted, host plain");
	free(csv);
	result_free(&r);
	return t_done("test_report");
}
