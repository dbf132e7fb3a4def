/* SPDX-License-Identifier: MIT */
/* scalebench compare A B [C ...]: A is the baseline, each other result is
 * compared with it. Exit 3 when any comparison finds a regression, so CI
 * can fail on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/ab.h"
#include "cmd/cmd.h"
#include "out/compare_text.h"
#include "core/compare.h"
#include "out/db.h"
#include "cmd/fleetsel.h"
#include "cmd/noisedb.h"
#include "cmd/opt.h"

#define MAX_INPUTS 66 /* --ab: two sides and up to 64 bench words */

static void usage(FILE *f, const struct opt *opts)
{
	fprintf(f,
		"usage: scalebench compare A B [C ...] [options]\n"
		"       scalebench compare --ab SIDE_A SIDE_B [run options] [options] [BENCH|FAMILY ...]\n"
		"       scalebench compare --latest-per-host --baseline-host HOST --db URL [options]\n\n"
		"Compare result B (and C ...) with the baseline A. The word per bench, which\n"
		"decides the exit code, comes from the repetitions (`run -r K`, each a fresh\n"
		"worker): Welch's t-test of the repetitions' mean log median, over the whole\n"
		"sweep and over its top third, each repetition's level adjusted for the\n"
		"machine-speed probe's page-fault time around its points (the slope of the\n"
		"bench's cost on it within each side, or across the earlier runs of a\n"
		"history, below, its error in the test's variance; --no-probe-adjust: as\n"
		"measured, for systems that differ in their page-fault path); slower or\n"
		"faster when the\n"
		"change is beyond the threshold and significant, noisy when it is not\n"
		"confirmed, same within the threshold. Each bench is judged on its change\n"
		"beyond the run shift (the median change of all benches) when the\n"
		"machine-speed probe moved with it\n"
		"(within 15%%: the machine's speed); a shift beyond the probe is the\n"
		"system's, kept, and when B is slower a regression (--keep-shift: never\n"
		"taken off). Significant is over the family of the compare's benches: their\n"
		"variances moderated toward each other (empirical Bayes), scaled by the run\n"
		"effect the benches show (their median p made 1/2), and Holm's correction,\n"
		"so --alpha is the chance that an unchanged system gives any bench slower or\n"
		"faster, not each bench's. With fewer than 3 repetitions a side the word is\n"
		"insufficient and no regression is called (one run cannot tell a change from\n"
		"the run's own luck), unless the change is decisive or --strict. Decisive:\n"
		"at the top of the sweep (its two largest N) every repetition of one side is\n"
		"at least F times every one of the other, F being --decisive, else 6, raised\n"
		"to exp(6 x this bench's run-to-run spread there) when a history of it\n"
		"(--noise-floor or --history-from) says more: far beyond the noise, called\n"
		"with one repetition a side. --strict judges the samples of one run: a\n"
		"Mann-Whitney U test per point on the histograms, slower when 2/3 of the\n"
		"points are, or the top third. Per point, the change of the median and p99,\n"
		"the U test and Cliff's delta are shown as detail. Verdict changes come\n"
		"first; a concurrency bench (io depth, streams, workers) is judged on\n"
		"throughput instead: sigma or kappa of its Universal Scalability Law fit\n"
		"significantly up, or ops/s at the largest N significantly lower, is WORSE\n"
		"(a regression when judged; not with the probe's unmap times 1.5x apart:\n"
		"other CPUs busy on one side). Recorded conditions that differ (placement,\n"
		"kernel, clock source..., the probe's unmap time: other vCPUs busier on\n"
		"one side) are named. Benches whose version differs are\n"
		"refused; what only one side has is named. A and B are result files or\n"
		"history ids (12 or #12); FILE@TARGET or ID@TARGET is one file system of a\n"
		"matrix result (compare m.json@ext4 'm.json@ext2:-O ^dir_index').\n\n"
		"Noise floor: --noise-floor reads the earlier runs of B's host, kernel and\n"
		"file system from the history (--db) and, per bench, the spread of their\n"
		"levels (mean log median); a change must also exceed expm1(K x spread)\n"
		"(--floor-k, default 3) to be slower or faster. With fewer than\n"
		"--floor-runs (3) earlier runs, the bench says \"no floor: N runs\" and\n"
		"keeps the threshold. With 5 or more earlier runs (--noise-floor or\n"
		"--history-from), a bench's repetition test pools their run-to-run variance\n"
		"(each earlier run's shift taken off, as the change is tested beyond this\n"
		"compare's) with its repetitions' own, each by its degrees of freedom;\n"
		"the levels are adjusted with the slope of the bench's level on the\n"
		"probe's page-fault time or on its unmap time (other CPUs busy) across\n"
		"those runs, with the sides' own slope, or not, whichever test finds the\n"
		"smallest change from the variances alone (not with --no-probe-adjust).\n\n"
		"Paired A/B in one invocation: --ab runs both sides now, bench by bench and\n"
		"pair by pair (-r K pairs, default 5), each pair back to back, the order\n"
		"alternating (AB, BA, AB ...), so that the machine's drift falls on both\n"
		"sides alike: for each, the side's scalebench runs `run BENCH -r 1` with\n"
		"the side's settings. A side is - (as the command says) or comma-separated\n"
		"bin=PATH (its scalebench: two builds), dir=PATH (its target directory: two\n"
		"file systems), p=KEY=VALUE (its parameter, repeatable: two settings),\n"
		"label=NAME; checked before any work (exit 2). Each side's repetitions are\n"
		"merged into one result recording the pairing (-o PREFIX: PREFIX-a.json,\n"
		"PREFIX-b.json). The two sides of one --ab run, now or later from those\n"
		"files, are tested on their pairs: a t-test of B's level minus A's in each\n"
		"pair (df = pairs - 1), moderated and Holm-corrected over the benches, no\n"
		"run shift or run effect (the pairs cancel them); --unpaired tests them as\n"
		"two runs. Ctrl-C stops the running side and leaves nothing behind.\n\n"
		"Across hosts: --latest-per-host --baseline-host H (with --db, often a\n"
		"postgresql:// URL) compares the latest run of every host with H's latest\n"
		"and prints one table, hosts by benches, each cell the bench's word and its\n"
		"median change; --bench, --kernel, --fs and --since narrow the runs.\n\n");
	opt_help(f, opts);
	fprintf(f, "\nexit: 0 no regression, 3 a significant regression (a bench slower, or a\n"
		   "verdict significantly worse), 2 bad arguments or an unreadable input,\n"
		   "1 other failure.\n");
}

