/* SPDX-License-Identifier: MIT */
/* The load of the mem.* benches: N one-page mappings held, each registered
 * (so that Ctrl-C and a crash of the bench unmap them), released newest
 * first. */
#ifndef SB_MAPHOLD_H
#define SB_MAPHOLD_H

#include <stddef.h>
#include <stdint.h>
#include "core/bench.h"

struct maphold {
	size_t page;
	void **maps;
	uint64_t n, cap;
};

/* Hold m, a page just mapped (MAP_FAILED: the mmap failed, errno set);
 * 0, or the bench's failure (m unmapped). */
int maphold_add(struct maphold *h, struct bench_env *env, void *m);
/* Unmap every held page, newest first (the registry finds it at once). */
void maphold_release(struct maphold *h);

#endif
