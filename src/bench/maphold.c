/* SPDX-License-Identifier: MIT */
#include "bench/maphold.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "core/registry.h"

int maphold_add(struct maphold *h, struct bench_env *env, void *m)
{
	if (m == MAP_FAILED)
		return bench_fail(env, "mmap (held mapping)");
	if (h->n == h->cap) {
		uint64_t nc = h->cap ? h->cap * 2 : 1024;
		void **p = realloc(h->maps, nc * sizeof(*p));
		if (!p) {
			int rc = bench_fail(env, "realloc");
			munmap(m, h->page);
			return rc;
		}
		h->maps = p;
		h->cap = nc;
	}
	if (reg_add_map(m, h->page)) { /* it unmapped m */
		errno = ENOMEM;
		return bench_fail(env, "registry");
	}
	h->maps[h->n++] = m;
	return 0;
}

void maphold_release(struct maphold *h)
{
	for (uint64_t i = h->n; i-- > 0;)
		reg_unmap(h->maps[i], h->page);
	free(h->maps);
	h->maps = NULL;
	h->n = h->cap = 0;
}
