/* SPDX-License-Identifier: MIT */
/* CPU time, context switches and page faults of the timed region only.
 *
 * The sweep reads the calling thread's own counters around each timed
 * region (a block of samples, or the op loop of one sample when the
 * sample's untimed prep/undo outweighs the op) and adds the differences
 * up: CPU time from
 * CLOCK_THREAD_CPUTIME_ID (exact, ns), the user/system split, context
 * switches and faults from getrusage(RUSAGE_THREAD); the children reaped
 * inside the region (RUSAGE_CHILDREN: proc.fork's child) are kept apart,
 * as a side of their own. Where the
 * thread counters do not exist (the POSIX build), the process's are used
 * (CLOCK_PROCESS_CPUTIME_ID, RUSAGE_SELF) and the counter says so. */
#ifndef SB_USAGE_H
#define SB_USAGE_H

#include <stdint.h>
#include <sys/resource.h>
#include <jansson.h>

enum usage_counter { USAGE_THREAD = 0, USAGE_PROCESS };
enum usage_scope { USAGE_TIMED = 0, USAGE_WINDOW };

/* One reading of the counters. */
struct usage_read {
	double cpu_s;               /* the CPU clock (thread or process) */
	struct rusage self, kids;   /* self: the thread (or process) */
};

/* Differences added up over the regions. */
struct usage_acc {
	double cpu_s;               /* own CPU clock */
	double ru_user_s, ru_sys_s; /* own getrusage split (tick-sampled) */
	double kid_user_s, kid_sys_s;
	double vcsw, ivcsw, minflt, majflt;
	uint64_t regions;
	double region_cost_s;       /* subtracted per region (set before adding): usage_region_cost() */
};

/* CPU time an empty region shows (the part of the two reads that falls
 * inside it): the median of 63, measured once per process. */
double usage_region_cost(void);

/* Which counter usage_take reads in this build and kernel. */
enum usage_counter usage_counter(void);
const char *usage_counter_name(enum usage_counter c); /* "thread", "process" */
const char *usage_scope_name(enum usage_scope s);     /* "timed", "window" */
int usage_counter_from_name(const char *s);           /* -1 if unknown */
int usage_scope_from_name(const char *s);

/* Read the counters: c = USAGE_THREAD falls back to the process's where
 * the build has no thread counters (usage_counter() says which). end = 0
 * before a region (the exact clock read last), 1 after it (read first),
 * so that the other reads' own cost stays outside. */
void usage_take_as(struct usage_read *u, enum usage_counter c, int end);
#define usage_begin(u) usage_take_as((u), usage_counter(), 0)
#define usage_end(u) usage_take_as((u), usage_counter(), 1)
/* acc += b - a; the CPU time less acc->region_cost_s (the reads' own
 * share) and, when wall_s >= 0, at most wall_s, the region's timed wall
 * time: one thread cannot spend more, and what it did spend beyond that
 * ran between a counter read and a clock read (a context switch landing
 * there on a busy machine costs tens of us on a VM), not in the op. */
void usage_acc_add(struct usage_acc *acc, const struct usage_read *a, const struct usage_read *b,
		   double wall_s);

/* Per-operation figures of an accumulator over ops operations, the
 * caller's own (children apart): cpu_s is the exact CPU time; user_s and
 * sys_s split it by the getrusage ratio (the kernel samples the split at
 * ticks; both NAN when getrusage saw none, the split being unknown).
 * NAN everywhere when ops <= 0. */
struct usage_per_op {
	double cpu_s, user_s, sys_s, vcsw, ivcsw, minflt, majflt;
};
void usage_acc_per_op(const struct usage_acc *acc, double ops, struct usage_per_op *out);

/* Add cpu_s / ops to (*o)[side].cpu_s and nproc to (*o)[side].processes
 * (written only when nproc > 0: reaped children are not counted), making
 * *o and the side as needed; nothing when cpu_s <= 0 or ops <= 0. */
void usage_side_add(json_t **o, const char *side, double cpu_s, int nproc, double ops);

#endif
