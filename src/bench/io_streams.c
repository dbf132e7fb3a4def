/* SPDX-License-Identifier: MIT */
/* io.streams: N concurrent readers, each streaming its own large file
 * sequentially (the file-server case where seeks between streams kill
 * throughput). Aggregate bandwidth comes from the core's throughput; the
 * per-stream rates and their fairness (slowest / fastest) go into the
 * point's extra. The files are made untimed while N grows (file N-1 for
 * point N), then each point starts with their cached pages dropped
 * (cache=cold, default; drop: /proc/sys/vm/drop_caches as root; warm: left
 * as written). A stream that reaches the end of its file starts over, so a
 * long point on a buffered file system reads cached data on later passes.
 * Params: file_mib (default 16), bs (bytes per request, default 262144),
 * direct (variants 0 and 1), placement (spread: reader i on the allowed
 * CPU after the bench's, round robin, so that no reader moves). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench/iofile.h"

struct stream {
	int fd, k; /* k: its side for bench_place (1, 2, ...) */
	uint64_t off, bytes;
	void *buf;
	int err;
	pthread_t th;
	struct st *s;
};

struct st {
	struct bench_env *env;
	int direct;
	enum io_cache cache;
	uint64_t file_size;
	size_t bs;
	struct stream *sv;
	uint64_t nfiles, cap, n; /* files made; streams of this point */
	struct meter *m;
	pthread_mutex_t lock;
	atomic_int stop;
};

static const char *const variants[] = {"direct=0", "direct=1", NULL};
static const struct bench_param_spec params[] = {
	BP_BOOL("direct", "0", "1: O_DIRECT, bypassing the page cache (one variant each)"),
	BP_U64("file_mib", "16", 1, 65536, "size of each stream's file (MiB)"),
	BP_U64("bs", "262144", 4096, 67108864, "bytes per read request (rounded down to 4 KiB)"),
	BP_ENUM("cache", "cold", "warm|cold|drop", "page cache at each point: warm, cold (fadvise DONTNEED), drop (drop_caches; root)"),
	{.name = "inject", .type = BP_TYPE_ENUM, .values = "direct-einval",
	 .help = "make the O_DIRECT open fail with EINVAL, as a file system that refuses it", .flags = BP_TEST_ONLY},
	{0},
};

static void file_name(char *buf, size_t len, uint64_t i)
{
	snprintf(buf, len, "stream%llu", (unsigned long long)i);
}

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->env = env;
	pthread_mutex_init(&s->lock, NULL);
	s->direct = bench_param_u64(env, "direct") != 0;
	s->file_size = bench_param_u64(env, "file_mib") << 20;
	s->bs = (size_t)bench_param_u64(env, "bs") / 4096 * 4096;
	if (s->bs == 0)
		s->bs = 4096;
	if (s->file_size < s->bs)
		s->file_size = s->bs;
	const char *c = bench_param(env, "cache");
	s->cache = !strcmp(c, "warm") ? CACHE_WARM : !strcmp(c, "drop") ? CACHE_DROP : CACHE_COLD;
	int rc = 0;
	if (s->cache == CACHE_DROP && geteuid() != 0) {
		snprintf(env->skip, sizeof(env->skip), "cache=drop needs root");
		rc = BENCH_SKIP;
	}
	if (rc == 0 && s->direct) { /* is O_DIRECT accepted here? */
		int fd = openat(env->dirfd, "probe", O_CREAT | O_WRONLY, BENCH_FILE_MODE);
		if (fd < 0) {
			rc = bench_fail(env, "openat probe");
		} else {
			close(fd);
			rc = iofile_open_direct(env, "probe", O_RDONLY, &fd);
			if (fd >= 0)
				close(fd);
			unlinkat(env->dirfd, "probe", 0);
		}
	}
	if (rc) {
		pthread_mutex_destroy(&s->lock);
		free(s);
		return rc;
	}
	snprintf(env->note, sizeof(env->note), "page cache: %s; %llu MiB per stream, %zu KiB requests",
		 s->direct ? iofile_cache_desc(s->cache, 1) : iofile_cache_desc(s->cache, 0),
		 (unsigned long long)(s->file_size >> 20), s->bs >> 10);
	*state = s;
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	if (s->nfiles == s->cap) {
		uint64_t nc = s->cap ? s->cap * 2 : 16;
		struct stream *p = realloc(s->sv, nc * sizeof(*p));
		if (!p)
			return bench_fail(s->env, "realloc");
		s->sv = p;
		s->cap = nc;
	}
	struct stream *sv = &s->sv[s->nfiles];
	memset(sv, 0, sizeof(*sv));
	sv->fd = -1;
	char nm[32];
	file_name(nm, sizeof(nm), i);
	int fd = openat(s->env->dirfd, nm, O_CREAT | O_EXCL | O_WRONLY, BENCH_FILE_MODE);
	if (fd < 0)
		return bench_fail(s->env, "openat stream file");
	int rc = iofile_fill(fd, s->file_size, i + 1);
	if (rc == 0 && fsync(fd))
		rc = -errno;
	close(fd);
	if (rc) {
		errno = -rc;
		return bench_fail(s->env, "write stream file");
	}
	if (s->direct)
		rc = iofile_open_direct(s->env, nm, O_RDONLY, &sv->fd);
	else if ((sv->fd = openat(s->env->dirfd, nm, O_RDONLY)) < 0)
		rc = bench_fail(s->env, "openat stream file");
	if (rc)
		return rc < 0 ? rc : -EINVAL;
	int e = posix_memalign(&sv->buf, 4096, s->bs);
	if (e) {
		close(sv->fd);
		errno = e;
		return bench_fail(s->env, "posix_memalign");
	}
	sv->s = s;
	s->nfiles++;
	return 0;
}

