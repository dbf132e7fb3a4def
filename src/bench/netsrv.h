/* SPDX-License-Identifier: MIT */
/* The net.* benches' handle on their server: where the traffic goes
 * (loopback, the --netns pair, a --peer), starting the server (a forked
 * child running srv_loop, or a session at `scalebench serve`), asking it
 * and stopping it. The protocol is core/netctl.h, the server loop
 * core/srvloop.h; the helper processes holding idle client connections
 * are netload.h (they use this handle; it does not use them). */
#ifndef SB_NETSRV_H
#define SB_NETSRV_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include "core/bench.h"
#include "core/netctl.h"

/* How long netsrv_stop waits for a local server to exit before it kills
 * it, in milliseconds. */
#define SRV_REAP_TIMEOUT_MS 5000

/* The runner's handle on a server. */
struct netsrv {
	pid_t pid;           /* local child, or -1 with a peer */
	int ctl;
	struct linebuf lb;
	struct sockaddr_storage addr;
	socklen_t alen;
	char done[256];      /* the DONE line, after netsrv_stop */
	struct bench_env *env;
	const struct bench_net *net; /* env->net */
};
/* A handle that owns nothing (safe to netsrv_stop). */
void netsrv_clear(struct netsrv *s);
/* Start a server for this bench (local child or at the peer). 0,
 * BENCH_SKIP with env->skip set (mechanism unavailable), or bench_fail. */
int netsrv_start(struct netsrv *s, struct bench_env *env, int mode, int mech);
/* A FAIL line waiting on ctl (within timeout_ms): bench_fail with its
 * errno and call; 0 if none. */
int netsrv_check(struct netsrv *s, int timeout_ms);
/* Send a command and wait for the reply line starting with want. */
int netsrv_ask(struct netsrv *s, const char *cmd, const char *want, char *reply, size_t len);
/* run --peer: can this client start a session at the peer now (connect,
 * challenge-response, close; in a child process)? 0, or -1 with a
 * message in err. */
int netsrv_peer_probe(const struct bench_net *net, char *err, size_t errlen);
/* Stop it: STOP, the DONE line into s->done, reap the child. */
void netsrv_stop(struct netsrv *s);
/* A new socket of type connected to the server (TCP: after its accept
 * acknowledgment). 0 or bench_fail. */
int netsrv_connect(struct netsrv *s, int type, int *fd);

#endif
