/* SPDX-License-Identifier: MIT */
/* See netopt.h. The namespaces are anonymous, held by registered
 * processes: when those die (at the end, on Ctrl-C, or when scalebench is
 * killed: they have a parent-death signal), the kernel removes both
 * namespaces and the veth pair, so nothing can be left behind. */
#include "cmd/netopt.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/bench.h"
#include "core/netctl.h"
#include "sys/netsys.h"
#include "core/registry.h"

int netopt_check(const struct net_args *a, struct bench_net *net, char *err, size_t errlen)
{
	if (a->v4 && a->v6) {
		snprintf(err, errlen, "-4 and -6 exclude each other");
		return -1;
	}
	if (a->netns && a->peer) {
		snprintf(err, errlen, "--netns and --peer exclude each other");
		return -1;
	}
	if (a->key && !a->peer) {
		snprintf(err, errlen, "--key goes with --peer");
		return -1;
	}
	if (a->peer && (!strchr(a->peer, ':') || strlen(a->peer) > 300)) {
		snprintf(err, errlen, "--peer '%.60s': not HOST:PORT", a->peer);
		return -1;
	}
	if (a->netns && sys_netns_available(err, errlen))
		return -1;
	if (a->netns && geteuid() != 0) {
		snprintf(err, errlen, "--netns needs root (it creates network namespaces and a veth pair)");
		return -1;
	}
	net->family = a->v6 ? AF_INET6 : AF_INET;
	net->peer = a->peer;
	net->key = a->key;
	return 0;
}

int netopt_start(const struct net_args *a, struct bench_net *net, char *err, size_t errlen)
{
	if (!a->netns)
		return 0;
	static const char *const setup[2] = {
		"link set lo up\nlink set %s up\naddr add " NETNS_SRV4 "/24 dev %s\n"
		"addr add " NETNS_SRV6 "/64 dev %s nodad\n",
		"link set lo up\nlink set %s up\naddr add " NETNS_CLI4 "/24 dev %s\n"
		"addr add " NETNS_CLI6 "/64 dev %s nodad\n",
	};
	struct sys_netns ns;
	int rc = sys_netns_pair(&ns, setup, err, errlen), lost = 0;
	for (int i = 0; i < 2; i++) { /* a failed registration released what it was given */
		if (ns.holder[i] > 0 && reg_add_pid(ns.holder[i]))
			lost = 1;
		if (ns.nsfd[i] >= 0 && reg_add_fd(ns.nsfd[i]))
			lost = 1;
	}
	if (rc)
		return -1;
	if (lost) {
		snprintf(err, errlen, "--netns: cannot register the namespaces for cleanup: %s",
			 strerror(ENOMEM));
		return -1;
	}
	if ((rc = sys_netns_enter(ns.nsfd[1]))) {
		snprintf(err, errlen, "setns (client namespace): %s", strerror(-rc));
		return -1;
	}
	net->netns = 1;
	net->srv_nsfd = ns.nsfd[0];
	return 0;
}

json_t *netopt_json(const struct net_args *a)
{
	return json_pack("{s:s,s:s,s:s?}", "family", a->v6 ? "ipv6" : "ipv4", "path",
			 a->netns ? "netns-veth" : a->peer ? "peer" : "loopback", "peer", a->peer);
}
