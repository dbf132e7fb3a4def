/* SPDX-License-Identifier: MIT */
/* Does the machine-speed probe (src/core/probe.c) see the stretches that
 * slow OS operations? For SECONDS, over and over: a probe reading, then a
 * window of WINDOW_MS timing an OS operation (fstat of a file, getppid,
 * or a page fault: OP), then another reading. Prints one line per window
 * (its median against the fastest window's, and the probe's slowness
 * against the fastest reading), then how often a window the probe calls
 * slow (>= PROBE_SLOW) is slow itself, and the reverse.
 *
 *   bench/probe-drift.sh [SECONDS] [OP]   (builds this against libsb.a) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "clock.h"
#include "probe.h"

#define MAXW 20000

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double op_fstat(int fd)
{
	struct stat st;
	uint64_t t0 = clock_ns();
	fstat(fd, &st);
	return (double)(clock_ns() - t0);
}

static double op_getppid(int fd)
{
	(void)fd;
	uint64_t t0 = clock_ns();
	if (getppid() < 0)
		return NAN;
	return (double)(clock_ns() - t0);
}

static double op_fault(int fd)
{
	(void)fd;
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NAN;
	uint64_t t0 = clock_ns();
	((volatile char *)m)[0] = 1;
	double d = (double)(clock_ns() - t0);
	munmap(m, (size_t)pg);
	return d;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 20;
	const char *opn = argc > 2 ? argv[2] : "fstat";
	double window_ms = argc > 3 ? atof(argv[3]) : 20;
	double (*op)(int) = !strcmp(opn, "getppid") ? op_getppid : !strcmp(opn, "fault") ? op_fault
											 : op_fstat;
	int fd = open("/proc/self/exe", O_RDONLY);
	static double med[MAXW], slow[MAXW], buf[200000];
	struct probe ref, a, b;
	probe_reference(&ref, 5);
	int nw = 0;
	uint64_t end = clock_ns() + (uint64_t)(secs * 1e9);
	int csv = getenv("CSV") != NULL;
	while (clock_ns() < end && nw < MAXW) {
		probe_take(&a);
		uint64_t wend = clock_ns() + (uint64_t)(window_ms * 1e6);
		int n = 0;
		while (clock_ns() < wend && n < 200000)
			buf[n++] = op(fd);
		probe_take(&b);
		qsort(buf, (size_t)n, sizeof(double), cmp_d);
		med[nw] = buf[n / 2];
		probe_min(&ref, &ref, &a);
		probe_min(&ref, &ref, &b);
		/* judged against the final reference below */
		slow[nw] = 0;
		memcpy(&buf[0], &a, sizeof(a)); /* keep the two readings */
		static struct probe pa[MAXW], pb[MAXW];
		pa[nw] = a;
		pb[nw] = b;
		nw++;
		if (clock_ns() >= end || nw == MAXW) {
			double best = INFINITY;
			for (int i = 0; i < nw; i++)
				best = med[i] < best ? med[i] : best;
			int both = 0, pslow = 0, oslow = 0;
			for (int i = 0; i < nw; i++) {
				double s0 = probe_slowness(&pa[i], &ref), s1 = probe_slowness(&pb[i], &ref);
				slow[i] = s0 < s1 ? s0 : s1; /* as the sweep does */
				double r = med[i] / best;
				int ps = slow[i] >= PROBE_SLOW, os = r >= PROBE_SLOW;
				pslow += ps;
				oslow += os;
				both += ps && os;
				if (csv) {
					printf("%.4f", r);
					for (int k = 0; k < PROBE_NPARTS; k++)
						printf(",%.4f,%.4f", pa[i].ns[k] / ref.ns[k], pb[i].ns[k] / ref.ns[k]);
					printf("\n");
					continue;
				}
				printf("window %4d  %s median %8.1f ns  x%.2f of the best   probe slowness %.2f "
				       "(loop %.2f syscall %.2f fault %.2f)%s\n", i, opn, med[i], r, slow[i],
				       pa[i].ns[PROBE_LOOP] / ref.ns[PROBE_LOOP],
				       pa[i].ns[PROBE_SYSCALL] / ref.ns[PROBE_SYSCALL],
				       pa[i].ns[PROBE_FAULT] / ref.ns[PROBE_FAULT], ps ? "  slow" : "");
			}
			printf("%d windows of %.0f ms: %s slow (>= x%.1f of its best window) in %d; the probe "
			       "said slow in %d; both in %d\n",
			       nw, window_ms, opn, PROBE_SLOW, oslow, pslow, both);
		}
	}
	close(fd);
	return 0;
}
