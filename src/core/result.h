/* SPDX-License-Identifier: MIT */
/* The in-memory result of a run: what the sweep produces, what the JSON
 * writer serializes and what the JSON reader gives back (so compare and
 * report work on the same structures). Every time is in ns. */
#ifndef SB_RESULT_H
#define SB_RESULT_H

#include <stdint.h>
#include <jansson.h>
#include "core/hist.h"
#include "core/fit.h"
#include "core/usl.h"
#include "core/probe.h"

#define SB_SCHEMA_VERSION 1

enum point_stop {
	STOP_CI = 0,     /* median's 95% CI within the target */
	STOP_BUDGET,     /* the point's time budget was spent first */
	STOP_INTERRUPT,  /* SIGINT/SIGTERM */
	STOP_FAILURE,    /* an operation failed during sampling */
};

struct bin { int32_t idx; uint64_t count; }; /* non-empty histogram bucket */

/* The most CPUs a point's CPU is picked from (sweep.c). */
#define POINT_PICK_MAX 8

struct point {
	uint64_t n;
	unsigned batch;       /* ops per timed sample */
	uint64_t samples;     /* timed samples */
	uint64_t ops;         /* timed operations = samples * batch */
	enum point_stop stop;
	double elapsed_s;     /* wall time spent sampling */
	struct stats st;
	/* per operation (per unit), of the timed region only in op mode (the
	 * thread's counters around each timed block, plus children reaped in
	 * it), of the whole meter window in run mode (the process): see
	 * src/core/usage.h. cpu_s = user_s + sys_s, exact; the split is
	 * tick-sampled (NAN: unknown). */
	double cpu_s, user_s, sys_s, vcsw, ivcsw, minflt, majflt;
	int usage_counter;    /* enum usage_counter: USAGE_THREAD or USAGE_PROCESS */
	int usage_scope;      /* enum usage_scope: USAGE_TIMED (op mode) or USAGE_WINDOW (run) */
	/* op mode, per sample, outside the timed region while sampling (prep,
	 * undo, the harness between blocks): the thread's CPU and the wall
	 * time; NAN in run mode */
	double setup_cpu_s, setup_wall_s;
	/* other processes doing part of the operation (the server, helpers):
	 * {"server": {"cpu_s": per op, "processes": k}, ...} (owned), or NULL */
	json_t *peers;
	/* benches with a control (bench.h): the control's samples beside the
	 * op's; the verdict is fitted on st.p50 - ctl.p50 */
	int has_ctl;
	struct stats ctl;
	struct bin *bins; int nbins;
	/* throughput: ops and bytes completed over elapsed_s */
	uint64_t bytes;
	double ops_per_s, bytes_per_s;
	/* throughput over time: ops (and bytes) completed per interval */
	double interval_s;
	double *series_ops, *series_bytes; int nseries;
	json_t *extra;        /* the bench's own figures (owned), or NULL */
	int cpu_start, cpu_end; /* CPU of the harness when the point began and ended, -1 unknown */
	/* benches with a placement: where each side ran during the window and
	 * whether one moved, {"mode", "moved", "sides": {...}} (owned), or NULL */
	json_t *placement;
	/* the machine-speed probe (probe.h) read before and after the point,
	 * its slowness against the run's reference (the larger of the two;
	 * NAN: no probe), and how many times the point was measured again
	 * because the probe said the machine was slow or its median jumped
	 * above the point before it (slowness_first, p50_first: the first
	 * measurement's slowness and median then) */
	int has_probe;
	struct probe probe[2];
	double slowness, slowness_first, p50_first;
	int remeasured;
	/* A bench whose op makes inodes (BENCH_MAKES_INODES) on an ext2/3/4
	 * without a journal: the median time to create a file and to hard-link
	 * one in the bench's directory just before the point (sweep.c,
	 * inode_probe); 0 where not measured. */
	double inode_create_ns, inode_link_ns;
	/* the operation's tasks over the point's measurement (the harness's
	 * threads, its peers; sweep_int.h, wait_since): CPUs' worth of time
	 * they ran, waited runnable for a CPU, and of that waiting what other
	 * processes took from them (cpu_lost; cpu_lost_first: the first
	 * measurement's, when measured again); NAN: not known */
	double tasks_run, tasks_wait, cpu_lost, cpu_lost_first;
	/* a bench whose operation runs in the harness's thread alone: that
	 * thread was switched out inside few enough of the timed samples that
	 * the CPU others took fell between them (point_samples_unswitched), so
	 * the point is not crowded whatever cpu_lost says */
	int lost_between;
	/* benches whose operation runs in the harness's thread alone
	 * (BENCH_ONE_THREAD): the CPUs the probe read just before the point,
	 * with each one's slowness; the point ran on the fastest (npick 0:
	 * not picked) */
	int npick;
	int pick_cpu[POINT_PICK_MAX];
	double pick_slow[POINT_PICK_MAX];
};

