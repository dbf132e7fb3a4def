/* SPDX-License-Identifier: MIT */
/* Writeback and memory cgroups on Linux (see sys.h): syncfs, the
 * writeback counters of the system (/proc/vmstat, /proc/meminfo) and of
 * this process's memory cgroup, the dirty-page thresholds (vm.dirty_*),
 * and a memory-limited cgroup made below our own for the workload's
 * processes, so that a workload can be run as on a machine with less
 * memory. cgroup v1 (a memory hierarchy mounted) and v2 (the unified
 * hierarchy, memory enabled in our cgroup's cgroup.subtree_control) are
 * both handled; the cgroup is always a child of the one we are in, so
 * that it stays within every limit that applies to us. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "sys/sys.h"
#include "sys/sys_common.h"

int sys_syncfs(int fd)
{
	return syncfs(fd) ? -errno : 0;
}

/* Value of the line "key value" of text (vmstat, memory.stat), or -1. */
static long long line_value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == ' ')
			return strtoll(l + kl + 1, NULL, 10);
	return -1;
}

static long long file_ll(const char *dir, const char *name)
{
	char p[4352], err[128];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	char *t = sb_read_file(p, 4096, NULL, err, sizeof(err));
	if (!t)
		return -1;
	long long v = !strncmp(t, "max", 3) ? -2 : strtoll(t, NULL, 10);
	free(t);
	return v;
}

/* Mount point of the cgroup hierarchy holding controller ctl (v1: type
 * cgroup with ctl among its options; ctl NULL: the cgroup2 mount). */
