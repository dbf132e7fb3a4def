/* SPDX-License-Identifier: MIT */
/* What a return after a page fault costs: in ONE process (so that where a
 * process lands, which moves a fault loop by 20-30% from one process to the
 * next, is the same for all), pinned to one CPU, slices of 100 ms of the
 * same fault loop (write one byte to a fresh page of a 16 MiB private
 * anonymous region without THP; madvise(MADV_DONTNEED) when all are
 * touched, as mem.fault and bench/bare-tasks.c do) are alternated between
 * shapes of the code around the write:
 *   inline          the write in the loop: no call, no return per fault
 *   called          the write in a function called through a pointer, which
 *                   then returns (scalebench's op, bare-tasks' "fault")
 *   inline+call     the write inline, then a call of an empty function
 *   called, 2 deep  the write two calls down: two returns after it
 * and, for comparison, a raw getppid system call inline and in a called
 * function. Prints the CPU time per fault (thread CPU clock / faults) of
 * each shape: the median over the slices and the lowest.
 *
 *   cc -O2 -o /tmp/fault-return bench/fault-return.c && /tmp/fault-return [ROUNDS]
 * ROUNDS: slices per shape, default 10. Linux/x86-64 for the raw system
 * call (elsewhere that part is left out). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) && defined(__linux__)
#include <sys/syscall.h>
#define RAW_SYSCALL 1
#endif

#define NP 4096
#define MAXR 100

static char *region;
static size_t next, page;

static uint64_t ns_of(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void touch(void) { *(volatile char *)(region + next++ * page) = 1; }
static void nothing(void) { __asm__ volatile("" ::: "memory"); }
static void touch_deep(void);
static void (*volatile touch_fn)(void) = touch, (*volatile nothing_fn)(void) = nothing,
	(*volatile deep_fn)(void) = touch_deep;
static void touch_deep(void)
{
	touch_fn();
	__asm__ volatile("" ::: "memory"); /* a real call, not a tail jump */
}

#ifdef RAW_SYSCALL
static inline void raw_getppid(void)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_getppid) : "rcx", "r11", "memory");
}
static void called_getppid(void) { raw_getppid(); }
static void (*volatile getppid_fn)(void) = called_getppid;
#endif

enum { INLINE, CALLED, INLINE_CALL, DEEP, SYS_INLINE, SYS_CALLED, NSHAPES };
static const char *const names[NSHAPES] = {"inline", "called", "inline+call", "called, 2 deep",
					   "getppid inline", "getppid called"};

/* 100 ms of one shape: CPU ns per operation */
static double slice(int shape)
{
	uint64_t c0 = ns_of(CLOCK_THREAD_CPUTIME_ID), end = ns_of(CLOCK_MONOTONIC) + 100000000u, n = 0;
	do {
		for (int i = 0; i < 256; i++) {
			if (shape < SYS_INLINE && next == NP) {
				madvise(region, page * NP, MADV_DONTNEED);
				next = 0;
			}
			switch (shape) {
			case INLINE: *(volatile char *)(region + next++ * page) = 1; break;
			case CALLED: touch_fn(); break;
			case INLINE_CALL: *(volatile char *)(region + next++ * page) = 1; nothing_fn(); break;
			case DEEP: deep_fn(); break;
#ifdef RAW_SYSCALL
			case SYS_INLINE: raw_getppid(); break;
			case SYS_CALLED: getppid_fn(); break;
#endif
			}
		}
		n += 256;
	} while (ns_of(CLOCK_MONOTONIC) < end);
	return (double)(ns_of(CLOCK_THREAD_CPUTIME_ID) - c0) / (double)n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	if (rounds < 1 || rounds > MAXR) {
		fprintf(stderr, "usage: fault-return [ROUNDS 1..%d]\n", MAXR);
		return 2;
	}
	cpu_set_t s;
	if (sched_getaffinity(0, sizeof(s), &s) == 0) { /* pinned: the first CPU allowed */
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &s)) {
				CPU_ZERO(&s);
				CPU_SET(c, &s);
				sched_setaffinity(0, sizeof(s), &s);
				break;
			}
	}
	page = (size_t)sysconf(_SC_PAGESIZE);
	region = mmap(NULL, page * NP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
#ifdef MADV_NOHUGEPAGE
	madvise(region, page * NP, MADV_NOHUGEPAGE);
#endif
	int nshapes = NSHAPES;
#ifndef RAW_SYSCALL
	nshapes = SYS_INLINE;
#endif
	static double v[NSHAPES][MAXR];
	slice(INLINE); /* warm-up */
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < nshapes; k++) { /* each round starts with another shape */
			int x = (k + r) % nshapes;
			v[x][r] = slice(x);
		}
	for (int x = 0; x < nshapes; x++) {
		qsort(v[x], (size_t)rounds, sizeof(double), cmp);
		printf("%-16s %6.0f ns per %s (median of %d slices of 100 ms), lowest %.0f\n", names[x],
		       v[x][rounds / 2], x < SYS_INLINE ? "fault  " : "syscall", rounds, v[x][0]);
	}
	munmap(region, page * NP);
	return 0;
}
