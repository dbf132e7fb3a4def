/* SPDX-License-Identifier: MIT */
/* One internal interface over what differs between operating systems.
 * sys_linux.c implements it with /proc, /sys, statfs, klogctl and prctl;
 * sys_posix.c with POSIX interfaces alone (built with `make POSIX_ONLY=1`),
 * and says "unavailable: <reason>" for what POSIX cannot tell. Nothing
 * outside src/sys/ may read /proc or /sys or call a Linux-only function. */
#ifndef SB_SYS_H
#define SB_SYS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

/* Full system snapshot for a result: kernel, CPU, memory, virtualization,
 * the file system holding dir (type, mount options, block device and its
 * queue settings), relevant sysctls, resource limits. Never NULL. */
json_t *sys_snapshot(const char *dir);

/* First-failure data: the state of the system right now (kernel log tail
 * when readable, memory and pressure figures, load, open files of this
 * process, limits). Never NULL. Must not allocate file descriptors when
 * called after EMFILE... it may try and say it failed. */
json_t *sys_failure_state(void);

/* Name of the clock source behind CLOCK_MONOTONIC ("tsc", "kvm-clock"),
 * or "unknown". */
void sys_clock_source(char *buf, size_t len);

/* File system type of the file system holding path ("ext4", "tmpfs"), or
 * "unknown". 0 on success. */
int sys_fs_type(const char *path, char *buf, size_t len);
/* Whether the ext2/3/4 file system holding path keeps a journal: 1 when
 * its device has a jbd2 journal running (/proc/fs/jbd2/DEV-*), 0 when it
 * has none (ext2; ext4 made with ^has_journal or mounted noload). Without
 * one ext4 does not reuse an inode within 60 s of its deletion (5 min
 * while its inode table block is dirty) and each new inode is found by a
 * scan past those (the kernel's recently_deleted): a condition that
 * moves the cost of every file made after deletions. -1 for any other
 * file system, or when it cannot be told (the POSIX build). An external
 * journal on another device is not seen (0). */
int sys_fs_journal(const char *path);

/* Number of open file descriptors of this process, -1 if unknown. */
int sys_open_fds(void);

/* The CPUs' idle (idle + iowait) and total time since boot, in ticks
 * (/proc/stat's "cpu" line). 0, or -1 where the system cannot tell. */
int sys_cpu_idle(double *idle, double *total);

/* The seccomp filters process pid holds (/proc/PID/status
 * Seccomp_filters, Linux 5.9+), or -1 if the system cannot tell. */
long sys_seccomp_filters(pid_t pid);

/* The size of this process as fork sees it: its mappings and its resident
 * anonymous memory in KiB (fork copies the first and write-protects the
 * second). 0, or -1 if the system cannot tell. */
int sys_footprint(long *mappings, long *anon_kib);

/* Called in a child right after fork: make it die when the parent does
 * (prctl(PR_SET_PDEATHSIG) on Linux; on POSIX a no-op, the child must
 * poll getppid() instead). Returns 1 if the kernel will do it, 0 if not. */
int sys_child_dies_with_parent(void);

/* write(2) until all n bytes are out, retrying on EINTR: 0, or -1 with
 * errno set (a write of 0 bytes counts as EIO). */
int sys_write_all(int fd, const void *buf, size_t n);

/* The path to start this program again from (its workers): on Linux
 * /proc/self/exe resolved (or "/proc/self/exe" itself when the file was
 * replaced since); elsewhere argv0 (a path with a slash, or found through
 * PATH), made absolute. 0, or -errno. */
int sys_self_exe(const char *argv0, char *out, size_t len);

/* CPU placement (sched_linux.c / sched_posix.c). sys_set_cpus pins this
 * process, and so every process it starts, to a list such as "0", "0,2"
 * or "0-1"; 0, or -1 with a message (a bad list, or no affinity control
 * in this build). sys_current_cpu: the CPU running the caller, -1 if the
 * system cannot tell. */
int sys_set_cpus(const char *list, char *err, size_t errlen);
int sys_current_cpu(void);
/* Where a task runs, for the placement record of a point: the thread ids
 * of process pid (up to max; the count, or -1 when the system cannot
 * list them), the calling thread's id, and for thread tid of pid the CPU
 * it last ran on and how many times the scheduler moved it between CPUs
 * so far (-1 each when unknown: Linux reads /proc/PID/task/TID/stat and
 * sched, se.nr_migrations; the POSIX build knows neither). 0, or -1 when
 * the task is gone. */
int sys_task_list(int pid, int *tids, int max);
/* The calling thread's own counters (Linux: CLOCK_THREAD_CPUTIME_ID and
 * getrusage(RUSAGE_THREAD)): sys_thread_counters() is 1 where the system
 * keeps them, 0 where it counts per process only (the POSIX build);
 * sys_thread_cpu_s is the thread's CPU time in s (NAN if unknown),
 * sys_thread_rusage 0 or -1. */
