/* SPDX-License-Identifier: MIT */
/* Event backends: one internal interface over select, poll, epoll,
 * io_uring and (where the OS has it) kqueue, for the network servers.
 *
 * select and poll are POSIX and live in ev_common.c (both builds); the
 * native ones live in ev_linux.c. A build or kernel without a mechanism
 * answers ev_open() with -ENOSYS and a reason, which benches turn into a
 * BENCH_SKIP variant. To add kqueue: an ev_kqueue.c with a struct ev_ops
 * (open/add/del/wait/close) and a case in ev_native_open(); nothing else
 * changes. Interest is always "readable"; callers use non-blocking
 * descriptors and drain them (io_uring's multishot poll is edge-like). */
#ifndef SB_EV_H
#define SB_EV_H

#include <stddef.h>

enum ev_mech { EV_SELECT = 0, EV_POLL, EV_EPOLL, EV_IOURING, EV_KQUEUE, EV_NMECH };

struct ev;
struct ev_ops {
	int (*add)(struct ev *e, int fd);
	int (*del)(struct ev *e, int fd);
	/* ready descriptors into fds (at most cap); count, 0 on timeout, -errno */
	int (*wait)(struct ev *e, int *fds, int cap, int timeout_ms);
	void (*close)(struct ev *e);
};
struct ev {
	const struct ev_ops *ops;
	int mech;
};

const char *ev_mech_name(int mech);
int ev_mech_parse(const char *name); /* -1 if unknown */
/* The server's mechanism when a bench does not choose one: EV_EPOLL where
 * it opens here, else EV_POLL (the POSIX build). */
int ev_default_mech(void);
/* Largest descriptor + 1 the mechanism can watch (FD_SETSIZE for select). */
int ev_fd_limit(int mech);
/* 0 and *out, or -errno with a reason in why (-ENOSYS: not in this build
 * or kernel). */
int ev_open(int mech, struct ev **out, char *why, size_t whylen);
static inline int ev_add(struct ev *e, int fd) { return e->ops->add(e, fd); }
static inline int ev_del(struct ev *e, int fd) { return e->ops->del(e, fd); }
static inline int ev_wait(struct ev *e, int *fds, int cap, int ms) { return e->ops->wait(e, fds, cap, ms); }
static inline void ev_close(struct ev *e) { if (e) e->ops->close(e); }

/* Implemented by ev_linux.c (or the POSIX stub in net_posix.c). */
int ev_native_open(int mech, struct ev **out, char *why, size_t whylen);

#endif
