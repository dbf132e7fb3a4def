/* scalebench run: sweep the selected benches in a scratch directory and
 * write the result. Everything it creates is registered (registry.h) and
 * removed at the end, on error, and on SIGINT/SIGTERM, after which the
 * partial result is still written. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "clock.h"
#include "cmd.h"
#include "opt.h"
#include "registry.h"
#include "result.h"
#include "sweep.h"
#include "sys.h"

#define MAX_SELECT 64

struct run_args {
	const char *dir, *output, *format;
	const char *db, *report; /* history database, HTML report (issue 5) */
	int no_db;
	uint64_t max_n, repeat;
	double budget, ci_pct;
	int quick, full, quiet, help;
	int budget_seen;
};

static void usage(FILE *f, const struct opt *opts)
{
	fprintf(f,
		"usage: scalebench run [BENCH|FAMILY ...] [options]\n\n"
		"Sweep each selected bench (default: all) over a geometric series of N and\n"
		"say how its cost grows. BENCH is a name from `scalebench list`, FAMILY a\n"
		"prefix such as fs or net.\n\n");
	opt_help(f, opts);
	fprintf(f, "\nexit: 0 done (failures met by a bench are recorded in the result), 1 the\n"
		   "harness failed, 2 bad arguments or target, 128+signal interrupted (the\n"
		   "partial result is still written).\n");
}

static void iso_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A writable existing directory, or a message. */
static int check_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	if (stat(dir, &st)) {
		snprintf(err, errlen, "--dir %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--dir %s: not a directory", dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK)) {
		snprintf(err, errlen, "--dir %s: not writable: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* The output file's directory must exist and be writable before any work. */
static int check_output(const char *path, char *err, size_t errlen)
{
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", path);
	const char *d = dirname(buf);
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "-o %s: is a directory", path);
		return -1;
	}
	if (access(d, W_OK | X_OK)) {
		snprintf(err, errlen, "-o %s: cannot write in %s: %s", path, d, strerror(errno));
		return -1;
	}
	return 0;
}

static int select_benches(char **pos, int npos, const struct bench **sel, int *nsel, char *err,
			  size_t errlen)
{
	*nsel = 0;
	if (npos == 0) {
		for (int i = 0; i < bench_count; i++)
			sel[(*nsel)++] = bench_table[i];
		return 0;
	}
	for (int p = 0; p < npos; p++) {
		const char *w = pos[p];
		size_t wl = strlen(w);
		if (wl > 2 && !strcmp(w + wl - 2, ".*"))
			wl -= 2; /* "fs.*" = "fs" */
		int found = 0;
		for (int i = 0; i < bench_count; i++) {
			const char *nm = bench_table[i]->name;
			int match = !strncmp(nm, w, wl) && (nm[wl] == 0 || (nm[wl] == '.' && !strchr(w, '.')));
			if (!match)
				continue;
			found = 1;
			int dup = 0;
			for (int k = 0; k < *nsel; k++)
				dup |= sel[k] == bench_table[i];
			if (!dup && *nsel < MAX_SELECT)
				sel[(*nsel)++] = bench_table[i];
		}
		if (!found) {
			snprintf(err, errlen, "unknown bench or family '%s' (see `scalebench list`)", w);
			return -1;
		}
	}
	return 0;
}

/* ---- progress on stderr, with an ETA, only when it is a terminal ---- */
struct progress {
	int on;
	int done, total;   /* points */
	uint64_t t0;
	int ibench, nbench;
	int last_point;
};

static void progress_cb(void *ctx, const struct sweep_progress *p)
{
	struct progress *pg = ctx;
	if (!p->growing && p->point != pg->last_point) {
		pg->done++;
		pg->last_point = p->point;
	}
	if (!pg->on)
		return;
	double el = (double)(clock_ns() - pg->t0) / 1e9;
	char eta[32] = "?";
	if (pg->done > 1) {
		double rem = el / (pg->done - 1) * (pg->total - pg->done + 1);
		snprintf(eta, sizeof(eta), "%.0fs", rem);
	}
	fprintf(stderr, "\r\033[K[%d/%d] %s rep %d/%d  %s N=%llu (point %d/%d)  %.0fs elapsed, ETA %s",
		pg->ibench, pg->nbench, p->bench, p->rep, p->nreps,
		p->growing ? "building" : "measuring", (unsigned long long)p->n, p->point,
		p->npoints, el, eta);
	fflush(stderr);
}

