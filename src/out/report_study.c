/* SPDX-License-Identifier: MIT */
/* The study view of the report (docs/studies.md): when the first input was
 * run from a job file naming a study ([global] study = ...), the report
 * leads with
 *   - for benches with phases (work.round2, fs.fileserver) over several
 *     inputs or file systems, one table in the form of von Leitner's 2006
 *     talk: inputs (file systems) as rows, phases as columns, each cell
 *     the phase's rate at the largest N (the median over the
 *     repetitions), the fastest of each column marked, and the stalls the
 *     bench found named by what was seen at that moment: "writeback"
 *     when pages were under writeback, "journal" on a file system with a
 *     jbd2 journal and no writeback seen, "stall" otherwise;
 *   - one graph per job section, in the file's order, titled and with the
 *     axis the section names, every input overlaid (one line per input and
 *     repetition), and beside it the section's `reference` (what the
 *     study's author measured), drawn as a dashed line where it gives a
 *     time (`reference-us`).
 * Everything from a result is escaped on the way out (html_escape). */
#include "out/report.h"
#include "core/fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STUDY_SERIES 64 /* lines of one graph (svg_loglog draws any number; a legend this long is the limit) */
#define STUDY_PHASES 16
#define STUDY_ROWS 64

static const char *kstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The extra of the largest N of repetition r of b, or NULL. */
static const json_t *top_extra(const struct bench_result *b, int r)
{
	const struct repetition *rep = &b->reps[r];
	return rep->npts ? rep->pts[rep->npts - 1].extra : NULL;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* A phase's rate: requests/s for HTTP phases, files/s otherwise. */
static double phase_rate(const json_t *ph)
{
	const json_t *v = json_object_get(ph, "requests_s");
	if (!v)
		v = json_object_get(ph, "files_s");
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The stalls and dips of one repetition's largest N, named. */
static void stall_names(FILE *f, const json_t *extra, int *shown)
{
	const json_t *fi = json_object_get(extra, "findings"), *phases = json_object_get(extra, "phases");
	size_t i;
	json_t *x;
	json_array_foreach(fi, i, x) {
		const char *kind = kstr(x, "finding"), *phase = kstr(x, "phase");
		double len = json_number_value(json_object_get(x, "length_s"));
		double wb = json_number_value(json_object_get(x, "writeback_kib"));
		double dirty = json_number_value(json_object_get(x, "dirty_kib"));
		const json_t *ph = phase ? json_object_get(phases, phase) : NULL;
		const char *name = wb > 0 ? "writeback"
				   : json_object_get(ph, "jbd2_transactions") ? "journal"
				   : kind && !strcmp(kind, "sync") ? "sync" : "stall";
		if (*shown >= 4) {
			(*shown)++;
			continue;
		}
		fputs(*shown ? "; " : "", f);
		fprintf(f, "<b>%s</b> ", name);
		html_escape(f, phase ? phase : "?");
		fprintf(f, " %.1f s%s", len, kind && !strcmp(kind, "dip") ? " dip" : "");
		if (dirty > 0 || wb > 0) { /* KiB under a MiB: 8 KiB under writeback is not "0 MiB" */
			fprintf(f, " (dirty %.0f %s, writeback %.0f %s)", dirty >= 1024 ? dirty / 1024 : dirty,
				dirty >= 1024 ? "MiB" : "KiB", wb >= 1024 ? wb / 1024 : wb,
				wb >= 1024 ? "MiB" : "KiB");
		}
		(*shown)++;
	}
}

/* One talk-form table for the bench labelled name (rows: the inputs that
 * hold it). Returns whether it drew one. */
static int phase_table(FILE *f, const struct run_result *const *rs, const char *const *labels, int n,
		       const char *name)
{
	const struct bench_result *rows[STUDY_ROWS];
	int rowi[STUDY_ROWS], nr = 0;
	char cols[STUDY_PHASES][48];
	int nc = 0;
	for (int i = 0; i < n && nr < STUDY_ROWS; i++)
		for (int j = 0; j < rs[i]->nbenches; j++) {
			const struct bench_result *b = &rs[i]->benches[j];
			if (!b->name || strcmp(b->name, name) || !b->nreps)
				continue;
			rows[nr] = b;
			rowi[nr++] = i;
			const json_t *ph = json_object_get(top_extra(b, 0), "phases");
			const char *k;
			json_t *v;
			json_object_foreach((json_t *)ph, k, v) {
				if (!isfinite(phase_rate(v)) || !strcmp(k, "make"))
					continue;
				int seen = 0;
				for (int c = 0; c < nc && !seen; c++)
					seen = !strcmp(cols[c], k);
				if (!seen && nc < STUDY_PHASES)
					snprintf(cols[nc++], sizeof(cols[0]), "%s", k);
			}
			break;
		}
	if (nr < 1 || nc < 1)
		return 0;
	static double cell[STUDY_ROWS][STUDY_PHASES];
	double best[STUDY_PHASES];
	for (int c = 0; c < nc; c++) {
		best[c] = -1;
		for (int r = 0; r < nr; r++) {
			double v[64];
			int m = 0;
			for (int q = 0; q < rows[r]->nreps && m < 64; q++) {
				double x = phase_rate(json_object_get(json_object_get(top_extra(rows[r], q), "phases"),
								      cols[c]));
				if (isfinite(x))
					v[m++] = x;
			}
			qsort(v, (size_t)m, sizeof(double), cmp_dbl);
			cell[r][c] = m ? (m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2) : NAN;
			if (isfinite(cell[r][c]) && cell[r][c] > best[c])
				best[c] = cell[r][c];
		}
	}
	fputs("<h3>", f);
	html_escape(f, name);
	fprintf(f, ": each phase's rate at the largest N (files/s; HTTP phases requests/s), the median "
		   "of the repetitions; <span class=\"best\">&#9733; fastest</span>; stalls: nothing "
		   "completed for stall_ms, or a dip below a tenth of the median, named writeback (pages "
		   "under writeback then), journal (a jbd2 journal, no writeback seen) or stall</h3>\n"
		   "<table class=\"study\"><tr><th>file system / input</th><th>N</th>");
	for (int c = 0; c < nc; c++) {
		fputs("<th>", f);
		html_escape(f, cols[c]);
		fputs("</th>", f);
	}
	fputs("<th>stalls named</th></tr>\n", f);
	for (int r = 0; r < nr; r++) {
		const struct repetition *rep0 = &rows[r]->reps[0];
		fprintf(f, "<tr><td><span class=\"sw\" style=\"background:%s\"></span>", svg_color(rowi[r]));
		html_escape(f, labels[rowi[r]]);
		fprintf(f, "</td><td>%llu</td>",
			rep0->npts ? (unsigned long long)rep0->pts[rep0->npts - 1].n : 0ull);
		for (int c = 0; c < nc; c++) {
			if (!isfinite(cell[r][c]))
				fputs("<td>-</td>", f);
			else if (cell[r][c] == best[c] && best[c] > 0 && nr > 1) /* none of 0/s */
				fprintf(f, "<td class=\"best\">&#9733; %.0f/s</td>", cell[r][c]);
			else
				fprintf(f, "<td>%.0f/s</td>", cell[r][c]);
		}
		fputs("<td>", f);
		int shown = 0;
		for (int q = 0; q < rows[r]->nreps; q++)
			stall_names(f, top_extra(rows[r], q), &shown);
		if (shown > 4)
			fprintf(f, "; %d more", shown - 4);
		fputs(shown ? "</td></tr>\n" : "none</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	return 1;
}

/* One job section's graph: every input's benches of that section. */
static void section_graph(FILE *f, const struct run_result *const *rs, const char *const *labels,
			  int n, const char *sec, const json_t *keys)
{
	struct series s[STUDY_SERIES + 1];
	double *buf[STUDY_SERIES][2];
	char lab[STUDY_SERIES + 1][200];
	int ns = 0;
	double nmin = INFINITY, nmax = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < rs[i]->nbenches; j++) {
			const struct bench_result *b = &rs[i]->benches[j];
			if (!b->job || strcmp(b->job, sec))
				continue;
			for (int r = 0; r < b->nreps && ns < STUDY_SERIES; r++) {
				const struct repetition *rep = &b->reps[r];
				int np = 0;
				buf[ns][0] = calloc((size_t)rep->npts + 1, sizeof(double));
				buf[ns][1] = calloc((size_t)rep->npts + 1, sizeof(double));
				if (!buf[ns][0] || !buf[ns][1]) {
					free(buf[ns][0]);
					free(buf[ns][1]);
					continue;
				}
				for (int k = 0; k < rep->npts; k++) {
					if (rep->pts[k].n == 0 || !(rep->pts[k].st.p50 > 0))
						continue; /* a log axis has no 0 */
					buf[ns][0][np] = (double)rep->pts[k].n;
					buf[ns][1][np++] = rep->pts[k].st.p50;
					nmin = fmin(nmin, (double)rep->pts[k].n);
					nmax = fmax(nmax, (double)rep->pts[k].n);
				}
				snprintf(lab[ns], sizeof(lab[ns]), "%.100s%s%.40s rep %d: %s", labels[i],
					 b->variant ? " " : "", b->variant ? b->variant : "", r + 1,
					 growth_name(b->nreps > 1 ? rep->v.cls : b->v.cls));
				s[ns] = (struct series){.label = lab[ns], .color = i, .dashed = r > 0, .n = np,
							.x = buf[ns][0], .y = buf[ns][1]};
				ns++;
			}
		}
	const char *ref = kstr(keys, "reference-us");
	double ref_us = ref ? strtod(ref, NULL) : 0;
	double rx[2] = {nmin, nmax}, ry[2] = {ref_us * 1e3, ref_us * 1e3};
	int drawn = ns;
	if (ref_us > 0 && ns && nmax > 0) {
		snprintf(lab[ns], sizeof(lab[ns]), "reference (then): %g us", ref_us);
		s[ns] = (struct series){.label = lab[ns], .color = n, .dashed = 1, .n = 2, .x = rx, .y = ry};
		ns++;
	}
	const char *axis = kstr(keys, "axis");
	char xl[200];
	snprintf(xl, sizeof(xl), "N = %.180s (log)", axis ? axis : "load");
	if (drawn)
		svg_loglog(f, xl, s, ns);
	else
		fputs("<p>No bench of this job in these results.</p>", f);
	for (int i = 0; i < drawn; i++) {
		free(buf[i][0]);
		free(buf[i][1]);
	}
}

void report_study(FILE *f, const struct run_result *const *rs, const char *const *labels, int n)
{
	const json_t *job = n ? rs[0]->job : NULL, *g = json_object_get(job, "global");
	const char *study = kstr(g, "study");
	if (!study)
		return;
	const char *title = kstr(g, "title"), *desc = kstr(g, "description");
	fputs("<h2 id=\"study\">Study: ", f);
	html_escape(f, title ? title : study);
	fputs("</h2>\n<p>", f);
	if (desc) {
		html_escape(f, desc);
		fputs(". ", f);
	}
	fputs("The job file's tests in its order; every input overlaid (repetitions after the "
	      "first dashed); beside each graph, what the study's author measured.</p>\n", f);
	static const char *const phased[] = {"work.round2", "fs.fileserver"};
	for (int k = 0; k < 2; k++)
		phase_table(f, rs, labels, n, phased[k]);
	size_t i;
	json_t *j;
	json_array_foreach(json_object_get(job, "jobs"), i, j) {
		const char *sec = kstr(j, "name");
		const json_t *keys = json_object_get(j, "keys");
		if (!sec)
			continue;
		const char *t = kstr(keys, "title"), *ref = kstr(keys, "reference");
		fprintf(f, "<h3 id=\"job-%zu\">", i);
		html_escape(f, t ? t : sec);
		fputs(" <small>[", f);
		html_escape(f, sec);
		fputs("] ", f);
		html_escape(f, kstr(keys, "bench"));
		fputs("</small></h3>\n<div class=\"plots\"><div>", f);
		section_graph(f, rs, labels, n, sec, keys);
		fputs("</div><div class=\"ref\">", f);
		if (ref) {
			fputs("<p><b>Then:</b> ", f);
			html_escape(f, ref);
			fputs("</p>", f);
		}
		fputs("</div></div>\n", f);
	}
}
