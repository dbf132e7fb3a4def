/* SPDX-License-Identifier: MIT */
/* Load processes for rt.wakeup (see rtload.h). Each loops until it is
 * killed, or its parent is gone (getppid polled where the system cannot
 * kill it with its parent), adding its work to its slot of a shared
 * counter page (a MAP_SHARED file in the scratch directory: portable). */
#include "bench/rtload.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/bench.h"
#include "core/registry.h"
#include "sys/sys.h"

const char *const rtload_names[RL_NLEVELS] = {"none", "cpu", "fs", "io", "net", "fork",
					      "pagecache", "all"};

#define IO_FILE (16u << 20)  /* bytes per io stream's file */
#define IO_BLOCK (256u << 10)
#define PC_FILE (64u << 20)  /* bytes per page-cache churner's file */
#define PC_BLOCK (1u << 20)
#define NET_CHUNK (64u << 10)
#define MAP_LEN 4096

const char *rtload_unit(int kind)
{
	switch (kind) {
	case RL_CPU: return "loops of 10,000 additions";
	case RL_FS: return "create+unlink";
	case RL_IO: case RL_NET: case RL_PAGECACHE: return "bytes";
	case RL_FORK: return "fork+exit+wait";
	default: return "";
	}
}

int rtload_init(struct rtload *l, int dirfd, int procs, const unsigned char *cpus, int ncpus_set,
		const char **call)
{
	memset(l, 0, sizeof(*l));
	l->dirfd = dirfd;
	l->procs = procs;
	l->cpus = cpus;
	l->ncpus_set = ncpus_set;
	int fd = openat(dirfd, "load.counters", O_RDWR | O_CREAT | O_EXCL, BENCH_FILE_MODE);
	if (fd < 0) {
		*call = "open (load.counters)";
		return -errno;
	}
	if (ftruncate(fd, MAP_LEN)) {
		int e = errno;
		close(fd);
		*call = "ftruncate (load.counters)";
		return -e;
	}
	void *p = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int e = errno;
	close(fd);
	if (p == MAP_FAILED) {
		*call = "mmap (load.counters)";
		return -e;
	}
	l->ctr = p;
	return 0;
}

static pid_t parent_pid;

static void alive(void)
{
	if (getppid() != parent_pid)
		_exit(0);
}

static void child_common(const struct rtload *l)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sys_child_dies_with_parent();
	setpgid(0, 0); /* its own group: a fork storm's children die with it */
	if (l->cpus)
		sys_pin_set(l->cpus, SYS_MAX_CPUS);
	alive();
}

static void loop_cpu(volatile uint64_t *c)
{
	for (;;) {
		volatile uint64_t x = 0;
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
		(*c)++;
		if ((*c & 255) == 0)
			alive();
	}
}

static void loop_fs(const struct rtload *l, int slot, volatile uint64_t *c)
{
	char d[32], f[64];
	snprintf(d, sizeof(d), "fs.%d", slot);
	if (mkdirat(l->dirfd, d, BENCH_DIR_MODE) && errno != EEXIST)
		_exit(1);
	for (uint64_t i = 0;; i++) {
		snprintf(f, sizeof(f), "%s/f%llu", d, (unsigned long long)(i & 1023));
		int fd = openat(l->dirfd, f, O_WRONLY | O_CREAT | O_EXCL, BENCH_FILE_MODE);
		if (fd >= 0)
			close(fd);
		unlinkat(l->dirfd, f, 0);
		(*c)++;
		if ((i & 255) == 0)
			alive();
	}
}

static void loop_io(int fd, volatile uint64_t *c)
{
	void *buf = NULL;
	if (posix_memalign(&buf, 4096, IO_BLOCK))
		_exit(1);
	memset(buf, 'i', IO_BLOCK);
	for (uint64_t i = 0;; i++) {
		off_t off = (off_t)((i / 2 * IO_BLOCK) % IO_FILE);
		ssize_t r = (i & 1) ? pread(fd, buf, IO_BLOCK, off) : pwrite(fd, buf, IO_BLOCK, off);
		if (r > 0)
			*c += (uint64_t)r;
		if ((i & 15) == 0)
			alive();
	}
}

