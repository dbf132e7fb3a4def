/* Bare C loops, the reference the harness is measured against: the same
 * operation timed with CLOCK_MONOTONIC around each call, no harness.
 * usage: bare stat PATH COUNT | bare fork COUNT
 * prints the median ns per operation. */
#define _GNU_SOURCE
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

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int is_stat = !strcmp(argv[1], "stat");
	long n = atol(argv[is_stat ? 3 : 2]);
	uint64_t *t = malloc((size_t)n * sizeof(*t));
	struct stat st;
	for (long i = 0; i < n; i++) {
		uint64_t t0 = now();
		if (is_stat) {
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