struct rusage;
int sys_thread_counters(void);
double sys_thread_cpu_s(void);
int sys_thread_rusage(struct rusage *ru);
int sys_thread_id(void);
int sys_task_where(int pid, int tid, int *cpu, long *migrations);
/* The scheduler's account of thread tid of pid so far: the time it ran
 * and the time it waited on a run queue, runnable but not running (s).
 * 0, or -1 when the task is gone or the system keeps no such account
 * (Linux: /proc/PID/task/TID/schedstat, CONFIG_SCHED_INFO). */
int sys_task_sched(int pid, int tid, double *run_s, double *wait_s);

/* ---- page cache, loop devices and mounts (the file-system matrix);
 * Linux: src/sys/sys_loop_linux.c; the POSIX build returns -ENOSYS. ---- */

/* sync, then drop the clean page cache (/proc/sys/vm/drop_caches; root).
 * 0 or -errno. */
int sys_drop_caches(void);

/* Attach image to a free loop device, with direct I/O to the backing file
 * when *direct_io (if the kernel refuses, it is retried buffered and
 * *direct_io becomes 0). The device autoclears: it detaches itself when
 * the last user goes, so *fd (open on it) must stay open until it is
 * mounted. dev gets "/dev/loopN". 0, or -errno with the step in err. */
int sys_loop_attach(const char *image, int *direct_io, char *dev, size_t devlen, int *fd,
		    char *err, size_t errlen);
/* Detach (LOOP_CLR_FD); a device already gone is not an error. */
int sys_loop_detach(const char *dev);
/* mount(2): generic options of opts (ro, noatime, nodiratime, relatime,
 * strictatime, lazytime, sync, dirsync, nosuid, nodev, noexec) become
 * flags, the rest goes to the file system as data. 0 or -errno. */
int sys_mount(const char *src, const char *dir, const char *type, const char *opts, char *err,
	      size_t errlen);
/* umount(2), retrying a busy mount briefly, then detaching it lazily. */
int sys_umount(const char *dir);
/* 1 if path is on a FUSE file system (statfs magic), else 0. */
int sys_is_fuse(const char *path);
/* A new zram device of size bytes (/sys/class/zram-control/hot_add, then
 * its disksize): dev gets "/dev/zramN". 0, or -errno with the step in err.
 * sys_zram_remove resets and hot-removes it (only a device the caller
 * made); a device already gone is not an error. */
int sys_zram_add(uint64_t size, char *dev, size_t devlen, char *err, size_t errlen);
int sys_zram_remove(const char *dev);
/* The compression algorithms of zram device dev ("/dev/zramN") into buf,
 * the kernel's line as it is (the one in use in brackets). 0, or -errno. */
int sys_zram_algorithm(const char *dev, char *buf, size_t len);

/* ---- writeback and memory cgroups (workloads larger than the page
 * cache); Linux: src/sys/wb_linux.c; the POSIX build syncs with fsync +
 * sync and has no counters and no cgroups. ---- */

/* Make the file system holding fd durable (syncfs; POSIX: fsync(fd) then
 * sync()). 0 or -errno. */
int sys_syncfs(int fd);

/* Writeback counters now; a figure that cannot be read is -1. The system's
 * from /proc/vmstat and /proc/meminfo; the cgroup's from the memory cgroup
 * this process is in (v1: memory.failcnt, memory.limit_in_bytes, memory.stat
 * dirty/writeback; v2: memory.events max, memory.max, memory.stat
 * file_dirty/file_writeback); cg_limit is -1 when unlimited. */
struct sys_wb {
	long long dirtied_pages, written_pages;  /* system, since boot (nr_dirtied, nr_written) */
	long long dirty, writeback;              /* system, bytes now (Dirty, Writeback) */
	long long cg_limit, cg_limit_hits;       /* memory cgroup: limit (bytes), times it was hit */
	long long cg_dirty, cg_writeback;        /* memory cgroup: bytes now */
	int cg_version;                          /* 1, 2, or 0: no memory cgroup found */
};
void sys_writeback(struct sys_wb *w);
/* The system's Dirty and Writeback now, in KiB, from /proc/meminfo alone
 * (cheap enough to call once per interval of a workload); 0 each where
 * unknown. */
void sys_dirty_kib(uint64_t *dirty, uint64_t *writeback);
/* The journal (jbd2) of the ext3/ext4 file system holding dirfd: its
 * statistics file into path (/proc/fs/jbd2/DEV-8/info); 0, or -1 when
 * there is none or it is unreadable. sys_jbd2_info: that file's lines,
 * leading blanks trimmed, or NULL. */
int sys_jbd2_find(int dirfd, char *path, size_t len);
json_t *sys_jbd2_info(const char *path);

/* The dirty-page thresholds in bytes: *limit where writers are throttled
 * (vm.dirty_bytes, or vm.dirty_ratio percent of the memory that can hold
 * dirty pages: MemFree + file pages), *background where the flusher starts
 * (vm.dirty_background_bytes/ratio); 0 if unknown. The JSON says what they
 * were computed from, or {"unavailable": reason}. */
