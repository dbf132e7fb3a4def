/* SPDX-License-Identifier: MIT */
/* A bare timer wake-up loop, the third opinion beside rt.wakeup and
 * cyclictest (bench/cyclictest-crosscheck.sh, BARE=1): one thread per CPU
 * given, pinned there, SCHED_FIFO at PRIO, memory locked and
 * /dev/cpu_dma_latency held at 0, sleeping to absolute CLOCK_MONOTONIC
 * times every INTERVAL_US; the latency is the clock read on waking minus
 * the time wanted, added to a histogram of 1 us bins (cyclictest's). No
 * ring, no drain thread, no output until the end.
 *   bare-wakeup CPULIST(0,1) PRIO INTERVAL_US SECONDS
 * Prints one line "us count" per non-empty bin (the bins of all threads
 * added up, latency floored to whole us), then "# max US". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define BINS 20000

struct th {
	pthread_t t;
	int cpu, prio;
	uint64_t interval_ns, end_ns, max_ns;
	uint64_t *bins;
	int err;
};

static uint64_t ns_of(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}

static void *loop(void *arg)
{
	struct th *t = arg;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	struct sched_param sp = {.sched_priority = t->prio};
	if ((t->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) ||
	    (t->err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)))
		return NULL;
	struct timespec next, now;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		uint64_t want = ns_of(&next) + t->interval_ns;
		next.tv_sec = (time_t)(want / 1000000000u);
		next.tv_nsec = (long)(want % 1000000000u);
		if (want >= t->end_ns)
			break;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		clock_gettime(CLOCK_MONOTONIC, &now);
		uint64_t lat = ns_of(&now) > want ? ns_of(&now) - want : 0;
		t->bins[lat / 1000 < BINS ? lat / 1000 : BINS - 1]++;
		t->max_ns = lat > t->max_ns ? lat : t->max_ns;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: bare-wakeup CPULIST(0,1) PRIO INTERVAL_US SECONDS\n");
		return 2;
	}
	struct th th[64];
	int n = 0;
	for (char *s = argv[1], *e; *s && n < 64; s = *e ? e + 1 : e) {
		th[n].cpu = (int)strtol(s, &e, 10);
		th[n].prio = atoi(argv[2]);
		th[n].interval_ns = strtoull(argv[3], NULL, 10) * 1000u;
		th[n].max_ns = 0;
		th[n].bins = calloc(BINS, sizeof(uint64_t));
		if (e == s || !th[n].bins)
			return 2;
		n++;
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("mlockall");
	int32_t zero = 0;
	int dma = open("/dev/cpu_dma_latency", O_WRONLY);
	if (dma < 0 || write(dma, &zero, sizeof(zero)) != sizeof(zero))
		perror("/dev/cpu_dma_latency");
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t end = ns_of(&t0) + (uint64_t)(atof(argv[4]) * 1e9);
	for (int i = 0; i < n; i++) {
		th[i].end_ns = end;
		if (pthread_create(&th[i].t, NULL, loop, &th[i]))
			return 1;
	}
	uint64_t max = 0;
	for (int i = 0; i < n; i++) {
		pthread_join(th[i].t, NULL);
		if (th[i].err) {
			fprintf(stderr, "bare-wakeup: CPU %d: %s\n", th[i].cpu, strerror(th[i].err));
			return 1;
		}
		max = th[i].max_ns > max ? th[i].max_ns : max;
	}
	for (int b = 0; b < BINS; b++) {
		uint64_t c = 0;
		for (int i = 0; i < n; i++)
			c += th[i].bins[b];
		if (c)
			printf("%d %llu\n", b, (unsigned long long)c);
	}
	printf("# max %.1f\n", (double)max / 1e3);
	if (dma >= 0)
		close(dma);
	return 0;
}
