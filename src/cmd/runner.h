/* SPDX-License-Identifier: MIT */
/* What `run` and `matrix` share: the common options, bench selection with
 * variants and --param, the sweep of the selected benches on one target
 * directory, and writing the result. */
#ifndef SB_RUNNER_H
#define SB_RUNNER_H

#include <stdio.h>
#include <jansson.h>
#include "core/bench.h"
#include "out/result_io.h"
#include "bench/table.h"
#include "cmd/opt.h"
#include "cmd/outfmt.h"
#include "core/result.h"
#include "core/sweep.h"

/* Words naming benches or families on the command line, at most. */
#define MAX_SELECT 64
/* One slot per bench of list.h: a selection is deduplicated, so it never
 * holds more, however many benches the table grows to. */
enum {
	SEL_SLOTS = 0
#define BENCH(x) +1
#include "bench/list.h"
#undef BENCH
};

struct run_args {
	const char *dir, *output, *format, *cpus;
	const char *db, *report; /* history database, HTML report */
	const char *host_label;  /* --host-label: the host name the result records */
	int no_db;
	uint64_t max_n, repeat;
	uint64_t min_n;   /* --min-n: points below it are not measured */
	double budget, ci_pct;
	double max_latency_us; /* --max-latency (0: none) */
	int max_latency_seen;
	int quick, full, quiet, help;
	int in_process;   /* --in-process: no worker processes */
	int decide, no_decide; /* --decide / --no-decide (default: on without -r) */
	int repeat_seen;  /* -r K given: the user's repetitions, none added (unless --decide) */
	int fit_oversub;  /* --fit-oversubscribed: fit points with more tasks than CPUs */
	int profile;      /* --profile: profiled points at the smallest and largest N */
	const char *profile_at; /* --profile-at N[,N...]: and at these (implies --profile) */
	int profile_apart; /* --profile-apart: a whole workload profiled apart too (implies --profile) */
	int budget_seen;
	const char *mem_limit; /* --mem-limit SIZE: workers in a memory cgroup */
	const char *tasks;     /* --tasks K|auto: the tasks axis (src/core/tasks.c), or NULL */
	struct opt_list params;
};

