/* SPDX-License-Identifier: MIT */
/* The data-path engine and driver: see iofile.h. */
#include "iofile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys.h"

#ifdef HAVE_LIBURING
#include <liburing.h>
#endif
#ifdef HAVE_LIBAIO
#include <libaio.h>
#endif

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
#ifndef HAVE_LIBAIO
	if (!strcmp(value, "libaio"))
		return "libaio not in this build (tools/probe.sh did not find it)";
#endif
#ifndef HAVE_LIBURING
	if (!strcmp(value, "io_uring"))
		return "io_uring not in this build (tools/probe.sh did not find liburing)";
#endif
	(void)value;
	return NULL;
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
#define P_BS BP_U64("bs", "4096", 512, 67108864, "bytes per request (at most the file's size)")

const struct bench_param_spec iofile_params_seqread[] = {P_ENGINE_READ, P_COMMON, P_FILE, P_DEPTH, P_INJECT, {0}};
const struct bench_param_spec iofile_params_seqwrite[] = {P_ENGINE_RW, P_COMMON, P_DEPTH, P_INJECT, {0}};
const struct bench_param_spec iofile_params_randread[] = {P_ENGINE_READ, P_COMMON, P_FILE, P_BS, P_INJECT, {0}};
const struct bench_param_spec iofile_params_randwrite[] = {P_ENGINE_RW, P_COMMON, P_BS, P_INJECT, {0}};

/* ---- the asynchronous engines: one request per slot ---- */

struct slot { void *buf; uint64_t off; uint64_t issued; };

struct ioeng {
	unsigned depth;
	struct slot *slots;
#ifdef HAVE_LIBURING
	struct io_uring ring;
	int ring_ok;
#endif
#ifdef HAVE_LIBAIO
	io_context_t ctx;
	struct iocb *cbs;
	struct io_event *evs;
#endif
};

static void eng_free(struct iofile *f)
{
	struct ioeng *e = f->ae;
	if (!e)
		return;
#ifdef HAVE_LIBURING
	if (e->ring_ok)
		io_uring_queue_exit(&e->ring);
#endif
#ifdef HAVE_LIBAIO
	if (e->ctx)
		io_destroy(e->ctx);
	free(e->cbs);
	free(e->evs);
#endif
	if (e->slots)
		for (unsigned i = 0; i < e->depth; i++)
			free(e->slots[i].buf);
	free(e->slots);
	free(e);
	f->ae = NULL;
}

static int eng_make(struct iofile *f)
{
	struct ioeng *e = calloc(1, sizeof(*e));
	if (!e)
		return bench_fail(f->env, "calloc");
	f->ae = e;
	e->depth = f->depth;
	e->slots = calloc(f->depth, sizeof(*e->slots));
	if (!e->slots)
		return bench_fail(f->env, "calloc");
	for (unsigned i = 0; i < f->depth; i++) {
		int rc = posix_memalign(&e->slots[i].buf, ALIGN, f->bs);
		if (rc) {
			errno = rc;
			return bench_fail(f->env, "posix_memalign");
		}
		memset(e->slots[i].buf, 0x5a, f->bs);
	}
#ifdef HAVE_LIBURING
	if (f->eng == ENG_URING) {
		int rc = io_uring_queue_init(f->depth, &e->ring, 0);
		if (rc < 0) {
			errno = -rc;
			return bench_fail(f->env, "io_uring_queue_init");
		}
		e->ring_ok = 1;
	}
#endif
#ifdef HAVE_LIBAIO
	if (f->eng == ENG_LIBAIO) {
		int rc = io_setup((int)f->depth, &e->ctx);
		if (rc < 0) {
			e->ctx = 0;
			errno = -rc;
			return bench_fail(f->env, "io_setup");
		}
		e->cbs = calloc(f->depth, sizeof(*e->cbs));
		e->evs = calloc(f->depth, sizeof(*e->evs));
		if (!e->cbs || !e->evs)
			return bench_fail(f->env, "calloc");
	}
#endif
	return 0;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Offset of the next request: uniform over whole requests (random), or the
 * next request of the file, wrapping at its end (sequential). */
static uint64_t next_offset(struct iofile *f, uint64_t *rng)
{
	uint64_t nreq = f->size / f->bs;
	if (nreq == 0)
		nreq = 1;
	if (f->random)
		return (xorshift(rng) % nreq) * f->bs;
	uint64_t k = atomic_fetch_add(&f->next_off, 1);
	return (k % nreq) * f->bs;
}

#if defined(HAVE_LIBURING) || defined(HAVE_LIBAIO)
static int check_res(struct iofile *f, long res)
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
#endif

#ifdef HAVE_LIBURING
static void uring_queue(struct iofile *f, unsigned i)
{
	struct ioeng *e = f->ae;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring); /* depth entries: never NULL */
	struct slot *s = &e->slots[i];
	s->off = next_offset(f, &f->rng);
	if (f->write)
		io_uring_prep_write(sqe, f->fd, s->buf, (unsigned)f->bs, s->off);
	else
		io_uring_prep_read(sqe, f->fd, s->buf, (unsigned)f->bs, s->off);
	io_uring_sqe_set_data64(sqe, i);
	s->issued = meter_now();
}

