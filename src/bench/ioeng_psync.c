/* SPDX-License-Identifier: MIT */
/* engine=psync: pread/pwrite on the caller's thread, one request each
 * (fio's ioengine=psync); depth > 1 is depth threads (iofile.c). */
#include <errno.h>
#include <unistd.h>

#include "bench/iofile.h"

static int psync_one(struct iofile *f, void *buf, uint64_t off, const char **call)
{
	size_t done = 0;
	while (done < f->bs) {
		ssize_t r = f->write ? pwrite(f->fd, (char *)buf + done, f->bs - done, (off_t)(off + done))
				     : pread(f->fd, (char *)buf + done, f->bs - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;
			*call = f->write ? "pwrite" : "pread";
			return -1;
		}
		if (f->direct && (size_t)r != f->bs - done) { /* O_DIRECT cannot resume mid-block */
			errno = EIO;
			*call = f->write ? "short pwrite" : "short pread";
			return -1;
		}
		done += (size_t)r;
	}
	return 0;
}

const struct ioeng_ops ioeng_psync = {
	.name = "psync", .fio_name = "psync", .one = psync_one,
};
