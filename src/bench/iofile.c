/* SPDX-License-Identifier: MIT */
/* The data path's file, parameters, page cache, the threads of the
 * synchronous engines and the fio command line: see iofile.h. The engines
 * themselves are ioeng_*.c (ioeng.h). */
#include "bench/iofile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/sys.h"
#include "core/usage.h"

#define ALIGN 4096
#define FILL_CHUNK (1u << 20)

const char *const iofile_variants_rw[] = {
	"engine=psync,direct=0", "engine=psync,direct=1", "engine=libaio,direct=0",
	"engine=libaio,direct=1", "engine=io_uring,direct=0", "engine=io_uring,direct=1", NULL,
};
const char *const iofile_variants_read[] = {
	"engine=psync,direct=0", "engine=psync,direct=1", "engine=libaio,direct=0",
	"engine=libaio,direct=1", "engine=io_uring,direct=0", "engine=io_uring,direct=1",
	"engine=mmap,direct=0", NULL,
};

/* engine=...: NULL if in this build, else why not. */
static const char *engine_absent(const char *value)
{
	const struct ioeng_ops *e = ioeng_find(value);
	return e ? e->absent : NULL;
}

#define P_ENGINE_RW {.name = "engine", .type = BP_TYPE_ENUM, .def = "psync", .values = "psync|libaio|io_uring", \
	.help = "I/O engine (one variant each): psync (pwrite; depth > 1 = threads), libaio, io_uring", \
	.absent = engine_absent}
#define P_ENGINE_READ {.name = "engine", .type = BP_TYPE_ENUM, .def = "psync", .values = "psync|libaio|io_uring|mmap", \
	.help = "I/O engine (one variant each): psync (pread; depth > 1 = threads), libaio, io_uring, mmap (page copies)", \
	.absent = engine_absent}
#define P_COMMON \
	BP_BOOL("direct", "0", "1: O_DIRECT, bypassing the page cache (one variant each)"), \
	BP_ENUM("cache", "warm", "warm|cold|drop", "page cache at each point: warm (just written), cold (fadvise DONTNEED), drop (drop_caches; root)"), \
	BP_U64("size_mib", "64", 1, 1048576, "size of the file read or written (MiB)")
#define P_INJECT \
	{.name = "inject", .type = BP_TYPE_ENUM, .values = "direct-einval", \
	 .help = "make the O_DIRECT open fail with EINVAL, as a file system that refuses it", .flags = BP_TEST_ONLY}
#define P_FILE BP_FILE("file", "read this existing file (whole 4 KiB blocks) instead of making one; never written")
#define P_DEPTH BP_U64("depth", "1", 1, 4096, "requests in flight at every point")
#define P_BATCH \
	BP_U64("batch", "1", 1, 4096, "libaio, io_uring: requests submitted per call, and at most reaped per call " \
	       "(at least 1); 1 = fio's default (iodepth_batch_submit=1, iodepth_batch_complete_min=max=1)"), \
	BP_ENUM("uring_setup", "fio", "fio|coop|plain", "io_uring ring flags: fio (SINGLE_ISSUER|DEFER_TASKRUN, as fio), " \
		"coop (COOP_TASKRUN), plain (none)")
#define P_BS BP_U64("bs", "4096", 512, 67108864, "bytes per request (at most the file's size)")

const struct bench_param_spec iofile_params_seqread[] = {P_ENGINE_READ, P_COMMON, P_FILE, P_DEPTH, P_BATCH, P_INJECT, {0}};
const struct bench_param_spec iofile_params_seqwrite[] = {P_ENGINE_RW, P_COMMON, P_DEPTH, P_BATCH, P_INJECT, {0}};
const struct bench_param_spec iofile_params_randread[] = {P_ENGINE_READ, P_COMMON, P_FILE, P_BS, P_BATCH, P_INJECT, {0}};
const struct bench_param_spec iofile_params_randwrite[] = {P_ENGINE_RW, P_COMMON, P_BS, P_BATCH, P_INJECT, {0}};

