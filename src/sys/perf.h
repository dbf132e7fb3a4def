/* SPDX-License-Identifier: MIT */
/* Sampling where processes spend their CPU (run --profile, src/core/profile.c):
 * perf_event_open on Linux (perf_linux.c), unavailable elsewhere
 * (perf_posix.c, "unavailable: not Linux"). Also the two tables the
 * symbols come from, which only this layer may read: the kernel's symbols
 * (/proc/kallsyms) and a process's mappings (/proc/PID/maps). */
#ifndef SB_PERF_H
#define SB_PERF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A call chain's context markers, as the kernel writes them in a chain
 * (values of PERF_CONTEXT_KERNEL and _USER): the addresses after one are
 * of that side. */
#define SYS_PERF_CTX_KERNEL ((uint64_t)-128)
#define SYS_PERF_CTX_USER ((uint64_t)-512)
#define SYS_PERF_CTX_MAX ((uint64_t)-4095) /* any value >= this is a marker */

struct sys_perf; /* the events on one process, all CPUs, its threads and children */

struct sys_perf_sample {
	uint32_t pid, tid;
	uint64_t time;       /* CLOCK_MONOTONIC, ns */
	uint64_t period;     /* ns of CPU (cpu-clock) or cycles this sample stands for */
	uint64_t nr;         /* entries of ips (markers included) */
	const uint64_t *ips; /* the call chain, leaf first */
};

/* Open sampling events on process pid: every thread it has now and those
 * it and they start from then on (inherited), on every online CPU, with
 * kernel and user call chains and the time (CLOCK_MONOTONIC, as the
 * core's clock), disabled. Hardware cycles when the CPU
 * has a counter, else the software cpu-clock; period_ns: one sample per
 * this much CPU time (cycles: as many cycles at 1 GHz). 0 and *out, or
 * -errno with the reason in why ("perf_event_open: Permission denied
 * (kernel.perf_event_paranoid = 3)"). buf_kib: ring buffer per CPU. */
int sys_perf_open(pid_t pid, uint64_t period_ns, size_t buf_kib, struct sys_perf **out,
		  char *why, size_t whylen);
/* "cpu-clock" or "cycles". */
const char *sys_perf_event(const struct sys_perf *p);
/* Start or stop every event this thread opened, on every process, in one
 * call (prctl PR_TASK_PERF_EVENTS_ENABLE/DISABLE). */
void sys_perf_all(int on);
/* Bytes waiting in the fullest ring buffer of p. */
size_t sys_perf_pending(const struct sys_perf *p);
/* Hand every sample waiting to fn and free the space; records the kernel
 * lost (a full buffer) are added to *lost. */
void sys_perf_drain(struct sys_perf *p, void (*fn)(void *ctx, const struct sys_perf_sample *s),
		    void *ctx, uint64_t *lost);
/* The CPU time the process (and the children counted) spent with the
 * events enabled, in ns, summed over its threads and CPUs. */
uint64_t sys_perf_running_ns(const struct sys_perf *p);
void sys_perf_close(struct sys_perf *p);

/* The kernel's symbol table (/proc/kallsyms: "ADDR TYPE NAME [MODULE]"
 * lines, modules included), malloc'd; NULL with the reason in why (not
 * readable, or every address hidden by kernel.kptr_restrict). */
char *sys_kallsyms(char *why, size_t whylen);
/* A hash of the kernel's loaded modules (/proc/modules: names, sizes,
 * addresses), which changes when one is loaded or unloaded; a constant
 * for a kernel without modules; 0 when not known. */
uint64_t sys_kmodules_hash(void);
/* The mappings of process pid (/proc/PID/maps), malloc'd; NULL if gone. */
char *sys_maps(pid_t pid);

#endif
