/* fs.fsync: latency of a small appended write + fsync, with N MiB of dirty
 * (written, not yet synced) data outstanding in other files. File systems
 * that flush the whole journal or every dirty file on one fsync (ext3
 * data=ordered) show it as a cost that grows with N.
 *
 * The dirty data is written untimed while the sweep grows N. A file system
 * that writes it back during a fsync makes later samples of the point see
 * less of it, and the kernel writes dirty data back on its own after
 * vm.dirty_expire_centisecs (30 s by default): a point's first samples see
 * the whole N. Param: append (bytes per write, default 4096). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"

#define MIB (1u << 20)
#define MIB_PER_FILE 64

struct st {
	struct bench_env *env;
	int probe;    /* the appended file */
	int dirty;    /* the dirty file being filled, or -1 */
	char *buf;    /* 1 MiB pattern */
	size_t append;
};

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->env = env;
	s->dirty = -1;
	s->append = (size_t)bench_param_u64(env, "append", 4096);
	if (s->append < 1 || s->append > MIB)
		s->append = 4096;
	s->buf = malloc(MIB);
	s->probe = openat(env->dirfd, "probe", O_CREAT | O_EXCL | O_WRONLY | O_APPEND, 0600);
	if (!s->buf || s->probe < 0) {
		int rc = bench_fail(env, s->buf ? "openat probe" : "malloc");
		if (s->probe >= 0)
			close(s->probe);
		free(s->buf);
		free(s);
		return rc;
	}
	for (size_t i = 0; i < MIB; i++)
		s->buf[i] = (char)(i * 131 + 7);
	snprintf(env->note, sizeof(env->note),
		 "N = MiB written and not synced in other files before the point (see vm.dirty_expire_centisecs)");
	*state = s;
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	if (i % MIB_PER_FILE == 0) {
		char nm[32];
		snprintf(nm, sizeof(nm), "dirty%llu", (unsigned long long)(i / MIB_PER_FILE));
		if (s->dirty >= 0)
			close(s->dirty);
		s->dirty = openat(s->env->dirfd, nm, O_CREAT | O_EXCL | O_WRONLY, 0600);
		if (s->dirty < 0)
			return bench_fail(s->env, "openat dirty file");
	}
	size_t done = 0;
	while (done < MIB) {
		ssize_t w = write(s->dirty, s->buf + done, MIB - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return bench_fail(s->env, "write (dirty data)");
		done += (size_t)w;
	}
	return 0;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	if (write(s->probe, s->buf, s->append) != (ssize_t)s->append)
		return bench_fail(s->env, "write (appended)");
	if (fsync(s->probe))
		return bench_fail(s->env, "fsync");
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	if (s->dirty >= 0)
		close(s->dirty);
	close(s->probe);
	free(s->buf);
	free(s);
}

const struct bench bench_fs_fsync = {
	.name = "fs.fsync", .version = 1, .axis = "MiB of dirty data in other files",
	.summary = "append 4 KiB to a file and fsync it, with N MiB of unsynced data in other files",
	.op_desc = "write(4 KiB, O_APPEND) + fsync of one file",
	.needs = NEED_DIR, .quick_max_n = 64, .default_max_n = 256, .full_max_n = 1024,
	.max_batch = 1, .space_mib = 320, .setup = setup, .grow = grow, .op = op,
	.teardown = teardown,
};