static void loop_pagecache(int fd, volatile uint64_t *c)
{
	char *buf = malloc(PC_BLOCK);
	if (!buf)
		_exit(1);
	memset(buf, 'p', PC_BLOCK);
	for (;;) {
		for (int pass = 0; pass < 2; pass++) {
			for (off_t off = 0; off < (off_t)PC_FILE; off += PC_BLOCK) {
				ssize_t r = pass ? pread(fd, buf, PC_BLOCK, off)
						 : pwrite(fd, buf, PC_BLOCK, off);
				if (r > 0)
					*c += (uint64_t)r;
			}
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); /* clean pages go: refault */
			alive();
		}
	}
}

static void loop_fork(volatile uint64_t *c)
{
	for (;;) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		if (p > 0)
			while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
				;
		(*c)++;
		if ((*c & 63) == 0)
			alive();
	}
}

static void loop_net_rx(int lfd, volatile uint64_t *c)
{
	int fd = accept(lfd, NULL, NULL);
	close(lfd);
	if (fd < 0)
		_exit(1);
	char *buf = malloc(NET_CHUNK);
	if (!buf)
		_exit(1);
	for (uint64_t i = 0;; i++) {
		ssize_t r = recv(fd, buf, NET_CHUNK, 0);
		if (r == 0)
			_exit(0);
		if (r > 0)
			*c += (uint64_t)r;
		if ((i & 255) == 0)
			alive();
	}
}

static void loop_net_tx(const struct sockaddr_in *a, volatile uint64_t *c)
{
	(void)c;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (const struct sockaddr *)a, sizeof(*a)))
		_exit(1);
	char *buf = malloc(NET_CHUNK);
	if (!buf)
		_exit(1);
	memset(buf, 'n', NET_CHUNK);
	for (uint64_t i = 0;; i++) {
		if (send(fd, buf, NET_CHUNK, 0) < 0 && errno != EINTR)
			_exit(1);
		if ((i & 255) == 0)
			alive();
	}
}

/* Fork one load process for slot l->n; fd/lfd/addr as the kind needs. */
static int spawn(struct rtload *l, int kind, int fd, int lfd, const struct sockaddr_in *a,
		 int tx, const char **call)
{
	if (l->n >= RTLOAD_MAX) {
		errno = EMFILE;
		*call = "load processes (at most 128)";
		return -errno;
	}
	int slot = l->n;
	l->ctr[slot] = 0;
	parent_pid = getpid();
	pid_t p = fork();
	if (p < 0) {
		*call = "fork (load)";
		return -errno;
	}
	if (p == 0) {
		child_common(l);
		volatile uint64_t *c = &l->ctr[slot];
		switch (kind) {
		case RL_CPU: loop_cpu(c); break;
		case RL_FS: loop_fs(l, slot, c); break;
		case RL_IO: loop_io(fd, c); break;
		case RL_PAGECACHE: loop_pagecache(fd, c); break;
		case RL_FORK: loop_fork(c); break;
		case RL_NET:
			if (tx)
				loop_net_tx(a, c);
			else
				loop_net_rx(lfd, c);
			break;
		}
		_exit(0);
	}
	setpgid(p, p);
	if (reg_add_pid(p)) { /* it killed and reaped the load */
		*call = "registry";
		return -ENOMEM;
	}
	l->pid[slot] = p;
	l->kind[slot] = tx ? -1 : kind; /* a sender's work is counted by its receiver */
	l->n++;
	return 0;
}

static int data_file(struct rtload *l, const char *name, unsigned size, int direct, int *out,
		     const char **call)
{
	int fl = O_RDWR | O_CREAT;
#ifdef O_DIRECT
	if (direct)
		fl |= O_DIRECT;
#else
	(void)direct;
#endif
	int fd = openat(l->dirfd, name, fl, BENCH_FILE_MODE);
	if (fd < 0) {
		*call = "open (load file)";
		return -errno;
	}
	if (ftruncate(fd, (off_t)size)) {
		int e = errno;
		close(fd);
		*call = "ftruncate (load file)";
		return -e;
	}
	*out = fd;
	return 0;
}