static int run_uring(struct iofile *f, struct meter *m)
{
	struct ioeng *e = f->ae;
	unsigned inflight = 0;
	int rc = 0, stop = 0;
	for (unsigned i = 0; i < f->depth; i++)
		uring_queue(f, i);
	int n = io_uring_submit(&e->ring);
	if (n < 0) {
		errno = -n;
		return bench_fail(f->env, "io_uring_submit");
	}
	inflight = (unsigned)n;
	while (inflight > 0) {
		struct io_uring_cqe *cqe;
		int w = io_uring_wait_cqe(&e->ring, &cqe);
		if (w == -EINTR)
			continue;
		if (w < 0) {
			errno = -w;
			return bench_fail(f->env, "io_uring_wait_cqe");
		}
		unsigned seen = 0, head, queued = 0;
		io_uring_for_each_cqe(&e->ring, head, cqe) {
			unsigned i = (unsigned)io_uring_cqe_get_data64(cqe);
			int r = check_res(f, cqe->res);
			seen++;
			inflight--;
			if (r < 0) {
				rc = r;
				stop = 1;
				continue;
			}
			meter_done(m, e->slots[i].issued, f->bs);
			if (!stop && meter_stop(m))
				stop = 1;
			if (!stop) {
				uring_queue(f, i);
				queued++;
			}
		}
		io_uring_cq_advance(&e->ring, seen);
		if (queued) {
			n = io_uring_submit(&e->ring);
			if (n < 0) {
				errno = -n;
				return bench_fail(f->env, "io_uring_submit");
			}
			inflight += (unsigned)n;
		}
	}
	return rc;
}
#endif

#ifdef HAVE_LIBAIO
static struct iocb *aio_prep(struct iofile *f, unsigned i)
{
	struct ioeng *e = f->ae;
	struct slot *s = &e->slots[i];
	struct iocb *cb = &e->cbs[i];
	s->off = next_offset(f, &f->rng);
	if (f->write)
		io_prep_pwrite(cb, f->fd, s->buf, f->bs, (long long)s->off);
	else
		io_prep_pread(cb, f->fd, s->buf, f->bs, (long long)s->off);
	cb->data = (void *)(uintptr_t)i;
	s->issued = meter_now();
	return cb;
}

static int aio_submit_one(struct iofile *f, struct iocb *cb)
{
	for (;;) {
		int n = io_submit(f->ae->ctx, 1, &cb);
		if (n == 1)
			return 0;
		if (n == -EINTR || n == -EAGAIN)
			continue;
		errno = n < 0 ? -n : EIO;
		return bench_fail(f->env, "io_submit");
	}
}

