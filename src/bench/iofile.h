/* SPDX-License-Identifier: MIT */
/* Shared by the data-path benches (io.*): one scratch file, an engine that
 * moves requests (psync, libaio, io_uring, mmap: ioeng.h, one file each),
 * and a driver that keeps `depth` requests in flight and reports each
 * completion to the meter.
 *
 * Engines: libaio and io_uring keep depth requests in flight from one
 * thread, submitting and reaping `batch` at a time (default 1: fio's
 * default); psync and mmap are synchronous, so depth > 1 means depth
 * threads each with one request outstanding (the meter is then fed under
 * a lock).
 * libaio and io_uring exist only when tools/probe.sh found the libraries
 * (HAVE_LIBAIO, HAVE_LIBURING); otherwise their variants skip with the
 * reason. O_DIRECT refused by the file system (EINVAL) is a skip too.
 *
 * Parameters (declared in iofile_params_*, see iofile.c): engine, direct,
 * size_mib (file size), file (read benches), bs (bytes per request, rand
 * benches), depth (seq benches), batch, cache (warm|cold|drop), and the test-only
 * inject=direct-einval, which makes the O_DIRECT open behave as refused so
 * that the skip path is tested on file systems that accept O_DIRECT. */
#ifndef SB_IOFILE_H
#define SB_IOFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "core/bench.h"
#include "bench/ioeng.h"

enum io_cache { CACHE_WARM, CACHE_COLD, CACHE_DROP };

struct iofile {
	struct bench_env *env;
	const struct ioeng_ops *ops; /* the engine */
	enum io_cache cache;
	int direct, write, random;
	int given;          /* file=: an existing file, never written */
	int fd;
	uint64_t size;      /* bytes of the scratch file */
	size_t bs;          /* bytes per request of the current point */
	unsigned depth;     /* requests in flight of the current point */
	unsigned batch;     /* async engines: submitted / at most reaped per call */
	unsigned uring_flags; /* io_uring: the setup flags the ring got (0 before) */
	void *map;          /* mmap: the file mapped */
	void *priv;         /* the engine's state of the current point */
	_Atomic uint64_t next_off; /* sequential: next request index (shared by threads) */
	uint64_t rng;
};

/* The variant sets every io.* bench offers. */
extern const char *const iofile_variants_rw[];   /* without mmap: writes */
extern const char *const iofile_variants_read[]; /* with engine=mmap */

/* Their parameters (iofile.c). */
extern const struct bench_param_spec iofile_params_seqread[], iofile_params_seqwrite[],
	iofile_params_randread[], iofile_params_randwrite[];

/* Parse params, create and fill the file, open it as asked. 0,
 * BENCH_SKIP (reason in env->skip), or -errno (bench_fail). */
int iofile_setup(struct bench_env *env, struct iofile *f, int write, int random);
/* Before a point: request size and depth; engine (re)made; page cache
 * handled as asked. */
int iofile_point(struct iofile *f, size_t bs, unsigned depth);
/* Keep depth requests in flight until meter_stop; each completion goes to
 * meter_done. The page-cache state goes into the point's extra. */
int iofile_run(struct iofile *f, struct meter *m);
void iofile_teardown(struct iofile *f);

/* For the engines: the next request's offset (random: uniform over whole
 * requests, with replacement; sequential: the next one, wrapping), a
 * completion's result checked (0 or bench_fail), and depth aligned
 * buffers of bs bytes (NULL after bench_fail). */
uint64_t iofile_next_offset(struct iofile *f, uint64_t *rng);
int iofile_check_res(struct iofile *f, long res);
void **iofile_bufs(struct iofile *f, unsigned n);
void iofile_bufs_free(void **bufs, unsigned n);

/* fio's command line for the job of this variant at point n of the given
 * bench (0, or -1 when it does not fit); runtime in seconds. */
int iofile_fio_cmd(const struct bench_env *env, int write, int random, int axis_depth, uint64_t n,
		   double runtime_s, char *buf, size_t len);
/* The same for io.streams: N jobs, each reading its own file in order. */
int iofile_fio_streams(const struct bench_env *env, uint64_t n, double runtime_s, char *buf, size_t len);

/* Helpers shared with io.streams and fs.fileserver. */
int iofile_fill(int fd, uint64_t bytes, uint64_t seed); /* write pattern, 0 or -errno */
int iofile_open_direct(struct bench_env *env, const char *name, int flags, int *fd);
int iofile_drop_cache(struct bench_env *env, int fd, enum io_cache c);
const char *iofile_cache_desc(enum io_cache c, int direct);



/* Bench callbacks (the io.* descriptors are these plus a setup line). */
int iofile_cb_setup(struct bench_env *env, void **state, int write, int random);
int iofile_cb_set_size(void *state, uint64_t n);  /* N = request KiB */
int iofile_cb_set_depth(void *state, uint64_t n); /* N = in flight */
int iofile_cb_run(void *state, struct meter *m);
void iofile_cb_teardown(void *state);
#endif