static json_t *options_json(const struct run_args *a, const char *scratch,
			    const struct sweep_opts *so)
{
	return json_pack("{s:s,s:s,s:s?,s:I,s:f,s:f,s:I,s:s,s:I,s:f}", "dir", a->dir, "scratch",
			 scratch, "output", a->output, "max_n", (json_int_t)a->max_n, "budget_s",
			 so->budget_s, "ci_target", so->ci_target, "repeat", (json_int_t)a->repeat,
			 "scale", a->full ? "full" : a->quick ? "quick" : "default", "min_samples",
			 (json_int_t)so->min_samples, "op_timeout_s", so->op_timeout_s);
}

static int dup_argv(struct run_result *r, int argc, char **argv)
{
	r->argv = calloc((size_t)argc + 1, sizeof(char *));
	if (!r->argv)
		return -1;
	for (int i = 0; i < argc; i++) {
		r->argv[i] = strdup(argv[i]);
		if (!r->argv[i])
			return -1;
		r->argc = i + 1;
	}
	return 0;
}

int cmd_run(int argc, char **argv, int full_argc, char **full_argv)
{
	struct run_args a = {.format = "text", .repeat = 1, .ci_pct = 2.0};
	const char *tmp = getenv("TMPDIR");
	a.dir = tmp && *tmp ? tmp : "/tmp";
	const struct opt opts[] = {
		{"dir", 'd', OPT_STR, "PATH", "target directory; a scratch directory is made in it (default $TMPDIR or /tmp)", 0, 0, NULL, &a.dir, NULL},
		{"max-n", 'n', OPT_U64, "N", "largest N of every sweep (default: the bench's, by scale)", 1, 1e9, NULL, &a.max_n, NULL},
		{"budget", 'b', OPT_DOUBLE, "SECONDS", "sampling time budget per point (quick 0.2, default 0.5, full 1)", 0.001, 3600, NULL, &a.budget, &a.budget_seen},
		{"quick", 0, OPT_FLAG, NULL, "small sweeps, the one-minute suite", 0, 0, NULL, &a.quick, NULL},
		{"full", 0, OPT_FLAG, NULL, "large sweeps (to 1,000,000 entries)", 0, 0, NULL, &a.full, NULL},
		{"repeat", 'r', OPT_U64, "K", "repeat each sweep K times, keeping every repetition", 1, 1000, NULL, &a.repeat, NULL},
		{"ci", 0, OPT_DOUBLE, "PCT", "stop a point when the median's 95% CI is within +/-PCT% (default 2)", 0.1, 50, NULL, &a.ci_pct, NULL},
		{"output", 'o', OPT_STR, "FILE", "write the JSON result to FILE (atomically)", 0, 0, NULL, &a.output, NULL},
		{"format", 'f', OPT_CHOICE, "FMT", "what goes to stdout: text (summary, default) or json", 0, 0, "text|json", &a.format, NULL},
		{"db", 0, OPT_STR, "PATH|URL", "store the result in this history database: a SQLite file or postgresql://... (default $XDG_DATA_HOME/scalebench/results.db)", 0, 0, NULL, &a.db, NULL},
		{"no-db", 0, OPT_FLAG, NULL, "do not store the result in the history database", 0, 0, NULL, &a.no_db, NULL},
		{"report", 0, OPT_STR, "FILE", "also write a self-contained HTML report to FILE", 0, 0, NULL, &a.report, NULL},
		{"quiet", 'q', OPT_FLAG, NULL, "no progress on stderr", 0, 0, NULL, &a.quiet, NULL},
		{"help", 'h', OPT_FLAG, NULL, "this help", 0, 0, NULL, &a.help, NULL},
		{0},
	};
	char err[512], *pos[MAX_SELECT];
	int npos;
	if (opt_parse(opts, argc, argv, pos, MAX_SELECT, &npos, err, sizeof(err))) {
		fprintf(stderr, "scalebench run: %s\n", err);
		return EXIT_USAGE;
	}
	if (a.help) {
		usage(stdout, opts);
		return EXIT_OK;
	}
	if (a.quick && a.full) {
		fprintf(stderr, "scalebench run: --quick and --full exclude each other\n");
		return EXIT_USAGE;
	}
	const struct bench *sel[MAX_SELECT];
	int nsel;
	if (select_benches(pos, npos, sel, &nsel, err, sizeof(err)) ||
	    check_dir(a.dir, err, sizeof(err)) ||
	    (a.output && check_output(a.output, err, sizeof(err))) ||
	    (a.report && check_output(a.report, err, sizeof(err)))) {
		fprintf(stderr, "scalebench run: %s\n", err);
		return EXIT_USAGE;
	}

	int rc = reg_init();
	char scratch[4096];
	if (rc == 0)
		rc = reg_mkscratch(a.dir, "scalebench", scratch, sizeof(scratch));
	if (rc) {
		fprintf(stderr, "scalebench run: --dir %s: cannot make a scratch directory: %s\n",
			a.dir, strerror(-rc));
		return EXIT_USAGE;
	}

	struct clock_info clk;
	clock_calibrate(&clk);
	struct sweep_opts so = {
		.scratch = scratch, .max_n = a.max_n, .quick = a.quick, .full = a.full,
		.repeat = (int)a.repeat, .ci_target = a.ci_pct / 100.0, .min_samples = 30,
		.op_timeout_s = 10, .clk = &clk,
	};
	so.budget_s = a.budget_seen ? a.budget : a.quick ? 0.2 : a.full ? 1.0 : 0.5;

	struct run_result r;
	memset(&r, 0, sizeof(r));
	char ts[32];
	iso_now(ts, sizeof(ts));
	r.schema_version = SB_SCHEMA_VERSION;
	r.tool_version = strdup(SB_VERSION);
	r.started = strdup(ts);
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	r.host = strdup(host);
	r.clock = clk;
	r.options = options_json(&a, scratch, &so);
	r.snapshot = sys_snapshot(scratch);
	if (!r.tool_version || !r.started || !r.host || dup_argv(&r, full_argc, full_argv)) {
		fprintf(stderr, "scalebench run: out of memory\n");
		result_free(&r);
		return EXIT_RUNTIME;
	}

	struct progress pg = {.on = !a.quiet && isatty(2), .t0 = clock_ns(), .nbench = nsel};
	uint64_t series[64];
	for (int i = 0; i < nsel; i++)
		pg.total += sweep_series(sweep_max_n(sel[i], &so), series, 64) * (int)a.repeat;
	so.progress = progress_cb;
	so.progress_ctx = &pg;

	int exit_code = EXIT_OK;
	uid_t euid = geteuid();
	for (int i = 0; i < nsel && !reg_stop_requested(); i++) {
		const struct bench *b = sel[i];
		struct bench_result *br = result_add_bench(&r);
		if (!br) {
			exit_code = EXIT_RUNTIME;
			break;
		}
		br->name = strdup(b->name);
		br->axis = strdup(b->axis);
		br->summary = strdup(b->summary);
		br->op_desc = strdup(b->op_desc);
		br->version = b->version;
		pg.ibench = i + 1;
		pg.last_point = 0;
		const char *skip = b->unavailable;
		if (!skip && (b->needs & NEED_ROOT) && euid != 0)
			skip = "needs root";
		if (skip) {
			br->status = BS_SKIPPED;
			br->skip_reason = strdup(skip);
			continue;
		}
		if (sweep_bench(b, &so, br) < 0) {
			fprintf(stderr, "scalebench run: %s: harness failure\n", b->name);
			exit_code = EXIT_RUNTIME;
		}
	}
	if (pg.on)
		fprintf(stderr, "\r\033[K");
	r.interrupted = reg_stop_requested();
	iso_now(ts, sizeof(ts));
	r.finished = strdup(ts);
	r.duration_s = (double)(clock_ns() - pg.t0) / 1e9;

	reg_cleanup(); /* before writing: nothing of ours outlives a failed write */
	if (a.output && result_write_file(&r, a.output, err, sizeof(err))) {
		fprintf(stderr, "scalebench run: cannot write the result: %s\n", err);
		exit_code = EXIT_RUNTIME;
	}
	if (run_store_history(&r, "run", a.db, a.no_db, a.quiet))
		exit_code = EXIT_RUNTIME;
	if (a.report && run_write_report(&r, "run", a.report))
		exit_code = EXIT_RUNTIME;
	if (!strcmp(a.format, "json")) {
		json_t *j = result_to_json(&r);
		if (!j || json_dumpf(j, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER))
			exit_code = EXIT_RUNTIME;
		putchar('\n');
		json_decref(j);
	} else {
		result_print_text(&r, stdout);
		if (a.output)
			printf("result: %s\n", a.output);
	}
	if (fflush(stdout))
		exit_code = EXIT_RUNTIME;
	if (r.interrupted) {
		fprintf(stderr, "scalebench run: interrupted by signal %d; partial result%s%s\n",
			(int)reg_interrupted, a.output ? " written to " : " printed",
			a.output ? a.output : "");
		exit_code = EXIT_SIGNAL + (int)reg_interrupted;
	}
	result_free(&r);
	return exit_code;
}