static int run_aio(struct iofile *f, struct meter *m)
{
	struct ioeng *e = f->ae;
	unsigned inflight = 0;
	int rc = 0, stop = 0;
	for (unsigned i = 0; i < f->depth; i++) {
		if ((rc = aio_submit_one(f, aio_prep(f, i))) < 0)
			stop = 1;
		else
			inflight++;
		if (stop)
			break;
	}
	while (inflight > 0) {
		int n = io_getevents(e->ctx, 1, (long)f->depth, e->evs, NULL);
		if (n == -EINTR)
			continue;
		if (n < 0) {
			errno = -n;
			return bench_fail(f->env, "io_getevents");
		}
		for (int k = 0; k < n; k++) {
			unsigned i = (unsigned)(uintptr_t)e->evs[k].data;
			inflight--;
			int r = check_res(f, (long)e->evs[k].res);
			if (r < 0) {
				rc = r;
				stop = 1;
				continue;
			}
			meter_done(m, e->slots[i].issued, f->bs);
			if (!stop && meter_stop(m))
				stop = 1;
			if (!stop) {
				if ((r = aio_submit_one(f, aio_prep(f, i))) < 0) {
					rc = r;
					stop = 1;
				} else {
					inflight++;
				}
			}
		}
	}
	return rc;
}
#endif

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
	struct iofile *f = w->f;
	if (f->eng == ENG_MMAP) {
		memcpy(w->buf, (char *)f->map + off, f->bs);
		return 0;
	}
	size_t done = 0;
	while (done < f->bs) {
		ssize_t r = f->write ? pwrite(f->fd, (char *)w->buf + done, f->bs - done, (off_t)(off + done))
				     : pread(f->fd, (char *)w->buf + done, f->bs - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			w->err = r < 0 ? errno : EIO;
			w->call = f->write ? "pwrite" : "pread";
			return -1;
		}
		if (f->direct && (size_t)r != f->bs - done) { /* O_DIRECT cannot resume mid-block */
			w->err = EIO;
			w->call = f->write ? "short pwrite" : "short pread";
			return -1;
		}
		done += (size_t)r;
	}
	return 0;
}

