/* SPDX-License-Identifier: MIT */
/* mem.mmap: map and unmap one page with N mappings already present.
 * The N mappings alternate their protection (PROT_READ, PROT_NONE) so that
 * the kernel cannot merge neighbours into one: N stays the number of
 * distinct mappings. Neither is writable, so the op's page (PROT_READ |
 * PROT_WRITE), which the kernel places next to the lowest of them, never
 * merges with it either. Version 1 held PROT_READ|PROT_WRITE and PROT_READ:
 * at odd N the op's page merged into the writable one below it (vma_expand)
 * and munmap split it again (__split_vma), 10-20% more per op than at even
 * N (docs/benches.md, "mem.mmap's page merged", found by the tasks
 * cross-check).
 * Anonymous where the system has MAP_ANONYMOUS; otherwise (a POSIX-only
 * build) private mappings of a one-page scratch file, at offset 0 each so
 * that they cannot merge either.
 * backing=file is von Leitner's 2003 test: the N mappings are of every
 * other page of a file of file_mib MiB (200), shared and read-only, the
 * held mapping i at page 2i (past the file's end: again from page 0), so
 * that no two are contiguous in the file and none can merge; the op maps
 * one page of the same file, private and writable (flags no held one
 * has), at an odd page. The file is made sparse (ftruncate): nothing is
 * read, the op does not touch its page. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/bench.h"
#include "bench/maphold.h"

struct st {
	struct bench_env *env;
	size_t page;
	int fd; /* -1: anonymous */
	int file; /* backing=file: fd is the file of file_pages pages */
	uint64_t file_pages;
	struct maphold held;
};

#define BIGFILE "mapped"

static void *map_page(struct st *s, int prot)
{
#ifdef MAP_ANONYMOUS
	return mmap(NULL, s->page, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
#else
	return mmap(NULL, s->page, prot, MAP_PRIVATE, s->fd, 0);
#endif
}

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->env = env;
	s->page = s->held.page = (size_t)sysconf(_SC_PAGESIZE);
	s->fd = -1;
	*state = s; /* teardown undoes a setup that fails from here on */
	if (!strcmp(bench_param(env, "backing"), "file")) {
		uint64_t mib = bench_param_u64(env, "file_mib");
		s->file = 1;
		s->file_pages = mib * 1024 * 1024 / s->page;
		s->fd = openat(env->dirfd, BIGFILE, O_CREAT | O_RDWR | O_CLOEXEC, BENCH_FILE_MODE);
		if (s->fd < 0)
			return bench_fail(env, "openat(" BIGFILE ")");
		if (ftruncate(s->fd, (off_t)(s->file_pages * s->page)))
			return bench_fail(env, "ftruncate(" BIGFILE ")");
		if (env->max_n > s->file_pages / 2)
			snprintf(env->note, sizeof(env->note),
				 "a %llu MiB file has %llu every-other pages: mappings past them map its pages again",
				 (unsigned long long)mib, (unsigned long long)(s->file_pages / 2));
		return 0;
	}
#ifndef MAP_ANONYMOUS
	s->fd = openat(env->dirfd, "page", O_CREAT | O_RDWR, BENCH_FILE_MODE);
	if (s->fd < 0 || ftruncate(s->fd, (off_t)s->page))
		return bench_fail(env, "open/ftruncate page file");
	snprintf(env->note, sizeof(env->note),
		 "no MAP_ANONYMOUS in this build: private mappings of a one-page file");
#endif
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	if (s->file) {
		off_t off = (off_t)((2 * i) % s->file_pages * s->page);
		return maphold_add(&s->held, s->env, mmap(NULL, s->page, PROT_READ, MAP_SHARED, s->fd, off));
	}
	return maphold_add(&s->held, s->env, map_page(s, (i & 1) ? PROT_NONE : PROT_READ));
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	void *m = s->file ? mmap(NULL, s->page, PROT_READ | PROT_WRITE, MAP_PRIVATE, s->fd, (off_t)s->page)
			  : map_page(s, PROT_READ | PROT_WRITE);
	if (m == MAP_FAILED)
		return bench_fail(s->env, "mmap");
	if (munmap(m, s->page))
		return bench_fail(s->env, "munmap");
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	maphold_release(&s->held);
	if (s->fd >= 0)
		close(s->fd);
	if (s->file)
		unlinkat(s->env->dirfd, BIGFILE, 0);
	free(s);
}

static const struct bench_param_spec params[] = {
	BP_ENUM("backing", "anon", "anon|file", "what the mappings map: anonymous pages, or every other page of a file of file_mib MiB"),
	BP_U64("file_mib", "200", 1, 1048576, "size of the mapped file with backing=file (MiB; made sparse)"),
	{0},
};

const struct bench bench_mem_mmap = {
	.params = params,
	.name = "mem.mmap", .version = 2, .axis = "mappings already present", .axis_kind = AXIS_LOAD,
	.flags = BENCH_ONE_THREAD,
	.summary = "mmap + munmap of one page with N distinct mappings already present",
	.op_desc = "mmap(one page, PROT_READ|PROT_WRITE, MAP_PRIVATE; of the file with backing=file) + munmap",
	.quick_max_n = 10000, .default_max_n = 50000, .full_max_n = 1000000,
	.tasks = BENCH_TASKS_OWN,
	.max_batch = 1, .setup = setup, .grow = grow, .op = op, .teardown = teardown,
};
