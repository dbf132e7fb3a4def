/* SPDX-License-Identifier: MIT */
/* The I/O engines of the io.* benches behind one table of operations, one
 * file each (ioeng_psync.c, ioeng_mmap.c, ioeng_libaio.c, ioeng_uring.c),
 * as fio keeps its ioengine_ops. iofile.c owns the file, the parameters
 * and the page cache; an engine owns how requests move.
 *
 * Synchronous engines (psync, mmap) give one(): a request on the caller's
 * thread; depth > 1 means depth threads, each with one request
 * outstanding (iofile.c's driver, fio's --numjobs). Asynchronous engines
 * (libaio, io_uring) give run(): depth requests in flight from one thread,
 * submitted in batches of f->batch and reaped at least 1 and at most
 * f->batch at a time (fio's iodepth_batch_submit and
 * iodepth_batch_complete_min=1/_max). */
#ifndef SB_IOENG_H
#define SB_IOENG_H

#include <stdint.h>
#include "core/bench.h"

struct iofile;

struct ioeng_ops {
	const char *name;     /* the engine= value */
	const char *fio_name; /* fio's --ioengine for the same work */
	const char *absent;   /* non-NULL: not in this build, and why */
	int no_direct;        /* 1: has no O_DIRECT form (mmap) */
	int async;            /* 1: one thread, depth in flight (run); 0: one() per thread */
	/* after the file is opened: map it (mmap); optional */
	int (*open)(struct iofile *f);
	/* before a point (f->bs, f->depth, f->batch set): rings, buffers; optional */
	int (*init)(struct iofile *f);
	/* synchronous: one request of f->bs at off into buf; 0, or -1 with *call set */
	int (*one)(struct iofile *f, void *buf, uint64_t off, const char **call);
	/* asynchronous: keep depth in flight until meter_stop */
	int (*run)(struct iofile *f, struct meter *m);
	void (*cleanup)(struct iofile *f); /* after a point and at teardown; optional */
	void (*close)(struct iofile *f);   /* before the file is closed; optional */
};

extern const struct ioeng_ops ioeng_psync, ioeng_mmap, ioeng_libaio, ioeng_uring;

/* The engine named, or NULL. */
const struct ioeng_ops *ioeng_find(const char *name);

#endif
