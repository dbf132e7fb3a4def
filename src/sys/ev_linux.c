/* SPDX-License-Identifier: MIT */
/* Native event backends of Linux: epoll (level-triggered) and io_uring
 * (one multishot IORING_OP_POLL_ADD per descriptor, re-armed when the
 * kernel ends it). kqueue has no implementation here. */
#include "sys/ev.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

/* ---- epoll ---- */
struct ev_epoll {
	struct ev e;
	int fd;
	struct epoll_event evs[256];
};

static int ep_add(struct ev *e, int fd)
{
	struct ev_epoll *p = (struct ev_epoll *)e;
	struct epoll_event ee = {.events = EPOLLIN, .data.fd = fd};
	return epoll_ctl(p->fd, EPOLL_CTL_ADD, fd, &ee) ? -errno : 0;
}

static int ep_del(struct ev *e, int fd)
{
	struct ev_epoll *p = (struct ev_epoll *)e;
	return epoll_ctl(p->fd, EPOLL_CTL_DEL, fd, NULL) ? -errno : 0;
}

static int ep_wait(struct ev *e, int *fds, int cap, int ms)
{
	struct ev_epoll *p = (struct ev_epoll *)e;
	int max = cap < 256 ? cap : 256;
	int n = epoll_wait(p->fd, p->evs, max, ms);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++)
		fds[i] = p->evs[i].data.fd;
	return n;
}

static void ep_close(struct ev *e)
{
	struct ev_epoll *p = (struct ev_epoll *)e;
	close(p->fd);
	free(p);
}

static const struct ev_ops ep_ops = {ep_add, ep_del, ep_wait, ep_close};

/* ---- io_uring (when the build found liburing: HAVE_LIBURING) ---- */
#ifdef HAVE_LIBURING
#define URING_ENTRIES 256
#define TAG_REMOVE (1ull << 62) /* user_data of a poll-remove request */

struct ev_uring {
	struct ev e;
	struct io_uring ring;
};

static struct io_uring_sqe *ur_sqe(struct ev_uring *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
	if (!sqe) { /* the submission ring is full: hand it to the kernel */
		io_uring_submit(&u->ring);
		sqe = io_uring_get_sqe(&u->ring);
	}
	return sqe;
}

static int ur_arm(struct ev_uring *u, int fd)
{
	struct io_uring_sqe *sqe = ur_sqe(u);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_poll_multishot(sqe, fd, POLLIN);
	io_uring_sqe_set_data64(sqe, (unsigned long long)fd);
	return 0;
}

static int ur_add(struct ev *e, int fd)
{
	struct ev_uring *u = (struct ev_uring *)e;
	int rc = ur_arm(u, fd);
	if (rc == 0)
		rc = io_uring_submit(&u->ring) < 0 ? -EIO : 0;
	return rc;
}

static int ur_del(struct ev *e, int fd)
{
	struct ev_uring *u = (struct ev_uring *)e;
	struct io_uring_sqe *sqe = ur_sqe(u);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_poll_remove(sqe, (unsigned long long)fd);
	io_uring_sqe_set_data64(sqe, TAG_REMOVE | (unsigned long long)fd);
	return io_uring_submit(&u->ring) < 0 ? -EIO : 0;
}

static int ur_wait(struct ev *e, int *fds, int cap, int ms)
{
	struct ev_uring *u = (struct ev_uring *)e;
	struct io_uring_cqe *cqe;
	int rc;
	if (ms < 0) {
		rc = io_uring_wait_cqe(&u->ring, &cqe);
	} else {
		struct __kernel_timespec ts = {ms / 1000, (long long)(ms % 1000) * 1000000};
		rc = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
	}
	if (rc == -ETIME)
		return 0;
	if (rc < 0)
		return rc;
	int k = 0;
	unsigned head, seen = 0;
	io_uring_for_each_cqe(&u->ring, head, cqe) {
		seen++;
		unsigned long long tag = io_uring_cqe_get_data64(cqe);
		if (tag & TAG_REMOVE)
			continue;
		int fd = (int)tag;
		if (cqe->res > 0 && k < cap)
			fds[k++] = fd;
		/* the kernel ended the multishot poll (not a removal): re-arm */
		if (!(cqe->flags & IORING_CQE_F_MORE) && cqe->res != -ECANCELED &&
		    cqe->res != -ENOENT && cqe->res != -EBADF)
			ur_arm(u, fd);
		if (k >= cap)
			break;
	}
	io_uring_cq_advance(&u->ring, seen);
	io_uring_submit(&u->ring);
	return k;
}

static void ur_close(struct ev *e)
{
	struct ev_uring *u = (struct ev_uring *)e;
	io_uring_queue_exit(&u->ring);
	free(u);
}

static const struct ev_ops ur_ops = {ur_add, ur_del, ur_wait, ur_close};
#endif

int ev_native_open(int mech, struct ev **out, char *why, size_t whylen)
{
	*out = NULL;
	if (mech == EV_EPOLL) {
		struct ev_epoll *p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->fd = epoll_create1(EPOLL_CLOEXEC);
		if (p->fd < 0) {
			int e = errno;
			snprintf(why, whylen, "epoll_create1: %s", strerror(e));
			free(p);
			return -e;
		}
		p->e = (struct ev){&ep_ops, EV_EPOLL};
		*out = &p->e;
		return 0;
	}
	if (mech == EV_IOURING) {
#ifndef HAVE_LIBURING
		snprintf(why, whylen, "io_uring: this build has no liburing (Debian: liburing-dev)");
		return -ENOSYS;
#else
		struct ev_uring *u = calloc(1, sizeof(*u));
		if (!u)
			return -ENOMEM;
		int rc = io_uring_queue_init(URING_ENTRIES, &u->ring, 0);
		if (rc < 0) {
			snprintf(why, whylen, "io_uring_queue_init: %s%s", strerror(-rc),
				 rc == -ENOSYS || rc == -EPERM ? " (io_uring disabled in this kernel)" : "");
			free(u);
			return rc == -EPERM ? -ENOSYS : rc;
		}
		u->e = (struct ev){&ur_ops, EV_IOURING};
		*out = &u->e;
		return 0;
#endif
	}
	snprintf(why, whylen, "%s: not available on Linux (the backend interface is ready for it)",
		 ev_mech_name(mech));
	return -ENOSYS;
}
