/* SPDX-License-Identifier: MIT */
/* Writers of the report (report.c: HTML with inline CSS and SVG, nothing
 * fetched from anywhere) and of CSV (csv.c), over one or more results.
 * Every string from a result is escaped on the way out. */
#ifndef SB_REPORT_H
#define SB_REPORT_H

#include <stdio.h>
#include "core/result.h"

/* Text for HTML element content and quoted attribute values (also inline
 * SVG): & < > " ' escaped, control characters other than tab and newline,
 * and invalid UTF-8, replaced by U+FFFD. */
void html_escape(FILE *f, const char *s);
/* src/out/report_profile.c: a bench's run --profile (tables and a
 * differential flame graph); nothing when it has none. label: the input's. */
void report_profile(FILE *f, const struct bench_result *b, const char *label);
/* One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or
 * LF; a text starting with = + - @ tab or CR gets a leading ' so that a
 * spreadsheet does not run it as a formula. */
void csv_field(FILE *f, const char *s);

/* One row per bench and point (a bench without points gets one row). */
void report_write_csv(const struct run_result *const *rs, const char *const *labels, int n,
		      FILE *f);
/* Returns 0, or -1 if a write failed. */
int report_write_html(const struct run_result *const *rs, const char *const *labels, int n,
		      FILE *f);
/* format "html" or "csv"; path NULL or "-": stdout; otherwise written to a
 * temporary file in the same directory and renamed. */
int report_write(const struct run_result *const *rs, const char *const *labels, int n,
		 const char *format, const char *path, char *err, size_t errlen);
/* The same with noise floors (report --noise-floor, docs/compare.md): the
 * first input's cost plot gets a band of +-floor around its median (the
 * geometric mean over its repetitions), floor = expm1(k x spread) of the
 * bench's cmp_floor with at least min_runs runs. fl NULL: none. */
struct cmp_floor;
struct report_floors {
	const struct cmp_floor *f;
	int n, min_runs;
	double k;
};
int report_write_floors(const struct run_result *const *rs, const char *const *labels, int n,
			const char *format, const char *path, const struct report_floors *fl,
			char *err, size_t errlen);
int report_write_html_floors(const struct run_result *const *rs, const char *const *labels, int n,
			     const struct report_floors *fl, FILE *f);

/* src/out/fleet.c: the formats of kernel-testing systems (docs/fleet.md).
 * fleet_format_from_name: "kcidb" 0, "lava" 1, "lkp" 2, "ktap" 3, else -1.
 * fleet_write: one test per bench; cmp, when not NULL, is the tree
 * compare_results gave for a baseline against r, whose words set the
 * statuses. 0, or -1 if out of memory or a write failed. */
int fleet_format_from_name(const char *s);
int fleet_write(FILE *f, int format, const struct run_result *r, const json_t *cmp);

/* src/out/report_study.c: when rs[0] was run from a study's job file
 * (job.global.study), the study view: the talk-form phase tables and one
 * graph per job section, inputs overlaid, its reference beside it. */
void report_study(FILE *f, const struct run_result *const *rs, const char *const *labels, int n);

/* src/out/report_phase.c: a phased bench's (work.round2, fs.fileserver)
 * throughput over time per phase at each input's largest N, one graph per
 * input (bs[i]: input i's bench, or NULL). Returns the graphs drawn (0:
 * no phase series, nothing written). */
int report_phase_timelines(FILE *f, const struct bench_result *const *bs, const char *const *labels,
			   int n);
/* Where the phase named `phase` of extra.phases starts, in seconds into the
 * point: phases run one after the other, a "beside" phase at the start of
 * the one it names (0: no such phase, or phase NULL). */
double report_phase_start(const json_t *phases, const char *phase);

/* src/out/report_snap.c: the snapshots side by side, differences first. */
void report_snapshots(FILE *f, const struct run_result *const *rs, const char *const *labels,
		      int n);

/* src/out/svg.c: plots. */
struct series {
	const char *label; /* legend text (escaped when written) */
	int color;         /* palette index */
	int dashed;
	int n;
	const double *x, *y;
	const double *band; /* optional upper edge of a shaded band (e.g. p99) */
	double step;        /* timeline: the width of each interval (x is its end) */
	/* svg_loglog: a noise floor band from floor_y/(1+floor) to
	 * floor_y*(1+floor), grey and outlined, when floor > 0 and floor_y */
	double floor;
	const double *floor_y;
};
/* A marked span of a timeline: a stall or a dip. */
struct mark {
	double x0, x1;
	const char *label;
};
/* Throughput over time: linear axes, one step line per series, marked
 * spans shaded and labelled. */
void svg_timeline(FILE *f, const char *ylabel, const struct series *s, int ns,
		  const struct mark *marks, int nm);
/* Log-log line plot; x is N, y ns. */
void svg_loglog(FILE *f, const char *xlabel, const struct series *s, int ns);
/* Step plot of latency distributions: x ns (log), y share of samples;
 * each series' x are bucket lower bounds, y counts (normalized here). */
void svg_histogram(FILE *f, const struct series *s, int ns);
/* The tail in view: the same distributions with both axes logarithmic
 * (x over the whole range, to the largest mark; y share down to one sample
 * of the largest series), and vertical marks (a max, a bound): each mark in
 * its series' colour (color < 0: black), dashed if asked, labelled at the top
 * when it has a label. */
struct vmark {
	double x; /* ns */
	int color, dashed;
	const char *label;
};
void svg_histogram_tail(FILE *f, const struct series *s, int ns, const struct vmark *m, int nm);
const char *svg_color(int i);
/* Throughput against N (concurrency axes): measured points (over[k] set:
 * oversubscribed, drawn hollow), and when fitted the USL curve
 * lambda*N/(1+sigma(N-1)+kappa N(N-1)) and the ideal line lambda*N. */
struct tput_series {
	const char *label;
	int color, n, fitted;
	const double *x, *y;  /* N, ops/s */
	const int *over;      /* optional */
	double lambda, sigma, kappa;
};
void svg_throughput(FILE *f, const char *xlabel, const char *ylabel, const struct tput_series *s,
		    int ns);

#endif
