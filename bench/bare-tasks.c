/* SPDX-License-Identifier: MIT */
/* Bare loops in K processes or K threads, the reference run --tasks is
 * checked against (bench/tasks-crosscheck.sh): will-it-scale's method,
 * with no harness at all. Each task is pinned to CPU k while K <= the
 * CPUs allowed, makes its objects, and loops its operation, adding one to
 * a counter of its own (in memory shared with the parent) per operation;
 * no clock is read in the loop. The parent lets them warm up for WARM ms,
 * reads the counters, sleeps SECONDS, reads them again, stops the tasks,
 * and prints the total ops/s and the per-task ops/s, then "|" and the ops
 * per second of the tasks' own CPU time over the same window (Linux: each
 * task's /proc/TID/schedstat, read with the counters; 0 where unknown),
 * which does not depend on how much of its CPU others took.
 *
 *   bare-tasks OP proc|thread K SECONDS DIR
 * OP, each what the scalebench bench of that name does at N=1 per task:
 *   stat     fstatat of one existing file of the task's directory (fs.stat)
 *   open     openat(O_RDONLY) + close of it (fs.open)
 *   create   openat(O_CREAT|O_EXCL) + close + unlinkat (fs.create; the unlink is
 *            untimed there but inside its loop, as here) of a new name each
 *            time, p0, p1, ... made as fs.create's prep makes them (the last
 *            name's digits incremented in place), in a directory also holding
 *            e0 (fs.create at N=1). Reusing one name, as this loop did before,
 *            spared the kernel 2% of the op (bench/tasks-anatomy.c).
 *   mmap     mmap of one private anonymous page + munmap (mem.mmap), with one
 *            PROT_READ page held beside (mem.mmap at N=1)
 *   fault    write one byte to a fresh page of a 16 MiB private anonymous
 *            region without THP; madvise(MADV_DONTNEED) when all are touched
 *            (mem.fault). The write is in a function called per op, as
 *            scalebench's op is and as every other op here is (a call of a
 *            libc wrapper): after the kernel entry comes a return.
 *   fault-inline  the same with the write inline in the loop, no call and
 *            no return per op (will-it-scale's page_fault shape). Not what
 *            the cross-check judges: on a 2-vCPU KVM guest (AMD EPYC, Linux
 *            6.18) the first return after a page fault cost 0.4-0.5 us
 *            more than no return at all (bench/fault-return.c), a fifth of
 *            the fault; tasks-crosscheck.sh prints it beside.
 *   socket   socket(AF_INET, SOCK_STREAM) + close (net.socket)
 *   fork     fork + _exit(0) + waitpid (proc.fork), with one sleeping child
 *            held beside (proc.fork at N=1). fork copies the forking
 *            process's mappings and page tables, so a task process first
 *            grows to the footprint scalebench's forking task reports (its
 *            note "the forking process: M mappings, K KiB anonymous
 *            resident"), given as BARE_FORK_MAPS=M BARE_FORK_ANON_KIB=K:
 *            one anonymous region touched for the missing resident KiB,
 *            then one-page mappings (alternately PROT_READ and
 *            PROT_NONE, so that none merge) for the missing mappings,
 *            and says on stderr what it has then. Without them, or in
 *            threads, as it is.
 * Each task works in DIR/t<k> (made and removed here). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REGION_PAGES 4096
#define WARM_MS 100
#define MAXK 256

struct shared {
	volatile int go, stop, ready, failed;
	volatile uint64_t count[MAXK][8]; /* [k][0], a cache line each */
	volatile int tid[MAXK];
};

static struct shared *sh;

/* one fault, in a function of its own called through a pointer (not
 * inlined), as scalebench's mem.fault op is called */
static void touch(char *p)
{
	*(volatile char *)p = 1;
}
static void (*volatile touch_fn)(char *) = touch;
static const char *op, *dir;
static int as_thread;
static int ncpu_allowed, cpus[MAXK], K;

/* CPU time a task has run (ns), 0 where unknown */
static uint64_t cpu_ns(int tid)
{
	char p[64];
	unsigned long long v = 0;
	snprintf(p, sizeof(p), "/proc/%d/schedstat", tid);
	FILE *f = fopen(p, "r");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static void pin(int k)
{
	if (K > ncpu_allowed)
		return;
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpus[k], &s);
	sched_setaffinity(0, sizeof(s), &s);
}