/* The options every sweeping command takes, as opt table entries. */
#define RUNNER_OPTS(a)                                                                              \
	{"max-n", 'n', OPT_U64, "N", "largest N of every sweep (default: the bench's, by scale)", 1, 1e9, NULL, &(a).max_n, NULL}, \
	{"min-n", 0, OPT_U64, "N", "measure only points >= N (the load is still built from 0); with --max-n N: one point", 1, 1e9, NULL, &(a).min_n, NULL}, \
	{"budget", 'b', OPT_DOUBLE, "SECONDS", "sampling time budget per point (quick 0.2, or 0.05 for benches that spend it all; default 0.5; full 1)", 0.001, 3600, NULL, &(a).budget, &(a).budget_seen}, \
	{"quick", 0, OPT_FLAG, NULL, "small sweeps, the one-minute suite", 0, 0, NULL, &(a).quick, NULL}, \
	{"tasks", 0, OPT_STR, "K|auto", "sweep K = 1, 2, 4 ... K tasks doing the bench's op at once at its base load, instead of the load (auto: twice the CPUs online, --quick the CPUs); -p as=proc|thread, -p shared=0|1", 0, 0, NULL, &(a).tasks, NULL}, \
	{"full", 0, OPT_FLAG, NULL, "large sweeps (to 1,000,000 entries)", 0, 0, NULL, &(a).full, NULL}, \
	{"repeat", 'r', OPT_U64, "K", "repeat each sweep K times (each in a new worker process), keeping every repetition; interleaved: repetition 1 of every bench, then 2 ...", 1, 1000, NULL, &(a).repeat, &(a).repeat_seen}, \
	{"ci", 0, OPT_DOUBLE, "PCT", "stop a point when the median's 95% CI is within +/-PCT% (default 2)", 0.1, 50, NULL, &(a).ci_pct, NULL}, \
	{"max-latency", 0, OPT_DOUBLE, "US", "fail (exit 3) when any sample of a bench that checks a bound (rt.wakeup) exceeds US microseconds, with first-failure data", 0, 1e9, NULL, &(a).max_latency_us, &(a).max_latency_seen}, \
	{"param", 'p', OPT_LIST, "KEY=VALUE", "set a parameter of the benches that take it (`scalebench list BENCH`); keeps only the variants that agree (repeatable)", 0, 0, NULL, &(a).params, NULL}, \
	{"output", 'o', OPT_STR, "FILE", "write the JSON result to FILE (atomically)", 0, 0, NULL, &(a).output, NULL}, \
	{"format", 'f', OPT_CHOICE, "FMT", outfmt_help(OUTFMT_RUN), 0, 0, outfmt_choices(OUTFMT_RUN), &(a).format, NULL}, \
	{"db", 0, OPT_STR, "PATH|URL", "store the result in this history database: a SQLite file or postgresql://... (default $XDG_DATA_HOME/scalebench/results.db)", 0, 0, NULL, &(a).db, NULL}, \
	{"host-label", 0, OPT_STR, "NAME", "record NAME as the result's host instead of gethostname() (a fleet's own name for the machine)", 0, 0, NULL, &(a).host_label, NULL}, \
	{"no-db", 0, OPT_FLAG, NULL, "do not store the result in the history database", 0, 0, NULL, &(a).no_db, NULL}, \
	{"report", 0, OPT_STR, "FILE", "also write a self-contained HTML report to FILE", 0, 0, NULL, &(a).report, NULL}, \
	{"cpus", 0, OPT_STR, "LIST", "pin the run and every process it starts to these CPUs (0, 0,2, 0-1); a one-thread bench runs each point on the fastest of them", 0, 0, NULL, &(a).cpus, NULL}, \
	{"decide", 0, OPT_FLAG, NULL, "a load axis's verdict (N over a decade or more) unclear, or a growth on weak evidence: more repetitions, N in shuffled order, until settled or 1x (--quick), 2x or 3x (--full) the sweeps' time is spent; a sweep that met a limit (ENOSPC...) too, below it; not a bench making files on a journal-less file system (the default without -r; with -r K only if asked)", 0, 0, NULL, &(a).decide, NULL}, \
	{"no-decide", 0, OPT_FLAG, NULL, "no repetitions added, not even for net.request", 0, 0, NULL, &(a).no_decide, NULL}, \
	{"profile", 0, OPT_FLAG, NULL, "also sample where each bench's operation spends its CPU (kernel and user, perf_event_open) at its smallest and largest N, in points apart from the timed ones (a whole workload, fs.fileserver and work.round2: in its timed points, every 2 ms of CPU): top functions, cost per op, and which functions the growth is in (docs/method.md, Profiles)", 0, 0, NULL, &(a).profile, NULL}, \
	{"profile-at", 0, OPT_STR, "N[,N...]", "--profile, and also at these N (up to 6; each bench at those within its sweep, an N between two of its points profiled on the way there)", 0, 0, NULL, &(a).profile_at, NULL}, \
	{"profile-apart", 0, OPT_FLAG, NULL, "--profile, with a whole workload's profile (fs.fileserver, work.round2) also taken in points apart from the timed ones: the workload runs again at each profiled N (11-13 s of the quick suite), and its timed points carry no sampling", 0, 0, NULL, &(a).profile_apart, NULL}, \
	{"fit-oversubscribed", 0, OPT_FLAG, NULL, "concurrency axes counting tasks: fit the throughput of points with more tasks than online CPUs too (default: marked and left out)", 0, 0, NULL, &(a).fit_oversub, NULL}, \
	{"mem-limit", 0, OPT_STR, "SIZE", "run each bench's worker in a memory cgroup limited to SIZE (e.g. 256M; root, Linux): a workload larger than the page cache, as on a smaller machine; removed at the end", 0, 0, NULL, &(a).mem_limit, NULL}, \
	{"in-process", 0, OPT_FLAG, NULL, "sweep every bench inside this process, not each in a fresh worker (for debuggers; a bench then measures what earlier ones left behind)", 0, 0, NULL, &(a).in_process, NULL}, \
	{"quiet", 'q', OPT_FLAG, NULL, "no progress on stderr", 0, 0, NULL, &(a).quiet, NULL}, \
	{"help", 'h', OPT_FLAG, NULL, "this help", 0, 0, NULL, &(a).help, NULL}

