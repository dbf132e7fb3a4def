/* SPDX-License-Identifier: MIT */
/* POSIX-only implementation of sys.h (`make POSIX_ONLY=1`): uname,
 * sysconf, statvfs, getrlimit, gethostname, fcntl. It has the same keys as
 * the Linux snapshot; whatever POSIX cannot tell is
 * {"unavailable": "not available through POSIX interfaces"}. */
#include "sys/sys.h"
#include "sys/sys_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static json_t *na(void)
{
	return sb_unavailable("%s", SB_NOT_POSIX);
}

/* {key: na()} for each key of a NULL-ended list, added to o (or to a new
 * object if o is NULL). */
static json_t *na_keys(json_t *o, const char *const *keys)
{
	if (!o)
		o = json_object();
	for (; *keys; keys++)
		sb_set(o, *keys, na());
	return o;
}

static json_t *sysconf_json(int name, const char *what)
{
	long v;

	errno = 0;
	v = sysconf(name);
	if (v < 0)
		return errno ? sb_unavailable("sysconf(%s): %s", what,
					      strerror(errno))
			     : sb_unavailable("sysconf(%s): no value", what);
	return json_integer(v);
}

static json_t *kernel_json(void)
{
	static const char *const rest[] = {
		"config_source", "config_fnv1a64", "hz", "config_options",
		"preempt", "cmdline", NULL};
	json_t *o = json_object();
	struct utsname u;

	if (uname(&u) != 0) {
		json_decref(o);
		return sb_unavailable("uname: %s", strerror(errno));
	}
	sb_set(o, "sysname", sb_jstr(u.sysname));
	sb_set(o, "release", sb_jstr(u.release));
	sb_set(o, "version", sb_jstr(u.version));
	sb_set(o, "machine", sb_jstr(u.machine));
	return na_keys(o, rest);
}

static json_t *cpu_json(void)
{
	static const char *const first[] = {"model", NULL};
	static const char *const rest[] = {
		"online", "count_allowed", "governor", "mhz", "smt",
		"vulnerabilities", NULL};
	json_t *o = na_keys(NULL, first);

	/* _SC_NPROCESSORS_* are POSIX since POSIX.1-2024. */
#ifdef _SC_NPROCESSORS_ONLN
	sb_set(o, "count_online",
	       sysconf_json(_SC_NPROCESSORS_ONLN, "_SC_NPROCESSORS_ONLN"));
#else
	sb_set(o, "count_online", na());
#endif
#ifdef _SC_NPROCESSORS_CONF
	sb_set(o, "count_configured",
	       sysconf_json(_SC_NPROCESSORS_CONF, "_SC_NPROCESSORS_CONF"));
#else
	sb_set(o, "count_configured", na());
#endif
	return na_keys(o, rest);
}

static json_t *memory_json(void)
{
	static const char *const keys[] = {
		"total_bytes", "available_bytes", "free_bytes",
		"swap_total_bytes", "swap_free_bytes", "hugepages", "thp",
		NULL};
	json_t *o = na_keys(NULL, keys);

	sb_set(o, "page_size", sysconf_json(_SC_PAGESIZE, "_SC_PAGESIZE"));
	return o;
}

static json_t *filesystem_json(const char *dir)
{
	static const char *const keys[] = {
		"statfs_type", "type", "mount_point", "mount_root", "source",
		"device_number", "mount_options", "super_options",
		"block_device", NULL};
	char *real = realpath(dir, NULL);
	json_t *o;

	if (!real)
		return sb_unavailable("realpath %s: %s", dir, strerror(errno));
	o = json_object();
	sb_set(o, "path", sb_jstr(real));
	na_keys(o, keys);
	sb_set(o, "statvfs", sb_statvfs_json(real));
	free(real);
	return o;
}

json_t *sys_snapshot(const char *dir)
{
	static const char *const virt[] = {"hypervisor", "container", NULL};
	static const char *const clk[] = {"current", "available", NULL};
	json_t *o = json_object();
	char now[40];

	sys_iso_utc(NULL, 3, now, sizeof now);
	sb_set(o, "impl", json_string(sys_impl()));
	sb_set(o, "time", json_string(now));
	sb_set(o, "kernel", kernel_json());
	sb_set(o, "cpu", cpu_json());
	sb_set(o, "memory", memory_json());
	sb_set(o, "virtualization", na_keys(NULL, virt));
	sb_set(o, "clocksource", na_keys(NULL, clk));
	sb_set(o, "filesystem", dir ? filesystem_json(dir)
				    : sb_unavailable("no directory given"));
	sb_set(o, "sysctls", na());
	sb_set(o, "limits", sb_rlimits_json());
	sb_set(o, "rt", sys_rt_json());
	sb_set(o, "uid", json_integer((json_int_t)geteuid()));
	sb_set(o, "hostname", sb_hostname_json());
	sb_set(o, "loadavg", na());
	return o;
}

/* The probe bound: sysconf(_SC_OPEN_MAX), capped. */
static long open_max(void)
{
	long m = sysconf(_SC_OPEN_MAX);

	return m <= 0 || m > SB_FD_PROBE_CAP ? SB_FD_PROBE_CAP : m;
}

