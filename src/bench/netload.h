/* SPDX-License-Identifier: MIT */
/* Helper processes that hold established client connections for the
 * net.* benches, so that only the server's own descriptor limit caps a
 * sweep. They use the server handle (netsrv.h: its FAIL lines explain a
 * stall); the handle does not use them. */
#ifndef SB_NETLOAD_H
#define SB_NETLOAD_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include "core/bench.h"
#include "bench/netsrv.h"

/* How long a helper may take to open or close one connection, and how
 * often the server's control channel is looked at meanwhile, in
 * milliseconds. */
#define HELPER_REPLY_TIMEOUT_MS 15000
#define HELPER_POLL_MS 500

#define LOAD_MAX_HELPERS 64
struct netload {
	struct bench_env *env;
	struct netsrv *srv;  /* its FAIL lines explain a stall; NULL if none */
	const struct sockaddr_storage *addr;
	socklen_t alen;
	int want_ack;        /* wait for the server's byte after connect */
	int in_srv_ns;       /* --netns: helpers run in the server's namespace */
	pid_t pid[LOAD_MAX_HELPERS];
	int fd[LOAD_MAX_HELPERS];
	uint64_t cnt[LOAD_MAX_HELPERS];
	int n;
	uint64_t per;        /* connections per helper */
	uint64_t total;
};
int netload_add(struct netload *l);       /* one more connection, or bench_fail */
int netload_drop_last(struct netload *l); /* close the newest one */
void netload_free(struct netload *l);

#endif
