/* SPDX-License-Identifier: MIT */
/* The bench contract.
 *
 * A bench performs and undoes operations; the core (src/core/sweep.c) owns
 * timing, sampling, statistics, the sweep and output, so no bench can time
 * itself differently from another. To add a bench: write one file in
 * src/bench/ ending in `const struct bench bench_<family>_<op> = {...};`
 * and add one BENCH(<family>_<op>) line to src/bench/list.h.
 *
 * The sweep calls, for each repetition:
 *   setup(env, &state)                   untimed: prepare at N = 0
 *   for each point N: grow(state, i) for i = current..N-1   untimed
 *       per sample of k ops (k = 1, or a batch of k <= max_batch for ops
 *       within a few clock-read costs):
 *         prep(state, s) for s < k        untimed, optional
 *         op(state, s)   for s < k        TIMED, must leave N unchanged
 *         undo(state, s) for s < k        untimed, optional; restores N
 *   teardown(state)                       untimed: release everything
 * A callback returns 0, or a negative errno after naming the failing call
 * with bench_fail(); the sweep then stops with first-failure data. A setup
 * that fails (or skips) after storing *state gets teardown(state) called on
 * it, so a half-done setup is undone by the same code as a whole one. setup
 * may instead return BENCH_SKIP after writing the reason into env->skip
 * (an O_DIRECT open refused with EINVAL, a missing kernel feature).
 *
 * Benches whose axis is a parameter rather than a load (request size,
 * queue depth, streams) have no grow; set_n(state, N) is called before
 * each point instead (both may be given: grow first, then set_n).
 *
 * Benches that cannot be timed one call at a time (requests in flight,
 * streams, workloads over time) give run() instead of op(): the core hands
 * a meter; the bench keeps its load going until meter_stop(m) is true and
 * reports each completed request with meter_done(m, issued_ns, bytes),
 * issued_ns being meter_now() when the request was issued (for an offered
 * rate: when it was meant to be issued, so that a stall is not hidden).
 * The core still owns the histogram, the stopping rule, throughput and the
 * throughput-over-time series; a bench may add figures of its own
 * (fairness across streams, per-phase results) with meter_extra().
 *
 * Placement: a bench with more than one process or thread (a server, the
 * helpers holding its load) names its default placement in .placement:
 * "same" (every process on one CPU: no cross-CPU wake-ups, the stable
 * choice for round-trip latency on a virtual machine), "spread" (the
 * bench's own side on the first allowed CPU, each other side on the next)
 * or "free" (the scheduler decides; points may land on two levels). The
 * user picks another with -p placement=...; the core pins the bench's
 * process before setup (children inherit it) and records the choice in
 * the bench's params and a note. A process or thread the bench starts
 * calls bench_place(env, k) first thing, k = 1 for its peer (the server),
 * so that "spread" can put it on another CPU. NULL: one process, nothing
 * to place.
 *
 * Control: a bench whose untimed preparation is large against its op
 * (fs.fsync re-writes N MiB before each sample) may give control(): the
 * same timed work without what the bench is about (the append without
 * the fsync). The sweep then takes a control sample, with the same prep
 * and undo, after every sample of the op, and the verdict is on the
 * difference of the two medians: what the op adds, not what the
 * preparation does to the caches.
 *
 * Variants: a NULL-terminated list of "key=value,key=value" parameter sets;
 * the core runs the sweep once per variant (each a separate bench result,
 * named by the same bench name plus its variant), and the bench reads its
 * parameters with bench_param(). `run -p key=value` overrides a parameter
 * and keeps only the variants that agree with it.
 *
 * Parameters: every key a bench reads with bench_param() or
 * bench_param_u64() (its own, its helpers' such as iofile.c's, and every
 * key its variants set) is declared in .params, a table ending in {0}:
 *   static const struct bench_param_spec params[] = {
 *       BP_U64("depth", "1", 1, 4096, "requests in flight of the seq benches"),
 *       BP_ENUM("engine", "psync", "psync|libaio|io_uring|mmap", "I/O engine"),
 *       BP_BOOL("direct", "0", "O_DIRECT"),
 *       BP_FILE("file", "read this existing file instead of making one"),
 *       {0},
 *   };
 * A default is stated there and nowhere else: bench_param() returns the
 * value given (variant or -p), else the table's default, else NULL (no
 * default: BP_FILE). A default the bench computes (from another
 * parameter, --quick, the CPUs online) is declared with BP_U64_DERIVED or
 * BP_STR_DERIVED, its text saying how ("2*files"); bench_param() returns
 * NULL for it when no value is given, and the bench computes it.
 * The core declares the parameters it owns itself, never a bench's table:
 * placement (for a bench with .placement, its default that field) and
 * run --tasks' as and shared (src/core/tasks.c).
 * `run` and `matrix` check every -p KEY=VALUE against the tables of the
 * selected benches before any work (unknown key, wrong type, out of range:
 * exit 2); `scalebench list BENCH` prints the table, and docs/benches.md and
 * the man page carry it (`scalebench list --params-md`, `--params-man`;
 * tests/integration/params.sh checks they agree). A read of a key the table
 * does not declare is a bug of the bench: the core says so on stderr (and
 * aborts when SCALEBENCH_PARAM_STRICT is set, as the tests do). A bench
 * without a table (.params NULL) still runs; its known keys are then only
 * those its variants set, so any other -p key is refused for it, and its
 * values are checked only against its variants (tests/unit/test_param.c
 * names every bench that lacks a table). A bench that takes no parameter
 * says so with .params = bench_no_params. After adding or changing a
 * table, run `sh tools/params-docs.sh` to regenerate the docs' listings.
 * BP_TEST_ONLY entries (inject=...) are accepted but left out of listings.
 *
 * Tasks: a per-op bench that K processes or threads can do at once (run
 * --tasks, src/core/tasks.c) says so in .tasks and nothing more: what one
 * task does is its usual setup at the base load, then prep/op/undo; the
 * core starts the K tasks, pins them, times one window and merges their
 * histograms. BENCH_TASKS_OWN: each task has objects of its own only
 * (mappings, descriptors, children); BENCH_TASKS_DIR: the objects are
 * entries of env->dir, which -p shared=1 makes one directory for all the
 * tasks: the bench then puts env->task_tag at the end of every name it
 * makes, so that the tasks' names never collide. In threads, setup, grow,
 * set_n and teardown run one task at a time (the registry is not
 * thread-safe); prep, op and undo run concurrently and must not touch the
 * registry. A task's ops/s counts its whole loop, prep and undo included:
 * keep them as cheap as a bare loop of the same calls would be (no
 * snprintf per op: fsdir.c makes its names by incrementing the last).
 */
