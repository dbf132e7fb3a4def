/* SPDX-License-Identifier: MIT */
/* fsdir's probe names (src/bench/fsdir.c): made by incrementing the last
 * name's digits in place, they must be the names snprintf("p%llu%s") made
 * before, in order, across every change of length (9 -> 10, 99 -> 100 ...),
 * with and without a task's tag, in any slot; and fs.create must still
 * create and remove them in a real directory. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bench/fsdir.h"
#include "t.h"

extern const struct bench bench_fs_unlink; /* src/bench/fs_unlink.c */

static void names(const char *tag, uint64_t count)
{
	struct bench_env env;
	memset(&env, 0, sizeof(env));
	snprintf(env.task_tag, sizeof(env.task_tag), "%s", tag);
	void *st = NULL;
	CHECK(fsdir_setup(&env, &st) == 0 && st, "setup");
	if (!st)
		return;
	struct fsdir *d = st;
	int bad = 0;
	for (uint64_t i = 0; i < count; i++) {
		unsigned slot = (unsigned)(i % FSDIR_SLOTS);
		char want[64];
		snprintf(want, sizeof(want), "p%llu%s", (unsigned long long)i, tag);
		fsdir_pick_probe(st, slot);
		if (strcmp(d->name[slot], want) && bad++ < 3)
			CHECK(0, "probe %llu (tag '%s'): '%s', want '%s'", (unsigned long long)i, tag,
			      d->name[slot], want);
	}
	CHECK(!bad, "%d of %llu probe names differ (tag '%s')", bad, (unsigned long long)count, tag);
	CHECK(d->probes == count, "probes %llu, want %llu", (unsigned long long)d->probes,
	      (unsigned long long)count);
	fsdir_teardown(st);
}

/* a counter far along (as after --min-n of a long run): from 999999 on */
static void names_from(uint64_t start)
{
	struct bench_env env;
	memset(&env, 0, sizeof(env));
	void *st = NULL;
	CHECK(fsdir_setup(&env, &st) == 0 && st, "setup");
	if (!st)
		return;
	struct fsdir *d = st;
	d->probes = start;
	int bad = 0;
	for (uint64_t i = start; i < start + 20; i++) {
		char want[64];
		snprintf(want, sizeof(want), "p%llu", (unsigned long long)i);
		fsdir_pick_probe(st, 0);
		bad += strcmp(d->name[0], want) != 0;
	}
	CHECK(!bad, "%d names from %llu differ", bad, (unsigned long long)start);
	fsdir_teardown(st);
}

int main(void)
{
	names("", 1100000);
	names(".t12", 20000);
	names_from(999990);
	names_from(18446744073709551590ull);

	/* fs.create's prep, op and undo on a real directory: each name made and removed */
	char tmpl[] = "/tmp/sb-test-fsdir.XXXXXX";
	char *dir = mkdtemp(tmpl);
	CHECK(dir != NULL, "mkdtemp");
	if (dir) {
		struct bench_env env;
		memset(&env, 0, sizeof(env));
		env.dir = dir;
		env.dirfd = open(dir, O_RDONLY | O_DIRECTORY);
		void *st = NULL;
		CHECK(env.dirfd >= 0 && fsdir_setup(&env, &st) == 0, "setup in %s", dir);
		struct fsdir *d = st;
		int ok = 1;
		for (int i = 0; st && i < 120; i++) {
			fsdir_pick_probe(st, 0);
			int fd = openat(env.dirfd, d->name[0], O_CREAT | O_EXCL | O_WRONLY, 0644);
			struct stat sb;
			char want[16];
			snprintf(want, sizeof(want), "p%d", i);
			ok &= fd >= 0 && close(fd) == 0 && !strcmp(d->name[0], want) &&
			      fstatat(env.dirfd, want, &sb, 0) == 0 && fsdir_unlink_slot(st, 0) == 0 &&
			      fstatat(env.dirfd, want, &sb, 0) < 0;
		}
		CHECK(ok, "create and unlink of p0..p119 in %s", dir);
		if (st)
			fsdir_teardown(st);
		if (env.dirfd >= 0)
			close(env.dirfd);
		CHECK(rmdir(dir) == 0, "%s left empty", dir);
	}

	/* with a spent directory (a file system without a journal, bench.h):
	 * what fs.create's and fs.mkdir's undo remove goes there, under names
	 * of its own, and leaves the bench's directory; fs.unlink's op (the
	 * operation measured) still unlinks */
	char t2[] = "/tmp/sb-test-fsdir.XXXXXX", t3[] = "/tmp/sb-test-spent.XXXXXX";
	char *wd = mkdtemp(t2), *sd = mkdtemp(t3);
	CHECK(wd && sd, "mkdtemp");
	if (wd && sd) {
		struct bench_env env;
		memset(&env, 0, sizeof(env));
		env.dir = wd;
		env.dirfd = open(wd, O_RDONLY | O_DIRECTORY);
		env.spent_fd = open(sd, O_RDONLY | O_DIRECTORY);
		env.has_spent = 1;
		env.max_n = 10;
		void *st = NULL;
		CHECK(env.dirfd >= 0 && env.spent_fd >= 0 && fsdir_setup(&env, &st) == 0, "setup");
		struct fsdir *d = st;
		struct stat sb;
		int ok = st != NULL;
		for (int i = 0; st && i < 3; i++) {
			ok &= fsdir_create_probe(st, 0) == 0 && fsdir_unlink_slot(st, 0) == 0;
			char s[16];
			snprintf(s, sizeof(s), "s%d", i);
			ok &= fstatat(env.dirfd, d->name[0], &sb, 0) < 0 && fstatat(env.spent_fd, s, &sb, 0) == 0;
		}
		CHECK(ok, "the undo moves p0..p2 to the spent directory as s0..s2");
		ok = st && mkdirat(env.dirfd, "m", 0755) == 0 && fsdir_drop(d, "m", AT_REMOVEDIR) == 0 &&
		     fstatat(env.dirfd, "m", &sb, 0) < 0 && fstatat(env.spent_fd, "s3", &sb, 0) == 0 &&
		     S_ISDIR(sb.st_mode);
		CHECK(ok, "a directory moved too (fs.mkdir's undo)");
		ok = st && fsdir_create_probe(st, 1) == 0 && bench_fs_unlink.op(st, 1) == 0 &&
		     fstatat(env.dirfd, d->name[1], &sb, 0) < 0 && fstatat(env.spent_fd, "s4", &sb, 0) < 0;
		CHECK(ok, "fs.unlink's op unlinks: nothing goes to the spent directory");
		if (st)
			fsdir_teardown(st);
		for (int i = 0; i < 4; i++) {
			char s[16];
			snprintf(s, sizeof(s), "s%d", i);
			unlinkat(env.spent_fd, s, i == 3 ? AT_REMOVEDIR : 0);
		}
		close(env.dirfd);
		close(env.spent_fd);
		CHECK(rmdir(wd) == 0 && rmdir(sd) == 0, "%s and %s left empty", wd, sd);
	}
	return t_done("fsdir");
}