static void *sync_loop(void *arg)
{
	struct worker *w = arg;
	while (!atomic_load(w->stop)) {
		uint64_t off = next_offset(w->f, &w->rng);
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
	const char *inj = bench_param(env, "inject", "");
	if (!strcmp(inj, "direct-einval")) {
		errno = EINVAL; /* test-only: as a file system that refuses O_DIRECT */
		*fd = -1;
	} else {
		*fd = openat(env->dirfd, name, flags | O_DIRECT);
	}
	if (*fd < 0 && errno == EINVAL) {
		snprintf(env->skip, sizeof(env->skip),
			 "O_DIRECT refused by this file system (open: EINVAL)%s",
			 *inj ? " [injected by the test-only param inject=direct-einval]" : "");
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
	const char *e = bench_param(env, "engine", "psync");
	if (!strcmp(e, "psync"))
		f->eng = ENG_PSYNC;
	else if (!strcmp(e, "mmap"))
		f->eng = ENG_MMAP;
	else if (!strcmp(e, "libaio"))
		f->eng = ENG_LIBAIO;
	else if (!strcmp(e, "io_uring"))
		f->eng = ENG_URING;
	else {
		snprintf(env->skip, sizeof(env->skip), "unknown engine '%s' (psync, libaio, io_uring, mmap)", e);
		return BENCH_SKIP;
	}
#ifndef HAVE_LIBAIO
	if (f->eng == ENG_LIBAIO) {
		snprintf(env->skip, sizeof(env->skip), "libaio not in this build (tools/probe.sh did not find it)");
		return BENCH_SKIP;
	}
#endif
#ifndef HAVE_LIBURING
	if (f->eng == ENG_URING) {
		snprintf(env->skip, sizeof(env->skip), "io_uring not in this build (tools/probe.sh did not find liburing)");
		return BENCH_SKIP;
	}
#endif
	const char *c = bench_param(env, "cache", "warm");
	f->cache = !strcmp(c, "cold") ? CACHE_COLD : !strcmp(c, "drop") ? CACHE_DROP : CACHE_WARM;
	if (f->cache == CACHE_WARM && strcmp(c, "warm")) {
		snprintf(env->skip, sizeof(env->skip), "unknown cache '%s' (warm, cold, drop)", c);
		return BENCH_SKIP;
	}
	if (f->cache == CACHE_DROP && geteuid() != 0) {
		snprintf(env->skip, sizeof(env->skip), "cache=drop needs root (/proc/sys/vm/drop_caches)");
		return BENCH_SKIP;
	}
	f->direct = bench_param_u64(env, "direct", 0) != 0;
	if (f->direct && f->eng == ENG_MMAP) {
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
	if (f->eng == ENG_MMAP) {
		f->map = mmap(NULL, (size_t)f->size, PROT_READ, MAP_SHARED, f->fd, 0);
		if (f->map == MAP_FAILED) {
			f->map = NULL;
			return bench_fail(env, "mmap file=");
		}
	}
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
	f->size = bench_param_u64(env, "size_mib", 64) << 20;
	if (f->size < ALIGN)
		f->size = ALIGN;
	const char *given = write ? NULL : bench_param(env, "file", NULL); /* read benches only */
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
	if (f->eng == ENG_MMAP) {
		f->map = mmap(NULL, (size_t)f->size, PROT_READ, MAP_SHARED, f->fd, 0);
		if (f->map == MAP_FAILED) {
			f->map = NULL;
			return bench_fail(env, "mmap data file");
		}
		/* touch every page once: the timed reads copy from mapped pages
		 * instead of taking a first-touch fault that later reads would not */
		volatile const char *p = f->map;
		for (uint64_t off = 0; off < f->size; off += ALIGN)
			(void)p[off];
	}
	snprintf(env->note, sizeof(env->note), "page cache: %s; file %llu MiB",
		 iofile_cache_desc(f->cache, f->direct), (unsigned long long)(f->size >> 20));
	return 0;
}

int iofile_point(struct iofile *f, size_t bs, unsigned depth)
{
	eng_free(f);
	f->bs = bs;
	f->depth = depth ? depth : 1;
	f->next_off = 0;
	if (f->cache != CACHE_WARM && !f->direct) {
		int rc = iofile_drop_cache(f->env, f->fd, f->cache);
		if (rc)
			return rc;
	}
	if (f->eng == ENG_LIBAIO || f->eng == ENG_URING)
		return eng_make(f);
	return 0;
}

int iofile_run(struct iofile *f, struct meter *m)
{
	meter_extra(m, "cache", json_string(iofile_cache_desc(f->cache, f->direct)));
	meter_extra(m, "request_bytes", json_integer((json_int_t)f->bs));
	meter_extra(m, "in_flight", json_integer((json_int_t)f->depth));
	switch (f->eng) {
#ifdef HAVE_LIBURING
	case ENG_URING:
		return run_uring(f, m);
#endif
#ifdef HAVE_LIBAIO
	case ENG_LIBAIO:
		return run_aio(f, m);
#endif
	default:
		return run_sync(f, m);
	}
}

void iofile_teardown(struct iofile *f)
{
	eng_free(f);
	if (f->map)
		munmap(f->map, (size_t)f->size);
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
	return iofile_point(f, (size_t)bs, (unsigned)bench_param_u64(f->env, "depth", 1));
}

/* N = requests in flight, each of bs bytes (default 4 KiB). */
int iofile_cb_set_depth(void *state, uint64_t n)
{
	struct iofile *f = state;
	uint64_t bs = bench_param_u64(f->env, "bs", 4096);
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
