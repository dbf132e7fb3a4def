/* SPDX-License-Identifier: MIT */
/* scalebench show ID: one stored run, as the summary, the JSON result
 * document (what compare and report read back) or CSV. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "opt.h"
#include "report.h"

static void usage(FILE *f, const struct opt *opts)
{
	fprintf(f, "usage: scalebench show ID [options]\n\n"
		   "Print run ID of the history database (see `scalebench history`).\n\n");
	opt_help(f, opts);
	fprintf(f, "\nexit: 0 printed, 1 the database or the stored run could not be read,\n"
		   "2 bad arguments.\n");
}

int cmd_show(int argc, char **argv)
{
	const char *dbspec = NULL, *format = "text";
	int help = 0;
	const struct opt opts[] = {
		{"format", 'f', OPT_CHOICE, "FMT", "text (summary, default), json (the result document) or csv (one row per bench and point)", 0, 0, "text|json|csv", &format, NULL},
		{"db", 0, OPT_STR, "PATH|URL", "the history database (default as for history)", 0, 0, NULL, &dbspec, NULL},
		{"help", 'h', OPT_FLAG, NULL, "this help", 0, 0, NULL, &help, NULL},
		{0},
	};
	char err[1024], *pos[1];
	int npos;
	if (opt_parse(opts, argc, argv, pos, 1, &npos, err, sizeof(err))) {
		fprintf(stderr, "scalebench show: %s\n", err);
		return EXIT_USAGE;
	}
	if (help) {
		usage(stdout, opts);
		return EXIT_OK;
	}
	int64_t id = npos == 1 ? db_parse_id(pos[0]) : -1;
	if (id < 0) {
		fprintf(stderr, "scalebench show: %s\n",
			npos ? "ID must be a run number from `scalebench history`" : "which run? (ID)");
		return EXIT_USAGE;
	}
	struct db *d;
	if (db_open(dbspec, DB_READ, &d, err, sizeof(err))) {
		fprintf(stderr, "scalebench show: %s\n", err);
		return EXIT_RUNTIME;
	}
	struct run_result r;
	json_t *doc = NULL;
	int rc = db_get_result(d, id, &r, &doc, err, sizeof(err));
	db_close(d);
	if (rc) {
		fprintf(stderr, "scalebench show: %s\n", err);
		return EXIT_RUNTIME;
	}
	int out = EXIT_OK;
	if (!strcmp(format, "json")) {
		/* the stored document itself, as validated, so nothing is lost */
		if (json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER))
			out = EXIT_RUNTIME;
		putchar('\n');
	} else if (!strcmp(format, "csv")) {
		char label[32];
		snprintf(label, sizeof(label), "#%lld", (long long)id);
		const struct run_result *rs[] = {&r};
		const char *labels[] = {label};
		report_write_csv(rs, labels, 1, stdout);
	} else {
		result_print_text(&r, stdout);
	}
	json_decref(doc);
	result_free(&r);
	return fflush(stdout) ? EXIT_RUNTIME : out;
}
