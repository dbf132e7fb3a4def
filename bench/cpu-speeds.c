/* SPDX-License-Identifier: MIT */
/* Does the host slow one vCPU at a time? For SECONDS, every PERIOD_MS:
 * the machine-speed probe (src/core/probe.c) read on each allowed CPU in
 * turn (the thread pinned to it, up to 8 CPUs), each part against the
 * fastest reading of that part on any CPU so far. Prints a line per round
 * (each CPU's page-fault and system-call times and its slowness), then
 * how often the slowest CPU's slowness was at least 1.15 times the
 * fastest's (a CPU slowed against the others), and for how long at a
 * stretch. docs/method.md, "Slowed CPUs".
 *
 *   sh bench/cpu-speeds.sh [SECONDS (60)] [PERIOD_MS (200)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/probe.h"
#include "sys/sys.h"

#define MAXC 8
#define SLOWED 1.15

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 60;
	long period = argc > 2 ? atol(argv[2]) : 200;
	unsigned char set[SYS_MAX_CPUS];
	int cpu[MAXC], nc = 0;
	if (sys_get_pinned(set, SYS_MAX_CPUS) < 2) {
		fprintf(stderr, "cpu-speeds: fewer than two CPUs allowed\n");
		return 2;
	}
	for (int i = 0; i < SYS_MAX_CPUS && nc < MAXC; i++)
		if (set[i])
			cpu[nc++] = i;
	struct probe ref, r[MAXC];
	probe_reference(&ref, 3);
	int rounds = 0, slowed = 0, run = 0, longest = 0, stretches = 0;
	uint64_t t0 = clock_ns();
	while ((double)(clock_ns() - t0) < secs * 1e9) {
		double s[MAXC], lo = 0, hi = 0;
		for (int k = 0; k < nc; k++) {
			if (sys_pin_thread(cpu[k])) {
				fprintf(stderr, "cpu-speeds: cannot pin to CPU %d\n", cpu[k]);
				return 1;
			}
			probe_take(&r[k]);
		}
		for (int k = 0; k < nc; k++)
			probe_min(&ref, &ref, &r[k]);
		printf("%7.1f s", (double)(clock_ns() - t0) / 1e9);
		for (int k = 0; k < nc; k++) {
			s[k] = probe_slowness(&r[k], &ref);
			lo = k == 0 || s[k] < lo ? s[k] : lo;
			hi = k == 0 || s[k] > hi ? s[k] : hi;
			printf("  cpu%d fault %5.1f us syscall %5.0f ns x%.2f", cpu[k],
			       r[k].ns[PROBE_FAULT] / 1e3, r[k].ns[PROBE_SYSCALL], s[k]);
		}
		int is = hi >= SLOWED * lo;
		printf("%s\n", is ? "  slowed" : "");
		rounds++;
		slowed += is;
		if (is) {
			stretches += run == 0;
			run++;
			longest = run > longest ? run : longest;
		} else {
			run = 0;
		}
		struct timespec ts = {period / 1000, (period % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
	printf("%d rounds over %.0f s: one CPU at least %.2fx slower than another in %d (%.0f%%), "
	       "%d stretches, the longest %d rounds (%.1f s)\n",
	       rounds, secs, SLOWED, slowed, rounds ? 100.0 * slowed / rounds : 0, stretches, longest,
	       longest * (double)period / 1e3);
	return 0;
}
