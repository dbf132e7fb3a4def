/* SPDX-License-Identifier: MIT */
/* engine=libaio: Linux native AIO (io_submit / io_getevents), depth
 * requests in flight from one thread (fio's ioengine=libaio). Requests are
 * submitted batch at a time (and whatever is prepared when no slot is
 * free), and reaped at least one and at most batch per io_getevents: with
 * the default batch=1, one request per call each way, as fio by default. */
#include <errno.h>
#include <stdlib.h>

#include "bench/iofile.h"

#ifdef HAVE_LIBAIO
#include <libaio.h>

struct aio {
	io_context_t ctx;
	void **bufs;
	uint64_t *issued;
	struct iocb *cbs;
	struct iocb **pend;   /* prepared, not yet submitted */
	struct io_event *evs;
	unsigned *free, nfree, npend;
};

static void aio_cleanup(struct iofile *f)
{
	struct aio *a = f->priv;
	if (!a)
		return;
	if (a->ctx)
		io_destroy(a->ctx);
	iofile_bufs_free(a->bufs, f->depth);
	free(a->issued);
	free(a->cbs);
	free(a->pend);
	free(a->evs);
	free(a->free);
	free(a);
	f->priv = NULL;
}

static int aio_init(struct iofile *f)
{
	struct aio *a = calloc(1, sizeof(*a));
	if (!a)
		return bench_fail(f->env, "calloc");
	f->priv = a;
	unsigned d = f->depth;
	a->issued = calloc(d, sizeof(*a->issued));
	a->cbs = calloc(d, sizeof(*a->cbs));
	a->pend = calloc(d, sizeof(*a->pend));
	a->evs = calloc(d, sizeof(*a->evs));
	a->free = calloc(d, sizeof(*a->free));
	if (!a->issued || !a->cbs || !a->pend || !a->evs || !a->free)
		return bench_fail(f->env, "calloc");
	if (!(a->bufs = iofile_bufs(f, d)))
		return -errno;
	int rc = io_setup((int)d, &a->ctx);
	if (rc < 0) {
		a->ctx = 0;
		errno = -rc;
		return bench_fail(f->env, "io_setup");
	}
	return 0;
}

/* Submit every prepared request (io_submit may take fewer: go on). */
static int aio_flush(struct iofile *f, unsigned *inflight)
{
	struct aio *a = f->priv;
	unsigned done = 0;
	while (done < a->npend) {
		int n = io_submit(a->ctx, (long)(a->npend - done), a->pend + done);
		if (n == -EINTR || n == -EAGAIN)
			continue;
		if (n <= 0) {
			errno = n < 0 ? -n : EIO;
			return bench_fail(f->env, "io_submit");
		}
		done += (unsigned)n;
		*inflight += (unsigned)n;
	}
	a->npend = 0;
	return 0;
}

static int aio_run(struct iofile *f, struct meter *m)
{
	struct aio *a = f->priv;
	unsigned inflight = 0, batch = f->batch ? f->batch : 1;
	int rc = 0, stop = 0;
	if (batch > f->depth)
		batch = f->depth;
	a->nfree = 0;
	a->npend = 0;
	for (unsigned i = f->depth; i-- > 0;)
		a->free[a->nfree++] = i;
	for (;;) {
		while (!stop && a->nfree > 0) { /* prepare into every free slot */
			unsigned i = a->free[--a->nfree];
			struct iocb *cb = &a->cbs[i];
			uint64_t off = iofile_next_offset(f, &f->rng);
			if (f->write)
				io_prep_pwrite(cb, f->fd, a->bufs[i], f->bs, (long long)off);
			else
				io_prep_pread(cb, f->fd, a->bufs[i], f->bs, (long long)off);
			cb->data = (void *)(uintptr_t)i;
			a->issued[i] = meter_now();
			a->pend[a->npend++] = cb;
			if (a->npend >= batch && (rc = aio_flush(f, &inflight)) < 0)
				return rc;
		}
		if (a->npend && (rc = aio_flush(f, &inflight)) < 0) /* no slot free: submit, then wait */
			return rc;
		if (inflight == 0)
			break;
		long max = batch < inflight ? batch : inflight;
		int n = io_getevents(a->ctx, 1, max, a->evs, NULL);
		if (n == -EINTR)
			continue;
		if (n < 0) {
			errno = -n;
			return bench_fail(f->env, "io_getevents");
		}
		for (int k = 0; k < n; k++) {
			unsigned i = (unsigned)(uintptr_t)a->evs[k].data;
			inflight--;
			a->free[a->nfree++] = i;
			int r = iofile_check_res(f, (long)a->evs[k].res);
			if (r < 0) {
				rc = r;
				stop = 1;
				continue;
			}
			meter_done(m, a->issued[i], f->bs);
			if (!stop && meter_stop(m))
				stop = 1;
		}
	}
	return rc;
}

const struct ioeng_ops ioeng_libaio = {
	.name = "libaio", .fio_name = "libaio", .async = 1,
	.init = aio_init, .run = aio_run, .cleanup = aio_cleanup,
};
#else
const struct ioeng_ops ioeng_libaio = {
	.name = "libaio", .fio_name = "libaio", .async = 1,
	.absent = "libaio not in this build (tools/probe.sh did not find it)",
};
#endif