struct failure {
	char phase[16];   /* setup, grow, op, teardown */
	char call[64];    /* the failing call */
	char kind[16];    /* limit, error, timeout */
	uint64_t n;       /* load reached when it failed */
	int err;          /* errno */
	char msg[160];    /* strerror + context */
	json_t *state;    /* system state at that moment (owned) */
};

struct repetition {
	struct point *pts; int npts;
	struct verdict v;
	struct failure *fail; /* NULL if none */
	int interrupted;
	double started_s;     /* when it began, seconds after the run's start; < 0: not known */
	int added;            /* added by the sequential rounds of --decide (verdict.c), not a sweep */
	/* compare --ab: the pair (block) this repetition belongs to, 1, 2 ...
	 * (0: not paired), and whether this side ran first (1) or second (2)
	 * in it (the order alternates: AB, BA, AB ...) */
	int ab_pair, ab_order;
};

/* Such a file system does not reuse an inode within a minute of its
 * deletion (five while its table block is unwritten), and every file made
 * meanwhile scans past those (the kernel's recently_deleted): a create
 * costs 1.3-1.7x a hard link there without recent deletions and 30-60x
 * within a minute of 20,000. A point whose create cost INODE_SHADOW times
 * its link or more just before it, the difference INODE_SHADOW_SHARE of
 * the point's median or more, was measured in that shadow; a load-axis
 * verdict fitted from it is unclear (verdict.c). Where the op's own cost
 * dwarfs the scan (fs.smallfile's fsync: 250-320 us against 10-40 us of
 * scan at 3-10 links) the shadow is said, not held against the verdict. */
#define INODE_SHADOW 3.0
#define INODE_SHADOW_SHARE 0.1
/* The point's create/link (NAN: not measured) */
double point_inode_shadow(const struct point *p);
/* Whether it was measured in the shadow (above) */
int point_shadowed(const struct point *p);
/* Over the points of reps[0..nreps): the largest create/link among those
 * measured in the shadow (held: point_shadowed; else create/link >=
 * INODE_SHADOW alone, the shadow said), NAN if none; *hit such points,
 * *all the points probed. */
double reps_inode_worst(const struct repetition *reps, int nreps, int held, int *hit, int *all);
/* Whether any point of reps[0..nreps) was (held), and then into reason
 * (len bytes) how many and how deep: "recent deletions shadowed ..." */
int reps_shadow_reason(const struct repetition *reps, int nreps, char *reason, size_t len);

enum bench_status { BS_OK = 0, BS_FAILED, BS_SKIPPED, BS_INTERRUPTED };

struct bench_result {
	char *name, *axis, *summary, *op_desc;
	char *variant;        /* "engine=io_uring,direct=1", or NULL */
	char *target;         /* matrix: the file system it ran on ("ext4"), or NULL */
	char *job;            /* run FILE.job: the job section it ran in, or NULL */
	char *unit;           /* what one op is ("op", "request"...) */
	json_t *params;       /* effective parameters (owned), or NULL */
	int version;
	enum bench_status status;
	char *skip_reason;    /* BS_SKIPPED */
	char **notes; int nnotes;
	uint64_t max_n;
	struct repetition *reps; int nreps;
	struct verdict v;     /* over all repetitions pooled */
	/* what the axis is: enum bench_axis_kind of bench.h (0 load, 1
	 * concurrency, 2 size, 3 category; load when a result lacks it), whether N counts
	 * CPU-bound tasks (BENCH_AXIS_TASKS), and the CPUs online then (0:
	 * unknown) */
	int axis_kind, axis_tasks, cpus_online;
	/* category axes: the name of each category, categories[N - 1] (owned) */
	char **categories; int ncategories;
	int fit_oversub;      /* run --fit-oversubscribed: oversubscribed points fitted */
	/* concurrency axes: the throughput verdict (usl.c) over all
	 * repetitions pooled, the headline there; USL_NONE otherwise. Not read
	 * from a result but refitted from its points (bench_usl) */
	struct usl usl;
	/* run --profile: where the op spends its CPU at the smallest and largest
	 * N, and the growth attribution (src/core/profile.h; docs/result-schema.md),
	 * or {"unavailable": why} (owned); NULL without --profile */
	json_t *profile;
};

struct clock_info {
	char id[32];          /* "CLOCK_MONOTONIC" */
	char source[32];      /* "tsc", "kvm-clock"... */
	double resolution_ns;
	double read_cost_ns;  /* median cost of one clock read */
};

