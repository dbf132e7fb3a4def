/* SPDX-License-Identifier: MIT */
/* Resource registry: see registry.h.
 *
 * Signal handlers only record the signal; everything is released from
 * normal code (reg_cleanup, also run by atexit), so no async-signal-unsafe
 * call happens in a handler. A second SIGINT during cleanup is ignored:
 * cleanup is short and leaving it half-done would leave files behind. */
#include "core/registry.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/sys.h"

volatile sig_atomic_t reg_interrupted;

struct map { void *addr; size_t len; };
#define MAX_ROOTS 16

static char *roots[MAX_ROOTS];
static int nroots;
static pid_t *pids; static size_t npids, cappids;
static int *fds; static size_t nfds, capfds;
static struct map *maps; static size_t nmaps, capmaps;
/* matrix resources: paths, newest last */
struct plist { char **v; size_t n, cap; };
static struct plist mounts, loops, zrams, files, cgroups;

static void on_signal(int sig) { reg_interrupted = sig; }

int reg_init(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocking call returns EINTR so loops see the flag */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	atexit(reg_cleanup);
	return 0;
}

static int grow_array(void **arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 64;
	void *p = realloc(*arr, nc * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = nc;
	return 0;
}

int reg_mkscratch(const char *parent, const char *prefix, char *out, size_t outlen)
{
	if (nroots >= MAX_ROOTS)
		return -EMFILE;
	int n = snprintf(out, outlen, "%s/%s.XXXXXX", parent, prefix);
	if (n < 0 || (size_t)n >= outlen)
		return -ENAMETOOLONG;
	if (!mkdtemp(out))
		return -errno;
	roots[nroots] = strdup(out);
	if (!roots[nroots]) {
		rmdir(out);
		return -ENOMEM;
	}
	nroots++;
	return 0;
}

/* Remove everything below dirfd (a directory we created), staying on
 * device dev and never following symbolic links. */
static int remove_below(int dirfd, dev_t dev)
{
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return -errno;
	}
	int rc = 0;
	struct dirent *de;
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		const char *nm = de->d_name;
		if (!strcmp(nm, ".") || !strcmp(nm, ".."))
			continue;
		struct stat st;
		if (fstatat(dirfd, nm, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT && !rc)
				rc = -errno;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (st.st_dev != dev) { /* a mount inside our scratch: leave it */
				if (!rc)
					rc = -EBUSY;
				continue;
			}
			int sub = openat(dirfd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
			if (sub < 0) {
				if (!rc)
					rc = -errno;
				continue;
			}
			int r = remove_below(sub, dev);
			if (r && !rc)
				rc = r;
			if (unlinkat(dirfd, nm, AT_REMOVEDIR) && errno != ENOENT && !rc)
				rc = -errno;
		} else if (unlinkat(dirfd, nm, 0) && errno != ENOENT && !rc) {
			rc = -errno;
		}
		/* Entries removed while reading may make readdir skip others;
		 * the caller repeats until the directory is empty. */
	}
	closedir(d);
	return rc;
}

static int remove_tree_now(const char *path)
{
	struct stat st;
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	int rc = 0;
	for (int pass = 0; pass < 4; pass++) {
		int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (fd < 0)
			return -errno;
		rc = remove_below(fd, st.st_dev);
		if (!rmdir(path))
			return 0;
		if (errno != ENOTEMPTY && errno != EEXIST)
			return -errno;
	}
	return rc ? rc : -ENOTEMPTY;
}

int reg_remove_tree(const char *path)
{
	int rc = remove_tree_now(path);
	for (int i = 0; i < nroots; i++) {
		if (!strcmp(roots[i], path)) {
			if (rc == 0) {
				free(roots[i]);
				roots[i] = roots[--nroots];
			}
			break;
		}
	}
	return rc;
}

int reg_add_pid(pid_t pid)
{
	int rc = grow_array((void **)&pids, &cappids, npids, sizeof(*pids));
	if (rc) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return rc;
	}
	pids[npids++] = pid;
	return 0;
}

void reg_forget_pid(pid_t pid)
{
	for (size_t i = npids; i-- > 0;) {
		if (pids[i] == pid) {
			pids[i] = pids[--npids];
			return;
		}
	}
}

int reg_kill_pid(pid_t pid)
{
	int rc = 0;
	if (kill(pid, SIGKILL) && errno != ESRCH)
		rc = -errno;
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	reg_forget_pid(pid);
	return rc;
}

int reg_add_fd(int fd)
{
	int rc = grow_array((void **)&fds, &capfds, nfds, sizeof(*fds));
	if (rc) {
		close(fd);
		return rc;
	}
	fds[nfds++] = fd;
	return 0;
}

int reg_close_fd(int fd)
{
	for (size_t i = nfds; i-- > 0;) {
		if (fds[i] == fd) {
			fds[i] = fds[--nfds];
			break;
		}
	}
	return close(fd) ? -errno : 0;
}

