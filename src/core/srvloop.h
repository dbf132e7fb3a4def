/* SPDX-License-Identifier: MIT */
/* The server loop of the net servers, one for the net.* benches (a child
 * of bench/netsrv.c) and for `scalebench serve` (a child of cmd/serve.c):
 * echo, sink or count datagrams on a bound socket with the event
 * mechanism of its specification, and speak the control protocol
 * (netctl.h) on ctl. It knows no bench and no command. */
#ifndef SB_SRVLOOP_H
#define SB_SRVLOOP_H

#include "netctl.h"

/* The loop's wake-up when nothing happens, in milliseconds (its deadline
 * and the control channel are checked at least this often). */
#define SRV_TICK_MS 500
/* How long an echo waits for a full socket to drain before it drops the
 * connection, in milliseconds. */
#define SRV_ECHO_SEND_TIMEOUT_MS 1000

/* Runs in a child on an already bound socket (listening for TCP): writes
 * its lines to ctl, returns when told to stop, when ctl closes or when
 * spec->max_s has passed. */
void srv_loop(const struct srv_spec *spec, int sock, int ctl);

#endif
