/* SPDX-License-Identifier: MIT */
/* Shared by the directory benches (fs.*): a directory holding N entries
 * named e<i>, probe entries named p<i>, and per-slot name buffers filled
 * untimed by prep so that no name is formatted inside the timed region.
 * Probe names p0, p1, ... are made by incrementing the decimal counter in
 * the last one in place, not by snprintf: prep is inside a task's loop
 * (run --tasks counts it in the ops/s), and snprintf there cost fs.create
 * 2% of its ops/s against a bare loop (docs/benches.md).
 * Under run --tasks in a shared directory every name ends in the task's
 * env->task_tag (e<i>.t<k>), so that K tasks never make the same name. */
#ifndef SB_FSDIR_H
#define SB_FSDIR_H

#include <stdint.h>
#include "core/bench.h"

#define FSDIR_SLOTS 64

struct fsdir {
	struct bench_env *env;
	uint64_t n;        /* e<i> entries present, i < n */
	uint64_t probes;   /* probe names handed out */
	char probe[24];    /* "p<probes>": the next probe name, without the tag */
	size_t probe_len;  /* its length; 0: not made yet */
	uint64_t rng;      /* xorshift64 state */
	char name[FSDIR_SLOTS][40];
	uint64_t named[FSDIR_SLOTS]; /* index + 1 of the entry name[slot] holds, 0: none */
	char to[FSDIR_SLOTS][40];    /* a second name, for benches that make one (link, rename) */
	uint64_t tos;                /* second names handed out */
	uint64_t spent;              /* entries moved to env->spent_fd */
	int spent_off;               /* unlinked instead: few inodes left (fsdir.c) */
};

int fsdir_setup(struct bench_env *env, void **state);
int fsdir_grow(void *state, uint64_t i);          /* create e<i> */
int fsdir_pick_existing(void *state, unsigned slot); /* name[slot] = random e<i> */
int fsdir_pick_probe(void *state, unsigned slot);    /* name[slot] = fresh p<k> */
int fsdir_create_probe(void *state, unsigned slot);  /* pick + create it, untimed */
int fsdir_unlink_slot(void *state, unsigned slot);   /* remove name[slot], untimed */
int fsdir_unlink_to(void *state, unsigned slot);     /* remove to[slot], untimed */
/* Remove name (unlinkat flags: 0 or AT_REMOVEDIR) from the directory,
 * untimed: moved into env->spent_fd where the core gave one, else
 * unlinked. */
int fsdir_drop(struct fsdir *d, const char *name, int flags);
void fsdir_teardown(void *state);

#endif
