/* SPDX-License-Identifier: MIT */
/* Linux-only network mechanisms behind one interface each: the sender
 * paths of net.stream (sendfile, splice, MSG_ZEROCOPY) and the network
 * namespace pair of --netns. net_linux.c implements them; net_posix.c
 * (the POSIX-only build) answers -ENOSYS with a reason, which the benches
 * turn into BENCH_SKIP variants and `run --netns` into a clear error. */
#ifndef SB_NETSYS_H
#define SB_NETSYS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum sys_tx_kind { TX_SEND = 0, TX_SENDFILE, TX_SPLICE, TX_ZEROCOPY };

/* One sending stream. file: a regular file of at least the chunk size
 * (sendfile, splice read from it); buf: the user buffer (zerocopy). */
struct sys_tx {
	int kind, sock, file;
	int pipe[2];        /* splice: file -> pipe -> socket */
	size_t inpipe;      /* bytes waiting in the pipe */
	uint64_t zc_sent, zc_done, zc_copied; /* zerocopy sends and completions */
};

int sys_tx_open(struct sys_tx *t, int kind, int sock, int file, char *why, size_t whylen);
/* Send up to len bytes (the file at offset off, or buf); bytes sent, or
 * -EAGAIN when the socket is full, or -errno. */
long sys_tx_send(struct sys_tx *t, const char *buf, size_t len, off_t off);
void sys_tx_close(struct sys_tx *t);

/* Two anonymous network namespaces, each held by a small process (so that
 * they, and the veth pair between them, vanish with those processes even
 * when scalebench is killed), joined by a veth pair and configured by
 * `ip -batch` with the commands in setup[i] (run inside namespace i). */
struct sys_netns {
	pid_t holder[2];
	int nsfd[2];          /* open /proc/<holder>/ns/net */
	char veth[2][16];     /* device names inside each namespace */
};
/* 0, or -errno with a reason in err. The caller registers holder[] and
 * nsfd[] for cleanup. setup[i] may use %s for the device name of i. */
int sys_netns_pair(struct sys_netns *ns, const char *const setup[2], char *err, size_t errlen);
int sys_netns_enter(int nsfd); /* setns(CLONE_NEWNET); 0 or -errno */
/* 0 if this build can make namespaces; else -ENOSYS and why. */
int sys_netns_available(char *why, size_t whylen);

#endif
