/* SPDX-License-Identifier: MIT */
/* What run --tasks does per operation that bench/bare-tasks.c does not,
 * each difference measured on its own: in ONE process pinned to one CPU
 * (so that where a process lands is the same for all), slices of SLICE_MS
 * of each loop shape are alternated round-robin for ROUNDS rounds, and the
 * CPU time per op (CLOCK_THREAD_CPUTIME_ID over the slice / ops) of each
 * shape is printed: the median over the rounds, the lowest, and the median
 * relative to the bare loop's of the same round.
 *
 *   cc -O2 -Isrc/core -o /tmp/anat bench/tasks-anatomy.c src/core/hist.c -lm
 *   /tmp/anat create|mmap [ROUNDS] [DIR] [CPU]
 *
 * create (fs.create at N=1 against bare-tasks' create), shapes:
 *   bare        openat("p", O_CREAT|O_EXCL) + close + unlinkat, inline
 *   +name       the same with scalebench's probe name "p<i>" (snprintf per
 *               op, a new name each time), nothing else
 *   fixname     a fixed name as long as scalebench's in a 1 s run ("p123456"),
 *               no snprintf: the name's length alone
 *   +e0         bare in a directory also holding e0 (scalebench's load N=1)
 *   +calls      bare with prep (empty), op and undo called through pointers
 *   +timing     bare with two clock reads and a histogram insert per op
 *               (src/core/hist.c, as the core does)
 *   scalebench  all of it: the core's loop (src/core/tasks.c task_loop) with
 *               fsdir's prep (snprintf), the op and the undo through pointers
 *   +namefast   bare with the names "p<i>" made by incrementing the decimal
 *               counter in the name in place (no snprintf)
 *   sb-fast     the core's loop with that prep (fsdir's since this change)
 *   sb-reuse    the same loop with a probe name formatted once and reused
 * mmap (mem.mmap at N=1 against bare-tasks' mmap), shapes:
 *   bare        mmap(one page, rw, private anon) + munmap, inline
 *   +calls, +timing, scalebench (the core's loop, the op through a pointer)
 *
 * Linux (sched_setaffinity); a development tool, not part of the build. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hist.h"

#define SLICE_MS 50
#define MAXR 200
#define MAXV 16

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int dfd[MAXV];
static size_t page;
static struct hist *h;
static uint64_t probes, ops_in, series[20];
static char name[40];

/* the next probe name "p<i>" from the last, the decimal counter
 * incremented in place (what fsdir's prep does since this change) */
static void name_next(char *nm)
{
	size_t n = strlen(nm);
	size_t i = n;
	while (i > 1 && nm[i - 1] == '9')
		nm[--i] = '0';
	if (i > 1) {
		nm[i - 1]++;
	} else { /* all nines: one digit more */
		nm[1] = '1';
		nm[n] = '0';
		nm[n + 1] = 0;
	}
}

/* the bench's callbacks, called through pointers as the core calls them */
static int prep_none(int d) { (void)d; return 0; }
static int prep_name(int d)
{
	(void)d;
	snprintf(name, sizeof(name), "p%llu%s", (unsigned long long)probes++, "");
	return 0;
}
static int op_create(int d)
{
	int fd = openat(d, name, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0 || close(fd))
		return -1;
	return 0;
}
static int undo_unlink(int d) { return unlinkat(d, name, 0) ? -1 : 0; }
static int op_mmap(int d)
{
	(void)d;
	void *m = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || munmap(m, page))
		return -1;
	return 0;
}
static int prep_fast(int d)
{
	(void)d;
	name_next(name);
	return 0;
}
static int (*volatile f_prep_none)(int) = prep_none;
static int (*volatile f_prep_fast)(int) = prep_fast;
static int (*volatile f_prep_name)(int) = prep_name;
static int (*volatile f_create)(int) = op_create;
static int (*volatile f_unlink)(int) = undo_unlink;
static int (*volatile f_mmap)(int) = op_mmap;

enum shape { BARE, NAME, FIXNAME, E0, CALLS, TIMING, SB, SBREUSE, NAMEFAST, SBFAST };

/* the core's loop, as in task_loop: prep, clock, op, clock, histogram,
 * counters, undo; stops at the slice's end as the core does at its window's */
static uint64_t core_loop(int d, int (*prep)(int), int (*op)(int), int (*undo)(int),
			  uint64_t t_end)
{
	uint64_t n = 0, t_start = now_ns(CLOCK_MONOTONIC);
	for (;;) {
		if (prep && prep(d) < 0)
			break;
		uint64_t t0 = now_ns(CLOCK_MONOTONIC);
		if (t0 >= t_end)
			break;
		if (op(d) < 0)
			exit(1);
		uint64_t t1 = now_ns(CLOCK_MONOTONIC);
		hist_add(h, (double)(t1 - t0));
		ops_in++;
		uint64_t i = (t0 - t_start) / 50000000u;
		if (i < 20)
			series[i]++;
		if (t1 - t0 > 10000000000ull)
			exit(1);
		if (undo && undo(d) < 0)
			exit(1);
		n++;
	}
	return n;
}

