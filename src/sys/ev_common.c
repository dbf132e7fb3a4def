/* SPDX-License-Identifier: MIT */
/* select and poll backends (POSIX, both builds) and the dispatch of
 * ev.h. Both scan every watched descriptor on each wait: that O(n) is
 * what net.request measures. */
#include "sys/ev.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>

static const char *const names[EV_NMECH] = {"select", "poll", "epoll", "io_uring", "kqueue"};

const char *ev_mech_name(int mech)
{
	return mech >= 0 && mech < EV_NMECH ? names[mech] : "?";
}

int ev_default_mech(void)
{
	struct ev *e;
	char why[200];
	if (ev_open(EV_EPOLL, &e, why, sizeof(why)))
		return EV_POLL;
	ev_close(e);
	return EV_EPOLL;
}

int ev_mech_parse(const char *name)
{
	for (int i = 0; i < EV_NMECH; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

int ev_fd_limit(int mech)
{
	return mech == EV_SELECT ? FD_SETSIZE : INT_MAX;
}

/* ---- select ---- */
struct ev_select {
	struct ev e;
	fd_set set;
	int maxfd;
};

static int sel_add(struct ev *e, int fd)
{
	struct ev_select *s = (struct ev_select *)e;
	if (fd < 0 || fd >= FD_SETSIZE)
		return -EMFILE; /* select cannot watch it */
	FD_SET(fd, &s->set);
	if (fd > s->maxfd)
		s->maxfd = fd;
	return 0;
}

static int sel_del(struct ev *e, int fd)
{
	struct ev_select *s = (struct ev_select *)e;
	if (fd < 0 || fd >= FD_SETSIZE)
		return -EBADF;
	FD_CLR(fd, &s->set);
	while (s->maxfd >= 0 && !FD_ISSET(s->maxfd, &s->set))
		s->maxfd--;
	return 0;
}

static int sel_wait(struct ev *e, int *fds, int cap, int ms)
{
	struct ev_select *s = (struct ev_select *)e;
	fd_set r = s->set;
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
	int n = select(s->maxfd + 1, &r, NULL, NULL, ms < 0 ? NULL : &tv);
	if (n < 0)
		return -errno;
	int k = 0;
	for (int fd = 0; fd <= s->maxfd && k < cap && k < n; fd++)
		if (FD_ISSET(fd, &r))
			fds[k++] = fd;
	return k;
}

static void sel_close(struct ev *e) { free(e); }

static const struct ev_ops sel_ops = {sel_add, sel_del, sel_wait, sel_close};

/* ---- poll ---- */
struct ev_poll {
	struct ev e;
	struct pollfd *pfd;
	int n, cap;
	int *slot; /* fd -> index in pfd, -1 if none */
	int nslot;
};

static int pol_add(struct ev *e, int fd)
{
	struct ev_poll *p = (struct ev_poll *)e;
	if (fd < 0)
		return -EBADF;
	if (fd >= p->nslot) {
		int ns = p->nslot ? p->nslot : 256;
		while (ns <= fd)
			ns *= 2;
		int *q = realloc(p->slot, (size_t)ns * sizeof(*q));
		if (!q)
			return -ENOMEM;
		for (int i = p->nslot; i < ns; i++)
			q[i] = -1;
		p->slot = q;
		p->nslot = ns;
	}
	if (p->slot[fd] >= 0)
		return -EEXIST;
	if (p->n == p->cap) {
		int nc = p->cap ? p->cap * 2 : 256;
		struct pollfd *q = realloc(p->pfd, (size_t)nc * sizeof(*q));
		if (!q)
			return -ENOMEM;
		p->pfd = q;
		p->cap = nc;
	}
	p->pfd[p->n] = (struct pollfd){.fd = fd, .events = POLLIN};
	p->slot[fd] = p->n++;
	return 0;
}

static int pol_del(struct ev *e, int fd)
{
	struct ev_poll *p = (struct ev_poll *)e;
	if (fd < 0 || fd >= p->nslot || p->slot[fd] < 0)
		return -ENOENT;
	int i = p->slot[fd];
	p->pfd[i] = p->pfd[--p->n];
	p->slot[p->pfd[i].fd] = i;
	p->slot[fd] = -1;
	return 0;
}

static int pol_wait(struct ev *e, int *fds, int cap, int ms)
{
	struct ev_poll *p = (struct ev_poll *)e;
	int n = poll(p->pfd, (nfds_t)p->n, ms);
	if (n < 0)
		return -errno;
	int k = 0;
	for (int i = 0; i < p->n && k < cap && k < n; i++)
		if (p->pfd[i].revents)
			fds[k++] = p->pfd[i].fd;
	return k;
}

static void pol_close(struct ev *e)
{
	struct ev_poll *p = (struct ev_poll *)e;
	free(p->pfd);
	free(p->slot);
	free(p);
}

static const struct ev_ops pol_ops = {pol_add, pol_del, pol_wait, pol_close};

int ev_open(int mech, struct ev **out, char *why, size_t whylen)
{
	*out = NULL;
	if (mech == EV_SELECT) {
		struct ev_select *s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		FD_ZERO(&s->set);
		s->maxfd = -1;
		s->e = (struct ev){&sel_ops, EV_SELECT};
		*out = &s->e;
		return 0;
	}
	if (mech == EV_POLL) {
		struct ev_poll *p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->e = (struct ev){&pol_ops, EV_POLL};
		*out = &p->e;
		return 0;
	}
	if (mech < 0 || mech >= EV_NMECH) {
		snprintf(why, whylen, "unknown event mechanism %d", mech);
		return -EINVAL;
	}
	return ev_native_open(mech, out, why, whylen);
}
