/* SPDX-License-Identifier: MIT */
/* A phased bench's throughput over time (work.round2's unpack, serve,
 * unpack-over and delete; fs.fileserver's phases): at each input's largest
 * N, one graph per input (a file system of a matrix, a run), each phase its
 * own line in its own colour, at its place in the point's time: phases
 * follow one another, in the order of extra.phases, each `seconds` long
 * (a phase without a series, work.round2's make, takes its time with no
 * line); a phase marked "beside" ran during the one it names and is drawn
 * dashed over it. A phase's series is its completions per interval
 * (files/s, requests/s for HTTP phases: `files_s_series`; or MiB/s:
 * `mib_s_series`), `interval_s` wide, the last interval partial. The
 * bench's findings (stalls, dips: `at_s` from their phase's start) are
 * shaded where they happened. */
#include "out/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PH_MAX 16    /* phases drawn of one point */
#define PH_MARKS 32  /* findings shaded in one graph */
#define PH_GRAPHS 16 /* inputs drawn (a matrix of every file system: 10) */

/* A phase's series per interval, and whether it is in MiB/s. */
static const json_t *phase_series(const json_t *ph, int *mib)
{
	const json_t *s = json_object_get(ph, "files_s_series");
	*mib = 0;
	if (!json_is_array(s)) {
		s = json_object_get(ph, "mib_s_series");
		*mib = 1;
	}
	return json_is_array(s) && json_array_size(s) ? s : NULL;
}

/* The largest N of the first repetition with a phase that has a series. */
static const struct point *phased_top(const struct bench_result *b)
{
	if (!b || !b->nreps)
		return NULL;
	for (int k = b->reps[0].npts - 1; k >= 0; k--) {
		const char *name;
		json_t *ph;
		int mib;
		json_object_foreach(json_object_get(b->reps[0].pts[k].extra, "phases"), name, ph)
			if (phase_series(ph, &mib))
				return &b->reps[0].pts[k];
	}
	return NULL;
}

static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Where each phase starts, in seconds into the point (NAN: unknown). */
static int phase_offsets(const json_t *phases, const char **names, double *off, int max)
{
	double t = 0;
	int np = 0;
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)phases, k, v) {
		if (np >= max)
			break;
		const char *host = json_string_value(json_object_get(v, "beside"));
		double at = NAN;
		for (int i = 0; host && i < np; i++)
			if (!strcmp(names[i], host))
				at = off[i];
		double secs = num(v, "seconds");
		if (!host) {
			at = t;
			t += isfinite(secs) && secs > 0 ? secs : 0;
		}
		names[np] = k;
		off[np++] = at;
	}
	return np;
}

double report_phase_start(const json_t *phases, const char *phase)
{
	const char *names[PH_MAX];
	double off[PH_MAX];
	int np = phase_offsets(phases, names, off, PH_MAX);
	for (int i = 0; phase && i < np; i++)
		if (!strcmp(names[i], phase))
			return isfinite(off[i]) ? off[i] : 0;
	return 0;
}

/* One input's graph. Returns whether it drew one. */
static int phase_graph(FILE *f, const struct bench_result *b, const char *label)
{
	const struct point *top = phased_top(b);
	if (!top)
		return 0;
	const json_t *phases = json_object_get(top->extra, "phases");
	const char *names[PH_MAX];
	double off[PH_MAX];
	int np = phase_offsets(phases, names, off, PH_MAX), ns = 0, nm = 0, mib = 0;
	struct series s[PH_MAX];
	double *buf[PH_MAX][2];
	char lab[PH_MAX][96];
	for (int i = 0; i < np; i++) {
		const json_t *ph = json_object_get(phases, names[i]);
		int m;
		const json_t *ser = phase_series(ph, &m);
		double iv = num(ph, "interval_s");
		if (!ser || !isfinite(off[i]) || !(iv > 0))
			continue;
		size_t len = json_array_size(ser);
		buf[ns][0] = malloc(len * sizeof(double));
		buf[ns][1] = malloc(len * sizeof(double));
		if (!buf[ns][0] || !buf[ns][1]) {
			free(buf[ns][0]);
			free(buf[ns][1]);
			continue;
		}
		for (size_t k = 0; k < len; k++) {
			const json_t *y = json_array_get(ser, k);
			buf[ns][0][k] = off[i] + (double)(k + 1) * iv;
			buf[ns][1][k] = json_is_number(y) ? json_number_value(y) : NAN;
		}
		mib |= m;
		snprintf(lab[ns], sizeof(lab[ns]), "%.40s (%s)%s", names[i],
			 m ? "MiB/s" : json_object_get(ph, "requests_s") ? "requests/s" : "files/s",
			 json_object_get(ph, "beside") ? ", beside" : "");
		s[ns] = (struct series){.label = lab[ns], .color = ns, .n = (int)len, .x = buf[ns][0],
					.y = buf[ns][1], .step = iv,
					.dashed = json_object_get(ph, "beside") != NULL};
		ns++;
	}
	struct mark marks[PH_MARKS];
	char mlab[PH_MARKS][96];
	size_t q;
	json_t *fd;
	json_array_foreach(json_object_get(top->extra, "findings"), q, fd) {
		if (nm >= PH_MARKS)
			break;
		const char *ph = json_string_value(json_object_get(fd, "phase"));
		const char *what = json_string_value(json_object_get(fd, "finding"));
		double at = num(fd, "at_s"), len = num(fd, "length_s"), o = NAN;
		for (int i = 0; ph && i < np; i++)
			if (!strcmp(names[i], ph))
				o = off[i];
		if (!isfinite(o) || !isfinite(at) || !isfinite(len))
			continue;
		marks[nm] = (struct mark){.x0 = o + at, .x1 = o + at + len, .label = mlab[nm]};
		snprintf(mlab[nm], sizeof(mlab[nm]), "%.16s %.3g s (%.24s)", what ? what : "finding", len,
			 ph);
		nm++;
	}
	if (ns) {
		fputs("<div><p>", f);
		html_escape(f, label);
		fprintf(f, " at N=%llu</p>", (unsigned long long)top->n);
		svg_timeline(f, mib ? "MiB/s per interval" : "files or requests/s per interval", s, ns,
			     marks, nm);
		fputs("</div>", f);
	}
	for (int i = 0; i < ns; i++) {
		free(buf[i][0]);
		free(buf[i][1]);
	}
	return ns > 0;
}

int report_phase_timelines(FILE *f, const struct bench_result *const *bs, const char *const *labels,
			   int n)
{
	int any = 0;
	for (int i = 0; i < n; i++)
		any |= phased_top(bs[i]) != NULL;
	if (!any)
		return 0;
	fputs("<p>Each phase's throughput over time at the largest N, one graph per input: the "
	      "phases one after another as they ran (one beside another dashed over it); stalls and "
	      "dips found by the bench are shaded.</p>\n<div class=\"plots\">", f);
	int drawn = 0;
	for (int i = 0; i < n && drawn < PH_GRAPHS; i++)
		drawn += phase_graph(f, bs[i], labels[i]);
	if (n > PH_GRAPHS)
		fprintf(f, "<p>(the first %d inputs drawn)</p>", PH_GRAPHS);
	fputs("</div>\n", f);
	return drawn;
}
