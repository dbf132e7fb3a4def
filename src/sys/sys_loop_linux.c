/* SPDX-License-Identifier: MIT */
/* Linux: page-cache dropping, loop devices (LOOP_CONFIGURE with direct
 * I/O and autoclear) and mount(2) with an option string. See sys.h. Only
 * the matrix and the io.* benches call these, on things scalebench made. */
#include "sys/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

int sys_drop_caches(void)
{
	sync();
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = write(fd, "1\n", 2) == 2 ? 0 : -errno; /* 1: the page cache only */
	close(fd);
	return rc;
}

static int configure(int lfd, int bfd, const char *image, int direct)
{
	struct loop_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (unsigned)bfd;
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | (direct ? LO_FLAGS_DIRECT_IO : 0);
	snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", image);
	return ioctl(lfd, LOOP_CONFIGURE, &cfg) ? -errno : 0;
}

int sys_loop_attach(const char *image, int *direct_io, char *dev, size_t devlen, int *fd,
		    char *err, size_t errlen)
{
	*fd = -1;
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		int e = errno;
		snprintf(err, errlen, "open /dev/loop-control: %s", strerror(e));
		return -e;
	}
	int bfd = open(image, O_RDWR | O_CLOEXEC);
	if (bfd < 0) {
		int e = errno;
		close(ctl);
		snprintf(err, errlen, "open %s: %s", image, strerror(e));
		return -e;
	}
	int rc = -EBUSY;
	for (int tries = 0; tries < 16 && rc == -EBUSY; tries++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0) {
			rc = -errno;
			snprintf(err, errlen, "LOOP_CTL_GET_FREE: %s", strerror(-rc));
			break;
		}
		snprintf(dev, devlen, "/dev/loop%d", n);
		int lfd = open(dev, O_RDWR | O_CLOEXEC);
		if (lfd < 0) {
			rc = -errno;
			snprintf(err, errlen, "open %s: %s", dev, strerror(-rc));
			break;
		}
		rc = configure(lfd, bfd, image, *direct_io);
		if (rc == -EINVAL && *direct_io) { /* backing file system without O_DIRECT */
			*direct_io = 0;
			rc = configure(lfd, bfd, image, 0);
		}
		if (rc == 0) {
			*fd = lfd;
			break;
		}
		close(lfd); /* EBUSY: another process took it first; try the next */
		snprintf(err, errlen, "LOOP_CONFIGURE %s: %s", dev, strerror(-rc));
	}
	close(bfd);
	close(ctl);
	return rc;
}

int sys_loop_detach(const char *dev)
{
	int fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENXIO ? 0 : -errno;
	int rc = 0;
	for (int i = 0; i < 50; i++) {
		if (ioctl(fd, LOOP_CLR_FD) == 0 || errno == ENXIO) {
			rc = 0;
			break;
		}
		rc = -errno;
		if (errno != EBUSY)
			break;
		nanosleep(&(struct timespec){0, 20000000}, NULL);
	}
	close(fd);
	return rc;
}

static const struct { const char *name; unsigned long flag; } mount_flags[] = {
	{"ro", MS_RDONLY},          {"rw", 0},
	{"noatime", MS_NOATIME},    {"nodiratime", MS_NODIRATIME},
	{"relatime", MS_RELATIME},  {"strictatime", MS_STRICTATIME},
	{"lazytime", MS_LAZYTIME},  {"sync", MS_SYNCHRONOUS},
	{"dirsync", MS_DIRSYNC},    {"nosuid", MS_NOSUID},
	{"nodev", MS_NODEV},        {"noexec", MS_NOEXEC},
};