/* --latest-per-host: rs[0] (the baseline host's latest run) against every
 * other host's; one row per host, one column per bench of the baseline. */
static int compare_fleet(const struct fleet_sel *sel, const char *dbspec,
			 const struct cmp_opts *opts, int json)
{
	struct run_result *rs;
	char(*labels)[160], err[1024];
	int n, usage, rc = EXIT_OK, any = 0;
	if (fleetsel_load(sel, dbspec, &rs, &labels, &n, &usage, err, sizeof(err))) {
		fprintf(stderr, "scalebench compare: %s\n", err);
		rc = usage ? EXIT_USAGE : EXIT_RUNTIME;
		goto out;
	}
	struct cmp_opts o = *opts;
	json_t *hosts = json_array(), *cols = json_array();
	int self_reg = 0; /* the columns: the baseline's benches, as compare names them */
	json_t *self = compare_results(&rs[0], labels[0], &rs[0], labels[0], &o, &self_reg);
	size_t ci;
	json_t *cb;
	json_array_foreach(json_object_get(self, "benches"), ci, cb)
		json_array_append(cols, json_object_get(cb, "name"));
	json_decref(self);
	for (int i = 1; i < n; i++) {
		int reg = 0;
		json_t *c = compare_results(&rs[0], labels[0], &rs[i], labels[i], &o, &reg);
		if (!c) {
			rc = EXIT_RUNTIME;
			break;
		}
		any |= reg;
		json_t *cells = json_object();
		size_t k;
		json_t *b;
		json_array_foreach(json_object_get(c, "benches"), k, b)
			json_object_set_new(cells, json_string_value(json_object_get(b, "name")),
					    json_pack("{s:O,s:O}", "word", json_object_get(b, "word"),
						      "median_change_pct",
						      json_object_get(b, "median_change_pct")));
		json_object_set_new(json_object_get(c, "b"), "benches", cells);
		json_object_set_new(json_object_get(c, "b"), "regression", json_boolean(reg));
		json_array_append(hosts, json_object_get(c, "b"));
		if (i == 1 && !json)
			printf("baseline: %s  kernel %s  started %s\n\n", labels[0],
			       json_string_value(json_object_get(json_object_get(c, "a"), "kernel")),
			       rs[0].started ? rs[0].started : "");
		json_decref(c);
	}
	if (json) {
		json_t *doc = json_pack("{s:s,s:o,s:o,s:b}", "baseline", labels[0], "benches",
					json_incref(cols), "hosts", json_incref(hosts), "regression", any);
		if (!doc || json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER))
			rc = EXIT_RUNTIME;
		putchar('\n');
		json_decref(doc);
	} else if (n < 2) {
		printf("baseline: %s: no other host in the selection\n", labels[0]);
	} else {
		size_t k, h;
		json_t *col, *row;
		printf("%-24s  %-20s", "host", "kernel");
		json_array_foreach(cols, k, col)
			printf("  %-18.18s", json_string_value(col));
		putchar('\n');
		json_array_foreach(hosts, h, row) {
			printf("%-24.24s  %-20.20s", json_string_value(json_object_get(row, "label")),
			       json_string_value(json_object_get(row, "kernel")));
			json_array_foreach(cols, k, col) {
				const json_t *cell = json_object_get(json_object_get(row, "benches"),
								     json_string_value(col));
				char buf[40] = "-";
				const json_t *pc = json_object_get(cell, "median_change_pct");
				if (cell && json_is_number(pc))
					snprintf(buf, sizeof(buf), "%s %+.1f%%",
						 json_string_value(json_object_get(cell, "word")),
						 json_number_value(pc));
				else if (cell)
					snprintf(buf, sizeof(buf), "%s",
						 json_string_value(json_object_get(cell, "word")));
				printf("  %-18s", buf);
			}
			putchar('\n');
		}
		printf("\n%d host(s) against %s: %s\n", n - 1, labels[0],
		       any ? "REGRESSION (a bench slower, or a verdict worse)" : "no regression");
	}
	json_decref(hosts);
	json_decref(cols);
	if (fflush(stdout))
		rc = EXIT_RUNTIME;
	if (rc == EXIT_OK && any)
		rc = EXIT_REGRESSION;