/* ops in one slice of shape s of operation op ("create" or "mmap") */
static uint64_t slice(const char *op, enum shape s, int d)
{
	uint64_t t_end = now_ns(CLOCK_MONOTONIC) + SLICE_MS * 1000000ull, n = 0;
	int cr = !strcmp(op, "create");
	if (s == SB)
		return core_loop(d, cr ? f_prep_name : NULL, cr ? f_create : f_mmap,
				 cr ? f_unlink : NULL, t_end);
	if (s == SBFAST) {
		snprintf(name, sizeof(name), "p%llu", (unsigned long long)probes++);
		return core_loop(d, f_prep_fast, cr ? f_create : f_mmap, cr ? f_unlink : NULL, t_end);
	}
	if (s == SBREUSE) {
		snprintf(name, sizeof(name), "p%llu", (unsigned long long)probes++);
		return core_loop(d, f_prep_none, cr ? f_create : f_mmap, cr ? f_unlink : NULL, t_end);
	}
	if (s == NAME || s == FIXNAME || s == BARE || s == E0)
		snprintf(name, sizeof(name), s == FIXNAME ? "p123456" : "p");
	if (s == NAMEFAST)
		snprintf(name, sizeof(name), "p%llu", (unsigned long long)probes++);
	while ((n & 63) || now_ns(CLOCK_MONOTONIC) < t_end) {
		uint64_t t0 = 0;
		if (s == TIMING)
			t0 = now_ns(CLOCK_MONOTONIC);
		if (cr) {
			if (s == NAME)
				snprintf(name, sizeof(name), "p%llu%s", (unsigned long long)probes++, "");
			if (s == NAMEFAST)
				name_next(name);
			if (s == CALLS) {
				if (f_prep_none(d) < 0 || f_create(d) < 0 || f_unlink(d) < 0)
					exit(1);
			} else {
				close(openat(d, name, O_CREAT | O_EXCL | O_WRONLY, 0644));
				if (s == TIMING)
					hist_add(h, (double)(now_ns(CLOCK_MONOTONIC) - t0));
				unlinkat(d, name, 0);
			}
		} else {
			if (s == CALLS) {
				if (f_mmap(d) < 0)
					exit(1);
			} else {
				void *m = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				munmap(m, page);
				if (s == TIMING)
					hist_add(h, (double)(now_ns(CLOCK_MONOTONIC) - t0));
			}
		}
		n++;
	}
	return n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "create";
	int rounds = argc > 2 ? atoi(argv[2]) : 20;
	const char *dir = argc > 3 ? argv[3] : "/dev/shm";
	int cpu = argc > 4 ? atoi(argv[4]) : 0;
	if (rounds < 1 || rounds > MAXR || (strcmp(op, "create") && strcmp(op, "mmap"))) {
		fprintf(stderr, "usage: tasks-anatomy create|mmap [ROUNDS <= %d] [DIR] [CPU]\n", MAXR);
		return 2;
	}
	cpu_set_t cs;
	CPU_ZERO(&cs);
	CPU_SET(cpu, &cs);
	if (sched_setaffinity(0, sizeof(cs), &cs))
		perror("sched_setaffinity");
	page = (size_t)sysconf(_SC_PAGESIZE);
	h = hist_new();
	static const char *cname[] = {"bare", "+name", "fixname", "+e0", "+calls", "+timing",
				      "scalebench", "sb-reuse", "+namefast", "sb-fast"};
	enum shape cshapes[] = {BARE, NAME, NAMEFAST, FIXNAME, E0, CALLS, TIMING, SB, SBFAST, SBREUSE};
	enum shape mshapes[] = {BARE, CALLS, TIMING, SB};
	int cr = !strcmp(op, "create");
	enum shape *sh = cr ? cshapes : mshapes;
	int nv = cr ? 10 : 4;
	char top[4096];
	snprintf(top, sizeof(top), "%s/tasks-anatomy.%d", dir, (int)getpid());
	if (mkdir(top, 0755)) {
		perror(top);
		return 1;
	}
	for (int v = 0; v < nv; v++) {
		char d[4200];
		snprintf(d, sizeof(d), "%s/v%d", top, v);
		mkdir(d, 0755);
		dfd[v] = open(d, O_RDONLY | O_DIRECTORY);
		if (sh[v] == E0)
			close(openat(dfd[v], "e0", O_CREAT | O_EXCL | O_WRONLY, 0644));
	}
	static double per[MAXV][MAXR], rel[MAXV][MAXR];
	for (int r = -1; r < rounds; r++) { /* round -1: warm-up, not kept */
		for (int v = 0; v < nv; v++) {
			uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
			uint64_t n = slice(op, sh[v], dfd[v]);
			uint64_t c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
			if (r >= 0)
				per[v][r] = (double)(c1 - c0) / (double)n;
		}
		for (int v = 0; r >= 0 && v < nv; v++)
			rel[v][r] = per[v][r] / per[0][r];
	}
	printf("%s, CPU %d, %d rounds of %d ms slices: CPU ns per op (median, lowest), median of "
	       "per-round ratio to bare\n", op, cpu, rounds, SLICE_MS);
	for (int v = 0; v < nv; v++) {
		qsort(per[v], (size_t)rounds, sizeof(double), cmp);
		qsort(rel[v], (size_t)rounds, sizeof(double), cmp);
		printf("  %-10s %8.0f %8.0f  %.3f\n", cr ? cname[sh[v]] : cname[sh[v]], per[v][rounds / 2],
		       per[v][0], rel[v][rounds / 2]);
	}
	for (int v = 0; v < nv; v++) {
		if (sh[v] == E0)
			unlinkat(dfd[v], "e0", 0);
		close(dfd[v]);
		char d[4200];
		snprintf(d, sizeof(d), "%s/v%d", top, v);
		rmdir(d);
	}
	rmdir(top);
	hist_free(h);
	return 0;
}
