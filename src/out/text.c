/* The human summary: one line per bench (cost at the smallest and the
 * largest N, p99 at the largest, verdict with exponent), then notes and
 * failures. */
#include "result.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

static const struct point *first_point(const struct bench_result *b, int last)
{
	const struct point *best = NULL;
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++) {
			const struct point *p = &b->reps[r].pts[i];
			if (!best || (last ? p->n > best->n : p->n < best->n))
				best = p;
		}
	return best;
}

static void print_verdict(FILE *f, const struct verdict *v)
{
	fprintf(f, "%-10s", growth_name(v->cls));
	if (v->cls != GROWTH_NONE && isfinite(v->exponent))
		fprintf(f, " n^%.2f [%.2f,%.2f] x%.2f", v->exponent, v->exp_lo, v->exp_hi, v->ratio);
}

void result_print_text(const struct run_result *r, FILE *f)
{
	char a[32], b[32], c[32];
	fprintf(f, "scalebench %s  %s  clock %s (%s, read %.1f ns)\n",
		r->tool_version ? r->tool_version : "?", r->started ? r->started : "", r->clock.id,
		r->clock.source, r->clock.read_cost_ns);
	fprintf(f, "%-12s %-11s %-17s %10s %10s %10s  %s\n", "bench", "status", "N", "cost@min",
		"cost@max", "p99@max", "verdict  exponent [95% CI]  max/min");
	for (int i = 0; i < r->nbenches; i++) {
		const struct bench_result *br = &r->benches[i];
		if (br->status == BS_SKIPPED) {
			fprintf(f, "%-12s %-11s %s\n", br->name, "skipped",
				br->skip_reason ? br->skip_reason : "");
			continue;
		}
		const struct point *lo = first_point(br, 0), *hi = first_point(br, 1);
		char range[48];
		if (lo)
			snprintf(range, sizeof(range), "%llu..%llu", (unsigned long long)lo->n,
				 (unsigned long long)hi->n);
		else
			snprintf(range, sizeof(range), "-");
		fprintf(f, "%-12s %-11s %-17s %10s %10s %10s  ", br->name,
			bench_status_name(br->status), range, fmt_ns(lo ? lo->st.p50 : NAN, a, sizeof(a)),
			fmt_ns(hi ? hi->st.p50 : NAN, b, sizeof(b)),
			fmt_ns(hi ? hi->st.p99 : NAN, c, sizeof(c)));
		print_verdict(f, &br->v);
		fputc('\n', f);
	}
	int any = 0;
	for (int i = 0; i < r->nbenches; i++) {
		const struct bench_result *br = &r->benches[i];
		for (int k = 0; k < br->nnotes; k++) {
			if (!any++)
				fprintf(f, "\n");
			fprintf(f, "note %s: %s\n", br->name, br->notes[k]);
		}
		if (br->nreps > 1)
			for (int k = 0; k < br->nreps; k++) {
				if (!any++)
					fprintf(f, "\n");
				fprintf(f, "rep  %s #%d: ", br->name, k + 1);
				print_verdict(f, &br->reps[k].v);
				fputc('\n', f);
			}
		for (int k = 0; k < br->nreps; k++) {
			const struct failure *fl = br->reps[k].fail;
			if (!fl)
				continue;
			if (!any++)
				fprintf(f, "\n");
			fprintf(f, "stop %s: %s at N=%llu during %s (%s): %s\n", br->name, fl->kind,
				(unsigned long long)fl->n, fl->phase, fl->call, fl->msg);
		}
		if (br->v.cls == GROWTH_UNCLEAR) {
			if (!any++)
				fprintf(f, "\n");
			fprintf(f, "why  %s: %s\n", br->name, br->v.reason);
		}
	}
	if (r->interrupted)
		fprintf(f, "\ninterrupted: the result is partial\n");
}
