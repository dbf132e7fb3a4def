/* SPDX-License-Identifier: MIT */
/* engine=mmap: the file mapped once, each request a copy of bs bytes from
 * the mapping (fio's ioengine=mmap, which maps per request instead); read
 * benches only; no O_DIRECT form. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "bench/iofile.h"

#define PAGE 4096

static int mmap_open(struct iofile *f)
{
	f->map = mmap(NULL, (size_t)f->size, PROT_READ, MAP_SHARED, f->fd, 0);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		return bench_fail(f->env, "mmap data file");
	}
	if (f->given) /* an existing file (file=) is mapped as it is */
		return 0;
	/* touch every page once: the timed reads copy from mapped pages
	 * instead of taking a first-touch fault that later reads would not */
	volatile const char *p = f->map;
	for (uint64_t off = 0; off < f->size; off += PAGE)
		(void)p[off];
	return 0;
}

static int mmap_one(struct iofile *f, void *buf, uint64_t off, const char **call)
{
	(void)call;
	memcpy(buf, (char *)f->map + off, f->bs);
	return 0;
}

static void mmap_close(struct iofile *f)
{
	if (f->map)
		munmap(f->map, (size_t)f->size);
	f->map = NULL;
}

const struct ioeng_ops ioeng_mmap = {
	.name = "mmap", .fio_name = "mmap", .no_direct = 1,
	.open = mmap_open, .one = mmap_one, .close = mmap_close,
};
