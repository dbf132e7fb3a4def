/* SPDX-License-Identifier: MIT */
/* CSV: one row per input, bench, repetition and point, with a header
 * row; times in ns. Columns are documented in docs/report.md. */
#include "out/report.h"

#include <math.h>
#include <string.h>

void csv_field(FILE *f, const char *s)
{
	if (!s)
		s = "";
	int formula = strchr("=+-@\t\r", s[0]) && s[0];
	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.17g", v);
	else
		fputc(',', f);
}

static void text(FILE *f, const char *s)
{
	fputc(',', f);
	csv_field(f, s);
}

static void row_head(FILE *f, const char *label, const struct run_result *r,
		     const struct bench_result *b)
{
	csv_field(f, label);
	text(f, r->host);
	text(f, r->started);
	text(f, b->name);
	text(f, b->variant ? b->variant : "");
	text(f, b->target ? b->target : "");
	fprintf(f, ",%d", b->version);
	text(f, bench_status_name(b->status));
	text(f, growth_name(b->v.cls));
	num(f, b->v.exponent);
}

void report_write_csv(const struct run_result *const *rs, const char *const *labels, int n,
		      FILE *f)
{
	fputs("input,host,started,bench,variant,target,version,status,verdict,exponent,rep,n,batch,samples,stop,"
	      "min_ns,mean_ns,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,cv,user_s,sys_s\r\n", f);
	for (int i = 0; i < n; i++) {
		const struct run_result *r = rs[i];
		for (int k = 0; k < r->nbenches; k++) {
			const struct bench_result *b = &r->benches[k];
			int rows = 0;
			for (int q = 0; q < b->nreps; q++)
				for (int j = 0; j < b->reps[q].npts; j++, rows++) {
					const struct point *p = &b->reps[q].pts[j];
					row_head(f, labels[i], r, b);
					fprintf(f, ",%d,%llu,%u,%llu", q + 1, (unsigned long long)p->n,
						p->batch, (unsigned long long)p->samples);
					text(f, point_stop_name(p->stop));
					num(f, p->st.min);
					num(f, p->st.mean);
					num(f, p->st.p50);
					num(f, p->st.p90);
					num(f, p->st.p99);
					num(f, p->st.p999);
					num(f, p->st.max);
					num(f, p->st.cv);
					num(f, p->user_s);
					num(f, p->sys_s);
					fputs("\r\n", f);
				}
			if (!rows) { /* skipped or failed before its first point */
				row_head(f, labels[i], r, b);
				fputs(",,,,,,,,,,,,,,,\r\n", f);
			}
		}
	}
}