/* this process's mappings and anonymous resident KiB (Linux /proc) */
static int footprint(long *maps, long *anon)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	*maps = 0;
	while (fgets(line, sizeof(line), f))
		if (strchr(line, '\n'))
			(*maps)++;
	fclose(f);
	if (!(f = fopen("/proc/self/status", "r")))
		return -1;
	*anon = -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %ld", anon) == 1)
			break;
	fclose(f);
	return *anon < 0 ? -1 : 0;
}

/* grow to BARE_FORK_MAPS mappings and BARE_FORK_ANON_KIB KiB anonymous
 * resident (what scalebench's forking task reports), where asked */
static void pad_footprint(void)
{
	const char *em = getenv("BARE_FORK_MAPS"), *ea = getenv("BARE_FORK_ANON_KIB");
	long maps, anon, page = sysconf(_SC_PAGESIZE);
	if (!em || !ea || footprint(&maps, &anon))
		return;
	long want_maps = atol(em), want_anon = atol(ea);
	if (want_anon > anon) {
		size_t len = (size_t)(want_anon - anon) * 1024;
		char *r = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r != MAP_FAILED)
			for (size_t i = 0; i < len; i += (size_t)page)
				r[i] = 1;
		footprint(&maps, &anon);
	}
	for (long i = 0; maps < want_maps && i < 64; i++, maps++)
		mmap(NULL, (size_t)page, (i & 1) ? PROT_NONE : PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!footprint(&maps, &anon))
		fprintf(stderr, "bare-tasks: the forking process: %ld mappings, %ld KiB anonymous resident\n",
			maps, anon);
}

static void task(int k)
{
	sh->tid[k] = (int)syscall(SYS_gettid);
	pin(k);
	char d[4096];
	snprintf(d, sizeof(d), "%s/t%d", dir, k);
	int dfd = open(d, O_RDONLY | O_DIRECTORY);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *region = NULL, *held = NULL;
	size_t next = 0;
	pid_t sleeper = 0;
	if (dfd < 0)
		goto fail;
	if (!strcmp(op, "stat") || !strcmp(op, "open") || !strcmp(op, "create")) {
		int fd = openat(dfd, "e0", O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0 || close(fd))
			goto fail;
	} else if (!strcmp(op, "fault") || !strcmp(op, "fault-inline")) {
		region = mmap(NULL, page * REGION_PAGES, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (region == MAP_FAILED)
			goto fail;
		madvise(region, page * REGION_PAGES, MADV_NOHUGEPAGE);
	} else if (!strcmp(op, "mmap")) { /* mem.mmap's load at N=1: one PROT_READ page */
		held = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (held == MAP_FAILED)
			goto fail;
	} else if (!strcmp(op, "fork")) { /* proc.fork's load at N=1: one sleeping child */
		if (!as_thread)
			pad_footprint();
		pid_t parent = getpid();
		if ((sleeper = fork()) < 0)
			goto fail;
		if (sleeper == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == parent)
				for (;;)
					pause();
			_exit(0);
		}
	}
	__sync_fetch_and_add(&sh->ready, 1);
	while (!sh->go)
		usleep(100);
	volatile uint64_t *c = &sh->count[k][0];
	struct stat st;
	if (!strcmp(op, "stat")) {
		while (!sh->stop) {
			fstatat(dfd, "e0", &st, 0);
			(*c)++;
		}
	} else if (!strcmp(op, "open")) {
		while (!sh->stop) {
			close(openat(dfd, "e0", O_RDONLY));
			(*c)++;
		}
	} else if (!strcmp(op, "create")) {
		char nm[24] = "p0";
		size_t len = 2;
		while (!sh->stop) {
			close(openat(dfd, nm, O_CREAT | O_EXCL | O_WRONLY, 0644));
			unlinkat(dfd, nm, 0);
			(*c)++;
			size_t i = len; /* the next name, as src/bench/fsdir.c makes it */
			while (i > 1 && nm[i - 1] == '9')
				nm[--i] = '0';
			if (i > 1) {
				nm[i - 1]++;
			} else {
				nm[1] = '1';
				nm[len++] = '0';
				nm[len] = 0;
			}
		}
	} else if (!strcmp(op, "mmap")) {
		while (!sh->stop) {
			void *m = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			munmap(m, page);
			(*c)++;
		}
	} else if (!strcmp(op, "fault")) {
		while (!sh->stop) {
			if (next == REGION_PAGES) {
				madvise(region, page * REGION_PAGES, MADV_DONTNEED);
				next = 0;
			}
			touch_fn(region + next++ * page);
			(*c)++;
		}
	} else if (!strcmp(op, "fault-inline")) {
		while (!sh->stop) {
			if (next == REGION_PAGES) {
				madvise(region, page * REGION_PAGES, MADV_DONTNEED);
				next = 0;
			}
			*(volatile char *)(region + next++ * page) = 1;
			(*c)++;
		}
	} else if (!strcmp(op, "socket")) {
		while (!sh->stop) {
			close(socket(AF_INET, SOCK_STREAM, 0));
			(*c)++;
		}
	} else if (!strcmp(op, "fork")) {
		while (!sh->stop) {
			pid_t p = fork();
			if (p == 0)
				_exit(0);
			waitpid(p, NULL, 0);
			(*c)++;
		}
	}
	if (region)
		munmap(region, page * REGION_PAGES);
	if (held)
		munmap(held, page);
	if (sleeper > 0) {
		kill(sleeper, SIGKILL);
		waitpid(sleeper, NULL, 0);
	}
	unlinkat(dfd, "e0", 0);
	close(dfd);
	return;
fail:
	sh->failed = 1;
	__sync_fetch_and_add(&sh->ready, 1);
	if (dfd >= 0)
		close(dfd);
}

