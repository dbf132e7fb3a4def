/* SPDX-License-Identifier: MIT */
/* Helper processes that hold established client connections for the
 * net.* benches (see netload.h): each raises its descriptor limit to the
 * hard limit and holds up to that many, so that the client side never
 * caps a sweep; the runner talks to each over a socketpair, one byte per
 * command ('o' open one more, 'c' close the newest) and an errno back. */
#include "bench/netload.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sys/netsys.h"
#include "core/registry.h"
#include "sys/sys.h"

/* ---- helpers holding connections ---- */

static void helper_main(const struct netload *l, int fd)
{
	signal(SIGINT, SIG_IGN);
	sys_child_dies_with_parent();
	sys_nofile_raise(UINT64_MAX, NULL);
	if (l->in_srv_ns && l->env->net->srv_nsfd >= 0 && sys_netns_enter(l->env->net->srv_nsfd))
		_exit(1);
	sys_close_inherited(fd);
	int *held = malloc((size_t)l->per * sizeof(int));
	uint64_t n = 0;
	char cmd;
	while (held && read(fd, &cmd, 1) == 1) {
		int32_t err = 0;
		if (cmd == 'o') {
			int c = -1;
			err = n < l->per ? -net_connect_to(l->addr, l->alen, l->want_ack, &c) : EMFILE;
			if (!err)
				held[n++] = c;
		} else if (cmd == 'c' && n > 0) {
			close(held[--n]);
		}
		if (write(fd, &err, sizeof(err)) != sizeof(err))
			break;
	}
	_exit(0);
}

static int helper_spawn(struct netload *l)
{
	if (l->n >= LOAD_MAX_HELPERS) {
		errno = EMFILE;
		return bench_fail(l->env, "helper processes (all full)");
	}
	if (!l->per) {
		struct sys_nofile nf = {.hard = UINT64_MAX};
		sys_nofile_get(&nf);
		uint64_t lim = nf.hard == UINT64_MAX ? 1u << 20 : nf.hard;
		l->per = lim > 64 ? lim - 32 : 32;
	}
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return bench_fail(l->env, "socketpair (helper)");
	pid_t pid = fork();
	if (pid < 0) {
		int rc = bench_fail(l->env, "fork (helper)");
		close(sv[0]);
		close(sv[1]);
		return rc;
	}
	if (pid == 0) {
		close(sv[0]);
		bench_place(l->env, 1);
		helper_main(l, sv[1]);
	}
	close(sv[1]);
	if (reg_add_pid(pid)) { /* it killed and reaped the helper */
		close(sv[0]);
		errno = ENOMEM;
		return bench_fail(l->env, "registry");
	}
	if (reg_add_fd(sv[0])) { /* it closed sv[0] */
		reg_kill_pid(pid);
		errno = ENOMEM;
		return bench_fail(l->env, "registry");
	}
	bench_peer_add(l->env, "helpers", pid);
	l->pid[l->n] = pid;
	l->fd[l->n] = sv[0];
	l->cnt[l->n] = 0;
	l->n++;
	return 0;
}

/* One command to helper h; its errno answer (0), or a FAIL of the server. */
static int helper_cmd(struct netload *l, int h, char cmd, const char *call)
{
	if (write(l->fd[h], &cmd, 1) != 1)
		return bench_fail(l->env, "helper command");
	uint64_t give_up = sys_now_ms() + HELPER_REPLY_TIMEOUT_MS;
	for (;;) {
		struct pollfd p[2] = {{l->fd[h], POLLIN, 0}, {l->srv ? l->srv->ctl : -1, POLLIN, 0}};
		int r = poll(p, 2, HELPER_POLL_MS);
		if (r < 0 && errno == EINTR && !reg_stop_requested())
			continue;
		if (r < 0)
			return bench_fail(l->env, "poll (helper)");
		if (p[1].revents) {
			int f = netsrv_check(l->srv, 0);
			if (f)
				return f;
		}
		if (p[0].revents) {
			int32_t err;
			if (read(l->fd[h], &err, sizeof(err)) != sizeof(err)) {
				errno = EPIPE;
				return bench_fail(l->env, "helper reply");
			}
			if (err) {
				errno = err;
				return bench_fail(l->env, call);
			}
			return 0;
		}
		if (sys_now_ms() > give_up) {
			errno = ETIMEDOUT;
			return bench_fail(l->env, call);
		}
	}
}

int netload_add(struct netload *l)
{
	if (l->n == 0 || l->cnt[l->n - 1] >= l->per) {
		int rc = helper_spawn(l);
		if (rc)
			return rc;
	}
	int h = l->n - 1;
	int rc = helper_cmd(l, h, 'o', "connect (held connection, in a helper process)");
	if (rc == 0) {
		l->cnt[h]++;
		l->total++;
	}
	return rc;
}

int netload_drop_last(struct netload *l)
{
	int h = l->n - 1;
	if (h < 0 || l->cnt[h] == 0)
		return 0;
	int rc = helper_cmd(l, h, 'c', "close (helper)");
	if (rc == 0) {
		l->cnt[h]--;
		l->total--;
	}
	return rc;
}

void netload_free(struct netload *l)
{
	for (int i = 0; i < l->n; i++) {
		reg_close_fd(l->fd[i]); /* the helper reads EOF and exits */
		if (l->env)
			bench_peer_remove(l->env, l->pid[i]);
		reg_kill_pid(l->pid[i]);
	}
	l->n = 0;
	l->total = 0;
}