#ifndef SB_BENCH_H
#define SB_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <sys/types.h>
#include <jansson.h>

#define BENCH_SKIP 1 /* setup: not measurable here, reason in env->skip */

/* Modes of what benches create: those the common umask 022 gives. The
 * kernel's permission check has a fast path for an entry everyone may
 * search or read, so modes are part of what a lookup costs (a 0700
 * directory made fstatat in it ~3% dearer on Linux 6.18). The sweep runs
 * under umask 022, so entries get exactly these modes; privacy comes from
 * the scratch directory above them, which is 0700. */
#define BENCH_DIR_MODE 0755
#define BENCH_FILE_MODE 0644

/* Another process doing part of the operation (a server, the helpers that
 * connect): the sweep reads its CPU time around each point's sampling and
 * reports it per operation under the side's name. */
#define BENCH_MAX_PEERS 80
struct bench_peer {
	const char *side; /* "server", "helpers" (a string that outlives the bench) */
	pid_t pid;
	double base_s;    /* the sweep's: its CPU time when the window opened */
};

enum bench_need {
	NEED_ROOT = 1u << 0,  /* effective uid 0 */
	NEED_DIR = 1u << 1,   /* works in the target directory (--dir) */
	NEED_LINUX = 1u << 2, /* Linux-only interface */
};

/* The network settings of a run (run -4/-6, --netns, --peer, --key),
 * filled by the runner (or the worker from its job) and read by the net.*
 * benches through env->net; never NULL under the core. */
struct bench_net {
	int family;          /* AF_INET (default) or AF_INET6 */
	int netns;           /* --netns: we are in the client namespace */
	int srv_nsfd;        /* the server namespace, -1 if none */
	const char *peer;    /* --peer HOST:PORT, or NULL */
	const char *key;     /* --key */
};