json_t *sys_dirty_limits(unsigned long long *limit, unsigned long long *background);

/* A memory cgroup for the workload's processes, made below the memory
 * cgroup this process is in (cgroup v1 memory hierarchy, or v2 when the
 * memory controller is enabled for its children), named name, limited to
 * bytes (v2: swap 0 too). path gets its directory, *version 1 or 2.
 * sys_memcg_check says, without making anything, whether one can be made
 * (0, or -errno with the reason in err). */
int sys_memcg_check(char *err, size_t errlen);
int sys_memcg_make(const char *name, unsigned long long bytes, char *path, size_t pathlen,
		   int *version, char *err, size_t errlen);
/* Move process pid into the cgroup at path. 0 or -errno. */
int sys_memcg_enter(const char *path, pid_t pid);
/* Remove the cgroup at path (its processes must have exited; an EBUSY is
 * retried briefly while they are reaped). 0 or -errno; gone is 0. */
int sys_memcg_remove(const char *path);

/* ---- real-time measurement (rt.wakeup); Linux: src/sys/rt_linux.c,
 * the POSIX build: src/sys/rt_posix.c (-ENOSYS where POSIX has no way) ---- */

#define SYS_MAX_CPUS 1024
/* A CPU list ("0", "0,2", "0-3,6"; "+" separates as "," does, for a
 * bench parameter, whose value cannot hold a comma: "0+2") into
 * set[0..max): set[c] = 1. The count of CPUs in it, or -1 if it is not
 * such a list (sys_common.c). */
int sys_cpulist_parse(const char *s, unsigned char *set, int max);
/* The CPUs online now into set[0..max); the count, or -errno. */
int sys_cpus_online(unsigned char *set, int max);
/* Pin the calling thread to one CPU; pin the calling process (and what it
 * starts afterwards) to the CPUs of set. 0 or -errno. */
int sys_pin_thread(int cpu);
int sys_pin_set(const unsigned char *set, int max);
/* The CPUs the calling thread may run on into set; the count, or -errno. */
int sys_get_pinned(unsigned char *set, int max);
/* Hold /dev/cpu_dma_latency at 0 us: the descriptor to keep open while
 * measuring (closing it releases the request), or -errno. */
int sys_dma_latency_hold(void);
/* RLIMIT_RTTIME (us of CPU a real-time thread may use without blocking:
 * SIGXCPU at soft, SIGKILL at hard); the previous pair into old. 0 or -errno. */
int sys_rttime_limit(uint64_t soft_us, uint64_t hard_us, uint64_t old[2]);
int sys_rttime_restore(const uint64_t old[2]);
/* What a real-time user needs to know of this system: /sys/kernel/realtime,
 * isolated and nohz_full CPUs, sched_rt_runtime/period, whether
 * cpu_dma_latency can be held, the tracers on offer. Never NULL. */
json_t *sys_rt_json(void);

/* A private trace instance (tracefs instances/scalebench-PID; tracefs is
 * mounted in mnt_parent if it is not mounted already) with the scheduler
 * and interrupt events on, to be frozen at a latency failure. */
struct sys_trace {
	int on_fd;          /* the instance's tracing_on, -1 if none */
	int mounted;        /* tracefs was mounted by us at mnt */
	char mnt[512], inst[600];
	json_t *info;       /* what was used and what is missing (owned) */
};
/* 0, or -errno with the reason in t->info ({"unavailable": ...}). */
int sys_trace_open(struct sys_trace *t, const char *mnt_parent);
void sys_trace_stop(const struct sys_trace *t); /* one write(2): freeze the buffer */
json_t *sys_trace_tail(const struct sys_trace *t, int lines);
void sys_trace_close(struct sys_trace *t);      /* instance removed, tracefs unmounted */

/* A UTC time as "YYYY-MM-DDThh:mm:ssZ", with digits (0, 3, 6 or 9) of a
 * second's fraction before the Z; t NULL: now. "unknown" if it cannot be
 * told. */
struct timespec;
void sys_iso_utc(const struct timespec *t, int digits, char *buf, size_t len);

/* RLIMIT_NOFILE, as numbers (UINT64_MAX: unlimited). */
struct sys_nofile { uint64_t old, soft, hard; };
/* Read it into nf (old = soft). 0 or -errno. */
int sys_nofile_get(struct sys_nofile *nf);
/* Raise the soft limit to want (UINT64_MAX: the hard limit), never above
 * the hard limit and never lowering it; nf (may be NULL) gets the soft
 * limit before (old) and after. 0 or -errno. */
int sys_nofile_raise(uint64_t want, struct sys_nofile *nf);

/* Short name of the implementation: "linux" or "posix". */
uint64_t sys_now_ms(void);          /* CLOCK_MONOTONIC, ms */
void sys_close_inherited(int keep); /* in a child: close all descriptors but 0-2 and keep */

const char *sys_impl(void);

#endif