out:
	for (int i = 0; i < n; i++)
		result_free(&rs[i]);
	free(rs);
	free(labels);
	return rc;
}

/* The option combinations compare refuses; EXIT_USAGE said on stderr, else 0. */
static int compare_check_args(const struct fleet_sel *sel, int npos, int nhist, int floor_on)
{
	char err[1024];
	if (fleetsel_check(sel, npos, 1, err, sizeof(err))) {
		fprintf(stderr, "scalebench compare: %s\n", err);
		return EXIT_USAGE;
	}
	if (nhist && sel->latest) {
		fprintf(stderr, "scalebench compare: --history-from compares given results, not "
				"--latest-per-host\n");
		return EXIT_USAGE;
	}
	if (floor_on && sel->latest) {
		fprintf(stderr, "scalebench compare: --noise-floor compares given results, not "
				"--latest-per-host\n");
		return EXIT_USAGE;
	}
	return 0;
}

/* The results named (files or history ids) loaded into rs and labels; *nread of them loaded. */
static int compare_load_inputs(char **pos, int npos, const char *dbspec, struct run_result *rs,
			       char (*labels)[64], int *nread)
{
	char err[1024];
	for (; *nread < npos; (*nread)++)
		if (result_load_spec(pos[*nread], dbspec, &rs[*nread], labels[*nread], sizeof(labels[0]),
				     err, sizeof(err))) {
			fprintf(stderr, "scalebench compare: %s\n", err);
			return EXIT_USAGE;
		}
	return EXIT_OK;
}

/* --history-from: the spread of the given results, the same for every candidate (freed on error). */
static int compare_given_noise(const struct opt_list *hist, const char *dbspec, struct noise_set *given)
{
	char err[1024];
	for (int i = 0; i < hist->n; i++) {
		struct run_result h;
		char hl[64];
		if (result_load_spec(hist->v[i], dbspec, &h, hl, sizeof(hl), err, sizeof(err))) {
			fprintf(stderr, "scalebench compare: --history-from: %s\n", err);
			noise_free(given);
			return EXIT_USAGE;
		}
		int bad = noise_add_run(given, &h);
		result_free(&h);
		if (bad) {
			fprintf(stderr, "scalebench compare: out of memory\n");
			noise_free(given);
			return EXIT_RUNTIME;
		}
	}
	if (hist->n)
		noise_finish(given);
	return EXIT_OK;
}