struct bench_env {
	const char *dir;   /* scratch directory of this repetition (exists, empty) */
	int dirfd;         /* open O_DIRECTORY on dir */
	uint64_t max_n;    /* largest N of this sweep */
	int quick;         /* --quick */
	const json_t *params;  /* effective parameters of this variant (object of strings) */
	const struct bench *bench; /* the bench swept (set by the core) */
	/* filled by the bench: */
	const char *failed_call; /* set by bench_fail() */
	char note[256];          /* one line the result should carry (limits raised...) */
	char skip[256];          /* with BENCH_SKIP: why */
	uint64_t bytes_per_op;   /* op-mode benches that move data: bytes per op */
	double interval_s;       /* run(): throughput-over-time interval (0: budget/100) */
	uint64_t per_op_units;   /* op mode: one op covers this many units (entries of a
				  * listing); samples are recorded per unit. 0 = 1 */
	/* placement in force (set by the core): BENCH_PLACE_* and the CPUs */
	int place;
	int place_ncpu;
	int place_cpu[64];
	double max_latency_ns;   /* run --max-latency: a bound on every sample (0: none);
				  * a bench that checks it fails with ETIME ("bound") */
	json_t *fail_data;       /* set with a failure: the bench's first-failure figures,
				  * put into the failure's state as "bench" (core owns it);
				  * its "why" (string), if given, is the failure in one line of
				  * the bench's words, which the commands print (the only
				  * field of it they read) */
	struct bench_peer peers[BENCH_MAX_PEERS]; /* bench_peer_add/_remove */
	int npeers;
	/* run --tasks (set by the core): "" outside it or with a directory of
	 * the task's own; ".t<k>" for task k in a shared directory (see .tasks) */
	char task_tag[16];
	const struct bench_net *net; /* network settings (set by the core, see above) */
	/* Where a bench moves, untimed, what it would otherwise delete between
	 * samples (set by the core; has_spent 0: delete as usual). Set for the
	 * benches that make files (fs.*, work.*) on an ext2/3/4 file system
	 * without a journal, whose kernel makes every file created within a
	 * minute of a deletion scan past the deleted inodes (docs/method.md,
	 * "The scratch file system's memory"): moved, a file keeps its inode
	 * until the run's end, and the next sample does not pay for it. A
	 * directory on the same file system, outside dir. */
	int has_spent, spent_fd;
};

enum bench_place { BENCH_PLACE_NONE = 0, BENCH_PLACE_SAME, BENCH_PLACE_SPREAD, BENCH_PLACE_FREE };
/* Pin the calling process or thread as side k of the bench (0: the bench's
 * own, 1: its peer...) under the placement in force; nothing under "free"
 * or where the system has no affinity control. */
void bench_place(const struct bench_env *env, int k);

/* Register a process doing part of the operation (ignored when the table
 * is full), and forget it before it is reaped (so that a reused pid is
 * never read). */
void bench_peer_add(struct bench_env *env, const char *side, pid_t pid);
void bench_peer_remove(struct bench_env *env, pid_t pid);

struct meter;
uint64_t meter_now(void);  /* ns, the clock every sample is read from */
void meter_done(struct meter *m, uint64_t issued_ns, uint64_t bytes);
/* The same, for completions stamped elsewhere (a bench's own threads):
 * done_ns was meter_now() when the request completed. Like every meter_
 * call, only from the thread that run() was called on. */
void meter_done_at(struct meter *m, uint64_t issued_ns, uint64_t done_ns, uint64_t bytes);
int meter_stop(struct meter *m); /* 1 when the point must end (budget, CI, signal) */
/* Attach a figure of the bench's own to the point (takes the reference). */
void meter_extra(struct meter *m, const char *key, json_t *value);

/* A bench's declared parameter (see the top of this file). */
enum bench_param_type {
	BP_TYPE_U64 = 1, /* unsigned decimal (or 0x hex) integer within [min, max] */
	BP_TYPE_BOOL,    /* 0 or 1 */
	BP_TYPE_ENUM,    /* one of values ("a|b|c") */
	BP_TYPE_STR,     /* any non-empty text */
	BP_TYPE_FILE,    /* the path of an existing, readable regular file */
};

struct bench_param_spec {
	const char *name;
	enum bench_param_type type;
	const char *def;      /* the default as text ("64"; "2*files"); NULL: none */
	uint64_t min, max;    /* BP_TYPE_U64: allowed range, inclusive */
	const char *values;   /* BP_TYPE_ENUM: the allowed values, "a|b|c" */
	const char *help;     /* one line */
	/* BP_TYPE_ENUM, optional: NULL if value is in this build, else why not */
	const char *(*absent)(const char *value);
	unsigned flags;       /* BP_TEST_ONLY: for the tests, not listed in docs */
};
#define BP_TEST_ONLY 1u
#define BP_DERIVED 2u   /* def describes a default the bench computes (see the top) */

