/* SPDX-License-Identifier: MIT */
/* The server loop of the net servers, one for the net.* benches (a child
 * of bench/netsrv.c) and for `scalebench serve` (a child of cmd/serve.c):
 * echo, sink or count datagrams on a bound socket with the event
 * mechanism of its specification, and speak the control protocol
 * (netctl.h) on ctl. It knows no bench and no command. */
#ifndef SB_SRVLOOP_H
#define SB_SRVLOOP_H

#include "core/netctl.h"

/* The loop's wake-up when nothing happens, in milliseconds (its deadline
 * and the control channel are checked at least this often). */
#define SRV_TICK_MS 500
/* How long an echo waits for a full socket to drain before it drops the
 * connection, in milliseconds. */
#define SRV_ECHO_SEND_TIMEOUT_MS 1000

/* A UDP server's receive buffer, in bytes: bursts of datagrams are
 * counted, not dropped by a full default buffer. */
#define SRV_UDP_RCVBUF (8 << 20)

/* The socket a server of spec serves on, bound to addr:*port (0: any; the
 * port in *port): TCP listening, or UDP with SRV_UDP_RCVBUF. The socket,
 * or -errno with a message in err. */
int srv_open(const struct srv_spec *spec, const char *addr, int *port, char *err, size_t errlen);

/* Runs in a child on an already bound socket (listening for TCP): writes
 * its lines to ctl, returns when told to stop, when ctl closes or when
 * spec->max_s has passed. */
void srv_loop(const struct srv_spec *spec, int sock, int ctl);

#endif
