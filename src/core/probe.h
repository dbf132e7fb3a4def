/* SPDX-License-Identifier: MIT */
/* The machine-speed probe (docs/method.md, "Machine drift").
 *
 * A virtual machine's speed drifts in stretches that its guest cannot see
 * (no steal time), and an operation measured in a slow stretch reads slow.
 * The probe times, around every point, the same fixed work: a user-space
 * loop, clock reads, a cheap system call and a page fault (the two last
 * are what a hypervisor's stretches slow most on a PVM/KVM guest: every
 * system call and fault may leave the guest), each as the median of a few
 * short blocks, in about 0.3 ms. A reading is compared with the run's
 * reference reading (the fastest of a few taken at the start, lowered by
 * every faster reading): its slowness is the geometric mean of its parts'
 * ratios to the reference's. A point's slowness is the smaller of the
 * readings before and after it: slow only if the machine was slow on both
 * sides (bench/probe-drift.sh: one reading alone flagged most windows
 * under load; both, geometric mean, 1.25: few windows that were not slow). */
#ifndef SB_PROBE_H
#define SB_PROBE_H

#include <stdint.h>

/* PROBE_UNMAP: the munmap of the fault part's pages, one call (one TLB
 * flush). Not judged in the slowness: on this project's PVM guest it
 * costs ~3x while the other vCPU runs anything (7.9 against 23 us), and
 * what unmaps or forks with it (proc.fork 0.59 against 1.27 ms), while the
 * other parts do not move; a bench whose peer runs on another CPU keeps
 * that CPU busy by design. Recorded per point (docs/method.md). */
enum probe_part { PROBE_LOOP = 0, PROBE_CLOCK, PROBE_SYSCALL, PROBE_FAULT, PROBE_UNMAP, PROBE_NPARTS };

struct probe {
	double ns[PROBE_NPARTS]; /* per unit of work: ns of the loop, of one clock read,
				  * one system call, one page fault, one unmap; NAN: not
				  * measured */
};

/* The name of a part in the result ("loop_ns", "clock_ns", "syscall_ns", "fault_ns",
 * "unmap_ns"). */
const char *probe_part_name(int part);
/* Take one reading (about 0.3 ms; NAN parts where the system lacks one). */
void probe_take(struct probe *p);
/* The reference: the fastest of k readings, part by part. */
void probe_reference(struct probe *ref, int k);
/* How many times slower than ref the reading is: the geometric mean of the
 * ratios over the parts both have, the clock read and the unmap aside (1:
 * as fast); NAN if none. */
double probe_slowness(const struct probe *p, const struct probe *ref);
/* Part by part, the faster of a and b into out (a reference kept up to date). */
void probe_min(struct probe *out, const struct probe *a, const struct probe *b);

/* The index of the fastest of r[0..n) against ref, readings whose
 * slowness is NAN aside (0 when all are); each slowness into s unless
 * NULL. */
int probe_fastest(const struct probe *r, int n, const struct probe *ref, double *s);

/* A reading is slow when its slowness reaches this (a point measured in
 * such a stretch is measured again, within the sweep's cap). */
#define PROBE_SLOW 1.25

/* The probe's loop runs between another process's time slices and does
 * not see it share the CPU; the scheduler's account of the point's own
 * tasks does (sweep_int.h, wait_since): other processes took this much
 * of a CPU or more from the point's tasks, and it is crowded, measured
 * again like a slow point (load axes). Quiet, the quick suite's points
 * lose under 0.07; beside two CPU hogs on a 2-CPU guest, a point that
 * shares its CPU with one loses 0.5-0.99 (docs/method.md, "Machine
 * drift"). */
#define CPU_LOST_CROWDED 0.2

#endif