struct run_result {
	int schema_version;
	char *tool_version;
	char *started, *finished; /* ISO 8601 UTC */
	double duration_s;
	char *host;
	char **argv; int argc;
	json_t *options;      /* effective options (owned) */
	json_t *snapshot;     /* owned */
	json_t *targets;      /* matrix: {"ext4": {"snapshot": ..., ...}} (owned), or NULL */
	json_t *job;          /* run FILE.job: the job, resolved (jobrun.c; owned), or NULL */
	/* compare --ab: {"id", "side": "a"|"b", "label", "spec", "pairs",
	 * "order"} (owned), or NULL: this result is one side of a paired run
	 * (docs/compare.md, "Paired A/B in one invocation") */
	json_t *ab;
	struct clock_info clock;
	struct probe probe_ref; /* the machine-speed probe's reference reading */
	int has_probe_ref;
	int interrupted;
	struct bench_result *benches; int nbenches;
};

/* How steady the machine was while a bench measured (its points' probes,
 * every repetition): points probed, points whose first measurement the
 * probe read slow (slowness >= PROBE_SLOW) or that were measured again for
 * a jump, points measured again (for any reason), points still slow after
 * that, and the largest slowness any first measurement read (NAN: no
 * probe); likewise points whose first measurement was crowded (other
 * processes took CPU_LOST_CROWDED of a CPU or more from its tasks), of
 * those how many were measured again and how many of those for crowding
 * alone (not slow: not in slow_first), points still crowded, points whose
 * kept measurement lost as much between its samples alone (lost_between:
 * not crowded), and the most
 * any first measurement lost (NAN: not known; a load axis's points only,
 * as sweep.c judges them). */
struct unsteady {
	int probed, slow_first, remeasured, slow;
	double max_slowness;
	int crowded_first, crowded_again, crowded_only, crowded, crowded_between;
	double max_lost;
};
void bench_unsteady(const struct bench_result *b, struct unsteady *u);
/* How many of b's repetitions --decide's rounds added (repetition.added). */
int bench_added_reps(const struct bench_result *b);
/* Each repetition's level against the others (docs/method.md, "Repetitions
 * as blocks"): lvl[r] (b->nreps entries) is the factor bench_fit applies to
 * repetition r's costs before pooling; returns the largest |lvl - 1|. */
double bench_rep_levels(const struct bench_result *b, double *lvl);

const char *point_stop_name(enum point_stop s);
int point_stop_from_name(const char *s);
const char *bench_status_name(enum bench_status s);
/* Whether a bench (by name) is of the families that make and delete files
 * by the thousand in its scratch directory (fs, work): those whose
 * figures the file system's recent deletions move (sys_fs_journal). */
int bench_makes_files(const char *name);
const char *axis_kind_name(int kind); /* "load", "concurrency", "size", "category" */
int axis_kind_from_name(const char *s); /* inverse, -1 if unknown */
int bench_status_from_name(const char *s);

struct bench_result *result_add_bench(struct run_result *r);
struct repetition *bench_add_rep(struct bench_result *b);
struct point *rep_add_point(struct repetition *rep);
/* The verdicts (rep_fit, bench_fit...) are made in verdict.c (verdict.h). */
/* Free what a point holds (bins, series, extra, peers, placement). */
void point_clear(struct point *p);
/* Append a measured point to rep (taking what it holds) and mark rep
 * interrupted when the point was; -ENOMEM (pt cleared) when it cannot. */
int rep_keep_point(struct repetition *rep, struct point *pt);
void bench_add_note(struct bench_result *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Remove b's notes that begin with prefix (a note made again by a later
 * fit replaces its earlier self). */
void bench_drop_notes(struct bench_result *b, const char *prefix);
/* A point other processes crowded (probe.h, CPU_LOST_CROWDED), unless what
 * they took fell between its samples (lost_between). */
int point_crowded(const struct point *p);
/* Whether a point's timed samples are too few switched out to move its
 * median: its per-op counters are the harness thread's over the timed
 * samples alone (op mode), and the thread was switched out (either way)
 * no more times than a share f of the samples, f the share of delayed
 * samples that moves a median by its own 95% interval (the median of
 * samples of which f were delayed is the 0.5 / (1 - f) quantile of the
 * others: f = 1 - 0.5 / (0.5 + 0.98 / sqrt(samples)), 12% of 200). */
int point_samples_unswitched(const struct point *p);
/* The machine-speed probe's page-fault time around p: the mean of ln ns
 * read before and after it (after alone when it has no reading before),
 * or NAN without the probe. compare adjusts levels for it, and the
 * history's spread likewise (docs/compare.md, "Probe-adjusted levels"). */
double point_fault_ln(const struct point *p);
/* The same of any probe part (probe.h, PROBE_FAULT or PROBE_UNMAP). */
double point_probe_ln(const struct point *p, int part);

