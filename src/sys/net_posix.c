/* SPDX-License-Identifier: MIT */
/* The POSIX-only build: the Linux-only network mechanisms are absent and
 * say why (see netsys.h and ev.h). */
#include "sys/ev.h"
#include "sys/netsys.h"

#include <errno.h>
#include <stdio.h>

int ev_native_open(int mech, struct ev **out, char *why, size_t whylen)
{
	*out = NULL;
	snprintf(why, whylen, "%s: not in this POSIX-only build (only select and poll)",
		 ev_mech_name(mech));
	return -ENOSYS;
}

static const char *const tx_names[] = {"send", "sendfile", "splice", "MSG_ZEROCOPY"};

int sys_tx_open(struct sys_tx *t, int kind, int sock, int file, char *why, size_t whylen)
{
	(void)sock;
	(void)file;
	t->kind = kind;
	snprintf(why, whylen, "%s: Linux-only, not in this POSIX-only build",
		 kind >= 0 && kind <= TX_ZEROCOPY ? tx_names[kind] : "?");
	return -ENOSYS;
}

long sys_tx_send(struct sys_tx *t, const char *buf, size_t len, off_t off)
{
	(void)t;
	(void)buf;
	(void)len;
	(void)off;
	return -ENOSYS;
}

void sys_tx_close(struct sys_tx *t) { (void)t; }

int sys_netns_pair(struct sys_netns *ns, const char *const setup[2], char *err, size_t errlen)
{
	(void)ns;
	(void)setup;
	snprintf(err, errlen, "network namespaces are Linux-only (not in this POSIX-only build)");
	return -ENOSYS;
}

int sys_netns_enter(int nsfd)
{
	(void)nsfd;
	return -ENOSYS;
}

int sys_netns_available(char *why, size_t whylen)
{
	snprintf(why, whylen, "network namespaces are Linux-only (not in this POSIX-only build)");
	return -ENOSYS;
}
