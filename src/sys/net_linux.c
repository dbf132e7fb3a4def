/* SPDX-License-Identifier: MIT */
/* Linux implementation of netsys.h: sendfile, splice and MSG_ZEROCOPY
 * senders; a namespace pair joined by veth. */
#include "sys/netsys.h"
#include "sys/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

int sys_tx_open(struct sys_tx *t, int kind, int sock, int file, char *why, size_t whylen)
{
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->sock = sock;
	t->file = file;
	t->pipe[0] = t->pipe[1] = -1;
	if (kind == TX_SPLICE) {
		if (pipe2(t->pipe, O_CLOEXEC | O_NONBLOCK)) {
			int e = errno;
			snprintf(why, whylen, "pipe2: %s", strerror(e));
			return -e;
		}
		fcntl(t->pipe[1], F_SETPIPE_SZ, 1 << 20); /* as large as a socket's buffer */
	}
	if (kind == TX_ZEROCOPY) {
		int one = 1;
		if (setsockopt(sock, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
			int e = errno;
			snprintf(why, whylen, "setsockopt(SO_ZEROCOPY): %s", strerror(e));
			return e == ENOPROTOOPT || e == EINVAL ? -ENOSYS : -e;
		}
	}
	return 0;
}

/* Collect MSG_ZEROCOPY completions from the error queue, so that the
 * socket's option memory does not run out. */
static void zc_reap(struct sys_tx *t)
{
	char ctl[128];
	for (;;) {
		struct msghdr mh;
		memset(&mh, 0, sizeof(mh));
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		if (recvmsg(t->sock, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			struct sock_extended_err *ee = (struct sock_extended_err *)CMSG_DATA(c);
			if (ee->ee_errno != 0 || ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY)
				continue;
			uint64_t n = (uint64_t)(ee->ee_data - ee->ee_info) + 1;
			t->zc_done += n;
			if (ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				t->zc_copied += n;
		}
	}
}

long sys_tx_send(struct sys_tx *t, const char *buf, size_t len, off_t off)
{
	ssize_t n;
	switch (t->kind) {
	case TX_SENDFILE:
		n = sendfile(t->sock, t->file, &off, len);
		break;
	case TX_SPLICE:
		if (t->inpipe == 0) {
			loff_t o = off;
			n = splice(t->file, &o, t->pipe[1], NULL, len, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n < 0)
				return -errno;
			t->inpipe = (size_t)n;
		}
		n = splice(t->pipe[0], NULL, t->sock, NULL, t->inpipe, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0)
			t->inpipe -= (size_t)n;
		break;
	case TX_ZEROCOPY:
		n = send(t->sock, buf, len, MSG_ZEROCOPY | MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			t->zc_sent++;
		if (n < 0 && errno == ENOBUFS) { /* completions pending: collect, try later */
			zc_reap(t);
			return -EAGAIN;
		}
		if ((t->zc_sent & 15) == 0 || n < 0)
			zc_reap(t);
		break;
	default:
		n = send(t->sock, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return (long)n;
}

void sys_tx_close(struct sys_tx *t)
{
	if (t->kind == TX_ZEROCOPY)
		zc_reap(t);
	if (t->pipe[0] >= 0)
		close(t->pipe[0]);
	if (t->pipe[1] >= 0)
		close(t->pipe[1]);
	t->pipe[0] = t->pipe[1] = -1;
}

/* ---- namespaces ---- */

static pid_t holder(char *err, size_t errlen)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe2: %s", strerror(errno));
		return -1;
	}
	pid_t parent = getpid(), pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_IGN); /* the parent decides when we go */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		char ok = getppid() == parent && unshare(CLONE_NEWNET) == 0 ? 'y' : 'n';
		if (write(p[1], &ok, 1) != 1 || ok != 'y')
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	char c = 0;
	ssize_t r;
	while ((r = read(p[0], &c, 1)) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (r != 1 || c != 'y') {
		snprintf(err, errlen, "unshare(CLONE_NEWNET) failed (root with CAP_SYS_ADMIN needed)");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

/* Run argv (the `ip` tool), inside namespace nsfd if >= 0, with input on
 * its stdin if non-NULL. 0 if it exits 0. */
static int run_ip(char *const argv[], int nsfd, const char *input, char *err, size_t errlen)
{
	int in[2] = {-1, -1};
	if (input && pipe2(in, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe2: %s", strerror(errno));
		return -errno;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -EAGAIN;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_IGN);
		if (nsfd >= 0 && setns(nsfd, CLONE_NEWNET))
			_exit(126);
		if (input)
			dup2(in[0], 0);
		int dn = open("/dev/null", O_WRONLY);
		if (dn >= 0)
			dup2(dn, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (input) {
		close(in[0]);
		sys_write_all(in[1], input, strlen(input)); /* a short write shows as ip's failure */
		close(in[1]);
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	snprintf(err, errlen, "`%s %s %s ...` failed (exit %d%s)", argv[0], argv[1], argv[2],
		 WIFEXITED(st) ? WEXITSTATUS(st) : -1,
		 WIFEXITED(st) && WEXITSTATUS(st) == 127 ? ": is iproute2 installed?" : "");
	return -EIO;
}

int sys_netns_pair(struct sys_netns *ns, const char *const setup[2], char *err, size_t errlen)
{
	memset(ns, 0, sizeof(*ns));
	ns->nsfd[0] = ns->nsfd[1] = -1;
	ns->holder[0] = ns->holder[1] = -1;
	for (int i = 0; i < 2; i++) {
		if ((ns->holder[i] = holder(err, errlen)) < 0)
			return -EPERM;
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)ns->holder[i]);
		if ((ns->nsfd[i] = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			snprintf(err, errlen, "open %s: %s", path, strerror(errno));
			return -errno;
		}
		snprintf(ns->veth[i], sizeof(ns->veth[i]), "sb%d%c", (int)(getpid() % 1000000),
			 i ? 'c' : 's');
	}
	/* created directly inside the namespaces: never visible in ours */
	char p0[16], p1[16];
	snprintf(p0, sizeof(p0), "%d", (int)ns->holder[0]);
	snprintf(p1, sizeof(p1), "%d", (int)ns->holder[1]);
	char *add[] = {"ip", "link", "add", ns->veth[0], "netns", p0, "type", "veth",
		       "peer", "name", ns->veth[1], "netns", p1, NULL};
	int rc = run_ip(add, -1, NULL, err, errlen);
	if (rc)
		return rc;
	for (int i = 0; i < 2; i++) {
		char script[1024];
		snprintf(script, sizeof(script), setup[i], ns->veth[i], ns->veth[i], ns->veth[i]);
		char *batch[] = {"ip", "-batch", "-", NULL};
		if ((rc = run_ip(batch, ns->nsfd[i], script, err, errlen)))
			return rc;
	}
	return 0;
}

int sys_netns_enter(int nsfd)
{
	return setns(nsfd, CLONE_NEWNET) ? -errno : 0;
}

int sys_netns_available(char *why, size_t whylen)
{
	(void)why;
	(void)whylen;
	return 0;
}
