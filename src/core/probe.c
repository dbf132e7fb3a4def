/* SPDX-License-Identifier: MIT */
/* The machine-speed probe (probe.h). Each part is timed in PROBE_BLOCKS
 * short blocks and the median block kept, so that one preemption inside a
 * block does not make a reading slow; a stretch of the host running this
 * guest slower (or every system call and fault leaving the guest for
 * longer) does, because it slows every block. */
#include "core/probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/clock.h"

#define PROBE_BLOCKS 7
#define LOOP_ITERS 2000  /* dependent multiply-adds per block (~4 us) */
#define CLOCK_READS 64   /* clock reads per block */
#define SYSCALLS 16      /* getppid() per block (~1 us each on a PVM guest) */
#define FAULT_PAGES 4    /* first touches of fresh anonymous pages per block */

static const char *const part_names[PROBE_NPARTS] = {"loop_ns", "clock_ns", "syscall_ns",
						     "fault_ns", "unmap_ns"};

const char *probe_part_name(int part)
{
	return part >= 0 && part < PROBE_NPARTS ? part_names[part] : "?";
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return v[n / 2];
}

static volatile uint64_t probe_sink;

static double loop_block(void)
{
	uint64_t x = probe_sink | 1;
	uint64_t t0 = clock_ns();
	for (int i = 0; i < LOOP_ITERS; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		probe_sink = x; /* a store the compiler must keep: the loop stays a loop */
	}
	return (double)(clock_ns() - t0) / LOOP_ITERS;
}

static double clock_block(void)
{
	uint64_t t0 = clock_ns(), t = t0;
	for (int i = 0; i < CLOCK_READS; i++)
		t = clock_ns();
	return (double)(t - t0) / CLOCK_READS;
}

static double syscall_block(void)
{
	uint64_t t0 = clock_ns();
	for (int i = 0; i < SYSCALLS; i++)
		probe_sink += (uint64_t)getppid();
	return (double)(clock_ns() - t0) / SYSCALLS;
}

#ifdef MAP_ANONYMOUS
/* One mapping for every block (a map and an unmap per block would cost more
 * than the faults); block b touches its own FAULT_PAGES fresh pages. */
static double fault_block(char *m, size_t pg, int b)
{
	if (!m)
		return NAN;
	char *at = m + (size_t)b * FAULT_PAGES * pg;
	uint64_t t0 = clock_ns();
	for (int i = 0; i < FAULT_PAGES; i++)
		((volatile char *)at)[(size_t)i * pg] = 1;
	return (double)(clock_ns() - t0) / FAULT_PAGES;
}
#endif

void probe_take(struct probe *p)
{
	double v[PROBE_BLOCKS];
	double (*const fn[PROBE_FAULT])(void) = {loop_block, clock_block, syscall_block};
	for (int part = 0; part < PROBE_FAULT; part++) {
		for (int b = 0; b < PROBE_BLOCKS; b++)
			v[b] = fn[part]();
		p->ns[part] = median(v, PROBE_BLOCKS);
	}
	p->ns[PROBE_FAULT] = p->ns[PROBE_UNMAP] = NAN;
#ifdef MAP_ANONYMOUS
	long pg = sysconf(_SC_PAGESIZE);
	size_t len = pg > 0 ? (size_t)pg * FAULT_PAGES * PROBE_BLOCKS : 0;
	char *m = len ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
		      : MAP_FAILED;
	if (m != MAP_FAILED) {
		for (int b = 0; b < PROBE_BLOCKS; b++)
			v[b] = fault_block(m, (size_t)pg, b);
		p->ns[PROBE_FAULT] = median(v, PROBE_BLOCKS);
		uint64_t t0 = clock_ns(); /* one call, one TLB flush: no blocks */
		munmap(m, len);
		p->ns[PROBE_UNMAP] = (double)(clock_ns() - t0);
	}
#endif
}

void probe_min(struct probe *out, const struct probe *a, const struct probe *b)
{
	for (int i = 0; i < PROBE_NPARTS; i++) {
		double x = a->ns[i], y = b->ns[i];
		out->ns[i] = isnan(x) ? y : isnan(y) ? x : (x < y ? x : y);
	}
}

int probe_fastest(const struct probe *r, int n, const struct probe *ref, double *s)
{
	int best = -1;
	double sb = NAN;
	for (int i = 0; i < n; i++) {
		double si = probe_slowness(&r[i], ref);
		if (s)
			s[i] = si;
		if (!isnan(si) && (best < 0 || si < sb)) {
			best = i;
			sb = si;
		}
	}
	return best < 0 ? 0 : best;
}

void probe_reference(struct probe *ref, int k)
{
	probe_take(ref);
	for (int i = 1; i < k; i++) {
		struct probe p;
		probe_take(&p);
		probe_min(ref, ref, &p);
	}
}

double probe_slowness(const struct probe *p, const struct probe *ref)
{
	/* the geometric mean of the parts' ratios: one part's jitter (a page
	 * fault's cost moves 20-50% reading to reading under load) moves it
	 * less than the largest ratio would; the clock read is left out (tens
	 * of ns, in steps of the clock's resolution), and the unmap (what
	 * other CPUs run, not this one's speed: probe.h) */
	double sum = 0;
	int n = 0;
	for (int i = 0; i < PROBE_NPARTS; i++) {
		if (i == PROBE_CLOCK || i == PROBE_UNMAP)
			continue;
		if (isnan(p->ns[i]) || isnan(ref->ns[i]) || !(ref->ns[i] > 0) || !(p->ns[i] > 0))
			continue;
		sum += log(p->ns[i] / ref->ns[i]);
		n++;
	}
	return n ? exp(sum / n) : NAN;
}