/* Measuring a point again, in a sweep (sweep.c) and in --decide's rounds
 * (verdict.c): at most POINT_AGAIN_MAX times, for the reason
 * point_again_why gives: the probe read the machine slow around it
 * (POINT_AGAIN_SLOW: slowness >= PROBE_SLOW); other processes took
 * CPU_LOST_CROWDED of a CPU or more from its tasks (POINT_AGAIN_CROWDED,
 * a load axis only: a concurrency axis's own threads outnumber the CPUs
 * and its short-lived ones escape the count); its median is more than
 * POINT_JUMP_RATIO above ref_p50 (POINT_AGAIN_JUMP: the point before it
 * in a sweep, the sweeps' median at the same N in a round; 0: none). 0
 * when none holds. */
#define POINT_AGAIN_MAX 2
#define POINT_JUMP_RATIO 1.2
enum { POINT_AGAIN_SLOW = 1, POINT_AGAIN_JUMP = 2, POINT_AGAIN_CROWDED = 3 };
int point_again_why(const struct point *p, int load_axis, double ref_p50);
/* Of p and its new measurement q, whether q is kept: the one not crowded
 * when the other was (it measured another process too), else the lower
 * median (a slow stretch only adds time). */
int point_again_better(const struct point *p, const struct point *q, int load_axis);
/* p measured again as q: p becomes q when keep (else q is cleared), and
 * says how many times it was measured (remeasured, q's own included) and
 * its first measurement's slowness, median and CPU lost (the *_first
 * fields, kept from the first time). q is left empty. */
void point_again_take(struct point *p, struct point *q, int keep);
void point_set_bins(struct point *p, const struct hist *h);
/* The throughput verdict of a concurrency axis (b->usl; zeroed for other
 * kinds): each point's ops_per_s, its standard error from the spread of
 * its throughput-over-time series. bench_fit calls it. */
void bench_usl(struct bench_result *b);
/* The same fit over repetition r alone (compare's unit of evidence). */
void rep_usl(const struct bench_result *b, int r, struct usl *u);
/* Standard error of a point's ops_per_s from its throughput-over-time
 * series (the last, partial interval left out); 0 with under 3 intervals. */
double point_ops_se(const struct point *p);
/* Size axes: the median cost per KiB moved (p50 over the bytes one op
 * moves) at the smallest and at the largest N, repetitions pooled (the
 * median over them); 0, or -1 when no point moved bytes. */
int bench_per_kib(const struct bench_result *b, double *nmin, double *at_min, double *nmax,
		  double *at_max);
/* Concurrency axes: the mean throughput (ops/s, repetitions pooled) at the
 * smallest and the largest N that measured one; 0, or -1 with fewer than
 * two such N. */
int bench_ops_range(const struct bench_result *b, double *nmin, double *at_min, double *nmax,
		    double *at_max);
/* Category axes (axis_kind 3): the tail of each category measured, in
 * order of N: the p99 of its point (the median over repetitions), its name
 * (categories[N - 1], or NULL). The count written (at most cap; 0: none
 * measured), *worst the index of the largest tail. */
struct cat_tail {
	uint64_t n;
	const char *name;
	double p99_ns;
};
int bench_category_tails(const struct bench_result *b, struct cat_tail *out, int cap, int *worst);
/* Its headline, the same in the summary, the report and compare:
 * "p99 none 41.1 us, cpu 43.4 us, io 400 us; worst io (9.7x none)"
 * (the ratio against the first category; none when the first is the
 * worst). Into buf; "" when no point measured. */
char *bench_category_headline(const struct bench_result *b, char *buf, size_t len);
/* The worst category's name ("N=4" without names) and its tail's ratio
 * against the first category's (NAN with one category, or when the first
 * is the worst): 0, or -1 when none was measured. */
int bench_category_worst(const struct bench_result *b, char *name, size_t len, double *p99_ns,
			 double *ratio);
/* Concurrency axes without a throughput fit (USL_NONE: too few N): a
 * word for what the throughput measured did from the smallest to the
 * largest N (bench_ops_range), "rises" (by 10% or more), "falls" (by 10%
 * or more) or "flat", and *ratio the factor; NULL when it measured
 * fewer than two N. */
const char *bench_ops_trend(const struct bench_result *b, double *ratio);
void result_free(struct run_result *r);
void bench_result_clear(struct bench_result *b); /* frees what it holds; zeroed */
/* What tells two benches of one result apart: "name" or "name[variant]"
 * (a matrix result has one of each per target as well). */
const char *bench_label(const struct bench_result *b, char *buf, size_t len);

char *fmt_ns(double ns, char *buf, size_t len); /* "1.63 us" */

#endif
