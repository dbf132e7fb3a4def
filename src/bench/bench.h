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
 * with bench_fail(); the sweep then stops with first-failure data.
 */
#ifndef SB_BENCH_H
#define SB_BENCH_H

#include <stdint.h>
#include <errno.h>

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
	/* filled by the bench: */
	const char *failed_call; /* set by bench_fail() */
	char note[256];          /* one line the result should carry (limits raised...) */
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
	int (*setup)(struct bench_env *env, void **state);
	int (*grow)(void *state, uint64_t i);
	int (*prep)(void *state, unsigned slot);
	int (*op)(void *state, unsigned slot);
	int (*undo)(void *state, unsigned slot);
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
