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
 */
#ifndef SB_BENCH_H
#define SB_BENCH_H

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

struct bench_env {
	const char *dir;   /* scratch directory of this repetition (exists, empty) */
	int dirfd;         /* open O_DIRECTORY on dir */
	uint64_t max_n;    /* largest N of this sweep */
	int quick;         /* --quick */
	const json_t *params;  /* effective parameters of this variant (object of strings) */
	/* filled by the bench: */
	const char *failed_call; /* set by bench_fail() */
	char note[256];          /* one line the result should carry (limits raised...) */
	char skip[256];          /* with BENCH_SKIP: why */
	uint64_t bytes_per_op;   /* op-mode benches that move data: bytes per op */
	double interval_s;       /* run(): throughput-over-time interval (0: budget/100) */
	uint64_t per_op_units;   /* op mode: one op covers this many units (entries of a
				  * listing); samples are recorded per unit. 0 = 1 */
	struct bench_peer peers[BENCH_MAX_PEERS]; /* bench_peer_add/_remove */
	int npeers;
};

/* Register a process doing part of the operation (ignored when the table
 * is full), and forget it before it is reaped (so that a reused pid is
 * never read). */
void bench_peer_add(struct bench_env *env, const char *side, pid_t pid);
void bench_peer_remove(struct bench_env *env, pid_t pid);

struct meter;
uint64_t meter_now(void);  /* ns, the clock every sample is read from */
void meter_done(struct meter *m, uint64_t issued_ns, uint64_t bytes);
int meter_stop(struct meter *m); /* 1 when the point must end (budget, CI, signal) */
/* Attach a figure of the bench's own to the point (takes the reference). */
void meter_extra(struct meter *m, const char *key, json_t *value);

/* Parameter of the current variant, or def. */
const char *bench_param(const struct bench_env *env, const char *key, const char *def);
uint64_t bench_param_u64(const struct bench_env *env, const char *key, uint64_t def);

enum bench_series {
	SERIES_125 = 0, /* 1, 2, 5, 10, 20, 50 ... */
	SERIES_POW2,    /* 1, 2, 4, 8 ... */
};

enum bench_flag {
	BENCH_FULL_BUDGET = 1u << 0, /* run(): spend the whole budget, no CI stop */
};

struct bench {
	const char *name;     /* "family.op" */
	int version;          /* bump whenever what is measured changes */
	const char *axis;     /* what N counts */
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
	const char *unit;     /* what one op is, for throughput: "request", "packet"; default "op" */
	uint64_t space_mib;   /* scratch space a default sweep needs (MiB), to size matrix images */
	int (*setup)(struct bench_env *env, void **state);
	int (*grow)(void *state, uint64_t i);
	int (*set_n)(void *state, uint64_t n);
	int (*run)(void *state, struct meter *m);
	int (*prep)(void *state, unsigned slot);
	int (*op)(void *state, unsigned slot);
	int (*undo)(void *state, unsigned slot);
	int (*control)(void *state, unsigned slot); /* optional: op without what is measured */
	void (*teardown)(void *state);
};

/* Record which call failed and return -errno (errno must be set). */
static inline int bench_fail(struct bench_env *env, const char *call)
{
	int e = errno ? errno : EIO;
	env->failed_call = call;
	return -e;
}

/* The table, generated from list.h. */
extern const struct bench *const bench_table[];
extern const int bench_count;
const struct bench *bench_find(const char *name);

#endif