#define BP_U64(n, d, lo, hi, h) {.name = (n), .type = BP_TYPE_U64, .def = (d), .min = (lo), .max = (hi), .help = (h)}
#define BP_BOOL(n, d, h) {.name = (n), .type = BP_TYPE_BOOL, .def = (d), .min = 0, .max = 1, .help = (h)}
#define BP_ENUM(n, d, v, h) {.name = (n), .type = BP_TYPE_ENUM, .def = (d), .values = (v), .help = (h)}
#define BP_STR(n, d, h) {.name = (n), .type = BP_TYPE_STR, .def = (d), .help = (h)}
#define BP_FILE(n, h) {.name = (n), .type = BP_TYPE_FILE, .help = (h)}
#define BP_U64_DERIVED(n, d, lo, hi, h) {.name = (n), .type = BP_TYPE_U64, .def = (d), .min = (lo), .max = (hi), .help = (h), .flags = BP_DERIVED}
#define BP_STR_DERIVED(n, d, h) {.name = (n), .type = BP_TYPE_STR, .def = (d), .help = (h), .flags = BP_DERIVED}

/* Parameter of the current variant (or -p), else its table default, else
 * NULL (no default, or a derived one: see the top). The key must be
 * declared (the bench's .params, or the core's own parameters).
 * bench_param_u64: the same as a number, 0 when NULL (a bench with a
 * derived default asks bench_param() first). */
const char *bench_param(const struct bench_env *env, const char *key);
uint64_t bench_param_u64(const struct bench_env *env, const char *key);

enum bench_series {
	SERIES_125 = 0, /* 1, 2, 5, 10, 20, 50 ... */
	SERIES_POW2,    /* 1, 2, 4, 8 ... */
	SERIES_LINEAR,  /* 1, 2, 3 ... max_n (at most full_max_n): N indexes levels */
};

enum bench_tasks {
	BENCH_TASKS_NONE = 0, /* not a per-op bench K tasks can share a window on */
	BENCH_TASKS_OWN,      /* each task's objects are its own */
	BENCH_TASKS_DIR,      /* entries of env->dir: -p shared=0|1 (see the top) */
};

enum bench_flag {
	BENCH_FULL_BUDGET = 1u << 0, /* run(): spend the whole budget, no CI stop */
	/* AXIS_CONCURRENCY whose N counts CPU-bound processes or threads (workers,
	 * reader threads, tasks): a point with N above the online CPUs is marked
	 * oversubscribed and left out of the throughput fit (run --fit-oversubscribed
	 * keeps it). Not for requests in flight on one thread (io depth). */
	BENCH_AXIS_TASKS = 1u << 1,
	BENCH_FROM_ZERO = 1u << 2,   /* the series starts with a point at N = 0 (nothing grown:
				      * the baseline); fits and plots leave that point out */
	BENCH_DECIDE = 1u << 3,      /* an undecided verdict gets --decide's repetitions whenever the
				      * run does not forbid them (--no-decide, -r K): a bench whose
				      * sweeps the machine's slow stretches often leave unclear
				      * (net.request); runs without -r give them to every bench now */
	BENCH_WHOLE_RUN = 1u << 4,   /* run(): each point runs a whole workload to its end (the
				      * budget does not apply): run --profile samples its timed
				      * points at the profiled N instead of running them again */
	BENCH_ONE_THREAD = 1u << 5,  /* the operation runs in the harness's thread alone (the
				      * bench starts no thread or process): the sweep may run each
				      * point on the CPU the probe reads fastest (sweep.c, "the
				      * point's CPU"; docs/method.md, "Slowed CPUs") */
	BENCH_MAKES_INODES = 1u << 6, /* the timed operation creates files or directories: on an
				      * ext2/3/4 without a journal the sweep probes the shadow of
				      * recent deletions before every point (sweep.c, inode_probe) */
};

/* What kind of quantity the axis is, which decides the headline verdict
 * (docs/method.md, "Axis kinds"): AXIS_LOAD (the default: entries, processes, mappings,
 * connections held) is judged by how one operation's cost grows (fit.c);
 * AXIS_CONCURRENCY (requests in flight, streams, connections doing work,
 * workers, tasks) by how throughput grows, with the Universal Scalability
 * Law (usl.c); AXIS_SIZE (request bytes) by cost per KiB. AXIS_CATEGORY: N
 * indexes kinds that have no order (rt.wakeup's load kinds), named by
 * .categories; nothing grows along it, so no growth is fitted (the verdict
 * is "none") and the headline is the tail (p99) per category and the worst
 * one. A run --tasks sweep is AXIS_CONCURRENCY whatever the bench's own axis. */
