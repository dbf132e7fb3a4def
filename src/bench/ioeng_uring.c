/* SPDX-License-Identifier: MIT */
/* engine=io_uring: depth requests in flight from one thread through one
 * ring (fio's ioengine=io_uring). Requests are submitted batch at a time
 * (and whatever is prepared when no slot is free), and reaped at least one
 * and at most batch at a time from the completion ring, entering the
 * kernel only when it is empty: with the default batch=1 one request per
 * submit, as fio by default. A submit also asks for completions
 * (IORING_ENTER_GETEVENTS, io_uring_submit_and_get_events), as fio's does.
 *
 * The ring is set up as fio sets its own: completion ring of depth
 * entries (IORING_SETUP_CQSIZE), and IORING_SETUP_SINGLE_ISSUER |
 * IORING_SETUP_DEFER_TASKRUN (completion work runs when this thread
 * waits, not by interrupting it), else IORING_SETUP_COOP_TASKRUN, else no
 * flag, whichever the kernel accepts first (-p uring_setup=coop stops
 * short of DEFER_TASKRUN, plain gives none, as scalebench did before);
 * the flags given are in every point's extra ("uring_setup"). Why it
 * matters: docs/io-engines.md. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/iofile.h"

#ifdef HAVE_LIBURING
#include <liburing.h>

struct uring {
	struct io_uring ring;
	int ring_ok;
	void **bufs;
	uint64_t *issued;
	unsigned *free, nfree;
};

static void uring_cleanup(struct iofile *f)
{
	struct uring *u = f->priv;
	if (!u)
		return;
	if (u->ring_ok)
		io_uring_queue_exit(&u->ring);
	iofile_bufs_free(u->bufs, f->depth);
	free(u->issued);
	free(u->free);
	free(u);
	f->priv = NULL;
}

static int uring_init(struct iofile *f)
{
	struct uring *u = calloc(1, sizeof(*u));
	if (!u)
		return bench_fail(f->env, "calloc");
	f->priv = u;
	u->issued = calloc(f->depth, sizeof(*u->issued));
	u->free = calloc(f->depth, sizeof(*u->free));
	if (!u->issued || !u->free)
		return bench_fail(f->env, "calloc");
	if (!(u->bufs = iofile_bufs(f, f->depth)))
		return -errno;
	static const unsigned tries[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_COOP_TASKRUN,
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN, 0,
	};
	const char *want = bench_param(f->env, "uring_setup");
	int rc = -EINVAL;
	for (int cq = 1; cq >= 0 && rc == -EINVAL; cq--) /* CQSIZE refused (before 5.5): without, as fio */
		for (size_t t = 0; t < sizeof(tries) / sizeof(tries[0]); t++) {
			/* the completion ring sized at depth, as fio sizes its own
			 * (IORING_SETUP_CQSIZE, cq_entries = iodepth; liburing's
			 * default is twice the submission ring): depth requests
			 * in flight never need more */
			struct io_uring_params p = {.flags = tries[t]};
			if (cq) {
				p.flags |= IORING_SETUP_CQSIZE;
				p.cq_entries = f->depth;
			}
			if ((!strcmp(want, "coop") && (tries[t] & IORING_SETUP_DEFER_TASKRUN)) ||
			    (!strcmp(want, "plain") && tries[t]))
				continue;
			rc = io_uring_queue_init_params(f->depth, &u->ring, &p);
			if (rc != -EINVAL) {
				f->uring_flags = tries[t];
				break;
			}
		}
	if (rc < 0) {
		errno = -rc;
		return bench_fail(f->env, "io_uring_queue_init");
	}
	u->ring_ok = 1;
	return 0;
}

static int uring_submit(struct iofile *f, unsigned *pending, unsigned *inflight)
{
	struct uring *u = f->priv;
	while (*pending) {
		/* with GETEVENTS, as fio's commit: the kernel runs the deferred
		 * completion work now, so the reap that follows mostly finds
		 * completions in the ring without entering again */
		int n = io_uring_submit_and_get_events(&u->ring);
		if (n == -EINTR || n == -EAGAIN || n == -EBUSY)
			continue;
		if (n <= 0) {
			errno = n < 0 ? -n : EIO;
			return bench_fail(f->env, "io_uring_submit");
		}
		*pending -= (unsigned)n < *pending ? (unsigned)n : *pending;
		*inflight += (unsigned)n;
	}
	return 0;
}

static int uring_run(struct iofile *f, struct meter *m)
{
	struct uring *u = f->priv;
	unsigned inflight = 0, pending = 0, batch = f->batch ? f->batch : 1;
	int rc = 0, stop = 0;
	if (batch > f->depth)
		batch = f->depth;
	u->nfree = 0;
	for (unsigned i = f->depth; i-- > 0;)
		u->free[u->nfree++] = i;
	for (;;) {
		while (!stop && u->nfree > 0) { /* prepare into every free slot */
			unsigned i = u->free[--u->nfree];
			struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring); /* depth entries: never NULL */
			uint64_t off = iofile_next_offset(f, &f->rng);
			if (f->write)
				io_uring_prep_write(sqe, f->fd, u->bufs[i], (unsigned)f->bs, off);
			else
				io_uring_prep_read(sqe, f->fd, u->bufs[i], (unsigned)f->bs, off);
			io_uring_sqe_set_data64(sqe, i);
			u->issued[i] = meter_now();
			if (++pending >= batch && (rc = uring_submit(f, &pending, &inflight)) < 0)
				return rc;
		}
		if ((rc = uring_submit(f, &pending, &inflight)) < 0) /* no slot free: submit, then wait */
			return rc;
		if (inflight == 0)
			break;
		struct io_uring_cqe *cqe;
		int w = io_uring_wait_cqe(&u->ring, &cqe); /* enters only when the ring is empty */
		if (w == -EINTR || w == -EAGAIN)
			continue;
		if (w < 0) {
			errno = -w;
			return bench_fail(f->env, "io_uring_wait_cqe");
		}
		unsigned head, got = 0;
		io_uring_for_each_cqe(&u->ring, head, cqe) { /* what is there, at most batch: no syscall */
			if (got == batch)
				break;
			unsigned i = (unsigned)io_uring_cqe_get_data64(cqe);
			got++;
			inflight--;
			u->free[u->nfree++] = i;
			int r = iofile_check_res(f, cqe->res);
			if (r < 0) {
				rc = r;
				stop = 1;
				continue;
			}
			meter_done(m, u->issued[i], f->bs);
			if (!stop && meter_stop(m))
				stop = 1;
		}
		io_uring_cq_advance(&u->ring, got);
	}
	return rc;
}

const struct ioeng_ops ioeng_uring = {
	.name = "io_uring", .fio_name = "io_uring", .async = 1,
	.init = uring_init, .run = uring_run, .cleanup = uring_cleanup,
};
#else
const struct ioeng_ops ioeng_uring = {
	.name = "io_uring", .fio_name = "io_uring", .async = 1,
	.absent = "io_uring not in this build (tools/probe.sh did not find liburing)",
};
#endif