static int cgroup_mount(const char *ctl, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	if (!f)
		return -errno;
	char line[4096], dev[256], dir[3072], type[64], opts[512];
	int rc = -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %3071s %63s %511s", dev, dir, type, opts) != 4)
			continue;
		if (ctl ? strcmp(type, "cgroup") != 0 : strcmp(type, "cgroup2") != 0)
			continue;
		if (ctl) {
			int found = 0;
			char *save = NULL;
			for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
				found |= !strcmp(o, ctl);
			if (!found)
				continue;
		}
		snprintf(out, len, "%s", dir);
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

/* Directory of the memory cgroup this process is in; 1 (v1) or 2 (v2),
 * or -errno with the reason in err. For v2, 2 only if the memory
 * controller is available there (cgroup.controllers). */
static int own_memcg(char *dir, size_t len, char *err, size_t errlen)
{
	char e[256];
	char *t = sb_read_file("/proc/self/cgroup", 1 << 16, NULL, e, sizeof(e));
	if (!t) {
		snprintf(err, errlen, "%s", e);
		return -ENOENT;
	}
	char v1[2048] = "", v2[2048] = "";
	int have1 = 0, have2 = 0;
	char *save = NULL;
	for (char *l = strtok_r(t, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = 0;
		const char *ctls = c1 + 1, *path = c2 + 1;
		if (!*ctls) {
			snprintf(v2, sizeof(v2), "%s", path);
			have2 = 1;
			continue;
		}
		char cs[256];
		snprintf(cs, sizeof(cs), "%s", ctls);
		char *s2 = NULL;
		for (char *c = strtok_r(cs, ",", &s2); c; c = strtok_r(NULL, ",", &s2))
			if (!strcmp(c, "memory")) {
				snprintf(v1, sizeof(v1), "%s", path);
				have1 = 1;
			}
	}
	free(t);
	char mnt[3072];
	if (have1 && cgroup_mount("memory", mnt, sizeof(mnt)) == 0) {
		snprintf(dir, len, "%s%s", mnt, strcmp(v1, "/") ? v1 : "");
		return 1;
	}
	if (have2 && cgroup_mount(NULL, mnt, sizeof(mnt)) == 0) {
		snprintf(dir, len, "%s%s", mnt, strcmp(v2, "/") ? v2 : "");
		char p[4352];
		snprintf(p, sizeof(p), "%s/cgroup.controllers", dir);
		char *c = sb_read_file(p, 4096, NULL, e, sizeof(e));
		int ok = c && sb_has_word(c, "memory");
		free(c);
		if (ok)
			return 2;
		snprintf(err, errlen, "cgroup v2: the memory controller is not available in %s", dir);
		return -ENOTSUP;
	}
	snprintf(err, errlen, "no memory cgroup controller (neither a cgroup v1 memory hierarchy "
			      "nor cgroup v2 with memory is mounted)");
	return -ENOTSUP;
}

void sys_writeback(struct sys_wb *w)
{
	char e[128];
	memset(w, 0xff, sizeof(*w)); /* every figure -1 */
	w->cg_version = 0;
	char *t = sb_read_file("/proc/vmstat", 1 << 16, NULL, e, sizeof(e));
	if (t) {
		w->dirtied_pages = line_value(t, "nr_dirtied");
		w->written_pages = line_value(t, "nr_written");
		free(t);
	}
	t = sb_read_file("/proc/meminfo", 1 << 16, NULL, e, sizeof(e));
	if (t) {
		if (!sb_kb_field(t, "Dirty", &w->dirty))
			w->dirty = -1;
		if (!sb_kb_field(t, "Writeback", &w->writeback))
			w->writeback = -1;
		free(t);
	}
	char dir[4096];
	int v = own_memcg(dir, sizeof(dir), e, sizeof(e));
	if (v <= 0)
		return;
	w->cg_version = v;
	char p[4352];
	snprintf(p, sizeof(p), "%s/memory.stat", dir);
	t = sb_read_file(p, 1 << 16, NULL, e, sizeof(e));
	if (t) {
		w->cg_dirty = line_value(t, v == 1 ? "dirty" : "file_dirty");
		w->cg_writeback = line_value(t, v == 1 ? "writeback" : "file_writeback");
		free(t);
	}
	if (v == 1) {
		w->cg_limit = file_ll(dir, "memory.limit_in_bytes");
		w->cg_limit_hits = file_ll(dir, "memory.failcnt");
		if (w->cg_limit >= (1ll << 62)) /* "unlimited" is PAGE_COUNTER_MAX pages */
			w->cg_limit = -1;
	} else {
		w->cg_limit = file_ll(dir, "memory.max");
		if (w->cg_limit == -2)
			w->cg_limit = -1;
		snprintf(p, sizeof(p), "%s/memory.events", dir);
		t = sb_read_file(p, 4096, NULL, e, sizeof(e));
		if (t) {
			w->cg_limit_hits = line_value(t, "max");
			free(t);
		}
	}
}

static long long sysctl_ll(const char *name)
{
	char p[128], e[128];
	snprintf(p, sizeof(p), "/proc/sys/vm/%s", name);
	char *t = sb_read_file(p, 256, NULL, e, sizeof(e));
	if (!t)
		return -1;
	long long v = strtoll(t, NULL, 10);
	free(t);
	return v;
}

json_t *sys_dirty_limits(unsigned long long *limit, unsigned long long *background)
{
	char e[256];
	*limit = *background = 0;
	char *t = sb_read_file("/proc/meminfo", 1 << 16, NULL, e, sizeof(e));
	if (!t)
		return json_pack("{s:s}", "unavailable", e);
	long long fr = -1, af = -1, inf = -1;
	sb_kb_field(t, "MemFree", &fr);
	sb_kb_field(t, "Active(file)", &af);
	sb_kb_field(t, "Inactive(file)", &inf);
	free(t);
	long long db = sysctl_ll("dirty_bytes"), dr = sysctl_ll("dirty_ratio");
	long long bb = sysctl_ll("dirty_background_bytes"), br = sysctl_ll("dirty_background_ratio");
	if (fr < 0 || af < 0 || inf < 0 || (db <= 0 && dr < 0) || (bb <= 0 && br < 0))
		return json_pack("{s:s}", "unavailable", "/proc/meminfo or vm.dirty_* unreadable");
	unsigned long long dirtyable = (unsigned long long)(fr + af + inf);
	*limit = db > 0 ? (unsigned long long)db : dirtyable / 100 * (unsigned long long)dr;
	*background = bb > 0 ? (unsigned long long)bb : dirtyable / 100 * (unsigned long long)br;
	return json_pack("{s:I,s:I,s:I,s:s,s:{s:I,s:I,s:I,s:I}}", "limit_bytes", (json_int_t)*limit,
			 "background_bytes", (json_int_t)*background, "dirtyable_bytes",
			 (json_int_t)dirtyable, "dirtyable_from", "MemFree + Active(file) + Inactive(file)",
			 "sysctls", "vm.dirty_bytes", db, "vm.dirty_ratio", dr,
			 "vm.dirty_background_bytes", bb, "vm.dirty_background_ratio", br);
}

/* Where a child cgroup of ours can be made: 0 and dir, version; or -errno
 * with the reason. */
static int memcg_parent(char *dir, size_t len, int *version, char *err, size_t errlen)
{
	int v = own_memcg(dir, len, err, errlen);
	if (v < 0)
		return v;
	*version = v;
	if (v == 2) {
		char p[4352], e[256];
		snprintf(p, sizeof(p), "%s/cgroup.subtree_control", dir);
		char *c = sb_read_file(p, 4096, NULL, e, sizeof(e));
		int ok = c && sb_has_word(c, "memory");
		free(c);
		if (!ok) {
			snprintf(err, errlen, "cgroup v2: memory is not enabled for the children of %s "
					      "(its cgroup.subtree_control)", dir);
			return -ENOTSUP;
		}
	}
	if (access(dir, W_OK) != 0) {
		int e = errno;
		snprintf(err, errlen, "cannot make a cgroup in %s: %s", dir, strerror(e));
		return -e;
	}
	return 0;
}

int sys_memcg_check(char *err, size_t errlen)
{
	char dir[4096];
	int v;
	return memcg_parent(dir, sizeof(dir), &v, err, errlen);
}

static int write_str(const char *dir, const char *name, const char *val)
{
	char p[4352];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = sys_write_all(fd, val, strlen(val)) ? -errno : 0;
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

int sys_memcg_make(const char *name, unsigned long long bytes, char *path, size_t pathlen,
		   int *version, char *err, size_t errlen)
{
	char dir[4096], val[32];
	int rc = memcg_parent(dir, sizeof(dir), version, err, errlen);
	if (rc)
		return rc;
	snprintf(path, pathlen, "%s/%s", dir, name);
	if (mkdir(path, 0755)) {
		rc = -errno;
		snprintf(err, errlen, "mkdir %s: %s", path, strerror(-rc));
		path[0] = 0;
		return rc;
	}
	snprintf(val, sizeof(val), "%llu", bytes);
	rc = write_str(path, *version == 1 ? "memory.limit_in_bytes" : "memory.max", val);
	if (!rc && *version == 2)
		write_str(path, "memory.swap.max", "0"); /* absent without swap accounting */
	if (rc) {
		snprintf(err, errlen, "%s: setting the limit to %s: %s", path, val, strerror(-rc));
		rmdir(path);
		path[0] = 0;
	}
	return rc;
}

int sys_memcg_enter(const char *path, pid_t pid)
{
	char val[32];
	snprintf(val, sizeof(val), "%d", (int)pid);
	return write_str(path, "cgroup.procs", val);
}

int sys_memcg_remove(const char *path)
{
	for (int i = 0; i < 200; i++) { /* up to 2 s while exited processes are reaped */
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return -EBUSY;
}

void sys_dirty_kib(uint64_t *dirty, uint64_t *writeback)
{
	char line[128];
	FILE *f = fopen("/proc/meminfo", "re");
	*dirty = *writeback = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		if (sscanf(line, "Dirty: %llu", &v) == 1)
			*dirty = v;
		else if (sscanf(line, "Writeback: %llu", &v) == 1)
			*writeback = v;
	}
	fclose(f);
}

int sys_jbd2_find(int dirfd, char *path, size_t len)
{
	struct stat sb;
	char p[128], line[128];
	path[0] = 0;
	if (fstat(dirfd, &sb))
		return -1;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/uevent", major(sb.st_dev), minor(sb.st_dev));
	FILE *f = fopen(p, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(path, len, "/proc/fs/jbd2/%.64s-8/info", line + 8);
		}
	fclose(f);
	if (path[0] && access(path, R_OK))
		path[0] = 0;
	return path[0] ? 0 : -1;
}

json_t *sys_jbd2_info(const char *path)
{
	char line[256];
	if (!path[0])
		return NULL;
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	json_t *a = json_array();
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *t = line;
		while (*t == ' ')
			t++;
		json_array_append_new(a, json_string(t));
	}
	fclose(f);
	return a;
}
