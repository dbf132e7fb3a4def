/* SPDX-License-Identifier: MIT */
/* fs.manymap (src/bench/fs_manymap.c) in a real scratch directory: grow
 * puts per_dir files to a directory (d000000, d000001, ...), each
 * file_bytes long; prep, op and undo leave the tree as they found it (the
 * probe written, mapped, unmapped and removed; a directory prep made for
 * it removed too); teardown unmaps everything; the space it asks for grows
 * with N and the file size. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "core/bench.h"
#include "core/registry.h"
#include "t.h"

extern const struct bench bench_fs_manymap;

static int entries(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	DIR *d = fdopendir(fd);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static uint64_t space(uint64_t n, const char *bytes)
{
	struct bench_env env;
	memset(&env, 0, sizeof(env));
	json_t *p = json_pack("{s:s}", "file_bytes", bytes);
	env.params = p;
	env.bench = &bench_fs_manymap;
	env.max_n = n;
	uint64_t b = bench_fs_manymap.space_bytes(&env);
	json_decref(p);
	return b;
}

int main(void)
{
	const struct bench *b = &bench_fs_manymap;
	char dir[] = "/tmp/sbtest-manymap.XXXXXX";
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	struct bench_env env;
	memset(&env, 0, sizeof(env));
	json_t *p = json_pack("{s:s,s:s}", "per_dir", "3", "file_bytes", "150");
	env.params = p;
	env.bench = b;
	env.dir = dir;
	env.dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	env.max_n = 7;
	void *st = NULL;
	CHECK(b->setup(&env, &st) == 0 && st, "setup");
	for (uint64_t i = 0; i < 7 && st; i++)
		CHECK(b->grow(st, i) == 0, "grow %llu: %s", (unsigned long long)i, env.failed_call ? env.failed_call : "");
	CHECK(entries(env.dirfd, ".") == 3, "3 directories for 7 files, 3 to a directory: %d", entries(env.dirfd, "."));
	CHECK(entries(env.dirfd, "d000000") == 3 && entries(env.dirfd, "d000001") == 3 &&
	      entries(env.dirfd, "d000002") == 1, "3 + 3 + 1 files");
	struct stat sb;
	CHECK(fstatat(env.dirfd, "d000002/f00000006", &sb, 0) == 0 && sb.st_size == 150, "file 6: 150 bytes");
	/* the op at N=7 goes into d000002 beside file 6; at N=9 into a new d000003 */
	for (int round = 0; round < 2 && st; round++) {
		CHECK(b->prep(st, 0) == 0 && b->op(st, 0) == 0 && b->undo(st, 0) == 0, "prep/op/undo, round %d", round);
		CHECK(entries(env.dirfd, ".") == 3 && entries(env.dirfd, "d000002") == (round ? 3 : 1),
		      "round %d: the tree as it was", round);
		if (round == 0) {
			CHECK(b->grow(st, 7) == 0 && b->grow(st, 8) == 0, "grow to 9");
			CHECK(entries(env.dirfd, "d000002") == 3, "d000002 full");
		}
	}
	CHECK(entries(env.dirfd, "d000003") == -1, "the probe's own directory removed by undo");
	if (st)
		b->teardown(st);
	CHECK(space(1000, "150") > space(100, "150"), "space grows with N");
	CHECK(space(1000, "9000") > space(1000, "150"), "space grows with the file size");
	CHECK(space(1000, "150") >= 1000 * 4096, "at least a block per file");
	json_decref(p);
	close(env.dirfd);
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0, "rm");
	reg_cleanup();
	return t_done("test_manymap");
}
