/* SPDX-License-Identifier: MIT */
/* mem.fault: write one byte to a page of a private anonymous mapping that
 * was never touched: the page-fault path (allocate, zero, map one page),
 * will-it-scale's page_fault tests, with N other mappings present.
 *
 * Each task (and the single sweep) has a region of REGION_PAGES pages;
 * prep hands out its next untouched page. When all are touched, prep
 * (untimed) drops them all with madvise(MADV_DONTNEED), which makes every
 * page fault again on the next touch. Transparent huge pages are refused
 * for the region (MADV_NOHUGEPAGE): one 2 MiB fault followed by 511 free
 * touches is not what is measured. The N held mappings alternate their
 * protection so that none merge (mem.mmap's version 1 scheme; the touched
 * region, MADV_NOHUGEPAGE, can merge with none).
 *
 * The op is a function the core calls, so each fault is followed by its
 * return; on a KVM guest that first return after a fault costs 0.3-0.5 us
 * more than none (bench/fault-return.c, docs/benches.md), which a loop
 * with the write inline (will-it-scale's page_fault) does not pay. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/bench.h"
#include "bench/maphold.h"
#include "core/registry.h"

#define REGION_PAGES 4096 /* 16 MiB of 4 KiB pages */

struct st {
	struct bench_env *env;
	size_t page;
	char *region;
	size_t next; /* the next untouched page of the region */
	struct maphold held;
};

#ifdef MAP_ANONYMOUS
static void teardown(void *state)
{
	struct st *s = state;
	maphold_release(&s->held);
	if (s->region)
		reg_unmap(s->region, s->page * REGION_PAGES);
	free(s);
}

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->env = env;
	s->page = s->held.page = (size_t)sysconf(_SC_PAGESIZE);
	*state = s;
	void *r = mmap(NULL, s->page * REGION_PAGES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return bench_fail(env, "mmap (region)");
	if (reg_add_map(r, s->page * REGION_PAGES)) { /* it unmapped r */
		errno = ENOMEM;
		return bench_fail(env, "registry");
	}
	s->region = r;
#ifdef MADV_NOHUGEPAGE
	if (madvise(r, s->page * REGION_PAGES, MADV_NOHUGEPAGE) && errno != EINVAL)
		return bench_fail(env, "madvise(MADV_NOHUGEPAGE)");
#endif
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	return maphold_add(&s->held, s->env,
			   mmap(NULL, s->page, (i & 1) ? PROT_READ : PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
}

static int prep(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	if (s->next < REGION_PAGES)
		return 0;
	/* every page touched: drop them all, so that each faults again */
#ifdef MADV_DONTNEED
	if (madvise(s->region, s->page * REGION_PAGES, MADV_DONTNEED))
		return bench_fail(s->env, "madvise(MADV_DONTNEED)");
#else
	if (mmap(s->region, s->page * REGION_PAGES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return bench_fail(s->env, "mmap(MAP_FIXED) (region)");
#endif
	s->next = 0;
	return 0;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	*(volatile char *)(s->region + s->next++ * s->page) = 1;
	return 0;
}
#endif

const struct bench bench_mem_fault = {
	.params = bench_no_params,
	.name = "mem.fault", .version = 1, .axis = "mappings already present",
	.flags = BENCH_ONE_THREAD,
	.summary = "touch a fresh page of a private anonymous mapping (a page fault) with N mappings present",
	.op_desc = "write one byte to a never-touched page of a private anonymous mapping (no THP); "
		   "the region is dropped with madvise(MADV_DONTNEED) untimed when all are touched",
	.quick_max_n = 10000, .default_max_n = 50000, .full_max_n = 1000000,
	.max_batch = 1, .tasks = BENCH_TASKS_OWN,
#ifdef MAP_ANONYMOUS
	.setup = setup, .grow = grow, .prep = prep, .op = op, .teardown = teardown,
#else
	.unavailable = "needs anonymous mappings (MAP_ANONYMOUS), absent in this build",
#endif
};