/* Where each candidate's noise floor comes from. */
struct floor_src {
	const struct noise_set *given; /* --history-from's, or NULL-floored */
	int nhist, on;
	double k;
	int min_runs;
	const char *dbspec;
};

/* Each result after the first against the first: printed as text or gathered into all. */
static int compare_candidates(struct run_result *rs, char (*labels)[64], int npos, struct cmp_opts *o,
			      const struct floor_src *fl, int json, json_t *all, int *any,
			      int *insufficient)
{
	char err[1024];
	for (int i = 1; i < npos; i++) {
		int reg = 0, nruns = 0;
		struct noise_set ns = {0};
		o->floor_min_runs = fl->min_runs;
		if (fl->nhist) {
			o->floors = fl->given->floors;
			o->nfloors = fl->given->floors ? fl->given->n : 0;
		} else if (fl->on) {
			if (noise_for_result(fl->dbspec, &rs[i], &ns, &nruns, err, sizeof(err)))
				fprintf(stderr, "scalebench compare: no noise floor for %s: %s\n",
					labels[i], err);
			o->floors = ns.floors;
			o->nfloors = ns.floors ? ns.n : 0;
		}
		if (fl->on)
			o->floor_k = fl->k;
		json_t *c = compare_results(&rs[0], labels[0], &rs[i], labels[i], o, &reg);
		noise_free(&ns);
		o->floors = NULL;
		o->nfloors = 0;
		if (!c) {
			fprintf(stderr, "scalebench compare: out of memory\n");
			return EXIT_RUNTIME;
		}
		*any |= reg;
		*insufficient += (int)json_integer_value(json_object_get(
			json_object_get(json_object_get(c, "summary"), "benches"), "insufficient"));
		if (!json) {
			if (i > 1)
				printf("\n");
			compare_print_text(c, stdout);
		}
		json_array_append_new(all, c);
	}
	return EXIT_OK;
}

