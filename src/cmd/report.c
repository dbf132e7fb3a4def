/* SPDX-License-Identifier: MIT */
/* scalebench report RESULT ...: one self-contained HTML file (or CSV) over
 * result files and history ids; and the hook by which `run --report FILE`
 * writes one for the run it just made. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "out/db.h"
#include "cmd/fleetsel.h"
#include "cmd/noisedb.h"
#include "cmd/opt.h"
#include "out/report.h"

#define MAX_INPUTS 16
#define FLEET_REPORT_MAX 64 /* lines of one plot (MAX_SERIES in src/out/report.c) */

int run_write_report(const struct run_result *r, const char *cmd, const char *path)
{
	char err[1024], label[300];
	snprintf(label, sizeof(label), "%s %s", r->host ? r->host : "this run",
		 r->started ? r->started : "");
	const struct run_result *rs[] = {r};
	const char *labels[] = {label};
	if (report_write(rs, labels, 1, "html", path, err, sizeof(err))) {
		fprintf(stderr, "scalebench %s: cannot write the report: %s\n", cmd, err);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

static void usage(FILE *f, const struct opt *opts)
{
	fprintf(f,
		"usage: scalebench report RESULT ... [-o FILE] [options]\n"
		"       scalebench report --latest-per-host [--baseline-host HOST] --db URL [-o FILE]\n\n"
		"Write one self-contained HTML file (inline CSS and SVG; it needs no network)\n"
		"over the results: per bench a log-log scaling curve with one line per result\n"
		"and repetition and the p99 band, the latency distribution at the largest N,\n"
		"failures, the verdicts, and the snapshots side by side with the differences\n"
		"highlighted. --format csv writes one row per bench and point instead.\n"
		"RESULT is a result file or a history id (12 or #12).\n\n"
		"Across hosts: --latest-per-host (with --db) draws the latest run of every\n"
		"host instead, one line per host, --baseline-host's first; --bench, --kernel,\n"
		"--fs and --since narrow the runs.\n\n"
		"--noise-floor (with --db): the first result's cost curve gets a grey band of\n"
		"+-floor around its median, the floor compare --noise-floor would use for it:\n"
		"expm1(K x the run-to-run spread of its earlier runs), K = --floor-k (3), when\n"
		"there are --floor-runs (3) of them.\n\n");
	opt_help(f, opts);
	fprintf(f, "\nexit: 0 written, 2 bad arguments or an unreadable input, 1 the output\n"
		   "could not be written.\n");
}

/* --latest-per-host: one input per host, labelled by it. */
static int report_fleet(const struct fleet_sel *sel, const char *dbspec, const char *format,
			const char *output)
{
	struct run_result *rs;
	char(*labels)[160], err[1024];
	int n, usage, rc = EXIT_OK;
	const struct run_result **rp = NULL;
	const char **lp = NULL;
	if (fleetsel_load(sel, dbspec, &rs, &labels, &n, &usage, err, sizeof(err))) {
		fprintf(stderr, "scalebench report: %s\n", err);
		rc = usage ? EXIT_USAGE : EXIT_RUNTIME;
		goto out;
	}
	if (n > FLEET_REPORT_MAX) {
		fprintf(stderr, "scalebench report: %d hosts match, a plot holds %d lines: narrow the "
				"selection (--bench, --kernel, --fs, --since)\n", n, FLEET_REPORT_MAX);
		rc = EXIT_USAGE;
		goto out;
	}
	rp = calloc((size_t)n, sizeof(*rp));
	lp = calloc((size_t)n, sizeof(*lp));
	if (!rp || !lp) {
		fprintf(stderr, "scalebench report: out of memory\n");
		rc = EXIT_RUNTIME;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		rp[i] = &rs[i];
		lp[i] = labels[i];
	}
	if (report_write(rp, lp, n, format, output, err, sizeof(err))) {
		fprintf(stderr, "scalebench report: %s\n", err);
		rc = EXIT_RUNTIME;
	}
out:
	for (int i = 0; i < n; i++)
		result_free(&rs[i]);
	free(rs);
	free(labels);
	free(rp);
	free(lp);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	const char *dbspec = NULL, *format = "html", *output = NULL;
	int help = 0, floor_on = 0;
	uint64_t floor_runs = 3;
	double floor_k = 3;
	struct fleet_sel sel = {0};
	const struct opt opts[] = {
		{"output", 'o', OPT_STR, "FILE", "write to FILE (atomically; default stdout)", 0, 0, NULL, &output, NULL},
		{"format", 'f', OPT_CHOICE, "FMT", "html (default) or csv", 0, 0, "html|csv", &format, NULL},
		{"db", 0, OPT_STR, "PATH|URL", "history database for ids (default as for history)", 0, 0, NULL, &dbspec, NULL},
		{"noise-floor", 0, OPT_FLAG, NULL, "band of the first result's noise floor from the history (see compare)", 0, 0, NULL, &floor_on, NULL},
		{"floor-k", 0, OPT_DOUBLE, "K", "with --noise-floor: the floor is K times the spread (default 3)", 0.1, 1000, NULL, &floor_k, NULL},
		{"floor-runs", 0, OPT_U64, "M", "with --noise-floor: earlier runs needed for a floor (default 3)", 2, 1000, NULL, &floor_runs, NULL},
		FLEETSEL_OPTS(sel),
		{"help", 'h', OPT_FLAG, NULL, "this help", 0, 0, NULL, &help, NULL},
		{0},
	};
	char err[1024], *pos[MAX_INPUTS];
	int npos;
	int orc = opt_command("report", opts, argc, argv, pos, MAX_INPUTS, &npos, &help, usage);
	if (orc != OPT_GO)
		return orc;
	if (fleetsel_check(&sel, npos, 0, err, sizeof(err))) {
		fprintf(stderr, "scalebench report: %s\n", err);
		return EXIT_USAGE;
	}
	if (floor_on && sel.latest) {
		fprintf(stderr, "scalebench report: --noise-floor draws given results, not "
				"--latest-per-host\n");
		return EXIT_USAGE;
	}
	if (sel.latest)
		return report_fleet(&sel, dbspec, format, output);
	if (npos < 1) {
		fprintf(stderr, "scalebench report: which results? (RESULT ...)\n");
		return EXIT_USAGE;
	}
	struct run_result rs[MAX_INPUTS];
	const struct run_result *rp[MAX_INPUTS];
	char labels[MAX_INPUTS][64];
	const char *lp[MAX_INPUTS];
	int nread = 0, rc = EXIT_OK;
	for (; nread < npos; nread++) {
		if (result_load_spec(pos[nread], dbspec, &rs[nread], labels[nread],
				     sizeof(labels[0]), err, sizeof(err))) {
			fprintf(stderr, "scalebench report: %s\n", err);
			rc = EXIT_USAGE;
			break;
		}
		rp[nread] = &rs[nread];
		lp[nread] = labels[nread];
		for (int k = 0; k < nread; k++) /* the same name twice: number them */
			if (!strcmp(labels[k], labels[nread]))
				snprintf(labels[nread], sizeof(labels[0]), "%.50s (%d)", pos[nread],
					 nread + 1);
	}
	struct noise_set ns = {0};
	struct report_floors fl = {.k = floor_k, .min_runs = (int)floor_runs};
	int nruns = 0;
	if (rc == EXIT_OK && floor_on) {
		if (noise_for_result(dbspec, &rs[0], &ns, &nruns, err, sizeof(err)))
			fprintf(stderr, "scalebench report: no noise floor for %s: %s\n", labels[0], err);
		fl.f = ns.floors;
		fl.n = ns.floors ? ns.n : 0;
	}
	if (rc == EXIT_OK && report_write_floors(rp, lp, npos, format, output, floor_on ? &fl : NULL,
						 err, sizeof(err))) {
		fprintf(stderr, "scalebench report: %s\n", err);
		rc = EXIT_RUNTIME;
	}
	noise_free(&ns);
	for (int i = 0; i < nread; i++)
		result_free(&rs[i]);
	return rc;
}