static void *thread_main(void *a)
{
	task((int)(intptr_t)a);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: bare-tasks stat|open|create|mmap|fault|fault-inline|socket|fork proc|thread K SECONDS DIR\n");
		return 2;
	}
	op = argv[1];
	int threads = as_thread = !strcmp(argv[2], "thread");
	K = atoi(argv[3]);
	double secs = atof(argv[4]);
	dir = argv[5];
	if (K < 1 || K > MAXK || secs <= 0)
		return 2;
	cpu_set_t s;
	sched_getaffinity(0, sizeof(s), &s);
	for (int c = 0; c < CPU_SETSIZE && ncpu_allowed < MAXK; c++)
		if (CPU_ISSET(c, &s))
			cpus[ncpu_allowed++] = c;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	pid_t pids[MAXK];
	pthread_t tids[MAXK];
	for (int k = 0; k < K; k++) {
		char d[4096];
		snprintf(d, sizeof(d), "%s/t%d", dir, k);
		if (mkdir(d, 0755))
			return 1;
	}
	for (int k = 0; k < K; k++) {
		if (threads) {
			pthread_create(&tids[k], NULL, thread_main, (void *)(intptr_t)k);
		} else if ((pids[k] = fork()) == 0) {
			task(k);
			_exit(0);
		}
	}
	while (sh->ready < K)
		usleep(1000);
	uint64_t a[MAXK], b[MAXK], ca[MAXK], cb[MAXK];
	struct timespec t0, t1, warm = {0, WARM_MS * 1000000L};
	if (!sh->failed) {
		sh->go = 1;
		nanosleep(&warm, NULL);
		for (int k = 0; k < K; k++) {
			a[k] = sh->count[k][0];
			ca[k] = cpu_ns(sh->tid[k]);
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		struct timespec w = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
		nanosleep(&w, NULL);
		for (int k = 0; k < K; k++) {
			b[k] = sh->count[k][0];
			cb[k] = cpu_ns(sh->tid[k]);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
	}
	sh->stop = 1;
	sh->go = 1;
	for (int k = 0; k < K; k++) {
		if (threads)
			pthread_join(tids[k], NULL);
		else
			waitpid(pids[k], NULL, 0);
		char d[4096];
		snprintf(d, sizeof(d), "%s/t%d", dir, k);
		rmdir(d);
	}
	if (sh->failed) {
		fprintf(stderr, "bare-tasks: a task could not make its objects\n");
		return 1;
	}
	double el = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	double tot = 0;
	for (int k = 0; k < K; k++)
		tot += (double)(b[k] - a[k]);
	printf("%.0f", tot / el);
	for (int k = 0; k < K; k++)
		printf(" %.0f", (double)(b[k] - a[k]) / el);
	double cpu = 0;
	for (int k = 0; k < K; k++) {
		if (!ca[k] || cb[k] < ca[k]) { /* unknown for one: for all */
			cpu = 0;
			break;
		}
		/* equal: the task had no CPU in the window (a busier task held
		 * its CPU), which is known */
		cpu += (double)(cb[k] - ca[k]) / 1e9;
	}
	printf(" | %.0f\n", cpu > 0 ? tot / cpu : 0);
	return 0;
}