int cmd_compare(int argc, char **argv, int full_argc, char **full_argv)
{
	const char *dbspec = NULL, *format = "text";
	double threshold = 5, alpha = 0.01;
	int help = 0, strict = 0, floor_on = 0, keep_shift = 0, unpaired = 0, no_padj = 0;
	uint64_t min_reps = 3, floor_runs = 3;
	double floor_k = 3, decisive = 0;
	struct fleet_sel sel = {0};
	struct opt_list hist = {0};
	int ab = 0;
	struct ab_args aa = {.ci_pct = 2};
	const struct opt opts[] = {
		{"ab", 0, OPT_FLAG, NULL, "run both sides now, pair by pair: compare --ab SIDE_A SIDE_B [BENCH|FAMILY ...]; a side is - (as the command says) or bin=PATH,dir=PATH,p=KEY=VALUE,label=NAME", 0, 0, NULL, &ab, NULL},
		{"repeat", 'r', OPT_U64, "K", "--ab: repetition pairs per bench (default 5)", 2, 1000, NULL, &aa.repeat, &aa.repeat_seen},
		{"quick", 0, OPT_FLAG, NULL, "--ab: run's small sweeps", 0, 0, NULL, &aa.quick, &aa.seen},
		{"full", 0, OPT_FLAG, NULL, "--ab: run's large sweeps", 0, 0, NULL, &aa.full, &aa.seen},
		{"max-n", 'n', OPT_U64, "N", "--ab: largest N of every sweep", 1, 1e9, NULL, &aa.max_n, &aa.seen},
		{"min-n", 0, OPT_U64, "N", "--ab: measure only points >= N", 1, 1e9, NULL, &aa.min_n, &aa.seen},
		{"budget", 'b', OPT_DOUBLE, "SECONDS", "--ab: sampling time budget per point (as run's)", 0.001, 3600, NULL, &aa.budget, &aa.budget_seen},
		{"ci", 0, OPT_DOUBLE, "PCT", "--ab: stop a point when the median's 95% CI is within +/-PCT% (default 2)", 0.1, 50, NULL, &aa.ci_pct, &aa.ci_seen},
		{"param", 'p', OPT_LIST, "KEY=VALUE", "--ab: a parameter for both sides (repeatable; a side's own: p=KEY=VALUE in its spec)", 0, 0, NULL, &aa.params, &aa.seen},
		{"dir", 'd', OPT_STR, "PATH", "--ab: target directory of both sides (a side's own: dir=PATH; default $TMPDIR or /tmp)", 0, 0, NULL, &aa.dir, &aa.seen},
		{"cpus", 0, OPT_STR, "LIST", "--ab: pin both sides' runs to these CPUs", 0, 0, NULL, &aa.cpus, &aa.seen},
		{"output", 'o', OPT_STR, "PREFIX", "--ab: write the two sides' merged results to PREFIX-a.json and PREFIX-b.json", 0, 0, NULL, &aa.output, &aa.seen},
		{"quiet", 'q', OPT_FLAG, NULL, "--ab: no progress on stderr", 0, 0, NULL, &aa.quiet, &aa.seen},
		{"detect", 0, OPT_DOUBLE, "PCT", "--ab: give a bench more pairs while its test would find only a change larger than PCT% (9 times in 10), up to --max-pairs", 0.1, 1000, NULL, &aa.detect_pct, &aa.seen},
		{"max-pairs", 0, OPT_U64, "M", "--ab --detect: at most M pairs per bench (default 3 times -r)", 2, 1000, NULL, &aa.max_pairs, &aa.max_pairs_seen},
		{"threshold", 't', OPT_DOUBLE, "PCT", "a median change under PCT% is \"same\" (default 5)", 0, 1000, NULL, &threshold, NULL},
		{"alpha", 0, OPT_DOUBLE, "P", "family-wise significance level over the benches (default 0.01)", 1e-12, 0.5, NULL, &alpha, NULL},
		{"min-repetitions", 0, OPT_U64, "K", "repetitions a side needed to call a change (default 3)", 2, 1000, NULL, &min_reps, NULL},
		{"strict", 0, OPT_FLAG, NULL, "with fewer repetitions, judge on the samples of one run (false alarms likely)", 0, 0, NULL, &strict, NULL},
		{"decisive", 0, OPT_DOUBLE, "F", "a change of F times or more at the top of the sweep, every repetition beyond every other side's, is called with any repetitions (default 6, more when the history's spread says so)", 1.01, 1e6, NULL, &decisive, NULL},
		{"keep-shift", 0, OPT_FLAG, NULL, "judge each bench on its whole change, not its change beyond the run shift (the median change of all benches)", 0, 0, NULL, &keep_shift, NULL},
		{"unpaired", 0, OPT_FLAG, NULL, "the two sides of one --ab run: test them as two independent runs (Welch's test, the run shift), not on their pairs", 0, 0, NULL, &unpaired, NULL},
		{"no-probe-adjust", 0, OPT_FLAG, NULL, "take each repetition's level as measured, not adjusted for the machine-speed probe's page-fault time around its points (docs/compare.md: when the systems compared differ in their page-fault path)", 0, 0, NULL, &no_padj, NULL},
		{"history-from", 0, OPT_LIST, "RESULT", "earlier results of B's host to take the run-to-run spread from instead of the history database (repeatable, up to 32)", 0, 0, NULL, &hist, NULL},
		{"noise-floor", 0, OPT_FLAG, NULL, "also demand a change beyond the run-to-run spread of earlier runs in the history", 0, 0, NULL, &floor_on, NULL},
		{"floor-k", 0, OPT_DOUBLE, "K", "with --noise-floor: the floor is K times the spread (default 3)", 0.1, 1000, NULL, &floor_k, NULL},
		{"floor-runs", 0, OPT_U64, "M", "with --noise-floor: earlier runs needed for a floor (default 3)", 2, 1000, NULL, &floor_runs, NULL},
		{"format", 'f', OPT_CHOICE, "FMT", "text (table, default) or json", 0, 0, "text|json", &format, NULL},
		{"db", 0, OPT_STR, "PATH|URL", "history database for ids (default as for history)", 0, 0, NULL, &dbspec, NULL},
		FLEETSEL_OPTS(sel),
		{"help", 'h', OPT_FLAG, NULL, "this help", 0, 0, NULL, &help, NULL},
		{0},
	};
	char *pos[MAX_INPUTS];
	int npos;
	int orc = opt_command("compare", opts, argc, argv, pos, MAX_INPUTS, &npos, &help, usage);
	if (orc != OPT_GO)
		return orc;
	int urc = compare_check_args(&sel, npos, hist.n, floor_on);
	if (urc)
		return urc;
	if (!ab && (aa.seen || aa.repeat_seen || aa.budget_seen || aa.ci_seen || aa.max_pairs_seen)) {
		fprintf(stderr, "scalebench compare: -r, --quick, --full, -n, --min-n, -b, --ci, -p, "
				"--dir, --cpus, -o, -q, --detect and --max-pairs are run options of "
				"--ab only\n");
		return EXIT_USAGE;
	}
	if (aa.max_pairs_seen && !(aa.detect_pct > 0)) {
		fprintf(stderr, "scalebench compare: --max-pairs caps what --detect adds: give "
				"--detect PCT too\n");
		return EXIT_USAGE;
	}
	if (aa.detect_pct > 0) {
		uint64_t k = aa.repeat_seen ? aa.repeat : 5;
		if (!aa.max_pairs_seen)
			aa.max_pairs = 3 * k;
		if (aa.max_pairs < k) {
			fprintf(stderr, "scalebench compare: --max-pairs %llu is fewer than the %llu "
					"pairs every bench gets (-r)\n",
				(unsigned long long)aa.max_pairs, (unsigned long long)k);
			return EXIT_USAGE;
		}
	}
	if (ab && (sel.latest || hist.n)) {
		fprintf(stderr, "scalebench compare: --ab runs its two sides; not with %s\n",
			sel.latest ? "--latest-per-host" : "--history-from");
		return EXIT_USAGE;
	}
	if (sel.latest) {
		struct cmp_opts fo = {.threshold = threshold / 100, .alpha = alpha,
				      .min_reps = (int)min_reps, .strict = strict, .decisive = decisive,
				      .keep_shift = keep_shift, .unpaired = unpaired, .no_probe_adjust = no_padj};
		return compare_fleet(&sel, dbspec, &fo, !strcmp(format, "json"));
	}
	if (npos < 2 && !ab) {
		fprintf(stderr, "scalebench compare: needs two results or more (A B [C ...]), or "
				"--ab SIDE_A SIDE_B\n");
		return EXIT_USAGE;
	}
	struct run_result *rs = calloc((size_t)npos + 2, sizeof(*rs));
	char(*labels)[64] = calloc((size_t)npos + 2, sizeof(*labels));
	int nread = 0, rc = EXIT_OK;
	if (!rs || !labels) {
		fprintf(stderr, "scalebench compare: out of memory\n");
		rc = EXIT_RUNTIME;
		goto out;
	}
	struct cmp_opts o = {.threshold = threshold / 100, .alpha = alpha, .min_reps = (int)min_reps,
			     .strict = strict, .decisive = decisive, .keep_shift = keep_shift,
			     .unpaired = unpaired, .no_probe_adjust = no_padj};
	if (ab) { /* both sides run now, pair by pair (ab.c) */
		aa.cmp = &o;
		rc = ab_run(&aa, pos, npos, full_argc, full_argv, rs, labels);
		if (rc)
			goto out;
		nread = npos = 2;
	} else {
		rc = compare_load_inputs(pos, npos, dbspec, rs, labels, &nread);
		if (rc)
			goto out;
	}
	struct noise_set given = {0}; /* --history-from: the same spread for every candidate */
	rc = compare_given_noise(&hist, dbspec, &given);
	if (rc)
		goto out;
	int json = !strcmp(format, "json"), any = 0, insufficient = 0;
	json_t *all = json_array();
	struct floor_src fl = {.given = &given, .nhist = hist.n, .on = floor_on, .k = floor_k,
				 .min_runs = (int)floor_runs, .dbspec = dbspec};
	rc = compare_candidates(rs, labels, npos, &o, &fl, json, all, &any, &insufficient);
	if (json && rc == EXIT_OK) {
		json_t *doc = json_pack("{s:o,s:b}", "comparisons", json_incref(all), "regression", any);
		if (!doc || json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER))
			rc = EXIT_RUNTIME;
		putchar('\n');
		json_decref(doc);
	}
	json_decref(all);
	noise_free(&given);
	if (insufficient)
		fprintf(stderr, "scalebench compare: %d bench comparison%s with fewer than %d "
				"repetitions a side and no decisive change: no regression called there "
				"(run with -r %d, or --strict to judge the samples of one run)\n",
			insufficient, insufficient == 1 ? "" : "s", (int)min_reps, (int)min_reps);
	if (fflush(stdout))
		rc = EXIT_RUNTIME;
	if (rc == EXIT_OK && any)
		rc = EXIT_REGRESSION;
out:
	for (int i = 0; rs && i < nread; i++)
		result_free(&rs[i]);
	free(rs);
	free(labels);
	return rc;
}
