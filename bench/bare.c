/* SPDX-License-Identifier: MIT */
/* Bare C loops, the reference the harness is measured against: the same
 * call timed with CLOCK_MONOTONIC around each call, no harness at all.
 *   bare fstatat DIR NAME COUNT   fstatat(dirfd(DIR), NAME) — what fs.stat times
 *   bare stat PATH COUNT          stat(PATH)
 *   bare fork COUNT               fork + _exit(0) + waitpid — what proc.fork times
 *   bare getppid K COUNT          K getppid calls per sample (the batch proc.syscall
 *                                 chose: one clock read pair per K calls, as there)
 * Like the harness, it first warms up for 20 ms with untimed calls.
 * Prints the median ns per call. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The loop proc.syscall's caller runs for one sample: K calls between two
 * clock reads, the last result checked. */
static int getppid_loop(int argc, char **argv, long n)
{
	long k = argc == 4 ? atol(argv[2]) : 0;
	if (k < 1)
		return 2;
	uint64_t *t = malloc((size_t)n * sizeof(*t));
	if (!t)
		return 1;
	for (uint64_t w0 = now(); now() - w0 < 20000000;)
		getppid();
	for (long i = 0; i < n; i++) {
		pid_t r = 0;
		uint64_t t0 = now();
		for (long j = 0; j < k; j++)
			r = getppid();
		uint64_t t1 = now();
		if (r <= 0)
			return 1;
		t[i] = t1 - t0;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("%.1f\n", (double)t[n / 2] / (double)k);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bare fstatat DIR NAME COUNT | stat PATH COUNT | fork COUNT | "
				"getppid K COUNT\n");
		return 2;
	}
	const char *mode = argv[1];
	long n = atol(argv[argc - 1]);
	if (n < 1)
		return 2;
	if (!strcmp(mode, "getppid"))
		return getppid_loop(argc, argv, n);
	uint64_t *t = malloc((size_t)n * sizeof(*t));
	struct stat st;
	int dfd = -1;
	if (!strcmp(mode, "fstatat") && (argc < 5 || (dfd = open(argv[2], O_RDONLY | O_DIRECTORY)) < 0))
		return 1;
	for (long i = -1; i < n; i++) {
		uint64_t t0 = now();
		if (i < 0) { /* warm-up round: repeat the loop body for 20 ms */
			while (now() - t0 < 20000000) {
				if (dfd >= 0)
					fstatat(dfd, argv[3], &st, 0);
				else if (!strcmp(mode, "stat"))
					stat(argv[2], &st);
				else {
					pid_t p = fork();
					if (p == 0)
						_exit(0);
					waitpid(p, NULL, 0);
				}
			}
			continue;
		}
		if (dfd >= 0) {
			if (fstatat(dfd, argv[3], &st, 0))
				return 1;
		} else if (!strcmp(mode, "stat")) {
			if (stat(argv[2], &st))
				return 1;
		} else {
			pid_t p = fork();
			if (p == 0)
				_exit(0);
			waitpid(p, NULL, 0);
		}
		t[i] = now() - t0;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("%llu\n", (unsigned long long)t[n / 2]);
	free(t);
	return 0;
}