static int set_n(void *state, uint64_t n)
{
	struct st *s = state;
	s->n = n < s->nfiles ? n : s->nfiles;
	for (uint64_t i = 0; i < s->n; i++) {
		s->sv[i].off = 0;
		s->sv[i].bytes = 0;
		s->sv[i].err = 0;
		if (s->cache != CACHE_WARM && !(s->cache == CACHE_DROP && i > 0)) {
			int rc = iofile_drop_cache(s->env, s->sv[i].fd, s->cache);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static void *stream_loop(void *arg)
{
	struct stream *sv = arg;
	struct st *s = sv->s;
	bench_place(s->env, sv->k);
	while (!atomic_load(&s->stop)) {
		uint64_t t = meter_now();
		ssize_t r = pread(sv->fd, sv->buf, s->bs, (off_t)sv->off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			sv->err = r < 0 ? errno : EIO;
			atomic_store(&s->stop, 1);
			break;
		}
		sv->bytes += (uint64_t)r;
		sv->off += (uint64_t)r;
		if (sv->off + s->bs > s->file_size)
			sv->off = 0;
		pthread_mutex_lock(&s->lock);
		meter_done(s->m, t, (uint64_t)r);
		if (meter_stop(s->m))
			atomic_store(&s->stop, 1);
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

static int run(void *state, struct meter *m)
{
	struct st *s = state;
	s->m = m;
	atomic_store(&s->stop, 0);
	uint64_t started = 0, t0 = meter_now();
	int rc = 0;
	for (; started < s->n; started++) {
		s->sv[started].k = (int)started + 1;
		int e = pthread_create(&s->sv[started].th, NULL, stream_loop, &s->sv[started]);
		if (e) {
			atomic_store(&s->stop, 1);
			errno = e;
			rc = bench_fail(s->env, "pthread_create");
			break;
		}
	}
	for (uint64_t i = 0; i < started; i++)
		pthread_join(s->sv[i].th, NULL);
	double secs = (double)(meter_now() - t0) / 1e9;
	for (uint64_t i = 0; i < started && rc == 0; i++)
		if (s->sv[i].err) {
			errno = s->sv[i].err;
			rc = bench_fail(s->env, "pread (stream)");
		}
	if (rc || started == 0 || secs <= 0)
		return rc;
	json_t *rates = json_array();
	double lo = 0, hi = 0, sum = 0;
	for (uint64_t i = 0; i < started; i++) {
		double r = (double)s->sv[i].bytes / secs / (1 << 20);
		json_array_append_new(rates, json_real(r));
		lo = i == 0 || r < lo ? r : lo;
		hi = i == 0 || r > hi ? r : hi;
		sum += r;
	}
	meter_extra(m, "per_stream_mib_s", rates);
	meter_extra(m, "stream_mib_s", json_pack("{s:f,s:f,s:f}", "min", lo, "max", hi, "mean",
						 sum / (double)started));
	meter_extra(m, "fairness_min_over_max", json_real(hi > 0 ? lo / hi : 0));
	meter_extra(m, "cache", json_string(iofile_cache_desc(s->cache, s->direct)));
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	for (uint64_t i = 0; i < s->nfiles; i++) {
		close(s->sv[i].fd);
		free(s->sv[i].buf);
	}
	free(s->sv);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* One file of file_mib per stream at the largest point. */
static uint64_t space_bytes(const struct bench_env *env)
{
	return (env->max_n * bench_param_u64(env, "file_mib") + 32) << 20;
}

const struct bench bench_io_streams = {
	.name = "io.streams", .version = 2, .axis = "concurrent streams (one file each)", .axis_kind = AXIS_CONCURRENCY,
	.summary = "N readers each streaming its own file: aggregate bandwidth and per-stream fairness",
	.op_desc = "one pread of bs bytes (256 KiB) by one of N threads, each reading its own file in order",
	.needs = NEED_DIR, .unit = "request", .series = SERIES_POW2, .flags = BENCH_FULL_BUDGET | BENCH_AXIS_TASKS,
	.placement = "spread",
	.quick_max_n = 8, .default_max_n = 32, .full_max_n = 128, .space_mib = 544, .space_bytes = space_bytes,
	.variants = variants, .params = params, .setup = setup, .grow = grow, .set_n = set_n, .run = run,
	.teardown = teardown,
	.fio = iofile_fio_streams,
};