struct progress {
	int on;
	int done, total; /* points */
	uint64_t t0;
	int ibench, nbench;
	int last_point;
	const char *target;
};

struct runner {
	const char *cmd;   /* "run", "matrix": for messages */
	struct run_args a;
	const struct bench *sel[SEL_SLOTS];
	int nsel;
	json_t *over;      /* --param overrides */
	struct clock_info clk;
	struct sweep_opts so;  /* so.net points at net */
	struct bench_net net;  /* run's network options (netopt.c); IPv4 loopback by default */
	struct progress pg;
	struct run_result r;
	char exe[4096];    /* what workers are started from; "" = in-process */
	char self[4096];   /* this binary, for task processes (so.exe); "" = unknown */
	uint64_t mem_limit;  /* --mem-limit in bytes, 0: none */
	char cgroup[4096];   /* the memory cgroup made for the workers, "" if none */
	int cg_version;      /* its cgroup version (1 or 2) */
	/* matrix --fresh: called before every repetition but the first of
	 * runner_sweep's target (and before a bench's --decide rounds) to
	 * make its file system anew; *dir is where it is mounted now. 0, or
	 * -1 with a message in err (the sweep then stops). NULL: never. */
	int (*renew)(void *ctx, const char **dir, char *err, size_t errlen);
	void *renew_ctx;
};

void runner_defaults(struct runner *rn, const char *cmd);
/* After parsing: selection, params, variants, output file. 0, or -1 with
 * a message in err (a usage error: nothing has been created). */
int runner_prepare(struct runner *rn, char **pos, int npos, char *err, size_t errlen);
/* Bench names and families (run's words) to benches, each once; sel has
 * SEL_SLOTS. 0, or -1 with a message naming an unknown word. */
int runner_select(char **words, int nwords, const struct bench **sel, int *nsel, char *err,
		  size_t errlen);
/* Name, axis, summary, op, unit, version, variant and target of br from
 * the bench (params are set by the caller). 0 or -ENOMEM. */
/* The scratch space (bytes) the most demanding selected bench and variant
 * needs at its largest point (its space_bytes, or space_mib, default 64
 * MiB); *which is that bench. After runner_prepare. */
uint64_t runner_space_bytes(const struct runner *rn, const struct bench **which);
int runner_describe(struct bench_result *br, const struct bench *b, const char *variant,
		    const char *target);
int runner_check_dir(const char *dir, char *err, size_t errlen);
/* Registry, clock, result header. 0 or -errno. */
int runner_start(struct runner *rn, int argc, char **argv);
/* Sweep every selected bench (every variant) in a scratch directory made
 * in dir; target labels the benches and holds the snapshot under
 * r.targets (NULL: the run's own snapshot). Returns the worst exit code. */
int runner_sweep(struct runner *rn, const char *dir, const char *target);
/* run --fio: for every selected bench with a fio hook, every variant and
 * point, fio's command line for the same job on stdout; nothing is run.
 * 0, or -1 with a message (no selected bench has one). After prepare. */
int runner_fio(struct runner *rn, FILE *out, char *err, size_t errlen);
/* Cleanup, then the result to -o and stdout; frees everything; the exit code. */
int runner_finish(struct runner *rn, int exit_code);

#endif