json_t *sys_failure_state(void)
{
	static const char *const keys[] = {
		"kernel_log_tail", "meminfo", "pressure", "loadavg",
		"processes", "file_nr", "self_status", NULL};
	json_t *o = json_object(), *fds = json_object();
	long bound = open_max();
	char now[40], method[128];

	sys_iso_utc(NULL, 3, now, sizeof now);
	sb_set(o, "impl", json_string(sys_impl()));
	sb_set(o, "time", json_string(now));
	na_keys(o, keys);
	snprintf(method, sizeof method,
		 "fcntl(F_GETFD) probe of descriptors 0..%ld", bound - 1);
	sb_set(fds, "count", json_integer(sb_probe_fds(bound)));
	sb_set(fds, "method", json_string(method));
	sb_set(o, "open_fds", fds);
	sb_set(o, "limits", sb_rlimits_json());
	return o;
}

void sys_clock_source(char *buf, size_t len)
{
	if (len)
		snprintf(buf, len, "unknown");
}

int sys_fs_type(const char *path, char *buf, size_t len)
{
	(void)path; /* statvfs has no file system type */
	if (len)
		snprintf(buf, len, "unknown");
	return -1;
}

int sys_open_fds(void)
{
	return sb_probe_fds(open_max());
}

int sys_footprint(long *mappings, long *anon_kib)
{
	(void)mappings;
	(void)anon_kib;
	return -1; /* POSIX has no interface for a process's mappings */
}

int sys_child_dies_with_parent(void)
{
	return 0; /* the child must poll getppid() */
}

int sys_self_exe(const char *argv0, char *out, size_t len)
{
	return sb_exe_from_argv0(argv0, out, len);
}

const char *sys_impl(void)
{
	return "posix";
}

/* No page-cache control, loop devices or mount(2) in POSIX. */
int sys_drop_caches(void) { return -ENOSYS; }

int sys_loop_attach(const char *image, int *direct_io, char *dev, size_t devlen, int *fd,
		    char *err, size_t errlen)
{
	(void)image; (void)direct_io; (void)dev; (void)devlen;
	*fd = -1;
	snprintf(err, errlen, "loop devices: %s", SB_NOT_POSIX);
	return -ENOSYS;
}

int sys_loop_detach(const char *dev) { (void)dev; return -ENOSYS; }

int sys_mount(const char *src, const char *dir, const char *type, const char *opts, char *err,
	      size_t errlen)
{
	(void)src; (void)dir; (void)type; (void)opts;
	snprintf(err, errlen, "mount: %s", SB_NOT_POSIX);
	return -ENOSYS;
}

int sys_umount(const char *dir) { (void)dir; return -ENOSYS; }

int sys_is_fuse(const char *path) { (void)path; return 0; }

int sys_zram_add(uint64_t size, char *dev, size_t devlen, char *err, size_t errlen)
{
	(void)size; (void)dev; (void)devlen;
	snprintf(err, errlen, "zram: %s", SB_NOT_POSIX);
	return -ENOSYS;
}

int sys_zram_remove(const char *dev) { (void)dev; return -ENOSYS; }

int sys_zram_algorithm(const char *dev, char *buf, size_t len)
{
	(void)dev; (void)buf; (void)len;
	return -ENOSYS;
}

/* No system-wide CPU times, and no seccomp, in POSIX. */
int sys_cpu_idle(double *idle, double *total)
{
	(void)idle; (void)total;
	return -1;
}

long sys_seccomp_filters(pid_t pid)
{
	(void)pid;
	return -1;
}

/* ---- writeback and memory cgroups: POSIX has a sync and nothing else */
int sys_fs_journal(const char *path)
{
	(void)path;
	return -1;
}

int sys_syncfs(int fd)
{
	int rc = fsync(fd) ? -errno : 0;
	sync();
	return rc;
}

void sys_writeback(struct sys_wb *w)
{
	memset(w, 0xff, sizeof(*w));
	w->cg_version = 0;
}

void sys_dirty_kib(uint64_t *dirty, uint64_t *writeback) { *dirty = *writeback = 0; }

int sys_jbd2_find(int dirfd, char *path, size_t len)
{
	(void)dirfd;
	if (len)
		path[0] = 0;
	return -1;
}

json_t *sys_jbd2_info(const char *path)
{
	(void)path;
	return NULL;
}

json_t *sys_dirty_limits(unsigned long long *limit, unsigned long long *background)
{
	*limit = *background = 0;
	return sb_unavailable("dirty-page thresholds: %s", SB_NOT_POSIX);
}

int sys_memcg_check(char *err, size_t errlen)
{
	snprintf(err, errlen, "memory cgroups: %s", SB_NOT_POSIX);
	return -ENOSYS;
}

int sys_memcg_make(const char *name, unsigned long long bytes, char *path, size_t pathlen,
		   int *version, char *err, size_t errlen)
{
	(void)name; (void)bytes; (void)version;
	if (pathlen)
		path[0] = 0;
	return sys_memcg_check(err, errlen);
}

int sys_memcg_enter(const char *path, pid_t pid)
{
	(void)path; (void)pid;
	return -ENOSYS;
}

int sys_memcg_remove(const char *path)
{
	(void)path;
	return 0;
}
