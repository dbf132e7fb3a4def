/* SPDX-License-Identifier: MIT */
/* Real-time measurement on Linux: CPUs online, thread pinning,
 * /dev/cpu_dma_latency, RLIMIT_RTTIME, what the snapshot says about
 * real-time, and a private tracefs instance for a latency failure.
 *
 * The trace instance: tracefs allows private instances (mkdir under
 * instances/), each with its own buffer and event switches, so scalebench
 * never touches the global tracer another user may rely on. The events
 * are sched_switch, sched_wakeup, irq_handler_entry and softirq_entry:
 * what ran on the CPU before a late wake-up. timerlat (the tracer made for
 * this) is used nowhere yet: this kernel does not offer it, and where it
 * is offered the snapshot says so. The function tracer is not enabled: it
 * costs on every kernel function, so it would inflate the latency it is to
 * explain. */
#include "sys/sys.h"
#include "sys/sys_common.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

int sys_cpus_online(unsigned char *set, int max)
{
	char err[256];
	char *b = sb_read_file("/sys/devices/system/cpu/online", 4096, NULL, err, sizeof(err));
	if (!b)
		return -ENOENT;
	int n = sys_cpulist_parse(sb_rtrim(b), set, max);
	free(b);
	return n < 0 ? -EINVAL : n;
}

int sys_pin_thread(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s) ? -errno : 0; /* 0: the calling thread */
}

int sys_pin_set(const unsigned char *set, int max)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	for (int c = 0; c < max && c < CPU_SETSIZE; c++)
		if (set[c])
			CPU_SET(c, &s);
	return sched_setaffinity(0, sizeof(s), &s) ? -errno : 0;
}

int sys_get_pinned(unsigned char *set, int max)
{
	cpu_set_t s;
	if (sched_getaffinity(0, sizeof(s), &s))
		return -errno;
	int n = 0;
	for (int c = 0; c < max; c++) {
		set[c] = c < CPU_SETSIZE && CPU_ISSET(c, &s);
		n += set[c];
	}
	return n;
}