int reg_add_map(void *addr, size_t len)
{
	int rc = grow_array((void **)&maps, &capmaps, nmaps, sizeof(*maps));
	if (rc) {
		munmap(addr, len);
		return rc;
	}
	maps[nmaps].addr = addr;
	maps[nmaps].len = len;
	nmaps++;
	return 0;
}

int reg_unmap(void *addr, size_t len)
{
	for (size_t i = nmaps; i-- > 0;) {
		if (maps[i].addr == addr) {
			maps[i] = maps[--nmaps];
			break;
		}
	}
	return munmap(addr, len) ? -errno : 0;
}

/* Register path in l; on failure release it with rel (complaining if
 * that fails too) and return -ENOMEM. */
static int plist_add(struct plist *l, const char *path, int (*rel)(const char *), const char *what)
{
	if (grow_array((void **)&l->v, &l->cap, l->n, sizeof(*l->v)) ||
	    !(l->v[l->n] = strdup(path))) {
		int rc = rel(path);
		if (rc)
			fprintf(stderr, "scalebench: could not %s %s: %s\n", what, path, strerror(-rc));
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

static void plist_del(struct plist *l, const char *path)
{
	for (size_t i = l->n; i-- > 0;)
		if (!strcmp(l->v[i], path)) {
			free(l->v[i]);
			memmove(l->v + i, l->v + i + 1, (l->n - i - 1) * sizeof(*l->v));
			l->n--;
			return;
		}
}

/* Release every entry, newest first, with rel; complain about failures. */
static void plist_release(struct plist *l, int (*rel)(const char *), const char *what)
{
	while (l->n > 0) {
		char *p = l->v[--l->n];
		int rc = rel(p);
		if (rc)
			fprintf(stderr, "scalebench: could not %s %s: %s\n", what, p, strerror(-rc));
		free(p);
	}
	free(l->v);
	l->v = NULL;
	l->cap = 0;
}

static int unlink_path(const char *p) { return unlink(p) && errno != ENOENT ? -errno : 0; }

int reg_add_mount(const char *dir) { return plist_add(&mounts, dir, sys_umount, "unmount"); }
int reg_add_loop(const char *dev) { return plist_add(&loops, dev, sys_loop_detach, "detach"); }
int reg_add_file(const char *path) { return plist_add(&files, path, unlink_path, "remove"); }
int reg_add_zram(const char *dev) { return plist_add(&zrams, dev, sys_zram_remove, "remove zram device"); }

int reg_remove_zram(const char *dev)
{
	int rc = sys_zram_remove(dev);
	if (rc == 0)
		plist_del(&zrams, dev);
	return rc;
}

int reg_umount(const char *dir)
{
	int rc = sys_umount(dir);
	if (rc == 0)
		plist_del(&mounts, dir);
	return rc;
}

int reg_detach_loop(const char *dev)
{
	int rc = sys_loop_detach(dev);
	if (rc == 0)
		plist_del(&loops, dev);
	return rc;
}

int reg_remove_file(const char *path)
{
	int rc = unlink_path(path);
	if (rc == 0)
		plist_del(&files, path);
	return rc;
}

int reg_add_cgroup(const char *path) { return plist_add(&cgroups, path, sys_memcg_remove, "remove cgroup"); }

int reg_remove_cgroup(const char *path)
{
	int rc = sys_memcg_remove(path);
	if (rc == 0)
		plist_del(&cgroups, path);
	return rc;
}

size_t reg_count(void)
{
	return (size_t)nroots + npids + nfds + nmaps + mounts.n + loops.n + zrams.n + files.n + cgroups.n;
}

void reg_cleanup(void)
{
	/* processes first: kill all, then reap, so that the total wait is one
	 * scheduling round and not one per process */
	for (size_t i = 0; i < npids; i++)
		kill(pids[i], SIGKILL);
	for (size_t i = 0; i < npids; i++)
		while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
			;
	npids = 0;
	for (size_t i = 0; i < nfds; i++)
		close(fds[i]);
	nfds = 0;
	for (size_t i = 0; i < nmaps; i++)
		munmap(maps[i].addr, maps[i].len);
	nmaps = 0;
	plist_release(&mounts, sys_umount, "unmount");
	plist_release(&loops, sys_loop_detach, "detach");
	plist_release(&zrams, sys_zram_remove, "remove zram device");
	plist_release(&files, unlink_path, "remove");
	plist_release(&cgroups, sys_memcg_remove, "remove cgroup");
	while (nroots > 0) {
		char *r = roots[--nroots];
		int rc = remove_tree_now(r);
		if (rc)
			fprintf(stderr, "scalebench: could not remove scratch %s: %s\n", r,
				strerror(-rc));
		free(r);
	}
	free(pids); pids = NULL; cappids = 0;
	free(fds); fds = NULL; capfds = 0;
	free(maps); maps = NULL; capmaps = 0;
}
