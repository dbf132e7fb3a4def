/* SPDX-License-Identifier: MIT */
/* scalebench compare A B [C ...]: A is the baseline, each other result is
 * compared with it. Exit 3 when any comparison finds a regression, so CI
 * can fail on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compare.h"
#include "db.h"
#include "opt.h"

#define MAX_INPUTS 16

static void usage(FILE *f, const struct opt *opts)
{
	fprintf(f,
		"usage: scalebench compare A B [C ...] [options]\n\n"
		"Compare result B (and C ...) with the baseline A, per bench and point:\n"
		"the change of the median and of p99, a Mann-Whitney U test on the latency\n"
		"histograms, Cliff's delta as the effect size, and a word: same (median\n"
		"change under the threshold), slower or faster (beyond it and significant),\n"
		"noisy (beyond it but not significant). Then a word per bench: slower when\n"
		"2/3 of its points are slower and their median change is beyond the\n"
		"threshold, or when the top third of its sweep is slower (a whole run can\n"
		"shift a little, so single points do not decide). Verdict changes come first.\n"
		"Benches whose version differs are refused; what only one side has is named.\n"
		"A and B are result files or history ids (12 or #12, see `scalebench history`).\n\n");
	opt_help(f, opts);
	fprintf(f, "\nexit: 0 no regression, 3 a significant regression (a bench slower, or a\n"
		   "verdict significantly worse), 2 bad arguments or an unreadable input,\n"
		   "1 other failure.\n");
}

int cmd_compare(int argc, char **argv)
{
	const char *dbspec = NULL, *format = "text";
	double threshold = 5, alpha = 0.01;
	int help = 0;
	const struct opt opts[] = {
		{"threshold", 't', OPT_DOUBLE, "PCT", "a median change under PCT% is \"same\" (default 5)", 0, 1000, NULL, &threshold, NULL},
		{"alpha", 0, OPT_DOUBLE, "P", "significance level of the test per point (default 0.01)", 1e-12, 0.5, NULL, &alpha, NULL},
		{"format", 'f', OPT_CHOICE, "FMT", "text (table, default) or json", 0, 0, "text|json", &format, NULL},
		{"db", 0, OPT_STR, "PATH|URL", "history database for ids (default as for history)", 0, 0, NULL, &dbspec, NULL},
		{"help", 'h', OPT_FLAG, NULL, "this help", 0, 0, NULL, &help, NULL},
		{0},
	};
	char err[1024], *pos[MAX_INPUTS];
	int npos;
	if (opt_parse(opts, argc, argv, pos, MAX_INPUTS, &npos, err, sizeof(err))) {
		fprintf(stderr, "scalebench compare: %s\n", err);
		return EXIT_USAGE;
	}
	if (help) {
		usage(stdout, opts);
		return EXIT_OK;
	}
	if (npos < 2) {
		fprintf(stderr, "scalebench compare: needs two results or more (A B [C ...])\n");
		return EXIT_USAGE;
	}
	struct run_result *rs = calloc((size_t)npos, sizeof(*rs));
	char(*labels)[64] = calloc((size_t)npos, sizeof(*labels));
	int nread = 0, rc = EXIT_OK;
	if (!rs || !labels) {
		fprintf(stderr, "scalebench compare: out of memory\n");
		rc = EXIT_RUNTIME;
		goto out;
	}
	for (; nread < npos; nread++)
		if (result_load_spec(pos[nread], dbspec, &rs[nread], labels[nread], sizeof(labels[0]),
				     err, sizeof(err))) {
			fprintf(stderr, "scalebench compare: %s\n", err);
			rc = EXIT_USAGE;
			goto out;
		}
	struct cmp_opts o = {.threshold = threshold / 100, .alpha = alpha};
	int json = !strcmp(format, "json"), any = 0;
	json_t *all = json_array();
	for (int i = 1; i < npos; i++) {
		int reg = 0;
		json_t *c = compare_results(&rs[0], labels[0], &rs[i], labels[i], &o, &reg);
		if (!c) {
			fprintf(stderr, "scalebench compare: out of memory\n");
			rc = EXIT_RUNTIME;
			break;
		}
		any |= reg;
		if (!json) {
			if (i > 1)
				printf("\n");
			compare_print_text(c, stdout);
		}
		json_array_append_new(all, c);
	}
	if (json && rc == EXIT_OK) {
		json_t *doc = json_pack("{s:o,s:b}", "comparisons", json_incref(all), "regression", any);
		if (!doc || json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER))
			rc = EXIT_RUNTIME;
		putchar('\n');
		json_decref(doc);
	}
	json_decref(all);
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
