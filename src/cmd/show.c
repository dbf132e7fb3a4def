/* SPDX-License-Identifier: MIT */
/* scalebench show ID|FILE: one stored run (or result file), as the
 * summary, the JSON result document (what compare and report read back),
 * CSV, or a kernel-testing format (fleet.c), whose statuses come from
 * compare against --baseline when one is given. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "out/result_io.h"
#include "core/compare.h"
#include "out/db.h"
#include "cmd/jobrun.h"
#include "cmd/opt.h"
#include "cmd/outfmt.h"
#include "out/report.h"
#include "core/result.h"

static void usage(FILE *f, const struct opt *opts)
{
	fprintf(f, "usage: scalebench show ID|FILE [options]\n\n"
		   "Print run ID of the history database (see `scalebench history`), or a\n"
		   "result file. kcidb, lava, lkp and ktap write one test per bench, variant\n"
		   "and file system (scalebench.fs.create[ext4]) for KernelCI, LAVA, the\n"
		   "kernel test robot and KTAP readers (docs/fleet.md); with --baseline, a\n"
		   "bench that compare calls slower fails. --job prints the job of a run made\n"
		   "from a job file as a job file (docs/studies.md).\n\n");
	opt_help(f, opts);
	fprintf(f, "\nexit: 0 printed, 1 the database or the stored run could not be read,\n"
		   "2 bad arguments, or a FILE or --baseline that cannot be read.\n");
}

int cmd_show(int argc, char **argv)
{
	const char *dbspec = NULL, *format = "text", *baseline = NULL;
	double threshold = 5;
	int strict = 0;
	int help = 0, job = 0;
	const struct opt opts[] = {
		{"job", 0, OPT_FLAG, NULL, "print the job of a run made from a job file, resolved, as a job file that runs the same benches, parameters and N", 0, 0, NULL, &job, NULL},
		{"format", 'f', OPT_CHOICE, "FMT", outfmt_help(OUTFMT_SHOW), 0, 0, outfmt_choices(OUTFMT_SHOW), &format, NULL},
		{"baseline", 0, OPT_STR, "ID|FILE", "kcidb, lava, lkp, ktap: compare with this run; a bench compare calls slower fails", 0, 0, NULL, &baseline, NULL},
		{"threshold", 't', OPT_DOUBLE, "PCT", "with --baseline: a median change under PCT% is \"same\" (default 5)", 0, 1000, NULL, &threshold, NULL},
		{"strict", 0, OPT_FLAG, NULL, "with --baseline: judge benches with fewer than 3 repetitions a side on their samples (as compare --strict)", 0, 0, NULL, &strict, NULL},
		{"db", 0, OPT_STR, "PATH|URL", "the history database (default as for history)", 0, 0, NULL, &dbspec, NULL},
		{"help", 'h', OPT_FLAG, NULL, "this help", 0, 0, NULL, &help, NULL},
		{0},
	};
	char err[1024], *pos[1];
	int npos;
	int orc = opt_command("show", opts, argc, argv, pos, 1, &npos, &help, usage);
	if (orc != OPT_GO)
		return orc;
	if (npos != 1) {
		fprintf(stderr, "scalebench show: which run? (ID or FILE)\n");
		return EXIT_USAGE;
	}
	int fleet = fleet_format_from_name(format);
	if (baseline && fleet < 0) {
		fprintf(stderr, "scalebench show: --baseline needs --format kcidb, lava, lkp or ktap\n");
		return EXIT_USAGE;
	}
	struct run_result r, base;
	json_t *doc = NULL;
	char label[256], blabel[256];
	int64_t id = db_parse_id(pos[0]);
	struct stat st;
	if (stat(pos[0], &st) == 0 || id < 0) { /* a result file */
		if (result_load_spec(pos[0], dbspec, &r, label, sizeof(label), err, sizeof(err))) {
			fprintf(stderr, "scalebench show: %s\n", err);
			return EXIT_USAGE;
		}
		doc = result_to_json(&r);
	} else {
		struct db *d;
		if (db_open(dbspec, DB_READ, &d, err, sizeof(err))) {
			fprintf(stderr, "scalebench show: %s\n", err);
			return EXIT_RUNTIME;
		}
		int rc = db_get_result(d, id, &r, &doc, err, sizeof(err));
		db_close(d);
		if (rc) {
			fprintf(stderr, "scalebench show: %s\n", err);
			return EXIT_RUNTIME;
		}
		snprintf(label, sizeof(label), "#%lld", (long long)id);
	}
	json_t *cmp = NULL;
	if (baseline) {
		if (result_load_spec(baseline, dbspec, &base, blabel, sizeof(blabel), err, sizeof(err))) {
			fprintf(stderr, "scalebench show: --baseline: %s\n", err);
			json_decref(doc);
			result_free(&r);
			return EXIT_USAGE;
		}
		struct cmp_opts o = {.threshold = threshold / 100, .alpha = 0.01, .strict = strict};
		int reg = 0;
		cmp = compare_results(&base, blabel, &r, label, &o, &reg);
		result_free(&base);
	}
	int out = EXIT_OK;
	/* json: the stored document itself, as validated, so nothing is lost */
	struct outfmt_job oj = {.r = &r, .doc = doc, .cmp = cmp, .label = label};
	if (job) {
		if (jobrun_print(stdout, r.job, label, err, sizeof(err))) {
			fprintf(stderr, "scalebench show: %s\n", err);
			out = EXIT_USAGE;
		}
	} else if ((baseline && !cmp) || outfmt_write(format, &oj)) {
		out = EXIT_RUNTIME;
	}
	json_decref(cmp);
	json_decref(doc);
	result_free(&r);
	return fflush(stdout) ? EXIT_RUNTIME : out;
}
