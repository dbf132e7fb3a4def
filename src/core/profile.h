/* SPDX-License-Identifier: MIT */
/* run --profile: where the timed operation spends its CPU, kernel and user,
 * at a bench's smallest and largest N, and which functions the growth
 * between them is in (docs/method.md, "Profiles").
 *
 * The sweep (sweep.c) takes a profiled point right after the timed point
 * of the same N in the last repetition: the same measurement, apart (its
 * samples are not kept in the repetition), with the sampling events of
 * every process doing the work (the bench's own, its peers: server,
 * helpers, the process holding proc.syscall's filters) enabled only around
 * the timed region. This file turns the samples into functions (kernel
 * addresses from the kernel's symbol table, modules included; user ones
 * from the ELF symbol tables of the files mapped), self and inclusive
 * shares, the cost per op (share x the processes' CPU per op), and the
 * growth attribution; the result's "profile" (docs/result-schema.md). */
#ifndef SB_PROFILE_H
#define SB_PROFILE_H

#include <stdint.h>
#include <jansson.h>
#include "core/bench.h"
#include "core/result.h"

#define PROFILE_PERIOD_NS 100000u /* one sample per 100 us of CPU (10 kHz) */
/* A profiled point samples at least a quarter of the point's budget, within
 * these bounds (within the budget): 0.05 s in the quick suite (budget 0.2 s),
 * 0.1 s from a budget of 0.4 s (the default's 0.5 s). */
#define PROFILE_MIN_S 0.1
#define PROFILE_MIN_QUICK_S 0.05
/* A profiled point ends once this many samples fell in its timed regions
 * (or at its time, whichever comes first): every share is then known
 * within +/-4 points (95%: 1.96 x sqrt(0.25 / 600) = 0.040), the widest
 * interval, that of a share of one half. */
#define PROFILE_TARGET_SAMPLES 600u
#define PROFILE_CHECK_NS 1000000u /* profile_enough drains the buffers at most this often */
/* A point that cannot end early (a whole workload: work.round2,
 * fs.fileserver run theirs to the end) samples at a longer period, about
 * this many samples over the CPU its timed point took, so that sampling
 * slows the workload less (at 100 us, work.round2 ran 1.3-3.6x slower). */
#define PROFILE_WORKLOAD_SAMPLES 3000u
/* A bench whose points each run a whole workload (BENCH_WHOLE_RUN) is
 * sampled in its timed points (sweep.c), at one sample per this much CPU,
 * or longer: about PROFILE_TARGET_SAMPLES over the CPU of the point before.
 * A sample costs the process some 40 us on a virtual machine (docs/method.md,
 * "Profiles"): 2% of the timed point's CPU at most. */
#define PROFILE_WHOLE_PERIOD_NS 2000000u
#define PROFILE_MAX_PROCS 8       /* processes of one side profiled (the rest said) */

/* run --profile-at N[,N...]: the N also profiled, besides each bench's
 * smallest and largest (within its sweep; at most this many). */
#define PROFILE_AT_MAX 6

struct profile;

/* The list of --profile-at ("100,3000"): the values, ascending and each
 * once, into out (PROFILE_AT_MAX); their count, or -1 with the problem in
 * err (not a number, 0, too many). s NULL or "": 0. */
int profile_at_parse(const char *s, uint64_t *out, char *err, size_t errlen);

/* A profile of bench b (op_side: the side whose process runs the timed
 * operation: "bench", or a peer's side such as "caller"); cache_dir: the
 * run's scratch directory, where the kernel's symbol table, once read, is
 * left for the next benches (NULL: read by each); NULL when out of
 * memory. */
struct profile *profile_new(const struct bench *b, const char *op_side, const char *cache_dir);
/* Before a profiled point at N = n: open the events on the bench's process
 * and on each peer in env, one sample per period_ns of CPU (at least
 * PROFILE_PERIOD_NS). 0; -1 when profiling is unavailable (the reason is
 * kept, and every later call is a no-op). */
int profile_point_begin(struct profile *pf, const struct bench_env *env, uint64_t n,
			uint64_t period_ns);
/* 1 once the point being profiled has PROFILE_TARGET_SAMPLES samples in
 * its timed regions (the sweep then ends it); 0 before, or when pf is
 * NULL or samples from outside. Drains the buffers at most every
 * PROFILE_CHECK_NS; safe from a run() bench's threads. */
int profile_enough(struct profile *pf);
/* Around the timed region (the sweep calls them; cheap when pf is NULL). */
void profile_on(struct profile *pf);
void profile_off(struct profile *pf);
/* After it: pt is the profiled point, timed the timed point of the same N
 * (for the sampling's overhead), or NULL; pt == timed: the timed point was
 * itself sampled (a whole workload: no slowdown to measure, the point says
 * so). Reads the processes' mappings (they must still live) and turns the
 * samples into functions. */
void profile_point_end(struct profile *pf, const struct point *pt, const struct point *timed);
/* Forget the last point ended (its samples and figures). */
void profile_point_drop(struct profile *pf);
/* The point failed: its samples are dropped, the reason noted. */
void profile_point_fail(struct profile *pf, const char *why);
/* A line for the profile's notes (kept once). */
void profile_note(struct profile *pf, const char *msg);
/* The bench's "profile" object ({"unavailable": reason} when it could
 * not be taken); wall_s: what the profiled points cost the run. Frees pf. */
json_t *profile_finish(struct profile *pf, double wall_s);

/* Growth attribution of a result's profile object (what the text summary,
 * the report and compare read): the "growth" member, or NULL. */
const json_t *profile_growth(const json_t *profile);

/* compare: the functions whose cost per op changed most from profile a
 * to profile b, at the largest N both profiled: {"n", "functions":
 * [{"name", "a_ns", "b_ns", "delta_ns", "self_a_ns", "self_b_ns",
 * "self_delta_ns", "share_a", "share_b"}]} (the COMPARE_TOP largest by
 * self change: where the time moved); NULL when either has no profile
 * or they have no N in common. */
#define PROFILE_COMPARE_TOP 5
json_t *profile_compare(const json_t *a, const json_t *b);

#endif
