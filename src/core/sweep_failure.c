/* SPDX-License-Identifier: MIT */
/* First-failure data: what failed (phase, call, errno, kind), at which
 * N, and the system's state at that moment (sys_failure_state). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sweep_int.h"
#include "sys/sys.h"

static const char *failure_kind(int err)
{
	switch (err) {
	case EMFILE: case ENFILE: case ENOMEM: case EAGAIN: case ENOSPC:
	case EDQUOT: case EMLINK: case EFBIG: case EADDRINUSE: case EADDRNOTAVAIL:
	case ENOBUFS:
		return "limit";
	case ETIMEDOUT:
		return "timeout";
	case ETIME: /* a bench's sample exceeded --max-latency */
		return "bound";
	default:
		return "error";
	}
}

struct failure *sweep_failure(const char *phase, const char *call, const char *kind, uint64_t n,
			      int err, const char *msg)
{
	struct failure *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	snprintf(f->phase, sizeof(f->phase), "%s", phase);
	snprintf(f->call, sizeof(f->call), "%s", call ? call : "?");
	snprintf(f->kind, sizeof(f->kind), "%s", kind);
	snprintf(f->msg, sizeof(f->msg), "%s", msg);
	f->n = n;
	f->err = err;
	f->state = sys_failure_state();
	return f;
}

struct failure *sweep_failure_errno(const char *phase, const char *call, uint64_t n, int err)
{
	char msg[sizeof(((struct failure *)0)->msg)];
	if (!call)
		call = "?";
	snprintf(msg, sizeof(msg), "%.63s: %s", call, strerror(err));
	return sweep_failure(phase, call, failure_kind(err), n, err, msg);
}