static int start_kind(struct rtload *l, int kind, const char **call)
{
	char name[32];
	int rc = 0;
	for (int i = 0; i < l->procs && rc == 0; i++) {
		int fd = -1;
		switch (kind) {
		case RL_IO:
			snprintf(name, sizeof(name), "io.%d", l->n);
			rc = data_file(l, name, IO_FILE, 1, &fd, call);
			if (rc == -EINVAL) { /* no O_DIRECT on this file system */
				l->direct = 0;
				snprintf(l->note, sizeof(l->note),
					 "io load: O_DIRECT refused here, buffered I/O instead");
				rc = data_file(l, name, IO_FILE, 0, &fd, call);
			} else if (rc == 0) {
				l->direct = 1;
			}
			if (rc == 0)
				rc = spawn(l, kind, fd, -1, NULL, 0, call);
			break;
		case RL_PAGECACHE:
			snprintf(name, sizeof(name), "pc.%d", l->n);
			if ((rc = data_file(l, name, PC_FILE, 0, &fd, call)) == 0)
				rc = spawn(l, kind, fd, -1, NULL, 0, call);
			break;
		case RL_NET: {
			struct sockaddr_in a;
			memset(&a, 0, sizeof(a));
			a.sin_family = AF_INET;
			a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			socklen_t al = sizeof(a);
			int lfd = socket(AF_INET, SOCK_STREAM, 0);
			if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1) ||
			    getsockname(lfd, (struct sockaddr *)&a, &al)) {
				*call = "socket/bind/listen (net load, 127.0.0.1)";
				rc = -errno;
			}
			if (rc == 0)
				rc = spawn(l, kind, -1, lfd, &a, 0, call);
			if (rc == 0)
				rc = spawn(l, kind, -1, -1, &a, 1, call);
			if (lfd >= 0)
				close(lfd);
			break;
		}
		default:
			rc = spawn(l, kind, -1, -1, NULL, 0, call);
		}
		if (fd >= 0)
			close(fd);
	}
	return rc;
}

int rtload_start(struct rtload *l, int level, const char **call)
{
	if (level == RL_NONE)
		return 0;
	if (level != RL_ALL)
		return start_kind(l, level, call);
	for (int k = RL_CPU; k < RL_ALL; k++) {
		int rc = start_kind(l, k, call);
		if (rc)
			return rc;
	}
	return 0;
}

void rtload_read(const struct rtload *l, uint64_t per_kind[RL_NLEVELS])
{
	memset(per_kind, 0, RL_NLEVELS * sizeof(uint64_t));
	for (int i = 0; i < l->n; i++)
		if (l->kind[i] > 0)
			per_kind[l->kind[i]] += l->ctr[i];
}

json_t *rtload_rates(const struct rtload *l, const uint64_t *a, const uint64_t *b, double secs)
{
	json_t *o = json_object();
	int have[RL_NLEVELS] = {0};
	for (int i = 0; i < l->n; i++)
		if (l->kind[i] > 0)
			have[l->kind[i]] = 1;
	for (int k = RL_CPU; k < RL_ALL; k++)
		if (have[k])
			json_object_set_new(o, rtload_names[k],
					    json_pack("{s:f,s:s}", "per_s",
						      secs > 0 ? (double)(b[k] - a[k]) / secs : 0.0,
						      "unit", rtload_unit(k)));
	return o;
}

void rtload_stop(struct rtload *l)
{
	for (int i = 0; i < l->n; i++) {
		kill(-l->pid[i], SIGKILL); /* its group: a fork storm's children too */
		reg_kill_pid(l->pid[i]);
	}
	l->n = 0;
	/* the files of the level: fs.N directories are emptied by their next use
	 * or by the scratch directory's removal */
}

void rtload_fini(struct rtload *l)
{
	rtload_stop(l);
	if (l->ctr)
		munmap((void *)l->ctr, MAP_LEN);
	l->ctr = NULL;
}