int sys_mount(const char *src, const char *dir, const char *type, const char *opts, char *err,
	      size_t errlen)
{
	char buf[1024], data[1024] = "";
	unsigned long flags = 0;
	snprintf(buf, sizeof(buf), "%s", opts ? opts : "");
	char *save = NULL;
	for (char *o = strtok_r(buf, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		int generic = 0;
		for (size_t i = 0; i < sizeof(mount_flags) / sizeof(mount_flags[0]); i++)
			if (!strcmp(o, mount_flags[i].name)) {
				flags |= mount_flags[i].flag;
				generic = 1;
			}
		if (!generic) {
			size_t l = strlen(data);
			snprintf(data + l, sizeof(data) - l, "%s%s", l ? "," : "", o);
		}
	}
	if (mount(src, dir, type, flags, data[0] ? data : NULL)) {
		int e = errno;
		snprintf(err, errlen, "mount -t %s %s%s%s: %s%s", type, opts && *opts ? "-o " : "",
			 opts && *opts ? opts : "", opts && *opts ? "" : "", strerror(e),
			 e == ENODEV ? " (the kernel does not support this file system)" : "");
		return -e;
	}
	return 0;
}

int sys_umount(const char *dir)
{
	for (int i = 0; i < 50; i++) {
		if (umount2(dir, 0) == 0)
			return 0;
		if (errno == EINVAL || errno == ENOENT)
			return 0; /* not mounted (any more) */
		if (errno != EBUSY)
			return -errno;
		nanosleep(&(struct timespec){0, 20000000}, NULL);
	}
	return umount2(dir, MNT_DETACH) ? -errno : 0;
}

int sys_is_fuse(const char *path)
{
	struct statfs sf;
	return statfs(path, &sf) == 0 && (unsigned long)sf.f_type == 0x65735546ul; /* FUSE_SUPER_MAGIC */
}

static int write_str(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, v, strlen(v));
	int rc = n == (ssize_t)strlen(v) ? 0 : n < 0 ? -errno : -EIO;
	close(fd);
	return rc;
}

int sys_zram_add(uint64_t size, char *dev, size_t devlen, char *err, size_t errlen)
{
	int fd = open("/sys/class/zram-control/hot_add", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "open /sys/class/zram-control/hot_add: %s%s", strerror(e),
			 e == ENOENT ? " (no zram module: modprobe zram)" : "");
		return -e;
	}
	char buf[32] = "";
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int e = errno;
	close(fd);
	if (n <= 0) {
		snprintf(err, errlen, "read hot_add: %s", n < 0 ? strerror(e) : "empty");
		return n < 0 ? -e : -EIO;
	}
	buf[n] = 0;
	int id = atoi(buf);
	snprintf(dev, devlen, "/dev/zram%d", id);
	char p[128], v[32];
	snprintf(p, sizeof(p), "/sys/block/zram%d/disksize", id);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)size);
	int rc = write_str(p, v);
	if (rc) {
		snprintf(err, errlen, "write %s: %s", p, strerror(-rc));
		return rc;
	}
	struct stat st;
	for (int i = 0; i < 250 && stat(dev, &st); i++) /* udev makes the node */
		nanosleep(&(struct timespec){0, 20000000}, NULL);
	if (stat(dev, &st)) {
		snprintf(err, errlen, "%s did not appear", dev);
		return -ENOENT;
	}
	return 0;
}

int sys_zram_algorithm(const char *dev, char *buf, size_t len)
{
	char p[128];
	if (strncmp(dev, "/dev/", 5))
		return -EINVAL;
	snprintf(p, sizeof(p), "/sys/block/%s/comp_algorithm", dev + 5);
	FILE *fp = fopen(p, "r");
	if (!fp)
		return -errno;
	int rc = fgets(buf, (int)len, fp) ? 0 : -EIO;
	fclose(fp);
	if (!rc)
		buf[strcspn(buf, "\n")] = 0;
	return rc;
}

int sys_zram_remove(const char *dev)
{
	int id;
	if (sscanf(dev, "/dev/zram%d", &id) != 1)
		return -EINVAL;
	char p[128], v[16];
	snprintf(p, sizeof(p), "/sys/block/zram%d/reset", id);
	if (access(p, F_OK))
		return 0; /* gone already */
	int rc = -EBUSY;
	for (int i = 0; i < 50 && rc == -EBUSY; i++) {
		rc = write_str(p, "1");
		if (rc == -EBUSY)
			nanosleep(&(struct timespec){0, 20000000}, NULL);
	}
	if (rc)
		return rc;
	snprintf(v, sizeof(v), "%d", id);
	return write_str("/sys/class/zram-control/hot_remove", v);
}
