/* SPDX-License-Identifier: MIT */
/* fs.manymap: open, mmap and touch one more small file with N small files
 * already mapped (von Leitner's 2003 "manymap": 10,000 files of ~150
 * bytes, 100 per directory, each opened, mapped and touched, every mapping
 * kept). grow(i) writes file i (file_bytes bytes, per_dir files per
 * directory d<k>), then opens, maps (one page, PROT_READ, MAP_SHARED),
 * touches and closes it, keeping the mapping. The op does the same to a
 * probe file written untimed just before, in the directory the next file
 * would go to; the mapping is unmapped and the file removed untimed
 * after. So N counts both the files in the tree and the mappings held,
 * as in his test. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/bench.h"
#include "bench/maphold.h"

#define PROBE "probe"

struct st {
	struct bench_env *env;
	struct maphold held;
	uint64_t n, per_dir;
	size_t bytes;
	char *data;        /* file_bytes of contents */
	int pdir;          /* the probe's directory, -1 if none open */
	int pdir_made;     /* prep made that directory (undo removes it) */
	char pdir_name[32];
	void *probe_map;
};

static void dir_name(char *b, size_t len, uint64_t k)
{
	snprintf(b, len, "d%06llu", (unsigned long long)k);
}

/* Write a file of s->bytes named name in dfd; 0 or the bench's failure. */
static int write_file(struct st *s, int dfd, const char *name)
{
	int fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, BENCH_FILE_MODE);
	if (fd < 0)
		return bench_fail(s->env, "openat(O_CREAT) (file)");
	ssize_t w = write(fd, s->data, s->bytes);
	if (w != (ssize_t)s->bytes) {
		if (w >= 0)
			errno = EIO;
		int rc = bench_fail(s->env, "write (file)");
		close(fd);
		return rc;
	}
	return close(fd) ? bench_fail(s->env, "close (file)") : 0;
}

/* open + mmap + touch + close: the op, also done to every held file. */
static void *map_touch(struct st *s, int dfd, const char *name, const char **call)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*call = "openat";
		return MAP_FAILED;
	}
	void *m = mmap(NULL, s->bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		*call = "mmap";
		int e = errno;
		close(fd);
		errno = e;
		return MAP_FAILED;
	}
	(void)*(volatile const char *)m; /* the touch: a fault that maps the cached page */
	if (close(fd)) {
		*call = "close";
		int e = errno;
		munmap(m, s->bytes);
		errno = e;
		return MAP_FAILED;
	}
	return m;
}

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->env = env;
	s->pdir = -1;
	s->held.page = (size_t)sysconf(_SC_PAGESIZE);
	*state = s;
	s->bytes = (size_t)bench_param_u64(env, "file_bytes");
	s->per_dir = bench_param_u64(env, "per_dir");
	if (!(s->data = malloc(s->bytes)))
		return bench_fail(env, "malloc");
	for (size_t i = 0; i < s->bytes; i++)
		s->data[i] = (char)('a' + i % 26);
	return 0;
}

/* The directory of file i, opened; made first when i starts it. */
static int open_dir(struct st *s, uint64_t i, char *name, size_t len, int *made)
{
	dir_name(name, len, i / s->per_dir);
	*made = 0;
	if (i % s->per_dir == 0) {
		if (mkdirat(s->env->dirfd, name, BENCH_DIR_MODE) == 0)
			*made = 1;
		else if (errno != EEXIST)
			return bench_fail(s->env, "mkdirat");
	}
	int d = openat(s->env->dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return d < 0 ? bench_fail(s->env, "openat(directory)") : d;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	char dn[32], fn[32];
	int made;
	int d = open_dir(s, i, dn, sizeof(dn), &made);
	if (d < 0)
		return d;
	snprintf(fn, sizeof(fn), "f%08llu", (unsigned long long)i);
	int rc = write_file(s, d, fn);
	const char *call = "mmap";
	void *m = rc ? MAP_FAILED : map_touch(s, d, fn, &call);
	close(d);
	if (rc)
		return rc;
	if (m == MAP_FAILED)
		return bench_fail(s->env, call);
	if ((rc = maphold_add(&s->held, s->env, m)))
		return rc;
	s->n = i + 1;
	return 0;
}

static int prep(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	int d = open_dir(s, s->n, s->pdir_name, sizeof(s->pdir_name), &s->pdir_made);
	if (d < 0)
		return d;
	s->pdir = d;
	return write_file(s, d, PROBE);
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	const char *call = "mmap";
	s->probe_map = map_touch(s, s->pdir, PROBE, &call);
	return s->probe_map == MAP_FAILED ? bench_fail(s->env, call) : 0;
}

static int undo(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	int rc = 0;
	if (s->probe_map && s->probe_map != MAP_FAILED && munmap(s->probe_map, s->bytes))
		rc = bench_fail(s->env, "munmap");
	s->probe_map = NULL;
	if (s->pdir >= 0) {
		if (unlinkat(s->pdir, PROBE, 0) && !rc)
			rc = bench_fail(s->env, "unlinkat (probe)");
		close(s->pdir);
		s->pdir = -1;
	}
	if (s->pdir_made && unlinkat(s->env->dirfd, s->pdir_name, AT_REMOVEDIR) && !rc)
		rc = bench_fail(s->env, "unlinkat(AT_REMOVEDIR)");
	s->pdir_made = 0;
	return rc;
}

static void teardown(void *state)
{
	struct st *s = state;
	undo(s, 0);
	maphold_release(&s->held); /* the files go with the scratch directory */
	free(s->data);
	free(s);
}

/* Each file takes a block (4 KiB) and an inode; each directory one more. */
static uint64_t space_bytes(const struct bench_env *env)
{
	uint64_t per_dir = bench_param_u64(env, "per_dir");
	uint64_t n = env->max_n + 1, blk = 4096;
	uint64_t fb = (bench_param_u64(env, "file_bytes") + blk - 1) / blk * blk;
	return n * (fb + blk) + (n / per_dir + 1) * blk;
}

static const struct bench_param_spec params[] = {
	BP_U64("file_bytes", "150", 1, 1048576, "size of each file (bytes)"),
	BP_U64("per_dir", "100", 1, 1000000, "files per directory"),
	{0},
};

const struct bench bench_fs_manymap = {
	.params = params,
	.name = "fs.manymap", .version = 1, .axis = "small files already opened, mapped and touched (mappings held)",
	.flags = BENCH_ONE_THREAD,
	.axis_kind = AXIS_LOAD,
	.summary = "open, mmap and touch one more small file with N small files mapped (per_dir to a directory)",
	.op_desc = "openat + mmap(PROT_READ, MAP_SHARED) + read one byte + close; the file is written untimed before, unmapped and removed after",
	.needs = NEED_DIR, .quick_max_n = 1000, .default_max_n = 10000, .full_max_n = 50000,
	.max_batch = 1, .space_bytes = space_bytes,
	.setup = setup, .grow = grow, .prep = prep, .op = op, .undo = undo, .teardown = teardown,
};