int sys_dma_latency_hold(void)
{
	int fd = open("/dev/cpu_dma_latency", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int32_t zero = 0;
	if (write(fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
		int e = errno ? errno : EIO;
		close(fd);
		return -e;
	}
	return fd;
}

int sys_rttime_limit(uint64_t soft_us, uint64_t hard_us, uint64_t old[2])
{
	struct rlimit r;
	if (getrlimit(RLIMIT_RTTIME, &r))
		return -errno;
	old[0] = r.rlim_cur;
	old[1] = r.rlim_max;
	if (r.rlim_max != RLIM_INFINITY && hard_us > r.rlim_max)
		hard_us = r.rlim_max;
	if (soft_us > hard_us)
		soft_us = hard_us;
	r.rlim_cur = soft_us;
	r.rlim_max = hard_us;
	return setrlimit(RLIMIT_RTTIME, &r) ? -errno : 0;
}

int sys_rttime_restore(const uint64_t old[2])
{
	struct rlimit r = {old[0], old[1]};
	/* raising a hard limit back needs CAP_SYS_RESOURCE: keep the lower one then */
	if (setrlimit(RLIMIT_RTTIME, &r)) {
		struct rlimit now;
		if (getrlimit(RLIMIT_RTTIME, &now) == 0) {
			now.rlim_cur = now.rlim_max;
			setrlimit(RLIMIT_RTTIME, &now);
		}
		return -errno;
	}
	return 0;
}

static const char *tracefs_mounted(void)
{
	static const char *const where[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing", NULL};
	for (const char *const *w = where; *w; w++) {
		char p[128];
		snprintf(p, sizeof(p), "%s/available_tracers", *w);
		if (access(p, R_OK) == 0)
			return *w;
	}
	return NULL;
}

json_t *sys_rt_json(void)
{
	json_t *o = json_object();
	sb_set(o, "realtime", access("/sys/kernel/realtime", F_OK) == 0
				      ? sb_file_value("/sys/kernel/realtime")
				      : sb_unavailable("no /sys/kernel/realtime: not a PREEMPT_RT kernel"));
	json_t *iso = sb_file_string("/sys/devices/system/cpu/isolated");
	if (json_is_string(iso) && !*json_string_value(iso)) {
		json_decref(iso);
		iso = json_string("none");
	}
	sb_set(o, "isolated_cpus", iso);
	sb_set(o, "nohz_full_cpus",
	       access("/sys/devices/system/cpu/nohz_full", F_OK) == 0
		       ? sb_file_string("/sys/devices/system/cpu/nohz_full")
		       : sb_unavailable("no /sys/devices/system/cpu/nohz_full: kernel without NO_HZ_FULL"));
	sb_set(o, "sched_rt_runtime_us", sb_file_value("/proc/sys/kernel/sched_rt_runtime_us"));
	sb_set(o, "sched_rt_period_us", sb_file_value("/proc/sys/kernel/sched_rt_period_us"));
	int fd = sys_dma_latency_hold();
	if (fd >= 0) {
		close(fd);
		sb_set(o, "cpu_dma_latency", json_pack("{s:b}", "can_hold", 1));
	} else {
		sb_set(o, "cpu_dma_latency", json_pack("{s:b,s:s}", "can_hold", 0, "reason",
						       strerror(-fd)));
	}
	const char *tfs = tracefs_mounted();
	char p[128], err[256];
	if (tfs) {
		snprintf(p, sizeof(p), "%s/available_tracers", tfs);
		char *b = sb_read_file(p, 4096, NULL, err, sizeof(err));
		json_t *tr = json_object();
		sb_set(tr, "tracefs", json_string(tfs));
		sb_set(tr, "available_tracers", b ? sb_jstr(sb_rtrim(b)) : sb_unavailable("%s", err));
		sb_set(tr, "timerlat", json_boolean(b && sb_has_word(b, "timerlat")));
		free(b);
		sb_set(o, "tracing", tr);
	} else {
		sb_set(o, "tracing",
		       sb_unavailable("tracefs is not mounted (rt.wakeup mounts its own when root)"));
	}
	return o;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = sys_write_all(fd, s, strlen(s)) ? -errno : 0;
	close(fd);
	return rc;
}

int sys_trace_open(struct sys_trace *t, const char *mnt_parent)
{
	memset(t, 0, sizeof(*t));
	t->on_fd = -1;
	const char *tfs = tracefs_mounted();
	if (!tfs) {
		snprintf(t->mnt, sizeof(t->mnt), "%s/tracefs", mnt_parent);
		if (mkdir(t->mnt, 0700)) {
			int e = errno;
			t->info = sb_unavailable("tracefs not mounted; mkdir %s: %s", t->mnt, strerror(e));
			return -e;
		}
		if (mount("nodev", t->mnt, "tracefs", 0, NULL)) {
			int e = errno;
			rmdir(t->mnt);
			t->info = sb_unavailable("tracefs not mounted, and mounting it failed: %s",
						 strerror(e));
			return -e;
		}
		t->mounted = 1;
		tfs = t->mnt;
	} else {
		snprintf(t->mnt, sizeof(t->mnt), "%s", tfs);
	}
	char p[700], err[256];
	snprintf(p, sizeof(p), "%s/available_tracers", tfs);
	char *av = sb_read_file(p, 4096, NULL, err, sizeof(err));
	snprintf(t->inst, sizeof(t->inst), "%s/instances/scalebench-%ld", tfs, (long)getpid());
	if (mkdir(t->inst, 0700)) {
		int e = errno;
		t->inst[0] = 0;
		t->info = sb_unavailable("cannot make a trace instance: %s", strerror(e));
		free(av);
		sys_trace_close(t);
		return -e;
	}
	static const char *const ev[] = {"sched/sched_switch", "sched/sched_wakeup",
					 "irq/irq_handler_entry", "irq/softirq_entry", NULL};
	json_t *on = json_array(), *off = json_array();
	for (const char *const *e = ev; *e; e++) {
		snprintf(p, sizeof(p), "%s/events/%s/enable", t->inst, *e);
		json_array_append_new(write_str(p, "1") == 0 ? on : off, json_string(*e));
	}
	snprintf(p, sizeof(p), "%s/tracing_on", t->inst);
	write_str(p, "1");
	t->on_fd = open(p, O_WRONLY | O_CLOEXEC);
	int timerlat = av && sb_has_word(av, "timerlat");
	t->info = json_pack("{s:s,s:o,s:o,s:s?,s:b,s:s}", "instance", t->inst, "events", on,
			    "events_missing", off, "available_tracers", av ? sb_rtrim(av) : NULL,
			    "timerlat", timerlat, "missing",
			    timerlat ? "timerlat offered but not used (events only)"
				     : "timerlat tracer not offered by this kernel; function tracer "
				       "not used (its cost would inflate the latency)");
	free(av);
	return 0;
}

void sys_trace_stop(const struct sys_trace *t)
{
	if (t->on_fd >= 0) {
		ssize_t r = write(t->on_fd, "0", 1);
		(void)r;
	}
}

json_t *sys_trace_tail(const struct sys_trace *t, int lines)
{
	if (!t->inst[0])
		return t->info ? json_incref(t->info) : sb_unavailable("no trace instance");
	char p[700], err[256];
	size_t len = 0;
	snprintf(p, sizeof(p), "%s/trace", t->inst);
	char *b = sb_read_file(p, 8 << 20, &len, err, sizeof(err));
	if (!b)
		return sb_unavailable("%s", err);
	json_t *a = sb_tail_lines(b, len, lines);
	free(b);
	return a;
}

void sys_trace_close(struct sys_trace *t)
{
	if (t->on_fd >= 0)
		close(t->on_fd);
	t->on_fd = -1;
	if (t->inst[0]) {
		char p[700];
		snprintf(p, sizeof(p), "%s/tracing_on", t->inst);
		write_str(p, "0");
		rmdir(t->inst);
		t->inst[0] = 0;
	}
	if (t->mounted) {
		if (umount2(t->mnt, 0))
			umount2(t->mnt, MNT_DETACH);
		rmdir(t->mnt);
		t->mounted = 0;
	}
	json_decref(t->info);
	t->info = NULL;
}