/* ---- what every engine shares ---- */

const struct ioeng_ops *ioeng_find(const char *name)
{
	static const struct ioeng_ops *const all[] = {&ioeng_psync, &ioeng_libaio, &ioeng_uring, &ioeng_mmap};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

void **iofile_bufs(struct iofile *f, unsigned n)
{
	void **b = calloc(n, sizeof(*b));
	if (!b) {
		bench_fail(f->env, "calloc");
		return NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		int rc = posix_memalign(&b[i], ALIGN, f->bs);
		if (rc) {
			iofile_bufs_free(b, i);
			errno = rc;
			bench_fail(f->env, "posix_memalign");
			errno = rc;
			return NULL;
		}
		memset(b[i], 0x5a, f->bs);
	}
	return b;
}

void iofile_bufs_free(void **bufs, unsigned n)
{
	if (!bufs)
		return;
	for (unsigned i = 0; i < n; i++)
		free(bufs[i]);
	free(bufs);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

uint64_t iofile_next_offset(struct iofile *f, uint64_t *rng)
{
	uint64_t nreq = f->size / f->bs;
	if (nreq == 0)
		nreq = 1;
	if (f->random)
		return (xorshift(rng) % nreq) * f->bs;
	uint64_t k = atomic_fetch_add(&f->next_off, 1);
	return (k % nreq) * f->bs;
}

int iofile_check_res(struct iofile *f, long res)
{
	if (res < 0) {
		errno = (int)-res;
		return bench_fail(f->env, f->write ? "write request" : "read request");
	}
	if ((size_t)res != f->bs) {
		errno = EIO;
		return bench_fail(f->env, f->write ? "short write" : "short read");
	}
	return 0;
}

/* ---- synchronous engines: one request per thread ---- */

struct worker {
	struct iofile *f;
	struct meter *m;
	pthread_mutex_t *lock; /* NULL when alone */
	atomic_int *stop;
	uint64_t rng;
	void *buf;
	int err;
	const char *call;
};

static int sync_one(struct worker *w, uint64_t off)
{
	const char *call = "request";
	if (w->f->ops->one(w->f, w->buf, off, &call) == 0)
		return 0;
	w->err = errno ? errno : EIO;
	w->call = call;
	return -1;
}

static void *sync_loop(void *arg)
{
	struct worker *w = arg;
	while (!atomic_load(w->stop)) {
		uint64_t off = iofile_next_offset(w->f, &w->rng);
		uint64_t t = meter_now();
		if (sync_one(w, off)) {
			atomic_store(w->stop, 1);
			break;
		}
		if (w->lock)
			pthread_mutex_lock(w->lock);
		meter_done(w->m, t, w->f->bs);
		if (meter_stop(w->m))
			atomic_store(w->stop, 1);
		if (w->lock)
			pthread_mutex_unlock(w->lock);
	}
	return NULL;
}

static int run_sync(struct iofile *f, struct meter *m)
{
	unsigned n = f->depth;
	struct worker *w = calloc(n, sizeof(*w));
	pthread_t *th = calloc(n, sizeof(*th));
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	atomic_int stop = 0;
	int rc = 0;
	unsigned started = 0;
	if (!w || !th) {
		rc = bench_fail(f->env, "calloc");
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		w[i] = (struct worker){.f = f, .m = m, .lock = n > 1 ? &lock : NULL, .stop = &stop,
				       .rng = f->rng + 0x9e3779b97f4a7c15ull * (i + 1)};
		int e = posix_memalign(&w[i].buf, ALIGN, f->bs);
		if (e) {
			errno = e;
			rc = bench_fail(f->env, "posix_memalign");
			goto out;
		}
		memset(w[i].buf, 0x5a, f->bs);
	}
	if (n == 1) {
		sync_loop(&w[0]); /* no thread, no lock: the cheapest path */
	} else {
		for (; started < n; started++) {
			int e = pthread_create(&th[started], NULL, sync_loop, &w[started]);
			if (e) {
				atomic_store(&stop, 1);
				errno = e;
				rc = bench_fail(f->env, "pthread_create");
				break;
			}
		}
		for (unsigned i = 0; i < started; i++)
			pthread_join(th[i], NULL);
	}
	for (unsigned i = 0; i < n && rc == 0; i++)
		if (w[i].err) {
			errno = w[i].err;
			rc = bench_fail(f->env, w[i].call);
		}
	f->rng = xorshift(&f->rng);
out:
	if (w)
		for (unsigned i = 0; i < n; i++)
			free(w[i].buf);
	free(w);
	free(th);
	return rc;
}

/* ---- file, parameters, cache ---- */

int iofile_fill(int fd, uint64_t bytes, uint64_t seed)
{
	char *buf = malloc(FILL_CHUNK);
	if (!buf)
		return -ENOMEM;
	uint64_t s = seed | 1;
	for (size_t i = 0; i < FILL_CHUNK / 8; i++) /* not zeros: no file system may elide it */
		memcpy(buf + i * 8, &(uint64_t){xorshift(&s)}, 8);
	int rc = 0;
	for (uint64_t off = 0; off < bytes && rc == 0;) {
		size_t len = bytes - off < FILL_CHUNK ? (size_t)(bytes - off) : FILL_CHUNK;
		ssize_t w = pwrite(fd, buf, len, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			rc = w < 0 ? -errno : -EIO;
		else
			off += (uint64_t)w;
	}
	free(buf);
	return rc;
}

int iofile_open_direct(struct bench_env *env, const char *name, int flags, int *fd)
{
#ifdef O_DIRECT
	const char *inj = bench_param(env, "inject"); /* no default: NULL */
	if (inj && !strcmp(inj, "direct-einval")) {
		errno = EINVAL; /* test-only: as a file system that refuses O_DIRECT */
		*fd = -1;
	} else {
		*fd = openat(env->dirfd, name, flags | O_DIRECT);
	}
	if (*fd < 0 && errno == EINVAL) {
		snprintf(env->skip, sizeof(env->skip),
			 "O_DIRECT refused by this file system (open: EINVAL)%s",
			 inj ? " [injected by the test-only param inject=direct-einval]" : "");
		return BENCH_SKIP;
	}
	if (*fd < 0)
		return bench_fail(env, "openat(O_DIRECT)");
	return 0;
#else
	(void)name;
	(void)flags;
	*fd = -1;
	snprintf(env->skip, sizeof(env->skip), "O_DIRECT does not exist in this build (POSIX only)");
	return BENCH_SKIP;
#endif
}

const char *iofile_cache_desc(enum io_cache c, int direct)
{
	if (direct)
		return "bypassed (O_DIRECT); the file's cached pages were dropped at setup";
	switch (c) {
	case CACHE_COLD:
		return "cold at the start of each point (posix_fadvise DONTNEED), warming as it runs";
	case CACHE_DROP:
		return "cold at the start of each point (sync + /proc/sys/vm/drop_caches), warming as it runs";
	default:
		return "warm: the file was written just before and is in the page cache";
	}
}

int iofile_drop_cache(struct bench_env *env, int fd, enum io_cache c)
{
	if (c == CACHE_DROP) {
		int rc = sys_drop_caches();
		if (rc) {
			errno = -rc;
			return bench_fail(env, "drop_caches");
		}
		return 0;
	}
	if (fdatasync(fd))
		return bench_fail(env, "fdatasync");
	int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (rc) {
		errno = rc;
		return bench_fail(env, "posix_fadvise(DONTNEED)");
	}
	return 0;
}

static int parse_engine(struct bench_env *env, struct iofile *f)
{
	const char *e = bench_param(env, "engine");
	f->ops = ioeng_find(e);
	if (!f->ops) {
		snprintf(env->skip, sizeof(env->skip), "unknown engine '%s' (psync, libaio, io_uring, mmap)", e);
		return BENCH_SKIP;
	}
	if (f->ops->absent) {
		snprintf(env->skip, sizeof(env->skip), "%s", f->ops->absent);
		return BENCH_SKIP;
	}
	if (f->write && !f->ops->async && f->ops != &ioeng_psync) {
		snprintf(env->skip, sizeof(env->skip), "engine %s reads only", f->ops->name);
		return BENCH_SKIP;
	}
	f->batch = (unsigned)bench_param_u64(env, "batch");
	const char *c = bench_param(env, "cache");
	f->cache = !strcmp(c, "cold") ? CACHE_COLD : !strcmp(c, "drop") ? CACHE_DROP : CACHE_WARM;
	if (f->cache == CACHE_WARM && strcmp(c, "warm")) {
		snprintf(env->skip, sizeof(env->skip), "unknown cache '%s' (warm, cold, drop)", c);
		return BENCH_SKIP;
	}
	if (f->cache == CACHE_DROP && geteuid() != 0) {
		snprintf(env->skip, sizeof(env->skip), "cache=drop needs root (/proc/sys/vm/drop_caches)");
		return BENCH_SKIP;
	}
	f->direct = bench_param_u64(env, "direct") != 0;
	if (f->direct && f->ops->no_direct) {
		snprintf(env->skip, sizeof(env->skip), "mmap has no O_DIRECT form");
		return BENCH_SKIP;
	}
	return 0;
}

/* param file=PATH: read an existing file instead of making one (the
 * cross-check against fio reads the very same file); read benches only. */
static int use_given(struct bench_env *env, struct iofile *f, const char *path)
{
	if (f->write) {
		snprintf(env->skip, sizeof(env->skip), "file= is for read benches only (it is never written)");
		return BENCH_SKIP;
	}
	int rc = 0;
	if (f->direct) {
		int dfd = open(path, O_RDONLY);
		if (dfd >= 0) {
			posix_fadvise(dfd, 0, 0, POSIX_FADV_DONTNEED);
			close(dfd);
		}
		rc = iofile_open_direct(env, path, O_RDONLY, &f->fd); /* absolute: dirfd ignored */
		if (rc)
			return rc;
	} else if ((f->fd = open(path, O_RDONLY)) < 0) {
		return bench_fail(env, "open file=");
	}
	struct stat st;
	if (fstat(f->fd, &st))
		return bench_fail(env, "fstat file=");
	f->size = (uint64_t)st.st_size / ALIGN * ALIGN;
	if (f->size < ALIGN) {
		errno = EINVAL;
		return bench_fail(env, "file= is smaller than 4 KiB");
	}
	f->given = 1;
	if (f->ops->open && (rc = f->ops->open(f)) != 0)
		return rc;
	snprintf(env->note, sizeof(env->note), "page cache: %s; existing file %.120s, %llu MiB",
		 iofile_cache_desc(f->cache, f->direct), path, (unsigned long long)(f->size >> 20));
	return 0;
}

int iofile_setup(struct bench_env *env, struct iofile *f, int write, int random)
{
	memset(f, 0, sizeof(*f));
	f->env = env;
	f->fd = -1;
	f->write = write;
	f->random = random;
	f->rng = 0x2545f4914f6cdd1dull;
	int rc = parse_engine(env, f);
	if (rc)
		return rc;
	f->size = bench_param_u64(env, "size_mib") << 20;
	if (f->size < ALIGN)
		f->size = ALIGN;
	const char *given = write ? NULL : bench_param(env, "file"); /* read benches only */
	if (given)
		return use_given(env, f, given);
	int wfd = openat(env->dirfd, "data", O_CREAT | O_EXCL | O_RDWR, BENCH_FILE_MODE);
	if (wfd < 0)
		return bench_fail(env, "openat(O_CREAT) data file");
	rc = iofile_fill(wfd, f->size, 42);
	if (rc == 0 && fsync(wfd))
		rc = -errno;
	if (rc < 0) {
		close(wfd);
		errno = -rc;
		return bench_fail(env, "write data file");
	}
	int flags = write ? O_RDWR : O_RDONLY;
	if (f->direct) {
		posix_fadvise(wfd, 0, 0, POSIX_FADV_DONTNEED);
		close(wfd);
		rc = iofile_open_direct(env, "data", flags, &f->fd);
		if (rc)
			return rc;
	} else if (write) {
		f->fd = wfd;
	} else {
		close(wfd);
		if ((f->fd = openat(env->dirfd, "data", flags)) < 0)
			return bench_fail(env, "openat data file");
	}
	if (f->ops->open && (rc = f->ops->open(f)) != 0)
		return rc;
	snprintf(env->note, sizeof(env->note), "page cache: %s; file %llu MiB",
		 iofile_cache_desc(f->cache, f->direct), (unsigned long long)(f->size >> 20));
	return 0;
}

static void engine_cleanup(struct iofile *f)
{
	if (f->ops && f->ops->cleanup)
		f->ops->cleanup(f);
	f->priv = NULL;
}

int iofile_point(struct iofile *f, size_t bs, unsigned depth)
{
	engine_cleanup(f);
	f->bs = bs;
	f->depth = depth ? depth : 1;
	f->next_off = 0;
	if (f->cache != CACHE_WARM && !f->direct) {
		int rc = iofile_drop_cache(f->env, f->fd, f->cache);
		if (rc)
			return rc;
	}
	return f->ops->init ? f->ops->init(f) : 0;
}

static json_t *uring_flags_json(unsigned fl)
{
	json_t *a = json_array();
	static const struct { unsigned bit; const char *name; } names[] = {
		{1u << 8, "COOP_TASKRUN"}, {1u << 12, "SINGLE_ISSUER"}, {1u << 13, "DEFER_TASKRUN"},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (fl & names[i].bit)
			json_array_append_new(a, json_string(names[i].name));
	return a;
}

int iofile_run(struct iofile *f, struct meter *m)
{
	meter_extra(m, "cache", json_string(iofile_cache_desc(f->cache, f->direct)));
	meter_extra(m, "request_bytes", json_integer((json_int_t)f->bs));
	meter_extra(m, "in_flight", json_integer((json_int_t)f->depth));
	if (f->ops->async) {
		unsigned b = f->batch < f->depth ? f->batch : f->depth;
		meter_extra(m, "batch", json_integer((json_int_t)(b ? b : 1)));
		if (f->ops == &ioeng_uring)
			meter_extra(m, "uring_setup", uring_flags_json(f->uring_flags));
		/* The CPU of this thread alone (the one that submits and reaps),
		 * which is what fio reports as its job's usr_cpu/sys_cpu
		 * (getrusage(RUSAGE_THREAD)). The point's per_op counts the
		 * whole process, io_uring's io-wq workers (threads of this
		 * process) included: on a tmpfs, where every io_uring read is
		 * handed to a worker, that is the submitter's work and the
		 * workers' together, and compared with fio's figure it reads
		 * as 2-3 times the kernel work (docs/io-engines.md, "io_uring's
		 * system CPU"). Only where the thread's counters exist. */
		int thread = usage_counter() == USAGE_THREAD;
		struct usage_read a, z;
		if (thread)
			usage_begin(&a);
		int rc = f->ops->run(f, m);
		if (thread && rc == 0) {
			usage_end(&z);
			struct usage_acc acc = {0};
			usage_acc_add(&acc, &a, &z, -1);
			meter_extra(m, "submitter_cpu_s",
				    json_pack("{s:f,s:f}", "user", acc.ru_user_s, "sys", acc.ru_sys_s));
		}
		return rc;
	}
	return run_sync(f, m);
}

void iofile_teardown(struct iofile *f)
{
	engine_cleanup(f);
	if (f->ops && f->ops->close)
		f->ops->close(f);
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/* ---- callbacks shared by io.seqread, io.seqwrite, io.randread, io.randwrite ---- */

int iofile_cb_setup(struct bench_env *env, void **state, int write, int random)
{
	struct iofile *f = calloc(1, sizeof(*f));
	if (!f)
		return bench_fail(env, "calloc");
	*state = f;
	int rc = iofile_setup(env, f, write, random);
	if (rc) {
		iofile_teardown(f);
		free(f);
		*state = NULL;
	}
	return rc;
}

/* N = request size in KiB, rounded up to whole 4 KiB blocks (O_DIRECT). */
int iofile_cb_set_size(void *state, uint64_t n)
{
	struct iofile *f = state;
	uint64_t bs = (n * 1024 + ALIGN - 1) / ALIGN * ALIGN;
	if (bs > f->size)
		bs = f->size / ALIGN * ALIGN;
	return iofile_point(f, (size_t)bs, (unsigned)bench_param_u64(f->env, "depth"));
}

/* N = requests in flight, each of bs bytes (default 4 KiB). */
int iofile_cb_set_depth(void *state, uint64_t n)
{
	struct iofile *f = state;
	uint64_t bs = bench_param_u64(f->env, "bs");
	if (bs > f->size) { /* checked against its range before the run, not against size_mib */
		errno = EINVAL;
		return bench_fail(f->env, "bs larger than the file (size_mib)");
	}
	return iofile_point(f, (size_t)bs, (unsigned)n);
}

int iofile_cb_run(void *state, struct meter *m) { return iofile_run(state, m); }

void iofile_cb_teardown(void *state)
{
	iofile_teardown(state);
	free(state);
}

/* ---- the same job as fio's command line (run --fio) ---- */

/* Append "'s'" (shell-quoted) to buf; a ':' becomes "\\:", since fio's
 * --filename separates file names with ':'. */
static void shq(char *buf, size_t len, const char *s)
{
	size_t k = strlen(buf);
	if (k + 1 < len)
		buf[k++] = '\'';
	for (; *s && k + 5 < len; s++) {
		if (*s == '\'') {
			memcpy(buf + k, "'\\''", 4);
			k += 4;
		} else if (*s == ':') {
			memcpy(buf + k, "\\:", 2);
			k += 2;
		} else {
			buf[k++] = *s;
		}
	}
	if (k + 1 < len)
		buf[k++] = '\'';
	buf[k < len ? k : len - 1] = '\0';
}

#define CAT(...) (k = strlen(buf), k < len ? (void)snprintf(buf + k, len - k, __VA_ARGS__) : (void)0)

/* What scalebench measures per request, in fio's words (docs/io-engines.md,
 * "The same measurement"): one latency per request, from just before it is
 * submitted to its reap (fio's lat; scalebench keeps no submission or
 * completion-only latency, so fio's slat and clat are off), into a
 * histogram (fio's lat_percentiles), read from CLOCK_MONOTONIC through
 * clock_gettime, as scalebench's clock (fio would otherwise pick the TSC
 * or clock_gettime per run, from a timing test at its start). */
#define FIO_MEASURE " --clocksource=clock_gettime --disable_slat=1 --disable_clat=1 --lat_percentiles=1"

int iofile_fio_cmd(const struct bench_env *env, int write, int random, int axis_depth, uint64_t n,
		   double runtime_s, char *buf, size_t len)
{
	size_t k;
	const struct ioeng_ops *e = ioeng_find(bench_param(env, "engine"));
	if (!e || len < 64)
		return -1;
	int direct = bench_param_u64(env, "direct") != 0;
	const char *cache = bench_param(env, "cache");
	const char *given = write ? NULL : bench_param(env, "file");
	uint64_t size = bench_param_u64(env, "size_mib") << 20;
	uint64_t bs, depth;
	if (axis_depth) {
		bs = bench_param_u64(env, "bs");
		depth = n;
	} else { /* N = request KiB, whole 4 KiB blocks, at most the file */
		bs = (n * 1024 + ALIGN - 1) / ALIGN * ALIGN;
		if (!given && bs > size)
			bs = size / ALIGN * ALIGN;
		depth = bench_param_u64(env, "depth");
	}
	uint64_t batch = bench_param_u64(env, "batch");
	if (batch > depth)
		batch = depth;
	buf[0] = '\0';
	if (!direct && !strcmp(cache, "drop")) /* fio has no drop_caches of its own */
		CAT("sync && echo 3 >/proc/sys/vm/drop_caches && ");
	CAT("fio --name=%s --filename=", env->bench ? env->bench->name : "io");
	if (given) {
		shq(buf, len, given);
	} else {
		char path[4200];
		snprintf(path, sizeof(path), "%s/scalebench-fio.dat", env->dir ? env->dir : "/tmp");
		shq(buf, len, path);
		CAT(" --size=%lluM --unlink=1", (unsigned long long)(size >> 20));
	}
	CAT(" --rw=%s --bs=%llu --direct=%d --ioengine=%s", write ? (random ? "randwrite" : "write")
								 : (random ? "randread" : "read"),
	    (unsigned long long)bs, direct, e->fio_name);
	if (random)
		CAT(" --norandommap --randrepeat=0"); /* uniform, with replacement, as scalebench */
	if (e->async)
		CAT(" --iodepth=%llu --iodepth_batch_submit=%llu --iodepth_batch_complete_min=1"
		    " --iodepth_batch_complete_max=%llu",
		    (unsigned long long)depth, (unsigned long long)batch, (unsigned long long)batch);
	else if (depth > 1)
		CAT(" --iodepth=1 --numjobs=%llu --thread --group_reporting", (unsigned long long)depth);
	else
		CAT(" --iodepth=1");
	/* O_DIRECT: scalebench drops the file's cached pages at setup (an O_DIRECT
	 * read of a range with cached pages has them to check), fio's
	 * --invalidate=1 before its job; cold: posix_fadvise(DONTNEED) before
	 * the job, as cache=cold; drop: and above. fio's default fadvise_hint
	 * would give the kernel a hint scalebench does not (POSIX_FADV_RANDOM:
	 * no readahead for buffered random reads; _SEQUENTIAL: twice the
	 * readahead for sequential ones): off. */
	CAT(" --invalidate=%d --fadvise_hint=0", !direct && !strcmp(cache, "warm") ? 0 : 1);
	CAT(FIO_MEASURE " --time_based --runtime=%llums --ramp_time=0", (unsigned long long)(runtime_s * 1000 + 0.5));
	k = strlen(buf);
	return k + 1 < len ? 0 : -1;
}

int iofile_fio_streams(const struct bench_env *env, uint64_t n, double runtime_s, char *buf, size_t len)
{
	size_t k;
	int direct = bench_param_u64(env, "direct") != 0;
	const char *cache = bench_param(env, "cache");
	uint64_t bs = bench_param_u64(env, "bs") / ALIGN * ALIGN;
	uint64_t mib = bench_param_u64(env, "file_mib");
	if (len < 64)
		return -1;
	buf[0] = '\0';
	if (!direct && !strcmp(cache, "drop"))
		CAT("sync && echo 3 >/proc/sys/vm/drop_caches && ");
	CAT("fio --name=io.streams --directory=");
	shq(buf, len, env->dir ? env->dir : "/tmp");
	CAT(" --filename_format='scalebench-fio.$jobnum' --size=%lluM --unlink=1 --rw=read --bs=%llu"
	    " --direct=%d --ioengine=psync --iodepth=1 --numjobs=%llu --thread --group_reporting --invalidate=%d"
	    " --fadvise_hint=0" FIO_MEASURE " --time_based --runtime=%llums --ramp_time=0",
	    (unsigned long long)mib, (unsigned long long)(bs ? bs : ALIGN), direct, (unsigned long long)n,
	    !strcmp(cache, "warm") ? 0 : 1, /* io.streams drops per point unless warm, O_DIRECT or not */
	    (unsigned long long)(runtime_s * 1000 + 0.5));
	k = strlen(buf);
	return k + 1 < len ? 0 : -1;
}
