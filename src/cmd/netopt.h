/* SPDX-License-Identifier: MIT */
/* The network options of `run` (-4/-6, --netns, --peer, --key): their
 * checks before any work, and the namespace pair of --netns. */
#ifndef SB_NETOPT_H
#define SB_NETOPT_H

#include <stddef.h>
#include <jansson.h>

struct net_args {
	int v4, v6, netns;
	const char *peer, *key;
};

#define NET_OPTS(a)                                                                                  \
	{"ipv4", '4', OPT_FLAG, NULL, "net.*: IPv4 (the default)", 0, 0, NULL, &(a).v4, NULL},          \
	{"ipv6", '6', OPT_FLAG, NULL, "net.*: IPv6 (::1, or the namespaces' fd77::/64)", 0, 0, NULL, &(a).v6, NULL}, \
	{"netns", 0, OPT_FLAG, NULL, "net.*: server and client in two new network namespaces joined by a veth pair (root)", 0, 0, NULL, &(a).netns, NULL}, \
	{"peer", 0, OPT_STR, "HOST:PORT", "net.*: drive the server side of a `scalebench serve` there", 0, 0, NULL, &(a).peer, NULL}, \
	{"key", 0, OPT_STR, "KEY", "the shared key of that `serve` (proven by challenge-response, never sent); an unusable or busy peer: exit 2", 0, 0, NULL, &(a).key, NULL}

struct bench_net;
/* Usage errors: 0, or -1 with a message. Sets family, peer and key of net. */
int netopt_check(const struct net_args *a, struct bench_net *net, char *err, size_t errlen);
/* --netns: make the pair, enter the client side (registered for
 * cleanup), set netns and srv_nsfd of net. 0, or -1 with a message. */
int netopt_start(const struct net_args *a, struct bench_net *net, char *err, size_t errlen);
json_t *netopt_json(const struct net_args *a);

#endif