enum bench_axis_kind { AXIS_LOAD = 0, AXIS_CONCURRENCY, AXIS_SIZE, AXIS_CATEGORY };

struct bench {
	const char *name;     /* "family.op" */
	int version;          /* bump whenever what is measured changes */
	const char *axis;     /* what N counts */
	enum bench_axis_kind axis_kind; /* load (default), concurrency, size or category: see above */
	/* AXIS_CATEGORY: the name of each category, categories[N - 1] for N = 1..ncategories
	 * (SERIES_LINEAR); NULL otherwise */
	const char *const *categories;
	int ncategories;
	const char *summary;  /* one line */
	const char *op_desc;  /* the timed operation, e.g. "open(O_CREAT|O_EXCL) + close" */
	unsigned needs;       /* enum bench_need */
	const char *unavailable; /* non-NULL: not in this build, and why */
	uint64_t quick_max_n, full_max_n, default_max_n;
	unsigned max_batch;   /* slots the bench holds for batch timing; 1 = never batch */
	uint64_t min_n;       /* first point of the series (default 1) */
	enum bench_series series;
	unsigned flags;       /* enum bench_flag */
	const char *const *variants; /* NULL, or NULL-terminated "k=v,k=v" sets */
	const struct bench_param_spec *params; /* NULL, or the parameters it reads, ending in {0} */
	const char *unit;     /* what one op is, for throughput: "request", "packet"; default "op" */
	uint64_t space_mib;   /* scratch space a default sweep needs (MiB), to size matrix images */
	const char *placement; /* default placement ("same", "spread", "free"), or NULL: see above */
	enum bench_tasks tasks; /* run --tasks: what a task shares (see the top) */
	/* Optional, beside space_mib: the scratch space (bytes) the largest
	 * point needs with env->params and env->max_n (only those two and
	 * env->quick are set; no directory). `matrix` sizes each image from
	 * the largest need among the selected benches and variants; a bench
	 * whose need grows with a parameter (files, file size) or with N gives
	 * it, the others keep the constant space_mib. */
	uint64_t (*space_bytes)(const struct bench_env *env);
	/* Optional, run before anything is made: are these parameters usable
	 * (ranges, CPUs online)? 0, or -1 with a message (a usage error, exit 2). */
	int (*check)(const json_t *params, char *err, size_t errlen);
	int (*setup)(struct bench_env *env, void **state);
	int (*grow)(void *state, uint64_t i);
	int (*set_n)(void *state, uint64_t n);
	int (*run)(void *state, struct meter *m);
	int (*prep)(void *state, unsigned slot);
	int (*op)(void *state, unsigned slot);
	int (*undo)(void *state, unsigned slot);
	int (*control)(void *state, unsigned slot); /* optional: op without what is measured */
	/* Optional, instead of op: the timed loop runs in another process the
	 * bench holds, one whose state cannot be undone in the bench's own
	 * (proc.syscall's child with its seccomp filters). It has that process
	 * do k ops between two meter_now() reads, exactly the loop the core
	 * runs around op(), and stores their elapsed ns in *ns; the round trip
	 * to it is untimed. The core still chooses k, warms up, samples and
	 * stops as for op(). Register the process with bench_peer_add(). */
	int (*op_far)(void *state, unsigned k, uint64_t *ns);
	void (*teardown)(void *state);
	/* Optional: fio's command line for the same job at point n of this
	 * variant (env->params, env->dir = the target directory, env->bench),
	 * for `run --fio`; runtime_s is the point's time window. 0, or -1
	 * when it does not fit in len. */
	int (*fio)(const struct bench_env *env, uint64_t n, double runtime_s, char *buf, size_t len);
};

/* Record which call failed and return -errno (errno must be set). */
static inline int bench_fail(struct bench_env *env, const char *call)
{
	int e = errno ? errno : EIO;
	env->failed_call = call;
	return -e;
}

/* An empty parameter table: .params = bench_no_params declares that the
 * bench takes none (every -p key is then refused for it). */
extern const struct bench_param_spec bench_no_params[];

#endif
